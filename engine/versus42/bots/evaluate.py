# The static evaluation shared by the greedy bot and the ISMCTS leaves (weights: SPEC Part 7).
#
# How it works. It scores a full-information world (a public `State` plus one card id per
# handle, see worlds.py) for one player as score(me) - score(opponent), where a side's score
# counts what wins games of Versus: cards still alive (§1.1, §1.10.3), presence and Strength on the
# field, absorption levels (§1.8: level 4 wins, level 2-3 protect), Backline pressure (a card
# that can Move into the opponent's Backline makes it discard every turn, §1.6.2), and the
# captures its cards threaten (a card next to a weaker enemy absorbs it by moving, §1.7.4),
# counted more for the side about to act. `win_probability` squashes the score into [0, 1]
# for the tree search. It reads the state's flat lists directly: it runs on every leaf.
from __future__ import annotations

import math
from collections.abc import Sequence

from ..catalogue import Catalogue
from ..game import State

W_ALIVE = 10.0  # per card not eliminated (deck + hand + field)
W_FIELD = 2.0  # per card on the field (it can act and block)
W_STRENGTH = 1.0  # per point of current Strength on the field
W_LEVEL = (0.0, 5.0, 11.0, 18.0, 0.0)  # by absorption level (level 4 has already won)
W_BACKLINE = 6.0  # the first card standing in the opponent's Backline
W_NEAR_BACKLINE = 3.0  # else: the first card one Move away from it
W_THREAT_ACTIVE = 0.6  # x the value of the best capture, for the side about to act
W_THREAT_WAITING = 0.25  # x the value of the best capture, for the other side
WIN = 1000.0
SCALE = 25.0  # score difference worth e (2.7) to 1 in odds


def _card_strengths(s: State, ids: Sequence[str], cat: Catalogue) -> dict[int, int]:
    """Current Strength of every field card (hidden ones: printed Strength + Increase)."""
    out = {}
    for h in s.board:
        if h >= 0:
            if s.ident[h] >= 0:
                out[h] = s.strength(h)  # type: ignore[assignment]
            else:
                out[h] = cat.by_id[ids[h]].strength + s.temp[h]
    return out


def evaluate(s: State, ids: Sequence[str], me: int) -> float:
    """score(me) - score(opponent) in a determinized world; +-WIN once the game is over."""
    r = s.result
    if r is not None:
        return 0.0 if r.winner is None else (WIN if r.winner == me else -WIN)
    strengths = _card_strengths(s, ids, s.cat)
    n, board, geom = s.n, s.board, s.geom
    adjacent, backline_of = geom.adjacent, geom.backline_of
    score = [W_ALIVE * s.alive[0], W_ALIVE * s.alive[1]]
    in_back = [False, False]
    near_back = [False, False]
    best_capture = [0.0, 0.0]
    active = s.active
    for area, h in enumerate(board):
        if h < 0:
            continue
        x = h // n
        st = strengths[h]
        lv = len(s.stack[h])
        score[x] += W_FIELD + W_STRENGTH * st + W_LEVEL[min(lv, 4)]
        if backline_of[area] == 1 - x:
            in_back[x] = True
        for b in adjacent[area]:
            if not near_back[x] and backline_of[b] == 1 - x:
                near_back[x] = True
            e = board[b]
            if e >= 0 and e // n != x and strengths[e] < st:
                gain = W_ALIVE + W_FIELD + W_STRENGTH * strengths[e] + W_LEVEL[
                    min(len(s.stack[e]), 4)]
                if gain > best_capture[x]:
                    best_capture[x] = gain
    for x in (0, 1):
        if in_back[x]:
            score[x] += W_BACKLINE
        elif near_back[x]:
            score[x] += W_NEAR_BACKLINE
        score[x] += best_capture[x] * (W_THREAT_ACTIVE if x == active else W_THREAT_WAITING)
    return score[me] - score[1 - me]


def win_probability(value: float) -> float:
    """A score difference as the chance of winning for the scored player."""
    if value >= WIN:
        return 1.0
    if value <= -WIN:
        return 0.0
    return 1.0 / (1.0 + math.exp(-value / SCALE))
