# The command-line defects found in a review of the command line, one test (or a few) each, numbered
# as in that review: each failed on the code before the fix. Commands run in-process through `main`
# where that is quick and cannot hang on a regression; as separate processes where the real thing
# matters (no terminal on stdin, a closed stdout pipe) or where the old code would wait forever (a
# timeout ends it). The terminal UI is either replaced by a recorder (to prove it never started) or
# driven through a pipe (to leave a match as a person would: Ctrl-C, then `l`). Network: TCP on
# 127.0.0.1 only; every wait is bounded.
from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import pty
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import trio
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.cli.test_join_rules import FakeTerminal, _args, _host
from versus.cli.boundary import CommandError
from versus.cli.join_cmd import cmd_join
from versus.cli.main import EXIT_BROKEN_PIPE, main
from versus.cli.parsers import build_parser
from versus.engine import IllegalActionError
from versus.engine.versus42 import default_catalogue
from versus.p2p.keystore import load_or_create_identity
from versus.p2p.session import open_nursery
from versus.protocol.deals.dealers import check_decklist
from versus.protocol.errors import LocalProtocolError
from versus.protocol.match.verify import verify_transcript

ROOT = Path(__file__).resolve().parents[2]
CTRL_C = "\x03"


@pytest.fixture(autouse=True)
def _own_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys, known_peers and matches of in-process commands live in this test's directory."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}


