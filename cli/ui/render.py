# Pure rendering of a player's view into prompt-toolkit formatted text (lists of
# (style, text[, mouse handler]) fragments). No Application state here: the app passes the view,
# the client's getters, the cursor and the click callbacks; tests call these directly. Wording
# of actions and cards lives here too, so the field, the hand, the completion menu and the
# prompts say things alike.
#
# Widths. The field's cells have a fixed width; every other text is wrapped at word boundaries
# to the width of the window it is drawn in (`wrap_fragments`, used by cli/ui/controls.py), so
# no text ever widens a column or breaks a word. Where a text cannot fit it is cut with "…",
# never silently: card names in a cell, the header's parts, a box taller than its window.
#
# Colour is never the only signal (see cli/ui/theme.py): a cell writes its area and tile name,
# a card its owner's mark and word (▲ you / ▼ opp, or P0/P1 in a replay), its Strength as
# printed+bonus, R/V for its face and ×k for the cards it absorbed; the cursor cell has a ▶.
from __future__ import annotations

import re
import time
from collections.abc import Callable

from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

from versus.engine.versus42 import (
    Action,
    ActionKind,
    Catalogue,
    ChoiceDecision,
    ChoiceKind,
    FieldCard,
    PlayerView,
    Tile,
    TurnDecision,
)
from versus.engine.versus42.views import strength_label

from ..client import ClockState, Connection, ConnectionStatus, MatchResult
from .theme import style_rules

CELL_W = 15  # characters per area: a space, then 14 (the longest name that is not cut)
ROW_LABEL_W = 3
Fragments = StyleAndTextTuples
Click = Callable[[], None]

TILE_NAMES = {Tile.WHITE: "White", Tile.BLACK: "Black", Tile.GRAY: "Gray", Tile.BLUE: "Blue"}
TILE_STYLE = {Tile.WHITE: "class:tile.white", Tile.BLACK: "class:tile.black",
              Tile.GRAY: "class:tile.gray", Tile.BLUE: "class:tile.blue"}
CURSOR_MARK = "▶"
OWNER_MARKS = ("▲", "▼")  # the viewer's cards, the opponent's
MESSAGE_MARKS = {"class:error": "✖ ", "class:warn": "⚠ ", "class:ok": "✔ "}

#: the dark theme's rules (the replay and older callers import this name)
STYLE = style_rules("dark", colourless=False)


def field_width(cols: int) -> int:
    return ROW_LABEL_W + CELL_W * cols


def field_height(rows: int, with_header: bool = True) -> int:
    return rows * 3 + (1 if with_header else 0)


def ellipsize(text: str, width: int) -> str:
    """`text` cut to `width` characters with a final "…" when it is longer."""
    if len(text) <= width:
        return text
    return text[: max(0, width - 1)].rstrip() + "…" if width > 0 else ""


def on_click(action: Click) -> Callable[[MouseEvent], object]:
    """A fragment's mouse handler: `action` on a click (button released)."""
    def handler(event: MouseEvent) -> object:
        if event.event_type != MouseEventType.MOUSE_UP:
            return NotImplemented
        action()
        return None
    return handler


def rows_top_down(view: PlayerView) -> list[int]:
    """Row indexes from the top of the screen: the viewer's own side at the bottom."""
    rows = list(range(view.geometry.rows))
    return rows if view.player == 1 else rows[::-1]


def strength_text(view: PlayerView, cat: Catalogue, fc: FieldCard) -> str:
    """'4+1' when bonuses apply, '3' without, '?' when hidden from the viewer."""
    if fc.card_id is None or fc.strength is None:
        return "?"
    return strength_label(cat[fc.card_id].strength, fc.strength)


# --- the field -------------------------------------------------------------------------------


