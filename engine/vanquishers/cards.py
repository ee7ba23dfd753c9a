# Vanquishers card data (SPEC Part 10, "§10.2.2 Catalogue"): an original catalogue of heroes, item
# weapons, hero items, armor, ammunition, ability cards, energy classes and weapon mods in
# data/cards.json, its validating loader, its digest, the rules text generated from each card,
# and the deck validator of §10.2.3 (30-70 cards, at most 4 of a name, ammunition exempt, 1 of a
# unique card, hero restrictions).
#
# How: the file is untrusted text until `load_catalogue` has checked every field; a bad field
# raises CatalogueError naming the card and the field (`card #3 'rail-pistol': field 'target':
# ...`). Each card type has its required and optional fields (TYPE_FIELDS); an unknown field is
# refused, so a typo never silently becomes a default. A card's index is its position in the
# file: the public identity a state records. Why data and not code: the rules text, the digest
# both peers bind into every state hash and the engine all read the same definitions.
from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from importlib import resources
from typing import Any

from ..errors import CatalogueError, EngineError

CATALOGUE_FORMAT = "vanquishers-cards/1"
MAX_CATALOGUE_BYTES = 1 << 20
MAX_CARDS = 1000
_ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
MIN_DECK, MAX_DECK = 30, 70
MAX_COPIES = 4


class DeckError(EngineError):
    """A deck breaks a deck-building rule (§10.2.3); the message names the card and the rule."""


class CardType(Enum):
    HERO = "hero"
    WEAPON = "weapon"
    HERO_ITEM = "hero-item"
    ARMOR = "armor"
    AMMO = "ammo"
    ABILITY = "ability"
    ENERGY_CLASS = "energy-class"
    MOD = "mod"


class WeaponClass(Enum):
    RANGE = "range"
    MELEE = "melee"
    HAND_TO_HAND = "hand-to-hand"
    CRITICAL_ART = "critical-art"


class AmmoKind(Enum):
    KINETIC = "kinetic"  # range weapons
    CARTRIDGE = "cartridge"  # melee, hand-to-hand and critical art weapons


class Subtype(Enum):
    ATTACK = "attack"
    RIFT = "rift"
    SUPPORT = "support"
    TRAP = "trap"
    VITALITY = "vitality"
    GRENADE = "grenade"


class EnergyType(Enum):
    TECH = "tech"
    SOLAR = "solar"
    ARC = "arc"
    GLACIER = "glacier"
    DARK = "dark"


#: the condition each energy type inflicts (Advanced Mode, §10.1.8)
CONDITION_OF = {EnergyType.TECH: "glitch", EnergyType.SOLAR: "burn", EnergyType.ARC: "shock",
                EnergyType.GLACIER: "frozen", EnergyType.DARK: "curse"}


class Effect(Enum):
    """What an ability card, a rift's use, a trap or a weapon's red-die ability does."""

    DAMAGE = "damage"  # kinetic/shield/energy damage fields to the enemy hero (direct)
    HEAL = "heal"  # +amount Life, not above the maximum
    RESTORE = "restore"  # +amount Shield, not above the maximum
    DRAW = "draw"  # draw amount cards
    GUARD = "guard"  # +amount Defense for `turns` of the owner's turns (support)
    FOCUS = "focus"  # +amount target value for `turns` of the owner's turns (support)
    BOOST = "boost"  # vitality: permanent life/shield/defense/target fields
    EVADE = "evade"  # trap: +amount Defense against the triggering attack
    COUNTER = "counter"  # trap: amount kinetic damage to the attacking hero
    JAM = "jam"  # trap: the triggering attack is cancelled
    KINETIC = "kinetic"  # weapon ability: +amount kinetic damage
    SHIELD = "shield"  # weapon ability: +amount shield damage
    CONDITION = "condition"  # weapon ability (Advanced): inflict the weapon's energy condition


