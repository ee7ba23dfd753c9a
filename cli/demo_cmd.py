# `versus demo`: two bots play a whole match over loopback TCP through the full protocol, the
# moves are printed, and the transcript is verified (exit 4 if it is not). `--seed` makes
# every secret derive from the seed (insecure_seed.seeded): the same seed writes the same bytes
# (the golden tests). `--offline`: the Versus engine alone, two random players, no protocol.
# Bots are guarded as the tournament's: one that fails forfeits, and the demo exits 1.
from __future__ import annotations

import argparse
import secrets
import tempfile
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import trio

from versus.p2p.loopback import play_loopback_match
from versus.protocol.crypto.identity import Identity
from versus.protocol.match.rules import master_rng
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.text import printable

from .boundary import CommandError
from .driving import drive_player
from .exit_codes import EXIT_FAULT, EXIT_OK
from .insecure_seed import seeded
from .match_setup import (
    enter_guarded_player,
    forfeits_of,
    has_board_text,
    rules_from,
)
from .match_text import MAX_LOG_LINE, bot_failures, result_text


class _Narrator:
    """Wraps a player: prints seat 0's board whenever a new turn has begun (Versus)."""

    def __init__(self, player: Any, out: TextIO, quiet: bool, shown: list[int]) -> None:
        self.player, self.out, self.quiet, self.shown = player, out, quiet, shown
        self.name = player.name

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        from .board_text import render_board

        action = await self.player.choose(view, legal)
        if not self.quiet:
            if view.turn != self.shown[0]:
                self.shown[0] = view.turn
                print(f"turn {view.turn + 1}, as player {view.player} sees it:", file=self.out)
                print(render_board(view), file=self.out)
            print(f"  player {view.player}: {action}", file=self.out)
        return action


class _MovePrinter:
    """Wraps a player of any game: prints each of its inputs in the game's notation."""

    def __init__(self, player: Any, game: Any, seat: int, out: TextIO, quiet: bool) -> None:
        self.player, self.game, self.seat, self.out, self.quiet = player, game, seat, out, quiet
        self.name = player.name

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        action = await self.player.choose(view, legal)
        if not self.quiet and action in legal:  # (a forfeit's sentinel is no input)
            text = printable(self.game.format_input(action), MAX_LOG_LINE)
            print(f"  player {self.seat}: {text}", file=self.out)
        return action


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    rules = rules_from(args, "demo")
    #: the full-screen game's board is printed as text (cli/board_text.py), each turn; another
    #: game's inputs in its notation
    boards = has_board_text(rules.game)
    seed = args.seed
    bot_seeds = [int.from_bytes(seeded(seed, f"bot{s}")[:8], "big") for s in (0, 1)]
    identities = (Identity(seeded(seed, "id0")), Identity(seeded(seed, "id1")))
    master = (seeded(seed, "secret0"), seeded(seed, "secret1"))
    # the match is bound to the channel's handshake (SPEC §4.5): a seeded demo seeds it too
    handshakes = None if seed is None else (
        master_rng(seeded(seed, "handshake0")), master_rng(seeded(seed, "handshake1")))
    out_dir = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="versus-demo-"))
    shown = [-1]
    guards: list[Any] = []  # the bots, guarded as the tournament's (enter_guarded_player)

    async def main() -> Any:
        async with AsyncExitStack() as stack:
            for s, name in enumerate((args.bot_a, args.bot_b)):
                guards.append(await enter_guarded_player(stack, name, bot_seeds[s],
                                                         rules.game))
            players = ([_Narrator(guard, out, args.quiet, shown) for guard in guards] if boards
                       else [_MovePrinter(guard, rules.game_impl, s, out, args.quiet)
                             for s, guard in enumerate(guards)])
            return await play_loopback_match(players, rules, transcript_dir=out_dir,
                                             identities=identities, master_secrets=master,
                                             handshake_rngs=handshakes, timeout=600,
                                             drive=drive_player)

    game = "" if boards else f"{rules.game} ({rules.game_impl.describe_rules(rules.ruleset)}), "
    print(f"versus demo: {game}{args.bot_a} (player 0) vs {args.bot_b} (player 1), "
          f"{rules.deal_mode.value} deal, over TCP on 127.0.0.1", file=out)
    if not args.quiet and boards:
        from .board_text import LEGEND

        print(LEGEND, file=out)
    result = trio.run(main)
    forfeits = forfeits_of(guards)
    print(f"result: {result_text(result.result, forfeits)}", file=out)
    print(f"transcript: {result.transcript_path}", file=out)
    report = verify_transcript(result.transcript_path.read_bytes()
                               if result.transcript_path else result.transcript)
    print("verify: " + report.describe().splitlines()[0], file=out)
    if not report.ok or result.result is None:
        return EXIT_FAULT
    if forfeits:  # a bot that failed is an error of the demo, not a game it lost
        raise CommandError(bot_failures(forfeits))
    return EXIT_OK


def cmd_demo_offline(args: argparse.Namespace, out: TextIO) -> int:
    """`versus demo --offline`: the engine alone, two random players, no protocol."""
    from versus.engine import HashRng
    from versus.engine.versus42 import (
        Deal,
        Input,
        Referee,
        Reveal,
        Ruleset,
        default_catalogue,
        random_chooser,
        random_deal,
    )

    from .board_text import render_board

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


def cmd_demo_any(args: argparse.Namespace, out: TextIO) -> int:
    return cmd_demo_offline(args, out) if args.offline else cmd_demo(args, out)
