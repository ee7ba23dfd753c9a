# Bot benchmark of the other games: greedy against random in every two-player game that
# registers a greedy of its own (but Versus: `bench/versus42.py bots`), in-process engine play
# through the generic Game interface (no protocol, no network): the one full-information loop
# (engine/referee_loop.py) deals each hidden deck in a seeded order (the game's `local_deal`;
# each player's knowledge learns what it is dealt), answers each reveal with the true card and
# each chance decision with a seeded draw, and asks the bots for turns and choices with their
# seat's view (`Game.view`) only.
#
# Duplicate format, as `bench/versus42.py bots`: games 2k and 2k+1 play the same deal (and
# chance stream) with the seats swapped. Prints per game the wins of A, the draws, the win rate
# of A (draws as half) with a 95 % Wilson interval over games, and how many deals A won from
# both seats, and the CPU seconds a game costs (the process's own time: a figure the other work
# on a shared machine moves less than the wall time).
#
# `--seat S` plays only the games in which A sits in seat S (deal k's game 2k+S), for comparing
# two versions of a bot on the games that tell them apart (in a game whose seats are unequal,
# those from the weaker seat), with the same deals and seeds as in the whole duplicate run.
#   python bench/bots_games.py [--games 200] [--game ID ...] [--jobs N] [--seat S]
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.cli.bots import make_bot
from versus.cli.tournament_stats import wilson
from versus.engine.api import Finished, Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import DEFAULT_GAME, get_game
from versus.engine.registry import games as registered_games
from versus.engine.shell import game_bots


def bot_games() -> tuple[str, ...]:
    """The games this bench plays: every registered two-player game that registers a `greedy`
    of its own, but the default one (Versus: `bench/versus42.py bots`)."""
    return tuple(g.id for g in registered_games() if g.id != DEFAULT_GAME and g.players == 2
                 and "greedy" in game_bots(get_game(g.id)))


def play_game(game_id: str, bots: tuple[Any, Any], seed: bytes, rules: Any = None,
              max_inputs: int = 100_000) -> Finished:
    """One game of `bots` (by seat) from the deal (the game's `local_deal`) and the chance
    stream of `seed`, in the one full-information loop (engine/referee_loop.py). A bot that
    answers an input not in the legal list raises AssertionError."""
    game = get_game(game_id)
    rules = game.default_rules() if rules is None else rules
    catalogue = game.default_catalogue()
    identity, orders = local_deal(game, rules, catalogue, seed)
    play = LocalPlay.start(game, Setup(rules, catalogue, seed[:64] or b"x"), identity, orders,
                           HashBelow(seed + b"/chance", 8).below)

    def choose(view: Any, legal: list[Any], seat: int) -> Any:
        inp = bots[seat].choose(view, legal)
        assert inp in legal, f"{bots[seat].name} answered an illegal input {inp}"
        return inp

    return play.play(choose, max_inputs)


