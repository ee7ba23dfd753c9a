# One test or more per numbered rule of SPEC Part 11 (§11.1.1–11.1.23).
from __future__ import annotations

import json

import pytest

from versus.engine.api import DecisionKind, Finished
from versus.engine.errors import (
    CatalogueError,
    IllegalActionError,
    MalformedActionError,
    RulesetError,
)
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.multiverse import cards as C
from versus.engine.multiverse import engine as E
from versus.engine.multiverse.rules import power_decklist

from .support import advance, card, handle_in_hand, start

NO_INSTANTS = ["ember-knight", "void-titan", "moss-giant", "storm-lancer", "rift-hound",
               "tide-warden", "quill-sage"]


def easy(row: list[str], hand: list[str] = NO_INSTANTS, pdef=("bastion-golem",) * 3,
         later: list[str] = ()):
    return start([*pdef, *row, *hand, *later], deck=80)


def end_turn(s, later: list[str] = ()):
    """End the player's turn (drawing first if it has neither attacked nor drawn) and play
    the Multiverse's turn up to its next input."""
    later = list(later)
    if "draw" in G.legal_actions(s):
        s = advance(G.step(s, "draw"), later)
    if "end" in G.legal_actions(s):
        s = advance(G.step(s, "end"), later)
    while isinstance(G.decision(s), type(G.decision(s))) and G.legal_actions(s) and \
            G.legal_actions(s)[0].startswith("discard"):
        s = advance(G.step(s, G.legal_actions(s)[0]), later)
    return s


def test_m3_decks():
    cat = G.default_catalogue()
    for size in (50, 60, 80):
        deck = power_decklist(G.rules_from_options({"deck": size}), cat)
        assert len(deck) == size
        for p in cat.powers:
            assert deck.count(p.id) <= p.copies
    assert len(cat.battlegrounds) >= 10
    for bad in ({"deck": 49}, {"deck": 81}, {"difficulty": "x"}, {"nope": 1}):
        with pytest.raises(RulesetError):
            G.rules_from_options(bad)


def test_m4_difficulty_rows():
    for diff, rows in (("easy", 1), ("normal", 2), ("hard", 3)):
        s = start([], difficulty=diff)
        assert len(s.d["rows"]) == rows
        assert all(all(h >= 0 for h in r["cards"]) and r["bg"] >= 0 for r in s.d["rows"])


def test_m5_setup():
    s = easy(["glass-sentinel"] * 3)
    assert len(s.d["hand"]) == 7  # six at setup, one drawn in phase 1 (§11.1.6)
    assert s.d["pup"] == [False] * 3 and all(str(h) not in s.d["known"] for h in s.d["pdef"])
    assert str(s.d["pbg"]) in s.d["known"]
    assert G.decision(s).kind is DecisionKind.TURN and s.d["turn"] == 1


def test_m6_phase1_draws_one():
    s = easy(["glass-sentinel"] * 3)
    s = G.step(s, f"attack {handle_in_hand(s, 'storm-lancer')} 0")
    s = end_turn(advance(s, []), [])
    assert G.decision(s).kind is DecisionKind.CHANCE
    s = advance(G.step(s, "roll 3"), [])
    while G.decision(s).kind is DecisionKind.CHOICE:
        s = advance(G.step(s, "done"), [])
    assert s.d["turn"] == 2 and len(s.d["hand"]) == 7


def test_m7_slow_and_attack_or_draw():
    s = easy(["glass-sentinel"] * 3)
    legal = G.legal_actions(s)
    assert "draw" in legal and "end" not in legal
    assert f"slow {handle_in_hand(s, 'quill-sage')}" in legal
    s = advance(G.step(s, f"slow {handle_in_hand(s, 'quill-sage')}"), [])
    assert len(s.d["hand"]) == 8  # quill-sage: trigger draw 2
    assert not any(a.startswith("slow") for a in G.legal_actions(s))
    s = advance(G.step(s, "draw"), [])
    assert G.decision(s).kind is not DecisionKind.TURN or s.d["side"] == 1 or \
        (s.d["turn"] == 1 and G.decision(s).label == "hand-limit")


def test_m8_hand_limit():
    s = easy(["glass-sentinel"] * 3)
    s = advance(G.step(s, "draw"), [])
    s = G.step(s, "end")
    d = G.decision(s)
    assert d.kind is DecisionKind.CHOICE and d.label == "hand-limit" and len(d.options) == 8
    s = G.step(s, G.legal_actions(s)[0])
    s = G.step(s, G.legal_actions(s)[0])
    assert len(s.d["hand"]) == 6 and s.d["side"] == 1


