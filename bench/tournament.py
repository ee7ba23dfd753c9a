# Tournament benchmark: the process pool against a Dask LocalCluster, and the games
# an SPRT saves. One run, one table, side by side.
#
# Throughput. Whole `versus tournament random random` commands (decklist, paired, seeded), each
# a fresh process and output folder, timed from start to exit, at two sizes (G1 and G2 games):
# on the process pool (`--concurrency 2`) and on `--cluster local:2` (a LocalCluster of 2
# worker processes on 127.0.0.1, started and stopped by the command). Matches/min is G2 over
# the G2 run's wall time; the per-game cost is the slope (T2 - T1)/(G2 - G1) and the fixed
# cost T1 - G1 x slope (start-up: workers, for the cluster the scheduler too). The cluster
# path's overhead per game is its slope minus the pool's: shipping the job and the
# transcript's bytes, and the organiser's own verification of every transcript. As that slope
# difference is noisy on a shared 2-core machine, both parts are also measured directly: the
# median round trip of a task that carries a transcript's bytes back (40 tasks on local:2)
# and the median time of `verify_transcript` on one (the organiser does it for every game).
#
# SPRT. A known-stronger pair, `ismcts:time=T` against greedy (T small, default 0.02 s, since
# ismcts at its 0.5 s default would take hours here; ismcts wins ~60-70 % of its games against
# greedy even at 0.01 s, SPEC Part 7), plays with `--sprt elo0=0,elo1=E1,alpha=0.05,beta=0.05`
# (paired deals) until the SPRT decides or `--max-sprt-games` is reached. The fixed-length run
# at equal error is computed, not played: the number of pairs a one-sided z-test on the mean
# pair score needs to tell score(elo0) from score(elo1) with the same alpha and beta, with the
# per-pair standard deviation this run measured: n = ((z(1-a) + z(1-b)) sd / (s1 - s0))^2; games
# saved = 2n - the games the SPRT played. `--pair greedy,random` measures the trivial pair.
#
# Run: nice -n 10 .venv/bin/python bench/tournament.py [--sizes 16,48] [--runs 3]
# [--time 0.02] [--elo1 100] [--max-sprt-games 400]. Default run: ~4 minutes on 2 cores.
from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Z = {0.05: 1.644854, 0.01: 2.326348, 0.1: 1.281552}


def tournament(out: Path, *argv: str) -> float:
    """Wall seconds of one `versus tournament` command in a fresh process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "versus.cli.main", "tournament", *argv,
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    spent = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench/tournament.py: {' '.join(argv)} failed ({done.returncode}): "
                         f"{done.stderr.strip().splitlines()[-1:]}")
    return spent


def throughput(sizes: tuple[int, int], runs: int, tmp: Path) -> dict[str, dict[str, float]]:
    rows = {}
    for label, how in (("process pool", ["--concurrency", "2"]),
                       ("local:2", ["--cluster", "local:2"])):
        walls = []
        for size in sizes:
            times = []
            for run in range(runs):
                out = tmp / f"{label.replace(' ', '-').replace(':', '')}-{size}-{run}"
                times.append(tournament(out, "random", "random", "--games", str(size),
                                        "--seed", "be", *how))
            walls.append(statistics.median(times))
        slope = (walls[1] - walls[0]) / (sizes[1] - sizes[0])
        games = json.loads((out / "results.json").read_text())["games"]
        rows[label] = {"per_min": 60 * sizes[1] / walls[1], "slope_ms": 1000 * slope,
                       "fixed_s": walls[0] - sizes[0] * slope,
                       "in_worker_ms": 1000 * statistics.median(g["seconds"] for g in games),
                       "wall_s": walls[1]}
    return rows


def overhead(transcripts: list[Path], tasks: int = 40) -> dict[str, float]:
    """What the cluster path adds to each game, measured directly: a task's round trip on a
    local:2 cluster carrying a transcript's bytes back (submit, schedule, run, return), and
    the organiser's own verification of a transcript."""
    from versus.cli.cluster import open_client
    from versus.protocol.match.verify import verify_transcript

    data = [p.read_bytes() for p in transcripts]
    verify = []
    for blob in data:
        started = time.perf_counter()
        verify_transcript(blob)
        verify.append(time.perf_counter() - started)
    trips = []
    with open_client("local:2") as client:
        # the task is `bytes`, a builtin: it returns its argument's bytes, and unlike a function
        # of this file it unpickles in the workers under bench/run_all.py too (module bench_...)
        client.submit(bytes, b"warm-up", pure=False).result()
        for k in range(tasks):
            started = time.perf_counter()
            client.submit(bytes, data[k % len(data)], pure=False).result()
            trips.append(time.perf_counter() - started)
    return {"round_trip_ms": 1000 * statistics.median(trips),
            "verify_ms": 1000 * statistics.median(verify),
            "bytes": statistics.median(len(b) for b in data)}


