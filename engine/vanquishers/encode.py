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

from collections.abc import Sequence
from functools import cache
from itertools import compress, repeat
from operator import add, attrgetter, ne, truediv
from typing import Any, NamedTuple

from ..encoding import (
    EncodingError,
    changed_handles,
    own_changes,
    rewrite_blocks,
)
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


class Seen(NamedTuple):
    """The memo of one observation (engine/encoding.py `observe_changes`): the state (a
    state is immutable) and the seat's own cards it was made from, and its entries by part
    (the old entries of a handle that changed are cleared without working them out again)."""

    seat: int
    state: State
    own: dict[int, str]
    head: Head
    blocks: list[dict[int, float]]  # per handle, its entries


def _check(s: State, seat: int) -> None:
    if seat not in (0, 1):
        raise EncodingError(f"vanquishers observation: seat {seat!r} is not 0 or 1")
    if len(s.cat.cards) != _card_count():
        raise EncodingError(f"vanquishers observation: card data of {len(s.cat.cards)} cards, "
                            f"the encoding has {_card_count()} (the shipped card data)")


def _own(seat: int, knowledge: Knowledge | None) -> dict[int, str]:
    """The seat's own cards its knowledge names (the rule of its `View`)."""
    return knowledge.cards if knowledge is not None and knowledge.player == seat else {}


class _Layout(NamedTuple):
    """The encoding's fixed offsets (the shipped card data's), worked out once (`_lay`)."""

    cards: int
    side: int  # one side's width
    width: int  # one handle's block
    start: int  # the first handle's block
    counters: tuple[int, ...]  # the side fields of COUNTERS, as plain ints


@cache
def _lay() -> _Layout:
    return _Layout(_card_count(), side_width(), handle_width(), HEADER + 2 * side_width(),
                   tuple(int(f) for f in COUNTERS))


_NZ, _STEPS, _HERO, _ECLASS = len(Zone), len(STEP_NAMES), int(S.HERO), int(S.ECLASS)


class Head(NamedTuple):
    """The header's and the two sides' entries (`_head`): the values of the dense slots
    (`_dense`: the header, then each side's counters, 0.0 included) and the indices of the
    one-hot entries set to 1.0 (each side's hero and energy class). Why not a dict: the
    header changes nearly every step, and two tuples compare in C where two dicts' items
    are hashed into sets."""

    values: tuple[float, ...]
    hot: tuple[int, ...]


@cache
def _dense() -> tuple[int, ...]:
    """The indices of `Head.values`: the header's, then mine and their counters'."""
    lay = _lay()
    return (*range(HEADER), *range(HEADER, HEADER + len(COUNTERS)),
            *range(HEADER + lay.side, HEADER + lay.side + len(COUNTERS)))


def _head(s: State, seat: int) -> Head:
    """The header's and the two sides' entries."""
    lay = _lay()
    finished = s.result != (-1, -1)  # the state's own fields: `decision()` builds a Pending
    mine = not finished and s.dec[0] in (_TURN, _CHOICE) and s.dec[1] == seat
    steps = [0.0] * _STEPS
    if 0 <= s.phase < _STEPS:
        steps[s.phase] = 1.0
    dice = (s.dice[0] / 6.0 if len(s.dice) > 0 else 0.0,
            s.dice[1] / 6.0 if len(s.dice) > 1 else 0.0)
    values = [float(seat), float(mine and s.dec[0] == _TURN),
              float(mine and s.dec[0] == _CHOICE), float(s.first == seat),
              float(s.active == seat), s.turn / SCALE_TURN, *steps, *dice, float(finished),
              float(finished and s.result[1] == seat),
              float(finished and s.result[1] == 1 - seat)]
    hot = []
    for base, p in ((HEADER, seat), (HEADER + lay.side, 1 - seat)):
        side = s.sides[p]
        # the counters, in C: side[field] / SCALE_COUNTER
        values += map(truediv, map(side.__getitem__, lay.counters), repeat(SCALE_COUNTER))
        hot.append(base + len(COUNTERS) + side[_HERO])
        if side[_ECLASS] >= 0:
            hot.append(base + len(COUNTERS) + lay.cards + side[_ECLASS])
    return Head(tuple(values), tuple(hot))


def _head_entries(head: Head) -> dict[int, float]:
    """A header's nonzero entries (a whole observation's)."""
    out = {i: v for i, v in zip(_dense(), head.values, strict=True) if v}
    out.update(dict.fromkeys(head.hot, 1.0))
    return out


