# Vanquishers rules options (SPEC Part 10, "§10.2.1 Rules options"): a frozen, validated value with
# a canonical JSON encoding both peers sign in HELLO, and its tagged digest.
#
# Why the heroes are rules options: a hero is chosen before the match and is public from the
# start (it lies face up on the board), and its restrictions constrain the deck each player
# commits to at setup; agreeing on both heroes with the rules (like the deck size, which the
# protocol needs fixed per seat) makes the choice simultaneous and binds it into the match id.
# The hero choices list the default catalogue's heroes; a custom catalogue must hold the heroes
# the rules name (new_game checks).
from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..errors import RulesetError
from ..options import RulesOption
from .cards import MAX_DECK, MIN_DECK, CardType, _tagged, canonical_json, default_catalogue

RULES_FORMAT = "vanquishers-rules/1"
#: the longest rules encoding `decode` reads (a start position's text is most of it)
MAX_RULES_BYTES = 48 * 1024


class Mode(Enum):
    STANDARD = "standard"
    ADVANCED = "advanced"


def _hero_ids() -> tuple[str, ...]:
    return tuple(c.id for c in default_catalogue().cards if c.type is CardType.HERO)


HEROES = _hero_ids()

RULES_OPTIONS: tuple[RulesOption, ...] = (
    RulesOption("deck_size", 30, "cards in each player's deck (§10.2.3.1)", MIN_DECK, MAX_DECK),
    RulesOption("mode", "standard", "Standard or Advanced Mode (§10.1.8)",
                choices=tuple(m.value for m in Mode)),
    RulesOption("hero0", HEROES[0], "player 0's hero (§10.2.2.1)", choices=HEROES),
    RulesOption("hero1", HEROES[1], "player 1's hero (§10.2.2.1)", choices=HEROES),
    RulesOption("max_turns", 60, "turns per player before the turn limit (§10.1.7.3)", 1, 500),
)
_OPTIONS = {o.name: o for o in RULES_OPTIONS}


@dataclass(frozen=True, slots=True)
class Rules:
    deck_size: int = 30
    mode: Mode = Mode.STANDARD
    hero0: str = HEROES[0]
    hero1: str = HEROES[1]
    max_turns: int = 60
    #: a start position (SPEC Part 10 "Start positions"): its canonical text, or "" for the new
    #: game. Encoded only when set, so every other rules value keeps its encoding and digest.
    start: str = ""

    def __post_init__(self) -> None:
        for name in ("deck_size", "max_turns"):
            value, option = getattr(self, name), _OPTIONS[name]
            if type(value) is not int or not option.minimum <= value <= option.maximum:
                raise RulesetError(f"vanquishers option {name}={value!r}: must be an integer "
                                   f"{option.minimum}..{option.maximum}")
        if not isinstance(self.mode, Mode):
            raise RulesetError(f"vanquishers option mode={self.mode!r}: must be a Mode")
        for name in ("hero0", "hero1"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value or len(value) > 40:
                raise RulesetError(f"vanquishers option {name}={value!r:.50}: must be a hero id")
        if not isinstance(self.start, str):
            raise RulesetError(f"vanquishers option start={self.start!r:.40}: must be a "
                               "position text or empty")
        # Whether the start is a canonical start of these very rules is checked where rules
        # enter the game (start.checked_rules): it needs the position reader, which builds on
        # this class, so this value checks its own options only.

    @property
    def start_hidden(self) -> tuple[int, int]:
        """How many cards each player brings to a match from the start position: its hidden
        cards, numbered first among its handles (SPEC Part 10 "Start positions"); its other
        handles are the position's public cards. (0, 0) without a start."""
        return _start_hidden(self.start, self.deck_size) if self.start else (0, 0)

    @property
    def heroes(self) -> tuple[str, str]:
        return (self.hero0, self.hero1)

    @property
    def advanced(self) -> bool:
        return self.mode is Mode.ADVANCED

    def to_options(self) -> dict[str, Any]:
        out: dict[str, Any] = {"deck_size": self.deck_size, "mode": self.mode.value,
                               "hero0": self.hero0, "hero1": self.hero1,
                               "max_turns": self.max_turns}
        if self.start:
            out["start"] = self.start
        return out

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Rules:
        if not isinstance(options, Mapping):
            raise RulesetError(f"vanquishers options must be a mapping, not "
                               f"{type(options).__name__}")
        unknown = sorted(set(options) - set(_OPTIONS) - {"start"})
        if unknown:
            raise RulesetError(f"unknown vanquishers option(s) {unknown}; known: "
                               f"{', '.join(_OPTIONS)}")
        values = {**cls().to_options(), **options}
        mode = values["mode"]
        if mode not in _OPTIONS["mode"].choices:
            raise RulesetError(f"vanquishers option mode={mode!r}: must be one of "
                               f"{', '.join(_OPTIONS['mode'].choices)}")
        for name in ("hero0", "hero1"):
            if values[name] not in HEROES:
                raise RulesetError(f"vanquishers option {name}={values[name]!r:.50}: must be "
                                   f"one of {', '.join(HEROES)}")
        return cls(values["deck_size"], Mode(mode), values["hero0"], values["hero1"],
                   values["max_turns"], values.get("start", ""))

    def encode(self) -> bytes:
        return canonical_json({"format": RULES_FORMAT, **self.to_options()})

    @classmethod
    def decode(cls, data: bytes) -> Rules:
        if isinstance(data, bytes | bytearray) and len(data) > MAX_RULES_BYTES:
            raise RulesetError(f"vanquishers rules encoding longer than {MAX_RULES_BYTES} bytes")
        try:
            obj = json.loads(data)
        except (ValueError, TypeError, RecursionError):
            raise RulesetError(f"not vanquishers rules: {data!r:.60}") from None
        if not isinstance(obj, dict) or obj.pop("format", None) != RULES_FORMAT:
            raise RulesetError(f"vanquishers rules: field 'format' must be {RULES_FORMAT!r}")
        rules = cls.from_options(obj)
        if rules.encode() != data:
            raise RulesetError("vanquishers rules encoding is not canonical")
        return rules

    def digest(self) -> bytes:
        if self.start:  # every state hash binds it: a start's long text is hashed once
            return _start_digest(self)
        return _tagged("rules", self.encode())

    def describe(self) -> str:
        return (f"{self.mode.value} mode, decks of {self.deck_size}, {self.hero0} vs "
                f"{self.hero1}, {self.max_turns} turns max")  # the start: Vanquishers adds it


@functools.lru_cache(maxsize=16)
def _start_hidden(start: str, deck_size: int) -> tuple[int, int]:
    """A plain count over the start text (the nulls of its `state.card`, player by player), so
    the rules engine asks it without the position reader, which builds on the engine; the text
    itself is checked when the rules enter the game (start.checked_rules)."""
    try:
        cards = json.loads(start)["state"]["card"]
        return (cards[:deck_size].count(None), cards[deck_size:2 * deck_size].count(None))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise RulesetError("vanquishers option start: not a position text") from None


@functools.lru_cache(maxsize=16)
def _start_digest(rules: Rules) -> bytes:
    return _tagged("rules", rules.encode())