def _run(tmp_path: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """`versus ARGS` in a process of its own, stdin not a terminal (/dev/null)."""
    return subprocess.run([sys.executable, "-m", "versus.cli.main", *args], cwd=ROOT,
                          env=_env(tmp_path), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout)


def _key(tmp_path: Path, name: str = "me") -> str:
    path = tmp_path / f"{name}.key"
    load_or_create_identity(path)  # made beforehand: a new key is announced on stderr
    return str(path)


def _one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr
    return lines[0]


@pytest.fixture
def ui_started(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The terminal UI replaced by a recorder (it ends at once); a terminal on stdin."""
    started: list[Any] = []
    monkeypatch.setattr("versus.cli.ui.app.run_ui", lambda client, **_: started.append(client))
    monkeypatch.setattr(sys, "stdin", FakeTerminal(""))
    return started


Script = Callable[[Any, Any, Any], Awaitable[None]]


def _drive_ui(monkeypatch: pytest.MonkeyPatch, script: Script) -> None:
    """The real terminal UI, its keys typed by `script(ui, client, pipe)` (as tests/cli/test_ui
    drives it); a terminal on stdin."""
    from versus.cli.ui.app import run_ui_async

    def run_ui(client: Any, **_: Any) -> Any:
        async def go() -> Any:
            output = DummyOutput()
            with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
                ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
                task = asyncio.ensure_future(run_ui_async(client, input=pipe, output=output,
                                                          ui_ready=ready))
                ui = await asyncio.wait_for(ready, 10)
                await asyncio.wait_for(script(ui, client, pipe), 60)
                return await asyncio.wait_for(task, 20)

        return asyncio.run(go())

    monkeypatch.setattr("versus.cli.ui.app.run_ui", run_ui)
    monkeypatch.setattr(sys, "stdin", FakeTerminal(""))


async def _until(condition: Callable[[], bool], what: str, timeout: float = 30) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


# --- 1. ports, --resume-window, --identity -----------------------------------------------------


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_1_a_port_out_of_range_is_a_usage_error_naming_it(tmp_path: Path, port: str) -> None:
    # before: 99999 wrapped modulo 65536, 65536 listened on a random port (the host then waits
    # for a joiner: the timeout ends it), -1 reached the resolver
    result = _run(tmp_path, "host", "--port", port, "--bind", "127.0.0.1", "--bot", "random",
                  "--identity", _key(tmp_path), timeout=20)
    assert result.returncode == 2, result.stderr
    named = [line for line in result.stderr.splitlines() if port in line]
    assert len(named) == 1 and "0..65535" in named[0] and "--port" in named[0]
    assert result.stderr.count("\n") == 1  # one line, not argparse's usage block
    assert "Traceback" not in result.stderr and "listening" not in result.stdout


def test_1_a_negative_resume_window_is_a_usage_error(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:  # before: exit 1, from deep inside the command
        main(["host", "--resume-window", "-5", "--bot", "random", "--port", "0"])
    assert exited.value.code == 2
    assert "--resume-window: '-5' must be 0..86400 seconds" in capsys.readouterr().err


def test_1_a_missing_identity_file_is_created_and_said_so(tmp_path: Path) -> None:
    key = tmp_path / "x" / "new.key"  # the folder does not exist either
    first = _run(tmp_path, "join", "hello", "--identity", str(key))
    assert key.is_file()
    created = [line for line in first.stderr.splitlines() if "created a new identity key" in line]
    assert len(created) == 1 and str(key) in created[0]
    fingerprint = load_or_create_identity(key).fingerprint
    assert fingerprint in created[0] and "will not recognise this one" in created[0]
    again = _run(tmp_path, "join", "hello", "--identity", str(key))
    assert "created" not in again.stderr  # said once, when it was made
    assert _one_error_line(again.stderr) == ("versus: invite 'hello': the address 'hello' has "
                                             "no :PORT")


# --- 2. play --resume --------------------------------------------------------------------------


def test_2_play_refuses_resume_in_one_line(tmp_path: Path, capsys, ui_started) -> None:
    # before: accepted and ignored, a new match started
    assert main(["play", "--resume", "0123abcd"]) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert "--resume" in line and "a match against a local bot cannot be resumed" in line
    assert ui_started == []


# --- 3. leaving a play match -------------------------------------------------------------------


async def _leave(ui: Any, client: Any, pipe: Any) -> None:
    """As a person: wait for our decision, then Ctrl-C and `l` (leave) until it is done."""
    await _until(lambda: bool(client.inputs()), "our decision")
    while not (client.session is not None and client.session.done):
        pipe.send_text(CTRL_C)
        await asyncio.sleep(0.2)
        pipe.send_text("l")
        await asyncio.sleep(0.3)


@pytest.mark.parametrize("seat", ["0", "1"])
def test_3_leaving_play_exits_3_with_the_transcript(tmp_path: Path, capsys, monkeypatch,
                                                    seat: str) -> None:
    # before: "versus: cancelled due to explicit from task <Task …>", exit 1
    _drive_ui(monkeypatch, _leave)
    data = tmp_path / "matches"
    assert main(["play", "--bot", "random", "--seat", seat, "--data-dir", str(data)]) == 3
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    path = Path(next(line for line in lines if line.startswith("transcript: "))[12:])
    assert path.is_file() and path.parent.parent == data
    assert lines[-1].endswith("unfinished (you left the match); a match against a local bot "
                              "cannot be resumed (its transcript so far is kept)")
    assert lines[-1].startswith(f"match {path.parent.name[:16]}: ")


# --- 4. nothing the UI shows before the match exists can fail inside it ------------------------


@pytest.mark.parametrize(("args", "cause"), [
    (["join", "versus://x"], "invite 'versus://x' has no #FINGERPRINT"),
    (["join", "hello"], "invite 'hello': the address 'hello' has no :PORT"),
    (["join", "--resume", "0123abcd"], "no saved match 0123abcd"),
    (["join", "--resume", "unknownid"], "match id 'unknownid' is not hexadecimal"),
    (["join", "127.0.0.1:1"], "could not connect to 127.0.0.1:1 (connection refused)"),
])
def test_4_a_bad_or_unreachable_join_is_one_line_without_a_terminal(tmp_path: Path,
                                                                     args: list[str],
                                                                     cause: str) -> None:
    # before: the UI started on no terminal and ended in "internal error (EOFError)"
    result = _run(tmp_path, *args, "--identity", _key(tmp_path))
    assert result.returncode == 1
    assert cause in _one_error_line(result.stderr)
    assert "Warning: Input is not a terminal" not in result.stderr


def test_4_without_a_terminal_a_person_plays_at_the_line_interface() -> None:
    # the full-screen UI reads keys from a terminal (it would fail with EOFError on another
    # input); without one, every game is played at the line interface, which prints the same
    # scene and reads lines from a pipe or a file
    from versus.cli.match_setup import plays_full_screen

    assert plays_full_screen(FakeTerminal(""))
    assert not plays_full_screen(io.StringIO("")) and not plays_full_screen(None)


def test_4_an_unreachable_invite_fails_before_the_ui(tmp_path: Path, capsys,
                                                     ui_started) -> None:
    fingerprint = load_or_create_identity(tmp_path / "host.key").fingerprint
    # --accept-rules: before, nothing was read before the UI (only a person's y/N read it)
    assert main(["join", f"versus://127.0.0.1:1#{fingerprint}", "--accept-rules",
                 "--identity", _key(tmp_path)]) == 1
    assert "could not connect to 127.0.0.1:1" in _one_error_line(capsys.readouterr().err)
    assert main(["join", "--resume", "0123abcd", "--identity", _key(tmp_path)]) == 1
    assert "no saved match 0123abcd" in _one_error_line(capsys.readouterr().err)
    assert ui_started == []


def test_4_a_host_that_cannot_listen_fails_before_the_ui(tmp_path: Path, capsys,
                                                         ui_started) -> None:
    assert main(["host", "--bind", "203.0.113.9", "--port", "0",
                 "--identity", _key(tmp_path)]) == 1  # not an address of this machine
    assert "could not listen on 203.0.113.9:0" in _one_error_line(capsys.readouterr().err)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        assert main(["host", "--bind", "127.0.0.1", "--port", port,
                     "--identity", _key(tmp_path)]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert f"could not listen on 127.0.0.1:{port}" in line and "another program" in line
    assert ui_started == []


def test_4_a_data_dir_that_is_a_file_fails_before_listening(tmp_path: Path) -> None:
    # before: the host listened and printed its invite, and failed only once a player joined
    # (here nobody joins: the timeout ends it)
    file = tmp_path / "file"
    file.write_text("not a directory")
    result = _run(tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random",
                  "--data-dir", str(file), "--identity", _key(tmp_path), timeout=20)
    assert result.returncode == 1
    assert _one_error_line(result.stderr) == (f"versus: the data directory {file} is not a "
                                              "directory; choose another with --data-dir DIR")
    assert result.stdout == ""


# --- 8. bot failures ---------------------------------------------------------------------------


@pytest.mark.parametrize(("bots", "result", "stderr"), [
    (["--bot-a", "cmd:/nonexistent"],
     "result: player 2 wins (forfeit: bot '/nonexistent' could not be started: ",
     "versus: player 1's bot forfeited: bot '/nonexistent' could not be started: "),
    (["--bot-b", "cmd:false"], "result: player 1 wins (forfeit: bot 'false' ",
     "versus: player 2's bot forfeited: bot 'false' "),
])
def test_8_demo_reports_a_bot_failure_as_the_tournament_does(tmp_path: Path, capsys,
                                                             bots: list[str], result: str,
                                                             stderr: str) -> None:
    # before: "internal error (BotForfeit …); please report it", or "seat 0 resigned", exit 0
    assert main(["demo", *bots, "--quiet", "--out", str(tmp_path / "out")]) == 1
    captured = capsys.readouterr()
    assert any(line.startswith(result) for line in captured.out.splitlines()), captured.out
    assert "verify: OK" in captured.out  # the forfeit is a complete, verifiable transcript
    assert _one_error_line(captured.err).startswith(stderr)


async def _play_first_legal(ui: Any, client: Any, pipe: Any) -> None:
    """Play the first legal action until the match is over, then close the game-over screen."""
    while client.result is None:
        legal = client.inputs()
        if legal:
            with contextlib.suppress(IllegalActionError):  # the match ended meanwhile
                await ui.guest.call(client.submit, legal[0])
        await asyncio.sleep(0.05)
    await _until(lambda: ui.mode.name == "GAME_OVER", "the game-over screen")  # else q is typed
    pipe.send_text("q")


def test_8_play_reports_the_bots_forfeit(tmp_path: Path, capsys, monkeypatch) -> None:
    _drive_ui(monkeypatch, _play_first_legal)
    code = main(["play", "--bot", "cmd:false", "--data-dir", str(tmp_path / "m")])
    captured = capsys.readouterr()
    assert code == 1 and captured.out, captured
    last = captured.out.splitlines()[-1]
    assert "player 1 wins (forfeit: bot 'false' " in last and last.endswith(" — you won")
    assert _one_error_line(captured.err).startswith("versus: player 2's bot forfeited: bot "
                                                    "'false' ")


def test_8_play_names_a_bot_that_cannot_start_before_the_ui(tmp_path: Path, capsys,
                                                            ui_started) -> None:
    assert main(["play", "--bot", "cmd:/nonexistent"]) == 1
    assert _one_error_line(capsys.readouterr().err).startswith(
        "versus: bot '/nonexistent' could not be started: ")
    assert ui_started == []


# A bot that says hello, then dies on its first decision (in the middle of a match).
DIES_MID_MATCH = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "dies"}), flush=True)
    elif message["type"] == "decide":
        sys.exit(7)
"""


async def test_8_join_reports_its_bot_failing_mid_match(tmp_path: Path, capsys) -> None:
    bot = tmp_path / "dies.py"
    bot.write_text(DIES_MID_MATCH)
    lines: list[str] = []
    with trio.fail_after(60):
        async with open_nursery() as nursery:
            target = await _host(tmp_path, nursery, lines, [])
            capsys.readouterr()
            # before: "seat 0 wins — you lost", exit 0, as if the bot had played and lost
            code = await trio.to_thread.run_sync(main, [
                "join", target, "--bot", f"cmd:{sys.executable} {bot}", "--accept-rules",
                "--identity", _key(tmp_path, "joiner"), "--data-dir", str(tmp_path / "j")])
            nursery.cancel_scope.cancel()
    captured = capsys.readouterr()
    assert code == 1, captured
    assert "player 1 wins (forfeit: bot " in captured.out.splitlines()[-1]
    assert _one_error_line(captured.err).startswith("versus: player 2's bot forfeited: bot ")
    transcript = Path(next(line for line in captured.out.splitlines()
                           if line.startswith("transcript: "))[len("transcript: "):])
    assert verify_transcript(transcript.read_bytes()).ok  # the forfeit is a complete match


# --- 9. deck errors name the bad ids -----------------------------------------------------------


def test_9_a_deck_error_names_the_unknown_id_first(tmp_path: Path, capsys) -> None:
    catalogue = default_catalogue()
    good = sorted((card.id for card in catalogue.cards), key=len)[-11:]  # the longest ids
    assert len(repr(good)) > 120  # the old message cut the list here, before the bad id
    with pytest.raises(LocalProtocolError, match=r"deck is 12 catalogue card ids; not in the "
                                                  r"catalogue: 'no-such-card'$"):
        check_decklist(catalogue, [*good, "no-such-card"], 12, None)
    deck = tmp_path / "deck.txt"
    deck.write_text("\n".join([*good, "no-such-card", "x" * 500]))
    assert main(["host", "--deal", "decklist", "--deck", str(deck), "--bot", "random",
                 "--port", "0", "--identity", _key(tmp_path)]) == 1
    line = _one_error_line(capsys.readouterr().err)
    assert line == (f"versus: deck file {deck}: seat 0's deck is 12 catalogue card ids; not in the "
                    f"catalogue: 'no-such-card', '{'x' * 40}'; got 13 cards")


# --- 11. a closed stdout -----------------------------------------------------------------------


@pytest.mark.parametrize("args", [["verify", "--json"], ["demo", "--offline"]])
def test_11_a_closed_stdout_ends_quietly(tmp_path: Path, args: list[str]) -> None:
    # `versus verify --json F | head -1`, made deterministic: the pipe's reader is gone before
    # the command writes anything (before: a BrokenPipeError traceback, or "versus: [Errno 32]
    # Broken pipe" and exit 1 through the error boundary)
    transcript = tmp_path / "t.vtr"
    transcript.write_bytes(b"not a transcript")
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "versus.cli.main", *args,
             *([str(transcript)] if args[0] == "verify" else [])],
            cwd=ROOT, env=_env(tmp_path), stdin=subprocess.DEVNULL, stdout=writer,
            stderr=subprocess.PIPE, text=True, timeout=30)
    finally:
        os.close(writer)
    assert (result.returncode, result.stderr) == (EXIT_BROKEN_PIPE, "")


