# What a Vanquishers position may hold (SPEC §10.3 "Positions: what a position may hold"): the
# checks `load_position` runs on a state it built from untrusted text, after the field types.
#
# Why: a position is untrusted input (a start a host offers, a file), and the engine trusts its
# state: a hero index that names an armor card, a counter far above what play reaches (Storage
# Energy 32767 overflows the 16-bit encoding at the next exile), a condition lasting 99 turns, an
# ammunition attached to a discarded card, a task stack no input builds. So the reader accepts
# only what the rules can reach: every bound below is an invariant of `step` (the comment or
# the message names the rule that keeps it), so every position a game reaches passes, and a
# position that passes plays on like one reached by play. Each refusal is a PositionError
# naming the field and its value.
from __future__ import annotations

from ..errors import PositionError
from .cards import (
    CONDITION_OF,
    MOD_FITS,
    CardType,
    Effect,
    ModType,
    Subtype,
    ammo_for,
    copy_limit,
    usable_by,
)
from .engine import (
    BURN_MAX,
    CONDITIONS,
    HAND_LIMIT,
    OUTCOMES,
    WEAPON_SLOTS,
    ChoiceKind,
    D,
    S,
    State,
    T,
    Zone,
    _replace_candidates,
    _step_actions,
    _Work,
    can_activate,
)

SIDE_NAMES = {f: f.name.lower() for f in S}
#: fields of each task code (SPEC §10.4 "Tasks"): "p" a player, "h" a handle, "k" a step, "c" a
#: declared trap cost
TASK_FIELDS = {T.ROLL: "", T.FIRST: "", T.DRAW: "p", T.START: "", T.REVEAL: "h", T.PLAY: "h",
               T.SPRING: "h", T.ATTACK: "h", T.HIT: "h", T.TRAPS: "p", T.END: "", T.PHASE: "k",
               T.PLACE: "pc"}
_NONE = (-1, 0, 0)  # no attack in progress


def _bad(field: str, value: object, why: str) -> PositionError:
    return PositionError(f"state.{field}: {value!r:.60} {why}")


def check_position(s: State) -> None:
    """Raise PositionError unless every field of `s` is within what the rules reach."""
    _check_heroes(s)
    _check_clock(s)
    for h in range(2 * s.n):
        _check_card(s, h)
    for p in (0, 1):
        _check_board(s, p)
        _check_copies(s, p)
        _check_side(s, p)
    _check_result(s)
    _check_machinery(s)
    if s.result == (-1, -1):
        _check_pending(s)
    elif s.dec != (D.NONE,):
        raise _bad("decision", list(s.dec), "is 0 (none) in a finished game (§10.4 field 16)")


# --- heroes, turn, step, setup dice -----------------------------------------------------------


def _check_heroes(s: State) -> None:
    for p in (0, 1):
        hero_id = s.rules.heroes[p]
        hero = s.cat.get(hero_id)
        if hero is None or hero.type is not CardType.HERO:
            raise _bad(f"sides[{p}][0]", hero_id, "is the rules' hero but not a hero of the "
                       "catalogue")
        if s.sides[p][S.HERO] != s.cat.index(hero_id):
            raise _bad(f"sides[{p}][0]", s.sides[p][S.HERO], f"(hero): player {p}'s hero is "
                       f"{hero_id!r}, the rules' hero{p}, catalogue index "
                       f"{s.cat.index(hero_id)} (§10.2.1)")


