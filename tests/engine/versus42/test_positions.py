# Positions (engine/versus42/positions.py, SPEC Part 3 "Positions"): every position random play
# reaches round-trips through its text and plays on identically; the builder sets up positions
# without touching the engine's fields; a bad position text fails with a PositionError naming the
# field, and nothing else.
from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from versus.engine import HashRng, PositionError
from versus.engine.versus42 import (
    ActionOrder,
    PositionBuilder,
    Referee,
    Ruleset,
    TurnDecision,
    default_catalogue,
    dump_position,
    encode_state,
    legal_actions,
    load_catalogue,
    random_chooser,
    random_deal,
    state_hash,
    step,
)
from versus.engine.versus42.positions import MAX_POSITION_BYTES, load_position, position_object

CAT = default_catalogue()
NEUTRAL = "GGGGG GGGGG GGGGG GGGGB"

games = st.tuples(st.binary(min_size=1, max_size=8), st.sampled_from(list(ActionOrder)),
                  st.integers(1, 21), st.integers(1, 5))


def _referee(seed: bytes, order: ActionOrder, deck: int, hand: int) -> Referee:
    rs = Ruleset(deck_size=deck, hand_size=min(hand, deck), action_order=order)
    ids, orders = random_deal(CAT, rs, HashRng(seed, "deal"))
    return Referee(rs, CAT, seed, ids, orders,
                   (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.integers(0, 400))
def test_positions_of_random_play_round_trip_and_play_on_identically(game, cut):
    ref = _referee(*game)
    ref.play()
    history = ref.history
    replay = Referee(ref.state.rules, CAT, game[0], ref.identities, ref.orders, ref.choosers)
    states = [replay.state]
    for inp in history:
        states.append(step(states[-1], inp))
    for s in states:
        text = dump_position(s)
        loaded = load_position(text)
        assert encode_state(loaded) == encode_state(s)
        assert state_hash(loaded) == state_hash(s)
        assert dump_position(loaded) == text
        assert loaded.decision == s.decision
        assert legal_actions(loaded) == legal_actions(s)
    # from a position loaded mid-game, the rest of the game hashes exactly as the original
    k = cut % len(states)
    s = load_position(dump_position(states[k]))
    for inp, original in zip(history[k:], states[k + 1:], strict=True):
        s = step(s, inp)
        assert state_hash(s) == state_hash(original)


def test_the_text_is_canonical_json_with_the_documented_fields():
    ref = _referee(b"fields", ActionOrder.ORDERED, 12, 3)
    for _ in range(30):
        ref.advance()
    text = dump_position(ref.state)
    obj = json.loads(text)
    assert text == json.dumps(obj, sort_keys=True, separators=(",", ":"))
    assert list(obj) == sorted(["format", "game", "rules", "catalogue", "tiles", "turn",
                                "active", "used", "order", "summons", "cards", "battle",
                                "tasks", "decision", "result"])
    assert (obj["format"], obj["game"]) == ("versus-position/1", "versus42")
    assert obj["catalogue"] == CAT.digest.hex() and obj["rules"] == Ruleset().to_options()
    assert len(obj["cards"]) == 24


def test_a_position_never_holds_a_hidden_identity():
    ref = _referee(b"hidden", ActionOrder.ANY, 12, 3)
    for _ in range(60):
        ref.advance()
        s = ref.state
        for h, card in enumerate(position_object(s)["cards"]):
            assert card.get("card") == s.public_id(h)


# --- the builder ----------------------------------------------------------------------------

def test_builder_sets_up_a_position_and_resolves_its_decision():
    b = PositionBuilder(tiles=NEUTRAL, active=0)
    dragon = b.field(0, "c2", "zenith-dragon", increase=1)
    eaten = b.absorbed(dragon, "ash-whisper")
    mite = b.field(1, "c3", recto=False)
    hand = b.hand(1)
    gone = b.eliminated(1, "destroyed", "shade-mite", recto=True)
    kept = b.deck(0)
    s = b.build()
    assert s.pending == TurnDecision(0) and s.turn == 0
    assert (dragon, eaten, mite, hand, gone, kept) == (0, 12, 13, 14, 15, 1)
    assert s.zone_of(dragon) == "field" and s.card_at("c2") == dragon and s.level(dragon) == 1
    assert s.strength(dragon) == CAT["zenith-dragon"].strength + 1
    assert s.public_id(mite) is None and s.zone_of(hand) == "hand"
    assert s.zone_of(eaten) == "absorbed" and s.public_id(gone) == "shade-mite"
    assert s.deck_size == 12 and s.zone_of(kept) == "deck"
    assert (s.deck_n, s.hand_n, s.alive) == ([11, 8], [0, 1], [12, 10])
    assert "activate c2/1" in {str(a) for a in legal_actions(s)}  # the absorbed Active
    again = load_position(dump_position(s))
    assert encode_state(again) == encode_state(s)


def test_builder_position_without_a_move_ends_the_turn_by_itself():
    # player 0 has only a deck: nothing but `end` is legal, so the turn passes (§1.4.5)
    b = PositionBuilder(tiles=NEUTRAL, active=0)
    b.field(1, "e3", "shade-mite")
    s = b.build()
    assert s.pending == TurnDecision(1) and s.turn == 1


def test_builder_defaults_follow_the_rules():
    b = PositionBuilder(Ruleset(deck_size=3, hand_size=1))
    b.hand(0)
    b.hand(1)
    s = b.build()  # the layout of the seed b"position"; the first player is active (§1.3.3)
    assert s.pending == TurnDecision(s.first) and s.turn == 0 and s.deck_n == [2, 2]
    with pytest.raises(PositionError, match="needs its card id"):
        b.field(0, "a1")
    with pytest.raises(PositionError, match="not an unplaced card of player 0"):
        b.hand(0, handle=4)
    for _ in range(2):  # player 1 has one card in hand already
        b.hand(1)
    with pytest.raises(PositionError, match="no unplaced card left"):
        b.hand(1)
    b.field(0, "z9", "shade-mite")
    with pytest.raises(PositionError, match=r"'cards\[1\]\.area': 'z9' is not an area"):
        b.build()


def test_builder_writes_the_format_a_finished_game_included():
    b = PositionBuilder(tiles=NEUTRAL)
    b.field(0, "a1", "zenith-dragon")
    b.result = {"outcome": "turn-limit", "winner": None}
    s = b.build()
    assert s.result is not None and s.result.winner is None and s.pending is None
    assert json.loads(dump_position(s))["decision"] is None


# --- bad positions ----------------------------------------------------------------------------

def _base() -> dict:
    b = PositionBuilder(tiles=NEUTRAL, active=0)
    b.field(0, "c2", "zenith-dragon")
    b.field(1, "c3", recto=False)
    b.hand(0)
    return position_object(b.build())


def _set(path: str, value: object, undecided: bool = False):
    """A change to a position object; `undecided` also drops the decision (to be resolved)."""
    def change(obj: dict) -> None:
        if undecided:
            obj["decision"] = None
        *parents, last = path.split(".")
        for key in parents:
            obj = obj[int(key)] if isinstance(obj, list) else obj[key]
        if isinstance(obj, list):
            obj[int(last)] = value
        else:
            obj[last] = value
    return change


@pytest.mark.parametrize("change, field", [
    (_set("format", "versus-position/2"), "'format'"),
    (_set("game", "grid"), "'game'"),
    (_set("colour", 1), "unknown field"),
    (_set("rules", {"deck_size": 99}), "'rules'.*deck_size"),
    (_set("catalogue", "00" * 32), "'catalogue'"),
    (_set("tiles", "GGGGG GGGGG GGGGG GGGGG"), "'tiles'.*Blue"),
    (_set("tiles", "GGGGG"), "'tiles'"),
    (_set("turn", -1), "'turn'"),
    (_set("active", 2), "'active'"),
    (_set("used", ["summon", "summon"]), "'used'"),
    (_set("used", ["jump"]), r"'used\[0\]'"),
    (_set("order", "end"), "'order'"),
    (_set("cards", []), "'cards'"),
    (_set("cards.0.zone", "limbo"), r"'cards\[0\]\.zone'"),
    (_set("cards.0.area", "z9"), r"'cards\[0\]\.area'"),
    (_set("cards.0.card", "no-such-card"), r"'cards\[0\]\.card'"),
    (_set("cards.1", {"zone": "deck", "card": "shade-mite"}), r"'cards\[1\]'.*deck card"),
    (_set("cards.12", {"zone": "field", "area": "c2", "face": "verso"}), "'cards'.*no battle"),
    (_set("cards.12", {"zone": "field", "area": "c3", "face": "recto"}), r"'cards\[12\]\.card'"),
    (_set("cards.0.absorbed", [1]), r"absorbed\[0\]'.*ally"),
    (_set("cards.0.absorbed", [13]), r"'cards\[13\]\.zone'.*absorbed"),
    (_set("cards.13", {"zone": "absorbed", "card": "shade-mite"}), r"'cards\[13\]'"),
    (_set("cards.0.increase", 100), r"'cards\[0\]\.increase'"),
    (_set("battle", {"area": "c2", "cards": [0, 12]}), "'battle.cards'"),
    (_set("tasks", [["fly", 0]]), r"'tasks\[0\]'.*unknown task"),
    (_set("tasks", [["draw"]]), r"'tasks\[0\]'.*fields"),
    (_set("tasks", [["draw", 2]]), r"'tasks\[0\]\[1\]'"),
    (_set("tasks", [["passive", 12, None, "c3"]], True), r"'tasks\[0\]'.*reads card 12"),
    (_set("tasks", [["land", 0, "a1", "recto"]], True), r"'tasks\[0\]'.*hand"),
    (_set("decision", {"kind": "turn", "player": 1}), "'decision.player'"),
    (_set("decision", {"kind": "choice", "player": 0, "choice": "discard-from-hand",
                       "options": [1]}), "'decision'.*deck first"),
    (_set("decision", {"kind": "reveal", "player": 0, "handle": 0}), "already public"),
    (_set("decision", {"kind": "deal", "player": 0}), "'decision'.*exactly the fields"),
    (_set("result", {"outcome": "mutual-elimination", "winner": 0}, True), "'result.winner'"),
    (_set("result", {"outcome": "elimination", "winner": 0}), "'decision'.*no decision"),
])
def test_a_bad_position_names_its_field(change, field):
    obj = _base()
    change(obj)
    with pytest.raises(PositionError, match=field):
        load_position(json.dumps(obj))


@pytest.mark.parametrize("text, message", [
    (b"{", "not JSON"), (b"[]", "JSON object"), ("{}", "lacks field 'format'"),
    (b"[" * 5000 + b"]" * 5000, "not JSON"), (b" " * (MAX_POSITION_BYTES + 1), "limit"),
    (b"\xff", "not JSON"),
])
def test_text_that_is_no_position_fails_precisely(text, message):
    with pytest.raises(PositionError, match=message):
        load_position(text)


def test_another_catalogue_is_checked_against_the_digest():
    s = PositionBuilder(tiles=NEUTRAL).build()
    smaller = load_catalogue(json.dumps({"format": "versus-catalogue/1", "cards": [
        c.to_json() for c in CAT.cards[:30]]}))
    with pytest.raises(PositionError, match=r"'catalogue'.*made with catalogue"):
        load_position(dump_position(s), smaller)
    obj = position_object(s)
    del obj["catalogue"]  # optional: a hand-written position may omit it
    assert load_position(json.dumps(obj), smaller).cat is smaller


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.sampled_from(
        ["c3", "recto", "verso", "hand", "field", "absorbed", "draw", "turn", "zenith-dragon",
         "summon", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["zone", "area", "card", "face", "kind", "player", "cards"]), inner,
        max_size=3),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_mutation_raises_position_error_or_loads_a_consistent_state(data):
    obj = _base()
    paths = ["format", "rules", "tiles", "turn", "active", "used", "order", "summons", "battle",
             "tasks", "decision", "result", "cards.0", "cards.0.area", "cards.0.absorbed",
             "cards.12", "cards.12.face", "cards.13", "cards.0.increase", "cards"]
    for path in data.draw(st.lists(st.sampled_from(paths), min_size=1, max_size=3)):
        with contextlib.suppress(LookupError, TypeError, ValueError):  # a path mutated away
            _set(path, data.draw(json_values))(obj)
    try:
        s = load_position(json.dumps(obj))
    except PositionError:
        return
    assert dump_position(load_position(dump_position(s))) == dump_position(s)
