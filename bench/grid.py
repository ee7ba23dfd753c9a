# Grid game benchmark ("Tests and figures"), per mode (fast 4x4, normal 5x5, vs 6x6):
#
#   1. engine: random self-play through the full-information referee (engine/grid/referee.py
#      `play_random`: the one loop of engine/referee_loop.py, every input applied through the
#      checked `step`, the full legal list asked at every turn and choice, no view built, no
#      history of states kept) on one core, per mode and deck type: engine inputs/s, games/s,
#      mean inputs per game and encoded state size (of the final states, after the timed
#      games); each figure the median of --runs runs;
#   2. bots: greedy against random per mode, in the duplicate format of bench/bots_games.py
#      (each deal played twice with the seats swapped, in-process play through the Game
#      interface, each bot seeing its seat's view only), win rate with a 95 % Wilson interval
#      over games and the deals won from both seats / split / lost;
#   3. transcripts: the bytes of the signed transcript of one `versus demo --game grid` per mode
#      and deal type (decklist, shared-pool with individual decks, shared-pool with the one
#      shared deck), random bots, a fixed seed, the real protocol over loopback TCP, verified;
#   4. with --ismcts-games N: ismcts against greedy (fast mode, default rules), N duplicate
#      games at the bot's default budget (96 playouts per decision, raced; --ismcts NAME for
#      another budget, e.g. ismcts:iterations=192) on --jobs processes. Off by default: 200
#      games take ~12 CPU-minutes, the rest of the run takes ~1-2 minutes.
#   python bench/grid.py [--games N] [--runs R] [--bot-games N] [--ismcts-games N] [--jobs J]
from __future__ import annotations

import argparse
import contextlib
import gc
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bots_games  # bench/bots_games.py: the duplicate-format loop

# bench/ leaves the path again: under bench/run_all.py it would shadow engine/, protocol/, p2p/
sys.path.remove(str(Path(__file__).resolve().parent))

from versus.cli.bots import make_bot
from versus.cli.tournament_stats import wilson
from versus.engine.grid.cards import default_catalogue
from versus.engine.grid.referee import random_game
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import GridState, encode_state
from versus.engine.hashing import HashStream

MODES = ("fast", "normal", "vs")
#: deal types of the transcript table: (column, --deal, extra --rule)
DEALS = (("decklist", "decklist", ()), ("shared-pool", "shared-pool", ()),
         ("shared-deck", "shared-pool", ("deck=shared",)))
DEMO_SEED = "01"


def timed_games(rules: GridRules, games: int, run: int) -> tuple[int, list[GridState]]:
    """The timed part of a run: `games` random games through the one full-information loop
    (engine/referee_loop.py `play_random`: the full legal list asked at every decision, every
    input applied through the checked `step`, no view built, no history kept); (inputs, the
    final states)."""
    cat = default_catalogue()
    steps, finals = 0, []
    for g in range(games):
        seed = b"bench/%d/%d" % (run, g)
        ref = random_game(rules, cat, seed, history=False)
        # the seats' streams of `random_game`'s random choosers, drawn from without their frames
        ref.play_random((HashStream("grid/p0", seed).randbelow,
                         HashStream("grid/p1", seed).randbelow))
        steps += ref.steps
        finals.append(ref.state)
    return steps, finals


def run_once(rules: GridRules, games: int, run: int) -> tuple[float, float, float, float]:
    # The engine's rate, not the collector's: without the referee's history (the tests' replay
    # list, which kept every state of a game alive for the collector to walk, 12 % of the
    # instructions in vs mode), and after a collection, so that the garbage of the benchmarks
    # run before this one (bench/run_all.py runs them in one process) is not collected inside
    # the timed games: a full collection of that heap cost one run its median figure.
    gc.collect()
    start = time.perf_counter()
    steps, finals = timed_games(rules, games, run)
    elapsed = time.perf_counter() - start
    # the final states' sizes, measured outside the timed games (not inputs)
    sizes = [len(encode_state(s)) for s in finals]
    return steps / elapsed, games / elapsed, steps / games, statistics.mean(sizes)