def _check_clock(s: State) -> None:
    limit = 2 * s.rules.max_turns  # §10.1.7.3
    playing = s.result == (-1, -1)
    if s.turn > limit or (playing and s.turn >= limit):
        raise _bad("turn", s.turn, f"is past the turn limit: {limit} turns end the game "
                   "(§10.1.7.3)")
    if s.phase == 7 and playing:
        raise _bad("step", 7, "is only the step of a finished game: the end step runs at once "
                   "(§10.1.3.1)")
    rolls = (s.sides[0][S.ROLL], s.sides[1][S.ROLL])
    for p in (0, 1):
        if not 0 <= rolls[p] <= 6:
            raise _bad(f"sides[{p}][12]", rolls[p], "(setup die): a die shows 1..6, 0 before it "
                       "is rolled (§10.1.1.1)")
    if s.first < 0:
        if s.phase != 0 or s.active != -1 or rolls[0] != rolls[1]:
            raise _bad("first", s.first, "(none yet) holds only before the setup dice settle: "
                       "step 0, no active player, the dice not rolled or tied (§10.1.1.1)")
    else:
        if min(rolls) < 1 or rolls[0] == rolls[1] or s.first != (0 if rolls[0] > rolls[1] else 1):
            raise _bad("first", s.first, f"is not the player whose setup die is higher "
                       f"({rolls[0]} against {rolls[1]}, §10.1.1.1)")
        ended = s.turn - (1 if s.result[0] == OUTCOMES.index("turn-limit") else 0)
        if s.active != s.first ^ (ended % 2):
            raise _bad("active", s.active, f"is not the player to play after {s.turn} turns "
                       f"from player {s.first} (turns alternate, §10.1.7.2)")
    if s.phase == 0 and (s.turn or s.exiles):
        raise _bad("turn", s.turn, "and exiles are 0 in step 0 (setup, §10.1.1)")
    vt = s.active >= 0 and s.sides[s.active][S.VT]
    if s.exiles > (2 if vt else 1) or (s.phase < 3 and s.exiles):
        raise _bad("exiles", s.exiles, "exceeds the exiles of this turn: none before step 3, "
                   "then 1, 2 with the V-Trigger (§10.1.3.4)")


# --- cards ------------------------------------------------------------------------------------


def _check_card(s: State, h: int) -> None:
    """Each handle: its zone holds a card of a kind that can be there, with its host and aux."""
    zone, host, aux = Zone(s.zone[h]), s.host[h], s.aux[h]
    p = s.owner(h)
    card = s.public_card(h)
    if card is not None and card.type is CardType.HERO:
        raise _bad(f"card[{h}]", card.id, "is a hero: a hero is never a deck card (§10.2.3.3)")
    if zone is not Zone.BOARD and host != -1:
        raise _bad(f"host[{h}]", host, "is set, but only a card on the board is attached")
    if card is None and zone not in (Zone.DECK, Zone.HAND, Zone.TRAP) and \
            not (zone is Zone.EXILE and s.dec == (D.REVEAL, p, h)):
        raise _bad(f"zone[{h}]", int(zone), f"({zone.name.lower()}) holds a hidden card "
                   f"(card[{h}] null): a card leaves the deck, hand or traps only revealed (an "
                   "exiled card: at its pending reveal, §10.1.3.4)")
    if zone is Zone.DECK and card is not None:
        raise _bad(f"card[{h}]", card.id, "is named, but a deck card is never revealed")
    if zone is Zone.TRAP:
        _check_set_trap(s, h)
    elif zone is Zone.BOARD:
        _check_on_board(s, h)
    elif aux != 0:
        raise _bad(f"aux[{h}]", aux, f"is set, but a card in zone {zone.name.lower()} has no "
                   "counter (§10.4)")


def _check_set_trap(s: State, h: int) -> None:
    card, aux = s.public_card(h), s.aux[h]
    if card is None:  # face down: its declared cost is one a trap of the catalogue has (§10.1.5.6)
        if aux not in s.cat.trap_costs:
            raise _bad(f"aux[{h}]", aux, f"(declared trap cost) is not the cost of a trap of "
                       f"the catalogue ({', '.join(map(str, s.cat.trap_costs))}, §10.1.5.6)")
        return
    if card.subtype is not Subtype.TRAP or aux != card.cost:
        raise _bad(f"card[{h}]", card.id, f"is set face up with cost {aux}: only a trap is set, "
                   "face up with its own cost (§10.1.5.6)")
    if not usable_by(card, s.hero(s.owner(h))):
        raise _bad(f"card[{h}]", card.id, "is set, but its owner's hero may not use it (§10.2.3.4)")
    same = [t for t in s.handles(s.owner(h), Zone.TRAP) if s.card[t] == s.card[h]]
    if same[0] != h:
        raise _bad(f"card[{h}]", card.id, "is a second trap of its name set face up (§10.1.5.6)")


