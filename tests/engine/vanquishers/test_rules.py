# One or more tests per numbered rule of SPEC Part 10 (§10.2.1–10.1.8), on scenes built card by card
# (tests/engine/vanquishers/scene.py) with the dice the rule needs.
from __future__ import annotations

import json

import pytest

from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.errors import CatalogueError, IllegalActionError, RulesetError
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers import DeckError, starter_deck, validate_deck
from versus.engine.vanquishers.cards import CardType, Subtype, load_catalogue, rules_text
from versus.engine.vanquishers.engine import S, Zone
from versus.engine.vanquishers.rules import Mode, Rules

from .scene import CAT, Scene

# --- §10.2.1 rules options ------------------------------------------------------------------------


def test_v1_rules_round_trip_and_refuse_bad_options() -> None:
    rules = G.rules_from_options({"deck_size": 45, "mode": "advanced", "hero0": "zeta-hollow"})
    assert G.decode_rules(G.encode_rules(rules)) == rules
    assert G.rules_from_options(G.rules_to_options(rules)) == rules
    assert "advanced mode, decks of 45" in G.describe_rules(rules)
    with pytest.raises(RulesetError, match="deck_size=29"):
        G.rules_from_options({"deck_size": 29})
    with pytest.raises(RulesetError, match="unknown vanquishers option"):
        G.rules_from_options({"colour": 1})
    with pytest.raises(RulesetError, match="hero1='nobody'"):
        G.rules_from_options({"hero1": "nobody"})
    with pytest.raises(RulesetError, match="not canonical"):
        G.decode_rules(G.encode_rules(rules).replace(b",", b", "))
    assert G.decks(rules)[1].first == 45 and G.decks(rules)[0].owner == 0


# --- §10.2.2 catalogue ----------------------------------------------------------------------------


def test_v2_catalogue_has_every_type_and_rules_text() -> None:
    types = {c.type for c in CAT.cards}
    assert types == set(CardType)
    assert len(CAT.heroes) >= 4
    assert {c.subtype for c in CAT.cards if c.subtype} == set(Subtype)
    assert all(rules_text(c) for c in CAT.cards)
    assert "Cost" not in rules_text(CAT.heroes[0])
    assert set(G.card_ids(CAT)).isdisjoint(h.id for h in CAT.heroes)


@pytest.mark.parametrize("change, message", [
    (lambda c: c["cards"][0].update(life=0), "field 'life'"),
    (lambda c: c["cards"][4].update(target="x"), "'rail-pistol': field 'target'"),
    (lambda c: c["cards"][4].update(colour=1), "field 'colour': not a field"),
    (lambda c: c["cards"][4].pop("ammo"), "field 'ammo': missing"),
    (lambda c: c["cards"][5].update(id="rail-pistol"), "appears more than once"),
    (lambda c: c.update(format="x"), "field 'format'"),
    (lambda c: c["cards"][30].update(effect="jam"), "field 'effect'"),
])
def test_v2_loader_names_the_bad_field(change, message) -> None:  # type: ignore[no-untyped-def]
    data = json.loads((__import__("importlib.resources").resources.files(
        "versus.engine.vanquishers") / "data/cards.json").read_text())
    change(data)
    with pytest.raises(CatalogueError, match=message):
        load_catalogue(json.dumps(data))


# --- §10.2.3 deck building ------------------------------------------------------------------------


@pytest.mark.parametrize("hero", [h.id for h in CAT.heroes])
@pytest.mark.parametrize("size", [30, 45, 70])
def test_v3_starter_decks_are_legal(hero: str, size: int) -> None:
    validate_deck(CAT, hero, starter_deck(CAT, hero, size), size)


def test_v3_deck_validator_errors() -> None:
    deck = list(starter_deck(CAT, "kael-ironvow", 30))
    with pytest.raises(DeckError, match=r"30\.\.70 cards, this one 29"):
        validate_deck(CAT, "kael-ironvow", deck[:-1])
    with pytest.raises(DeckError, match="fix the deck size at 40"):
        validate_deck(CAT, "kael-ironvow", deck, 40)
    with pytest.raises(DeckError, match="'rail-pistol': 6 copies, at most 4"):
        validate_deck(CAT, "kael-ironvow", deck[:-5] + ["rail-pistol"] * 5)
    with pytest.raises(DeckError, match="'sunlance': 3 copies, at most 1 of a unique"):
        validate_deck(CAT, "kael-ironvow", deck[:-2] + ["sunlance"] * 2)
    with pytest.raises(DeckError, match="'void-sigil' cannot be used by hero 'kael-ironvow'"):
        validate_deck(CAT, "kael-ironvow", [*deck[:-1], "void-sigil"])
    with pytest.raises(DeckError, match="is a hero"):
        validate_deck(CAT, "kael-ironvow", [*deck[:-1], "nyra-vale"])
    with pytest.raises(DeckError, match="not in the catalogue"):
        validate_deck(CAT, "kael-ironvow", [*deck[:-1], "nothing"])
    validate_deck(CAT, "kael-ironvow", deck[:-10] + ["kinetic-rounds"] * 10)  # ammo: no limit


