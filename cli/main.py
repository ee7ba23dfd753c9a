# The `versus` command. For now one subcommand, `versus demo`: two random players play a whole
# engine-only game through the referee and the board is printed after every turn. Randomness
# comes from `secrets` unless --seed pins it (then the game is reproducible).
from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Sequence

from engine import (
    Deal,
    HashRng,
    Input,
    Referee,
    Reveal,
    Ruleset,
    default_catalogue,
    random_chooser,
    random_deal,
)

from .board_text import render_board
from .commands import add_network_parsers
from .replay import add_replay_parser
from .tournament import add_tournament_parser
from .verify_cmd import add_verify_parser


def cmd_demo_offline(args: argparse.Namespace, out) -> int:  # type: ignore[no-untyped-def]
    seed = args.seed if args.seed is not None else secrets.token_bytes(16)
    ruleset = Ruleset()
    catalogue = default_catalogue()
    ids, orders = random_deal(catalogue, ruleset, HashRng(seed, "demo-deal"))
    choosers = (random_chooser(HashRng(seed, "demo-player-0")),
                random_chooser(HashRng(seed, "demo-player-1")))
    referee = Referee(ruleset, catalogue, seed, ids, orders, choosers)
    print(f"versus demo, seed {seed.hex()}, player {referee.state.first} starts", file=out)
    shown_turn = referee.state.turn

    def on_step(ref: Referee, inp: Input) -> None:
        nonlocal shown_turn
        if args.quiet:
            return
        if not isinstance(inp, Deal | Reveal):
            print(f"  {inp}", file=out)
        if ref.state.turn != shown_turn and ref.state.result is None:
            print(f"after turn {shown_turn + 1}:", file=out)
            print(render_board(ref.view(0)), file=out)
            shown_turn = ref.state.turn

    result = referee.play(on_step)
    print(render_board(referee.view(0)), file=out)
    print(f"result: {result} after {referee.state.turn + 1} turns, {referee.steps} inputs",
          file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="versus", description="Versus P2P")
    sub = parser.add_subparsers(dest="command", required=True)
    add_network_parsers(sub, offline_demo=cmd_demo_offline)  # host, join, play, demo
    add_verify_parser(sub)
    add_replay_parser(sub)
    add_tournament_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args, sys.stdout))


if __name__ == "__main__":
    raise SystemExit(main())
