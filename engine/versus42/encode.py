# Versus as a research environment (SPEC Part 3, "Observation and action encoding"): one seat's
# observation as a fixed-length list of floats, and every TURN/CHOICE input as an index in a
# fixed action space (engine/encoding.py says what the members are for).
#
# How: the observation is a header (whose turn, counts, the tile of every area), then one block
# per card handle in handle order. A card's identity is set by the rule of the seat's own
# `PlayerView.identity` (views.py), so exactly what the view names enters and nothing it hides
# (tests/engine/test_encoding.py compares the two). Zones and
# owners are relative to the seat, so one policy plays both seats.
#
# The action space: a slot per (kind, handle, area, face) for end, flip, move, summon and pick.
# An Activate names up to MAX_TARGETS areas (a copied Active adds the copied card's targets),
# far too many combinations for a slot each, so its slot is (area, rank): its rank among the
# legal Activates of the card on that area (every source and target list), in the game's legal
# order (deterministic, and a function of the public state, so the same in every state of one
# information set). ACTIVATE_RANKS bounds the rank (Decided: 512; random play reaches ~120, as
# one Active names at most two areas and a copied one adds the copied card's); a position past
# it raises EncodingError rather than hide a legal input.
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import compress, repeat
from operator import eq, is_, le, ne
from typing import Any, NamedTuple

from ..encoding import (
    EncodingError,
    KnownIndices,
    changed_handles,
    known_indices,
    own_changes,
    rewrite_blocks,
    write_diff,
)
from .actions import Action, ActionKind
from .catalogue import default_catalogue
from .decisions import ChoiceDecision, GameResult, TurnDecision
from .game import DECK, FIELD, HAND, ZONE_NAMES, State, legal_actions
from .ruleset import Ruleset
from .views import Knowledge

#: header: seat, my turn, my choice, I play first, turn/100, my deck/n, their deck/n, my hand/10,
#: their hand/10, my alive/10, their alive/10, finished, I won, they won
HEADER = 14
TILES = 4  # white, black, gray, blue
ACTIVATE_RANKS = 512
SCALE_TURN, SCALE_COUNT, SCALE_STRENGTH = 100.0, 10.0, 10.0
_SUMMON, _FLIP, _ACTIVATE, _MOVE, _PICK = (ActionKind.SUMMON, ActionKind.FLIP,
                                           ActionKind.ACTIVATE, ActionKind.MOVE, ActionKind.PICK)


@cache
def _card_count() -> int:
    return len(default_catalogue().cards)


def _areas(rules: Ruleset) -> int:
    return rules.geometry.size


def handle_width(rules: Ruleset) -> int:
    """zone one-hot (6, mine) + zone one-hot (6, theirs), face up, area one-hot, card
    one-hot, strength, level."""
    return 2 * len(ZONE_NAMES) + 1 + _areas(rules) + _card_count() + 2


def observation_size(rules: Ruleset) -> int:
    return HEADER + _areas(rules) * TILES + 2 * rules.deck_size * handle_width(rules)


class _Layout(NamedTuple):
    """Where a state's blocks sit under one rules (`_layout_of`)."""

    areas: int
    width: int  # one handle's block
    start: int  # the first handle's block
    card: int  # the card one-hot within a block
    tail: int  # Strength, then level, within a block


def _layout_of(rules: Ruleset) -> _Layout:
    areas, nz = _areas(rules), len(ZONE_NAMES)
    card = 2 * nz + 1 + areas
    return _Layout(areas, handle_width(rules), HEADER + areas * TILES, card, card + _card_count())


class Seen(NamedTuple):
    """The memo of one observation (engine/encoding.py `observe_changes`): the state and
    the seat's own cards it was made from (a state is immutable: `step` returns a new one),
    and its entries by part, so the next call rebuilds only the handles that differ and
    clears their old entries without working them out again."""

    seat: int
    lay: _Layout
    state: State
    own: dict[int, str]
    header: tuple[float, ...]
    blocks: list[dict[int, float]]  # per handle, its entries but its Strength
    strengths: dict[int, float]  # field card (identity known) -> its Strength entry


def _check(s: State, seat: int) -> None:
    if seat not in (0, 1):
        raise EncodingError(f"versus42 observation: seat {seat!r} is not 0 or 1")
    if len(s.cat.cards) != _card_count():
        raise EncodingError(f"versus42 observation: card data of {len(s.cat.cards)} cards, "
                            f"the encoding has {_card_count()} (the shipped card data)")


def _own(seat: int, knowledge: Knowledge | None) -> dict[int, str]:
    """What the seat's PlayerView names beyond the public state (views.py `identity`): its own
    cards in hand or on the field, from its own knowledge; another seat's never enters."""
    return knowledge.cards if knowledge is not None and knowledge.player == seat else {}


