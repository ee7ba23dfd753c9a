# The Vanquishers scene (engine/scene.py): what one seat, or the public (seat None), sees of a
# game, as the plain data every shell draws; and the game's short rules for a player at the
# table (`rules_text`).
#
# Decided: no board. Nothing in this game has a place on a grid and the input notation names
# cards by handle (`play 12`, `target 4`), never by a coordinate, so the scene is zones only,
# per side (the opponent's first, then the seat's own; for the public player 1's, then player
# 2's): the hero (and its starting energy class), the equipment (weapons with their attached
# ammunition and mods right after them, the hero item, the armor, an energy class card), the
# lasting abilities (rifts, vitality, guard/focus supports), the face-down traps, the hand, the
# deck (a count), the discard pile and the exile pile. A card's `ref` is its handle as the
# notation writes it ("12"); the heroes are "hero0"/"hero1" and a starting energy class
# "class0"/"class1" (they have no handle). No cell, so no shade words.
#
# Why it never leaks: the scene is built from the game's own `View` (text.View: the public
# state and the seat's knowledge); a card gets a face only when the public state names it or
# it is the seat's own and its knowledge holds it. The public scene uses an empty knowledge.
from __future__ import annotations

from typing import Any

from ..api import Finished
from ..scene import Card, Face, Scene, Zone, fit_label, possessive
from .cards import Card as CardData
from .cards import CardType, Effect, Subtype
from .cards import rules_text as card_text
from .engine import (
    CONDITIONS,
    START_HAND,
    D,
    S,
    State,
    Verb,
    _Work,
    activation_problem,
    format_input,
)
from .engine import Zone as Where
from .narration import STEP_NAMES, known_card, result_text, who
from .rules import Rules
from .text import Knowledge, View

_LABEL = 12
_STEP_HELP = {
    1: "recover Shield (1 Storage Energy, for good) or go on with `next`",
    3: "exile a hand card for 1 Storage Energy, `next`, or `end` the turn",
    4: "activate the V-Trigger, `next`, or `end` the turn",
    5: "play a hand card, set a trap, use a rift, `next`, or `end` the turn",
    6: "target the enemy with a weapon or hero item, or `end` the turn",
}


def scene(state: State, seat: int | None, knowledge: Knowledge | None) -> Scene:
    """What `seat` (None: the public) sees now (see the module note)."""
    know = knowledge if seat is not None and knowledge is not None else Knowledge(-1)
    view = View(state, -1 if seat is None else seat, know)
    inputs = tuple(format_input(m) for m in view.legal_actions)
    by_handle: dict[int, list[str]] = {}
    for move, line in zip(view.legal_actions, inputs, strict=True):
        if move.handle >= 0:
            by_handle.setdefault(move.handle, []).append(line)
        elif move.verb in (Verb.RECOVER, Verb.VTRIGGER):
            by_handle.setdefault(-1, []).append(line)
    order = (0, 1) if seat is None else (1 - seat, seat)
    zones: list[Zone] = []
    for q in order:
        zones += _side_zones(view, q, seat, by_handle)
    d = view.decision
    return Scene(
        title=f"Vanquishers · {_moment(state)}", seat=seat, status=_status(state, seat),
        zones=tuple(zones), prompt=_prompt(state, seat) if inputs else "", inputs=inputs,
        notes=_notes(view, seat) if inputs else (),
        result=result_text(state, seat) if isinstance(d, Finished) else None)


def _moment(s: State) -> str:
    mode = "Advanced" if s.rules.advanced else "Standard"
    return f"setup · {mode} Mode" if s.active < 0 else f"turn {s.turn + 1} · {mode} Mode"


# --- status and prompt ------------------------------------------------------------------------


