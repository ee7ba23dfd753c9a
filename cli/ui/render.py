# Pure rendering of a scene (engine/scene.py) into prompt-toolkit formatted text (lists of
# (style, text[, mouse handler]) fragments). No Application state here: the app passes the
# scene, the cursor and the click callbacks; tests call these directly. Nothing here knows a
# game: a board is a grid of cells, a zone a row of cards, a card its face and text.
#
# Widths. The board's cells have a width and height chosen for the room there is
# (`board_cells`); every other text is wrapped at word boundaries to the width of the window it
# is drawn in (`wrap_fragments`, used by cli/ui/controls.py), so no text ever widens a column or
# breaks a word. Where a text cannot fit it is cut with "…", never silently: a card's label in
# a cell, the header's parts, a box taller than its window.
#
# Colour is never the only signal (cli/ui/theme.py): a cell's ground is its shade's colour AND
# its shade's word (or its place's label) where the cell has room, its coordinates are written
# at the edges of the board, a card's label carries its owner's mark (the game writes ▲/▼ or
# "1:"), and the cursor cell is marked ▶.
from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence

from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from versus.engine.scene import Board, Card, Cell, Scene, Zone, fit_label

from ..client import ClockState, Connection, ConnectionStatus
from .theme import shade_class

Fragments = StyleAndTextTuples
Click = Callable[[], None]
CURSOR_MARK = "▶"
MESSAGE_MARKS = {"class:error": "✖ ", "class:warn": "⚠ ", "class:ok": "✔ "}
MAX_CELL_W = 16  # characters per cell, its separating space included
MIN_CELL_W = 4


def ellipsize(text: str, width: int) -> str:
    """`text` cut to `width` characters with a final "…" when it is longer (the scene's own
    `fit_label`; nothing at all in no room)."""
    return fit_label(text, width) if width > 0 else ""


def on_click(action: Click) -> Callable[[MouseEvent], object]:
    """A fragment's mouse handler: `action` on a click (button released)."""
    def handler(event: MouseEvent) -> object:
        if event.event_type != MouseEventType.MOUSE_UP:
            return NotImplemented
        action()
        return None
    return handler