def _check_on_board(s: State, h: int) -> None:
    card, host, aux, p = s.public_card(h), s.host[h], s.aux[h], s.owner(h)
    if card is None:
        raise _bad(f"card[{h}]", None, "(hidden) on the board: a card is revealed before it "
                   "is activated (§10.1.5.1)")
    where = f"card[{h}]"
    if not usable_by(card, s.hero(p)):
        raise _bad(where, card.id, f"is active, but hero {s.hero(p).id!r} may not use it "
                   "(§10.2.3.4, §10.1.5.2)")
    t = card.type
    if t in (CardType.AMMO, CardType.MOD):
        _check_attached(s, h)
    elif host != -1:
        raise _bad(f"host[{h}]", host, f"is set, but a {t.value} card is attached to nothing")
    if t in (CardType.MOD, CardType.ENERGY_CLASS) and not s.rules.advanced:
        raise _bad(where, card.id, f"is active, but a {t.value} card is for Advanced Mode "
                   "only (§10.1.5.7, §10.1.8)")
    if t is CardType.ABILITY and not (
            card.subtype in (Subtype.RIFT, Subtype.VITALITY)
            or card.effect in (Effect.GUARD, Effect.FOCUS)):
        raise _bad(where, card.id, f"is on the board, but a {card.subtype.value} card with "  # type: ignore[union-attr]
                   f"effect {card.effect.value} is discarded once it resolves (§10.1.5.6)")  # type: ignore[union-attr]
    top = (2 if card.dual_wield else 1) if t is CardType.WEAPON else \
        1 if t is CardType.HERO_ITEM or card.subtype is Subtype.RIFT else \
        card.durability if t is CardType.ARMOR else \
        card.turns if card.effect in (Effect.GUARD, Effect.FOCUS) else 0
    low = 1 if t is CardType.ARMOR or card.effect in (Effect.GUARD, Effect.FOCUS) else 0
    if not low <= aux <= top:
        raise _bad(f"aux[{h}]", aux, f"is outside {low}..{top} for {card.id!r} (uses this turn, "
                   "durability or turns left, §10.4)")


def _check_attached(s: State, h: int) -> None:
    card, host, p = s.public_card(h), s.host[h], s.owner(h)
    assert card is not None
    weapon = s.public_card(host) if 0 <= host < 2 * s.n else None
    if weapon is None or weapon.type is not CardType.WEAPON or s.zone[host] != Zone.BOARD or \
            s.owner(host) != p or s.host[host] != -1:
        raise _bad(f"host[{h}]", host, f"is not a weapon on player {p}'s board: {card.id!r} "
                   "is attached to one (§10.1.5.4, §10.1.5.7)")
    assert weapon.weapon_class is not None
    fits = ammo_for(weapon.weapon_class) is card.ammo_kind if card.type is CardType.AMMO else \
        weapon.weapon_class in MOD_FITS[card.mod_type]  # type: ignore[index]
    if not fits:
        raise _bad(f"host[{h}]", host, f"is {weapon.id!r}, which {card.id!r} does not fit "
                   "(§10.1.5.4, §10.1.5.7)")