def sprt(pair: tuple[str, str], elo1: float, max_games: int, tmp: Path) -> dict[str, float]:
    from versus.cli.tournament_stats import elo_to_score

    out = tmp / "sprt"
    wall = tournament(out, *pair, "--games", str(max_games), "--seed", "5a",
                      "--concurrency", "2",
                      "--sprt", f"elo0=0,elo1={elo1:g},alpha=0.05,beta=0.05")
    results = json.loads((out / "results.json").read_text())
    row = results["pairings"][0]
    counts = [row["counts"][k] for k in ("LL", "LD", "DD+WL", "WD", "WW")]
    pairs = sum(counts)
    scores = (0.0, 0.25, 0.5, 0.75, 1.0)
    mean = sum(c * a for c, a in zip(counts, scores, strict=True)) / pairs
    var = sum(c * (a - mean) ** 2 for c, a in zip(counts, scores, strict=True)) / pairs
    sd = math.sqrt(max(var, 1e-6))
    delta = elo_to_score(elo1) - elo_to_score(0)
    fixed_pairs = math.ceil(((Z[0.05] + Z[0.05]) * sd / delta) ** 2)
    played = sum(1 for g in results["games"] if g["ending"] != "abandoned")
    verdict = (results["sprt"] or {}).get("verdict")
    return {"played": played, "verdict": verdict or "none", "llr": results["sprt"]["llr"],
            "fixed_games": 2 * fixed_pairs, "saved": 2 * fixed_pairs - played,
            "score": mean, "sd": sd, "wall_s": wall, "counts": counts}


def measure(sizes: tuple[int, int], runs: int, pair: tuple[str, str], elo1: float,
            max_sprt_games: int, skip: str | None = None
            ) -> tuple[dict[str, dict[str, float]], dict[str, float] | None,
                       dict[str, float] | None]:
    """The throughput rows, the cluster's costs per game and the SPRT run (None if skipped)."""
    with tempfile.TemporaryDirectory(prefix="versus-bench-tournament-") as name:
        tmp = Path(name)
        rows = {} if skip == "throughput" else throughput(sizes, runs, tmp)
        costs = None if skip == "throughput" else overhead(
            sorted(tmp.glob("local2-*/games/*.vtr"))[:20])
        odds = None if skip == "sprt" else sprt(pair, elo1, max_sprt_games, tmp)
    return rows, costs, odds


