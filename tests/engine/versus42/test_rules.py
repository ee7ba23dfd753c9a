# One test (or more) per numbered rule of SPEC.md Part 1; each names its rule.
from __future__ import annotations

import pytest

from versus.engine import IllegalActionError
from versus.engine.versus42 import (
    ActionOrder,
    ChoiceDecision,
    ChoiceKind,
    Deal,
    DealDecision,
    DealPurpose,
    GameResult,
    Outcome,
    Reveal,
    RevealDecision,
    Ruleset,
    TurnDecision,
    default_catalogue,
    first_player,
    layout_tiles,
    legal_actions,
    new_game,
    parse_input,
    step,
)
from versus.engine.versus42.game import ABSORBED, DESTROYED, DISCARDED, FIELD, HAND
from versus.engine.versus42.geometry import STANDARD
from versus.engine.versus42.scene import result_text

from .scenario import Scenario, act, area_of

NEUTRAL = "GGGGG GGGGG GGGGG GGGGB"  # Gray everywhere (no Strength bonus), Blue on e4
CAT = default_catalogue()


def texts(s):
    return {str(a) for a in legal_actions(s)}


# §1.1 goal ------------------------------------------------------------------------------------

def test_r1_1_eliminating_every_enemy_card_wins():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "c2")
    sc.field(1, "shade-mite", "c3")
    sc.empty_deck(0)
    sc.empty_deck(1)
    s = sc.play(sc.start(), "move c2 c3")
    assert s.result == GameResult(Outcome.ELIMINATION, 0)


def test_r1_2_discarded_and_destroyed_cards_are_eliminated():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "ash-whisper", "c2")  # Active: the opponent discards 1
    sc.field(1, "shade-mite", "c4")
    s = sc.start()
    alive = s.alive[1]
    s = sc.play(s, "activate c2")
    assert s.alive[1] == alive - 1
    assert sum(z == DISCARDED for z in s.zone) == 1


# §1.2 cards and setup -------------------------------------------------------------------------

def test_r2_1_every_card_has_energy_strength_active_passive():
    for card in CAT.cards:
        assert card.energy_name in ("light", "dark") and 1 <= card.strength <= 5
        assert card.active.op and card.passive.trigger


def test_r2_2_and_r2_3_opening_deals_hand_size_cards_first_player_first():
    rs = Ruleset(deck_size=21, hand_size=5)
    s = new_game(rs, CAT, b"seed")
    first = s.first
    seen = []
    while isinstance(s.pending, DealDecision):
        p = s.pending.player
        seen.append(p)
        h = next(h for h in s.handles(p) if s.zone[h] == 0)
        s = step(s, Deal(h))
    assert seen == [first] * 5 + [1 - first] * 5
    assert s.hand_n == [5, 5] and s.deck_n == [16, 16]
    assert s.pending == TurnDecision(first)


def test_r2_2_handles_belong_to_their_owner():
    s = new_game(Ruleset(), CAT, b"x")
    assert list(s.handles(0)) == list(range(12)) and list(s.handles(1)) == list(range(12, 24))
    assert s.pending == DealDecision(s.first, DealPurpose.HAND)
    with pytest.raises(IllegalActionError, match="deck"):
        step(s, Deal(next(iter(s.handles(1 - s.first)))))


# §1.3 field -----------------------------------------------------------------------------------

def test_r3_1_sides_and_backlines():
    g = STANDARD
    assert [g.names[i] for i in g.side[0]][:5] == ["a1", "b1", "c1", "d1", "e1"]
    assert all(g.owner[g.index[f"{c}{r}"]] == (0 if r <= 2 else 1) for c in "abcde" for r in
               (1, 2, 3, 4))
    assert g.backline_of[g.index["c1"]] == 0 and g.backline_of[g.index["c4"]] == 1
    assert g.backline_of[g.index["c2"]] == -1