def _check_board(s: State, p: int) -> None:
    """Slots and names (§10.1.5.3–10.1.5.7): at most 2 weapons, 1 hero item, 1 armor, 1 energy
    class;
    never two active of a name; at most 2 mods on a weapon, none of a type twice (energy mods:
    of a name twice); at most 8 cards in the hand (§10.1.3.3)."""
    w = _Work(s)
    weapons = w.board(p, CardType.WEAPON)
    for ctype, most in ((CardType.WEAPON, WEAPON_SLOTS), (CardType.HERO_ITEM, 1),
                        (CardType.ARMOR, 1), (CardType.ENERGY_CLASS, 1)):
        cards = w.board(p, ctype)
        if len(cards) > most:
            raise _bad(f"card[{cards[most]}]", s.public_card(cards[most]).id,  # type: ignore[union-attr]
                       f"is player {p}'s {len(cards)}th active {ctype.value}: at most {most}")
    named = w.board(p, CardType.WEAPON, CardType.ABILITY)
    ids = [s.card[h] for h in named]
    for h in named:
        if ids.count(s.card[h]) > 1:
            raise _bad(f"card[{h}]", s.public_card(h).id, "is active twice: never two of a "  # type: ignore[union-attr]
                       "name (§10.1.5.3, §10.1.5.6)")
    for weapon in weapons:
        mods = [s.public_card(m) for m in w.attached(weapon, CardType.MOD)]
        kinds = [m.id if m.mod_type is ModType.ENERGY else m.mod_type for m in mods]  # type: ignore[union-attr]
        if len(mods) > 2 or len(set(kinds)) != len(kinds):
            raise _bad(f"card[{weapon}]", s.public_card(weapon).id, "holds more than 2 mods "  # type: ignore[union-attr]
                       "or two of a type (energy mods: of a name) (§10.1.5.7)")
    classes = w.board(p, CardType.ENERGY_CLASS)
    if classes and s.card[classes[0]] != s.sides[p][S.ECLASS]:
        raise _bad(f"sides[{p}][6]", s.sides[p][S.ECLASS], f"(energy class) is not the energy "
                   f"class card active on the board (handle {classes[0]}, §10.1.5.7)")
    hand = s.handles(p, Zone.HAND)
    if len(hand) > HAND_LIMIT:
        raise _bad("zone", f"{len(hand)} hand cards", f"of player {p}: a hand holds at most "
                   f"{HAND_LIMIT} (§10.1.3.3)")


def _check_copies(s: State, p: int) -> None:
    """§10.2.3.2 as a reveal keeps it: a player's named cards hold at most the copies its deck may.
    In a start match, the cards it brought and the position's cards are counted apart (SPEC
    §10.3 "Start positions")."""
    n = s.n
    groups = [range(p * n, p * n + n)]
    if s.rules.start:
        brought = s.rules.start_hidden[p]
        groups = [range(p * n, p * n + brought), range(p * n + brought, p * n + n)]
    for group in groups:
        seen: dict[int, int] = {}
        for h in group:
            if s.card[h] >= 0:
                seen[s.card[h]] = seen.get(s.card[h], 0) + 1
                card = s.cat.cards[s.card[h]]
                limit = copy_limit(card)
                if limit is not None and seen[s.card[h]] > limit:
                    raise _bad(f"card[{h}]", card.id, f"is player {p}'s copy number "
                               f"{seen[s.card[h]]}: a deck holds at most {limit} (§10.2.3.2)")


# --- each player's counters -------------------------------------------------------------------


def condition_limit(s: State, p: int, name: str) -> int:
    """The most turns condition `name` lasts on player p (§10.1.8.3): none in Standard Mode, nor
    if no card the enemy's hero may use inflicts it; Burn stacks to 4, the others last 1."""
    if not s.rules.advanced:
        return 0
    enemy = s.hero(1 - p)
    inflicts = any(c.ability is Effect.CONDITION and c.energy_type is not None
                   and CONDITION_OF[c.energy_type] == name and usable_by(c, enemy)
                   for c in s.cat.cards if c.is_weapon_like)
    return 0 if not inflicts else BURN_MAX if name == "burn" else 1


def start_class(s: State, p: int) -> int:
    """The energy class player p starts with in Advanced Mode (§10.1.1.3), -1 if the catalogue has
    none of its hero's first class."""
    first = s.hero(p).energy_classes[0]
    return next((i for i, c in enumerate(s.cat.cards) if c.type is CardType.ENERGY_CLASS
                 and c.energy_type is first), -1)


