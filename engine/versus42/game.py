# The rules engine: the public state of a game of Versus and the one pure transition `step`.
#
# How it works. The public state holds small ints in flat lists indexed by handle (zone,
# area, face, public card index, temporary Increase, absorbed stack) and by area (the card
# standing there). Resolution is a stack of pending tasks (draw, discard, reveal, the three
# battle steps, triggered Passives, end of turn): `_run` pops tasks until one needs an answer
# from outside (a deal, a reveal, a choice) or the stack is empty (the active player's turn
# action). So resolution can stop at any decision and resume, and the state is always a plain
# value that both peers hash and compare. `step_with_report` runs the same resolution with its
# battle steps and turn ends watched, and returns beside the state a `StepReport` of what the
# two ends of the step do not show (the Strengths each battle was decided with): narration
# reads it instead of resolving the rules a second time; no state, hash or position holds it.
#
# Why this shape: `step` copies the state (a dozen short lists: microseconds) and mutates the
# copy, so it is pure from the outside and cheap enough for ~50 us per input and for the
# thousands of clones an ISMCTS bot makes. Identities of hidden cards never enter the state:
# a rule that needs one pauses on a RevealDecision; a deck is only a set of handles and a
# DealDecision asks which one is on top.
#
# SPEC Part 1 numbers the rules (§1.1–1.11); comments cite them.
from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..errors import GameOverError, IllegalActionError, RulesetError
from ..hashing import length_prefixed, tagged_hasher
from .actions import (
    KIND_WORDS,
    Action,
    ActionKind,
    Deal,
    Input,
    Reveal,
    _validate_action,
    format_input,
)
from .catalogue import DARK, LIGHT, Active, Catalogue
from .decisions import (
    ChoiceDecision,
    ChoiceKind,
    DealDecision,
    DealPurpose,
    Decision,
    GameResult,
    Outcome,
    RevealDecision,
    TurnDecision,
)
from .geometry import Geometry
from .ruleset import ActionOrder, Ruleset, Tile, first_player, layout_tiles

# zones of a handle
DECK, HAND, FIELD, DISCARDED, DESTROYED, ABSORBED = range(6)
ZONE_NAMES = ("deck", "hand", "field", "discarded", "destroyed", "absorbed")

# task codes (first item of a task tuple); TASKS below documents each one
T_DRAW, T_DISCARD, T_REVEAL, T_LAND, T_TURN_UP, T_LOCATION, T_REVELATION, T_TURNED = range(8)
T_ABSORB, T_PASSIVE, T_END_TURN, T_PLACE = 8, 9, 10, 11


class TaskCode(NamedTuple):
    """One pending-task code as SPEC Part 3 ("State encoding") defines it: the task tuple is
    (code, *fields); `fields` names each field's kind: player (0/1), handle, area (index),
    face (1 recto, 0 verso) or other (a handle, or -1 for none)."""

    code: int
    name: str
    fields: tuple[str, ...]
    meaning: str


#: Every task code, in code order. The state hash covers the task stack, so these codes are
#: part of the public format: SPEC prints this table and tests/engine check it against the
#: handlers and against every task random games push.
TASKS: tuple[TaskCode, ...] = (
    TaskCode(T_DRAW, "draw", ("player",),
             "the player draws: a deal (purpose hand) if its deck is not empty, else nothing "
             "(§1.6.3)"),
    TaskCode(T_DISCARD, "discard", ("player",),
             "the player discards (§1.6.1): a deal (purpose discard) if its deck is not empty, "
             "else a discard-from-hand choice, else a discard-from-field choice, else nothing"),
    TaskCode(T_REVEAL, "reveal", ("handle",),
             "a reveal decision by the card's owner, unless its identity is already public"),
    TaskCode(T_LAND, "land", ("handle", "area", "face"),
             "a summoned card lands on the area with that face (§1.5.1); then its summoned "
             "Passive (recto), then the battle if the area was occupied"),
    TaskCode(T_TURN_UP, "turn-up", ("handle",),
             "a flip (Action, Active or Passive) turns the card recto if it is still a verso "
             "field card; then its revealed Passive"),
    TaskCode(T_LOCATION, "location", ("area", "handle", "handle"),
             "battle step §1.7.2 for (area, resident, arriving), skipped if that battle is over"),
    TaskCode(T_REVELATION, "revelation", ("area", "handle", "handle"),
             "battle step §1.7.3, first half: reveal the verso participants"),
    TaskCode(T_TURNED, "turned", ("area", "handle", "handle"),
             "battle step §1.7.3, second half: turn them recto, then the revealed and "
             "battle_revelation Passives"),
    TaskCode(T_ABSORB, "absorb", ("area", "handle", "handle"),
             "battle step §1.7.4: destroy (absorb) the weaker card, or both if equal"),
    TaskCode(T_PASSIVE, "passive", ("handle", "other", "area"),
             "a triggered Passive of the card (§1.9.4); other: its battle opponent (or -1); "
             "area: where it triggered (used by a destroyed Passive)"),
    TaskCode(T_END_TURN, "end-turn", (),
             "the turn ends (§1.4.5): the `end` action pushes it"),
    TaskCode(T_PLACE, "place", ("player", "area"),
             "a start position's face-down field card: a deal (purpose field) puts "
             "the player's next card verso on the area"),
)

_WHITE, _BLACK, _GRAY, _BLUE = int(Tile.WHITE), int(Tile.BLACK), int(Tile.GRAY), int(Tile.BLUE)
_COLOUR_TILE = {"white": _WHITE, "black": _BLACK, "gray": _GRAY, "blue": _BLUE}
_SUMMON, _FLIP, _ACTIVATE, _MOVE = 0, 1, 2, 3
_ACT = ActionKind.ACTIVATE
# enum members as module constants: `ActionKind.END` on the class costs a Python-level
# descriptor call in 3.11 (ten times a global's load), and step reads a few per input
_END, _PICK = int(ActionKind.END), int(ActionKind.PICK)
_ORDERED = ActionOrder.ORDERED
_HAND_DEAL, _FIELD_DEAL = DealPurpose.HAND, DealPurpose.FIELD
_OUTCOME_CODES = {o: i for i, o in enumerate(Outcome)}
_DEAL_PURPOSE = (DealPurpose.HAND, DealPurpose.DISCARD, DealPurpose.FIELD)
# the decisions `_run` pauses on most, built once per player (a frozen dataclass costs a
# microsecond to build, and the generic adapter's cache finds an equal one by hash anyway)
_TURN = (TurnDecision(0), TurnDecision(1))
_DRAW = (DealDecision(0, DealPurpose.HAND), DealDecision(1, DealPurpose.HAND))
_DISCARD = (DealDecision(0, DealPurpose.DISCARD), DealDecision(1, DealPurpose.DISCARD))


# an Active as legal-action generation reads it (`_Static.act`): op and target as small ints
_OP_CODES = {op: i for i, op in enumerate(
    ("teleport", "discard", "draw", "increase", "swap", "destroy", "flip", "copy"))}
_TELEPORT, _DISCARD_OP, _DRAW_OP, _INCREASE, _SWAP, _DESTROY, _FLIP_OP, _COPY = range(8)
_TARGET_CODES = {"": -1, "self": 0, "ally": 1, "enemy": 2, "any": 3}
_SELF, _ALLY, _ENEMY, _ANY = range(4)


