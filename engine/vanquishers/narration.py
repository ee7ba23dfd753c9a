# What one applied Vanquishers input did, in words (SPEC Part 10, §10.3), for a seat ("you",
# "the opponent") or for the public (viewer None: "player 1", "player 2"), and the plain result
# of a finished game.
#
# How: the input itself gives the first line (who did what); what the rules then did is read
# from the engine's own record of the step (`engine.explain`: a targeting roll's dice, bonus and
# the defense they met, a fizzle and its reason, a trap that sprang or was a decoy, armor worn
# out, a draw that cost Life, Burn at the start of a turn...), so the narration says why, with
# the values compared, and never re-implements a rule. Then Life and Shield changes, the next
# turn and the end of the game.
#
# Why it never leaks: a card is named only when the state after the step shows it (public) or
# it is the viewer's own and its knowledge holds it; anything else is "a card" or "card #h"
# (handles are public).
from __future__ import annotations

from typing import Any

from ..api import Finished
from ..scene import player_name, possessive
from .cards import Card, CardType, Effect, Subtype
from .engine import CONDITIONS, HAND_LIMIT, D, Move, S, State, T, Verb, _Work, decision, explain

STEP_NAMES = {0: "setup", 1: "recover shield", 2: "draw", 3: "exile", 4: "V-Trigger",
              5: "activate cards", 6: "target the enemy", 7: "end turn"}
#: the third person of the verbs the narration uses whose "s" form is not verb + "s"
_THIRD = {"pass": "passes", "have": "has", "reach": "reaches", "do": "does"}


def who(p: int, viewer: int | None) -> str:
    """"you" / "the opponent" / "player N"."""
    return player_name(p, viewer)


def says(p: int, viewer: int | None, verb: str) -> str:
    """The subject and its verb in agreement: "you exile", "the opponent exiles", "player 2
    exiles" (`verb` in its base form, the first word conjugated)."""
    first, _, rest = verb.partition(" ")
    if p != viewer:
        first = _THIRD.get(first, first + "s")
    return f"{who(p, viewer)} {first}" + (f" {rest}" if rest else "")


def whose(p: int, viewer: int | None) -> str:
    return possessive(p, viewer)


def card_name(s: State, h: int, knowledge: Any | None) -> str | None:
    """The name of card h if it is public in `s` or in `knowledge` (its owner's), else None."""
    card = s.public_card(h)
    if card is None and knowledge is not None and h in knowledge.cards:
        card = s.cat.get(knowledge.cards[h])
    return None if card is None else card.name


def known_card(s: State, h: int, knowledge: Any | None) -> Card | None:
    card = s.public_card(h)
    if card is None and knowledge is not None and h in knowledge.cards:
        card = s.cat.get(knowledge.cards[h])
    return card


def _named(s: State, h: int, knowledge: Any | None, hidden: str = "") -> str:
    return card_name(s, h, knowledge) or hidden or f"card #{h}"


def result_text(s: State, seat: int | None) -> str:
    """A finished game's result and why, plainly ("You win: ...", "Player 2 wins: ...",
    "A draw: ..."); "" while the game goes on."""
    d = decision(s)
    if not isinstance(d, Finished):
        return ""
    life = (s.sides[0][S.LIFE], s.sides[1][S.LIFE])
    if d.outcome == "turn-limit":
        why = f"the turn limit ({s.rules.max_turns} turns each) was reached"
        if d.winner is None:
            return f"A draw: {why} with equal Life ({life[0]} each)."
        return (f"{_winner(d.winner, seat)}: {why} and the higher Life wins "
                f"({life[d.winner]} against {life[1 - d.winner]}).")
    winner = d.winner if d.winner is not None else 0
    loser = 1 - winner
    return (f"{_winner(winner, seat)}: {whose(loser, seat)} Life fell to 0 "
            f"({s.hero(loser).name} is defeated).")


def _winner(w: int, seat: int | None) -> str:
    if seat is None:
        return f"Player {w + 1} wins"
    return "You win" if w == seat else "You lose"