def _check_side(s: State, p: int) -> None:
    w = _Work(s)
    side, hero = s.sides[p], s.hero(p)

    def bad(f: S, why: str) -> PositionError:
        return _bad(f"sides[{p}][{int(f)}]", side[f], f"({SIDE_NAMES[f]}) {why}")

    if side[S.VT] not in (0, 1):
        raise bad(S.VT, "is 0 or 1 (§10.1.4)")
    eclass = side[S.ECLASS]
    if not s.rules.advanced and eclass != -1:
        raise bad(S.ECLASS, "is -1 in Standard Mode: energy classes are Advanced (§10.1.8)")
    if s.rules.advanced:
        card = s.cat.cards[eclass] if 0 <= eclass < len(s.cat.cards) else None
        ok = (card is not None and card.type is CardType.ENERGY_CLASS
              and card.energy_type in hero.energy_classes) or eclass == start_class(s, p) == -1
        if not ok:
            raise bad(S.ECLASS, f"is not an energy class card of hero {hero.id!r}'s classes "
                      "(§10.1.1.3, §10.1.5.7)")
        if eclass != start_class(s, p) and not w.board(p, CardType.ENERGY_CLASS):
            raise bad(S.ECLASS,
                      "is not the starting class, so its card is on the board (§10.1.5.7)")
    top_life, top_shield = w.max_life(p), w.max_shield(p)
    if not 0 <= side[S.LIFE] <= top_life:
        raise bad(S.LIFE, f"is outside 0..{top_life}, the hero's maximum Life now "
                          "(§10.1.4, §10.1.5.6)")
    if not 0 <= side[S.SHIELD] <= top_shield:
        raise bad(S.SHIELD, f"is outside 0..{top_shield}, the hero's maximum Shield now "
                  "(§10.1.4, §10.1.5.5, §10.1.5.7)")
    if s.phase == 0 and (side[S.LIFE], side[S.SHIELD]) != (top_life, top_shield):
        raise bad(S.LIFE, "and Shield are the hero's full values in step 0 (setup, §10.1.1.2)")
    exiled = len(s.handles(p, Zone.EXILE))
    top = exiled - (hero.vt_cost if side[S.VT] else 0)
    # Decided: Storage Energy only comes from exiling (§10.1.2.2), one point per card, which stays
    # in the exile pile; recovering and the V-Trigger spend it (§10.1.2.3)
    if not 0 <= side[S.STORAGE] <= top:
        raise bad(S.STORAGE, f"is outside 0..{top}: Storage Energy comes only from the "
                  f"{exiled} cards player {p} exiled, less the V-Trigger's cost (§10.1.2)")
    if not 0 <= side[S.SPENT] <= side[S.STORAGE]:
        raise bad(S.SPENT, f"is outside 0..{side[S.STORAGE]}: a player spends only Storage "
                  "Energy it has (§10.1.2.1)")
    for name, f in CONDITIONS.items():
        top = condition_limit(s, p, name)
        if not 0 <= side[f] <= top:
            raise bad(f, f"is outside 0..{top}, the longest {name} a card of this match "
                      "inflicts on this hero (§10.1.8.3)")


def _check_result(s: State) -> None:
    outcome, winner = s.result
    life = (s.sides[0][S.LIFE], s.sides[1][S.LIFE])
    if (outcome, winner) == (-1, -1):
        if min(life) < 1:
            raise _bad("result", [-1, -1], f"(playing) with Life {life[0]} and {life[1]}: a "
                       "hero at 0 Life has lost (§10.1.7.1)")
        return
    if outcome == OUTCOMES.index("defeat"):
        loser = 0 if life[0] == 0 else 1
        if winner != 1 - loser or life[loser] != 0 or life[1 - loser] < 1:
            raise _bad("result", list(s.result), f"(defeat) does not follow Life {life[0]} and "
                       f"{life[1]} (§10.1.7.1)")
    elif outcome == OUTCOMES.index("turn-limit"):
        expected = -1 if life[0] == life[1] else 0 if life[0] > life[1] else 1
        if s.turn != 2 * s.rules.max_turns or winner != expected or min(life) < 1:
            raise _bad("result", list(s.result), f"(turn limit) does not follow turn {s.turn} "
                       f"and Life {life[0]} and {life[1]} (§10.1.7.3)")
    else:
        raise _bad("result", list(s.result), "is not an outcome: -1 -1, 0 (defeat) with a "
                   "winner, 1 (turn limit) with a winner or -1")


# --- dice, attack, tasks and the decision ------------------------------------------------------


