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
import os
import socket
import subprocess
import sys
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
     "result: seat 1 wins (forfeit: bot '/nonexistent' could not be started: ",
     "versus: player 0's bot forfeited: bot '/nonexistent' could not be started: "),
    (["--bot-b", "cmd:false"], "result: seat 0 wins (forfeit: bot 'false' ",
     "versus: player 1's bot forfeited: bot 'false' "),
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
    assert "seat 0 wins (forfeit: bot 'false' " in last and last.endswith(" — you won")
    assert _one_error_line(captured.err).startswith("versus: player 1's bot forfeited: bot "
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
    assert "seat 0 wins (forfeit: bot " in captured.out.splitlines()[-1]
    assert _one_error_line(captured.err).startswith("versus: player 1's bot forfeited: bot ")
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
