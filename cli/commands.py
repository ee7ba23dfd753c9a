# The networked commands: `versus host`, `versus join`, `versus play` and `versus demo`.
#
# Each is a trio program around a p2p MatchSession. With `--bot NAME` host/join play headless
# and print a summary (and the session's log lines: lost links, resumes, faults); without it
# they open the terminal UI through NetMatchClient (the trio part then runs as a guest of the
# UI's asyncio loop).
#
# The host plays the first joiner that accepts its offer (p2p/link.py offers it to every
# waiting joiner at once) and brings the match into existence, i.e. both HELLOs are in within
# SETUP_TIMEOUT. A joiner that fails before that (a bad or reflected HELLO, a silent or lost
# link) is dropped with one log line, and the host waits for another one with a fresh
# MatchPeer (a new master secret: nothing of the failed attempt is reused). From the match id
# on, the match is real: resume, faults and the rest follow the session's rules.
#
# The joiner is shown the offered rules (`describe_offer`) and must accept them: on a terminal
# without a bot, `cmd_join` reads the offer on a first connection, asks y/N before anything
# starts (before the UI too), and the join then accepts that same offer only; headless, the
# player accepts with `--accept-rules`, and without it the join declines with a one-line
# reason the host logs too. Programs that join on their own (demo, play, the tournament's
# loopback matches) call p2p directly and accept what they offered themselves.
#
# Everything that can fail before a match exists fails before the UI starts, as one line: the
# command line's files and values (`plan_host`/`plan_join`: identity, data directory, deck,
# rules, a saved match to resume, the invite), then the network (the host listens, the joiner
# connects and reads the host's offer), then the terminal the UI needs. Only then does the UI
# take the screen, with a match to show. Joining by HOST:PORT (no fingerprint to pin) trusts a
# new host's key on first use, and says so loudly, with the fingerprint to compare.
#
# Bots of demo and play are guarded as the tournament's are (tournament_worker._Guard): a bot
# that crashes, hangs or answers nonsense forfeits; the result line says "forfeit: <reason>"
# and the command exits 1.
#
# Games (issue 16). Every command plays the game `--game` names (cli/game_options.py checks
# the game options while parsing; the rules come from `--rule NAME=VALUE` and, for Versus, its
# own flags). Versus is played in the full-screen UI; another game, which has no UI of its
# own, in the plain line interface of cli/line_ui.py (its narration, its view as text, its
# legal inputs in its notation). A joiner plays only the game it asked for; a resumed match is
# of the game its transcript names.
#
# Every failure is one line on stderr and an exit code (documented in README and `versus
# --help`):
#   0 the match finished (demo: and its transcript verified)
#   1 an error (network, files, bad input); the message says what to do
#   2 bad command line (argparse)
#   3 the match did not finish (left, abandoned, interrupted): resumable with --resume (play:
#     a match against a local bot cannot be resumed; its transcript so far is kept)
#   4 the match stopped on a protocol fault (the evidence is in the transcript), or the demo's
#     transcript failed verification
from __future__ import annotations

import argparse
import errno
import ipaddress
import json
import os
import secrets
import socket
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypeVar

import trio

from versus.engine.api import start_of
from versus.engine.errors import EngineError
from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.connect import listening_port
from versus.p2p.discovery import announce, discover
from versus.p2p.errors import TransportError
from versus.p2p.invite import MAX_ADDRESSES as MAX_INVITE_ADDRESSES
from versus.p2p.invite import Address, Invite, format_hostport, split_hostport
from versus.p2p.keystore import load_or_create_identity
from versus.p2p.known_peers import KnownPeers
from versus.p2p.link import (
    DeclinedError,
    HostLink,
    JoinFailedError,
    JoinLink,
    open_game_listeners,
)
from versus.p2p.loopback import play_loopback_match
from versus.p2p.nat.errors import RelayAddressError
from versus.p2p.nat.hosting import HostMapping, host_port_mapping
from versus.p2p.nat.relay import RelayAddress, new_room
from versus.p2p.session import (
    MatchSession,
    SessionConfig,
    SessionOutcome,
    SetupLostError,
    create_peer,
    open_nursery,
)
from versus.p2p.store import MatchFiles, MatchStore, StoreError
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError
from versus.protocol.match import Ending, MatchResult
from versus.protocol.match.rules import DealMode, MatchRules, master_rng
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.text import printable

from .client import describe_fault
from .driving import drive_player, narrated_config
from .game_options import VERSUS, GameOptionError, ensure_game_args
from .parsers import (
    DEFAULT_GAME_PORT,
    EXIT_ERROR,
    EXIT_FAULT,
    EXIT_OK,
    EXIT_UNFINISHED,
    EXIT_USAGE,
)

T = TypeVar("T")
MAX_DECK_FILE = 64 * 1024
#: the chosen joiner must bring the match into existence (both HELLOs in) this fast; its
#: program sends its HELLO right after accepting, so this only bounds a stalled joiner
SETUP_TIMEOUT = 10.0
MAX_LOG_LINE = 300
#: what a joiner that may not accept tells the host (and itself)
NOT_ACCEPTED = ("the joining player has not accepted the rules (no terminal to ask, and no "
                "--accept-rules)")


class CommandError(Exception):
    """A one-line failure of a command (bad file, bad option value, nothing found)."""


# --- option parsing -----------------------------------------------------------------------------


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
    except ValueError:
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


def is_versus(game: str) -> bool:
    """Whether `game` is played in the full-screen UI (Versus) or the line interface."""
    return game == VERSUS


# --- shared helpers -----------------------------------------------------------------------------


def outward_addresses(bind: str | None) -> list[str]:
    """Addresses worth printing in an invite: the bind address if specific, else the one the
    default route leaves from (a UDP connect sends nothing), then 127.0.0.1 for local tests."""
    if bind and bind not in ("0.0.0.0", "::"):
        return [bind]
    found: list[str] = []
    for family, target in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as probe:
                probe.connect((target, 9))
                address = probe.getsockname()[0]
        except OSError:
            continue
        if address not in ("0.0.0.0", "::") and not address.startswith("127."):
            found.append(address)
    return [*found, "127.0.0.1"]


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.partition("%")[0]).is_loopback
    except ValueError:
        return host == "localhost"