# --- 12. host and join with one identity; HOST:PORT trust on first use -------------------------


async def test_12_joining_our_own_host_names_the_fix(tmp_path: Path, capsys) -> None:
    lines: list[str] = []
    with trio.fail_after(30):
        async with open_nursery() as nursery:
            target = await _host(tmp_path, nursery, lines, [])
            capsys.readouterr()  # the host's "created a new identity key" line
            # before: "hellos do not agree … reflected hello?" here, and the host's "closed the
            # connection without saying goodbye"
            code = await trio.to_thread.run_sync(main, [
                "join", target, "--bot", "random", "--accept-rules",
                "--identity", str(tmp_path / "host.key"), "--data-dir", str(tmp_path / "j")])
            nursery.cancel_scope.cancel()
    assert code == 1
    line = _one_error_line(capsys.readouterr().err)
    fingerprint = load_or_create_identity(tmp_path / "host.key").fingerprint
    assert line.startswith(f"versus: {target} proved your own identity {fingerprint}: ")
    assert "--identity PATH" in line and "XDG_CONFIG_HOME" in line
    assert not any("joined" in entry for entry in lines)  # the host still waits for a player


async def test_joining_by_host_port_says_a_new_key_is_trusted(tmp_path: Path) -> None:
    lines: list[str] = []
    outs = [io.StringIO(), io.StringIO()]
    with trio.fail_after(30):
        async with open_nursery() as nursery:
            target = await _host(tmp_path, nursery, lines, [])
            for out in outs:  # a person reads the rules, and declines
                with pytest.raises(CommandError, match="did not accept the host's rules"):
                    await trio.to_thread.run_sync(cmd_join, _args(tmp_path, "join", target),
                                                  out, FakeTerminal("n\n"))
            nursery.cancel_scope.cancel()
    fingerprint = load_or_create_identity(tmp_path / "host.key").fingerprint
    first, second = (out.getvalue() for out in outs)
    # before: the key was recorded in known_peers without a word
    assert (f"NOTE: {target} is new to you: its key {fingerprint} is now trusted for that "
            "address (trust on first use") in first
    assert f"their invite ends with #{fingerprint}" in first
    assert first.index("is new to you") < first.index("[y/N]")  # said before the question
    assert "is new to you" not in second  # known from now on