class HeroAbility(Enum):
    """A hero's V-Trigger ability (§10.1.4)."""

    STRIKE = "strike"  # every weapon / hero item hit deals +amount kinetic damage
    REGEN = "regen"  # +amount Shield at the start of each own turn, free
    PIERCE = "pierce"  # ignore amount points of the enemy's damage resistance
    DRAIN = "drain"  # +amount Life on each hit


class ModType(Enum):
    BARREL = "barrel"
    UNDER_BARREL = "under-barrel"
    SCOPE = "scope"
    BLADE = "blade"
    GRIP = "grip"
    CRITICAL_ART = "critical-art"
    HAND_TO_HAND = "hand-to-hand"
    ENERGY = "energy"


#: the weapon classes a mod type attaches to (energy mods: any weapon)
MOD_FITS = {
    ModType.BARREL: (WeaponClass.RANGE,), ModType.UNDER_BARREL: (WeaponClass.RANGE,),
    ModType.SCOPE: (WeaponClass.RANGE,), ModType.BLADE: (WeaponClass.MELEE,),
    ModType.GRIP: (WeaponClass.MELEE,), ModType.CRITICAL_ART: (WeaponClass.CRITICAL_ART,),
    ModType.HAND_TO_HAND: (WeaponClass.HAND_TO_HAND,), ModType.ENERGY: tuple(WeaponClass),
}


def plain_members(enum: type[Enum]) -> type:
    """A plain class whose attributes are `enum`'s members, for the rules' hot paths: on Python
    3.11 reading an Enum class's attribute goes through EnumType's `__getattr__` hook (a Python
    call, about five plain attribute reads), and a step of the engine reads dozens. An int
    enum's members are given as the plain ints they equal (the interpreter's fast paths for a
    list index and an int comparison take exact ints only)."""
    return type(f"_{enum.__name__}", (), {name: int(m) if isinstance(m, int) else m
                                          for name, m in enum.__members__.items()})


_CardType, _WeaponClass, _AmmoKind = (plain_members(CardType), plain_members(WeaponClass),
                                      plain_members(AmmoKind))


def ammo_for(weapon_class: WeaponClass) -> AmmoKind:
    return _AmmoKind.KINETIC if weapon_class is _WeaponClass.RANGE else _AmmoKind.CARTRIDGE


@dataclass(frozen=True, slots=True)
class Card:
    """One card. Fields a type does not use keep their defaults (0, "", None, ())."""

    id: str
    name: str
    type: CardType
    cost: int = 0
    unique: bool = False
    heroes: tuple[str, ...] = ()  # only these heroes may use it (empty: any hero)
    # hero
    life: int = 0
    shield: int = 0
    defense: int = 0
    recovery: int = 0
    vt_cost: int = 0
    vt_life: int = 0
    vt_shield: int = 0
    vt_defense: int = 0
    vt_target: int = 0
    vt_ability: HeroAbility | None = None
    vt_amount: int = 0
    weapon_classes: tuple[WeaponClass, ...] = ()
    ability_types: tuple[Subtype, ...] = ()
    energy_classes: tuple[EnergyType, ...] = ()
    # weapon, hero item, mod, attack, grenade
    weapon_class: WeaponClass | None = None
    target: int = 0
    kinetic: int = 0
    shield_damage: int = 0
    energy: int = 0
    aoe: int = 0
    energy_type: EnergyType | None = None
    ammo: int = 0
    dual_wield: bool = False
    counter: int = 0
    red: int = 0  # the red die must show at least this for the ability (0: none)
    ability: Effect | None = None
    ability_amount: int = 0
    vt_kinetic: int = 0
    # armor (shield, defense above), resistance, durability
    resistance: int = 0
    durability: int = 0
    # ammo
    ammo_kind: AmmoKind | None = None
    # ability cards
    subtype: Subtype | None = None
    effect: Effect | None = None
    amount: int = 0
    turns: int = 0
    use_cost: int = 0
    # energy class
    weakness: EnergyType | None = None
    resists: EnergyType | None = None
    # mod
    mod_type: ModType | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID_RE.fullmatch(self.id):
            raise ValueError(f"card id {self.id!r} must match {_ID_RE.pattern}")
        if not isinstance(self.type, CardType):
            raise ValueError(f"card {self.id}: type must be a CardType")
        for name in ("cost", "life", "shield", "defense", "recovery", "vt_cost", "target",
                     "kinetic", "shield_damage", "energy", "aoe", "ammo", "amount", "turns",
                     "durability", "resistance", "use_cost", "red"):
            value = getattr(self, name)
            if type(value) is not int or not 0 <= value <= 99:
                raise ValueError(f"card {self.id}: {name} must be an int 0..99, got {value!r}")

    @property
    def is_weapon_like(self) -> bool:
        return self.type is _CardType.WEAPON or self.type is _CardType.HERO_ITEM

    def to_json(self) -> dict[str, Any]:
        """The card in the catalogue file's form (data/cards.json): id, name, type, then the
        fields its type has, each left out at its default unless the type requires it
        (`load_catalogue` reads it back to an equal card). The external bot protocol's hello
        lists the cards so."""
        allowed, required = TYPE_FIELDS[self.type]
        out: dict[str, Any] = {"id": self.id, "name": self.name, "type": self.type.value}
        for name in (*_COMMON, *allowed):
            value = getattr(self, name)
            if name not in out and (name in required or value != _card_defaults()[name]):
                out[name] = _plain(value)
        return out

    @property
    def text(self) -> str:
        """The rules text, generated from the definition (`rules_text`)."""
        return rules_text(self)


