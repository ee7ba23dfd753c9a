# A text rendering of a grid-game view for the line terminal (cli/line_ui.py), the game's
# `describe_view`.
#
# What it shows: the board as a grid of cells (top row first: player 1's home base, then down
# to player 0's on row 1), each cell naming its card's controller, face and handle; then one
# line per card on the grid that the viewer may know (face up, or its own face-down cards)
# with its name, element and side values; the viewer's hand, the opponent's hand size, the
# decks, the graveyards and the modifiers in play.
#
# Why it never leaks: everything printed comes from the `GridView` (views.py), which
# holds a card identity only when it is public or the viewer's own (its knowledge); a cell or
# hand card the view leaves as None is printed as "?" with its public handle only.
from __future__ import annotations

from typing import Any

from ..api import Finished

COLUMNS = "abcdef"
FACE_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def _catalogue() -> Any:
    from .cards import default_catalogue

    return default_catalogue()


def _value(v: int) -> str:
    return FACE_NAMES.get(v, str(v))


def card_text(cat: Any, card_id: str | None) -> str:
    """A card's name and short rules (its id when the card data lacks it; "?" if hidden)."""
    if card_id is None:
        return "? (hidden)"
    card = cat.index.get(card_id)
    if card is None:
        return card_id
    c = cat.cards[card]
    if c.kind.value == "character":
        sides = "/".join(_value(v) for v in c.sides)
        return f"{c.name} [{c.element.value} {sides}]"
    return f"{c.name} ({c.text})"


def _who(controller: int, viewer: int) -> str:
    return "you" if controller == viewer else "opp"


def render_view(view: Any, catalogue: Any = None) -> str:
    """The view as text lines (see the module note)."""
    cat = catalogue if catalogue is not None else _catalogue()
    p, size = view.player, view.size
    lines: list[str] = []
    d = view.decision
    if isinstance(d, Finished):
        status = "game over: " + ("a draw" if d.winner is None else "you win" if d.winner == p
                                  else "you lose") + f" ({d.outcome})"
    else:
        whose = "your" if view.active == p else "the opponent's"
        status = f"turn {view.turn + 1}, {whose} turn"
        if d.player is not None and d.kind.value == "choice":
            status += f"; {'you choose' if d.player == p else 'the opponent chooses'}: {d.label}"
    home = 1 if p == 0 else size
    lines.append(f"grid {size}x{size}: you are player {p + 1} (your home base: row {home}); "
                 f"{status}")
    cells = {c.cell: c for c in view.grid}
    width = 7
    lines.append("    " + "".join(f"{COLUMNS[i]:^{width}}" for i in range(size)))
    rule = "   +" + ("-" * (width - 1) + "+") * size
    lines.append(rule)
    for row in range(size, 0, -1):
        tokens = []
        for col in range(size):
            c = cells.get(f"{COLUMNS[col]}{row}")
            if c is None:
                tokens.append(" " * (width - 1))
            else:
                owner = "Y" if c.controller == p else "O"
                face = "^" if c.up else "v"
                tokens.append(f"{owner}{face}{c.handle}".center(width - 1))
        note = ""
        if row == home:
            note = "  your home base"
        elif row == (size if p == 0 else 1):
            note = "  opponent's home base"
        lines.append(f"{row:>2} |" + "|".join(tokens) + "|" + note)
        lines.append(rule)
    lines.append("  Y: yours, O: the opponent's; ^ face up, v face down; the number is the "
                 "card's handle")
    for c in sorted(view.grid, key=lambda c: (c.cell[1], c.cell[0])):
        extra = []
        if c.weaken:
            extra.append(f"-{c.weaken}")
        if c.boost:
            extra.append(f"+{c.boost}")
        if c.shield:
            extra.append("shielded")
        face = "face up" if c.up else "face down"
        more = f" ({', '.join(extra)})" if extra else ""
        lines.append(f"  {c.cell} #{c.handle} {_who(c.controller, p)} {face}: "
                     f"{card_text(cat, c.card)}{more}")
    hand = ", ".join(f"#{h} {card_text(cat, cid)}" for h, cid in view.hand) or "empty"
    lines.append(f"your hand: {hand}")
    lines.append(f"opponent's hand: {len(view.opponent_hand)} card(s)")
    if len(view.decks) == 1:
        lines.append(f"shared deck: {view.decks[0]} card(s)")
    else:
        lines.append(f"decks: yours {view.decks[p]}, opponent's {view.decks[1 - p]}")
    for i, g in enumerate(view.graveyards):
        owner = "shared" if len(view.graveyards) == 1 else ("your" if i == p else "opponent's")
        names = ", ".join(card_text(cat, cid).split(" [")[0].split(" (")[0] for _, cid in g)
        lines.append(f"{owner} graveyard ({len(g)}): {names or '-'}")
    if view.modifiers:
        lines.append("modifiers in play: " + "; ".join(card_text(cat, cid)
                                                       for _, cid in view.modifiers))
    return "\n".join(lines)


__all__ = ["card_text", "render_view"]
