# Positions that present the decisions random Versus games reach rarely: the two choice kinds,
# discard-from-hand and discard-from-field (the game's `check_positions`, engine/shell.py).
# `versus bot-check` presents each to a bot, so a bot author sees both before a tournament.
from __future__ import annotations

from typing import Any


def check_positions() -> dict[str, tuple[Any, int, Any]]:
    """{"choice KIND": (state, seat, that seat's knowledge)} for both choice kinds."""
    from .views import Knowledge

    return {f"choice {kind}": (choice_position(kind), 1, Knowledge(1))
            for kind in ("discard-from-hand", "discard-from-field")}


def choice_position(kind: str) -> Any:
    """A state whose decision is player 1's choice `kind` (discard-from-hand: its deck is
    empty, two hand cards; discard-from-field: deck and hand empty, two field cards)."""
    from .catalogue import default_catalogue
    from .positions import PositionBuilder

    cards = [c.id for c in default_catalogue().cards]
    b = PositionBuilder(tiles="GGGGG GGGGG GGGGG GGGGB", active=1, turn=1)
    b.field(0, "a1", cards[0])
    if kind == "discard-from-hand":
        b.field(1, "e4", cards[1])
        options = [b.hand(1), b.hand(1)]
    else:
        options = [b.field(1, "e4", cards[1]), b.field(1, "d4", cards[2])]
    for h in b.unplaced(1):
        b.eliminated(1, handle=h)
    b.decision = {"kind": "choice", "player": 1, "choice": kind, "options": sorted(options)}
    return b.build()