# --- the loader -------------------------------------------------------------------------------

_COMMON = {"id": "str", "name": "str", "type": "str", "cost": "int", "unique": "bool",
           "heroes": "ids"}
_INT_BOOST = {"life": "int", "shield": "int", "defense": "int", "target": "int"}
_DAMAGE = {"kinetic": "int", "shield_damage": "int", "energy": "int", "aoe": "int",
           "energy_type": EnergyType}
#: per type: field -> kind ("int", "str", "bool", "ids", an Enum, ("list", Enum)); required set
TYPE_FIELDS: dict[CardType, tuple[dict[str, Any], set[str]]] = {
    CardType.HERO: ({"life": "int", "shield": "int", "defense": "int", "recovery": "int",
                     "vt_cost": "int", "vt_life": "int", "vt_shield": "int",
                     "vt_defense": "int", "vt_target": "int", "vt_ability": HeroAbility,
                     "vt_amount": "int", "weapon_classes": ("list", WeaponClass),
                     "ability_types": ("list", Subtype),
                     "energy_classes": ("list", EnergyType)},
                    {"life", "shield", "defense", "recovery", "vt_cost", "vt_ability",
                     "weapon_classes", "ability_types", "energy_classes"}),
    CardType.WEAPON: ({"weapon_class": WeaponClass, "target": "int", **_DAMAGE, "ammo": "int",
                       "dual_wield": "bool", "counter": "int", "red": "int", "ability": Effect,
                       "ability_amount": "int", "vt_kinetic": "int"},
                      {"weapon_class", "target", "ammo"}),
    CardType.HERO_ITEM: ({"target": "int", **_DAMAGE, "red": "int", "ability": Effect,
                          "ability_amount": "int", "vt_kinetic": "int"}, {"target"}),
    CardType.ARMOR: ({"shield": "int", "defense": "int", "resistance": "int",
                      "durability": "int"}, {"durability"}),
    CardType.AMMO: ({"ammo_kind": AmmoKind}, {"ammo_kind"}),
    CardType.ABILITY: ({"subtype": Subtype, "effect": Effect, "amount": "int", "turns": "int",
                        "use_cost": "int", **_DAMAGE, **_INT_BOOST},
                       {"subtype", "effect"}),
    CardType.ENERGY_CLASS: ({"energy_type": EnergyType, "shield": "int",
                             "weakness": EnergyType, "resists": EnergyType},
                            {"energy_type", "weakness", "resists"}),
    CardType.MOD: ({"mod_type": ModType, "target": "int", "kinetic": "int",
                    "shield_damage": "int", "energy": "int", "defense": "int"},
                   {"mod_type"}),
}
#: the effects each ability subtype may have
SUBTYPE_EFFECTS = {
    Subtype.ATTACK: {Effect.DAMAGE},
    Subtype.GRENADE: {Effect.DAMAGE},
    Subtype.RIFT: {Effect.DAMAGE, Effect.RESTORE, Effect.HEAL, Effect.DRAW},
    Subtype.SUPPORT: {Effect.HEAL, Effect.RESTORE, Effect.DRAW, Effect.GUARD, Effect.FOCUS},
    Subtype.TRAP: {Effect.EVADE, Effect.COUNTER, Effect.JAM},
    Subtype.VITALITY: {Effect.BOOST},
}
WEAPON_ABILITIES = {Effect.KINETIC, Effect.SHIELD, Effect.CONDITION}