def figures(sizes: tuple[int, int] = (16, 48), runs: int = 3, ismcts_time: float = 0.02,
            elo1: float = 100.0, max_sprt_games: int = 400) -> list[dict[str, object]]:
    """The table's figures for bench/run_all.py (no target documented: SPEC's figures of issue
    21 are measurements only)."""
    pair = (f"ismcts:time={ismcts_time:g}", "greedy")
    rows, costs, odds = measure(tuple(sizes), runs, pair, elo1,  # type: ignore[arg-type]
                                max_sprt_games)
    out: list[dict[str, object]] = []

    def fig(name: str, value: float, unit: str) -> None:
        out.append({"name": f"tournament {name}", "value": value, "unit": unit, "target": None,
                    "comparison": None})

    for label, r in rows.items():
        fig(f"{label}: matches/min ({sizes[1]} games, whole command)", r["per_min"], "/min")
        fig(f"{label}: wall time per game (slope {sizes[0]}-{sizes[1]})", r["slope_ms"], "ms")
        fig(f"{label}: fixed cost per run", r["fixed_s"], "s")
        fig(f"{label}: a game inside its worker", r["in_worker_ms"], "ms")
    if costs:
        fig("local:2: task round trip with a transcript", costs["round_trip_ms"], "ms")
        fig("local:2: organiser verifies a transcript", costs["verify_ms"], "ms")
    if odds:
        fig(f"SPRT games played ({pair[0]} vs {pair[1]}, elo1={elo1:g}, at most "
            f"{max_sprt_games}; verdict {odds['verdict']}, LLR {odds['llr']:.2f})",
            odds["played"], "games")
        fig("SPRT fixed-length games at equal error", odds["fixed_games"], "games")
        if odds["verdict"] != "none":
            fig("SPRT games saved", odds["saved"], "games")
        fig("SPRT wall time", odds["wall_s"], "s")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/tournament.py", description=__doc__)
    ap.add_argument("--sizes", default="16,48", help="two tournament sizes, games (default "
                                                     "16,48)")
    ap.add_argument("--time", type=float, default=0.02,
                    help="ismcts's seconds per decision in the SPRT pair (default 0.02)")
    ap.add_argument("--pair", default=None,
                    help="the SPRT pair as A,B (default ismcts:time=T,greedy)")
    ap.add_argument("--elo1", type=float, default=100.0, help="the SPRT's elo1 (elo0 is 0)")
    ap.add_argument("--max-sprt-games", type=int, default=400)
    ap.add_argument("--skip", choices=("throughput", "sprt"), default=None)
    ap.add_argument("--runs", type=int, default=3,
                    help="runs per tournament size, the median kept (default 3)")
    args = ap.parse_args(argv)
    g1, g2 = (int(x) for x in args.sizes.split(","))
    pair = tuple(args.pair.split(",")) if args.pair else (f"ismcts:time={args.time:g}",
                                                          "greedy")
    rows, costs, odds = measure((g1, g2), args.runs, pair, args.elo1,  # type: ignore[arg-type]
                                args.max_sprt_games, args.skip)
    print(f"{'figure':<44}{'process pool':>16}{'local:2':>16}")
    if rows:
        pool, local = rows["process pool"], rows["local:2"]
        print(f"{'matches/min (' + str(g2) + ' games, whole command)':<44}"
              f"{pool['per_min']:>16.0f}{local['per_min']:>16.0f}")
        print(f"{'wall time per game (slope, ms)':<44}{pool['slope_ms']:>16.0f}"
              f"{local['slope_ms']:>16.0f}")
        print(f"{'fixed cost per run (s)':<44}{pool['fixed_s']:>16.2f}{local['fixed_s']:>16.2f}")
        print(f"{'a game inside its worker (median, ms)':<44}{pool['in_worker_ms']:>16.0f}"
              f"{local['in_worker_ms']:>16.0f}")
        print(f"{'slope difference, cluster - pool (ms)':<44}{'':>16}"
              f"{local['slope_ms'] - pool['slope_ms']:>16.0f}")
    if costs:
        print(f"{'cluster: task round trip with a transcript (ms)':<44}{'':>16}"
              f"{costs['round_trip_ms']:>16.1f}")
        print(f"{'cluster: organiser verifies a transcript (ms)':<44}{'':>16}"
              f"{costs['verify_ms']:>16.1f}")
        print(f"{'  (median transcript, bytes)':<44}{'':>16}{costs['bytes']:>16.0f}")
    if odds:
        print(f"\nSPRT {pair[0]} vs {pair[1]}: elo0=0, elo1={args.elo1:g}, alpha=beta=0.05, "
              f"paired, at most {args.max_sprt_games} games")
        print(f"{'  verdict, LLR':<44}{odds['verdict'] + ', ' + format(odds['llr'], '.2f'):>16}")
        print(f"{'  pentanomial LL LD DD+WL WD WW':<44}"
              f"{' '.join(str(c) for c in odds['counts']):>16}")
        print(f"{'  score per pair, sd':<44}"
              f"{format(odds['score'], '.3f') + ', ' + format(odds['sd'], '.3f'):>16}")
        print(f"{'  games played by the SPRT':<44}{odds['played']:>16}")
        print(f"{'  fixed-length games at equal error':<44}{odds['fixed_games']:>16}")
        saved = odds["saved"] if odds["verdict"] != "none" else "n/a (undecided)"
        print(f"{'  games saved':<44}{saved:>16}")
        print(f"{'  wall time (s)':<44}{odds['wall_s']:>16.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
