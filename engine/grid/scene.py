# The grid game as a scene (engine/scene.py): what one seat, or the public, sees of a state,
# as the plain data every shell draws, and the game's short rules for a player at the table.
#
# How: everything is built from the game's own view (views.py `view`; the public scene from a
# view with no private knowledge), so a card the view does not name cannot appear. The board
# is turned so the seat's own home base is at the bottom (seat 1 sees it rotated by 180
# degrees, cell refs unchanged): every card's label then lists its side worths in screen order
# (up, right, down, left), and the sides that touch on the screen are the ones that battle.
# The public scene shows player 1's home base (row 1) at the bottom, as seat 0 does.
#
# Cell shades (theme words for the ground): "home" the seat's own home base, "goal" the
# opponent's (a character surviving there wins); the public scene: "base-1", "base-2" for the
# home bases of player 1 and player 2; "" every other cell.
#
# Card labels (at most 12 characters, fit for a 6x6 board at 80 columns): the owner mark (▲ the
# seat's, ▼ the opponent's; "1:" / "2:" for the public), the handle (the card's ref in every
# input), then for a character its element initial (W, F, E) and its four printed values in
# screen order (A, 2-9, T for 10, J, Q, K), "*" when a worth differs from the printed value
# (weakened, boosted, a modifier); a face-down card the seat knows starts with "~"; a card
# hidden from the seat is "?". Each card's face, status and worth now are in its Card.
#
# The key to those labels is the scene's second status line, which a terminal of 24 rows still
# shows (the UI gives the status two rows at least), at most 80 characters: the first character
# on the board, in reading order, spelled out ("Key: ▼24 W3J86 = the opponent's card 24, a
# Water character, sides ↑3 →J ↓8 ←6 (J=11)"; "Water" alone when 80 columns are short), else
# the parts of a label in order. The first line says which mark is the seat's; the board's
# legend and the rules text say all of it (for the text scene and F1).
#
# Notes: every legal input that wastes a card or that the rules let do nothing (a trap or item
# placed face up, a card that is not an item used as one, a non-FREE item in the FREE window,
# an item with no target or nothing to take, a double or airdrop with no card left to place, a
# `zero` modifier already in play, an item placed on the grid) is said before it is played
# (SPEC Part 9, §9.1.10 and §9.1.11).
from __future__ import annotations

import functools
import textwrap
from dataclasses import dataclass

from ..api import DecisionKind, Finished, Pending
from ..scene import Board, Card, Cell, Face, Scene, Zone, fit_label
from .cards import Card as CardData
from .cards import Kind, Op, Use
from .narrate import FIZZLES, card_name, result_text, who, whose
from .notation import GridInput, Verb, format_input
from .rules import GridRules
from .state import (
    COLUMNS,
    Dec,
    GridState,
    cell_index,
    cell_name,
    home_row,
    neighbour_cells,
    no_effect,
    side_toward,
    side_worths,
)
from .views import CellView, GridKnowledge, GridView, view

#: a printed value in one character
VALUE_CHARS = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}
#: the screen directions of a label's four values, in its order
ARROWS = ("↑", "→", "↓", "←")
#: a status line that a terminal of 80 columns shows whole
STATUS_WIDTH = 80


@dataclass(frozen=True)
class Example:
    """A character on the board, for the key line: its label and what the label says."""

    label: str
    handle: int
    owner: int
    element: str
    values: str  # the four value characters in screen order (up, right, down, left)


def _char(v: int) -> str:
    return VALUE_CHARS.get(v, str(v)) if 1 <= v <= 13 else "?"


def _a(word: str) -> str:
    return ("an " if word[0].lower() in "aeiou" else "a ") + word


def _mark(p: int, seat: int | None) -> str:
    if seat is None:
        return f"{p + 1}:"
    return "▲" if p == seat else "▼"


@functools.lru_cache(maxsize=512)
def face_of(card: CardData) -> Face:
    """A card's full face: name, kind, printed numbers and its rules text."""
    if card.kind is Kind.CHARACTER:
        assert card.element is not None
        numbers = tuple((side, _value(v)) for side, v in
                        zip(("top", "right", "bottom", "left"), card.sides, strict=True))
        return Face(card.name, f"{card.element.value.capitalize()} character", numbers,
                    card.text)
    kind = "trap" if card.use is None else f"{card.use.value.upper()} item"
    return Face(card.name, kind, (), card.text)


