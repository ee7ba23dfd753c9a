# `versus bot-check` (cli/bot_check.py): the example bot passes every check; a bot broken in one
# way (crash, garbage, illegal action, slow, strict about unknown fields, lingering after quit)
# fails the check that names that way, with the driver's reason. `--game ID`: the
# same checks on another two-player game's decisions.
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from versus.cli.main import main as versus_main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"cmd:{sys.executable} {ROOT / 'examples' / 'random_bot.py'}"

HEAD = """import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "broken"}), flush=True)
    elif m["type"] == "quit":
        sys.exit(0)
    elif m["type"] == "decide":
"""
BROKEN = {
    "crash": '        print("boom: no strategy", file=sys.stderr); sys.exit(3)\n',
    "garbage": '        print("e2e4 please", flush=True)\n',
    "illegal": '        print(json.dumps({"type": "action", "action": "move a1 a9"}), '
               'flush=True)\n',
    "slow": '        time.sleep(0.5)\n'
            '        print(json.dumps({"type": "action", "action": m["legal"][0]}), flush=True)\n',
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, str], str]:
    try:
        status = versus_main(["bot-check", *argv])
    except SystemExit as exit_info:  # a usage error found while parsing
        status = int(exit_info.code or 0)
    captured = capsys.readouterr()
    lines = {}
    for line in captured.out.splitlines()[:-1]:
        verdict, _, rest = line.partition(" ")
        name, _, detail = rest.partition(": ")
        lines[name] = f"{verdict} {detail}"
    return status, lines, captured.err