def invite_addresses(external: Sequence[Address], bind: str | None, port: int
                     ) -> list[Address]:
    """The addresses of the host's invite, in the order the joiner tries them (SPEC Part 6
    §T-NAT): the mapped external ones, then global IPv6, then the LAN's (IPv4, then other
    IPv6); loopback only when nothing else is known (it has its own invite line)."""
    local = [a for a in outward_addresses(bind) if not _is_loopback(a)]

    def rank(host: str) -> int:
        try:
            address = ipaddress.ip_address(host.partition("%")[0])
        except ValueError:  # a --bind host name
            return 1
        if address.version == 6 and address.is_global:
            return 0
        return 1 if address.version == 4 else 2

    found: list[Address] = list(external)
    for host in sorted(local, key=rank):
        if (host, port) not in found:
            found.append((host, port))
    specific = bind if bind and bind not in ("0.0.0.0", "::") else "127.0.0.1"
    return found[:MAX_INVITE_ADDRESSES] or [(specific, port)]


def make_player(name: str, seed: int | None = None, game: str = VERSUS) -> Any:
    from .bots import BotError, UnknownBotError, as_async, make_bot

    try:
        return as_async(make_bot(name, seed=seed, game=game))
    except UnknownBotError as error:
        raise CommandError(str(error)) from None
    except (BotError, ValueError) as error:
        raise CommandError(f"bot {name!r}: {error}") from None


async def enter_player(stack: AsyncExitStack, name: str, seed: int | None = None,
                       game: str = VERSUS) -> Any:
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
                               seed: int | None = None, game: str = VERSUS) -> Any:
    """demo and play: a bot in the tournament's guard (tournament_worker._Guard): whatever it
    does wrong (cannot start, crashes, answers an illegal action) is a forfeit with a one-line
    reason in `guard.forfeit`, and its seat resigns (a complete, verifiable transcript)."""
    from .bots import BotForfeit
    from .tournament_worker import _Guard

    player = make_player(name, seed, game)
    reason = None
    if hasattr(player, "__aenter__"):
        try:
            player = await stack.enter_async_context(player)
        except BotForfeit as error:
            reason = error.reason
    return _Guard(player, name, None, reason)


async def enter_headless_bot(stack: AsyncExitStack, args: argparse.Namespace,
                             seed: int | None, game: str) -> Any:
    """host/join --bot: the bot in the tournament's guard, once it has started (one that
    cannot start is one line before anyone can join). `args.bot_guard` keeps the guard, so
    run_headless reports a bot that failed mid-match as an error, the way demo does."""
    from .tournament_worker import _Guard

    guard = _Guard(await enter_player(stack, args.bot, seed, game), args.bot, None)
    args.bot_guard = guard
    return guard


def forfeits_of(players: Sequence[Any]) -> dict[int, str]:
    """{seat: reason} of the guarded bots that forfeited (None or a person: no entry)."""
    return {seat: reason for seat, player in enumerate(players)
            if (reason := getattr(player, "forfeit", None)) is not None}


def result_text(result: MatchResult | None, forfeits: dict[int, str]) -> str:
    """A match result; a guarded bot's resignation reads as the tournament says it
    (cli/tournament.py describe_record): "seat 1 wins (forfeit: <reason>)"."""
    if result is None:
        return "no result (the match did not finish)"
    if result.winner is not None and 1 - result.winner in forfeits:
        return f"seat {result.winner} wins (forfeit: {forfeits[1 - result.winner]})"
    return str(result)


def bot_failures(forfeits: dict[int, str]) -> str:
    """One line for the error boundary: which seat's bot forfeited, and why."""
    return "; ".join(f"player {seat}'s bot forfeited: {reason}"
                     for seat, reason in sorted(forfeits.items()))


def need_terminal(stdin: TextIO | None, instead: str) -> None:
    """The terminal UI reads keys from a terminal; without one it could only fail once it had
    taken the screen (prompt-toolkit's EOFError), so say so before it starts."""
    if stdin is None or not stdin.isatty():
        raise CommandError("the match is played in a terminal UI, but the standard input is "
                           f"not a terminal; {instead}")


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


def describe_outcome(outcome: SessionOutcome, seat: int, command: str | None = None,
                     forfeits: dict[int, str] | None = None) -> tuple[str, int]:
    """One summary line for a match and its exit code. `command` ("host" or "join") makes the
    resume hint a whole command line; None: this kind of match cannot be resumed (play).
    `forfeits`: guarded bots that forfeited (the result says so, and the code is an error)."""
    mid = "" if outcome.match_id is None else f"match {outcome.match_id.hex()[:16]}: "
    result = outcome.result
    if result is None:
        why = outcome.detail or "not finished"
        resume = ""
        if outcome.match_id is not None:
            resume = (f"; continue it with: versus {command} --resume "
                      f"{outcome.match_id.hex()[:16]}" if command is not None
                      else "; a match against a local bot cannot be resumed (its transcript "
                           "so far is kept)")
        return f"{mid}unfinished ({why}){resume}", EXIT_UNFINISHED
    if result.ending is Ending.FAULT:
        blamed = outcome.fault_seat
        path = "" if outcome.transcript_path is None else str(outcome.transcript_path)
        return (mid + describe_fault(None if blamed is None else 1 - blamed, seat,
                                     outcome.detail, path)), EXIT_FAULT
    you = ("no one is credited" if result.winner is None
           and result.ending in (Ending.TIMEOUT, Ending.DISPUTE) else
           "a draw" if result.winner is None else
           "you won" if result.winner == seat else "you lost")
    if result.ending is Ending.TIMEOUT and result.winner is not None:
        you += " (on a timeout claim: a claim, not a proof)"
    code = EXIT_ERROR if forfeits else EXIT_OK
    return f"{mid}{result_text(result, forfeits or {})} — {you}", code


