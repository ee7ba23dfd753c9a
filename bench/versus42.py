# Versus's own benchmark (bench/<game id>.py: bench/run_all.py finds it by the registry's id),
# in three sections, each with its command line and table:
#
#   engine    random self-play on one core through the one full-information loop
#             (engine/referee_loop.py `play_random`: every input applied through the checked
#             `step`, the full legal list asked at every turn/choice decision, no view built, no
#             history kept): a table of applied inputs per second, full games per second (a
#             game's deal and layout included), clone cost and the canonical public state size;
#             each figure is the median of several runs.
#   bots      Versus's bots' strength: win rates per pairing over many games, and the ISMCTS
#             bot's thinking time per decision (median, 95th percentile, max) with the
#             iterations it completed. Games run in parallel over the cores (multiprocessing);
#             each game's deal and layout come from its number, so a run is reproducible for a
#             given budget. Duplicate format, as in bridge and poker tournaments: games 2k and
#             2k+1 play the same deal and layout with the seats swapped, so the luck of a deal
#             counts once for each side (between two greedy bots a replayed deal goes to the same
#             seat seven times in ten). The printed 95 % interval is still the per-game Wilson
#             interval, which the pairing only makes conservative; the "deals" column says how
#             many deals A won from both seats, split, or lost from both. `--iterations 0`
#             removes the iteration limit (a pure time budget, so heavier iterations compete at
#             equal cost); `--jobs 1` plays every game in this process (no pool).
#   balance   card balance: bots play many paired games with decks drawn from the catalogue,
#             and every card gets its *inclusion win rate*: over every deck that held it, the
#             share of games that deck's player won (a draw counts half), with a 95 % Wilson
#             interval. Also printed: Light vs Dark (games between a 12-card Light deck and a
#             12-card Dark deck) and the first player's win rate. Deal d is played twice, seats
#             swapped (games 2d and 2d+1). Even deals are shared-pool deals (the referee's
#             `random_deal`: 24 distinct cards of the catalogue, as the protocol deals them); odd
#             deals give one player 12 random Light cards and the other 12 random Dark cards,
#             which is what the Light vs Dark rate is measured on. Every deal, layout and bot
#             seed comes from the deal number, so a run is reproducible. Two bot pairings:
#             greedy vs greedy (cheap, the bulk of the games) and ISMCTS vs ISMCTS at a small
#             *iteration* budget (no time limit, so the result does not depend on the machine's
#             load). Why inclusion win rates: a card that wins its games is one a player wants in
#             a deck; in a mirror match between equal bots, a balanced card sits at 50 %.
#
#   .venv/bin/python bench/versus42.py engine [--games N] [--runs R] [--order ordered|any]
#       (VERSUS_COMPILED=1 in the environment: the compiled build, see versus/compiled.py)
#   .venv/bin/python bench/versus42.py bots [--games 200] [--iterations 0] [--seconds 0.5]
#       [--jobs 2]
#   nice -n 10 .venv/bin/python bench/versus42.py balance [--pairs 2000] [--ismcts-pairs 60]
#       [--iterations 2] [--jobs 2] [--catalogue FILE]
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.cli.argtypes import count, count_or_zero, seconds_up_to
from versus.cli.bots import Budget, make_bot
from versus.cli.tournament_stats import wilson
from versus.compiled import active, built
from versus.engine import HashRng
from versus.engine.api import Setup
from versus.engine.hashing import HashStream
from versus.engine.referee_loop import LocalPlay
from versus.engine.versus42 import (
    VERSUS42,
    Referee,
    Ruleset,
    State,
    default_catalogue,
    encode_state,
    load_catalogue,
    random_deal,
    state_hash,
)
from versus.engine.versus42.bots import IsmctsBot
from versus.engine.versus42.catalogue import LIGHT, Catalogue
from versus.engine.versus42.referee import fisher_yates, owner_learns

# --- engine ---------------------------------------------------------------------------------


def timed_games(games: int, ruleset: Ruleset, run: int) -> tuple[int, list[State]]:
    """The timed part of a run: `games` random games through the one full-information loop
    (engine/referee_loop.py `play_random`: the full legal list asked at every decision, every
    input applied through the checked `step`, no view built, no history kept); (inputs, the
    final states)."""
    cat = default_catalogue()
    steps = 0
    finals = []
    for g in range(games):
        seed = run.to_bytes(2, "big") + g.to_bytes(4, "big")
        ids, orders = random_deal(cat, ruleset, HashRng(seed, "deal"))
        play = LocalPlay.start(VERSUS42, Setup(ruleset, cat, seed), ids, orders, _no_chance)
        play.owner_learns = owner_learns  # a card dealt to be discarded: as Referee deals it
        play.play_random((HashStream("a", seed).randbelow, HashStream("b", seed).randbelow))
        steps += play.inputs
        finals.append(play.state)
    return steps, finals


