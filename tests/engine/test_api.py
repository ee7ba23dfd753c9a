# The generic game interface (engine/api.py), the registry (engine/registry.py) and the Versus
# adapter (engine/versus42/): Versus through the interface plays and hashes exactly as the
# engine does directly, the registry names unknown ids precisely, and a second game (the toy
# duel of tests/engine/toy_game.py) registers, plays through all five decision kinds and
# leaves again.
from __future__ import annotations

import pytest

from versus.engine import (
    DecisionKind,
    Finished,
    Game,
    HashRng,
    Pending,
    RulesetError,
    RulesOption,
    Setup,
    UnknownGameError,
    games,
    get_game,
    load_position,
    register_game,
    unregister_game,
)
from versus.engine.api import MAX_CHANCE_OUTCOMES, protocol_members
from versus.engine.versus42 import (
    VERSUS42,
    ActionOrder,
    ChoiceDecision,
    DealDecision,
    GameResult,
    Knowledge,
    Referee,
    RevealDecision,
    Ruleset,
    TurnDecision,
    default_catalogue,
    random_chooser,
    random_deal,
    state_hash,
)
from versus.engine.versus42.narrate import narrate
from versus.engine.versus42.ruleset import RULES_OPTIONS

from .toy_game import TOY, ToyDuel

CAT = default_catalogue()


@pytest.fixture
def toy():
    register_game(TOY)
    try:
        yield TOY
    finally:
        unregister_game(TOY.id)


# --- registry -------------------------------------------------------------------------------

def test_versus42_is_registered_by_default_with_its_options():
    assert isinstance(VERSUS42, Game)
    assert get_game("versus42") is VERSUS42
    (info,) = [g for g in games() if g.id == "versus42"]
    assert info.options == RULES_OPTIONS and info.players == 2
    assert [o.name for o in info.options] == list(Ruleset().to_options())


@pytest.mark.parametrize("bad", ["chess", "", "VERSUS42", None, 42])
def test_unknown_game_id_names_it_and_the_known_ones(bad):
    with pytest.raises(UnknownGameError,
                       match=r"unknown game id .*; known games: grid, multiverse, "
                             r"vanquishers, versus42"):
        get_game(bad)


def test_a_test_game_appears_only_while_registered(toy):
    assert get_game("toy-duel") is toy
    assert [g.id for g in games()] == ["grid", "multiverse", "toy-duel", "vanquishers", "versus42"]
    with pytest.raises(ValueError, match="already registered"):
        register_game(ToyDuel())
    unregister_game("toy-duel")
    assert [g.id for g in games()] == ["grid", "multiverse", "vanquishers", "versus42"]
    register_game(toy)  # for the fixture's unregister


def test_registering_an_incomplete_game_names_the_missing_members():
    class Half:
        id = "half"

        def step(self, state, inp):
            return state

    with pytest.raises(TypeError, match="lacks title, players, rules_options, chance, "):
        register_game(Half())
    assert "narrate" in protocol_members() and "load_position" in protocol_members()
    with pytest.raises(ValueError, match="cannot be unregistered"):
        unregister_game("versus42")


def test_bad_game_id_is_rejected():
    game = ToyDuel()
    game.id = "Toy Duel"  # type: ignore[misc]
    with pytest.raises(ValueError, match="must match"):
        register_game(game)


