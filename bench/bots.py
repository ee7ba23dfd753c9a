# Bot benchmark: win rates per pairing over many games, and the ISMCTS bot's thinking time per
# decision (median, 95th percentile, max) with the iterations it completed. Games run in
# parallel over the cores (multiprocessing); each game's deal and layout come from its number,
# so a run is reproducible for a given budget.
#
# Duplicate format, as in bridge and poker tournaments: games 2k and 2k+1 play the same deal
# and layout with the seats swapped, so the luck of a deal counts once for each side (between
# two greedy bots a replayed deal goes to the same seat seven times in ten). The printed 95 %
# interval is still the per-game Wilson interval, which the pairing only makes conservative;
# the "deals" column says how many deals A won from both seats, split, or lost from both.
# `--iterations 0` removes the iteration limit (a pure time budget, so heavier iterations compete
# at equal cost); `--jobs 1` plays every game in this process (no pool).
#   .venv/bin/python bench/bots.py [--games 200] [--iterations 0] [--seconds 0.5] [--jobs 2]
from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.cli.argtypes import count, count_or_zero, seconds_up_to
from versus.cli.bots import Budget, IsmctsBot, make_bot
from versus.cli.tournament_stats import wilson
from versus.engine import HashRng
from versus.engine.versus42 import Referee, Ruleset, default_catalogue, random_deal

# the first three are the default run; the tree mode's pairing is there to reproduce its figures
PAIRINGS = (("ismcts", "random"), ("ismcts", "greedy"), ("greedy", "random"),
            ("ismcts-tree", "greedy"))
DEFAULT_PAIRINGS = (0, 1, 2)


def make(name: str, seed: int, budget: Budget):  # type: ignore[no-untyped-def]
    return make_bot(name, seed=seed, budget=budget)