def narrate(before: State, inp: Move, after: State, viewer: int | None,
            knowledge: Any | None) -> list[str]:
    """What `viewer` (None: the public) learns from one step; a hidden card is named only to
    its owner (`knowledge`: the viewer's)."""
    d = decision(before)
    p = before.active if isinstance(d, Finished) or d.player is None else d.player
    mine = knowledge if viewer is not None and p == viewer else None
    events = explain(before, inp)
    lines = _input_lines(before, inp, after, p, viewer, mine)
    for event in events:
        if event[0] == "start" and event[2] != before.turn and inp.verb is not Verb.END:
            lines.append(f"{whose(before.active, viewer)} turn ends by itself (nothing left "
                         "to do in it)")
        lines += _event_lines(event, before, after, viewer, knowledge)
    lines += _replace_choice(before, after, viewer)
    lines += _after_lines(before, after, inp, viewer)
    return lines


# --- the input ----------------------------------------------------------------------------


def _input_lines(before: State, inp: Move, after: State, p: int, viewer: int | None,
                 mine: Any | None) -> list[str]:
    v, h = inp.verb, inp.handle
    if v is Verb.DEAL:
        what = card_name(after, h, mine) or "a card"
        if before.dec[0] == D.PLACE:  # a start position's trap (SPEC Part 10)
            return [f"{says(p, viewer, 'set')} {what} face down as a trap ({before.dec[2]} "
                    "Storage Energy declared, start position)"]
        return [f"{says(p, viewer, 'draw')} {what}"]
    if v is Verb.REVEAL:
        return [_reveal_line(before, inp, after, p, viewer)]
    if v is Verb.ROLL:
        return _roll_lines(before, inp)
    side = before.sides[p]
    if v is Verb.EXILE:
        return [f"{says(p, viewer, 'exile')} {_named(before, h, mine, 'a card')} from "
                f"{whose(p, viewer)} hand for 1 Storage Energy (Storage Energy "
                f"{side[S.STORAGE]} -> {side[S.STORAGE] + 1})"]
    if v is Verb.PLAY:
        return _play_lines(before, inp, after, p, viewer, mine)
    if v is Verb.TRAP:
        name = card_name(before, h, mine)
        return [f"{says(p, viewer, 'set')} a trap face down ({inp.value} Storage Energy)"
                + (f": {name}" if name else "")]
    if v is Verb.RIFT:
        card = before.public_card(h)
        assert card is not None
        return [f"{says(p, viewer, 'use')} the rift {card.name} for {card.use_cost} Storage "
                f"Energy: {_effect_text(card, p, viewer)}{_futile(before, p, card, viewer)}"]
    if v is Verb.TARGET:
        return _target_lines(before, inp, after, p, viewer)
    if v is Verb.RECOVER:
        hero = before.hero(p)
        return [f"{says(p, viewer, 'recover')} Shield: 1 Storage Energy spent for good, "
                f"+{hero.recovery} Shield up to the maximum"]
    if v is Verb.VTRIGGER:
        hero = before.hero(p)
        ability = hero.vt_ability.value if hero.vt_ability else "none"
        return [f"{says(p, viewer, 'activate')} {whose(p, viewer)} V-Trigger: {hero.vt_cost} "
                f"Storage Energy spent for good; {hero.name} gains +{hero.vt_life} Life, "
                f"+{hero.vt_shield} Shield, +{hero.vt_defense} Defense, +{hero.vt_target} "
                f"target and {ability} {hero.vt_amount} for the rest of the game; draw 2 and "
                "exile up to 2 from now on"]
    if v is Verb.NEXT:
        return [f"{says(p, viewer, 'move')} on from step {before.phase} "
                f"({STEP_NAMES[before.phase]})"]
    if v is Verb.END:
        return [f"{says(p, viewer, 'end')} the turn"]
    if v is Verb.PICK:
        if before.dec[2] == 0:  # spring-trap
            return [f"{says(p, viewer, 'spring')} the face-down trap #{h}"]
        new = _named(before, before.dec[3], None)
        return [f"{says(p, viewer, 'replace')} {_named(before, h, None)} with {new} (the old "
                "weapon is discarded, its ammunition of the new weapon's kind moves over)"]
    if v is Verb.PASS:
        if before.dec[2] == 0:
            return [f"{says(p, viewer, 'spring')} no trap"]
        new = _named(before, before.dec[3], None)
        return [f"{says(p, viewer, 'keep')} both weapons: {new} stays in {whose(p, viewer)} "
                "hand and nothing is paid"]
    return [f"{says(p, viewer, 'play')} {inp}"]  # pragma: no cover - every verb is above