@functools.cache
def _card_defaults() -> dict[str, Any]:
    """Each card field's default (computed on first use: loading the game stays cheap)."""
    from dataclasses import fields

    return {f.name: f.default for f in fields(Card)}


def _plain(value: Any) -> Any:
    """A card field's value as JSON: an enum as its value, a tuple as a list."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Catalogue:
    """The validated card data: cards in file order (index = public identity)."""

    cards: tuple[Card, ...]
    digest: bytes
    # lookups the engine makes at every step, built once (no part of equality or the digest)
    _index: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)
    _trap_costs: tuple[int, ...] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not self.cards or not all(isinstance(c, Card) for c in self.cards):
            raise ValueError("a catalogue holds one or more Card values")
        if len({c.id for c in self.cards}) != len(self.cards):
            raise ValueError("catalogue card ids must be distinct")
        object.__setattr__(self, "_index", {c.id: i for i, c in enumerate(self.cards)})
        object.__setattr__(self, "_trap_costs", tuple(sorted(
            {c.cost for c in self.cards if c.subtype is Subtype.TRAP})))

    def index(self, card_id: str) -> int:
        return self._index[card_id]

    def get(self, card_id: str) -> Card | None:
        i = self._index.get(card_id) if type(card_id) is str else None
        return None if i is None else self.cards[i]

    @property
    def heroes(self) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if c.type is CardType.HERO)

    @property
    def deck_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.cards if c.type is not CardType.HERO)

    @property
    def trap_costs(self) -> tuple[int, ...]:
        return self._trap_costs


def _tagged(purpose: str, data: bytes) -> bytes:
    return hashlib.sha256(b"versus/v1/vanquishers/" + purpose.encode() + b"\x00"
                          + len(data).to_bytes(4, "big") + data).digest()


def canonical_json(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _field(where: str, name: str, kind: Any, value: Any) -> Any:
    def bad(why: str) -> CatalogueError:
        return CatalogueError(f"{where}: field {name!r}: {why}, got {value!r:.60}")

    if kind == "int":
        if type(value) is not int or not 0 <= value <= 99:
            raise bad("must be an integer 0..99")
        return value
    if kind == "bool":
        if type(value) is not bool:
            raise bad("must be true or false")
        return value
    if kind == "str":
        if not isinstance(value, str) or not 1 <= len(value) <= 60:
            raise bad("must be a string of 1..60 characters")
        return value
    if kind == "ids":
        if not isinstance(value, list) or not all(isinstance(v, str) and _ID_RE.fullmatch(v)
                                                  for v in value):
            raise bad("must be a list of card ids")
        return tuple(value)
    if isinstance(kind, tuple):
        if not isinstance(value, list) or len(set(map(str, value))) != len(value):
            raise bad("must be a list of distinct values")
        return tuple(_field(where, name, kind[1], v) for v in value)
    try:
        return kind(value)
    except ValueError:
        raise bad(f"must be one of {', '.join(m.value for m in kind)}") from None


def load_catalogue(data: str | bytes) -> Catalogue:
    """The validated catalogue of a JSON text; CatalogueError names the card and field."""
    if isinstance(data, bytes):
        if len(data) > MAX_CATALOGUE_BYTES:
            raise CatalogueError(f"catalogue is {len(data)} bytes, over {MAX_CATALOGUE_BYTES}")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CatalogueError(f"catalogue is not UTF-8: {e}") from None
    if len(data) > MAX_CATALOGUE_BYTES:
        raise CatalogueError(f"catalogue is over {MAX_CATALOGUE_BYTES} characters")
    try:
        obj = json.loads(data)
    except ValueError as e:
        raise CatalogueError(f"catalogue is not JSON: {e}") from None
    if not isinstance(obj, dict) or obj.get("format") != CATALOGUE_FORMAT:
        raise CatalogueError(f"field 'format': must be {CATALOGUE_FORMAT!r}")
    if set(obj) != {"format", "cards"}:
        raise CatalogueError(f"catalogue fields must be format, cards; got {sorted(obj)}")
    raw_cards = obj["cards"]
    if not isinstance(raw_cards, list) or not 1 <= len(raw_cards) <= MAX_CARDS:
        raise CatalogueError(f"field 'cards': must be a list of 1..{MAX_CARDS} cards")
    cards: list[Card] = []
    for i, raw in enumerate(raw_cards):
        cards.append(_load_card(i, raw))
    ids = [c.id for c in cards]
    dup = [c for c, n in Counter(ids).items() if n > 1]
    if dup:
        raise CatalogueError(f"card id {dup[0]!r}: appears more than once")
    heroes = {c.id for c in cards if c.type is CardType.HERO}
    if not heroes:
        raise CatalogueError("field 'cards': no hero card")
    for i, c in enumerate(cards):
        for h in c.heroes:
            if h not in heroes:
                raise CatalogueError(f"card #{i} {c.id!r}: field 'heroes': {h!r} is not a hero")
    return Catalogue(tuple(cards), _tagged("catalogue", canonical_json(obj)))


def _load_card(i: int, raw: Any) -> Card:
    where = f"card #{i}"
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: must be an object")
    cid = raw.get("id")
    if not isinstance(cid, str) or not _ID_RE.fullmatch(cid):
        raise CatalogueError(f"{where}: field 'id': must match {_ID_RE.pattern}, got {cid!r:.40}")
    where = f"card #{i} {cid!r}"
    for name in ("name", "type"):
        if name not in raw:
            raise CatalogueError(f"{where}: field {name!r}: missing")
    ctype = _field(where, "type", CardType, raw["type"])
    allowed, required = TYPE_FIELDS[ctype]
    kinds = {**_COMMON, **allowed}
    for name in raw:
        if name not in kinds:
            raise CatalogueError(f"{where}: field {name!r}: not a field of a {ctype.value} card")
    for name in required:
        if name not in raw:
            raise CatalogueError(f"{where}: field {name!r}: missing (a {ctype.value} needs it)")
    values = {name: _field(where, name, kinds[name], raw[name]) for name in raw}
    values["type"] = ctype
    card = Card(**values)
    _check_card(where, card)
    return card


def _check_card(where: str, c: Card) -> None:
    def bad(name: str, why: str) -> CatalogueError:
        return CatalogueError(f"{where}: field {name!r}: {why}")

    if c.type is CardType.HERO:
        if c.life < 1:
            raise bad("life", "a hero has at least 1 Life")
        if not c.weapon_classes:
            raise bad("weapon_classes", "a hero uses at least one weapon class")
        if not c.energy_classes:
            raise bad("energy_classes", "a hero has at least one energy class")
        if c.cost or c.unique or c.heroes:
            raise bad("cost", "a hero has no cost, uniqueness or hero restriction")
    if c.type is CardType.WEAPON and c.ammo < 1:
        raise bad("ammo", "a weapon needs at least 1 ammunition")
    if c.is_weapon_like:
        if c.ability is not None and c.ability not in WEAPON_ABILITIES:
            raise bad("ability", f"a weapon ability is one of "
                      f"{', '.join(sorted(e.value for e in WEAPON_ABILITIES))}")
        if (c.ability is None) != (c.red == 0):
            raise bad("red", "a weapon ability and its red-die threshold go together")
        if c.red > 6:
            raise bad("red", "the red die shows 1..6")
        if c.ability is Effect.CONDITION and c.energy_type is None:
            raise bad("ability", "a condition ability needs the weapon's energy_type")
        if c.kinetic + c.shield_damage + c.energy == 0:
            raise bad("kinetic", "a weapon deals some damage")
    if c.type is CardType.ARMOR and c.durability < 1:
        raise bad("durability", "an armor has at least 1 Durability")
    if c.type is CardType.ABILITY:
        assert c.subtype is not None and c.effect is not None
        if c.effect not in SUBTYPE_EFFECTS[c.subtype]:
            raise bad("effect", f"a {c.subtype.value} card's effect is one of "
                      f"{', '.join(sorted(e.value for e in SUBTYPE_EFFECTS[c.subtype]))}")
        if c.effect is Effect.DAMAGE and c.kinetic + c.shield_damage + c.energy == 0:
            raise bad("kinetic", "a damage card deals some damage")
        if c.effect in (Effect.GUARD, Effect.FOCUS) and c.turns < 1:
            raise bad("turns", "a lasting support lasts at least 1 turn")
        if c.effect in (Effect.HEAL, Effect.RESTORE, Effect.DRAW, Effect.GUARD, Effect.FOCUS,
                        Effect.EVADE, Effect.COUNTER) and c.amount < 1:
            raise bad("amount", f"a {c.effect.value} effect has an amount of at least 1")
        if c.subtype is Subtype.RIFT and c.use_cost < 1:
            raise bad("use_cost", "a rift's use costs at least 1 Storage Energy")
        if c.subtype is Subtype.VITALITY and c.life + c.shield + c.defense + c.target == 0:
            raise bad("life", "a vitality card raises some stat")
    if c.type is CardType.ENERGY_CLASS and c.weakness == c.resists:
        raise bad("resists", "weakness and resistance differ")


_DEFAULT: Catalogue | None = None


def default_catalogue() -> Catalogue:
    global _DEFAULT
    if _DEFAULT is None:
        text = resources.files(__package__).joinpath("data/cards.json").read_text("utf-8")
        _DEFAULT = load_catalogue(text)
    return _DEFAULT


# --- rules text -------------------------------------------------------------------------------


def _damage_text(c: Card) -> str:
    parts = [f"{n} {what}" for n, what in ((c.kinetic, "kinetic"), (c.shield_damage, "shield"),
                                            (c.energy, f"{c.energy_type.value} energy"
                                             if c.energy_type else "energy"), (c.aoe, "AOE"))
             if n]
    return ", ".join(parts) + " damage"


def rules_text(c: Card) -> str:
    """The card's rules text, generated from its fields."""
    head = [] if c.type is CardType.HERO else [f"Cost {c.cost}."]
    if c.unique:
        head.append("Unique.")
    if c.heroes:
        head.append(f"Only for {', '.join(c.heroes)}.")
    t = c.type
    if t is CardType.HERO:
        body = (f"Life {c.life}, Shield {c.shield}, Defense {c.defense}. Recover {c.recovery} "
                f"Shield for 1 Storage Energy. V-Trigger ({c.vt_cost} energy, permanent): "
                f"+{c.vt_life} Life, +{c.vt_shield} Shield, +{c.vt_defense} Defense, "
                f"+{c.vt_target} target; {c.vt_ability.value if c.vt_ability else ''} "
                f"{c.vt_amount}. Weapons: {', '.join(w.value for w in c.weapon_classes)}; "
                f"abilities: {', '.join(s.value for s in c.ability_types)}; energy classes: "
                f"{', '.join(e.value for e in c.energy_classes)}.")
    elif c.is_weapon_like:
        kind = (f"{c.weapon_class.value} weapon, needs {c.ammo} "
                f"{ammo_for(c.weapon_class).value} ammunition"
                if c.weapon_class else "hero item, no ammunition")
        body = f"{kind}. Target +{c.target}: {_damage_text(c)}."
        if c.dual_wield:
            body += " Dual wield: targets twice per turn."
        if c.counter:
            body += f" Counter attack: {c.counter} kinetic damage when an attack misses you."
        if c.ability:
            body += f" Red die {c.red}+: {c.ability.value} {c.ability_amount}."
        if c.vt_kinetic:
            body += f" V-Trigger: +{c.vt_kinetic} kinetic damage."
    elif t is CardType.ARMOR:
        body = (f"Armor: +{c.shield} Shield, +{c.defense} Defense, resistance {c.resistance}, "
                f"durability {c.durability}.")
    elif t is CardType.AMMO:
        body = f"{c.ammo_kind.value if c.ammo_kind else ''} ammunition: attach to a weapon."
    elif t is CardType.ABILITY:
        assert c.subtype and c.effect
        e = c.effect
        what = (_damage_text(c) if e is Effect.DAMAGE else
                f"+{c.life} Life, +{c.shield} Shield, +{c.defense} Defense, +{c.target} target"
                if e is Effect.BOOST else "cancel the attack" if e is Effect.JAM else
                f"{e.value} {c.amount}" + (f" for {c.turns} turns" if c.turns else ""))
        body = f"{c.subtype.value}: {what}."
        if c.subtype is Subtype.RIFT:
            body = f"rift: once per turn, {c.use_cost} energy: {what}."
    elif t is CardType.ENERGY_CLASS:
        body = (f"{c.energy_type.value if c.energy_type else ''} energy class: +{c.shield} "
                f"Shield, weak to {c.weakness.value if c.weakness else ''}, resists "
                f"{c.resists.value if c.resists else ''}.")
    else:
        body = (f"{c.mod_type.value if c.mod_type else ''} mod: +{c.target} target, "
                f"+{c.kinetic} kinetic, +{c.shield_damage} shield, +{c.energy} energy, "
                f"+{c.defense} Defense.")
    return " ".join([*head, body])


