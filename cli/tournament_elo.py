# Elo ratings of a tournament's participants, by maximum likelihood (SPEC §8.3 "Elo").
#
# The model is Bradley-Terry on the Elo scale: participant i scores against j with expectation
# E_ij = 1 / (1 + 10^((R_j - R_i) / 400)). A draw counts as half a win each way. The ratings
# maximise the likelihood of all scored games together (as ordo and bayeselo do, rather than
# rating each player from its overall score against "the field" as cutechess does per match),
# so a gauntlet or an unbalanced round robin is rated consistently. Two choices keep it sane:
#   - a prior of one virtual draw per scheduled pairing, so a perfect score (which has no finite
#     maximum) stays finite and small samples shrink towards equality, as bayeselo's prior does;
#   - ratings are centred: their mean is 0 (only differences mean anything).
# Newton's method on the centred problem converges in a few steps (the log-likelihood is
# concave). The error bar is the 95 % interval, 1.96 standard deviations, from the inverse of
# the Fisher information matrix under the centring constraint (its pseudo-inverse); with two
# participants it is the cutechess interval on the score turned into Elo, split in half between
# the two. Draws are counted as half a win and half a loss, which slightly overstates the
# variance when draws are frequent (the bars err on the wide side).
#
# Pure standard-library Python: tournaments have few participants, so the matrices are tiny.
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ELO_PER_NAT = 400 / math.log(10)
Z95 = 1.959964
PRIOR_DRAWS = 1.0  # virtual draws per scheduled pairing


@dataclass(frozen=True)
class Rating:
    elo: float  # centred: the participants' mean is 0
    margin: float  # half-width of the 95 % interval

    def __str__(self) -> str:
        return f"{self.elo:+.0f} +/- {self.margin:.0f}"


def ratings(players: int, pairings: Iterable[tuple[int, int]],
            games: Iterable[tuple[int, int, float]], *,
            prior_draws: float = PRIOR_DRAWS) -> list[Rating]:
    """Ratings of `players` participants from `games` (i, j, score of i: 1, 0.5 or 0), with
    the prior on every scheduled pairing (i, j). The pairings must connect every participant."""
    if players < 2:
        return [Rating(0.0, 0.0)] * players
    won = [[0.0] * players for _ in range(players)]  # won[i][j]: points i scored against j
    for i, j in pairings:
        won[i][j] += prior_draws / 2
        won[j][i] += prior_draws / 2
    for i, j, score in games:
        won[i][j] += score
        won[j][i] += 1 - score
    beta = [0.0] * players
    for _ in range(100):
        gradient, information = _derivatives(won, beta)
        step = _solve(_centred(information), gradient)
        beta = [b + max(-2.0, min(2.0, s)) for b, s in zip(beta, step, strict=True)]
        mean = sum(beta) / players
        beta = [b - mean for b in beta]
        if max(abs(s) for s in step) < 1e-10:
            break
    _, information = _derivatives(won, beta)
    covariance = _inverse(_centred(information))
    return [Rating(b * ELO_PER_NAT,
                   Z95 * ELO_PER_NAT * math.sqrt(max(0.0, covariance[i][i] - 1 / players)))
            for i, b in enumerate(beta)]


def _derivatives(won: Sequence[Sequence[float]], beta: Sequence[float]
                 ) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log-likelihood and the Fisher information (minus the Hessian)."""
    n = len(beta)
    gradient = [0.0] * n
    information = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            games = won[i][j] + won[j][i]
            if games == 0:
                continue
            p = 1 / (1 + math.exp(beta[j] - beta[i]))
            gradient[i] += won[i][j] - games * p
            gradient[j] -= won[i][j] - games * p
            w = games * p * (1 - p)
            information[i][i] += w
            information[j][j] += w
            information[i][j] -= w
            information[j][i] -= w
    return gradient, information


def _centred(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """matrix + J/n: invertible when the pairings connect everyone; its inverse minus J/n is
    the pseudo-inverse, i.e. the covariance under the constraint sum = 0."""
    n = len(matrix)
    return [[value + 1 / n for value in row] for row in matrix]


def _solve(matrix: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    inverse = _inverse(matrix)
    return [sum(a * b for a, b in zip(row, vector, strict=True)) for row in inverse]


def _inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """Gauss-Jordan with partial pivoting; ValueError on a singular matrix."""
    n = len(matrix)
    rows = [list(row) + [1.0 if i == k else 0.0 for k in range(n)]
            for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            raise ValueError("the pairings do not connect every participant")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col][col]
        rows[col] = [v / head for v in rows[col]]
        for r in range(n):
            if r != col and rows[r][col] != 0:
                factor = rows[r][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [row[n:] for row in rows]
