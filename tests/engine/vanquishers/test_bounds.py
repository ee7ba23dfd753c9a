# What a Vanquishers position may hold (engine/vanquishers/bounds.py, SPEC §10.3 "Positions: what
# a position may hold"): the reader refuses every field beyond what the rules reach, naming the
# field and its value; it accepts every position real games reach; and every start it accepts
# plays random games to the end (hypothesis mutates real starts), a few of them through the
# protocol to a verified transcript.
from __future__ import annotations

import functools
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.start_support import deal_back
from versus.engine.api import DecisionKind, Finished, Setup, rules_for_position
from versus.engine.errors import IllegalActionError, PositionError, RulesetError
from versus.engine.referee_loop import LocalPlay
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers import starter_deck
from versus.engine.vanquishers.engine import S, Zone
from versus.engine.vanquishers.rules import Mode, Rules
from versus.engine.vanquishers.text import load_position

from .referee import Game, random_chooser, useful_chooser
from .test_properties import trap_deck
from .test_start_positions import CASES, start_text

CAT = G.default_catalogue()
IDS = [c.id for c in CAT.cards]
ADVANCED = CASES[1]  # (advanced rules, decks of 40; the seed of the game the start comes from)


def text_of(obj: dict) -> str:  # type: ignore[type-arg]
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def start_obj(case: tuple[Rules, str] = CASES[0]) -> dict:  # type: ignore[type-arg]
    return json.loads(start_text(*case))  # type: ignore[no-any-return]


def refused(obj: dict, field: str) -> str:  # type: ignore[type-arg]
    """The PositionError of a changed position, as a reader and as a start; it names `field`."""
    text = text_of(obj)
    with pytest.raises(PositionError) as error:
        load_position(text)
    assert field in str(error.value), (field, str(error.value))
    with pytest.raises((PositionError, RulesetError), match=field.replace("[", r"\[")):
        rules_for_position(G, text)
    return str(error.value)


def joiner(obj: dict) -> int:  # type: ignore[type-arg]
    return 1 - obj["state"]["active"]  # whoever waits: the seat the host hands the position


# --- the deceiving start and the overflowing one --------------------------------------------------


def test_a_deceiving_start_is_refused_field_by_field() -> None:
    """Found by review: a host offered a start in which the joiner's 'hero' was an armor card,
    the joiner was Frozen and Cursed for 99 turns and the host had Shield 99 and Storage
    Energy 99; the reader range-checked only the sides' length, and the start verified. Each
    of those values alone is now refused, naming its field and value."""
    obj = start_obj(ADVANCED)
    j = joiner(obj)
    host = 1 - j
    armor = IDS.index("scout-vest")
    for f, p, value, field in ((S.HERO, j, armor, f"state.sides[{j}][0]"),
                               (S.FROZEN, j, 99, f"state.sides[{j}][10]"),
                               (S.CURSE, j, 99, f"state.sides[{j}][11]"),
                               (S.SHIELD, host, 99, f"state.sides[{host}][2]"),
                               (S.STORAGE, host, 99, f"state.sides[{host}][3]")):
        changed = json.loads(json.dumps(obj))
        changed["state"]["sides"][p][f] = value
        message = refused(changed, field)
        assert f"{value}" in message, message
    everything = json.loads(json.dumps(obj))
    for f, p, value in ((S.HERO, j, armor), (S.FROZEN, j, 99), (S.CURSE, j, 99),
                        (S.SHIELD, host, 99), (S.STORAGE, host, 99)):
        everything["state"]["sides"][p][f] = value
    refused(everything, "state.sides[")


