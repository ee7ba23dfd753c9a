from __future__ import annotations

import pytest

from versus.cli.main import main


def test_demo_plays_a_whole_game(capsys):
    assert main(["demo", "--offline", "--seed", "00ff"]) == 0
    out = capsys.readouterr().out
    assert "result: " in out and ("wins" in out or "draw" in out)
    assert "as player 1 sees it:" in out and "as player 2 sees it:" in out


def test_demo_is_reproducible(capsys):
    main(["demo", "--offline", "--seed", "abcd", "--quiet"])
    first = capsys.readouterr().out
    main(["demo", "--offline", "--seed", "abcd", "--quiet"])
    assert capsys.readouterr().out == first


def test_demo_rejects_bad_seed(capsys):
    with pytest.raises(SystemExit) as e:
        main(["demo", "--seed", "zz"])
    assert e.value.code == 2
    assert "not hexadecimal" in capsys.readouterr().err