# --- deck building (§10.2.3) ----------------------------------------------------------------------


def usable_by(card: Card, hero: Card) -> bool:
    """Whether `hero` may use `card` (§10.2.3.4): its own restriction list, the hero's weapon
    classes (weapons, ammunition for them, mods fitting them), ability types, energy classes."""
    if card.heroes and hero.id not in card.heroes:
        return False
    if card.type is _CardType.WEAPON:
        return card.weapon_class in hero.weapon_classes
    if card.type is _CardType.AMMO:
        return any(ammo_for(w) is card.ammo_kind for w in hero.weapon_classes)
    if card.type is _CardType.MOD:
        assert card.mod_type is not None
        return any(w in hero.weapon_classes for w in MOD_FITS[card.mod_type])
    if card.type is _CardType.ABILITY:
        return card.subtype in hero.ability_types
    if card.type is _CardType.ENERGY_CLASS:
        return card.energy_type in hero.energy_classes
    return card.type is not _CardType.HERO


def more_copies(catalogue: Catalogue) -> tuple[str, ...]:
    """The deck cards beyond one of each (`deck_ids`) a deck may still hold, in catalogue
    order: each card again up to its copy limit (§10.2.3.2; ammunition, which has none, to the
    same 4), a unique card never. What a random deck larger than the catalogue's distinct
    cards draws its further cards from."""
    out: list[str] = []
    for card_id in catalogue.deck_ids:
        card = catalogue.get(card_id)
        assert card is not None
        limit = copy_limit(card)
        out += [card_id] * ((MAX_COPIES if limit is None else limit) - 1)
    return tuple(out)