def test_v3_a_fifth_copy_revealed_is_refused() -> None:
    s = Scene(hands=[["focused-strike"] * 5, []], storage=(20, 0))
    for h in range(4):
        s.do(f"play {h}")
    state = G.step(s.state, G.parse_input("play 4"))
    with pytest.raises(IllegalActionError, match="5 copies of 'focused-strike', at most 4"):
        G.step(state, G.reveal_input(4, "focused-strike"))


# --- §10.1.1 setup --------------------------------------------------------------------------------


def _start(rolls: list[int]) -> object:
    state = G.new_game(Setup(Rules(), CAT, b"s"))
    for r in rolls:
        assert G.decision(state).kind is DecisionKind.CHANCE
        state = G.step(state, G.legal_actions(state)[r - 1])
    return state


def test_v4_highest_die_plays_first_and_ties_roll_again() -> None:
    state = _start([2, 5])
    assert state.first == 1 and G.decision(state) == G.decision(state)
    d = G.decision(state)
    assert d.kind is DecisionKind.DEAL and d.player == 1 and d.deck == 1
    state = _start([4, 4])
    assert state.first == -1 and G.decision(state).kind is DecisionKind.CHANCE
    state = _start([4, 4, 6, 1])
    assert state.first == 0


def test_v4_seven_cards_each_first_player_first() -> None:
    state = _start([6, 1])
    dealt = []
    for _ in range(14):
        d = G.decision(state)
        dealt.append(d.player)
        state = G.step(state, G.deal_input(state.handles(d.player, Zone.DECK)[0]))
    assert dealt == [0] * 7 + [1] * 7
    # then the first player's turn: step 1 has nothing to recover, so its draw comes at once
    d = G.decision(state)
    assert d.kind is DecisionKind.DEAL and d.player == 0


# --- §10.1.2 storage energy -----------------------------------------------------------------------


def test_v5_exile_gains_energy_activation_spends_it_for_the_turn_only() -> None:
    s = Scene(hands=[["focused-strike", "field-medic", "supply-drop"], []], phase=3,
              storage=(2, 0))
    s.do("exile 2")
    assert s.side(0)[S.STORAGE] == 3 and s.zone(2) is Zone.EXILE
    assert s.state.public_card(2).id == "supply-drop"  # an exiled card is public
    s.do("play 0")
    assert s.side(0)[S.SPENT] == 2 and s.side(0)[S.STORAGE] == 3
    assert "play 1" in s.legal()  # publicly listed: its identity is hidden
    view = G.view(s.state, 0, G.new_knowledge(0))
    view.knowledge.learn(1, "field-medic")
    assert "play 1" not in [G.format_input(m) for m in G.view(s.state, 0, view.knowledge)
                            .useful_actions]  # 1 left, Field Medic costs 2
    s.do("end")
    assert s.state.active == 1


def test_v5_energy_restored_at_the_next_turn() -> None:
    s = Scene(hands=[["focused-strike"], []], storage=(3, 0))
    s.do("play 0")
    assert s.side(0)[S.SPENT] == 2
    s.do("end")
    # the opponent's turn passes (it has nothing to do), then ours starts with 3 again
    s.state = s.state
    while s.state.active == 1 and not isinstance(s.decision, Finished):
        s.do("end") if "end" in s.legal() else s.do(s.legal()[-1])
    assert s.side(0)[S.SPENT] == 0 and s.side(0)[S.STORAGE] == 3


# --- §10.1.3 turn steps ---------------------------------------------------------------------------