def _reveal_line(before: State, inp: Move, after: State, p: int, viewer: int | None) -> str:
    name = _named(after, inp.handle, None)
    task = before.tasks[-1] if before.tasks else ()
    if task and task[0] == T.PLAY:
        return f"{says(p, viewer, 'reveal')} the card played: {name}"
    if task and task[0] == T.SPRING:
        return f"{says(p, viewer, 'reveal')} the trap #{inp.handle}: {name}"
    return f"{says(p, viewer, 'reveal')} the exiled card #{inp.handle}: {name}"


def _roll_lines(before: State, inp: Move) -> list[str]:
    if before.phase == 0:
        roller = len(before.dice)  # player 0's die first (§10.1.1.1)
        return [f"player {roller + 1}'s setup die: {inp.value}"]
    if not before.dice:
        return [f"black die (targeting): {inp.value}"]
    return [f"red die (targeting and the weapon's ability): {inp.value}"]


def _play_lines(before: State, inp: Move, after: State, p: int, viewer: int | None,
                mine: Any | None) -> list[str]:
    h = inp.handle
    card = known_card(before, h, mine)
    cost = f" (cost {card.cost})" if card is not None else ""
    line = f"{says(p, viewer, 'play')} {_named(before, h, mine)}{cost} from " \
           f"{whose(p, viewer)} hand"
    if before.public_card(h) is None:
        line += ": it is revealed, then activated if it can be"
    return [line]


def _replace_choice(before: State, after: State, viewer: int | None) -> list[str]:
    """The replace-weapon choice a step has just opened, said once."""
    if after.dec[:1] == (D.CHOICE,) and after.dec[2] == 1 and before.dec != after.dec:
        p = after.dec[1]
        new = _named(after, after.dec[3], None)
        return [f"both of {whose(p, viewer)} weapon slots are full: {who(p, viewer)} "
                f"{'choose' if p == viewer else 'chooses'} the weapon {new} replaces (one "
                "that costs no more), or keeps both"]
    return []


def _target_lines(before: State, inp: Move, after: State, p: int, viewer: int | None
                  ) -> list[str]:
    w = _Work(before)
    card = before.public_card(inp.handle)
    assert card is not None
    lines = [f"{says(p, viewer, 'target')} {who(1 - p, viewer)} with {card.name} (use "
             f"{before.aux[inp.handle] + 1} of {w.uses(inp.handle)} this turn)"]
    if after.dec[:1] == (D.CHOICE,) and after.dec[2] == 0:
        lines.append(f"{who(1 - p, viewer)} may spring one of {whose(1 - p, viewer)} "
                     f"{len(after.dec) - 4} face-down trap(s) first")
    return lines


# --- what the rules did ---------------------------------------------------------------------


def _effect_text(card: Card, p: int, viewer: int | None) -> str:
    e = card.effect
    if e is Effect.HEAL:
        return f"heal {card.amount} Life (not above the maximum)"
    if e is Effect.RESTORE:
        return f"restore {card.amount} Shield (not above the maximum)"
    if e is Effect.DRAW:
        return f"draw {card.amount} card(s)"
    if e is Effect.DAMAGE:
        return f"{_damage(card.kinetic, card.shield_damage, card.energy)} to " \
               f"{who(1 - p, viewer)}, direct (no targeting, no resistance)"
    if e in (Effect.GUARD, Effect.FOCUS):
        what = "Defense" if e is Effect.GUARD else "target value"
        return f"+{card.amount} {what} for {card.turns} of {whose(p, viewer)} turns"
    if e is Effect.BOOST:
        return (f"+{card.life} Life, +{card.shield} Shield, +{card.defense} Defense, "
                f"+{card.target} target for the rest of the game")
    return e.value if e is not None else "no effect"


def _damage(kinetic: int, shield: int, energy: int) -> str:
    parts = [f"{n} {what}" for n, what in ((kinetic, "kinetic"), (shield, "shield"),
                                            (energy, "energy")) if n]
    return (", ".join(parts) or "no") + " damage"


