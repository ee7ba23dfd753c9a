# `--start FILE` on demo, play and host (SPEC 3.C "Start positions"): a match from a position
# instead of the new game. The demo plays it over real TCP on 127.0.0.1 in both deal modes and
# the verifier replays it from the start the HELLOs bind; the offline demo's referee deals the
# position's hidden cards itself; a joiner is shown the start before it accepts; every mistake
# is one line, exit 2.
from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.test_start_positions import with_verso_field_cards
from versus.cli.commands import describe_offer
from versus.cli.main import main
from versus.engine.api import rules_for_position
from versus.engine.registry import get_game
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import replay_inputs, verify_transcript


@pytest.fixture(scope="module")
def position(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("start") / "position.json"
    path.write_text(with_verso_field_cards(b"start-2"))
    return path


@pytest.mark.parametrize("deal", ["decklist", "shared-pool"])
def test_demo_from_a_position_over_tcp_verifies(tmp_path, capsys, position, deal) -> None:
    assert main(["demo", "--start", str(position), "--deal", deal, "--seed", "5a",
                 "--quiet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "verify: OK:" in out
    raw = next(tmp_path.glob("*/transcript.vtr")).read_bytes()
    report = verify_transcript(raw)
    assert report.ok and "from start position " in report.summary["rules_text"]
    assert replay_inputs(raw).rules.ruleset == rules_for_position(get_game("versus42"),
                                                                  position.read_text())


def test_offline_demo_from_a_position(capsys, position) -> None:
    assert main(["demo", "--offline", "--start", str(position), "--seed", "5a"]) == 0
    assert "result: player " in capsys.readouterr().out


def test_the_joiner_is_shown_the_start_it_accepts(position) -> None:
    rules = MatchRules(rules_for_position(get_game("versus42"), position.read_text()),
                       DealMode.DECKLIST)
    offer = describe_offer(rules, 1)
    assert "from start position " in offer and "to play, cards left " in offer


@pytest.mark.parametrize(("extra", "says"), [
    (["--rule", "max_turns=30"], "carries its own rules; drop --rule/--order"),
    (["--order", "any"], "carries its own rules"),
    (["--game", "grid"], "game 'grid' cannot start from a position"),
])
def test_mistakes_are_one_line(capsys, position, extra, says) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["demo", "--start", str(position), *extra])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


@pytest.mark.parametrize(("text", "says"), [
    (None, "No such file"),
    ("{}", "a start position names the catalogue"),
    ("x" * (65 * 1024), "larger than 65536 bytes"),
])
def test_a_bad_position_file_is_one_line(tmp_path, capsys, text, says) -> None:
    path = tmp_path / "p.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(SystemExit) as exit:
        main(["host", "--start", str(path)])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err

