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
from typing import Any

from ..encoding import EncodingError
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


def observe(s: State, seat: int, knowledge: Knowledge) -> dict[int, float]:
    if seat not in (0, 1):
        raise EncodingError(f"versus42 observation: seat {seat!r} is not 0 or 1")
    if len(s.cat.cards) != _card_count():
        raise EncodingError(f"versus42 observation: card data of {len(s.cat.cards)} cards, "
                            f"the encoding has {_card_count()} (the shipped card data)")
    # what the seat's PlayerView names (views.py `identity`): a public card, or the seat's own
    # card in its hand or on the field from its own knowledge; another seat's never enters
    own = knowledge.cards if knowledge is not None and knowledge.player == seat else {}
    rules, areas = s.rules, _areas(s.rules)
    out: dict[int, float] = {}
    d = s.decision
    out[0] = float(seat)
    out[1] = float(isinstance(d, TurnDecision) and s.active == seat)
    out[2] = float(isinstance(d, ChoiceDecision) and d.player == seat)
    out[3] = float(s.first == seat)
    out[4] = s.turn / SCALE_TURN
    out[5], out[6] = s.deck_n[seat] / s.n, s.deck_n[1 - seat] / s.n
    out[7], out[8] = s.hand_n[seat] / SCALE_COUNT, s.hand_n[1 - seat] / SCALE_COUNT
    out[9], out[10] = s.alive[seat] / SCALE_COUNT, s.alive[1 - seat] / SCALE_COUNT
    if isinstance(d, GameResult):
        out[11] = 1.0
        out[12] = float(d.winner == seat)
        out[13] = float(d.winner == 1 - seat)
    for area, tile in enumerate(s.tiles):
        out[HEADER + area * TILES + tile] = 1.0
    width, nz = handle_width(rules), len(ZONE_NAMES)
    start = HEADER + areas * TILES
    for h in range(2 * s.n):
        base = start + h * width
        out[base + s.zone[h] + (0 if s.owner(h) == seat else nz)] = 1.0
        if s.zone[h] == DECK:
            continue  # a card in a deck: nothing else is known of it
        if s.face[h]:
            out[base + 2 * nz] = 1.0
        if s.zone[h] == FIELD and 0 <= s.pos[h] < areas:
            out[base + 2 * nz + 1 + s.pos[h]] = 1.0
        i = s.ident[h]
        cid = s.cat.cards[i].id if i >= 0 else \
            own.get(h) if s.zone[h] in (HAND, FIELD) and s.owner(h) == seat else None
        tail = base + 2 * nz + 1 + areas + _card_count()
        if cid is not None:
            card = s.cat[cid]
            out[base + 2 * nz + 1 + areas + card.index] = 1.0
            if s.zone[h] == FIELD:
                strength = s.strength(h) if s.ident[h] >= 0 else card.strength + s.temp[h]
                out[tail] = strength / SCALE_STRENGTH
        if s.stack[h]:
            out[tail + 1] = len(s.stack[h]) / SCALE_COUNT
    return out


# --- the action space -------------------------------------------------------------------------
# [end] + flip area + move (area, to) + summon (handle, area, face) + pick handle
# + activate (area, rank)


def _layout(rules: Ruleset) -> tuple[int, int, int, int, int, int, int]:
    """(areas, handles, flip, move, summon, pick, activate) starts."""
    a, n = _areas(rules), 2 * rules.deck_size
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


def legal_indices(s: State, legal: Sequence[Action]) -> list[int]:
    """The index of every legal input, in legal order, each Activate's rank counted once (the
    hot path of an environment step: fields read by position, the layout worked out once)."""
    if isinstance(s.decision, GameResult):
        return []
    a, _, flip, move, summon, pick, activate = _layout(s.rules)
    index, out = s.geom.index, []
    ranks: dict[int, int] = {}
    for x in legal:  # an Action is (kind, handle, area, to, recto, source, targets)
        k = x[0]
        if k is _SUMMON:
            out.append(summon + (x[1] * a + index[x[2]]) * 2 + (1 if x[4] else 0))
        elif k is _ACTIVATE:
            area = index[x[2]]
            rank = ranks[area] = ranks.get(area, -1) + 1
            if rank >= ACTIVATE_RANKS:
                raise EncodingError(f"versus42: {x} is Activate {rank + 1} of its card, past "
                                    f"the encoding's {ACTIVATE_RANKS}")
            out.append(activate + area * ACTIVATE_RANKS + rank)
        elif k is _MOVE:
            out.append(move + index[x[2]] * a + index[x[3]])
        elif k is _FLIP:
            out.append(flip + index[x[2]])
        elif k is _PICK:
            out.append(pick + x[1])
        else:
            out.append(0)  # end
    return out
