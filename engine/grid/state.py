# The grid game's rules engine (SPEC Part 9): the public state, its decisions, the legal
# inputs, `step`, and the canonical encoding and hash.
#
# How it works. A `GridState` is a frozen value holding only public facts: per card handle its
# zone, who holds it, where it lies on the grid, its face and (once revealed) its catalogue
# index, plus the graveyards, the modifiers in play, a stack of pending tasks and the pending
# decision. `step` wraps the state in a mutable `_Work` (copy on write: a column becomes a list
# only when a rule writes it), applies the input, then runs tasks off the stack until one needs
# a decision (a deal, a reveal, a turn, a choice, a chance) or the game ends, and freezes the
# result (the columns no rule wrote are the old state's tuples, shared). Every rule that needs
# a hidden identity (a card placed face up, a face-down neighbour turned up, an item used) first
# pushes a `reveal` task, so the protocol proves the card before the rule reads it.
#
# Why a task stack in the state: the order in which rules resolve is part of the game (which
# trap fires first, when the FREE window opens), and it is in the hash, so two implementations
# agree on every hash exactly when they push the same tasks in the same order (SPEC §9.4). Why
# every public legal input stays legal whatever the hidden card turns out to be: the protocol
# and the bots choose from `legal_actions` of the public state, so a card used or placed in a
# way its kind does not allow is *wasted* (it goes to the graveyard without effect, §9.1.10)
# rather than an illegal input that would blame an honest player.
#
# `traced_step` is `step` that also returns what the rules did on the way, as `Event`s (a
# battle's compared worths and why it was decided, a trap fired, an item that had no target,
# a card wasted): the narration (views.py) explains a step from them. The trace is kept
# beside the state, never in it, so it changes no encoding or hash.
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property
from operator import itemgetter
from typing import Any

from ..api import DecisionKind, Finished, Pending
from ..errors import GameOverError, IllegalActionError, MalformedActionError, RulesetError
from ..hashing import tagged_hash
from .cards import BEATS, Card, Catalogue, Element, Kind, Op, Use
from .notation import GridInput, Verb, engine_input, format_input
from .rules import HAND_SIZE, GridRules

ENCODING_VERSION = 1


class Zone(IntEnum):
    DECK = 0
    HAND = 1
    GRID = 2
    GRAVEYARD = 3
    MODIFIER = 4


# the zones as plain ints, what the state's zone column holds: the rules compare zones in every
# scan, and an exact int compares (and `tuple.index`/`count` match) without an IntEnum's
# subclass slow path; equal to the Zone members all the same
DECK, HAND, GRID, GRAVEYARD, MODIFIER = 0, 1, 2, 3, 4


class Task(IntEnum):
    """Task codes (SPEC §9.4, task table); a task is (code, fields...)."""

    COIN = 0  # () the coin flip: a chance decision
    TURN = 1  # () the active player's turn starts
    FILL = 2  # (p) draw up to the hand size
    DRAW = 3  # (p) draw one card
    PLAY = 4  # (p) the turn decision, or the end of the turn
    END_TURN = 5  # ()
    REVEAL = 6  # (h)
    ARRIVE = 7  # (h) a card just placed
    TURN_UP = 8  # (n, h) face-down n turns up; h: the card that activated it, -1 for a scout
    TRAP = 9  # (t, h) trap t acts on h
    WINDOW = 10  # (h) the defender's FREE window before h battles
    FIGHT = 11  # (h, k, e1..ek) h battles its enemies; k = -1: not listed yet
    BATTLE = 12  # (h, e)
    CHECK_WIN = 13  # (h)
    USE = 14  # (f, p, ctx) p uses hand card f as an item; ctx 0 own turn, 1 FREE window
    DEFEAT = 15  # (h) to the graveyard unless shielded (revealed first)
    BURY = 16  # (h) to the graveyard
    FINAL = 17  # () both players are out of cards: count
    PLACE = 18  # (p, c) a start position's face-down grid card: p's next card, face down on c


class Dec(IntEnum):
    """Decision codes (SPEC §9.4); a decision is (code, fields...), () when none."""

    COIN = 1  # ()
    DEAL = 2  # (p, deck)
    REVEAL = 3  # (p, h)
    TURN = 4  # (p)
    WINDOW = 5  # (p, h)
    ORDER = 6  # (p, h, e1..ek)
    TARGET = 7  # (p, f, t1..tk)
    DUEL = 8  # ()
    PLACE = 9  # (p, deck, c) a deal that puts the card face down on cell c (start positions)


# The task and decision codes, the input verbs and the card kinds the rules test, as module
# names bound once: `Task.FILL` is a class attribute read through the Enum metaclass's
# __getattr__ hook (CPython 3.11), about fifteen times the cost of reading a global, and the
# rules read several at every step. The same members: every task and decision holds what it held.
T_ARRIVE = Task.ARRIVE
T_BATTLE = Task.BATTLE
T_BURY = Task.BURY
T_CHECK_WIN = Task.CHECK_WIN
T_COIN = Task.COIN
T_DEFEAT = Task.DEFEAT
T_DRAW = Task.DRAW
T_END_TURN = Task.END_TURN
T_FIGHT = Task.FIGHT
T_FILL = Task.FILL
T_FINAL = Task.FINAL
T_PLAY = Task.PLAY
T_REVEAL = Task.REVEAL
T_TRAP = Task.TRAP
T_TURN = Task.TURN
T_TURN_UP = Task.TURN_UP
T_USE = Task.USE
T_WINDOW = Task.WINDOW
D_COIN = Dec.COIN
D_DEAL = Dec.DEAL
D_DUEL = Dec.DUEL
D_ORDER = Dec.ORDER
D_PLACE = Dec.PLACE
D_REVEAL = Dec.REVEAL
D_TARGET = Dec.TARGET
D_TURN = Dec.TURN
D_WINDOW = Dec.WINDOW
V_DUEL = Verb.DUEL
V_END = Verb.END
V_FIRST = Verb.FIRST
V_FREE = Verb.FREE
V_PASS = Verb.PASS
V_PICK = Verb.PICK
V_PLACE = Verb.PLACE
V_USE = Verb.USE
K_CHARACTER = Kind.CHARACTER
K_ITEM = Kind.ITEM
K_TRAP = Kind.TRAP


class Outcome(IntEnum):
    HOME_BASE = 0
    MOST_CARDS = 1
    EQUAL_CARDS = 2
    SUDDEN_DEATH = 3
    SUDDEN_DEATH_VOID = 4


OUTCOME_LABELS = {Outcome.HOME_BASE: "home-base", Outcome.MOST_CARDS: "most-cards",
                  Outcome.EQUAL_CARDS: "equal-cards", Outcome.SUDDEN_DEATH: "sudden-death",
                  Outcome.SUDDEN_DEATH_VOID: "sudden-death-void"}
#: task code -> number of fixed fields (None: variable, FIGHT)
TASK_ARITY: dict[Task, int | None] = {
    Task.COIN: 0, Task.TURN: 0, Task.FILL: 1, Task.DRAW: 1, Task.PLAY: 1, Task.END_TURN: 0,
    Task.REVEAL: 1, Task.ARRIVE: 1, Task.TURN_UP: 2, Task.TRAP: 2, Task.WINDOW: 1,
    Task.FIGHT: None, Task.BATTLE: 2, Task.CHECK_WIN: 1, Task.USE: 3, Task.DEFEAT: 1,
    Task.BURY: 1, Task.FINAL: 0, Task.PLACE: 2,
}
#: directions N (row + 1), E (column + 1), S, W as (d_row, d_col)
DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1))
COLUMNS = "abcdef"


def cell_name(cell: int, size: int) -> str:
    return f"{COLUMNS[cell % size]}{cell // size + 1}"


