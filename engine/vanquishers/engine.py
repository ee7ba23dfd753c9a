# The Vanquishers rules engine (SPEC Part 10, rules §10.1.1–10.1.7 and the encoding of §10.4): the
# public state, the inputs and their one-line notation, `step`, `legal_actions`, the decision, the
# canonical encoding and the domain-separated state hash.
#
# How. A `State` holds only public information: per handle (player p owns p*n .. p*n+n-1) its
# zone, its catalogue index once revealed (-1 before), the weapon it is attached to and one
# counter (`aux`); per player its hero's counters; the turn, the step of the turn (1-7), the dice
# rolled for the roll in progress, the attack in progress, a stack of tasks and the pending
# decision. `step` thaws the state into a mutable `_Work`, applies the input to the pending
# decision, then runs tasks until one needs a decision (a DEAL, REVEAL, CHANCE or CHOICE), or,
# when the stack is empty, offers the active player the current turn step (a step with nothing
# to do but `next`/`end` passes by itself). Why a task stack: every hidden identity and every die
# arrives as its own input, so an action that needs one (play a card: reveal it first; target:
# a trap choice, two dice) is split into tasks that survive between inputs and enter the hash,
# exactly as Versus does (SPEC §3.4): two implementations agree on a hash when they push the same
# tasks in the same order. While it resolves, the work records what the rules did (`note`: a
# roll's values, a fizzle's reason, a trap sprung...); `explain` returns that record for the
# narration, which so never re-implements a rule. The record is no part of the state or hash.
#
# Legality that depends on a hidden identity is settled when the card is revealed: an honest player
# can answer every action `legal_actions` lists whatever its hidden cards are (a card that turns out
# not to be activatable fizzles, §10.1.5.2; a face-down card that is no trap of the declared cost,
# or a trap named as one set face up, is a decoy, §10.1.5.6), and a reveal that breaks a
# deck-building rule (copies, §10.2.3) is refused: that is a cheat, blamed on the revealing seat.
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum

from ..api import DecisionKind, Finished, Pending
from ..errors import GameOverError, IllegalActionError, MalformedActionError, RulesetError
from .cards import (
    MOD_FITS,
    Card,
    CardType,
    Catalogue,
    Effect,
    EnergyType,
    HeroAbility,
    Subtype,
    _tagged,
    ammo_for,
    copy_limit,
    plain_members,
    usable_by,
)
from .rules import Rules

START_HAND = 7
HAND_LIMIT = 8
WEAPON_SLOTS = 2
MAX_MODS = 2
WEAKNESS_BONUS = 2
ENCODING_VERSION = 1
BURN_MAX = 4


class Zone(IntEnum):
    DECK = 0
    HAND = 1
    BOARD = 2  # equipped / active / attached (host >= 0)
    TRAP = 3  # set face down
    DISCARD = 4
    EXILE = 5


class S(IntEnum):
    """Per-player counters, in encoding order (§10.4 field 8)."""

    HERO = 0  # catalogue index of the hero
    LIFE = 1
    SHIELD = 2
    STORAGE = 3  # Storage Energy Points (§10.1.2)
    SPENT = 4  # spent this turn
    VT = 5  # V-Trigger active
    ECLASS = 6  # Advanced: catalogue index of the active energy class card, -1 none
    GLITCH = 7
    BURN = 8
    SHOCK = 9
    FROZEN = 10
    CURSE = 11
    ROLL = 12  # the last setup die (§10.1.1.1), 0 before


SIDE_FIELDS = len(S)
CONDITIONS = {"glitch": S.GLITCH, "burn": S.BURN, "shock": S.SHOCK, "frozen": S.FROZEN,
              "curse": S.CURSE}


class T(IntEnum):
    """Task codes (§10.4 "Tasks")."""

    ROLL = 0
    FIRST = 1
    DRAW = 2
    START = 3
    REVEAL = 4
    PLAY = 5
    SPRING = 6
    ATTACK = 7
    HIT = 8
    TRAPS = 9
    END = 10
    PHASE = 11
    PLACE = 12  # a start position's face-down trap: p's next card, set at cost c


class D(IntEnum):
    """Decision codes (§10.4 field 15)."""

    NONE = 0
    TURN = 1
    CHOICE = 2
    DEAL = 3
    REVEAL = 4
    CHANCE = 5
    PLACE = 6  # a deal that sets the card face down as a trap of a cost (start positions)


class ChoiceKind(IntEnum):
    SPRING_TRAP = 0
    REPLACE_WEAPON = 1


CHOICE_LABELS = {ChoiceKind.SPRING_TRAP: "spring-trap", ChoiceKind.REPLACE_WEAPON:
                 "replace-weapon"}
OUTCOMES = ("defeat", "turn-limit")


# --- inputs and notation ----------------------------------------------------------------------


class Verb(Enum):
    NEXT = "next"
    END = "end"
    RECOVER = "recover"
    VTRIGGER = "vtrigger"
    PASS = "pass"
    EXILE = "exile"
    PLAY = "play"
    RIFT = "rift"
    TARGET = "target"
    PICK = "pick"
    DEAL = "deal"
    TRAP = "trap"
    ROLL = "roll"
    REVEAL = "reveal"


# The enum members the rules read at every step, through plain classes (`plain_members`: an
# Enum class's attribute costs a Python call on 3.11): `_S.LIFE` is the member `S.LIFE`.
_Zone = plain_members(Zone)
_S = plain_members(S)
_T = plain_members(T)
_D = plain_members(D)
_Verb = plain_members(Verb)
_ChoiceKind = plain_members(ChoiceKind)
_CardType = plain_members(CardType)
_Subtype = plain_members(Subtype)
_Effect = plain_members(Effect)
_HeroAbility = plain_members(HeroAbility)
_EnergyType = plain_members(EnergyType)
_DecisionKind = plain_members(DecisionKind)

_BARE = {_Verb.NEXT, _Verb.END, _Verb.RECOVER, _Verb.VTRIGGER, _Verb.PASS}
_HANDLE = {_Verb.EXILE, _Verb.PLAY, _Verb.RIFT, _Verb.TARGET, _Verb.PICK, _Verb.DEAL}
_NUM = r"(0|[1-9][0-9]{0,3})"
_CARD_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


@dataclass(frozen=True, slots=True)
class Move:
    """One input: a turn action, a choice answer, a deal, a reveal or a die outcome."""

    verb: Verb
    handle: int = -1
    value: int = -1
    card: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.verb, Verb):
            raise MalformedActionError(f"input verb {self.verb!r} is not a Verb")
        v = self.verb
        needs_handle = v in _HANDLE or v in (_Verb.TRAP, _Verb.REVEAL)
        if type(self.handle) is not int or (needs_handle and not 0 <= self.handle < 10000) \
                or (not needs_handle and self.handle != -1):
            raise MalformedActionError(f"input {v.value}: bad handle {self.handle!r}")
        needs_value = v in (_Verb.TRAP, _Verb.ROLL)
        if type(self.value) is not int or (needs_value and not 0 <= self.value < 10000) \
                or (not needs_value and self.value != -1):
            raise MalformedActionError(f"input {v.value}: bad value {self.value!r}")
        if v is _Verb.REVEAL:
            if not isinstance(self.card, str) or not _CARD_RE.fullmatch(self.card):
                raise MalformedActionError(f"input reveal: bad card id {self.card!r:.50}")
        elif self.card != "":
            raise MalformedActionError(f"input {v.value}: only a reveal names a card")

    def __str__(self) -> str:
        return format_input(self)


def _trusted(verb: Verb, handle: int = -1, value: int = -1) -> Move:
    """An input the engine itself generates (its fields known good): built without the checks
    of `Move.__post_init__`, which cost more than the rest of a legal-action list. Inputs
    parsed or received from outside keep the checked constructor."""
    m = object.__new__(Move)
    object.__setattr__(m, "verb", verb)
    object.__setattr__(m, "handle", handle)
    object.__setattr__(m, "value", value)
    object.__setattr__(m, "card", "")
    return m


