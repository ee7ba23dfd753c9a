# Engine benchmark: random self-play through the referee on one core. Prints a table of
# applied inputs per second (legal-action generation included: the random players ask for the
# full legal list at every turn/choice decision), full games per second, clone cost and the
# canonical public state size; each figure is the median of several runs.
#   .venv/bin/python bench/engine.py [--games N] [--runs R] [--order ordered|any]
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.cli.argtypes import count
from versus.engine import HashRng
from versus.engine.versus42 import (
    Referee,
    Ruleset,
    default_catalogue,
    encode_state,
    random_chooser,
    random_deal,
    state_hash,
)


def run_once(games: int, ruleset: Ruleset, run: int) -> dict[str, float]:
    cat = default_catalogue()
    steps = 0
    sizes = []
    turns = []
    start = time.perf_counter()
    for g in range(games):
        seed = run.to_bytes(2, "big") + g.to_bytes(4, "big")
        ids, orders = random_deal(cat, ruleset, HashRng(seed, "deal"))
        ref = Referee(ruleset, cat, seed, ids, orders,
                      (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))
        ref.play()
        steps += ref.steps
        turns.append(ref.state.turn + 1)
        sizes.append(len(encode_state(ref.state)))
    elapsed = time.perf_counter() - start
    # clone and hash costs on a mid-game state
    s = ref.state
    t0 = time.perf_counter()
    for _ in range(10000):
        s.clone()
    clone_us = (time.perf_counter() - t0) / 10000 * 1e6
    t0 = time.perf_counter()
    for _ in range(2000):
        state_hash(s)
    hash_us = (time.perf_counter() - t0) / 2000 * 1e6
    return {"inputs/s": steps / elapsed, "games/s": games / elapsed,
            "inputs/game": steps / games, "turns/game": statistics.mean(turns),
            "state bytes": statistics.median(sizes), "clone us": clone_us, "hash us": hash_us}


def medians(order: str, games: int, runs: int, deck: int = 12, hand: int = 3
            ) -> dict[str, float]:
    """Each figure of run_once, the median over `runs` runs of `games` games."""
    rs = Ruleset.from_options(action_order=order, deck_size=deck, hand_size=hand)
    results = [run_once(games, rs, r) for r in range(runs)]
    return {k: statistics.median(r[k] for r in results) for k in results[0]}


def figures(games: int = 300, runs: int = 5) -> list[dict[str, object]]:
    """The headline figures for bench/run_all.py, with the engine's targets (default rules:
    at least 20,000 applied inputs/s, legal-action generation included, and 150 games/s)."""
    out: list[dict[str, object]] = []
    for order in ("ordered", "any"):
        med = medians(order, games, runs)
        out += [
            {"name": f"engine {order}: inputs/s", "value": med["inputs/s"], "unit": "/s",
             "target": 20_000, "comparison": ">="},
            {"name": f"engine {order}: games/s", "value": med["games/s"], "unit": "/s",
             "target": 150, "comparison": ">="},
            {"name": f"engine {order}: state bytes", "value": med["state bytes"], "unit": "B",
             "target": None, "comparison": None},
        ]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=count, default=300)
    ap.add_argument("--runs", type=count, default=5)
    ap.add_argument("--order", choices=("ordered", "any"), default=None)
    ap.add_argument("--deck", type=count, default=12)
    ap.add_argument("--hand", type=count, default=3)
    args = ap.parse_args()
    orders = [args.order] if args.order else ["ordered", "any"]
    print(f"{'ruleset':<22}{'inputs/s':>10}{'games/s':>9}{'inputs/game':>12}"
          f"{'turns/game':>11}{'state B':>8}{'clone us':>9}{'hash us':>8}")
    for order in orders:
        med = medians(order, args.games, args.runs, args.deck, args.hand)
        name = f"{order} d{args.deck} h{args.hand}"
        print(f"{name:<22}{med['inputs/s']:>10.0f}{med['games/s']:>9.1f}"
              f"{med['inputs/game']:>12.1f}{med['turns/game']:>11.1f}"
              f"{med['state bytes']:>8.0f}{med['clone us']:>9.2f}{med['hash us']:>8.1f}")


if __name__ == "__main__":
    main()
