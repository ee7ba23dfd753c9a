# The scene, the narration and the rules text of "Against the Multiverse" (engine/scene.py,
# engine/multiverse/scene.py, text.py): over seeded random games, what the player and the public
# are shown is legal, hides every face-down card and fits 80 columns; a combat is told with its
# values and the rule that decided it; the Multiverse's automatic turn is told step by step
# (the card it draws and activates, its flips, its attackers, the d6's aim, the Enhance it
# replaces and why); the public narration is third person; a finished game says victory or
# defeat, why and the score.
from __future__ import annotations

import json
import re

import pytest

from versus.engine.api import DecisionKind, Finished, Setup, rules_text, scene_of
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.multiverse import engine as E
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.scene import scene_lines

from .support import PLAN, card, handle_in_hand
from .test_rules import _to_multiverse, easy

YOU = re.compile(r"\b(you|your)\b", re.IGNORECASE)


def _games(seeds: range, difficulty: str = "normal"):
    """(state before, input, state after) of seeded random games dealt by local_deal."""
    rules = G.rules_from_options({"difficulty": difficulty})
    cat = G.default_catalogue()
    for seed in seeds:
        tag = b"scene-%d" % seed
        identity, orders = local_deal(G, rules, cat, tag)
        play = LocalPlay.start(G, Setup(rules, cat, tag), identity, orders,
                               HashBelow(tag + b"/dice").below)
        pick = HashBelow(tag + b"/choices")
        while not isinstance(G.decision(play.state), Finished):
            before = play.state
            inp = play.advance(lambda view, legal, seat, pick=pick: legal[pick.below(len(legal))])
            yield before, inp, play.state


def _check_scene(state: E.State, seat: int | None) -> None:
    scene = scene_of(G, state, seat, None)
    d = G.decision(state)
    deciding = seat == 0 and not isinstance(d, Finished) and d.kind in (
        DecisionKind.TURN, DecisionKind.CHOICE)
    legal = tuple(G.format_input(i) for i in G.legal_actions(state))
    assert scene.inputs == (legal if deciding else ())
    assert bool(scene.prompt) == deciding
    known = state.d["known"]
    names = {p.id: p.name for p in state.cat.powers} | {
        b.id: b.name for b in state.cat.battlegrounds}
    for c in scene.cards():
        assert set(c.inputs) <= set(scene.inputs)
        if c.face is None:
            assert c.label == "?"
        else:  # only a revealed card has a face, and it is that card
            assert c.ref in known and c.face.name == names[known[c.ref]], c
    for cell in scene.board.cells:
        assert set(cell.inputs) <= set(scene.inputs)
    # a face-down card (yours or the Multiverse's) never shows its name
    for h, up in [*zip(state.d["pdef"], state.d["pup"], strict=True),
                  *((h, u) for row in state.d["rows"]
                    for h, u in zip(row["cards"], row["up"], strict=True))]:
        if h >= 0 and not up:
            assert scene.card(str(h)) is None
    assert all(len(line) <= 80 for line in scene_lines(scene, 80))
    if seat is None:
        text = "\n".join(scene_lines(scene, 80))
        assert not YOU.search(text), text
    assert (scene.result is not None) == isinstance(d, Finished)


def test_random_games_show_legal_inputs_and_hide_face_down_cards():
    decisions = 0
    for before, inp, after in _games(range(3)):
        for seat in (0, None):
            _check_scene(after, seat)
        decisions += 1
        public = G.narrate(before, inp, after, None, None)
        assert public and not any(YOU.search(line) for line in public), public
        assert G.narrate(before, inp, after, 0, None)
    assert decisions > 100


def test_the_scene_names_cards_as_the_notation_does():
    s = easy(["glass-sentinel"] * 3)
    scene = scene_of(G, s, 0, None)
    lancer = handle_in_hand(s, "storm-lancer")
    hand = scene.hand()
    assert hand is not None and hand.owner == 0
    lancer_card = scene.card(str(lancer))
    assert lancer_card.face.name == "Storm Lancer" and "Offensive" in lancer_card.face.text
    assert f"attack {lancer} 1" in lancer_card.inputs
    assert [c.ref for c in scene.board.cells] == ["0", "1", "2", "y0", "y1", "y2"]
    assert f"attack {lancer} 1" in scene.board.cell("1").inputs
    assert all(len(c.label) <= 12 for c in scene.cards())
    assert "attack H C" in scene.prompt and "(draw)" in scene.prompt


