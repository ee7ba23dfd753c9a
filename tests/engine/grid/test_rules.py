# One test or more per numbered rule of the grid game (SPEC Part 9, §9.1.1–9.1.16), on positions
# built with tests/engine/grid/scene.py (fast mode, 4x4: player 0's home base is row 1,
# player 1's is row 4).
from __future__ import annotations

import pytest

from versus.engine.api import DecisionKind, Finished, Pending
from versus.engine.errors import IllegalActionError, RulesetError
from versus.engine.grid import GRID
from versus.engine.grid.begin import new_game
from versus.engine.grid.cards import (
    build_deck,
    build_pool,
    deck_mix,
    default_catalogue,
    recommended_mix,
)
from versus.engine.grid.notation import parse_input
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import Zone, legal_actions, step

from .scene import CAT, Scene, at, card_id, pending, play, resolve


def texts(s) -> list[str]:  # type: ignore[no-untyped-def]
    return [GRID.format_input(i) for i in legal_actions(s)]


def places(s, h: int) -> dict[str, set[str]]:  # type: ignore[no-untyped-def]
    out: dict[str, set[str]] = {}
    for t in texts(s):
        w = t.split(" ")
        if w[0] == "place" and int(w[1]) == h:
            out.setdefault(w[2], set()).add(w[3])
    return out


# --- §9.1.1 modes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode,size,n", [("fast", 4, 20), ("normal", 5, 30), ("vs", 6, 40)])
def test_g1_modes_fix_the_grid_and_the_deck_size(mode: str, size: int, n: int) -> None:
    rules = GridRules.from_options({"mode": mode})
    assert (rules.size, rules.deck_size) == (size, n)
    decks = GRID.decks(rules)
    assert [(d.owner, d.size, d.first) for d in decks] == [(0, n, 0), (1, n, n)]
    s = resolve(step(new_game(rules, CAT), parse_input("first 0")), Scene(mode=mode))
    assert len(s.zone) == 2 * n and len(s.hand(0)) == len(s.hand(1)) == 5


def test_g1_rules_encoding_is_canonical_and_options_are_checked() -> None:
    rules = GridRules.from_options({"mode": "vs", "deck": "shared", "tie": "sudden-death",
                                    "mix": "no-traps"})
    data = GRID.encode_rules(rules)
    assert GRID.decode_rules(data) == rules
    assert data == (b'{"deck":"shared","format":"versus-grid-rules/1","mix":"no-traps",'
                    b'"mode":"vs","tie":"sudden-death"}')
    with pytest.raises(RulesetError, match="not canonical"):
        GRID.decode_rules(data.replace(b",", b", "))
    with pytest.raises(RulesetError, match="'colour'"):
        GRID.rules_from_options({"colour": "red"})
    with pytest.raises(RulesetError, match="mode='huge'"):
        GRID.rules_from_options({"mode": "huge"})
    assert GRID.rules_to_options(rules) == {"mode": "vs", "deck": "shared",
                                            "tie": "sudden-death", "mix": "no-traps"}
    assert GRID.describe_rules(rules) == ("vs 6x6 grid, one shared 80-card deck, sudden death "
                                          "on equal counts, mix no-traps")
    assert len(GRID.rules_digest(rules)) == 32


# --- §9.1.2 deck mixes ----------------------------------------------------------------------------


def test_g2_recommended_mixes_and_filling_with_characters() -> None:
    assert recommended_mix("fast", "standard") == (12, 5, 3)
    assert recommended_mix("normal", "standard") == (18, 8, 4)
    assert recommended_mix("vs", "standard") == (24, 11, 5)
    assert recommended_mix("vs", "no-traps") == (29, 11, 0)
    assert recommended_mix("vs", "no-items") == (35, 0, 5)
    assert recommended_mix("fast", "characters-only") == (20, 0, 0)


