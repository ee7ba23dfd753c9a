# The program's side of a session (cli/driving.py): p2p/ holds no narration and
# picks no action; the cli's narrator, installed as the session's event hook, tells any game
# through its own narration, and `drive_player` plays any game's legal inputs.
from __future__ import annotations

import secrets
from pathlib import Path

import pytest
import trio

from tests.engine.toy_game import TOY
from tests.p2p.session_support import HashBot, MemLink, make_sessions
from versus.cli.bots import RandomBot, as_async
from versus.cli.driving import drive_player, narrated_config
from versus.engine.registry import games, register_game, unregister_game
from versus.p2p.loopback import play_loopback_match
from versus.p2p.session import MatchSession, SessionConfig, open_nursery
from versus.protocol.match import Ending
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import verify_transcript

ROOT = Path(__file__).resolve().parents[2]
DECKLIST = MatchRules(deal_mode=DealMode.DECKLIST)


@pytest.fixture
def toy():
    added = TOY.id not in {g.id for g in games()}
    if added:
        register_game(TOY)
    yield TOY
    if added:
        unregister_game(TOY.id)


def test_p2p_knows_nothing_of_narration() -> None:
    for path in (ROOT / "p2p").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for word in ("narrate(", "narrate_start", "MatchStarted", "StateChanged",
                     "versus.engine"):
            assert word not in text, f"{path.name} mentions {word}"


async def _toy_match(tmp_path: Path, config: SessionConfig) -> list[MatchSession]:
    sessions: list[MatchSession] = []
    result = await play_loopback_match(
        [as_async(RandomBot(1)), as_async(RandomBot(2))], MatchRules(game=TOY.id),
        transcript_dir=tmp_path, config=config, drive=drive_player, timeout=60,
        on_start=lambda host, guest: sessions.extend([host, guest]))
    assert result.report.ok and result.result is not None
    return sessions


async def test_the_cli_narrator_tells_any_game_through_its_own_narration(tmp_path, toy
                                                                          ) -> None:
    told = await _toy_match(tmp_path / "told", narrated_config())
    for seat, session in enumerate(told):
        assert session.log[0].startswith("Match ")
        assert session.log[0].endswith("started; player 0 bets or passes first")
        assert "player ? saw: deal" in session.log  # Game.narrate, from this seat
        assert f"player {seat} saw: bet" in session.log or \
            f"player {seat} saw: pass" in session.log
        assert session.log[-1].startswith("Match over: ")
    silent = await _toy_match(tmp_path / "silent", SessionConfig())  # no hook: no narration
    assert not any("saw:" in line or "started" in line for s in silent for line in s.log)
    quiet = await _toy_match(tmp_path / "quiet", narrated_config(narrate=False))
    assert not any("saw:" in line for s in quiet for line in s.log)


async def test_a_saved_match_of_any_game_is_restored_with_its_game(tmp_path, toy) -> None:
    """`--resume`: the game comes from the saved transcript (p2p's restore reads it; the card
    data is that game's), and a --game that says otherwise is one line; this match is
    finished, so the plan stops there, in one line with its result."""
    from versus.cli.boundary import CommandError
    from versus.cli.host_cmd import plan_host
    from versus.cli.main import build_parser
    from versus.p2p.keystore import load_or_create_identity
    from versus.p2p.store import MatchStore
    from versus.protocol.crypto.identity import Identity

    key = tmp_path / "host.key"
    me = load_or_create_identity(key)
    result = await play_loopback_match(
        [as_async(RandomBot(3)), as_async(RandomBot(4))], MatchRules(game=TOY.id),
        transcript_dir=tmp_path / "data", drive=drive_player, timeout=60,
        identities=(me, Identity.generate(secrets.token_bytes)))
    assert result.match_id is not None
    mid = result.match_id.hex()[:16]
    files = MatchStore(tmp_path / "data").find(mid)
    rebuilt = MatchSession.restore(files, me, config=narrated_config())
    assert rebuilt.game is TOY and rebuilt.result == result.result
    assert any("saw:" in line for line in rebuilt.log)  # the match so far, told again
    common = ["--resume", mid, "--identity", str(key), "--data-dir", str(tmp_path / "data")]
    with pytest.raises(CommandError, match="the match is finished, nothing is left to resume"):
        plan_host(build_parser().parse_args(["host", *common]), narrate=True)
    with pytest.raises(CommandError, match="--game versus42: the saved match is a game of "
                                           "toy-duel"):
        plan_host(build_parser().parse_args(["host", "--game", "versus42", *common]),
                  narrate=True)