def _no_chance(n: int) -> int:
    raise RuntimeError("Versus has no chance decision")


def run_once(games: int, ruleset: Ruleset, run: int) -> dict[str, float]:
    start = time.perf_counter()
    steps, finals = timed_games(games, ruleset, run)
    elapsed = time.perf_counter() - start
    # the final states' sizes and turns, measured outside the timed games (not inputs)
    sizes = [len(encode_state(s)) for s in finals]
    turns = [s.turn + 1 for s in finals]
    # clone and hash costs on a mid-game state
    s = finals[-1]
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


def engine_figures(games: int = 300, runs: int = 5) -> list[dict[str, object]]:
    """The headline figures for bench/run_all.py, with the engine's goal (SPEC, Performance
    goals; default rules: at least 100,000 applied inputs/s, legal-action generation included)."""
    out: list[dict[str, object]] = []
    for order in ("ordered", "any"):
        med = medians(order, games, runs)
        out += [
            {"name": f"engine {order}: inputs/s", "value": med["inputs/s"], "unit": "/s",
             "target": 100_000, "comparison": ">="},
            {"name": f"engine {order}: games/s", "value": med["games/s"], "unit": "/s",
             "target": None, "comparison": None},
            {"name": f"engine {order}: state bytes", "value": med["state bytes"], "unit": "B",
             "target": None, "comparison": None},
        ]
    return out + compiled_figures(games, runs)


def compiled_figures(games: int, runs: int) -> list[dict[str, object]]:
    """The optional compiled build's inputs/s (README, Benchmarks), when one is built for these
    sources: measured in a child with VERSUS_COMPILED=1, shown beside the pure build's figure,
    which stays the one held to the goal."""
    if active() or not built():
        return []
    child = subprocess.run(
        [sys.executable, __file__, "engine", "--games", str(games), "--runs", str(runs)],
        env={**os.environ, "VERSUS_COMPILED": "1"}, capture_output=True, text=True, check=True)
    lines = child.stdout.splitlines()
    if "engine build: compiled" not in lines[-1]:
        raise RuntimeError(f"the compiled build did not load: {child.stderr.strip()}")
    return [{"name": f"engine {line.split()[0]}, optional compiled build: inputs/s",
             "value": float(line.split()[3]), "unit": "/s", "target": None, "comparison": None}
            for line in lines[1:-1]]



# --- bots -----------------------------------------------------------------------------------

# the first three are the default run; the tree mode's pairing is there to reproduce its figures
PAIRINGS = (("ismcts", "random"), ("ismcts", "greedy"), ("greedy", "random"),
            ("ismcts-tree", "greedy"))
DEFAULT_PAIRINGS = (0, 1, 2)


def make(name: str, seed: int, budget: Budget | None):  # type: ignore[no-untyped-def]
    return make_bot(name, seed=seed, budget=budget, game=VERSUS42.id)


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
                   ("ismcts", "greedy"): 0.80}  # SPEC, Performance goals


