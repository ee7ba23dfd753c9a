# The grid game's rules options (SPEC Part 9, "Rules options"): mode (grid and deck size), deck
# type (individual decks or one shared deck), what equal counts at the end mean (a draw or
# sudden death) and the deck mix (the recommended one, or missing items/traps replaced by
# characters).
#
# How: `GridRules` is a frozen value validated on construction (RulesetError names the option);
# its canonical encoding is sorted, whitespace-free JSON with a format tag, and `decode`
# refuses any other spelling, so the bytes both peers sign have exactly one form.
from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..errors import RulesetError
from ..hashing import tagged_hash
from ..options import RulesOption

RULES_FORMAT = "versus-grid-rules/1"
HAND_SIZE = 5
#: the longest rules encoding `decode` reads (a start position's text is most of it)
MAX_RULES_BYTES = 48 * 1024


class Mode(Enum):
    FAST = "fast"
    NORMAL = "normal"
    VS = "vs"


class DeckType(Enum):
    INDIVIDUAL = "individual"
    SHARED = "shared"


class Tie(Enum):
    DRAW = "draw"
    SUDDEN_DEATH = "sudden-death"


class Mix(Enum):
    STANDARD = "standard"
    NO_ITEMS = "no-items"
    NO_TRAPS = "no-traps"
    CHARACTERS_ONLY = "characters-only"


#: mode -> (grid side, cards per player)
MODE_SIZES = {Mode.FAST: (4, 20), Mode.NORMAL: (5, 30), Mode.VS: (6, 40)}
#: the same by the mode's text: the engine asks for the sizes at every step, and an Enum
#: member hashes in Python, its text in C
_SIZES_BY_VALUE = {m.value: sizes for m, sizes in MODE_SIZES.items()}

RULES_OPTIONS: tuple[RulesOption, ...] = (
    RulesOption("mode", "fast", "fast 4x4 (20 cards each), normal 5x5 (30), vs 6x6 (40)",
                choices=tuple(m.value for m in Mode)),
    RulesOption("deck", "individual", "individual decks, or one shared deck and graveyard",
                choices=tuple(d.value for d in DeckType)),
    RulesOption("tie", "draw", "equal card counts at the end: a draw, or sudden death",
                choices=tuple(t.value for t in Tie)),
    RulesOption("mix", "standard", "deck mix: recommended, or missing items/traps replaced "
                "by characters", choices=tuple(m.value for m in Mix)),
)
_ENUMS: dict[str, type[Enum]] = {"mode": Mode, "deck": DeckType, "tie": Tie, "mix": Mix}


@dataclass(frozen=True, slots=True)
class GridRules:
    mode: Mode = Mode.FAST
    deck: DeckType = DeckType.INDIVIDUAL
    tie: Tie = Tie.DRAW
    mix: Mix = Mix.STANDARD
    #: a start position (SPEC Part 9, "Start positions"): its canonical text, or "" for the
    #: new game. Encoded only when set, so every other rules value keeps its digest.
    start: str = ""

    def __post_init__(self) -> None:
        for name, enum in _ENUMS.items():
            if not isinstance(getattr(self, name), enum):
                raise RulesetError(f"grid option {name}={getattr(self, name)!r:.40}: must be a "
                                   f"{enum.__name__}")
        if not isinstance(self.start, str):
            raise RulesetError(f"grid option start={self.start!r:.40}: must be a position "
                               "text or empty")
        # Whether the start is a canonical start of these very rules is checked where rules
        # enter the game (start.checked_rules): it needs the position reader, which builds on
        # this class, so this value checks its own options only.

    @property
    def size(self) -> int:
        """The grid's side: 4, 5 or 6."""
        return _SIZES_BY_VALUE[self.mode._value_][0]

    @property
    def deck_size(self) -> int:
        """Cards per player (20, 30, 40); the shared deck holds twice as many."""
        return _SIZES_BY_VALUE[self.mode._value_][1]

    @property
    def cards(self) -> int:
        """Handles in the match: both players' cards."""
        return 2 * self.deck_size

    @property
    def shared(self) -> bool:
        return self.deck is DeckType.SHARED

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> GridRules:
        if not isinstance(options, Mapping):
            raise RulesetError(f"grid options must be a mapping, not {type(options).__name__}")
        unknown = sorted(set(options) - set(_ENUMS) - {"start"})
        if unknown:
            raise RulesetError(f"unknown grid option {unknown[0]!r:.40} (known: "
                               f"{', '.join(_ENUMS)})")
        values: dict[str, Any] = {}
        for name, value in options.items():
            if name == "start":
                values[name] = value  # checked by __post_init__
                continue
            enum = _ENUMS[name]
            if isinstance(value, enum):
                values[name] = value
                continue
            try:
                values[name] = enum(value)
            except (ValueError, TypeError):
                raise RulesetError(f"grid option {name}={value!r:.40}: must be one of "
                                   f"{', '.join(e.value for e in enum)}") from None
        return cls(**values)

    def to_options(self) -> dict[str, str]:
        out = {name: getattr(self, name).value for name in _ENUMS}
        if self.start:
            out["start"] = self.start
        return out

    def encode(self) -> bytes:
        return json.dumps({"format": RULES_FORMAT, **self.to_options()}, sort_keys=True,
                          separators=(",", ":")).encode()

    @classmethod
    def decode(cls, data: bytes) -> GridRules:
        if not isinstance(data, bytes | bytearray):
            raise RulesetError(f"grid rules must be bytes, got {type(data).__name__}")
        if len(data) > MAX_RULES_BYTES:
            raise RulesetError(f"grid rules encoding longer than {MAX_RULES_BYTES} bytes")
        try:
            obj = json.loads(data)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise RulesetError(f"grid rules are not JSON: {bytes(data)!r:.60}") from None
        if not isinstance(obj, dict) or obj.pop("format", None) != RULES_FORMAT:
            raise RulesetError(f"grid rules lack format {RULES_FORMAT!r}")
        rules = cls.from_options(obj)
        if rules.encode() != bytes(data):
            raise RulesetError("grid rules encoding is not canonical")
        return rules

    def digest(self) -> bytes:
        if self.start:  # every state hash binds it: a start's long text is hashed once
            return _start_digest(self)
        return tagged_hash("grid/rules", self.encode())

    def describe(self) -> str:
        n = self.size
        deck = (f"one shared {self.cards}-card deck" if self.shared
                else f"{self.deck_size}-card decks")
        tie = "sudden death on equal counts" if self.tie is Tie.SUDDEN_DEATH else \
            "equal counts draw"
        mix = "" if self.mix is Mix.STANDARD else f", mix {self.mix.value}"
        return f"{self.mode.value} {n}x{n} grid, {deck}, {tie}{mix}"  # the start: Grid adds it


@functools.lru_cache(maxsize=16)
def _start_digest(rules: GridRules) -> bytes:
    return tagged_hash("grid/rules", rules.encode())