def _activation(card: Card, h: int, replaced: int, s: State, p: int,
                viewer: int | None) -> str:
    head = f"{says(p, viewer, 'activate')} {card.name} for {card.cost} Storage Energy"
    t = card.type
    if t is CardType.WEAPON:
        old = f", replacing {_named(s, replaced, None)}" if replaced >= 0 else ""
        return f"{head}: equipped in a weapon slot{old}"
    if t is CardType.HERO_ITEM:
        return f"{head}: equipped as {whose(p, viewer)} hero item (no ammunition needed)"
    if t is CardType.ARMOR:
        return (f"{head}: worn as armor, +{card.shield} Shield, +{card.defense} Defense, "
                f"resistance {card.resistance}, durability {card.durability}")
    if t in (CardType.AMMO, CardType.MOD):
        return f"{head}: attached to a weapon"
    if t is CardType.ENERGY_CLASS:
        return f"{head}: {whose(p, viewer)} energy class now"
    sub = card.subtype
    if sub in (Subtype.ATTACK, Subtype.GRENADE):
        return f"{head}: {_effect_text(card, p, viewer)}; then discarded"
    if sub is Subtype.RIFT:
        return f"{head}: the rift stays; once per turn, {card.use_cost} Storage Energy: " \
               f"{_effect_text(card, p, viewer)}"
    if sub is Subtype.VITALITY or card.effect in (Effect.GUARD, Effect.FOCUS):
        return f"{head}: {_effect_text(card, p, viewer)}"
    return f"{head}: {_effect_text(card, p, viewer)}{_futile(s, p, card, viewer)}; then " \
           "discarded"


def _futile(s: State, p: int, card: Card, viewer: int | None) -> str:
    """" (no effect: ... full)" when a heal or restore finds nothing to mend."""
    w = _Work(s)
    side = s.sides[p]
    if card.effect is Effect.HEAL and side[S.LIFE] >= w.max_life(p):
        return f" (no effect: {whose(p, viewer)} Life is already full)"
    if card.effect is Effect.RESTORE and side[S.SHIELD] >= w.max_shield(p):
        return f" (no effect: {whose(p, viewer)} Shield is already full)"
    return ""


def _event_lines(event: tuple[object, ...], before: State, after: State, viewer: int | None,
                 knowledge: Any | None) -> list[str]:
    kind, *f = event
    nums = [x for x in f if isinstance(x, int)]
    if kind == "setup":
        a, b = nums
        if a == b:
            return [f"setup dice {a} and {b}: a tie, both players roll again"]
        first = 0 if a > b else 1
        return [f"setup dice {a} (player 1) and {b} (player 2): "
                f"{says(first, viewer, 'play')} first"]
    if kind == "start":
        p, turn = nums
        return [f"turn {turn + 1}: {who(p, viewer)} to play"]
    if kind == "no-draw":
        p = nums[0]
        why = (f"{whose(p, viewer)} hand already holds {HAND_LIMIT} cards" if f[1] == "hand"
               else f"{whose(p, viewer)} deck is empty")
        return [f"{who(p, viewer)} cannot draw ({why}): 1 Life lost (the decking rule)"]
    if kind == "burn":
        p = nums[0]
        return [f"Burn: {says(p, viewer, 'take')} 1 damage at the start of {whose(p, viewer)} "
                "turn (condition damage: weakness and resistance do not apply)"]
    if kind == "regen":
        p, n = nums
        return [f"V-Trigger regen: {says(p, viewer, 'recover')} up to {n} Shield"]
    if kind == "expired":
        h = nums[0]
        return [f"{whose(after.owner(h), viewer)} {_named(after, h, None)} runs out and is "
                "discarded"]
    if kind == "fizzle":
        h = nums[0]
        p = after.owner(h)
        return [f"{_named(after, h, None)} fizzles: {f[1]}; it stays in {whose(p, viewer)} "
                "hand, now face up, and nothing is paid"]
    if kind == "activate":
        h, replaced = nums
        card = after.public_card(h)
        assert card is not None
        return [_activation(card, h, replaced, before, after.owner(h), viewer)]
    if kind in ("decoy", "decoy-name", "spring"):
        return [_trap_line(str(kind), nums, after, viewer)]
    if kind == "roll":
        return [_roll_result(nums, before, after, viewer)]
    if kind == "ability":
        w, red = nums
        card = after.public_card(w)
        assert card is not None and card.ability is not None
        what = (f"its energy condition ({card.energy_type.value if card.energy_type else '-'})"
                if card.ability is Effect.CONDITION else
                f"+{card.ability_amount} {card.ability.value} damage")
        return [f"red die {red} >= {card.red}: {card.name}'s ability fires, {what}"]
    if kind == "damage":
        return [_damage_line(nums, before, viewer)]
    if kind == "counter":
        x, n, res = nums
        d = after.owner(x)
        return [f"{whose(d, viewer)} {_named(after, x, None)} counter-attacks on the miss: "
                f"{n} kinetic damage to {who(1 - d, viewer)}"
                + (f" (resistance {res} absorbs up to {res})" if res else "")]
    if kind == "frozen-counter":
        d = nums[0]
        return [f"{who(d, viewer)} {'are' if d == viewer else 'is'} Frozen: no counter attack"]
    if kind == "wear":
        armor, left = nums
        name, owner = _named(after, armor, None), whose(after.owner(armor), viewer)
        if left > 0:
            return [f"the hit wears {owner} {name}: durability {left} left"]
        return [f"the hit wears {owner} {name} out (durability 0): it is discarded"]
    if kind == "drain":
        a, n = nums
        return [f"V-Trigger drain: {says(a, viewer, 'regain')} up to {n} Life"]
    if kind == "turn-limit":
        return [f"the turn limit is reached ({before.rules.max_turns} turns each): the higher "
                "Life wins"]
    return []


