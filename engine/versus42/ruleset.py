# The ruleset: every option the guide leaves adjustable or that differs between the English
# and French guides, as one frozen, validated value with a canonical byte encoding and digest.
# The protocol exchanges and signs the encoding, so both peers provably play the same rules.
#
# The tile layout also lives here: it is a pure function of the ruleset and a layout seed
# (a deterministic Fisher-Yates shuffle over a SHA-256 counter-mode stream).
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any

from ..errors import RulesetError
from ..hashing import HashStream, tagged_hash
from ..options import RulesOption
from .geometry import Geometry

#: the longest ruleset encoding `decode` reads (a start position's text is most of it)
MAX_RULESET_BYTES = 48 * 1024


class Tile(IntEnum):
    WHITE = 0
    BLACK = 1
    GRAY = 2
    BLUE = 3

    @property
    def letter(self) -> str:
        return "WKGB"[self]


class ActionOrder(Enum):
    ORDERED = "ordered"  # EN guide: Summon, Flip, Activate, Move, in this order
    ANY = "any"  # FR guide: in any order


@dataclass(frozen=True)
class Ruleset:
    deck_size: int = 12
    hand_size: int = 3
    action_order: ActionOrder = ActionOrder.ORDERED
    rows: int = 4
    cols: int = 5
    blue_tiles: int = 1
    gray_tiles: int = 3
    white_tiles: int = 8
    black_tiles: int = 8
    max_turns: int = 60  # turns per player; see SPEC §1.10.3
    #: a start position (SPEC Part 3 "Start positions"): its canonical text, or "" for the
    #: game's new game. Encoded only when set, so every other ruleset keeps its digest.
    start: str = ""

    def __post_init__(self) -> None:
        def need(cond: bool, option: str, msg: str) -> None:
            if not cond:
                raise RulesetError(f"ruleset option {option}={getattr(self, option)!r}: {msg}")

        for option in RULES_OPTIONS:  # each option alone, in field order
            value = getattr(self, option.name)
            if option.choices:
                allowed = " or ".join(repr(c) for c in option.choices)
                need(isinstance(value, ActionOrder), option.name, f"must be {allowed}")
                continue
            need(type(value) is int, option.name, "must be an integer")
            lo, hi = option.minimum, option.maximum
            need(lo <= value <= hi, option.name,
                 f"must be {lo}..{hi}" if lo < hi else f"must be {lo} ({option.help})")
        need(self.hand_size <= self.deck_size, "hand_size", "must not exceed deck_size")
        total = self.blue_tiles + self.gray_tiles + self.white_tiles + self.black_tiles
        need(total == self.rows * self.cols, "white_tiles",
             f"tile counts sum to {total}, the field has {self.rows * self.cols} areas")
        # Whether the start is a canonical start of these very rules is checked where rules
        # enter the game (start.checked_rules): it needs the position reader, which builds on
        # this class, so this value checks its own options only.
        need(isinstance(self.start, str), "start", "must be a position text or empty")

    @classmethod
    def from_options(cls, **options: Any) -> Ruleset:
        """Build from plain options (strings accepted for action_order); unknown names fail."""
        known = set(cls.__match_args__)
        for name in options:
            if name not in known:
                raise RulesetError(f"unknown ruleset option {name!r}")
        if "action_order" in options and not isinstance(options["action_order"], ActionOrder):
            try:
                options["action_order"] = ActionOrder(options["action_order"])
            except ValueError:
                raise RulesetError(
                    f"ruleset option action_order={options['action_order']!r}: "
                    "must be 'ordered' or 'any'") from None
        return cls(**options)

    def to_options(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in self.__match_args__}
        d["action_order"] = self.action_order.value
        if not self.start:
            del d["start"]
        return d

    def encode(self) -> bytes:
        """Canonical encoding: compact JSON, sorted keys, a format tag."""
        payload = {"format": "versus-ruleset/1", **self.to_options()}
        return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()

    @classmethod
    def decode(cls, data: bytes) -> Ruleset:
        if not isinstance(data, bytes | bytearray):
            raise RulesetError(f"ruleset encoding must be bytes, not {type(data).__name__}")
        if len(data) > MAX_RULESET_BYTES:
            raise RulesetError(f"ruleset encoding longer than {MAX_RULESET_BYTES} bytes")
        try:
            obj = json.loads(data)
        except (ValueError, UnicodeDecodeError) as e:
            raise RulesetError(f"ruleset encoding is not JSON: {e}") from None
        except RecursionError:  # thousands of "[" nest deeper than the recursion limit
            raise RulesetError("ruleset encoding is not JSON: nested too deeply") from None
        if not isinstance(obj, dict) or obj.pop("format", None) != "versus-ruleset/1":
            raise RulesetError("ruleset encoding lacks format 'versus-ruleset/1'")
        rs = cls.from_options(**obj)
        if rs.encode() != data:
            raise RulesetError("ruleset encoding is not canonical")
        return rs

    def digest(self) -> bytes:
        # kept per ruleset: every new game's state carries it, and encode() is JSON
        known = _DIGESTS.get(self)
        if known is None:
            if len(_DIGESTS) >= 256:
                _DIGESTS.clear()
            known = _DIGESTS[self] = tagged_hash("ruleset", self.encode())
        return known

    @property
    def geometry(self) -> Geometry:
        return _geometry(self.rows, self.cols)

    def tile_pool(self) -> list[int]:
        return ([Tile.BLUE] * self.blue_tiles + [Tile.GRAY] * self.gray_tiles
                + [Tile.WHITE] * self.white_tiles + [Tile.BLACK] * self.black_tiles)