def test_r3_2_tile_counts_and_deterministic_layout():
    rs = Ruleset()
    t1 = layout_tiles(rs, b"abc")
    assert t1 == layout_tiles(rs, b"abc") and t1 != layout_tiles(rs, b"abd")
    assert sorted(t1) == [0] * 8 + [1] * 8 + [2] * 3 + [3]
    rs2 = Ruleset(gray_tiles=1, white_tiles=9, black_tiles=9)
    assert sorted(layout_tiles(rs2, b"abc")).count(2) == 1


def test_r3_3_first_player_is_opposite_the_blue_tile():
    rs = Ruleset()
    for seed in range(20):
        tiles = layout_tiles(rs, bytes([seed]))
        blue_row = tiles.index(3) // 5
        assert first_player(rs, tiles) == (0 if blue_row >= 2 else 1)


def test_r3_4_adjacency_includes_diagonals_not_self():
    g = STANDARD
    adj = {g.names[i] for i in g.adjacent[g.index["b2"]]}
    assert adj == {"a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3"}
    assert {g.names[i] for i in g.adjacent[g.index["a1"]]} == {"b1", "a2", "b2"}


# §1.4 turns -----------------------------------------------------------------------------------

def test_r4_1_turns_alternate():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "a1")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.play(sc.start(), "end")
    assert s.pending == TurnDecision(1) and s.turn == 1


def test_r4_2_at_most_one_action_of_each_type():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "a1")
    sc.field(0, "sun-squire", "c1")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.play(sc.start(), "activate a1")
    assert not any(t.startswith("activate") for t in texts(s))
    with pytest.raises(IllegalActionError, match="activate Action is used"):
        step(s, act("activate c1"))


def test_r4_3_ordered_forbids_going_back_any_allows_it():
    for order, allowed in ((ActionOrder.ORDERED, False), (ActionOrder.ANY, True)):
        sc = Scenario(Ruleset(action_order=order), tiles=NEUTRAL)
        sc.field(0, "zenith-dragon", "a1")
        h = sc.hand(0, "sun-squire")
        sc.field(1, "nadir-dragon", "e4")
        s = sc.play(sc.start(), "activate a1")
        assert (f"summon {h} c1 recto" in texts(s)) is allowed
        if not allowed:
            with pytest.raises(IllegalActionError, match=r"§1.4\.3"):
                step(s, act(f"summon {h} c1 recto"))


def test_r4_4_blue_gives_unlimited_summons_while_a_recto_card_stands_on_it():
    sc = Scenario(tiles="GGGGG GGBGG GGGGG GGGGG")  # Blue on c2
    sc.field(1, "nadir-dragon", "c2")  # an enemy recto card stands on Blue
    hs = [sc.hand(0, "lumen-sprite"), sc.hand(0, "sun-squire"), sc.hand(0, "prism-fox")]
    s = sc.play(sc.start(), f"summon {hs[0]} a1 verso", f"summon {hs[1]} b1 verso")
    assert f"summon {hs[2]} d1 verso" in texts(s)
    # without a recto card on Blue, the second summon is refused
    sc2 = Scenario(tiles="GGGGG GGBGG GGGGG GGGGG")
    sc2.field(1, "nadir-dragon", "c3")
    h2 = [sc2.hand(0, "lumen-sprite"), sc2.hand(0, "sun-squire")]
    s2 = sc2.play(sc2.start(), f"summon {h2[0]} a1 verso")
    assert not any(t.startswith("summon") for t in texts(s2))


def test_r4_4_blue_summons_stay_before_flip_when_ordered():
    sc = Scenario(tiles="GGGGG GGBGG GGWGG GGGGG")
    sc.field(0, "zenith-dragon", "c2")
    sc.field(1, "nadir-dragon", "c3", recto=False)
    h = sc.hand(0, "lumen-sprite")
    s = sc.play(sc.start(), "flip c3")
    assert f"summon {h} a1 verso" not in texts(s)


def test_r4_5_skip_and_automatic_end():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "a1")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.start()
    assert "end" in texts(s)
    s = sc.play(s, "move a1 a2")  # ORDERED: nothing after Move, the turn ends by itself
    assert s.active == 1 and s.pending == TurnDecision(1)