def play_one(task: tuple[int, int, int | None, float]) -> dict[str, object]:
    pairing, game, iterations, seconds = task
    a_name, b_name = PAIRINGS[pairing]
    budget = Budget(iterations=iterations, seconds=seconds)
    ruleset, cat = Ruleset(), default_catalogue()
    seed = b"bench-bots" + (game // 2).to_bytes(4, "big")  # one deal per pair of games
    ids, orders = random_deal(cat, ruleset, HashRng(seed, "deal"))
    a, b = make(a_name, 2 * game, budget), make(b_name, 2 * game + 1, budget)
    a_seat = game % 2  # the pair's second game swaps the seats
    times: list[float] = []
    iters: list[int] = []

    def timed(bot):  # type: ignore[no-untyped-def]
        def choose(view, legal):  # type: ignore[no-untyped-def]
            t0 = time.perf_counter()
            action = bot.choose(view, legal)
            if isinstance(bot, IsmctsBot) and len(legal) > 1:
                times.append(time.perf_counter() - t0)
                iters.append(bot.last_iterations)
            return action
        return choose

    bots = (a, b) if a_seat == 0 else (b, a)
    referee = Referee(ruleset, cat, seed, ids, orders, (timed(bots[0]), timed(bots[1])))
    result = referee.play()
    outcome = "draw" if result.winner is None else ("a" if result.winner == a_seat else "b")
    return {"pairing": pairing, "game": game, "outcome": outcome,
            "turns": referee.state.turn + 1, "times": times, "iters": iters}



def play_all(chosen: list[int], games: int, iterations: int | None, seconds: float,
             jobs: int) -> tuple[list[dict[str, object]], float]:
    """Every game of the chosen pairings over `jobs` processes: (results, wall seconds)."""
    tasks = [(p, g, iterations, seconds) for p in chosen for g in range(games)]
    start = time.perf_counter()
    if jobs == 1:
        results = [play_one(t) for t in tasks]
    else:
        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(play_one, tasks, chunksize=4)
    return results, time.perf_counter() - start


def score(rows: list[dict[str, object]]) -> tuple[int, int, int, float, tuple[float, float]]:
    """(A wins, draws, B wins, A's win rate with draws as half, its 95% interval)."""
    a_w = sum(r["outcome"] == "a" for r in rows)
    d = sum(r["outcome"] == "draw" for r in rows)
    b_w = sum(r["outcome"] == "b" for r in rows)
    return a_w, d, b_w, (a_w + d / 2) / len(rows), wilson(a_w + d / 2, len(rows))


def deal_split(rows: list[dict[str, object]]) -> tuple[int, int, int]:
    """Over the deals played from both seats: (A won both, split or drawn, A lost both)."""
    by_deal: dict[int, list[object]] = {}
    for r in rows:
        by_deal.setdefault(r["game"] // 2, []).append(r["outcome"])  # type: ignore[operator]
    pairs = [o for o in by_deal.values() if len(o) == 2]
    both = sum(o == ["a", "a"] for o in pairs)
    lost = sum(o == ["b", "b"] for o in pairs)
    return both, len(pairs) - both - lost, lost


TARGET_WIN_RATE = {("ismcts", "random"): 0.95,  # SPEC Part 7, "Strength"
                   ("ismcts", "greedy"): 0.65}


def figures(games: int = 200, iterations: int | None = None, seconds: float = 0.5,
            jobs: int | None = None) -> list[dict[str, object]]:
    """Win rate of A per pairing (target where SPEC sets one) and the ISMCTS decision time,
    for bench/run_all.py."""
    chosen = list(DEFAULT_PAIRINGS)
    results, _ = play_all(chosen, games, iterations, seconds,
                          jobs or multiprocessing.cpu_count())
    out: list[dict[str, object]] = []
    for p in chosen:
        _, _, _, rate, (lo, hi) = score([r for r in results if r["pairing"] == p])
        target = TARGET_WIN_RATE.get(PAIRINGS[p])
        out.append({"name": f"bots {PAIRINGS[p][0]} vs {PAIRINGS[p][1]}: win rate "
                            f"({games} games, 95% CI {lo:.0%}-{hi:.0%})",
                    "value": 100 * rate, "unit": "%",
                    "target": None if target is None else 100 * target,
                    "comparison": None if target is None else ">="})
    times = sorted(t for r in results for t in r["times"])  # type: ignore[attr-defined]
    if times:
        budget = (f"{iterations} iterations capped at {seconds:g} s" if iterations
                  else f"{seconds:g} s")
        out.append({"name": f"bots ismcts decision time, median ({budget})",
                    "value": 1000 * statistics.median(times), "unit": "ms", "target": None,
                    "comparison": None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=count, default=200, help="games per pairing")
    ap.add_argument("--iterations", type=count_or_zero, default=0,
                    help="ismcts iterations/decision (0: no limit, the time cap only)")
    ap.add_argument("--seconds", type=seconds_up_to(3600), default=0.5,
                    help="ismcts time cap/decision (checked between playouts; the first "
                         "iteration always completes)")
    ap.add_argument("--jobs", type=count, default=multiprocessing.cpu_count())
    ap.add_argument("--pairings", default=",".join(map(str, DEFAULT_PAIRINGS)),
                    help="indexes into " + repr(PAIRINGS))
    args = ap.parse_args()
    chosen = [int(x) for x in args.pairings.split(",")]
    iterations = args.iterations or None
    results, elapsed = play_all(chosen, args.games, iterations, args.seconds, args.jobs)
    limit = f"{iterations} iterations capped at" if iterations else "no iteration limit,"
    print(f"bots benchmark: {args.games} games per pairing, "
          f"each deal played from both seats, ismcts budget {limit} {args.seconds:g} s, "
          f"{args.jobs} processes, {elapsed:.0f} s")
    print(f"{'pairing':<20} {'games':>5} {'A wins':>6} {'draws':>5} {'B wins':>6} "
          f"{'A win rate':>10} {'95% CI':>13} {'turns':>6} {'deals +/=/-':>12}")
    all_times: list[float] = []
    all_iters: list[int] = []
    for p in chosen:
        rows = [r for r in results if r["pairing"] == p]
        a_w, d, b_w, rate, (lo, hi) = score(rows)
        turns = statistics.median(r["turns"] for r in rows)  # type: ignore[misc]
        name = f"{PAIRINGS[p][0]} vs {PAIRINGS[p][1]}"
        both, split, lost = deal_split(rows)
        print(f"{name:<20} {len(rows):>5} {a_w:>6} {d:>5} {b_w:>6} {rate:>10.1%} "
              f"{lo:>6.1%}-{hi:<6.1%} {turns:>6} {f'{both}/{split}/{lost}':>12}")
        for r in rows:
            all_times += r["times"]  # type: ignore[arg-type]
            all_iters += r["iters"]  # type: ignore[arg-type]
    if all_times:
        all_times.sort()
        p95 = all_times[int(0.95 * (len(all_times) - 1))]
        median = statistics.median(all_times)
        print(f"ismcts decisions: {len(all_times)}, time median {median * 1e3:.0f} ms, "
              f"p95 {p95 * 1e3:.0f} ms, max {all_times[-1] * 1e3:.0f} ms; iterations median "
              f"{statistics.median(all_iters):.0f}, min {min(all_iters)}")
        if iterations is not None:
            capped = sum(i < iterations for i in all_iters)
            print(f"ismcts decisions stopped by the time cap: {capped} "
                  f"({capped / len(all_iters):.1%})")


if __name__ == "__main__":
    main()
