# The grid game's card data (SPEC Part 9, "Catalogue"): an original catalogue of characters,
# traps and items in data/cards.json, its validating loader, its digest and the rules text
# generated from each card's definition.
#
# How: the file is untrusted text until `load_catalogue` has checked every field; a bad field
# raises CatalogueError naming the card and the dotted field (`card #3 'ember-fox': field
# 'sides[2]': ...`). The loaded `Catalogue` is a frozen value; a card's index is its position
# in the file (the public id a state records). Why data and not code: the rules text, the
# digest both peers bind into the match and the engine all read the same definitions.
#
# The deck helpers (`recommended_mix`, `build_deck`, `build_pool`, `deck_mix`) turn the mode's
# recommended mix (12/5/3, 18/8/4, 24/11/5 characters/items/traps per player, with the `mix`
# rules option replacing missing items or traps by characters) into card lists for a decklist
# or a shared pool; they are deterministic in a seed (a HashStream shuffle, never `random`).
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from importlib import resources
from typing import Any

from ..errors import CatalogueError
from ..hashing import HashStream, tagged_hash

CATALOGUE_FORMAT = "versus-grid-catalogue/1"
MAX_CATALOGUE_BYTES = 1 << 20
MAX_CARDS = 512
_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
VALUE_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}
MIN_VALUE, MAX_VALUE = 1, 13
SIDE_NAMES = ("top", "right", "bottom", "left")


class Kind(Enum):
    CHARACTER = "character"
    TRAP = "trap"
    ITEM = "item"


class Element(Enum):
    WATER = "water"
    FIRE = "fire"
    EARTH = "earth"


#: element code (index) in the catalogue's canonical order; BEATS[a] is the element a beats
ELEMENTS = (Element.WATER, Element.FIRE, Element.EARTH)
BEATS = {Element.WATER: Element.FIRE, Element.FIRE: Element.EARTH, Element.EARTH: Element.WATER}


class Use(Enum):
    TURN = "turn"
    FREE = "free"
    MODIFIER = "modifier"


class Op(Enum):
    # traps (act on the card that triggered them)
    DESTROY = "destroy"
    WEAKEN = "weaken"
    BOUNCE = "bounce"
    BLAST = "blast"
    # TURN items
    DRAW = "draw"
    SCOUT = "scout"
    DOUBLE = "double"
    AIRDROP = "airdrop"
    # FREE items
    SHIELD = "shield"
    BOOST = "boost"
    RECALL = "recall"
    # MODIFIER items
    ZERO = "zero"
    REVERSE = "reverse"
    BONUS = "bonus"


#: which ops each kind/use allows, and the parameters each op takes
TRAP_OPS = frozenset({Op.DESTROY, Op.WEAKEN, Op.BOUNCE, Op.BLAST})
ITEM_OPS = {
    Use.TURN: frozenset({Op.DRAW, Op.DESTROY, Op.SCOUT, Op.DOUBLE, Op.AIRDROP}),
    Use.FREE: frozenset({Op.SHIELD, Op.BOOST, Op.DRAW, Op.RECALL}),
    Use.MODIFIER: frozenset({Op.ZERO, Op.REVERSE, Op.BONUS}),
}
#: op -> its parameters (name -> (minimum, maximum), or "element")
OP_PARAMS: dict[Op, dict[str, tuple[int, int] | str]] = {
    Op.DESTROY: {}, Op.WEAKEN: {"amount": (1, 5)}, Op.BOUNCE: {}, Op.BLAST: {},
    Op.DRAW: {"amount": (1, 3)}, Op.SCOUT: {}, Op.DOUBLE: {}, Op.AIRDROP: {},
    Op.SHIELD: {}, Op.BOOST: {"amount": (1, 5)}, Op.RECALL: {},
    Op.ZERO: {"value": (MIN_VALUE, MAX_VALUE)}, Op.REVERSE: {},
    Op.BONUS: {"element": "element", "amount": (1, 3)},
}


def value_name(v: int) -> str:
    """A side value as printed: A, 2..10, J, Q, K (0 after a modifier)."""
    return VALUE_NAMES.get(v, str(v))


@dataclass(frozen=True, slots=True)
class Effect:
    op: Op
    amount: int = 0
    value: int = 0
    element: Element | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op.value}
        params = OP_PARAMS[self.op]
        if "amount" in params:
            out["amount"] = self.amount
        if "value" in params:
            out["value"] = self.value
        if "element" in params and self.element is not None:
            out["element"] = self.element.value
        return out


