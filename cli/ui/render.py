# Pure rendering of a player's view into prompt-toolkit formatted text (lists of
# (style, text) fragments). No Application state here: the app passes the view, the client's
# getters and the cursor; tests can call these directly. Wording of actions and cards lives
# here too, so the field, the hand, the completion menu and the prompts say things alike.
from __future__ import annotations

import time

from versus.engine import (
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

from ..client import ClockState, Connection, ConnectionStatus, MatchResult

CELL_W = 14  # characters per area; 5 areas + the row label fit in 73 columns
Fragments = list[tuple[str, str]]

TILE_NAMES = {Tile.WHITE: "White", Tile.BLACK: "Black", Tile.GRAY: "Gray", Tile.BLUE: "Blue"}
TILE_STYLE = {Tile.WHITE: "class:tile.white", Tile.BLACK: "class:tile.black",
              Tile.GRAY: "class:tile.gray", Tile.BLUE: "class:tile.blue"}

STYLE = {
    "tile.white": "bg:#d7d7d7 fg:#000000",
    "tile.black": "bg:#303030 fg:#ffffff",
    "tile.gray": "bg:#7a7a7a fg:#ffffff",
    "tile.blue": "bg:#2255cc fg:#ffffff",
    "cursor": "reverse",
    "mine": "bold",
    "theirs": "italic",
    "mark.mine": "fg:#00d75f bold",
    "mark.theirs": "fg:#ff5f5f bold",
    "header": "bg:#005f87 fg:#ffffff",
    "title": "bold",
    "dim": "fg:#8a8a8a",
    "error": "fg:#ff5f5f bold",
    "info": "fg:#5fafff",
    "prompt": "bg:#af8700 fg:#000000 bold",
    "warn": "fg:#ffaf00 bold",
    "ok": "fg:#00d75f",
    "log": "",
    "help": "bg:#1c1c1c fg:#ffffff",
    "dialog": "bg:#444444 fg:#ffffff",
    "input-prompt": "bold",
}


def rows_top_down(view: PlayerView) -> list[int]:
    """Row indexes from the top of the screen: the viewer's own side at the bottom."""
    rows = list(range(view.geometry.rows))
    return rows if view.player == 1 else rows[::-1]


def strength_text(view: PlayerView, cat: Catalogue, fc: FieldCard) -> str:
    """'4+1' when bonuses apply, '3' without, '?' when hidden from the viewer."""
    if fc.card_id is None or fc.strength is None:
        return "?"
    printed = cat[fc.card_id].strength
    delta = fc.strength - printed
    return f"{printed}{delta:+d}" if delta else str(printed)


def render_field(view: PlayerView, cat: Catalogue, cursor: str | None,
                 owners: tuple[str, str] | None = None) -> Fragments:
    """The field as styled fragments. `owners` names the seats ("P0", "P1") where "you" and
    "opp" would mislead, as in a replay seen by nobody in particular."""
    geom = view.geometry
    cards = {fc.area: fc for fc in view.field}
    out: Fragments = [("", "   ")]
    for c in range(geom.cols):
        out.append(("class:title", chr(ord("a") + c).center(CELL_W)))
    out.append(("", "\n"))
    for r in rows_top_down(view):
        for line in range(3):
            out.append(("class:title", f" {r + 1} " if line == 1 else "   "))
            for c in range(geom.cols):
                i = r * geom.cols + c
                name = geom.names[i]
                style = TILE_STYLE[Tile(view.tiles[i])]
                if name == cursor:
                    style += " class:cursor"
                out += _cell_line(view, cat, name, Tile(view.tiles[i]), cards.get(name), line,
                                  style, owners)
            out.append(("", "\n"))
    return out


def _cell_line(view: PlayerView, cat: Catalogue, area: str, tile: Tile, fc: FieldCard | None,
               line: int, style: str, owners: tuple[str, str] | None = None) -> Fragments:
    if line == 0:
        return [(style, f" {area}{TILE_NAMES[tile]:>{CELL_W - 4}} ")]
    if fc is None:
        return [(style, " " * CELL_W)]
    mine = fc.owner == view.player
    own_style = style + (" class:mine" if mine else " class:theirs")
    if line == 1:
        label = cat[fc.card_id].name if fc.card_id else "(verso)"
        return [(own_style, f" {label[:CELL_W - 2]:<{CELL_W - 2}} ")]
    mark = ("class:mark.mine", "▲") if mine else ("class:mark.theirs", "▼")
    who = owners[fc.owner] if owners is not None else "you" if mine else "opp"
    face = "R" if fc.recto else "V"
    absorbed = f"×{fc.level}" if fc.level else ""
    text = f"{who} {strength_text(view, cat, fc)} {face} {absorbed}"
    return [(style, " "), (style + " " + mark[0], mark[1]),
            (own_style, f"{text[:CELL_W - 3]:<{CELL_W - 3}} ")]


def counts_line(view: PlayerView, player: int, zones: dict[int, tuple[str, str | None]]) -> str:
    n = len(zones) // 2
    field = sum(1 for fc in view.field if fc.owner == player)
    gone = n - view.alive(player)
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
    if status.state is Connection.CONNECTED:
        return [("class:ok", "● connected"), ("class:dim", f"  {status.reason}")]
    if status.state is Connection.CONNECTING:
        return [("class:warn", f"… {status.reason}")]
    if status.state is Connection.RECONNECTING:
        left = max(0, int((status.deadline or 0) - (time.monotonic() if now is None else now)))
        return [("class:warn", f"⟳ connection lost: resuming, {left} s left"),
                ("class:dim", f"  {status.reason}")]
    return [("class:error", "✖ closed"), ("class:dim", f"  {status.reason}")]


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


def hand_fragments(view: PlayerView, cat: Catalogue, width: int,
                   with_text: bool = True) -> Fragments:
    out: Fragments = [("class:title", "Your hand"), ("class:dim", "  (1-9 picks a card)\n")]
    hand = view.hand
    if not hand:
        out.append(("class:dim", "  (empty)\n"))
    for i, (h, cid) in enumerate(hand, 1):
        if cid is None:
            out.append(("", f" {i} #{h} ?\n"))
            continue
        card = cat[cid]
        out.append(("class:mine", f" {i} {card.name}"))
        out.append(("class:dim", f"  #{h} {card.energy_name.capitalize()} {card.strength}\n"))
        if with_text:
            for line in _wrap(card.text.replace(" Passive:", "\nPassive:"), width - 4):
                out.append(("", f"    {line}\n"))
    return out


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n"):
        cur = ""
        for word in para.split(" "):
            if cur and len(cur) + 1 + len(word) > width:
                lines.append(cur)
                cur = word
            else:
                cur = f"{cur} {word}" if cur else word
        lines.append(cur)
    return lines


def decision_prompt(view: PlayerView, cat: Catalogue, result: MatchResult | None,
                    status: ConnectionStatus) -> tuple[str, str]:
    """(style, text) of the line that says what the game waits for."""
    if result is not None:
        return "class:prompt", f"Game over: {result.describe(view.player)}. Enter or q closes."
    if status.state is Connection.CLOSED:
        return "class:error", f"The match is closed: {status.reason}"
    d = view.decision
    if isinstance(d, ChoiceDecision) and d.player == view.player:
        if d.kind is ChoiceKind.DISCARD_FROM_HAND:
            names = ", ".join(f"{i} {_name(view, cat, h)}" for i, h in enumerate(d.options, 1))
            return ("class:prompt", f"Choose a card of your hand to discard: {names} "
                    "(press its number, or pick <handle>)")
        return ("class:prompt", "Choose a card of yours on the field to discard: cursor + Enter, "
                "or pick <handle>")
    if isinstance(d, TurnDecision) and d.player == view.player:
        return ("class:prompt", f"Turn {view.turn + 1}: your move. Type an action or use the "
                "cursor; Tab lists the legal ones; 'end' ends the turn.")
    return "class:info", f"Turn {view.turn + 1}: the opponent is playing…"


def _name(view: PlayerView, cat: Catalogue, h: int) -> str:
    cid = view.identity(h)
    return cat[cid].name if cid else f"#{h}"


def cursor_fragments(view: PlayerView, cat: Catalogue, area: str) -> Fragments:
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
    return [("class:title", head),
            ("", f": {card.name}, {who}, {face}, Strength {strength_text(view, cat, fc)}, "
                 f"absorbed {fc.level}\n"),
            ("class:dim", f"  {card.text}\n")]


HELP_TEXT = """\
Versus: terminal UI help                          (F1 or Esc closes)

Goal: eliminate all of the opponent's cards (deck, hand and field).
Each turn: up to one Summon, Flip, Activate and Move, in that order, then end.

Actions (the engine notation; Tab completes the legal ones):
  summon <handle> <area> recto|verso    summon 7 b2 recto
  flip <area>                           flip c3
  activate <area>[/k] <targets...>      activate b2 c3
  move <area> <area>                    move b2 b3
  end                                   end the turn
  pick <handle>                         answer a discard choice

Keys:
  arrows       move the cursor over the field
  Enter        empty line: put the cursor's area on the line (lists what it can do);
               otherwise play the line (a filter matching one action plays it)
  Space        on an empty line or after a space: add the cursor's area
  1-9          empty line: pick that card of your hand (summon it / discard it)
  Tab, S-Tab   next / previous completion    Esc  clear the line
  F1           this help                     Ctrl-C  resign or leave
Field cells: area, tile colour; card name ((verso) if hidden); owner (▲ you, ▼ opponent),
Strength (printed+bonus, ? if hidden), R recto / V verso, ×k absorbed cards.
"""
