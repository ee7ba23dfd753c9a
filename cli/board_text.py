# Plain-text rendering of a player's view of the field, reusable by the demo, the terminal UI
# and logs. Row 4 (player 1's Backline) is printed on top, row 1 (player 0's) at the bottom.
# Each area shows its tile (W White, K Black, G Gray, B Blue) and the card standing there:
# owner, Strength as the terminal UI and the narration write it (printed+bonus, or ? if hidden
# from the viewer), R/V for recto/verso, ×k absorbed cards.
from __future__ import annotations

from versus.engine.versus42 import PlayerView, Tile
from versus.engine.versus42.views import FieldCard, strength_label

CELL = 12

#: printed once above a sequence of boards, so a reader can decode the cells
LEGEND = ("tiles: W White, K Black, G Gray, B Blue.  cards: P1:4+1R×2 = player 1's card, "
          "Strength 4 +1 bonus, recto, 2 cards absorbed; P0:?V = a face-down card hidden from "
          "this view")


def _cell(tile: int, card: str) -> str:
    return f"{Tile(tile).letter} {card}".ljust(CELL)


def card_text(view: PlayerView, fc: FieldCard) -> str:
    """'P1:4+1R×2': owner, Strength (printed+bonus, ? if hidden), face, absorbed cards."""
    if fc.card_id is None or fc.strength is None:
        strength = "?"
    else:
        strength = strength_label(view.public_state.cat[fc.card_id].strength, fc.strength)
    absorbed = f"×{fc.level}" if fc.level else ""
    return f"P{fc.owner}:{strength}{'R' if fc.recto else 'V'}{absorbed}"


def render_board(view: PlayerView) -> str:
    geom = view.geometry
    cards = {fc.area: fc for fc in view.field}
    lines = []
    header = "    " + "".join(chr(ord("a") + c).ljust(CELL) for c in range(geom.cols))
    lines.append(header.rstrip())
    for r in range(geom.rows - 1, -1, -1):
        row = []
        for c in range(geom.cols):
            i = r * geom.cols + c
            fc = cards.get(geom.names[i])
            row.append(_cell(view.tiles[i], "." if fc is None else card_text(view, fc)))
        lines.append(f"{r + 1}   " + "".join(row).rstrip())
    for p in (0, 1):
        lines.append(f"player {p}: deck {view.deck_count(p)}, hand "
                     f"{len(view.hand_handles(p))}, cards left {view.alive(p)}")
    return "\n".join(lines)