@pytest.mark.parametrize("mode", ["fast", "normal", "vs"])
def test_g2_the_catalogue_builds_vs_decks_and_the_shared_deck(mode: str) -> None:
    cat = default_catalogue()
    deck = build_deck(cat, mode, "standard", b"seed")
    assert len(set(deck)) == len(deck) and deck_mix(cat, deck) == recommended_mix(mode,
                                                                                  "standard")
    pool = build_pool(cat, mode, "standard", b"seed")
    assert len(set(pool)) == len(pool) == 2 * len(deck)
    assert deck_mix(cat, pool) == tuple(2 * k for k in recommended_mix(mode, "standard"))
    assert build_deck(cat, mode, "standard", b"seed") == deck  # deterministic in the seed


# --- §9.1.3 individual or shared decks and graveyards ------------------------------------------


def test_g3_a_shared_deck_is_one_hidden_deck_and_one_graveyard() -> None:
    rules = GridRules.from_options({"deck": "shared"})
    assert [(d.owner, d.size, d.first) for d in GRID.decks(rules)] == [(None, 40, 0)]
    sc = Scene(deck="shared")
    b1 = sc.grid(0, "b1", "water5")
    sc.grid(1, "b3", "fire9")
    h = sc.hand(1, "water9")
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.graves == ((b1,),)


def test_g3_individual_graveyards_belong_to_the_deck_owner() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "water5")
    sc.grid(1, "b3", "fire9")
    h = sc.hand(1, "water9")
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.graves == ((b1,), ())


# --- §9.1.4 start, coin flip, drawing ------------------------------------------------------------


def test_g4_a_coin_flip_decides_the_first_player_then_five_cards_each() -> None:
    s = new_game(GridRules(), CAT)
    d = pending(s)
    assert isinstance(d, Pending) and d.kind is DecisionKind.CHANCE and d.outcomes == 2
    assert texts(s) == ["first 0", "first 1"]
    s = step(s, parse_input("first 1"))
    dealt = []
    while (d := pending(s)).kind is DecisionKind.DEAL:  # type: ignore[union-attr]
        dealt.append(d.player)  # type: ignore[union-attr]
        lo = 20 * d.player  # type: ignore[union-attr]
        h = next(h for h in range(lo, lo + 20) if s.zone[h] == 0)
        s = step(s, parse_input(f"deal {h}"))
    assert dealt == [1] * 5 + [0] * 5
    assert pending(s) == Pending(DecisionKind.TURN, 1) and s.first == s.active == 1


def test_g4_a_turn_starts_by_drawing_up_to_five() -> None:
    sc = Scene()
    sc.grid(0, "a1", "earth3", up=False)
    h = sc.hand(0, "earth4")
    sc.hand(1, "earth2")
    s = play(sc.state(), sc, f"place {h} a2 down")
    assert s.active == 1 and len(s.hand(1)) == 5 and len(s.hand(0)) == 0
    # player 0 draws up to five at its next turn
    s = play(s, sc, texts(s)[0])
    assert s.active == 0 and len(s.hand(0)) == 5


def test_g4_drawing_stops_when_the_deck_is_empty() -> None:
    sc = Scene()
    sc.grid(0, "a1", "earth3", up=False)
    h = sc.hand(0, "earth4")
    sc.hand(1, "earth2")
    sc.empty_decks()
    s = play(sc.state(), sc, f"place {h} a2 down")
    assert s.active == 1 and len(s.hand(1)) == 1


# --- §9.1.5 where a card may go ------------------------------------------------------------------


def test_g5_the_first_card_goes_to_the_home_base_face_down() -> None:
    sc = Scene()
    h = sc.hand(0, "water5")
    s = sc.state()
    assert places(s, h) == {c: {"down"} for c in ("a1", "b1", "c1", "d1")}


def test_g5_later_cards_touch_an_own_card_orthogonally() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    sc.grid(0, "c1", "water5", up=False)
    sc.grid(1, "a2", "fire5", up=False)
    h = sc.hand(0, "water6")
    s = sc.state()
    # b2, c2 (north of the two), a1 (west of b1), d1 (east of c1); not a2 (taken), not
    # diagonals (a3/d2 ...)
    assert set(places(s, h)) == {"a1", "b2", "c2", "d1"}


def test_g5_one_card_per_turn() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    h = sc.hand(0, "water6")
    sc.hand(0, "water7")
    s = play(sc.state(), sc, f"place {h} b2 up")
    assert s.active == 1