def test_a_group_of_task_failures_is_one_line_naming_the_first(capsys) -> None:
    """Several trio tasks failing at once reach the error boundary as an ExceptionGroup: an
    expected failure inside it is still its own one line (not "internal error
    (ExceptionGroup ...)"), and a bug inside it is an internal error naming the bug."""
    import argparse

    from versus.cli.boundary import guarded
    from versus.protocol.errors import LocalProtocolError

    def expected(args: argparse.Namespace, out: object) -> int:
        raise ExceptionGroup("tasks", [LocalProtocolError("the peer left"), ValueError("x")])

    def bug(args: argparse.Namespace, out: object) -> int:
        raise ExceptionGroup("tasks", [ExceptionGroup("inner", [KeyError("oops")])])

    assert guarded(expected, argparse.Namespace(), sys.stdout) == 1
    assert capsys.readouterr().err == "versus: the peer left\n"
    assert guarded(bug, argparse.Namespace(), sys.stdout) == 1
    assert capsys.readouterr().err.startswith("versus: internal error (KeyError: 'oops')")




# --- second review -----------------------------------------------------------------------------

# A bot that says hello, then never answers its first decision (it marks that it got one); it
# ends when its driver goes away (the end of its input). Run with `:time=60`, so that it holds
# the match for the test instead of forfeiting after the default second.
STALLS = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "stalls"}), flush=True)
    elif message["type"] == "decide":
        open(sys.argv[1], "w").close()
        sys.stdin.read()