def copy_limit(card: Card) -> int | None:
    """The most copies of `card` a deck holds (None: no limit, ammunition, §10.2.3.2)."""
    if card.unique:
        return 1
    return None if card.type is _CardType.AMMO else MAX_COPIES


def validate_deck(catalogue: Catalogue, hero_id: str, cards: Sequence[str] | Mapping[str, int],
                  size: int | None = None) -> None:
    """Check a deck for `hero_id` (§10.2.3); DeckError names the first problem. `size`: the size
    the match's rules fix (else any size 30..70)."""
    if isinstance(cards, Mapping):
        counts = Counter({str(k): int(v) for k, v in cards.items()})
    else:
        counts = Counter(str(c) for c in cards)
    hero = catalogue.get(hero_id)
    if hero is None or hero.type is not CardType.HERO:
        raise DeckError(f"hero {hero_id!r} is not a hero of the catalogue")
    total = sum(counts.values())
    if not MIN_DECK <= total <= MAX_DECK:
        raise DeckError(f"a deck holds {MIN_DECK}..{MAX_DECK} cards, this one {total}")
    if size is not None and total != size:
        raise DeckError(f"the rules fix the deck size at {size}, this deck holds {total}")
    for card_id in sorted(counts):
        card = catalogue.get(card_id)
        if card is None:
            raise DeckError(f"card {card_id!r} is not in the catalogue")
        if card.type is CardType.HERO:
            raise DeckError(f"card {card_id!r} is a hero: a hero is not part of the deck")
        limit = copy_limit(card)
        if limit is not None and counts[card_id] > limit:
            why = "a unique card" if card.unique else "a card of the same name"
            raise DeckError(f"card {card_id!r}: {counts[card_id]} copies, at most {limit} of "
                            f"{why}")
        if not usable_by(card, hero):
            raise DeckError(f"card {card_id!r} cannot be used by hero {hero_id!r}")