def test_g5_a_player_without_cards_on_the_grid_restarts_from_its_home_base() -> None:
    sc = Scene()
    sc.grid(1, "b4", "fire5", up=False)
    h = sc.hand(0, "water6")
    assert set(places(sc.state(), h)) == {"a1", "b1", "c1", "d1"}


# --- §9.1.6 faces ---------------------------------------------------------------------------------


def test_g6_faces_home_base_down_touching_up_elsewhere_free() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    sc.grid(0, "b2", "water5")
    sc.grid(1, "a2", "fire5", up=False)
    h = sc.hand(0, "water6")
    p = places(sc.state(), h)
    assert p["c1"] == {"down"}  # own home base, no opponent card next to it
    assert p["a1"] == {"up"}  # home base, but directly next to the opponent's a2
    assert p["b3"] == {"up", "down"}  # elsewhere
    assert p["c2"] == {"up", "down"}


def test_g6_the_opponent_home_base_is_entered_face_up() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    sc.grid(0, "b2", "water5")
    sc.grid(0, "b3", "water5")
    h = sc.hand(0, "water6")
    assert places(sc.state(), h)["b4"] == {"up"}


# --- §9.1.7 values and facing sides ---------------------------------------------------------------


def test_g7_facing_sides_top_against_top_across_the_grid() -> None:
    # player 1's Arrow (top K, others A) placed south of player 0's card: its top faces it
    sc = Scene()
    b1 = sc.grid(0, "b1", "water12")
    h = sc.hand(1, "arrow")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.zone[b1] == Zone.GRAVEYARD and at(s, "b2") == h


def test_g7_a_side_attack_uses_the_side_values() -> None:
    # Arrow placed west of the enemy: player 1's right side faces west... its 1 loses
    sc = Scene()
    sc.grid(1, "c4", "fire2", up=False)
    sc.grid(1, "c3", "fire2")
    sc.grid(0, "b1", "water2", up=False)
    sc.grid(0, "b2", "water2", up=False)
    h = sc.hand(0, "arrow")
    s = play(sc.state(), sc, f"place {h} b3 up")
    assert s.zone[h] == Zone.GRAVEYARD and card_id(s, at(s, "c3")) == "fire2"


def test_g7_a_zero_modifier_makes_every_king_side_worth_zero() -> None:
    sc = Scene()
    sc.modifier(0, "regicide")
    b1 = sc.grid(0, "b1", "water12")
    h = sc.hand(1, "arrow")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.zone[h] == Zone.GRAVEYARD and s.zone[b1] == Zone.GRID


def test_g7_an_element_bonus_modifier_adds_to_every_side() -> None:
    sc = Scene()
    sc.modifier(1, "tide")  # water +1
    b1 = sc.grid(0, "b1", "earth7")  # 7 = 7 would lose on element: earth beats water
    h = sc.hand(1, "water7")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.zone[b1] == Zone.GRAVEYARD


# --- §9.1.8 battles -------------------------------------------------------------------------------


def test_g8_the_higher_side_wins_and_the_loser_goes_to_the_graveyard() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "water9")
    h = sc.hand(1, "fire4")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.zone[h] == Zone.GRAVEYARD and s.zone[b1] == Zone.GRID
    assert s.graves == ((), (h,))


@pytest.mark.parametrize("mine,theirs,loser", [
    ("water7", "fire7", "theirs"), ("fire7", "earth7", "theirs"), ("earth7", "water7", "theirs"),
    ("fire7", "water7", "mine"), ("water7", "water7", None)])
def test_g8_equal_sides_are_settled_by_element(mine: str, theirs: str, loser: str | None
                                               ) -> None:
    sc = Scene()
    t = sc.grid(0, "b1", theirs)
    h = sc.hand(1, mine)
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    gone = {h: "mine", t: "theirs"}
    assert [gone[x] for x in (h, t) if s.zone[x] == Zone.GRAVEYARD] == ([loser] if loser else [])


def test_g8_face_down_neighbours_are_activated_then_battled() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "water3", up=False)
    h = sc.hand(1, "fire9")
    sc.grid(1, "b3", "fire1", up=False)
    s = sc.state(active=1)
    s = step(s, parse_input(f"place {h} b2 up"))
    s = step(s, parse_input(f"reveal {h} fire9"))
    d = pending(s)
    assert d == Pending(DecisionKind.REVEAL, 0, handle=b1)
    s = resolve(s, sc)
    assert s.zone[b1] == Zone.GRAVEYARD