def cell_index(name: str, size: int) -> int:
    """The index of a cell name on a size x size grid, -1 if it is not on it."""
    index = _CELL_INDEX.get((name, size))  # every input's cell: a lookup, not int() of text
    if index is not None:
        return index
    col, row = COLUMNS.find(name[0]), int(name[1:]) - 1
    return row * size + col if 0 <= col < size and 0 <= row < size else -1


#: (cell name a1..f6, grid side) -> the cell's index (-1 off that grid): every name an input can
#: carry, worked out once
_CELL_INDEX = {(f"{col}{row + 1}", size): row * size + c if c < size and row < size else -1
               for size in (4, 5, 6) for c, col in enumerate(COLUMNS) for row in range(6)}


def home_row(player: int, size: int) -> int:
    """Player 0's home base is row 1 (index 0), player 1's the last row."""
    return 0 if player == 0 else size - 1


def side_toward(controller: int, direction: int) -> int:
    """The side (0 top, 1 right, 2 bottom, 3 left) of a card of `controller` facing
    `direction` (0 N, 1 E, 2 S, 3 W): player 0's cards face north, player 1's south."""
    return direction if controller == 0 else (direction + 2) % 4


@dataclass(frozen=True, eq=False)
class GridState:
    """The public state. Per-handle tuples are indexed by handle; `decision` is () once the
    game is over; `result` is (outcome, winner) with -1 -1 while it goes on."""

    rules: GridRules
    catalogue: Catalogue
    first: int
    active: int
    turn: int
    acted: int
    placements: int
    airdrop: int
    zone: tuple[int, ...]
    holder: tuple[int, ...]
    ctrl: tuple[int, ...]
    cell: tuple[int, ...]
    up: tuple[int, ...]
    ident: tuple[int, ...]
    weaken: tuple[int, ...]
    boost: tuple[int, ...]
    shield: tuple[int, ...]
    graves: tuple[tuple[int, ...], ...]
    modifiers: tuple[int, ...]
    tasks: tuple[tuple[int, ...], ...]
    decision: tuple[int, ...]
    result: tuple[int, int]
    _cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # cached_property, not property: a value in the instance __dict__ (freeze puts it there)
    # is then a plain attribute read; the rules and the bots read both at every step
    @cached_property
    def size(self) -> int:
        return self.rules.size

    @cached_property
    def finished(self) -> bool:
        return self.result[0] >= 0

    @cached_property
    def shape(self) -> Shape:
        return shape_of(self.rules)

    def hand(self, player: int) -> tuple[int, ...]:
        # asked by the view (both hands), the legal inputs and step: both kept, found in one scan
        hands = self._cache.get("hands")
        if hands is None:
            hands = self._cache["hands"] = hands_of(self.zone, self.ctrl)
        return hands[player]  # type: ignore[no-any-return]

    def card(self, handle: int) -> Card | None:
        """The card of a handle if its identity is public."""
        i = self.ident[handle]
        return self.catalogue.cards[i] if i >= 0 else None

    def board(self) -> dict[int, int]:
        """cell -> handle of the card lying there."""
        return {c: h for h, c in enumerate(self.cell) if c >= 0}

    def deck_count(self, deck: int) -> int:
        lo, hi = deck_range(self.rules, deck)
        return self.zone[lo:hi].count(DECK)

    def grid_count(self, player: int) -> int:
        return sum(1 for h, z in enumerate(self.zone) if z == GRID and self.ctrl[h] == player)


#: (each player's deck as a handle range, whether the deck and graveyard are shared, cards per
#: player): what the rules read of the options at every step, worked out once per state line
#: (the GridRules properties decode an Enum at each read)
Shape = tuple[tuple[tuple[int, int], tuple[int, int]], bool, int]


def shape_of(rules: GridRules) -> Shape:
    return ((deck_range(rules, deck_of(rules, 0)), deck_range(rules, deck_of(rules, 1))),
            rules.shared, rules.deck_size)


def deck_range(rules: GridRules, deck: int) -> tuple[int, int]:
    n = rules.deck_size
    return (0, 2 * n) if rules.shared else (deck * n, deck * n + n)


def deck_of(rules: GridRules, player: int) -> int:
    """The index in `decks(rules)` of the deck `player` draws from."""
    return 0 if rules.shared else player


def grave_of(rules: GridRules, handle: int) -> int:
    """The graveyard a card goes to: its deck's owner's, or the one shared graveyard."""
    return 0 if rules.shared else handle // rules.deck_size


# --- the mutable working copy --------------------------------------------------------------------


class Ev(IntEnum):
    """What the rules did while a step resolved (`traced_step`); an event is (code, fields)."""

    BATTLE = 0  # (h, e, worth h, worth e, side h, side e, reason, loser, saved, reversed)
    TRAP = 1  # (t, h, acted): trap t fired on h; acted 0: its effect found nothing to act on
    WASTED = 2  # (h, why): h went to the graveyard without effect (Waste)
    ITEM = 3  # (f, p): p's item f took effect (its op says what)
    FIZZLE = 4  # (f, p): p's item f had no target or nothing to take
    NO_DRAW = 5  # (p,): a draw found p's deck empty
    SKIP = 6  # (p,): p holds no card: its turn passes
    FINAL = 7  # (count 0, count 1): both players out of cards
    TARGET = 8  # (f, t): item f acts on the picked card t
    DUEL = 9  # (a, b, top a, top b)


class Reason(IntEnum):
    """Why a battle ended as it did (§9.1.8)."""

    WORTH = 0  # the higher facing worth won
    ELEMENT = 1  # equal worths: the element cycle decided
    EQUAL = 2  # equal worths, equal elements: both stay


class Waste(IntEnum):
    """Why a card was wasted (§9.1.10)."""

    FACE_UP = 0  # a trap or item placed face up
    NOT_ITEM = 1  # a character or trap used as an item
    NOT_FREE = 2  # a TURN or MODIFIER item played in a FREE window
    ACTIVATED = 3  # a face-down item turned face up by an opponent's placement
    SCOUTED = 4  # a trap or item turned face up by a scout


_new_state = object.__new__


def hand_of(zone: tuple[int, ...] | list[int], ctrl: tuple[int, ...] | list[int],
            p: int) -> list[int]:
    """The handles in p's hand, ascending (zone HAND, controller p). How: `index` finds each
    hand card in C, so the Python loop runs once per card in a hand, not once per handle."""
    out = []
    h, find = -1, zone.index
    for _ in range(zone.count(HAND)):
        h = find(HAND, h + 1)
        if ctrl[h] == p:
            out.append(h)
    return out


def on_grid(zone: tuple[int, ...] | list[int]) -> list[int]:
    """The handles on the grid (zone GRID), ascending: `index` finds each in C."""
    out = []
    h, find = -1, zone.index
    for _ in range(zone.count(GRID)):
        h = find(GRID, h + 1)
        out.append(h)
    return out