"""


def _versus(tmp_path: Path, *args: str, **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "versus.cli.main", *args], cwd=ROOT,
                            env=_env(tmp_path), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def _listening_port(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    for line in process.stdout:  # the process ends (and the loop) within the test's timeouts
        if line.startswith("listening on port "):
            return line.split()[3].rstrip(";,")
    raise AssertionError(f"the host did not listen: {process.communicate(timeout=5)}")


def test_host_and_joiner_of_one_home_each_resume_their_side(tmp_path: Path) -> None:
    # before: both sides wrote matches/<id>/ (the joiner's secret over the host's), and
    # `host --resume` failed: "the master secret does not reproduce our HELLO"
    data = str(tmp_path / "data")
    stalls, decided = tmp_path / "stalls.py", tmp_path / "decided"
    stalls.write_text(STALLS)
    host_side = ["--bind", "127.0.0.1", "--no-map", "--identity", _key(tmp_path, "host"),
                 "--data-dir", data]
    join_side = ["--identity", _key(tmp_path, "joiner"), "--data-dir", data]
    host = _versus(tmp_path, "host", "--port", "0", "--bot", "random", "--resume-window", "1",
                   *host_side)
    join = None
    try:
        port = _listening_port(host)
        join = _versus(tmp_path, "join", f"127.0.0.1:{port}", "--accept-rules", "--bot",
                       f"cmd:{sys.executable} {stalls} {decided}:time=60", *join_side,
                       start_new_session=True)
        for _ in range(1500):  # the match is under way: the joiner's bot has a decision
            if decided.exists() or join.poll() is not None:
                break
            time.sleep(0.02)
        assert decided.exists(), join.communicate(timeout=5)
        os.killpg(join.pid, signal.SIGKILL)  # the joiner and its bot, mid-match
        out, err = host.communicate(timeout=30)
        assert host.returncode == 3, err
    finally:
        for process in (host, join):
            if process is not None and process.poll() is None:
                process.kill()
    [match_dir] = {path.name for path in Path(data).glob("**/transcript.vtr")
                   for path in [path.parent]}
    host = _versus(tmp_path, "host", "--resume", match_dir[:16], "--bot", "random", *host_side)
    try:
        _listening_port(host)
        joined = _run(tmp_path, "join", "--resume", match_dir[:16], "--bot", "random",
                      *join_side, timeout=60)
        out, err = host.communicate(timeout=30)
    finally:
        host.kill()
    assert (host.returncode, err) == (0, ""), out
    assert (joined.returncode, joined.stderr) == (0, ""), joined.stdout
    transcripts = sorted(Path(data).glob("**/transcript.vtr"))
    assert len(transcripts) == 2 and transcripts[0].read_bytes() == transcripts[1].read_bytes()


def test_resuming_a_finished_match_says_its_result_in_one_line(tmp_path: Path) -> None:
    # before: `host --resume` of a finished match listened for the peer for ever, and
    # `join --resume` dialled the long-closed host for ever
    data = str(tmp_path / "data")
    host_side = ["--identity", _key(tmp_path, "host"), "--data-dir", data]
    join_side = ["--identity", _key(tmp_path, "joiner"), "--data-dir", data]
    host = _versus(tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--no-map",
                   "--bot", "random", *host_side)
    try:
        port = _listening_port(host)
        joined = _run(tmp_path, "join", f"127.0.0.1:{port}", "--accept-rules", "--bot",
                      "random", *join_side, timeout=60)
        host.communicate(timeout=30)
    finally:
        host.kill()
    assert (host.returncode, joined.returncode) == (0, 0), joined.stderr
    summary = joined.stdout.splitlines()[-1]  # "match ID: player N wins (...) — you ..."
    match_id = summary.split()[1].rstrip(":")
    result = summary.split(" — ")[0]  # the result as the match's own summary said it
    assert " wins (" in result or "no winner (" in result, summary
    for command, side in (("host", host_side), ("join", join_side)):
        resumed = _run(tmp_path, command, "--resume", match_id, "--bot", "random", *side,
                       timeout=20)
        line = _one_error_line(resumed.stderr)
        assert resumed.returncode == 1 and resumed.stdout == "", resumed
        assert line.startswith(f"versus: {result} — you "), line
        assert "; the match is finished, nothing is left to resume (its transcript: " in line
        transcript = line.rsplit("(its transcript: ", 1)[1].rstrip(")")
        assert Path(transcript).is_file() and match_id in transcript


def _wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    for _ in range(1500):
        if path.exists() or process.poll() is not None:
            break
        time.sleep(0.02)
    assert path.exists(), process.communicate(timeout=5)


def _read_until(process: subprocess.Popen[str], text: str) -> str:
    """stdout up to `text` (which may end without a newline: a question)."""
    assert process.stdout is not None
    seen = ""
    while text not in seen:
        char = process.stdout.read(1)
        assert char, (seen, process.communicate(timeout=5))
        seen += char
    return seen


def _interrupt(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=20)
    finally:
        process.kill()


def test_ctrl_c_in_a_demo_does_not_offer_a_resume(tmp_path: Path) -> None:
    # before: "versus: interrupted; a started match can be resumed with --resume MATCH_ID"
    stalls, decided = tmp_path / "stalls.py", tmp_path / "decided"
    stalls.write_text(STALLS)
    demo = _versus(tmp_path, "demo", "--out", str(tmp_path / "out"),
                   "--bot-b", f"cmd:{sys.executable} {stalls} {decided}:time=60")
    _wait_for(decided, demo)  # the match is under way
    out, err = _interrupt(demo)
    assert (demo.returncode, err) == (3, "versus: interrupted\n"), out


def test_ctrl_c_in_a_text_mode_play_does_not_offer_a_resume(tmp_path: Path) -> None:
    play = subprocess.Popen([sys.executable, "-m", "versus.cli.main", "play", "--game", "grid",
                             "--data-dir", str(tmp_path / "data")], cwd=ROOT, env=_env(tmp_path),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _read_until(play, "(or: help, resign, leave)")  # the person is asked for a move
    out, err = _interrupt(play)
    assert (play.returncode, err) == (3, "versus: interrupted\n"), out


def test_ctrl_c_at_the_join_question_does_not_offer_a_resume(tmp_path: Path) -> None:
    host = _versus(tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random",
                   "--no-map", "--identity", _key(tmp_path, "host"))
    primary, secondary = pty.openpty()  # the joiner's terminal: it asks y/N
    try:
        port = _listening_port(host)
        join = subprocess.Popen([sys.executable, "-m", "versus.cli.main", "join",
                                 f"127.0.0.1:{port}", "--identity", _key(tmp_path, "joiner")],
                                cwd=ROOT, env=_env(tmp_path), stdin=secondary,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _read_until(join, "[y/N] ")
        out, err = _interrupt(join)
    finally:
        host.kill()
        os.close(primary)
        os.close(secondary)
    assert (join.returncode, err) == (3, "versus: interrupted\n"), out


def test_ctrl_c_in_a_hosted_match_names_the_resume_command(tmp_path: Path) -> None:
    stalls, decided = tmp_path / "stalls.py", tmp_path / "decided"
    stalls.write_text(STALLS)
    host_key = _key(tmp_path, "host")
    host = _versus(tmp_path, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "random",
                   "--no-map", "--identity", host_key)
    join = None
    try:
        port = _listening_port(host)
        join = _versus(tmp_path, "join", f"127.0.0.1:{port}", "--accept-rules", "--bot",
                       f"cmd:{sys.executable} {stalls} {decided}:time=60",
                       "--identity", _key(tmp_path, "joiner"), start_new_session=True)
        _wait_for(decided, join)
        _, err = _interrupt(host)
    finally:
        host.kill()
        if join is not None:
            os.killpg(join.pid, signal.SIGKILL)
    fingerprint = load_or_create_identity(Path(host_key)).fingerprint
    [match_dir] = (tmp_path / "data" / "versus" / "matches" / fingerprint).iterdir()
    assert host.returncode == 3, err
    assert err == (f"versus: interrupted; continue the match with: versus host --resume "
                   f"{match_dir.name[:16]}\n")


def _help(capsys: pytest.CaptureFixture[str], command: str) -> dict[str, str]:
    """`versus COMMAND --help`: each option's help on one line (a wide terminal), by option,
    and the description as "description"."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    options = {line.split()[0]: line for line in text.splitlines() if line.startswith("  -")}
    paragraphs = text.split("\n\n")
    return {**options, "description": paragraphs[1] if len(paragraphs) > 2 else ""}


