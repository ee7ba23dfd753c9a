# The Vanquishers scene and narration (engine/vanquishers/scene.py, narration.py): over seeded
# random games played with the one local referee loop, at every decision, for both seats and the
# public, the scene offers exactly the deciding seat's legal inputs, shows no card hidden from
# its viewer, names only legal inputs on its cards and fits 80 columns; a targeting roll is
# told with its values and the rule that decided it; the public narration is third person; a
# finished game says who won and why. Then the defects this module's narration fixed: a card
# played that cannot be paid is told as the fizzle it is, and verbs agree with their subject.
from __future__ import annotations

import re

import pytest

from versus.engine.api import DecisionKind, Finished, Setup, rules_text, scene_of
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.scene import scene_lines
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers.engine import S, Zone
from versus.engine.vanquishers.rules import Mode, Rules

from .scene import CAT, Scene

ID_OF_NAME = {c.name: c.id for c in CAT.cards}
HEROES = {c.id for c in CAT.heroes}
YOU = re.compile(r"\b(you|your|yours)\b", re.IGNORECASE)


def _visible(state, knowledge) -> set[str]:  # type: ignore[no-untyped-def]
    """The card ids a viewer may see: public ones, heroes, energy classes, its own cards."""
    ids = {state.cat.cards[i].id for i in state.card if i >= 0} | HEROES
    ids |= {state.cat.cards[side[S.ECLASS]].id for side in state.sides if side[S.ECLASS] >= 0}
    return ids | (set(knowledge.cards.values()) if knowledge is not None else set())


def _check_scene(state, seat, knowledge) -> None:  # type: ignore[no-untyped-def]
    scene = scene_of(G, state, seat, knowledge)
    d = G.decision(state)
    deciding = (not isinstance(d, Finished) and d.player == seat and seat is not None
                and d.kind in (DecisionKind.TURN, DecisionKind.CHOICE))
    legal = tuple(G.format_input(m) for m in G.legal_actions(state)) if deciding else ()
    assert scene.inputs == legal
    assert bool(scene.prompt) == deciding
    allowed = _visible(state, knowledge if seat is not None else None)
    for card in scene.cards():
        assert set(card.inputs) <= set(legal), (card.ref, card.inputs)
        if card.face is not None:
            assert ID_OF_NAME[card.face.name] in allowed, (seat, card.face.name)
    for line in scene_lines(scene, 80):
        assert len(line) <= 80, line
    if seat is None:
        assert not YOU.search(" ".join(scene_lines(scene, 80))), scene_lines(scene, 80)


def _choose(view, legal, stream):  # type: ignore[no-untyped-def]
    """Mostly an action that does something (so battles happen), sometimes any legal one."""
    busy = [m for m in view.useful_actions if m.verb.value not in ("next", "end")]
    if busy and stream.below(8):
        return busy[stream.below(len(busy))]
    return legal[stream.below(len(legal))]


def _play(seed: str, rules: Rules, check_scenes: bool = True) -> tuple[LocalPlay, list[str]]:
    """A random game (seeded), every scene checked; the public narration of every input."""
    identity, orders = local_deal(G, rules, CAT, seed.encode())
    stream = HashBelow(seed.encode() + b"/play", 8)
    play = LocalPlay.start(G, Setup(rules, CAT, seed.encode()), identity, orders, stream.below)
    public: list[str] = []
    while not isinstance(d := G.decision(play.state), Finished):
        if check_scenes and d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
            for seat in (0, 1, None):
                _check_scene(play.state, seat, play.knowledge[seat] if seat is not None else None)
        before = play.state
        inp = play.advance(lambda view, legal, seat: _choose(view, legal, stream))
        public += G.narrate(before, inp, play.state, None, None)
    return play, public


@pytest.mark.parametrize("seed, mode", [("s1", Mode.STANDARD), ("s2", Mode.ADVANCED),
                                        ("s3", Mode.STANDARD)])
