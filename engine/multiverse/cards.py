# "Against the Multiverse" card data (SPEC Part 11, rules §11.1.2–11.1.4): the Power cards (Super
# and Enhance) and the Battlegrounds, loaded from data/cards.json, validated, with generated texts.
#
# A Power card has a type (super: attacks and defends with its power; enhance: never attacks),
# a power, one ability with an activation type and an effect of a fixed small set, and a
# number of copies (the default Power deck is built from the copies, §11.1.3). Which effect an
# activation may carry is checked here: slow activations (trigger, delayed) carry the
# between-combat effects draw/shield/rally, combat activations (offensive, defense, instant)
# the in-combat effects boost/weaken; an Enhance card is instant, trigger or delayed only.
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources

from ..errors import CatalogueError

FORMAT = "multiverse-cards/1"
TYPES = ("super", "enhance")
SLOW = ("trigger", "delayed")
COMBAT = ("offensive", "defense", "instant")
ACTIVATIONS = SLOW + COMBAT
SLOW_EFFECTS = ("draw", "shield", "rally")
COMBAT_EFFECTS = ("boost", "weaken")
BG_EFFECTS = ("surge", "fortify", "calm")
_ID = re.compile(r"[a-z][a-z0-9-]{0,31}")
MAX_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Power:
    id: str
    name: str
    type: str
    power: int
    activation: str
    effect: str
    amount: int
    copies: int

    @property
    def text(self) -> str:
        return power_text(self)


@dataclass(frozen=True, slots=True)
class Battleground:
    id: str
    name: str
    effect: str
    amount: int

    @property
    def text(self) -> str:
        return battleground_text(self)


@dataclass(frozen=True, slots=True)
class Catalogue:
    powers: tuple[Power, ...]
    battlegrounds: tuple[Battleground, ...]
    canonical: bytes

    def power(self, card_id: str) -> Power:
        for p in self.powers:
            if p.id == card_id:
                return p
        raise KeyError(card_id)

    def battleground(self, card_id: str) -> Battleground:
        for b in self.battlegrounds:
            if b.id == card_id:
                return b
        raise KeyError(card_id)

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(b"versus/v1/multiverse/catalogue\x00" + self.canonical).digest()


_EFFECT_TEXT = {
    "boost": "+{n} power to its side of this combat",
    "weaken": "-{n} power to the opposing side of this combat",
    "draw": "its side draws {n} card(s) (the Multiverse discards them)",
    "shield": "the opposing side's next attack has -{n} power",
    "rally": "its side's next attack has +{n} power",
}
_WHEN = {
    "trigger": "Trigger (slow): when activated or flipped face-up",
    "delayed": "Delayed (slow): at the end of the turn it was activated or flipped",
    "offensive": "Offensive: when it attacks",
    "defense": "Defense: when it defends face-up",
    "instant": "Instant: added from the hand during a combat",
}


def power_text(p: Power) -> str:
    """The card's generated rules text."""
    kind = "Super" if p.type == "super" else "Enhance"
    return (f"{p.name} - {kind}, power {p.power}. {_WHEN[p.activation]}: "
            f"{_EFFECT_TEXT[p.effect].format(n=p.amount)}.")


def battleground_text(b: Battleground) -> str:
    what = {"surge": f"Supers attacking from here get +{b.amount} power",
            "fortify": f"defense cards here get +{b.amount} power",
            "calm": "no effect"}[b.effect]
    return f"{b.name} - Battleground: {what}."


def _need(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise CatalogueError(f"multiverse catalogue: {where}: {what}")


def _int(v: object, lo: int, hi: int) -> bool:
    return type(v) is int and lo <= v <= hi


def load(data: str | bytes) -> Catalogue:
    """Validated card data; CatalogueError names the bad field."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    _need(isinstance(data, bytes) and len(data) <= MAX_BYTES, "file", "too large")
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise CatalogueError(f"multiverse catalogue: not JSON: {e}") from None
    _need(isinstance(obj, dict) and obj.get("format") == FORMAT, "format", f"must be {FORMAT}")
    _need(set(obj) == {"format", "powers", "battlegrounds"}, "top level",
          "keys must be format, powers, battlegrounds")
    powers, bgs, seen = [], [], set()
    _need(isinstance(obj["powers"], list) and len(obj["powers"]) >= 4, "powers",
          "a list of at least 4 cards")
    for i, c in enumerate(obj["powers"]):
        w = f"powers[{i}]"
        _need(isinstance(c, dict) and set(c) == {"id", "name", "type", "power", "activation",
                                                  "effect", "amount", "copies"}, w,
              "keys id name type power activation effect amount copies")
        _need(isinstance(c["id"], str) and bool(_ID.fullmatch(c["id"])), w, "bad id")
        _need(c["id"] not in seen, w, f"duplicate id {c['id']}")
        seen.add(c["id"])
        _need(isinstance(c["name"], str) and 0 < len(c["name"]) <= 40 and c["name"].isprintable(),
              w, "bad name")
        _need(c["type"] in TYPES, w, f"type must be one of {TYPES}")
        _need(_int(c["power"], 0, 20), w, "power must be 0..20")
        _need(c["activation"] in ACTIVATIONS, w, f"activation must be one of {ACTIVATIONS}")
        if c["type"] == "enhance":
            _need(c["activation"] in ("instant", *SLOW), w,
                  "an Enhance card is instant, trigger or delayed")
        else:
            _need(c["power"] >= 1, w, "a Super has power >= 1")
        allowed = SLOW_EFFECTS if c["activation"] in SLOW else COMBAT_EFFECTS
        _need(c["effect"] in allowed, w, f"a {c['activation']} ability's effect is one of "
              f"{allowed}")
        _need(_int(c["amount"], 1, 5), w, "amount must be 1..5")
        _need(_int(c["copies"], 1, 10), w, "copies must be 1..10")
        powers.append(Power(**c))
    _need(any(p.type == "super" for p in powers), "powers", "needs a Super")
    _need(sum(p.copies for p in powers) >= 80, "powers", "copies must total at least 80")
    _need(isinstance(obj["battlegrounds"], list) and len(obj["battlegrounds"]) >= 10,
          "battlegrounds", "a list of at least 10 cards")
    for i, c in enumerate(obj["battlegrounds"]):
        w = f"battlegrounds[{i}]"
        _need(isinstance(c, dict) and set(c) == {"id", "name", "effect", "amount"}, w,
              "keys id name effect amount")
        _need(isinstance(c["id"], str) and bool(_ID.fullmatch(c["id"])), w, "bad id")
        _need(c["id"] not in seen, w, f"duplicate id {c['id']}")
        seen.add(c["id"])
        _need(isinstance(c["name"], str) and 0 < len(c["name"]) <= 40 and c["name"].isprintable(),
              w, "bad name")
        _need(c["effect"] in BG_EFFECTS, w, f"effect must be one of {BG_EFFECTS}")
        _need(_int(c["amount"], 0, 3) and (c["amount"] == 0) == (c["effect"] == "calm"), w,
              "amount 1..3 (0 exactly for calm)")
        bgs.append(Battleground(**c))
    canonical = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
    return Catalogue(tuple(powers), tuple(bgs), canonical)


def default() -> Catalogue:
    return load(resources.files(__package__).joinpath("data/cards.json").read_bytes())
