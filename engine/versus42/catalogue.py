# The card catalogue: cards are data (data/cards-v2.json and older versions), built from a
# small effect vocabulary; this module validates a catalogue file, compiles it into compact per-card
# records the rules engine reads in its hot path, generates each card's rules text from its
# definition, and computes the catalogue digest (SHA-256 of the canonical encoding) that the
# protocol binds into the match id.
#
# Versions (SPEC Part 2): a shipped pool is never edited, since transcripts bind its digest; a
# new pool is a new file (VERSIONS, oldest first). New matches use the latest; a verifier finds
# an old match's pool by the digest its HELLOs carry (`find_catalogue`). Only the latest is
# loaded at start-up; older versions load when a digest asks for them.
#
# Vocabulary (SPEC Part 2 is the reference):
#   Active ops  : teleport, swap, destroy, discard, draw, copy, increase, flip
#   Passive     : a trigger (summoned, revealed, battle_location, battle_revelation,
#                 battle_adjacent, destroyed) with an op (draw, discard, destroy, increase,
#                 flip), or a continuous Increase (while_colour, while_adjacent, per_absorbed).
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import CatalogueError
from ..hashing import tagged_hash

FORMAT = "versus-catalogue/1"
MAX_CATALOGUE_BYTES = 1 << 20
MAX_CARDS = 512

LIGHT, DARK = 0, 1
ENERGIES = ("light", "dark")

ACTIVE_OPS = ("teleport", "swap", "destroy", "discard", "draw", "copy", "increase", "flip")
TRIGGERS = ("summoned", "revealed", "battle_location", "battle_revelation", "battle_adjacent",
            "destroyed")
CONTINUOUS = ("while_colour", "while_adjacent", "per_absorbed")
PASSIVE_OPS = ("draw", "discard", "destroy", "increase", "flip")
COLOURS = ("white", "black", "gray", "blue")

# For each active op: parameter name -> allowed values (a tuple) or an int range.
_ACTIVE_PARAMS: dict[str, dict[str, Any]] = {
    "teleport": {"target": ("self", "ally", "enemy", "any")},
    "swap": {"target": ("ally", "enemy", "any"), "range": ("adjacent", "any")},
    "destroy": {"target": ("enemy", "any"), "range": ("adjacent", "any"),
                "max_strength": range(1, 10)},
    "discard": {"amount": range(1, 4)},
    "draw": {"amount": range(1, 4)},
    "copy": {},
    "increase": {"target": ("self", "ally"), "amount": range(1, 4)},
    "flip": {"range": ("adjacent", "any")},
}
_ACTIVE_REQUIRED = {
    "teleport": ("target",), "swap": ("target", "range"), "destroy": ("target", "range"),
    "discard": ("amount",), "draw": ("amount",), "copy": (), "increase": ("target", "amount"),
    "flip": ("range",),
}
_PASSIVE_OP_PARAMS: dict[str, dict[str, Any]] = {
    "draw": {"amount": range(1, 4)},
    "discard": {"amount": range(1, 4)},
    "destroy": {"target": ("battle_opponent", "adjacent_weakest"), "max_strength": range(1, 10)},
    "increase": {"amount": range(1, 4)},
    "flip": {},
}
_PASSIVE_REQUIRED = {"draw": ("amount",), "discard": ("amount",), "destroy": ("target",),
                     "increase": ("amount",), "flip": ()}
_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")  # fullmatch: `$` would allow a final newline


@dataclass(frozen=True, slots=True)
class Active:
    op: str
    target: str = ""
    range: str = "any"
    amount: int = 0
    max_strength: int = 0  # 0 = no limit

    def to_json(self) -> dict[str, Any]:
        return _compact({"op": self.op, "target": self.target,
                         "range": self.range if self.op in ("swap", "destroy", "flip") else "",
                         "amount": self.amount, "max_strength": self.max_strength})


@dataclass(frozen=True, slots=True)
class Passive:
    trigger: str
    op: str
    amount: int = 0
    target: str = ""
    max_strength: int = 0
    colour: str = ""  # while_colour
    side: str = ""  # while_adjacent: ally | enemy

    @property
    def continuous(self) -> bool:
        return self.trigger in CONTINUOUS

    def to_json(self) -> dict[str, Any]:
        return _compact({"trigger": self.trigger, "op": self.op, "amount": self.amount,
                         "target": self.target, "max_strength": self.max_strength,
                         "colour": self.colour, "side": self.side})


