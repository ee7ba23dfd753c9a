# Hostile joiners against the host's matchmaking (p2p/link.py HostLink, cli/host_cmd.py
# host_match), over real TCP on 127.0.0.1: nobody may keep the real joiner out of a hosted match.
#
#   * silent joiners: they complete the handshake and never answer the offer. Offers are made
#     concurrently, so the real joiner, arriving after them, is offered the match at once and
#     wins it; they are closed with "the host already has an opponent". (Regression: one offer
#     at a time, 30 s each, so six silent joiners kept the real one waiting for three minutes.)
#   * a flood: more connections than the host holds (MAX_WAITING); the table stays bounded, the
#     oldest connections of the flooding source are closed with a one-line reason, and a joiner
#     from another source is never the one pushed out.
#   * the offer timeout: a silent joiner alone is dropped after OFFER_TIMEOUT (5 s, measured on
#     trio's mock clock), not 30 s.
#   * a bad HELLO after the accept (the host's own HELLO reflected, a HELLO claiming seat 0):
#     `versus host` drops that joiner with one log line and its CLOSE names the fault, then
#     plays the next joiner with a fresh MatchPeer. (Regression: the host exited.) A joiner
#     that accepts and then stalls is dropped after the setup deadline the same way.
#   * the CLOSE reason a joiner sends is printed by the host as one escaped line.
from __future__ import annotations

import io

import pytest
import trio

from tests.hostile.harness import (
    CATALOGUE,
    CHEATER,
    DECK_RULES,
    FAST_CHANNEL,
    FAST_SESSION,
    IDS,
    LABEL,
    arena,
    honest_joiner,
)
from tests.protocol.pair import identities, master_secret
from versus.cli.host_cmd import host_match
from versus.cli.main import build_parser
from versus.p2p.channel import SecureChannel
from versus.p2p.connect import connect, handshake_initiator
from versus.p2p.errors import PeerClosedError, TransportError
from versus.p2p.link import (
    MAX_WAITING,
    OFFER_TIMEOUT,
    OPPONENT_CHOSEN,
    TABLE_FULL,
    JoinLink,
    take_offer,
)
from versus.p2p.session import MatchSession, open_nursery
from versus.protocol.match import MatchPeer
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.wire.transcript import load_transcript

JUNK = identities("junk")[0]  # every silent joiner: one identity is enough


async def silent_joiner(port: int, source: str | None = None) -> SecureChannel:
    """A joiner that completes the handshake and then says nothing (from `source`, a local
    address of its own, when given)."""
    if source is None:
        return await connect("127.0.0.1", port, JUNK, config=FAST_CHANNEL)
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=source)
    return await handshake_initiator(stream, JUNK, config=FAST_CHANNEL)


async def heard(channel: SecureChannel, limit: float = 5.0) -> tuple[list[object], str]:
    """What the host sent a silent joiner before it closed the connection: (messages, reason)."""
    messages: list[object] = []
    with trio.fail_after(limit):
        while True:
            try:
                messages.append(await channel.receive())
            except PeerClosedError as closed:
                return messages, closed.reason


