# Vanquishers engine benchmark: random self-play on one core, the protocol's part played by the
# one full-information loop (engine/referee_loop.py `play_random`: deals from a shuffled order
# of two legal starter decks, reveals from the identities, dice from a SHA-256 stream; every
# input applied through the checked `step`, the full legal list asked at every TURN/CHOICE, no
# view built). Prints applied inputs per second, full games per second, average inputs and
# dice per game, the encoded state size (of the final states, after the timed games), and the
# size of a whole match's signed transcript through the protocol; each figure is a median.
#   python bench/vanquishers.py [--games N] [--runs R] [--mode standard|advanced] [--deck 30]
from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bots_games  # bench/bots_games.py: the duplicate-format loop

# bench/ leaves the path again: under bench/run_all.py it would shadow engine/, protocol/, p2p/
sys.path.remove(str(Path(__file__).resolve().parent))

from versus.engine.api import Setup
from versus.engine.hashing import HashStream
from versus.engine.referee_loop import LocalPlay
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers import starter_deck
from versus.engine.vanquishers.engine import State
from versus.engine.vanquishers.rules import Mode, Rules


class Stream:
    def __init__(self, seed: str) -> None:
        self.seed, self.counter = seed.encode(), 0

    def below(self, n: int) -> int:
        self.counter += 1
        digest = hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
        return int.from_bytes(digest[:8], "big") % n  # bias < 2^-58: fine for a bench


def play(rules: Rules, seed: str) -> tuple[int, int, State]:
    """One random game through the one full-information loop (engine/referee_loop.py
    `play_random`: the full legal list asked at every decision, every input applied through the
    checked `step`, no view built): (inputs applied, dice rolled, the final state)."""
    cat = G.default_catalogue()
    rng = Stream(seed)
    n = rules.deck_size
    identity = {}
    order: list[list[int]] = []
    for p in (0, 1):
        deck = starter_deck(cat, rules.heroes[p], n)
        identity.update({p * n + i: card for i, card in enumerate(deck)})
        handles = list(range(p * n, p * n + n))
        for i in range(n - 1, 0, -1):
            j = rng.below(i + 1)
            handles[i], handles[j] = handles[j], handles[i]
        order.append(handles)
    dice = [0]

    def roll(n: int) -> int:
        dice[0] += 1
        return rng.below(n)

    play = LocalPlay.start(G, Setup(rules, cat, b"bench"), identity, order, roll)
    # the players draw from their own streams (a byte per pick), not a SHA-256 digest each
    seats = (HashStream("bench/vanquishers/p0", rng.seed).randbelow,
             HashStream("bench/vanquishers/p1", rng.seed).randbelow)
    play.play_random(seats)
    return play.inputs, dice[0], play.state


def measure(rules: Rules, games: int, runs: int) -> dict[str, float]:
    """`runs` runs of `games` random games: the medians of inputs/s, games/s and state bytes,
    the mean inputs and dice per game."""
    rates, game_rates, sizes = [], [], []
    total_inputs = total_dice = 0
    for run in range(runs):
        start = time.perf_counter()
        inputs, finals = 0, []
        for g in range(games):
            applied, dice, final = play(rules, f"bench/{run}/{g}")
            inputs += applied
            total_inputs += applied
            total_dice += dice
            finals.append(final)
        elapsed = time.perf_counter() - start
        # the final states' sizes, measured outside the timed games (not inputs)
        sizes += [len(G.encode_state(s)) for s in finals]
        rates.append(inputs / elapsed)
        game_rates.append(games / elapsed)
    return {"games": games * runs, "inputs/s": statistics.median(rates),
            "games/s": statistics.median(game_rates),
            "inputs/game": total_inputs / (games * runs), "dice/game": total_dice / (games * runs),
            "state bytes": statistics.median(sizes)}


#: the quick mode of bench/run_all.py (under a minute; its rates say little)
QUICK = {"games": 10, "runs": 3, "matches": 2, "ismcts_games": 2}


ENGINE_GOAL = 30_000.0  # inputs/s (SPEC, Performance goals)
ISMCTS_GOAL = 65.0  # % of paired games of ismcts (0.5 s a decision) against greedy (idem)


def figures(games: int = 40, runs: int = 3, mode: str = "standard", deck: int = 30,
            matches: int = 5, ismcts_games: int = 40, jobs: int = 2
            ) -> list[dict[str, object]]:
    """The table's figures for bench/run_all.py, with SPEC's goals (Performance goals): 30,000
    inputs/s, and ismcts >= 65 % against greedy over `ismcts_games` paired games (default rules,
    bench/bots_games.py's loop)."""
    rules = Rules(deck_size=deck, mode=Mode(mode))
    med = measure(rules, games, runs)
    units = {"inputs/s": "/s", "games/s": "/s", "inputs/game": "inputs", "dice/game": "dice",
             "state bytes": "B"}
    out: list[dict[str, object]] = [
        {"name": f"vanquishers {mode}: {what}", "value": med[what], "unit": unit,
         "target": ENGINE_GOAL if what == "inputs/s" else None,
         "comparison": ">=" if what == "inputs/s" else None} for what, unit in units.items()]
    out.append({"name": f"vanquishers {mode}: transcript bytes (decklist match, median of "
                        f"{matches})", "value": transcript_bytes(rules, matches), "unit": "B",
                "target": None, "comparison": None})
    if ismcts_games:
        games_played = ismcts_games + ismcts_games % 2
        r = bots_games.run(G.id, "ismcts", "greedy", games_played, jobs)
        out.append({"name": f"vanquishers ismcts vs greedy: win rate ({games_played} games, "
                            f"95% CI {r['low']:.0%}-{r['high']:.0%})", "value": 100 * r["rate"],
                    "unit": "%", "target": ISMCTS_GOAL, "comparison": ">="})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", choices=[m.value for m in Mode], default="standard")
    parser.add_argument("--deck", type=int, default=30)
    args = parser.parse_args()
    rules = Rules(deck_size=args.deck, mode=Mode(args.mode))
    med = measure(rules, args.games, args.runs)
    print(f"vanquishers engine, {rules.describe()}, random play, {med['games']} games")
    print(f"  inputs/s        {med['inputs/s']:10.0f}")
    print(f"  games/s         {med['games/s']:10.2f}")
    print(f"  inputs/game     {med['inputs/game']:10.1f}")
    print(f"  dice/game       {med['dice/game']:10.1f}")
    print(f"  state bytes     {med['state bytes']:10.0f}")
    print(f"  transcript bytes{transcript_bytes(rules):10.0f}   (decklist match through the "
          "protocol, random play; median of 5)")


def transcript_bytes(rules: Rules, matches: int = 5) -> float:
    """The signed transcript's size of whole decklist matches played through the protocol by
    the tests' in-memory pair (random legal answers, dice by the chance chains)."""
    from tests.protocol.pair import Pair
    from versus.protocol.match.rules import DealMode, MatchRules
    from versus.protocol.wire.transcript import dump_transcript

    sizes = []
    for k in range(matches):
        pair = Pair(MatchRules(rules, DealMode.DECKLIST, game=G.id), label=f"bench/vq/{k}",
                    seed=k, catalogue=G.default_catalogue()).run()  # type: ignore[arg-type]
        sizes.append(len(dump_transcript(pair.transcript(0))))
    return statistics.median(sizes)


if __name__ == "__main__":
    main()