def describe_offer(rules: MatchRules, seat: int) -> str:
    """The offered rules as one line, for the joiner to accept: the verifier's summary of the
    rules (deal, deck, hand, action order, field, turns, clock), what it leaves out, the seat."""
    parts = [rules.describe()]
    if rules.deal_mode is DealMode.SHARED_POOL:
        parts.append(f"a pool of {len(rules.pool)} chosen cards" if rules.pool
                     else "the whole catalogue as the pool")
    if rules.game == VERSUS:
        from versus.engine.versus42 import Ruleset

        ruleset, standard = rules.ruleset, Ruleset()
        tiles = ("white_tiles", "black_tiles", "gray_tiles", "blue_tiles")
        if any(getattr(ruleset, name) != getattr(standard, name) for name in tiles):
            parts.append("tiles " + ", ".join(f"{getattr(ruleset, name)} "
                                              f"{name.split('_')[0]}" for name in tiles))
    registered = [s for s, digest in enumerate(rules.registered_decklists) if digest]
    if registered:
        parts.append("registered decklists for seat " + " and ".join(map(str, registered)))
    parts.append(f"you play seat {seat}")
    return "; ".join(parts)


#: the width the joiner's view of a start is wrapped to (one terminal screen's width)
OFFER_COLUMNS = 80
#: longest line of a start's description before it is wrapped (a line quoting a long list)
MAX_START_LINE = 2000


def start_lines(rules: MatchRules, seat: int) -> list[str]:
    """What a joiner is shown of an offered start position before it accepts (SPEC 3.C "What
    the joiner is shown"): the position as its seat sees it, then each public value that
    differs from the game's new game under the same rules, or that none does; [] for the new
    game. Each line is printable (it comes from the peer's rules, §4.13) and at most
    OFFER_COLUMNS wide: a longer one wraps, indented under its start."""
    from versus.engine.api import start_view

    view = start_view(rules.game_impl, rules.ruleset, seat)
    if view is None:
        return []
    out = [f"the match starts from this position (you are player {seat}):"]
    out += [x for line in view.lines for x in _wrapped("  " + line)]
    if view.differences:
        out.append(f"it differs from a new game of these rules in {len(view.differences)} "
                   "public value(s):")
        out += [x for line in view.differences for x in _wrapped("  - " + line)]
    else:
        out.append("no differences from a new game of these rules at its first turn")
    return out


def _wrapped(line: str) -> list[str]:
    """One printable line, wrapped at OFFER_COLUMNS (a board row that fits stays as it is)."""
    import textwrap

    line = printable(line, MAX_START_LINE)
    if len(line) <= OFFER_COLUMNS:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return textwrap.wrap(line, OFFER_COLUMNS, subsequent_indent=indent,
                         break_on_hyphens=False, drop_whitespace=True)


def show_offer(say: Callable[[str], None], prefix: str, rules: MatchRules, seat: int,
               suffix: str = "") -> None:
    """Say the offered rules (`prefix`, then describe_offer, then `suffix`: one line, wrapped
    at OFFER_COLUMNS), then the start position they carry, if any (start_lines)."""
    for line in [*_wrapped(f"{prefix}{describe_offer(rules, seat)}{suffix}"),
                 *start_lines(rules, seat)]:
        say(line)


class LogEcho:
    """Headless: the session's log lines (lost links, resumes, faults, claims; no narration
    without the UI) printed as they come, each one printable line (they quote the peer). Only
    once the match exists: a joiner dropped before is told in one line by the host loop."""

    def __init__(self, session: MatchSession, say: Callable[[str], None]) -> None:
        self.session, self.say, self.shown = session, say, 0

    def flush(self) -> None:
        if self.session.peer.core is None:
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
    async with open_nursery() as nursery:
        if player is not None:
            nursery.start_soon(drive_player, session, player)
        if echo is not None:
            nursery.start_soon(echo.follow)
        if setup is not None:
            nursery.start_soon(setup)
        outcome = await session.run(channel, reconnect)
        nursery.cancel_scope.cancel()
    if echo is not None:
        echo.flush()
    return outcome


def _store(args: argparse.Namespace) -> MatchStore:
    """The match directories' root, checked (made when missing) before anything listens or
    connects: a --data-dir that is a file or is not writable is one line now, not an error
    once a player has joined."""
    store = MatchStore(args.data_dir)
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


def _identity(args: argparse.Namespace) -> Identity:
    """Our key: the keystore's (created on first use), or `--identity PATH`, which is created
    too when missing, but said so on stderr: a typo in PATH must not silently make a stranger
    of us to every host we know."""
    if args.identity is not None and not Path(args.identity).exists():
        identity = load_or_create_identity(args.identity)
        print(f"versus: created a new identity key {args.identity} ({identity.fingerprint}); "
              "hosts that know your usual key will not recognise this one", file=sys.stderr)
        return identity
    return load_or_create_identity(args.identity)


def _deck(args: argparse.Namespace) -> list[str] | None:
    return None if args.deck is None else load_deck(args.deck)


def resumed_game(args: argparse.Namespace, session: MatchSession) -> None:
    """A resumed match is of the game its transcript names: a --game that says otherwise is
    a mistake (one line)."""
    game = session.peer.rules.game
    if getattr(args, "game_given", False) and args.game != game:
        raise CommandError(f"--game {args.game}: the saved match is a game of {game}")
    args.game = game


def _test_secret(args: argparse.Namespace, seat: int, attempt: int = 0) -> bytes | None:
    """`--insecure-test-seed`: the master secret from the seed, as `versus demo --seed` derives
    it (so both sides of a host/join match given one seed replay the demo's secrets). A host's
    later attempt (after a joiner failed) gets a secret of its own: never one already used."""
    seed = getattr(args, "insecure_test_seed", None)
    label = f"secret{seat}" if attempt == 0 else f"secret{seat}/attempt{attempt}"
    return None if seed is None else _seeded(seed, label)


def _test_rng(args: argparse.Namespace, label: str) -> Callable[[int], bytes]:
    """`--insecure-test-seed`: the handshakes' randomness from the seed too (the match is bound
    to the first handshake, SPEC §4.5), as `versus demo --seed` does; else `secrets`."""
    seed = getattr(args, "insecure_test_seed", None)
    if seed is None:
        return secrets.token_bytes
    return master_rng(_seeded(seed, label))


def _test_seed(args: argparse.Namespace, label: str) -> int | None:
    seed = getattr(args, "insecure_test_seed", None)
    return None if seed is None else int.from_bytes(_seeded(seed, label)[:8], "big")


# --- host ---------------------------------------------------------------------------------------