class _Static:
    """Per-catalogue tables derived once (continuous Passives and Actives as small tuples:
    the legal-action generator reads them for every recto card at every turn decision)."""

    __slots__ = ("act", "cont", "plain")

    def __init__(self, cat: Catalogue) -> None:
        # (op, target, range is "any", max_strength) of each card's Active
        self.act = tuple((_OP_CODES[a.op], _TARGET_CODES[a.target], a.range == "any",
                          a.max_strength) for a in cat.actives)
        # whether that Active names no area (draw, discard, increase self): one Action, which
        # the generator appends without a call (a third of the catalogue's recto cards)
        self.plain = tuple(op in (_DISCARD_OP, _DRAW_OP) or (op == _INCREASE and target == _SELF)
                           for op, target, _, _ in self.act)
        cont: list[tuple[int, int, int] | None] = []
        for p in cat.passives:
            if p.trigger == "while_colour":
                cont.append((0, _COLOUR_TILE[p.colour], p.amount))
            elif p.trigger == "while_adjacent":
                cont.append((1, 0 if p.side == "ally" else 1, p.amount))
            elif p.trigger == "per_absorbed":
                cont.append((2, 0, p.amount))
            else:
                cont.append(None)
        self.cont = tuple(cont)


class _ActionCache:
    """Immutable Action (and reveal decision) objects shared by all states of one (geometry,
    deck size)."""

    __slots__ = ("areas", "end", "end_only", "flip", "groups", "moves_from", "names", "one", "pick",
                 "reveal", "size", "summon", "two", "zero")

    def __init__(self, geom: Geometry, n_handles: int) -> None:
        names = geom.names
        deck_size = n_handles // 2
        self.end = Action._fast(ActionKind.END)
        self.end_only = (self.end,)
        self.flip = tuple(Action._fast(ActionKind.FLIP, area=n) for n in names)
        # every move from area a, in legal-list order (destinations by area index)
        self.moves_from = tuple(
            tuple(Action._fast(ActionKind.MOVE, area=names[a], to=names[d])
                  for d in geom.adjacent[a]) for a in range(geom.size))
        # every summon of handle h, in legal-list order: its owner's side by area, recto first
        self.summon = tuple(
            tuple(Action._fast(ActionKind.SUMMON, h, names[a], "", recto)
                  for a in geom.side[h // deck_size] for recto in (True, False))
            for h in range(n_handles))
        self.pick = tuple(Action._fast(ActionKind.PICK, h) for h in range(n_handles))
        self.reveal = tuple(RevealDecision(h // deck_size, h) for h in range(n_handles))
        self.names, self.size = names, geom.size
        self.areas = range(geom.size)
        # activate Actions by index, [area][source]: with no target, and by its one target
        # area (2,000 on the standard field); with two targets, by the first, built on demand
        act = ActionKind.ACTIVATE
        self.zero = tuple(tuple(Action._fast(act, -1, names[a], "", False, k)
                                for k in range(5)) for a in range(geom.size))
        self.one = tuple(tuple(tuple(Action._fast(act, -1, names[a], "", False, k, (t,))
                                     for t in names) for k in range(5))
                         for a in range(geom.size))
        self.two: dict[tuple[int, int, int], tuple[Action, ...]] = {}
        self.groups: dict[tuple[int, int, tuple[int, ...], int], tuple[Action, ...]] = {}

    def two_targets(self, area: int, source: int, first: int) -> tuple[Action, ...]:
        """The activate Actions of (area, source) with targets (first, x), by x."""
        key = (area, source, first)
        row = self.two.get(key)
        if row is None:
            names, head, new, kind = self.names, self.names[first], tuple.__new__, _ACT
            where = names[area]  # (Action._fast inlined: random play builds thousands)
            row = self.two[key] = tuple([new(Action, (kind, -1, where, "", False, source,
                                                      (head, t))) for t in names])
        return row

    def teleports(self, area: int, source: int, pre: tuple[int, ...], skip: int
                  ) -> tuple[Action, ...]:
        """The activate Actions of the card on `area` (source `source`) with targets
        `pre + (d,)` for every area d but `skip`, in area order (a teleport's destinations),
        built once: random play lists them at nearly every turn."""
        key = (area, source, pre, skip)
        group = self.groups.get(key)
        if group is None:
            names, new, kind = self.names, tuple.__new__, _ACT
            head, where = tuple([names[x] for x in pre]), names[area]
            group = tuple([new(Action, (kind, -1, where, "", False, source, (*head, names[d])))
                           for d in range(self.size) if d != skip])
            # at most 20 x 5 x 20 x 20 keys on the standard field (a Copy of a teleport of
            # another card fixes two areas), most never met: bounded all the same
            if len(self.groups) >= 8192:
                self.groups.clear()
            self.groups[key] = group
        return group


_CACHES: dict[tuple[int, int, int], _ActionCache] = {}
_STATICS: dict[bytes, _Static] = {}


class State:
    """The public state of one game. Treat as immutable: `step` returns a new one."""

    __slots__ = (
        "_legal", "ac", "active", "alive", "battle", "blue", "board", "cat", "deck_n",
        "face", "first", "geom", "hand_n", "ident", "n", "order_pos", "pending", "pos",
        "result", "rules", "rules_digest", "shared", "stack", "static", "summons", "tasks",
        "temp", "tiles", "turn", "used", "zone",
    )
    # The slots' types: documentation for a reader, and what a compiled build (mypyc, see
    # versus/compiled.py) stores natively and checks at run time.
    rules: Ruleset
    cat: Catalogue
    geom: Geometry
    tiles: tuple[int, ...]
    first: int
    n: int
    ac: _ActionCache
    static: _Static
    blue: int
    rules_digest: bytes
    zone: list[int]
    pos: list[int]
    face: list[int]
    ident: list[int]
    temp: list[int]
    stack: list[tuple[int, ...]]
    board: list[int]
    alive: list[int]
    deck_n: list[int]
    hand_n: list[int]
    tasks: list[tuple[int, ...]]
    turn: int
    active: int
    used: int
    order_pos: int
    summons: int
    battle: tuple[int, int, int] | None
    pending: Decision | None
    result: GameResult | None
    _legal: tuple[Action, ...] | None
    shared: int

    def clone(self) -> State:
        c = State.__new__(State)
        c.rules, c.cat, c.geom, c.tiles, c.first, c.n = (
            self.rules, self.cat, self.geom, self.tiles, self.first, self.n)
        c.ac, c.static, c.blue, c.rules_digest = self.ac, self.static, self.blue, self.rules_digest
        c.zone, c.pos, c.face, c.ident = self.zone[:], self.pos[:], self.face[:], self.ident[:]
        c.temp, c.stack, c.board = self.temp[:], self.stack[:], self.board[:]
        c.alive, c.deck_n, c.hand_n = self.alive[:], self.deck_n[:], self.hand_n[:]
        c.tasks = self.tasks[:]
        c.turn, c.active, c.used, c.order_pos, c.summons = (
            self.turn, self.active, self.used, self.order_pos, self.summons)
        c.battle, c.pending, c.result = self.battle, self.pending, self.result
        c._legal, c.shared = None, 0
        return c

    def _fork(self) -> State:
        """The copy `step` resolves into: the lists most steps write (board, pos, tasks) are
        copied; the others are shared with this state until the step writes one (`shared`
        says which; the `_w_*` functions copy a list before its first write). A step writes
        two or three of the eleven lists: copying all of them was a tenth of a step, and
        the garbage collector's runs grow with every list made."""
        # one plain assignment per slot: the packed form (`c.a, c.b = self.a, self.b`) builds
        # and unpacks a tuple per line, 14 % of the fork, which runs once per input
        c = State.__new__(State)
        c.rules = self.rules
        c.cat = self.cat
        c.geom = self.geom
        c.tiles = self.tiles
        c.first = self.first
        c.n = self.n
        c.ac = self.ac
        c.static = self.static
        c.blue = self.blue
        c.rules_digest = self.rules_digest
        c.zone = self.zone
        c.face = self.face
        c.ident = self.ident
        c.temp = self.temp
        c.stack = self.stack
        c.alive = self.alive
        c.deck_n = self.deck_n
        c.hand_n = self.hand_n
        c.pos = self.pos[:]
        c.board = self.board[:]
        c.tasks = self.tasks[:]
        c.turn = self.turn
        c.active = self.active
        c.used = self.used
        c.order_pos = self.order_pos
        c.summons = self.summons
        c.battle = self.battle
        c.pending = self.pending
        c.result = self.result
        c._legal = None
        c.shared = _SHARED_ALL
        return c

    # --- read-only helpers used by views, tests and bots --------------------------------
    @property
    def deck_size(self) -> int:
        return self.n

    def owner(self, handle: int) -> int:
        return handle // self.n

    def handles(self, player: int) -> range:
        return range(player * self.n, player * self.n + self.n)

    def zone_of(self, handle: int) -> str:
        return ZONE_NAMES[self.zone[handle]]

    def card_at(self, area: str | int) -> int | None:
        i = area if isinstance(area, int) else self.geom.index[area]
        h = self.board[i]
        return None if h < 0 else h

    def public_id(self, handle: int) -> str | None:
        i = self.ident[handle]
        return None if i < 0 else self.cat.cards[i].id

    def level(self, handle: int) -> int:
        return len(self.stack[handle])

    def strength(self, handle: int) -> int | None:
        """Current Strength of a card whose identity is public (None otherwise)."""
        return None if self.ident[handle] < 0 else _strength(self, handle)

    @property
    def decision(self) -> Decision | GameResult:
        return self.result if self.result is not None else self.pending  # type: ignore[return-value]

    def position(self) -> str:
        """A short description of where the game is, for error messages."""
        d = self.decision
        return f"turn {self.turn + 1}, player {self.active} to play, awaiting {_describe(d)}"


# `State.shared` bits: which lists a forked state still shares with the state it came from
_SH_ZONE, _SH_FACE, _SH_IDENT, _SH_TEMP, _SH_STACK, _SH_COUNTS = 1, 2, 4, 8, 16, 32
_SHARED_ALL = 63


# The writable zone, face, ident, temp, stack and counts (alive, deck_n, hand_n) of a state
# being resolved: every write to one of these lists in this module goes through these (a
# forked state shares them with its parent, which must never change).

def _w_zone(s: State) -> list[int]:
    if s.shared & _SH_ZONE:
        s.zone = s.zone[:]
        s.shared ^= _SH_ZONE
    return s.zone


def _w_face(s: State) -> list[int]:
    if s.shared & _SH_FACE:
        s.face = s.face[:]
        s.shared ^= _SH_FACE
    return s.face


def _w_ident(s: State) -> list[int]:
    if s.shared & _SH_IDENT:
        s.ident = s.ident[:]
        s.shared ^= _SH_IDENT
    return s.ident


def _w_temp(s: State) -> list[int]:
    if s.shared & _SH_TEMP:
        s.temp = s.temp[:]
        s.shared ^= _SH_TEMP
    return s.temp


def _w_stack(s: State) -> list[tuple[int, ...]]:
    if s.shared & _SH_STACK:
        s.stack = s.stack[:]
        s.shared ^= _SH_STACK
    return s.stack


def _w_counts(s: State) -> None:
    """Make alive, deck_n and hand_n writable (three short lists: together)."""
    if s.shared & _SH_COUNTS:
        s.alive, s.deck_n, s.hand_n = s.alive[:], s.deck_n[:], s.hand_n[:]
        s.shared ^= _SH_COUNTS


def _describe(d: object) -> str:
    if isinstance(d, TurnDecision):
        return f"turn action by player {d.player}"
    if isinstance(d, ChoiceDecision):
        return f"{d.kind.value} choice by player {d.player}"
    if isinstance(d, DealDecision):
        return f"deal ({d.purpose.value}) from player {d.player}'s deck"
    if isinstance(d, RevealDecision):
        return f"reveal of handle {d.handle} by player {d.player}"
    return f"nothing (game over: {d})"


# --- setup ----------------------------------------------------------------------------------

def deal_new_game(ruleset: Ruleset, catalogue: Catalogue, layout_seed: bytes) -> State:
    """§1.2–1.3: lay out the tiles from the seed, pick the first player, deal the opening hands.
    A match from a start position begins with start.start_state instead (begin.new_game picks
    one or the other: the start module builds on this one)."""
    if ruleset.start:
        raise RulesetError("a ruleset with a start position begins from the position "
                           "(begin.new_game), not with a new deal")
    s = blank_state(ruleset, catalogue, layout_tiles(ruleset, layout_seed))
    # §1.2.3: each player draws hand_size cards, the first player first; executed in this order
    draws = [(T_DRAW, s.first)] * ruleset.hand_size + [(T_DRAW, 1 - s.first)] * ruleset.hand_size
    s.tasks = list(draws[::-1])  # (list(): typed as the task list, a copy at game start)
    _run(s)
    return s


def blank_state(ruleset: Ruleset, catalogue: Catalogue, tiles: tuple[int, ...]) -> State:
    """Turn 0 on the given tiles (exactly one Blue), every card in its owner's deck, nothing
    pending: deal_new_game deals from here, and positions.py lays out any position on it."""
    s = State.__new__(State)
    n = ruleset.deck_size
    s.rules, s.cat, s.geom, s.n = ruleset, catalogue, ruleset.geometry, n
    s.tiles = tiles
    s.blue = s.tiles.index(_BLUE)
    s.first = first_player(ruleset, s.tiles)
    s.rules_digest = ruleset.digest()
    key = (ruleset.rows, ruleset.cols, n)
    if key not in _CACHES:
        _CACHES[key] = _ActionCache(s.geom, 2 * n)
    s.ac = _CACHES[key]
    if catalogue.digest not in _STATICS:
        _STATICS[catalogue.digest] = _Static(catalogue)
    s.static = _STATICS[catalogue.digest]
    s.zone = [DECK] * (2 * n)
    s.pos = [-1] * (2 * n)
    s.face = [0] * (2 * n)
    s.ident = [-1] * (2 * n)
    s.temp = [0] * (2 * n)
    s.stack = [()] * (2 * n)
    s.board = [-1] * s.geom.size
    s.alive, s.deck_n, s.hand_n = [n, n], [n, n], [0, 0]
    s.turn, s.active, s.used, s.order_pos, s.summons = 0, s.first, 0, 0, 0
    s.battle, s.pending, s.result, s._legal = None, None, None, None
    s.tasks = []
    s.shared = 0
    return s


# --- the transition -------------------------------------------------------------------------

def step(state: State, inp: Input) -> State:
    """Apply one input to a copy of `state` and resolve until the next decision."""
    return _step(state, inp, None)


def step_with_report(state: State, inp: Input) -> tuple[State, StepReport]:
    """`step`, and what it resolved that its two ends do not show (`StepReport`): the same
    resolution, its battle steps and turn ends watched as they run. Narration reads it."""
    report = StepReport()
    if state.battle is not None:
        report.met.add((state.battle[1], state.battle[2]))
    return _step(state, inp, report), report


def _step(state: State, inp: Input, report: StepReport | None = None) -> State:
    """`step`, watched by `report` if given (`step_with_report`)."""
    if state.result is not None:
        raise GameOverError(f"input {_fmt(inp)!r} after the end of the game ({state.result})")
    s = state._fork()
    try:
        _apply_input(s, state, inp)
    except (TypeError, AttributeError, KeyError, IndexError):
        # an Action built around its validating constructor (tuple.__new__, _fast) can carry
        # fields of any type; name it as malformed rather than leak a TypeError to the caller
        if isinstance(inp, Action):
            _validate_action(inp)
        raise
    if not (s.alive[0] and s.alive[1]):  # (_run checks after each task it runs)
        _check_end(s)
    _run(s, report)
    return s


class EndedTurn(NamedTuple):
    """A turn that ended by itself (§1.4.5): nothing but `end` was left to its player."""

    turn: int  # 0-based, as State.turn
    player: int
    increases_expired: bool  # some field card lost an Increase "until the end of the turn"


class StepReport:
    """What one step resolved that its two ends do not show, recorded by `step_with_report`
    as the tasks run (never part of a state, its encoding, hash or position): the Strengths
    both participants had when the Absorption step (§1.7.4) decided their battle (a survivor
    that absorbed has its new level's bonus after the step, a destroyed card lost its
    Increase, an Increase "until the end of the turn" expires when the turn ends by itself),
    the battles in progress during the step, decided or not (§1.7.5: a Passive may end one),
    and the turns that ended by themselves (§1.4.5)."""

    __slots__ = ("battles", "ended", "met")

    def __init__(self) -> None:
        #: (resident, arriving card) -> their Strengths at the Absorption step
        self.battles: dict[tuple[int, int], tuple[int, int]] = {}
        #: (resident, arriving card) of every battle in progress during the step
        self.met: set[tuple[int, int]] = set()
        self.ended: list[EndedTurn] = []

    def battle(self, h: int, other: int) -> tuple[int, int] | None:
        """The Strengths of `h` and `other` when their battle was decided (None: no battle)."""
        if (h, other) in self.battles:
            return self.battles[h, other]
        pair = self.battles.get((other, h))
        return None if pair is None else (pair[1], pair[0])

    def fought(self, h: int) -> list[int]:
        """The cards `h` battled in this step (to the Absorption)."""
        return [b if a == h else a for a, b in self.battles if h in (a, b)]

    def opponent(self, h: int) -> int | None:
        """The card `h` stood in a battle with during the step, decided or not."""
        return next((b if a == h else a for a, b in sorted(self.met) if h in (a, b)), None)

    # `_run`'s hooks: the handlers of the battle steps and the turn's end by itself, recording
    # here before they run (so `step` itself pays nothing for the report)
    def _hooks(self) -> tuple[_Handlers, Callable[[State], None]]:
        handlers = list(_HANDLERS)
        handlers[T_LOCATION], handlers[T_ABSORB] = self._location, self._absorb
        return tuple(handlers), self._end_turn

    def _location(self, s: State, t: tuple[int, ...]) -> None:
        if s.battle == t[1:]:
            self.met.add((t[2], t[3]))
        _t_location(s, t)

    def _absorb(self, s: State, t: tuple[int, ...]) -> None:
        if s.battle == t[1:]:
            self.met.add((t[2], t[3]))
            self.battles[t[2], t[3]] = (_strength(s, t[2]), _strength(s, t[3]))
        _t_absorb(s, t)

    def _end_turn(self, s: State) -> None:
        self.ended.append(EndedTurn(s.turn, s.active, any(s.temp)))
        _end_turn(s)


def _apply_input(s: State, state: State, inp: Input) -> None:
    d = s.pending
    if isinstance(inp, Action):
        if isinstance(d, TurnDecision) and inp.kind != _PICK:
            s.pending = None
            _apply_turn_action(s, inp, state)
        elif isinstance(d, ChoiceDecision) and inp.kind == _PICK:
            if inp.handle not in d.options:
                raise _illegal(state, inp, f"handle {inp.handle} is not among the options "
                               f"{list(d.options)}")
            s.pending = None
            _discard_picked(s, inp.handle)
        else:
            raise _illegal(state, inp, "this input does not answer the pending decision")
    elif isinstance(inp, Deal):
        if not isinstance(d, DealDecision):
            raise _illegal(state, inp, "no deal is pending")
        h = inp.handle
        if not (0 <= h < 2 * s.n and h // s.n == d.player and s.zone[h] == DECK):
            raise _illegal(state, inp, f"handle {h} is not in player {d.player}'s deck")
        s.pending = None
        p = d.player
        _w_counts(s)
        s.deck_n[p] -= 1
        zone = _w_zone(s)
        if d.purpose is _HAND_DEAL:
            zone[h] = HAND
            s.hand_n[p] += 1
        elif d.purpose is _FIELD_DEAL:  # a start position's verso card (T_PLACE)
            zone[h], s.pos[h], _w_face(s)[h] = FIELD, d.area, 0
            s.board[d.area] = h
        else:  # §1.6.1: the top card is removed from play, then shown
            zone[h] = DISCARDED
            s.alive[p] -= 1
            s.tasks.append((T_REVEAL, h))
    elif isinstance(inp, Reveal):
        if not isinstance(d, RevealDecision) or d.handle != inp.handle:
            raise _illegal(state, inp, "no reveal of this handle is pending")
        card = s.cat.by_id.get(inp.card_id)
        if card is None:
            raise _illegal(state, inp, f"unknown card id {inp.card_id!r}")
        s.pending = None
        _w_ident(s)[inp.handle] = card.index
    else:
        raise IllegalActionError(f"input {inp!r} is not an Action, Deal or Reveal")


def _fmt(inp: object) -> str:
    try:
        return format_input(inp)  # type: ignore[arg-type]
    except Exception:
        return repr(inp)


def _illegal(state: State, inp: object, reason: str) -> IllegalActionError:
    return IllegalActionError(f"illegal input {_fmt(inp)!r} at {state.position()}: {reason}")


def _run(s: State, report: StepReport | None = None) -> None:
    """Resolve until a decision is pending or the game is over: pop and run tasks; an empty
    stack gives the active player a turn decision, or ends its turn by itself. `report`
    (step_with_report) watches the battle steps and those turn ends."""
    handlers, end_turn = (_HANDLERS, _end_turn) if report is None else report._hooks()
    tasks = s.tasks
    while s.pending is None and s.result is None:
        if not tasks:
            listed = _listed_if_needed(s)
            if listed is None or len(listed) > 1:
                s.pending = _TURN[s.active]
                s._legal = listed
                return
            end_turn(s)  # §1.4.5: nothing but `end` is left: the turn ends by itself
            continue
        t = tasks.pop()
        handlers[t[0]](s, t)
        alive = s.alive  # (copied on its first write: read it anew)
        if not (alive[0] and alive[1]):  # (a call per task costs)
            _check_end(s)


def _check_end(s: State) -> None:
    """§1.10.1, §1.10.2: a player with no card left in deck, hand and field loses."""
    if s.result is None and (s.alive[0] == 0 or s.alive[1] == 0):
        if s.alive[0] == 0 and s.alive[1] == 0:
            s.result = GameResult(Outcome.MUTUAL_ELIMINATION, None)
        else:
            s.result = GameResult(Outcome.ELIMINATION, 0 if s.alive[1] == 0 else 1)
    if s.result is not None:
        s.pending = None


def _push(s: State, seq: Sequence[tuple[int, ...]]) -> None:
    """Schedule `seq` to run in order, before anything already pending."""
    s.tasks.extend(reversed(seq))


def _end_turn(s: State) -> None:
    if any(s.temp):  # §1.9.3: Increases "until the end of the turn" expire (most turns: none)
        s.temp = [0] * (2 * s.n)
        s.shared &= ~_SH_TEMP
    s.turn += 1
    s.used = s.order_pos = s.summons = 0
    if s.turn >= 2 * s.rules.max_turns:  # §1.10.3
        a0, a1 = s.alive
        winner = None if a0 == a1 else (0 if a0 > a1 else 1)
        s.result = GameResult(Outcome.TURN_LIMIT, winner)
        return
    s.active = 1 - s.active


# --- strength, allowed action types ---------------------------------------------------------

def _strength(s: State, h: int) -> int:
    """§1.9: printed Strength + temporary Increase; recto cards add tile and continuous bonuses."""
    cid = s.ident[h]
    value = s.cat.strengths[cid] + s.temp[h]
    if not s.face[h]:
        return value
    area = s.pos[h]
    tile = s.tiles[area]
    energy = s.cat.energies[cid]
    if (tile == _WHITE and energy == LIGHT) or (tile == _BLACK and energy == DARK):
        value += 1
    cont = s.static.cont[cid]
    if cont is not None:
        kind, param, amount = cont
        if kind == 0:
            if tile == param:
                value += amount
        elif kind == 1:
            me = h // s.n
            board, n, adjacent = s.board, s.n, s.geom.adjacent[area]
            for a in adjacent:
                c = board[a]
                if c >= 0 and ((c // n == me) == (param == 0)):
                    value += amount
                    break
            else:  # the second participant of a battle next door stands there too
                bt = s.battle
                if bt is not None and bt[0] in adjacent and (bt[2] // n == me) == (param == 0):
                    value += amount
        else:
            value += amount * len(s.stack[h])
    return value


def _adjacent_cards(s: State, area: int) -> list[int]:
    """The field cards in the areas adjacent to `area`, by area index. During a battle both
    participants stand in its area (the one already there first), though the board lists only
    the first: an adjacent Passive or Increase sees them both."""
    board = s.board
    out = [board[a] for a in s.geom.adjacent[area] if board[a] >= 0]
    bt = s.battle
    if bt is not None and bt[0] in s.geom.adjacent[area]:
        out.insert(out.index(bt[1]) + 1, bt[2])
    return out


def _blue_active(s: State) -> bool:
    c = s.board[s.blue]
    return c >= 0 and s.face[c] == 1


def _allowed(s: State, kind: int) -> bool:
    """§1.4.2–1.4.4: at most one Action of each type (Summon unlimited on a recto Blue)."""
    return bool(_allowed_kinds(s) >> kind & 1)


def _allowed_kinds(s: State) -> int:
    """The turn action kinds §1.4.2–1.4.4 allow now, as bits (bit k: kind k, summon to
    move): one computation for every kind (legal-action generation reads all four)."""
    used = s.used
    floor = s.order_pos if s.rules.action_order is _ORDERED else 0
    mask = ~used & 0b1111 & (-1 << floor)  # §1.4.3: no kind before the last one used
    if used & 1 and not floor and _blue_active(s):  # §1.4.4: Summon again on a recto Blue
        mask |= 1
    return mask


def _sources(s: State, h: int) -> list[Active]:
    """§1.8.2: a card's own Active, then those of the cards it absorbed, in absorption order."""
    acts = s.cat.actives
    ident = s.ident
    return [acts[ident[h]]] + [acts[ident[x]] for x in s.stack[h]]


# --- legal actions --------------------------------------------------------------------------

def legal_actions(state: State) -> list[Action]:
    """Every legal Action for the pending turn or choice decision ([] for deal/reveal/end),
    a new list each call (the state keeps its own as a tuple: step trusts what it lists)."""
    return list(listed_actions(state))


def listed_actions(state: State) -> tuple[Action, ...]:
    """`legal_actions` as the tuple the state keeps (never a copy: the generic adapter's
    callers copy it, or only read it)."""
    legal = state._legal
    if legal is None:
        d = state.pending
        if isinstance(d, ChoiceDecision):
            legal = tuple(state.ac.pick[h] for h in d.options)
        elif isinstance(d, TurnDecision):
            legal = tuple(_turn_actions(state))
        else:
            legal = ()
        state._legal = legal
    return legal


# Legality of each turn action kind is written once, in one function per kind that adds the
# legal actions of that kind to a list (each checks §1.4.2–1.4.4 with `_allowed` first); a
# checked activate (`_check_turn_action`) is looked up among the same generator's Actions.
# `_turn_actions` runs them in SPEC order for legal_actions. `_run` asks after every turn
# action whether one is left (§1.4.5): `_listed_if_needed` answers yes at once when a summon
# or a move is allowed (a verifier replaying a transcript never needs the full list), and
# otherwise lists them all, which the state keeps for `legal_actions` (a player asks next).

def _turn_actions(s: State, allowed: int | None = None) -> list[Action]:
    """Every legal turn action, in SPEC order: summons, flips, activates, moves, end.
    `allowed`: `_allowed_kinds(s)` if the caller has it. The board is scanned once for its
    occupied areas (every kind but summon reads them), and only if a kind reading it is
    allowed (after a Move, under the ordered rule, nothing is)."""
    if allowed is None:
        allowed = _allowed_kinds(s)
    out: list[Action] = []
    if allowed & 1:
        _add_summons(s, out)
    if allowed & 0b1110:
        board, n = s.board, s.n
        lo = s.active * n
        hi = lo + n  # the active player's handles (-1 on the board: an empty area)
        # (indexing over a range: enumerate's pair per area costs 17 % more)
        occ = [a for a in s.ac.areas if board[a] >= 0]
        if allowed & 2:
            _add_flips(s, occ, out)
        if allowed & 0b1100:
            own = [a for a in occ if lo <= board[a] < hi]
            if allowed & 4:
                _add_activates(s, own, occ, out)
            if allowed & 8:
                _add_moves(s, own, out)
    out.append(s.ac.end)
    return out


def _has_turn_action(s: State) -> bool:
    """§1.4.5: whether the active player may do anything but `end`."""
    listed = _listed_if_needed(s)
    return listed is None or len(listed) > 1


def _listed_if_needed(s: State) -> tuple[Action, ...] | None:
    """None when a summon or a move is allowed (then a turn action exists: each needs only a
    hand card or an own field card); else every legal turn action (flips, activates, end),
    which is what `_has_turn_action` would scan anyway: `_run` keeps it for `legal_actions`."""
    p = s.active
    allowed = _allowed_kinds(s)
    if allowed & 1 and s.hand_n[p]:  # a hand card can go on any own area
        return None
    # an own field card (cards left = deck + hand + field) can move: every area has a neighbour
    if allowed & 8 and s.alive[p] > s.deck_n[p] + s.hand_n[p]:
        return None
    if not allowed & 0b0110:  # neither flip nor activate: `end` alone (most turns' last step)
        return s.ac.end_only
    return tuple(_turn_actions(s, allowed & 0b0110))


def _add_summons(s: State, out: list[Action]) -> None:
    """§1.5.1: a hand card onto any area of one's side, recto or verso (if Summon is
    allowed: the caller checks)."""
    p, n = s.active, s.n
    left = s.hand_n[p]
    if left:
        zone, summon = s.zone, s.ac.summon
        h, hi = p * n, p * n + n
        for _ in range(left):  # each of the hand's cards found by list.index, in C (a hand
            h = zone.index(HAND, h, hi)  # holds a few of the deck's handles: a Python loop
            out += summon[h]  # over all of them was most of the summons' cost)
            h += 1


def _add_flips(s: State, occ: list[int], out: list[Action]) -> None:
    """§1.5.2: any verso field card, except the opponent's on Gray (`occ`: occupied areas;
    if Flip is allowed: the caller checks)."""
    lo = s.active * s.n
    hi = lo + s.n
    board, face, tiles, flip = s.board, s.face, s.tiles, s.ac.flip
    out += [flip[a] for a in occ
            if not face[board[a]] and (lo <= board[a] < hi or tiles[a] != _GRAY)]


def _add_activates(s: State, own: list[int], occ: list[int], out: list[Action]) -> None:
    """§1.5.3, §1.8.2: each Active of each own recto card (on the areas `own`), with every
    valid target list (if Activate is allowed: the caller checks)."""
    p, board, face, ident, stack = s.active, s.board, s.face, s.ident, s.stack
    codes, plain, zero = s.static.act, s.static.plain, s.ac.zero
    for a in own:
        c = board[a]
        if face[c]:
            i = ident[c]
            if plain[i]:
                out.append(zero[a][0])
            else:
                _add_active(s, p, c, a, 0, codes[i], (), occ, out)
            for k, x in enumerate(stack[c], 1):  # §1.8.2: absorbed cards' Actives
                _add_active(s, p, c, a, k, codes[ident[x]], (), occ, out)


def _add_active(s: State, p: int, c: int, a: int, k: int, code: tuple[int, int, bool, int],
                pre: tuple[int, ...], occ: list[int], out: list[Action]) -> None:
    """Append the Actions with which card `c` of player `p`, standing on area `a`, can use
    Active `code` (its source `k`: 0 its own, k its k-th absorbed card's), in legal-list
    order. `pre`: the target a Copy (§1.9.5) puts first (the copied card's area), or ().
    The Actions come ready-made from the action cache: `row[x]` is the one whose last target
    is area x. `occ`: the occupied areas, in area order."""
    op, target, any_range, limit = code
    ac = s.ac
    here = a  # (card c stands on area a: no battle is in progress at a turn decision)
    if op == _TELEPORT:  # a destination: any area but the teleported card's own
        if target == _SELF:
            out += ac.teleports(a, k, pre, here)
        else:
            for x in _matching(s, p, c, target, occ):
                out += ac.teleports(a, k, (*pre, x), x)
        return
    if op in (_DISCARD_OP, _DRAW_OP) or (op == _INCREASE and target == _SELF):
        out.append(ac.one[a][k][pre[0]] if pre else ac.zero[a][k])
        return
    # every other Active names one more area: its Actions by that area
    row = ac.two_targets(a, k, pre[0]) if pre else ac.one[a][k]
    if op == _INCREASE:
        out += [row[x] for x in _matching(s, p, c, _ALLY, occ)]
    elif op == _SWAP:
        if any_range:
            out += [row[x] for x in _matching(s, p, c, target, occ)]
        else:
            adj = s.geom.adjacent[here]
            out += [row[x] for x in _matching(s, p, c, target, occ) if x in adj]
    elif op == _DESTROY:
        adj = s.geom.adjacent[here]
        board, stack, face = s.board, s.stack, s.face
        for x in _matching(s, p, c, target, occ):
            if not any_range and x not in adj:
                continue
            v = board[x]
            if len(stack[v]) >= 3:  # §1.8.4: immune to destruction by Actives
                continue
            if limit and (not face[v] or _strength(s, v) > limit):
                continue
            out.append(row[x])
    elif op == _FLIP_OP:
        board, face = s.board, s.face
        if any_range:
            out += [row[x] for x in occ if not face[board[x]]]
        else:
            adj = s.geom.adjacent[here]
            out += [row[x] for x in occ if not face[board[x]] and x in adj]
    elif not pre:  # copy (§1.9.5): another recto card's printed Active, as if printed here
        board, codes, ident, face = s.board, s.static.act, s.ident, s.face
        for y in occ:
            v = board[y]
            if v != c and face[v]:
                other = codes[ident[v]]
                if other[0] != _COPY:
                    _add_active(s, p, c, a, k, other, (y,), occ, out)


def _add_moves(s: State, own: list[int], out: list[Action]) -> None:
    """§1.5.4: an own field card to any adjacent area (if Move is allowed: the caller
    checks)."""
    moves_from = s.ac.moves_from
    for a in own:
        out += moves_from[a]


def _matching(s: State, p: int, h: int, target: int, occ: list[int]) -> list[int]:
    """Areas of field cards other than `h` that are allies (_ALLY), enemies or any, among
    the occupied areas `occ`."""
    lo = p * s.n
    hi = lo + s.n  # player p's handles
    board = s.board
    if target == _ANY:
        return [a for a in occ if board[a] != h]
    if target == _ALLY:
        return [a for a in occ if lo <= board[a] < hi and board[a] != h]
    return [a for a in occ if not lo <= board[a] < hi]  # (h is player p's)


def _active_actions(s: State, c: int, area: int, source: int) -> list[Action]:
    """Every legal activate Action of source `source` of card `c` on `area` (the checked path
    of a turn action: the same generator as the legal list, so legality is written once)."""
    out: list[Action] = []
    stack = s.stack[c]
    x = c if source == 0 else stack[source - 1]
    board = s.board
    occ = [y for y in s.ac.areas if board[y] >= 0]
    _add_active(s, s.active, c, area, source, s.static.act[s.ident[x]], (), occ, out)
    return out


# --- turn actions ---------------------------------------------------------------------------

def _area(state: State, inp: Action, name: str) -> int:
    i = state.geom.index.get(name)
    if i is None:
        names = state.geom.names
        raise _illegal(state, inp, f"{name} is not an area of the field "
                       f"({names[0]}–{names[-1]})")
    return i


def _not_in_hand(s: State, h: int, p: int) -> str:
    """Why handle `h` cannot be summoned by player `p`: which card it is instead."""
    n = s.n
    if not 0 <= h < 2 * n:
        return f"there is no card #{h} (handles are 0–{2 * n - 1})"
    if h // n != p:
        return f"card #{h} is player {1 - p}'s, not in player {p}'s hand"
    where = {DECK: "in the deck", FIELD: "on the field"}.get(s.zone[h], ZONE_NAMES[s.zone[h]])
    return f"card #{h} is {where}, not in player {p}'s hand"


def _apply_turn_action(s: State, a: Action, before: State) -> None:
    kind = a.kind
    if kind == _END:  # §1.4.5
        s.tasks.append((T_END_TURN,))
        return
    legal = before._legal
    try:  # (one scan: `in` then `index` would make two; no helper's call per action)
        i = legal.index(a) if legal is not None else -1
    except ValueError:
        i = -1
    if i >= 0:
        # listed by legal_actions for this very state, so legal: its engine-built twin is
        # applied unchecked (the checks below cost a bot's playout a third of its step)
        a = legal[i]  # type: ignore[index]
        index = s.geom.index
        area = index[a.area]
        if kind == _ACTIVATE:
            c = s.board[area]
            targets = [index[t] for t in a.targets]
            _resolve_active(s, s.active, c, _sources(s, c)[a.source], targets)
        else:
            _do_turn_action(s, a, area, index[a.to] if kind == _MOVE else -1)
    else:
        _check_turn_action(s, a, before)
    s.used |= 1 << kind
    s.order_pos = kind


def _check_turn_action(s: State, a: Action, before: State) -> None:
    """Apply a turn action not known to be legal: each rule checked, IllegalActionError
    saying which one it breaks."""
    kind = a.kind
    p = s.active
    if not _allowed(s, kind):
        why = ("the Summon Action is used and no recto card stands on the Blue area"
               if kind == _SUMMON else f"the {KIND_WORDS[kind]} Action is used")
        if s.order_pos > kind and s.rules.action_order is _ORDERED:
            why = "actions go in the order summon, flip, activate, move (§1.4.3)"
        raise _illegal(before, a, why)
    board, n = s.board, s.n
    if kind == _SUMMON:  # §1.5.1
        h = a.handle
        if not (0 <= h < 2 * n and h // n == p and s.zone[h] == HAND):
            raise _illegal(before, a, _not_in_hand(s, h, p))
        area = _area(before, a, a.area)
        if s.geom.owner[area] != p:
            raise _illegal(before, a, f"{a.area} is not on player {p}'s side")
        _do_turn_action(s, a, area, -1)
    elif kind == _FLIP:  # §1.5.2
        area = _area(before, a, a.area)
        c = board[area]
        if c < 0 or s.face[c]:
            raise _illegal(before, a, f"no card on {a.area}" if c < 0 else
                           f"no verso card on {a.area}: the card there is already recto")
        if c // n != p and s.tiles[area] == _GRAY:
            raise _illegal(before, a, f"the opponent's verso card on Gray {a.area} is protected")
        _do_turn_action(s, a, area, -1)
    elif kind == _MOVE:  # §1.5.4
        src = _area(before, a, a.area)
        dst = _area(before, a, a.to)
        c = board[src]
        if c < 0 or c // n != p:
            raise _illegal(before, a, f"no card of player {p} on {a.area}")
        if dst not in s.geom.adjacent[src]:
            raise _illegal(before, a, f"{a.to} is not adjacent to {a.area}")
        _do_turn_action(s, a, src, dst)
    elif kind == _ACTIVATE:  # §1.5.3
        area = _area(before, a, a.area)
        c = board[area]
        if c < 0 or c // n != p or not s.face[c]:
            raise _illegal(before, a, f"no recto card of player {p} on {a.area}")
        sources = _sources(s, c)
        if a.source >= len(sources):
            raise _illegal(before, a, f"the card on {a.area} has absorbed "
                           f"{len(sources) - 1} card(s)")
        spec = sources[a.source]
        valid = [x.targets for x in _active_actions(s, c, area, a.source)]
        counts = sorted({len(t) for t in valid})
        if a.targets not in valid and counts and len(a.targets) not in counts:
            want = " or ".join(str(k) for k in counts)
            raise _illegal(before, a, f"'{spec.op}' takes {want} target area(s), got "
                           f"{len(a.targets)}")
        if a.targets not in valid:
            raise _illegal(before, a, f"'{spec.op}' cannot be used with targets "
                           f"{' '.join(a.targets) or '(none)'}")
        _resolve_active(s, p, c, spec, [s.geom.index[t] for t in a.targets])
    else:
        raise _illegal(before, a, "not a turn action")


def _do_turn_action(s: State, a: Action, area: int, to: int) -> None:
    """The effect of a legal summon (onto `area`), flip (of `area`) or move (`area` to `to`)."""
    kind = a.kind
    # (the tasks pushed last first, as `_push` would: the hot turn actions skip its call)
    if kind == _SUMMON:  # §1.5.1: reveal (recto), then land
        h = a.handle
        if a.recto:
            s.tasks += ((T_LAND, h, area, 1), (T_REVEAL, h))
        else:
            s.tasks.append((T_LAND, h, area, 0))
        s.summons += 1
    elif kind == _FLIP:  # §1.5.2: reveal, then turn up
        c = s.board[area]
        s.tasks += ((T_TURN_UP, c), (T_REVEAL, c))
    else:  # move, §1.5.4
        p = s.active
        c = s.board[area]
        s.board[area] = -1
        battle = _arrive(s, c, to)
        seq: list[tuple[int, ...]] = []
        if s.geom.backline_of[to] == 1 - p:  # §1.6.2: Backline Move
            seq.append((T_DISCARD, 1 - p))
        if battle:
            seq.append(battle)
        _push(s, seq)


def _arrive(s: State, h: int, area: int) -> tuple[int, ...] | None:
    """Put a card on an area; if occupied, a battle starts (§1.7.1) and its first task returns."""
    s.pos[h] = area
    resident = s.board[area]
    if resident < 0:
        s.board[area] = h
        return None
    s.battle = (area, resident, h)
    return (T_LOCATION, area, resident, h)


def _resolve_active(s: State, p: int, h: int, spec: Active, targets: list[int]) -> None:
    op = spec.op
    board = s.board
    if op == "teleport":  # §1.7.6: not a Move Action (no Backline discard)
        card = h if spec.target == "self" else board[targets[0]]
        dst = targets[-1]
        board[s.pos[card]] = -1
        battle = _arrive(s, card, dst)
        if battle:
            s.tasks.append(battle)
    elif op == "swap":
        other_area = targets[0]
        here = s.pos[h]
        other = board[other_area]
        board[here], board[other_area] = other, h
        s.pos[h], s.pos[other] = other_area, here
    elif op == "destroy":
        _push(s, _destroy(s, board[targets[0]]))
    elif op == "discard":
        _push(s, [(T_DISCARD, 1 - p)] * spec.amount)
    elif op == "draw":
        _push(s, [(T_DRAW, p)] * spec.amount)
    elif op == "increase":
        card = h if spec.target == "self" else board[targets[0]]
        _w_temp(s)[card] += spec.amount
    elif op == "flip":
        c = board[targets[0]]
        _push(s, [(T_REVEAL, c), (T_TURN_UP, c)])
    else:  # copy
        copied = s.cat.actives[s.ident[board[targets[0]]]]
        _resolve_active(s, p, h, copied, targets[1:])


# --- removal from the field -----------------------------------------------------------------

def _remove(s: State, h: int) -> None:
    """Take a card off the field; if it was in the battle in progress, the battle ends."""
    area = s.pos[h]
    s.pos[h] = -1
    if s.board[area] == h:
        s.board[area] = -1
    bt = s.battle
    if bt is not None and (h == bt[1] or h == bt[2]):
        other = bt[2] if h == bt[1] else bt[1]
        if s.zone[other] == FIELD and s.pos[other] == area:
            s.board[area] = other
        s.battle = None


def _destroy(s: State, h: int, absorber: int = -1) -> list[tuple[int, ...]]:
    """§1.7.4, §1.6.3: destroy a field card; returns the follow-up tasks (draw, then Passive)."""
    area = s.pos[h]
    _remove(s, h)
    owner = h // s.n
    _w_zone(s)[h] = DESTROYED if absorber < 0 else ABSORBED
    _w_counts(s)
    s.alive[owner] -= 1
    if s.temp[h]:
        _w_temp(s)[h] = 0
    if absorber >= 0:
        stack = _w_stack(s)
        stack[absorber] = (*stack[absorber], h)
    follow: list[tuple[int, ...]] = [(T_DRAW, owner)]
    if s.face[h] and s.cat.passives[s.ident[h]].trigger == "destroyed":
        follow.append((T_PASSIVE, h, -1, area))
    return follow


def _discard_picked(s: State, h: int) -> None:
    """§1.6.1: a discard chosen from hand (deck empty) or field (deck and hand empty)."""
    p = h // s.n
    _w_counts(s)
    if s.zone[h] == HAND:
        s.hand_n[p] -= 1
    else:
        _remove(s, h)
    _w_zone(s)[h] = DISCARDED
    s.alive[p] -= 1
    if s.temp[h]:
        _w_temp(s)[h] = 0
    s.tasks.append((T_REVEAL, h))


# --- task handlers --------------------------------------------------------------------------

def _t_draw(s: State, t: tuple[int, ...]) -> None:
    p = t[1]
    if s.deck_n[p]:  # §1.6.3: an empty deck draws nothing
        s.pending = _DRAW[p]


def _t_discard(s: State, t: tuple[int, ...]) -> None:
    p = t[1]
    n = s.n
    if s.deck_n[p]:
        s.pending = _DISCARD[p]
        return
    for zone, kind in ((HAND, ChoiceKind.DISCARD_FROM_HAND),
                       (FIELD, ChoiceKind.DISCARD_FROM_FIELD)):
        options = tuple(h for h in range(p * n, p * n + n) if s.zone[h] == zone)
        if options:
            s.pending = ChoiceDecision(p, kind, options)
            return


def _t_place(s: State, t: tuple[int, ...]) -> None:
    p, area = t[1], t[2]
    if s.deck_n[p] and s.board[area] < 0:  # a start state plans exactly its deck's cards
        s.pending = DealDecision(p, DealPurpose.FIELD, area)


def _t_reveal(s: State, t: tuple[int, ...]) -> None:
    h = t[1]
    if s.ident[h] < 0:
        s.pending = s.ac.reveal[h]


def _t_land(s: State, t: tuple[int, ...]) -> None:
    _, h, area, recto = t
    p = h // s.n
    _w_zone(s)[h] = FIELD
    _w_counts(s)
    s.hand_n[p] -= 1
    _w_face(s)[h] = recto
    battle = _arrive(s, h, area)
    seq: list[tuple[int, ...]] = []
    if recto and s.cat.passives[s.ident[h]].trigger == "summoned":
        seq.append((T_PASSIVE, h, -1, area))
    if battle:
        seq.append(battle)
    _push(s, seq)


def _t_turn_up(s: State, t: tuple[int, ...]) -> None:
    h = t[1]
    if s.zone[h] == FIELD and not s.face[h]:
        _w_face(s)[h] = 1
        if s.cat.passives[s.ident[h]].trigger == "revealed":
            s.tasks.append((T_PASSIVE, h, -1, s.pos[h]))


def _t_location(s: State, t: tuple[int, ...]) -> None:
    """§1.7.2: Location step: check the Passives this battle makes applicable."""
    _, area, a, b = t
    if s.battle != (area, a, b):
        return
    passives, ident, face = s.cat.passives, s.ident, s.face
    seq: list[tuple[int, ...]] = []
    for x, other in ((a, b), (b, a)):
        if face[x] and passives[ident[x]].trigger == "battle_location":
            seq.append((T_PASSIVE, x, other, area))
    for y in s.geom.adjacent[area]:
        c = s.board[y]
        if c >= 0 and face[c] and passives[ident[c]].trigger == "battle_adjacent":
            seq.append((T_PASSIVE, c, -1, y))
    seq.append((T_REVELATION, area, a, b))
    _push(s, seq)


def _t_revelation(s: State, t: tuple[int, ...]) -> None:
    """§1.7.3: Revelation step: verso participants are revealed (not a Flip Action)."""
    _, area, a, b = t
    if s.battle != (area, a, b):
        return
    seq: list[tuple[int, ...]] = [(T_REVEAL, x) for x in (a, b) if not s.face[x]]
    seq.append((T_TURNED, area, a, b))
    _push(s, seq)


def _t_turned(s: State, t: tuple[int, ...]) -> None:
    _, area, a, b = t
    if s.battle != (area, a, b):
        return
    passives, ident, face = s.cat.passives, s.ident, s.face
    seq: list[tuple[int, ...]] = []
    for x, other in ((a, b), (b, a)):
        if not face[x]:
            face = _w_face(s)
            face[x] = 1
            if passives[ident[x]].trigger == "revealed":
                seq.append((T_PASSIVE, x, other, area))
    for x, other in ((a, b), (b, a)):
        if passives[ident[x]].trigger == "battle_revelation":
            seq.append((T_PASSIVE, x, other, area))
    seq.append((T_ABSORB, area, a, b))
    _push(s, seq)


def _t_absorb(s: State, t: tuple[int, ...]) -> None:
    """§1.7.4: the weaker card is destroyed (absorbed if an enemy); equal: both destroyed."""
    _, area, a, b = t
    if s.battle != (area, a, b):
        return
    sa, sb = _strength(s, a), _strength(s, b)
    if sa == sb:
        follow = _destroy(s, a) + _destroy(s, b)
    else:
        weak, strong = (a, b) if sa < sb else (b, a)
        enemy = weak // s.n != strong // s.n
        follow = _destroy(s, weak, strong if enemy else -1)
        if enemy and len(s.stack[strong]) >= 4:  # §1.8.5: the fourth absorption wins
            s.result = GameResult(Outcome.ABSORPTION, strong // s.n)
    s.battle = None
    _push(s, follow)


def _t_passive(s: State, t: tuple[int, ...]) -> None:
    """§1.9.4: a triggered Passive (only a recto card's; a destroyed card's from where it was)."""
    _, h, other, area = t
    spec = s.cat.passives[s.ident[h]]
    if spec.trigger != "destroyed":
        if s.zone[h] != FIELD or not s.face[h]:
            return
        area = s.pos[h]
    p = h // s.n
    op = spec.op
    if op == "draw":
        _push(s, [(T_DRAW, p)] * spec.amount)
    elif op == "discard":
        _push(s, [(T_DISCARD, 1 - p)] * spec.amount)
    elif op == "increase":
        _w_temp(s)[h] += spec.amount
    elif op == "flip":
        for c in _adjacent_cards(s, area):
            if c // s.n != p and not s.face[c]:
                _push(s, [(T_REVEAL, c), (T_TURN_UP, c)])
                return
    else:  # destroy
        victim = _passive_victim(s, p, spec.target, spec.max_strength, other, area)
        if victim >= 0:
            _push(s, _destroy(s, victim))


def _passive_victim(s: State, p: int, target: str, limit: int, other: int, area: int) -> int:
    n = s.n

    def ok(c: int) -> bool:
        if len(s.stack[c]) >= 2:  # §1.8.3: immune to destruction by Passives
            return False
        return not limit or (s.face[c] == 1 and _strength(s, c) <= limit)

    if target == "battle_opponent":
        if other >= 0 and s.zone[other] == FIELD and other // n != p and ok(other):
            return other
        return -1
    best, best_strength = -1, 99
    for c in _adjacent_cards(s, area):  # by area index: the first weakest wins ties
        if c // n != p and s.face[c] and ok(c):
            strength = _strength(s, c)
            if strength < best_strength:
                best, best_strength = c, strength
    return best


def _t_end_turn(s: State, t: tuple[int, ...]) -> None:
    _end_turn(s)


#: the handler of each task code (`_run` runs task t with _HANDLERS[t[0]])
_Handlers = tuple[Callable[[State, tuple[int, ...]], None], ...]
_HANDLERS: _Handlers = (_t_draw, _t_discard, _t_reveal, _t_land, _t_turn_up, _t_location,
                        _t_revelation, _t_turned, _t_absorb, _t_passive, _t_end_turn, _t_place)


# --- canonical encoding and hash ------------------------------------------------------------

_CHOICE_CODES = {kind: code for code, kind in enumerate(ChoiceKind)}


def encode_state(s: State) -> bytes:
    """Canonical public encoding: a version, then signed 16-bit big-endian integers."""
    ints: list[int] = [1, s.n, s.turn, s.active, s.used, s.order_pos, s.summons, s.first]
    ints += s.tiles
    ints += s.zone
    ints += s.pos
    ints += s.face
    ints += s.ident
    ints += s.temp
    for st in s.stack:
        ints.append(len(st))
        ints += st
    ints += s.board
    ints += s.battle if s.battle is not None else (-1, -1, -1)
    ints.append(len(s.tasks))
    for task in s.tasks:
        ints.append(len(task))
        ints += task
    d = s.pending
    if isinstance(d, TurnDecision):
        ints += (1, d.player)
    elif isinstance(d, ChoiceDecision):
        ints += (2, d.player, _CHOICE_CODES[d.kind], len(d.options), *d.options)
    elif isinstance(d, DealDecision):
        ints += (3, d.player, _DEAL_PURPOSE.index(d.purpose))
        if d.purpose is DealPurpose.FIELD:
            ints.append(d.area)
    elif isinstance(d, RevealDecision):
        ints += (4, d.player, d.handle)
    else:
        ints.append(0)
    r = s.result
    ints += (-1, -1) if r is None else (_OUTCOME_CODES[r.outcome],
                                       -1 if r.winner is None else r.winner)
    return b"VS" + struct.pack(f">{len(ints)}h", *ints)


def state_hash(s: State) -> bytes:
    """SHA-256 binding the ruleset, the catalogue and the canonical public state:
    tagged_hash("state", rules digest, catalogue digest, encode_state(s)), the fixed leading
    parts hashed once per (ruleset, catalogue) (the replay hashes every state)."""
    key = (s.rules_digest, s.cat.digest)
    prefix = _STATE_HASH_PREFIXES.get(key)
    if prefix is None:
        if len(_STATE_HASH_PREFIXES) >= 64:
            _STATE_HASH_PREFIXES.clear()
        prefix = _STATE_HASH_PREFIXES[key] = tagged_hasher("state", *key)
    h = prefix.copy()
    h.update(length_prefixed(encode_state(s)))
    return h.digest()


_STATE_HASH_PREFIXES: dict[tuple[bytes, bytes], Any] = {}