#: engine-generated inputs are immutable values: one object per (verb, handle, value), reused
#: at every step (keyed by the member's id: a Verb is a singleton, and an Enum member hashes
#: in Python, slowly)
_MOVES: dict[tuple[int, int, int], Move] = {}


def _move(verb: Verb, handle: int = -1, value: int = -1) -> Move:
    """The one engine-generated input of these fields (trusted: see `_trusted`)."""
    key = (id(verb), handle, value)
    m = _MOVES.get(key)
    if m is None:
        m = _MOVES[key] = _trusted(verb, handle, value)
    return m


class _Moves(dict[object, Move]):
    """One verb's engine-generated inputs by handle, or by (handle, value): `table[h]`. A
    listing builds a dozen inputs, and reading a dict is C code where `_move` is a call."""

    def __init__(self, verb: Verb) -> None:
        super().__init__()
        self.verb = verb

    def __missing__(self, key: object) -> Move:
        h, value = key if isinstance(key, tuple) else (key, -1)
        m = self[key] = _move(self.verb, h, value)
        return m


_PLAYS, _EXILES, _RIFTS = _Moves(_Verb.PLAY), _Moves(_Verb.EXILE), _Moves(_Verb.RIFT)
_TRAPS, _PICKS, _TARGETS = _Moves(_Verb.TRAP), _Moves(_Verb.PICK), _Moves(_Verb.TARGET)
_NEXT, _END, _PASS = _move(_Verb.NEXT), _move(_Verb.END), _move(_Verb.PASS)
_RECOVER, _VTRIGGER = _move(_Verb.RECOVER), _move(_Verb.VTRIGGER)
_ROLLS = tuple(_move(_Verb.ROLL, value=k) for k in range(1, 7))


def format_input(m: Move) -> str:
    if not isinstance(m, Move):
        raise MalformedActionError(f"not a vanquishers input: {m!r:.60}")
    if m.verb in _BARE:
        return m.verb.value
    if m.verb in _HANDLE:
        return f"{m.verb.value} {m.handle}"
    if m.verb is _Verb.TRAP:
        return f"trap {m.handle} {m.value}"
    if m.verb is _Verb.ROLL:
        return f"roll {m.value}"
    return f"reveal {m.handle} {m.card}"


_PATTERNS = [
    (re.compile("(next|end|recover|vtrigger|pass)"), lambda g: Move(Verb(g[0]))),
    (re.compile(f"(exile|play|rift|target|pick|deal) {_NUM}"),
     lambda g: Move(Verb(g[0]), int(g[1]))),
    (re.compile(f"trap {_NUM} {_NUM}"), lambda g: Move(_Verb.TRAP, int(g[0]), int(g[1]))),
    (re.compile(f"roll {_NUM}"), lambda g: Move(_Verb.ROLL, value=int(g[0]))),
    (re.compile(f"reveal {_NUM} ([a-z0-9][a-z0-9-]{{0,39}})"),
     lambda g: Move(_Verb.REVEAL, int(g[0]), card=g[1])),
]


def parse_input(text: str) -> Move:
    """The input of one canonical line; MalformedActionError names the text otherwise."""
    if isinstance(text, str) and len(text) <= 200:
        for pattern, build in _PATTERNS:
            match = pattern.fullmatch(text)
            if match:
                return build(match.groups() or (match.group(0),))  # type: ignore[no-untyped-call]
    raise MalformedActionError(f"malformed vanquishers input {text!r:.60}")


# --- state ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """A public game state (never a hidden identity). Tuples only; see §10.4 for each field."""

    rules: Rules
    cat: Catalogue
    turn: int
    active: int
    first: int
    phase: int
    exiles: int
    sides: tuple[tuple[int, ...], tuple[int, ...]]
    zone: tuple[int, ...]
    card: tuple[int, ...]
    host: tuple[int, ...]
    aux: tuple[int, ...]
    dice: tuple[int, ...]
    attack: tuple[int, int, int]  # weapon handle, defense bonus, cancelled (-1, 0, 0: none)
    tasks: tuple[tuple[int, ...], ...]
    dec: tuple[int, ...]
    result: tuple[int, int]  # outcome code, winner (-1 draw); (-1, -1) while the game goes on

    def __post_init__(self) -> None:
        n = 2 * self.rules.deck_size
        for name in ("zone", "card", "host", "aux"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"state field {name}: {n} handles expected")
        if len(self.sides) != 2 or any(len(s) != SIDE_FIELDS for s in self.sides):
            raise ValueError(f"state field sides: 2 x {SIDE_FIELDS} counters expected")

    @property
    def n(self) -> int:
        return self.rules.deck_size

    def owner(self, h: int) -> int:
        return h // self.rules.deck_size

    def public_card(self, h: int) -> Card | None:
        i = self.card[h]
        return None if i < 0 else self.cat.cards[i]

    def hero(self, p: int) -> Card:
        return self.cat.cards[self.sides[p][_S.HERO]]

    def handles(self, p: int, zone: Zone) -> list[int]:
        n = self.rules.deck_size
        return [h for h in range(p * n, p * n + n) if self.zone[h] == zone]


#: per player, per zone (by its number), the player's handles in that zone, ascending: a step
#: reads a hand or a board many times, and a scan of a player's handles costs ten bytecodes a
#: handle. A step's work keeps it up to date (`_Work.move`) and leaves it, with the state it
#: froze, in `_LAST_PLACES` for the next step (a game is a chain of steps). One slot matched by
#: identity, like `_LAST_LEGAL`; one tuple, so a reader sees a pair whole.
_Places = tuple[tuple[tuple[int, ...], ...], ...]
_LAST_PLACES: tuple[object, _Places | None] = (None, None)


def _places_of(s: State) -> _Places | None:
    last = _LAST_PLACES
    return last[1] if last[0] is s else None


def _index_places(zone: Sequence[int], n: int) -> _Places:
    out = []
    for p in (0, 1):
        lists: list[list[int]] = [[] for _ in Zone]
        for h in range(p * n, p * n + n):
            lists[zone[h]].append(h)
        out.append(tuple(tuple(x) for x in lists))
    return tuple(out)


def _moved_place(places: _Places, p: int, h: int, old: int, new: int) -> _Places:
    """`places` with p's card h moved from zone `old` to `new` (shared parts stay shared)."""
    lists = list(places[p])
    lists[old] = tuple(x for x in lists[old] if x != h)
    lists[new] = tuple(sorted((*lists[new], h)))
    return (tuple(lists), places[1]) if p == 0 else (places[0], tuple(lists))


_set_attr = object.__setattr__  # past a frozen dataclass's refusal (`_Work.freeze`)


