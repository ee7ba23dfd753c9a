# `python -m versus.cli.bots A B [--game ID] [--games N] [--seed HEX]`: local games between two
# bots by name (random, a game's own bots such as greedy or ismcts, cmd:<command line>) of any
# two-player game of the registry, seats swapped every game; prints each result. The games are
# dealt by the game's local deal (engine/referee_loop.py `local_deal`) of the seed and played in
# the one full-information loop.
from __future__ import annotations

import argparse
import secrets
import sys
from contextlib import AsyncExitStack
from typing import TextIO

import trio

from versus.engine.api import Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import DEFAULT_GAME, UnknownGameError, get_game

from ..argtypes import count
from .base import BotError, BotForfeit, as_async
from .external import ExternalBot
from .match import play_match
from .registry import make_bot


def new_game(game_id: str, seed: bytes) -> LocalPlay:
    """A local game of `game_id` (default rules and card data) dealt from `seed`."""
    game = get_game(game_id)
    rules, catalogue = game.default_rules(), game.default_catalogue()
    identity, orders = local_deal(game, rules, catalogue, seed)
    return LocalPlay.start(game, Setup(rules, catalogue, seed), identity, orders,
                           HashBelow(seed + b"/chance").below)


async def run(names: list[str], games: int, seed: bytes, out: TextIO,
              game: str = DEFAULT_GAME) -> int:
    wins = {name: 0 for name in names}
    for g in range(games):
        game_seed = seed + g.to_bytes(4, "big")
        seats = names if g % 2 == 0 else names[::-1]
        play = new_game(game, game_seed)
        async with AsyncExitStack() as stack:
            players = []
            for name in seats:
                bot = make_bot(name, game=game)
                if isinstance(bot, ExternalBot):
                    await stack.enter_async_context(bot)
                players.append(as_async(bot))
            try:
                result = await play_match(play, players)
            except BotForfeit as e:
                print(f"game {g + 1}: {e}", file=out)
                continue
            for p, player in enumerate(players):
                if isinstance(player, ExternalBot):
                    await player.finish(result, p)
        winner = "nobody" if result.winner is None else seats[result.winner]
        if result.winner is not None:
            wins[seats[result.winner]] += 1
        print(f"game {g + 1}: {seats[0]} vs {seats[1]}: {result.outcome} -> {winner}", file=out)
    print("wins: " + ", ".join(f"{n}: {w}" for n, w in wins.items()), file=out)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m versus.cli.bots", description=__doc__)
    ap.add_argument("bots", nargs=2,
                    help="random | a game's own bot (greedy, ismcts, ...) | cmd:<command line>")
    ap.add_argument("--game", default=DEFAULT_GAME, help=f"a game id (default {DEFAULT_GAME})")
    ap.add_argument("--games", type=count, default=2)
    ap.add_argument("--seed", default=None, help="hex seed of the deals (default: random)")
    args = ap.parse_args(argv)
    try:
        seed = bytes.fromhex(args.seed) if args.seed else secrets.token_bytes(8)
    except ValueError:
        ap.error(f"--seed {args.seed!r} is not hexadecimal")
    try:
        get_game(args.game)
        return trio.run(run, args.bots, args.games, seed, sys.stdout, args.game)
    except (BotError, UnknownGameError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
