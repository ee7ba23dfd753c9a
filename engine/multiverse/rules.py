# The rules options of "Against the Multiverse" (SPEC Part 11, §11.1.1, §11.1.3): the difficulty
# (how many rows of defense cards the Multiverse lays, each on its own battleground) and the Power
# deck's size (smaller is harder). The Power deck's contents are a function of the size and the card
# data (`power_decklist`), so a challenge fixes them by fixing the rules and the catalogue.
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import RulesetError
from ..options import RulesOption
from .cards import Catalogue

DIFFICULTIES = ("easy", "normal", "hard")
#: Multiverse rows of three defense cards per difficulty (§11.1.4)
ROWS = {"easy": 1, "normal": 2, "hard": 3}
MIN_DECK, MAX_DECK, DEFAULT_DECK = 50, 80, 60
RULES_FORMAT = "multiverse-rules/1"

OPTIONS = (
    RulesOption("difficulty", "normal", "rows of Multiverse defense cards: easy 1, normal 2, "
                "hard 3", choices=DIFFICULTIES),
    RulesOption("deck", DEFAULT_DECK, "Power deck size (smaller is harder)", MIN_DECK, MAX_DECK),
)


@dataclass(frozen=True, slots=True)
class Rules:
    difficulty: str = "normal"
    deck: int = DEFAULT_DECK

    @property
    def rows(self) -> int:
        return ROWS[self.difficulty]


def from_options(options: Mapping[str, Any]) -> Rules:
    unknown = sorted(set(options) - {"difficulty", "deck"})
    if unknown:
        raise RulesetError(f"unknown multiverse option(s) {unknown}")
    difficulty = options.get("difficulty", "normal")
    deck = options.get("deck", DEFAULT_DECK)
    if difficulty not in DIFFICULTIES:
        raise RulesetError(f"multiverse option difficulty={difficulty!r}: one of {DIFFICULTIES}")
    if type(deck) is not int or not MIN_DECK <= deck <= MAX_DECK:
        raise RulesetError(f"multiverse option deck={deck!r}: must be {MIN_DECK}..{MAX_DECK}")
    return Rules(difficulty, deck)


def encode(rules: Rules) -> bytes:
    return json.dumps({"deck": rules.deck, "difficulty": rules.difficulty,
                       "format": RULES_FORMAT}, sort_keys=True, separators=(",", ":")).encode()


def decode(data: bytes) -> Rules:
    try:
        obj = json.loads(data)
        if not isinstance(obj, dict) or set(obj) != {"deck", "difficulty", "format"} or \
                obj["format"] != RULES_FORMAT:
            raise ValueError("fields")
        rules = from_options({"difficulty": obj["difficulty"], "deck": obj["deck"]})
    except (ValueError, TypeError, UnicodeDecodeError):
        raise RulesetError(f"not multiverse rules: {bytes(data)!r:.60}") from None
    if encode(rules) != data:
        raise RulesetError("multiverse rules encoding is not canonical")
    return rules


def power_decklist(rules: Rules, cat: Catalogue) -> tuple[str, ...]:
    """The Power deck's cards by handle (§11.1.3): the catalogue's copies taken round by round (one
    of each card that has copies left, in catalogue order) until the deck size is reached."""
    out: list[str] = []
    rnd = 0
    while len(out) < rules.deck:
        for p in cat.powers:
            if p.copies > rnd and len(out) < rules.deck:
                out.append(p.id)
        rnd += 1
    return tuple(out)


def battleground_decklist(cat: Catalogue) -> tuple[str, ...]:
    """The Battleground deck: one of each battleground, in catalogue order (§11.1.3)."""
    return tuple(b.id for b in cat.battlegrounds)