def test_v6_recover_is_step_one_only_and_spends_energy_for_good() -> None:
    s = Scene(phase=1, storage=(2, 0), hands=[["focused-strike"], []],
              sides={0: {S.SHIELD: 3}})
    assert s.legal() == ["recover", "next"]
    s.do("recover")
    assert s.side(0)[S.SHIELD] == 6 and s.side(0)[S.STORAGE] == 1
    assert s.state.phase >= 3  # the draw came after: no take backs


def test_v6_draw_two_with_v_trigger_hand_limit_and_decking_cost_life() -> None:
    s = Scene(phase=1, hands=[["kinetic-rounds"] * 8, []], storage=(0, 0))
    assert s.side(0)[S.LIFE] == 19  # hand of 8: the card cannot be drawn
    s = Scene(phase=1, hands=[["kinetic-rounds"] * 7, []], sides={0: {S.VT: 1}})
    assert s.side(0)[S.LIFE] == 19 and len(s.hand(0)) == 8  # V-Trigger: 2 draws, 1 fits
    s = Scene(phase=1, hands=[["kinetic-rounds"] * 2, []], deck_size=30)
    assert len(s.hand(0)) == 3  # drew one
    # an empty deck: every handle of player 0 placed in hand or discard
    s = Scene(phase=1, hands=[["kinetic-rounds"] * 7, []], deck_size=30)
    st = s.state
    zone = list(st.zone)
    for h in range(30):
        if zone[h] == Zone.DECK:
            zone[h] = Zone.DISCARD
    st2 = st.__class__(**{**st.__dict__, "zone": tuple(zone), "phase": 7,
                          "tasks": ((3,),), "active": 0})
    from versus.engine.vanquishers.engine import _run, _Work
    w = _Work(st2)
    _run(w)
    assert w.sides[0][S.LIFE] == st.sides[0][S.LIFE] - 1


def test_v6_end_only_after_the_draw_and_steps_in_order() -> None:
    s = Scene(phase=1, storage=(1, 0), hands=[["focused-strike"], []],
              sides={0: {S.SHIELD: 1}})
    assert "end" not in s.legal()
    s.do("next")
    assert s.state.phase == 3 and "recover" not in s.legal()
    s.do("exile 1")
    assert s.state.phase == 5  # step 4: no V-Trigger affordable, passed by itself


def test_v6_one_exile_two_with_v_trigger() -> None:
    s = Scene(phase=3, hands=[["kinetic-rounds"] * 4, []])
    s.do("exile 0")
    assert not any(a.startswith("exile") for a in s.legal())
    s = Scene(phase=3, hands=[["kinetic-rounds"] * 4, []])
    sides = list(s.state.sides[0])
    sides[S.VT] = 1
    s.state = s.state.__class__(**{**s.state.__dict__, "sides": (tuple(sides),
                                                                s.state.sides[1])})
    s.do("exile 0")
    assert any(a.startswith("exile") for a in s.legal())


def test_v6_wrong_kind_of_input_is_refused() -> None:
    s = Scene(hands=[["focused-strike"], []], storage=(2, 0))
    with pytest.raises(IllegalActionError, match="does not answer the pending decision"):
        G.step(s.state, G.parse_input("roll 3"))
    with pytest.raises(IllegalActionError, match="does not answer"):
        G.step(s.state, G.deal_input(5))
    state = G.step(s.state, G.parse_input("play 0"))
    with pytest.raises(IllegalActionError, match="does not answer"):
        G.step(state, G.parse_input("next"))
    with pytest.raises(IllegalActionError, match="the reveal awaited is of card 0"):
        G.step(state, G.reveal_input(1, "focused-strike"))


# --- §10.1.4 V-Trigger ----------------------------------------------------------------------------


def test_v7_v_trigger_costs_energy_for_good_and_boosts() -> None:
    s = Scene(phase=4, storage=(5, 0), hands=[["focused-strike"], []])
    assert "vtrigger" in s.legal()
    s.do("vtrigger")
    side = s.side(0)
    assert side[S.VT] == 1 and side[S.STORAGE] == 1
    assert side[S.LIFE] == 22 and side[S.SHIELD] == 10  # Kael: +2 Life, +2 Shield


# --- §10.1.5 activation ---------------------------------------------------------------------------


def test_v8_a_card_that_cannot_be_activated_fizzles_and_stays_public() -> None:
    s = Scene(hands=[["kinetic-rounds", "focused-strike"], []], storage=(0, 0))
    s.do("play 0")  # ammunition without a weapon
    assert s.zone(0) is Zone.HAND and s.state.public_card(0).id == "kinetic-rounds"
    assert "play 0" not in s.legal()