# --- the generic values ---------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"kind": DecisionKind.CHANCE, "player": 0, "outcomes": 6}, "no player"),
    ({"kind": DecisionKind.CHANCE, "player": None, "outcomes": 1}, "outcomes"),
    ({"kind": DecisionKind.CHANCE, "player": None, "outcomes": MAX_CHANCE_OUTCOMES + 1},
     "outcomes"),
    ({"kind": DecisionKind.TURN, "player": None}, "player"),
    ({"kind": DecisionKind.TURN, "player": True}, "player"),
    ({"kind": DecisionKind.TURN, "player": 0, "outcomes": 2}, "only a chance"),
    ({"kind": DecisionKind.REVEAL, "player": 0}, "names a handle"),
    ({"kind": DecisionKind.DEAL, "player": 0, "handle": 3}, "only a reveal"),
    ({"kind": DecisionKind.TURN, "player": 0, "options": (1,)}, "only a choice"),
    ({"kind": DecisionKind.CHOICE, "player": 0, "options": (1, 1)}, "distinct"),
    ({"kind": DecisionKind.CHOICE, "player": 0, "options": [1]}, "tuple"),
    ({"kind": DecisionKind.DEAL, "player": 0, "label": "Hand"}, "label"),
    ({"kind": "turn", "player": 0}, "DecisionKind"),
])
def test_pending_is_validated_on_construction(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Pending(**kwargs)


def test_generic_values_are_frozen_and_validated():
    p = Pending(DecisionKind.CHANCE, None, "d6", outcomes=6)
    with pytest.raises(AttributeError):
        p.outcomes = 7  # type: ignore[misc]
    assert Finished("turn-limit", None).winner is None
    for bad in (("", 0), ("elimination", 9), ("Elimination", 0)):
        with pytest.raises(ValueError):
            Finished(*bad)
    with pytest.raises(ValueError, match="default"):
        RulesOption("sides", 13, "faces", 2, 12)
    with pytest.raises(ValueError, match="one of the choices"):
        RulesOption("order", "x", "order", choices=("a", "b"))
    with pytest.raises(ValueError, match="name"):
        RulesOption("Deck size", 1, "x", 1, 2)
    with pytest.raises(ValueError, match="seed"):
        Setup(Ruleset(), CAT, b"")
    assert RULES_OPTIONS[0].describe() == (
        "deck_size=12 (1..21): cards in each player's deck (§1.2.2)")


@pytest.mark.parametrize("option", RULES_OPTIONS, ids=lambda o: o.name)
def test_rules_options_table_is_what_the_ruleset_accepts(option):
    assert VERSUS42.rules_from_options({}) == Ruleset() == VERSUS42.default_rules()
    if option.choices:
        for choice in option.choices:
            assert VERSUS42.rules_to_options(
                VERSUS42.rules_from_options({option.name: choice}))[option.name] == choice
        bad = ["sideways"]
    else:
        bad = [option.minimum - 1, option.maximum + 1, str(option.default)]
    for value in bad:
        with pytest.raises(RulesetError, match=option.name):
            VERSUS42.rules_from_options({option.name: value})


def test_rules_encoding_round_trips_and_rejects_non_canonical_bytes():
    rules = VERSUS42.rules_from_options({"action_order": "any", "deck_size": 9})
    data = VERSUS42.encode_rules(rules)
    assert VERSUS42.decode_rules(data) == rules
    assert VERSUS42.rules_digest(rules) == rules.digest()
    with pytest.raises(RulesetError):
        VERSUS42.decode_rules(data.replace(b",", b", "))
    with pytest.raises(RulesetError, match="mapping"):
        VERSUS42.rules_from_options([("deck_size", 3)])  # type: ignore[arg-type]


# --- Versus through the interface -----------------------------------------------------------

def _play_through_the_interface(game, setup, identities, orders, seed):
    """A referee that knows Versus only through `game`: it answers DEAL and REVEAL in the
    game's notation and TURN/CHOICE with a seeded random pick among legal_actions."""
    rng = HashRng(seed, "interface")
    s = game.new_game(setup)
    nexts = [0, 0]
    hashes = [game.state_hash(s)]
    while isinstance(d := game.decision(s), Pending):
        if d.kind is DecisionKind.DEAL:
            text = f"deal {orders[d.player][nexts[d.player]]}"
            nexts[d.player] += 1
        elif d.kind is DecisionKind.REVEAL:
            text = f"reveal {d.handle} {identities[d.handle]}"
        else:
            legal = game.legal_actions(s)
            text = game.format_input(legal[rng.randrange(len(legal))])
        inp = game.parse_input(text)
        assert game.format_input(inp) == text
        s = game.step(s, inp)
        hashes.append(game.state_hash(s))
    return s, d, hashes


@pytest.mark.parametrize("order", list(ActionOrder))
def test_versus_through_the_interface_hashes_as_the_engine(order):
    seed = b"interface-" + order.value.encode()
    rules = VERSUS42.rules_from_options({"action_order": order.value})
    ids, orders = random_deal(CAT, rules, HashRng(seed, "deal"))
    s, end, hashes = _play_through_the_interface(VERSUS42, Setup(rules, CAT, seed), ids,
                                                 orders, seed)
    # the same inputs through the engine directly, with the referee answering the same way
    ref = Referee(rules, CAT, seed, ids, orders,
                  (random_chooser(HashRng(seed, "interface")),) * 2)
    direct = [state_hash(ref.state)]
    while ref.state.result is None:
        ref.advance()
        direct.append(state_hash(ref.state))
    assert hashes == direct
    assert end == Finished(ref.state.result.outcome.value, ref.state.result.winner)
    assert VERSUS42.encode_state(s) == VERSUS42.encode_state(ref.state)
    assert VERSUS42.catalogue_digest(VERSUS42.default_catalogue()) == CAT.digest


def test_every_versus_decision_maps_to_its_generic_kind():
    seen: dict[DecisionKind, Pending] = {}
    for i in range(12):
        seed = bytes([i])
        rules = Ruleset(deck_size=4, hand_size=2)
        ids, orders = random_deal(CAT, rules, HashRng(seed, "deal"))
        ref = Referee(rules, CAT, seed, ids, orders,
                      (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))
        while ref.state.result is None:
            d, g = ref.state.pending, VERSUS42.decision(ref.state)
            assert g.player == d.player
            if isinstance(d, TurnDecision):
                assert g == Pending(DecisionKind.TURN, d.player)
            elif isinstance(d, ChoiceDecision):
                assert (g.kind, g.label, g.options) == (DecisionKind.CHOICE, d.kind.value,
                                                        d.options)
                assert [a.handle for a in VERSUS42.legal_actions(ref.state)] == list(g.options)
            elif isinstance(d, DealDecision):
                assert (g.kind, g.label) == (DecisionKind.DEAL, d.purpose.value)
            else:
                assert isinstance(d, RevealDecision)
                assert (g.kind, g.handle) == (DecisionKind.REVEAL, d.handle)
            seen[g.kind] = g
            ref.advance()
        assert isinstance(ref.state.result, GameResult)
    assert set(seen) == {DecisionKind.TURN, DecisionKind.CHOICE, DecisionKind.DEAL,
                         DecisionKind.REVEAL}


def test_views_knowledge_and_narration_are_the_engines():
    seed = b"narration"
    rules = VERSUS42.default_rules()
    ids, orders = random_deal(CAT, rules, HashRng(seed, "deal"))
    ref = Referee(rules, CAT, seed, ids, orders,
                  (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))
    for _ in range(40):
        before = ref.state
        inp = ref.advance()
        for viewer in (0, 1):
            know = ref.knowledge[viewer]
            assert VERSUS42.narrate(before, inp, ref.state, viewer, know) == narrate(
                before, inp, ref.state, viewer, know)
            view = VERSUS42.view(ref.state, viewer, know)
            assert view.to_dict() == ref.view(viewer).to_dict()
    fresh = VERSUS42.new_knowledge(1)
    assert isinstance(fresh, Knowledge) and fresh.player == 1 and fresh.cards == {}


def test_positions_go_through_the_registry_by_game_id(toy):
    s = VERSUS42.new_game(Setup(Ruleset(), CAT, b"registry"))
    assert VERSUS42.encode_state(load_position(VERSUS42.dump_position(s))) == \
        VERSUS42.encode_state(s)
    t = toy.step(toy.new_game(Setup(6, toy.default_catalogue(), b"x")), "deal 2")
    assert load_position(toy.dump_position(t)) == t
    other = VERSUS42.dump_position(s).replace('"game":"versus42"', '"game":"chess"')
    with pytest.raises(UnknownGameError,
                       match="'chess'; known games: grid, multiverse, toy-duel, vanquishers, "
                             "versus42"):
        load_position(other)


# --- a second game ----------------------------------------------------------------------------

def test_the_toy_game_plays_every_decision_kind_through_the_registry(toy):
    game = get_game("toy-duel")
    assert isinstance(game, Game)
    identities = ["three", "one", "two"]
    s = game.new_game(Setup(game.rules_from_options({"sides": 4}),
                            game.default_catalogue(), b"toy"))
    kinds = []
    answers = {DecisionKind.DEAL: lambda d, s: f"deal {2 - d.player}",
               DecisionKind.TURN: lambda d, s: "bet",
               DecisionKind.CHOICE: lambda d, s: "call",
               DecisionKind.REVEAL: lambda d, s: f"reveal {d.handle} {identities[d.handle]}",
               # CHANCE: the protocol's joint randomness picks k; here outcome 3
               DecisionKind.CHANCE: lambda d, s: game.legal_actions(s)[3]}
    while isinstance(d := game.decision(s), Pending):
        kinds.append(d.kind)
        if d.kind is DecisionKind.CHANCE:
            assert d.player is None and d.outcomes == 4 == len(game.legal_actions(s))
        s = game.step(s, game.parse_input(answers[d.kind](d, s)))
    assert kinds == [DecisionKind.DEAL, DecisionKind.DEAL, DecisionKind.TURN,
                     DecisionKind.CHOICE, DecisionKind.CHANCE, DecisionKind.REVEAL,
                     DecisionKind.REVEAL]
    # player 0 holds "two" (+1: the roll 4 is above half of 4 sides), player 1 "one"
    assert d == Finished("showdown", 0)
    assert game.state_hash(s) != game.state_hash(game.new_game(Setup(4, (), b"toy")))


@pytest.mark.parametrize("text", ["[" * 100_000, b"\xff\xfe", "x" * (2 << 20), "[]", "3",
                                  '{"format": "versus-position/1"', ""])
@pytest.mark.parametrize("game_id", ["versus42", "grid", "vanquishers", "multiverse"])
def test_every_games_position_reader_refuses_hostile_text_with_a_position_error(
        game_id: str, text: str | bytes) -> None:
    """Found by review: Vanquishers' reader let the JSON parser's RecursionError out of a
    deeply nested text (a traceback in `--start`, `--deals` and `load_position`)."""
    from versus.engine.errors import PositionError
    from versus.engine.registry import get_game

    with pytest.raises(PositionError):
        get_game(game_id).load_position(text)


def _odd_values() -> list[object]:
    return [None, [], {}, "x", -1, 10**9, 1.5, [[1]], {"a": 1}, True]


def _mutations(obj: object, path: tuple[object, ...] = ()):  # type: ignore[no-untyped-def]
    """(path, value) for every place of a JSON value (at most 3 levels down), each value odd."""
    if len(path) >= 3:
        return
    items = (obj.items() if isinstance(obj, dict) else enumerate(obj[:4])
             if isinstance(obj, list) else ())
    for key, value in items:
        for odd in _odd_values():
            yield (*path, key), odd
        yield from _mutations(value, (*path, key))


def _set(obj: object, path: tuple[object, ...], value: object) -> object:
    import copy

    out = copy.deepcopy(obj)
    target = out
    for key in path[:-1]:
        target = target[key]  # type: ignore[index]
    target[path[-1]] = value  # type: ignore[index]
    return out


@pytest.mark.parametrize("game_id", ["versus42", "grid", "vanquishers"])
def test_a_position_with_an_odd_value_anywhere_is_a_position_error(game_id: str) -> None:
    """Found by review: grid's reader looked a list up in a dict (`decision.kind`), a
    TypeError traceback from `--start` and `--deals`. Every field of a real start position
    (three levels down) set to each of a few odd JSON values: the reader and
    `rules_for_position` answer with the position, or a PositionError, nothing else."""
    import contextlib
    import json

    from tests.cli.test_tournament_paired import start_position_text
    from versus.engine.api import rules_for_position
    from versus.engine.errors import PositionError
    from versus.engine.registry import get_game

    game = get_game(game_id)
    obj = json.loads(start_position_text(b"start-1", game_id))
    for path, value in _mutations(obj):
        text = json.dumps(_set(obj, path, value))
        for read in (game.load_position, lambda t: rules_for_position(game, t)):
            with contextlib.suppress(PositionError):
                read(text)
