# The match session over in-memory channels: whole matches, cuts and resumes at several points,
# a restart from disk, clocks and timeout claims, keepalives, a silent peer, the resume window,
# and the resume arithmetic. Clocks run on trio's autojump clock, so minutes pass in no time.
from __future__ import annotations

import collections
from typing import Any

import pytest
import trio

from tests.p2p.session_support import CATALOGUE, HashBot, MemLink, Stuck, make_sessions
from tests.protocol.pair import identities, master_secret
from versus.cli.driving import drive_player, narrated_config
from versus.p2p.channel import ChannelConfig
from versus.p2p.errors import ChannelClosedError, ReplayedFrameError
from versus.p2p.session import (
    LinkState,
    MatchSession,
    ResumeError,
    SessionConfig,
    SessionOutcome,
    SetupLostError,
    common_prefix,
    open_nursery,
)
from versus.p2p.store import MatchStore
from versus.protocol.match import Ending, MatchPeer, Phase
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.transcript import load_transcript

DECKLIST = MatchRules(deal_mode=DealMode.DECKLIST)


async def play(sessions: list[MatchSession], link: MemLink, players=None, *,
               cut_at: tuple[int, ...] = (), resume: bool = True) -> list[SessionOutcome]:
    """Run both sessions to the end over `link`, cutting the connection whenever the host's
    chain reaches each length in `cut_at`."""
    players = players or (HashBot(), HashBot())
    outcomes: list[SessionOutcome | None] = [None, None]
    host_channel, join_channel = await link.first(sessions)

    async def run(seat: int, channel, reconnect) -> None:
        outcomes[seat] = await sessions[seat].run(channel, reconnect if resume else None)

    async def cutter() -> None:
        for n in cut_at:
            while sessions[0].peer.seq < n and not sessions[0].done:
                await sessions[0].wait_changed()
            await link.cut()

    async with open_nursery() as nursery:
        nursery.start_soon(run, 0, host_channel, link.host_reconnect)
        nursery.start_soon(run, 1, join_channel, link.join_reconnect)
        for seat in (0, 1):
            nursery.start_soon(drive_player, sessions[seat], players[seat])
        nursery.start_soon(cutter)
    return outcomes  # type: ignore[return-value]


@pytest.fixture(scope="module")
def reference() -> bytes:
    """The transcript of the uncut match every cut and restart must reproduce exactly."""

    async def main() -> bytes:
        sessions = make_sessions(DECKLIST, "session")
        with trio.fail_after(30):
            await play(sessions, MemLink())
        return sessions[0].peer.transcript_bytes()

    return trio.run(main)


async def test_a_whole_match_ends_closed_and_verifies(tmp_path, reference) -> None:
    sessions = make_sessions(DECKLIST, "session", dirs=(tmp_path / "a", tmp_path / "b"))
    with trio.fail_after(30):
        outcomes = await play(sessions, MemLink())
    assert all(s.peer.phase is Phase.CLOSED for s in sessions)
    assert outcomes[0].result == outcomes[1].result and outcomes[0].result is not None
    assert outcomes[0].result.ending is Ending.GAME
    for outcome in outcomes:
        assert outcome.transcript_path is not None
        assert outcome.transcript_path.read_bytes() == reference  # the file matches the peer
        secret = outcome.transcript_path.parent / "secret"
        assert secret.stat().st_mode & 0o777 == 0o600
    assert verify_transcript(reference).ok
    assert sessions[0].status.state is LinkState.CLOSED


async def test_a_clockless_session_wakes_no_watcher_task_per_envelope(reference) -> None:
    """Without a clock no claim can come: the clock watcher and the linger task must not run
    on every change of the session (each run is a task switch on the path of every message)."""
    steps: collections.Counter[str] = collections.Counter()

    class Steps(trio.abc.Instrument):
        def before_task_step(self, task: trio.lowlevel.Task) -> None:
            steps[task.name.rsplit(".", 1)[-1]] += 1

    sessions = make_sessions(DECKLIST, "session")
    instrument = Steps()
    trio.lowlevel.add_instrument(instrument)
    try:
        with trio.fail_after(30):
            await play(sessions, MemLink())
    finally:
        trio.lowlevel.remove_instrument(instrument)
    assert sessions[0].peer.transcript_bytes() == reference
    assert sessions[0].peer.seq > 50  # a whole match: many changes per session
    watchers = steps["_watch_clocks"] + steps["_linger_after_result"]
    assert watchers <= 8, dict(steps)  # per session: the watcher's one run, linger's three