def test_v8_weapon_ammo_and_slots_and_replace_cost() -> None:
    s = Scene(hands=[["storm-rifle", "rail-pistol"], []], storage=(9, 0),
              boards=[["twin-smg", "frost-cleaver"], []])
    s.do("play 1")  # rail pistol costs 1 < both equipped: no weapon can be replaced
    assert s.zone(1) is Zone.HAND
    s.do("play 0")
    d = s.decision
    assert d.kind is DecisionKind.CHOICE and d.label == "replace-weapon" and d.options == (2, 3)
    s.do("pick 2")
    assert s.zone(2) is Zone.DISCARD and s.zone(0) is Zone.BOARD


def test_v8_switching_keeps_ammo_of_the_same_kind() -> None:
    s = Scene(hands=[["storm-rifle"], []], storage=(9, 0),
              boards=[["twin-smg", "kinetic-rounds", "ion-blade"], []])
    s.do("play 0", "pick 1")
    assert s.state.host[2] == 0 and s.zone(2) is Zone.BOARD


def test_v8_same_name_limits_armor_switch_vitality() -> None:
    s = Scene(hands=[["mending-rift", "scout-vest", "iron-will", "iron-will"], []],
              boards=[["mending-rift", "plated-harness"], []], storage=(20, 0))
    s.do("play 0")
    assert s.zone(0) is Zone.HAND  # a second Mending Rift cannot be active
    s.do("play 1")
    assert s.zone(5) is Zone.DISCARD and s.zone(1) is Zone.BOARD  # armor switched
    s.do("play 2")
    assert s.side(0)[S.LIFE] == 22
    s.do("play 3")
    assert s.zone(3) is Zone.HAND


def test_v8_rift_once_per_turn() -> None:
    s = Scene(boards=[["mending-rift"], []], storage=(3, 0))
    sides = list(s.state.sides[0])
    sides[S.SHIELD] = 2
    s.state = s.state.__class__(**{**s.state.__dict__, "sides": (tuple(sides),
                                                                s.state.sides[1])})
    s.do("rift 0")
    assert s.side(0)[S.SHIELD] == 4 and "rift 0" not in s.legal()


def test_v8_traps_spring_on_a_weapon_attack_and_decoys_do_nothing() -> None:
    s = Scene(hands=[[], ["tripwire", "focused-strike"]], storage=(0, 4), active=1,
              boards=[["rail-pistol", "kinetic-rounds"], []])
    s.do("trap 30 1", "trap 31 1", "end")
    assert s.zone(30) is Zone.TRAP and s.state.card[30] == -1  # face down, hidden
    while s.state.active != 0 or s.state.phase != 6:
        s.do(s.legal()[0] if s.state.phase == 6 else "next")
    s.do("target 0")
    d = s.decision
    assert d.kind is DecisionKind.CHOICE and d.label == "spring-trap" and d.options == (30, 31)
    life = s.side(0)[S.SHIELD] + s.side(0)[S.LIFE]
    s.dice = [1, 1]
    s.do("pick 30")
    assert s.state.public_card(30).id == "tripwire" and s.zone(30) is Zone.DISCARD
    assert s.side(0)[S.SHIELD] + s.side(0)[S.LIFE] == life - 2


def test_v8_jam_cancels_and_decoy_is_discarded() -> None:
    s = Scene(hands=[[], ["emp-mine", "focused-strike"]], storage=(0, 4), active=1,
              boards=[["rail-pistol", "kinetic-rounds"], []])
    s.do("trap 30 2", "trap 31 2", "end")
    while s.state.active != 0 or s.state.phase != 6:
        s.do("next")
    s.do("target 0", "pick 31")
    assert s.zone(31) is Zone.DISCARD and G.decision(s.state).kind is DecisionKind.CHANCE
    s = Scene(hands=[[], ["emp-mine"]], storage=(0, 4), active=1,
              boards=[["rail-pistol", "kinetic-rounds"], []])
    s.do("trap 30 2", "end")
    while s.state.active != 0 or s.state.phase != 6:
        s.do("next")
    s.do("target 0", "pick 30")
    assert G.decision(s.state).kind is not DecisionKind.CHANCE  # the attack was cancelled


# --- §10.1.6 targeting ----------------------------------------------------------------------------


