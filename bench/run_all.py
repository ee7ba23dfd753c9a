# Every benchmark of the project in one table: protocol, deal, p2p, audit, startup, tournament,
# bots_games, rl (the research environments' overhead; no figures without the rl extra),
# each figure with its goal from SPEC's "Performance goals" where it has one,
# then each game's own benchmark (bench/<game id>.py: grid, multiverse,
# vanquishers, and versus42 with its engine, bots and balance sections), found by the
# registry's ids, so adding a game's benchmark needs no edit here; a game's benchmark gives its
# quick-mode arguments as its QUICK.
#
# Each bench script keeps its own command line and table, and exposes `figures(...)`: a list of
# {"name", "value", "unit", "target", "comparison"} ("<=" or ">=", None where no target is
# documented). This script loads each one, calls it, and prints one table of figure, median,
# target and whether it is met; `--json FILE` writes the same rows (and the run's settings).
# Benchmarks run one after another (never in parallel: they would share the cores they time).
#
# The scripts are loaded from their files under `bench_<name>` module names: `bench/` is this
# script's sys.path[0], where bench/protocol.py and bench/p2p.py would shadow the packages of
# the same names, so that entry is replaced by the checkout.
#
#   .venv/bin/python bench/run_all.py [--full] [--only deal,versus42] [--json FILE]
#                                     [--compare OLD.json]
#
# `--compare OLD.json` (a file an earlier `--json` wrote) adds, for each figure of this run
# that the old run has under the same name, the old value and the ratio new / old, and says
# whether the figure got better or worse (by its comparison: "<=" lower is better, ">=" higher;
# none: only the ratio). Run both on the same machine in the same few minutes: the absolute
# figures move with the load, the ratios much less.
#
# Default (quick): every script at its own defaults except the audit's tournament section, 2 runs
# of 20 decklist games instead of 3 of 40, and the later ones at smaller sizes (each well under a
# minute; see QUICK and each game's QUICK): tournament, sizes 4 and 12 games, one run each, SPRT
# capped at 20 games (instead of 16/48, 3 runs, 400); bots_games, 10 greedy vs random games per
# game (200); grid, 3 runs of 20 engine games per mode and deck, 10 greedy vs random games per
# mode and one pair of ismcts vs greedy (20, 3 runs, 100); vanquishers, 3 runs of 10 games, 2
# protocol matches, one pair of ismcts vs greedy (40, 5, 40); multiverse, 60 challenges, 5 TCP
# runs (500, 20);
# versus42, its bots 10 games per pairing instead of 200 (same ISMCTS budget: 0.5 s per decision),
# its balance 30 greedy and 2 ismcts deals (2000, 60). Their small-sample rates and targets
# (balance) say little in quick mode.
# `--full` runs everything at the scripts' defaults (versus42's bots: 200 games per pairing,
# ~31 minutes on 2 cores; its balance: 4 120 games, an estimated ~20 minutes more; tournament
# ~4 minutes; multiverse: 1 000 runs).
from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != BENCH]

#: the platform's benchmarks, in the order they run
PLATFORM = ("protocol", "deal", "p2p", "audit", "startup", "tournament", "bots_games",
            "rl")


def game_benchmarks() -> tuple[str, ...]:
    """Each built-in game's own benchmark script (bench/<game id>.py), by id."""
    from versus.engine.registry import BUILTIN_GAMES

    return tuple(sorted(g for g in BUILTIN_GAMES if (BENCH / f"{g}.py").is_file()))


NAMES = PLATFORM + game_benchmarks()

#: quick mode's keyword arguments of the platform's benchmarks (the others run at their
#: defaults; a game's benchmark gives its own as QUICK)
QUICK: dict[str, dict[str, Any]] = {
    "audit": {"games": 20, "tournament_runs": 2},
    "tournament": {"sizes": (4, 12), "runs": 1, "max_sprt_games": 20},
    "bots_games": {"games": 10},
}


def arguments(name: str, module: ModuleType, full: bool) -> dict[str, Any]:
    """The keyword arguments of a script's figures()."""
    if full:
        return {}
    return dict(getattr(module, "QUICK", None) or QUICK.get(name, {}))


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # multiprocessing workers find play_one by name
    spec.loader.exec_module(module)
    return module


def met(figure: dict[str, Any]) -> bool | None:
    target, comparison, value = figure["target"], figure["comparison"], figure["value"]
    if target is None or comparison is None:
        return None
    return value <= target if comparison == "<=" else value >= target


def number(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}" if value else "0"