@pytest.mark.parametrize("cut_at", [(1,), (4,), (9,), (20,), (35,), (6, 14, 30)])
async def test_cut_and_resumed_at_any_point_gives_the_same_match(cut_at, reference) -> None:
    sessions = make_sessions(DECKLIST, "session")
    link = MemLink()
    with trio.fail_after(30):
        await play(sessions, link, cut_at=cut_at)
    assert link.connections == 1 + len(cut_at)
    assert sessions[0].peer.transcript_bytes() == reference
    assert sessions[1].peer.transcript_bytes() == reference
    assert any("Resumed at envelope" in line for line in sessions[0].log)


async def test_restarted_side_resumes_from_disk(tmp_path, reference) -> None:
    """The joiner's program 'dies' mid-match: its session object is dropped and a new one is
    rebuilt from the match directory alone, then resumes with the still-running host."""
    told_by = narrated_config()  # the cli's narrator (cli/driving.py) keeps the log
    sessions = make_sessions(DECKLIST, "session", dirs=(None, tmp_path), config=told_by)
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    with trio.fail_after(30):
        async with open_nursery() as nursery:
            host_done = trio.Event()

            async def host() -> None:
                await sessions[0].run(host_channel, link.host_reconnect)
                host_done.set()

            nursery.start_soon(host)
            nursery.start_soon(drive_player, sessions[0], HashBot())
            with trio.CancelScope() as old_program:
                async with open_nursery() as joiner:
                    joiner.start_soon(sessions[1].run, join_channel, link.join_reconnect)
                    joiner.start_soon(drive_player, sessions[1], HashBot())
                    while sessions[1].peer.seq < 17:
                        await sessions[1].wait_changed()
                    old_program.cancel()
            assert not sessions[1].done
            files = MatchStore(tmp_path).find(sessions[1].match_id.hex()[:12])
            rebuilt = MatchSession.restore(files, sessions[1].peer.identity, CATALOGUE,
                                           store=MatchStore(tmp_path), config=told_by)
            assert rebuilt.peer.seq >= 17
            # the restored log tells the match so far exactly as the program before it did
            told = rebuilt.log[:-1]
            assert rebuilt.log[-1].startswith(f"Match {files.match_id[:16]} restored from disk")
            assert told[0].startswith("Match ") and told[0].endswith("first")
            assert any(line.startswith("You drew ") for line in told)
            assert told == sessions[1].log
            nursery.start_soon(drive_player, rebuilt, HashBot())
            outcome = await rebuilt.run(None, link.join_reconnect)
            await host_done.wait()
    assert outcome.result is not None
    assert rebuilt.peer.transcript_bytes() == reference
    assert files.transcript_path.read_bytes() == reference


async def test_stuck_player_loses_on_time(autojump_clock) -> None:
    rules = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=60_000,
                       clock_increment_ms=1_000)
    sessions = make_sessions(rules, "clock", config=SessionConfig(linger=5))
    stuck = next(iter([0]))  # seat 0 never answers
    players = [HashBot(think=1.0), HashBot(think=1.0)]
    players[stuck] = Stuck()
    with trio.fail_after(600):
        outcomes = await play(sessions, MemLink(), players)
    result = outcomes[1 - stuck].result
    assert result is not None and result.ending is Ending.TIMEOUT
    assert result.winner == 1 - stuck
    assert outcomes[0].result == result  # the late side took the claim too
    report = verify_transcript(sessions[1 - stuck].peer.transcript_bytes())
    assert report.ok and report.summary["ending"] == "timeout", report.describe()
    # it was the stuck seat's clock that ran out, not a thinking bot's
    assert sessions[1].peer.clocks_ms[1 - stuck] > 0


async def test_keepalives_carry_a_long_think_without_a_clock(autojump_clock) -> None:
    config = SessionConfig(channel=ChannelConfig(keepalive_interval=10, idle_timeout=30))
    sessions = make_sessions(DECKLIST, "session", config=config)
    link = MemLink(config.channel)
    with trio.fail_after(10_000):
        outcomes = await play(sessions, link, (HashBot(think=100.0), HashBot()))
    assert outcomes[0].result is not None and link.connections == 1  # never timed out


