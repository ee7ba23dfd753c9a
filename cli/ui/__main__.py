# `python -m versus.cli.ui`: try the terminal UI against a local random bot (no network). The lead
# wires the same thing into `versus play --offline` later.
from __future__ import annotations

import argparse
import sys

from ..client import LocalMatchClient
from ..parsers import add_ui_options
from .app import run_ui


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m versus.cli.ui",
                                     description="play Versus against a local random bot")
    parser.add_argument("--seat", type=int, choices=(0, 1), default=0)
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
    client = LocalMatchClient(seat=args.seat, seed=seed, clock_ms=clock,
                              opponent_delay=args.delay)
    result = run_ui(client, theme=args.theme)
    print("result:", result.describe(args.seat) if result else "left unfinished")
    print("seed:", client.seed.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