def _attack(board0, board1, dice, hero1="nyra-vale", **kw):  # type: ignore[no-untyped-def]
    s = Scene(boards=[board0, board1], phase=6, hero1=hero1, **kw)
    s.dice = list(dice)
    return s


def test_v9_hit_when_dice_plus_target_meet_defense() -> None:
    # Rail Pistol target 3; Nyra defense 11: 4+4+3 = 11 hits, 4+3+3 = 10 misses
    s = _attack(["rail-pistol", "kinetic-rounds"], [], [4, 4]).do("target 0")
    assert s.side(1)[S.SHIELD] == 8
    s = _attack(["rail-pistol", "kinetic-rounds"], [], [4, 3]).do("target 0")
    assert s.side(1)[S.SHIELD] == 10


def test_v9_red_die_ability_and_damage_order() -> None:
    s = _attack(["rail-pistol", "kinetic-rounds"], [], [5, 6]).do("target 0")
    assert s.side(1)[S.SHIELD] == 7  # 2 + 1 kinetic (red 6)


def test_v9_shield_damage_never_reaches_life_kinetic_does() -> None:
    s = _attack(["quake-knuckles", "energy-cartridge"], [], [6, 6, 6, 6],
                hero0="brum-stonefist")
    sides = list(s.state.sides[1])
    sides[S.SHIELD] = 1
    s.state = s.state.__class__(**{**s.state.__dict__, "sides": (s.state.sides[0],
                                                                tuple(sides))})
    s.do("target 0")
    assert s.side(1)[S.SHIELD] == 0 and s.side(1)[S.LIFE] == 16  # 2 shield (1 used), 2 kinetic
    s.do("target 0")  # dual wield: a second target this turn
    assert s.side(1)[S.LIFE] == 14


def test_v9_armor_resistance_and_durability() -> None:
    s = _attack(["rail-pistol", "kinetic-rounds"], ["plated-harness"], [6, 5])
    assert s.side(1)[S.SHIELD] == 12
    s.do("target 0")
    assert s.side(1)[S.SHIELD] == 11  # 2 kinetic - 1 resistance
    assert s.state.aux[30] == 2


def test_v9_counter_attack_on_a_miss() -> None:
    s = _attack(["rail-pistol", "kinetic-rounds"], ["ion-blade"], [1, 1])
    s.do("target 0")
    assert s.side(0)[S.SHIELD] == 7


def test_v9_turn_ends_after_every_weapon_targeted() -> None:
    s = _attack(["rail-pistol", "kinetic-rounds"], [], [1, 1]).do("target 0")
    assert s.state.active == 1


def test_v9_a_weapon_without_its_ammo_cannot_target() -> None:
    s = Scene(boards=[["storm-rifle", "kinetic-rounds"], []], phase=6, storage=(0, 0))
    assert not any(a.startswith("target") for a in s.legal())


# --- §10.1.7 end of the game ----------------------------------------------------------------------


def test_v10_life_zero_loses_even_with_shield() -> None:
    s = _attack(["rail-pistol", "kinetic-rounds"], [], [6, 6])
    sides = list(s.state.sides[1])
    sides[S.LIFE], sides[S.SHIELD] = 1, 0
    s.state = s.state.__class__(**{**s.state.__dict__, "sides": (s.state.sides[0],
                                                                tuple(sides))})
    s.do("target 0")
    assert G.decision(s.state) == Finished("defeat", 0)


def test_v10_turn_limit() -> None:
    s = Scene(max_turns=1, hands=[["focused-strike"], []], storage=(2, 0))
    s.do("play 0", "end")
    while not isinstance(s.decision, Finished):
        s.do(s.legal()[-1])
    assert s.decision == Finished("turn-limit", 0)


# --- §10.1.8 Advanced Mode ------------------------------------------------------------------------


def test_v11_energy_class_weakness_and_conditions() -> None:
    # Nyra's class in Advanced: arc (weak to solar). Sunlance: 3 kinetic + 2 solar (+2 weak)
    s = Scene(mode=Mode.ADVANCED, boards=[["sunlance", "kinetic-rounds", "kinetic-rounds",
                                           "kinetic-rounds"], []], phase=6)
    s.dice = [6, 4]
    shield = s.side(1)[S.SHIELD]
    assert shield == 12  # 10 + 2 for the Arc Class
    s.do("target 0")
    assert s.side(1)[S.SHIELD] == shield - 7 - 1  # and 1 Burn damage at its turn's start
    assert s.side(1)[S.BURN] == 1  # red 4+: Burn


