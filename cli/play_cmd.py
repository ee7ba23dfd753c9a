# `versus play`: a person against a bot on this computer, over loopback TCP through the full
# protocol (p2p/loopback.py), in the terminal UI (every game: it draws the game's scene) or,
# without a terminal, at the line interface. The bot is guarded as the tournament's (a crash,
# a hang or nonsense is a forfeit: "forfeit: <reason>", exit 1). Leaving ends the match on
# both sides (exit 3); such a match cannot be resumed.
from __future__ import annotations

import argparse
import sys
from contextlib import AsyncExitStack
from typing import Any, TextIO

import trio

from versus.engine.scene import player_name
from versus.p2p.loopback import play_loopback_match
from versus.p2p.session import (
    MatchSession,
    SessionOutcome,
    open_nursery,
)
from versus.protocol.match.rules import MatchRules

from .boundary import CommandError
from .driving import drive_player, narrated_config
from .exit_codes import EXIT_USAGE
from .match_run import (
    LogEcho,
    final_outcome,
)
from .match_setup import (
    deck_of,
    enter_guarded_player,
    enter_player,
    forfeits_of,
    open_store,
    plays_full_screen,
    rules_from,
)
from .match_text import bot_failures, describe_outcome

NO_RESUME_FOR_PLAY = ("versus play: --resume is not supported: a match against a local bot "
                      "cannot be resumed (leaving it ends it); start a new one with versus play")


def cmd_play(args: argparse.Namespace, out: TextIO, stdin: TextIO | None = None) -> int:
    """You against a bot in the UI. The command line and the bot (an external one is started
    once) are checked before the UI starts; leaving ends the match on both sides (the bot's
    session would otherwise wait the whole resume window for you), exit 3."""
    if args.resume is not None:
        print(NO_RESUME_FOR_PLAY, file=sys.stderr)
        return EXIT_USAGE
    rules = rules_from(args, "play")
    if not plays_full_screen(stdin or sys.stdin):
        return play_in_lines(args, rules, out, stdin or sys.stdin)
    from .net_client import NetMatchClient
    from .ui.app import run_ui

    deck = deck_of(args)
    store = open_store(args)
    trio.run(_bot_starts, args.bot, rules.game)
    seat = args.seat
    sessions: list[MatchSession] = []  # (host, guest) once the match starts
    players: list[Any] = [None, None]

    async def connector(client: NetMatchClient) -> SessionOutcome:
        # the bot (its own nursery, for an external one) is entered outside ours: the stack
        # ends it after our nursery has closed, as trio's nesting wants
        async with AsyncExitStack() as stack:
            players[1 - seat] = await enter_guarded_player(stack, args.bot, None, rules.game)
            decks: list[list[str] | None] = [None, None]
            decks[seat] = deck
            async with open_nursery() as nursery:

                def started(host: MatchSession, guest: MatchSession) -> None:
                    sessions[:] = [host, guest]
                    client.attach(sessions[seat])
                    nursery.start_soon(_leave_together, sessions[seat], sessions[1 - seat])

                result = await play_loopback_match(
                    players, rules, transcript_dir=store.root, decks=(decks[0], decks[1]),
                    config=narrated_config(), on_start=started, drive=drive_player)
                nursery.cancel_scope.cancel()
            return result.outcomes[seat]

    client = NetMatchClient(connector, seat=seat, game=rules.game_impl, resumable=False,
                            waiting=f"starting a match against the {args.bot} bot")
    run_ui(client, theme=getattr(args, "theme", None))
    if sessions and sessions[0].transcript_path is not None:  # the host's side keeps it
        print(f"transcript: {sessions[0].transcript_path}", file=out)
    outcome = final_outcome(client)
    if outcome is None:
        raise CommandError(client.connection().reason or "the match did not start")
    forfeits = forfeits_of(players)
    line, code = describe_outcome(outcome, seat, forfeits=forfeits)
    print(line, file=out)
    if forfeits:
        raise CommandError(bot_failures(forfeits))
    return code


def play_in_lines(args: argparse.Namespace, rules: MatchRules, out: TextIO,
                  stdin: TextIO) -> int:
    """`versus play` without a terminal: the person at the line interface
    (cli/line_ui.py) against the bot, over loopback; the narration of the person's seat is
    printed as it comes. Leaving (or the end of the input) ends the match, exit 3."""
    from .line_ui import LinePlayer

    store = open_store(args)
    trio.run(_bot_starts, args.bot, rules.game)
    seat = args.seat
    person = LinePlayer(rules.game_impl, out, stdin)
    players: list[Any] = [None, None]
    echoes: list[LogEcho] = []

    async def main() -> Any:
        async with AsyncExitStack() as stack:  # the bot outside our nursery (see cmd_play)
            players[1 - seat] = await enter_guarded_player(stack, args.bot, None, rules.game)
            players[seat] = person
            async with open_nursery() as nursery:

                def started(host: MatchSession, guest: MatchSession) -> None:
                    mine, bots = (host, guest) if seat == 0 else (guest, host)
                    echo = LogEcho(mine, lambda line: print(line, file=out, flush=True))
                    echoes.append(echo)
                    person.attach(mine, echo.flush)
                    nursery.start_soon(echo.follow)
                    nursery.start_soon(_leave_together, mine, bots)

                result = await play_loopback_match(
                    players, rules, transcript_dir=store.root, config=narrated_config(),
                    on_start=started, drive=drive_player)
                nursery.cancel_scope.cancel()
            return result

    print(f"versus play: {rules.describe()}; you are {player_name(seat, None)} against the "
          f"{args.bot} bot",
          file=out, flush=True)
    result = trio.run(main)
    for echo in echoes:
        echo.flush()
    if result.transcript_path is not None:
        print(f"transcript: {result.transcript_path}", file=out)
    forfeits = forfeits_of(players)
    line, code = describe_outcome(result.outcomes[seat], seat, forfeits=forfeits)
    print(line, file=out)
    if forfeits:
        raise CommandError(bot_failures(forfeits))
    return code


async def _bot_starts(name: str, game: str) -> None:
    """The bot can be made (and an external one started): else one line before the UI."""
    async with AsyncExitStack() as stack:
        await enter_player(stack, name, None, game)


async def _leave_together(person: MatchSession, bot: MatchSession) -> None:
    """When the person leaves an unfinished match, the bot's side leaves it too."""
    while not person.done:
        await person.wait_changed()
    if person.result is None:
        await bot.leave("the player left")