@dataclass(frozen=True, slots=True)
class Card:
    """One catalogue card. Characters have `element` and `sides` (top, right, bottom, left, each
    1..13); traps an `effect`; items a `use` and an `effect`."""

    id: str
    name: str
    kind: Kind
    element: Element | None = None
    sides: tuple[int, int, int, int] = (0, 0, 0, 0)
    use: Use | None = None
    effect: Effect | None = None

    def __post_init__(self) -> None:
        if self.kind is Kind.CHARACTER:
            if self.element is None or len(self.sides) != 4 or not all(
                    MIN_VALUE <= v <= MAX_VALUE for v in self.sides):
                raise ValueError(f"character {self.id!r} needs an element and four sides 1..13")
        elif self.effect is None or (self.kind is Kind.ITEM) != (self.use is not None):
            raise ValueError(f"card {self.id!r}: a trap has an effect, an item a use and an "
                             "effect")

    @property
    def top(self) -> int:
        return self.sides[0]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "kind": self.kind.value}
        if self.kind is Kind.CHARACTER:
            assert self.element is not None
            out["element"] = self.element.value
            out["sides"] = list(self.sides)
        else:
            assert self.effect is not None
            out["effect"] = self.effect.to_json()
            if self.use is not None:
                out["use"] = self.use.value
        return out

    @property
    def text(self) -> str:
        """The rules text, generated from the definition."""
        if self.kind is Kind.CHARACTER:
            assert self.element is not None
            sides = ", ".join(f"{n} {value_name(v)}" for n, v in zip(SIDE_NAMES, self.sides,
                                                                      strict=True))
            return f"Character, {self.element.value.capitalize()}: {sides}."
        assert self.effect is not None
        if self.kind is Kind.TRAP:
            return "Trap: " + _TRAP_TEXT[self.effect.op](self.effect)
        assert self.use is not None
        return f"Item ({self.use.value.upper()}): " + _ITEM_TEXT[self.effect.op](self.effect)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


_TRAP_TEXT = {
    Op.DESTROY: lambda e: "the card that triggers it goes to the graveyard.",
    Op.WEAKEN: lambda e: f"every side of the card that triggers it is worth {e.amount} less "
                         "while it stays on the grid.",
    Op.BOUNCE: lambda e: "the card that triggers it returns to its player's hand.",
    Op.BLAST: lambda e: "every card next to it, on either side, goes to the graveyard.",
}
_ITEM_TEXT = {
    Op.DRAW: lambda e: f"draw {_plural(e.amount, 'card')}.",
    Op.DESTROY: lambda e: "send one opponent card on the grid to the graveyard.",
    Op.SCOUT: lambda e: "turn one face-down opponent card face up; a trap or item so exposed "
                        "goes to the graveyard without effect.",
    Op.DOUBLE: lambda e: "place up to two cards this turn.",
    Op.AIRDROP: lambda e: "place one card this turn on any empty cell outside the opponent's "
                          "home base, touching your cards or not.",
    Op.SHIELD: lambda e: "one of your cards on the grid cannot be sent to the graveyard until "
                         "the end of this turn.",
    Op.BOOST: lambda e: f"one of your face-up characters gets +{e.amount} on every side until "
                        "the end of this turn.",
    Op.RECALL: lambda e: "take the most recent character of your graveyard into your hand.",
    Op.ZERO: lambda e: f"every {value_name(e.value)} side is worth 0.",
    Op.REVERSE: lambda e: "the element cycle turns around: Fire beats Water, Earth beats Fire, "
                          "Water beats Earth.",
    Op.BONUS: lambda e: f"{e.element.value.capitalize() if e.element else '?'} characters get "
                        f"+{e.amount} on every side.",
}


@dataclass(frozen=True)
class Catalogue:
    """The loaded card data: cards in file order, and the index of each id."""

    cards: tuple[Card, ...]
    comment: str = ""
    index: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.index:
            object.__setattr__(self, "index", {c.id: i for i, c in enumerate(self.cards)})

    def encode(self) -> bytes:
        """The canonical encoding: sorted keys, no whitespace, ASCII, no comment."""
        return _canonical({"format": CATALOGUE_FORMAT, "cards": [c.to_json() for c in self.cards]})

    @cached_property
    def digest(self) -> bytes:
        return tagged_hash("grid/catalogue", self.encode())

    @cached_property
    def ids(self) -> tuple[str, ...]:
        """The card ids by catalogue index (the views name cards at every decision)."""
        return tuple(c.id for c in self.cards)

    def card(self, card_id: str) -> Card:
        return self.cards[self.index[card_id]]

    def ids_of(self, kind: Kind) -> tuple[str, ...]:
        return self._ids_by_kind[kind]

    @cached_property
    def _ids_by_kind(self) -> dict[Kind, tuple[str, ...]]:
        """Each kind's card ids in catalogue order (every local deal asks for them)."""
        return {kind: tuple(c.id for c in self.cards if c.kind is kind) for kind in Kind}


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