def render_field(view: PlayerView, cat: Catalogue, cursor: str | None,
                 owners: tuple[str, str] | None = None, *,
                 click: Callable[[str], None] | None = None, with_header: bool = True,
                 waiting: str | None = None) -> Fragments:
    """The field as styled fragments. `owners` names the seats ("P0", "P1") where "you" and
    "opp" would mislead, as in a replay seen by nobody in particular. `click(area)` is called
    when an area is clicked. `waiting`: no match yet; a neutral grid (no tiles: the layout is
    not dealt) with this note in its middle."""
    geom = view.geometry
    cards = {fc.area: fc for fc in view.field}
    out: Fragments = []
    if with_header:
        out.append(("", " " * ROW_LABEL_W))
        for c in range(geom.cols):
            out.append(("class:title", f" {chr(ord('a') + c)}".ljust(CELL_W)))
        out.append(("", "\n"))
    order = rows_top_down(view)
    for line_no, r in enumerate(order):
        for line in range(3):
            out.append(("class:title", f" {r + 1} " if line == 1 else " " * ROW_LABEL_W))
            if waiting is not None and line == 1 and line_no == (len(order) - 1) // 2:
                out.append(("class:warn", waiting.center(CELL_W * geom.cols)[:CELL_W * geom.cols]))
                out.append(("", "\n"))
                continue
            for c in range(geom.cols):
                name = geom.names[r * geom.cols + c]
                handler = on_click(lambda a=name: click(a)) if click is not None else None
                if waiting is not None:
                    cell = [("class:tile.none", f" {name}".ljust(CELL_W) if line == 0
                             else " " * CELL_W)]
                else:
                    tile = Tile(view.tiles[r * geom.cols + c])
                    style = TILE_STYLE[tile] + (" class:cursor" if name == cursor else "")
                    cell = _cell_line(view, cat, name, tile, cards.get(name), line, style,
                                      owners, name == cursor)
                out += [_with_handler(f, handler) for f in cell]
            out.append(("", "\n"))
    return out


def _with_handler(fragment: OneStyleAndTextTuple,
                  handler: Callable[[MouseEvent], object] | None) -> OneStyleAndTextTuple:
    if handler is None:
        return fragment
    return (fragment[0], fragment[1], handler)


def _cell_line(view: PlayerView, cat: Catalogue, area: str, tile: Tile, fc: FieldCard | None,
               line: int, style: str, owners: tuple[str, str] | None = None,
               is_cursor: bool = False) -> Fragments:
    inner = CELL_W - 1
    if line == 0:
        lead = CURSOR_MARK if is_cursor else " "
        return [(style, f"{lead}{area}{TILE_NAMES[tile]:>{inner - len(area) - 1}} ")]
    if fc is None:
        return [(style, " " * CELL_W)]
    mine = fc.owner == view.player
    own_style = style + (" class:mine" if mine else " class:theirs")
    if line == 1:
        label = cat[fc.card_id].name if fc.card_id else "(verso)"
        return [(own_style, f" {ellipsize(label, inner):<{inner}}")]
    mark_style = "class:mark.mine" if mine else "class:mark.theirs"
    mark = OWNER_MARKS[0] if mine else OWNER_MARKS[1]
    who = owners[fc.owner] if owners is not None else "you" if mine else "opp"
    text = f"{who} {stats_text(view, cat, fc)}"
    if len(text) > inner - 1:  # the stats and the absorbed count always stay; the word goes
        text = stats_text(view, cat, fc)
    return [(style, " "), (style + " " + mark_style, mark),
            (own_style, f"{text[:inner - 1]:<{inner - 1}}")]


def stats_text(view: PlayerView, cat: Catalogue, fc: FieldCard) -> str:
    """'4+1 R ×2': Strength, face (R recto, V verso), absorbed cards (when there are any)."""
    absorbed = f" ×{fc.level}" if fc.level else ""
    return f"{strength_text(view, cat, fc)} {'R' if fc.recto else 'V'}{absorbed}"


# --- side texts --------------------------------------------------------------------------------


def counts_line(view: PlayerView, player: int, zones: dict[int, tuple[str, str | None]],
                short: bool = False) -> str:
    n = len(zones) // 2
    field = sum(1 for fc in view.field if fc.owner == player)
    gone = n - view.alive(player)
    if short:
        return (f"deck {view.deck_count(player)} hand {len(view.hand_handles(player))} "
                f"field {field} lost {gone}")
    return (f"deck {view.deck_count(player):>2}  hand {len(view.hand_handles(player))}  "
            f"field {field}  eliminated {gone}")


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


