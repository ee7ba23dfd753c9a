# "every command takes --game ID": the command line plays any registered game.
#
#   * game plugins: VERSUS_GAMES names modules that register games on import (a subprocess
#     from the repository root, so `tests` imports); a plugin that fails is one line, exit 2;
#   * `--game ID` and `--rule NAME=VALUE` on demo, play, host, join, tournament and replay,
#     checked while parsing (one line, exit 2), the Versus-only options and bots refused for
#     another game, the Versus flags unchanged;
#   * the toy game (tests/engine/toy_game.py) end to end over real TCP on 127.0.0.1: the demo,
#     the tournament (worker processes load the plugin), verify and replay of its transcripts,
#     and a person at the plain line interface in play, host and join.
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.engine.toy_game import TOY
from versus.cli.main import build_parser, main
from versus.engine.registry import games, register_game, unregister_game
from versus.p2p.keystore import load_or_create_identity
from versus.protocol.match.verify import verify_transcript

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.engine.toy_plugin"


@pytest.fixture
def toy():
    """The toy game registered in this process for the test (as its plugin would)."""
    added = TOY.id not in {g.id for g in games()}
    if added:
        register_game(TOY)
    yield TOY
    if added:
        unregister_game(TOY.id)


def _env(tmp_path: Path, plugins: str | None = PLUGIN, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "VERSUS_GAMES"}
    env.update({"XDG_CONFIG_HOME": str(tmp_path / "config"),
                "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": str(ROOT), **extra})
    if plugins is not None:
        env["VERSUS_GAMES"] = plugins
    return env


def _run(tmp_path: Path, *argv: str, plugins: str | None = PLUGIN, stdin: str = "",
         timeout: float = 60, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "versus.cli.main", *argv], cwd=ROOT,
                          env=_env(tmp_path, plugins, **extra), input=stdin,
                          capture_output=True, text=True, timeout=timeout, check=False)


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _transcript(out: str) -> Path:
    return Path(next(line for line in out.splitlines()
                     if line.startswith("transcript: "))[len("transcript: "):])


def _key(path: Path) -> str:
    load_or_create_identity(path)  # made beforehand: a new key is announced on stderr
    return str(path)


# --- plugins ------------------------------------------------------------------------------------


def test_a_plugin_named_in_versus_games_registers_its_game(tmp_path) -> None:
    listed = _run(tmp_path, "games")
    assert listed.returncode == 0, listed.stderr
    assert "toy-duel: Toy duel (tests only), 2 players" in listed.stdout
    assert "sides=6 (2..12)" in listed.stdout
    plain = _run(tmp_path, "games", plugins=None)
    assert plain.returncode == 0 and "versus42: " in plain.stdout
    assert "toy-duel" not in plain.stdout


def test_a_plugin_that_fails_is_one_line_and_exit_2(tmp_path) -> None:
    missing = _run(tmp_path, "games", plugins="no_such_games_module")
    assert missing.returncode == 2
    assert _one_line(missing.stderr) == ("versus: game plugin 'no_such_games_module': "
                                         "ModuleNotFoundError: No module named "
                                         "'no_such_games_module'")
    (tmp_path / "broken_games.py").write_text(
        "from versus.engine.registry import register_game\nregister_game(object())\n")
    broken = _run(tmp_path, "demo", "--quiet", plugins="broken_games",
                  PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}")
    assert broken.returncode == 2
    line = _one_line(broken.stderr)
    assert line.startswith("versus: game plugin 'broken_games': TypeError: ")
    assert "does not implement the Game interface" in line


# --- the command line ---------------------------------------------------------------------------


