# External bots keep no memory between games (cli/bots/sandbox.py, SPEC §8.3): a bot that
# writes the hidden cards it sees where a program keeps its notes and looks for them in the
# next game, played in real paired tournaments (the second game of a pair deals its opponent
# the hand it saw in the first). It reports through the one channel every run has: it exits
# at its first decision with a summary on stderr, which the forfeit's reason records.
from __future__ import annotations

import json
import os
import shutil
import socket
import sys
from pathlib import Path

import pytest

from versus.cli.bots.sandbox import (
    SandboxUnavailable,
    absolute_command,
    bot_environment,
    bwrap_program,
    private_launch,
)
from versus.cli.main import main
from versus.cli.tournament_worker import game_secrets

# Memory in five places: c = its cwd, h = $HOME, t = $TMPDIR, s = /tmp/<token> (a fixed path),
# a = the absolute path the test gives (argv[1]). argv[2]: a port listening on 127.0.0.1.
MEMORY_BOT = r"""
import json, os, socket, sys
notes, port = sys.argv[1], int(sys.argv[2])
token = os.path.basename(notes)
places = {"c": os.path.join(os.getcwd(), "memory"), "h": os.path.join(os.environ["HOME"], "m"),
          "t": os.path.join(os.environ.get("TMPDIR", "/nonexistent"), "m"),
          "s": os.path.join("/tmp", token), "a": notes}
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "memory"}), flush=True)
    elif m["type"] == "decide":
        seen = json.dumps(m["view"], sort_keys=True)
        found = "".join(k for k, p in places.items() if os.path.exists(p))
        wrote = failed = ""
        for k, p in places.items():
            try:
                with open(p, "w") as f:
                    f.write(seen)
                wrote += k
            except OSError:
                failed += k
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            net = "open"
        except OSError:
            net = "closed"
        leak = "leak" if "VERSUS_ORGANISER_MARKER" in os.environ else "clean"
        print(f"found={found} wrote={wrote} failed={failed} net={net} env={leak}",
              file=sys.stderr, flush=True)
        sys.exit(3)
"""

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap (bwrap) is not installed")


@pytest.fixture
def organiser(tmp_path, monkeypatch):
    """The organiser's own cwd, HOME and TMPDIR (so the code of before, which ran bots there,
    writes nowhere else), a marker in its environment, and a port listening on 127.0.0.1."""
    for name in ("cwd", "home", "tmp"):
        (tmp_path / name).mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    monkeypatch.setenv("VERSUS_ORGANISER_MARKER", "secret")
    listener = socket.create_server(("127.0.0.1", 0))
    token = f"versus-memory-{os.getpid()}-{tmp_path.name}"
    yield tmp_path, listener.getsockname()[1], token
    listener.close()
    Path("/tmp", token).unlink(missing_ok=True)


def paired_tournament(tmp_path: Path, port: int, token: str, *extra: str) -> list[dict]:
    """Two games of one deal, the memory bot in seat 0 then seat 1; what it said in each."""
    bot = tmp_path / "memory_bot.py"
    bot.write_text(MEMORY_BOT)
    notes = tmp_path / token  # the absolute path it is given (outside any sandbox)
    out = tmp_path / f"t{len(list(tmp_path.glob('t*')))}"
    code = main(["tournament", f"cmd:{sys.executable} {bot} {notes} {port}", "random",
                 "--games", "2", "--concurrency", "1", "--time-per-decision", "5000",
                 "--out", str(out), *extra])
    assert code == 0
    games = json.loads((out / "results.json").read_text())["games"]
    assert [g["pair"] for g in games] == [1, 1] and games[0]["match_id"] == games[1]["match_id"]
    said = []
    for game in games:
        assert game["ending"] == "forfeit" and game["winner"] == "random", game["reason"]
        said.append(dict(word.split("=") for word in game["reason"].split(": ")[-1].split()))
    return said


def test_a_bot_without_a_sandbox_forgets_its_cwd_home_and_tmpdir(organiser):
    """The control run: the per-game directory and environment alone. What the bot wrote
    where it runs (cwd, HOME, TMPDIR) is gone in the pair's second game; what it wrote to a
    fixed path outside is not (only --sandbox stops that), and it reaches the network."""
    tmp_path, port, token = organiser
    first, second = paired_tournament(tmp_path, port, token)
    assert first == {"found": "", "wrote": "chtsa", "failed": "", "net": "open",
                     "env": "clean"}
    assert second["found"] == "sa"  # not c, h, t: a fresh directory each game
    assert [p for name in ("cwd", "home", "tmp") for p in (tmp_path / name).rglob("*")] == []