async def test_silent_peer_is_dropped_and_abandoned_after_the_window(autojump_clock) -> None:
    config = SessionConfig(resume_window=60,
                           channel=ChannelConfig(keepalive_interval=5, idle_timeout=15))
    sessions = make_sessions(DECKLIST, "session", config=config)
    link = MemLink(config.channel)
    host_channel, join_channel = await link.first(sessions)
    link.refuse = True  # the joiner never manages to come back
    with trio.fail_after(600):
        async with open_nursery() as nursery:
            nursery.start_soon(drive_player, sessions[0], HashBot())
            nursery.start_soon(drive_player, sessions[1], HashBot())

            async def joiner_freezes() -> None:
                # the joiner takes part in setup, then its program hangs: no reads, no pings
                with trio.CancelScope() as frozen:
                    nursery.start_soon(freeze_later, frozen)
                    await sessions[1].run(join_channel, link.join_reconnect)

            async def freeze_later(scope: trio.CancelScope) -> None:
                while sessions[1].peer.seq < 8:
                    await sessions[1].wait_changed()
                scope.cancel()
                await trio.sleep_forever()

            start = trio.current_time()
            nursery.start_soon(joiner_freezes)
            outcome = await sessions[0].run(host_channel, link.host_reconnect)
            nursery.cancel_scope.cancel()
    assert outcome.result is None and outcome.abandoned
    assert "did not come back within 60 s" in outcome.detail
    assert 60 <= trio.current_time() - start <= 60 + 15 + 5


async def test_claim_made_while_the_peer_is_away(autojump_clock) -> None:
    """With a clock, a peer that drops while it owes a move loses on time before the window
    ends; the claim is in the transcript."""
    rules = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=30_000)
    config = SessionConfig(resume_window=300, linger=2)
    sessions = make_sessions(rules, "away", config=config)
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    link.refuse = True
    with trio.fail_after(600):
        async with open_nursery() as nursery:
            nursery.start_soon(drive_player, sessions[0], HashBot(think=0.5))

            async def joiner_vanishes() -> None:
                with trio.CancelScope() as gone:
                    async with open_nursery() as inner:
                        inner.start_soon(sessions[1].run, join_channel, link.join_reconnect)
                        # gone once the host has seen that the joiner owes a move
                        while (sessions[0].peer.clock_running or (0,))[0] != 1:
                            await sessions[0].wait_changed()
                        gone.cancel()
                await link.cut()

            nursery.start_soon(joiner_vanishes)
            outcome = await sessions[0].run(host_channel, link.host_reconnect)
            nursery.cancel_scope.cancel()
    assert outcome.result is not None and outcome.result.ending is Ending.TIMEOUT
    assert outcome.result.winner == 0
    report = verify_transcript(sessions[0].peer.transcript_bytes())
    assert report.ok and report.summary["ending"] == "timeout"


async def test_garbage_during_setup_ends_the_session_with_one_line() -> None:
    sessions = make_sessions(DECKLIST, "session")
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    with trio.fail_after(10), pytest.raises(SetupLostError) as error:
        async with open_nursery() as nursery:
            nursery.start_soon(sessions[0].run, host_channel, link.host_reconnect)
            await join_channel.send({"t": "nonsense"})
    assert "\n" not in str(error.value)
    assert any("where an envelope was due" in line for line in sessions[0].log)


def test_common_prefix() -> None:
    mine = [bytes([i]) * 32 for i in range(10)]
    assert common_prefix(mine, 10, mine[-4:]) == 10
    assert common_prefix(mine, 6, mine[2:6]) == 6  # the peer is behind
    assert common_prefix(mine[:6], 10, mine[6:]) == 6  # we are behind
    forked = [*mine[:7], b"x" * 32, b"y" * 32]
    assert common_prefix(mine, 9, forked[-5:]) == 7
    assert common_prefix([], 0, []) == 0
    with pytest.raises(ResumeError):
        common_prefix(mine, 9, [b"z" * 32] * 3)


def test_transcript_on_disk_is_a_loadable_prefix_at_all_times(tmp_path) -> None:
    async def main() -> None:
        sessions = make_sessions(DECKLIST, "session", dirs=(tmp_path, None))
        checked = []

        async def watch() -> None:
            while not sessions[0].done:
                await sessions[0].wait_changed()
                path = sessions[0].transcript_path
                if path is not None and path.exists():
                    records = load_transcript(path.read_bytes())
                    assert len(records.envelopes) == sessions[0].peer.seq
                    checked.append(len(records.envelopes))

        async with open_nursery() as nursery:
            nursery.start_soon(watch)
            await play(sessions, MemLink())
        assert len(checked) > 10

    trio.run(main)