def duplicate(mode: str, a: str, b: str, games: int, salt: int = 0) -> dict[str, float]:
    """`games` duplicate games of bot a against bot b under `mode` (default other rules)."""
    rules = GridRules.from_options({"mode": mode})
    scores: list[tuple[int, float]] = []
    start = time.perf_counter()
    for index in range(games):
        seed = b"bench-grid/%s/%d/%d" % (mode.encode(), salt, index // 2)
        bot_a = make_bot(a, seed=2 * index, game="grid")
        bot_b = make_bot(b, seed=2 * index + 1, game="grid")
        a_seat = index % 2
        bots = (bot_a, bot_b) if a_seat == 0 else (bot_b, bot_a)
        result = bots_games.play_game("grid", bots, seed, rules=rules)  # type: ignore[arg-type]
        scores.append((index // 2, 0.5 if result.winner is None
                       else float(result.winner == a_seat)))
    return _summary(scores, time.perf_counter() - start)


def _summary(scores: list[tuple[int, float]], seconds: float) -> dict[str, float]:
    total = sum(s for _, s in scores)
    n = len(scores)
    per_deal: dict[int, float] = {}
    for deal, s in scores:
        per_deal[deal] = per_deal.get(deal, 0.0) + s
    low, high = wilson(total, n)
    return {"games": n, "wins": sum(1 for _, s in scores if s == 1.0),
            "draws": sum(1 for _, s in scores if s == 0.5), "rate": total / n,
            "low": low, "high": high,
            "both": sum(1 for v in per_deal.values() if v == 2.0),
            "split": sum(1 for v in per_deal.values() if 0.0 < v < 2.0),
            "lost": sum(1 for v in per_deal.values() if v == 0.0), "seconds": seconds}


def demo_transcript(mode: str, deal: str, rules: tuple[str, ...]) -> tuple[int, int, float]:
    """One seeded `versus demo --game grid` over loopback TCP: (transcript bytes, records,
    seconds); the demo verifies its transcript (exit 0 only if it verifies)."""
    from versus.cli.main import main

    argv = ["demo", "--game", "grid", "--rule", f"mode={mode}", "--deal", deal, "--seed",
            DEMO_SEED, "--quiet"]
    for rule in rules:
        argv += ["--rule", rule]
    with tempfile.TemporaryDirectory(prefix="bench-grid-") as out_dir:
        out = io.StringIO()
        start = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = main([*argv, "--out", out_dir])
        seconds = time.perf_counter() - start
        text = out.getvalue()
        if code != 0 or "verify: OK" not in text:
            raise SystemExit(f"bench/grid.py: {' '.join(argv)} failed (exit {code}):\n{text}")
        path = next(Path(out_dir).glob("*/transcript.vtr"))
        records = int(text.split("verify: OK: ")[1].split()[0])
        return path.stat().st_size, records, seconds


def print_rate(label: str, pairing: str, r: dict[str, float]) -> None:
    print(f"{label:8} {pairing:22} {r['games']:5.0f} {r['wins']:5.0f} {r['draws']:5.0f} "
          f"{100 * r['rate']:6.1f}% [{100 * r['low']:5.1f}, {100 * r['high']:5.1f}]% "
          f"{r['both']:>4.0f}/{r['split']:.0f}/{r['lost']:<4.0f} "
          f"{r['seconds'] / r['games']:7.3f}", flush=True)


def engine_rows(games: int, runs: int) -> Iterator[tuple[str, str, list[float]]]:
    """Per mode and deck: (mode, deck, the medians of inputs/s, games/s, inputs/game and state
    bytes over `runs` runs of `games` games)."""
    for mode in MODES:
        for deck in ("individual", "shared"):
            rules = GridRules.from_options({"mode": mode, "deck": deck})
            rows = [run_once(rules, games, r) for r in range(runs)]
            yield mode, deck, [statistics.median(col) for col in zip(*rows, strict=True)]


def bot_rows(bot_games: int, ismcts_games: int, ismcts: str, jobs: int, salt: int
             ) -> Iterator[tuple[str, str, dict[str, float]]]:
    """(mode, pairing, result) of greedy vs random per mode, then of ismcts vs greedy (fast)
    when ismcts_games."""
    bot_games += bot_games % 2
    if bot_games:
        for mode in MODES:
            yield mode, "greedy vs random", duplicate(mode, "greedy", "random", bot_games)
    if ismcts_games:
        games = ismcts_games + ismcts_games % 2
        yield "fast", f"{ismcts} vs greedy", bots_games.run("grid", ismcts, "greedy", games, jobs,
                                                            salt)


def transcript_rows() -> Iterator[tuple[str, list[tuple[int, int]]]]:
    """Per mode: (mode, [(transcript bytes, records) per deal type of DEALS])."""
    for mode in MODES:
        yield mode, [demo_transcript(mode, deal, rules)[:2] for _, deal, rules in DEALS]


#: the quick mode of bench/run_all.py (a few seconds: 3 runs of 20 games, as one run of 5
#: moved by a third from run to run)
QUICK = {"games": 20, "runs": 3, "bot_games": 10, "ismcts_games": 2}
ENGINE_GOAL = 30_000.0  # inputs/s per mode (SPEC, Performance goals)
ISMCTS_GOAL = 80.0  # % of paired games against greedy (SPEC, Performance goals)


def figures(games: int = 20, runs: int = 3, bot_games: int = 100, ismcts_games: int = 0,
            ismcts: str = "ismcts", jobs: int = 1, salt: int = 0, transcripts: bool = True
            ) -> list[dict[str, object]]:
    """The script's tables as figures for bench/run_all.py, with the goals of SPEC's Performance
    goals: 30,000 inputs/s per mode, ismcts against greedy >= 80 % (a row only with
    ismcts_games)."""
    out: list[dict[str, object]] = []

    def fig(name: str, value: float, unit: str, target: float | None = None) -> None:
        out.append({"name": f"grid {name}", "value": value, "unit": unit, "target": target,
                    "comparison": None if target is None else ">="})

    for mode, deck, med in engine_rows(games, runs):
        for what, unit, value in zip(("inputs/s", "games/s", "inputs/game", "state bytes"),
                                     ("/s", "/s", "inputs", "B"), med, strict=True):
            fig(f"{mode} {deck} deck: {what}", value, unit,
                ENGINE_GOAL if what == "inputs/s" else None)
    for mode, pairing, r in bot_rows(bot_games, ismcts_games, ismcts, jobs, salt):
        fig(f"{mode} {pairing}: win rate ({r['games']:.0f} games, 95% CI "
            f"{r['low']:.0%}-{r['high']:.0%})", 100 * r["rate"], "%",
            ISMCTS_GOAL if pairing.startswith("ismcts") and pairing.endswith(" vs greedy")
            else None)
    if transcripts:
        for mode, cells in transcript_rows():
            for (column, _, _), (size, records) in zip(DEALS, cells, strict=True):
                fig(f"{mode} transcript bytes, {column} ({records} records)", size, "B")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20, help="engine: games per run")
    ap.add_argument("--runs", type=int, default=3, help="engine: runs (the median is shown)")
    ap.add_argument("--bot-games", type=int, default=100,
                    help="greedy vs random: duplicate games per mode (even)")
    ap.add_argument("--ismcts-games", type=int, default=0,
                    help="ismcts vs greedy: duplicate games (even; 0: skip; ~4 CPU-s a game)")
    ap.add_argument("--ismcts", default="ismcts", help="the ismcts bot name with options")
    ap.add_argument("--jobs", type=int, default=1, help="processes for the ismcts games")
    ap.add_argument("--salt", type=int, default=0, help="another set of ismcts deals")
    ap.add_argument("--no-transcripts", action="store_true", help="skip the demo transcripts")
    args = ap.parse_args()
    started = time.perf_counter()

    print("engine: random self-play, one core, median of "
          f"{args.runs} runs of {args.games} games")
    print(f"{'mode':8} {'deck':10} {'inputs/s':>10} {'games/s':>9} {'inputs/game':>12} "
          f"{'state bytes':>12}")
    for mode, deck, med in engine_rows(args.games, args.runs):
        print(f"{mode:8} {deck:10} {med[0]:10.0f} {med[1]:9.2f} {med[2]:12.0f} "
              f"{med[3]:12.0f}", flush=True)

    print("\nbots: duplicate games (each deal twice, seats swapped), individual decks; "
          "A's rate, draws as half, 95 % Wilson interval")
    print(f"{'mode':8} {'pairing':22} {'games':>5} {'wins':>5} {'draws':>5} {'A rate':>7} "
          f"{'95% interval':>15} {'deals +/=/-':>12} {'s/game':>7}")
    for mode, pairing, r in bot_rows(args.bot_games, args.ismcts_games, args.ismcts, args.jobs,
                                     args.salt):
        print_rate(mode, pairing, r)
    if not args.ismcts_games:
        print("fast     ismcts vs greedy       (skipped: --ismcts-games 200; SPEC §7.11.9 has "
              "the measured figure)")

    if not args.no_transcripts:
        print(f"\ntranscripts: bytes of one `versus demo --game grid --seed {DEMO_SEED}` "
              "(random bots, loopback TCP, verified), records in parentheses")
        print(f"{'mode':8} " + " ".join(f"{column:>18}" for column, _, _ in DEALS))
        for mode, cells in transcript_rows():
            print(f"{mode:8} " + " ".join(f"{f'{size:>10} ({records:>4})':>18}"
                                          for size, records in cells), flush=True)
    print(f"\n(whole run {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