def describe_action(view: PlayerView, cat: Catalogue, a: Action) -> str:
    """A few words for the completion menu: what the action does, as the viewer knows it."""
    def at(area: str) -> str:
        fc = next((f for f in view.field if f.area == area), None)
        if fc is None:
            return "empty"
        who = "your" if fc.owner == view.player else "enemy"
        return f"{who} {cat[fc.card_id].name if fc.card_id else 'verso card'}"

    if a.kind == ActionKind.SUMMON:
        cid = view.identity(a.handle)
        name = cat[cid].name if cid else f"card #{a.handle}"
        battle = "" if at(a.area) == "empty" else f" (battle vs {at(a.area)})"
        return f"{name} {'recto' if a.recto else 'verso'}{battle}"
    if a.kind == ActionKind.FLIP:
        return f"flip {at(a.area)}"
    if a.kind == ActionKind.MOVE:
        dest = at(a.to)
        return f"{at(a.area)} → {a.to}" + ("" if dest == "empty" else f" (battle vs {dest})")
    if a.kind == ActionKind.ACTIVATE:
        return f"use {at(a.area)}" + (f" (absorbed #{a.source})" if a.source else "")
    if a.kind == ActionKind.PICK:
        cid = view.identity(a.handle)
        return f"discard {cat[cid].name if cid else f'card #{a.handle}'}"
    return "end your turn"


def hand_fragments(view: PlayerView, cat: Catalogue, with_text: bool = True,
                   click: Callable[[int], None] | None = None) -> Fragments:
    """The hand, one card a line: its key (1-9, what the number keys and a click pick), its
    name, its handle (#h: what typed actions use, `summon h b2 recto`), Energy and Strength,
    and its rules text when `with_text` (wrapped later, to the window's width)."""
    hand = view.hand
    out: Fragments = [("class:title", "Your hand"),
                      ("class:dim", " · [key 1-9] · #handle to type\n")]
    if not hand:
        out.append(("class:dim", "  (empty)\n"))
    for i, (h, cid) in enumerate(hand, 1):
        handler = on_click(lambda n=i: click(n)) if click is not None else None
        line: Fragments
        if cid is None:
            line = [("", f" [{i}] ? #{h}\n")]
        else:
            card = cat[cid]
            line = [("class:mine", f" [{i}] {card.name}"),
                    ("class:dim", f"  #{h}  {card.energy_name.capitalize()} {card.strength}\n")]
            if with_text:
                for para in card.text.replace(" Passive:", "\nPassive:").split("\n"):
                    line.append(("", f"     {para}\n"))
        out += [_with_handler(f, handler) for f in line]
    return out


def hand_compact(view: PlayerView, cat: Catalogue,
                 click: Callable[[int], None] | None = None) -> Fragments:
    """The hand on as few lines as the width allows: '[1] Dawn Moth #0 L3 · ...'."""
    hand = view.hand
    out: Fragments = [("class:title", "Hand"), ("class:dim", " [key] #handle to type: ")]
    if not hand:
        out.append(("class:dim", "(empty)"))
    for i, (h, cid) in enumerate(hand, 1):
        handler = on_click(lambda n=i: click(n)) if click is not None else None
        text = f"[{i}] ? #{h}" if cid is None else (
            f"[{i}] {cat[cid].name} #{h} {cat[cid].energy_name.capitalize()} "
            f"{cat[cid].strength}")
        sep = ("class:dim", " · ") if i > 1 else ("", "")
        out += [sep, _with_handler(("class:mine class:nobreak", text), handler)]
    return [*out, ("", "\n")]


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


# --- prompts -------------------------------------------------------------------------------------


def decision_prompt(view: PlayerView, cat: Catalogue, result: MatchResult | None,
                    status: ConnectionStatus, short: bool = False) -> tuple[str, str]:
    """(style, text) of the line that says what the game waits for (`short`: in fewer
    words, for narrow terminals)."""
    if result is not None:
        return ("class:prompt", f"Game over: {user_words(result.describe(view.player))}. "
                "Enter or q closes.")
    if status.state is Connection.CLOSED:
        return "class:error", f"The match is closed: {user_words(status.reason)}"
    d = view.decision
    if isinstance(d, ChoiceDecision) and d.player == view.player:
        if d.kind is ChoiceKind.DISCARD_FROM_HAND:
            names = ", ".join(f"{i} {_name(view, cat, h)}" for i, h in enumerate(d.options, 1))
            return ("class:prompt", f"Choose a card of your hand to discard: {names} "
                    "(press its number, or pick <handle>)")
        return ("class:prompt", "Choose a card of yours on the field to discard: cursor + Enter "
                "or a click, or pick <handle>")
    if isinstance(d, TurnDecision) and d.player == view.player:
        if short:
            return ("class:prompt", f"Turn {view.turn + 1}: your move. Type or pick an action "
                    "(Tab lists them), or 'end'.")
        return ("class:prompt", f"Turn {view.turn + 1}: your move. Type an action or pick with "
                "the cursor or the mouse; Tab lists the legal ones; 'end' ends the turn.")
    return "class:info", f"Turn {view.turn + 1}: the opponent is playing…"


