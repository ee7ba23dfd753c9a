# The grid game as a research environment (SPEC Part 9, "Observation and action encoding"):
# one seat's observation as a fixed-length list of floats, and every TURN/CHOICE input as an
# index in a fixed action space (engine/encoding.py says what the members are for).
#
# How: the observation is a header, then one block per card handle in handle order, so a
# handle's features sit at the same offsets in every position. A card's identity is set only
# when `views.known_id` names it to the seat (public, or the seat's own card in its knowledge):
# the same rule the seat's view follows, so nothing hidden from the seat enters. Zones and
# controllers are written relative to the seat ("mine", "theirs"), so one policy plays both
# seats. The action space has a fixed slot per (verb, handle[, cell, face]); which slots are
# legal is the game's `legal_actions`, unchanged.
from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from itertools import compress, repeat
from operator import is_, ne
from typing import Any, NamedTuple

from ..encoding import (
    EncodingError,
    known_indices,
    own_changes,
    rewrite_blocks,
)
from .cards import default_catalogue
from .notation import GridInput, Verb
from .rules import GridRules
from .state import Dec, GridState, Zone, cell_index, cell_name, legal_actions
from .views import GridKnowledge

#: header: seat, my turn, my choice, I play first, turn/100, acted this turn, my deck/size,
#: their deck/size, my hand/10, their hand/10, finished, I won, they won
HEADER = 13
#: per-handle zone slots, relative to the seat
ZONES = ("deck", "my-hand", "their-hand", "my-grid", "their-grid", "graveyard", "modifier")
SCALE_TURN, SCALE_HAND, SCALE_VALUE = 100.0, 10.0, 10.0
_PLACE, _PICK, _USE, _FREE = Verb.PLACE, Verb.PICK, Verb.USE, Verb.FREE
_TURN, _CHOICES = int(Dec.TURN), (int(Dec.WINDOW), int(Dec.ORDER), int(Dec.TARGET))
_DECK, _HAND, _GRID, _GRAVEYARD = int(Zone.DECK), int(Zone.HAND), int(Zone.GRID), \
    int(Zone.GRAVEYARD)


@cache
def _card_count() -> int:
    return len(default_catalogue().cards)


def _handles(rules: GridRules) -> int:
    return 2 * rules.deck_size if not rules.start else _start_handles(rules)


def _start_handles(rules: GridRules) -> int:
    from .decks import hidden_decks

    return max(d.first + d.size for d in hidden_decks(rules))


def handle_width(rules: GridRules) -> int:
    """zone one-hot, face up, cell one-hot, card one-hot, weaken, boost, shield."""
    return len(ZONES) + 1 + rules.size ** 2 + _card_count() + 3


def observation_size(rules: GridRules) -> int:
    return HEADER + _handles(rules) * handle_width(rules)


class Seen(NamedTuple):
    """The memo of one observation (engine/encoding.py `observe_changes`): the state (a
    state is immutable) and the seat's own cards it was made from, and its entries by part
    (the old entries of a handle that changed are cleared without working them out again)."""

    seat: int
    shape: tuple[int, int, bool]  # `_shape` of the rules
    state: GridState
    own: dict[int, str]
    head: tuple[float, ...]
    blocks: list[dict[int, float]]  # per handle, its entries


def _check(s: GridState, seat: int) -> None:
    if seat not in (0, 1):
        raise EncodingError(f"grid observation: seat {seat!r} is not 0 or 1")
    if len(s.catalogue.cards) != _card_count():
        raise EncodingError(f"grid observation: card data of {len(s.catalogue.cards)} cards, "
                            f"the encoding has {_card_count()} (the shipped card data)")


def _own(seat: int, knowledge: GridKnowledge | None) -> dict[int, str]:
    """The seat's own cards its knowledge names (`views.known_id`)."""
    return knowledge.cards if knowledge is not None and knowledge.player == seat else {}