async def wait_for(condition, limit: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    with trio.fail_after(limit):
        while not condition():
            await trio.sleep(0.01)


# --- silent joiners and floods ------------------------------------------------------------------


def host_args(tmp_path, *extra: str):  # type: ignore[no-untyped-def]
    """`versus host` headless on 127.0.0.1, any free port, a random bot, decklist."""
    return build_parser().parse_args([
        "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random", "--deal", "decklist",
        *extra, "--identity", str(tmp_path / "host.key"), "--data-dir", str(tmp_path / "matches")])


async def hosting(nursery: trio.Nursery, args, lines: list[str], outcomes: list) -> int:  # type: ignore[no-untyped-def,type-arg]
    """Start `host_match(args)` in `nursery` (its log lines into `lines`, its outcome into
    `outcomes`) and return the port it listens on."""

    async def host() -> None:
        outcomes.append(await host_match(args, io.StringIO(), note=lines.append))

    nursery.start_soon(host)
    await wait_for(lambda: any(line.startswith("listening on port") for line in lines))
    return int(next(line for line in lines
                    if line.startswith("listening on port")).split()[3].rstrip(";"))


async def test_silent_joiners_do_not_keep_the_real_joiner_out() -> None:
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            nursery.start_soon(a.host.play)
            junk = [await silent_joiner(a.port) for _ in range(6)]
            await wait_for(lambda: a.host.link.waiting == len(junk))
            started = trio.current_time()
            got_in: list[float] = []

            async def real_joiner() -> None:
                outcome = await honest_joiner(a.port)
                assert outcome.result is not None

            nursery.start_soon(real_joiner)
            await wait_for(lambda: a.host.session is not None and a.host.session.peer.core
                           is not None)
            got_in.append(trio.current_time() - started)
            for channel in junk:  # each was offered the match, none of them answered
                messages, reason = await heard(channel)
                assert [m["t"] for m in messages] == ["offer"]  # type: ignore[index]
                assert reason == OPPONENT_CHOSEN
            await wait_for(lambda: a.host.outcome is not None, 10)
            assert a.host.outcome is not None and a.host.outcome.result is not None
            assert a.host.report().ok
            nursery.cancel_scope.cancel()
    # in at once: well under one offer timeout (the old code: 6 x 30 s)
    assert got_in[0] < OFFER_TIMEOUT / 2, got_in
    print(f"real joiner in the match {got_in[0] * 1000:.0f} ms after it started "
          f"({len(junk)} silent joiners ahead of it)")


async def test_a_flood_is_bounded_and_pushes_out_only_its_own_connections() -> None:
    """The real joiner (127.0.0.1) waits while the host is not offering; a flood from another
    source (127.0.0.2) overfills the table. The table stays at MAX_WAITING, the flood's oldest
    connections are closed with TABLE_FULL, the real joiner stays, and wins the next offer."""
    flood = MAX_WAITING + 8
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            real = await connect("127.0.0.1", a.port, IDS[CHEATER], config=FAST_CHANNEL)
            junk: list[SecureChannel] = []
            most = 0
            for n in range(1, flood + 1):
                junk.append(await silent_joiner(a.port, source="127.0.0.2"))
                await wait_for(lambda n=n: a.host.link.waiting == min(1 + n, MAX_WAITING))
                most = max(most, a.host.link.waiting)
            assert most == MAX_WAITING and not a.host.link.errors
            pushed_out = junk[:flood - MAX_WAITING + 1]  # room for the real joiner too
            for channel in pushed_out:
                assert await heard(channel) == ([], TABLE_FULL)
            # the host now offers: the real joiner, never pushed out, accepts and wins
            chosen: list[SecureChannel] = []

            async def offer() -> None:
                chosen.append(await a.host.link.first(DECK_RULES))

            nursery.start_soon(offer)
            with trio.fail_after(OFFER_TIMEOUT / 2):
                assert await take_offer(real) == (DECK_RULES, 1)
            await wait_for(lambda: bool(chosen))
            assert chosen[0].peer_fingerprint == IDS[CHEATER].fingerprint
            for channel in junk[flood - MAX_WAITING + 1:]:
                assert (await heard(channel))[1] == OPPONENT_CHOSEN
            assert a.host.link.waiting == 0
            await real.aclose()
            await chosen[0].aclose()
            nursery.cancel_scope.cancel()


async def test_a_silent_joiner_is_dropped_after_the_offer_timeout(mock_clock) -> None:
    # The clock jumps only when every task has waited 0.2 s of real time: loopback I/O is
    # faster than that, so only real deadlines (the offer timeout) are skipped.
    mock_clock.autojump_threshold = 0.2
    dropped: list[float] = []
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, config=a_default_session())
            start = trio.current_time()

            async def host() -> None:
                await a.host.link.first(DECK_RULES, on_declined=lambda why: dropped.append(
                    trio.current_time() - start))

            nursery.start_soon(host)
            channel = await connect("127.0.0.1", a.port, JUNK)  # default channel timers
            messages, reason = await heard(channel, limit=OFFER_TIMEOUT * 2)
            assert [m["t"] for m in messages] == ["offer"]  # type: ignore[index]
            assert reason == f"no answer to the offer within {OFFER_TIMEOUT:g} s"
            assert len(dropped) == 1 and OFFER_TIMEOUT <= dropped[0] < OFFER_TIMEOUT + 0.5
            nursery.cancel_scope.cancel()


def a_default_session():  # type: ignore[no-untyped-def]
    from versus.p2p.session import SessionConfig

    return SessionConfig(narrate=False)  # default channel timers: no keepalive in 5 s


# --- a bad HELLO after the accept: `versus host` waits for the next joiner -----------------------


HOST_RULES = MatchRules(deal_mode=DealMode.DECKLIST)  # `versus host --deal decklist`


def reflected(hosts_hello: bytes) -> bytes:
    return hosts_hello


def claiming_seat_0(hosts_hello: bytes) -> bytes:
    peer = MatchPeer(0, JUNK, HOST_RULES, CATALOGUE, master_secret=bytes(32), software="x")
    return peer.start()[0]


