# Regression tests from the engine review: each one failed before its fix.
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from versus.engine import CatalogueError, EngineError, MalformedActionError, RulesetError
from versus.engine.versus42 import (
    Action,
    ActionKind,
    Knowledge,
    PlayerView,
    RevealDecision,
    Ruleset,
    default_catalogue,
    format_input,
    load_catalogue,
    parse_input,
    step,
)
from versus.engine.versus42.game import DESTROYED, FIELD

from .scenario import Scenario, act, area_of

NEUTRAL = "GGGGG GGGGG GGGGG GGGGB"
CAT = default_catalogue()


# --- notation: one text per input ------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "pick 5\n", "deal 3\n", "move b2 b3\n", "flip c3\n", "reveal 3 dawn-moth\n",
    "summon 1 b2\n recto", "activate c3 d4\n", "activate c3\n",
])
def test_a_trailing_newline_is_malformed_not_a_second_spelling(text):
    # `$` in the token regexes matched before a final "\n": "pick 5\n" parsed as "pick 5"
    with pytest.raises(MalformedActionError):
        parse_input(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("summonflipactvrdkegh0123456789abcz/- \n\t"),
               max_size=30))
def test_parse_input_raises_only_malformed_and_accepts_only_canonical_text(text):
    try:
        x = parse_input(text)
    except MalformedActionError:
        return
    assert format_input(x) == text


# --- Actions built around the validating constructor ----------------------------------------

def test_replace_and_make_validate():
    a = Action.move("a1", "a2")
    with pytest.raises(MalformedActionError):
        a._replace(targets=None)
    with pytest.raises(MalformedActionError):
        a._replace(to=["a2"])
    with pytest.raises(MalformedActionError):
        Action._make((ActionKind.PICK, "3", "", "", False, 0, ()))
    assert a._replace(to="b2") == Action.move("a1", "b2")


def test_constructor_rejects_bad_kind_and_targets_without_type_errors():
    with pytest.raises(MalformedActionError):
        Action.activate("a1", None)  # type: ignore[arg-type]
    with pytest.raises(MalformedActionError):
        Action(9)  # type: ignore[arg-type]
    with pytest.raises(MalformedActionError):
        Action(True)  # type: ignore[arg-type]
    assert Action(1, area="c3") == Action.flip("c3")  # an int kind is normalised
    assert type(Action(1, area="c3").kind) is ActionKind


@pytest.mark.parametrize("fields", [
    (ActionKind.SUMMON, "0", "b2", "", True, 0, ()),
    (ActionKind.MOVE, -1, ["b2"], "b3", False, 0, ()),
    (ActionKind.ACTIVATE, -1, "b2", "", False, 0, None),
    (ActionKind.FLIP, -1, None, "", False, 0, ()),
    (9, -1, "", "", False, 0, ()),
    ("move", -1, "b2", "b3", False, 0, ()),
])
def test_step_with_an_unvalidated_action_raises_an_engine_error(fields):
    sc = Scenario(tiles=NEUTRAL)
    sc.hand(0, "zenith-dragon")
    sc.field(0, "aurora-knight", "b2")
    s = sc.start()
    bad = tuple.__new__(Action, fields)
    with pytest.raises(EngineError):
        step(s, bad)


# --- catalogue and ruleset loaders ------------------------------------------------------------

def _card(**over):
    card = {"id": "a", "name": "A", "energy": "light", "strength": 1,
            "active": {"op": "draw", "amount": 1},
            "passive": {"trigger": "destroyed", "op": "draw", "amount": 1}}
    card.update(over)
    return {"format": "versus-catalogue/1", "cards": [card]}


@pytest.mark.parametrize("data", [
    b"[" * 100_000 + b"]" * 100_000,  # RecursionError in json
    b'{"format":"versus-catalogue/1","cards":' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    "\ud800",  # a lone surrogate: UnicodeEncodeError
    None,
    12,
])
def test_catalogue_loader_raises_only_catalogue_error(data):
    with pytest.raises(CatalogueError):
        load_catalogue(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", ["colour", "side", "trigger"])
def test_an_active_with_a_passive_only_field_is_rejected(key):
    # were silently ignored (and dropped from the digest): SPEC says unknown fields fail
    doc = _card(active={"op": "draw", "amount": 1, key: "white"})
    with pytest.raises(CatalogueError, match=f"active.{key}"):
        load_catalogue(json.dumps(doc))


def test_a_card_id_with_a_trailing_newline_is_rejected():
    with pytest.raises(CatalogueError, match="'id'"):
        load_catalogue(json.dumps(_card(id="a\n")))


def test_ruleset_decode_raises_only_ruleset_error():
    with pytest.raises(RulesetError):
        Ruleset.decode(b"[" * 2000 + b"]" * 2000)
    with pytest.raises(RulesetError):
        Ruleset.decode("not bytes")  # type: ignore[arg-type]


# --- a battle's second participant stands in its area (§1.7.1, §1.9.4) ---------------------------

def test_battle_adjacent_passive_sees_the_arriving_card():
    sc = Scenario(tiles=NEUTRAL)
    squire = sc.field(0, "sun-squire", "b2")  # Strength 2
    mite = sc.field(1, "shade-mite", "b3")  # Strength 1, ally of the arbiter
    sc.field(1, "eclipse-arbiter", "c3")  # battle_adjacent: destroy weakest enemy <= 2
    s = sc.play(sc.start(), "move b2 b3")
    # before: the arbiter saw only the card already on b3 (its ally), so the squire absorbed
    # the mite; the squire is an adjacent recto enemy of Strength 2 and is destroyed at
    # Location, which ends the battle (§1.7.5)
    assert s.zone[squire] == DESTROYED
    assert s.zone[mite] == FIELD and area_of(s, mite) == "b3" and s.stack[mite] == ()


def test_view_lists_both_battle_participants_while_the_battle_waits():
    sc = Scenario(tiles=NEUTRAL)
    mover = sc.field(0, "sun-squire", "b2", recto=False)
    resident = sc.field(1, "shade-mite", "b3", recto=False)
    s = step(sc.start(), act("move b2 b3"))
    assert isinstance(s.pending, RevealDecision)  # the battle waits for its Revelation
    for p in (0, 1):
        view = PlayerView(s, Knowledge(p), p)
        on_b3 = [fc.handle for fc in view.field if fc.area == "b3"]
        assert on_b3 == [resident, mover]
