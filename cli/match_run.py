# Running a networked match to its end, the same way for host and join: headless (a bot
# plays, the session's log lines are printed as they come), at the line interface (no
# terminal: a pipe or a file), or in the terminal UI (the trio part a guest of the UI's asyncio
# loop, cli/net_client.py). Each way ends with the transcript's path and one summary line.
# Everything that can fail before a match exists is checked by the command before the UI takes
# the screen (host_cmd.plan_host, join_cmd.plan_join), so the UI opens with a match to show.
from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TextIO

import trio

from versus.p2p.channel import SecureChannel
from versus.p2p.session import (
    MatchSession,
    SessionOutcome,
    open_nursery,
)
from versus.protocol.wire.text import printable

from .boundary import CommandError, MatchInterrupted
from .driving import drive_player
from .match_setup import forfeits_of
from .match_text import MAX_LOG_LINE, bot_failures, describe_outcome


class LogEcho:
    """Headless: the session's log lines (lost links, resumes, faults, claims; no narration
    without the UI) printed as they come, each one printable line (they quote the peer). Only
    once the match exists: a joiner dropped before is told in one line by the host loop."""

    def __init__(self, session: MatchSession, say: Callable[[str], None]) -> None:
        self.session, self.say, self.shown = session, say, 0

    def flush(self) -> None:
        if not self.session.started:
            return
        log = self.session.log
        for line in log[min(self.shown, len(log)):]:
            self.say(printable(line, MAX_LOG_LINE))
        self.shown = len(log)

    async def follow(self) -> None:
        while True:
            self.flush()
            await self.session.wait_changed()


async def run_session(session: MatchSession, channel: SecureChannel | None,
                      reconnect: Callable[[], Awaitable[SecureChannel]], player: Any,
                      say: Callable[[str], None] | None,
                      setup: Callable[[], Awaitable[None]] | None = None) -> SessionOutcome:
    """Run `session` to its end, `player` (a bot, a person at the line interface, or None
    for a person in the UI) answering its decisions; `say` (headless) gets its log lines;
    `setup` runs beside it (a watchdog that may end it by raising)."""
    echo = None if say is None else LogEcho(session, say)
    if hasattr(player, "attach"):  # the line interface: its session, and the log before it asks
        player.attach(session, None if echo is None else echo.flush)
    try:
        async with open_nursery() as nursery:
            if player is not None:
                nursery.start_soon(drive_player, session, player)
            if echo is not None:
                nursery.start_soon(echo.follow)
            if setup is not None:
                nursery.start_soon(setup)
            outcome = await session.run(channel, reconnect)
            nursery.cancel_scope.cancel()
    except (KeyboardInterrupt, BaseExceptionGroup) as error:
        interrupted = isinstance(error, KeyboardInterrupt) or (
            error.subgroup(KeyboardInterrupt) is not None)
        if interrupted and session.files is not None:  # on disk: it can be resumed
            raise MatchInterrupted(f"versus {session.role} --resume "
                                   f"{session.files.match_id[:16]}") from error
        raise
    if echo is not None:
        echo.flush()
    return outcome


Command = Callable[..., Awaitable[SessionOutcome]]


def run_headless(command: Command, name: str, args: argparse.Namespace, out: TextIO,
                 seat: int) -> int:
    outcome = trio.run(command, args, out)
    if outcome.transcript_path is not None:
        print(f"transcript: {outcome.transcript_path}", file=out)
    forfeits = forfeits_of([None] * seat + [getattr(args, "bot_guard", None)])
    line, code = describe_outcome(outcome, seat, name, forfeits=forfeits)
    print(line, file=out)
    if forfeits:  # our bot failed: an error of this command, not a game it lost
        raise CommandError(bot_failures(forfeits))
    return code


def final_outcome(client: Any) -> SessionOutcome | None:
    """How the UI's match ended. When the person leaves, or closes the game-over screen while
    the session still lingers for the last reveals, the UI closes (and cancels the trio run)
    before the connector has returned: the session still knows."""
    session = client.session
    if client.outcome is None and isinstance(session, MatchSession) and (
            session.done or session.result is not None):
        return session.outcome()
    return client.outcome  # type: ignore[no-any-return]


def run_in_lines(command: Command, name: str, args: argparse.Namespace, out: TextIO,
                 stdin: TextIO, seat: int, game: str) -> int:
    """The match played without a terminal by the person at the line
    interface (cli/line_ui.py); the session's log, narration included, is printed."""
    from .game_options import game_of
    from .line_ui import LinePlayer

    person = LinePlayer(game_of(game), out, stdin)
    return run_headless(partial(command, person=person), name, args, out, seat)


def run_in_ui(command: Command, name: str, args: argparse.Namespace, out: TextIO,
              seat: int) -> int:
    """The match in the terminal UI; `command` is ready to run: everything that could fail
    before the match was checked by the caller (see the module comment)."""
    from .net_client import NetMatchClient
    from .ui.app import run_ui

    async def connector(client: NetMatchClient) -> SessionOutcome:
        return await command(args, out, attach=client.attach, note=client.note)

    from .game_options import game_of

    waiting = ("restoring the match from disk" if args.resume is not None else
               "starting the host" if name == "host" else "preparing to join")
    game = getattr(args, "game", None)
    client = NetMatchClient(connector, seat=seat, game=game_of(game) if game else None,
                            waiting=waiting)
    run_ui(client, theme=getattr(args, "theme", None))
    outcome = final_outcome(client)
    if outcome is None:
        raise CommandError(client.connection().reason or "the match did not start")
    if outcome.transcript_path is not None:
        print(f"transcript: {outcome.transcript_path}", file=out)
    line, code = describe_outcome(outcome, seat, name)
    print(line, file=out)
    return code
