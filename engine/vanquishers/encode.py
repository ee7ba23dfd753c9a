# Vanquishers as a research environment (SPEC Part 10, "Observation and action encoding"): one
# seat's observation as a fixed-length list of floats, and every TURN/CHOICE input as an index
# in a fixed action space (engine/encoding.py says what the members are for).
#
# How: the observation is a header (turn, step, dice, each side's counters and hero, written
# "mine" then "theirs"), then one block per card handle in handle order. A card's identity is
# set when it is public in the state, or when the card is the seat's own and the seat's
# knowledge names it: the rule of the seat's `View` (text.py), so nothing hidden from the seat
# enters (the public state holds no hidden identity at all). The action space has a fixed slot
# per (verb, handle) and per (trap, handle, cost); which slots are legal is the game's
# `legal_actions`, unchanged.
from __future__ import annotations

from functools import cache
from typing import Any

from ..encoding import EncodingError
from .cards import default_catalogue
from .engine import D, Move, S, State, Verb, Zone, legal_actions
from .rules import Rules
from .text import STEP_NAMES, Knowledge

#: header: seat, my turn, my choice, I play first, active is me, turn/100, step one-hot,
#: dice/6 (2), finished, I won, they won; then per side (mine, theirs) the counters and hero
HEADER = 6 + len(STEP_NAMES) + 2 + 3
#: per side: life, shield, storage, spent, V-Trigger, glitch, burn, shock, frozen, curse, roll
COUNTERS = (S.LIFE, S.SHIELD, S.STORAGE, S.SPENT, S.VT, S.GLITCH, S.BURN, S.SHOCK, S.FROZEN,
            S.CURSE, S.ROLL)
SCALE_TURN, SCALE_COUNTER, SCALE_AUX = 100.0, 20.0, 10.0
_TURN, _CHOICE, _DECK = int(D.TURN), int(D.CHOICE), int(Zone.DECK)
BARE = (Verb.NEXT, Verb.END, Verb.RECOVER, Verb.VTRIGGER, Verb.PASS)
ONE_HANDLE = (Verb.EXILE, Verb.PLAY, Verb.RIFT, Verb.TARGET, Verb.PICK)


@cache
def _card_count() -> int:
    return len(default_catalogue().cards)


@cache
def _trap_costs() -> tuple[int, ...]:
    return tuple(default_catalogue().trap_costs)


def side_width() -> int:
    """counters, hero one-hot, energy class one-hot."""
    return len(COUNTERS) + 2 * _card_count()


def handle_width() -> int:
    """zone one-hot (6, mine) + (6, theirs), card one-hot, attached, aux/10."""
    return 2 * len(Zone) + _card_count() + 2


def _handles(rules: Rules) -> int:
    return 2 * rules.deck_size


def observation_size(rules: Rules) -> int:
    return HEADER + 2 * side_width() + _handles(rules) * handle_width()


def observe(s: State, seat: int, knowledge: Knowledge | None) -> dict[int, float]:
    if seat not in (0, 1):
        raise EncodingError(f"vanquishers observation: seat {seat!r} is not 0 or 1")
    if len(s.cat.cards) != _card_count():
        raise EncodingError(f"vanquishers observation: card data of {len(s.cat.cards)} cards, "
                            f"the encoding has {_card_count()} (the shipped card data)")
    own = knowledge.cards if knowledge is not None and knowledge.player == seat else {}
    cards = _card_count()
    out: dict[int, float] = {}
    finished = s.result != (-1, -1)  # the state's own fields: `decision()` builds a Pending
    out[0] = float(seat)
    if not finished and s.dec[0] in (_TURN, _CHOICE) and s.dec[1] == seat:
        out[1] = float(s.dec[0] == _TURN)
        out[2] = float(s.dec[0] == _CHOICE)
    out[3] = float(s.first == seat)
    out[4] = float(s.active == seat)
    out[5] = s.turn / SCALE_TURN
    if 0 <= s.phase < len(STEP_NAMES):
        out[6 + s.phase] = 1.0
    at = 6 + len(STEP_NAMES)
    for k, die in enumerate(s.dice[:2]):
        out[at + k] = die / 6.0
    if finished:
        out[at + 2] = 1.0
        out[at + 3] = float(s.result[1] == seat)
        out[at + 4] = float(s.result[1] == 1 - seat)
    for k, p in enumerate((seat, 1 - seat)):
        base = HEADER + k * side_width()
        side = s.sides[p]
        for j, field in enumerate(COUNTERS):
            out[base + j] = side[field] / SCALE_COUNTER
        out[base + len(COUNTERS) + side[S.HERO]] = 1.0
        if side[S.ECLASS] >= 0:
            out[base + len(COUNTERS) + cards + side[S.ECLASS]] = 1.0
    start, width, nz = HEADER + 2 * side_width(), handle_width(), len(Zone)
    n = s.rules.deck_size
    for h, z in enumerate(s.zone):
        base = start + h * width
        mine = h // n == seat  # a handle's owner (State.owner)
        out[base + z + (0 if mine else nz)] = 1.0
        if z == _DECK:
            continue  # a card in a deck: nothing else is known of it
        index = s.card[h]
        if index < 0 and mine and h in own:
            index = s.cat.index(own[h])
        if index >= 0:
            out[base + 2 * nz + index] = 1.0
        if s.host[h] >= 0:
            out[base + 2 * nz + cards] = 1.0
        if s.aux[h]:
            out[base + 2 * nz + cards + 1] = s.aux[h] / SCALE_AUX
    return out


# --- the action space -------------------------------------------------------------------------
# bare verbs (next, end, recover, vtrigger, pass) + one slot per (verb, handle) for exile,
# play, rift, target, pick + one per (handle, trap cost) for trap


def action_count(rules: Rules) -> int:
    n = _handles(rules)
    return len(BARE) + len(ONE_HANDLE) * n + n * len(_trap_costs())


def action_index(s: State, inp: Move) -> int:
    n = _handles(s.rules)
    if isinstance(inp, Move):
        v = inp.verb
        if v in BARE:
            return BARE.index(v)
        if v in ONE_HANDLE and 0 <= inp.handle < n:
            return len(BARE) + ONE_HANDLE.index(v) * n + inp.handle
        if v is Verb.TRAP and 0 <= inp.handle < n and inp.value in _trap_costs():
            return len(BARE) + len(ONE_HANDLE) * n + inp.handle * len(_trap_costs()) \
                + _trap_costs().index(inp.value)
    raise EncodingError(f"vanquishers: input {inp!r:.80} has no action index")


def _input_at(rules: Rules, index: int) -> Move | None:
    n, costs = _handles(rules), _trap_costs()
    if 0 <= index < len(BARE):
        return Move(BARE[index])
    index -= len(BARE)
    if 0 <= index < len(ONE_HANDLE) * n:
        return Move(ONE_HANDLE[index // n], index % n)
    index -= len(ONE_HANDLE) * n
    if 0 <= index < n * len(costs):
        return Move(Verb.TRAP, index // len(costs), costs[index % len(costs)])
    return None


def input_of(s: State, index: int) -> Any:
    inp = _input_at(s.rules, index)
    if inp is None or inp not in legal_actions(s):
        raise EncodingError(f"vanquishers: action {index} is not a legal input here")
    return inp
