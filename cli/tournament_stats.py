# The statistics of a two-sided comparison in `versus tournament` (SPEC §8.3 "Paired deals,
# pentanomial, SPRT"): pentanomial counts of paired games, Elo and normalized Elo with their
# 95 % intervals, and the generalized SPRT, following fastchess (elo_pentanomial.cpp,
# elo_wdl.cpp, sprt.cpp) and fishtest (Michel Van den Bergh, "Comments on Normalized Elo").
#
# Paired deals. Each deal is played twice with the seats swapped; a pair scores 0, ¼, ½, ¾ or
# 1 for the first participant (its two game scores summed and halved), so the pentanomial
# counts are LL, LD, DD+WL, WD, WW. Their mean is the score; their variance per pair, over the
# pairs, is the variance of the mean: Elo = -400·log10(1/s - 1), its 95 % interval the Elo of
# s ± 1.959964·sqrt(var/pairs) (half the difference); normalized Elo = (s - ½) / sqrt(2·var) ·
# 800/ln 10 (the pair's variance halved to a per-game one), its interval likewise. Unpaired
# games use the trinomial (L, D, W) the same way, per game, with nElo = (s - ½)/sqrt(var) ·
# 800/ln 10. A score of exactly 0 or 1 has an infinite Elo (None in JSON) and no interval:
# it is printed as the bound the games give (Estimate._one_sided), not as "-inf +/- 0".
#
# SPRT (GSPRT on the pentanomial, or the trinomial when unpaired): the empirical frequencies
# (a zero count regularized to 1e-3, as fastchess does) are fitted by maximum likelihood under
# each hypothesis, H0 "Elo = elo0" and H1 "Elo = elo1"; LLR = N · Σ p̂_i·log(p1_i/p0_i) over the
# N pairs (or games). Logistic model: the constrained MLE is p_i = p̂_i / (1 + θ(a_i - s)) with
# θ solving Σ p̂_i (a_i - s)/(1 + θ(a_i - s)) = 0 (Van den Bergh, proposition 1.1), s the score
# of the Elo; normalized model: the iteration of section 4.1 for t = (μ - ½)/σ with t = elo ·
# sqrt(2) / (800/ln 10) on pairs (elo / (800/ln 10) on games). Bounds: lower = log(β/(1-α)),
# upper = log((1-β)/α); LLR ≥ upper accepts H1, LLR ≤ lower accepts H0.
#
# `--sprt` grammar: `elo0=E0,elo1=E1,alpha=A,beta=B[,model=logistic|normalized]` (any order,
# every key but model required; elo0 < elo1, 0 < alpha, beta < 1, alpha + beta < 1).
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959964
NELO_PER_T = 800 / math.log(10)
PENTA_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
TRI_SCORES = (0.0, 0.5, 1.0)
PENTA_LABELS = ("LL", "LD", "DD+WL", "WD", "WW")
TRI_LABELS = ("L", "D", "W")


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate `wins / n` (draws as half wins): the
    benchmarks' intervals for bot strength and card balance. (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def score_to_elo(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_to_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True)
class Estimate:
    """Elo and normalized Elo of the first side, with their 95 % half-intervals."""

    samples: int  # pairs (pentanomial) or games (trinomial)
    score: float
    elo: float
    elo_margin: float
    nelo: float
    nelo_margin: float
    los: float  # likelihood of superiority, 0..1
    games: int = 0  # the games behind `samples` (two per pair)

    def to_dict(self) -> dict[str, float | int | None]:
        def finite(x: float) -> float | None:
            return round(x, 2) if math.isfinite(x) else None

        return {"samples": self.samples, "score": round(self.score, 4), "elo": finite(self.elo),
                "elo_margin": finite(self.elo_margin), "nelo": finite(self.nelo),
                "nelo_margin": finite(self.nelo_margin), "los": round(self.los, 4)}

    def __str__(self) -> str:
        if not math.isfinite(self.elo):
            return self._one_sided()
        return (f"Elo {_signed(self.elo)} +/- {_plain(self.elo_margin)}, "
                f"nElo {_signed(self.nelo)} +/- {_plain(self.nelo_margin)}, "
                f"LOS {100 * self.los:.1f} %")


    def _one_sided(self) -> str:
        """A score of 0 or 1 has no finite Elo and no interval around it (not "-inf +/- 0"):
        what the games do say is a bound, the Elo of the 95 % Wilson bound of the score."""
        low, high = wilson(self.score * self.games, self.games)
        if self.score <= 0:
            return f"Elo below {_signed(score_to_elo(high))} (all lost), LOS 0.0 %"
        return f"Elo above {_signed(score_to_elo(low))} (all won), LOS 100.0 %"


