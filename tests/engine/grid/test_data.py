# The grid game's card data, notation, positions and interface shape: the loader names the
# bad field, inputs have one canonical line, positions name the bad field, and the game
# satisfies the generic Game protocol and registers.
from __future__ import annotations

import copy
import json
import re

import pytest

from versus.engine.api import Game, check_decks
from versus.engine.errors import CatalogueError, MalformedActionError, PositionError
from versus.engine.grid import GRID
from versus.engine.grid.cards import Kind, default_catalogue, load_catalogue
from versus.engine.grid.notation import GridInput, Verb, format_input, parse_input
from versus.engine.grid.referee import random_game
from versus.engine.grid.rules import GridRules

from .scene import catalogue_json

CAT = default_catalogue()


def test_the_game_has_the_interface_and_its_decks_check() -> None:
    assert isinstance(GRID, Game) and GRID.id == "grid" and GRID.chance
    for opts in ({}, {"deck": "shared", "mode": "vs"}):
        check_decks(GRID.decks(GRID.rules_from_options(opts)), 2)


def test_the_catalogue_is_original_and_big_enough() -> None:
    kinds = [c.kind for c in CAT.cards]
    assert kinds.count(Kind.CHARACTER) >= 80 and kinds.count(Kind.ITEM) >= 22 and \
        kinds.count(Kind.TRAP) >= 10
    assert len(GRID.card_ids(CAT)) == len(CAT.cards) <= 255  # a shared pool holds them all
    assert len(GRID.catalogue_digest(CAT)) == 32
    assert all(c.text for c in CAT.cards)
    assert CAT.card("regicide").text == "Item (MODIFIER): every K side is worth 0."


@pytest.mark.parametrize("edit,message", [
    (lambda d: d["cards"][0].update(sides=[1, 2, 3]), "card #0 'water1': field 'sides'"),
    (lambda d: d["cards"][0].update(sides=[1, 2, 3, 14]), "field 'sides[3]': must be an integer"),
    (lambda d: d["cards"][1].update(element="air"), "card #1 'water2': field 'element'"),
    (lambda d: d["cards"][1].update(id=d["cards"][0]["id"]), "field 'id': duplicate id"),
    (lambda d: d["cards"][2].update(colour="red"), "field 'colour': unknown field"),
    (lambda d: d["cards"][2].pop("name"), "card #2 'water3': field 'name'"),
    (lambda d: d["cards"][-1].update(effect={"op": "draw", "amount": 1}),
     "field 'effect.op': 'draw' is not an effect of a trap"),
    (lambda d: d["cards"][-1].update(effect={"op": "weaken", "amount": 9}),
     "field 'effect.amount': must be an integer 1..5"),
    (lambda d: d["cards"][-5].update(use="sometimes"), "field 'use'"),
    (lambda d: d.update(format="x"), "catalogue field 'format'"),
    (lambda d: d.update(extra=1), "catalogue field 'extra': unknown field"),
])
def test_the_loader_names_the_bad_field(edit, message: str) -> None:  # type: ignore[no-untyped-def]
    data = copy.deepcopy(catalogue_json())
    edit(data)
    with pytest.raises(CatalogueError, match=re.escape(message)):
        load_catalogue(json.dumps(data))


def test_the_digest_ignores_the_comment_and_layout() -> None:
    data = catalogue_json()
    a = load_catalogue(json.dumps(data))
    data["comment"] = "another"
    b = load_catalogue(json.dumps(data, indent=3))
    assert a.digest == b.digest


@pytest.mark.parametrize("text", ["first 0", "first 1", "deal 0", "deal 79", "reveal 12 tide-fox",
                                  "place 3 a1 down", "place 44 f6 up", "use 7", "end",
                                  "pick 9", "pass", "free 10", "duel 3 70"])
def test_inputs_round_trip(text: str) -> None:
    assert format_input(parse_input(text)) == text
    assert GRID.parse_input(GRID.format_input(GRID.parse_input(text))) == parse_input(text)


@pytest.mark.parametrize("text", ["", "first 2", "deal 01", "deal -1", "deal 1024",
                                  "place 3 g1 up", "place 3 a7 up", "place 3 a1 sideways",
                                  "end ", " end", "End", "use", "duel 3 3", "reveal 1 Tide",
                                  "pick 1 2", "jump 3"])
def test_only_the_canonical_text_parses(text: str) -> None:
    with pytest.raises(MalformedActionError):
        parse_input(text)


def test_a_bad_input_value_is_refused_on_construction() -> None:
    with pytest.raises(MalformedActionError, match="bad field cell"):
        GridInput(Verb.PLACE, 1, cell="z9")
    with pytest.raises(MalformedActionError, match="bad field handle"):
        GridInput(Verb.USE)


def _position() -> dict:  # type: ignore[type-arg]
    ref = random_game(GridRules(), CAT, b"pos")
    for _ in range(60):
        ref.advance()
    return json.loads(GRID.dump_position(ref.state))  # type: ignore[no-any-return]


@pytest.mark.parametrize("edit,field", [
    (lambda o: o.update(game="versus42"), "game"),
    (lambda o: o.update(rules={"mode": "huge"}), "rules"),
    (lambda o: o.update(catalogue="00" * 32), "catalogue"),
    (lambda o: o["cards"].pop(), "cards"),
    (lambda o: o["cards"][0].update(zone="pocket"), "cards[0].zone"),
    (lambda o: o["cards"][0].update(card="no-such-card"), "cards[0].card"),
    (lambda o: o.update(turn=-1), "turn"),
    (lambda o: o.update(tasks=[["fly"]]), "tasks[0]"),
    (lambda o: o.update(decision={"kind": "turn", "fields": [7]}), "decision.fields[0]"),
    (lambda o: o.update(result={"outcome": "home-base", "winner": 0}), "decision"),
])
def test_a_bad_position_names_its_field(edit, field: str) -> None:  # type: ignore[no-untyped-def]
    obj = _position()
    edit(obj)
    with pytest.raises(PositionError, match=re.escape(f"'{field}'")):
        GRID.load_position(json.dumps(obj))


def test_two_cards_on_one_cell_are_refused() -> None:
    obj = _position()
    on_grid = [c for c in obj["cards"] if c["zone"] == "grid"]
    if len(on_grid) >= 2:
        on_grid[1]["cell"] = on_grid[0]["cell"]
        with pytest.raises(PositionError, match="already lies on"):
            GRID.load_position(json.dumps(obj))


def test_the_registry_loads_a_grid_position() -> None:
    from versus.engine.registry import get_game, load_position

    assert get_game("grid") is GRID  # registered beside versus42
    text = GRID.dump_position(random_game(GridRules(), CAT, b"reg").state)
    assert GRID.dump_position(load_position(text)) == text


def test_a_revealed_trap_awaiting_its_trigger_is_a_loadable_position() -> None:
    """Found by the hypothesis playouts in CI: right after `reveal 24 landmine` the trap lies
    face up on the grid until its pending task fires it; that position must load."""
    ref = random_game(GridRules.from_options({"mode": "fast", "deck": "individual"}), CAT,
                      bytes([22, 4]))
    ref.play()
    for state in [b for b, _ in ref.history] + [ref.state]:
        text = GRID.dump_position(state)
        assert GRID.dump_position(GRID.load_position(text, CAT)) == text