def test_scenes_of_random_games_offer_the_legal_inputs_and_hide_what_is_hidden(
        seed: str, mode: Mode) -> None:
    play, public = _play(seed, Rules(mode=mode, max_turns=16))
    for seat in (0, 1, None):  # the finished scene too
        _check_scene(play.state, seat, play.knowledge[seat] if seat is not None else None)
    text = "\n".join(public)
    assert not YOU.search(text), [line for line in public if YOU.search(line)][:3]
    assert "player 1" in text and "player 2" in text


def _results(state, winner: int | None) -> tuple[str, str, str]:  # type: ignore[no-untyped-def]
    """The finished scene's result for the public, the winner and the loser."""
    def result(seat: int | None) -> str:
        know = G.new_knowledge(seat) if seat is not None else None
        text = scene_of(G, state, seat, know).result
        assert text is not None
        return text

    w = 0 if winner is None else winner
    return result(None), result(w), result(1 - w)


def test_a_finished_game_says_who_won_and_why() -> None:
    play, _ = _play("f1", Rules(max_turns=8), check_scenes=False)  # the turn limit
    d = G.decision(play.state)
    assert isinstance(d, Finished) and d.outcome == "turn-limit" and d.winner is not None
    public, won, lost = _results(play.state, d.winner)
    assert public.startswith(f"Player {d.winner + 1} wins: the turn limit (8 turns each) was "
                             "reached and the higher Life wins")
    assert won.startswith("You win: ") and lost.startswith("You lose: ")
    s = Scene(hands=[["focused-strike"], []], storage=(2, 0),  # a defeat
              sides={1: {S.LIFE: 1, S.SHIELD: 0}})
    s.do("play 0")
    d = G.decision(s.state)
    assert isinstance(d, Finished) and d.winner == 0
    public, won, lost = _results(s.state, 0)
    assert public == "Player 1 wins: player 2's Life fell to 0 (Nyra Vale is defeated)."
    assert won == "You win: the opponent's Life fell to 0 (Nyra Vale is defeated)."
    assert lost == "You lose: your Life fell to 0 (Nyra Vale is defeated)."


def test_a_targeting_roll_is_told_with_its_values_and_the_rule() -> None:
    s = Scene(boards=[["rail-pistol", "kinetic-rounds"], []], phase=6, dice=[4, 5])
    before = s.state
    s.do("target 0")
    told = []
    state = before
    for text in ("target 0", "roll 4", "roll 5"):
        after = G.step(state, G.parse_input(text))
        told += G.narrate(state, G.parse_input(text), after, None, None)
        state = after
    card, defense = CAT.get("rail-pistol"), CAT.get("nyra-vale").defense  # type: ignore[union-attr]
    total = 4 + 5 + card.target  # type: ignore[union-attr]
    verdict = f"a hit ({total} meets {defense})" if total >= defense else \
        f"a miss ({total} is below {defense})"
    assert (f"Rail Pistol: black 4 + red 5 + target {card.target} = {total} against player 2's "  # type: ignore[union-attr]
            f"Defense {defense}: {verdict}") in told, told
    assert any(line.startswith("player 1 targets player 2 with Rail Pistol") for line in told)