def _status(s: State, seat: int | None) -> tuple[str, ...]:
    w = _Work(s)
    d = s.result != (-1, -1)
    if d:
        head = "Game over"
    elif s.active < 0:
        head = "Setup: each player rolls a die, the highest plays first"
    else:
        head = (f"{possessive(s.active, seat).capitalize()} turn, step {s.phase} of 7 "
                f"({STEP_NAMES[s.phase]})")
    lines = [head]
    for q in ((0, 1) if seat is None else (seat, 1 - seat)):
        side, hero = s.sides[q], s.hero(q)
        vt = "V-Trigger active" if side[S.VT] else f"V-Trigger costs {hero.vt_cost}"
        conditions = [f"{name.capitalize()} {side[f]}" for name, f in CONDITIONS.items()
                      if side[f]]
        name = who(q, seat)
        lines.append(f"{name[0].upper()}{name[1:]} ({hero.name}): Life {side[S.LIFE]}/"
                     f"{w.max_life(q)} · Shield {side[S.SHIELD]}/{w.max_shield(q)} · Defense "
                     f"{w.defense(q)} · Energy left {w.available(q)} of {side[S.STORAGE]} · {vt}"
                     + "".join(f" · {c}" for c in conditions))
    if s.dice and not d:
        names = ("player 1's setup die", "player 2's setup die") if s.phase == 0 else \
            ("black die", "red die")
        lines.append("Dice rolled: " + ", ".join(f"{names[i]} {x}" for i, x in
                                                 enumerate(s.dice)))
    return tuple(lines)


def _prompt(s: State, seat: int | None) -> str:
    if s.dec[0] == D.TURN:
        return f"Your turn, step {s.phase} ({STEP_NAMES[s.phase]}): {_STEP_HELP[s.phase]}."
    if s.dec[2] == 0:  # spring-trap
        weapon = s.public_card(s.attack[0]) if s.attack[0] >= 0 else None
        what = f" with {weapon.name}" if weapon is not None else ""
        return (f"The opponent targets you{what}: spring one of your face-down traps "
                "(`pick` it) or `pass`.")
    new = s.public_card(s.dec[3])
    name = new.name if new is not None else "the new weapon"
    return (f"Both weapon slots are full: `pick` the weapon {name} replaces (one that costs "
            f"no more), or `pass` to keep both ({name} stays in your hand).")


# --- notes: legal inputs that waste a card or do nothing -----------------------------------------


def _notes(view: View, seat: int | None) -> tuple[tuple[str, str], ...]:
    s, know = view.state, view.knowledge
    if seat is None:
        return ()
    w = _Work(s)
    out = []
    for move in view.legal_actions:
        why = _waste(s, w, seat, move, know)
        if why:
            out.append((format_input(move), why))
    return tuple(out)


def _waste(s: State, w: _Work, p: int, move: Any, know: Knowledge) -> str:
    h = move.handle
    if move.verb is Verb.PLAY:
        card = known_card(s, h, know)
        if card is None:
            return ""
        problem = activation_problem(w, p, card)
        if problem is not None:
            return (f"fizzles: {problem}; {card.name} stays in your hand, shown to the "
                    "opponent, and nothing is paid")
        return _no_gain(w, p, card)
    if move.verb is Verb.TRAP:
        card = known_card(s, h, know)
        if card is None:
            return ""
        if card.subtype is not Subtype.TRAP or card.cost != move.value:
            return (f"a decoy: {card.name} is no trap of cost {move.value}; when it springs it "
                    "is discarded without effect")
        if any(w.card[t] == w.cat.index(card.id) for t in w.mine(p, Where.TRAP)):
            return (f"a decoy: a {card.name} is already set face up, so this one will be "
                    "discarded without effect")
        return ""
    if move.verb is Verb.PICK and s.dec[2] == 0:  # springing a set card
        card = known_card(s, h, know)
        if card is None or s.public_card(h) is not None:
            return ""
        if card.subtype is not Subtype.TRAP or card.cost != s.aux[h]:
            return (f"a decoy: {card.name} is no trap of the declared cost {s.aux[h]}; it is "
                    "discarded without effect")
        if any(w.card[t] == w.cat.index(card.id) for t in w.mine(p, Where.TRAP)):
            return (f"a decoy: a {card.name} is set face up, so this one is discarded without "
                    "effect")
        return ""
    if move.verb is Verb.RIFT:
        card = s.public_card(h)
        return _no_gain(w, p, card) if card is not None else ""
    if move.verb is Verb.PASS and s.dec[0] == D.CHOICE and s.dec[2] == 1:
        card = s.public_card(s.dec[3])
        return f"{card.name if card else 'the weapon'} stays in your hand: nothing happens"
    return ""