def test_a_combat_is_told_with_its_values_and_the_rule():
    s = easy(["glass-sentinel"] * 3)
    lancer = handle_in_hand(s, "storm-lancer")
    before = s
    s = G.step(s, f"attack {lancer} 1")
    told = " / ".join(G.narrate(before, f"attack {lancer} 1", s, 0, None))
    assert "you attack the Multiverse's centre card" in told
    # the reveal of the face-down defender settles the combat
    handle = s.d["q"][0][1]
    inp = G.reveal_input(handle, card(s, handle))
    after = G.step(s, inp)
    told = " / ".join(G.narrate(s, inp, after, 0, None))
    assert "attack 8 = Storm Lancer 6 + Storm Lancer's offensive boost 2" in told
    # the defender's defense skill applies first
    assert "defense 5 = Glass Sentinel 3 + Glass Sentinel's defense boost 2" in told
    assert "attack 8 > defense 5: your attack defeats the Multiverse's Glass Sentinel" in told
    public = " / ".join(G.narrate(s, inp, after, None, None))
    assert "player 1's attack defeats" in public and not YOU.search(public)


def _through(s, inputs: list[str], later: list[str]):
    """Step `inputs`, answering the deals and reveals between them (planned cards from `later`),
    collecting the narration of every step."""
    lines: list[str] = []
    queue = list(inputs)
    while not isinstance(d := G.decision(s), Finished):
        if d.kind is DecisionKind.DEAL:
            h = E.next_handle(s.d, s.rules, s.cat, d.deck)
            if later and d.deck == 0:
                PLAN[h] = later.pop(0)
            inp = G.deal_input(h)
        elif d.kind is DecisionKind.REVEAL:
            deck = E.deck_of(s.rules, s.cat, d.handle)
            inp = G.reveal_input(d.handle, PLAN.get(d.handle) or G.unrevealed(s, deck)[0])
        elif queue:
            inp = queue.pop(0)
        else:
            return s, lines
        after = G.step(s, inp)
        lines += G.narrate(s, inp, after, 0, None)
        s = after
    return s, lines


def test_the_multiverses_turn_is_told_step_by_step():
    s = _to_multiverse(["ember-knight", "glass-sentinel", "spark"], ["dampen", "war-drummer"])
    assert G.decision(s).kind is DecisionKind.CHANCE
    s, lines = _through(s, ["roll 3"], [])
    told = "\n".join(lines)
    assert "the Multiverse rolls 3 (3-4 aims centre): it attacks your centre defense card" \
        in told
    # ember 4 + glass 3 + ember's offensive 1 (+ the war drummer's rally 2 waits for phase 3)
    assert "the Multiverse's attack 8 = Ember Knight 4 + Glass Sentinel 3 + Ember Knight's " \
        "offensive boost 1" in told
    assert "vs defense 7 = Bastion Golem 6 + Bastion Golem's defense boost 1" in told
    assert "attack 8 > defense 7: the Multiverse defeats your Bastion Golem" in told


def test_the_multiverses_draws_flips_and_attackers_are_told():
    s = easy(["ember-knight", "glass-sentinel", "spark"])
    rift = handle_in_hand(s, "rift-hound")
    s, lines = _through(s, [f"attack {rift} 2", "end"], ["dampen", "war-drummer"])
    told = "\n".join(lines)
    assert G.decision(s).kind is DecisionKind.CHANCE
    assert "the Multiverse's turn begins" in told
    assert "the Multiverse discards Dampen" in told  # phase 1: its draw is a discard
    assert "the Multiverse draws War Drummer (super 2, delayed rally 2): a Super with a slow " \
        "ability: it activates for the Multiverse" in told
    assert "the Multiverse's delayed rally 2 waits for the end of this turn" in told
    assert "the Multiverse flips its row 1 left card face up: Ember Knight" in told
    assert "the Multiverse attacks with every Super of its row 1: Ember Knight, Glass " \
        "Sentinel" in told


def test_the_enhance_it_replaces_is_the_leftmost_and_the_narration_says_why():
    s = easy(["spark", "dampen", "ward"])
    rift = handle_in_hand(s, "rift-hound")
    # your attack defeats the left Spark; the Multiverse then has Dampen (centre) and Ward
    s, lines = _through(s, [f"attack {rift} 0", "end"],
                        ["overcharge", "battle-cry", "echo-twin"])
    row = s.d["rows"][0]
    told = "\n".join(lines)
    assert "it discards its leftmost Enhance, Dampen (centre)" in told
    assert "always begins with the leftmost card of its nearest row" in told
    assert row["cards"][0] == -1 and row["cards"][1] >= 0 and not row["up"][1]  # refilled
    assert card(s, row["cards"][1]) == "echo-twin" and card(s, row["cards"][2]) == "ward"


@pytest.mark.parametrize("cards, fits, chosen", [
    ([5, 6, 7], "any", (0, 0)),
    ([-1, 6, 7], "any", (0, 1)),
    ([5, 6, 7], "not-left", (0, 1)),
    ([-1, -1, -1], "any", (1, 0)),  # the nearest row is the first with a card left
])
def test_a_multiverse_choice_begins_with_the_leftmost_card_of_the_nearest_row(cards, fits,
                                                                                chosen):
    d = {"rows": [{"cards": cards}, {"cards": [8, 9, 10]}]}
    test = (lambda h: True) if fits == "any" else (lambda h: h != 5)
    assert E.multiverse_choice(d, test) == chosen
    assert E.multiverse_choice(d, lambda h: False) is None