def _name(view: PlayerView, cat: Catalogue, h: int) -> str:
    cid = view.identity(h)
    return cat[cid].name if cid else f"#{h}"


def cursor_fragments(view: PlayerView, cat: Catalogue, area: str,
                     with_text: bool = True) -> Fragments:
    """What stands on the cursor's area, with its rules text when the viewer knows it."""
    fc = next((f for f in view.field if f.area == area), None)
    i = view.geometry.index[area]
    tile = TILE_NAMES[Tile(view.tiles[i])]
    head = f"Cursor {area} ({tile})"
    if fc is None:
        return [("class:title", head), ("class:dim", ": empty\n")]
    who = "yours" if fc.owner == view.player else "the opponent's"
    if fc.card_id is None:
        return [("class:title", head), ("", f": a verso card, {who}\n")]
    card = cat[fc.card_id]
    face = "recto" if fc.recto else "verso"
    out: Fragments = [("class:title", head),
                      ("", f": {card.name}, {who}, {face}, Strength "
                           f"{strength_text(view, cat, fc)}, absorbed {fc.level}\n")]
    if with_text:
        out.append(("class:dim", f"  {card.text}\n"))
    return out


HELP_TEXT = """\
Versus: terminal UI help

Goal: eliminate all of the opponent's cards (deck, hand and field). Each turn: up to one \
Summon, Flip, Activate and Move, in that order, then end. A turn also ends by itself when \
nothing but 'end' is left (often right after a Move): the log and the message line say so, \
and a line you typed for a turn that has ended is not played.

Actions (the engine notation; Tab completes the legal ones):
  summon <handle> <area> recto|verso    summon 7 b2 recto
  flip <area>                           flip c3
  activate <area>[/k] <targets...>      activate b2 c3
  move <area> <area>                    move b2 b3
  end                                   end the turn
  pick <handle>                         answer a discard choice
A handle is a card's number in the match (#7 in the hand panel); the hand's keys [1]-[9] \
are shortcuts: key 2 puts 'summon <that card's handle> ' on the line.

Keys:
  arrows       move the cursor over the field (▶ marks its area)
  Enter        on an empty line: put the cursor's area on the line (lists what it can do); \
otherwise play the line (a filter matching one action plays it)
  Space        on an empty line or after a space: add the cursor's area
  1-9          on an empty line: pick that card of your hand (summon it, or discard it)
  Tab, S-Tab   next / previous completion
  Esc          close the completion menu; with no menu open, clear the line
  F1           this help (↑/↓, PgUp/PgDn scroll it)
  Ctrl-C       resign or leave
  Mouse        click an area (as the cursor and Space), a card of your hand (as its key), \
or an entry of the completion menu

Tiles (each area writes its tile's name; the colour is its background):
  White    a recto Light card there has +1 Strength
  Black    a recto Dark card there has +1 Strength
  Gray     a verso card there cannot be flipped by the opponent's Flip Action
  Blue     while a recto card (either player's) stands there, Summons are unlimited
Field cells, line by line:
  a4 White         the area and its tile (▶a4: the cursor is on it)
  Dawn Moth        the card's name, cut with … when long; (verso): hidden from you
  ▲you 4+1 R ×2    the owner (▲ you, ▼ opp; P0/P1 in a replay); the Strength: printed, \
then +bonus from the tile, Increases and Passives (? when hidden); R recto or V verso; ×k: k \
cards absorbed (level k)
Messages: ✖ refused, ⚠ notice, ✔ played. Colours: --theme dark, light or contrast; \
NO_COLOR=1 turns them off (everything is also written, not only coloured).
"""