def test_a_played_card_that_cannot_be_paid_is_told_as_a_fizzle() -> None:
    """Storm Rifle costs 3, the player has 1 Storage Energy: `play h` is legal (the card is
    hidden from the public state, SPEC §10.1.5.2), and the story is the fizzle, not an
    activation; the owner's scene warns before it is played."""
    s = Scene(hands=[["storm-rifle"], []], storage=(1, 0))
    mine = G.new_knowledge(0)
    mine.learn(0, "storm-rifle")
    assert "play 0" in s.legal()
    told: dict[int | None, list[str]] = {0: [], 1: [], None: []}
    state = s.state
    for inp in (G.parse_input("play 0"), G.reveal_input(0, "storm-rifle")):
        after = G.step(state, inp)
        for viewer, know in ((0, mine), (1, G.new_knowledge(1)), (None, None)):
            told[viewer] += G.narrate(state, inp, after, viewer, know)
        state = after
    assert state.zone[0] == Zone.HAND and state.sides[0][S.SPENT] == 0
    for viewer, lines in told.items():
        text = " ".join(lines)
        assert "activate" not in text.replace("activated if it can be", ""), (viewer, lines)
        assert ("Storm Rifle fizzles: it costs 3 and only 1 Storage Energy is available; it "
                "stays in") in text, (viewer, lines)
    note = scene_of(G, s.state, 0, mine).note("play 0")
    assert note is not None and note.startswith("fizzles: it costs 3 and only 1 Storage Energy")


def test_verbs_agree_with_their_subject() -> None:
    s = Scene(hands=[["rail-pistol"], []], phase=3, storage=(0, 0))
    before = s.state
    exile = G.parse_input("exile 0")
    after = G.step(before, exile)
    assert G.narrate(before, exile, after, 1, G.new_knowledge(1))[0].startswith(
        "the opponent exiles a card")
    assert G.narrate(before, exile, after, None, None)[0].startswith("player 1 exiles a card")
    mine = G.new_knowledge(0)
    mine.learn(0, "rail-pistol")
    assert G.narrate(before, exile, after, 0, mine)[0].startswith("you exile Rail Pistol")
    end = G.parse_input("end")
    after = G.step(before, end)
    assert G.narrate(before, end, after, 1, G.new_knowledge(1))[0] == "the opponent ends the turn"
    assert G.narrate(before, end, after, None, None)[0] == "player 1 ends the turn"
    assert G.narrate(before, end, after, 0, mine)[0] == "you end the turn"


def test_the_rules_text_fits_the_table() -> None:
    for rules in (Rules(), Rules(mode=Mode.ADVANCED)):
        lines = rules_text(G, rules).splitlines()
        assert 25 <= len(lines) <= 60 and max(map(len, lines)) <= 78
        text = "\n".join(lines)
        for example in ("play 12", "exile 12", "trap 12 1", "rift 7", "target 4", "pick 4",
                        "recover", "vtrigger", "next", "end", "pass"):
            assert example in text, example


def test_the_seats_scene_notes_the_inputs_that_waste_a_card() -> None:
    """A hidden hand card's `play`/`trap` is legal whatever it is (SPEC §10.1.5.2); the owner's
    scene says before it is played what its own knowledge shows: a mod in Standard Mode
    fizzles, a non-trap set as a trap is a decoy; the public scene says nothing of them."""
    s = Scene(hands=[["long-barrel", "tripwire"], []], boards=[["rail-pistol"], []],
              storage=(3, 0))
    mine = G.new_knowledge(0)
    mine.learn(0, "long-barrel")
    mine.learn(1, "tripwire")
    scene = scene_of(G, s.state, 0, mine)
    assert scene.note("play 0") == ("fizzles: weapon mods are Advanced Mode only; Long Barrel "
                                    "stays in your hand, shown to the opponent, and nothing "
                                    "is paid")
    assert (scene.note("trap 0 1") or "").startswith(
        "a decoy: Long Barrel is no trap of cost 1")
    assert scene.note("trap 1 1") is None  # Tripwire costs 1: a true trap
    hand = scene.hand()
    assert hand is not None and [c.face.name for c in hand.cards if c.face] == [
        "Long Barrel", "Tripwire"]
    assert hand.cards[0].inputs == tuple(i for i in scene.inputs if i.split()[1:2] == ["0"])
    public = scene_of(G, s.state, None, None)
    assert public.notes == () and public.inputs == () and public.hand() is None
    assert all(c.face is None for z in public.zones if z.name == "Player 1's hand"
               for c in z.cards)