def test_a_finished_game_says_victory_or_defeat_why_and_the_score():
    s = easy(["glass-sentinel"] * 3)
    d = json.loads(s.encode())
    d["rows"][0]["cards"] = [-1, -1, d["rows"][0]["cards"][2]]
    d["rows"][0]["up"] = [False, False, True]
    d["known"][str(d["rows"][0]["cards"][2])] = "glass-sentinel"
    d["defeated"] = 2
    s = E.State(d, s.rules, s.cat)
    lancer = handle_in_hand(s, "storm-lancer")
    won = G.step(s, f"attack {lancer} 2")
    score = G.score(won)
    result = scene_of(G, won, 0, None).result
    assert result.startswith("Victory after 1 turn: you defeated every Multiverse defense "
                             f"card. Score {score} (100 + 10 x 3 defense cards kept")
    assert scene_of(G, won, None, None).result.startswith(
        "Victory after 1 turn: player 1 defeated every Multiverse")
    assert any(line.startswith("Victory") for line in G.narrate(s, f"attack {lancer} 2", won,
                                                                 0, None))
    for label, why in (("defenses-eliminated", "your three defense cards were all defeated"),
                       ("deck-exhausted", "a card had to be drawn from the empty Power deck")):
        d = json.loads(s.encode())
        d["outcome"] = [label, None]
        lost = scene_of(G, E.State(d, s.rules, s.cat), 0, None).result
        assert lost == f"Defeat after 1 turn: {why}. Score 20 (10 x 2 Multiverse defense " \
            "cards defeated)."


def test_notes_warn_of_an_attack_that_cannot_win():
    s = easy(["bastion-golem", "glass-sentinel", "spark"])
    d = json.loads(s.encode())
    d["rows"][0]["up"] = [True, True, True]
    for c, cid in enumerate(["bastion-golem", "glass-sentinel", "spark"]):
        d["known"][str(d["rows"][0]["cards"][c])] = cid
    s = E.State(d, s.rules, s.cat)
    scene = scene_of(G, s, 0, None)
    sage = handle_in_hand(s, "quill-sage")
    # quill sage 2 vs bastion golem 6 + defense 1: lost whatever you add (no instant in hand)
    assert scene.note(f"attack {sage} 0") == (
        "cannot win: attack 2 vs defense 7 even with every instant in your hand (a tie "
        "defends); Quill Sage is discarded")
    assert scene.note(f"attack {sage} 2") is None  # 2 vs spark 1: it wins


def test_rules_text_is_short_wrapped_and_shows_every_input():
    for difficulty in ("easy", "normal", "hard"):
        text = rules_text(G, G.rules_from_options({"difficulty": difficulty}))
        lines = text.splitlines()
        assert 25 <= len(lines) <= 60 and all(len(line) <= 78 for line in lines)
        for word in ("attack 12 1", "draw", "slow 7", "end", "instant 9", "done", "discard 4"):
            assert word in text


def test_a_combat_choice_says_who_attacks_and_how_it_stands():
    s = easy(["glass-sentinel"] * 3, hand=["ember-knight", "void-titan", "moss-giant",
                                           "storm-lancer", "rift-hound", "spark"])
    ember = handle_in_hand(s, "ember-knight")
    s, _ = _through(s, [f"attack {ember} 0"], [])
    scene = scene_of(G, s, 0, None)
    spark = handle_in_hand(s, "spark")
    # ember 4 + offensive 1 vs glass sentinel 3 + its defense boost 2: a tie, which defends
    assert scene.prompt.startswith("Your attack: attack 5 vs defense 5 (the defense holds as "
                                   "it stands; a tie defends)")
    assert scene.inputs == (f"instant {spark}", "done") and scene.note(f"instant {spark}") is None
    assert "Combat: your attack 5 vs defense 5" in scene.status[-1]
    s = G.step(s, f"instant {spark}")
    assert G.decision(s).kind is DecisionKind.REVEAL or s.d["defeated"] == 1


def test_a_label_cut_says_so_and_the_shared_discard_pile_has_no_owner_mark() -> None:
    # a newcomer read "Root Labyri" (cut without a mark) and saw its own discarded cards
    # marked ▼, the Multiverse's mark
    from versus.engine.api import scene_of
    from versus.engine.multiverse.scene import LABEL

    discarded = cut = 0
    for _, _, state in _games(range(2)):
        scene = scene_of(G, state, 0, None)
        for c in scene.cards():
            if c.face is None:
                continue
            assert len(c.label) <= LABEL
            name = c.label.lstrip("▲▼")
            name = name.rsplit(" ", 1)[0] if name[-1:].isdigit() else name
            if name != c.face.name:  # cut: it says so, and what is shown is the name's start
                assert name.endswith("…") and c.face.name.startswith(name[:-1]), c.label
                cut += 1
        for zone in scene.zones:
            if zone.name == "Discard pile":
                assert not any(c.label.startswith(("▲", "▼")) for c in zone.cards)
                discarded += len(zone.cards)
    assert discarded and cut  # both cases were seen