def test_v11_standard_mode_has_no_classes_or_mods() -> None:
    s = Scene(hands=[["long-barrel", "tech-class"], []], boards=[["rail-pistol"], []],
              storage=(5, 0))
    s.do("play 0", "play 1")
    assert s.zone(0) is Zone.HAND and s.zone(1) is Zone.HAND
    s = Scene(mode=Mode.ADVANCED, hands=[["long-barrel", "solar-class"], []],
              boards=[["rail-pistol"], []], storage=(5, 0))
    s.do("play 0", "play 1")
    assert s.state.host[0] == 2 and s.side(0)[S.ECLASS] == CAT.index("solar-class")


def test_v11_glitch_curse_frozen() -> None:
    s = Scene(mode=Mode.ADVANCED, phase=3, hands=[["kinetic-rounds"], []], storage=(3, 0),
              boards=[["rail-pistol", "kinetic-rounds"], []])
    sides = list(s.state.sides[0])
    sides[S.GLITCH] = sides[S.CURSE] = sides[S.FROZEN] = 1
    s.state = s.state.__class__(**{**s.state.__dict__, "sides": (tuple(sides),
                                                                s.state.sides[1])})
    from versus.engine.vanquishers.engine import _run, _Work
    w = _Work(s.state)
    _run(w)
    s.state = w.freeze()
    assert s.state.phase == 5 and s.legal() == ["play 0", "next", "end"]  # no exile, no trap
    s.do("next")
    assert s.state.active == 1  # frozen: no target


def test_v3_a_card_the_hero_may_not_use_never_activates() -> None:
    s = Scene(hands=[["void-sigil"], []], storage=(5, 0))  # Kael: no critical art weapons
    s.do("play 0")
    assert s.zone(0) is Zone.HAND and "play 0" not in s.legal()


# --- §10.3 narration ------------------------------------------------------------------------------


def test_v13_narration_names_a_hidden_card_only_to_its_owner() -> None:
    s = Scene(hands=[[], ["tripwire"]], storage=(0, 2), active=1)
    before = s.state
    after = G.step(before, G.parse_input("trap 30 1"))
    mine = G.new_knowledge(1)
    mine.learn(30, "tripwire")
    assert "Tripwire" not in " ".join(G.narrate(before, G.parse_input("trap 30 1"), after, 0,
                                                G.new_knowledge(0)))
    assert "set a trap face down (1 Storage Energy)" in " ".join(
        G.narrate(before, G.parse_input("trap 30 1"), after, 1, mine))
    start = G.new_game(Setup(Rules(), CAT, b"s"))
    assert "highest plays first" in " ".join(G.narrate_start(start, 0))


def test_v8_a_face_down_trap_named_as_a_face_up_one_is_a_decoy_not_a_refused_reveal() -> None:
    """The legal list offers `trap h c` for a hidden card; when it springs and turns out to be
    named as a trap set face up, its true reveal is accepted and it is a decoy (§10.1.5.6)."""
    s = Scene(hands=[[], ["tripwire", "tripwire"]], storage=(0, 4), active=1,
              boards=[["rail-pistol", "kinetic-rounds"], []])
    s.do("play 30")  # a trap played face up fizzles: now public in the hand (§10.1.5.2)
    assert s.state.public_card(30).id == "tripwire" and s.zone(30) is Zone.HAND
    assert "trap 30 1" in s.legal() and "trap 31 1" in s.legal()
    s.do("trap 30 1", "trap 31 1", "end")
    while s.state.active != 0 or s.state.phase != 6:
        s.do("next")
    s.do("target 0")
    life = s.side(0)[S.SHIELD] + s.side(0)[S.LIFE]
    s.dice = [1, 1]
    s.do("pick 31")  # reveal 31 tripwire: accepted
    assert s.state.public_card(31).id == "tripwire" and s.zone(31) is Zone.DISCARD
    assert s.side(0)[S.SHIELD] + s.side(0)[S.LIFE] == life  # no counter damage: a decoy
    assert s.zone(30) is Zone.TRAP  # the face-up tripwire stays set
    while s.state.active != 0 or s.state.phase != 6:
        s.do("next")
    s.do("target 0")
    s.dice = [1, 1]
    s.do("pick 30")  # the face-up one still works
    assert s.side(0)[S.SHIELD] + s.side(0)[S.LIFE] == life - 2