@dataclass
class HostPlan:
    """What `versus host` checks before it listens (and before the UI starts): every mistake on
    the command line is one line before anyone can join."""

    identity: Identity
    store: MatchStore
    config: SessionConfig
    port: int
    deck: list[str] | None
    #: --resume: the match restored from disk
    session: MatchSession | None = None
    #: a new match: the rules offered, and our peer for the first joiner
    rules: MatchRules | None = None
    fresh: tuple[Any, bytes] | None = None
    #: --relay: where the host also waits, and this run's meeting secret (in the invite)
    relay: RelayAddress | None = None
    room: bytes | None = None

    @property
    def game(self) -> str:
        """The game hosted: the resumed match's, or the one offered."""
        if self.session is not None:
            return self.session.peer.rules.game
        assert self.rules is not None
        return self.rules.game


def _relay_option(args: argparse.Namespace) -> RelayAddress | None:
    """--relay checked (and --gateway: an address), one line each if wrong."""
    gateway = getattr(args, "gateway", None)
    if gateway is not None:
        try:
            ipaddress.ip_address(gateway.partition("%")[0])
        except ValueError:
            raise CommandError(f"--gateway {gateway!r} is not an IP address") from None
    text = getattr(args, "relay", None)
    if text is None:
        return None
    try:
        return RelayAddress.parse(text)
    except RelayAddressError as error:
        raise CommandError(f"--relay: {error}") from None


def plan_host(args: argparse.Namespace, narrate: bool) -> HostPlan:
    game_args(args, "host")
    relay = _relay_option(args)
    room = new_room() if relay is not None else None
    identity, store = _identity(args), _store(args)
    config = session_config(args, narrate)
    deck = _deck(args)
    if args.resume is not None:
        files = store.find(args.resume)
        session = MatchSession.restore(files, identity, store=store, config=config)
        resumed_game(args, session)
        port = args.port if args.port is not None else session.port or DEFAULT_GAME_PORT
        return HostPlan(identity, store, config, port, deck, session=session, relay=relay,
                        room=room)
    rules = rules_from(args)
    try:
        fresh = create_peer(0, identity, rules, rules.game_impl.default_catalogue(), deck=deck,
                            master_secret=_test_secret(args, 0))
    except LocalProtocolError as error:
        where = f"deck file {args.deck}: " if args.deck else ""
        raise CommandError(where + str(error)) from None
    port = DEFAULT_GAME_PORT if args.port is None else args.port
    return HostPlan(identity, store, config, port, deck, rules=rules, fresh=fresh,
                    relay=relay, room=room)


async def host_match(args: argparse.Namespace, out: TextIO,
                     attach: Callable[[MatchSession], None] | None = None,
                     note: Callable[[str], None] | None = None, *,
                     plan: HostPlan | None = None,
                     listeners: list[trio.SocketListener] | None = None,
                     person: Any = None) -> SessionOutcome:
    """Listen, wait for a joiner (or the resuming opponent), play to the end. `plan` and
    `listeners`: made before the UI started (cmd_host); else here. `person`: a person at the
    line interface (cli/line_ui.py) plays, when no --bot does and there is no UI."""
    plan = plan or plan_host(args, narrate=attach is not None or person is not None)
    say = note or (lambda line: print(line, file=out, flush=True))
    echo = say if attach is None else None
    async with AsyncExitStack() as stack:
        # the bot first: one that cannot start is one line before anyone can join
        player = person if args.bot is None else await enter_headless_bot(
            stack, args, _test_seed(args, "bot0"), plan.game)
        if listeners is None:
            listeners = await open_game_listeners(plan.port, bind=args.bind)
        stack.push_async_callback(_close_listeners, listeners)
        port = listening_port(listeners)
        session = plan.session
        # (before the nursery, so the mapping is deleted after everything in it has stopped)
        mapped = await stack.enter_async_context(_port_mapping(args, port, say, plan))
        async with open_nursery() as nursery:
            link = HostLink(listeners, plan.identity, config=plan.config.channel,
                            expected_fingerprint=None if session is None
                            else session.peer_fingerprint,
                            rng=_test_rng(args, "handshake0"))
            await nursery.start(link.serve)
            if plan.relay is not None:
                assert plan.room is not None
                await nursery.start(partial(link.serve_relay, plan.relay, plan.room,
                                            on_error=lambda line: say(f"relay: {line}")))
            for line in invite_lines(plan, mapped.external, args.bind, port):
                say(line)
            say(f"listening on port {port}" + (f", resuming match {session.files.match_id[:16]}"
                                               if session is not None and session.files
                                               else "; waiting for a player to join (share "
                                                    "an invite above)"))
            if args.lan:
                await nursery.start(announce, plan.identity, args.name or f"versus-{port}",
                                    port)
            if session is not None:
                if attach is not None:
                    attach(session)
                outcome = await run_session(session, None, link.reconnect, player, echo)
            else:
                outcome = await _host_new_match(args, plan, link, port, player, say, attach)
            nursery.cancel_scope.cancel()
    return outcome


def invite_lines(plan: HostPlan, external: Sequence[Address], bind: str | None, port: int
                 ) -> list[str]:
    """The invite to share (every address, the relay), and one for this computer only."""
    fingerprint = plan.identity.fingerprint
    addresses = invite_addresses(external, bind, port)
    invite = Invite.of(addresses, fingerprint, relay=_relay_pair(plan.relay), room=plan.room)
    lines = [f"invite: {invite}"]
    if not any(_is_loopback(host) for host, _port in addresses) and (
            bind is None or bind in ("0.0.0.0", "::")):
        lines.append(f"invite: {Invite('127.0.0.1', port, fingerprint)} (this computer only)")
    return lines


def _relay_pair(relay: RelayAddress | None) -> Address | None:
    return None if relay is None else (relay.host, relay.port)


def _port_mapping(args: argparse.Namespace, port: int, say: Callable[[str], None],
                  plan: HostPlan) -> Any:
    """host_port_mapping for `versus host`, or nothing with --no-map or a loopback --bind.
    A mapping that changes while hosting prints the new invite."""
    if getattr(args, "no_map", False):
        say("port mapping: not tried (--no-map)")
        return _no_mapping()
    if args.bind is not None and _is_loopback(args.bind):
        say(f"port mapping: not tried: --bind {args.bind} is reachable from this computer only")
        return _no_mapping()

    def changed(external: list[Address]) -> None:
        for line in invite_lines(plan, external, args.bind, port)[:1]:
            say(line)

    return host_port_mapping(port, say, gateway=getattr(args, "gateway", None),
                             on_change=changed)


