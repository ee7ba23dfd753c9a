# What the shell asks a game instead of naming it (engine/api.py "what the shell asks a game"):
# each question has a default for a game that does not answer it (the toy game answers none),
# and the built-in games answer what the shell used to decide by their ids.
from __future__ import annotations

from versus.engine.api import Setup, full_screen_ui, offer_notes, text_board, tournament_deal
from versus.engine.registry import get_game

from .toy_game import TOY


def test_a_game_without_the_optional_members_gets_the_defaults() -> None:
    rules = TOY.default_rules()
    assert full_screen_ui(TOY) is False
    assert offer_notes(TOY, rules) == []
    assert tournament_deal(TOY) is None
    state = TOY.new_game(Setup(rules, TOY.default_catalogue(), bytes(32)))
    assert text_board(TOY, state) == TOY.dump_position(state)


def test_versus_answers_what_the_shell_branched_on() -> None:
    versus = get_game("versus42")
    assert full_screen_ui(versus) and tournament_deal(versus) == "decklist"
    options = versus.rules_to_options(versus.default_rules())
    assert offer_notes(versus, versus.default_rules()) == []
    changed = versus.rules_from_options({**options, "white_tiles": 7, "gray_tiles": 4})
    assert offer_notes(versus, changed) == ["tiles 7 white, 8 black, 4 gray, 1 blue"]
    for other in ("grid", "vanquishers"):
        assert not full_screen_ui(get_game(other)) and tournament_deal(get_game(other)) is None