def bot(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return f"cmd:{sys.executable} {path}"


def test_the_example_bot_passes_every_check(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, err = run(capsys, EXAMPLE)
    assert status == 0, (lines, err)
    assert set(lines) == {"hello", "quit", "turn seat 0", "turn seat 1",
                          "choice discard-from-hand", "choice discard-from-field",
                          "unknown fields", "no-crash", "well-formed", "legal", "in-time"}
    assert all(v.startswith("PASS") for v in lines.values()), lines
    assert "ready as 'example-random'" in lines["hello"]
    assert "exited with status 0" in lines["quit"]


@pytest.mark.parametrize(("kind", "check", "reason"), [
    ("crash", "no-crash", "exited with code 3 on decision 1: boom: no strategy"),
    ("garbage", "well-formed", "answered a line that is not JSON on decision 1: 'e2e4 please'"),
    ("illegal", "legal", "answered an illegal action 'move a1 a9' on decision 1"),
    ("slow", "in-time", "exceeded 100 ms on decision 1"),
])
def test_a_broken_bot_fails_the_right_check(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            kind: str, check: str, reason: str) -> None:
    # a tight deadline only where lateness is the fault: on a loaded machine a crash seen
    # after 100 ms was once reported as slowness
    deadline = "100" if kind == "slow" else "5000"
    status, lines, _ = run(capsys, bot(tmp_path, kind, HEAD + BROKEN[kind]),
                           "--time-per-decision", deadline)
    assert status == 1
    assert lines[check].startswith("FAIL") and reason in lines[check], lines
    assert lines["hello"].startswith("PASS") and lines["quit"].startswith("PASS")
    assert lines["turn seat 0"].startswith("FAIL") and reason in lines["turn seat 0"]
    others = {"no-crash", "well-formed", "legal", "in-time"} - {check}
    assert all(lines[name].startswith("PASS") for name in others), lines


def test_unknown_fields_and_a_bot_that_does_not_quit(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    strict = ("import json, sys\n"
              "for line in sys.stdin:\n"
              "    m = json.loads(line)\n"
              "    if 'x-bot-check' in m:\n"
              "        print('unexpected field', file=sys.stderr); sys.exit(5)\n"
              "    if m['type'] == 'hello':\n"
              "        print(json.dumps({'type': 'ready', 'name': 'strict'}), flush=True)\n"
              "    elif m['type'] == 'decide':\n"
              "        print(json.dumps({'type': 'action', 'action': m['legal'][0]}), "
              "flush=True)\n"
              "    elif m['type'] == 'quit':\n"
              "        import time; time.sleep(5)\n")
    status, lines, _ = run(capsys, bot(tmp_path, "strict", strict))
    assert status == 1
    assert lines["unknown fields"].startswith("FAIL")
    assert "exited with code 5" in lines["unknown fields"]
    assert lines["quit"] == "FAIL did not exit within 1 s of quit (killed)"
    assert lines["turn seat 0"].startswith("PASS") and lines["turn seat 1"].startswith("PASS")


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "cmd:./no-such-bot-program")
    assert status == 2 and err.strip() == ("versus bot-check: bot 'cmd:./no-such-bot-program': "
                                           "program './no-such-bot-program' not found")
    status, _, err = run(capsys, "random", "--game", "multiverse")
    assert status == 2 and err.strip() == ("versus bot-check: --game multiverse: bot-check "
                                           "presents the decisions of two-player games; "
                                           "multiverse is a 1-player game")
    status, _, err = run(capsys, EXAMPLE, "--game", "multiverse")
    assert status == 2 and "plays the two-player games" in err
    status, _, err = run(capsys, "nosuchbot")
    assert status == 2 and "unknown bot" in err


@pytest.mark.parametrize(("body", "said"), [
    (None, "exited with code 1 before answering the hello: "),
    ("import sys\nprint('no strategy yet', file=sys.stderr)\nsys.exit(4)\n",
     "exited with code 4 before answering the hello: no strategy yet"),
])
def test_a_bot_that_does_not_start_stops_the_check_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str | None, said: str) -> None:
    command = (f"{sys.executable} -m nosuchmodule" if body is None
               else bot(tmp_path, "gone", body).removeprefix("cmd:"))
    status, lines, err = run(capsys, f"cmd:{command}:name=Mine")
    assert status == 1 and lines == {}
    assert err.count("\n") == 1, err
    assert err.startswith(f"versus bot-check: bot {command!r} {said}"), err
    assert err.rstrip().endswith("; no check could run"), err
    if body is None:
        assert "No module named nosuchmodule" in err


def test_a_builtin_bot_is_checked_on_its_decisions(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "greedy:seed=1")
    assert status == 0 and lines["hello"] == "PASS not an external bot (nothing to exchange)"


def test_a_bot_without_a_ready_is_not_run_further(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    no_ready = "import sys\nsys.stdin.readline()\nprint('hello to you too', flush=True)\n"
    status, lines, _ = run(capsys, bot(tmp_path, "no_ready", no_ready))
    assert status == 1 and len(lines) == 11
    assert "answered a line that is not JSON on the hello" in lines["hello"]
    assert lines["quit"] == lines["turn seat 0"] == "FAIL not run: the bot failed the hello"
    assert lines["well-formed"].startswith("FAIL") and lines["legal"].startswith("PASS")


PROPERTIES = {"no-crash", "well-formed", "legal", "in-time"}


@pytest.mark.parametrize(("game", "choices"), [
    ("grid", {"choice free-window", "choice battle-order", "choice item-target"}),
    ("vanquishers", {"choice spring-trap", "choice replace-weapon"}),
])
def test_the_example_bot_passes_every_check_of_another_game(
        capsys: pytest.CaptureFixture[str], game: str, choices: set[str]) -> None:
    status, lines, err = run(capsys, EXAMPLE, "--game", game)
    assert status == 0, (lines, err)
    assert set(lines) == {"hello", "quit", "turn seat 0", "turn seat 1", "unknown fields",
                          *choices, *PROPERTIES}
    assert all(v.startswith("PASS") for v in lines.values()), lines
    assert "a whole game from seat 1" in lines["turn seat 1"]


@pytest.mark.parametrize(("kind", "check", "reason"), [
    ("crash", "no-crash", "exited with code 3 on decision 1: boom: no strategy"),
    ("illegal", "legal", "answered an illegal action 'move a1 a9' on decision 1"),
])
def test_a_broken_bot_fails_the_right_check_of_grid(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    kind: str, check: str, reason: str) -> None:
    status, lines, _ = run(capsys, bot(tmp_path, kind, HEAD + BROKEN[kind]), "--game", "grid")
    assert status == 1
    assert lines[check].startswith("FAIL") and reason in lines[check], lines
    assert lines["hello"].startswith("PASS") and lines["quit"].startswith("PASS")
    for name in ("turn seat 0", "turn seat 1", "choice free-window", "unknown fields"):
        assert lines[name].startswith("FAIL") and reason in lines[name], lines
    assert all(lines[name].startswith("PASS") for name in PROPERTIES - {check}), lines