@asynccontextmanager
async def _no_mapping() -> AsyncIterator[HostMapping]:
    yield HostMapping()


async def _close_listeners(listeners: list[trio.SocketListener]) -> None:
    with trio.CancelScope(shield=True):
        for listener in listeners:
            await listener.aclose()


async def _host_new_match(args: argparse.Namespace, plan: HostPlan, link: HostLink, port: int,
                          player: Any, say: Callable[[str], None],
                          attach: Callable[[MatchSession], None] | None) -> SessionOutcome:
    """Play the first joiner that accepts; one that fails before the match exists is dropped
    with one line and the next one gets a fresh peer (see the module comment)."""
    assert plan.rules is not None and plan.fresh is not None
    attempt = 0
    while True:
        peer, secret = plan.fresh if attempt == 0 else create_peer(
            0, plan.identity, plan.rules, plan.rules.game_impl.default_catalogue(),
            deck=plan.deck,
            master_secret=_test_secret(args, 0, attempt))
        try:
            return await _host_attempt(link, plan.rules, peer, secret, plan.store, port,
                                       plan.config, player, say, attach)
        except SetupLostError as error:  # no match yet: wait for another joiner
            say(printable(f"{error.reason}; the joiner was dropped before the match began; "
                          "waiting for another player", MAX_LOG_LINE))
        await link.reopen()
        attempt += 1


async def _host_attempt(link: HostLink, rules: MatchRules, peer: Any, secret: bytes,
                        store: MatchStore, port: int, config: SessionConfig, player: Any,
                        say: Callable[[str], None],
                        attach: Callable[[MatchSession], None] | None) -> SessionOutcome:
    """Offer the match, and play it with the first joiner that accepts; SetupLostError when
    that joiner fails before the match exists (see the module comment)."""
    channel = await link.first(rules, on_declined=say)
    session = MatchSession(peer, secret, store=store, role="host", port=port, config=config,
                           peer_fingerprint=channel.peer_fingerprint)
    say(f"{channel.peer} joined ({channel.peer_fingerprint})")

    async def until_the_match_exists() -> None:
        with trio.move_on_after(SETUP_TIMEOUT):
            while session.peer.core is None:
                await session.wait_changed()
            link.settle()  # the others waiting are turned away
            if attach is not None:  # the UI follows this session from now on
                attach(session)
            return
        why = f"{channel.peer} sent no HELLO within {SETUP_TIMEOUT:g} s"
        raise SetupLostError(why, reason=why)

    return await run_session(session, channel, link.reconnect, player,
                             say if attach is None else None, until_the_match_exists)


# --- join ---------------------------------------------------------------------------------------


async def pick_lan_game(pick: int | None, out: TextIO, timeout: float = 3.0) -> Invite:
    games = await discover(timeout)
    if not games:
        raise CommandError("no game found on the LAN; ask the host for an invite instead")
    for number, game in enumerate(games, 1):
        print(f"  {number}. {game.name} at {format_hostport(game.host, game.port)} "
              f"({game.fingerprint})", file=out, flush=True)
    if pick is None and len(games) > 1:
        raise CommandError(f"{len(games)} games found; choose one with --pick N")
    index = (pick or 1) - 1
    if not 0 <= index < len(games):
        raise CommandError(f"--pick {pick}: choose 1..{len(games)}")
    return games[index].invite


@dataclass(frozen=True)
class Target:
    """Where to join: the first address, the pinned fingerprint (None for HOST:PORT: trust on
    first use), and from an invite its other addresses and relay."""

    host: str
    port: int
    fingerprint: str | None
    more: tuple[Address, ...] = ()
    relay: RelayAddress | None = None
    room: bytes | None = None

    @classmethod
    def of_invite(cls, invite: Invite) -> Target:
        relay = None if invite.relay is None else RelayAddress(*invite.relay)
        return cls(invite.host, invite.port, invite.fingerprint, invite.more, relay,
                   invite.room)

    @property
    def label(self) -> str:
        """What the player reads: the first address, and how many more ways there are."""
        extra = len(self.more) + (self.relay is not None)
        first = format_hostport(self.host, self.port)
        if not extra:
            return first
        ways = [f"{len(self.more)} more address{'es' if len(self.more) > 1 else ''}"
                ] if self.more else []
        if self.relay is not None:
            ways.append(f"relay {self.relay}")
        return f"{first} (then {', then '.join(ways)})"

    def link(self, identity: Identity, **options: Any) -> JoinLink:
        return JoinLink(self.host, self.port, identity, fingerprint=self.fingerprint,
                        more=self.more, relay=self.relay, room=self.room, **options)


def parse_target(target: str) -> Target:
    """An invite, or HOST:PORT (then the host's key is checked against known_peers)."""
    if target.lower().startswith("versus://"):
        return Target.of_invite(Invite.parse(target))
    host, port_text = split_hostport(target, target)
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise CommandError(f"{target!r}: the port must be 1..65535")
    return Target(host, int(port_text), None)


def given_target(args: argparse.Namespace) -> Target | None:
    """The invite or HOST:PORT of the command line, checked; None with --lan (found later)."""
    if args.lan:
        return None
    if args.target:
        return parse_target(args.target)
    raise CommandError("give the host's invite or HOST:PORT, or --lan")


async def join_target(args: argparse.Namespace, out: TextIO) -> Target:
    """Where to join, from the invite, HOST:PORT or --lan."""
    target = given_target(args)
    if target is not None:
        return target
    return Target.of_invite(await pick_lan_game(args.pick, out))


async def dial(link: JoinLink, say: Callable[[str], None], step: Callable[[], Awaitable[T]]
               ) -> T:
    """`step()` (the link's first connection); when every address and the relay failed, one
    line per way tried, then the error (one line too)."""
    try:
        return await step()
    except JoinFailedError as error:
        for line in error.failures:
            say(printable(f"failed: {line}", MAX_LOG_LINE))
        raise