async def test_a_broken_link_is_reported_by_its_cause_not_by_the_closed_channel() -> None:
    # the receiver sees a replayed record and closes the channel; the sender then fails with
    # "already closed": the session must log the cause (before: whichever failed first)
    async def sender() -> None:  # fails first (no checkpoint in either task: both fail)
        raise ChannelClosedError("the channel to x is already closed")

    async def receiver() -> None:
        raise ReplayedFrameError("x sent record number 4 where 5 was due", [b""])

    with pytest.raises(ReplayedFrameError):
        async with open_nursery() as nursery:
            nursery.start_soon(sender)
            nursery.start_soon(receiver)


async def test_rules_whose_new_game_raises_end_both_sessions_with_one_transcript() -> None:
    """Both seats took rules whose new game raises with the joint seed: the seat that finds
    out first still sends its last setup message, so both sessions end at once (ABORTED, no
    result, the reason said) with the same transcript, which says the rules cannot be played
    at record 1; before, the session raised the error and never sent that message."""
    from tests.protocol.test_engine_faults import FaultyToy
    from versus.engine.registry import register_game, unregister_game

    register_game(FaultyToy(IndexError, "new_game"))
    try:
        rules = MatchRules(game=FaultyToy.id)
        ids = identities("session/unplayable")
        sessions = [MatchSession(MatchPeer(seat, ids[seat], rules, FaultyToy().default_catalogue(),
                                           master_secret=master_secret("session/unplayable",
                                                                       seat), software="test"),
                                 master_secret("session/unplayable", seat),
                                 store=None, role=("host", "join")[seat]) for seat in (0, 1)]
        with trio.fail_after(10):
            outcomes = await play(sessions, MemLink(), resume=False)
    finally:
        unregister_game(FaultyToy.id)
    assert all(o.result is None and "cannot be played" in o.detail for o in outcomes), outcomes
    assert all(s.peer.phase is Phase.ABORTED for s in sessions)
    first, second = (s.peer.transcript_bytes() for s in sessions)
    assert first == second
    register_game(FaultyToy(IndexError, "new_game"))
    try:
        report = verify_transcript(first)
    finally:
        unregister_game(FaultyToy.id)
    assert (report.check, report.bad_index, report.player) == ("unplayable-rules", 1, None)


async def _faulty_turns(label: str, faulty: tuple[str, ...]) -> tuple[list, list]:
    """A toy match in which our engine raises on the listed turn inputs `faulty`."""
    from tests.protocol.test_engine_faults import FaultyToy
    from versus.engine.registry import register_game, unregister_game

    class First:
        name = "first"

        async def choose(self, view: Any, legal: Any) -> Any:
            return legal[0]

    class TurnFault(FaultyToy):
        def step(self, s: Any, inp: str) -> Any:
            if inp in faulty:
                raise KeyError(f"toy engine fault on {inp}")
            return super().step(s, inp)

    register_game(TurnFault())
    try:
        rules = MatchRules(game=FaultyToy.id)
        ids = identities(label)
        sessions = [MatchSession(MatchPeer(seat, ids[seat], rules, FaultyToy().default_catalogue(),
                                           master_secret=master_secret(label, seat),
                                           software="test"),
                                 master_secret(label, seat), store=None,
                                 role=("host", "join")[seat]) for seat in (0, 1)]
        with trio.fail_after(10):
            outcomes = await play(sessions, MemLink(), (First(), First()), resume=False)
    finally:
        unregister_game(FaultyToy.id)
    return sessions, outcomes


async def test_a_listed_input_our_engine_cannot_apply_is_replaced_by_one_it_can() -> None:
    """The engine raises on `bet`, which it lists first: the mover's submit is a
    LocalProtocolError (nothing signed), and the driver plays the next listed input instead,
    saying so; the match ends with a result, not a resignation."""
    sessions, outcomes = await _faulty_turns("session/listed-one", ("bet",))
    assert all(o.result is not None and o.result.ending is Ending.GAME for o in outcomes), outcomes
    assert any("our engine could not play 'bet'" in line and "played 'pass' instead" in line
               for s in sessions for line in s.log), [s.log for s in sessions]


async def test_when_our_engine_can_apply_no_listed_input_our_side_stops_without_a_loss() -> None:
    """Every listed turn input raises: our seat signs no resignation (a bug of ours is never a
    verdict against us); it stops, and the match is left unfinished."""
    sessions, outcomes = await _faulty_turns("session/listed-all", ("bet", "pass"))
    assert all(o.result is None for o in outcomes), outcomes
    assert not any(s.peer.result is not None for s in sessions)
    assert any("could not play any listed input" in line and "no loss signed" in line
               for s in sessions for line in s.log), [s.log for s in sessions]
