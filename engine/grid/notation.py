# The grid game's inputs and their one canonical line each (SPEC Part 9, "Notation").
#
# How: an input is a frozen `GridInput` (its verb an `Verb` enum, then the fields that verb
# uses, the others at their defaults), validated on construction, so a value that exists is
# well formed. `parse_input` accepts exactly the canonical text (single spaces, lowercase, no
# leading zeros, no trailing whitespace) and `format_input` writes it, so each input has one
# spelling and the two round-trip. Cells are named by column letter and row digit (`a1` is
# player 0's left corner of its home base); whether a cell exists on this grid is the game's
# check, not the parser's.
#
# Speed: validating a field set costs microseconds, and the engine builds every legal input of
# every turn. So the inputs the engine generates itself (from its own state, well formed by
# construction) come from `engine_input`, which builds each distinct value once without the
# check and hands out that one object afterwards (values are immutable, so sharing is safe).
# Inputs from outside (parsed, built by a caller) still go through the validating constructor.
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ..errors import MalformedActionError

MAX_INPUT_CHARS = 120
MAX_HANDLE = 1023
_CELL_RE = re.compile(r"[a-f][1-6]")
_HANDLE_RE = re.compile(r"0|[1-9][0-9]{0,3}")
_CARD_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


class Verb(Enum):
    FIRST = "first"  # CHANCE: the coin names the first player
    DEAL = "deal"  # DEAL: the card handle dealt
    REVEAL = "reveal"  # REVEAL: a handle's card id
    PLACE = "place"  # TURN: a hand card onto a cell, face up or down
    USE = "use"  # TURN: a hand card used as an item
    END = "end"  # TURN: end the turn (only after acting)
    PICK = "pick"  # CHOICE: a card (battle order, item target)
    PASS = "pass"  # CHOICE: no FREE item in this window
    FREE = "free"  # CHOICE: a hand card used as a FREE item in the window
    DUEL = "duel"  # CHANCE: sudden death, the two cards drawn


@dataclass(frozen=True, slots=True)
class GridInput:
    verb: Verb
    handle: int = -1
    other: int = -1  # DUEL: player 1's card
    cell: str = ""  # PLACE
    up: bool = False  # PLACE: face up
    card: str = ""  # REVEAL
    player: int = -1  # FIRST

    def __post_init__(self) -> None:
        v = self.verb
        if not isinstance(v, Verb):
            raise MalformedActionError(f"grid input verb must be a Verb, got {v!r:.40}")
        wants_handle = v in (Verb.DEAL, Verb.REVEAL, Verb.PLACE, Verb.USE, Verb.PICK,
                             Verb.FREE, Verb.DUEL)
        for name, ok in (
            ("handle", (type(self.handle) is int and 0 <= self.handle <= MAX_HANDLE)
             if wants_handle else self.handle == -1),
            ("other", (type(self.other) is int and 0 <= self.other <= MAX_HANDLE
                       and self.other != self.handle) if v is Verb.DUEL else self.other == -1),
            ("cell", bool(_CELL_RE.fullmatch(self.cell)) if v is Verb.PLACE and
             isinstance(self.cell, str) else self.cell == ""),
            ("up", type(self.up) is bool and (v is Verb.PLACE or not self.up)),
            ("card", isinstance(self.card, str) and bool(_CARD_RE.fullmatch(self.card))
             if v is Verb.REVEAL else self.card == ""),
            ("player", self.player in (0, 1) and type(self.player) is int
             if v is Verb.FIRST else self.player == -1),
        ):
            if not ok:
                raise MalformedActionError(f"grid input {v.value!r}: bad field {name} "
                                           f"({self!r:.120})")


_new = object.__new__
_set = object.__setattr__
#: (verb text, handle, other, cell, up, player) -> the one GridInput of that value (engine
#: inputs only: bounded by handles x cells x faces, a few thousand values). The verb's text,
#: not the Enum, keys it: an Enum member hashes in Python, a str in C.
_INTERNED: dict[tuple[str, int, int, str, bool, int], GridInput] = {}


def engine_input(verb: Verb, handle: int = -1, other: int = -1, cell: str = "",
                 up: bool = False, player: int = -1) -> GridInput:
    """The input of these fields, built without validation and shared: ONLY for inputs the
    engine generates from its own state (never for anything read from outside)."""
    key = (verb._value_, handle, other, cell, up, player)
    inp = _INTERNED.get(key)
    if inp is None:
        inp = _INTERNED[key] = _unchecked(verb, handle, other, cell, up, "", player)
    return inp