def trust_notice(host: str, port: int, known: KnownPeers, was_known: bool) -> str | None:
    """Joining by HOST:PORT trusts a new host's key on first use: say so loudly, with the
    fingerprint to compare (the host's invite ends with it). None when nothing new was
    trusted (the key was pinned by an invite, or the address was already known)."""
    label = format_hostport(host, port)
    peer = known.lookup(label)
    if was_known or peer is None:
        return None
    return (f"NOTE: {label} is new to you: its key {peer.fingerprint} is now trusted for that "
            f"address (trust on first use, recorded in {known.path}); make sure it is the "
            f"host's: their invite ends with #{peer.fingerprint} (or join with that invite)")


@dataclass(frozen=True)
class AcceptedOffer:
    """The offer a person read and accepted before joining: the join accepts only this one,
    from this host (its key pinned)."""

    host: str
    port: int
    fingerprint: str
    rules: MatchRules
    seat: int
    #: every way to the host (an invite's addresses and relay); None: host and port only
    target: Target | None = None


@dataclass
class JoinPlan:
    """What `versus join` checks before it connects (and before the UI starts)."""

    identity: Identity
    store: MatchStore
    config: SessionConfig
    deck: list[str] | None
    #: --resume: the match restored from disk, and where its host was
    resumed: tuple[MatchFiles, MatchSession, str, int] | None = None


def plan_join(args: argparse.Namespace, narrate: bool) -> JoinPlan:
    game_args(args, "join")
    identity, store = _identity(args), _store(args)
    config = session_config(args, narrate)
    deck = _deck(args)
    if args.resume is None:
        given_target(args)  # a bad invite is one line now
        return JoinPlan(identity, store, config, deck)
    files = store.find(args.resume)
    session = MatchSession.restore(files, identity, store=store, config=config)
    resumed_game(args, session)
    host, port_text = split_hostport(session.address, session.address)
    return JoinPlan(identity, store, config, deck, (files, session, host, int(port_text)))


async def read_host_offer(args: argparse.Namespace, out: TextIO,
                          identity: Identity | None = None) -> AcceptedOffer:
    """The host's offer, read on a connection of its own (see JoinLink.read_offer)."""
    target = await join_target(args, out)
    host, port, fingerprint = target.host, target.port, target.fingerprint
    known = KnownPeers.load()
    was_known = known.lookup(format_hostport(host, port)) is not None
    link = target.link(identity or _identity(args), known_peers=known,
                       config=session_config(args, False).channel)
    print(f"connecting to {target.label} to read its rules", file=out, flush=True)
    rules, seat = await dial(link, lambda line: print(line, file=out, flush=True),
                             link.read_offer)
    if fingerprint is None and (notice := trust_notice(host, port, known, was_known)):
        print(notice, file=out, flush=True)
    assert link.fingerprint is not None
    return AcceptedOffer(host, port, link.fingerprint, rules, seat, target)


def other_game(offered: str, wanted: str) -> str:
    """Why a joiner declines an offer of another game than it asked for (one line)."""
    return f"the host offers a game of {offered}, and this player joins {wanted} only"


def ask_to_accept(offer: AcceptedOffer, out: TextIO, stdin: TextIO) -> bool:
    """Show the offered rules and read y/N (anything else, or end of input, is no)."""
    show_offer(lambda line: print(line, file=out), f"{format_hostport(offer.host, offer.port)}"
               " offers: ", offer.rules, offer.seat)
    print("accept these rules and join? [y/N] ", end="", file=out, flush=True)
    return stdin.readline().strip().lower() in ("y", "yes")


async def join_match(args: argparse.Namespace, out: TextIO,
                     attach: Callable[[MatchSession], None] | None = None,
                     note: Callable[[str], None] | None = None, *,
                     plan: JoinPlan | None = None, person: Any = None) -> SessionOutcome:
    plan = plan or plan_join(args, narrate=attach is not None or person is not None)
    identity, store, config, deck = plan.identity, plan.store, plan.config, plan.deck
    say = note or (lambda line: print(line, file=out, flush=True))
    #: set by cmd_join once the person accepted the offer it read; else --accept-rules decides
    accepted: AcceptedOffer | None = getattr(args, "accepted_offer", None)
    wanted_start = wanted_start_of(args)
    async with AsyncExitStack() as stack:
        player = person if args.bot is None else await enter_headless_bot(
            stack, args, _test_seed(args, "bot1"), args.game)
        if plan.resumed is not None:
            files, session, host, port = plan.resumed
            link = JoinLink(host, port, identity, fingerprint=session.peer_fingerprint,
                            config=config.channel, on_retry=say)
            say(f"resuming match {files.match_id[:16]} with {session.address}")
            channel = None
        else:
            if accepted is not None:
                target = accepted.target or Target(accepted.host, accepted.port, None)
                target = Target(accepted.host, accepted.port, accepted.fingerprint,
                                target.more, target.relay, target.room)
            else:
                target = await join_target(args, out)
            host, port, fingerprint = target.host, target.port, target.fingerprint
            known = KnownPeers.load()
            was_known = known.lookup(format_hostport(host, port)) is not None
            link = target.link(identity, known_peers=known, config=config.channel,
                               on_retry=say, rng=_test_rng(args, "handshake1"))
            made: dict[str, Any] = {}

            def check(rules: MatchRules, seat: int) -> str | None:
                if fingerprint is None and (notice := trust_notice(host, port, known,
                                                                   was_known)):
                    say(notice)
                if rules.game != args.game:  # (before any offer is accepted)
                    show_offer(say, "the host offers: ", rules, seat)
                    made["other game"] = rules.game
                    return other_game(rules.game, args.game)
                start = start_of(rules.game_impl, rules.ruleset)
                if wanted_start is not None and start != wanted_start:
                    show_offer(say, "the host offers: ", rules, seat)
                    return ("the host offers another start than --start "
                            f"{args.start}" if start else
                            f"the host offers the new game, not the position of --start "
                            f"{args.start}")
                if accepted is not None:
                    if (rules, seat) != (accepted.rules, accepted.seat):
                        return "the host now offers other rules than the player accepted"
                elif start and wanted_start is None and args.accept_rules:
                    show_offer(say, "the host offers: ", rules, seat)
                    return ("the host offers a match from a start position, which "
                            "--accept-rules alone does not accept: join with --start FILE "
                            "holding that position")
                elif not args.accept_rules:
                    show_offer(say, "the host offers: ", rules, seat)
                    made["not accepted"] = True
                    return NOT_ACCEPTED
                else:
                    show_offer(say, "the host offers: ", rules, seat,
                               "; accepted (--accept-rules)")
                if deck is not None and rules.deal_mode is not DealMode.DECKLIST:
                    return "this player brings a deck, but the host deals from a shared pool"
                try:
                    made["peer"] = create_peer(seat, identity, rules,
                                               rules.game_impl.default_catalogue(), deck=deck,
                                               master_secret=_test_secret(args, seat))
                except LocalProtocolError as error:
                    return f"cannot play these rules: {error}"
                return None

            say(f"connecting to {target.label}")
            try:
                channel, _rules, seat = await dial(link, say, partial(link.first, check))
            except DeclinedError as error:
                if made.get("other game"):
                    raise CommandError(f"{error}; to play it, run versus join with --game "
                                       f"{made['other game']}") from None
                if made.get("not accepted"):
                    raise CommandError(f"{error}; to accept the rules shown above without "
                                       "being asked, run versus join with --accept-rules"
                                       ) from None
                raise
            peer, secret = made["peer"]
            session = MatchSession(peer, secret, store=store, role="join",
                                   address=_session_address(link), config=config,
                                   peer_fingerprint=channel.peer_fingerprint)
            say(f"joined {channel.peer} ({channel.peer_fingerprint}) as player {seat}")
        if attach is not None:
            attach(session)
        return await run_session(session, channel, link.reconnect, player,
                                 say if attach is None else None)