def _signed(x: float) -> str:
    return f"{x:+.1f}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _plain(x: float) -> str:
    return f"{x:.1f}" if math.isfinite(x) else "inf"


def estimate(counts: Sequence[int]) -> Estimate | None:
    """The estimate from pentanomial (5 counts, LL..WW) or trinomial (3 counts, L, D, W)
    counts; None without a sample."""
    scores = PENTA_SCORES if len(counts) == 5 else TRI_SCORES
    if len(counts) not in (3, 5):
        raise ValueError("give 3 (L, D, W) or 5 (LL, LD, DD+WL, WD, WW) counts")
    n = sum(counts)
    if n == 0:
        return None
    probs = [c / n for c in counts]
    score, variance = _mean_variance(scores, probs)
    spread = Z95 * math.sqrt(variance / n)
    low, high = score - spread, score + spread
    per_game = 2 * variance if len(counts) == 5 else variance  # nElo: a per-game deviation

    def nelo(s: float) -> float:
        if per_game == 0:
            return 0.0 if s == 0.5 else math.copysign(math.inf, s - 0.5)
        return (s - 0.5) / math.sqrt(per_game) * NELO_PER_T

    margin = (score_to_elo(high) - score_to_elo(low)) / 2 if spread else 0.0
    nelo_margin = (nelo(high) - nelo(low)) / 2 if spread else 0.0
    if variance == 0:
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    else:
        los = (1 - math.erf(-(score - 0.5) / math.sqrt(2 * variance / n))) / 2
    games = 2 * n if len(counts) == 5 else n
    return Estimate(n, score, score_to_elo(score), margin, nelo(score), nelo_margin, los, games)