def _check_machinery(s: State) -> None:
    """Field ranges of the dice, the attack and the tasks, finished or not."""
    if len(s.dice) > 2 or any(not 1 <= d <= 6 for d in s.dice):
        raise _bad("dice", list(s.dice), "are at most two dice of 1..6 (§10.1.1.1, §10.1.6.3)")
    handles = range(2 * s.n)
    if s.attack != _NONE:
        evade = max((c.amount for c in s.cat.cards if c.effect is Effect.EVADE), default=0)
        w, bonus, cancelled = s.attack
        if w not in handles or not 0 <= bonus <= evade or cancelled not in (0, 1):
            raise _bad("attack", list(s.attack), f"is not -1 0 0 or a weapon handle, an evade "
                       f"bonus 0..{evade} and 0/1 (§10.1.6.2)")
    # the most tasks: a start's deals (one per hidden card) or a support's draws, and 3 more
    most = 2 * s.n + 3 + max((c.amount for c in s.cat.cards if c.effect is Effect.DRAW),
                             default=0)
    if len(s.tasks) > most:
        raise _bad("tasks", f"{len(s.tasks)} tasks", f"exceed the {most} any input pushes (§10.4)")
    for i, task in enumerate(s.tasks):
        code = task[0] if task else -1
        kinds = TASK_FIELDS.get(code)  # type: ignore[call-overload]
        if kinds is None or len(task) != 1 + len(kinds) or not all(
                _field_ok(s, kind, value) for kind, value in zip(kinds, task[1:], strict=True)):
            raise _bad(f"tasks[{i}]", list(task), "is not a task of SPEC §10.4 with its fields "
                       "in range")


def _field_ok(s: State, kind: str, value: int) -> bool:
    if kind == "p":
        return value in (0, 1)
    if kind == "h":
        return 0 <= value < 2 * s.n
    if kind == "k":
        return 1 <= value <= 7
    return value in s.cat.trap_costs


def _check_pending(s: State) -> None:
    """A game in progress waits for one of the decisions `step` leaves, with the tasks, dice
    and attack that go with it (SPEC §10.4 "Tasks": each input pushes a fixed sequence)."""
    code = s.dec[0] if s.dec else -1
    where = ("decision", list(s.dec))
    if code == D.TURN:
        if s.dec != (D.TURN, s.active) or s.tasks or s.dice or s.attack != _NONE or \
                s.phase not in (1, 3, 4, 5, 6) or not _step_actions(_Work(s)):
            raise _bad(*where, "(turn) is the active player's, in a step with an action, with "
                       "no task, die or attack pending (§10.1.3.1)")
    elif code == D.CHOICE:
        _check_choice(s)
    elif code == D.REVEAL:
        _check_reveal(s)
    elif code == D.CHANCE:
        _check_chance(s)
    elif code in (D.DEAL, D.PLACE):
        _check_deal(s)
    else:
        raise _bad(*where, "is not the decision of a game in progress (§10.4 field 16)")


def _attacking(s: State, w: int) -> bool:
    """w is the active player's weapon or hero item that targets now (§10.1.6.1)."""
    card = s.public_card(w) if 0 <= w < 2 * s.n else None
    return (card is not None and card.is_weapon_like and s.zone[w] == Zone.BOARD
            and s.owner(w) == s.active and s.aux[w] >= 1 and s.phase == 6
            and not s.sides[s.active][S.FROZEN] and _Work(s).ammo_ok(w))


def _check_choice(s: State) -> None:
    dec = s.dec
    if len(dec) < 4 or dec[2] not in tuple(ChoiceKind):
        raise _bad("decision", list(dec), "is not a choice of SPEC §10.4")
    if dec[2] == ChoiceKind.SPRING_TRAP:
        d = 1 - s.active
        w = s.attack[0]
        traps = tuple(s.handles(d, Zone.TRAP))
        if dec != (D.CHOICE, d, ChoiceKind.SPRING_TRAP, -1, *traps) or not traps or \
                s.tasks != ((T.ATTACK, w),) or s.attack != (w, 0, 0) or s.dice or \
                not _attacking(s, w):
            raise _bad("decision", list(dec), "(spring-trap) is the defender's, among all its "
                       "set traps, while an attack waits (§10.1.6.2)")
        return
    p, h = s.active, dec[3]
    card = s.public_card(h) if 0 <= h < 2 * s.n else None
    ok = (card is not None and card.type is CardType.WEAPON and s.zone[h] == Zone.HAND
          and s.owner(h) == p and dec[1] == p and s.phase == 5 and not s.tasks
          and not s.dice and s.attack == _NONE)
    if ok:
        w = _Work(s)
        ok = can_activate(w, p, card) and len(w.board(p, CardType.WEAPON)) >= WEAPON_SLOTS \
            and tuple(dec[4:]) == tuple(_replace_candidates(w, p, card)) and bool(dec[4:])  # type: ignore[arg-type]
    if not ok:
        raise _bad("decision", list(dec), "(replace-weapon) is the active player's, for a "
                   "weapon it can activate with both slots full, among the weapons it may "
                   "replace (§10.1.5.3)")


