# `versus replay` over any game and either kind of file `versus verify` reads: the steps rebuilt
# from the verification (cli/replay_steps.py), `--print` (every step, or one), the lenses (the
# public / as a seat, with the reveals), a file that stops being valid replayed up to its last
# valid record with the failure named there, and the full-screen app driven by prompt-toolkit's
# pipe input.
from __future__ import annotations

import asyncio
import io
import os
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
    with_envelopes,
)
from versus.cli.main import main
from versus.cli.replay import ReplayApp
from versus.cli.replay_steps import ReplayError, load_replay, replay_steps
from versus.engine.versus42.game import FIELD
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import MessageKind
from versus.protocol.wire.transcript import Transcript, dump_transcript

STEP_HEAD = re.compile(r"^step (\d+)/(\d+)", re.M)


def versus_bytes(mode=DECK) -> bytes:  # type: ignore[no-untyped-def]
    return finished(mode).peers[0].transcript_bytes()


def hidden_verso(data: bytes) -> tuple[int, int]:
    """(step, handle) of a Versus card lying verso on the field, its identity not public."""
    for k, s in enumerate(load_replay(data).states):
        for h in range(2 * s.n):
            if s.zone[h] == FIELD and not s.face[h] and s.public_id(h) is None:
                return k, h
    raise AssertionError("no verso card in this match")