def _option(name: str, help: str, minimum: int = 0, maximum: int = 0,
            choices: tuple[str, ...] = ()) -> RulesOption:
    default = getattr(Ruleset, name)
    return RulesOption(name, default.value if isinstance(default, Enum) else default, help,
                       minimum, maximum, choices)


#: Every ruleset option with its range, in field order: Ruleset validates each value against
#: this table (then the constraints between options), and `versus games` lists it.
RULES_OPTIONS: tuple[RulesOption, ...] = (
    _option("deck_size", "cards in each player's deck (§1.2.2)", 1, 21),
    _option("hand_size", "cards each player draws at the start, at most deck_size (§1.2.3)", 1, 5),
    _option("action_order", "ordered: Summon, Flip, Activate, Move (EN); any (FR) (§1.4.3)",
            choices=tuple(o.value for o in ActionOrder)),
    _option("rows", "only the 4x5 field is supported", 4, 4),
    _option("cols", "only the 4x5 field is supported", 5, 5),
    _option("blue_tiles", "there is exactly one Blue tile", 1, 1),
    _option("gray_tiles", "Gray tiles; the four counts sum to 20 (§1.3.2)", 0, 20),
    _option("white_tiles", "White tiles; the four counts sum to 20 (§1.3.2)", 0, 20),
    _option("black_tiles", "Black tiles; the four counts sum to 20 (§1.3.2)", 0, 20),
    _option("max_turns", "turns per player before the turn-limit ending (§1.10.3)", 1, 1000),
)

_GEOMETRIES: dict[tuple[int, int], Geometry] = {}
_DIGESTS: dict[Ruleset, bytes] = {}  # Ruleset.digest's, by ruleset (frozen: hashable)


def _geometry(rows: int, cols: int) -> Geometry:
    g = _GEOMETRIES.get((rows, cols))
    if g is None:
        g = _GEOMETRIES[(rows, cols)] = Geometry(rows, cols)
    return g


def layout_tiles(ruleset: Ruleset, seed: bytes) -> tuple[int, ...]:
    """The tile colour of every area (index order a1, b1, ..., e4) for a layout seed."""
    if not isinstance(seed, bytes | bytearray) or not 1 <= len(seed) <= 64:
        raise RulesetError("layout seed must be 1..64 bytes")
    tiles = ruleset.tile_pool()
    HashStream("layout", bytes(seed)).shuffle(tiles)
    return tuple(int(t) for t in tiles)


def first_player(ruleset: Ruleset, tiles: tuple[int, ...]) -> int:
    """§1.3.3: the player whose opponent's side holds the Blue tile starts."""
    blue = tiles.index(Tile.BLUE)
    return 1 - ruleset.geometry.owner[blue]