def wanted_start_of(args: argparse.Namespace) -> str | None:
    """`join --start FILE`: the canonical start the host's offer must carry (None: no
    --start); CommandError, one line, for a file that is no start position of the game."""
    path = getattr(args, "start", None)
    if path is None:
        return None
    from versus.engine.registry import get_game

    from .game_options import GameOptionError, start_rules

    game = get_game(args.game)
    try:
        return start_of(game, start_rules(game, path, {}))
    except GameOptionError as error:
        raise CommandError(str(error)) from None


def _session_address(link: JoinLink) -> str:
    """The host's address a resumed match (after a restart) dials: the one that answered, or
    the first when the match went through the relay (its room is not kept)."""
    via = link.connected_via
    if via is not None and not via.startswith("relay "):
        return via
    return format_hostport(link.host, link.port)


# --- running a command: headless or in the UI -------------------------------------------------


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
    """The match of a game without a UI of its own, played by the person at the line
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

    waiting = ("restoring the match from disk" if args.resume is not None else
               "starting the host" if name == "host" else "preparing to join")
    client = NetMatchClient(connector, seat=seat, waiting=waiting)
    run_ui(client, theme=getattr(args, "theme", None))
    outcome = final_outcome(client)
    if outcome is None:
        raise CommandError(client.connection().reason or "the match did not start")
    if outcome.transcript_path is not None:
        print(f"transcript: {outcome.transcript_path}", file=out)
    line, code = describe_outcome(outcome, seat, name)
    print(line, file=out)
    return code


def cmd_host(args: argparse.Namespace, out: TextIO, stdin: TextIO | None = None) -> int:
    """Host; for the UI, the command line is checked and the port opened before it starts."""
    if args.bot is not None:
        return run_headless(host_match, "host", args, out, seat=0)
    plan = plan_host(args, narrate=True)
    listeners = trio.run(open_game_listeners, plan.port, args.bind)
    try:
        command = partial(host_match, plan=plan, listeners=listeners)
        if not is_versus(plan.game):
            return run_in_lines(command, "host", args, out, stdin or sys.stdin, 0, plan.game)
        need_terminal(stdin or sys.stdin, "to host without one, play headless with --bot NAME")
        return run_in_ui(command, "host", args, out, seat=0)
    finally:  # host_match closes them, unless it never ran
        if any(listener.socket.fileno() != -1 for listener in listeners):
            trio.run(_close_listeners, listeners)


def cmd_join(args: argparse.Namespace, out: TextIO, stdin: TextIO | None = None) -> int:
    """Join. For the UI, everything that can fail before the match does so first: the command
    line, then the host's offer, read on a connection of its own (see JoinLink.read_offer),
    then the terminal; a person then accepts the rules (y/N) or --accept-rules did, and the
    join accepts that same offer only."""
    stdin = stdin or sys.stdin
    if args.bot is not None:
        return run_headless(join_match, "join", args, out, seat=1)
    plan = plan_join(args, narrate=True)
    offer = None if args.resume is not None else trio.run(read_host_offer, args, out,
                                                          plan.identity)
    if offer is not None and offer.rules.game != args.game:
        raise CommandError(f"{other_game(offer.rules.game, args.game)}; nothing was joined; to "
                           f"play it, run versus join with --game {offer.rules.game}")
    lines = not is_versus(args.game)  # (a resumed match: its game, see plan_join)
    if not lines:
        need_terminal(stdin, "to join without one, play headless with --bot NAME "
                             "--accept-rules")
    if offer is not None:
        if args.accept_rules:
            show_offer(lambda line: print(line, file=out, flush=True),
                       f"{format_hostport(offer.host, offer.port)} offers: ", offer.rules,
                       offer.seat, "; accepted (--accept-rules)")
        elif not ask_to_accept(offer, out, stdin):
            raise CommandError("you did not accept the host's rules; nothing was joined")
        args.accepted_offer = offer
    if lines:
        return run_in_lines(partial(join_match, plan=plan), "join", args, out, stdin, 1,
                            args.game)
    return run_in_ui(partial(join_match, plan=plan), "join", args, out, seat=1)


# --- play: a person against a bot, over loopback ------------------------------------------------


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
    if not is_versus(rules.game):
        return play_in_lines(args, rules, out, stdin or sys.stdin)
    from .net_client import NetMatchClient
    from .ui.app import run_ui

    deck = _deck(args)
    store = _store(args)
    trio.run(_bot_starts, args.bot)
    need_terminal(stdin or sys.stdin, "versus play needs one (for two bots, try versus demo)")
    seat = args.seat
    sessions: list[MatchSession] = []  # (host, guest) once the match starts
    players: list[Any] = [None, None]

    async def connector(client: NetMatchClient) -> SessionOutcome:
        # the bot (its own nursery, for an external one) is entered outside ours: the stack
        # ends it after our nursery has closed, as trio's nesting wants
        async with AsyncExitStack() as stack:
            players[1 - seat] = await enter_guarded_player(stack, args.bot)
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

    client = NetMatchClient(connector, seat=seat, waiting=f"starting a match against the "
                                                          f"{args.bot} bot")
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
    """`versus play` of a game without a UI of its own: the person at the line interface
    (cli/line_ui.py) against the bot, over loopback; the narration of the person's seat is
    printed as it comes. Leaving (or the end of the input) ends the match, exit 3."""
    from .line_ui import LinePlayer

    store = _store(args)
    trio.run(_bot_starts, args.bot, rules.game)
    seat = args.seat
    person = LinePlayer(rules.game_impl, out, stdin)
    players: list[Any] = [None, None]
    echoes: list[LogEcho] = []

    async def main() -> Any:
        async with AsyncExitStack() as stack:  # the bot outside our nursery (see cmd_play)
            players[1 - seat] = await enter_guarded_player(stack, args.bot, game=rules.game)
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

    print(f"versus play: {rules.describe()}; you play seat {seat} against the {args.bot} bot",
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


async def _bot_starts(name: str, game: str = VERSUS) -> None:
    """The bot can be made (and an external one started): else one line before the UI."""
    async with AsyncExitStack() as stack:
        await enter_player(stack, name, game=game)


async def _leave_together(person: MatchSession, bot: MatchSession) -> None:
    """When the person leaves an unfinished match, the bot's side leaves it too."""
    while not person.done:
        await person.wait_changed()
    if person.result is None:
        await bot.leave("the player left")