def test_r4_6_no_draw_at_the_start_of_a_turn():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "a1")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.start()
    hands = s.hand_n[:]
    s = sc.play(s, "end", "end")
    assert s.hand_n == hands


# §1.5 actions ---------------------------------------------------------------------------------

def test_r5_1_summon_recto_reveals_verso_hides():
    sc = Scenario(tiles=NEUTRAL)
    a = sc.hand(0, "zenith-dragon")
    b = sc.hand(0, "sun-squire")
    sc.field(1, "nadir-dragon", "e4")
    s = step(sc.start(), act(f"summon {a} b2 recto"))
    assert s.pending == RevealDecision(0, a)
    s = sc.auto(s)
    assert s.public_id(a) == "zenith-dragon" and area_of(s, a) == "b2"
    sc2 = Scenario(Ruleset(action_order=ActionOrder.ANY), tiles=NEUTRAL)
    b = sc2.hand(0, "sun-squire")
    sc2.field(1, "nadir-dragon", "e4")
    s2 = step(sc2.start(), act(f"summon {b} b2 verso"))
    assert s2.pending == TurnDecision(0) and s2.public_id(b) is None and s2.face[b] == 0


def test_r5_1_summon_only_on_own_side_from_own_hand():
    sc = Scenario(tiles=NEUTRAL)
    a = sc.hand(0, "zenith-dragon")
    e = sc.hand(1, "nadir-dragon")
    s = sc.start()
    with pytest.raises(IllegalActionError, match="not on player 0's side"):
        step(s, act(f"summon {a} b3 recto"))
    with pytest.raises(IllegalActionError, match="not in player 0's hand"):
        step(s, act(f"summon {e} b2 recto"))


def test_r5_2_flip_own_or_enemy_gray_protects_from_opponent():
    sc = Scenario(tiles="WWWWW WWWWW GWWWW WWWWB")
    sc.field(0, "zenith-dragon", "a1")
    mine = sc.field(0, "sun-squire", "b1", recto=False)
    sc.field(1, "nadir-dragon", "a3", recto=False)  # on Gray
    theirs = sc.field(1, "night-squire", "b3", recto=False)  # on White
    s = sc.start()
    t = texts(s)
    assert "flip b1" in t and "flip b3" in t and "flip a3" not in t
    with pytest.raises(IllegalActionError, match="Gray"):
        step(s, act("flip a3"))
    s2 = sc.play(s, "flip b3")
    assert s2.face[theirs] == 1 and s2.public_id(theirs) == "night-squire"
    assert s.face[mine] == 0


def test_r5_3_activate_is_reusable_across_turns_and_needs_a_recto_card():
    sc = Scenario(tiles=NEUTRAL)
    z = sc.field(0, "zenith-dragon", "a1")
    sc.field(0, "sun-squire", "c1", recto=False)
    sc.field(1, "nadir-dragon", "e4")
    s = sc.start()
    assert "activate c1" not in texts(s)
    s = sc.play(s, "activate a1", "end", "end")
    assert s.active == 0 and "activate a1" in texts(s)
    assert s.temp[z] == 0


def test_r5_4_move_to_adjacent_even_verso():
    sc = Scenario(tiles=NEUTRAL)
    h = sc.field(0, "zenith-dragon", "b2", recto=False)
    sc.field(1, "nadir-dragon", "e4")
    s = sc.start()
    assert {t for t in texts(s) if t.startswith("move")} == {
        f"move b2 {x}" for x in ("a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3")}
    with pytest.raises(IllegalActionError, match="not adjacent"):
        step(s, act("move b2 d2"))
    s = sc.play(s, "move b2 b3")
    assert area_of(s, h) == "b3" and s.face[h] == 0


# §1.6 backline, discard, draw -----------------------------------------------------------------