def _no_gain(w: _Work, p: int, card: CardData) -> str:
    side = w.sides[p]
    if card.subtype in (Subtype.SUPPORT, Subtype.RIFT):
        if card.effect is Effect.HEAL and side[S.LIFE] >= w.max_life(p):
            return f"does nothing now: your Life is full ({side[S.LIFE]})"
        if card.effect is Effect.RESTORE and side[S.SHIELD] >= w.max_shield(p):
            return f"does nothing now: your Shield is full ({side[S.SHIELD]})"
    return ""


# --- zones ------------------------------------------------------------------------------------


def face(card: CardData) -> Face:
    """A card's face: its name, kind, printed numbers and full rules text."""
    t = card.type
    kind = t.value
    if card.subtype is not None:
        kind += f" · {card.subtype.value}"
    elif card.weapon_class is not None:
        kind += f" · {card.weapon_class.value}"
    numbers: list[tuple[str, str]] = [] if t is CardType.HERO else [("cost", str(card.cost))]
    if t is CardType.HERO:
        numbers += [("Life", str(card.life)), ("Shield", str(card.shield)),
                    ("Defense", str(card.defense)), ("V-Trigger", str(card.vt_cost))]
    elif card.is_weapon_like:
        numbers += [("target", f"+{card.target}"),
                    ("damage", str(card.kinetic + card.shield_damage + card.energy))]
        if t is CardType.WEAPON:
            numbers.append(("ammo", str(card.ammo)))
    elif t is CardType.ARMOR:
        numbers += [("Shield", f"+{card.shield}"), ("Defense", f"+{card.defense}"),
                    ("durability", str(card.durability))]
    return Face(card.name, kind, tuple(numbers), card_text(card))


def _card(s: State, h: int, know: Knowledge, seat: int | None, by_handle: dict[int, list[str]],
          status: tuple[str, ...] = ()) -> Card:
    card = s.public_card(h)
    if card is None and seat is not None and s.owner(h) == seat:
        card = known_card(s, h, know)
    inputs = tuple(by_handle.get(h, ()))
    if card is None:
        return Card(str(h), "?", None, s.owner(h), status, inputs)
    return Card(str(h), fit_label(card.name, _LABEL), face(card), s.owner(h), status, inputs)


def _side_zones(view: View, q: int, seat: int | None, by_handle: dict[int, list[str]]
                ) -> list[Zone]:
    s, know = view.state, view.knowledge
    whose = possessive(q, seat)
    title = whose[0].upper() + whose[1:]
    w = _Work(s)

    def card(h: int, *status: str) -> Card:
        return _card(s, h, know, seat, by_handle, status)

    hero = s.hero(q)
    own = tuple(by_handle.get(-1, ())) if q == seat else ()  # recover, vtrigger: the hero's
    heroes = [Card(f"hero{q}", fit_label(hero.name, _LABEL), face(hero), q,
                   ("V-Trigger active",) if s.sides[q][S.VT] else (), own)]
    ec = w.eclass(q)
    board = s.handles(q, Where.BOARD)
    if ec is not None and not any(s.public_card(h) == ec for h in board):
        heroes.append(Card(f"class{q}", fit_label(ec.name, _LABEL), face(ec), q,
                           ("starting class",)))
    gear, abilities = [], []
    for h in board:
        c = s.public_card(h)
        if c is None or s.host[h] >= 0:
            continue
        if c.type is CardType.ABILITY:
            left = f"{s.aux[h]} turn(s) left" if c.subtype is Subtype.SUPPORT else \
                ("used this turn" if c.subtype is Subtype.RIFT and s.aux[h] else "")
            abilities.append(card(h, *((left,) if left else ())))
            continue
        gear.append(card(h, *_gear_status(w, h, c)))
        for x in board:
            if s.host[x] == h:
                gear.append(card(x, f"attached to {c.name} #{h}"))
    traps = [card(h, "face down", f"{s.aux[h]} Storage Energy declared")
             for h in s.handles(q, Where.TRAP)]
    hand = [card(h, *(("face up",) if s.public_card(h) is not None else ()))
            for h in s.handles(q, Where.HAND)]
    deck = len(s.handles(q, Where.DECK))
    discard = [card(h) for h in s.handles(q, Where.DISCARD)]
    exiled = [card(h) for h in s.handles(q, Where.EXILE)]
    zones = [Zone(f"{title} hero", q, tuple(heroes)), Zone(f"{title} equipment", q, tuple(gear))]
    # the groups a side may not have yet are left out while empty (80 columns read better)
    zones += [Zone(f"{title} {name}", q, tuple(cards)) for name, cards in
              (("abilities", abilities), ("traps", traps)) if cards]
    zones += [Zone(f"{title} hand", q, tuple(hand), hand=seat is not None and q == seat),
              Zone(f"{title} deck", q, (), count=deck)]
    zones += [Zone(f"{title} {name}", q, tuple(cards)) for name, cards in
              (("discard pile", discard), ("exile pile", exiled)) if cards]
    return zones