def _head(s: GridState, seat: int, n: int, shared: bool) -> tuple[float, ...]:
    """The header's values (all HEADER of them, 0.0 included: two tuples compare in C), from
    the state's own fields (its `decision()` builds a validated Pending: a cost an environment
    pays every step). `n`, `shared`: the rules' cards per player and shared deck (read once:
    properties)."""
    zone = s.zone
    mine = len(s.hand(seat))  # (the state keeps each hand: the engine asks it too)
    theirs = zone.count(_HAND) - mine
    decks = (zone.count(_DECK),) * 2 if shared else \
        (zone[:n].count(_DECK), zone[n:].count(_DECK))
    d = s.decision
    to_me = bool(d) and len(d) > 1 and d[1] == seat
    over = s.result[0] >= 0
    return (float(seat), float(to_me and d[0] == _TURN), float(to_me and d[0] in _CHOICES),
            float(s.first == seat), s.turn / SCALE_TURN, float(bool(s.acted)),
            decks[seat] / n, decks[1 - seat] / n, mine / SCALE_HAND, theirs / SCALE_HAND,
            float(over), float(over and s.result[1] == seat),
            float(over and s.result[1] == 1 - seat))


def _block(s: GridState, h: int, seat: int, own: dict[int, str], cells: int
           ) -> dict[int, float]:
    """Handle h's entries: a function of its zone, controller, face, cell, identity (public,
    or the seat's own held card) and counters.
    `cells`: the grid's."""
    nz, cards = len(ZONES), _card_count()
    base = HEADER + h * (nz + 1 + cells + cards + 3)
    z = s.zone[h]
    if z == _DECK:
        return {base: 1.0}  # a card in a deck: nothing else is known of it
    ours = s.ctrl[h] == seat
    slot = (1 if ours else 2) if z == _HAND else (3 if ours else 4) if z == _GRID else \
        5 if z == _GRAVEYARD else 6
    out = {base + slot: 1.0}
    if s.up[h]:
        out[base + nz] = 1.0
    if s.cell[h] >= 0:
        out[base + nz + 1 + s.cell[h]] = 1.0
    # views.known_id: public, or the seat's own card (one it holds) from its knowledge
    i = s.ident[h]
    if i < 0 and s.holder[h] == seat and h in own:
        i = s.catalogue.index[own[h]]
    if i >= 0:
        out[base + nz + 1 + cells + i] = 1.0
    if s.weaken[h] or s.boost[h] or s.shield[h]:
        tail = base + nz + 1 + cells + cards
        out[tail] = s.weaken[h] / SCALE_VALUE
        out[tail + 1] = s.boost[h] / SCALE_VALUE
        out[tail + 2] = float(s.shield[h])
    return out


def _fields(s: GridState) -> Iterator[tuple[int, ...]]:
    """Per handle, every field its block is made from (but the seat's knowledge)."""
    return zip(s.zone, s.ctrl, s.up, s.cell, s.ident, s.holder, s.weaken, s.boost, s.shield,
               strict=True)


def observe_changes(s: GridState, seat: int, knowledge: GridKnowledge | None,
                    memo: Seen | None) -> tuple[dict[int, float], Seen]:
    """engine/encoding.py `observe_changes`: the entries that differ from the observation
    `memo` describes (one of the same seat, under the same rules), and this one's memo."""
    own = _own(seat, knowledge)
    cells = s.size ** 2
    if memo is None:
        _check(s, seat)
        shape = _shape(s.rules)
        head = _head(s, seat, shape[1], shape[2])
        out = {i: v for i, v in enumerate(head) if v}
        blocks = [_block(s, h, seat, own, cells) for h in range(len(s.zone))]
        for block in blocks:
            out.update(block)
        return out, Seen(seat, shape, s, dict(own), head, blocks)
    was = memo.state
    if memo.seat != seat or (was.rules is not s.rules and was.rules != s.rules):
        raise EncodingError(f"grid observation: a memo of seat {memo.seat} is not one of "
                            f"seat {seat!r} under these rules")
    out: dict[int, float] = {}
    if s is was:
        changed, head = set(), memo.head
    else:
        head = _head(s, seat, memo.shape[1], memo.shape[2])
        if head != memo.head:  # (compress and map: the changed (index, value) pairs, in C)
            out.update(compress(enumerate(head), map(ne, head, memo.head)))
        # one pass over the handles, all their fields together (each field's tuple compared
        # apart costs a pass per field that changed: most of them, between two decisions)
        changed = set(compress(range(len(s.zone)), map(ne, _fields(s), _fields(was))))
    changed |= own_changes(own, memo.own)
    blocks = rewrite_blocks(out, memo.blocks, changed, lambda h: _block(s, h, seat, own, cells))
    return out, Seen(seat, memo.shape, s, memo.own if own == memo.own else dict(own), head,
                     blocks)


def observe(s: GridState, seat: int, knowledge: GridKnowledge | None) -> dict[int, float]:
    return observe_changes(s, seat, knowledge, None)[0]


