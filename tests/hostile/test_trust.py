# The trust review's live attacks, replayed over real TCP on 127.0.0.1 against an
# honest host (tests/hostile/harness.py): a timeout claim made on demand, a false
# accusation and a relay that makes two players meet while each channel names it.
# The in-memory versions and the offline forgeries are in tests/protocol/test_trust.py.
from __future__ import annotations

import math

import trio

from tests.hostile.harness import (
    CATALOGUE,
    CHEATER,
    FAST_CHANNEL,
    HONEST,
    IDS,
    LABEL,
    SMALL,
    HashPlayer,
    HostilePeer,
    arena,
    assert_caught,
    chain_kinds,
    hostile_match,
    reseal,
)
from tests.protocol.pair import identities, master_secret
from versus.cli.driving import drive_player
from versus.p2p.channel import SecureChannel
from versus.p2p.connect import connect, listening_port, open_listeners, serve
from versus.p2p.session import (
    MatchSession,
    SessionConfig,
    SetupLostError,
    open_nursery,
)
from versus.protocol import errors
from versus.protocol.match import Ending, MatchPeer, evidence_body
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.wire.envelope import MessageKind, parse_envelope

K = MessageKind
TIMED = MatchRules(SMALL, DealMode.DECKLIST, clock_initial_ms=60_000, clock_increment_ms=0)


def claim_after_first_action(*, reveal: bool):
    """A tamper: after its first ACTION (the honest host then owes a move, with ~60 s left)
    the cheater signs a TIMEOUT_CLAIM at once; with `reveal` its program follows the claim with
    its SECRET_REVEAL, as an honest claimant does, else it stops there."""

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send(raw)
        env = parse_envelope(raw)
        peer = hostile.peer
        if env.kind is not K.ACTION or peer.core is None or peer.my_turn:
            return
        if reveal:
            peer._send(K.TIMEOUT_CLAIM, [HONEST, 60_000, 60_000], None)
            peer._pump(None)
            for out in peer.outgoing():
                await hostile.send(out)
        else:
            await hostile.send(reseal(raw, kind=K.TIMEOUT_CLAIM, body=[HONEST, 60_000, 60_000],
                                      seq=env.seq + 1, prev_hash=env.hash))
        hostile.stall()

    return tamper


async def _timed_match(tamper) -> object:  # type: ignore[no-untyped-def]
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, TIMED)
            host = await hostile_match(a, HostilePeer(TIMED, tamper))
            nursery.cancel_scope.cancel()
    return host


async def test_a_claim_on_demand_is_disputed_by_the_honest_host() -> None:
    """Before: the host conceded any claim, so a player won any timed match on demand."""
    host = await _timed_match(claim_after_first_action(reveal=True))
    result = host.outcome.result  # type: ignore[attr-defined]
    assert result is not None and result.ending is Ending.DISPUTE and result.winner is None
    kinds = chain_kinds(host.transcript())  # type: ignore[attr-defined]
    assert (CHEATER, "TIMEOUT_CLAIM") in kinds and (HONEST, "DISPUTE") in kinds
    report = host.report()  # type: ignore[attr-defined]
    assert report.ok and report.summary["result"]["ending"] == "dispute", report.describe()
    assert "wins" not in report.describe()


async def test_a_claimant_that_withholds_its_reveal_wins_nothing() -> None:
    host = await _timed_match(claim_after_first_action(reveal=False))
    result = host.outcome.result  # type: ignore[attr-defined]
    assert result is not None and result.winner is None and result.ending is Ending.DISPUTE
    report = host.report()  # type: ignore[attr-defined]
    assert not report.ok and report.check == "incomplete" and report.player == CHEATER


async def test_a_false_accusation_is_the_accuser_s_fault() -> None:
    """Before: any EVIDENCE was believed, so a losing player turned its loss into a
    winnerless fault at any moment."""

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        env = parse_envelope(raw)
        core = hostile.peer.core
        if env.kind is K.ACTION and core is not None:
            honest_raw = next(e.raw for e in reversed(core.chain.envelopes)
                              if e.sender == HONEST)
            body = evidence_body(errors.IllegalAction("made up", [honest_raw], player=HONEST))
            await hostile.send(reseal(raw, kind=K.EVIDENCE, body=body))
            hostile.stall()
            return
        await hostile.send(raw)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            host = await hostile_match(a, HostilePeer(tamper=tamper))
            nursery.cancel_scope.cancel()
    report = assert_caught(host, errors.FalseEvidence)
    assert report.summary["fault"]["code"] == "false-evidence"


# --- a relay between two channels ----------------------------------------------------


