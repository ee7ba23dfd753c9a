# The session's own guarantees that sit beside the protocol: the clocks survive a restart from
# disk (clock.json, SPEC §6.7), and a player that crashes resigns its seat instead of
# tearing the match down (drive_player). Clocks run on trio's autojump clock.
from __future__ import annotations

import time
from collections.abc import Sequence

import pytest
import trio

from tests.p2p.session_support import CATALOGUE, HashBot, MemLink, make_sessions
from versus.cli.driving import drive_player
from versus.engine.versus42 import Action, PlayerView
from versus.p2p.session import MatchSession, SessionOutcome, now_ms, open_nursery
from versus.p2p.store import CLOCK_FILE, MatchStore
from versus.protocol.match import Ending
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import verify_transcript

TIMED = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=60_000, clock_increment_ms=0)


def running_left(session: MatchSession) -> tuple[int, int, int | None]:
    """Both remaining times now (the running clock counted down) and the running seat."""
    clock = session.clock()
    assert clock is not None
    left, seat, mark = clock
    now = [left[0], left[1]]
    if seat is not None:
        now[seat] -= now_ms() - mark
    return now[0], now[1], seat


@pytest.mark.parametrize("away_s", [0, 30])
async def test_clocks_survive_a_restart(autojump_clock, tmp_path, monkeypatch,
                                        away_s: int) -> None:
    sessions = make_sessions(TIMED, f"clock-restart-{away_s}", dirs=(None, tmp_path))
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    async with open_nursery() as nursery:
        nursery.start_soon(sessions[0].run, host_channel, link.host_reconnect)
        nursery.start_soon(drive_player, sessions[0], HashBot(think=1.5))
        with trio.CancelScope() as old_program:
            async with open_nursery() as joiner:
                joiner.start_soon(sessions[1].run, join_channel, link.join_reconnect)
                joiner.start_soon(drive_player, sessions[1], HashBot(think=2.5))
                while sessions[1].peer.seq < 17:
                    await sessions[1].wait_changed()
                await trio.sleep(0.7)  # mid-decision: someone's clock is running
                before = running_left(sessions[1])
                old_program.cancel()
        assert before[2] is not None and min(before[:2]) < 60_000  # time was used
        assert (tmp_path / sessions[1].match_id.hex() / CLOCK_FILE).exists()

        saved = MatchStore(tmp_path).find(sessions[1].match_id.hex()).read_clock()
        old = sessions[1].clock()
        assert saved is not None and old is not None
        assert (saved.remaining_ms, saved.running, saved.seq) == (old[0], old[1],
                                                                  sessions[1].peer.seq)
        real = time.time
        monkeypatch.setattr(time, "time", lambda: real() + away_s)  # the program was down
        files = MatchStore(tmp_path).find(sessions[1].match_id.hex()[:12])
        rebuilt = MatchSession.restore(files, sessions[1].peer.identity, CATALOGUE,
                                       store=MatchStore(tmp_path))
        monkeypatch.setattr(time, "time", real)
        after = running_left(rebuilt)
        seat = before[2]
        assert after[2] == seat  # the owing player's clock runs again at once
        assert after[1 - seat] == before[1 - seat]  # the stopped clock is exactly as saved
        # charged: the wall-clock time since the clock started (the away time, plus the real
        # milliseconds of this test: trio's autojump time is not wall-clock time)
        charged = saved.remaining_ms[seat] - after[seat]
        assert away_s * 1000 <= charged < away_s * 1000 + 1000
        await trio.sleep(1)
        assert running_left(rebuilt)[seat] <= after[seat] - 1000  # and keeps running
        nursery.cancel_scope.cancel()


async def test_a_restore_without_a_clock_reading_says_so(autojump_clock, tmp_path) -> None:
    sessions = make_sessions(TIMED, "clock-missing", dirs=(None, tmp_path))
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    with trio.CancelScope() as scope:
        async with open_nursery() as nursery:
            nursery.start_soon(sessions[0].run, host_channel, link.host_reconnect)
            nursery.start_soon(sessions[1].run, join_channel, link.join_reconnect)
            for s in sessions:
                nursery.start_soon(drive_player, s, HashBot(think=1))
            # stop while a turn or choice is owed (its clock runs; an automatic DRAW/OPEN's
            # does not)
            while sessions[1].peer.seq < 12 or sessions[1].peer.clock_running is None:
                await sessions[1].wait_changed()
            scope.cancel()
    (tmp_path / sessions[1].match_id.hex() / CLOCK_FILE).unlink()
    files = MatchStore(tmp_path).find(sessions[1].match_id.hex())
    rebuilt = MatchSession.restore(files, sessions[1].peer.identity, CATALOGUE)
    assert any("clocks restart from their initial value" in line for line in rebuilt.log)
    left = running_left(rebuilt)
    assert left[2] is not None  # the owing clock runs from the restore on


class Crashing:
    """A player that fails on its third decision, as a crashed external bot does (a
    BotForfeit carries its one-line `reason`)."""

    name = "crashy"

    def __init__(self) -> None:
        self.calls = 0

    async def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        self.calls += 1
        if self.calls == 3:
            error = RuntimeError("process exited with status 1")
            error.reason = "bot 'cmd:crashy' crashed on decision 3"  # type: ignore[attr-defined]
            raise error
        return legal[0]


async def test_a_crashing_player_resigns_its_seat(tmp_path) -> None:
    sessions = make_sessions(MatchRules(deal_mode=DealMode.DECKLIST), "crash",
                             dirs=(tmp_path, None))
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    outcomes: list[SessionOutcome | None] = [None, None]

    async def run(seat: int, channel) -> None:  # type: ignore[no-untyped-def]
        outcomes[seat] = await sessions[seat].run(channel)

    with trio.fail_after(30):
        async with open_nursery() as nursery:
            nursery.start_soon(run, 0, host_channel)
            nursery.start_soon(run, 1, join_channel)
            nursery.start_soon(drive_player, sessions[0], Crashing())
            nursery.start_soon(drive_player, sessions[1], HashBot())
    mine, theirs = outcomes
    assert mine is not None and theirs is not None
    assert mine.result is not None and mine.result.ending is Ending.RESIGNATION
    assert mine.result.winner == 1 and theirs.result == mine.result
    assert "crashy failed" in mine.detail and "crashed on decision 3" in mine.detail
    assert any("crashed on decision 3" in line for line in sessions[0].log)
    report = verify_transcript(sessions[0].transcript_path.read_bytes())
    assert report.ok, report.describe()
