# What host, join, play and demo check and build before a match starts, shared by them: the
# command line's rules and deck, the data directory, our identity, the session's timers, and
# the bots (guarded as the tournament's, cli/tournament_worker.py BotGuard). Each mistake is a
# CommandError, one line, before anything listens, connects or takes the screen.
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

from versus.engine.errors import EngineError
from versus.p2p.channel import ChannelConfig
from versus.p2p.keystore import default_identity_path, load_or_create_identity
from versus.p2p.session import (
    MatchSession,
    SessionConfig,
)
from versus.p2p.store import MatchStore
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError
from versus.protocol.match.rules import DealMode, MatchRules

from .boundary import CommandError
from .driving import narrated_config
from .game_options import GameOptionError, ensure_game_args
from .match_text import describe_outcome

MAX_DECK_FILE = 64 * 1024


def load_deck(path: str) -> list[str]:
    """A deck file: JSON (a list of card ids, or {id: count}), or text lines `ID` / `N ID`."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_DECK_FILE + 1)
    except OSError as error:
        raise CommandError(f"cannot read deck file {path}: {error.strerror or error}") from None
    if len(data) > MAX_DECK_FILE:
        raise CommandError(f"deck file {path} is larger than {MAX_DECK_FILE} bytes")
    text = data.decode("utf-8", "replace")
    try:
        obj: Any = json.loads(text)
    except json.JSONDecodeError as error:
        if text.lstrip()[:1] in ("[", "{"):  # meant as JSON (no card id starts so)
            raise CommandError(f"deck file {path}: not JSON: {error.msg} at line "
                               f"{error.lineno} column {error.colno}") from None
        return _deck_lines(text, path)
    if isinstance(obj, list) and all(isinstance(c, str) for c in obj):
        return list(obj)
    if isinstance(obj, dict) and all(isinstance(k, str) and type(v) is int and 0 < v <= 64
                                     for k, v in obj.items()):
        return [card for card, count in sorted(obj.items()) for _ in range(count)]
    raise CommandError(f"deck file {path}: JSON must be a list of card ids or {{id: count}}")


def _deck_lines(text: str, path: str) -> list[str]:
    cards: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split("#")[0].split()
        if not fields:
            continue
        if len(fields) == 2 and fields[0].isdigit() and 0 < int(fields[0]) <= 64:
            cards += [fields[1]] * int(fields[0])
        elif len(fields) == 1:
            cards.append(fields[0])
        else:
            raise CommandError(f"deck file {path} line {number}: expected 'ID' or 'N ID'")
    return cards


def game_args(args: argparse.Namespace, command: str) -> None:
    """The game options resolved (cli/parsers.py did it already for a parsed command line)."""
    try:
        ensure_game_args(args, command)
    except GameOptionError as error:
        raise CommandError(str(error)) from None


def rules_from(args: argparse.Namespace, command: str = "host") -> MatchRules:
    """The match rules of the command line: the game, its rules, the deal and the clock."""
    game_args(args, command)
    initial, increment = args.clock if args.clock is not None else (0, 0)
    try:
        return MatchRules(args.game_rules, DealMode(args.deal), clock_initial_ms=initial,
                          clock_increment_ms=increment, game=args.game)
    except (LocalProtocolError, EngineError, ValueError) as error:
        raise CommandError(str(error)) from None


def plays_full_screen(stdin: TextIO | None) -> bool:
    """Whether a person plays in the full-screen terminal UI (which draws every game's scene):
    when the standard input is a terminal; else at the line interface (cli/line_ui.py), which
    prints the same scene as text and reads lines from a pipe or a file."""
    return stdin is not None and stdin.isatty()


def make_player(name: str, seed: int | None, game: str) -> Any:
    from .bots import BotError, UnknownBotError, as_async, make_bot

    try:
        return as_async(make_bot(name, seed=seed, game=game))
    except UnknownBotError as error:
        raise CommandError(str(error)) from None
    except (BotError, ValueError) as error:
        raise CommandError(f"bot {name!r}: {error}") from None


async def enter_player(stack: AsyncExitStack, name: str, seed: int | None,
                       game: str) -> Any:
    """A bot ready to play (an external one is started here): one that cannot start is one
    line, its BotForfeit reason (the tournament records the same words)."""
    from .bots import BotForfeit

    player = make_player(name, seed, game)
    if hasattr(player, "__aenter__"):
        try:
            player = await stack.enter_async_context(player)
        except BotForfeit as error:
            raise CommandError(error.reason) from None
    return player


async def enter_guarded_player(stack: AsyncExitStack, name: str,
                               seed: int | None, game: str) -> Any:
    """demo and play: a bot in the tournament's guard (tournament_worker.BotGuard): whatever it
    does wrong (cannot start, crashes, answers an illegal action) is a forfeit with a one-line
    reason in `guard.forfeit`, and its seat resigns (a complete, verifiable transcript)."""
    from .bots import BotForfeit
    from .tournament_worker import BotGuard

    player = make_player(name, seed, game)
    reason = None
    if hasattr(player, "__aenter__"):
        try:
            player = await stack.enter_async_context(player)
        except BotForfeit as error:
            reason = error.reason
    return BotGuard(player, name, None, reason)


async def enter_headless_bot(stack: AsyncExitStack, args: argparse.Namespace,
                             seed: int | None, game: str) -> Any:
    """host/join --bot: the bot in the tournament's guard, once it has started (one that
    cannot start is one line before anyone can join). `args.bot_guard` keeps the guard, so
    run_headless reports a bot that failed mid-match as an error, the way demo does."""
    from .tournament_worker import BotGuard

    guard = BotGuard(await enter_player(stack, args.bot, seed, game), args.bot, None)
    args.bot_guard = guard
    return guard


def forfeits_of(players: Sequence[Any]) -> dict[int, str]:
    """{seat: reason} of the guarded bots that forfeited (None or a person: no entry)."""
    return {seat: reason for seat, player in enumerate(players)
            if (reason := getattr(player, "forfeit", None)) is not None}


def session_config(args: argparse.Namespace, narrate: bool) -> SessionConfig:
    """The session's timers; `narrate`: the cli's narrator tells the match (a person sees
    it; a headless bot does not)."""
    if not args.resume_window >= 0:
        raise CommandError("--resume-window must be >= 0")
    channel = None
    idle = getattr(args, "insecure_test_idle_timeout", None)
    if idle is not None:  # (tests only, hidden: a link cut for longer than it, made short)
        if not 1 <= idle <= 300:
            raise CommandError("--insecure-test-idle-timeout must be 1..300 s")
        channel = ChannelConfig(keepalive_interval=idle / 3, idle_timeout=idle)
    return narrated_config(resume_window=args.resume_window, narrate=narrate, channel=channel)


def open_store(args: argparse.Namespace, identity: Identity | None = None) -> MatchStore:
    """The match directories' root, checked (made when missing) before anything listens or
    connects: a --data-dir that is a file or is not writable is one line now, not an error
    once a player has joined. `identity`'s matches have a directory of their own in it (a
    host and a joiner of one home, p2p/store.py MatchStore); `play`'s loopback matches (no
    identity of ours, no resume) go directly in it."""
    store = MatchStore(args.data_dir, owner=None if identity is None else identity.fingerprint)
    root = store.root
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        why = ("is not a directory" if root.exists() else
               f"cannot be created ({error.strerror or error})")
        raise CommandError(f"the data directory {root} {why}; choose another with "
                           "--data-dir DIR") from None
    if not os.access(root, os.W_OK | os.X_OK):
        raise CommandError(f"the data directory {root} is not writable; choose another with "
                           "--data-dir DIR")
    return store


def load_identity(args: argparse.Namespace) -> Identity:
    """Our key: the keystore's (created on first use), or `--identity PATH`, which is created
    too when missing. A new key is said on stderr, in one line naming where it is: a person
    learns where their identity lives (and that it is new: hosts that knew another key of
    theirs will not recognise this one), and a typo in PATH does not silently make a stranger
    of us to every host we know."""
    path = default_identity_path() if args.identity is None else Path(args.identity)
    if path.exists():
        return load_or_create_identity(path)
    identity = load_or_create_identity(path)
    if args.identity is None:
        print(f"versus: created your identity key {path} ({identity.fingerprint}); other "
              "players know you by it: keep it (back it up to stay the same player)",
              file=sys.stderr)
    else:
        print(f"versus: created a new identity key {args.identity} ({identity.fingerprint}); "
              "hosts that know your usual key will not recognise this one", file=sys.stderr)
    return identity


def deck_of(args: argparse.Namespace) -> list[str] | None:
    return None if args.deck is None else load_deck(args.deck)


def resumed_game(args: argparse.Namespace, session: MatchSession) -> None:
    """A resumed match is of the game its transcript names: a --game that says otherwise is
    a mistake (one line)."""
    game = session.rules.game
    if getattr(args, "game_given", False) and args.game != game:
        raise CommandError(f"--game {args.game}: the saved match is a game of {game}")
    args.game = game


def check_resumable(session: MatchSession) -> None:
    """A match that already ended has nothing left to resume (the peer would be awaited for
    ever): one line with its result and its transcript, before anything listens or dials."""
    if session.result is None:
        return
    if session.files is not None:
        session.files.close()
    line, _ = describe_outcome(session.outcome(), session.seat)
    raise CommandError(f"{line}; the match is finished, nothing is left to resume (its "
                       f"transcript: {session.transcript_path})")