def _usage_error(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(list(argv))
    assert stop.value.code == 2
    return _one_line(capsys.readouterr().err)


def test_an_unknown_game_id_is_a_usage_error_naming_the_known_ones(capsys, toy) -> None:
    for command in (["demo"], ["play"], ["host"], ["join", "h:1"], ["replay", "f"],
                    ["tournament", "random", "random", "--out", "x"]):
        line = _usage_error(capsys, *command, "--game", "chess")
        assert ("unknown game id 'chess'; known games: grid, multiverse, toy-duel, vanquishers, "
                "versus42") in line, line
        assert line.startswith(f"versus {command[0]}: ")


def test_versus_only_options_and_bots_are_refused_for_another_game(capsys, toy) -> None:
    cases = [
        (["demo", "--order", "any"], "--order is an option of versus42 only"),
        (["demo", "--bot-a", "greedy"], "--bot-a greedy: bot 'greedy' does not play toy-duel"),
        (["play", "--bot", "ismcts"], "--bot ismcts: bot 'ismcts' does not play toy-duel"),
        (["join", "h:1", "--bot", "cmd:python3 x.py"], "--bot cmd:python3 x.py: an external"),
        (["demo", "--deal", "decklist"], "--deal decklist: decklist mode needs one deck per "
                                         "seat"),
    ]
    for argv, expected in cases:
        line = _usage_error(capsys, *argv, "--game", "toy-duel")
        assert expected in line and "toy-duel" in line, line
    # the full-screen UI and decklists serve every game (both were refused as Versus's)
    parse = build_parser().parse_args
    assert parse(["host", "--theme", "light", "--game", "toy-duel"]).theme == "light"
    assert parse(["play", "--deck", "d.txt", "--game", "vanquishers"]).deck == "d.txt"


def test_rules_options_of_any_game(capsys, toy) -> None:
    parse = build_parser().parse_args
    args = parse(["demo", "--game", "toy-duel", "--rule", "sides=4"])
    assert (args.game, args.game_rules, args.deal) == ("toy-duel", 4, "shared-pool")
    assert parse(["demo", "--game", "toy-duel"]).game_rules == 6  # the game's default rules
    assert parse(["play", "--game", "toy-duel"]).bot == "random"  # greedy plays Versus only
    assert parse(["tournament", "--game", "toy-duel", "random", "random", "--out", "x"]
                 ).deal == "shared-pool"
    for rule, expected in (("sides=40", "--rule sides=40: toy-duel option sides=40: must be "
                                        "2..12"),
                           ("sides=x", "--rule sides=x: sides is a whole number (2..12)"),
                           ("faces=4", "toy-duel has no rules option 'faces' (its options: "
                                       "sides)"),
                           ("sides", "'sides' is not NAME=VALUE")):
        assert expected in _usage_error(capsys, "demo", "--game", "toy-duel", "--rule", rule)
    assert "--rule sides is given twice" in _usage_error(
        capsys, "demo", "--game", "toy-duel", "--rule", "sides=3", "--rule", "sides=4")


def test_versus_flags_unchanged_and_rules_for_versus_too(capsys) -> None:
    from versus.engine.versus42 import ActionOrder, Ruleset

    parse = build_parser().parse_args
    default = parse(["demo"])
    assert (default.game, default.game_rules, default.deal) == ("versus42", Ruleset(),
                                                                "shared-pool")
    assert parse(["play"]).bot == "greedy"
    assert parse(["tournament", "random", "greedy", "--out", "x"]).deal == "decklist"
    ordered_any = Ruleset(action_order=ActionOrder.ANY)
    assert parse(["host", "--order", "any"]).game_rules == ordered_any
    assert parse(["host", "--rule", "action_order=any"]).game_rules == ordered_any
    assert parse(["demo", "--rule", "deck_size=10"]).game_rules == Ruleset(deck_size=10)
    assert "say the same thing" in _usage_error(capsys, "demo", "--order", "any", "--rule",
                                                "action_order=any")
    assert "deck_size=99: must be 1..21" in _usage_error(capsys, "demo", "--rule",
                                                         "deck_size=99")


# --- the toy game end to end --------------------------------------------------------------------


def test_demo_plays_the_toy_game_over_loopback_and_verifies(tmp_path, capsys, toy) -> None:
    for name in ("a", "b"):
        assert main(["demo", "--game", "toy-duel", "--rule", "sides=4", "--seed", "1d",
                     "--out", str(tmp_path / name)]) == 0
        out = capsys.readouterr().out
        assert out.startswith("versus demo: toy-duel (4-sided die), random (player 1) vs "
                              "random (player 2), shared-pool deal, over TCP on 127.0.0.1")
        assert "  player 1: bet" in out or "  player 1: pass" in out  # its notation
        assert "result: " in out and "verify: OK:" in out
        report = verify_transcript(_transcript(out).read_bytes())
        assert report.ok and report.summary["rules"]["game"] == "toy-duel"
        assert report.summary["rules"]["ruleset"] == {"sides": 4}
    first, second = (next((tmp_path / n).glob("*/transcript.vtr")) for n in ("a", "b"))
    assert first.read_bytes() == second.read_bytes()  # seeded: the same match to the byte


def test_verify_and_replay_read_the_game_from_the_transcript(tmp_path, capsys, toy) -> None:
    assert main(["demo", "--game", "toy-duel", "--seed", "2d", "--quiet",
                 "--out", str(tmp_path)]) == 0
    path = _transcript(capsys.readouterr().out)
    assert main(["replay", "--print", str(path)]) == 0
    out = capsys.readouterr().out
    assert "toy-duel, shared-pool, 6-sided die, no clock; public information" in out
    assert "step 0/" in out and "player 0 bets or passes first" in out
    assert re.search(r"\(seat 1, seq \d+\): deal 0\n  player \? saw: deal", out)
    assert "end of the game: " in out
    assert main(["replay", "--step", "3", str(path)]) == 0
    assert capsys.readouterr().out.startswith("step 3/")
    assert main(["replay", "--game", "versus42", str(path)]) == 2
    assert _one_line(capsys.readouterr().err).endswith(
        "--game versus42: the transcript is a match of toy-duel")
    assert main(["replay", "--game", "toy-duel", "--print", str(path)]) == 0
    # another program, with and without the plugin
    known = _run(tmp_path, "verify", str(path))
    assert known.returncode == 0 and "rules    toy-duel, shared-pool" in known.stdout
    for command in ("verify", "replay"):
        unknown = _run(tmp_path, command, str(path), plugins=None)
        assert unknown.returncode == 2, unknown.stderr
        line = _one_line(unknown.stderr)
        assert "the match is a game of 'toy-duel', which this program does not know" in line
        assert "VERSUS_GAMES" in line and unknown.stdout == ""
    as_json = _run(tmp_path, "verify", "--json", str(path), plugins=None)
    assert json.loads(as_json.stdout)[0]["check"] == "unknown-game"


def test_tournament_of_the_toy_game(tmp_path, capsys, monkeypatch, toy) -> None:
    monkeypatch.setenv("VERSUS_GAMES", PLUGIN)  # the worker processes load the plugin
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    out_dir = tmp_path / "t"
    code = main(["tournament", "--game", "toy-duel", "--rule", "sides=4", "random", "random",
                 "--games", "4", "--concurrency", "2", "--out", str(out_dir)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "4 games scored" in out.out and "random#2" in out.out
    results = json.loads((out_dir / "results.json").read_text())
    assert results["complete"] and results["settings"]["game"] == "toy-duel"
    assert results["settings"]["rules"] == {"sides": 4}
    assert results["settings"]["deal"] == "shared-pool"
    assert all(g["verified"] and g["ending"] in ("game", "forfeit") for g in results["games"])
    for record in results["games"]:
        report = verify_transcript((out_dir / record["transcript"]).read_bytes())
        assert report.ok and report.summary["rules_text"].startswith("toy-duel, shared-pool, "
                                                                     "4-sided die")
    assert main(["tournament", "--resume", "--out", str(out_dir)]) == 0  # re-verified, kept
    assert "4 games scored" in capsys.readouterr().out
    assert main(["tournament", "--game", "toy-duel", "random", "greedy",
                 "--out", str(tmp_path / "u")]) == 2
    assert "bot 'greedy' does not play toy-duel" in _one_line(capsys.readouterr().err)


def test_play_in_the_line_interface(tmp_path, capsys, monkeypatch, toy) -> None:
    common = ["--data-dir", str(tmp_path / "data"), "--identity", _key(tmp_path / "me.key")]
    monkeypatch.setattr(sys, "stdin", io.StringIO("hello\nraise\nbet\n"))
    code = main(["play", "--game", "toy-duel", *common])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("versus play: toy-duel, shared-pool, 6-sided die, no clock; you are "
                          "player 1 against the random bot")
    assert "player 0 bets or passes first" in out  # the game's narration
    assert "your move, one of: bet, pass (or: help, resign, leave)" in out
    assert "not an input: malformed toy-duel input 'hello'" in out
    assert "player 0 saw: bet" in out and "Match over: " in out
    assert verify_transcript(_transcript(out).read_bytes()).ok
    # the end of the input leaves the match (a local match cannot be resumed): exit 3
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["play", "--game", "toy-duel", *common]) == 3
    assert "unfinished (the player left (end of input))" in capsys.readouterr().out


def _popen(tmp_path: Path, name: str, *argv: str, stdin: str = "") -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "versus.cli.main", *argv, "--identity",
         _key(tmp_path / f"{name}.key"), "--data-dir", str(tmp_path / name)],
        cwd=ROOT, env=_env(tmp_path / name), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    assert process.stdin is not None
    process.stdin.write(stdin)
    process.stdin.flush()
    return process


def _finish(process: subprocess.Popen[str], deadline: float) -> tuple[str, str]:
    """Its output once it ended (its input ends here: after the lines it was given)."""
    return process.communicate(timeout=max(1, deadline - time.monotonic()))


def _port(process: subprocess.Popen[str], deadline: float) -> tuple[str, list[str]]:
    lines: list[str] = []
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("listening on port "):
            return f"127.0.0.1:{line.split()[3].rstrip(';')}", lines
    process.kill()
    raise AssertionError(f"the host did not listen: {lines!r}")


@pytest.mark.slow
def test_host_and_join_a_toy_match_in_the_line_interface(tmp_path, toy) -> None:
    deadline = time.monotonic() + 90
    # a person hosts (no terminal needed: standard input is a pipe), a bot joins
    host = _popen(tmp_path, "host", "host", "--game", "toy-duel", "--port", "0", "--bind",
                  "127.0.0.1", stdin="pass\n")
    try:
        target, lines = _port(host, deadline)
        # a joiner that asks for Versus declines the toy game, in one line naming --game
        other = _popen(tmp_path, "other", "join", target, "--bot", "random", "--accept-rules")
        _, other_err = _finish(other, deadline)
        assert other.returncode == 1
        assert "to play it, run versus join with --game toy-duel" in _one_line(other_err)
        bot = _popen(tmp_path, "bot", "join", target, "--game", "toy-duel", "--bot", "random",
                     "--accept-rules")
        bot_out, bot_err = _finish(bot, deadline)
        host_out, host_err = _finish(host, deadline)
    finally:
        host.kill()
    host_out = "".join(lines) + host_out
    assert host.returncode == 0 and bot.returncode == 0, (host_err, bot_err)
    assert "your move, one of: bet, pass (or: help, resign, leave)" in host_out
    assert "player 0 saw: pass" in host_out and "Match over: " in host_out
    assert "declined the match: the host offers a game of toy-duel" in host_out
    assert _transcript(host_out).read_bytes() == _transcript(bot_out).read_bytes()
    # a bot hosts, a person joins: the offer is asked (y), then the person plays
    host = _popen(tmp_path, "host2", "host", "--game", "toy-duel", "--port", "0", "--bind",
                  "127.0.0.1", "--bot", "random")
    try:
        target, _ = _port(host, deadline)
        person = _popen(tmp_path, "person", "join", target, "--game", "toy-duel",
                        stdin="y\nfold\n")
        person_out, person_err = _finish(person, deadline)
        _finish(host, deadline)
    finally:
        host.kill()
    assert person.returncode == 0, person_err
    assert "offers: toy-duel, shared-pool, 6-sided die, no clock" in person_out
    assert "Match over: " in person_out
    assert verify_transcript(_transcript(person_out).read_bytes()).ok


@pytest.mark.parametrize(("argv", "deal"), [
    (["--game", "grid", "--rule", "deck=shared", "--rule", "mode=vs"], "shared-pool deal"),
    (["--game", "vanquishers"], "decklist deal"),
])
def test_the_built_in_games_play_a_verified_match_over_tcp(capsys, tmp_path, argv, deal) -> None:
    """`versus demo --game` of each built-in game: real loopback TCP, the
    transcript verified; Vanquishers' 48-card data cannot deal two pools of 30, so its default
    deal is decklists (cli/game_options.py default_deal)."""
    assert main(["demo", *argv, "--seed", "05", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert deal in out and "over TCP on 127.0.0.1" in out
    assert "verify: OK" in out.splitlines()[-1]