def print_table(rows: list[dict[str, Any]]) -> None:
    width = max(len(r["name"]) for r in rows)
    print(f"{'figure':<{width}}  {'median':>12}  {'target':>12}  met")
    print("-" * (width + 35))
    for r in rows:
        value = f"{number(r['value'])} {r['unit']}"
        target = ("" if r["target"] is None
                  else f"{r['comparison']} {number(r['target'])} {r['unit']}")
        verdict = {True: "yes", False: "NO", None: "-"}[r["met"]]
        print(f"{r['name']:<{width}}  {value:>12}  {target:>12}  {verdict}")


def compare(rows: list[dict[str, Any]], old: dict[str, Any]) -> list[dict[str, Any]]:
    """Each figure of `rows` also in the old run's JSON `old` (by name): its old value, the
    ratio new / old and the verdict ("better", "worse", "same" within 2 %, "-" without a
    comparison or with a zero old value)."""
    before = {r["name"]: r for r in old.get("figures", []) if isinstance(r, dict)
              and "name" in r and isinstance(r.get("value"), int | float)}
    out = []
    for row in rows:
        was = before.get(row["name"])
        if was is None:
            continue
        ratio = row["value"] / was["value"] if was["value"] else None
        verdict = "-"
        if ratio is not None and row["comparison"] in ("<=", ">="):
            gain = 1 / ratio if row["comparison"] == "<=" else ratio
            verdict = "same" if abs(gain - 1) <= 0.02 else "better" if gain > 1 else "worse"
        out.append({"name": row["name"], "unit": row["unit"], "value": row["value"],
                    "old": was["value"], "ratio": ratio, "verdict": verdict})
    return out


def print_comparison(rows: list[dict[str, Any]], path: str) -> None:
    if not rows:
        print(f"\nno figure of this run is in {path}")
        return
    width = max(len(r["name"]) for r in rows)
    print(f"\ncompared with {path}")
    print(f"{'figure':<{width}}  {'now':>12}  {'before':>12}  {'ratio':>7}  verdict")
    print("-" * (width + 52))
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}"
        print(f"{r['name']:<{width}}  {number(r['value']) + ' ' + r['unit']:>12}  "
              f"{number(r['old']) + ' ' + r['unit']:>12}  {ratio:>7}  {r['verdict']}")


def load_old(path: str) -> dict[str, Any]:
    """The JSON an earlier `--json` wrote; a clear one-line error otherwise."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise SystemExit(f"run_all.py: cannot read --compare {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("figures"), list):
        raise SystemExit(f"run_all.py: {path} is not a run_all.py --json file (no figures)")
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description="Run every benchmark; print one table.")
    parser.add_argument("--full", action="store_true",
                        help="the scripts' full budgets (versus42's bots: 200 games per "
                             "pairing)")
    parser.add_argument("--only", default=",".join(NAMES),
                        help=f"comma-separated subset of {','.join(NAMES)}")
    parser.add_argument("--json", metavar="FILE", default=None, help="also write the rows here")
    parser.add_argument("--compare", metavar="OLD.json", default=None,
                        help="print each figure's ratio to the same figure of a saved --json run")
    args = parser.parse_args()
    old = load_old(args.compare) if args.compare else None
    chosen = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(chosen) - set(NAMES))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(NAMES)}")
    budget: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    for name in chosen:
        start = time.perf_counter()
        module = load(name)
        budget[name] = arguments(name, module, args.full)
        print(f"running bench/{name}.py {budget[name] or ''}...", file=sys.stderr, flush=True)
        for figure in module.figures(**budget[name]):
            rows.append({"bench": name, **figure, "met": None})
            rows[-1]["met"] = met(rows[-1])
        seconds[name] = time.perf_counter() - start
        print(f"  bench/{name}.py: {seconds[name]:.0f} s", file=sys.stderr, flush=True)
    print(f"Versus P2P benchmarks ({'full' if args.full else 'quick'}), Python "
          f"{platform.python_version()}, {platform.machine()}; "
          f"{sum(seconds.values()):.0f} s")
    print_table(rows)
    missed = [r["name"] for r in rows if r["met"] is False]
    print(f"\n{sum(r['met'] is True for r in rows)} targets met, {len(missed)} missed"
          + (f": {'; '.join(missed)}" if missed else ""))
    if old is not None:
        print_comparison(compare(rows, old), args.compare)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"mode": "full" if args.full else "quick", "settings": budget,
             "seconds": seconds, "python": platform.python_version(), "figures": rows},
            indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