def test_m9_delayed_resolves_at_end_of_turn():
    s = easy(["glass-sentinel"] * 3, hand=[*NO_INSTANTS[:5], "war-drummer"])
    s = G.step(s, f"slow {handle_in_hand(s, 'war-drummer')}")
    assert s.d["rally"] == [0, 0] and s.d["delayed"] == [[0, "rally", 2]]
    s = G.step(s, f"attack {handle_in_hand(s, 'storm-lancer')} 0")
    s = end_turn(advance(s, []))
    assert s.d["rally"][0] == 2


def test_m10_attack_nearest_row_super_only():
    s = start(["bastion-golem"] * 3 + ["glass-sentinel"] * 3 + ["tide-warden"] * 3 + ["spark"]
              + NO_INSTANTS[:6], difficulty="normal", deck=80)
    attacks = [a for a in G.legal_actions(s) if a.startswith("attack")]
    assert attacks and {a.split()[2] for a in attacks} == {"0", "1", "2"}
    spark = handle_in_hand(s, "spark")
    assert not any(a.startswith(f"attack {spark} ") for a in attacks)
    with pytest.raises(IllegalActionError):
        G.step(s, f"attack {spark} 0")


def test_m11_defense_first_then_offensive_tie_defends():
    s = easy(["glass-sentinel"] * 3)
    knight = handle_in_hand(s, "ember-knight")
    s = advance(G.step(s, f"attack {knight} 0"), [])
    # ember knight 4 +1 offensive = 5; glass sentinel 3 +2 defense = 5: a tie defends (§11.1.13)
    assert s.d["defeated"] == 0 and knight in s.d["discard"]
    assert s.d["rows"][0]["up"][0] and s.d["rows"][0]["cards"][0] >= 0


def test_m12_flipped_defender_trigger():
    s = easy(["aegis-herald"] * 3)
    s = advance(G.step(s, f"attack {handle_in_hand(s, 'ember-knight')} 0"), [])
    assert s.d["defeated"] == 0  # 5 - 2 (its shield) = 3 vs 3


def test_m13_success_and_instants():
    s = easy(["glass-sentinel"] * 3)
    lancer = handle_in_hand(s, "storm-lancer")
    target = s.d["rows"][0]["cards"][1]
    s = advance(G.step(s, f"attack {lancer} 1"), [])
    assert s.d["defeated"] == 1 and {lancer, target} <= set(s.d["discard"])
    s = easy(["glass-sentinel"] * 3, hand=[*NO_INSTANTS[:5], "spark"])
    s = advance(G.step(s, f"attack {handle_in_hand(s, 'ember-knight')} 0"), [])
    d = G.decision(s)
    assert d.kind is DecisionKind.CHOICE and d.label == "instant"
    spark = handle_in_hand(s, "spark")
    s = advance(G.step(s, f"instant {spark}"), [])
    assert s.d["defeated"] == 1 and spark in s.d["discard"]


def _to_multiverse(row, mill, pdef=("bastion-golem",) * 3, hand=NO_INSTANTS):
    s = easy(row, hand=hand, pdef=pdef)
    s = G.step(s, f"attack {handle_in_hand(s, 'rift-hound')} 2")
    s = end_turn(advance(s, []), mill)
    return s


def test_m14_phases_and_aim():
    s = _to_multiverse(["ember-knight", "glass-sentinel", "tide-warden"],
                       ["spark", "dampen"])
    d = G.decision(s)
    assert d.kind is DecisionKind.CHANCE and d.outcomes == 6
    assert G.legal_actions(s) == [f"roll {k}" for k in range(1, 7)]
    row = s.d["rows"][0]
    # §11.1.14: the nearest row flips face-up
    assert all(up for h, up in zip(row["cards"], row["up"], strict=True) if h >= 0)
    for roll, slot in ((1, 0), (2, 0), (3, 1), (4, 1), (5, 2), (6, 2)):
        t = G.step(s, f"roll {roll}")
        assert t.d["combat"] is None or t.d["combat"]["target"] == [slot]
        assert t.d["last_roll"] == roll


def test_m14_empty_slot_passes_right():
    s = _to_multiverse(["ember-knight", "glass-sentinel", "tide-warden"], ["spark", "dampen"])
    d = json.loads(s.encode())
    d["pdef"][0] = -1
    t = G.step(E.State(d, s.rules, s.cat), "roll 1")
    assert t.d["combat"] is None or t.d["combat"]["target"] == [1]