def test_r6_1_discard_takes_the_top_deck_card_and_reveals_it():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "ash-whisper", "c2")
    sc.field(1, "nadir-dragon", "e4")
    top = sc.deck(1, "night-squire")
    s = step(sc.start(), act("activate c2"))
    assert s.pending == DealDecision(1, DealPurpose.DISCARD)
    s = step(s, Deal(top))
    assert s.pending == RevealDecision(1, top) and s.zone[top] == DISCARDED
    s = step(s, Reveal(top, "night-squire"))
    assert s.public_id(top) == "night-squire"


def test_r6_1_discard_with_empty_deck_picks_from_hand_then_field():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "ash-whisper", "c2")
    f = sc.field(1, "nadir-dragon", "e4")
    h = sc.hand(1, "night-squire")
    sc.empty_deck(1)
    s = sc.auto(step(sc.start(), act("activate c2")))
    assert s.pending == ChoiceDecision(1, ChoiceKind.DISCARD_FROM_HAND, (h,))
    s = sc.play(s, f"pick {h}", "end")
    # next turn: hand empty too -> a field card
    s = sc.play(s, "end")
    s = sc.auto(step(s, act("activate c2")))
    assert s.pending == ChoiceDecision(1, ChoiceKind.DISCARD_FROM_FIELD, (f,))
    s = sc.play(s, f"pick {f}")
    assert s.result == GameResult(Outcome.ELIMINATION, 0)


def test_r6_2_backline_move_discards_every_time_but_not_teleport():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "glimmer-scout", "b3")  # Active: teleport self
    sc.field(1, "nadir-dragon", "e3")
    s = sc.start()
    s = step(s, act("move b3 b4"))
    assert s.pending == DealDecision(1, DealPurpose.DISCARD)
    s = sc.play(sc.auto(s), "end")  # the turn ended after Move; player 1 passes
    s = step(s, act("move b4 c4"))  # Backline to Backline counts too
    assert s.pending == DealDecision(1, DealPurpose.DISCARD)
    s = sc.play(sc.auto(s), "end")
    alive = s.alive[1]
    s = sc.play(s, "activate c4 a4")  # teleport within the Backline: no discard
    assert s.alive[1] == alive


def test_r6_2_own_backline_move_does_not_discard():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "b2")
    sc.field(1, "nadir-dragon", "e4")
    s = step(sc.start(), act("move b2 b1"))
    assert s.pending == TurnDecision(1)


def test_r6_3_destroyed_card_draws_at_once_even_in_opponents_turn():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "aurora-knight", "b2")  # destroy an adjacent enemy of Strength <= 2
    victim = sc.field(1, "night-squire", "b3")
    nxt = sc.deck(1, "nadir-dragon")
    s = step(sc.start(), act("activate b2 b3"))
    assert s.zone[victim] == DESTROYED
    assert s.pending == DealDecision(1, DealPurpose.HAND)
    s = step(s, Deal(nxt))
    assert s.zone[nxt] == HAND


# §1.7 battles ---------------------------------------------------------------------------------

def test_r7_1_battle_between_allies_destroys_the_weaker_without_absorbing():
    sc = Scenario(tiles=NEUTRAL)
    big = sc.field(0, "zenith-dragon", "b2")
    small = sc.field(0, "lumen-sprite", "b1")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.play(sc.start(), "move b1 b2")
    assert s.zone[small] == DESTROYED and s.stack[big] == () and area_of(s, big) == "b2"


def test_r7_2_location_passive_fires_before_revelation():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "lantern-golem", "b2")  # at Location: destroy the opponent if Strength <= 1
    hidden = sc.field(1, "shade-mite", "b3", recto=False)
    s = sc.play(sc.start(), "move b2 b3")
    # the opponent was verso at Location (its Strength unknown): the Passive cannot apply,
    # so Revelation shows it and Absorption resolves the battle
    assert s.public_id(hidden) == "shade-mite" and s.zone[hidden] == ABSORBED
    sc2 = Scenario(tiles=NEUTRAL)
    g = sc2.field(0, "lantern-golem", "b2")
    mite = sc2.field(1, "shade-mite", "b3")
    s2 = sc2.play(sc2.start(), "move b2 b3")
    assert s2.zone[mite] == DESTROYED and s2.stack[g] == ()  # destroyed by Passive: no absorb


