# Inputs to the engine and their text notation.
#
# `Action` (turn actions and choice answers) is the hot object of the engine: legal-action
# generation builds hundreds per turn, so it is a tuple subclass (NamedTuple) rather than a
# dataclass: construction, equality and hashing run at C speed. It is still immutable and the
# public constructor validates every field; the engine's generator uses `Action._fast` with
# fields it has already validated.
#
# Notation (SPEC Part 3, "Notation"): one line, lowercase tokens separated by one space,
#   summon <handle> <area> recto|verso   flip <area>      move <area> <area>
#   activate <area>[/<k>] <area>*        end              pick <handle>
#   deal <handle>                        reveal <handle> <card-id>
# `format_input(parse_input(s)) == s` for every canonical string, and
# `parse_input(format_input(x)) == x` for every input.
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, NamedTuple

from ..errors import MalformedActionError

MAX_HANDLE = 1023
MAX_TARGETS = 8
MAX_INPUT_CHARS = 200
# fullmatch, never `$`: `$` also matches before a trailing newline, which would let "pick 5\n"
# parse to the same input as "pick 5" (two texts for one input breaks canonical notation)
_AREA_RE = re.compile(r"[a-z][1-9]")
_CARD_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
_INT_RE = re.compile(r"0|[1-9][0-9]{0,3}")


class ActionKind(IntEnum):
    SUMMON = 0
    FLIP = 1
    ACTIVATE = 2
    MOVE = 3
    END = 4
    PICK = 5


KIND_WORDS = ("summon", "flip", "activate", "move", "end", "pick")


class _ActionFields(NamedTuple):
    kind: ActionKind
    handle: int = -1  # summon, pick
    area: str = ""  # summon: destination; flip: target; activate: the card; move: from
    to: str = ""  # move: destination
    recto: bool = False  # summon face
    source: int = 0  # activate: 0 = the card's own Active, k = its k-th absorbed card's
    targets: tuple[str, ...] = ()  # activate: the areas the Active names, in order


class Action(_ActionFields):
    """A turn action or a choice answer; validated on construction."""

    __slots__ = ()

    def __new__(cls, kind: ActionKind, handle: int = -1, area: str = "", to: str = "",
                recto: bool = False, source: int = 0,
                targets: tuple[str, ...] = ()) -> Action:
        if type(kind) is not ActionKind:  # an int kind is normalised; anything else fails
            if type(kind) is not int or not 0 <= kind < len(ActionKind):
                raise _bad(f"unknown kind {kind!r}", (kind, handle, area, to, recto, source))
            kind = ActionKind(kind)
        if not isinstance(targets, tuple | list):
            raise _bad(f"targets must be a tuple of area names, got {targets!r}",
                       (kind, handle, area, to, recto, source))
        self = super().__new__(cls, kind, handle, area, to, recto, source, tuple(targets))
        _validate_action(self)
        return self

    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> Action:
        # NamedTuple's _make (and so _replace) would build the tuple without __new__, so
        # without validation: route it through the validating constructor
        values = tuple(iterable)
        if len(values) != len(_ActionFields._fields):
            raise _bad(f"expected {len(_ActionFields._fields)} fields", values)
        return cls(*values)

    @classmethod
    def _fast(cls, kind: ActionKind, handle: int = -1, area: str = "", to: str = "",
              recto: bool = False, source: int = 0, targets: tuple[str, ...] = ()) -> Action:
        return tuple.__new__(cls, (kind, handle, area, to, recto, source, targets))

    # convenient constructors
    @classmethod
    def summon(cls, handle: int, area: str, recto: bool) -> Action:
        return cls(ActionKind.SUMMON, handle=handle, area=area, recto=recto)

    @classmethod
    def flip(cls, area: str) -> Action:
        return cls(ActionKind.FLIP, area=area)

    @classmethod
    def activate(cls, area: str, targets: tuple[str, ...] = (), source: int = 0) -> Action:
        return cls(ActionKind.ACTIVATE, area=area, source=source, targets=targets)

    @classmethod
    def move(cls, area: str, to: str) -> Action:
        return cls(ActionKind.MOVE, area=area, to=to)

    @classmethod
    def end(cls) -> Action:
        return cls(ActionKind.END)

    @classmethod
    def pick(cls, handle: int) -> Action:
        return cls(ActionKind.PICK, handle=handle)

    def __str__(self) -> str:
        return format_input(self)

    def __repr__(self) -> str:
        return f"Action({format_input(self)!r})"


def _bad(what: str, value: object) -> MalformedActionError:
    error = MalformedActionError(f"malformed action {value!r}: {what}")
    error.what = what  # type: ignore[attr-defined]  # the reason alone, for re-wrapping
    return error


def _check_area(value: object, what: str, action: object) -> None:
    if not isinstance(value, str) or not _AREA_RE.fullmatch(value):
        raise _bad(f"{what} must be an area name like 'b2', got {value!r}", action)


def _check_handle(value: object, action: object) -> None:
    if type(value) is not int or not 0 <= value <= MAX_HANDLE:
        raise _bad(f"handle must be an integer 0..{MAX_HANDLE}, got {value!r}", action)


