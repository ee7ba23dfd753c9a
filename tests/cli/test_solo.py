# `versus challenge new`, `versus solo --bot greedy`, `versus verify` on the run.
from __future__ import annotations

import io
import json
import os
import re
import sys

from versus.cli.main import main


def test_challenge_solo_verify_and_tamper(tmp_path, capsys):
    os.chmod(tmp_path, 0o700)
    org, me = str(tmp_path / "org.key"), str(tmp_path / "me.key")
    assert main(["challenge", "new", "--identity", org, "--out", str(tmp_path), "--id", "t1",
                 "--rule", "difficulty=easy"]) == 0
    ch, sec, run = (str(tmp_path / n) for n in ("t1.challenge", "t1.secret", "t1.run"))
    assert main(["solo", "--challenge", ch, "--secret", sec, "--bot",
                 "greedy", "--identity", me, "--out", run]) == 0
    # the end line says victory or defeat, why, and the score (the game's scene's result)
    end = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.match(r"(Victory|Defeat) after \d+ turns?: .+\. Score \d+ \(.+\)\. Run written "
                    r"to .+t1\.run\.$", end), end
    assert main(["verify", run]) == 0
    assert "OK: solo run verified" in capsys.readouterr().out
    data = bytearray((tmp_path / "t1.run").read_bytes())
    data[-150] ^= 1
    bad = str(tmp_path / "bad.run")
    (tmp_path / "bad.run").write_bytes(bytes(data))
    assert main(["verify", bad]) == 1
    assert "INVALID" in capsys.readouterr().out


def _challenges(tmp_path, count=3):
    os.chmod(tmp_path, 0o700)
    org = str(tmp_path / "org.key")
    folder = tmp_path / "set"
    assert main(["challenge", "new", "--identity", org, "--out", str(folder), "--id", "b",
                 "--count", str(count), "--rule", "difficulty=easy"]) == 0
    return folder


def test_batch_reports_distributions_and_verifies(tmp_path, capsys):
    folder = _challenges(tmp_path)
    capsys.readouterr()
    out = tmp_path / "out"
    assert main(["solo", "--batch", str(folder), "--bot", "greedy,random", "--out", str(out),
                 "--identity", str(tmp_path / "me.key")]) == 0
    text = capsys.readouterr().out
    assert "3 challenges" in text and "median" in text
    summary = json.loads((out / "summary.json").read_text())
    assert [b["bot"] for b in summary["bots"]] == ["greedy", "random"]
    for b in summary["bots"]:
        assert b["runs"] == b["verified"] == 3 and b["low"] <= b["q1"] <= b["median"] <= \
            b["q3"] <= b["high"]
    runs = sorted((out / "greedy").glob("*.run"))
    assert [r.name for r in runs] == ["b-0000.run", "b-0001.run", "b-0002.run"]
    assert main(["verify", "-q", *map(str, runs)]) == 0
    (folder / "b-0001.secret").unlink()
    assert main(["solo", "--batch", str(folder), "--out", str(out)]) == 2
    assert "no secret file" in capsys.readouterr().err


def test_verify_challenge_option(tmp_path, capsys):
    folder = _challenges(tmp_path, 2)
    me = str(tmp_path / "me.key")
    c0, c1 = (str(folder / f"b-000{i}.challenge") for i in (0, 1))
    run = str(tmp_path / "r.run")
    assert main(["solo", "--challenge", c0, "--secret", str(folder / "b-0000.secret"),
                 "--bot", "greedy", "--identity", me, "--out", run]) == 0
    capsys.readouterr()
    assert main(["verify", "--challenge", c0, run]) == 0
    assert main(["verify", "--challenge", c1, run]) == 1
    out = capsys.readouterr().out
    assert "INVALID: wrong-challenge" in out
    assert main(["verify", "--json", "--challenge", c1, run]) == 1
    (report,) = json.loads(capsys.readouterr().out)
    assert report["check"] == "wrong-challenge" and not report["ok"]
    assert main(["verify", "--challenge", run, run]) == 2  # not a challenge file: one line
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot use the challenge" in err
    transcript = str(tmp_path / "not-a-run")
    (tmp_path / "not-a-run").write_bytes(b"\x93\x01\x02\x03")
    assert main(["verify", "--json", "--challenge", c0, transcript]) == 1
    assert json.loads(capsys.readouterr().out)[0]["check"] == "wrong-challenge"


