# `versus challenge new`, `versus solo --bot greedy`, `versus verify` on the run (issue 19).
from __future__ import annotations

import os

from versus.cli.main import main


def test_challenge_solo_verify_and_tamper(tmp_path, capsys):
    os.chmod(tmp_path, 0o700)
    org, me = str(tmp_path / "org.key"), str(tmp_path / "me.key")
    assert main(["challenge", "new", "--identity", org, "--out", str(tmp_path), "--id", "t1",
                 "--rule", "difficulty=easy"]) == 0
    ch, sec, run = (str(tmp_path / n) for n in ("t1.challenge", "t1.secret", "t1.run"))
    assert main(["solo", "--challenge", ch, "--secret", sec, "--bot",
                 "greedy", "--identity", me, "--out", run]) == 0
    assert "score" in capsys.readouterr().out
    assert main(["verify", run]) == 0
    assert "OK: solo run verified" in capsys.readouterr().out
    data = bytearray((tmp_path / "t1.run").read_bytes())
    data[-150] ^= 1
    bad = str(tmp_path / "bad.run")
    (tmp_path / "bad.run").write_bytes(bytes(data))
    assert main(["verify", bad]) == 1
    assert "INVALID" in capsys.readouterr().out
