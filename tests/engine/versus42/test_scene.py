# Versus's scene (engine/versus42/scene.py), its rules text and its public narration, held to
# the scene contract (engine/scene.py) over seeded random games played by the one referee loop:
# at every decision, for both seats and the public, the inputs are exactly the deciding seat's
# legal ones, no card hidden from the viewer is named anywhere in the scene, every input a card
# or cell offers is legal, and the text drawing keeps within 80 columns.
from __future__ import annotations

import re

from versus.engine.api import Finished, Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import get_game
from versus.engine.scene import Scene, scene_lines
from versus.engine.versus42.scene import LABEL_MAX, card_label
from versus.engine.versus42.views import PlayerView

VERSUS = get_game("versus42")
RULES, CAT = VERSUS.default_rules(), VERSUS.default_catalogue()


def _play(seed: bytes) -> LocalPlay:
    identity, orders = local_deal(VERSUS, RULES, CAT, seed)
    return LocalPlay.start(VERSUS, Setup(RULES, CAT, seed), identity, orders,
                           HashBelow(seed).below)


def _games(seeds: int = 4):  # type: ignore[no-untyped-def]
    """(play, decision, chosen input index stream) at every player decision of each game,
    then (play, the Finished decision) at its end."""
    for i in range(seeds):
        play, pick = _play(b"scene-%d" % i), HashBelow(b"pick-%d" % i)
        while True:
            d = play.to_player()
            yield play, d
            if isinstance(d, Finished):
                break
            legal = list(VERSUS.legal_actions(play.state))
            play.apply(legal[pick.below(len(legal))])


def _hidden_names(play: LocalPlay, seat: int | None) -> set[str]:
    """The names of the cards in play that `seat` may not know, less those it sees anyway
    (another copy of the same card can be visible)."""
    state = play.state
    view = PlayerView(state, play.knowledge[0] if seat is None else play.knowledge[seat],
                      0 if seat is None else seat)
    known, hidden = set(), set()
    for h in range(2 * state.n):
        name = CAT[play.identity[h]].name
        cid = state.public_id(h) if seat is None else view.identity(h)
        (known if cid is not None else hidden).add(name)
    return hidden - known


def _check(scene: Scene, play: LocalPlay, seat: int | None, deciding: bool) -> None:
    legal = tuple(VERSUS.format_input(a) for a in VERSUS.legal_actions(play.state))
    assert scene.inputs == (legal if deciding else ())
    assert bool(scene.prompt) == deciding
    for card in scene.cards():
        assert set(card.inputs) <= set(scene.inputs)
        if card.face is not None:  # named only when the viewer may know it
            h = int(card.ref)
            cid = (play.state.public_id(h) if seat is None else
                   VERSUS.view(play.state, seat, play.knowledge[seat]).identity(h))
            assert cid is not None and CAT[cid].name == card.face.name
    assert scene.board is not None
    for cell in scene.board.cells:
        assert set(cell.inputs) <= set(scene.inputs)
        assert all(len(card.label) <= LABEL_MAX for card in cell.cards)
    lines = scene_lines(scene, 80)
    assert all(len(line) <= 80 for line in lines)
    text = "\n".join(lines)
    for name in _hidden_names(play, seat):
        assert name not in text, (seat, name)
    if seat is None:
        assert not re.search(r"\b(you|your)\b", text, re.I)


def test_every_decision_scene_keeps_the_contract() -> None:
    decisions = 0
    for play, d in _games():
        if isinstance(d, Finished):
            continue
        decisions += 1
        for seat in (0, 1, None):
            knowledge = None if seat is None else play.knowledge[seat]
            scene = VERSUS.scene(play.state, seat, knowledge)
            _check(scene, play, seat, seat == d.player)
    assert decisions > 100


def test_the_board_is_the_field_with_the_seat_side_at_the_bottom() -> None:
    play = _play(b"board")
    d = play.to_player()
    assert not isinstance(d, Finished)
    bottom = {0: "1", 1: "4", None: "1"}
    for seat, row in bottom.items():
        board = VERSUS.scene(play.state, seat, None if seat is None else
                             play.knowledge[seat]).board
        assert board is not None and board.rows[-1] == row and board.columns[0] == "a"
        assert {c.shade for c in board.cells} == {"white", "black", "gray", "blue"}
        refs = {c.ref for c in board.cells}
        assert refs == set(play.state.geom.names)
    mine = VERSUS.scene(play.state, d.player, play.knowledge[d.player])
    hand = mine.hand()
    assert hand is not None and hand.cards and all(c.face and c.face.text for c in hand.cards)
    summons = [c.inputs for c in hand.cards]
    assert all(line.startswith(f"summon {c.ref} ") for c, lines in zip(hand.cards, summons,
                                                                        strict=True)
               for line in lines)
    theirs = VERSUS.scene(play.state, 1 - d.player, play.knowledge[1 - d.player])
    other = next(z for z in theirs.zones if z.owner == d.player and "hand" in z.name)
    assert not other.hand and all(c.face is None and c.label == "?" for c in other.cards)