@dataclass(frozen=True, slots=True)
class Card:
    index: int
    id: str
    name: str
    energy: int  # LIGHT or DARK
    strength: int
    active: Active
    passive: Passive

    @property
    def energy_name(self) -> str:
        return ENERGIES[self.energy]

    @property
    def text(self) -> str:
        return f"Active: {active_text(self.active)} Passive: {passive_text(self.passive)}"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "energy": self.energy_name,
                "strength": self.strength, "active": self.active.to_json(),
                "passive": self.passive.to_json()}


def _compact(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v not in ("", 0)}


class Catalogue:
    """A validated, immutable card pool. `cards[i].index == i`; ids are unique."""

    __slots__ = ("actives", "by_id", "cards", "digest", "encoding", "energies", "passives",
                 "strengths")

    def __init__(self, cards: tuple[Card, ...]) -> None:
        self.cards = cards
        self.by_id = {c.id: c for c in cards}
        # flat per-index tuples: the rules engine's hot path reads these
        self.strengths = tuple(c.strength for c in cards)
        self.energies = tuple(c.energy for c in cards)
        self.actives = tuple(c.active for c in cards)
        self.passives = tuple(c.passive for c in cards)
        self.encoding = json.dumps(
            {"format": FORMAT, "cards": [c.to_json() for c in cards]},
            sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
        self.digest = tagged_hash("catalogue", self.encoding)

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, card_id: str) -> Card:
        return self.by_id[card_id]

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.by_id


def load_catalogue(data: str | bytes) -> Catalogue:
    """Parse and validate a catalogue file; raise CatalogueError naming the card and field."""
    if isinstance(data, str):
        try:
            data = data.encode()
        except UnicodeEncodeError as e:  # lone surrogates
            raise CatalogueError(f"catalogue is not valid text: {e}") from None
    if not isinstance(data, bytes | bytearray):
        raise CatalogueError(f"catalogue must be str or bytes, not {type(data).__name__}")
    if len(data) > MAX_CATALOGUE_BYTES:
        raise CatalogueError(f"catalogue is {len(data)} bytes, limit {MAX_CATALOGUE_BYTES}")
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise CatalogueError(f"catalogue is not valid JSON: {e}") from None
    except RecursionError:  # deeply nested arrays/objects: 1 MiB of "[" is enough
        raise CatalogueError("catalogue is not valid JSON: nested too deeply") from None
    if not isinstance(obj, dict):
        raise CatalogueError("catalogue must be a JSON object")
    if obj.get("format") != FORMAT:
        raise CatalogueError(f"catalogue field 'format' must be {FORMAT!r}")
    raw = obj.get("cards")
    if not isinstance(raw, list) or not raw:
        raise CatalogueError("catalogue field 'cards' must be a non-empty list")
    if len(raw) > MAX_CARDS:
        raise CatalogueError(f"catalogue has {len(raw)} cards, limit {MAX_CARDS}")
    extra = set(obj) - {"format", "cards", "comment"}
    if extra:
        raise CatalogueError(f"catalogue has unknown field(s) {sorted(extra)}")
    cards: list[Card] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        card = _parse_card(i, item)
        if card.id in seen:
            raise CatalogueError(f"card #{i} {card.id!r}: field 'id': duplicate id")
        seen.add(card.id)
        cards.append(card)
    return Catalogue(tuple(cards))


#: every shipped catalogue version, oldest first: version k is VERSIONS[k - 1]. A shipped file
#: is never edited (its digest is in transcripts); a new card pool is a new file (SPEC Part 2,
#: "Versions").
VERSIONS = ("cards.json", "cards-v2.json")
LATEST = len(VERSIONS)


@cache
def catalogue_version(version: int) -> Catalogue:
    """Shipped catalogue `version` (1 = engine/versus42/data/cards.json, 2 = cards-v2.json, ...)."""
    if type(version) is not int or not 1 <= version <= LATEST:
        raise CatalogueError(f"catalogue version must be 1..{LATEST}, got {version!r}")
    # a plain file beside this module (the wheel installs it unzipped): importlib.resources
    # would cost the start of every `versus` command ~10 ms of imports (bench/startup.py)
    path = os.path.join(os.path.dirname(__file__), "data", VERSIONS[version - 1])
    with open(path, "rb") as file:
        return load_catalogue(file.read())


def default_catalogue() -> Catalogue:
    """The catalogue new matches use: the latest shipped version."""
    return catalogue_version(LATEST)


def shipped_catalogues() -> tuple[Catalogue, ...]:
    """Every shipped version, oldest first (loads them all: for verifiers, not start-up)."""
    return tuple(catalogue_version(v) for v in range(1, LATEST + 1))