def hands_of(zone: tuple[int, ...] | list[int], ctrl: tuple[int, ...] | list[int]
             ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Both players' hands (`hand_of` of 0 and of 1) in one scan."""
    mine: list[int] = []
    theirs: list[int] = []
    h, find = -1, zone.index
    for _ in range(zone.count(HAND)):
        h = find(HAND, h + 1)
        c = ctrl[h]
        if c == 0:
            mine.append(h)
        elif c == 1:
            theirs.append(h)
    return tuple(mine), tuple(theirs)


class _Work:
    """A state being stepped. Copy on write: a column (zone, holder, ..., graves, modifiers) is
    the state's own tuple until a rule writes it (`edit`), and `freeze` keeps the untouched
    tuples as they are: most steps (a deal, a reveal) write one to three of the twelve, and
    copying them all twice per step was a third of its time."""

    __slots__ = ("acted", "active", "airdrop", "boost", "cat", "cell", "ctrl", "decision",
                 "edited", "first", "graves", "hands", "holder", "ident", "log", "masks",
                 "modifiers", "placements", "result", "rules", "shape", "shield", "size", "tasks",
                 "turn", "up", "weaken", "zone")

    def __init__(self, s: GridState) -> None:
        self.rules, self.cat, self.size, self.shape = s.rules, s.catalogue, s.size, s.shape
        self.first, self.active, self.turn = s.first, s.active, s.turn
        self.acted, self.placements, self.airdrop = s.acted, s.placements, s.airdrop
        # the state's tuples, shared until written (`edit`); typed as what they become
        self.zone: list[int] = s.zone  # type: ignore[assignment]
        self.holder: list[int] = s.holder  # type: ignore[assignment]
        self.ctrl: list[int] = s.ctrl  # type: ignore[assignment]
        self.cell: list[int] = s.cell  # type: ignore[assignment]
        self.up: list[int] = s.up  # type: ignore[assignment]
        self.ident: list[int] = s.ident  # type: ignore[assignment]
        self.weaken: list[int] = s.weaken  # type: ignore[assignment]
        self.boost: list[int] = s.boost  # type: ignore[assignment]
        self.shield: list[int] = s.shield  # type: ignore[assignment]
        self.graves: list[list[int]] = s.graves  # type: ignore[assignment]
        self.modifiers: list[int] = s.modifiers  # type: ignore[assignment]
        self.tasks = list(s.tasks)
        self.decision: tuple[int, ...] = s.decision
        self.result = s.result
        self.log: list[tuple[int, ...]] | None = None  # traced_step's events
        self.edited: list[str] = []  # the columns `edit` made lists, for `freeze`
        # both hands (as GridState.hand keeps them), None when unknown: known, a deal or a
        # placement updates them and the next state keeps them, so the hand-size test of every
        # draw scans nothing; any other move of a card forgets them (`move`)
        self.hands: tuple[tuple[int, ...], tuple[int, ...]] | None = s._cache.get("hands")
        # the grid's masks (`grid_masks`), None when unknown: kept the same way, a placement
        # adds its cell and a card leaving the grid forgets them, so the next turn's legal
        # placements scan no grid card
        self.masks: GridMasks | None = s._cache.get("masks")

    def edit(self, *columns: str) -> None:
        """Make the named columns this work's own lists before a rule writes them."""
        for name in columns:
            column = getattr(self, name)
            if column.__class__ is tuple:
                setattr(self, name, list(column))
                self.edited.append(name)

    def edit_grave(self, g: int) -> list[int]:
        """Graveyard g as this work's own list (and the graveyards as a list), to write."""
        if self.graves.__class__ is tuple:
            self.graves = list(self.graves)
            self.edited.append("graves")
        grave = self.graves[g]
        if grave.__class__ is tuple:
            grave = self.graves[g] = list(grave)
        return grave

    def writable(self) -> None:
        """Every column this work's own list (for a caller writing them directly)."""
        self.hands = self.masks = None
        self.edit("zone", "holder", "ctrl", "cell", "up", "ident", "weaken", "boost", "shield",
                  "modifiers")
        for g in range(len(self.graves)):
            self.edit_grave(g)

    def note(self, *event: int) -> None:
        if self.log is not None:
            self.log.append(event)

    def freeze(self) -> GridState:
        # the fields set straight into a new instance's __dict__: the frozen dataclass's
        # __init__ pays one object.__setattr__ per field, and the engine freezes every step
        s = _new_state(GridState)
        fields = s.__dict__
        fields.update(
            rules=self.rules, catalogue=self.cat, first=self.first, active=self.active,
            turn=self.turn, acted=self.acted, placements=self.placements, airdrop=self.airdrop,
            zone=self.zone, holder=self.holder, ctrl=self.ctrl, cell=self.cell, up=self.up,
            ident=self.ident, weaken=self.weaken, boost=self.boost, shield=self.shield,
            graves=self.graves, modifiers=self.modifiers, tasks=tuple(self.tasks),
            decision=self.decision, result=self.result,
            _cache=self.cache(), size=self.size,
            finished=self.result[0] >= 0, shape=self.shape)
        for name in self.edited:  # only the columns written are lists to freeze
            fields[name] = (tuple(fields[name]) if name != "graves"
                            else tuple([tuple(g) for g in self.graves]))
        return s

    def cache(self) -> dict[str, Any]:
        """The next state's cache: what this work kept of the hands and the grid's masks."""
        hands, masks = self.hands, self.masks
        if masks is None:
            return {} if hands is None else {"hands": hands}
        return {"masks": masks} if hands is None else {"hands": hands, "masks": masks}

    # reading
    def card(self, h: int) -> Card:
        i = self.ident[h]
        assert i >= 0, f"handle {h} read before its reveal"
        return self.cat.cards[i]

    def hand(self, p: int) -> list[int]:
        return hand_of(self.zone, self.ctrl, p)

    def holds(self, p: int) -> bool:
        """Whether p holds a card."""
        return self.hand_size(p) > 0

    def hand_size(self, p: int) -> int:
        hands = self.hands
        if hands is None:
            hands = self.hands = hands_of(self.zone, self.ctrl)
        return len(hands[p])

    def hand_gains(self, p: int, h: int) -> None:
        """Card h has just joined p's hand: the kept hands follow."""
        hands = self.hands
        if hands is not None:
            mine = tuple(sorted((*hands[p], h)))
            self.hands = (mine, hands[1]) if p == 0 else (hands[0], mine)

    def hand_loses(self, p: int, h: int) -> None:
        """Card h has just left p's hand: the kept hands follow."""
        hands = self.hands
        if hands is not None:
            mine = hands[p]
            i = mine.index(h)  # slices, not a comprehension: C-level copies
            mine = mine[:i] + mine[i + 1:]
            self.hands = (mine, hands[1]) if p == 0 else (hands[0], mine)

    def on_grid(self, h: int) -> bool:
        return self.zone[h] == GRID

    def board(self) -> dict[int, int]:
        return {c: h for h, c in enumerate(self.cell) if c >= 0}

    def deck_left(self, p: int) -> bool:
        lo, hi = self.shape[0][p]
        try:  # scans up to the first deck card (the next dealt), not a copy of the whole range
            self.zone.index(DECK, lo, hi)
        except ValueError:  # rare: the deck is out
            return False
        return True

    def neighbours(self, cell: int) -> list[int]:
        """The handles on the cells orthogonally next to `cell`, by ascending cell index."""
        cells = self.cell
        if cells.__class__ is tuple:  # a state's column: its board is shared (`board_of`)
            board = board_of(cells)
            return [board[c] for c in neighbour_cells(cell, self.size) if c in board]
        # written this step: at most four lookups, C-level scans of the column
        return [cells.index(c) for c in neighbour_cells(cell, self.size) if c in cells]

    def enemies(self, h: int) -> list[int]:
        """h's face-up opponent characters next to it (ascending cell)."""
        p = self.ctrl[h]
        return [n for n in self.neighbours(self.cell[h])
                if self.ctrl[n] == 1 - p and self.up[n] and self.card(n).kind is K_CHARACTER]

    def push(self, *tasks: tuple[int, ...]) -> None:
        """Push `tasks` so that the first runs next."""
        self.tasks.extend(reversed(tasks))

    # moving cards
    def leave(self, h: int) -> None:
        if self.cell[h] >= 0:
            self.masks = None  # the cell is free again: found again when next asked
        if self.cell[h] >= 0 or self.up[h]:
            self.edit("cell", "up")
            self.cell[h], self.up[h] = -1, 0
        # mostly zeros already: a column is written (copied) only when it changes
        if self.weaken[h]:
            self.edit("weaken")
            self.weaken[h] = 0
        if self.boost[h]:
            self.edit("boost")
            self.boost[h] = 0
        if self.shield[h]:
            self.edit("shield")
            self.shield[h] = 0

    def placed(self, p: int, c: int) -> None:
        """p's card has just been placed on cell c: the kept masks follow."""
        masks = self.masks
        if masks is not None:
            board, near0, near1 = masks
            near = _masks(self.size)[0][c]
            self.masks = (board | 1 << c, near0 | near, near1) if p == 0 else \
                (board | 1 << c, near0, near1 | near)

    def move(self, h: int, zone: int, ctrl: int) -> None:
        self.hands = None  # rare moves: the hands are found again when next asked
        self.edit("zone", "ctrl")
        self.zone[h], self.ctrl[h] = zone, ctrl

    def bury(self, h: int) -> None:
        assert self.ident[h] >= 0, f"handle {h} buried unrevealed"
        self.leave(h)
        self.move(h, GRAVEYARD, -1)
        shared, n = self.shape[1], self.shape[2]  # grave_of, without the rules' properties
        self.edit_grave(0 if shared else h // n).append(h)

    def to_hand(self, h: int, p: int) -> None:
        self.leave(h)
        self.move(h, HAND, p)

    # values
    def value(self, h: int, side: int) -> int:
        """A side's worth (§9.1.7): the printed value, 0 if a modifier zeroes it, plus element
        bonuses and a boost, minus weakening; never below 0."""
        card = self.card(h)
        printed = card.sides[side]
        v = printed
        for m in self.modifiers:
            e = self.card(m).effect
            assert e is not None
            if e.op is Op.ZERO and e.value == printed:
                v = 0
        for m in self.modifiers:
            e = self.card(m).effect
            assert e is not None
            if e.op is Op.BONUS and e.element is card.element:
                v += e.amount
        return max(0, v + self.boost[h] - self.weaken[h])

    def beats(self, a: Element, b: Element) -> bool:
        reversed_ = sum(1 for m in self.modifiers
                        if self.card(m).effect.op is Op.REVERSE) % 2  # type: ignore[union-attr]
        return BEATS[b] is a if reversed_ else BEATS[a] is b


#: the last cell column `board_of` read and its board: the column is a tuple shared by every
#: state until a card moves on or off the grid (copy on write), and the battles of several
#: steps in a row ask for neighbours on it
_LAST_BOARD: tuple[tuple[int, ...], dict[int, int]] = ((), {})


def board_of(cells: tuple[int, ...]) -> dict[int, int]:
    """cell -> the handle lying there, of a state's cell column (-1: off the grid)."""
    global _LAST_BOARD
    last = _LAST_BOARD
    if last[0] is cells:
        return last[1]
    # one C-level pass: every handle keyed by its cell, the off-grid ones all under -1 (then
    # dropped), the cells of the grid each with its one handle
    board = dict(zip(cells, range(len(cells)), strict=True))
    board.pop(-1, None)
    _LAST_BOARD = (cells, board)  # one tuple: swapped whole (threads)
    return board


def side_worths(s: GridState, h: int) -> tuple[int, int, int, int]:
    """The worth of public grid card h's sides (top, right, bottom, left) now (§9.1.7)."""
    w = _Work(s)
    return (w.value(h, 0), w.value(h, 1), w.value(h, 2), w.value(h, 3))


def no_effect(s: GridState, p: int, op: Op) -> bool:
    """Whether p's TURN or FREE item of `op`, used now, would find nothing to act on."""
    return _no_effect(_Work(s), p, op)


def neighbour_cells(cell: int, size: int) -> tuple[int, ...]:
    """The cells orthogonally next to `cell`, ascending (a shared table: the rules' hot loop)."""
    return _neighbour_table(size)[cell]


def _neighbour_table(size: int) -> tuple[tuple[int, ...], ...]:
    table = _NEIGHBOUR_TABLES.get(size)
    if table is None:
        table = _NEIGHBOUR_TABLES[size] = tuple(_neighbours(c, size) for c in range(size * size))
    return table


def _neighbours(cell: int, size: int) -> tuple[int, ...]:
    r, c = divmod(cell, size)
    out = []
    for dr, dc in DIRECTIONS:
        rr, cc = r + dr, c + dc
        if 0 <= rr < size and 0 <= cc < size:
            out.append(rr * size + cc)
    return tuple(sorted(out))


_NEIGHBOUR_TABLES: dict[int, tuple[tuple[int, ...], ...]] = {}


def direction(a: int, b: int, size: int) -> int:
    """The direction (0 N, 1 E, 2 S, 3 W) from cell a to the adjacent cell b."""
    (ra, ca), (rb, cb) = divmod(a, size), divmod(b, size)
    return DIRECTIONS.index((rb - ra, cb - ca))


# --- new game ------------------------------------------------------------------------------------


def deal_new_game(rules: GridRules, catalogue: Catalogue) -> GridState:
    """The new game: every card in the deck, the coin flip pending. A match from a start
    position begins with start.start_state instead (begin.new_game picks one or the other: the
    start module builds on this one)."""
    if rules.start:
        raise RulesetError("grid rules with a start position begin from the position "
                           "(begin.new_game), not with a new deal")
    n = rules.cards
    blank = (-1,) * n
    zeros = (0,) * n
    s = GridState(rules, catalogue, -1, -1, 0, 0, 1, 0, (DECK,) * n, blank, blank,
                  blank, zeros, blank, zeros, zeros, zeros,
                  ((),) if rules.shared else ((), ()), (), ((T_COIN,),), (), (-1, -1))
    w = _Work(s)
    _run(w)
    return w.freeze()


# --- resolution ----------------------------------------------------------------------------------


def _run(w: _Work) -> None:
    """Run tasks until a decision is pending or the game is over (§9.4 "Run")."""
    tasks, runners = w.tasks, _RUNNERS  # the list object stays the work's (rules extend it)
    while not w.decision and w.result[0] < 0:
        if not tasks:
            raise AssertionError("grid engine: no task and no decision (engine bug)")
        task = tasks.pop()
        # the fields passed one by one, not as `*task[1:]`: a call with star arguments is not
        # inlined by the interpreter (a C-level call and a slice per task)
        n = len(task)
        if n == 2:
            runners[task[0]](w, task[1])
        elif n == 1:
            runners[task[0]](w)
        elif n == 3:
            runners[task[0]](w, task[1], task[2])
        else:
            runners[task[0]](w, *task[1:])


def _t_coin(w: _Work) -> None:
    w.decision = (D_COIN,)


# The tasks of every turn (TURN, FILL, PLAY, END_TURN) put theirs on the stack directly, top
# last, rather than through `push(*tasks)`: a call with star parameters is not inlined


def _t_turn(w: _Work) -> None:
    a = w.active
    w.tasks += ((T_PLAY, a), (T_FILL, a))  # push: FILL, then PLAY


def _t_fill(w: _Work, p: int) -> None:
    if w.hand_size(p) < HAND_SIZE and w.deck_left(p):
        w.tasks += ((T_FILL, p), (T_DRAW, p))  # push: DRAW, then FILL again


def _t_draw(w: _Work, p: int) -> None:
    if w.deck_left(p):
        w.decision = (D_DEAL, p, 0 if w.shape[1] else p)  # deck_of
    else:
        w.note(Ev.NO_DRAW, p)


def _t_place(w: _Work, p: int, c: int) -> None:
    if w.deck_left(p):
        w.decision = (D_PLACE, p, 0 if w.shape[1] else p, c)  # deck_of


def _out_of_cards(w: _Work) -> bool:
    return not w.holds(0) and not w.holds(1) and not w.deck_left(0) and not w.deck_left(1)


def _t_play(w: _Work, p: int) -> None:
    if w.acted and w.placements == 0:
        w.tasks.append((T_END_TURN,))
    elif w.holds(p):
        w.decision = (D_TURN, p)
    elif not w.acted and _out_of_cards(w):
        w.push((T_FINAL,))
    else:
        if not w.acted:
            w.note(Ev.SKIP, p)
        w.tasks.append((T_END_TURN,))


def _t_end_turn(w: _Work) -> None:
    if any(w.boost) or any(w.shield):  # else the columns stay the state's (zeros)
        n = len(w.zone)
        w.boost, w.shield = (0,) * n, (0,) * n  # tuples: `edit` copies them if written
    w.turn += 1
    w.active = 1 - w.active
    w.acted, w.placements, w.airdrop = 0, 1, 0
    w.tasks.append((T_TURN,))


def _t_reveal(w: _Work, h: int) -> None:
    if w.ident[h] < 0:
        w.decision = (D_REVEAL, w.holder[h], h)


def _t_arrive(w: _Work, h: int) -> None:
    if not w.on_grid(h) or not w.up[h]:
        return
    p = w.ctrl[h]
    hidden = [n for n in w.neighbours(w.cell[h]) if w.ctrl[n] == 1 - p and not w.up[n]]
    activate = [*[(T_REVEAL, n) for n in hidden], *[(T_TURN_UP, n, h) for n in hidden]]
    if w.card(h).kind is not K_CHARACTER:
        # a trap or item placed face up is wasted (§9.1.10), but it was placed next to the
        # face-down cards all the same, so they are activated first (the seed: "Any face down
        # cards are activated if an opponent's card is placed next to it"); then it goes to
        # the graveyard if a trap has not already moved it (`defeat`: it is never shielded)
        w.note(Ev.WASTED, h, Waste.FACE_UP)
        w.push(*activate, (T_DEFEAT, h))
        return
    w.push(*activate, (T_WINDOW, h), (T_FIGHT, h, -1), (T_CHECK_WIN, h))


def _t_turn_up(w: _Work, n: int, h: int) -> None:
    if not w.on_grid(n) or w.up[n]:
        return
    w.edit("up")
    w.up[n] = 1
    kind = w.card(n).kind
    if kind is not K_CHARACTER and (h < 0 or kind is K_ITEM):
        w.note(Ev.WASTED, n, Waste.SCOUTED if h < 0 else Waste.ACTIVATED)
    if kind is K_TRAP:
        w.push((T_TRAP, n, h) if h >= 0 else (T_BURY, n))
    elif kind is K_ITEM:
        w.push((T_BURY, n))


def _t_trap(w: _Work, t: int, h: int) -> None:
    effect = w.card(t).effect
    assert effect is not None
    seq: list[tuple[int, ...]] = []
    acts = w.on_grid(t) if effect.op is Op.BLAST else \
        w.on_grid(h) and not (effect.op is Op.DESTROY and w.shield[h])
    w.note(Ev.TRAP, t, h, int(acts))
    if effect.op is Op.DESTROY:
        seq.append((T_DEFEAT, h))
    elif effect.op is Op.WEAKEN:
        if w.on_grid(h):
            w.edit("weaken")
            w.weaken[h] += effect.amount
    elif effect.op is Op.BOUNCE:
        if w.on_grid(h):
            w.to_hand(h, w.ctrl[h])
    elif effect.op is Op.BLAST and w.on_grid(t):
        seq.extend((T_DEFEAT, c) for c in w.neighbours(w.cell[t]))
    seq.append((T_BURY, t))
    w.push(*seq)


def _t_window(w: _Work, h: int) -> None:
    if w.on_grid(h) and w.up[h] and w.enemies(h):
        d = 1 - w.ctrl[h]
        if w.holds(d):
            w.decision = (D_WINDOW, d, h)


def _t_fight(w: _Work, h: int, k: int, *listed: int) -> None:
    if not w.on_grid(h) or not w.up[h]:
        return
    valid = w.enemies(h)
    es = valid if k < 0 else [e for e in listed if e in valid]
    if len(es) == 1:
        w.push((T_BATTLE, h, es[0]))
    elif es:
        w.decision = (D_ORDER, w.ctrl[h], h, *es)


def battle_loser(w: _Work, h: int, e: int) -> tuple[int, ...]:
    """Who loses the battle of h (placed) against e (§9.1.8): the lower facing value; equal
    values: the element beaten; equal elements: nobody."""
    d = direction(w.cell[h], w.cell[e], w.size)
    a = w.value(h, side_toward(w.ctrl[h], d))
    b = w.value(e, side_toward(w.ctrl[e], (d + 2) % 4))
    if a != b:
        return (e,) if a > b else (h,)
    ea, eb = w.card(h).element, w.card(e).element
    assert ea is not None and eb is not None
    if w.beats(ea, eb):
        return (e,)
    if w.beats(eb, ea):
        return (h,)
    return ()


def _t_battle(w: _Work, h: int, e: int) -> None:
    if not (w.on_grid(h) and w.on_grid(e) and w.up[h] and w.up[e]):
        return
    if w.cell[e] not in neighbour_cells(w.cell[h], w.size):
        return
    losers = battle_loser(w, h, e)
    if w.log is not None:
        d = direction(w.cell[h], w.cell[e], w.size)
        sa, sb = side_toward(w.ctrl[h], d), side_toward(w.ctrl[e], (d + 2) % 4)
        a, b = w.value(h, sa), w.value(e, sb)
        reason = Reason.WORTH if a != b else Reason.ELEMENT if losers else Reason.EQUAL
        loser = losers[0] if losers else -1
        reversed_ = sum(1 for m in w.modifiers
                        if w.card(m).effect.op is Op.REVERSE) % 2  # type: ignore[union-attr]
        w.note(Ev.BATTLE, h, e, a, b, sa, sb, reason, loser,
               int(loser >= 0 and bool(w.shield[loser])), reversed_)
    for loser in losers:
        if not w.shield[loser]:
            w.bury(loser)


def _t_check_win(w: _Work, h: int) -> None:
    if not w.on_grid(h) or not w.up[h] or w.card(h).kind is not K_CHARACTER:
        return
    p = w.ctrl[h]
    if w.cell[h] // w.size == home_row(1 - p, w.size):
        w.result = (Outcome.HOME_BASE, p)


def _t_use(w: _Work, f: int, p: int, ctx: int) -> None:
    card = w.card(f)
    own_turn = ctx == 0
    usable = card.kind is K_ITEM and (own_turn or card.use is Use.FREE)
    if (not usable or card.use is not Use.FREE) and own_turn:
        w.acted, w.placements = 1, 0
    if not usable:
        w.note(Ev.WASTED, f, Waste.NOT_ITEM if card.kind is not K_ITEM else Waste.NOT_FREE)
        w.bury(f)  # wasted (§9.1.10)
        return
    if card.use is Use.MODIFIER:
        w.note(Ev.ITEM, f, p)
        w.leave(f)
        w.move(f, MODIFIER, p)
        w.edit("modifiers")
        w.modifiers.append(f)
        return
    w.bury(f)
    effect = card.effect
    assert effect is not None
    op = effect.op
    if w.log is not None:
        w.note(Ev.FIZZLE if _no_effect(w, p, op) else Ev.ITEM, f, p)
    if op is Op.DRAW:
        w.push(*[(T_DRAW, p)] * effect.amount)
    elif op is Op.DOUBLE:
        w.placements = 2
    elif op is Op.AIRDROP:
        w.placements, w.airdrop = 1, 1
    elif op is Op.RECALL:
        g_index = 0 if w.shape[1] else p
        for g in reversed(w.graves[g_index]):
            if w.card(g).kind is K_CHARACTER:
                w.edit_grave(g_index).remove(g)
                w.to_hand(g, p)
                break
    else:
        targets = item_targets(w, p, op)
        if targets:
            w.decision = (D_TARGET, p, f, *targets)


def _no_effect(w: _Work, p: int, op: Op) -> bool:
    """Whether p's TURN or FREE item of `op`, just buried, finds nothing to act on."""
    if op is Op.DRAW:
        return not w.deck_left(p)
    if op is Op.RECALL:
        grave = w.graves[0 if w.shape[1] else p]
        return not any(w.card(g).kind is K_CHARACTER for g in grave)
    if op in (Op.DESTROY, Op.SCOUT, Op.SHIELD, Op.BOOST):
        return not item_targets(w, p, op)
    return False


def item_targets(w: _Work, p: int, op: Op) -> list[int]:
    """The cards an item's effect may pick (ascending handles), §9.1.11."""
    grid = [h for h in range(len(w.zone)) if w.zone[h] == GRID]
    if op is Op.DESTROY:
        return [h for h in grid if w.ctrl[h] == 1 - p and not w.shield[h]]
    if op is Op.SCOUT:
        return [h for h in grid if w.ctrl[h] == 1 - p and not w.up[h]]
    if op is Op.SHIELD:
        return [h for h in grid if w.ctrl[h] == p and not w.shield[h]]
    if op is Op.BOOST:
        return [h for h in grid if w.ctrl[h] == p and w.up[h]
                and w.card(h).kind is K_CHARACTER]
    raise AssertionError(op)


def _t_defeat(w: _Work, h: int) -> None:
    if w.on_grid(h) and not w.shield[h]:
        w.push((T_REVEAL, h), (T_BURY, h))


def _t_bury(w: _Work, h: int) -> None:
    if w.zone[h] == GRID or w.zone[h] == HAND:
        w.bury(h)


def duel_pairs(ident: tuple[int, ...] | list[int], zone: tuple[int, ...] | list[int],
               cat: Catalogue) -> list[tuple[int, int]]:
    """Sudden death (§9.1.14): the ordered pairs (a for player 0, b for player 1) of distinct
    public characters with different top values, a then b ascending."""
    chars = [h for h, i in enumerate(ident)
             if i >= 0 and zone[h] in (GRID, GRAVEYARD)
             and cat.cards[i].kind is K_CHARACTER]
    tops = {h: cat.cards[ident[h]].top for h in chars}
    return [(a, b) for a in chars for b in chars if a != b and tops[a] != tops[b]]


def _t_final(w: _Work) -> None:
    counts = [sum(1 for h, z in enumerate(w.zone) if z == GRID and w.ctrl[h] == p)
              for p in (0, 1)]
    w.note(Ev.FINAL, *counts)
    if counts[0] != counts[1]:
        w.result = (Outcome.MOST_CARDS, 0 if counts[0] > counts[1] else 1)
    elif w.rules.tie.value == "draw":
        w.result = (Outcome.EQUAL_CARDS, -1)
    elif duel_pairs(w.ident, w.zone, w.cat):
        w.decision = (D_DUEL,)
    else:
        w.result = (Outcome.SUDDEN_DEATH_VOID, -1)


_RUNNERS: dict[int, Any] = {
    Task.COIN: _t_coin, Task.TURN: _t_turn, Task.FILL: _t_fill, Task.DRAW: _t_draw,
    Task.PLAY: _t_play, Task.END_TURN: _t_end_turn, Task.REVEAL: _t_reveal,
    Task.ARRIVE: _t_arrive, Task.TURN_UP: _t_turn_up, Task.TRAP: _t_trap,
    Task.WINDOW: _t_window, Task.FIGHT: _t_fight, Task.BATTLE: _t_battle,
    Task.CHECK_WIN: _t_check_win, Task.USE: _t_use, Task.DEFEAT: _t_defeat,
    Task.BURY: _t_bury, Task.FINAL: _t_final, Task.PLACE: _t_place,
}
assert set(_RUNNERS) == set(Task) == set(TASK_ARITY)


# --- decisions and legal inputs ------------------------------------------------------------------


def decision(s: GridState) -> Pending | Finished:
    cached = s._cache.get("decision")  # asked several times per state (loop, view, bots)
    if cached is None:
        if s.decision and s.decision[0] != D_DUEL and not s.finished:
            # the same decision tuple always makes the same (immutable) Pending: build it once
            cached = _PENDINGS.get(s.decision)
            if cached is None:
                if len(_PENDINGS) > 50_000:  # bound: ORDER/TARGET tuples vary
                    _PENDINGS.clear()
                cached = _PENDINGS[s.decision] = _decision(s)
        else:
            cached = _decision(s)
        s._cache["decision"] = cached
    return cached  # type: ignore[no-any-return]


#: decision tuple -> its Pending (every code but DUEL, whose outcomes depend on the state)
_PENDINGS: dict[tuple[int, ...], Pending] = {}


def _decision(s: GridState) -> Pending | Finished:
    if s.finished:
        outcome, winner = s.result
        return Finished(OUTCOME_LABELS[Outcome(outcome)], None if winner < 0 else winner)
    d = s.decision
    code = d[0]
    if code == D_COIN:
        return Pending(DecisionKind.CHANCE, None, "coin", outcomes=2)
    if code == D_DEAL:
        return Pending(DecisionKind.DEAL, d[1], "draw", deck=d[2])
    if code == D_REVEAL:
        return Pending(DecisionKind.REVEAL, d[1], handle=d[2])
    if code == D_TURN:
        return Pending(DecisionKind.TURN, d[1])
    if code == D_WINDOW:
        return Pending(DecisionKind.CHOICE, d[1], "free-window")
    if code == D_ORDER:
        return Pending(DecisionKind.CHOICE, d[1], "battle-order", tuple(d[3:]))
    if code == D_TARGET:
        return Pending(DecisionKind.CHOICE, d[1], "item-target", tuple(d[3:]))
    if code == D_DUEL:
        n = len(duel_pairs(s.ident, s.zone, s.catalogue))
        return Pending(DecisionKind.CHANCE, None, "sudden-death", outcomes=n)
    if code == D_PLACE:
        return Pending(DecisionKind.DEAL, d[1], "place", deck=d[2])
    raise AssertionError(f"unknown decision {d!r}")


def placements(s: GridState, p: int) -> list[tuple[int, tuple[bool, ...]]]:
    """The cells p may place a card on this turn, each with its allowed faces (§9.1.5, §9.1.6), by
    ascending cell; faces as (up,), (False,) or (False, True)."""
    out: list[tuple[int, tuple[bool, ...]]] = []
    for code in spot_codes(s, p):  # a cell's codes are adjacent: 2c (face down), 2c + 1 (up)
        c = code >> 1
        if out and out[-1][0] == c:
            out[-1] = (c, (False, True))
        else:
            out.append((c, (code & 1 == 1,)))
    return out


def spot_codes(s: GridState, p: int) -> tuple[int, ...]:
    """`placements` as codes 2 * cell + up, ascending, kept with the state: the legal list picks
    each hand card's PLACE inputs at these indices of its row (`_place_row`), and `is_legal`
    tests a PLACE by membership."""
    key = ("spots", p)
    codes = s._cache.get(key)
    if codes is None:
        codes = s._cache[key] = _spot_codes(s, p)
    return codes  # type: ignore[no-any-return]


def _spot_codes(s: GridState, p: int) -> tuple[int, ...]:
    # How: sets of cells as bit masks (bit c: cell c), so the board, the cells next to own
    # cards and those next to enemy cards are integer ORs (`grid_masks`), and the candidates
    # come out in ascending order by taking the lowest bit
    size = s.size
    rows, full = _masks(size)[1:]
    board, near0, near1 = grid_masks(s)
    own_near, enemy_near = (near0, near1) if p == 0 else (near1, near0)
    has_own = own_near != 0  # every cell has a neighbour: a card on the grid marks one
    mine, theirs = rows[home_row(p, size)], rows[home_row(1 - p, size)]
    free = full & ~board
    if s.airdrop:
        cands = free & ~theirs
    elif not has_own:
        cands = free & mine
    else:
        cands = free & own_near
    up_only = theirs | enemy_near  # the far home row, or next to an enemy card: face up
    out: list[int] = []
    while cands:
        low = cands & -cands
        cands ^= low
        code = 2 * low.bit_length() - 2
        if low & up_only:
            out.append(code + 1)
        elif low & mine:
            out.append(code)
        else:
            out += (code, code + 1)
    return tuple(out)


#: (the cells taken, the cells next to player 0's cards, the same of player 1's) as bit masks
GridMasks = tuple[int, int, int]


def grid_masks(s: GridState) -> GridMasks:
    """The grid's masks, kept with the state (a step carries them on, `_Work.placed`)."""
    masks = s._cache.get("masks")
    if masks is None:
        masks = s._cache["masks"] = scan_masks(s.zone, s.cell, s.ctrl, s.size)
    return masks  # type: ignore[no-any-return]


def scan_masks(zone: tuple[int, ...], cell: tuple[int, ...], ctrl: tuple[int, ...], size: int
               ) -> GridMasks:
    """The grid's masks from its columns: a few integer ORs per grid card."""
    near = _masks(size)[0]
    board = near0 = near1 = 0
    h, find = -1, zone.index
    for _ in range(zone.count(GRID)):  # a card lies on a cell exactly when its zone is GRID
        h = find(GRID, h + 1)
        c = cell[h]
        board |= 1 << c
        if ctrl[h] == 0:
            near0 |= near[c]
        else:
            near1 |= near[c]
    return board, near0, near1


def _masks(size: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(per cell, the mask of its neighbours; per row, its mask; all cells) of a grid."""
    masks = _MASKS.get(size)
    if masks is None:
        near = tuple(sum(1 << n for n in _neighbour_table(size)[c]) for c in range(size * size))
        rows = tuple(sum(1 << (r * size + c) for c in range(size)) for r in range(size))
        masks = _MASKS[size] = (near, rows, (1 << (size * size)) - 1)
    return masks


_MASKS: dict[int, tuple[tuple[int, ...], tuple[int, ...], int]] = {}


def is_legal(s: GridState, inp: GridInput) -> bool:
    """Whether the well-formed `inp` is in `legal_actions(s)` (a player's TURN or CHOICE
    input), decided from the state without building the list: step asks it on every input."""
    if s.finished:
        return False
    d = s.decision
    code, v = d[0], inp.verb
    if code == D_TURN:
        if v is V_END:
            return bool(s.acted)
        if v is not V_PLACE and v is not V_USE:
            return False
        h = inp.handle
        if not (0 <= h < len(s.zone) and s.zone[h] == HAND and s.ctrl[h] == d[1]):
            return False
        if v is V_USE:
            return True
        if s.placements <= 0:
            return False
        return 2 * cell_index(inp.cell, s.size) + inp.up in spot_codes(s, d[1])
    if code == D_WINDOW:
        if v is V_PASS:
            return True
        h = inp.handle
        return v is V_FREE and 0 <= h < len(s.zone) and s.zone[h] == HAND \
            and s.ctrl[h] == d[1]
    if code in (D_ORDER, D_TARGET):
        return v is V_PICK and inp.handle in d[3:]
    if code == D_COIN:
        return v is V_FIRST  # its player is 0 or 1 (validated on construction)
    return inp in legal_tuple(s)


def legal_actions(s: GridState) -> list[GridInput]:
    return list(legal_tuple(s))


def legal_tuple(s: GridState) -> tuple[GridInput, ...]:
    """`legal_actions` as the state's one cached tuple (no copy)."""
    cached = s._cache.get("legal")
    if cached is None:
        cached = s._cache["legal"] = tuple(_legal(s))
    return cached  # type: ignore[no-any-return]


#: (size, handle) -> the PLACE inputs of that card, at 2 * cell + up (face down, face up)
_PLACE_ROWS: dict[tuple[int, int], tuple[GridInput, ...]] = {}


def _place_row(size: int, h: int) -> tuple[GridInput, ...]:
    row = _PLACE_ROWS.get((size, h))
    if row is None:
        row = _PLACE_ROWS[size, h] = tuple(
            engine_input(V_PLACE, h, cell=cell_name(c, size), up=up)
            for c in range(size * size) for up in (False, True))
    return row


#: (verb, handles) -> the engine input of that verb for each handle (USE, FREE, PICK)
#: keyed by the verb's text: an Enum member hashes in Python, a str in C
_BY_HANDLE: dict[tuple[str, int], tuple[GridInput, ...]] = {}


def _by_handle(verb: Verb, n: int) -> tuple[GridInput, ...]:
    row = _BY_HANDLE.get((verb._value_, n))
    if row is None:
        row = _BY_HANDLE[verb._value_, n] = tuple(engine_input(verb, h) for h in range(n))
    return row


def _legal(s: GridState) -> list[GridInput]:
    if s.finished:
        return []
    d = s.decision
    code = d[0]
    # the inputs come from engine_input: built once, without re-validation (notation.py)
    if code == D_COIN:
        return [engine_input(V_FIRST, player=0), engine_input(V_FIRST, player=1)]
    if code == D_TURN:
        p = d[1]
        hand = s.hand(p)
        out: list[GridInput] = []
        if s.placements > 0:
            size = s.size
            spots = spot_codes(s, p)
            if spots:
                # one C-level getter picks every spot's input out of each card's row
                pick = itemgetter(*spots) if len(spots) > 1 else lambda row: (row[spots[0]],)
                for h in hand:
                    out.extend(pick(_place_row(size, h)))
        use = _by_handle(V_USE, len(s.zone))
        out.extend([use[h] for h in hand])
        if s.acted:
            out.append(engine_input(V_END))
        return out
    if code == D_WINDOW:
        free = _by_handle(V_FREE, len(s.zone))
        return [engine_input(V_PASS), *[free[h] for h in s.hand(d[1])]]
    if code in (D_ORDER, D_TARGET):
        pick = _by_handle(V_PICK, len(s.zone))
        return [pick[h] for h in d[3:]]
    if code == D_DUEL:
        return [engine_input(V_DUEL, a, b)
                for a, b in duel_pairs(s.ident, s.zone, s.catalogue)]
    return []


# --- step ----------------------------------------------------------------------------------------

_AWAITING = {Dec.COIN: "the coin flip", Dec.DEAL: "a deal", Dec.REVEAL: "a reveal",
             Dec.TURN: "a turn", Dec.WINDOW: "a FREE-window choice",
             Dec.ORDER: "a battle-order choice", Dec.TARGET: "an item-target choice",
             Dec.DUEL: "the sudden-death draw", Dec.PLACE: "a placing deal"}
#: tuples, not sets: an Enum member hashes in Python, a tuple test compares identities first
_ANSWERS = {Dec.COIN: (Verb.FIRST,), Dec.DEAL: (Verb.DEAL,), Dec.REVEAL: (Verb.REVEAL,),
            Dec.TURN: (Verb.PLACE, Verb.USE, Verb.END), Dec.WINDOW: (Verb.PASS, Verb.FREE),
            Dec.ORDER: (Verb.PICK,), Dec.TARGET: (Verb.PICK,), Dec.DUEL: (Verb.DUEL,),
            Dec.PLACE: (Verb.DEAL,)}


_DEC = {int(d): d for d in Dec}


def step(s: GridState, inp: GridInput) -> GridState:
    """The state after `inp`, resolved up to the next decision (pure: `s` is unchanged)."""
    return _step(s, inp, None)


def traced_step(s: GridState, inp: GridInput) -> tuple[GridState, list[tuple[int, ...]]]:
    """`step`, and the events (`Ev`) of what the rules did while it resolved."""
    log: list[tuple[int, ...]] = []
    return _step(s, inp, log), log


def _step(s: GridState, inp: GridInput, log: list[tuple[int, ...]] | None) -> GridState:
    if not isinstance(inp, GridInput):
        raise MalformedActionError(f"not a grid input: {inp!r:.60}")
    if s.finished:
        raise GameOverError(f"grid input {format_input(inp)!r}: the game is over "
                            f"({OUTCOME_LABELS[Outcome(s.result[0])]})")
    code = _DEC[s.decision[0]]
    if inp.verb not in _ANSWERS[code]:
        raise _illegal(s, inp, code, "this input does not answer the pending decision")
    if code in (D_DEAL, D_PLACE):
        p, deck = s.decision[1], s.decision[2]
        lo, hi = s.shape[0][deck]  # deck_range: deck 0 or 1
        h = inp.handle
        zone = s.zone
        if not (lo <= h < hi) or zone[h] != DECK:
            raise _illegal(s, inp, code, f"card {h} is not in deck {deck}")
        # the written columns built as the next state's tuples at once (C-level slices), not
        # through `edit` and `freeze`: a deal is every other step; a rule writing them again
        # this step copies them as usual (`edit` copies a tuple)
        j = h + 1
        holder, ctrl = (*s.holder[:h], p, *s.holder[j:]), (*s.ctrl[:h], p, *s.ctrl[j:])
        dealt = (*zone[:h], HAND, *zone[j:])
        if code == D_DEAL:
            again = _deal_again(s, p, h, dealt, holder, ctrl)
            if again is not None:  # before any work copy: most deals end here
                return again
        w = _work(s, log)
        w.holder, w.ctrl = holder, ctrl
        if code == D_PLACE:  # face down on its cell (a start position's grid card)
            c = s.decision[3]
            w.zone, w.cell = (*zone[:h], GRID, *zone[j:]), (*s.cell[:h], c, *s.cell[j:])
            w.placed(p, c)
        else:
            w.zone = dealt
            w.hand_gains(p, h)
    elif code == D_REVEAL:
        _, p, h = s.decision
        if inp.handle != h:
            raise _illegal(s, inp, code, f"the reveal is of card {h}")
        idx = s.catalogue.index.get(inp.card)
        if idx is None:
            raise _illegal(s, inp, code, f"{inp.card!r} is not a card of the catalogue")
        w = _work(s, log)
        ident = s.ident
        w.ident = (*ident[:h], idx, *ident[h + 1:])  # as a deal's columns, above
    elif not is_legal(s, inp):
        raise _illegal(s, inp, code, "not a legal input here")
    else:
        w = _work(s, log)
        _apply(w, s, code, inp)
    _run(w)
    return w.freeze()


def _work(s: GridState, log: list[tuple[int, ...]] | None) -> _Work:
    """A work copy of s to step, its decision answered."""
    w = _Work(s)
    w.log = log
    w.decision = ()
    return w


def _deal_again(s: GridState, p: int, h: int, zone: tuple[int, ...], holder: tuple[int, ...],
                ctrl: tuple[int, ...]) -> GridState | None:
    """The state after a deal of card h to p, its columns given, when it only asks the next
    deal or p's turn; else None (the full step). Most deals fill a hand: the FILL task on top
    then pushes a DRAW and itself again, and the DRAW asks the same deal; or the hand is full
    and the PLAY task under it asks p's turn (p holds cards); no event either way. So the next
    state is this one with three columns, the hands and maybe the tasks and the decision
    changed: built without a work copy, the task loop and `freeze`."""
    hands = s._cache.get("hands")
    tasks = s.tasks
    if hands is None or tasks[-1:] != ((T_FILL, p),):
        return None
    mine = tuple(sorted((*hands[p], h)))
    decision = s.decision
    if len(mine) < HAND_SIZE:  # FILL, DRAW: the same deal again, if the deck has a card
        lo, hi = s.shape[0][p]
        if DECK not in zone[lo:hi] or decision != (D_DEAL, p, 0 if s.shape[1] else p):
            return None
    elif tasks[-2:-1] == ((T_PLAY, p),) and not (s.acted and s.placements == 0):
        tasks, decision = tasks[:-2], (D_TURN, p)  # FILL done, PLAY: p holds cards
    else:
        return None
    cache: dict[str, Any] = {"hands": (mine, hands[1]) if p == 0 else (hands[0], mine)}
    masks = s._cache.get("masks")  # a deal leaves the grid as it is
    if masks is not None:
        cache["masks"] = masks
    nxt = _new_state(GridState)
    fields = nxt.__dict__
    fields.update(s.__dict__)  # every field and the kept size, finished and shape
    fields.update(zone=zone, holder=holder, ctrl=ctrl, tasks=tasks, decision=decision,
                  _cache=cache)
    return nxt


def _illegal(s: GridState, inp: GridInput, code: Dec, reason: str) -> IllegalActionError:
    # a function of its own, not a closure in `_step`: a closure's cells would slow every read
    # of the step's locals, and its message is built only on error
    who = f" (player {s.decision[1]})" if code not in (D_COIN, D_DUEL) else ""
    return IllegalActionError(f"illegal grid input {format_input(inp)!r}: turn {s.turn}, "
                              f"awaiting {_AWAITING[code]}{who}: {reason}")


def _apply(w: _Work, s: GridState, code: Dec, inp: GridInput) -> None:
    d = s.decision
    if code == D_COIN:
        first = inp.player
        w.first = w.active = first
        w.push((T_FILL, first), (T_FILL, 1 - first), (T_TURN,))
    elif code == D_TURN:
        p = d[1]
        if inp.verb is V_END:
            w.push((T_END_TURN,))
        elif inp.verb is V_USE:
            w.push((T_REVEAL, inp.handle), (T_USE, inp.handle, p, 0), (T_PLAY, p))
        else:
            h, j, c = inp.handle, inp.handle + 1, cell_index(inp.cell, w.size)
            # the written columns as the next state's tuples at once, as a deal's (`_step`):
            # the work's columns are still the state's here
            zone, cells, up = s.zone, s.cell, s.up
            w.zone, w.cell = (*zone[:h], GRID, *zone[j:]), (*cells[:h], c, *cells[j:])
            w.up = (*up[:h], int(inp.up), *up[j:])
            w.hand_loses(p, h)
            w.placed(p, c)
            w.acted, w.placements, w.airdrop = 1, w.placements - 1, 0
            seq = [(T_REVEAL, h)] if inp.up else []
            w.push(*seq, (T_ARRIVE, h), (T_PLAY, p))
    elif code == D_WINDOW:
        if inp.verb is V_FREE:
            f = inp.handle
            w.push((T_REVEAL, f), (T_USE, f, d[1], 1), (T_WINDOW, d[2]))
    elif code == D_ORDER:
        h, rest = d[2], [e for e in d[3:] if e != inp.handle]
        w.push((T_BATTLE, h, inp.handle), (T_FIGHT, h, len(rest), *rest))
    elif code == D_TARGET:
        p, f, t = d[1], d[2], inp.handle
        effect = w.card(f).effect
        assert effect is not None
        w.note(Ev.TARGET, f, t)
        if effect.op is Op.DESTROY:
            w.push((T_DEFEAT, t))
        elif effect.op is Op.SCOUT:
            w.push((T_REVEAL, t), (T_TURN_UP, t, -1))
        elif effect.op is Op.SHIELD:
            w.edit("shield")
            w.shield[t] = 1
        elif effect.op is Op.BOOST:
            w.edit("boost")
            w.boost[t] += effect.amount
    elif code == D_DUEL:
        a, b = inp.handle, inp.other
        ta, tb = w.card(a).top, w.card(b).top
        w.note(Ev.DUEL, a, b, ta, tb)
        w.result = (Outcome.SUDDEN_DEATH, 0 if ta > tb else 1)


# --- encoding and hash (SPEC §9.4) ----------------------------------------------------------------


def encode_state(s: GridState) -> bytes:
    cached = s._cache.get("enc")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    v: list[int] = [ENCODING_VERSION, s.size, len(s.zone), s.first, s.active, s.turn, s.acted,
                    s.placements, s.airdrop]
    for arr in (s.zone, s.holder, s.ctrl, s.cell, s.up, s.ident, s.weaken, s.boost, s.shield):
        v.extend(arr)
    v.append(len(s.graves))
    for g in s.graves:
        v.append(len(g))
        v.extend(g)
    v.append(len(s.modifiers))
    v.extend(s.modifiers)
    v.append(len(s.tasks))
    for t in s.tasks:
        v.append(len(t))
        v.extend(t)
    v.append(len(s.decision))
    v.extend(s.decision)
    v.extend(s.result)
    out = b"GR" + struct.pack(f">{len(v)}h", *v)
    s._cache["enc"] = out
    return out


def state_hash(s: GridState) -> bytes:
    return tagged_hash("grid/state", s.rules.digest(), s.catalogue.digest, encode_state(s))