def test_r7_3_revelation_reveals_verso_cards_and_fires_revealed_passives():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "b2")
    scout = sc.field(1, "glimmer-scout", "b3", recto=False)  # revealed: draw 1
    drawn = sc.deck(1, "night-squire")
    s = step(sc.start(), act("move b2 b3"))
    assert s.pending == RevealDecision(1, scout)
    s = step(s, Reveal(scout, "glimmer-scout"))
    assert s.pending == DealDecision(1, DealPurpose.HAND)  # revealed Passive: draw
    s = sc.auto(s)
    assert s.zone[drawn] == HAND


def test_r7_3_revelation_ignores_gray_protection():
    sc = Scenario(tiles="GGGGG GGGGG GGGGG GGGGB")
    sc.field(0, "zenith-dragon", "b2")
    hidden = sc.field(1, "night-squire", "b3", recto=False)
    s = sc.play(sc.start(), "move b2 b3")
    assert s.public_id(hidden) == "night-squire"


def test_r7_4_absorption_and_equal_strength():
    sc = Scenario(tiles=NEUTRAL)
    z = sc.field(0, "zenith-dragon", "b2")
    m = sc.field(1, "shade-mite", "b3")
    s = sc.play(sc.start(), "move b2 b3")
    assert s.zone[m] == ABSORBED and s.stack[z] == (m,) and area_of(s, z) == "b3"
    sc2 = Scenario(tiles=NEUTRAL)
    a = sc2.field(0, "zenith-dragon", "b2")
    b = sc2.field(1, "nadir-dragon", "b3")
    s2 = sc2.play(sc2.start(), "move b2 b3")
    assert s2.zone[a] == DESTROYED and s2.zone[b] == DESTROYED
    assert s2.board[STANDARD.index["b3"]] == -1


def test_r7_5_a_participant_removed_by_a_passive_ends_the_battle():
    sc = Scenario(tiles=NEUTRAL)
    g = sc.field(0, "lantern-golem", "b2")
    mite = sc.field(1, "shade-mite", "b3")
    s = sc.play(sc.start(), "move b2 b3")
    assert s.zone[mite] == DESTROYED and area_of(s, g) == "b3" and s.battle is None


def test_r7_6_teleport_into_an_occupied_area_battles():
    sc = Scenario(tiles=NEUTRAL)
    scout = sc.field(0, "glimmer-scout", "a1")
    z = sc.field(1, "nadir-dragon", "e4")
    s = sc.play(sc.start(), "activate a1 e4")
    assert s.zone[scout] == ABSORBED and s.stack[z] == (scout,)


def test_r7_6_swap_exchanges_areas_without_battle():
    sc = Scenario(tiles=NEUTRAL)
    fox = sc.field(0, "prism-fox", "b2")
    enemy = sc.field(1, "night-squire", "b3")
    s = sc.play(sc.start(), "activate b2 b3")
    assert area_of(s, fox) == "b3" and area_of(s, enemy) == "b2"


# §1.8 absorption levels -----------------------------------------------------------------------

def _leveled(card: str, level: int, area: str = "b2") -> tuple[Scenario, int]:
    sc = Scenario(tiles=NEUTRAL)
    h = sc.field(0, card, area)
    for _ in range(level):
        sc.absorbed("ash-whisper", into=h)
    return sc, h


def test_r8_2_absorbed_actives_can_be_used():
    sc, _h = _leveled("zenith-dragon", 1)
    sc.field(1, "nadir-dragon", "e4")
    s = sc.start()
    assert "activate b2/1" in texts(s)  # ash-whisper: the opponent discards 1
    s = step(s, act("activate b2/1"))
    assert s.pending == DealDecision(1, DealPurpose.DISCARD)
    with pytest.raises(IllegalActionError, match="absorbed"):
        step(sc.start(), act("activate b2/2"))