async def bad_hello_joiner(port: int, make_hello) -> tuple[bytes, str]:  # type: ignore[no-untyped-def]
    """Accept the offer, then answer the host's HELLO with a bad one; (the host's HELLO, the
    host's CLOSE reason)."""
    channel = await connect("127.0.0.1", port, JUNK, config=FAST_CHANNEL)
    try:
        assert await take_offer(channel) == (HOST_RULES, 1)
        hosts_hello = await channel.receive()
        await channel.send(make_hello(hosts_hello))
        with trio.fail_after(5), pytest.raises(PeerClosedError) as closed:
            while True:
                await channel.receive()
        return hosts_hello, closed.value.reason
    finally:
        await channel.aclose()


@pytest.mark.parametrize("make_hello", [reflected, claiming_seat_0])
async def test_a_bad_hello_does_not_end_the_hosted_game(tmp_path, make_hello) -> None:
    lines: list[str] = []
    outcomes: list = []  # type: ignore[type-arg]
    with trio.fail_after(30):
        async with open_nursery() as nursery:
            port = await hosting(nursery, host_args(tmp_path), lines, outcomes)
            hosts_hello, reason = await bad_hello_joiner(port, make_hello)
            assert reason == "match not set up: setup-mismatch"
            await wait_for(lambda: any("dropped" in line for line in lines))
            joined = await honest_joiner(port, HOST_RULES)
    [outcome] = outcomes
    assert outcome.result is not None and joined.result is not None
    assert (joined.result.ending, joined.result.winner) == (outcome.result.ending,
                                                           outcome.result.winner)
    [dropped] = [line for line in lines if "dropped" in line]
    assert "setup-mismatch" in dropped and "waiting for another player" in dropped
    assert dropped.isprintable()
    # a fresh MatchPeer: a new master secret, so a new HELLO, and only that match on disk
    assert outcome.transcript_path is not None
    transcript = load_transcript(outcome.transcript_path.read_bytes())
    assert transcript.hellos[0] != hosts_hello
    assert [path.parent for path in (tmp_path / "matches").glob("*/*/transcript.vtr")] == [
        outcome.transcript_path.parent]


async def test_a_joiner_that_accepts_and_sends_nothing_is_dropped_after_the_setup_deadline(
        tmp_path, monkeypatch) -> None:
    """Accepting and then stalling holds the host for SETUP_TIMEOUT at most (shortened here),
    and a joiner arriving meanwhile waits, unrefused, for the next offer."""
    import versus.cli.host_cmd as host_cmd

    monkeypatch.setattr(host_cmd, "SETUP_TIMEOUT", 1.0)
    lines: list[str] = []
    with trio.fail_after(30):
        async with open_nursery() as nursery:
            port = await hosting(nursery, host_args(tmp_path), lines, [])
            staller = await connect("127.0.0.1", port, JUNK, config=FAST_CHANNEL)
            await take_offer(staller)
            await wait_for(lambda: any("joined" in line for line in lines))
            joined = await honest_joiner(port, HOST_RULES)  # connects during the stall
            assert joined.result is not None
            with pytest.raises(TransportError):
                with trio.fail_after(2):
                    while True:
                        await staller.receive()
            await staller.aclose()
    assert any("sent no HELLO within 1 s" in line and "dropped" in line for line in lines)


async def test_the_host_prints_a_joiners_close_reason_as_one_printable_line(tmp_path) -> None:
    """The reason in a CLOSE record is the peer's words: `versus host` prints it (the session's
    log line about the lost link) escaped and cut, never raw."""
    junk = "\x1b[2J\x1b[31mYOU LOST\r\n\u202e" * 20
    lines: list[str] = []
    outcomes: list = []  # type: ignore[type-arg]
    with trio.fail_after(30):
        async with open_nursery() as nursery:
            port = await hosting(nursery, host_args(tmp_path, "--resume-window", "0.5"), lines,
                                 outcomes)
            dial = JoinLink("127.0.0.1", port, IDS[CHEATER], config=FAST_CHANNEL)
            channel, rules, seat = await dial.first()
            peer = MatchPeer(seat, IDS[CHEATER], rules, CATALOGUE,
                             master_secret=master_secret(LABEL, CHEATER), software="test")
            joiner = MatchSession(peer, master_secret(LABEL, CHEATER), store=None, role="join",
                                  config=FAST_SESSION)
            close = channel.aclose
            channel.aclose = lambda reason="": close(junk)  # type: ignore[method-assign]
            async with open_nursery() as joining:
                joining.start_soon(joiner.run, channel, None)
                while joiner.peer.core is None:  # the match exists: then leave with junk
                    await joiner.wait_changed()
                joining.cancel_scope.cancel()
    assert outcomes[0].abandoned
    [lost] = [line for line in lines if "closed the connection" in line]
    assert lost.startswith("Connection lost: ") and "YOU LOST" in lost
    assert lost.isprintable() and len(lost) <= 300 and "\x1b" not in lost
