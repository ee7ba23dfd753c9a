# `versus tournament` end to end: real worker processes play real matches over TCP on
# 127.0.0.1; the results must agree with the saved transcripts (each verified again here), the
# standings must add up, an interrupted tournament resumes without replaying finished games,
# broken bots lose by forfeit with their reason and the tournament goes on, a worker process
# that dies costs one abandoned game, and every error is one line. A bot whose child holds its
# stderr open still loses by forfeit (its cleanup cannot turn the loss into an abandoned game).
from __future__ import annotations

import csv
import json
import sys
import time
from pathlib import Path

import pytest

from versus.cli import tournament, tournament_schedule
from versus.cli.main import main
from versus.protocol.match.verify import verify_transcript

from .bot_children import all_gone, children, holder_bot, kill_children

CRASH = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "crash"}), flush=True)
    elif m["type"] == "decide":
        print("boom: out of cheese", file=sys.stderr)
        sys.exit(3)
"""
GARBAGE = """
import sys
for line in sys.stdin:
    print("this is not json", flush=True)
"""
HUNG = """
import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "hung"}), flush=True)
    elif m["type"] == "decide":
        time.sleep(60)
"""
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "random_bot.py"
# A worker that says ready, then dies on its first job.
DYING_WORKER = """
import json, sys
print(json.dumps({"ready": 1}), flush=True)
sys.stdin.readline()
print("worker: fatal error", file=sys.stderr)
sys.exit(7)
"""


def script(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return f"cmd:{sys.executable} {path}"


def results(out: Path) -> tuple[dict, list[dict[str, str]]]:
    data = json.loads((out / "results.json").read_text())
    with open(out / "results.csv", newline="") as file:
        rows = list(csv.DictReader(file))
    return data, rows


def assert_consistent(out: Path, data: dict, rows: list[dict[str, str]]) -> None:
    """Every saved transcript verifies and shows the recorded winner; JSON and CSV agree."""
    assert [r["game"] for r in rows] == [g["game"] for g in data["games"]]
    for game, row in zip(data["games"], rows, strict=True):
        assert row["winner"] == (game["winner"] or "draw")
        assert row["ending"] == game["ending"] and row["reason"] == game["reason"]
        assert row["verified"] == "yes"
        report = verify_transcript((out / game["transcript"]).read_bytes())
        assert report.ok, report.message
        assert report.summary["result"]["winner"] == game["winner_seat"]
        if game["winner_seat"] is not None:  # a draw has no winner's seat
            assert game["seats"][game["winner_seat"]] == game["winner"]


def assert_standings_add_up(data: dict) -> None:
    table = data["standings"]
    scored = [g for g in data["games"] if g["ending"] != "abandoned"]
    assert sum(r["wins"] for r in table) == sum(r["losses"] for r in table)
    assert sum(r["games"] for r in table) == 2 * len(scored)
    assert sum(r["score"] for r in table) == len(scored)
    for row in table:
        assert row["games"] == row["wins"] + row["draws"] + row["losses"]
        assert row["score"] == row["wins"] + row["draws"] / 2
        mine = [g for g in scored if row["name"] in g["seats"]]
        assert row["wins"] == sum(g["winner"] == row["name"] for g in mine)
    assert abs(sum(r["elo"] for r in table)) < 1
    assert [r["score"] for r in table] == sorted((r["score"] for r in table), reverse=True)


def test_small_tournament_matches_its_transcripts(tmp_path, capsys):
    out = tmp_path / "t"
    code = main(["tournament", "random", "greedy", "--games", "4", "--concurrency", "2",
                 "--out", str(out), "--seed", "0a0b"])
    assert code == 0
    data, rows = results(out)
    assert data["complete"] and len(data["games"]) == 4
    assert sorted(tuple(g["seats"]) for g in data["games"]) == [
        ("greedy", "random"), ("greedy", "random"), ("random", "greedy"), ("random", "greedy")]
    assert_consistent(out, data, rows)
    assert_standings_add_up(data)
    printed = capsys.readouterr()
    assert "random" in printed.out and "Elo" in printed.out
    assert printed.err.count("\n") == 4  # not a terminal: one progress line per game


def test_resume_plays_only_the_missing_games(tmp_path, capsys):
    out = tmp_path / "t"
    args = ["tournament", "random", "greedy", "--games", "4", "--concurrency", "2",
            "--out", str(out)]
    assert main([*args, "--max-games", "2"]) == tournament_schedule.EXIT_UNFINISHED
    first = {p.name: p.read_bytes() for p in (out / "games").glob("*")}
    assert len([n for n in first if n.endswith(".json")]) == 2
    assert "--resume" in capsys.readouterr().err

    assert main([*args, "--games", "6", "--resume"]) == tournament_schedule.EXIT_ERROR
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "settings differ" in err and "games 6 here, 4 there" in err

    assert main(["tournament", "--resume", "--out", str(out), "--concurrency", "2"]) == 0
    err = capsys.readouterr().err
    assert "2 of 4 games done, 2 to play" in err
    assert err.count("wins") + err.count("draw") == 2  # two games played this time
    after = {p.name: p.read_bytes() for p in (out / "games").glob("*")}
    assert all(after[name] == data for name, data in first.items())  # untouched
    data, rows = results(out)
    assert data["complete"] and len(data["games"]) == 4
    assert_consistent(out, data, rows)
    assert_standings_add_up(data)


def test_resume_replays_a_game_whose_transcript_no_longer_verifies(tmp_path, capsys):
    out = tmp_path / "t"
    args = ["tournament", "random", "greedy", "--games", "2", "--concurrency", "2",
            "--out", str(out)]
    assert main(args) == 0
    damaged = out / "games" / "p0-p1-001.vtr"
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 1
    damaged.write_bytes(bytes(data))
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0
    err = capsys.readouterr().err
    assert "p0-p1-001: its transcript does not verify" in err
    assert "1 of 2 games done, 1 to play" in err
    assert verify_transcript(damaged.read_bytes()).ok


def test_broken_bots_lose_by_forfeit_and_the_tournament_goes_on(tmp_path, capsys):
    out = tmp_path / "t"
    crash = script(tmp_path, "crash.py", CRASH)
    garbage = script(tmp_path, "garbage.py", GARBAGE)
    hung = script(tmp_path, "hung.py", HUNG)
    code = main(["tournament", "random", crash, garbage, hung, "--format", "gauntlet",
                 "--games", "2", "--concurrency", "2", "--time-per-decision", "500",
                 "--out", str(out)])
    assert code == 0
    data, rows = results(out)
    assert len(data["games"]) == 6
    assert_consistent(out, data, rows)
    reasons = {crash: "exited with code 3 on decision 1: boom: out of cheese",
               garbage: "answered a line that is not JSON on the hello",
               hung: "exceeded 500 ms on decision 1"}
    for game in data["games"]:
        assert game["winner"] == "random" and game["ending"] == "forfeit"
        loser = game["seats"][game["forfeit_seat"]]
        assert reasons[loser] in game["reason"]
        report = verify_transcript((out / game["transcript"]).read_bytes())
        assert report.summary["result"]["ending"] == "resignation"  # signed by the forfeiter
    table = {r["name"]: r for r in data["standings"]}
    assert table["random"]["wins"] == 6
    assert all(table[name]["forfeits"] == 2 for name in reasons)
    assert_standings_add_up(data)


def test_a_cmd_bot_plays_a_grid_tournament(tmp_path, capsys):
    """An external bot in a tournament of another game: its game is played to the
    end (one game, the bot in seat 0: tests/cli/test_bots_external.py plays seat 1 through the
    worker), and its transcript verifies."""
    out = tmp_path / "t"
    example = f"cmd:{sys.executable} {EXAMPLE}"
    assert main(["tournament", example, "random", "--game", "grid", "--games", "1",
                 "--unpaired", "--concurrency", "1", "--seed", "01", "--out", str(out)]) == 0
    data, rows = results(out)
    assert data["complete"] and len(data["games"]) == 1
    assert data["games"][0]["seats"] == [example, "random"]
    assert all(g["ending"] == "game" and g["forfeit_seat"] is None for g in data["games"])
    assert_consistent(out, data, rows)
    assert_standings_add_up(data)


def test_a_bot_over_the_game_limit_forfeits(tmp_path):
    out = tmp_path / "t"
    hung = script(tmp_path, "hung.py", HUNG)
    assert main(["tournament", "random", hung, "--games", "1", "--unpaired", "--concurrency", "1",
                 "--time-per-decision", "30000", "--game-timeout", "1.5",
                 "--out", str(out)]) == 0
    (game,) = results(out)[0]["games"]
    assert game["winner"] == "random" and game["ending"] == "forfeit"
    assert "still thinking when the game reached the per-game limit" in game["reason"]


def test_a_bot_whose_child_holds_its_stderr_still_loses_by_forfeit(tmp_path):
    # before: after the forfeit the worker waited forever for the end of the bot's stderr,
    # held by the bot's child; the runner killed it at the limit and the game was "abandoned
    # (not scored)": a bot could erase its losses. Now the bot's process group is ended, the
    # game is scored from the board, and the child is gone.
    out = tmp_path / "t"
    argv, pids = holder_bot(tmp_path)
    holder = "cmd:" + " ".join(argv)
    started = time.monotonic()
    try:
        assert main(["tournament", "random", holder, "--games", "2", "--concurrency", "2",
                     "--game-timeout", "5", "--out", str(out)]) == 0
        seconds = time.monotonic() - started
        data, rows = results(out)
        assert [(g["winner"], g["ending"]) for g in data["games"]] == [("random", "forfeit")] * 2
        assert all("answered an illegal action" in g["reason"] for g in data["games"])
        assert {r["name"]: r["losses"] for r in data["standings"]}[holder] == 2
        assert_consistent(out, data, rows)
        assert seconds < 20, f"the tournament took {seconds:.1f} s"
        assert len(children(pids)) == 2 and all_gone(pids), "a bot's child outlived its game"
    finally:
        kill_children(pids)


def test_a_worker_given_up_at_its_task_limit_ends_its_bots(tmp_path):
    # the runner stops the worker with SIGTERM, on which the worker ends its bots' process
    # groups (out of reach of a signal to the worker's own): the thinking bot is gone at once
    out, pids = tmp_path / "t", tmp_path / "bot.pids"
    hung = script(tmp_path, "hung.py", f"import os; open({str(pids)!r}, 'a').write("
                                       f"f'{{os.getpid()}}\\n')\n" + HUNG)
    try:
        assert main(["tournament", "random", hung, "--games", "1", "--unpaired",
                     "--concurrency", "1", "--time-per-decision", "50000", "--game-timeout",
                     "100", "--task-timeout", "3", "--out", str(out)]
                    ) == tournament_schedule.EXIT_UNFINISHED
        (game,) = results(out)[0]["games"]
        assert game["ending"] == "abandoned"
        assert "the worker exceeded the game's task limit of 3 s" in game["reason"]
        assert len(children(pids)) == 1 and all_gone(pids, within=1), "the bot outlived it"
    finally:
        kill_children(pids)


def test_a_dead_worker_abandons_its_game_and_resume_plays_it(tmp_path, capsys, monkeypatch):
    out = tmp_path / "t"
    dying = tmp_path / "dying_worker.py"
    dying.write_text(DYING_WORKER)
    monkeypatch.setattr(tournament.Worker, "command", [sys.executable, str(dying)])
    args = ["tournament", "random", "greedy", "--games", "2", "--concurrency", "1",
            "--out", str(out)]
    assert main(args) == tournament_schedule.EXIT_UNFINISHED
    data, rows = results(out)
    assert not data["complete"]
    for game, row in zip(data["games"], rows, strict=True):
        assert game["ending"] == "abandoned" and row["winner"] == ""
        assert game["reason"] == ("the worker process died (exit status 7): worker: fatal "
                                  "error")
    assert all(r["games"] == 0 for r in data["standings"])
    monkeypatch.undo()
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0
    assert "0 of 2 games done, 2 to play" in capsys.readouterr().err
    data, rows = results(out)
    assert data["complete"]
    assert_consistent(out, data, rows)


@pytest.mark.parametrize(("argv", "status", "says"), [
    (["random", "nobot"], 2, "unknown bot 'nobot'"),
    (["random", "cmd:no-such-program-xyz"], 2, "program 'no-such-program-xyz' not found"),
    (["random"], 2, "at least two participants"),
    (["random", "random", "random#2"], 2, "'random#2' is given twice"),
    (["random", "greedy", "--games", "zero"], 2, "--games"),
    (["random", "greedy", "--format", "swiss"], 2, "--format"),
    (["random", "greedy", "--format", "gauntlet", "--gauntlet-champion", "ismcts"], 2,
     "not one of the participants"),
    (["--resume"], 1, "does not exist"),
])
def test_errors_are_one_line(tmp_path, capsys, argv, status, says):
    try:
        code = main(["tournament", *argv, "--out", str(tmp_path / "t")])
    except SystemExit as exit:  # argparse's own checks
        code = exit.code
    assert code == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err and "Traceback" not in err


def test_unwritable_folder_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["tournament", "random", "greedy", "--out", str(blocker / "t")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write to" in err
