# Helpers for the multiverse rule tests: a game driven with chosen cards.
#
# A handle is a deal position, so "which card is dealt" is decided when the card is revealed:
# PLAN maps the handles the test chose cards for to those cards (the k-th card of `power` is
# the k-th Power card dealt), and every REVEAL answers with the planned card, or the first card
# the deck still holds when the test chose none.
from __future__ import annotations

from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.multiverse import engine as E

CALM = ["mirror-wastes", "star-harbor", "glass-canyon"]
PLAN: dict[int, str] = {}


def start(power: list[str], *, bgs: list[str] | None = None, difficulty: str = "easy",
          deck: int = 60):
    """A game whose Power deals follow `power` (card ids, in deal order: player defense x3,
    Multiverse rows, hand x6, then later draws), battleground deals `bgs` (default calm);
    runs until a TURN, CHOICE or CHANCE (or the end)."""
    PLAN.clear()
    rules = G.rules_from_options({"difficulty": difficulty, "deck": deck})
    s = G.new_game(Setup(rules, G.default_catalogue(), b"t"))
    return advance(s, list(power), list(bgs or CALM))


def advance(s, power: list[str], bgs: list[str] | None = None):
    """Answer deals (the next position; the planned card from `power`/`bgs`) and reveals (the
    planned card) until a TURN, CHOICE or CHANCE."""
    bgs = bgs if bgs is not None else []
    while not isinstance(d := G.decision(s), Finished):
        if d.kind is DecisionKind.DEAL:
            h = E.next_handle(s.d, s.rules, s.cat, d.deck)
            want = power if d.deck == 0 else bgs
            if want:
                PLAN[h] = want.pop(0)
            s = G.step(s, G.deal_input(h))
        elif d.kind is DecisionKind.REVEAL:
            deck = E.deck_of(s.rules, s.cat, d.handle)
            s = G.step(s, G.reveal_input(d.handle, PLAN.get(d.handle)
                                         or G.unrevealed(s, deck)[0]))
        else:
            return s
    return s


def card(s, h: int) -> str:
    """The card of `h`: revealed, or the one the test planned for it."""
    return s.d["known"].get(str(h)) or PLAN[h]


def hand_ids(s) -> list[str]:
    return [card(s, h) for h in s.d["hand"]]


def handle_in_hand(s, cid: str) -> int:
    return next(h for h in s.d["hand"] if card(s, h) == cid)