@pytest.fixture(scope="module")
def deck_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "finished.vst"
    path.write_bytes(versus_bytes())
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main(["replay", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def steps_of(out: str) -> list[int]:
    return [int(k) for k, _ in STEP_HEAD.findall(out)]


# --- Versus ---------------------------------------------------------------------------------


def test_the_replay_reaches_the_certified_result() -> None:
    for mode in (DECK, POOL):
        replay = load_replay(versus_bytes(mode))
        report = verify_transcript(versus_bytes(mode))
        assert replay.last == report.summary["inputs"] and replay.failure is None
        winner = report.summary["result"]["winner"]
        assert replay.ending() is not None
        assert replay.ending().startswith(f"Player {winner + 1} wins: ")  # type: ignore[union-attr]
        assert replay.lenses == (None, 0, 1)


def test_print_shows_every_step_with_scene_and_public_narration(
        deck_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = load_replay(deck_file.read_bytes())
    code, out, err = run(capsys, deck_file, "--print")
    assert code == 0 and err == ""
    assert steps_of(out) == list(range(replay.last + 1))
    assert len(re.findall(r"^Blue tile ", out, re.M)) == replay.last + 1  # a scene a step
    assert re.search(r"^step \d+/\d+, record \d+ \(seat [01], seq \d+\): summon ", out, re.M)
    assert "drew a card" in out and "Battle on" in out and " beats " in out
    assert "end of the game: Player " in out
    assert not re.search(r"\b(you|your)\b", out, re.I)  # third person, public
    told = [line for line in out.splitlines() if line.startswith("  ")]
    assert not any(re.search(r"\bopponent\b", line, re.I) for line in told)
    assert all(len(line) <= 80 for line in out.splitlines()[2:])


def test_a_seat_lens_shows_what_that_seat_knew(deck_file: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = deck_file.read_bytes()
    k, handle = hidden_verso(data)
    replay = load_replay(data)
    assert replay.identities is not None
    name = replay.states[k].cat[replay.identities[handle]].name
    owner = handle // replay.states[k].n
    mine, theirs, public = (replay.step(k, lens).scene.card(str(handle))
                            for lens in (owner, 1 - owner, None))
    assert mine is not None and mine.face is not None and mine.face.name == name
    assert theirs is None and public is None  # a verso card, its face hidden from them
    code, out, _ = run(capsys, deck_file, "--step", k, "--view", owner)
    assert code == 0 and out.startswith(f"step {k}/{replay.last}")
    assert mine.label.startswith("▲" + name[:2]) and mine.label in out
    code, out, _ = run(capsys, deck_file, "--step", k, "--view", "public")
    assert code == 0 and "▲" not in out


def test_without_reveals_only_the_public_lens(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    t = transcript_of(resigned())
    # after a resignation the winner's SECRET_REVEAL is owed (SPEC §4.11), the loser's is not
    cut = Transcript(t.hellos, t.envelopes[:index_of(t, MessageKind.RESIGN) + 2])
    path = tmp_path / "resigned-early.vst"
    path.write_bytes(dump_transcript(cut))
    replay = load_replay(dump_transcript(cut))
    assert replay.lenses == (None,) and replay.lens_for("0") is None
    code, out, _ = run(capsys, path, "--print", "--view", "0")
    assert code == 0 and "public information" in out.splitlines()[1]
    assert "step 0/" in out


def test_an_incomplete_transcript_replays_up_to_its_last_valid_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A `play` game left by quitting: the transcript stops mid-match ("incomplete"). The
    replay shows every valid input and says where the file stops being valid."""
    t = transcript_of(finished())
    cut = with_envelopes(t, list(t.envelopes[:40]))
    path = tmp_path / "quit.vst"
    path.write_bytes(dump_transcript(cut))
    replay = load_replay(path.read_bytes())
    assert replay.failure is not None and "record 42: incomplete" in replay.failure
    assert replay.last > 20
    code, out, err = run(capsys, path, "--print")
    assert code == 1
    assert steps_of(out) == list(range(replay.last + 1))
    tail = " ".join(out[out.rindex("\nstep "):].split())
    assert "the file stops being valid here: INVALID at record 42: incomplete" in tail
    assert tail.endswith("never sent its ACTION/RESIGN")
    assert err.count("\n") == 1 and "incomplete" in err
    code, out, _ = run(capsys, path, "--step", replay.last)
    assert code == 1 and "stops being valid here" in out


def test_a_forged_record_is_named_where_it_happens(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad_transcript, record, _ = forged(finished(DECK), MessageKind.ACTION, lambda env: {
        "body": ["move a1 e4", env.body[1]]})
    bad = tmp_path / "bad.vst"
    bad.write_bytes(dump_transcript(bad_transcript))
    code, out, err = run(capsys, bad, "--print")
    assert code == 1 and "illegal-action" in err and err.count("\n") == 1
    last = " ".join(out[out.rindex("the file stops being valid here"):].split())
    assert "illegal-action" in last and f"record {record}" in last
    records = [int(r) for r in re.findall(r"^step \d+/\d+, record (\d+)", out, re.M)]
    assert records and max(records) < record  # only the valid inputs were replayed


def test_unreadable_and_unreplayable_files(tmp_path: Path, deck_file: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, tmp_path / "none.vst")
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(capsys, deck_file, "--step", 10_000)
    assert code == 2 and "steps 0.." in err
    junk = tmp_path / "junk.vst"
    junk.write_bytes(b"not a transcript")
    code, out, err = run(capsys, junk, "--print")
    assert code == 1 and out == "" and err.count("\n") == 1 and "INVALID" in err
    with pytest.raises(ReplayError):
        load_replay(b"not a transcript")


def test_the_step_list_for_other_front_ends(deck_file: Path) -> None:
    steps = list(replay_steps(deck_file.read_bytes()))
    assert [s.index for s in steps] == list(range(len(steps)))
    assert steps[0].record == "" and steps[0].narration
    assert all(s.record.startswith("record ") and s.narration for s in steps[1:])
    assert steps[-1].scene.result is not None and all(s.failure is None for s in steps)


def test_turn_navigation(deck_file: Path) -> None:
    replay = load_replay(deck_file.read_bytes())
    k = replay.next_turn(0)
    assert replay.states[k].turn != replay.states[k - 1].turn or replay.states[k].turn == 0
    assert replay.previous_turn(k) == 0 and replay.previous_turn(k + 1) == k
    assert replay.next_turn(replay.last) == replay.last and replay.previous_turn(0) == 0


# --- the other games and solo runs --------------------------------------------------------


def test_a_grid_match_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.engine.grid.test_protocol import CAT, _match
    from versus.engine.grid import GRID
    from versus.engine.grid.cards import build_deck
    from versus.protocol.match.rules import MatchRules

    rules = GRID.rules_from_options({"mode": "fast"})
    decks = (build_deck(CAT, "fast", "standard", b"a"), build_deck(CAT, "fast", "standard", b"b"))
    pair = _match("replay/grid", MatchRules(rules, DECK, game="grid"), decks)
    path = tmp_path / "grid.vst"
    path.write_bytes(pair.peers[0].transcript_bytes())
    code, out, err = run(capsys, path, "--print", "--game", "grid")
    assert code == 0 and err == ""
    replay = load_replay(path.read_bytes())
    assert steps_of(out) == list(range(replay.last + 1)) and "end of the game: " in out
    assert "grid, decklist" in out.splitlines()[1]


def test_a_vanquishers_match_replays(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from tests.engine.vanquishers.test_protocol import match

    pair = match("replay/vq")
    assert not pair.errors
    path = tmp_path / "vq.vst"
    path.write_bytes(pair.peers[0].transcript_bytes())
    code, out, _ = run(capsys, path, "--print")
    assert code == 0
    replay = load_replay(path.read_bytes())
    assert steps_of(out) == list(range(replay.last + 1)) and "end of the game: " in out
    assert re.search(r"^step \d+/\d+, record \d+ \(seat [01], seq \d+\): roll ", out, re.M)


def test_a_multiverse_solo_run_replays(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    os.chmod(tmp_path, 0o700)
    org, me = str(tmp_path / "org.key"), str(tmp_path / "me.key")
    assert main(["challenge", "new", "--identity", org, "--out", str(tmp_path), "--id", "r1",
                 "--rule", "difficulty=easy"]) == 0
    run_file = tmp_path / "r1.run"
    assert main(["solo", "--challenge", str(tmp_path / "r1.challenge"), "--secret",
                 str(tmp_path / "r1.secret"), "--bot", "greedy", "--identity", me,
                 "--out", str(run_file)]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, run_file, "--print", "--game", "multiverse")
    assert code == 0 and err == "" and "not a Versus transcript" not in out + err
    assert out.startswith("solo run of challenge r1 (multiverse)")
    replay = load_replay(run_file.read_bytes())
    assert steps_of(out) == list(range(replay.last + 1)) and replay.lenses == (None,)
    assert re.search(r"^step \d+/\d+, record \d+: reveal ", out, re.M)
    assert re.search(r"^step \d+/\d+, deal \(no record\): deal ", out, re.M)
    assert "end of the game: " in out
    code, _, err = run(capsys, run_file, "--game", "grid", "--print")
    assert code == 2 and "the file is a game of multiverse" in err


# --- the full-screen app --------------------------------------------------------------------


def test_switching_lenses_cycles_through_all(deck_file: Path) -> None:
    replay = load_replay(deck_file.read_bytes())
    with create_pipe_input() as pipe:
        app = ReplayApp(replay, None, input=pipe, output=DummyOutput())
        seen = [app.lens]
        for _ in range(len(replay.lenses)):
            app.next_lens()
            seen.append(app.lens)
    assert seen == [None, 0, 1, None]


def test_interactive_app_steps_back_and_forth_and_quits(deck_file: Path) -> None:
    replay = load_replay(deck_file.read_bytes())
    right, left, page_down, end, home = "\x1b[C", "\x1b[D", "\x1b[6~", "\x1b[F", "\x1b[H"

    async def drive() -> list[object]:
        seen: list[object] = []
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            app = ReplayApp(replay, None, input=pipe, output=DummyOutput())
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
            seen.append("\n".join(app.scene_text(80)))
            await keys("q")
            await asyncio.wait_for(task, 5)
            seen.append(task.done())
        return seen

    seen = asyncio.run(asyncio.wait_for(drive(), 20))
    assert seen[:8] == [1, 2, 3, 2, 1, replay.next_turn(1), replay.last, 0]
    assert seen[9] == 0
    assert str(seen[10]).startswith(f"step 0/{replay.last}\n")
    assert "Versus · turn 1" in str(seen[11]) and "your hand" in str(seen[11])
    assert seen[-1] is True


def test_the_browser_without_a_terminal_says_so_in_one_line(
        deck_file: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by trying it: `versus replay FILE < /dev/null` ended in prompt-toolkit's EOFError
    traceback; the browser now says it needs a terminal and points at --print (exit 2)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run(capsys, deck_file)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "needs a terminal" in err and "--print" in err
