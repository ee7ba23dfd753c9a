# A game for the UI tests that describes itself with a full scene (engine/scene.py): the toy
# duel (tests/engine/toy_game.py) with a 3x2 board of shaded cells, a hand whose card has a
# long rules text, a deck counted, a discard pile, a chip (a zone card taking an input), a
# wasteful input with its note ("pass"),
# inputs named by a cell and by the hand's card, rules text for F1, and a result said plainly.
# It needs no real game, so the UI's drawing and keys are tested whatever the games' scenes say.
from __future__ import annotations

from typing import Any

from tests.engine.toy_game import CARDS, ToyDuel, ToyState
from versus.engine.api import Finished, Pending
from versus.engine.scene import Board, Card, Cell, Face, Scene, Zone, player_name

LONG_TEXT = ("When this card is revealed at the showdown, compare it with the opponent's card: "
             "the higher card wins the pot, and a roll above half the die's sides adds one to "
             "the first player's card. Folding loses at once.")
RULES = "\n".join(f"Rule {n}: the toy duel is played with three cards and one die, line {n}."
                  for n in range(1, 41))


class SceneDuel(ToyDuel):
    id = "scene-duel"
    title = "Scene duel (tests only)"

    def rules_text(self, rules: int) -> str:
        return RULES

    def scene(self, s: ToyState, seat: int | None, knowledge: Any) -> Scene:
        d = self.decision(s)
        deciding = isinstance(d, Pending) and d.player == seat and d.player is not None \
            and d.kind.value in ("turn", "choice")
        inputs = tuple(self.legal_actions(s)) if deciding else ()
        mine = s.dealt[seat] if seat is not None and len(s.dealt) > seat else None
        known = None if knowledge is None or mine is None else knowledge.cards.get(mine)
        hand_cards = ()
        if known is not None and mine is not None:
            hand_cards = (Card(f"h{mine}", known.capitalize(), Face(
                known.capitalize(), "card", (("Rank", str(CARDS.index(known) + 1)),),
                LONG_TEXT), owner=seat, inputs=inputs),)
        cells = []
        for r, row in enumerate("21"):
            for c, col in enumerate("abc"):
                ref = f"{col}{row}"
                cards = ()
                if ref == "b1" and s.bet:
                    cards = (Card("pot", "▲Pot" if seat == 0 else "▼Pot", Face("Pot"),
                                  owner=0),)
                cells.append(Cell(ref, ("white", "blue", "forest")[(r + c) % 3],
                                  f"Table {ref}", cards, inputs if ref == "b1" else ()))
        board = Board(("a", "b", "c"), ("2", "1"), tuple(cells), "▲ yours, ▼ the opponent's")
        zones = (Zone("Your hand" if seat is not None else "Hands", seat, hand_cards,
                      count=1 if mine is not None else 0, hand=seat is not None),
                 Zone("Deck", None, (), count=3 - len(s.dealt)),
                 Zone("Discard pile", None, (Card("d1", "Old card", Face("Old card", "card",
                                                                          (), "Gone.")),)),
                 Zone("Chips", seat, (Card("chip", "Chip", Face(
                     "Chip", "token", (), "A chip to bet with: betting puts it in the pot."),
                     owner=seat, inputs=tuple(i for i in inputs if i == "bet")),)))
        result = None
        if isinstance(d, Finished):
            who = player_name(d.winner, seat)
            result = (f"A draw: {d.outcome}." if d.winner is None else
                      f"{who[:1].upper()}{who[1:]} {'win' if who == 'you' else 'wins'}: "
                      f"the {d.outcome} decided it.")
        notes = (("pass", "passing gives up the pot for no effect"),) if "pass" in inputs \
            else ()
        return Scene(f"Scene duel · roll {s.roll}", seat,
                     status=(f"Bet: {s.bet or 'none yet'}", f"Answer: {s.answer or '-'}"),
                     board=board, zones=zones,
                     prompt="Bet or pass" if "bet" in inputs else
                     "Call or fold" if "call" in inputs else "",
                     inputs=inputs, notes=notes, result=result)


SCENE_DUEL = SceneDuel()