def test_storage_energy_beyond_the_exiled_cards_is_refused_and_the_bound_is_exact() -> None:
    """Found by review: Storage Energy 32767 passed the reader and one `exile` overflowed the
    16-bit state encoding (OverflowError in encode_state). Decided (SPEC §10.3): Storage Energy
    is at most the player's exiled cards, less the V-Trigger's cost once it is active."""
    obj = start_obj()
    st_ = obj["state"]
    for p in (0, 1):
        exiled = sum(1 for h, z in enumerate(st_["zone"]) if z == Zone.EXILE
                     and h // (len(st_["zone"]) // 2) == p)
        vt_cost = CAT.get(obj["rules"][f"hero{p}"]).vt_cost  # type: ignore[union-attr]
        top = exiled - (vt_cost if st_["sides"][p][S.VT] else 0)
        for value in (32767, top + 1, -1):
            changed = json.loads(json.dumps(obj))
            changed["state"]["sides"][p][S.STORAGE] = value
            changed["state"]["sides"][p][S.SPENT] = 0
            assert f"0..{top}" in refused(changed, f"state.sides[{p}][3]")
        changed = json.loads(json.dumps(obj))
        changed["state"]["sides"][p][S.STORAGE] = top
        changed["state"]["sides"][p][S.SPENT] = 0
        load_position(text_of(changed))  # the bound itself is reachable


@pytest.mark.parametrize(("where", "value", "field"), [
    (("sides", 0, S.HERO), 999, "state.sides[0][0]"),  # was IndexError at the first hero read
    (("sides", 1, S.ECLASS), 999, "state.sides[1][6]"),  # was IndexError at max Shield
    (("sides", 1, S.ECLASS), IDS.index("dark-class"), "state.sides[1][6]"),  # not its class
    (("sides", 0, S.LIFE), 0, "state.result"),  # a hero at 0 Life has lost
    (("sides", 0, S.ROLL), 9, "state.sides[0][12]"),
    (("turn",), 120, "state.turn"),  # the turn limit of 60 turns each
    (("exiles",), 2, "state.exiles"),
])
def test_out_of_range_counters_of_a_real_start_are_refused(where, value, field) -> None:  # type: ignore[no-untyped-def]
    obj = start_obj(ADVANCED)
    target = obj["state"]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    refused(obj, field)


def _first(st_: dict, zone: Zone, public: bool, p: int | None = None) -> int:  # type: ignore[type-arg]
    n = len(st_["zone"]) // 2
    return next(h for h, z in enumerate(st_["zone"]) if z == zone
                and (st_["card"][h] is not None) == public and (p is None or h // n == p))


def test_card_kinds_slots_and_counters_per_zone_are_refused() -> None:
    obj = start_obj()
    st_ = obj["state"]
    board = next(h for h, z in enumerate(st_["zone"]) if z == Zone.BOARD
                 and CAT.get(st_["card"][h]).type.value not in ("ammo", "mod"))  # type: ignore[union-attr]
    hidden_trap = _first(st_, Zone.TRAP, False)
    cases = [
        ("card", board, "kael-ironvow", "is a hero"),  # a hero is never a deck card
        ("card", board, "focused-strike", "is discarded once it resolves"),
        ("aux", hidden_trap, 7, "declared trap cost"),
        ("aux", _first(st_, Zone.HAND, False), 3, "has no counter"),
        ("host", board, board, "attached to nothing"),
        ("zone", _first(st_, Zone.DECK, False), Zone.BOARD, "holds a hidden card"),
    ]
    for name, h, value, why in cases:
        changed = json.loads(json.dumps(obj))
        changed["state"][name][h] = value
        assert why in refused(changed, f"state.{name}[{h}]")


def test_standard_mode_holds_no_advanced_state() -> None:
    obj = start_obj()
    for f, value, why in ((S.ECLASS, IDS.index("tech-class"), "is -1 in Standard Mode"),
                          (S.BURN, 1, "outside 0..0"), (S.GLITCH, 1, "outside 0..0")):
        changed = json.loads(json.dumps(obj))
        changed["state"]["sides"][0][f] = value
        assert why in refused(changed, f"state.sides[0][{int(f)}]")


# --- no false refusal: every position of real games loads ----------------------------------------


@pytest.mark.parametrize(("rules", "seed", "useful", "traps"), [
    (Rules(), "all/0", False, True),
    (Rules(mode=Mode.ADVANCED, hero0="zeta-hollow", hero1="brum-stonefist"), "all/1", True,
     False),
    (Rules(mode=Mode.ADVANCED, max_turns=6, deck_size=40), "all/2", False, False),
], ids=["standard-traps", "advanced", "turn-limit"])
def test_every_position_of_a_real_game_loads(rules: Rules, seed: str, useful: bool,
                                             traps: bool) -> None:
    chooser = useful_chooser if useful else random_chooser
    decks = (trap_deck(rules.hero0), trap_deck(rules.hero1)) if traps else None
    game = Game(rules, seed=seed, decks=decks, choosers=(chooser, chooser))
    states = [game.state]
    while not isinstance(G.decision(game.state), Finished):
        game.advance()
        states.append(game.state)
    for s in states:
        text = G.dump_position(s)
        assert G.dump_position(load_position(text)) == text


# --- every start the reader accepts plays to the end -------------------------------------------


@functools.cache
def base_starts() -> tuple[str, ...]:
    return tuple(start_text(*case) for case in CASES)


SIDE_VALUES = st.one_of(st.integers(-2, 12), st.sampled_from([99, 32767, -32768]))
mutation = st.one_of(
    st.tuples(st.just("sides"), st.integers(0, 1), st.sampled_from(list(S)), SIDE_VALUES),
    st.tuples(st.sampled_from(["zone", "host", "aux"]), st.integers(0, 79),
              st.integers(-2, 8)),
    st.tuples(st.just("card"), st.integers(0, 79), st.sampled_from([None, *IDS])),
    st.tuples(st.sampled_from(["turn", "exiles", "step", "active", "first"]),
              st.integers(-1, 8)),
)


def mutate(text: str, changes: list[tuple]) -> str:  # type: ignore[type-arg]
    obj = json.loads(text)
    st_ = obj["state"]
    n2 = len(st_["zone"])
    for change in changes:
        if change[0] == "sides":
            _, p, f, value = change
            st_["sides"][p][f] = value
        elif len(change) == 3:
            name, h, value = change
            st_[name][h % n2] = value
        else:
            st_[change[0]] = change[1]
    return text_of(obj)


def play_from_start(rules: Rules, seed: int) -> Finished:
    """A random game from the start of `rules` in the one full-information loop
    (engine/referee_loop.py): each player brings a legal deck of its hidden cards' size; every
    input is a deal, a true reveal, a die or a listed action; every state hashes (the 16-bit
    encoding holds every counter) and its positions load."""
    rng = random.Random(seed)  # a test's own stream: nothing here is secret
    s, _ = deal_back(G, rules, G.new_game(Setup(rules, CAT, b"seed")))
    identity = {}
    for deck in G.decks(rules):
        cards = starter_deck(CAT, rules.heroes[deck.owner], 70)  # type: ignore[index]
        identity.update(zip(deck.handles, rng.sample(cards, deck.size), strict=False))
    orders = [[h for h in deck.handles if s.zone[h] == Zone.DECK] for deck in G.decks(rules)]

    def check(state: Any, inp: Any) -> None:
        G.state_hash(state)
        if play.inputs % 16 == 0:  # the positions of a start match load (copies counted apart)
            text = G.dump_position(state)
            assert G.dump_position(load_position(text)) == text

    play = LocalPlay(G, s, identity, orders, rng.randrange, on_input=check)
    result = play.play(lambda view, legal, seat: rng.choice(legal), 20_000)
    G.state_hash(play.state)
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2), st.lists(mutation, min_size=1, max_size=3), st.integers(0, 99))
def test_every_start_the_reader_accepts_plays_to_the_end(base: int, changes: list[tuple],  # type: ignore[type-arg]
                                                         seed: int) -> None:
    text = mutate(base_starts()[base], changes)
    try:
        rules = rules_for_position(G, text)
    except (PositionError, RulesetError):
        return
    assert isinstance(play_from_start(rules, seed), Finished)


@functools.cache
def real_game() -> Game:
    game = Game(Rules(mode=Mode.ADVANCED), seed="bounds/positions")
    game.play()
    return game


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(mutation, min_size=1, max_size=3), st.integers(0, 99))
def test_every_position_the_reader_accepts_plays_to_the_end(changes: list[tuple],  # type: ignore[type-arg]
                                                            seed: int) -> None:
    """Positions of a real game in progress (any decision), changed: what `load_position`
    accepts plays on; a hidden card is revealed as a card of its owner's deck, or as
    ammunition (no copy limit) when that card's copies are all named already."""
    game = real_game()
    before = game.history[seed * 2 % len(game.history)][0]
    try:
        s = load_position(mutate(G.dump_position(before), changes))
    except PositionError:
        return
    rng = random.Random(seed)
    for _ in range(20_000):
        G.state_hash(s)
        d = G.decision(s)
        if isinstance(d, Finished):
            return
        if d.kind is DecisionKind.DEAL:
            s = G.step(s, G.deal_input(next(h for h in G.decks(s.rules)[d.deck].handles
                                            if s.zone[h] == Zone.DECK)))
        elif d.kind is DecisionKind.REVEAL:
            try:
                s = G.step(s, G.reveal_input(d.handle, game.identity[d.handle]))
            except IllegalActionError as e:
                assert "copies" in str(e), e
                s = G.step(s, G.reveal_input(d.handle, "kinetic-rounds"))
        else:
            s = G.step(s, rng.choice(list(G.legal_actions(s))))
    raise AssertionError("the game did not end")