def test_g8_own_face_down_cards_are_not_activated() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "water3", up=False)
    h = sc.hand(0, "fire9")
    s = play(sc.state(), sc, f"place {h} b2 up")
    assert s.zone[b1] == Zone.GRID and not s.up[b1] and s.ident[b1] == -1


def test_g8_several_enemies_are_battled_in_the_order_the_placer_chooses() -> None:
    sc = Scene()
    a2 = sc.grid(0, "a2", "water3")
    c2 = sc.grid(0, "c2", "water9")
    b3 = sc.grid(0, "b3", "water2")
    sc.grid(1, "b1", "fire1", up=False)
    h = sc.hand(1, "water5")
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    d = pending(s)
    assert d == Pending(DecisionKind.CHOICE, 1, "battle-order", (a2, c2, b3))
    # beating a2 first, then losing against c2: b3 is never battled
    s = play(s, sc, f"pick {a2}")
    assert pending(s) == Pending(DecisionKind.CHOICE, 1, "battle-order", (c2, b3))
    s = play(s, sc, f"pick {c2}")
    assert s.zone[a2] == Zone.GRAVEYARD and s.zone[h] == Zone.GRAVEYARD
    assert s.zone[b3] == Zone.GRID


def test_g8_the_other_order_beats_both() -> None:
    sc = Scene()
    a2 = sc.grid(0, "a2", "water3")
    c2 = sc.grid(0, "c2", "water9")
    b3 = sc.grid(0, "b3", "water2")
    sc.grid(1, "b1", "fire1", up=False)
    h = sc.hand(1, "water5")
    s = play(sc.state(active=1), sc, f"place {h} b2 up", f"pick {b3}", f"pick {a2}")
    assert s.zone[a2] == s.zone[b3] == s.zone[h] == Zone.GRAVEYARD and s.zone[c2] == Zone.GRID


# --- §9.1.9 traps ---------------------------------------------------------------------------------


def _trap_scene(trap: str) -> tuple[Scene, int, int, int]:
    sc = Scene()
    t = sc.grid(0, "b1", trap, up=False)
    own = sc.grid(0, "c1", "earth2", up=False)
    h = sc.hand(1, "fire9")
    sc.grid(1, "b3", "fire1", up=False)
    return sc, t, own, h


def test_g9_a_destroy_trap_sends_the_triggering_card_to_the_graveyard() -> None:
    sc, t, _own, h = _trap_scene("pitfall")
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.zone[h] == Zone.GRAVEYARD and s.zone[t] == Zone.GRAVEYARD
    assert s.graves == ((t,), (h,))


def test_g9_a_weaken_trap_lowers_every_side_of_the_triggering_card() -> None:
    sc, t, _own, h = _trap_scene("caltrops")
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.weaken[h] == 2 and s.zone[h] == Zone.GRID and s.zone[t] == Zone.GRAVEYARD


def test_g9_a_bounce_trap_returns_the_card_to_its_player_s_hand() -> None:
    sc, _t, _own, h = _trap_scene("spring")
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.zone[h] == Zone.HAND and s.ctrl[h] == 1 and card_id(s, h) == "fire9"


def test_g9_a_blast_trap_hits_every_neighbour_on_either_side() -> None:
    sc = Scene()
    t = sc.grid(0, "b1", "keg", up=False)
    own = sc.grid(0, "a1", "earth2", up=False)
    h = sc.hand(1, "fire9")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert {s.zone[x] for x in (t, own, h)} == {Zone.GRAVEYARD}
    assert card_id(s, own) == "earth2"  # revealed on its way to the graveyard


# --- §9.1.10 wasted cards -------------------------------------------------------------------------


def test_g10_a_trap_or_item_placed_face_up_is_wasted() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    h = sc.hand(0, "pitfall")
    s = play(sc.state(), sc, f"place {h} b2 up")
    assert s.zone[h] == Zone.GRAVEYARD and s.active == 1


