# `versus replay`: the timeline rebuilt from a verified transcript, `--print` (every step, or one),
# the lenses (everything revealed / as a player / public), and the full-screen app driven by
# prompt-toolkit's pipe input.
from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.protocol.test_corrupt_transcripts import (
    DECK,
    POOL,
    finished,
    forged,
    index_of,
    resigned,
    transcript_of,
)
from versus.cli.main import main
from versus.cli.replay import Lens, ReplayApp, ReplayError, Timeline, third_person
from versus.engine.versus42.game import FIELD
from versus.protocol.match.verify import replay_inputs
from versus.protocol.wire.envelope import MessageKind
from versus.protocol.wire.transcript import Transcript, dump_transcript


def timeline(mode=DECK) -> Timeline:  # type: ignore[no-untyped-def]
    return Timeline(replay_inputs(finished(mode).peers[0].transcript_bytes()))


def hidden_verso(t: Timeline) -> tuple[int, int]:
    """(step, handle) of a card lying verso on the field, its identity never public then."""
    for frame in t.frames:
        s = frame.state
        for h in range(2 * s.n):
            if s.zone[h] == FIELD and not s.face[h] and s.public_id(h) is None:
                return frame.index, h
    raise AssertionError("no verso card in this match")


@pytest.fixture(scope="module")
def deck_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "finished.vst"
    path.write_bytes(finished(DECK).peers[0].transcript_bytes())
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main(["replay", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_timeline_replays_to_the_certified_result() -> None:
    for mode in (DECK, POOL):
        t = timeline(mode)
        summary = t.replay.report.summary
        assert t.last == summary["inputs"]
        final = t.frames[-1].state.result
        assert final is not None and final.winner == summary["result"]["winner"]
        assert t.lenses == (Lens.REVEALED, Lens.PLAYER_0, Lens.PLAYER_1, Lens.PUBLIC)


def test_switching_views_from_the_public_one_cycles_through_all() -> None:
    # `--view public` on a transcript with reveals, then `h`: every lens in turn, no error.
    t = timeline()
    with create_pipe_input() as pipe:
        app = ReplayApp(t, t.lens_for("public"), input=pipe, output=DummyOutput())
        seen = [app.lens]
        for _ in range(len(t.lenses)):
            app.next_lens()
            seen.append(app.lens)
    assert seen[0] is Lens.PUBLIC and seen[-1] is Lens.PUBLIC
    assert set(seen) == set(t.lenses)


def test_print_shows_every_step_with_board_and_narration(
        deck_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = timeline()
    code, out, _ = run(capsys, deck_file, "--print")
    assert code == 0
    steps = re.findall(r"^step (\d+)/(\d+), turn \d+", out, re.M)
    assert [int(k) for k, _ in steps] == list(range(t.last + 1))
    assert out.count("    a           b           c") == t.last + 1  # a board per step
    assert "drew " in out and "Battle on" in out
    assert "end of the game: player" in out
    assert not re.search(r"\b(you|your|opponent)\b", out, re.I)  # narration in third person


def test_reveals_name_the_cards_that_were_verso(deck_file: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    t = timeline()
    k, handle = hidden_verso(t)
    assert t.identities is not None
    name = t.catalogue[t.identities[handle]].name
    owner = handle // t.frames[k].state.n
    code, out, _ = run(capsys, deck_file, "--step", k)
    assert code == 0 and out.startswith(f"step {k}/{t.last}")
    assert f"#{handle} {name}, verso (hidden in play)" in out
    # the owner knew it; the opponent saw a verso card only
    _, mine, _ = run(capsys, deck_file, "--step", k, "--view", owner)
    _, theirs, _ = run(capsys, deck_file, "--step", k, "--view", 1 - owner)
    assert f"#{handle} {name}, verso" in mine and "hidden in play" not in mine
    assert f"#{handle} ?, verso" in theirs and name not in theirs.split("\n", 1)[1]


def test_without_reveals_only_public_information(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    t = transcript_of(resigned())
    # after a resignation the winner's SECRET_REVEAL is owed (SPEC §4.11), the loser's is not
    cut = Transcript(t.hellos, t.envelopes[:index_of(t, MessageKind.RESIGN) + 2])
    path = tmp_path / "resigned-early.vst"
    path.write_bytes(dump_transcript(cut))
    assert Timeline(replay_inputs(cut)).lenses == (Lens.PUBLIC,)
    code, out, _ = run(capsys, path, "--print", "--view", "all")
    assert code == 0 and "hidden in play" not in out
    assert "step 0/" in out


def test_invalid_and_unreadable_files(tmp_path: Path, deck_file: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.vst"
    bad.write_bytes(dump_transcript(forged(finished(DECK), MessageKind.ACTION, lambda env: {
        "body": ["move a1 e4", env.body[1]]})[0]))
    code, out, err = run(capsys, bad, "--print")
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and "illegal-action" in err
    code, _, err = run(capsys, tmp_path / "none.vst")
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(capsys, deck_file, "--step", 10_000)
    assert code == 2 and "steps 0.." in err
    with pytest.raises(ReplayError):
        Timeline(replay_inputs(b"not a transcript"))


def test_third_person() -> None:
    assert third_person("You drew Dawn Moth", 1) == "Player 1 drew Dawn Moth"
    assert third_person("Opponent drew a card", 1) == "Player 0 drew a card"
    assert third_person("The opponent's verso card was destroyed on b2", 0) == \
        "Player 1's verso card was destroyed on b2"
    assert third_person("Turn 3: your turn", 0) == "Turn 3: player 0's turn"
    assert third_person("Game over: you win (elimination)", 0) == \
        "Game over: player 0 wins (elimination)"


def test_interactive_field_names_seats_not_you() -> None:
    t = timeline()
    with create_pipe_input() as pipe:
        app = ReplayApp(t, t.lenses[0], input=pipe, output=DummyOutput())
        app.k = t.last // 2
        text = "".join(fragment[1] for fragment in app._field())
    assert re.search(r"\bP[01] \d", text) and not re.search(r"\b(you|opp)\b", text)


def test_turn_navigation() -> None:
    t = timeline()
    k = t.next_turn(0)
    assert t.frames[k].state.turn == 1 and t.frames[k - 1].state.turn == 0
    assert t.previous_turn(k) == 0 and t.previous_turn(k + 1) == k
    assert t.next_turn(t.last) == t.last and t.previous_turn(0) == 0


def test_interactive_app_steps_back_and_forth_and_quits() -> None:
    t = timeline()
    right, left, page_down, end, home = "\x1b[C", "\x1b[D", "\x1b[6~", "\x1b[F", "\x1b[H"

    async def drive() -> list[object]:
        seen: list[object] = []
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            app = ReplayApp(t, t.lenses[0], input=pipe, output=DummyOutput())
            task = asyncio.ensure_future(app.app.run_async())

            async def keys(text: str) -> None:
                pipe.send_text(text)
                await asyncio.sleep(0.05)
                seen.append(app.k)

            await asyncio.sleep(0.05)
            for key in ("n", "n", right, "p", left, page_down, end, home):
                await keys(key)
            await keys("h")
            seen.append(app.lens)
            seen.append(app.status())
            await keys("q")
            await asyncio.wait_for(task, 5)
            seen.append(task.done())
        return seen

    seen = asyncio.run(asyncio.wait_for(drive(), 20))
    assert seen[:8] == [1, 2, 3, 2, 1, t.next_turn(1), t.last, 0]
    assert seen[9] is Lens.PLAYER_0
    assert str(seen[10]).startswith(f"step 0/{t.last}, turn 1")
    assert seen[-1] is True


def test_the_browser_without_a_terminal_says_so_in_one_line(
        deck_file: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by trying it: `versus replay FILE < /dev/null` ended in prompt-toolkit's EOFError
    traceback; the browser now says it needs a terminal and points at --print (exit 2)."""
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run(capsys, deck_file)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "needs a terminal" in err and "--print" in err