def bots_figures(games: int = 200, iterations: int | None = None, seconds: float = 0.5,
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



# --- balance --------------------------------------------------------------------------------

TARGET_CARD = (0.45, 0.55)
TARGET_ENERGY = 0.02  # Light vs Dark: 50 % +/- 2 points
TARGET_FIRST = 0.03  # first player: 50 % +/- 3 points


@dataclass(frozen=True)
class Game:
    """One finished game: the deck (card ids) of each seat, the Light seat (-1: a shared-pool
    deal), the first player, and the winner (None: a draw)."""

    bots: str
    deal: int
    decks: tuple[tuple[str, ...], tuple[str, ...]]
    light_seat: int
    first: int
    winner: int | None


_CATALOGUE: Catalogue | None = None


def _init(path: str | None) -> None:
    global _CATALOGUE
    _CATALOGUE = load_catalogue(Path(path).read_bytes()) if path else default_catalogue()


Deal = tuple[list[str], tuple[list[int], list[int]], int]


def deal(cat: Catalogue, ruleset: Ruleset, number: int) -> Deal:
    """Deal `number`: (card id of every handle, draw orders, the Light seat or -1)."""
    rng = HashRng(b"bench-balance" + number.to_bytes(4, "big"), "deal")
    if number % 2 == 0:
        ids, orders = random_deal(cat, ruleset, rng)
        return ids, orders, -1
    n = ruleset.deck_size
    light = [c.id for c in cat.cards if c.energy == LIGHT]
    dark = [c.id for c in cat.cards if c.energy != LIGHT]
    fisher_yates(light, rng.randrange)
    fisher_yates(dark, rng.randrange)
    light_seat = rng.randrange(2)
    decks = (light[:n], dark[:n]) if light_seat == 0 else (dark[:n], light[:n])
    orders: tuple[list[int], list[int]] = ([], [])
    for p in (0, 1):
        order = list(range(p * n, p * n + n))
        fisher_yates(order, rng.randrange)
        orders[p].extend(order)
    return decks[0] + decks[1], orders, light_seat


def play_balance(task: tuple[str, int, int]) -> Game:
    """Game `game` (deal game // 2, seats swapped on odd games) between two `bots` bots."""
    bots, game, iterations = task
    assert _CATALOGUE is not None
    cat, ruleset = _CATALOGUE, Ruleset()
    number = game // 2
    ids, orders, light_seat = deal(cat, ruleset, number)
    n = ruleset.deck_size
    if game % 2:  # the pair's second game: the decks change seats
        ids = ids[n:] + ids[:n]
        orders = ([h - n for h in orders[1]], [h + n for h in orders[0]])
        light_seat = -1 if light_seat < 0 else 1 - light_seat
    budget = Budget(iterations=iterations, seconds=None) if bots == "ismcts" else None
    players = tuple(make(bots, 2 * game + p, budget) for p in (0, 1))
    seed = b"bench-balance-layout" + number.to_bytes(4, "big")  # same layout for both games
    referee = Referee(ruleset, cat, seed, ids, orders, (players[0].choose, players[1].choose))
    result = referee.play()
    return Game(bots, number, (tuple(ids[:n]), tuple(ids[n:])), light_seat,
                referee.state.first, result.winner)


def points(game: Game, seat: int) -> float:
    return 0.5 if game.winner is None else float(game.winner == seat)


@dataclass(frozen=True)
class Rate:
    wins: float
    n: int

    @property
    def rate(self) -> float:
        return self.wins / self.n if self.n else 0.0

    def show(self) -> str:
        lo, hi = wilson(self.wins, self.n)
        return f"{self.rate:6.1%} [{lo:5.1%}-{hi:5.1%}] n={self.n}"


def card_rates(games: list[Game]) -> dict[str, Rate]:
    wins: dict[str, float] = {}
    seen: dict[str, int] = {}
    for g in games:
        for seat in (0, 1):
            for cid in g.decks[seat]:
                wins[cid] = wins.get(cid, 0.0) + points(g, seat)
                seen[cid] = seen.get(cid, 0) + 1
    return {cid: Rate(wins[cid], seen[cid]) for cid in seen}


def light_rate(games: list[Game]) -> Rate:
    mono = [g for g in games if g.light_seat >= 0]
    return Rate(sum(points(g, g.light_seat) for g in mono), len(mono))


def first_rate(games: list[Game]) -> Rate:
    return Rate(sum(points(g, g.first) for g in games), len(games))


def run_balance(bots: str, pairs: int, iterations: int, jobs: int, path: str | None) -> list[Game]:
    tasks = [(bots, game, iterations) for game in range(2 * pairs)]
    if jobs == 1:
        _init(path)
        return [play_balance(t) for t in tasks]
    with multiprocessing.Pool(jobs, initializer=_init, initargs=(path,)) as pool:
        return pool.map(play_balance, tasks, chunksize=8 if bots == "greedy" else 1)


def report(title: str, games: list[Game], cat: Catalogue) -> list[str]:
    """Print the table; return the cards outside the target."""
    rates = card_rates(games)
    print(f"\n== {title}: {len(games)} games ({len(games) // 2} deals x 2 seats)")
    energy, first = light_rate(games), first_rate(games)
    print(f"Light vs Dark (Light deck's win rate): {energy.show()}  "
          f"target 50 +/- {TARGET_ENERGY:.0%}")
    print(f"first player's win rate:              {first.show()}  target 50 +/- {TARGET_FIRST:.0%}")
    draws = sum(g.winner is None for g in games)
    print(f"draws: {draws}")
    print(f"{'card':<20} {'E':<1} {'S':>1}  inclusion win rate [95 % CI]")
    out = []
    order = sorted(cat.cards, key=lambda c: -rates[c.id].rate if c.id in rates else 0)
    for c in order:
        r = rates.get(c.id, Rate(0, 0))
        flag = "" if TARGET_CARD[0] <= r.rate <= TARGET_CARD[1] else "  <-- outside 45-55 %"
        if flag:
            out.append(c.id)
        print(f"{c.id:<20} {c.energy_name[0].upper()} {c.strength}  {r.show()}{flag}")
    ok_energy = abs(energy.rate - 0.5) <= TARGET_ENERGY
    ok_first = abs(first.rate - 0.5) <= TARGET_FIRST
    print(f"targets: cards {len(cat) - len(out)}/{len(cat)} in range, Light vs Dark "
          f"{'met' if ok_energy else 'MISSED'}, first player {'met' if ok_first else 'MISSED'}")
    return out


#: the greedy deals the targets were set for (SPEC Part 2 "Balance"); fewer are not judged
FULL_PAIRS = 2000


def balance_figures(pairs: int = 2000, ismcts_pairs: int = 60, iterations: int = 2, jobs: int = 2,
            catalogue: str | None = None) -> list[dict[str, object]]:
    """For bench/run_all.py: the highest and the lowest inclusion win rate of a card (target
    45-55 %) over the greedy games (SPEC's per-card figures are greedy's: the ISMCTS games are
    too few for them), and per pairing the distance from 50 % of Light vs Dark (target 2
    points) and of the first player (target 3 points)."""
    out: list[dict[str, object]] = []
    judged = True  # the targets hold for the sample (2,000 greedy deals) only

    def fig(name: str, value: float, target: float, comparison: str, unit: str = "%") -> None:
        out.append({"name": f"balance {name}", "value": value, "unit": unit,
                    "target": target if judged else None,
                    "comparison": comparison if judged else None})

    for bots, n in (("greedy", pairs), ("ismcts", ismcts_pairs)):
        if n <= 0:
            continue
        # a quick run's few games are noise against these targets: shown, not judged
        judged = bots == "greedy" and n >= FULL_PAIRS
        games = run_balance(bots, n, iterations, jobs, catalogue)
        label = (f"{bots} vs {bots}" + ("" if bots == "greedy" else f" ({iterations} iterations)")
                 + f", {len(games)} games")
        if bots == "greedy":
            rates = card_rates(games)
            high = max(rates, key=lambda cid: rates[cid].rate)
            low = min(rates, key=lambda cid: rates[cid].rate)
            fig(f"{label}: highest card inclusion win rate ({high}, n={rates[high].n})",
                100 * rates[high].rate, 100 * TARGET_CARD[1], "<=")
            fig(f"{label}: lowest card inclusion win rate ({low}, n={rates[low].n})",
                100 * rates[low].rate, 100 * TARGET_CARD[0], ">=")
        energy, first = light_rate(games), first_rate(games)
        if energy.n:
            fig(f"{label}: Light vs Dark, distance from 50 % ({energy.rate:.1%}, n={energy.n})",
                100 * abs(energy.rate - 0.5), 100 * TARGET_ENERGY, "<=", "points")
        fig(f"{label}: first player, distance from 50 % ({first.rate:.1%}, n={first.n})",
            100 * abs(first.rate - 0.5), 100 * TARGET_FIRST, "<=", "points")
    return out



# --- all of it, for bench/run_all.py ---------------------------------------------------------

#: quick mode (bench/run_all.py without --full): 10 bot games per pairing instead of 200 (same
#: ISMCTS budget), 30 greedy and 2 ismcts balance deals instead of 2000 and 60
QUICK = {"games": 10, "pairs": 30, "ismcts_pairs": 2}


def figures(engine_games: int = 300, engine_runs: int = 5, games: int = 200,
            iterations: int | None = None, seconds: float = 0.5, jobs: int | None = None,
            pairs: int = 2000, ismcts_pairs: int = 60, balance_iterations: int = 2,
            catalogue: str | None = None) -> list[dict[str, object]]:
    """The three sections' figures for bench/run_all.py: the engine's, the bots' (`games` per
    pairing) and the balance's (`pairs` greedy and `ismcts_pairs` ismcts deals)."""
    return (engine_figures(engine_games, engine_runs)
            + bots_figures(games, iterations, seconds, jobs)
            + balance_figures(pairs, ismcts_pairs, balance_iterations, 2, catalogue))


def engine_main(args: argparse.Namespace) -> None:
    orders = [args.order] if args.order else ["ordered", "any"]
    print(f"{'ruleset':<22}{'inputs/s':>10}{'games/s':>9}{'inputs/game':>12}"
          f"{'turns/game':>11}{'state B':>8}{'clone us':>9}{'hash us':>8}")
    for order in orders:
        med = medians(order, args.games, args.runs, args.deck, args.hand)
        name = f"{order} d{args.deck} h{args.hand}"
        print(f"{name:<22}{med['inputs/s']:>10.0f}{med['games/s']:>9.1f}"
              f"{med['inputs/game']:>12.1f}{med['turns/game']:>11.1f}"
              f"{med['state bytes']:>8.0f}{med['clone us']:>9.2f}{med['hash us']:>8.1f}")
    # the figures are the pure build's unless VERSUS_COMPILED=1 loaded a compiled one
    print(f"engine build: {'compiled (mypyc, versus/compiled.py)' if active() else 'pure Python'}")


def bots_main(args: argparse.Namespace) -> None:
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


def balance_main(args: argparse.Namespace) -> None:
    _init(args.catalogue)
    assert _CATALOGUE is not None
    cat = _CATALOGUE
    print(f"catalogue {cat.digest.hex()[:16]}..., {len(cat)} cards; {args.jobs} processes")
    all_games: list[Game] = []
    for bots, pairs in (("greedy", args.pairs), ("ismcts", args.ismcts_pairs)):
        if pairs <= 0:
            continue
        start = time.perf_counter()
        games = run_balance(bots, pairs, args.iterations, args.jobs, args.catalogue)
        label = bots if bots == "greedy" else f"ismcts ({args.iterations} iterations/decision)"
        print(f"\n{label} vs itself: {len(games)} games in {time.perf_counter() - start:.0f} s")
        report(f"{label} vs itself", games, cat)
        all_games += games
    if args.ismcts_pairs > 0 and args.pairs > 0:
        report("both pairings together", all_games, cat)


def main() -> None:
    ap = argparse.ArgumentParser(description="Versus's own benchmark: engine, bots, balance.")
    sections = ap.add_subparsers(dest="section", required=True)
    sub = sections.add_parser("engine", help="random self-play through the referee")
    sub.add_argument("--games", type=count, default=300)
    sub.add_argument("--runs", type=count, default=5)
    sub.add_argument("--order", choices=("ordered", "any"), default=None)
    sub.add_argument("--deck", type=count, default=12)
    sub.add_argument("--hand", type=count, default=3)
    sub = sections.add_parser("bots", help="the bots' win rates and ismcts's time")
    sub.add_argument("--games", type=count, default=200, help="games per pairing")
    sub.add_argument("--iterations", type=count_or_zero, default=0,
                    help="ismcts iterations/decision (0: no limit, the time cap only)")
    sub.add_argument("--seconds", type=seconds_up_to(3600), default=0.5,
                    help="ismcts time cap/decision (checked between playouts; the first "
                         "iteration always completes)")
    sub.add_argument("--jobs", type=count, default=multiprocessing.cpu_count())
    sub.add_argument("--pairings", default=",".join(map(str, DEFAULT_PAIRINGS)),
                    help="indexes into " + repr(PAIRINGS))
    sub = sections.add_parser("balance", help="inclusion win rates per card")
    sub.add_argument("--pairs", type=int, default=2000, help="greedy vs greedy deals (x2 games)")
    sub.add_argument("--ismcts-pairs", type=int, default=60,
                    help="ismcts vs ismcts deals (x2 games); 0 skips them")
    sub.add_argument("--iterations", type=int, default=2, help="ismcts iterations per decision")
    sub.add_argument("--jobs", type=int, default=2, help="processes (at most 2 on a shared box)")
    sub.add_argument("--catalogue", default=None, help="a catalogue file (default: the packaged)")
    args = ap.parse_args()
    if args.section == "balance" and not 1 <= args.jobs <= 2:
        ap.error(f"--jobs must be 1 or 2, got {args.jobs}")
    {"engine": engine_main, "bots": bots_main, "balance": balance_main}[args.section](args)


if __name__ == "__main__":
    main()
