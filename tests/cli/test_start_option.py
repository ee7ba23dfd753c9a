# `--start FILE` on demo, play and host (SPEC §3.3 "Start positions"): a match from a position
# instead of the new game. The demo plays it over real TCP on 127.0.0.1 in both deal modes (and
# a grid game's position, SPEC Part 9) and the verifier replays it from the start the HELLOs
# bind; the offline demo's referee deals the position's hidden cards itself; a joiner is shown
# the start before it accepts; every mistake is one line, exit 2.
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.engine.versus42.test_start_positions import with_verso_field_cards
from versus.cli.main import main
from versus.cli.match_text import describe_offer
from versus.cli.replay_steps import load_replay
from versus.engine.api import rules_for_position
from versus.engine.errors import PositionError
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


def test_grid_demo_from_a_position_over_tcp_verifies(tmp_path, capsys) -> None:
    from tests.engine.grid.test_start_positions import start_text

    text = start_text({}, b"start-1", uneven=True)
    path = tmp_path / "grid-position.json"
    path.write_text(text)
    out_dir = tmp_path / "out"
    assert main(["demo", "--game", "grid", "--start", str(path), "--bot-a", "greedy",
                 "--bot-b", "random", "--seed", "5a", "--quiet", "--out", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "verify: OK:" in out
    raw = next(out_dir.glob("*/transcript.vtr")).read_bytes()
    report = verify_transcript(raw)
    assert report.ok and "from start position " in report.summary["rules_text"]
    replay = replay_inputs(raw)
    assert replay.rules.game == "grid"
    assert replay.rules.ruleset == rules_for_position(get_game("grid"), text)


def test_vanquishers_demo_from_a_position_over_tcp_verifies(tmp_path, capsys) -> None:
    from tests.engine.vanquishers.test_start_positions import CASES, start_text

    text = start_text(*CASES[0], uneven=True)
    path = tmp_path / "vanquishers-position.json"
    path.write_text(text)
    out_dir = tmp_path / "out"
    assert main(["demo", "--game", "vanquishers", "--start", str(path), "--deal", "decklist",
                 "--bot-a", "greedy", "--seed", "5a", "--quiet", "--out", str(out_dir)]) == 0
    assert "verify: OK:" in capsys.readouterr().out
    raw = next(out_dir.glob("*/transcript.vtr")).read_bytes()
    report = verify_transcript(raw)
    assert report.ok and "from start position " in report.summary["rules_text"]
    replay = replay_inputs(raw)
    assert replay.rules.game == "vanquishers"
    assert replay.rules.ruleset == rules_for_position(get_game("vanquishers"), text)


def test_offline_demo_from_a_position(capsys, position) -> None:
    assert main(["demo", "--offline", "--start", str(position), "--seed", "5a"]) == 0
    out = capsys.readouterr().out
    assert "from start position " in out.splitlines()[0] and "\nresult: " in out


def test_the_joiner_is_shown_the_start_it_accepts(position) -> None:
    rules = MatchRules(rules_for_position(get_game("versus42"), position.read_text()),
                       DealMode.DECKLIST)
    offer = describe_offer(rules, 1)
    assert "from start position " in offer and "to play, cards left " in offer


@pytest.mark.parametrize(("extra", "says"), [
    (["--rule", "max_turns=30"], "carries its own rules; drop --rule/--order"),
    (["--order", "any"], "carries its own rules"),
    (["--game", "grid"], "position field 'game': must be 'grid'"),
])
def test_mistakes_are_one_line(capsys, position, extra, says) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["demo", "--start", str(position), *extra])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


@pytest.mark.parametrize(("text", "says"), [
    (None, "No such file"),
    ("{}", "position field 'game': must be 'versus42'"),
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



def test_replay_prints_a_position_that_starts_a_match(tmp_path, capsys, position) -> None:
    """`versus replay --position --step K` writes step K's position (public facts only); fed
    back with --start, a demo plays from it and verifies."""
    from versus.engine import load_position

    assert main(["demo", "--start", str(position), "--seed", "5b", "--quiet", "--out",
                 str(tmp_path / "a")]) == 0
    capsys.readouterr()
    transcript = next((tmp_path / "a").glob("*/transcript.vtr"))
    timeline = load_replay(transcript.read_bytes())
    versus = timeline.game
    quiet = [k for k, s in enumerate(timeline.states) if _starts(versus.dump_position(s))]
    assert quiet  # the positions waiting for a turn action can start a match
    k = quiet[len(quiet) // 2]
    assert main(["replay", "--position", "--step", str(k), str(transcript)]) == 0
    text = capsys.readouterr().out
    assert text.count("\n") == 1 and load_position(text) is not None
    assert text.strip() == versus.dump_position(timeline.states[k])
    assert json.loads(text)["rules"]["start"]  # the match's own start, kept in its rules
    mid = tmp_path / "mid.json"
    mid.write_text(text)
    assert main(["demo", "--start", str(mid), "--seed", "5c", "--quiet", "--out",
                 str(tmp_path / "b")]) == 0
    assert "verify: OK:" in capsys.readouterr().out
    assert main(["replay", "--position", "--step", "100000", str(transcript)]) == 2
    assert "the match has steps 0.." in capsys.readouterr().err


def _starts(text: str) -> bool:
    try:
        rules_for_position(get_game("versus42"), text)
    except PositionError:
        return False
    return True