def clock_text(clocks: ClockState | None, seat: int, now: float | None = None) -> str:
    if clocks is None:
        return "untimed"
    ms = clocks.now_ms(seat, now)
    mins, secs = divmod(ms // 1000, 60)
    run = " ▶" if clocks.running == seat else ""
    return f"{mins}:{secs:02d}{run}"


def connection_fragments(status: ConnectionStatus, now: float | None = None) -> Fragments:
    reason = user_words(status.reason)
    if status.state is Connection.CONNECTED:
        return [("class:ok", "● connected"), ("class:dim", f"  {reason}")]
    if status.state is Connection.CONNECTING:
        return [("class:warn", f"… {reason}")]
    if status.state is Connection.RECONNECTING:
        left = max(0, int((status.deadline or 0) - (time.monotonic() if now is None else now)))
        return [("class:warn", f"⟳ connection lost: resuming, {left} s left"),
                ("class:dim", f"  {reason}")]
    return [("class:error", "✖ closed"), ("class:dim", f"  {reason}")]


def user_words(text: str) -> str:
    """The UI calls a side a "player" everywhere; protocol texts (results, faults) say "seat"."""
    def swap(m: re.Match[str]) -> str:
        word = "Player" if m.group(1) == "S" else "player"
        return word + m.group(2)

    return re.sub(r"\b([Ss])eat(s?)\b", swap, text)


def fit_parts(parts: list[tuple[str, str, int]], width: int) -> Fragments:
    """One line of parts (style, text, priority) in their order, dropping the lowest priority
    parts (the highest numbers) until it fits `width`; the rest is cut with "…"."""
    kept = list(parts)
    while len(kept) > 1 and sum(len(t) for _, t, _ in kept) > width:
        worst = max(range(len(kept)), key=lambda i: (kept[i][2], i))
        del kept[worst]
    out: Fragments = []
    room = width
    for style, text, _ in kept:
        piece = ellipsize(text, room) if len(text) > room else text
        out.append((style, piece))
        room -= len(piece)
        if room <= 0:
            break
    return out


# --- word wrapping -----------------------------------------------------------------------------


def wrap_fragments(fragments: Fragments, width: int) -> Fragments:
    """Wrap each line at word boundaries to `width` columns, keeping styles and mouse
    handlers; continuation lines keep the line's leading indent. Only a word longer than a
    whole line is broken."""
    width = max(1, width)
    out: Fragments = []
    for n, line in enumerate(split_lines(fragments)):
        if n:
            out.append(("", "\n"))
        out += _wrap_line(list(line), width)
    return out


def rows_of(fragments: Fragments, width: int) -> int:
    """How many rows `fragments` take wrapped to `width` (a final newline makes none)."""
    text = "".join(f[1] for f in wrap_fragments(fragments, width))
    return len(text.rstrip("\n").split("\n")) if text.strip("\n") else 1


Char = tuple[str, str, object]  # (style, one character, mouse handler or None)
NOBREAK = "class:nobreak"


def _wrap_line(line: Fragments, width: int) -> Fragments:
    if sum(len(f[1]) for f in line) <= width:
        return line
    if len(line) == 1 and len(line[0]) == 2 and NOBREAK not in line[0][0]:
        style, text = line[0]  # the common case (a log line): plain string work
        rows = _wrap_text(text, width)
        out: Fragments = []
        for k, row in enumerate(rows):
            out += [("", "\n"), (style, row)] if k else [(style, row)]
        return out
    chars: list[Char] = [(f[0], ch, f[2] if len(f) > 2 else None) for f in line for ch in f[1]]
    lead = 0
    while lead < len(chars) and chars[lead][1] == " ":
        lead += 1
    indent = min(_hanging_indent(chars, lead), width // 2)
    rows: list[list[Char]] = []
    cur: list[Char] = chars[:min(lead, width)]
    start = len(cur)  # where the text of the current row begins
    gap: list[Char] = []
    for token in _tokens(chars[lead:]):
        if _is_gap(token[0]):
            gap = token
            continue
        if len(cur) > start and len(cur) + len(gap) + len(token) > width:
            rows.append(cur)
            cur, start, gap = [(token[0][0], " ", None)] * indent, indent, []
        cur += gap
        gap = []
        if len(cur) == start > indent and len(cur) + len(token) > width >= indent + len(token):
            cur, start = cur[:indent], indent  # a deep first indent gives way to the word
        while len(cur) + len(token) > width:  # a word longer than a line: broken
            room = width - len(cur)
            if room <= 0:
                rows.append(cur)
                cur, start = [(token[0][0], " ", None)] * indent, indent
                continue
            rows.append(cur + token[:room])
            cur, start, token = [(token[0][0], " ", None)] * indent, indent, token[room:]
        cur += token
    rows.append(cur)
    out: Fragments = []
    for k, row in enumerate(rows):
        if k:
            out.append(("", "\n"))
        out += _merge(row)
    return out


def _wrap_text(text: str, width: int) -> list[str]:
    """`_wrap_line` for one plain string: the same rows."""
    lead = len(text) - len(text.lstrip(" "))
    indent = " " * min(_hanging_indent(text, lead), width // 2)
    rows: list[str] = []
    cur = text[:min(lead, width)]
    start = len(cur)
    gap = ""
    for token in re.findall(r" +|[^ ]+", text[lead:]):
        if token[0] == " ":
            gap = token
            continue
        if len(cur) > start and len(cur) + len(gap) + len(token) > width:
            rows.append(cur)
            cur, start, gap = indent, len(indent), ""
        cur += gap
        gap = ""
        if len(cur) == start > len(indent) and len(cur) + len(token) > width >= (
                len(indent) + len(token)):
            cur, start = indent, len(indent)  # a deep first indent gives way to the word
        while len(cur) + len(token) > width:  # a word longer than a line: broken
            room = width - len(cur)
            if room <= 0:
                rows.append(cur)
                cur, start = indent, len(indent)
                continue
            rows.append(cur + token[:room])
            cur, start, token = indent, len(indent), token[room:]
        cur += token
    rows.append(cur)
    return rows


def _hanging_indent(chars: list[Char] | str, lead: int) -> int:
    """Where continuation lines start: under the second column of a table-like line (a
    term, two or more spaces, its description), else under the line's own indent."""
    text = chars if isinstance(chars, str) else "".join(c[1] for c in chars)
    gap = text.find("  ", lead)
    if gap <= lead:
        return lead
    column = len(text) - len(text[gap:].lstrip(" "))
    return column if column < len(text) else lead


def _is_gap(c: Char) -> bool:
    """A space lines may break at; one styled `class:nobreak` is not (it keeps a short
    phrase, like a hand card's entry, on one line)."""
    return c[1] == " " and NOBREAK not in c[0]


def _tokens(chars: list[Char]) -> list[list[Char]]:
    """Runs of spaces and runs of other characters."""
    tokens: list[list[Char]] = []
    for c in chars:
        if tokens and _is_gap(tokens[-1][0]) == _is_gap(c):
            tokens[-1].append(c)
        else:
            tokens.append([c])
    return tokens


def _merge(chars: list[Char]) -> Fragments:
    out: Fragments = []
    for style, ch, handler in chars:
        if out and out[-1][0] == style and (out[-1][2] if len(out[-1]) > 2 else None) is handler:
            last = out[-1]
            out[-1] = (last[0], last[1] + ch, *last[2:])  # type: ignore[assignment]
        else:
            out.append((style, ch) if handler is None else (style, ch, handler))  # type: ignore[arg-type]
    return out




# --- the board -------------------------------------------------------------------------------


def row_label_width(board: Board) -> int:
    return max((len(r) for r in board.rows), default=1) + 1


def board_cells(board: Board, width: int, height: int) -> tuple[int, int]:
    """(cell width, cell height) of `board` drawn in `width` x `height` characters: as wide
    as fits (MIN_CELL_W..MAX_CELL_W), and three lines a cell (ref and shade, top card, place)
    when they fit, else two, else one (the column letters take one more line)."""
    cols = max(1, len(board.columns))
    cell_w = max(MIN_CELL_W, min(MAX_CELL_W, (width - row_label_width(board)) // cols))
    rows = max(1, len(board.rows))
    cell_h = next((h for h in (3, 2) if rows * h + 1 <= height), 1)
    return cell_w, cell_h


def board_size(board: Board, cell_w: int, cell_h: int) -> tuple[int, int]:
    """(columns, lines) the board takes drawn with these cells."""
    return (row_label_width(board) + cell_w * len(board.columns),
            1 + cell_h * len(board.rows))


def render_board(board: Board, cursor: tuple[int, int] | None, cell_w: int, cell_h: int,
                 seat: int | None = None, click: Callable[[int, int], None] | None = None
                 ) -> Fragments:
    """The board as styled fragments: the column labels, then each row of cells (see
    `cell_lines`); `click(row, col)` is called when a cell is clicked."""
    label_w = row_label_width(board)
    out: Fragments = [("", " " * label_w)]
    for c in board.columns:
        out.append(("class:title", ellipsize(c, cell_w - 1).ljust(cell_w)))
    out.append(("", "\n"))
    for r, row_label in enumerate(board.rows):
        for line in range(cell_h):
            label = row_label if line == (cell_h - 1) // 2 else ""
            out.append(("class:title", label.rjust(label_w - 1) + " "))
            for c, cell in enumerate(board.row(r)):
                handler = on_click(lambda r=r, c=c: click(r, c)) if click is not None else None
                is_cursor = cursor == (r, c)
                style = shade_class(cell.shade) + (" class:cursor" if is_cursor else "")
                text, own = cell_line(cell, line, cell_h, cell_w - 1, is_cursor, seat)
                out.append(_with_handler((style + own, text), handler))
                out.append(("", " "))
            out.append(("", "\n"))
    return out


def cell_line(cell: Cell, line: int, cell_h: int, width: int, is_cursor: bool,
              seat: int | None) -> tuple[str, str]:
    """(text of `width` characters, extra style) of one line of a cell. Three lines: the
    cursor mark, the ref and the shade word; the top card's label (+k when more cards stand
    there); the place's label, or the rest of a card's label too long for one line. One
    line: the mark and the top card's label, else the shade."""
    mark = CURSOR_MARK if is_cursor else " "
    top = cell.cards[0] if cell.cards else None
    card_text = more = ""
    own = ""
    if top is not None:
        more = f" +{len(cell.cards) - 1}" if len(cell.cards) > 1 else ""
        card_text = ellipsize(top.label, width - 1 - len(more)) + more
        if top.owner is not None and seat is not None:
            own = " class:mine" if top.owner == seat else " class:theirs"
    ground = cell.shade or (cell.label if cell.label != cell.ref else "")
    if cell_h == 1:
        return ellipsize(mark + (card_text or ground or "·"), width).ljust(width), own
    if line == 0:
        room = width - 1 - len(cell.ref)
        word = ellipsize(ground, room - 1).rjust(room) if room > 2 and ground else ""
        return ellipsize(f"{mark}{cell.ref}{word}", width).ljust(width), ""
    if top is not None and cell_h == 3:
        # A card's label too long for its line goes on in the place's line (the first line
        # already says the ground): "▼Oracle Owl" / "3+1R", never "▼Oracl… 3…".
        first, rest = split_label(top.label + more, width - 1)
        return (" " + (first if line == 1 else rest)).ljust(width), own
    if line == 1:
        return (" " + card_text).ljust(width)[:width], own
    place = cell.label if cell.label != ground or top is not None else ""
    return (" " + ellipsize(place, width - 1)).ljust(width), ""


def split_label(text: str, width: int) -> tuple[str, str]:
    """`text` on two lines of `width`: whole on the first when it fits, else cut at the last
    space that fits (or at `width`), the rest on the second, cut with "…" if still too long."""
    if len(text) <= width:
        return text, ""
    cut = text.rfind(" ", 0, width + 1)
    if cut <= 0:
        cut = width
    return text[:cut].rstrip(), ellipsize(text[cut:].strip(), width)


def _with_handler(fragment: OneStyleAndTextTuple,
                  handler: Callable[[MouseEvent], object] | None) -> OneStyleAndTextTuple:
    if handler is None:
        return fragment
    return (fragment[0], fragment[1], handler)


# --- cards, zones and the hand ---------------------------------------------------------------


def card_fragments(card: Card, indent: str = "  ") -> Fragments:
    """A card's full text: its face line (name, kind, numbers), its marks, its rules text."""
    if card.face is None:
        return [("class:title", f"{card.ref}: {card.label}"),
                ("class:dim", " (hidden)\n")]
    marks = f" [{', '.join(card.status)}]" if card.status else ""
    out: Fragments = [("class:title", f"{card.ref}: {card.face.line()}"),
                      ("class:dim", f"{marks}\n")]
    for para in card.face.text.split("\n"):
        if para.strip():
            out.append(("", f"{indent}{para.strip()}\n"))
    return out


def card_entry(card: Card) -> str:
    """A card in a list: its face's line (name, kind, numbers), its label when hidden."""
    return card.label if card.face is None else card.face.line()


def _named(card: Card) -> str:
    """How inputs name a hand card, before its name: the key [N] selects it, the inputs say
    its ref ("card 12: ..."), so a player who types sees which number to type."""
    return f"card {card.ref}: " if card.ref.isdigit() else ""


def _card_text(card: Card) -> Fragments:
    out: Fragments = []
    if card.status:
        out.append(("class:dim", f"     [{', '.join(card.status)}]\n"))
    if card.face is not None and card.face.text:
        out += [("", f"     {p.strip()}\n") for p in card.face.text.split("\n") if p.strip()]
    return out


def hand_fragments(zone: Zone, selected: int | None, with_text: bool | None,
                   click: Callable[[int], None] | None = None,
                   selected_text: bool = False) -> Fragments:
    """The hand, one card a line: its key [1-9] (what the number keys and a click pick), its
    label and face. `with_text`: True every card's rules text, None the selected card's only,
    False none (the compact form: all cards on as few lines as the width allows; with
    `selected_text`, the selected card's text below them)."""
    hidden = zone.size - len(zone.cards)
    head = f"{zone.name} ({zone.size}{f', {hidden} hidden' if hidden else ''})"
    out: Fragments = [("class:title", head),
                      ("class:dim", " · keys 1-9 or ↓ select" if zone.cards else "")]
    if with_text is False:
        out.append(("", ": "))
        for i, card in enumerate(zone.cards):
            handler = on_click(lambda n=i: click(n)) if click is not None else None
            sel = i == selected
            name = card.label if card.face is None else card.face.name
            text = f"{CURSOR_MARK if sel else ''}[{i + 1}] {_named(card)}{name}"
            style = "class:nobreak" + (" class:cursor" if sel else " class:mine")
            out += [("class:dim", " · ") if i else ("", ""),
                    _with_handler((style, text), handler)]
        out.append(("", "\n"))
        if selected_text and selected is not None and selected < len(zone.cards):
            card = zone.cards[selected]
            out += [("class:mine", f"  {card_entry(card)}\n"), *_card_text(card)]
        return out
    out.append(("", "\n"))
    if not zone.cards:
        out.append(("class:dim", "  (empty)\n"))
    for i, card in enumerate(zone.cards):
        handler = on_click(lambda n=i: click(n)) if click is not None else None
        sel = i == selected
        line: Fragments = [("class:cursor" if sel else "class:mine",
                            f"{CURSOR_MARK if sel else ' '}[{i + 1}] {_named(card)}"
                            f"{card_entry(card)}"),
                           ("", "\n")]
        if with_text or (with_text is None and sel):
            line += _card_text(card)
        out += [_with_handler(f, handler) for f in line]
    return out


def zones_fragments(zones: Sequence[Zone], selected: str | None = None) -> Fragments:
    """Every zone but the hand as one compact line: its name, its count, its visible cards
    (the `selected` one marked ▶)."""
    out: Fragments = []
    for zone in zones:
        if zone.hand:
            continue
        out += [("class:title", f"{zone.name}"), ("", f" ({zone.size})")]
        for i, card in enumerate(zone.cards):
            sel = card.ref == selected
            out += [("", ": " if i == 0 else ", "),
                    ("class:cursor" if sel else "", f"{CURSOR_MARK if sel else ''}{card.label}")]
        out.append(("", "\n"))
    return out


def cell_fragments(cell: Cell, with_text: bool = True) -> Fragments:
    """What stands on a cell: its ref and place, each card (with its text when asked)."""
    where = " · ".join(x for x in (cell.label, cell.shade) if x)
    out: Fragments = [("class:title", f"{CURSOR_MARK}{cell.ref}"),
                      ("class:dim", f" {where}" if where else "")]
    if not cell.cards:
        out.append(("class:dim", ": empty\n"))
    else:
        out.append(("", "\n"))
    for card in cell.cards:
        if with_text:
            out += card_fragments(card)
        else:  # its marks too: a number on the board ("4+1") is explained there
            marks = f" [{', '.join(card.status)}]" if card.status else ""
            out += [("", f"  {card.ref}: {card_entry(card)}"), ("class:dim", f"{marks}\n")]
    return out


def offers_fragments(inputs: Sequence[str], scene: Scene) -> Fragments:
    """The inputs a selected place or card takes now (Enter or a click offers them)."""
    if not inputs:
        return []
    shown = ", ".join(inputs[:8]) + (f", … ({len(inputs)} in all)" if len(inputs) > 8 else "")
    return [("class:info", f"Inputs here: {shown}\n")]


def status_fragments(scene: Scene) -> Fragments:
    return [("", "\n".join(scene.status) + ("\n" if scene.status else ""))]