def _gear_status(w: _Work, h: int, c: CardData) -> tuple[str, ...]:
    if c.is_weapon_like:
        out = [f"used {w.aux[h]} of {w.uses(h)} this turn"]
        if c.type is CardType.WEAPON:
            out.append(f"ammo {len(w.attached(h, CardType.AMMO))} of {c.ammo}")
        return tuple(out)
    if c.type is CardType.ARMOR:
        return (f"durability {w.aux[h]}",)
    return ()


# --- the rules for a player at the table ----------------------------------------------------------


def rules_text(rules: Rules) -> str:
    """The game's short rules and input notation (what F1 / `?` shows), at most 78 columns."""
    mode = "Advanced" if rules.advanced else "Standard"
    return f"""\
VANQUISHERS TCG ({mode} Mode, decks of {rules.deck_size}, {rules.max_turns} turns each)
Win: bring the enemy hero's Life to 0 (Shield left does not matter). After
{rules.max_turns} turns each, the higher Life wins (equal Life: a draw).
Setup: each player rolls a die, the highest plays first (ties roll again);
each draws {START_HAND}. Storage Energy starts at 0 and comes from exiling cards.
A turn, steps in order, never back ("no take backs"):
 1 Recover Shield: 1 Storage Energy for good, + the hero's recovery.  recover
 2 Draw 1 (2 with the V-Trigger); hand at most 8; each card you cannot
   draw (hand full, deck empty) costs 1 Life.
 3 Exile a hand card for +1 Storage Energy (2 with the V-Trigger).   exile 12
 4 V-Trigger: pay its cost for good; boosts and an ability for good.  vtrigger
 5 Activate cards, paying their cost from Storage Energy this turn:  play 12
   weapons (2 slots; a full pair: pick the one to replace, cost no
   more), hero item, armor, ammunition (attaches to a weapon), ability
   cards (attack, grenade, rift, support, vitality). A card that cannot
   be activated fizzles: it stays in your hand, face up, nothing paid.
   Set a hand card face down as a trap, paying its cost c:           trap 12 1
   Use a rift once per turn:                                          rift 7
 6 Target the enemy with each weapon (once; twice if dual wield):   target 4
   the enemy may first spring one face-down trap (pick 31 / pass);
   then black + red die + the weapon's target >= the enemy's Defense
   is a hit. Damage: kinetic hits Shield then Life, shield damage the
   Shield only; armor resistance absorbs some; each hit wears armor
   durability by 1 (discarded at 0). The red die at or above a
   weapon's red value fires its ability. On a miss, the enemy's
   counter-attack weapons strike back.
 7 End: the turn ends by itself after the last target, or:           end
Leave a step: next. A choice: pick 4 / pass (keep both weapons, or spring
no trap). Energy spent returns at your next turn; recover and the V-Trigger
lower Storage Energy for good.
{_mode_lines(rules)}Inputs name a card by its number in the scene: play 12, exile 12, trap 12 1,
rift 7, target 4, pick 4, recover, vtrigger, next, end, pass.
"""


def _mode_lines(rules: Rules) -> str:
    if not rules.advanced:
        return ("Standard Mode: energy damage counts as kinetic; energy class and mod\n"
                "cards cannot be activated (exile them for energy).\n")
    return ("Advanced Mode: an energy class (the hero's first, free) gives Shield, a\n"
            "weakness (+2 energy damage) and a resistance (-2). Mods attach to a\n"
            "weapon (2 at most). A weapon's condition ability inflicts Glitch (no\n"
            "exile), Burn (1 damage a turn, up to 4 turns), Shock (no recovery),\n"
            "Frozen (no targeting or counter) or Curse (no Storage Energy).\n")


__all__ = ["face", "rules_text", "scene"]