def test_solo_usage_errors_are_one_line(tmp_path, capsys):
    folder = _challenges(tmp_path, 1)
    c0, s0 = str(folder / "b.challenge"), str(folder / "b.secret")
    for argv in (["solo", "--challenge", c0, "--bot", "greedy"],
                 ["solo", "--service", "127.0.0.1:1", "--bot", "greedy"],
                 ["solo", "--challenge", c0, "--service", "127.0.0.1:1", "--secret", s0],
                 ["solo", "--challenge", c0, "--service", "nowhere"],
                 ["challenge", "serve", "--challenge", c0],
                 ["challenge", "complete", "--published", s0]):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("versus "), (argv, err)
    assert main(["solo", "--challenge", s0, "--secret", s0, "--bot", "greedy"]) == 1
    assert "not a challenge file" in capsys.readouterr().err


def test_two_player_games_are_refused_in_one_line(tmp_path, capsys):
    """`versus solo --game grid` was an internal error (AttributeError) and `versus challenge
    new --game grid` made a challenge no run could play: both are one line, exit 2."""
    os.chmod(tmp_path, 0o700)
    for game in ("grid", "versus42", "vanquishers"):
        for argv in (["solo", "--game", game, "--bot", "greedy", "--identity",
                      str(tmp_path / "me.key"), "--out", str(tmp_path / "r.run")],
                     ["challenge", "new", "--game", game, "--identity",
                      str(tmp_path / "org.key"), "--out", str(tmp_path / "c"), "--id", "g"],
                     ["challenge", "daily", "--game", game, "--identity",
                      str(tmp_path / "org.key"), "--out", str(tmp_path / "c")]):
            capsys.readouterr()
            assert main(argv) == 2, argv
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"game {game!r} is a 2-player game" in err, err
    assert not (tmp_path / "c").exists() and not (tmp_path / "r.run").exists()


def test_verify_gives_hostile_run_files_a_verdict(tmp_path, capsys):
    from tests.protocol.solo.test_hostile_runs import _two_player_run
    from versus.protocol.wire.canonical import encode

    files = {"grid.run": (_two_player_run("grid"), "not-solo"),
             "old.run": (encode(["versus-solo-run/1", b"", [], None]), "old-format"),
             "junk.run": (b"\x94\xb1versus-solo-run/2\x01\x02\x03", "malformed")}
    for name, (data, check) in files.items():
        (tmp_path / name).write_bytes(data)
        capsys.readouterr()
        assert main(["verify", str(tmp_path / name)]) == 1, name
        out, err = capsys.readouterr()
        assert out.startswith(f"{tmp_path / name}: INVALID: {check}: ") and err == "", \
            (out, err)


def test_a_second_run_never_replaces_a_run_file(tmp_path, capsys, monkeypatch):
    """A run file is the only proof of a run: a second run with the same name (the same
    challenge's default CHALLENGE-ID.run, or the same --out) is refused in one line naming the
    file and what to do (exit 2) before anything is played; the first file is kept."""
    folder = _challenges(tmp_path, 1)
    monkeypatch.chdir(tmp_path)
    me = str(tmp_path / "me.key")
    argv = ["solo", "--challenge", str(folder / "b.challenge"), "--secret",
            str(folder / "b.secret"), "--bot", "greedy", "--identity", me]
    assert main(argv) == 0
    first = (tmp_path / "b.run").read_bytes()
    for extra in ([], ["--out", "b.run"]):
        capsys.readouterr()
        assert main([*argv, *extra]) == 2
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1 and "the run file b.run already exists" in \
            captured.err and "--out" in captured.err and "versus verify b.run" in captured.err
        assert not captured.out  # nothing was played
    assert (tmp_path / "b.run").read_bytes() == first
    assert main([*argv, "--out", "b2.run"]) == 0 and (tmp_path / "b2.run").exists()
    assert main(["solo", "--bot", "greedy", "--identity", me, "--out", "b.run"]) == 2


def test_the_line_ui_shows_the_rules_and_says_what_a_turn_needs(tmp_path, capsys, monkeypatch):
    """`?` prints the game's whole rules text; a word the game does not take now (`end` before
    an attack or a draw) is answered with what the game asks instead; each step is narrated."""
    from versus.engine.api import rules_text
    from versus.engine.registry import DEFAULT_SOLO_GAME, get_game

    os.chmod(tmp_path, 0o700)
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\nend\n"))
    assert main(["solo", "--rule", "difficulty=easy", "--identity", str(tmp_path / "me.key"),
                 "--out", str(tmp_path / "r.run")]) == 3  # the input ended: interrupted
    out = capsys.readouterr().out
    game = get_game(DEFAULT_SOLO_GAME)
    assert rules_text(game, game.rules_from_options({"difficulty": "easy"})) in out
    refusal = next(line for line in out.splitlines() if "'end' is not" in line)
    assert "'end' is not one of the legal inputs now. Your turn 1, phase 2:" in refusal
    assert "or draw a card instead (draw); one of them is needed before the turn can end" in \
        refusal
    assert "  you draw a card from the Power deck" in out  # the narration of the deals
    assert not (tmp_path / "r.run").exists()