def _unchecked(verb: Verb, handle: int, other: int, cell: str, up: bool, card: str,
               player: int) -> GridInput:
    """The input of these fields without `__post_init__`: the caller knows them well formed."""
    inp = _new(GridInput)
    # one call per field, not a loop over zipped names: every reveal of a new (handle, card)
    # pair builds one
    _set(inp, "verb", verb)
    _set(inp, "handle", handle)
    _set(inp, "other", other)
    _set(inp, "cell", cell)
    _set(inp, "up", up)
    _set(inp, "card", card)
    _set(inp, "player", player)
    return inp


#: (handle, card id) -> the validated DEAL (card id "") or REVEAL input of them
_ANSWER_INPUTS: dict[tuple[int, str], GridInput] = {}


def answer_input(handle: int, card: str = "") -> GridInput:
    """The validated `deal <handle>` (no card) or `reveal <handle> <card>` input, each value
    validated once and then shared (the referee answers one per dealt or revealed card)."""
    if type(handle) is not int or type(card) is not str:
        return GridInput(Verb.REVEAL if card else Verb.DEAL, handle, card=card)  # it checks
    key = (handle, card)
    inp = _ANSWER_INPUTS.get(key)
    if inp is None:
        if len(_ANSWER_INPUTS) > 100_000:
            _ANSWER_INPUTS.clear()
        if 0 <= handle <= MAX_HANDLE and (not card or _CARD_RE.fullmatch(card)):
            # the two fields `__post_init__` would check, checked here: its walk over every
            # field was most of the cost of answering a reveal (each new deal brings new pairs)
            inp = _unchecked(Verb.REVEAL if card else Verb.DEAL, handle, -1, "", False, card,
                             -1)
        else:
            inp = GridInput(Verb.REVEAL if card else Verb.DEAL, handle, card=card)  # raises
        _ANSWER_INPUTS[key] = inp
    return inp


def parse_input(text: str) -> GridInput:
    """The input written by `text` in canonical form; anything else: MalformedActionError."""
    if not isinstance(text, str) or len(text) > MAX_INPUT_CHARS:
        raise MalformedActionError(f"malformed grid input {text!r:.60}: not a line of at most "
                                   f"{MAX_INPUT_CHARS} characters")
    words = text.split(" ")

    def bad(why: str) -> MalformedActionError:
        return MalformedActionError(f"malformed grid input {text!r:.60}: {why}")

    def handle(w: str) -> int:
        if not _HANDLE_RE.fullmatch(w) or int(w) > MAX_HANDLE:
            raise bad(f"{w!r:.20} is not a handle 0..{MAX_HANDLE}")
        return int(w)

    try:
        verb = Verb(words[0])
    except ValueError:
        raise bad(f"unknown verb {words[0]!r:.20} (one of "
                  f"{', '.join(v.value for v in Verb)})") from None
    arity = {Verb.FIRST: 2, Verb.DEAL: 2, Verb.REVEAL: 3, Verb.PLACE: 4, Verb.USE: 2,
             Verb.END: 1, Verb.PICK: 2, Verb.PASS: 1, Verb.FREE: 2, Verb.DUEL: 3}[verb]
    if len(words) != arity:
        raise bad(f"{verb.value!r} takes {arity - 1} argument(s)")
    if verb in (Verb.END, Verb.PASS):
        return GridInput(verb)
    if verb is Verb.FIRST:
        if words[1] not in ("0", "1"):
            raise bad("the first player is 0 or 1")
        return GridInput(verb, player=int(words[1]))
    h = handle(words[1])
    if verb is Verb.REVEAL:
        if not _CARD_RE.fullmatch(words[2]):
            raise bad(f"{words[2]!r:.40} is not a card id")
        return GridInput(verb, h, card=words[2])
    if verb is Verb.PLACE:
        if not _CELL_RE.fullmatch(words[2]):
            raise bad(f"{words[2]!r:.10} is not a cell a1..f6")
        if words[3] not in ("up", "down"):
            raise bad("the face is 'up' or 'down'")
        return GridInput(verb, h, cell=words[2], up=words[3] == "up")
    if verb is Verb.DUEL:
        other = handle(words[2])
        if other == h:
            raise bad("a duel names two different cards")
        return GridInput(verb, h, other)
    return GridInput(verb, h)


def format_input(inp: GridInput) -> str:
    """The canonical line of an input."""
    if not isinstance(inp, GridInput):
        raise MalformedActionError(f"not a grid input: {inp!r:.60}")
    v = inp.verb
    if v in (Verb.END, Verb.PASS):
        return v.value
    if v is Verb.FIRST:
        return f"first {inp.player}"
    if v is Verb.REVEAL:
        return f"reveal {inp.handle} {inp.card}"
    if v is Verb.PLACE:
        return f"place {inp.handle} {inp.cell} {'up' if inp.up else 'down'}"
    if v is Verb.DUEL:
        return f"duel {inp.handle} {inp.other}"
    return f"{v.value} {inp.handle}"