def test_r8_3_level_two_is_immune_to_passive_destruction():
    # a Strength-1 card moves into a Lantern Golem, whose Location Passive destroys a
    # Strength <= 1 opponent: at level 2 the Passive fails and the battle absorbs it instead
    for level, fate in ((0, DESTROYED), (2, ABSORBED)):
        sc, h = _leveled("shade-mite", level, "b3")
        golem = sc.field(1, "lantern-golem", "b4")
        s = sc.play(sc.start(), "move b3 b4")
        assert s.zone[h] == fate
        assert (h in s.stack[golem]) is (fate == ABSORBED)


def test_r8_4_level_three_is_immune_to_active_destruction():
    sc, _h = _leveled("shade-mite", 3, "b3")
    sc.active = 1
    # player 1 has the knight adjacent; the leveled mite belongs to player 0
    sc.field(1, "void-knight", "b4")
    s = sc.start()
    assert "activate b4 b3" not in texts(s)
    sc2, _h2 = _leveled("shade-mite", 2, "b3")
    sc2.active = 1
    sc2.field(1, "void-knight", "b4")
    assert "activate b4 b3" in texts(sc2.start())


def test_r8_5_fourth_absorption_wins():
    sc, _h = _leveled("zenith-dragon", 3)
    sc.field(1, "shade-mite", "b3")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.play(sc.start(), "move b2 b3")
    assert s.result == GameResult(Outcome.ABSORPTION, 0)
    # said from each side: the loser's cards are eliminated (before: "all the opponent's
    # cards" to the loser too)
    assert result_text(s, 1).endswith("(level 4 eliminates all your cards).")
    assert result_text(s, 0).endswith("(level 4 eliminates all the opponent's cards).")
    assert result_text(s, None).endswith("(level 4 eliminates all player 2's cards).")


# §1.9 strength and abilities ------------------------------------------------------------------

def test_r9_1_verso_cards_have_no_working_passive():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "b2")
    sc.field(1, "night-squire", "b3", recto=False)  # adjacent verso enemy
    s = sc.start()
    # the verso card's Active is not usable and its identity is unknown to the engine
    assert s.public_id(s.board[STANDARD.index["b3"]]) is None


def test_r9_2_white_and_black_bonus_only_recto_and_live():
    sc = Scenario(tiles="WKWKW KWKWK GGGGG GGGGB")
    light = sc.field(0, "lumen-sprite", "a1")  # White
    dark = sc.field(0, "shade-mite", "b1")  # Black (a dark card of player 0, for the test)
    s = sc.start()
    assert s.strength(light) == 2 and s.strength(dark) == 2
    s = sc.play(s, "move a1 a2")  # a2 is Black: a Light card gets nothing
    assert s.strength(light) == 1


def test_r9_3_increase_lasts_until_end_of_turn_and_continuous_is_live():
    sc = Scenario(tiles=NEUTRAL)
    sq = sc.field(0, "sun-squire", "b2")
    wisp = sc.field(0, "halo-wisp", "d2")  # +1 while adjacent to an ally
    sc.field(1, "nadir-dragon", "e4")
    s = sc.play(sc.start(), "activate b2")
    assert s.strength(sq) == 4 and s.strength(wisp) == 1
    s = sc.play(s, "move b2 c2")
    assert s.strength(wisp) == 2  # now adjacent: live
    assert s.strength(sq) == 2  # the turn ended: the Increase expired