def find_catalogue(digest: bytes) -> Catalogue | None:
    """The shipped catalogue whose digest is `digest` (what a HELLO binds), or None."""
    latest = default_catalogue()
    if latest.digest == digest:  # the common case loads nothing more
        return latest
    return next((c for c in shipped_catalogues() if c.digest == digest), None)


def _parse_card(i: int, item: Any) -> Card:
    where = f"card #{i}"
    if not isinstance(item, dict):
        raise CatalogueError(f"{where}: must be an object")
    cid = item.get("id")
    if isinstance(cid, str):
        where = f"card #{i} {cid!r}"

    def fail(fld: str, msg: str) -> CatalogueError:
        return CatalogueError(f"{where}: field {fld!r}: {msg}")

    extra = set(item) - {"id", "name", "energy", "strength", "active", "passive"}
    if extra:
        raise fail(sorted(extra)[0], "unknown field")
    if not isinstance(cid, str) or not _ID_RE.fullmatch(cid):
        raise fail("id", "must be 1-40 chars of a-z, 0-9, '-'")
    name = item.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 40 or not name.isprintable():
        raise fail("name", "must be a printable string of 1-40 chars")
    energy = item.get("energy")
    if energy not in ENERGIES:
        raise fail("energy", f"must be one of {ENERGIES}, got {energy!r}")
    strength = item.get("strength")
    if type(strength) is not int or not 1 <= strength <= 5:
        raise fail("strength", f"must be an integer 1..5, got {strength!r}")
    active = _parse_active(item.get("active"), fail)
    passive = _parse_passive(item.get("passive"), fail)
    return Card(i, cid, name, ENERGIES.index(energy), strength, active, passive)