RULE_COMMANDS = ("host", "play", "demo", "tournament", "solo", "challenge")


@pytest.mark.parametrize("command", RULE_COMMANDS)
def test_help_names_the_default_game_once_and_a_real_rule_example(command: str, capsys,
                                                                  monkeypatch) -> None:
    # before: every --help gave `--rule sides=4` ("versus42 has no rules option 'sides'"), and
    # solo/challenge said "the solo game (default multiverse): a registry id (default versus42"
    from versus.cli.game_options import option_value
    from versus.engine.registry import DEFAULT_GAME, DEFAULT_SOLO_GAME, get_game

    monkeypatch.setenv("COLUMNS", "1000")
    helps = _help(capsys, command)
    game_help, rule_help = helps["--game"], helps["--rule"]
    default = DEFAULT_SOLO_GAME if command in ("solo", "challenge") else DEFAULT_GAME
    assert game_help.count("default") == 1 and f"(default {default};" in game_help
    example = rule_help.split("e.g. --rule ")[1].split()[0]
    name, _, value = example.partition("=")
    value_read = option_value(get_game(default), name, value)  # the default game has it
    args = build_parser().parse_args(  # (the game's checks of a match command run here)
        [command, "--rule", example, *{"tournament": ["--out", "x"], "challenge": ["new"]}.get(
            command, [])])
    assert getattr(args, "rules_options", {name: value_read}) == {name: value_read}