def test_the_result_is_told_to_the_seat_without_seat_numbers() -> None:
    # the screen counts players from 1 ("you: player 1"); the log said "seat 1 wins (resign:
    # seat 0 resigned)" to the player who had just resigned
    from versus.cli.driving import result_words
    from versus.protocol.match import Ending, MatchResult

    resigned = MatchResult(Ending.RESIGNATION, 1, None, "seat 0 resigned")
    assert result_words(resigned, 0) == "the opponent wins (resignation: you resigned)"
    assert result_words(resigned, 1) == "you win (resignation: the opponent resigned)"
    assert result_words(MatchResult(Ending.GAME, None, "draw"), 0) == "no winner (draw)"


# --- drive_player's players: failures resign, the end of the match stops a thinking player ------


class _Crashing:
    name = "crashing"

    async def choose(self, view, legal):
        raise RuntimeError("out of\ncheese")


class _Illegal:
    name = "liar"

    async def choose(self, view, legal):
        return "not a move"


class _Silent:
    """Answers nothing, at once (the driver used to ask it again, forever)."""

    name = "silent"

    async def choose(self, view, legal):
        return None


class _Stuck:
    """Thinks forever; says when it started and when it was cancelled."""

    name = "stuck"

    def __init__(self) -> None:
        self.thinking = trio.Event()
        self.cancelled_at: float | None = None

    async def choose(self, view, legal):
        self.thinking.set()
        try:
            await trio.sleep_forever()
        finally:
            self.cancelled_at = trio.current_time()


async def _driven(players, label: str):
    sessions = make_sessions(DECKLIST, label)
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    outcomes = [None, None]

    async def run(seat, channel):
        outcomes[seat] = await sessions[seat].run(channel, None)

    with trio.fail_after(30):
        async with open_nursery() as nursery:
            nursery.start_soon(run, 0, host_channel)
            nursery.start_soon(run, 1, join_channel)
            for seat in (0, 1):
                nursery.start_soon(drive_player, sessions[seat], players[seat])
    return sessions, outcomes


@pytest.mark.parametrize(("player", "why"), [
    (_Crashing(), "crashing failed (RuntimeError: out of cheese)"),
    (_Illegal(), "liar answered an illegal action 'not a move'"),
    (_Silent(), "silent answered an illegal action 'None'")])
async def test_a_failing_player_resigns_its_seat_with_the_reason(player, why) -> None:
    sessions, outcomes = await _driven([player, HashBot()], "driving/fails")
    result = outcomes[0].result
    assert result is not None and result.ending is Ending.RESIGNATION and result.winner == 1
    assert outcomes[0].detail == f"{why}; resigned"
    assert f"{why}; resigning" in sessions[0].log
    report = verify_transcript(sessions[1].peer.transcript_bytes())
    assert report.ok and report.summary["ending"] == "resignation", report.describe()


async def test_a_player_thinking_when_the_session_ends_is_cancelled_then(autojump_clock) -> None:
    """The player thinks in drive_player's own task: when the session ends meanwhile (here the
    joiner vanished and the resume window ran out; the peer's EVIDENCE or claim likewise), the
    player is cancelled at that moment and drive_player returns."""
    sessions = make_sessions(DECKLIST, "driving/ends", config=SessionConfig(resume_window=60))
    link = MemLink()
    host_channel, join_channel = await link.first(sessions)
    link.refuse = True
    stuck, ended, returned = _Stuck(), [0.0], [0.0]

    async def host() -> None:
        outcome = await sessions[0].run(host_channel, link.host_reconnect)
        assert outcome.abandoned
        ended[0] = trio.current_time()

    async def drive() -> None:
        await drive_player(sessions[0], stuck)
        returned[0] = trio.current_time()

    async def joiner_vanishes() -> None:
        with trio.CancelScope() as gone:
            async with open_nursery() as inner:
                inner.start_soon(sessions[1].run, join_channel, link.join_reconnect)
                inner.start_soon(drive_player, sessions[1], HashBot())
                await stuck.thinking.wait()
                gone.cancel()
        await link.cut()

    with trio.fail_after(600):
        async with open_nursery() as nursery:
            nursery.start_soon(host)
            nursery.start_soon(drive)
            nursery.start_soon(joiner_vanishes)
    assert ended[0] >= 60 and stuck.cancelled_at == ended[0] == returned[0]