def test_m15_m16_multiverse_attack():
    s = _to_multiverse(["ember-knight", "glass-sentinel", "spark"], ["dampen", "ward"])
    t = advance(G.step(s, "roll 1"), [])
    # ember 4 + glass 3 + offensive 1 = 8 > bastion golem 6 + defense 1 = 7
    assert t.d["pdef"][0] == -1 and t.d["pup"][0] is False
    s = _to_multiverse(["glass-sentinel", "spark", "dampen"], ["dampen", "ward"])
    t = advance(G.step(s, "roll 1"), [])
    assert t.d["pdef"][0] >= 0 and t.d["pup"][0]  # 3 vs 7: defended, and flipped


def test_m17_enhance_replacement():
    s = _to_multiverse(["spark", "dampen", "ward"], ["overcharge", "battle-cry", "echo-twin"])
    row = s.d["rows"][0]
    assert G.decision(s).kind is DecisionKind.TURN and s.d["side"] == 0
    assert row["cards"][0] >= 0 and row["up"][0] is False  # a face-down replacement
    assert card(s, row["cards"][0]) == "echo-twin"
    assert any(card(s, h) == "spark" for h in s.d["discard"])


def test_m18_m14_mdraw_slow_super():
    s = _to_multiverse(["glass-sentinel"] * 3, ["spark", "war-drummer"])
    # war drummer (Super, delayed rally 2) drawn in phase 2 activates; resolved in phase 3
    assert s.d["delayed"] == [[1, "rally", 2]]
    t = advance(G.step(s, "roll 1"), [])
    assert t.d["rally"][1] == 2 or t.d["side"] == 0


def test_m19_draws_are_discards():
    s = _to_multiverse(["glass-sentinel"] * 3, ["spark", "dampen"])
    ids = [card(s, h) for h in s.d["discard"]]
    assert "spark" in ids and "dampen" in ids


def test_m20_no_ability_on_phase2_flip():
    s = _to_multiverse(["aegis-herald"] * 3, ["spark", "dampen"])
    row = s.d["rows"][0]
    assert s.d["shield"][1] == 0
    assert all(up for h, up in zip(row["cards"], row["up"], strict=True) if h >= 0)


def test_m21_m22_end_and_score():
    s = easy(["glass-sentinel"] * 3)
    d = json.loads(s.encode())
    d["rows"][0]["cards"] = [-1, -1, d["rows"][0]["cards"][2]]
    d["rows"][0]["up"] = [False, False, True]
    d["known"][str(d["rows"][0]["cards"][2])] = "glass-sentinel"
    s = E.State(d, s.rules, s.cat)
    s = advance(G.step(s, f"attack {handle_in_hand(s, 'storm-lancer')} 2"), [])
    fin = G.decision(s)
    assert isinstance(fin, Finished) and fin.outcome == "victory" and fin.winner == 0
    assert G.score(s) == 100 + 30 + E.deck_left(s.d, s.rules, s.cat, 0)
    with pytest.raises(IllegalActionError):
        G.step(s, "draw")


def test_m21_deck_exhausted():
    s = start([], deck=50)
    d = json.loads(s.encode())
    d["dealt"][0] = list(range(50))
    s = advance(G.step(E.State(d, s.rules, s.cat), "draw"), [])
    fin = G.decision(s)
    assert isinstance(fin, Finished) and fin.outcome == "deck-exhausted" and fin.winner is None


def test_m23_catalogue_loader_and_texts():
    cat = G.default_catalogue()
    assert sum(p.copies for p in cat.powers) >= 80
    assert "Offensive" in cat.power("ember-knight").text
    assert "+1 power" in cat.battleground("crystal-keep").text
    base = json.loads(cat.canonical)
    for mutate in (lambda o: o.update(format="x"),
                   lambda o: o["powers"][0].update(type="hero"),
                   lambda o: o["powers"][0].update(effect="draw"),  # offensive can't draw
                   lambda o: o["powers"][14].update(activation="offensive"),  # enhance
                   lambda o: o.update(battlegrounds=o["battlegrounds"][:9]),
                   lambda o: o["powers"][1].update(id=o["powers"][0]["id"])):
        obj = json.loads(json.dumps(base))
        mutate(obj)
        with pytest.raises(CatalogueError):
            G.load_catalogue(json.dumps(obj))
    assert C.load(cat.canonical).digest == cat.digest


def test_notation_and_wrong_kind():
    s = easy(["glass-sentinel"] * 3)
    for text in G.legal_actions(s):
        assert G.parse_input(text) == text
    for bad in ("attack 01 0", "draw ", "roll", "x", "reveal 1"):
        with pytest.raises(MalformedActionError):
            G.parse_input(bad)
    with pytest.raises(IllegalActionError):
        G.step(s, "roll 3")
    with pytest.raises(IllegalActionError):
        G.step(s, "deal 59")