@pytest.mark.parametrize(("command", "option"), [("host", "--bot"), ("join", "--bot"),
                                                 ("play", "--bot"), ("demo", "--bot-a"),
                                                 ("tournament", "description")])
def test_bot_help_lists_each_games_own_bots(command: str, option: str, capsys,
                                            monkeypatch) -> None:
    # before: "random; Versus: greedy, ismcts, ismcts-tree" (grid has greedy and ismcts,
    # Vanquishers greedy), and the tournament: "for another game than Versus, random"
    from versus.engine.registry import games, get_game
    from versus.engine.shell import game_bots, is_solo

    monkeypatch.setenv("COLUMNS", "1000")
    text = _help(capsys, command)[option]
    for info in games():
        game = get_game(info.id)
        if not is_solo(game) and game_bots(game):
            assert f"{info.id}: {', '.join(game_bots(game))}" in text, text
    assert "random" in text and "cmd:" in text


def test_solo_batch_writes_the_summary_into_its_folder(tmp_path: Path, capsys,
                                                       monkeypatch) -> None:
    # before: ./solo-batch/summary.json, where README says DIR/summary.json
    os.chmod(tmp_path, 0o700)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "set"
    assert main(["challenge", "new", "--identity", str(tmp_path / "org.key"), "--out",
                 str(folder), "--id", "b", "--count", "2", "--rule", "difficulty=easy"]) == 0
    assert main(["solo", "--batch", str(folder), "--bot", "random",
                 "--identity", str(tmp_path / "me.key")]) == 0
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["challenges"] == 2 and [b["bot"] for b in summary["bots"]] == ["random"]
    assert sorted(p.name for p in (folder / "random").iterdir()) == ["b-0000.run", "b-0001.run"]
    assert not (tmp_path / "solo-batch").exists()


@pytest.mark.parametrize("game", ["grid", "vanquishers", "versus42"])
def test_demo_prints_the_scene_each_turn_for_every_game(game: str, tmp_path: Path,
                                                        capsys) -> None:
    # before: the grid and Vanquishers demos printed their moves only (README: the board each
    # turn); Versus's board came from cli/board_text.py, which names the game
    runs = {}
    # the quiet run (the same match, its transcript compared byte for byte) once is enough:
    # printing is the same code for every game
    for quiet in ([], ["--quiet"]) if game == "versus42" else ([],):
        out_dir = tmp_path / f"out{len(quiet)}"
        assert main(["demo", "--game", game, "--seed", "17", *quiet, "--out", str(out_dir)]) == 0
        runs[bool(quiet)] = (capsys.readouterr().out,
                             next(out_dir.glob("*/transcript.vtr")).read_bytes())
    out = runs[False][0]
    lines = out.splitlines()
    scenes = [i for i, line in enumerate(lines) if line.endswith(" sees it:")]
    assert len(scenes) >= 4 and "as player 1 sees it:" in out and "as player 2 sees it:" in out
    drawn = [line for line in lines if line.startswith("    ")]  # the scenes, indented
    assert all(lines[i + 1].startswith("    ") for i in scenes) and len(drawn) >= 2 * len(scenes)
    assert max(map(len, drawn)) <= 80
    if True in runs:
        assert runs[False][1] == runs[True][1]  # printing the scenes changes no byte
        assert "sees it" not in runs[True][0]