#: the card types only Advanced Mode activates (§10.1.8: energy classes, weapon mods)
ADVANCED_ONLY = (CardType.ENERGY_CLASS, CardType.MOD)


def starter_deck(catalogue: Catalogue, hero_id: str, size: int = MIN_DECK, *,
                 advanced: bool = True) -> tuple[str, ...]:
    """A legal deck of `size` cards for `hero_id`, deterministic: every usable non-ammunition
    card up to 2 copies (1 if unique) in catalogue order, then ammunition for the hero's weapons
    to fill (ammunition has no copy limit). `advanced=False` (a Standard Mode match): no
    energy class and no mod, which Standard Mode never activates. Raises DeckError if the
    catalogue cannot fill it."""
    hero = catalogue.get(hero_id)
    if hero is None or hero.type is not CardType.HERO:
        raise DeckError(f"hero {hero_id!r} is not a hero of the catalogue")
    usable = [c for c in catalogue.cards if c.type is not CardType.HERO and usable_by(c, hero)
              and (advanced or c.type not in ADVANCED_ONLY)]
    deck: list[str] = []
    for copies in (1, 2):
        for c in usable:
            if c.type is not CardType.AMMO and len(deck) < size - size // 4 and \
                    (copies == 1 or not c.unique):
                deck.append(c.id)
    ammo = [c.id for c in usable if c.type is CardType.AMMO and not c.unique]
    if not ammo and len(deck) < size:
        raise DeckError(f"hero {hero_id!r}: the catalogue cannot fill a {size}-card deck")
    k = 0
    while len(deck) < size:
        deck.append(ammo[k % len(ammo)])
        k += 1
    validate_deck(catalogue, hero_id, deck, size)
    return tuple(deck)