def test_r9_4_destroyed_passive_and_adjacent_weakest_target():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "crown-lion", "b2")  # destroy adjacent enemy <= 3
    w = sc.field(1, "ash-whisper", "b3")  # destroyed: the opponent discards 1
    top = sc.deck(0, "sun-squire")
    s = step(sc.start(), act("activate b2 b3"))
    s = sc.auto(s)
    assert s.zone[w] == DESTROYED and s.zone[top] == DISCARDED
    # adjacent_weakest: a battle next to the Eclipse Arbiter destroys the weakest enemy near it
    sc2 = Scenario(tiles=NEUTRAL)
    sc2.field(1, "eclipse-arbiter", "c3")
    weak = sc2.field(0, "lumen-sprite", "d2")
    sc2.field(0, "sun-squire", "b2")
    sc2.field(0, "zenith-dragon", "a1")
    s2 = sc2.play(sc2.start(), "move a1 b2")
    assert s2.zone[weak] == DESTROYED


def test_r9_5_copy_uses_another_recto_cards_active_as_its_own():
    sc = Scenario(tiles=NEUTRAL)
    wisp = sc.field(0, "halo-wisp", "a1")
    sc.field(1, "glimmer-scout", "e4")  # Active: teleport this card
    s = sc.start()
    assert "activate a1 e4 c2" in texts(s)
    s = sc.play(s, "activate a1 e4 c2")
    assert area_of(s, wisp) == "c2"
    assert not any(t.startswith("activate a1 a1") for t in texts(s))


# §1.10 end of the game ------------------------------------------------------------------------

def test_r10_2_simultaneous_elimination_is_a_draw():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "b2")
    sc.field(1, "nadir-dragon", "b3")
    sc.empty_deck(0)
    sc.empty_deck(1)
    s = sc.play(sc.start(), "move b2 b3")
    assert s.result == GameResult(Outcome.MUTUAL_ELIMINATION, None)


def test_r10_3_turn_limit_counts_remaining_cards():
    sc = Scenario(Ruleset(max_turns=1), tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "b2")
    sc.field(1, "nadir-dragon", "d4")
    sc.empty_deck(1)
    s = sc.play(sc.start(), "end", "end")
    assert s.result == GameResult(Outcome.TURN_LIMIT, 0)


def test_r10_4_no_input_after_the_end():
    sc = Scenario(Ruleset(max_turns=1), tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "b2")
    sc.field(1, "nadir-dragon", "d4")
    s = sc.play(sc.start(), "end", "end")
    from versus.engine import GameOverError
    with pytest.raises(GameOverError):
        step(s, parse_input("end"))
    assert s.result is not None and s.result.winner is None


def test_errors_name_the_input_and_the_position():
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "b2")
    s = sc.start()
    with pytest.raises(IllegalActionError) as e:
        step(s, act("move b2 e4"))
    assert "'move b2 e4'" in str(e.value) and "turn 1" in str(e.value)
    with pytest.raises(IllegalActionError, match="is not an area of the field"):
        step(s, act("move b2 b9"))
    with pytest.raises(IllegalActionError, match="does not answer"):
        step(s, act("pick 3"))
    assert s.zone[s.board[STANDARD.index["b2"]]] == FIELD


# step trusts only the state's own legal list ---------------------------------------------------

def test_step_checks_an_action_added_to_a_returned_legal_list():
    """`step` applies an action its state listed without re-checking it: the list a caller
    gets is a copy, so an illegal action added to it is still refused."""
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "zenith-dragon", "a1")
    sc.field(0, "sun-squire", "c1")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.play(sc.start(), "activate a1")
    legal = legal_actions(s)
    legal.append(act("activate c1"))
    assert act("activate c1") not in legal_actions(s)
    with pytest.raises(IllegalActionError, match="activate Action is used"):
        step(s, act("activate c1"))


def test_step_applies_the_engine_twin_of_a_listed_action():
    """An action equal to a listed one (a bool field given as 1) is the listed action."""
    sc = Scenario(tiles=NEUTRAL)
    h = sc.hand(0, "sun-squire")
    sc.field(1, "nadir-dragon", "e4")
    s = sc.start()
    listed = next(a for a in legal_actions(s) if a.handle == h and a.recto and a.area == "b1")
    twin = tuple.__new__(type(listed), (*listed[:4], 1, *listed[5:]))
    assert twin == listed
    assert sc.auto(step(s, twin)).face == sc.auto(step(s, listed)).face