# --- accepted changed starts verify through the protocol -----------------------------------------


def accepted_changes() -> list[str]:
    """Starts changed within the bounds (lower Life and Shield, Storage Energy at its bound,
    a condition in Advanced Mode): each is accepted."""
    out = []
    for case, change in ((CASES[0], "low"), (ADVANCED, "frozen")):
        obj = start_obj(case)
        st_ = obj["state"]
        p = joiner(obj)
        if change == "low":
            st_["sides"][p][S.LIFE] = 1
            st_["sides"][p][S.SHIELD] = 0
        else:
            st_["sides"][p][S.FROZEN] = 1
        out.append(text_of(obj))
    return out


def test_a_few_accepted_changed_starts_verify_through_the_protocol() -> None:
    from tests.protocol.pair import Pair
    from versus.protocol.match.rules import DealMode, MatchRules
    from versus.protocol.match.verify import verify_transcript

    for i, text in enumerate(accepted_changes()):
        rules = rules_for_position(G, text)
        decks = tuple(starter_deck(CAT, rules.heroes[d.owner], 70)[:d.size]  # type: ignore[index]
                      for d in G.decks(rules))
        pair = Pair(MatchRules(rules, DealMode.DECKLIST, game=G.id), label=f"vq-bounds/{i}",
                    decks=decks, catalogue=CAT).run()  # type: ignore[arg-type]
        assert not pair.errors, pair.errors
        report = verify_transcript(pair.peers[0].transcript_bytes())
        assert report.ok, report.describe()
        assert report.summary["result"] is not None