def test_g8_a_wasted_card_placed_face_up_still_activates_face_down_neighbours() -> None:
    # the seed: "Any face down cards are activated if an opponent's card is placed next to
    # it"; the placed trap is wasted, but only after the neighbour has turned face up
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    h = sc.hand(0, "pitfall")
    b3 = sc.grid(1, "b3", "fire9", up=False)
    s = play(sc.state(), sc, f"place {h} b2 up")
    assert s.zone[h] == Zone.GRAVEYARD and s.active == 1
    assert s.up[b3] == 1 and card_id(s, b3) == "fire9" and s.zone[b3] == Zone.GRID


def test_g8_a_wasted_card_triggers_a_face_down_trap_which_acts_on_it() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    item, trap = sc.hand(0, "supply"), sc.grid(1, "b3", "spring", up=False)
    s = play(sc.state(), sc, f"place {item} b2 up")
    # the bounce trap fired on the item, which is back in its player's hand, not wasted
    assert s.zone[trap] == Zone.GRAVEYARD and s.zone[item] == Zone.HAND
    assert s.ctrl[item] == 0 and card_id(s, item) == "supply"
    sc2 = Scene()
    sc2.grid(0, "b1", "water5", up=False)
    item2, trap2 = sc2.hand(0, "supply"), sc2.grid(1, "b3", "caltrops", up=False)
    s2 = play(sc2.state(), sc2, f"place {item2} b2 up")
    assert {s2.zone[item2], s2.zone[trap2]} == {Zone.GRAVEYARD} and s2.weaken[item2] == 0


def test_g10_a_character_used_as_an_item_is_wasted_and_ends_the_turn() -> None:
    sc = Scene()
    h = sc.hand(0, "water5")
    s = play(sc.state(), sc, f"use {h}")
    assert s.zone[h] == Zone.GRAVEYARD and s.active == 1


def test_g10_a_face_down_item_activated_goes_to_the_graveyard() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "supply", up=False)
    h = sc.hand(1, "fire3")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert s.zone[b1] == Zone.GRAVEYARD and s.zone[h] == Zone.GRID


# --- §9.1.11 items --------------------------------------------------------------------------------


def test_g11_turn_draw_replaces_the_placement() -> None:
    sc = Scene()
    h = sc.hand(0, "supply")
    s = play(sc.state(), sc, f"use {h}")
    assert s.active == 1 and len(s.hand(0)) == 2 and s.zone[h] == Zone.GRAVEYARD


def test_g11_turn_destroy_picks_an_opponent_card() -> None:
    sc = Scene()
    a = sc.grid(1, "a4", "fire5", up=False)
    b = sc.grid(1, "b4", "fire6")
    sc.grid(0, "a1", "water1", up=False)
    h = sc.hand(0, "bolt")
    s = play(sc.state(), sc, f"use {h}")
    assert pending(s) == Pending(DecisionKind.CHOICE, 0, "item-target", (a, b))
    s = play(s, sc, f"pick {a}")
    assert s.zone[a] == Zone.GRAVEYARD and card_id(s, a) == "fire5" and s.zone[b] == Zone.GRID


def test_g11_turn_scout_exposes_a_trap_without_effect() -> None:
    sc = Scene()
    t = sc.grid(1, "a4", "pitfall", up=False)
    c = sc.grid(1, "b4", "fire4", up=False)
    h = sc.hand(0, "spyglass")
    s = play(sc.state(), sc, f"use {h}", f"pick {t}")
    assert s.zone[t] == Zone.GRAVEYARD
    s2 = play(sc.state(), sc, f"use {h}", f"pick {c}")
    assert s2.zone[c] == Zone.GRID and s2.up[c] and card_id(s2, c) == "fire4"


def test_g11_turn_double_allows_two_placements_or_an_end() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    h = sc.hand(0, "march")
    x, y = sc.hand(0, "water6"), sc.hand(0, "water7")
    s = play(sc.state(), sc, f"use {h}")
    assert s.active == 0 and s.placements == 2 and "end" in texts(s)
    s = play(s, sc, f"place {x} b2 up")
    assert s.active == 0 and "end" in texts(s)
    s = play(s, sc, f"place {y} b3 up")
    assert s.active == 1