# --- demo: two bots over loopback ---------------------------------------------------------------


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


def _seeded(seed: bytes | None, label: str) -> bytes:
    import hashlib
    import secrets

    if seed is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(b"versus/demo/" + label.encode() + b"/" + seed).digest()


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    rules = rules_from(args, "demo")
    versus = is_versus(rules.game)
    seed = args.seed
    bot_seeds = [int.from_bytes(_seeded(seed, f"bot{s}")[:8], "big") for s in (0, 1)]
    identities = (Identity(_seeded(seed, "id0")), Identity(_seeded(seed, "id1")))
    master = (_seeded(seed, "secret0"), _seeded(seed, "secret1"))
    # the match is bound to the channel's handshake (SPEC §4.5): a seeded demo seeds it too
    handshakes = None if seed is None else (
        master_rng(_seeded(seed, "handshake0")), master_rng(_seeded(seed, "handshake1")))
    out_dir = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="versus-demo-"))
    shown = [-1]
    guards: list[Any] = []  # the bots, guarded as the tournament's (enter_guarded_player)

    async def main() -> Any:
        async with AsyncExitStack() as stack:
            for s, name in enumerate((args.bot_a, args.bot_b)):
                guards.append(await enter_guarded_player(stack, name, bot_seeds[s],
                                                         rules.game))
            players = ([_Narrator(guard, out, args.quiet, shown) for guard in guards] if versus
                       else [_MovePrinter(guard, rules.game_impl, s, out, args.quiet)
                             for s, guard in enumerate(guards)])
            return await play_loopback_match(players, rules, transcript_dir=out_dir,
                                             identities=identities, master_secrets=master,
                                             handshake_rngs=handshakes, timeout=600,
                                             drive=drive_player)

    game = "" if versus else f"{rules.game} ({rules.game_impl.describe_rules(rules.ruleset)}), "
    print(f"versus demo: {game}{args.bot_a} (player 0) vs {args.bot_b} (player 1), "
          f"{rules.deal_mode.value} deal, over TCP on 127.0.0.1", file=out)
    if not args.quiet and versus:
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


# --- the error boundary -------------------------------------------------------------------------


def guarded(func: Callable[[argparse.Namespace, TextIO], int], args: argparse.Namespace,
            out: TextIO) -> int:
    """Run a command; every expected failure becomes one line on stderr and an exit code."""
    try:
        return func(args, out)
    except BrokenPipeError:
        raise  # our stdout's reader went away: cli/main.py ends quietly (exit 141)
    except KeyboardInterrupt:
        return _interrupted()
    except _EXPECTED as error:
        return _one_line(error)
    except BaseExceptionGroup as group:  # several tasks failed at once: the first one counts
        _reraise_closed_stdout(group)
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        if isinstance(first, KeyboardInterrupt):
            return _interrupted()
        if isinstance(first, _EXPECTED):
            return _one_line(first)
        return _internal_error(first, group)
    except Exception as error:  # a bug: still one line (set VERSUS_DEBUG=1 for the traceback)
        _reraise_closed_stdout(error)
        return _internal_error(error, error)


#: the failures a command reports as one line (the user's input, the peer, the network, a file)
_EXPECTED = (CommandError, TransportError, StoreError, LocalProtocolError, RemoteProtocolError,
             EngineError, trio.TooSlowError, OSError)


def _interrupted() -> int:
    print("versus: interrupted; a started match can be resumed with --resume MATCH_ID",
          file=sys.stderr)
    return EXIT_UNFINISHED


def _one_line(error: BaseException) -> int:
    text = " ".join(str(error).split()) or type(error).__name__
    print(f"versus: {text}", file=sys.stderr)
    return EXIT_ERROR


def _internal_error(error: BaseException, raised: BaseException) -> int:
    if os.environ.get("VERSUS_DEBUG"):
        raise raised
    print(f"versus: internal error ({type(error).__name__}: "
          f"{' '.join(str(error).split())[:200]}); please report it", file=sys.stderr)
    return EXIT_ERROR


def _reraise_closed_stdout(error: BaseException) -> None:
    """A closed stdout that failed a trio task arrives grouped with the others' failures: it
    still ends the command quietly (cli/main.py)."""
    if isinstance(error, BaseExceptionGroup) and error.subgroup(BrokenPipeError) is not None:
        raise BrokenPipeError(errno.EPIPE, "the reader of the standard output went away")


# --- demo --offline: the engine alone -----------------------------------------------------------


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