def _header(s: State, seat: int) -> tuple[float, ...]:
    d = s.decision
    over = isinstance(d, GameResult)
    return (float(seat), float(isinstance(d, TurnDecision) and s.active == seat),
            float(isinstance(d, ChoiceDecision) and d.player == seat), float(s.first == seat),
            s.turn / SCALE_TURN, s.deck_n[seat] / s.n, s.deck_n[1 - seat] / s.n,
            s.hand_n[seat] / SCALE_COUNT, s.hand_n[1 - seat] / SCALE_COUNT,
            s.alive[seat] / SCALE_COUNT, s.alive[1 - seat] / SCALE_COUNT, float(over),
            float(over and d.winner == seat), float(over and d.winner == 1 - seat))


def _block(s: State, h: int, seat: int, own: dict[int, str], lay: _Layout
           ) -> dict[int, float]:
    """Handle h's entries but its Strength: a function of its zone, recto, area, identity
    (public or the seat's own) and level."""
    zone = s.zone[h]
    base = lay.start + h * lay.width
    nz = len(ZONE_NAMES)
    out = {base + zone + (0 if h // s.n == seat else nz): 1.0}
    if zone == DECK:
        return out  # a card in a deck: nothing else is known of it
    if s.face[h]:
        out[base + 2 * nz] = 1.0
    pos = s.pos[h]
    if zone == FIELD and 0 <= pos < lay.areas:
        out[base + 2 * nz + 1 + pos] = 1.0
    i = s.ident[h]
    if i >= 0:
        out[base + lay.card + s.cat.cards[i].index] = 1.0
    elif zone in (HAND, FIELD) and h in own and h // s.n == seat:
        out[base + lay.card + s.cat[own[h]].index] = 1.0
    if s.stack[h]:
        out[base + lay.tail + 1] = len(s.stack[h]) / SCALE_COUNT
    return out


def _strengths(s: State, seat: int, own: dict[int, str], lay: _Layout) -> dict[int, float]:
    """The Strength entry of every field card the seat's view names (index -> value):
    recomputed every call, since a neighbour or a battle changes it (a few cards)."""
    out = {}
    ident, start, width, tail = s.ident, lay.start, lay.width, lay.tail
    for h in compress(range(len(ident)), map(eq, s.zone, repeat(FIELD))):
        if ident[h] >= 0:
            strength = s.strength(h)
        elif h in own and h // s.n == seat:  # the seat's own card, face down
            strength = s.cat[own[h]].strength + s.temp[h]
        else:
            continue
        out[start + h * width + tail] = strength / SCALE_STRENGTH
    return out


def _same_strengths(s: State, was: State, changed: set[int]) -> bool:
    """Whether every field card's Strength is the one of `was` (game.py `_strength`: a
    function of the cards' zones, faces, areas, identities, increases and levels, the board
    and the battle): no handle changed (`changed` covers the seat's own names too), the same
    increases and the same board. The step shares an unwritten list with its parent, so most
    of this is an identity test."""
    return (not changed and (s.temp is was.temp or s.temp == was.temp)
            and s.board == was.board and s.battle == was.battle and s.tiles == was.tiles)


def _next_door(s: State, h: int) -> bool:
    """Whether field card h's Strength reads its neighbours (a recto card whose continuous
    bonus counts the adjacent cards: game.py `_strength`, kind 1), so the board or a battle
    changes it though the card itself did not change."""
    i = s.ident[h]
    if i < 0 or not s.face[h]:
        return False
    cont = s.static.cont[i]
    return cont is not None and cont[0] == 1


def _strengths_again(s: State, was: State, seat: int, own: dict[int, str], lay: _Layout,
                     old: dict[int, float], changed: set[int], out: dict[int, float]
                     ) -> dict[int, float]:
    """`_strengths` from the last ones (same tiles): recomputed only for the handles that
    changed, whose increase changed, and the field cards that read their neighbours; the
    changed entries written into `out`. A field card's Strength is otherwise a function of
    its own zone, face, area, identity, increase and level (game.py `_strength`)."""
    redo = set(changed)
    if s.temp is not was.temp:
        redo.update(compress(range(len(s.temp)), map(ne, s.temp, was.temp)))
    start, width, tail, ident = lay.start, lay.width, lay.tail, s.ident
    field = s.zone
    for idx in old:  # (the last field cards: few) those that read their neighbours
        h = (idx - start) // width
        if h not in redo and _next_door(s, h):
            redo.add(h)
    new = old.copy()
    for h in redo:
        idx = start + h * width + tail
        value: float | None = None
        if field[h] == FIELD:
            if ident[h] >= 0:
                value = s.strength(h) / SCALE_STRENGTH  # type: ignore[operator]
            elif h in own and h // s.n == seat:  # the seat's own card, face down
                value = (s.cat[own[h]].strength + s.temp[h]) / SCALE_STRENGTH
        if value is None:
            if new.pop(idx, None) is not None:
                out[idx] = 0.0
        elif old.get(idx) != value:
            new[idx] = out[idx] = value
    return new


def observe_changes(s: State, seat: int, knowledge: Knowledge | None, memo: Seen | None
                    ) -> tuple[dict[int, float], Seen]:
    """engine/encoding.py `observe_changes`: the entries that differ from the observation
    `memo` describes (one of the same seat, under the same rules), and this one's memo."""
    own = _own(seat, knowledge)
    if memo is None:
        _check(s, seat)
        return _whole(s, seat, own)
    if memo.seat != seat or (memo.state.rules is not s.rules and memo.state.rules != s.rules):
        raise EncodingError(f"versus42 observation: a memo of seat {memo.seat} is not one of "
                            f"seat {seat!r} under these rules")
    lay, was, out = memo.lay, memo.state, {}
    if s is was and own == memo.own:
        return out, memo
    header = _header(s, seat)
    if header != memo.header:  # (compress and map: the changed (index, value) pairs, in C)
        out.update(compress(enumerate(header), map(ne, header, memo.header)))
    if s.tiles != was.tiles:  # (a memo of another game)
        out.update((HEADER + area * TILES + tile, 0.0) for area, tile in enumerate(was.tiles))
        out.update((HEADER + area * TILES + tile, 1.0) for area, tile in enumerate(s.tiles))
    changed = changed_handles(((s.zone, was.zone), (s.face, was.face), (s.pos, was.pos),
                               (s.ident, was.ident), (s.stack, was.stack)))
    changed |= own_changes(own, memo.own)
    blocks = rewrite_blocks(out, memo.blocks, changed, lambda h: _block(s, h, seat, own, lay))
    if _same_strengths(s, was, changed):
        strengths = memo.strengths
    elif s.tiles != was.tiles:
        strengths = _strengths(s, seat, own, lay)
        write_diff(out, strengths, memo.strengths)
    else:
        strengths = _strengths_again(s, was, seat, own, lay, memo.strengths, changed, out)
    return out, Seen(seat, lay, s, memo.own if own == memo.own else dict(own), header, blocks,
                     strengths)


def _whole(s: State, seat: int, own: dict[int, str]) -> tuple[dict[int, float], Seen]:
    """The whole observation (its nonzero entries) and its memo."""
    lay = _layout_of(s.rules)
    header = _header(s, seat)
    out = {i: v for i, v in enumerate(header) if v}
    out.update((HEADER + area * TILES + tile, 1.0) for area, tile in enumerate(s.tiles))
    blocks = [_block(s, h, seat, own, lay) for h in range(len(s.zone))]
    for block in blocks:
        out.update(block)
    strengths = _strengths(s, seat, own, lay)
    out.update(strengths)
    return out, Seen(seat, lay, s, dict(own), header, blocks, strengths)


def observe(s: State, seat: int, knowledge: Knowledge | None) -> dict[int, float]:
    return observe_changes(s, seat, knowledge, None)[0]


# --- the action space -------------------------------------------------------------------------
# [end] + flip area + move (area, to) + summon (handle, area, face) + pick handle
# + activate (area, rank)


def _layout(rules: Ruleset) -> tuple[int, int, int, int, int, int, int]:
    """(areas, handles, flip, move, summon, pick, activate) starts."""
    return _layout_by_size(_areas(rules), 2 * rules.deck_size)


@cache
def _layout_by_size(a: int, n: int) -> tuple[int, int, int, int, int, int, int]:
    """`_layout` of a areas and n handles (a state's own sizes: the rules' geometry is a
    property worth ~10 k instructions, too dear for every step)."""
    flip = 1
    move = flip + a
    summon = move + a * a
    pick = summon + n * a * 2
    activate = pick + n
    return a, n, flip, move, summon, pick, activate


def action_count(rules: Ruleset) -> int:
    a, *_, activate = _layout(rules)
    return activate + a * ACTIVATE_RANKS


def _rank(legal: list[Any], act: Action) -> int:
    same = [x for x in legal if x.kind is ActionKind.ACTIVATE and x.area == act.area]
    return same.index(act) if act in same else -1


def action_index(s: State, inp: Action) -> int:
    a, n, flip, move, summon, pick, activate = _layout(s.rules)
    index = s.geom.index
    if isinstance(inp, Action):
        k = inp.kind
        if k is ActionKind.END:
            return 0
        if k is ActionKind.FLIP and inp.area in index:
            return flip + index[inp.area]
        if k is ActionKind.MOVE and inp.area in index and inp.to in index:
            return move + index[inp.area] * a + index[inp.to]
        if k is ActionKind.SUMMON and inp.area in index and 0 <= inp.handle < n:
            return summon + (inp.handle * a + index[inp.area]) * 2 + int(inp.recto)
        if k is ActionKind.PICK and 0 <= inp.handle < n:
            return pick + inp.handle
        if k is ActionKind.ACTIVATE and inp.area in index:
            rank = _rank(list(legal_actions(s)), inp)
            if 0 <= rank < ACTIVATE_RANKS:
                return activate + index[inp.area] * ACTIVATE_RANKS + rank
    raise EncodingError(f"versus42: input {inp!r:.80} has no action index here")


def input_of(s: State, index: int) -> Action:
    a, _, flip, move, summon, pick, activate = _layout(s.rules)
    names = s.geom.names
    legal = list(legal_actions(s)) if not isinstance(s.decision, GameResult) else []
    inp: Action | None = None
    if index == 0:
        inp = Action.end()
    elif flip <= index < move:
        inp = Action.flip(names[index - flip])
    elif move <= index < summon:
        src, dst = divmod(index - move, a)
        inp = Action.move(names[src], names[dst])
    elif summon <= index < pick:
        k, recto = divmod(index - summon, 2)
        h, area = divmod(k, a)
        inp = Action.summon(h, names[area], bool(recto))
    elif pick <= index < activate:
        inp = Action.pick(index - pick)
    elif activate <= index < action_count(s.rules):
        area, rank = divmod(index - activate, ACTIVATE_RANKS)
        same = [x for x in legal if x.kind is ActionKind.ACTIVATE and x.area == names[area]]
        inp = same[rank] if rank < len(same) else None
    if inp is None or inp not in legal:
        raise EncodingError(f"versus42: action {index} is not a legal input here")
    return inp


def _learn(s: State, legal: Sequence[Action], out: list[int | None], known: KnownIndices) -> None:
    """Work out (and keep) the index of each Action `out` has none for yet."""
    a, _, flip, move, summon, pick, activate = _layout(s.rules)
    index = s.geom.index
    for i in compress(range(len(out)), map(is_, out, repeat(None))):
        x = legal[i]  # an Action is (kind, handle, area, to, recto, source, targets)
        k = x[0]
        if k is _SUMMON:
            j = summon + (x[1] * a + index[x[2]]) * 2 + (1 if x[4] else 0)
        elif k is _ACTIVATE:
            j = activate + index[x[2]] * ACTIVATE_RANKS
        elif k is _MOVE:
            j = move + index[x[2]] * a + index[x[3]]
        elif k is _FLIP:
            j = flip + index[x[2]]
        elif k is _PICK:
            j = pick + x[1]
        else:
            j = 0  # end
        out[i] = j
        known.add(x, j)  # (an Activate's: its area's rank 0, `legal_indices` ranks it)


def legal_indices(s: State, legal: Sequence[Action]) -> list[int]:
    """The index of every legal input, in legal order (the hot path of an environment step:
    each Action object looked up by id, engine/encoding.py `KnownIndices`; the Activates
    then ranked per area)."""
    if s.result is not None:
        return []
    index = known_indices(s.rules).index
    try:  # (a miss raises: no second pass over the list to look for one)
        out = list(map(index.__getitem__, map(id, legal)))
    except KeyError:
        known = known_indices(s.rules)
        out = list(map(known.index.get, map(id, legal)))
        _learn(s, legal, out, known)
    first = _layout_by_size(s.geom.size, 2 * s.n)[-1]
    # the Activates' slots are the space's last part: max (in C) says if there is any
    if out and max(out) >= first:
        _rank_activates(s, out, first)  # type: ignore[arg-type]
    return out  # type: ignore[return-value]


def _rank_activates(s: State, out: list[int], first: int) -> None:
    """Add to each Activate's slot (its area's rank 0) its rank among that area's Activates
    in legal order: an area's Activates come together (one run), and a run of an area met
    before continues its ranks. One loop over the Activates alone (found in C): groupby's
    run objects cost more than this for the few runs a list has."""
    seen: dict[int, int] = {}  # slot -> how many Activates of that area so far
    prev = at = -1
    for i in compress(range(len(out)), map(le, repeat(first), out)):
        slot = out[i]
        if slot != prev:
            if prev >= 0:
                seen[prev] = at - prev
            prev, at = slot, slot + seen.get(slot, 0)
        if at - slot >= ACTIVATE_RANKS:
            area = s.geom.names[(slot - first) // ACTIVATE_RANKS]
            raise EncodingError(f"versus42: the card on {area} has more than "
                                f"{ACTIVATE_RANKS} Activates here, past the encoding's "
                                f"{ACTIVATE_RANKS}")
        out[i] = at
        at += 1