def test_g11_turn_airdrop_places_anywhere_but_the_opponent_home_base() -> None:
    sc = Scene()
    sc.grid(0, "a1", "water5", up=False)
    h = sc.hand(0, "glider")
    x = sc.hand(0, "water6")
    s = play(sc.state(), sc, f"use {h}")
    cells = set(places(s, x))
    assert "d3" in cells and "c2" in cells and not any(c.endswith("4") for c in cells)


def test_g11_free_item_in_own_turn_keeps_the_placement() -> None:
    sc = Scene()
    b = sc.grid(0, "b1", "water5")
    h = sc.hand(0, "bulwark")
    sc.hand(0, "water6")
    s = play(sc.state(), sc, f"use {h}", f"pick {b}")
    assert s.active == 0 and s.shield[b] == 1 and "end" not in texts(s)


def test_g11_free_recall_takes_the_latest_character_from_the_graveyard() -> None:
    sc = Scene()
    sc.grave(0, "water3")
    g2 = sc.grave(0, "water4")
    sc.grave(0, "supply")
    h = sc.hand(0, "medic")
    sc.hand(0, "water6")
    s = play(sc.state(), sc, f"use {h}")
    assert s.zone[g2] == Zone.HAND and s.ctrl[g2] == 0 and card_id(s, g2) == "water4"


def test_g11_a_modifier_stays_in_play_and_reverse_turns_the_element_cycle() -> None:
    sc = Scene()
    m = sc.hand(1, "topsy")
    b1 = sc.grid(0, "b1", "water7")
    h = sc.hand(1, "fire7")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"use {m}")
    assert s.modifiers == (m,) and s.zone[m] == Zone.MODIFIER
    s = play(s, sc, "use " + str(s.hand(0)[0]))  # player 0 wastes a card
    s = play(s, sc, f"place {h} b2 up", "pass")  # player 0 holds cards: its window
    assert s.zone[b1] == Zone.GRAVEYARD  # fire now beats water


# --- §9.1.12 the FREE window ----------------------------------------------------------------------


def test_g12_the_defender_may_boost_before_the_battle() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "water6")
    w = sc.hand(0, "warcry")
    sc.hand(0, "water1")
    h = sc.hand(1, "fire7")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up")
    assert pending(s) == Pending(DecisionKind.CHOICE, 0, "free-window")
    assert texts(s)[:2] == ["pass", f"free {w}"]
    s = play(s, sc, f"free {w}", f"pick {b1}")
    assert pending(s) == Pending(DecisionKind.CHOICE, 0, "free-window")  # reopened
    s = play(s, sc, "pass")
    assert s.zone[h] == Zone.GRAVEYARD and s.zone[b1] == Zone.GRID and s.boost[b1] == 0


def test_g12_a_pass_lets_the_battle_happen() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "water6")
    sc.hand(0, "warcry")
    h = sc.hand(1, "fire7")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up", "pass")
    assert s.zone[b1] == Zone.GRAVEYARD


def test_g12_no_window_without_a_battle() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water6", up=False)
    sc.hand(0, "warcry")
    h = sc.hand(0, "fire7")
    s = play(sc.state(), sc, f"place {h} b2 up")
    assert pending(s) != Pending(DecisionKind.CHOICE, 1, "free-window") and s.active == 1


def test_g12_a_turn_item_in_the_window_is_wasted() -> None:
    sc = Scene()
    b1 = sc.grid(0, "b1", "water6")
    x = sc.hand(0, "supply")
    h = sc.hand(1, "fire7")
    sc.grid(1, "b3", "fire1", up=False)
    s = play(sc.state(active=1), sc, f"place {h} b2 up", f"free {x}")
    assert s.zone[x] == Zone.GRAVEYARD and s.zone[b1] == Zone.GRAVEYARD  # no draw, no window


# --- §9.1.13 winning on the home base -------------------------------------------------------------


def test_g13_a_character_surviving_on_the_opponent_home_base_wins() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    sc.grid(0, "b2", "water5")
    sc.grid(0, "b3", "water5")
    sc.grid(1, "c4", "fire3")
    h = sc.hand(0, "water9")
    s = play(sc.state(), sc, f"place {h} b4 up")
    assert pending(s) == Finished("home-base", 0)


