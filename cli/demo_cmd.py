# `versus demo`: two bots play a whole match over loopback TCP through the full protocol, the
# scene the moving seat sees is printed each turn (the game describes it, engine/scene.py) with
# every move, and the transcript is verified (exit 4 if it is not). `--seed` makes every secret
# derive from the seed (insecure_seed.seeded): the same seed writes the same bytes (the golden
# tests). `--offline`: the game's engine alone, two random players, no protocol. The demo
# names no game: any registered game plays and is drawn the same way.
# Bots are guarded as the tournament's: one that fails forfeits, and the demo exits 1.
from __future__ import annotations

import argparse
import secrets
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import trio

from versus.engine.scene import player_name
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
    rules_from,
)
from .match_text import MAX_LOG_LINE, bot_failures, result_text


class _Narrator:
    """Wraps a player of any game: when its seat starts a turn (its first input after the
    other seat's) it prints the scene that seat sees (engine/scene.py, 80 columns), then each
    of its inputs in the game's notation. `seen(seat)`: that seat's (state, knowledge) now;
    `last`: the seat that moved last (shared by both narrators)."""

    def __init__(self, player: Any, game: Any, seat: int, out: TextIO, quiet: bool,
                 seen: Callable[[int], tuple[Any, Any]], last: list[int | None]) -> None:
        self.player, self.game, self.seat, self.out, self.quiet = player, game, seat, out, quiet
        self.seen, self.last = seen, last
        self.name = player.name

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        if not self.quiet:
            self.show_scene()
        action = await self.player.choose(view, legal)
        if not self.quiet and action in legal:  # (a forfeit's sentinel is no input)
            self.show_input(action)
        return action

    def show_scene(self) -> None:
        if self.last[0] == self.seat:
            return
        self.last[0] = self.seat
        print(f"as {player_name(self.seat, None)} sees it:", file=self.out)
        for line in scene_text(self.game, *self.seen(self.seat), self.seat):
            print(line, file=self.out)

    def show_input(self, action: Any) -> None:
        text = printable(self.game.format_input(action), MAX_LOG_LINE)
        print(f"  {player_name(self.seat, None)}: {text}", file=self.out)


def scene_text(game: Any, state: Any, knowledge: Any, seat: int) -> list[str]:
    """The scene `seat` sees, as the demo prints it: indented, 80 columns in all."""
    from versus.engine.api import scene_of
    from versus.engine.scene import scene_lines

    return ["    " + line for line in scene_lines(scene_of(game, state, seat, knowledge), 76)]


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    rules = rules_from(args, "demo")
    game = rules.game_impl
    seed = args.seed
    bot_seeds = [int.from_bytes(seeded(seed, f"bot{s}")[:8], "big") for s in (0, 1)]
    identities = (Identity(seeded(seed, "id0")), Identity(seeded(seed, "id1")))
    master = (seeded(seed, "secret0"), seeded(seed, "secret1"))
    # the match is bound to the channel's handshake (SPEC §4.5): a seeded demo seeds it too
    handshakes = None if seed is None else (
        master_rng(seeded(seed, "handshake0")), master_rng(seeded(seed, "handshake1")))
    out_dir = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="versus-demo-"))
    sessions: list[Any] = []  # (host, guest): each seat's state and knowledge, for its scene
    last: list[int | None] = [None]
    guards: list[Any] = []  # the bots, guarded as the tournament's (enter_guarded_player)

    def seen(seat: int) -> tuple[Any, Any]:
        return sessions[seat].state, sessions[seat].knowledge

    async def main() -> Any:
        async with AsyncExitStack() as stack:
            for s, name in enumerate((args.bot_a, args.bot_b)):
                guards.append(await enter_guarded_player(stack, name, bot_seeds[s],
                                                         rules.game))
            players = [_Narrator(guard, game, s, out, args.quiet, seen, last)
                       for s, guard in enumerate(guards)]
            return await play_loopback_match(players, rules, transcript_dir=out_dir,
                                             identities=identities, master_secrets=master,
                                             handshake_rngs=handshakes, timeout=600,
                                             on_start=lambda *both: sessions.extend(both),
                                             drive=drive_player)

    print(f"versus demo: {rules.game} ({game.describe_rules(rules.ruleset)}), {args.bot_a} "
          f"(player 1) vs {args.bot_b} (player 2), {rules.deal_mode.value} deal, over TCP on "
          "127.0.0.1", file=out)
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
    """`versus demo --offline`: the game's engine alone, two random players in the one
    full-information loop (engine/referee_loop.py: a local deal, no protocol, no network),
    printed as the network demo prints its match."""
    from versus.engine.api import Finished, Setup
    from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal

    from .bots.registry import make_bot

    rules = rules_from(args, "demo")
    game, ruleset = rules.game_impl, rules.ruleset
    seed = args.seed if args.seed is not None else secrets.token_bytes(16)
    catalogue = game.default_catalogue()
    identity, orders = local_deal(game, ruleset, catalogue, seed)
    play = LocalPlay.start(game, Setup(ruleset, catalogue, seed), identity, orders,
                           HashBelow(seed + b"/chance", 8).below)
    bots = [make_bot("random", seed=int.from_bytes(seeded(seed, f"bot{s}")[:8], "big"),
                     game=rules.game) for s in (0, 1)]
    last: list[int | None] = [None]
    narrators = [_Narrator(bot, game, s, out, args.quiet,
                           lambda seat: (play.state, play.knowledge[seat]), last)
                 for s, bot in enumerate(bots)]
    print(f"versus demo --offline: {rules.game} ({game.describe_rules(ruleset)}), seed "
          f"{seed.hex()}, random (player 1) vs random (player 2)", file=out)

    def choose(view: Any, legal: list[Any], seat: int) -> Any:
        narrator = narrators[seat]
        if not args.quiet:
            narrator.show_scene()
        action = narrator.player.choose(view, legal)
        if not args.quiet:
            narrator.show_input(action)
        return action

    result: Finished = play.play(choose)
    winner = ("a draw" if result.winner is None
              else f"{player_name(result.winner, None)} wins")
    print(f"result: {winner} ({result.outcome}) after {play.inputs} inputs", file=out)
    return EXIT_OK


def cmd_demo_any(args: argparse.Namespace, out: TextIO) -> int:
    return cmd_demo_offline(args, out) if args.offline else cmd_demo(args, out)