def _validate_action(a: Action) -> None:
    kind = a.kind
    if type(kind) is not ActionKind:
        raise _bad(f"unknown kind {kind!r}", tuple(a))
    defaults = _ActionFields(kind)
    used = {
        ActionKind.SUMMON: {"handle", "area", "recto"},
        ActionKind.FLIP: {"area"},
        ActionKind.ACTIVATE: {"area", "source", "targets"},
        ActionKind.MOVE: {"area", "to"},
        ActionKind.END: set(),
        ActionKind.PICK: {"handle"},
    }[kind]
    for name in _ActionFields._fields[1:]:
        if name not in used and getattr(a, name) != getattr(defaults, name):
            raise _bad(f"field {name!r} is not used by {KIND_WORDS[kind]}", tuple(a))
    if "handle" in used:
        _check_handle(a.handle, tuple(a))
    if "area" in used:
        _check_area(a.area, "area", tuple(a))
    if "to" in used:
        _check_area(a.to, "to", tuple(a))
    if type(a.recto) is not bool:
        raise _bad("recto must be a bool", tuple(a))
    if type(a.source) is not int or not 0 <= a.source <= 4:
        raise _bad("source must be 0 (own Active) or 1..4 (absorbed card)", tuple(a))
    if type(a.targets) is not tuple:
        raise _bad("targets must be a tuple of area names", tuple(a))
    if len(a.targets) > MAX_TARGETS:
        raise _bad(f"at most {MAX_TARGETS} targets", tuple(a))
    for t in a.targets:
        _check_area(t, "target", tuple(a))


@dataclass(frozen=True, slots=True)
class Deal:
    """Answer to a DealDecision: `handle` is the deciding player's top deck card."""

    handle: int

    def __post_init__(self) -> None:
        _check_handle(self.handle, f"deal {self.handle!r}")

    def __str__(self) -> str:
        return format_input(self)


@dataclass(frozen=True, slots=True)
class Reveal:
    """Answer to a RevealDecision: the card behind `handle` is catalogue card `card_id`."""

    handle: int
    card_id: str

    def __post_init__(self) -> None:
        _check_handle(self.handle, f"reveal {self.handle!r} {self.card_id!r}")
        if not isinstance(self.card_id, str) or not _CARD_ID_RE.fullmatch(self.card_id):
            raise _bad("card id must be 1-40 chars of a-z, 0-9, '-'",
                       f"reveal {self.handle} {self.card_id!r}")

    def __str__(self) -> str:
        return format_input(self)


Input = Action | Deal | Reveal


def format_input(x: Input) -> str:
    """The canonical text form of an input."""
    if isinstance(x, Deal):
        return f"deal {x.handle}"
    if isinstance(x, Reveal):
        return f"reveal {x.handle} {x.card_id}"
    kind = x.kind
    if kind == ActionKind.SUMMON:
        return f"summon {x.handle} {x.area} {'recto' if x.recto else 'verso'}"
    if kind == ActionKind.FLIP:
        return f"flip {x.area}"
    if kind == ActionKind.MOVE:
        return f"move {x.area} {x.to}"
    if kind == ActionKind.END:
        return "end"
    if kind == ActionKind.PICK:
        return f"pick {x.handle}"
    head = f"activate {x.area}" + (f"/{x.source}" if x.source else "")
    return " ".join((head, *x.targets))


# how each word is written, for the "takes N arguments" messages
_USAGE = {"summon": "summon HANDLE AREA recto|verso", "flip": "flip AREA",
          "move": "move FROM TO", "end": "end", "pick": "pick HANDLE", "deal": "deal HANDLE",
          "reveal": "reveal HANDLE CARD"}


def parse_input(text: str) -> Input:
    """Parse one canonical line; raise MalformedActionError naming the input otherwise."""
    if not isinstance(text, str):
        raise MalformedActionError(f"malformed action {text!r}: not a string")
    if len(text) > MAX_INPUT_CHARS:
        raise MalformedActionError(
            f"malformed action {text[:40]!r}...: longer than {MAX_INPUT_CHARS} characters")
    tokens = text.split(" ")
    word, args = tokens[0], tokens[1:]

    def need(n: int) -> None:
        if len(args) != n:
            usage = _USAGE.get(word, word)
            raise _bad(f"'{word}' takes {n} argument{'s' if n != 1 else ''} ({usage}), "
                       f"got {len(args)}", text)

    def integer(tok: str) -> int:
        if not _INT_RE.fullmatch(tok):
            raise _bad(f"expected a handle number, got {tok!r}", text)
        return int(tok)

    try:
        if word == "summon":
            need(3)
            if args[2] not in ("recto", "verso"):
                raise _bad(f"face must be 'recto' or 'verso', got {args[2]!r}", text)
            return Action(ActionKind.SUMMON, handle=integer(args[0]), area=args[1],
                          recto=args[2] == "recto")
        if word == "flip":
            need(1)
            return Action(ActionKind.FLIP, area=args[0])
        if word == "move":
            need(2)
            return Action(ActionKind.MOVE, area=args[0], to=args[1])
        if word == "end":
            need(0)
            return Action(ActionKind.END)
        if word == "pick":
            need(1)
            return Action(ActionKind.PICK, handle=integer(args[0]))
        if word == "activate":
            if not args:
                raise _bad("'activate' needs the card's area", text)
            area, _, src = args[0].partition("/")
            source = 0
            if "/" in args[0]:
                if src not in ("1", "2", "3", "4"):
                    raise _bad(f"absorbed-card index must be 1..4, got {src!r}", text)
                source = int(src)
            return Action(ActionKind.ACTIVATE, area=area, source=source,
                          targets=tuple(args[1:]))
        if word == "deal":
            need(1)
            return Deal(integer(args[0]))
        if word == "reveal":
            need(2)
            return Reveal(integer(args[0]), args[1])
    except MalformedActionError as e:
        if repr(text) in str(e):
            raise
        # a field-level message from Action's validation names a tuple: keep only its reason
        raise _bad(getattr(e, "what", str(e)), text) from None
    raise _bad(f"unknown word {word!r}", text)


def parse_action(text: str) -> Action:
    x = parse_input(text)
    if not isinstance(x, Action):
        raise _bad("expected a turn action or a pick, not a deal/reveal", text)
    return x