@pytest.mark.parametrize("game", ["grid", "versus42"])
def test_offline_demo_plays_any_game(game: str, capsys) -> None:
    # before: `--offline is an option of versus42 only`, and Versus's demo its own loop
    assert main(["demo", "--offline", "--game", game, "--seed", "5a"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"versus demo --offline: {game} (")
    assert "as player 1 sees it:" in out and "as player 2 sees it:" in out
    assert out.splitlines()[-1].startswith("result: ")
    main(["demo", "--offline", "--game", game, "--seed", "5a"])
    assert capsys.readouterr().out == out  # a seed reproduces it


def test_creating_the_default_identity_says_where(tmp_path: Path) -> None:
    # before: the keystore's key was made without a word (--help: "created, and said so")
    from versus.p2p.keystore import default_identity_path

    first = _run(tmp_path, "join", "hello")
    path = default_identity_path()  # (the same XDG_CONFIG_HOME here, _own_dirs)
    assert path.is_file() and path.is_relative_to(tmp_path)
    fingerprint = load_or_create_identity(path).fingerprint
    created, error = first.stderr.splitlines()
    assert created == (f"versus: created your identity key {path} ({fingerprint}); other "
                       "players know you by it: keep it (back it up to stay the same player)")
    assert "has no :PORT" in error
    assert "created" not in _run(tmp_path, "join", "hello").stderr  # said once


def test_join_without_a_target_is_a_usage_error(tmp_path: Path) -> None:
    result = _run(tmp_path, "join", "--bot", "random")  # before: exit 1
    assert result.returncode == 2
    assert _one_error_line(result.stderr) == (
        "versus join: give the host's invite or HOST:PORT, or --lan (or --resume MATCH_ID) "
        "(see versus join --help)")
    assert not (tmp_path / "config").exists()  # refused before any key was made


def test_a_bad_json_deck_says_not_json_where(tmp_path: Path, capsys) -> None:
    deck = tmp_path / "deck.json"
    deck.write_text("[1,2")  # before: "not in the catalogue: '[1,2'"
    assert main(["host", "--deal", "decklist", "--deck", str(deck), "--bot", "random",
                 "--port", "0", "--identity", _key(tmp_path)]) == 1
    assert _one_error_line(capsys.readouterr().err) == (
        f"versus: deck file {deck}: not JSON: Expecting ',' delimiter at line 1 column 5")


def test_an_invite_of_another_scheme_says_what_an_invite_looks_like(tmp_path: Path,
                                                                    capsys) -> None:
    fingerprint = load_or_create_identity(tmp_path / "host.key").fingerprint
    target = f"http://127.0.0.1:47820#{fingerprint}"  # before: "an IPv6 address must be in
    assert main(["join", target, "--identity", _key(tmp_path)]) == 1  # brackets"
    assert _one_error_line(capsys.readouterr().err) == (
        f"versus: {target!r} is not an invite: an invite looks like "
        "versus://HOST:PORT#FINGERPRINT (the host prints it), or give HOST:PORT")


@pytest.mark.parametrize("script", ["missing.py", "/nonexistent/bot.py"])
def test_bot_check_of_a_missing_script_is_one_line(tmp_path: Path, capsys,
                                                   monkeypatch, script: str) -> None:
    monkeypatch.chdir(tmp_path)  # before: "3 of 11 checks passed", exit 1
    bot = f"cmd:{sys.executable} {script}"
    assert main(["bot-check", bot]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert _one_error_line(captured.err) == (f"versus bot-check: bot {bot!r}: no such file "
                                             f"{script!r}")


def test_a_pairing_that_lost_everything_has_an_honest_elo_line() -> None:
    from versus.cli.tournament_report import PairingStats
    from versus.cli.tournament_stats import estimate

    def line(counts: tuple[int, ...]) -> str:
        return PairingStats(("a", "b"), counts, estimate(counts)).line(None)

    # before: "a vs b: 1 pairs [...]; Elo -inf +/- 0.0, nElo -inf +/- 0.0, LOS 0.0 %"
    assert line((1, 0, 0, 0, 0)) == ("a vs b: 1 pair [LL 1, LD 0, DD+WL 0, WD 0, WW 0]; Elo "
                                     "below +113.4 (all lost), LOS 0.0 %")
    assert line((0, 0, 0, 0, 3)).endswith("3 pairs [LL 0, LD 0, DD+WL 0, WD 0, WW 3]; Elo "
                                          "above +77.5 (all won), LOS 100.0 %")
    assert line((0, 0, 1)) == "a vs b: 1 game [L 0, D 0, W 1]; Elo above -233.8 (all won), " \
                              "LOS 100.0 %"
    assert "inf" not in line((2, 0, 0))


def test_a_match_of_the_older_layout_is_still_found_to_resume(tmp_path: Path) -> None:
    """matches/<id>/ (before each identity had its own folder) is found by --resume; our own
    folder's match comes first, and a new match goes into our own folder."""
    from versus.p2p.store import MatchStore, StoreError

    old, mine = "ab" * 32, "ab" * 31 + "cd"
    (tmp_path / old).mkdir()
    store = MatchStore(tmp_path, owner="FP")
    assert store.find("abab").directory == tmp_path / old
    (tmp_path / "FP" / mine).mkdir(parents=True)
    assert store.find("abab").directory == tmp_path / "FP" / mine
    assert store.files(bytes(32)).directory == tmp_path / "FP" / ("00" * 32)
    with pytest.raises(StoreError, match=f"no saved match 0123 in {tmp_path / 'FP'}"):
        store.find("0123")
