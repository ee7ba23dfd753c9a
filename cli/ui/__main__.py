# `python -m versus.cli.ui --game ID`: try the terminal UI against a local bot (no network):
# any registered game, through cli/client.py's LocalMatchClient.
from __future__ import annotations

import argparse
import sys

from versus.engine.registry import DEFAULT_GAME

from ..client import LocalMatchClient, bot_chooser
from ..parsers import add_ui_options
from .app import run_ui


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m versus.cli.ui",
                                     description="play a game against a local bot")
    parser.add_argument("--game", default=DEFAULT_GAME, help="the game's registry id")
    parser.add_argument("--bot", default="random", help="the opponent bot (cli/bots)")
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--seed", default=None, help="hex seed (a reproducible deal)")
    parser.add_argument("--minutes", type=float, default=None, help="clock per player")
    parser.add_argument("--delay", type=float, default=0.6, help="bot's seconds per decision")
    add_ui_options(parser)
    args = parser.parse_args(argv)
    try:
        seed = bytes.fromhex(args.seed) if args.seed else None
    except ValueError:
        parser.error(f"seed {args.seed!r} is not hexadecimal")
    clock = None if args.minutes is None else int(args.minutes * 60_000)
    try:
        client = LocalMatchClient(args.game, seat=args.seat, seed=seed, clock_ms=clock,
                                  opponent_delay=args.delay, bot_name=args.bot)
        if args.bot != "random":
            client = LocalMatchClient(args.game, seat=args.seat, seed=client.seed,
                                      clock_ms=clock, opponent_delay=args.delay,
                                      bot_name=args.bot,
                                      chooser=bot_chooser(args.game, args.bot, client.seed))
    except (ValueError, KeyError) as error:
        parser.error(str(error))
    result = run_ui(client, theme=args.theme)
    print("result:", result.describe(args.seat) if result else "left unfinished")
    print("seed:", client.seed.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