class _Work:
    """A mutable copy of a State that `step` works on, then freezes."""

    def __init__(self, s: State) -> None:
        self.rules, self.cat, self.n = s.rules, s.cat, s.rules.deck_size
        self.turn, self.active, self.first, self.phase = s.turn, s.active, s.first, s.phase
        self.exiles = s.exiles
        self.sides = [list(s.sides[0]), list(s.sides[1])]
        self.zone, self.card = list(s.zone), list(s.card)
        self.host, self.aux = list(s.host), list(s.aux)
        self.dice, self.attack = list(s.dice), list(s.attack)
        self.tasks = list(s.tasks)
        self.dec: tuple[int, ...] = s.dec
        self.result = s.result
        #: what the rules did while resolving, for the narration (`explain`), never hashed:
        #: (what, fields...) tuples, e.g. ("roll", weapon, black, red, bonus, defense, evade)
        self.events: list[tuple[object, ...]] = []
        #: the turn step's actions when `_run` stopped at a TURN (found while deciding it)
        self.acts: list[Move] | None = None
        #: per player, its unattached board cards, kept while nothing moves (a reader, or
        #: `_step_actions`); None while the work may change
        self.boards: list[list[int] | None] | None = None
        #: per player and zone, its handles in that zone (`_Places`), kept by a step's work
        #: only (`stepping`: every write of a zone goes through `move`); None: scan the zones
        self.places: _Places | None = None
        self.indexed = False

    @classmethod
    def reader(cls, s: State) -> _Work:
        """A work that only reads `s` (legal actions, evaluations): it shares the state's
        tuples instead of copying them, so it must never be written to or frozen."""
        w = cls.__new__(cls)
        w.rules, w.cat, w.n = s.rules, s.cat, s.rules.deck_size
        w.turn, w.active, w.first, w.phase = s.turn, s.active, s.first, s.phase
        w.exiles, w.sides = s.exiles, s.sides  # type: ignore[assignment]
        w.zone, w.card, w.host, w.aux = s.zone, s.card, s.host, s.aux  # type: ignore[assignment]
        w.dice, w.attack, w.tasks = s.dice, s.attack, s.tasks  # type: ignore[assignment]
        w.dec, w.result, w.events, w.acts = s.dec, s.result, [], None
        w.boards = [None, None]
        w.places, w.indexed = _places_of(s), False
        return w

    @classmethod
    def stepping(cls, s: State) -> _Work:
        """The work of one `step`: the per-handle fields (zone, card, host, aux) stay the
        state's tuples until the rules first write one (`zone_w` and the others): an input
        changes one or two of them, and copying all four to lists and back to tuples cost a
        tenth of a step. Only the engine's writes go through those methods, so the unattached
        board cards are kept while nothing moves (`boards`)."""
        w = cls.__new__(cls)
        w.rules, w.cat, w.n = s.rules, s.cat, s.rules.deck_size
        w.turn, w.active, w.first, w.phase = s.turn, s.active, s.first, s.phase
        w.exiles, w.sides = s.exiles, [list(s.sides[0]), list(s.sides[1])]
        w.zone, w.card, w.host, w.aux = s.zone, s.card, s.host, s.aux  # type: ignore[assignment]
        w.dice, w.attack, w.tasks = list(s.dice), list(s.attack), list(s.tasks)
        w.dec, w.result, w.events, w.acts = s.dec, s.result, [], None
        w.boards = [None, None]
        w.places, w.indexed = _places_of(s), True
        return w

    # -- the per-handle fields, writable (a list from the first write on: `stepping`) --
    def zone_w(self) -> list[int]:
        self._moved()
        if type(self.zone) is tuple:
            self.zone = list(self.zone)
        return self.zone

    def card_w(self) -> list[int]:
        self._moved()
        if type(self.card) is tuple:
            self.card = list(self.card)
        return self.card

    def host_w(self) -> list[int]:
        self._moved()
        if type(self.host) is tuple:
            self.host = list(self.host)
        return self.host

    def aux_w(self) -> list[int]:
        if type(self.aux) is tuple:
            self.aux = list(self.aux)
        return self.aux

    def move(self, h: int, zone: int) -> None:
        """Card h goes to `zone` (the one way a step's rules change a zone: `places`)."""
        zones = self.zone_w()
        old, zones[h] = zones[h], zone
        places = self.places
        if places is not None and old != zone:
            self.places = _moved_place(places, h // self.n, h, old, zone)

    def _moved(self) -> None:
        """A card moves: the kept board lists are stale."""
        if self.boards is not None:
            self.boards = [None, None]

    def freeze(self) -> State:
        # the State's checks are for states from outside (a position); a work holds a state
        # `step` made from a checked one, so it is built without them (its attribute dict is
        # set whole: cheaper than the checks, or than filling the dict it starts with)
        s = object.__new__(State)
        _set_attr(s, "__dict__", {
            "rules": self.rules, "cat": self.cat, "turn": self.turn, "active": self.active,
            "first": self.first, "phase": self.phase, "exiles": self.exiles,
            "sides": (tuple(self.sides[0]), tuple(self.sides[1])), "zone": tuple(self.zone),
            "card": tuple(self.card), "host": tuple(self.host), "aux": tuple(self.aux),
            "dice": tuple(self.dice), "attack": (self.attack[0], self.attack[1], self.attack[2]),
            "tasks": tuple(self.tasks), "dec": self.dec, "result": self.result})
        if self.indexed and self.places is not None:
            global _LAST_PLACES
            _LAST_PLACES = (s, self.places)
        if self.acts is not None and self.dec[0] == _D.TURN:
            global _LAST_LEGAL
            _LAST_LEGAL = (s, _with_next_end(self.acts, self.phase))
        return s

    # -- reading --
    def owner(self, h: int) -> int:
        return h // self.n

    def c(self, h: int) -> Card | None:
        i = self.card[h]
        return None if i < 0 else self.cat.cards[i]

    def hero(self, p: int) -> Card:
        return self.cat.cards[self.sides[p][_S.HERO]]

    def mine(self, p: int, zone: Zone) -> list[int]:
        places = self._places()
        if places is None:
            lo = p * self.n
            return [h for h, z in enumerate(self.zone[lo:lo + self.n], lo) if z == zone]
        return list(places[p][zone])

    def count(self, p: int, zone: Zone) -> int:
        """How many of p's cards are in `zone`."""
        places = self._places()
        if places is None:
            lo = p * self.n
            return self.zone[lo:lo + self.n].count(zone)
        return len(places[p][zone])

    def _places(self) -> _Places | None:
        """The zone index (`places`), built at a step's first read when its state had none."""
        places = self.places
        if places is None and self.indexed:
            places = self.places = _index_places(self.zone, self.n)
        return places

    def board(self, p: int, *types: CardType) -> list[int]:
        """p's board cards not attached to a weapon, of the given types."""
        boards = self.boards
        found = None if boards is None else boards[p]
        card, cards = self.card, self.cat.cards
        if found is None:
            host = self.host
            found = [h for h in self.mine(p, _Zone.BOARD) if host[h] < 0 and card[h] >= 0]
            if boards is not None:  # the rules read the board many times a step: scan once
                boards[p] = found
        return [h for h in found if cards[card[h]].type in types]

    def abilities(self, p: int, subtype: Subtype) -> list[int]:
        card, cards = self.card, self.cat.cards
        return [h for h in self.board(p, _CardType.ABILITY) if cards[card[h]].subtype is subtype]

    def attached(self, w: int, ctype: CardType) -> list[int]:
        host, card, cards = self.host, self.card, self.cat.cards
        return [h for h in (*self.mine(0, _Zone.BOARD), *self.mine(1, _Zone.BOARD))
                if host[h] == w and cards[card[h]].type is ctype]

    def available(self, p: int) -> int:
        side = self.sides[p]
        return 0 if side[_S.CURSE] else side[_S.STORAGE] - side[_S.SPENT]

    def eclass(self, p: int) -> Card | None:
        i = self.sides[p][_S.ECLASS]
        return None if i < 0 else self.cat.cards[i]

    def max_life(self, p: int) -> int:
        hero, vt = self.hero(p), self.sides[p][_S.VT]
        return hero.life + (hero.vt_life if vt else 0) + sum(
            self.c(h).life for h in self.abilities(p, _Subtype.VITALITY))  # type: ignore[union-attr]

    def max_shield(self, p: int) -> int:
        hero, vt = self.hero(p), self.sides[p][_S.VT]
        total = hero.shield + (hero.vt_shield if vt else 0)
        total += sum(self.c(h).shield for h in self.abilities(p, _Subtype.VITALITY))  # type: ignore[union-attr]
        total += sum(self.c(h).shield for h in self.board(p, _CardType.ARMOR))  # type: ignore[union-attr]
        ec = self.eclass(p)
        return total + (ec.shield if ec is not None else 0)

    def defense(self, p: int) -> int:
        hero, vt = self.hero(p), self.sides[p][_S.VT]
        total = hero.defense + (hero.vt_defense if vt else 0)
        total += sum(self.c(h).defense for h in self.abilities(p, _Subtype.VITALITY))  # type: ignore[union-attr]
        total += sum(self.c(h).defense for h in self.board(p, _CardType.ARMOR))  # type: ignore[union-attr]
        total += sum(self.c(h).amount for h in self.abilities(p, _Subtype.SUPPORT)  # type: ignore[union-attr]
                     if self.c(h).effect is _Effect.GUARD)  # type: ignore[union-attr]
        for w in self.board(p, _CardType.WEAPON):
            total += sum(self.c(m).defense for m in self.attached(w, _CardType.MOD))  # type: ignore[union-attr]
        return total

    def target_bonus(self, p: int) -> int:
        hero, vt = self.hero(p), self.sides[p][_S.VT]
        total = hero.vt_target if vt else 0
        total += sum(self.c(h).target for h in self.abilities(p, _Subtype.VITALITY))  # type: ignore[union-attr]
        total += sum(self.c(h).amount for h in self.abilities(p, _Subtype.SUPPORT)  # type: ignore[union-attr]
                     if self.c(h).effect is _Effect.FOCUS)  # type: ignore[union-attr]
        return total

    def hero_ability(self, p: int, ability: HeroAbility) -> int:
        hero = self.hero(p)
        return hero.vt_amount if self.sides[p][_S.VT] and hero.vt_ability is ability else 0

    def ammo_ok(self, w: int) -> bool:
        card = self.c(w)
        assert card is not None
        return card.type is _CardType.HERO_ITEM or \
            len(self.attached(w, _CardType.AMMO)) >= card.ammo

    def uses(self, w: int) -> int:
        card = self.c(w)
        assert card is not None
        return 2 if card.dual_wield else 1

    def hand(self, p: int) -> list[int]:
        return self.mine(p, _Zone.HAND)

    def note(self, *event: object) -> None:
        self.events.append(event)

    def push(self, *tasks: tuple[int, ...]) -> None:
        """Push so that tasks[0] runs next (§10.4 "push")."""
        self.tasks.extend(reversed(tasks))

    def check_end(self) -> None:
        if self.result != (-1, -1):
            return
        for p in (0, 1):
            if self.sides[p][_S.LIFE] <= 0:
                self.result = (OUTCOMES.index("defeat"), 1 - p)
                return


# --- stats and damage -------------------------------------------------------------------------


def _clamp(w: _Work, p: int) -> None:
    side = w.sides[p]
    side[_S.SHIELD] = max(0, min(side[_S.SHIELD], w.max_shield(p)))
    side[_S.LIFE] = min(side[_S.LIFE], w.max_life(p))


def _hurt(w: _Work, p: int, kinetic: int, shield: int, energy: int,
          etype: EnergyType | None, resistance: int) -> None:
    """Damage to p's hero (§10.1.6.4): energy as kinetic in Standard, with weakness/resistance in
    Advanced; `resistance` absorbed from kinetic, then energy, then shield damage; shield damage
    on the shield only, kinetic and energy on the shield first, then Life."""
    if w.rules.advanced and etype is not None and energy > 0:
        ec = w.eclass(p)
        if ec is not None and ec.weakness is etype:
            energy += WEAKNESS_BONUS
        elif ec is not None and ec.resists is etype:
            energy = max(0, energy - WEAKNESS_BONUS)
    if not w.rules.advanced:
        kinetic, energy = kinetic + energy, 0
    amounts = [kinetic, energy, shield]
    for i in range(3):
        cut = min(resistance, amounts[i])
        amounts[i] -= cut
        resistance -= cut
    kinetic, energy, shield = amounts
    side = w.sides[p]
    side[_S.SHIELD] -= min(side[_S.SHIELD], shield)
    for amount in (kinetic, energy):
        absorbed = min(side[_S.SHIELD], amount)
        side[_S.SHIELD] -= absorbed
        side[_S.LIFE] = max(0, side[_S.LIFE] - (amount - absorbed))
    w.check_end()


def _inflict(w: _Work, p: int, etype: EnergyType | None) -> None:
    """Advanced: the condition of `etype` on p, unless p's energy class is of that type."""
    if not w.rules.advanced or etype is None:
        return
    ec = w.eclass(p)
    if ec is not None and ec.energy_type is etype:
        return
    from .cards import CONDITION_OF

    field = CONDITIONS[CONDITION_OF[etype]]
    side = w.sides[p]
    side[field] = min(BURN_MAX, side[field] + 1) if field == _S.BURN else max(side[field], 1)


def _discard(w: _Work, h: int) -> None:
    """h leaves the board (or hand) for the discard pile with everything attached to it."""
    host, aux = w.host_w(), w.aux_w()
    w.move(h, _Zone.DISCARD)
    host[h], aux[h] = -1, 0
    for x in range(2 * w.n):
        if host[x] == h:
            w.move(x, _Zone.DISCARD)
            host[x], aux[x] = -1, 0


# --- the rules: can a revealed card be activated? ---------------------------------------------


def _same_name_active(w: _Work, p: int, card: Card, types: Sequence[CardType]) -> bool:
    return any(w.c(h).id == card.id for h in w.board(p, *types))  # type: ignore[union-attr]


def _replace_candidates(w: _Work, p: int, card: Card) -> list[int]:
    return [h for h in w.board(p, _CardType.WEAPON) if w.c(h).cost <= card.cost]  # type: ignore[union-attr]


def _ammo_target(w: _Work, p: int, card: Card) -> int:
    weapons = [h for h in w.board(p, _CardType.WEAPON)
               if ammo_for(w.c(h).weapon_class) is card.ammo_kind]  # type: ignore[union-attr, arg-type]
    short = [h for h in weapons if not w.ammo_ok(h)]
    return (short or weapons or [-1])[0]


def _mod_target(w: _Work, p: int, card: Card) -> int:
    assert card.mod_type is not None
    for h in w.board(p, _CardType.WEAPON):
        weapon = w.c(h)
        assert weapon is not None
        mods = [w.c(m) for m in w.attached(h, _CardType.MOD)]
        if weapon.weapon_class not in MOD_FITS[card.mod_type] or len(mods) >= MAX_MODS:
            continue
        if any(m.mod_type is card.mod_type for m in mods if m) and \
                (card.mod_type.value != "energy" or any(m.id == card.id for m in mods if m)):
            continue
        return h
    return -1


def can_activate(w: _Work, p: int, card: Card) -> bool:
    """Whether p may activate `card` from its hand now (§10.1.5.1–10.1.5.5)."""
    if card.cost > w.available(p) or not usable_by(card, w.hero(p)):
        return False  # the usual answer, without the words `activation_problem` builds
    return activation_problem(w, p, card) is None


def activation_problem(w: _Work, p: int, card: Card) -> str | None:
    """Why p may not activate `card` from its hand now, in words without a person (the
    narration and the scene's notes say it), or None when it may (§10.1.5.1–10.1.5.7)."""
    hero = w.hero(p)
    if not usable_by(card, hero):
        return f"{hero.name} may not use it"
    if card.cost > w.available(p):
        if w.sides[p][_S.CURSE]:
            return "Curse: no Storage Energy can be used"
        return f"it costs {card.cost} and only {w.available(p)} Storage Energy is available"
    t = card.type
    if t is _CardType.WEAPON:
        if _same_name_active(w, p, card, (_CardType.WEAPON,)):
            return "a weapon of that name is already equipped"
        if len(w.board(p, _CardType.WEAPON)) < WEAPON_SLOTS or _replace_candidates(w, p, card):
            return None
        return ("both weapon slots hold a weapon that costs more (a new weapon must cost at "
                "least as much as the one it replaces)")
    if t in (_CardType.HERO_ITEM, _CardType.ARMOR):
        return "one of that name is already equipped" if _same_name_active(w, p, card, (t,)) \
            else None
    if t is _CardType.AMMO:
        return None if _ammo_target(w, p, card) >= 0 else \
            "no equipped weapon takes that ammunition"
    if t is _CardType.MOD:
        if not w.rules.advanced:
            return "weapon mods are Advanced Mode only"
        return None if _mod_target(w, p, card) >= 0 else \
            "no equipped weapon it fits has room for it (2 mods, one of a type)"
    if t is _CardType.ENERGY_CLASS:
        if not w.rules.advanced:
            return "energy classes are Advanced Mode only"
        return None if w.sides[p][_S.ECLASS] != w.cat.cards.index(card) else \
            "it is already the active energy class"
    if t is _CardType.ABILITY:
        sub = card.subtype
        if sub is _Subtype.TRAP:
            return "a trap is set face down (trap), never activated face up"
        lasting = sub in (_Subtype.RIFT, _Subtype.VITALITY) or card.effect in (_Effect.GUARD,
                                                                              _Effect.FOCUS)
        if lasting and any(w.c(h).id == card.id for h in w.abilities(p, sub)):  # type: ignore[union-attr, arg-type]
            return "one of that name is already active"
        return None
    return "it is not a card that is activated"


def _activate(w: _Work, p: int, h: int, card: Card, replaced: int = -1) -> None:
    """Pay and resolve the activation of the revealed hand card h (§10.1.5)."""
    w.note("activate", h, replaced)
    w.sides[p][_S.SPENT] += card.cost
    enemy, t = 1 - p, card.type
    w.move(h, _Zone.BOARD)
    w.aux_w()[h] = 0
    if t is _CardType.WEAPON:
        if replaced >= 0:
            kind = ammo_for(card.weapon_class)  # type: ignore[arg-type]
            for x in w.attached(replaced, _CardType.AMMO):
                if w.c(x).ammo_kind is kind:  # type: ignore[union-attr]
                    w.host_w()[x] = h
            _discard(w, replaced)
            _clamp(w, p)
    elif t is _CardType.HERO_ITEM or t is _CardType.ARMOR:
        for old in w.board(p, t):
            if old != h:
                _discard(w, old)
        if t is _CardType.ARMOR:
            w.aux_w()[h] = card.durability
            w.sides[p][_S.SHIELD] += card.shield
        _clamp(w, p)
    elif t is _CardType.AMMO:
        w.host_w()[h] = _ammo_target(w, p, card)
    elif t is _CardType.MOD:
        w.host_w()[h] = _mod_target(w, p, card)
    elif t is _CardType.ENERGY_CLASS:
        for old in w.board(p, _CardType.ENERGY_CLASS):
            if old != h:
                _discard(w, old)
        w.sides[p][_S.ECLASS] = w.cat.cards.index(card)
        _clamp(w, p)
    else:
        sub, effect = card.subtype, card.effect
        if sub in (_Subtype.ATTACK, _Subtype.GRENADE):
            w.move(h, _Zone.DISCARD)
            _hurt(w, enemy, card.kinetic, card.shield_damage, card.energy, card.energy_type, 0)
        elif sub is _Subtype.RIFT:
            pass
        elif sub is _Subtype.VITALITY:
            w.sides[p][_S.LIFE] += card.life
            w.sides[p][_S.SHIELD] += card.shield
        elif effect in (_Effect.GUARD, _Effect.FOCUS):
            w.aux_w()[h] = card.turns
        else:
            w.move(h, _Zone.DISCARD)
            _effect(w, p, card)


def _effect(w: _Work, p: int, card: Card) -> None:
    """The one-shot effect of a support card or a rift's use (§10.1.5.4)."""
    side = w.sides[p]
    if card.effect is _Effect.HEAL:
        side[_S.LIFE] = min(w.max_life(p), side[_S.LIFE] + card.amount)
    elif card.effect is _Effect.RESTORE:
        side[_S.SHIELD] = min(w.max_shield(p), side[_S.SHIELD] + card.amount)
    elif card.effect is _Effect.DRAW:
        w.push(*[(_T.DRAW, p)] * card.amount)
    elif card.effect is _Effect.DAMAGE:
        _hurt(w, 1 - p, card.kinetic, card.shield_damage, card.energy, card.energy_type, 0)


# --- turn actions ------------------------------------------------------------------------------


def _step_actions(w: _Work) -> list[Move]:
    """The actions of the current turn step other than `next` and `end` (§10.1.3)."""
    if w.boards is not None:
        return _read_step_actions(w)
    w.boards = [None, None]  # nothing moves while the actions are listed
    try:
        return _read_step_actions(w)
    finally:
        w.boards = None


def _read_step_actions(w: _Work) -> list[Move]:
    p, side, out = w.active, w.sides[w.active], []
    if w.phase == 1:
        if side[_S.STORAGE] >= 1 and not side[_S.SHOCK] and not side[_S.CURSE] and \
                side[_S.SHIELD] < w.max_shield(p):  # (the counters first: they cost less)
            out.append(_RECOVER)
    elif w.phase == 3:
        if w.exiles < (2 if side[_S.VT] else 1) and not side[_S.GLITCH]:
            exiles = _EXILES
            out.extend([exiles[h] for h in w.hand(p)])
    elif w.phase == 4:
        hero = w.hero(p)
        if not side[_S.VT] and w.available(p) >= hero.vt_cost and \
                (hero.vt_cost == 0 or not side[_S.CURSE]):
            out.append(_VTRIGGER)
    elif w.phase == 5:
        avail, hand, index, plays, traps = w.available(p), w.hand(p), w.card, _PLAYS, _TRAPS
        cards = [w.cat.cards[index[h]] if index[h] >= 0 else None for h in hand]
        for h, card in zip(hand, cards, strict=True):
            if card is None or can_activate(w, p, card):
                out.append(plays[h])
        costs = [cost for cost in w.cat.trap_costs if cost <= avail]
        set_names: set[str] | None = None
        for h, card in zip(hand, cards, strict=True):
            if card is None:
                out.extend([traps[h, cost] for cost in costs])
            elif card.subtype is _Subtype.TRAP and card.cost <= avail and \
                    usable_by(card, w.hero(p)):
                if set_names is None:
                    set_names = {w.c(t).id for t in w.mine(p, _Zone.TRAP) if w.card[t] >= 0}  # type: ignore[union-attr]
                if card.id not in set_names:
                    out.append(traps[h, card.cost])
        for r in w.abilities(p, _Subtype.RIFT):
            if w.aux[r] == 0 and w.c(r).use_cost <= avail:  # type: ignore[union-attr]
                out.append(_RIFTS[r])
    elif w.phase == 6 and not side[_S.FROZEN]:
        for h in w.board(p, _CardType.WEAPON, _CardType.HERO_ITEM):
            if w.ammo_ok(h) and w.aux[h] < w.uses(h):
                out.append(_TARGETS[h])
    return out


def _turn_actions(w: _Work) -> list[Move]:
    acts = _step_actions(w)
    return list(_with_next_end(acts, w.phase)) if acts else []


def _with_next_end(acts: list[Move], phase: int) -> tuple[Move, ...]:
    return (*acts, _NEXT, _END) if phase >= 3 else (*acts, _NEXT)


def _choice_actions(w: _Work) -> list[Move]:
    options = w.dec[4:]
    picks = _PICKS
    return [*[picks[h] for h in options], _PASS]


def _advance(w: _Work) -> None:
    """Leave the current turn step for the next (§10.1.3.1)."""
    w.phase += 1
    if w.phase == 2:
        p = w.active
        w.push(*[(_T.DRAW, p)] * (2 if w.sides[p][_S.VT] else 1), (_T.PHASE, 3))
    elif w.phase == 7:
        w.push((_T.END,))


# --- running tasks ------------------------------------------------------------------------------


def _run(w: _Work) -> None:
    w.dec = ()
    sides = w.sides
    while True:
        if sides[0][_S.LIFE] <= 0 or sides[1][_S.LIFE] <= 0:  # the one call of check_end a
            w.check_end()  # game needs, out of the loop's every turn
        if w.result != (-1, -1):
            w.dec = (_D.NONE,)
            return
        if w.tasks:
            _task(w, w.tasks.pop())
            if w.dec:
                return
            continue
        if w.phase in (1, 3, 4, 5, 6):
            acts = _step_actions(w)
            if acts:
                w.dec = (_D.TURN, w.active)
                w.acts = acts  # the state it freezes into keeps them (`legal_actions`)
                return
        if w.phase >= 7:  # the end step with nothing pending (a loaded position can say so;
            w.push((_T.END,))  # play always pushes `end` with it): the turn ends, never step 8
            continue
        _advance(w)


def _task(w: _Work, task: tuple[int, ...]) -> None:
    code = task[0]
    if code == _T.ROLL:
        w.dec = (_D.CHANCE,)
    elif code == _T.FIRST:
        a, b = w.dice
        w.sides[0][_S.ROLL], w.sides[1][_S.ROLL] = a, b
        w.dice = []
        w.note("setup", a, b)
        if a == b:
            w.push((_T.ROLL,), (_T.ROLL,), (_T.FIRST,))
            return
        first = 0 if a > b else 1
        w.first = w.active = first
        w.push(*[(_T.DRAW, first)] * START_HAND, *[(_T.DRAW, 1 - first)] * START_HAND,
               (_T.START,))
    elif code == _T.DRAW:
        p = task[1]
        full = w.count(p, _Zone.HAND) >= HAND_LIMIT
        if full or not w.count(p, _Zone.DECK):
            w.note("no-draw", p, "hand" if full else "deck")
            w.sides[p][_S.LIFE] = max(0, w.sides[p][_S.LIFE] - 1)  # §10.1.3.3
        else:
            w.dec = (_D.DEAL, p)
    elif code == _T.START:
        _start_turn(w)
    elif code == _T.REVEAL:
        h = task[1]
        if w.card[h] < 0:
            w.dec = (_D.REVEAL, w.owner(h), h)
    elif code == _T.PLAY:
        h = task[1]
        p, card = w.owner(h), w.c(h)
        assert card is not None
        problem = activation_problem(w, p, card) if w.zone[h] == _Zone.HAND else \
            "it is no longer in the hand"
        if problem is not None:
            w.note("fizzle", h, problem)
            return  # a fizzle (§10.1.5.2): the card stays in the hand, now public
        if card.type is _CardType.WEAPON and len(w.board(p, _CardType.WEAPON)) >= WEAPON_SLOTS:
            options = _replace_candidates(w, p, card)
            w.dec = (_D.CHOICE, p, _ChoiceKind.REPLACE_WEAPON, h, *options)
            return
        _activate(w, p, h, card)
    elif code == _T.TRAPS:
        d = task[1]
        traps = w.mine(d, _Zone.TRAP)
        if traps and w.attack[2] == 0:
            w.dec = (_D.CHOICE, d, _ChoiceKind.SPRING_TRAP, -1, *traps)
    elif code == _T.SPRING:
        _spring(w, task[1])
    elif code == _T.ATTACK:
        if w.attack[2]:
            w.attack = [-1, 0, 0]
            return
        w.push((_T.ROLL,), (_T.ROLL,), (_T.HIT, task[1]))
    elif code == _T.HIT:
        _hit(w, task[1])
    elif code == _T.END:
        _end_turn(w)
    elif code == _T.PHASE:
        w.phase = task[1]
    elif code == _T.PLACE:  # a start position's hidden trap: its deck holds exactly the cards
        w.dec = (_D.PLACE, task[1], task[2])
    else:  # pragma: no cover - the task codes above are all there is
        raise AssertionError(f"unknown task {task!r}")


def _start_turn(w: _Work) -> None:
    p = w.active
    side = w.sides[p]
    w.note("start", p, w.turn)
    w.phase, w.exiles = 1, 0
    side[_S.SPENT] = 0
    for h in w.mine(p, _Zone.BOARD):
        card = w.c(h)
        if w.aux[h] and card is not None and w.host[h] < 0 and (
                card.is_weapon_like or card.subtype is _Subtype.RIFT):
            w.aux_w()[h] = 0  # only a used one: a write copies the field (`_Work.stepping`)
    if w.rules.advanced and side[_S.BURN]:
        w.note("burn", p)
        _hurt(w, p, 0, 0, 1, None, 0)  # condition damage: no weakness (Decided, §10.1.8.3)
    regen = w.hero_ability(p, _HeroAbility.REGEN)
    if regen:
        w.note("regen", p, regen)
        side[_S.SHIELD] = min(w.max_shield(p), side[_S.SHIELD] + regen)


def _end_turn(w: _Work) -> None:
    p = w.active
    side = w.sides[p]
    for field in CONDITIONS.values():
        side[field] = max(0, side[field] - 1)
    for h in w.abilities(p, _Subtype.SUPPORT):
        w.aux_w()[h] -= 1
        if w.aux[h] <= 0:
            w.note("expired", h)
            _discard(w, h)
    w.turn += 1
    w.phase = 7
    if w.turn >= 2 * w.rules.max_turns:
        w.note("turn-limit")
        a, b = w.sides[0][_S.LIFE], w.sides[1][_S.LIFE]
        w.result = (OUTCOMES.index("turn-limit"), -1 if a == b else 0 if a > b else 1)
        return
    w.active = 1 - p
    w.push((_T.START,))


def _spring(w: _Work, t: int) -> None:
    """A triggered trap resolves (§10.1.5.6): a trap of the declared cost takes effect; any other
    card set face down is a decoy and only goes to the discard pile. So is a trap that shares
    its name with a trap its owner set face up: two traps of a name are never active at once,
    the face-up one was checked when it was set, the face-down one could not be (its name was
    hidden), so the face-down one gives way. Its reveal is still accepted: an honest player
    whose listed `trap h c` turns out so is never refused."""
    owner, card, declared = w.owner(t), w.c(t), w.aux[t]
    _discard(w, t)
    if card is None or card.subtype is not _Subtype.TRAP or card.cost != declared:
        w.note("decoy", t, declared)
        return
    if any(w.card[x] == w.card[t] for x in w.mine(owner, _Zone.TRAP)):
        w.note("decoy-name", t)
        return  # a second active trap of that name (§10.1.5.6): a decoy
    w.note("spring", t)
    if card.effect is _Effect.JAM:
        w.attack[2] = 1
    elif card.effect is _Effect.EVADE:
        w.attack[1] += card.amount
    elif card.effect is _Effect.COUNTER:
        _hurt(w, 1 - owner, card.amount, 0, 0, None, 0)


def _hit(w: _Work, weapon: int) -> None:
    """Resolve a targeting roll (§10.1.6): black + red + target value >= the enemy's defense."""
    black, red = w.dice
    w.dice = []
    bonus = w.attack[1]
    w.attack = [-1, 0, 0]
    a, d = w.owner(weapon), 1 - w.owner(weapon)
    card = w.c(weapon)
    assert card is not None
    mods = [w.c(m) for m in w.attached(weapon, _CardType.MOD)]
    total = black + red + card.target + w.target_bonus(a) + sum(m.target for m in mods if m)
    w.note("roll", weapon, black, red, total - black - red, w.defense(d), bonus)
    if total < w.defense(d) + bonus:
        if not w.sides[d][_S.FROZEN]:
            for x in w.board(d, _CardType.WEAPON):
                counter = w.c(x).counter  # type: ignore[union-attr]
                if counter:
                    w.note("counter", x, counter, _resistance(w, a, d))
                    _hurt(w, a, counter, 0, 0, None, _resistance(w, a, d))
        elif any(w.c(x).counter for x in w.board(d, _CardType.WEAPON)):  # type: ignore[union-attr]
            w.note("frozen-counter", d)
        return
    kinetic = card.kinetic + sum(m.kinetic for m in mods if m)
    shield = card.shield_damage + sum(m.shield_damage for m in mods if m)
    energy = card.energy + sum(m.energy for m in mods if m)
    if w.sides[a][_S.VT]:
        kinetic += card.vt_kinetic
    kinetic += w.hero_ability(a, _HeroAbility.STRIKE)
    ability = card.ability if card.red and red >= card.red else None
    if ability is not None:
        w.note("ability", weapon, red)
    if ability is _Effect.KINETIC:
        kinetic += card.ability_amount
    elif ability is _Effect.SHIELD:
        shield += card.ability_amount
    w.note("damage", d, kinetic, shield, energy, _resistance(w, d, a))
    _hurt(w, d, kinetic, shield, energy, card.energy_type, _resistance(w, d, a))
    if ability is _Effect.CONDITION:
        _inflict(w, d, card.energy_type)
    for armor in w.board(d, _CardType.ARMOR):
        w.aux_w()[armor] -= 1
        w.note("wear", armor, w.aux[armor])
        if w.aux[armor] <= 0:  # Decided (§10.1.6.6): worn out, it leaves the board
            _discard(w, armor)
            _clamp(w, d)
    drain = w.hero_ability(a, _HeroAbility.DRAIN)
    if drain and w.result == (-1, -1):
        w.note("drain", a, drain)
        w.sides[a][_S.LIFE] = min(w.max_life(a), w.sides[a][_S.LIFE] + drain)


def _resistance(w: _Work, defender: int, attacker: int) -> int:
    armor = sum(w.c(h).resistance for h in w.board(defender, _CardType.ARMOR))  # type: ignore[union-attr]
    return max(0, armor - w.hero_ability(attacker, _HeroAbility.PIERCE))


# --- the public API of this module ------------------------------------------------------------


def deal_new_state(rules: Rules, cat: Catalogue) -> State:
    """The state at the start (§10.1.1.1): both setup dice pending. A match from a start position
    begins with start.start_state instead (begin.new_state picks one or the other: the start
    module builds on this one)."""
    if rules.start:
        raise RulesetError("vanquishers rules with a start position begin from the position "
                           "(begin.new_state), not with the setup dice")
    sides = []
    for p in (0, 1):
        hero_id = rules.heroes[p]
        hero = cat.get(hero_id)
        if hero is None or hero.type is not _CardType.HERO:
            raise IllegalActionError(f"rules name hero{p}={hero_id!r}, not a hero of the "
                                     f"catalogue")
        side = [0] * SIDE_FIELDS
        side[_S.HERO], side[_S.LIFE], side[_S.SHIELD] = cat.index(hero_id), hero.life, hero.shield
        side[_S.ECLASS] = -1
        if rules.advanced:
            start = next((i for i, c in enumerate(cat.cards) if c.type is _CardType.ENERGY_CLASS
                          and c.energy_type is hero.energy_classes[0]), -1)
            side[_S.ECLASS] = start
            if start >= 0:
                side[_S.SHIELD] += cat.cards[start].shield
        sides.append(tuple(side))
    h = 2 * rules.deck_size
    w = _Work(State(rules, cat, 0, -1, -1, 0, 0, (sides[0], sides[1]), (0,) * h, (-1,) * h,
                    (-1,) * h, (0,) * h, (), (-1, 0, 0), (), (), (-1, -1)))
    w.push((_T.ROLL,), (_T.ROLL,), (_T.FIRST,))
    _run(w)
    return w.freeze()


#: the Pending of each decision tuple met so far: a Pending is an immutable value whose
#: construction checks every field, and the engine asks for the same few over and over
_PENDING: dict[tuple[int, ...], Pending] = {}


def decision(s: State) -> Pending | Finished:
    if s.result != (-1, -1):
        return Finished(OUTCOMES[s.result[0]], None if s.result[1] < 0 else s.result[1])
    dec = s.dec
    if len(dec) > 3:  # a choice names its options: too many kinds to keep
        return _decision(s)
    d = _PENDING.get(dec)
    if d is None:
        d = _PENDING[dec] = _decision(s)
    return d


def _decision(s: State) -> Pending:
    code = s.dec[0]
    if code == _D.TURN:
        return Pending(_DecisionKind.TURN, s.dec[1])
    if code == _D.CHOICE:
        kind = ChoiceKind(s.dec[2])
        return Pending(_DecisionKind.CHOICE, s.dec[1], CHOICE_LABELS[kind], tuple(s.dec[4:]))
    if code == _D.DEAL:
        return Pending(_DecisionKind.DEAL, s.dec[1], "hand", deck=s.dec[1])
    if code == _D.PLACE:
        return Pending(_DecisionKind.DEAL, s.dec[1], "trap", deck=s.dec[1])
    if code == _D.REVEAL:
        return Pending(_DecisionKind.REVEAL, s.dec[1], handle=s.dec[2])
    return Pending(_DecisionKind.CHANCE, None, "d6", outcomes=6)


#: the last state `step` stopped at a TURN with its legal actions (found while deciding the
#: TURN): the player's list and the next `step`'s legality check reuse them instead of
#: computing them twice more. One slot, matched by identity (a state is immutable; a hash of
#: the whole state would cost more than it saves); one tuple, so a reader sees a pair whole.
_LAST_LEGAL: tuple[State | None, tuple[Move, ...]] = (None, ())


def legal_actions(s: State) -> list[Move]:
    if s.result != (-1, -1):
        return []
    code = s.dec[0]
    if code == _D.TURN:
        last = _LAST_LEGAL
        if last[0] is s:
            return list(last[1])
        return _turn_actions(_Work.reader(s))
    if code == _D.CHOICE:
        return _choice_actions(_Work.reader(s))
    if code == _D.CHANCE:
        return list(_ROLLS)
    return []


def _where(s: State) -> str:
    d = decision(s)
    if isinstance(d, Finished):
        return "the game is over"
    who = "" if d.player is None else f" player {d.player}"
    return f"turn {s.turn}, step {s.phase}, awaiting {d.kind.value}{who}"


def step(s: State, inp: Move) -> State:
    """The state after `inp`, resolved up to the next decision (pure)."""
    return _resolve(s, inp).freeze()


def explain(s: State, inp: Move) -> tuple[tuple[object, ...], ...]:
    """What the rules did while `inp` resolved from `s` (the events `_Work.note` records: a
    roll's values, a fizzle's reason, a trap sprung, armor worn...), for the narration."""
    return tuple(_resolve(s, inp).events)


#: the decision kind of each decision code (keyed by int: the code is an int in the state)
_KIND = {int(_D.TURN): _DecisionKind.TURN, int(_D.CHOICE): _DecisionKind.CHOICE,
         int(_D.DEAL): _DecisionKind.DEAL, int(_D.REVEAL): _DecisionKind.REVEAL,
         int(_D.CHANCE): _DecisionKind.CHANCE, int(_D.PLACE): _DecisionKind.DEAL}
#: the verbs that answer each decision kind (a TURN: any other verb); keyed by the kind's
#: member id: a plain Enum member hashes in Python, slowly
_ANSWERS = {id(_DecisionKind.DEAL): (_Verb.DEAL,), id(_DecisionKind.REVEAL): (_Verb.REVEAL,),
            id(_DecisionKind.CHANCE): (_Verb.ROLL,),
            id(_DecisionKind.CHOICE): (_Verb.PICK, _Verb.PASS)}
_NOT_TURN = (_Verb.DEAL, _Verb.REVEAL, _Verb.ROLL, _Verb.PICK, _Verb.PASS)


def _resolve(s: State, inp: Move) -> _Work:
    if not isinstance(inp, Move):
        raise MalformedActionError(f"not a vanquishers input: {inp!r:.60}")
    if s.result != (-1, -1):
        raise GameOverError(f"input {format_input(inp)!r}: the game is over")
    code = s.dec[0]
    kind = _KIND[code]
    if (kind is _DecisionKind.TURN and inp.verb in _NOT_TURN) or \
            (kind is not _DecisionKind.TURN and inp.verb not in _ANSWERS[id(kind)]):
        raise IllegalActionError(f"input {format_input(inp)!r}: this input does not answer the "
                                 f"pending decision ({_where(s)})")
    w = _Work.stepping(s)
    if kind is _DecisionKind.DEAL:
        p, h = s.dec[1], inp.handle
        if not (p * s.n <= h < p * s.n + s.n) or s.zone[h] != _Zone.DECK:
            raise IllegalActionError(f"input {format_input(inp)!r}: card {h} is not in "
                                     f"player {p}'s deck ({_where(s)})")
        w.move(h, _Zone.HAND)
        if code == _D.PLACE:  # face down as a set trap of the declared cost (start position)
            w.move(h, _Zone.TRAP)
            w.aux_w()[h] = s.dec[2]
    elif kind is _DecisionKind.REVEAL:
        _reveal(w, s, inp)
    elif kind is _DecisionKind.CHANCE:
        if not 1 <= inp.value <= 6:
            raise IllegalActionError(f"input {format_input(inp)!r}: a die shows 1..6 ({_where(s)})")
        w.dice.append(inp.value)
    else:
        last = _LAST_LEGAL  # the TURN's kept list itself (`legal_actions` returns a copy)
        legal = last[1] if last[0] is s else legal_actions(s)
        # by identity first: an engine-made input is the one object of its fields, and `in`
        # calls the dataclass's Python __eq__ on every entry before the match
        if not any(m is inp for m in legal) and inp not in legal:
            raise IllegalActionError(f"input {format_input(inp)!r} is not legal ({_where(s)}); "
                                     f"legal: {', '.join(map(format_input, legal[:12]))}"
                                     f"{' ...' if len(legal) > 12 else ''}")
        if kind is _DecisionKind.CHOICE:
            _choose(w, s, inp)
        else:
            _act(w, inp)
    _run(w)
    return w


def _reveal(w: _Work, s: State, inp: Move) -> None:
    h = s.dec[2]
    if inp.handle != h:
        raise IllegalActionError(f"input {format_input(inp)!r}: the reveal awaited is of card {h} "
                                 f"({_where(s)})")
    card = s.cat.get(inp.card)
    if card is None or card.type is _CardType.HERO:
        raise IllegalActionError(f"input {format_input(inp)!r}: {inp.card!r} is not a deck "
                                 f"card of the catalogue")
    p = s.owner(h)
    limit = copy_limit(card)
    index = s.cat.index(card.id)
    if limit is not None:
        brought = range(p * s.n, p * s.n + s.n)
        if s.rules.start:  # the cards p brought: its hidden deck, not the position's public
            brought = range(p * s.n, p * s.n + s.rules.start_hidden[p])  # (SPEC Part 10)
        copies = sum(1 for x in brought if s.card[x] == index) + 1
        if copies > limit:
            raise IllegalActionError(f"input {format_input(inp)!r}: player {p}'s deck would "
                                     f"hold {copies} copies of {card.id!r}, at most {limit} "
                                     "(§10.2.3.2)")
    w.card_w()[h] = index  # a set card sharing a face-up trap's name is a decoy (`_spring`)


def _choose(w: _Work, s: State, inp: Move) -> None:
    kind, h = ChoiceKind(s.dec[2]), s.dec[3]
    if kind == _ChoiceKind.SPRING_TRAP:
        if inp.verb is _Verb.PICK:
            w.push((_T.REVEAL, inp.handle), (_T.SPRING, inp.handle))
        return
    if inp.verb is _Verb.PICK:  # replace-weapon: pass leaves h in the hand (a fizzle)
        card = w.c(h)
        assert card is not None
        _activate(w, w.owner(h), h, card, replaced=inp.handle)


def _act(w: _Work, m: Move) -> None:
    p, side, v = w.active, w.sides[w.active], m.verb
    if v is _Verb.NEXT:
        _advance(w)
    elif v is _Verb.END:
        w.phase = 7
        w.push((_T.END,))
    elif v is _Verb.RECOVER:
        side[_S.STORAGE] -= 1
        side[_S.SHIELD] = min(w.max_shield(p), side[_S.SHIELD] + w.hero(p).recovery)
        _advance(w)
    elif v is _Verb.EXILE:
        w.move(m.handle, _Zone.EXILE)
        w.exiles += 1
        side[_S.STORAGE] += 1
        w.push((_T.REVEAL, m.handle))
    elif v is _Verb.VTRIGGER:
        hero = w.hero(p)
        side[_S.STORAGE] -= hero.vt_cost
        side[_S.VT] = 1
        side[_S.LIFE] += hero.vt_life
        side[_S.SHIELD] += hero.vt_shield
        _advance(w)
    elif v is _Verb.PLAY:
        w.push((_T.REVEAL, m.handle), (_T.PLAY, m.handle))
    elif v is _Verb.TRAP:
        w.move(m.handle, _Zone.TRAP)
        w.aux_w()[m.handle] = m.value
        side[_S.SPENT] += m.value
    elif v is _Verb.RIFT:
        card = w.c(m.handle)
        assert card is not None
        w.aux_w()[m.handle] = 1
        side[_S.SPENT] += card.use_cost
        _effect(w, p, card)
    elif v is _Verb.TARGET:
        w.aux_w()[m.handle] += 1
        w.attack = [m.handle, 0, 0]
        w.push((_T.TRAPS, 1 - p), (_T.ATTACK, m.handle))


# --- encoding and hash (§10.4) ------------------------------------------------------------------


def encode_state(s: State) -> bytes:
    """b"VQ" then signed 16-bit big-endian integers in the order of §10.4."""
    values: list[int] = [ENCODING_VERSION, s.n, s.turn, s.active, s.first, s.phase, s.exiles]
    for side in s.sides:
        values.extend(side)
    values.extend(s.zone)
    values.extend(s.card)
    values.extend(s.host)
    values.extend(s.aux)
    values.append(len(s.dice))
    values.extend(s.dice)
    values.extend(s.attack)
    values.append(len(s.tasks))
    for task in s.tasks:
        values.append(len(task))
        values.extend(task)
    values.append(len(s.dec))
    values.extend(s.dec)
    values.extend(s.result)
    return b"VQ" + b"".join(v.to_bytes(2, "big", signed=True) for v in values)


def state_hash(s: State) -> bytes:
    def framed(x: bytes) -> bytes:
        return len(x).to_bytes(4, "big") + x

    data = framed(s.rules.digest()) + framed(s.cat.digest) + framed(encode_state(s))
    return hashlib.sha256(b"versus/v1/vanquishers/state\x00" + data).digest()


__all__ = [
    "Move",
    "State",
    "Verb",
    "Zone",
    "_tagged",
    "deal_new_state",
    "decision",
    "encode_state",
    "explain",
    "format_input",
    "legal_actions",
    "parse_input",
    "state_hash",
    "step",
]