def _check_params(obj: dict[str, Any], allowed: dict[str, Any], required: tuple[str, ...],
                  prefix: str, fail: Any, skip: tuple[str, ...]) -> dict[str, Any]:
    """`skip`: keys checked by the caller (an Active has only 'op'; a Passive also has
    'trigger', 'colour', 'side'); any other key must be a parameter of the effect."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key in skip:
            continue
        if key not in allowed:
            raise fail(f"{prefix}.{key}", "not a parameter of this effect")
        choices = allowed[key]
        if isinstance(choices, range):
            if type(value) is not int or value not in choices:
                raise fail(f"{prefix}.{key}",
                           f"must be an integer {choices.start}..{choices.stop - 1}")
        elif value not in choices:
            raise fail(f"{prefix}.{key}", f"must be one of {choices}, got {value!r}")
        out[key] = value
    for key in required:
        if key not in out:
            raise fail(f"{prefix}.{key}", "missing")
    return out


def _parse_active(obj: Any, fail: Any) -> Active:
    if not isinstance(obj, dict):
        raise fail("active", "must be an object")
    op = obj.get("op")
    if op not in ACTIVE_OPS:
        raise fail("active.op", f"must be one of {ACTIVE_OPS}, got {op!r}")
    params = _check_params(obj, _ACTIVE_PARAMS[op], _ACTIVE_REQUIRED[op], "active", fail,
                           ("op",))
    if op == "teleport" and "range" in params:
        raise fail("active.range", "not a parameter of this effect")
    return Active(op, params.get("target", ""), params.get("range", "any"),
                  params.get("amount", 0), params.get("max_strength", 0))


def _parse_passive(obj: Any, fail: Any) -> Passive:
    if not isinstance(obj, dict):
        raise fail("passive", "must be an object")
    trigger = obj.get("trigger")
    if trigger not in TRIGGERS + CONTINUOUS:
        raise fail("passive.trigger", f"must be one of {TRIGGERS + CONTINUOUS}, got {trigger!r}")
    op = obj.get("op")
    if op not in PASSIVE_OPS:
        raise fail("passive.op", f"must be one of {PASSIVE_OPS}, got {op!r}")
    colour = side = ""
    if trigger in CONTINUOUS:
        if op != "increase":
            raise fail("passive.op", f"a {trigger} passive must be 'increase'")
        if trigger == "while_colour":
            colour = obj.get("colour")
            if colour not in COLOURS:
                raise fail("passive.colour", f"must be one of {COLOURS}, got {colour!r}")
        elif "colour" in obj:
            raise fail("passive.colour", "only for while_colour")
        if trigger == "while_adjacent":
            side = obj.get("side")
            if side not in ("ally", "enemy"):
                raise fail("passive.side", f"must be 'ally' or 'enemy', got {side!r}")
        elif "side" in obj:
            raise fail("passive.side", "only for while_adjacent")
    else:
        for key in ("colour", "side"):
            if key in obj:
                raise fail(f"passive.{key}", f"only for continuous passives, not {trigger}")
    params = _check_params(obj, _PASSIVE_OP_PARAMS[op], _PASSIVE_REQUIRED[op], "passive", fail,
                           ("op", "trigger", "colour", "side"))
    target = params.get("target", "")
    if target == "battle_opponent" and trigger not in ("battle_location", "battle_revelation"):
        raise fail("passive.target", "battle_opponent needs a battle_location or "
                   "battle_revelation trigger")
    if trigger == "destroyed" and op in ("increase", "flip"):
        raise fail("passive.op", "a destroyed card cannot increase or flip")
    return Passive(trigger, op, params.get("amount", 0), target,
                   params.get("max_strength", 0), colour, side)


# --- rules text -------------------------------------------------------------------------------
# A card's text states every rule a player needs to know what the card does, so
# nobody needs SPEC to read a card: a Strength limit hits recto cards only (§1.9.4), which card a
# Passive Flip turns (the first by area order, §1.9.4), that a Flip Active ignores Gray (Part 2),
# that a Copy cannot copy a Copy (§1.9.5), that "when destroyed" needs a recto card (Part 2), and
# "this card" wherever "it" could be read as another card. Texts stay short: the match UI shows
# a hand's texts only if they fit (tests/cli/test_ui.py).

#: the area order "first" refers to (engine/versus42/geometry.py: index = (row - 1) * cols + column)
AREA_ORDER = "order a1, b1 ... e1, a2 ... e4"


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def _limit(n: int) -> str:
    return f" with Strength {n} or less" if n else ""


def active_text(a: Active) -> str:
    if a.op == "teleport":
        who = {"self": "this card", "ally": "1 ally", "enemy": "1 enemy",
               "any": "1 other card"}[a.target]
        return f"Teleport {who} to any other area."
    if a.op == "swap":
        who = {"ally": "an ally", "enemy": "an enemy", "any": "another card"}[a.target]
        where = " adjacent to this card" if a.range == "adjacent" else ""
        return f"Swap the areas of this card and {who}{where}."
    if a.op == "destroy":
        # §1.9.4: a verso card's Strength is unknown, so a Strength limit needs a recto card
        who = ("1 recto " if a.max_strength else "1 ") + ("enemy" if a.target == "enemy"
                                                          else "other card")
        where = " adjacent to this card" if a.range == "adjacent" else ""
        return f"Destroy {who}{where}{_limit(a.max_strength)}."
    if a.op == "discard":
        return f"Your opponent discards {_cards(a.amount)}."
    if a.op == "draw":
        return f"Draw {_cards(a.amount)}."
    if a.op == "copy":
        return "Copy the Active of another recto card on the field, except a Copy."
    if a.op == "increase":
        who = "this card" if a.target == "self" else "1 ally"
        return f"Increase {who} by {a.amount} until the end of the turn."
    where = " adjacent to this card" if a.range == "adjacent" else ""
    return f"Turn 1 verso card{where} to recto, even on Gray."


def passive_text(p: Passive) -> str:
    if p.trigger == "while_colour":
        return f"+{p.amount} Strength while in a {p.colour.capitalize()} area."
    if p.trigger == "while_adjacent":
        return f"+{p.amount} Strength while adjacent to an {p.side}."
    if p.trigger == "per_absorbed":
        return f"+{p.amount} Strength for each card this card absorbed."
    when = {
        "summoned": "When summoned recto",
        "revealed": "When turned from verso to recto",
        "battle_location": "When located in a battle",
        "battle_revelation": "After the revelation of its battle",
        "battle_adjacent": "When a battle takes place in an area adjacent to this card",
        "destroyed": "When destroyed while recto",
    }[p.trigger]
    if p.op == "draw":
        what = f"draw {_cards(p.amount)}"
    elif p.op == "discard":
        what = f"your opponent discards {_cards(p.amount)}"
    elif p.op == "destroy":
        if p.target == "battle_opponent":
            what = (f"destroy the enemy it battles if recto{_limit(p.max_strength)}"
                    if p.max_strength else "destroy the enemy it battles")
        else:
            what = (f"destroy the weakest recto enemy adjacent to this card"
                    f"{_limit(p.max_strength)} (ties: {AREA_ORDER})")
    elif p.op == "increase":
        what = f"+{p.amount} Strength until the end of the turn"
    else:
        what = f"turn the first verso enemy adjacent to this card ({AREA_ORDER}) to recto"
    return f"{when}, {what}."
