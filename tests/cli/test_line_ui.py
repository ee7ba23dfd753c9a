# The line interface of the games without a full-screen UI: `help` lists the legal inputs and
# the commands, and Tab (on a terminal) completes the whole line among them (completion and
# help).
from __future__ import annotations

import io

from tests.engine.toy_game import TOY
from versus.cli.line_ui import COMMANDS, LinePlayer, choices_text, complete_line, help_lines


def test_tab_completes_the_whole_line_among_the_legal_inputs() -> None:
    candidates = ["place 3 b2 up", "place 3 b2 down", "place 4 a1 up", "pass", *COMMANDS]
    assert complete_line(candidates, "place 3") == ["place 3 b2 up", "place 3 b2 down"]
    assert complete_line(candidates, "pa") == ["pass"]
    assert complete_line(candidates, "re") == ["resign"]
    assert complete_line(candidates, "x") == []
    assert complete_line(candidates, "") == candidates


def test_help_lists_the_inputs_and_the_commands() -> None:
    lines = help_lines(["bet", "pass"])
    assert "  bet" in lines and "  pass" in lines
    assert any(line.startswith("  resign") for line in lines)
    assert any(line.startswith("  leave") for line in lines)


async def test_help_is_answered_and_the_question_asked_again() -> None:
    out = io.StringIO()
    player = LinePlayer(TOY, out, io.StringIO("help\nnonsense words\nbet\n"))
    state = _dealt()
    legal = list(TOY.legal_actions(state))
    answer = await player.choose(TOY.view(state, 0, TOY.new_knowledge(0)), legal)
    assert answer == "bet"
    text = out.getvalue()
    assert "legal inputs now" in text and "  pass" in text  # help
    assert "not an input" in text  # the nonsense, refused in one line
    assert player.reader.candidates == ["bet", "pass", *COMMANDS]


def _dealt():  # the toy duel at player 0's first turn
    from versus.engine import Setup

    s = TOY.new_game(Setup(6, TOY.default_catalogue(), b"line-ui"))
    return TOY.step(TOY.step(s, "deal 0"), "deal 1")


def test_a_long_list_of_inputs_is_grouped_on_the_prompt() -> None:
    assert choices_text(["bet", "pass"]) == "one of: bet, pass"
    grid = [f"place {card} {cell}1 down" for card in range(5) for cell in "abcdef"]
    text = choices_text([*grid, "use 2", "use 3", "end"])
    # before: all 33 inputs in one line of 500+ characters
    assert text == ("33 inputs: place (30, e.g. place 0 a1 down), use (2, e.g. use 2), end; "
                    "help lists them, Tab completes")


async def test_the_scene_is_printed_as_text_at_each_decision() -> None:
    """Without a terminal a person plays at the line interface, which prints the same scene
    the full-screen UI draws (engine/scene.py scene_lines of api.scene_of for our seat)."""
    from types import SimpleNamespace

    from tests.cli.scene_game import SCENE_DUEL

    state = _dealt()
    knowledge = SCENE_DUEL.new_knowledge(0)
    knowledge.learn(0, "three")
    out = io.StringIO()
    player = LinePlayer(SCENE_DUEL, out, io.StringIO("bet\n"))
    player.session = SimpleNamespace(game=SCENE_DUEL, state=state, seat=0,  # type: ignore[assignment]
                                     knowledge=knowledge)
    legal = list(SCENE_DUEL.legal_actions(state))
    assert await player.choose(None, legal) == "bet"
    text = out.getvalue()
    assert "Scene duel · roll 0" in text and "Bet: none yet" in text
    assert "h0: Three (card) · Rank 3" in text and "showdown" in text  # the hand, with text
    assert all(len(line) <= 80 for line in text.splitlines())