# --- the loader ----------------------------------------------------------------------------------


def load_catalogue(data: str | bytes) -> Catalogue:
    """Validated card data from a file's text; CatalogueError names the card and the field."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, bytes | bytearray):
        raise CatalogueError(f"catalogue data must be text, got {type(data).__name__}")
    if len(data) > MAX_CATALOGUE_BYTES:
        raise CatalogueError(f"catalogue is over {MAX_CATALOGUE_BYTES} bytes")
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise CatalogueError(f"catalogue is not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise CatalogueError("catalogue must be a JSON object")
    extra = sorted(set(obj) - {"format", "comment", "cards"})
    if extra:
        raise CatalogueError(f"catalogue field {extra[0]!r}: unknown field")
    if obj.get("format") != CATALOGUE_FORMAT:
        raise CatalogueError(f"catalogue field 'format': must be {CATALOGUE_FORMAT!r}, got "
                             f"{obj.get('format')!r:.60}")
    comment = obj.get("comment", "")
    if not isinstance(comment, str):
        raise CatalogueError("catalogue field 'comment': must be a string")
    cards = obj.get("cards")
    if not isinstance(cards, list) or not 1 <= len(cards) <= MAX_CARDS:
        raise CatalogueError(f"catalogue field 'cards': must be a list of 1..{MAX_CARDS} cards")
    out: list[Card] = []
    seen: set[str] = set()
    for i, raw in enumerate(cards):
        card = _load_card(i, raw)
        if card.id in seen:
            raise CatalogueError(f"card #{i} {card.id!r}: field 'id': duplicate id")
        seen.add(card.id)
        out.append(card)
    return Catalogue(tuple(out), comment)


def _load_card(i: int, raw: object) -> Card:
    label = f"card #{i}"

    def bad(fld: str, reason: str) -> CatalogueError:
        return CatalogueError(f"{label}: field {fld!r}: {reason}")

    if not isinstance(raw, dict):
        raise CatalogueError(f"{label}: must be a JSON object")
    cid = raw.get("id")
    if not isinstance(cid, str) or not _ID_RE.fullmatch(cid):
        raise bad("id", f"must be 1-40 chars of a-z, 0-9, '-' not starting with '-', got "
                        f"{cid!r:.60}")
    label = f"card #{i} {cid!r}"
    name = raw.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 40 or not name.isprintable():
        raise bad("name", "must be 1-40 printable characters")
    try:
        kind = Kind(raw.get("kind"))
    except ValueError:
        raise bad("kind", f"must be one of character, trap, item, got {raw.get('kind')!r:.40}"
                  ) from None
    allowed = {"id", "name", "kind"} | ({"element", "sides"} if kind is Kind.CHARACTER else
                                       {"effect"} if kind is Kind.TRAP else {"use", "effect"})
    extra = sorted(set(raw) - allowed)
    if extra:
        raise bad(extra[0], f"unknown field for a {kind.value}")
    missing = sorted(allowed - set(raw))
    if missing:
        raise bad(missing[0], "missing")
    if kind is Kind.CHARACTER:
        element = _element(raw["element"], bad, "element")
        sides = raw["sides"]
        if not isinstance(sides, list) or len(sides) != 4:
            raise bad("sides", "must be a list of 4 values (top, right, bottom, left)")
        for k, v in enumerate(sides):
            if type(v) is not int or not MIN_VALUE <= v <= MAX_VALUE:
                raise bad(f"sides[{k}]", f"must be an integer {MIN_VALUE}..{MAX_VALUE}, got "
                                         f"{v!r:.20}")
        return Card(cid, name, kind, element, (sides[0], sides[1], sides[2], sides[3]))
    use = None
    if kind is Kind.ITEM:
        try:
            use = Use(raw["use"])
        except ValueError:
            raise bad("use", f"must be one of turn, free, modifier, got {raw['use']!r:.40}"
                      ) from None
    effect = _effect(raw["effect"], kind, use, bad)
    return Card(cid, name, kind, use=use, effect=effect)


def _element(value: object, bad: Any, fld: str) -> Element:
    try:
        return Element(value)
    except ValueError:
        raise bad(fld, f"must be one of water, fire, earth, got {value!r:.40}") from None


def _effect(raw: object, kind: Kind, use: Use | None, bad: Any) -> Effect:
    if not isinstance(raw, dict):
        raise bad("effect", "must be a JSON object")
    try:
        op = Op(raw.get("op"))
    except ValueError:
        raise bad("effect.op", f"unknown op {raw.get('op')!r:.40}") from None
    allowed_ops = TRAP_OPS if kind is Kind.TRAP else ITEM_OPS[use]  # type: ignore[index]
    if op not in allowed_ops:
        what = "a trap" if kind is Kind.TRAP else f"a {use.value} item"  # type: ignore[union-attr]
        raise bad("effect.op", f"{op.value!r} is not an effect of {what} (one of "
                               f"{', '.join(sorted(o.value for o in allowed_ops))})")
    params = OP_PARAMS[op]
    extra = sorted(set(raw) - {"op"} - set(params))
    if extra:
        raise bad(f"effect.{extra[0]}", f"not a parameter of {op.value!r}")
    values: dict[str, Any] = {}
    for pname, spec in params.items():
        if pname not in raw:
            raise bad(f"effect.{pname}", "missing")
        v = raw[pname]
        if spec == "element":
            values[pname] = _element(v, bad, f"effect.{pname}")
        else:
            lo, hi = spec  # type: ignore[misc]
            if type(v) is not int or not lo <= v <= hi:
                raise bad(f"effect.{pname}", f"must be an integer {lo}..{hi}, got {v!r:.20}")
            values[pname] = v
    return Effect(op, **values)


_DEFAULT: list[Catalogue] = []


def default_catalogue() -> Catalogue:
    """The catalogue shipped in data/cards.json (loaded once)."""
    if not _DEFAULT:
        text = resources.files(__package__).joinpath("data/cards.json").read_bytes()
        _DEFAULT.append(load_catalogue(text))
    return _DEFAULT[0]


# --- decks ---------------------------------------------------------------------------------------

#: per mode: (deck size per player, (characters, items, traps)) (seed "BASICS")
MODE_DECKS = {"fast": (20, (12, 5, 3)), "normal": (30, (18, 8, 4)), "vs": (40, (24, 11, 5))}


def recommended_mix(mode: str, mix: str) -> tuple[int, int, int]:
    """(characters, items, traps) per player for a mode and the `mix` option: the missing
    items and/or traps are replaced by characters (the deck size stays the same)."""
    size, (chars, items, traps) = MODE_DECKS[mode]
    if mix in ("no-items", "characters-only"):
        chars, items = chars + items, 0
    if mix in ("no-traps", "characters-only"):
        chars, traps = chars + traps, 0
    assert chars + items + traps == size
    return chars, items, traps


def deck_mix(catalogue: Catalogue, cards: Sequence[str]) -> tuple[int, int, int]:
    """(characters, items, traps) in a list of card ids (KeyError: an unknown id)."""
    kinds = [catalogue.card(c).kind for c in cards]
    return (kinds.count(Kind.CHARACTER), kinds.count(Kind.ITEM), kinds.count(Kind.TRAP))


def _pick(catalogue: Catalogue, counts: tuple[int, int, int], stream: HashStream,
          distinct_from: Sequence[str] = ()) -> list[str]:
    taken = set(distinct_from)
    out: list[str] = []
    for kind, n in zip((Kind.CHARACTER, Kind.ITEM, Kind.TRAP), counts, strict=True):
        ids = [c for c in catalogue.ids_of(kind) if c not in taken]
        if len(ids) < n:
            raise CatalogueError(f"catalogue has {len(ids)} {kind.value} cards left, a deck "
                                 f"needs {n}")
        stream.shuffle(ids)
        out.extend(ids[:n])
    stream.shuffle(out)
    return out


def build_deck(catalogue: Catalogue, mode: str, mix: str, seed: bytes) -> list[str]:
    """One player's deck (distinct card ids) with the recommended mix, shuffled by `seed`."""
    return _pick(catalogue, recommended_mix(mode, mix), HashStream("grid/deck", seed))


def build_pool(catalogue: Catalogue, mode: str, mix: str, seed: bytes) -> list[str]:
    """A shared-pool card list for both players (2x the recommended mix, distinct ids)."""
    chars, items, traps = recommended_mix(mode, mix)
    return _pick(catalogue, (2 * chars, 2 * items, 2 * traps), HashStream("grid/pool", seed))