# --- points the document leaves open, Decided in SPEC Part 10 ------------------------------------


def test_decided_standard_local_decks_hold_no_advanced_only_cards() -> None:
    """Weapon mods and energy classes are Advanced Mode cards (the document's "(Advance
    Mode)"): a Standard Mode local deal never puts one in a hand, where it could only fizzle."""
    advanced_only = {CardType.MOD, CardType.ENERGY_CLASS}
    for mode, size, expected in ((Mode.STANDARD, 30, set()), (Mode.STANDARD, 70, set()),
                                 (Mode.ADVANCED, 70, advanced_only)):
        identity, _ = G.local_deal(Rules(size, mode), CAT, b"seed")
        types = {CAT.get(c).type for c in identity.values()}  # type: ignore[union-attr]
        assert types & advanced_only == expected, (mode, size)
        for p in (0, 1):
            deck = [identity[h] for h in range(p * size, p * size + size)]
            validate_deck(CAT, Rules(size, mode).heroes[p], deck, size)


def test_decided_burn_is_condition_damage_without_weakness() -> None:
    """Burn's "1 solar damage" is condition damage: the burned hero's weakness to solar (Nyra's
    Arc Class) does not add 2 (§10.1.8.3)."""
    s = Scene(mode=Mode.ADVANCED, phase=3, hands=[["kinetic-rounds"], []],
              sides={1: {S.BURN: 2}})
    assert CAT.cards[s.side(1)[S.ECLASS]].weakness.value == "solar"  # type: ignore[union-attr]
    before = s.state
    shield = s.side(1)[S.SHIELD]
    end = G.parse_input("end")
    s.do("end")
    assert s.side(1)[S.SHIELD] == shield - 1 and s.side(1)[S.LIFE] == before.sides[1][S.LIFE]
    told = G.narrate(before, end, G.step(before, end), None, None)
    assert "Burn: player 2 takes 1 damage at the start of player 2's turn (condition damage: " \
           "weakness and resistance do not apply)" in told


def test_decided_armor_worn_to_durability_zero_is_discarded() -> None:
    s = _attack(["rail-pistol", "kinetic-rounds"], ["scout-vest"], [6, 6])
    armor = s.handles(1, Zone.BOARD)[0]
    aux = list(s.state.aux)
    aux[armor] = 1
    s.state = s.state.__class__(**{**s.state.__dict__, "aux": tuple(aux)})
    before, told = s.state, []
    for text in ("target 0", "roll 6", "roll 6"):
        after = G.step(before, G.parse_input(text))
        told += G.narrate(before, G.parse_input(text), after, 1, G.new_knowledge(1))
        before = after
    assert before.zone[armor] == Zone.DISCARD
    assert "the hit wears your Scout Vest out (durability 0): it is discarded" in told


def test_decided_a_dual_wield_weapon_targets_twice_a_turn() -> None:
    s = _attack(["twin-smg", "kinetic-rounds", "kinetic-rounds"], [], [1, 1, 1, 1])
    s.do("target 0")
    assert s.state.active == 0 and "target 0" in s.legal()  # the second use
    s.do("target 0")
    assert s.state.active == 1  # both uses spent: the turn ends by itself


def test_decided_storage_energy_starts_at_zero() -> None:
    play, _ = _first_turn()
    assert [side[S.STORAGE] for side in play.state.sides] == [0, 0]


def _first_turn():  # type: ignore[no-untyped-def]
    from versus.engine.referee_loop import HashBelow, LocalPlay

    identity, orders = G.local_deal(Rules(), CAT, b"first")
    play = LocalPlay.start(G, Setup(Rules(), CAT, b"first"), identity, orders,
                           HashBelow(b"dice").below)
    return play, play.to_player()


def test_decided_support_cards_are_activated_in_step_five_only() -> None:
    """"Activated in battle" is read as the active player's step 5 (the document's turn order
    puts every activation there and abilities before the attack): not in step 3 or 6, and never
    in the opponent's turn (only traps react to an attack)."""
    board = ["rail-pistol", "kinetic-rounds"]
    for phase, playable in ((3, False), (5, True), (6, False)):
        s = Scene(hands=[["field-medic"], ["field-medic"]], boards=[board, board],
                  storage=(5, 5), phase=phase)
        assert ("play 0" in s.legal()) is playable, phase
        assert not any(line.endswith(" 30") for line in s.legal())  # the opponent's card
