# `python -m versus.cli.bots A B [--games N] [--seed HEX]`: local games between two bots by name
# (random, greedy, ismcts, ismcts-tree, cmd:<command line>), seats swapped every game; prints
# each result.
from __future__ import annotations

import argparse
import secrets
import sys
from contextlib import AsyncExitStack

import trio

from versus.engine import HashRng
from versus.engine.versus42 import Referee, Ruleset, default_catalogue, random_deal

from .base import BotError, BotForfeit, as_async
from .external import ExternalBot
from .match import play_match
from .registry import make_bot


async def run(names: list[str], games: int, seed: bytes, out) -> int:  # type: ignore[no-untyped-def]
    ruleset, catalogue = Ruleset(), default_catalogue()
    wins = {name: 0 for name in names}
    for g in range(games):
        game_seed = seed + g.to_bytes(4, "big")
        seats = names if g % 2 == 0 else names[::-1]
        ids, orders = random_deal(catalogue, ruleset, HashRng(game_seed, "bots-deal"))
        referee = Referee(ruleset, catalogue, game_seed, ids, orders, (None, None))  # type: ignore[arg-type]
        async with AsyncExitStack() as stack:
            players = []
            for name in seats:
                bot = make_bot(name)
                if isinstance(bot, ExternalBot):
                    await stack.enter_async_context(bot)
                players.append(as_async(bot))
            try:
                result = await play_match(referee, players)
            except BotForfeit as e:
                print(f"game {g + 1}: {e}", file=out)
                continue
            for p, player in enumerate(players):
                if isinstance(player, ExternalBot):
                    await player.finish(result, p)
        winner = "nobody" if result.winner is None else seats[result.winner]
        if result.winner is not None:
            wins[seats[result.winner]] += 1
        print(f"game {g + 1}: {seats[0]} vs {seats[1]}: {result} -> {winner}", file=out)
    print("wins: " + ", ".join(f"{n}: {w}" for n, w in wins.items()), file=out)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m versus.cli.bots", description=__doc__)
    ap.add_argument("bots", nargs=2,
                    help="random | greedy | ismcts | ismcts-tree | cmd:<command line>")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--seed", default=None, help="hex seed of the deals (default: random)")
    args = ap.parse_args(argv)
    seed = bytes.fromhex(args.seed) if args.seed else secrets.token_bytes(8)
    try:
        return trio.run(run, args.bots, args.games, seed, sys.stdout)
    except BotError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