# --- the action space -------------------------------------------------------------------------
# [end, pass] + place (handle, cell, face) + use handle + pick handle + free handle


def _layout(rules: GridRules) -> tuple[int, int, int, int, int]:
    """(handles, cells, start of place, use, pick), free starting after pick."""
    n, cells = _handles(rules), rules.size ** 2
    place = 2
    use = place + n * cells * 2
    return n, cells, place, use, use + n


def action_count(rules: GridRules) -> int:
    n, _, _, _, pick = _layout(rules)
    return pick + 2 * n


def action_index(s: GridState, inp: GridInput) -> int:
    n, cells, place, use, pick = _layout(s.rules)
    v = inp.verb if isinstance(inp, GridInput) else None
    if v is Verb.END:
        return 0
    if v is Verb.PASS:
        return 1
    if v in (Verb.PLACE, Verb.USE, Verb.PICK, Verb.FREE) and 0 <= inp.handle < n:
        if v is Verb.PLACE:
            c = cell_index(inp.cell, s.rules.size)
            if c >= 0:
                return place + (inp.handle * cells + c) * 2 + int(inp.up)
        else:
            return {Verb.USE: use, Verb.PICK: pick, Verb.FREE: pick + n}[v] + inp.handle
    raise EncodingError(f"grid: input {inp!r:.80} has no action index (a player's input on "
                        "this grid)")


def _input_at(rules: GridRules, index: int) -> GridInput | None:
    n, cells, place, use, pick = _layout(rules)
    if index == 0:
        return GridInput(Verb.END)
    if index == 1:
        return GridInput(Verb.PASS)
    if place <= index < use:
        k, up = divmod(index - place, 2)
        h, c = divmod(k, cells)
        return GridInput(Verb.PLACE, h, cell=cell_name(c, rules.size), up=bool(up))
    for start, verb in ((use, Verb.USE), (pick, Verb.PICK), (pick + n, Verb.FREE)):
        if start <= index < start + n:
            return GridInput(verb, index - start)
    return None


def input_of(s: GridState, index: int) -> Any:
    inp = _input_at(s.rules, index)
    if inp is None or inp not in legal_actions(s):
        raise EncodingError(f"grid: action {index} is not a legal input here")
    return inp


__all__ = ["action_count", "action_index", "input_of", "observation_size",
           "observe"]


def view_parts(view: Any) -> tuple[GridState, int, GridKnowledge]:
    """The public state, seat and a knowledge of every card the view names (the seat's own
    cards among them: `observe` reads the knowledge for the seat's cards only)."""
    if view.state is None:
        raise EncodingError("grid view without its state (made before views carried it)")
    knowledge = GridKnowledge(view.player)
    for h, cid in (*view.hand, *((c.handle, c.card) for c in view.grid)):
        if cid is not None:
            knowledge.learn(h, cid)
    return view.state, view.player, knowledge


@cache
def _shape(rules: GridRules) -> tuple[int, int, bool]:
    """(side, cards per player, shared deck) of `rules` (properties read once per rules)."""
    return rules.size, rules.deck_size, rules.shared


@cache
def _cells(size: int) -> dict[str, int]:
    """cell name -> index on a size x size grid."""
    return {cell_name(c, size): c for c in range(size * size)}


def legal_indices(s: GridState, legal: Sequence[GridInput]) -> list[int]:
    """The index of every legal input in legal order: each input object looked up by id
    (engine/encoding.py `KnownIndices`: the engine's PLACE inputs are built once), the rest
    worked out and kept."""
    if s.finished:
        return []
    known = known_indices(s.rules)
    out = list(map(known.index.get, map(id, legal)))
    if None in out:
        n, cells, place, use, pick = _layout(s.rules)
        where = _cells(s.rules.size)
        for i in compress(range(len(out)), map(is_, out, repeat(None))):
            inp = legal[i]  # `is` against each verb: an Enum's hash is Python code (slow)
            v = inp.verb
            if v is _PLACE:
                j = place + (inp.handle * cells + where[inp.cell]) * 2 + (1 if inp.up else 0)
            elif v is _PICK:
                j = pick + inp.handle
            elif v is _USE:
                j = use + inp.handle
            elif v is _FREE:
                j = pick + n + inp.handle
            else:
                j = action_index(s, inp)
            out[i] = j
            known.add(inp, j)
    return out  # type: ignore[return-value]