def _value(v: int) -> str:
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(v, str(v))


def _screen_sides(p: int, seat: int | None) -> tuple[int, int, int, int]:
    """The sides of a card of controller p facing up, right, down and left on the screen of
    `seat` (seat 1's board is turned by 180 degrees)."""
    turn = 2 if seat == 1 else 0
    return tuple(side_toward(p, (d + turn) % 4) for d in range(4))  # type: ignore[return-value]


class _Builder:
    """One scene's parts, from one view."""

    def __init__(self, s: GridState, seat: int | None, knowledge: GridKnowledge | None) -> None:
        self.s, self.seat = s, seat
        self.knowledge = knowledge if seat is not None else None
        self.v: GridView = view(s, 0 if seat is None else seat, self.knowledge)  # type: ignore[arg-type]
        d = self.v.decision
        self.deciding = (seat is not None and isinstance(d, Pending) and d.player == seat
                         and d.kind in (DecisionKind.TURN, DecisionKind.CHOICE))
        self.inputs = tuple(format_input(a) for a in self.v.legal_actions) \
            if self.deciding else ()
        self.legal: tuple[GridInput, ...] = self.v.legal_actions if self.deciding else ()
        self.known: dict[int, str] = {h: cid for h, cid in self.v.hand if cid}
        for c in self.v.grid:
            if c.card:
                self.known[c.handle] = c.card
        self.known.update((h, cid) for h, cid in self.v.opponent_hand if cid)
        self.examples: list[Example] = []  # the board's characters, in reading order
        self.built_board = self.board()

    def name(self, h: int) -> str:
        return card_name(self.s, h, self.seat, self.knowledge)

    def card_inputs(self, h: int) -> tuple[str, ...]:
        return tuple(t for a, t in zip(self.legal, self.inputs, strict=True)
                     if a.handle == h or a.other == h)

    def cell_inputs(self, ref: str) -> tuple[str, ...]:
        return tuple(t for a, t in zip(self.legal, self.inputs, strict=True) if a.cell == ref)

    def card_data(self, card_id: str) -> CardData:
        return self.s.catalogue.card(card_id)

    # --- the board -------------------------------------------------------------------------
    def board(self) -> Board:
        n, seat = self.s.size, self.seat
        rows = [str(r) for r in range(n, 0, -1)]
        cols = list(COLUMNS[:n])
        if seat == 1:
            rows.reverse()
            cols.reverse()
        cells = {c.cell: c for c in self.v.grid}
        out = [self.cell(f"{col}{row}", cells.get(f"{col}{row}")) for row in rows
               for col in cols]
        mine = "▲ yours, ▼ the opponent's" if seat is not None else \
            "1: player 1's, 2: player 2's"
        bases = ("H your home base, G the opponent's (a character of yours that survives "
                 "there wins)" if seat is not None else
                 "B a home base (player 1's: row 1, player 2's: row "
                 f"{n}; a character surviving on the other's wins)")
        legend = (f"{mine}; then the card's number (its handle) and, for a character, its "
                  "element (W Water, F Fire, E Earth) and the values of its sides facing up, "
                  "right, down and left on this board (A=1, T=10, J, Q, K); * a worth changed "
                  f"now; ~ face down; ? hidden. {bases}.")
        return Board(tuple(cols), tuple(rows), tuple(out), legend)

    def cell(self, ref: str, c: CellView | None) -> Cell:
        s, seat = self.s, self.seat
        row = cell_index(ref, s.size) // s.size
        shade, label = "", ref
        for p in (0, 1):
            if row == home_row(p, s.size):
                if seat is None:
                    shade, label = f"base-{p + 1}", f"{ref}, player {p + 1}'s home base"
                elif p == seat:
                    shade, label = "home", f"{ref}, your home base"
                else:
                    shade, label = "goal", f"{ref}, the opponent's home base (reach it to win)"
        cards = () if c is None else (self.grid_card(c),)
        return Cell(ref, shade, label, cards, self.cell_inputs(ref))

    def grid_card(self, c: CellView) -> Card:
        s, h = self.s, c.handle
        head = f"{_mark(c.controller, self.seat)}{h}"
        status = ["face up" if c.up else "face down"]
        if c.weaken:
            status.append(f"weakened {c.weaken}")
        if c.boost:
            status.append(f"boosted +{c.boost}")
        if c.shield:
            status.append("shielded")
        if c.card is None:
            return Card(str(h), f"{head} ?", None, c.controller, tuple(status),
                        self.card_inputs(h))
        data = self.card_data(c.card)
        if data.kind is Kind.CHARACTER:
            sides = _screen_sides(c.controller, self.seat)
            printed = data.sides
            changed = ""
            if c.up and s.ident[h] >= 0:  # public (a face-up card may await its reveal)
                worth = side_worths(s, h)
                if worth != printed:
                    changed = "*"
                    status.append("worth now " + ", ".join(
                        f"{n} {w}" for n, w in zip(("top", "right", "bottom", "left"), worth,
                                                   strict=True)))
            elem = data.element.value[0].upper()  # type: ignore[union-attr]
            what = elem + "".join(_char(printed[i]) for i in sides) + changed
        else:
            what = data.kind.value.capitalize()
        label = f"{head} {'' if c.up else '~'}{what}"
        if len(label) > 10:  # a shaded cell of a 6x6 board at 80 columns shows 10
            label = label.replace(" ", "", 1)
        if data.kind is Kind.CHARACTER:
            self.examples.append(Example(label, h, c.controller,
                                         data.element.value.capitalize(),  # type: ignore[union-attr]
                                         what[1:5]))
        return Card(str(h), label, face_of(data), c.controller, tuple(status),
                    self.card_inputs(h))

    # --- the zones -------------------------------------------------------------------------
    def zones(self) -> tuple[Zone, ...]:
        s, seat, v = self.s, self.seat, self.v
        out: list[Zone] = []
        players = (0, 1) if seat is None else (seat, 1 - seat)
        for p in players:
            hand = v.hand if p == v.player else v.opponent_hand
            own = seat is not None and p == seat
            cards = tuple(self.hand_card(h, cid, p) for h, cid in hand)
            out.append(Zone(f"{whose(p, seat)} hand", p, cards, len(cards), hand=own))
        if s.rules.shared:
            out.append(Zone("the shared deck", None, (), v.decks[0]))
        else:
            out += [Zone(f"{whose(p, seat)} deck", p, (), v.decks[p]) for p in players]
        graves = [(None, "the shared graveyard", v.graveyards[0])] if s.rules.shared else \
            [(p, f"{whose(p, seat)} graveyard", v.graveyards[p]) for p in players]
        for p, name, grave in graves:
            cards = tuple(Card(str(h), fit_label(self.card_data(cid).name, 12),
                               face_of(self.card_data(cid)), p) for h, cid in grave)
            out.append(Zone(name, p, cards))
        mods = tuple(Card(str(h), fit_label(self.card_data(cid).name, 12),
                          face_of(self.card_data(cid)), s.ctrl[h]) for h, cid in v.modifiers)
        out.append(Zone("modifiers in play", None, mods))
        return tuple(out)

    def hand_card(self, h: int, cid: str | None, p: int) -> Card:
        if cid is None:
            return Card(str(h), "?", None, p)
        data = self.card_data(cid)
        status = ("public",) if self.s.ident[h] >= 0 else ()
        return Card(str(h), fit_label(data.name, 12), face_of(data), p, status, self.card_inputs(h))

    # --- words -----------------------------------------------------------------------------
    def status(self) -> tuple[str, ...]:
        s, seat, v = self.s, self.seat, self.v
        n = s.size
        lines = []
        d = v.decision
        if isinstance(d, Finished):
            now = f"Turn {s.turn + 1}: the game is over."
        elif s.first < 0:
            now = "A coin flip decides who plays first."
        else:
            now = f"Turn {s.turn + 1}: {whose(s.active, seat)} turn."
        marks = "" if seat is None else f" You are player {seat + 1} (▲), the opponent ▼."
        lines += [now + marks, self.key()]
        if seat is None:
            lines.append(f"Player 1's home base is row 1, player 2's row {n}; a character "
                         "that survives on the other's home base wins.")
        else:
            mine, theirs = home_row(seat, n) + 1, home_row(1 - seat, n) + 1
            lines.append(f"Your home base is row {mine}; reach row {theirs} with a character "
                         "that survives to win.")
        counts = [s.grid_count(0), s.grid_count(1)]
        hands = [len(s.hand(0)), len(s.hand(1))]
        order = (0, 1) if seat is None else (seat, 1 - seat)
        lines.append("On the grid: " + ", ".join(
            f"{who(p, seat).lower()} {counts[p]}" for p in order) + "; in hand: " + ", ".join(
            f"{who(p, seat).lower()} {hands[p]}" for p in order) + ".")
        if not isinstance(d, Finished) and s.first >= 0 and s.acted and s.placements:
            extra = (" on any empty cell outside the opponent's home base (airdrop)"
                     if s.airdrop else "")
            lines.append(f"{who(s.active, seat)} may still place {s.placements} "
                         f"card{'s' if s.placements > 1 else ''} this turn{extra}, or end "
                         "it.")
        elif not isinstance(d, Finished) and s.airdrop:
            lines.append(f"{who(s.active, seat)} may place this turn's card on any empty "
                         "cell outside the opponent's home base (airdrop).")
        waiting = self.waiting()
        if waiting:
            lines.append(waiting)
        return tuple(lines)

    def key(self) -> str:
        """The key to the board's labels in one line of at most STATUS_WIDTH characters: the
        first character on the board spelled out, else what the marks say."""
        if not self.examples:
            return ("Key: ▲ yours ▼ theirs, card number, element W/F/E, sides ↑→↓← (T=10); "
                    "? hidden" if self.seat is not None else
                    "Key: 1:/2: the player, then the card number, element W/F/E, sides ↑→↓←; "
                    "? hidden")
        e = self.examples[0]
        owner = ("your" if e.owner == self.seat else "the opponent's"
                 if self.seat is not None else f"player {e.owner + 1}'s")
        sides = " ".join(a + v for a, v in zip(ARROWS, e.values, strict=True))
        line = f"Key: {e.label} = {owner} card {e.handle}, {e.element}, sides {sides}"
        letters = [f"{c}={n}" for n, c in sorted(VALUE_CHARS.items()) if c in e.values]
        for extra in (f" ({' '.join(letters)})" if letters else "",
                      "; ~ face down" if "~" in e.label else "",
                      "; * changed" if "*" in e.label else ""):
            if len(line) + len(extra) <= STATUS_WIDTH:  # each while it fits
                line += extra
        fuller = line.replace(f", {e.element},", f", {_a(e.element)} character,", 1)
        return fuller if len(fuller) <= STATUS_WIDTH else line

    def waiting(self) -> str:
        """What the game waits for, when it is not the seat's own decision."""
        d = self.v.decision
        if isinstance(d, Finished) or self.deciding:
            return ""
        code = self.s.decision[0]
        p = self.s.decision[1] if len(self.s.decision) > 1 else -1
        if code == Dec.WINDOW:
            return (f"{who(p, self.seat)} may play a FREE item before "
                    f"{self.name(self.s.decision[2])} battles.")
        if code == Dec.ORDER:
            return f"{who(p, self.seat)} {'choose' if p == self.seat else 'chooses'} the " \
                   f"order of {whose(p, self.seat)} battles."
        if code == Dec.TARGET:
            return f"{who(p, self.seat)} {'pick' if p == self.seat else 'picks'} the target " \
                   f"of {self.name(self.s.decision[2])}."
        if code in (Dec.DEAL, Dec.PLACE):
            return f"{who(p, self.seat)} {'draw' if p == self.seat else 'draws'} a card."
        if code == Dec.REVEAL:
            return f"{self.name(self.s.decision[2])} is being revealed."
        if code == Dec.DUEL:
            return "Sudden death: two public characters are drawn, the higher top wins."
        return ""

    def prompt(self) -> str:
        if not self.deciding:
            return ""
        s = self.s
        d = s.decision
        if d[0] == Dec.TURN:
            ends = " Or end the turn (end)." if "end" in self.inputs else ""
            return ("Your turn: place a card from your hand on an empty cell next to one of "
                    "yours (place H CELL up|down; face up when it touches an opponent's "
                    f"card), or use one as an item (use H).{ends}")
        if d[0] == Dec.WINDOW:
            h = d[2]
            return (f"The opponent's {self.name(h)} on {cell_name(s.cell[h], s.size)} is "
                    "about to battle: play a FREE item from your hand (free H) or pass.")
        if d[0] == Dec.ORDER:
            h = d[2]
            return (f"Your {self.name(h)} on {cell_name(s.cell[h], s.size)} touches several "
                    "opponent characters: pick the one it battles next (pick H).")
        if d[0] == Dec.TARGET:
            f = d[2]
            card = s.card(f)
            text = card.text.split(": ", 1)[-1] if card is not None else ""
            return f"Pick the target of {self.name(f)} (pick H): {text}"
        return "Your move."

    # --- notes -----------------------------------------------------------------------------
    def notes(self) -> tuple[tuple[str, str], ...]:
        out = []
        for inp, text in zip(self.legal, self.inputs, strict=True):
            why = self.note(inp)
            if why:
                out.append((text, why))
        return tuple(out)

    def note(self, inp: GridInput) -> str:
        cid = self.known.get(inp.handle) if inp.handle >= 0 else None
        if cid is None or inp.verb not in (Verb.PLACE, Verb.USE, Verb.FREE):
            return ""
        s, p = self.s, self.seat
        assert p is not None
        card = self.card_data(cid)
        name = f"{card.name} (card {inp.handle})"
        if inp.verb is Verb.PLACE:
            if card.kind is Kind.CHARACTER:
                return ""
            if inp.up:
                touched = self.face_down_touched(inp.cell)
                also = (" (it still turns the face-down opponent card next to it face up)"
                        if touched else "")
                return (f"wastes {name}: {_a(card.kind.value)} placed face up goes to the "
                        f"graveyard without effect{also}")
            if card.kind is Kind.ITEM:
                return (f"{name} is an item: on the grid it never takes effect (it only holds "
                        "the cell; turned face up it is discarded)")
            return ""
        if card.kind is not Kind.ITEM:
            turn = " and ends your turn" if inp.verb is Verb.USE else ""
            return (f"wastes {name}: {_a(card.kind.value)} is not an item; used as one it goes "
                    f"to the graveyard without effect{turn}")
        assert card.use is not None and card.effect is not None
        if inp.verb is Verb.FREE and card.use is not Use.FREE:
            return (f"wastes {name}: a {card.use.value.upper()} item cannot be played in the "
                    "FREE window; it goes to the graveyard without effect")
        op = card.effect.op
        turn = " (it uses your turn)" if card.use is Use.TURN else ""
        if card.use is not Use.MODIFIER and no_effect(s, p, op):
            return f"{name} would do nothing: {FIZZLES[op]}{turn}"
        if op is Op.ZERO and any(
                (m := s.card(k)) is not None and m.effect is not None and m.effect == card.effect
                for k in s.modifiers):
            return (f"{name} would do nothing: the same modifier is already in play (it uses "
                    "your turn)")
        if op in (Op.DOUBLE, Op.AIRDROP) and len(s.hand(p)) <= 1:
            return f"{name} would do nothing: you have no other card to place{turn}"
        return ""

    def face_down_touched(self, ref: str) -> bool:
        s, p = self.s, self.seat
        board = s.board()
        return any(board.get(c, -1) >= 0 and s.ctrl[board[c]] == 1 - p and not s.up[board[c]]
                   for c in neighbour_cells(cell_index(ref, s.size), s.size))

    def build(self) -> Scene:
        s = self.s
        title = f"grid · {s.rules.mode.value} {s.size}x{s.size} · turn {s.turn + 1}"
        result = result_text(s, self.seat) if s.finished else None
        return Scene(title, self.seat, self.status(), self.built_board, self.zones(),
                     self.prompt(), self.inputs, self.notes(), result)