def play_pair_game(task: tuple[str, str, str, int, int]) -> tuple[int, float, float, float]:
    """Game `index` of a duplicate run: (deal number, A's score, seconds, CPU seconds)."""
    game_id, a_name, b_name, index, salt = task
    seed = b"bench-bots-games/%d/%d" % (salt, index // 2)
    a = make_bot(a_name, seed=2 * index, game=game_id)
    b = make_bot(b_name, seed=2 * index + 1, game=game_id)
    a_seat = index % 2
    bots = (a, b) if a_seat == 0 else (b, a)
    t0, c0 = time.perf_counter(), time.process_time()
    result = play_game(game_id, bots, seed)  # type: ignore[arg-type]
    score = 0.5 if result.winner is None else float(result.winner == a_seat)
    return index // 2, score, time.perf_counter() - t0, time.process_time() - c0



def run(game_id: str, a: str, b: str, games: int, jobs: int, salt: int = 0,
        seat: int | None = None) -> dict[str, Any]:
    """`games` games of the duplicate run (with `seat`: the first `games` in which A sits in
    that seat)."""
    indices = range(games) if seat is None else range(seat, 2 * games, 2)
    tasks = [(game_id, a, b, i, salt) for i in indices]
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            rows = pool.map(play_pair_game, tasks, chunksize=1)
    else:
        rows = [play_pair_game(t) for t in tasks]
    score = sum(r[1] for r in rows)
    wins = sum(1 for r in rows if r[1] == 1.0)
    draws = sum(1 for r in rows if r[1] == 0.5)
    per_deal: dict[int, float] = {}
    for d, s, *_ in rows:
        per_deal[d] = per_deal.get(d, 0.0) + s
    lo, hi = wilson(score, games)
    return {"game": game_id, "a": a, "b": b, "games": games, "wins": wins, "draws": draws,
            "rate": score / games, "low": lo, "high": hi,
            "both": sum(1 for v in per_deal.values() if v == 2.0),
            "split": sum(1 for v in per_deal.values() if 0.0 < v < 2.0),
            "lost": sum(1 for v in per_deal.values() if v == 0.0),
            "seconds": sum(r[2] for r in rows), "cpu": sum(r[3] for r in rows)}


def figures(games: int = 200, game: tuple[str, ...] | None = None, a: str = "greedy",
            b: str = "random", jobs: int | None = None, salt: int = 0) -> list[dict[str, Any]]:
    """A's win rate and the seconds per game, per game id, for bench/run_all.py (no target
    documented: SPEC §7.11.7 gives figures only)."""
    games += games % 2
    jobs = jobs or max(1, min(8, multiprocessing.cpu_count()))
    out: list[dict[str, Any]] = []
    for game_id in game or bot_games():
        r = run(game_id, a, b, games, jobs, salt)
        out.append({"name": f"bots_games {game_id} {a} vs {b}: win rate ({games} games, 95% CI "
                            f"{r['low']:.0%}-{r['high']:.0%})", "value": 100 * r["rate"],
                    "unit": "%", "target": None, "comparison": None})
        out.append({"name": f"bots_games {game_id} {a} vs {b}: seconds per game",
                    "value": r["seconds"] / games, "unit": "s", "target": None,
                    "comparison": None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200, help="games per game id (even)")
    ap.add_argument("--game", action="append", choices=bot_games(), help="default: all")
    ap.add_argument("--a", default="greedy")
    ap.add_argument("--b", default="random")
    ap.add_argument("--jobs", type=int, default=max(1, min(8, multiprocessing.cpu_count())))
    ap.add_argument("--salt", type=int, default=0, help="another set of deals")
    ap.add_argument("--seat", type=int, choices=(0, 1),
                    help="only the games in which A sits in this seat (deals 0..games-1)")
    args = ap.parse_args()
    games = args.games + args.games % 2 if args.seat is None else args.games
    print(f"{'game':12} {'pairing':18} {'games':>5} {'wins':>5} {'draws':>5} {'A rate':>7} "
          f"{'95% interval':>15} {'deals +/=/-':>12} {'s/game':>7} {'CPU s/game':>10}")
    for game_id in args.game or bot_games():
        r = run(game_id, args.a, args.b, games, args.jobs, args.salt, args.seat)
        deals = f"{r['both']:>4}/{r['split']}/{r['lost']:<4}" if args.seat is None else "-"
        print(f"{game_id:12} {r['a'] + ' vs ' + r['b']:18} {r['games']:5d} {r['wins']:5d} "
              f"{r['draws']:5d} {100 * r['rate']:6.1f}% "
              f"[{100 * r['low']:5.1f}, {100 * r['high']:5.1f}]% "
              f"{deals:>12} {r['seconds'] / games:7.3f} "
              f"{r['cpu'] / games:10.3f}",
              flush=True)


if __name__ == "__main__":
    main()