def test_card_labels_fit_a_cell() -> None:
    assert card_label("▲", "Ogre", "4+1R") == "▲Ogre 4+1R"
    assert card_label("1:", "Lantern Golem", "4+1R×2") == "1:La… 4+1R×2"
    assert len(card_label("▼", "Eclipse Arbiter", "3+2V×4")) <= LABEL_MAX
    assert card_label("▼", None, "?V") == "▼? ?V"


def _public_lines(seed: bytes) -> list[str]:
    """Every line of a random game told to the public."""
    play, pick, lines = _play(seed), HashBelow(seed + b"/pick"), []
    while not isinstance(VERSUS.decision(play.state), Finished):
        before = play.state
        inp = play.advance(lambda view, legal, seat: legal[pick.below(len(legal))])
        lines += VERSUS.narrate(before, inp, play.state, None, None)
    return lines


def test_a_battle_is_told_with_the_values_and_the_rule() -> None:
    battle = re.compile(r"Battle on [a-e][1-4]: .+ \((\d)(?:[+-]\d)?\) vs .+: "
                        r"(?:(\d) beats (\d), .+ destroyed|equal Strength \((\d) each\))")
    seen = 0
    for i in range(4):
        for line in _public_lines(b"battle-%d" % i):
            m = battle.match(line)
            if m is not None:
                seen += 1
                if m.group(2):
                    assert int(m.group(2)) > int(m.group(3)), line
    assert seen >= 5


def test_public_narration_never_says_you() -> None:
    for i in range(3):
        lines = _public_lines(b"told-%d" % i)
        for line in lines:
            assert not re.search(r"\b(you|your|opponent)\b", line, re.I), line
        assert lines[-1].startswith("Game over: ") and "player " in lines[-1]


def test_every_input_is_told() -> None:
    play, pick = _play(b"every"), HashBelow(b"every")
    while not isinstance(VERSUS.decision(play.state), Finished):
        before = play.state
        inp = play.advance(lambda view, legal, seat: legal[pick.below(len(legal))])
        for viewer in (0, 1, None):
            knowledge = None if viewer is None else play.knowledge[viewer]
            assert VERSUS.narrate(before, inp, play.state, viewer, knowledge), inp


def test_the_finished_scene_names_the_winner_and_why() -> None:
    results = []
    for play, d in _games(3):
        if not isinstance(d, Finished):
            continue
        public = VERSUS.scene(play.state, None, None)
        assert public.result is not None and public.inputs == ()
        if d.winner is not None:
            assert public.result.startswith(f"Player {d.winner + 1} wins: ")
            mine = VERSUS.scene(play.state, d.winner, play.knowledge[d.winner])
            theirs = VERSUS.scene(play.state, 1 - d.winner, play.knowledge[1 - d.winner])
            assert mine.result is not None and mine.result.startswith("You win: ")
            assert theirs.result is not None and theirs.result.startswith(
                "The opponent wins: ")
        results.append(public.result)
    assert all(": " in r and r.endswith(".") for r in results) and results


def test_inputs_that_do_nothing_or_waste_a_card_are_noted() -> None:
    from versus.engine.versus42.actions import ActionKind
    from versus.engine.versus42.narrate import no_effect

    kinds = set()
    for play, d in _games(4):
        if isinstance(d, Finished):
            continue
        state = play.state
        scene = VERSUS.scene(state, d.player, play.knowledge[d.player])
        for line, why in scene.notes:
            inp = VERSUS.parse_input(line)
            kinds.add(inp.kind)
            if inp.kind is ActionKind.ACTIVATE:
                assert no_effect(state, inp, VERSUS.step(state, inp)) == why
            else:
                where = inp.to if inp.kind is ActionKind.MOVE else inp.area
                there = state.card_at(where)
                assert there is not None and state.owner(there) == d.player
                assert "your own card" in why
    assert {ActionKind.ACTIVATE, ActionKind.MOVE} <= kinds


def test_rules_text_fits_the_table() -> None:
    text = VERSUS.rules_text(RULES)
    lines = text.splitlines()
    assert 25 <= len(lines) <= 60 and all(len(line) <= 78 for line in lines)
    for example in ("summon 7 b2 recto", "flip c3", "activate b2 c3", "move c3 c4", "end",
                    "pick 5"):
        assert example in text