def scene(s: GridState, seat: int | None, knowledge: GridKnowledge | None) -> Scene:
    """What `seat` (None: the public) sees of `s` (see the module note)."""
    if seat not in (0, 1, None):
        raise ValueError(f"a grid scene is for seat 0, 1 or None, got {seat!r}")
    if knowledge is not None and seat is not None and knowledge.player != seat:
        knowledge = None  # another seat's knowledge names nothing this seat may see
    return _Builder(s, seat, knowledge).build()


RULES = """\
[versus] grid game: two players place cards on a {n}x{n} grid ({mode}, {deck}).
Player 1's home base is row 1, player 2's is row {n}. Win: place a character face up on the
opponent's home base that is still there once its battles are over.

Turn: draw up to 5 cards, then place one card from your hand on an empty cell next to a card
of yours (not diagonally; with none on the grid: in your home base), or use one as an item.
Faces: a card touching an opponent's card goes face up; otherwise in your home base face
down (your first card too); on the opponent's home base face up; elsewhere you choose.
Cards face their owner: player 1's tops point to row {n}, player 2's to row 1.

Characters have an element and four side values (A=1 ... 10, J=11, Q=12, K=13). Placed face
up next to opponent cards, a character first turns their face-down cards face up (a trap
fires on it, an item is discarded), then battles each face-up opponent character it touches
(you choose the order): the touching sides compare, the higher wins and the loser goes to
the graveyard. Equal: Water beats Fire, Fire beats Earth, Earth beats Water; same element:
both stay. Before the battle the opponent may play FREE items (or pass).

Traps are placed face down and fire on the opponent card that turns them up. Items: TURN
(instead of placing), FREE (on your turn as well as placing, or in the FREE window before
a battle), MODIFIER (instead of placing; stays in play and changes a rule). A trap or
item placed face up, a character or trap used as an item, a TURN or MODIFIER item in the
FREE window: wasted (to the graveyard, no effect).
A trap or item placed face up still turns up the face-down opponent cards next to it.

Out of cards: when both hands and decks are empty, the most cards on the grid wins; equal:
{tie}.

The board: a card shows ▲ (yours) or ▼ (the opponent's), its number, then for a character
its element (W Water, F Fire, E Earth) and its side values as your screen shows them: up,
right, down, left (A=1, T=10, J=11, Q=12, K=13). ~ face down, * a value changed now, ? a
card hidden from you. So ▼24 W3J86 is the opponent's card 24, a Water character with 3 up,
J right, 8 down and 6 left. The status line under the board spells out one of them.

Inputs (H is a card's number, shown on the board and in your hand):
  place H CELL up|down  place card H on a cell: place 3 b1 down, place 7 c3 up
  use H                 use card H as an item: use 4
  end                   end the turn, a placement left (after an item): end
  free H                play FREE item H before the battle: free 2
  pass                  play no FREE item now: pass
  pick H                the next battle, or an item's target: pick 25
Cells: column letter then row number; a1 is player 1's left corner.
"""


def rules_text(rules: GridRules) -> str:
    """The game's short rules and notation for a player at the table (25-60 lines at 78
    columns): each prose paragraph wrapped, the input table as written."""
    tie = ("a draw" if rules.tie.value == "draw" else
           "sudden death: two public characters are drawn, the higher top value wins")
    deck = f"{rules.deck_size} cards each" + (", one shared deck and graveyard"
                                              if rules.shared else "")
    text = RULES.format(n=rules.size, mode=rules.mode.value, deck=deck, tie=tie)
    out: list[str] = []
    for paragraph in text.strip().split("\n\n"):
        if out:
            out.append("")
        if paragraph.startswith("Inputs"):
            out += paragraph.splitlines()
        else:
            out += textwrap.wrap(" ".join(paragraph.split()), 78)
    return "\n".join(out)


__all__ = ["face_of", "rules_text", "scene"]
