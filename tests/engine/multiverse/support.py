# Helpers for the multiverse rule tests: a game driven with chosen cards.
from __future__ import annotations

from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.multiverse import MULTIVERSE as G

CALM = ["mirror-wastes", "star-harbor", "glass-canyon"]


def start(power: list[str], *, bgs: list[str] | None = None, difficulty: str = "easy",
          deck: int = 60):
    """A game whose Power deals follow `power` (card ids, in deal order: player defense x3,
    Multiverse rows, hand x6, then later draws), battleground deals `bgs` (default calm);
    runs until a TURN, CHOICE or CHANCE (or the end)."""
    rules = G.rules_from_options({"difficulty": difficulty, "deck": deck})
    s = G.new_game(Setup(rules, G.default_catalogue(), b"t"))
    return advance(s, list(power), list(bgs or CALM))


def advance(s, power: list[str], bgs: list[str] | None = None):
    bgs = bgs if bgs is not None else []
    while not isinstance(d := G.decision(s), Finished):
        if d.kind is DecisionKind.DEAL:
            left = G.undealt(s, d.deck)
            want = (power if d.deck == 0 else bgs)
            pick = left[0]
            if want:
                cid = want.pop(0)
                pick = next(h for h in left if G.card_of(s, h) == cid)
            s = G.step(s, G.deal_input(pick))
        elif d.kind is DecisionKind.REVEAL:
            s = G.step(s, G.reveal_input(d.handle, G.card_of(s, d.handle)))
        else:
            return s
    return s


def hand_ids(s) -> list[str]:
    return [G.card_of(s, h) for h in s.d["hand"]]


def handle_in_hand(s, cid: str) -> int:
    return next(h for h in s.d["hand"] if G.card_of(s, h) == cid)