def _check_reveal(s: State) -> None:
    dec = s.dec
    h = dec[2] if len(dec) == 3 else -1
    if not 0 <= h < 2 * s.n or dec != (D.REVEAL, s.owner(h), h) or s.card[h] >= 0 or s.dice:
        raise _bad("decision", list(dec), "(reveal) is of a hidden card, by its owner")
    zone, mine = s.zone[h], s.owner(h) == s.active
    if zone == Zone.EXILE:  # `exile h` (§10.1.3.4)
        ok = mine and s.phase == 3 and not s.tasks and s.attack == _NONE
    elif zone == Zone.HAND:  # `play h` (§10.1.5.1)
        ok = mine and s.phase == 5 and s.tasks == ((T.PLAY, h),) and s.attack == _NONE
    elif zone == Zone.TRAP:  # `pick h` on a spring-trap choice (§10.1.6.2)
        w = s.attack[0]
        ok = not mine and s.tasks == ((T.ATTACK, w), (T.SPRING, h)) and \
            s.attack == (w, 0, 0) and _attacking(s, w)
    else:
        ok = False
    if not ok:
        raise _bad("decision", list(dec), "(reveal) is not one an input leaves: an exiled card "
                   "in step 3, a played hand card in step 5, a sprung trap during an attack")


def _check_chance(s: State) -> None:
    if s.dec != (D.CHANCE,):
        raise _bad("decision", list(s.dec), "(chance) has no field")
    rolled = len(s.dice)
    if s.phase == 0:  # the setup dice (§10.1.1.1)
        ok = rolled <= 1 and s.first == -1 and s.attack == _NONE and \
            s.tasks == (((T.FIRST,), (T.ROLL,)) if rolled == 0 else ((T.FIRST,),))
    else:  # a targeting roll (§10.1.6.3)
        w = s.attack[0]
        ok = rolled <= 1 and s.attack[2] == 0 and _attacking(s, w) and \
            s.tasks == (((T.HIT, w), (T.ROLL,)) if rolled == 0 else ((T.HIT, w),))
    if not ok:
        raise _bad("decision", list(s.dec), "(chance) is a setup die or a targeting die, with "
                   "the dice rolled so far and the task that reads them (§10.1.1.1, §10.1.6.3)")


def _check_deal(s: State) -> None:
    """A deal (§10.1.3.3) or a start position's trap placing: the tasks below it are draws and
    placings, over the start of the first turn (setup) or the move to step 3 (step 2)."""
    dec = s.dec
    placing = dec[0] == D.PLACE
    p = dec[1] if len(dec) >= 2 else -1
    ok = len(dec) == (3 if placing else 2) and p in (0, 1) and s.handles(p, Zone.DECK) and \
        not s.dice and s.attack == _NONE
    if placing:
        ok = ok and bool(s.rules.start) and dec[2] in s.cat.trap_costs
    else:
        ok = ok and len(s.handles(p, Zone.HAND)) < HAND_LIMIT
    tasks = list(s.tasks)
    bottom = {0: (T.START,), 2: (T.PHASE, 3)}.get(s.phase)
    if bottom is not None:
        ok = ok and tasks[:1] == [bottom] and (s.phase != 0 or s.first >= 0)
        tasks = tasks[1:]
    ok = ok and all(t[0] == T.DRAW or (t[0] == T.PLACE and s.rules.start) for t in tasks)
    if not ok:
        raise _bad("decision", list(dec), "(deal) is of a player with a deck card (a hand of "
                   "fewer than 8), over draws and placings only (§10.1.3.3, §10.4)")