async def test_a_relay_between_two_channels_is_refused_by_both_players() -> None:
    """R accepts B's connection and connects to A itself, then forwards every record both
    ways. Before: A and B played each other while A's UI and known_peers named R, and so did
    B's. Now each HELLO names another channel session and another key than the channel's."""
    relay_id = identities("hostile/relay")[0]
    rules = MatchRules(SMALL, DealMode.DECKLIST)
    config = SessionConfig(resume_window=0.0, linger=0.1, channel=FAST_CHANNEL, narrate=False)
    errors_seen: list[BaseException] = []

    async def player(seat: int, channel: SecureChannel) -> None:
        peer = MatchPeer(seat, IDS[seat], rules, CATALOGUE,
                         master_secret=master_secret(LABEL, seat), software="test")
        session = MatchSession(peer, master_secret(LABEL, seat), store=None,
                               role=("host", "join")[seat], config=config)
        try:
            async with open_nursery() as nursery:
                nursery.start_soon(drive_player, session, HashPlayer())
                await session.run(channel, None)
                nursery.cancel_scope.cancel()
        except SetupLostError as error:
            errors_seen.append(error)
        assert session.peer.core is None  # no match ever existed

    async def pump(source: SecureChannel, sink: SecureChannel) -> None:
        try:
            while True:
                await sink.send(await source.receive())
        except Exception:  # one side refused and hung up: the relay is done
            await trio.aclose_forcefully(sink._stream)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a_send, a_receive = trio.open_memory_channel[SecureChannel](math.inf)
            r_send, r_receive = trio.open_memory_channel[SecureChannel](math.inf)
            a_listeners = await open_listeners(0, bind="127.0.0.1")
            r_listeners = await open_listeners(0, bind="127.0.0.1")

            async def a_handler(channel: SecureChannel) -> None:
                await a_send.send(channel)
                await trio.sleep_forever()

            async def r_handler(channel: SecureChannel) -> None:
                await r_send.send(channel)
                await trio.sleep_forever()

            await nursery.start(serve, a_listeners, IDS[HONEST], a_handler)
            await nursery.start(serve, r_listeners, relay_id, r_handler)
            # B dials R, believing it the host; R dials A as a joiner of its own
            b_side = await connect("127.0.0.1", listening_port(r_listeners), IDS[CHEATER],
                                   expected_fingerprint=relay_id.fingerprint,
                                   config=FAST_CHANNEL)
            r_to_b = await r_receive.receive()
            r_to_a = await connect("127.0.0.1", listening_port(a_listeners), relay_id,
                                   expected_fingerprint=IDS[HONEST].fingerprint,
                                   config=FAST_CHANNEL)
            a_side = await a_receive.receive()
            async with open_nursery() as match:
                match.start_soon(pump, r_to_a, r_to_b)
                match.start_soon(pump, r_to_b, r_to_a)
                match.start_soon(player, HONEST, a_side)
                await player(CHEATER, b_side)
                await trio.sleep(0.2)
                match.cancel_scope.cancel()
            nursery.cancel_scope.cancel()
    assert errors_seen, "neither player refused the relayed HELLO"
    assert all("cannot start from" in str(e) for e in errors_seen), errors_seen


# --- a claim crossing our move, that the rules refuse ---------------------------------


class CrossingClaimant(HostilePeer):
    """When the host's first ACTION arrives, the cheater signs a TIMEOUT_CLAIM on the chain
    just before it (so the two cross, as if sent at the same moment), in a match with no clock:
    a claim the prefix refuses."""

    claimed: bool = False

    def _feed(self, raw: bytes) -> None:
        env = parse_envelope(raw)
        if env.kind is K.ACTION and env.sender == HONEST and not self.claimed:
            self.claimed = True
            self.crossing = reseal(raw, sender=CHEATER, kind=K.TIMEOUT_CLAIM,
                                   body=[HONEST, 10, 0])
            self.stall()
            return
        super()._feed(raw)

    async def _answer(self) -> None:
        crossing = getattr(self, "crossing", None)
        if crossing is not None:
            self.crossing = None
            await self.send(crossing)
            return
        await super()._answer()


async def test_an_invalid_crossing_claim_does_not_roll_the_host_back() -> None:
    """Before: the host rolled its move back first and checked the claim later, erasing its
    own move and leaving a transcript that blamed it. Now the claim is checked against the
    prefix it was signed on: refused there (no clock), it is EVIDENCE at the host's next seq."""
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            host = await hostile_match(a, CrossingClaimant())
            nursery.cancel_scope.cancel()
    assert host.session is not None and host.session.peer.rolled_back == 0
    kinds = chain_kinds(host.transcript())
    assert (HONEST, "ACTION") in kinds  # the host's own move is still there
    report = assert_caught(host, errors.IllegalAction)
    assert report.summary["fault"]["player"] == CHEATER