def test_g13_a_character_defeated_there_does_not_win() -> None:
    sc = Scene()
    sc.grid(0, "b1", "water5", up=False)
    sc.grid(0, "b2", "water5")
    sc.grid(0, "b3", "water5")
    sc.grid(1, "c4", "fire12")
    h = sc.hand(0, "water9")
    s = play(sc.state(), sc, f"place {h} b4 up")
    assert not s.finished and s.zone[h] == Zone.GRAVEYARD


# --- §9.1.14 out of cards -------------------------------------------------------------------------


def _endgame(tie: str, mine: int, theirs: int) -> tuple[Scene, object]:
    sc = Scene(tie=tie)
    for k in range(mine):
        sc.grid(0, "abcd"[k] + "1", f"water{k + 2}")
    for k in range(theirs):
        sc.grid(1, "abcd"[k] + "4", f"fire{k + 9}")
    h = sc.hand(0, "supply")
    sc.empty_decks()
    return sc, play(sc.state(), sc, f"use {h}")


def test_g14_when_both_are_out_of_cards_most_cards_on_the_grid_wins() -> None:
    _, s = _endgame("draw", 3, 2)
    assert pending(s) == Finished("most-cards", 0)  # type: ignore[arg-type]


def test_g14_equal_counts_are_a_draw() -> None:
    _, s = _endgame("draw", 2, 2)
    assert pending(s) == Finished("equal-cards", None)  # type: ignore[arg-type]


def test_g14_sudden_death_is_a_chance_over_pairs_of_different_tops() -> None:
    sc, s = _endgame("sudden-death", 2, 2)
    d = pending(s)  # type: ignore[arg-type]
    assert isinstance(d, Pending) and d.kind is DecisionKind.CHANCE
    legal = texts(s)
    # public characters: the 4 on the grid and the fillers (earth1) in the graveyards
    assert d.outcomes == len(legal) > 0
    a, b = (int(x) for x in legal[0].split(" ")[1:])
    s2 = play(s, sc, legal[0])
    top = {h: s.card(h).top for h in (a, b)}  # type: ignore[attr-defined,union-attr]
    assert pending(s2) == Finished("sudden-death", 0 if top[a] > top[b] else 1)
    assert all(s.card(int(t.split()[1])).top != s.card(int(t.split()[2])).top  # type: ignore
               for t in legal)


def test_g14_a_player_with_an_empty_hand_is_skipped() -> None:
    sc = Scene()
    sc.grid(0, "a1", "water2", up=False)
    x = sc.hand(0, "water3")
    sc.hand(0, "water4")
    sc.grid(1, "d4", "fire2", up=False)
    sc.empty_decks()
    s = play(sc.state(), sc, f"place {x} a2 down")
    assert s.active == 0 and s.turn == 2  # player 1 had nothing to play


# --- §9.1.15 turn end ------------------------------------------------------------


def test_g15_end_only_after_acting_and_boosts_expire() -> None:
    sc = Scene()
    b = sc.grid(0, "b1", "water5")
    w = sc.hand(0, "warcry")
    sc.hand(0, "water6")
    s = sc.state()
    assert "end" not in texts(s)
    with pytest.raises(IllegalActionError, match="not a legal input"):
        step(s, parse_input("end"))
    s = play(s, sc, f"use {w}", f"pick {b}")
    assert s.boost[b] == 2 and s.active == 0
    s = play(s, sc, "use " + str(s.hand(0)[0]))
    assert s.active == 1 and s.boost[b] == 0


# --- §9.1.16 inputs of the wrong kind --------------------------------------------------


def test_g16_step_refuses_an_input_of_the_wrong_kind() -> None:
    s = new_game(GridRules(), CAT)
    for text in ("deal 0", "end", "pass", "pick 3", "reveal 0 water1", "duel 1 2"):
        with pytest.raises(IllegalActionError, match="does not answer the pending decision"):
            step(s, parse_input(text))
    s = step(s, parse_input("first 0"))
    with pytest.raises(IllegalActionError, match="not in deck 0"):
        step(s, parse_input("deal 25"))