def _trap_line(kind: str, nums: list[int], after: State, viewer: int | None) -> str:
    t = nums[0]
    owner = after.owner(t)
    name = _named(after, t, None)
    if kind == "decoy":
        return (f"{whose(owner, viewer)} {name} is no trap of the declared cost {nums[1]}: a "
                "decoy, discarded without effect")
    if kind == "decoy-name":
        return (f"{whose(owner, viewer)} {name} is a decoy: a trap of that name is already set "
                "face up (never two active); discarded without effect")
    card = after.public_card(t)
    assert card is not None
    e = card.effect
    what = ("the attack is cancelled" if e is Effect.JAM else
            f"+{card.amount} Defense against this attack" if e is Effect.EVADE else
            f"{card.amount} kinetic damage to {who(1 - owner, viewer)}")
    return f"{whose(owner, viewer)} trap {name} springs: {what}; then it is discarded"


def _roll_result(nums: list[int], before: State, after: State, viewer: int | None) -> str:
    weapon, black, red, bonus, defense, evade = nums
    total, needed = black + red + bonus, defense + evade
    a = after.owner(weapon)
    name = _named(after, weapon, None)
    against = f"{whose(1 - a, viewer)} Defense {defense}" + (f" + evade {evade}" if evade else "")
    verdict = (f"a hit ({total} meets {needed})" if total >= needed
               else f"a miss ({total} is below {needed})")
    return (f"{name}: black {black} + red {red} + target {bonus} = {total} against "
            f"{against}: {verdict}")


def _damage_line(nums: list[int], before: State, viewer: int | None) -> str:
    d, kinetic, shield, energy, resistance = nums
    line = f"the hit deals {_damage(kinetic, shield, energy)} to {who(d, viewer)}"
    notes = []
    if energy and not before.rules.advanced:
        notes.append("energy counts as kinetic in Standard Mode")
    if energy and before.rules.advanced:
        ec = _Work(before).eclass(d)
        weapon = before.public_card(before.attack[0]) if before.attack[0] >= 0 else None
        etype = weapon.energy_type if weapon is not None else None
        if ec is not None and etype is not None and ec.weakness is etype:
            notes.append(f"+2 energy: {ec.name} is weak to {etype.value}")
        elif ec is not None and etype is not None and ec.resists is etype:
            notes.append(f"-2 energy: {ec.name} resists {etype.value}")
    if resistance:
        notes.append(f"armor resistance {resistance} absorbs up to {resistance}")
    notes.append("shield damage hits the Shield only; the rest the Shield first, then Life")
    return line + " (" + "; ".join(notes) + ")"


def _after_lines(before: State, after: State, inp: Move, viewer: int | None) -> list[str]:
    lines = []
    for q in (0, 1):
        for field, label in ((S.LIFE, "Life"), (S.SHIELD, "Shield")):
            a, b = before.sides[q][field], after.sides[q][field]
            if a != b:
                lines.append(f"{whose(q, viewer)} {label} {a} -> {b}")
        for name, field in CONDITIONS.items():
            if after.sides[q][field] > before.sides[q][field]:
                lines.append(f"{who(q, viewer)} {'are' if q == viewer else 'is'} "
                             f"{_CONDITION_WORDS[name]} ({after.sides[q][field]} turn(s))")
    result = result_text(after, viewer)
    if result:
        lines.append("game over: " + result)
    return lines


_CONDITION_WORDS = {"glitch": "Glitched: no exile", "burn": "Burned: 1 damage a turn",
                    "shock": "Shocked: no shield recovery",
                    "frozen": "Frozen: no targeting, no counter attack",
                    "curse": "Cursed: no Storage Energy"}


__all__ = ["card_name", "known_card", "narrate", "result_text", "says", "who", "whose"]