def _mean_variance(scores: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(a * p for a, p in zip(scores, probs, strict=True))
    return mu, sum(p * (a - mu) ** 2 for a, p in zip(scores, probs, strict=True))


# --- counting ----------------------------------------------------------------------------------


def pentanomial(pairs: Sequence[tuple[float, float]]) -> tuple[int, int, int, int, int]:
    """LL, LD, DD+WL, WD, WW from the first side's scores (1, ½, 0) in each pair's two games."""
    counts = [0] * 5
    for a, b in pairs:
        counts[round(2 * (a + b))] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def trinomial(games: Sequence[float]) -> tuple[int, int, int]:
    """L, D, W from the first side's game scores."""
    counts = [0, 0, 0]
    for s in games:
        counts[round(2 * s)] += 1
    return (counts[0], counts[1], counts[2])


# --- SPRT --------------------------------------------------------------------------------------


class SprtError(ValueError):
    """A --sprt spec that does not parse (one line)."""


@dataclass(frozen=True)
class Sprt:
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str = "logistic"

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, float | str]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": self.model}

    def __str__(self) -> str:
        return (f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},"
                f"beta={self.beta:g},model={self.model}")

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 against H0 from pentanomial or trinomial counts."""
        if sum(counts) == 0:
            return 0.0
        scores = PENTA_SCORES if len(counts) == 5 else TRI_SCORES
        regular = [c if c else 1e-3 for c in counts]
        total = sum(regular)
        probs = [c / total for c in regular]
        if self.model == "normalized":
            scale = math.sqrt(2) if len(counts) == 5 else 1.0
            p0 = _mle_normalized(scores, probs, scale * self.elo0 / NELO_PER_T)
            p1 = _mle_normalized(scores, probs, scale * self.elo1 / NELO_PER_T)
        else:
            p0 = _mle_logistic(scores, probs, elo_to_score(self.elo0))
            p1 = _mle_logistic(scores, probs, elo_to_score(self.elo1))
        return total * sum(p * (math.log(b) - math.log(a))
                           for p, a, b in zip(probs, p0, p1, strict=True))

    def verdict(self, llr: float) -> str | None:
        """"H1" (elo1 accepted), "H0" (elo0 accepted) or None (go on)."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def parse_sprt(text: str) -> Sprt:
    """`elo0=E0,elo1=E1,alpha=A,beta=B[,model=logistic|normalized]`; SprtError (one line)."""
    values: dict[str, str] = {}
    for item in text.split(","):
        key, eq, value = item.strip().partition("=")
        if not eq or key not in ("elo0", "elo1", "alpha", "beta", "model"):
            raise SprtError(f"--sprt {text!r}: expected elo0=E0,elo1=E1,alpha=A,beta=B"
                            f"[,model=logistic|normalized], got {item.strip()!r}")
        if key in values:
            raise SprtError(f"--sprt {text!r}: {key} given twice")
        values[key] = value.strip()
    missing = [k for k in ("elo0", "elo1", "alpha", "beta") if k not in values]
    if missing:
        raise SprtError(f"--sprt {text!r}: missing {', '.join(missing)}")
    numbers: dict[str, float] = {}
    for key in ("elo0", "elo1", "alpha", "beta"):
        try:
            numbers[key] = float(values[key])
        except ValueError:
            raise SprtError(f"--sprt {text!r}: {key}={values[key]!r} is not a number") \
                from None
        if not math.isfinite(numbers[key]):
            raise SprtError(f"--sprt {text!r}: {key} must be finite")
    model = values.get("model", "logistic")
    if model not in ("logistic", "normalized"):
        raise SprtError(f"--sprt {text!r}: model must be logistic or normalized")
    if numbers["elo0"] >= numbers["elo1"]:
        raise SprtError(f"--sprt {text!r}: elo0 must be less than elo1")
    for key in ("alpha", "beta"):
        if not 0 < numbers[key] < 1:
            raise SprtError(f"--sprt {text!r}: {key} must be between 0 and 1")
    if numbers["alpha"] + numbers["beta"] >= 1:
        raise SprtError(f"--sprt {text!r}: alpha + beta must be less than 1")
    return Sprt(numbers["elo0"], numbers["elo1"], numbers["alpha"], numbers["beta"], model)


def _root(f, low: float, high: float, tolerance: float) -> float:  # type: ignore[no-untyped-def]
    """The root of a decreasing f on the open interval (low, high) (f → +inf at low, → -inf at
    high), by bisection (fastchess uses ITP, a faster bisection with the same answer)."""
    for _ in range(200):
        mid = (low + high) / 2
        if high - low <= 2 * tolerance:
            return mid
        value = f(mid)
        if value == 0:
            return mid
        if value > 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _mle_logistic(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution nearest (maximum likelihood) the empirical one with mean s."""
    low, high = -1 / (scores[-1] - s), -1 / (scores[0] - s)

    def f(x: float) -> float:
        return sum(p * (a - s) / (1 + x * (a - s)) for a, p in zip(scores, probs, strict=True))

    theta = _root(f, low, high, 1e-10)
    return [p / (1 + theta * (a - s)) for a, p in zip(scores, probs, strict=True)]


def _mle_normalized(scores: Sequence[float], probs: Sequence[float], t: float) -> list[float]:
    """The maximum likelihood distribution with (mean - ½)/sd = t (fishtest's section 4.1)."""
    p = [1 / len(scores)] * len(scores)
    for _ in range(1000):
        mu, var = _mean_variance(scores, p)
        sigma = math.sqrt(var)
        phi = [a - 0.5 - 0.5 * t * sigma * (1 + ((a - mu) / sigma) ** 2) for a in scores]
        low, high = -1 / max(phi), -1 / min(phi)

        def f(x: float, phi: list[float] = phi) -> float:
            return sum(q * v / (1 + x * v) for q, v in zip(probs, phi, strict=True))

        theta = _root(f, low, high, 1e-10)
        new = [q / (1 + theta * v) for q, v in zip(probs, phi, strict=True)]
        done = max(abs(a - b) for a, b in zip(new, p, strict=True)) < 1e-7
        p = new
        if done:
            break
    return p
