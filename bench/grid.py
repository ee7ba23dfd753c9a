# Grid game engine benchmark: random self-play through the full-information referee
# (engine/grid/referee.py) on one core, per mode (fast 4x4, normal 5x5, vs 6x6) and deck type.
# Prints engine inputs/s (legal-action generation included: the random players ask for the
# full legal list at every turn and choice), games/s and the mean inputs per game; each figure
# is the median of several runs.
#   python bench/grid.py [--games N] [--runs R]
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.engine.grid.cards import default_catalogue
from versus.engine.grid.referee import random_game
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import encode_state


def run_once(rules: GridRules, games: int, run: int) -> tuple[float, float, float, float]:
    cat = default_catalogue()
    steps, sizes = 0, []
    start = time.perf_counter()
    for g in range(games):
        ref = random_game(rules, cat, b"bench/%d/%d" % (run, g))
        ref.play()
        steps += ref.steps
        sizes.append(len(encode_state(ref.state)))
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed, steps / games, statistics.mean(sizes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"{'mode':8} {'deck':10} {'inputs/s':>10} {'games/s':>9} {'inputs/game':>12} "
          f"{'state bytes':>12}")
    for mode in ("fast", "normal", "vs"):
        for deck in ("individual", "shared"):
            rules = GridRules.from_options({"mode": mode, "deck": deck})
            rows = [run_once(rules, args.games, r) for r in range(args.runs)]
            med = [statistics.median(col) for col in zip(*rows, strict=True)]
            print(f"{mode:8} {deck:10} {med[0]:10.0f} {med[1]:9.2f} {med[2]:12.0f} "
                  f"{med[3]:12.0f}")


if __name__ == "__main__":
    main()