@needs_bwrap
def test_a_sandboxed_bot_remembers_nothing_and_reaches_no_network(organiser):
    """--sandbox: the bot can write only its per-game directory (gone after the game), sees
    no file of the organiser it was not given, and cannot connect to 127.0.0.1."""
    tmp_path, port, token = organiser
    first, second = paired_tournament(tmp_path, port, token, "--sandbox")
    for said in (first, second):
        assert said == {"found": "", "wrote": "cht", "failed": "sa", "net": "closed",
                        "env": "clean"}
    assert not (tmp_path / token).exists() and not Path("/tmp", token).exists()


def test_sandbox_without_bubblewrap_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap there
    code = main(["tournament", "random", f"cmd:{sys.executable} x.py", "--sandbox",
                 "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert err.startswith("versus tournament: --sandbox needs bubblewrap")
    assert not (tmp_path / "t").exists()
    with pytest.raises(SandboxUnavailable):
        bwrap_program()


def test_the_bot_environment_is_an_allowlist(tmp_path):
    env = bot_environment(tmp_path, {"PATH": "/usr/bin", "LANG": "C.UTF-8", "AWS_SECRET": "x",
                                     "HOME": "/root", "PYTHONPATH": "/src"})
    assert env["PATH"] == "/usr/bin" and env["LANG"] == "C.UTF-8"
    assert env["HOME"] == env["TMPDIR"] == str(tmp_path)
    assert "AWS_SECRET" not in env and "PYTHONPATH" not in env


def test_the_command_is_made_absolute_and_the_directory_is_fresh(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.py").write_text("")
    assert absolute_command(["python3", "bot.py", "--level", "3"]) == [
        shutil.which("python3"), str(tmp_path / "bot.py"), "--level", "3"]
    one, two = (private_launch([sys.executable, "bot.py"]) for _ in range(2))
    try:
        assert one.home != two.home and one.home.is_dir() and not any(one.home.iterdir())
        assert one.argv[1] == str(tmp_path / "bot.py") and one.env["HOME"] == one.cwd
    finally:
        one.remove()
        two.remove()
    assert not one.home.exists()


def test_a_pair_shares_its_deal_and_nothing_of_its_bots():
    """The two games of a pair: the same match secrets (the deal, SPEC §8.3), each game's own
    bot seeds; games of other deals share nothing."""
    deal = "ab" * 32
    first, second, other = (game_secrets({"seed": seed, "deal_seed": d}) for seed, d in
                            (("01", deal), ("02", deal), ("03", "cd" * 32)))
    assert first.master_secrets == second.master_secrets != other.master_secrets
    assert [i.public_key for i in first.identities] == [i.public_key
                                                         for i in second.identities]
    assert first.handshake[0](32) == second.handshake[0](32) != other.handshake[0](32)
    assert set(first.bot_seeds).isdisjoint(second.bot_seeds)
    assert set(first.bot_seeds).isdisjoint(other.bot_seeds)


@needs_bwrap
def test_a_sandboxed_bot_given_by_a_relative_command_plays(monkeypatch):
    """The README's `cmd:python3 examples/random_bot.py`, sandboxed: its script is found from
    the organiser's cwd, its interpreter's installation is visible, and it answers."""
    import trio

    from versus.cli.bots import ExternalBot
    from versus.engine.registry import get_game

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    game = get_game("versus42")

    async def hello() -> str | None:
        async with ExternalBot([sys.executable, "examples/random_bot.py"], sandbox=True) as bot:
            await bot.start(0, game.default_rules(), game.default_catalogue())
            return bot.declared_name

    assert trio.run(hello) == "example-random"


@needs_bwrap
def test_an_interpreter_the_bot_ships_never_runs_outside_the_sandbox(tmp_path):
    """A bot that names its own `python3` (a script that records where it runs, then execs the
    real interpreter) is not asked where it lives before the jail: before, it ran once as the
    organiser, with its network and files, and its answer chose what the jail showed."""
    marker = tmp_path / "ran-outside"
    fake = tmp_path / "bot" / "bin" / "python3"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\necho outside > {marker}\nexec {sys.executable} \"$@\"\n")
    fake.chmod(0o755)
    script = tmp_path / "bot" / "bot.py"
    script.write_text("print('hello')\n")
    launch = private_launch([str(fake), str(script)], sandbox=True)
    try:
        assert not marker.exists(), "the bot's own interpreter ran outside the sandbox"
        assert launch.argv[0].endswith("bwrap") and str(fake) in launch.argv
    finally:
        launch.remove()


def test_an_interpreter_s_answer_cannot_show_the_organiser_s_folder(tmp_path, monkeypatch):
    """Even the organiser's interpreter is believed only as a Python installation that does
    not hold the organiser's working directory (where the tournament folder is)."""
    from versus.cli.bots.sandbox import _installation

    monkeypatch.chdir(tmp_path)
    real = (sys.executable, sys.prefix, sys.base_prefix)
    assert _installation(real)
    assert not _installation((sys.executable, "/", sys.base_prefix))
    assert not _installation((sys.executable, str(tmp_path.parent), sys.base_prefix))
    assert not _installation((str(tmp_path / "nope"), sys.prefix, sys.base_prefix))