def _head_diff(out: dict[int, float], new: Head, old: Head) -> None:
    """Write into `out` what turns header `old` into `new` (the changed values, in C)."""
    values, was = new.values, old.values
    if values != was:
        out.update(compress(zip(_dense(), values, strict=True), map(ne, values, was)))
    if new.hot != old.hot:
        out.update(dict.fromkeys(old.hot, 0.0))
        out.update(dict.fromkeys(new.hot, 1.0))


def _block(s: State, h: int, seat: int, own: dict[int, str]) -> dict[int, float]:
    """Handle h's entries: a function of its zone, its card (public, or the seat's own from
    its knowledge), whether it is attached, its aux."""
    lay = _lay()
    base = lay.start + h * lay.width
    mine = h // s.rules.deck_size == seat  # a handle's owner (State.owner)
    z = s.zone[h]
    out = {base + z + (0 if mine else _NZ): 1.0}
    if z == _DECK:
        return out  # a card in a deck: nothing else is known of it
    index = s.card[h]
    if index < 0 and mine and h in own:
        index = s.cat.index(own[h])
    if index >= 0:
        out[base + 2 * _NZ + index] = 1.0
    if s.host[h] >= 0:
        out[base + 2 * _NZ + lay.cards] = 1.0
    if s.aux[h]:
        out[base + 2 * _NZ + lay.cards + 1] = s.aux[h] / SCALE_AUX
    return out


def _same_head(s: State, was: State) -> bool:
    """Whether two states have one header (what `_head` reads, but the seat)."""
    return s is was or (s.sides == was.sides and s.dec == was.dec and s.turn == was.turn
                        and s.phase == was.phase and s.dice == was.dice
                        and s.active == was.active and s.result == was.result
                        and s.first == was.first)


def observe_changes(s: State, seat: int, knowledge: Knowledge | None, memo: Seen | None
                    ) -> tuple[dict[int, float], Seen]:
    """engine/encoding.py `observe_changes`: the entries that differ from the observation
    `memo` describes (one of the same seat, under the same rules), and this one's memo."""
    own = _own(seat, knowledge)
    head = memo.head if memo is not None and _same_head(s, memo.state) else _head(s, seat)
    if memo is None:
        _check(s, seat)
        out = _head_entries(head)
        blocks = [_block(s, h, seat, own) for h in range(len(s.zone))]
        for block in blocks:
            out.update(block)
        return out, Seen(seat, s, dict(own), head, blocks)
    was = memo.state
    if memo.seat != seat or (was.rules is not s.rules and was.rules != s.rules):
        raise EncodingError(f"vanquishers observation: a memo of seat {memo.seat} is not one "
                            f"of seat {seat!r} under these rules")
    out: dict[int, float] = {}
    if head is not memo.head:
        _head_diff(out, head, memo.head)
    changed = changed_handles(((s.zone, was.zone), (s.card, was.card), (s.host, was.host),
                               (s.aux, was.aux))) if s is not was else set()
    changed |= own_changes(own, memo.own)
    blocks = rewrite_blocks(out, memo.blocks, changed, lambda h: _block(s, h, seat, own))
    return out, Seen(seat, s, memo.own if own == memo.own else dict(own), head, blocks)


def observe(s: State, seat: int, knowledge: Knowledge | None) -> dict[int, float]:
    return observe_changes(s, seat, knowledge, None)[0]


def legal_indices(s: State, legal: Sequence[Move]) -> list[int]:
    """The index of every legal input in legal order: a verb's first slot plus the handle
    (a bare verb's handle is -1, so its slot is kept one up), the verb found by its id (an
    Enum's own hash is Python code), all in C; a trap, or a handle past the encoding's,
    through `action_index`."""
    n = _handles(s.rules)
    firsts = list(map(_firsts(n).get, map(id, map(_VERB, legal))))
    handles = list(map(_HANDLE, legal))
    if None in firsts or (handles and max(handles) >= n):
        for i, inp in enumerate(legal):
            if firsts[i] is None or handles[i] >= n:
                firsts[i] = action_index(s, inp) - handles[i]
    return list(map(add, firsts, handles))  # type: ignore[arg-type]


_VERB, _HANDLE = attrgetter("verb"), attrgetter("handle")


@cache
def _firsts(n: int) -> dict[int, int]:
    """id(verb) -> its first slot under n handles, a bare verb's one up (see above)."""
    return {**{id(v): i + 1 for i, v in enumerate(BARE)},
            **{id(v): len(BARE) + k * n for k, v in enumerate(ONE_HANDLE)}}


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
