# The games' `start_view` (SPEC §3.3 "What the joiner is shown"): a start position described from
# a seat, and what differs from the game's new game. A new game's own first position has no
# difference from either seat; every startable position of real random games is described
# without error, its differences drawn from facts its lines show; each side value a host could
# change in a Vanquishers start is named when changed.
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from versus.engine.api import (
    StartView,
    fact_differences,
    first_turn,
    rules_for_position,
    start_view,
)
from versus.engine.errors import PositionError
from versus.engine.registry import get_game

GAMES = ["versus42", "grid", "vanquishers"]


def _first(state: object) -> int:
    return state.first  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("first", [0, 1])
def test_a_new_games_first_position_differs_in_nothing_from_either_seat(game_id, first) -> None:
    game = get_game(game_id)
    state = first_turn(game, game.default_rules(), game.default_catalogue(),
                       lambda s: _first(s) == first)
    assert _first(state) == first
    rules = rules_for_position(game, game.dump_position(state))
    for seat in (0, 1):
        view = start_view(game, rules, seat)
        assert isinstance(view, StartView) and view.differences == (), view.differences
        assert any(f"player {seat}" in line for line in view.lines)
    assert start_view(game, replace(rules, start=""), 0) is None


def _startable(game_id: str, texts: list[str]) -> list[str]:
    game, out = get_game(game_id), []
    for text in texts:
        try:
            out.append(game.rules_for_position(text))
        except PositionError:
            continue
    return out


def _random_starts(game_id: str) -> list:  # type: ignore[type-arg]
    if game_id == "versus42":
        from tests.engine.versus42.test_start_positions import positions

        return _startable(game_id, positions(b"start-1")[::4])
    if game_id == "grid":
        from tests.engine.grid.test_start_positions import positions

        return _startable(game_id, list(positions((), b"start-1"))[::3])
    from tests.engine.vanquishers.test_start_positions import CASES, positions

    return _startable(game_id, list(positions(*CASES[1]))[::8])


@pytest.mark.parametrize("game_id", GAMES)
def test_every_start_of_a_random_game_is_described(game_id) -> None:
    game = get_game(game_id)
    starts = _random_starts(game_id)
    assert starts
    for rules in starts:
        for seat in (0, 1):
            view = start_view(game, rules, seat)
            assert view is not None and view.lines
            shown = "\n".join(view.lines)
            for difference in view.differences:  # each names a fact the lines show
                label, _, rest = difference.partition(": ")
                value = rest.rsplit(" (new game: ", 1)[0]
                assert "new game: " in rest and (value in shown or value == "none"), difference
                assert label.split(" ")[-1] in shown, difference


def _vanquishers_fair() -> dict:  # type: ignore[type-arg]
    game = get_game("vanquishers")
    state = first_turn(game, game.default_rules(), game.default_catalogue(),
                       lambda s: s.first == 0)
    return json.loads(game.dump_position(state))  # type: ignore[no-any-return]


@pytest.mark.parametrize(("field", "seat_of", "value", "says"), [
    ("LIFE", 0, 11, "opponent's Life: 11 of 20"),
    ("SHIELD", 1, 3, "your Shield: 3 of"),
    ("STORAGE", 0, 7, "opponent's Storage Energy: 7 "),
    ("VT", 1, 1, "your V-Trigger: active"),
    ("GLITCH", 1, 2, "your condition glitch: 2 turn(s) (new game: none)"),
    ("BURN", 0, 1, "opponent's condition burn: 1 turn(s) (new game: none)"),
    ("SHOCK", 1, 3, "your condition shock: 3 turn(s)"),
    ("FROZEN", 1, 99, "your condition frozen: 99 turn(s)"),
    ("CURSE", 1, 99, "your condition curse: 99 turn(s)"),
])
def test_each_changed_vanquishers_side_value_is_named(field, seat_of, value, says) -> None:
    from versus.engine.vanquishers.engine import S

    obj = _vanquishers_fair()
    obj["state"]["sides"][seat_of][S[field]] = value
    game = get_game("vanquishers")
    try:
        rules = rules_for_position(game, json.dumps(obj))
    except PositionError as error:  # a value the rules cannot reach: refused, naming the side
        assert f"state.sides[{seat_of}]" in str(error), error
        return
    view = start_view(game, rules, 1)
    assert view is not None and any(says in d for d in view.differences), view.differences


def test_fact_differences_lists_changed_added_and_missing_values() -> None:
    assert fact_differences([("a", "1"), ("b", "2")], [("a", "1"), ("b", "3"), ("c", "4")]) == (
        "b: 2 (new game: 3)", "c: none (new game: 4)")
    assert fact_differences([("x", "1")], []) == ("x: 1 (new game: none)",)
