# The networked commands: `versus host`, `versus join`, `versus play` and `versus demo`.
#
# Each is a trio program around a p2p MatchSession. With `--bot NAME` host/join play headless
# and print a summary; without it they open the terminal UI through NetMatchClient (the trio
# part then runs as a guest of the UI's asyncio loop). Every failure is one line on stderr and
# an exit code (documented in README and `versus --help`):
#   0 the match finished (demo: and its transcript verified)
#   1 an error (network, files, bad input); the message says what to do
#   2 bad command line (argparse)
#   3 the match did not finish (left, abandoned, interrupted): resumable with --resume
#   4 the match stopped on a protocol fault (the evidence is in the transcript), or the demo's
#     transcript failed verification
from __future__ import annotations

import argparse
import json
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TextIO

import trio

from engine import ActionOrder, PlayerView, Ruleset, default_catalogue
from engine.errors import EngineError
from p2p.connect import listening_port
from p2p.discovery import announce, discover
from p2p.errors import TransportError
from p2p.invite import Invite, format_hostport, split_hostport
from p2p.keystore import load_or_create_identity
from p2p.known_peers import KnownPeers
from p2p.link import HostLink, JoinLink, open_game_listeners
from p2p.loopback import play_loopback_match
from p2p.session import (
    MatchSession,
    SessionConfig,
    SessionOutcome,
    create_peer,
    drive_player,
    open_nursery,
)
from p2p.store import MatchStore, StoreError
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.identity import Identity
from protocol.match import Ending
from protocol.rules import DealMode, MatchRules
from protocol.verify import verify_transcript

from .board_text import LEGEND, render_board
from .client import describe_fault

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNFINISHED, EXIT_FAULT = 0, 1, 2, 3, 4
DEFAULT_GAME_PORT = 47820
MAX_DECK_FILE = 64 * 1024


class CommandError(Exception):
    """A one-line failure of a command (bad file, bad option value, nothing found)."""


# --- option parsing -----------------------------------------------------------------------------


def parse_clock(text: str) -> tuple[int, int]:
    """`MIN+INC`: minutes per player plus seconds added after each move (chess notation)."""
    base, plus, inc = text.partition("+")
    try:
        minutes, increment = float(base), float(inc) if plus else 0.0
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"clock {text!r} is not MIN+INC (e.g. 5+3: 5 minutes, 3 s per move)") from None
    if not 0 < minutes <= 24 * 60 or not 0 <= increment <= 3600:
        raise argparse.ArgumentTypeError(f"clock {text!r}: minutes in (0, 1440], increment "
                                         "in [0, 3600] s")
    return int(minutes * 60_000), int(increment * 1000)


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


def rules_from(args: argparse.Namespace) -> MatchRules:
    initial, increment = args.clock if args.clock is not None else (0, 0)
    try:
        return MatchRules(Ruleset(action_order=ActionOrder(args.order)), DealMode(args.deal),
                          clock_initial_ms=initial, clock_increment_ms=increment)
    except (LocalProtocolError, EngineError, ValueError) as error:
        raise CommandError(str(error)) from None


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deal", choices=[m.value for m in DealMode],
                        default=DealMode.SHARED_POOL.value,
                        help="deal mode: shared-pool (mental poker, default) or decklist")
    parser.add_argument("--clock", type=parse_clock, default=None, metavar="MIN+INC",
                        help="chess clock per player, e.g. 5+3 (default: no clock)")
    parser.add_argument("--order", choices=[o.value for o in ActionOrder],
                        default=ActionOrder.ORDERED.value, help="action order rule")


def add_session_options(parser: argparse.ArgumentParser, *, bot: bool = True) -> None:
    if bot:
        parser.add_argument("--bot", metavar="NAME", default=None,
                            help="play headless with this bot (random, greedy, ismcts, "
                                 "ismcts-tree, cmd:...)")
    parser.add_argument("--deck", metavar="FILE", default=None,
                        help="decklist mode: the deck to bring (default: a random one)")
    parser.add_argument("--identity", metavar="PATH", default=None,
                        help="identity key file (default: the keystore's)")
    parser.add_argument("--data-dir", metavar="DIR", default=None,
                        help="where match directories live (default: "
                             "$XDG_DATA_HOME/versus/matches)")
    parser.add_argument("--resume-window", type=float, default=300.0, metavar="SECONDS",
                        help="how long to wait for the opponent after a drop (default 300)")
    parser.add_argument("--resume", metavar="MATCH_ID", default=None,
                        help="resume a saved match (id or unique prefix) after a restart")


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


def make_player(name: str, seed: int | None = None) -> Any:
    from .bots import UnknownBotError, as_async, make_bot

    try:
        return as_async(make_bot(name, seed=seed))
    except UnknownBotError as error:
        raise CommandError(str(error)) from None
    except ValueError as error:
        raise CommandError(f"bot {name!r}: {error}") from None


async def enter_player(stack: AsyncExitStack, name: str, seed: int | None = None) -> Any:
    player = make_player(name, seed)
    if hasattr(player, "__aenter__"):
        player = await stack.enter_async_context(player)
    return player


def session_config(args: argparse.Namespace, narrate: bool) -> SessionConfig:
    if not args.resume_window >= 0:
        raise CommandError("--resume-window must be >= 0")
    return SessionConfig(resume_window=args.resume_window, narrate=narrate)


def describe_outcome(outcome: SessionOutcome, seat: int,
                     command: str | None = None) -> tuple[str, int]:
    """One summary line for a match and its exit code. `command` ("host" or "join") makes the
    resume hint a whole command line; None: this kind of match cannot be resumed (play)."""
    mid = "" if outcome.match_id is None else f"match {outcome.match_id.hex()[:16]}: "
    result = outcome.result
    if result is None:
        why = outcome.detail or "not finished"
        resume = ""
        if outcome.match_id is not None:
            resume = (f"; continue it with: versus {command} --resume "
                      f"{outcome.match_id.hex()[:16]}" if command is not None
                      else "; a match against a local bot cannot be resumed")
        return f"{mid}unfinished ({why}){resume}", EXIT_UNFINISHED
    if result.ending is Ending.FAULT:
        blamed = outcome.fault_seat
        path = "" if outcome.transcript_path is None else str(outcome.transcript_path)
        return (mid + describe_fault(None if blamed is None else 1 - blamed, seat,
                                     outcome.detail, path)), EXIT_FAULT
    you = ("a draw" if result.winner is None else
           "you won" if result.winner == seat else "you lost")
    code = EXIT_OK
    return f"{mid}{result} — {you}", code


def _store(args: argparse.Namespace) -> MatchStore:
    return MatchStore(args.data_dir)


def _identity(args: argparse.Namespace) -> Identity:
    return load_or_create_identity(args.identity)


def _deck(args: argparse.Namespace) -> list[str] | None:
    return None if args.deck is None else load_deck(args.deck)


def _test_secret(args: argparse.Namespace, seat: int) -> bytes | None:
    """`--insecure-test-seed`: the master secret from the seed, as `versus demo --seed` derives
    it (so both sides of a host/join match given one seed replay the demo's secrets)."""
    seed = getattr(args, "insecure_test_seed", None)
    return None if seed is None else _seeded(seed, f"secret{seat}")


def _test_seed(args: argparse.Namespace, label: str) -> int | None:
    seed = getattr(args, "insecure_test_seed", None)
    return None if seed is None else int.from_bytes(_seeded(seed, label)[:8], "big")


# --- host ---------------------------------------------------------------------------------------


async def host_match(args: argparse.Namespace, out: TextIO,
                     attach: Callable[[MatchSession], None] | None = None,
                     note: Callable[[str], None] | None = None) -> SessionOutcome:
    """Listen, wait for a joiner (or the resuming opponent), play to the end."""
    identity, store = _identity(args), _store(args)
    config = session_config(args, narrate=attach is not None)
    say = note or (lambda line: print(line, file=out, flush=True))
    session: MatchSession | None = None
    port = args.port
    if args.resume is not None:
        files = store.find(args.resume)
        session = MatchSession.restore(files, identity, default_catalogue(), store=store,
                                       config=config)
        if port is None:
            port = session.port or DEFAULT_GAME_PORT
    rules = None if session is not None else rules_from(args)
    deck = _deck(args)
    fresh: tuple[Any, bytes] | None = None
    if session is None:
        # Check our own deck and rules before listening, so a mistake is reported at once,
        # not after a player has joined.
        assert rules is not None
        try:
            fresh = create_peer(0, identity, rules, default_catalogue(), deck=deck,
                                master_secret=_test_secret(args, 0))
        except LocalProtocolError as error:
            where = f"deck file {args.deck}: " if args.deck else ""
            raise CommandError(where + str(error)) from None
    listeners = await open_game_listeners(DEFAULT_GAME_PORT if port is None else port,
                                          bind=args.bind)
    port = listening_port(listeners)
    async with AsyncExitStack() as stack:
        player = None if args.bot is None else await enter_player(stack, args.bot,
                                                                   _test_seed(args, "bot0"))
        async with open_nursery() as nursery:
            link = HostLink(listeners, identity, config=config.channel,
                            expected_fingerprint=None if session is None
                            else session.peer_fingerprint)
            await nursery.start(link.serve)
            for address in outward_addresses(args.bind):
                say(f"invite: {Invite(address, port, identity.fingerprint)}")
            say(f"listening on port {port}" + (f", resuming match {session.files.match_id[:16]}"
                                               if session is not None and session.files
                                               else "; waiting for a player to join (share "
                                                    "an invite above)"))
            if args.lan:
                await nursery.start(announce, identity, args.name or f"versus-{port}", port)
            if session is None:
                assert rules is not None and fresh is not None
                peer, secret = fresh
                channel = await link.first(rules, on_declined=lambda why: say(why))
                session = MatchSession(peer, secret, store=store, role="host", port=port,
                                       config=config,
                                       peer_fingerprint=channel.peer_fingerprint)
                say(f"{channel.peer} joined ({channel.peer_fingerprint})")
            else:
                channel = None
            if attach is not None:
                attach(session)
            if player is not None:
                nursery.start_soon(drive_player, session, player)
            outcome = await session.run(channel, link.reconnect)
            nursery.cancel_scope.cancel()
    for listener in listeners:
        await listener.aclose()
    return outcome


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


def parse_target(target: str) -> tuple[str, int, str | None]:
    """An invite, or HOST:PORT (then the host's key is checked against known_peers)."""
    if target.startswith("versus://"):
        invite = Invite.parse(target)
        return invite.host, invite.port, invite.fingerprint
    host, port_text = split_hostport(target, target)
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise CommandError(f"{target!r}: the port must be 1..65535")
    return host, int(port_text), None


async def join_match(args: argparse.Namespace, out: TextIO,
                     attach: Callable[[MatchSession], None] | None = None,
                     note: Callable[[str], None] | None = None) -> SessionOutcome:
    identity, store = _identity(args), _store(args)
    config = session_config(args, narrate=attach is not None)
    say = note or (lambda line: print(line, file=out, flush=True))
    deck = _deck(args)
    async with AsyncExitStack() as stack:
        player = None if args.bot is None else await enter_player(stack, args.bot,
                                                                   _test_seed(args, "bot1"))
        if args.resume is not None:
            files = store.find(args.resume)
            session = MatchSession.restore(files, identity, default_catalogue(), store=store,
                                           config=config)
            host, port_text = split_hostport(session.address, session.address)
            link = JoinLink(host, int(port_text), identity,
                            fingerprint=session.peer_fingerprint, config=config.channel,
                            on_retry=say)
            say(f"resuming match {files.match_id[:16]} with {session.address}")
            channel = None
        else:
            if args.lan:
                invite = await pick_lan_game(args.pick, out)
                host, port, fingerprint = invite.host, invite.port, invite.fingerprint
            elif args.target:
                host, port, fingerprint = parse_target(args.target)
            else:
                raise CommandError("give the host's invite or HOST:PORT, or --lan")
            link = JoinLink(host, port, identity, fingerprint=fingerprint,
                            known_peers=KnownPeers.load(), config=config.channel,
                            on_retry=say)
            made: dict[str, Any] = {}

            def check(rules: MatchRules, seat: int) -> str | None:
                if deck is not None and rules.deal_mode is not DealMode.DECKLIST:
                    return "this player brings a deck, but the host deals from a shared pool"
                try:
                    made["peer"] = create_peer(seat, identity, rules, default_catalogue(),
                                               deck=deck, master_secret=_test_secret(args, seat))
                except LocalProtocolError as error:
                    return f"cannot play these rules: {error}"
                return None

            say(f"connecting to {format_hostport(host, port)}")
            channel, _rules, seat = await link.first(check)
            peer, secret = made["peer"]
            session = MatchSession(peer, secret, store=store, role="join",
                                   address=format_hostport(host, port), config=config,
                                   peer_fingerprint=channel.peer_fingerprint)
            say(f"joined {channel.peer} ({channel.peer_fingerprint}) as player {seat}")
        if attach is not None:
            attach(session)
        async with open_nursery() as nursery:
            if player is not None:
                nursery.start_soon(drive_player, session, player)
            outcome = await session.run(channel, link.reconnect)
            nursery.cancel_scope.cancel()
    return outcome


# --- running a command: headless or in the UI -------------------------------------------------


Command = Callable[..., Awaitable[SessionOutcome]]


def run_network_command(command: Command, args: argparse.Namespace, out: TextIO,
                        seat: int) -> int:
    name = "host" if command is host_match else "join"
    if args.bot is not None:
        outcome = trio.run(command, args, out)
        if outcome.transcript_path is not None:
            print(f"transcript: {outcome.transcript_path}", file=out)
        line, code = describe_outcome(outcome, seat, name)
        print(line, file=out)
        return code
    from .net_client import NetMatchClient
    from .ui.app import run_ui

    async def connector(client: NetMatchClient) -> SessionOutcome:
        return await command(args, out, attach=client.attach, note=client.note)

    waiting = ("restoring the match from disk" if args.resume is not None else
               "starting the host" if name == "host" else "preparing to join")
    client = NetMatchClient(connector, seat=seat, waiting=waiting)
    run_ui(client)
    if client.outcome is None:
        raise CommandError(client.connection().reason or "the match did not start")
    if client.outcome.transcript_path is not None:
        print(f"transcript: {client.outcome.transcript_path}", file=out)
    line, code = describe_outcome(client.outcome, seat, name)
    print(line, file=out)
    return code


def cmd_host(args: argparse.Namespace, out: TextIO) -> int:
    return run_network_command(host_match, args, out, seat=0)


def cmd_join(args: argparse.Namespace, out: TextIO) -> int:
    return run_network_command(join_match, args, out, seat=1)


# --- play: a person against a bot, over loopback ------------------------------------------------


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    from .net_client import NetMatchClient
    from .ui.app import run_ui

    rules = rules_from(args)
    deck = _deck(args)
    seat = args.seat
    results: list[Any] = []

    async def connector(client: NetMatchClient) -> SessionOutcome:
        async with AsyncExitStack() as stack:
            bot = await enter_player(stack, args.bot)
            players: list[Any] = [None, None]
            players[1 - seat] = bot
            decks: list[list[str] | None] = [None, None]
            decks[seat] = deck
            result = await play_loopback_match(
                players, rules, transcript_dir=_store(args).root, decks=(decks[0], decks[1]),
                config=SessionConfig(narrate=True),
                on_start=lambda host, guest: client.attach((host, guest)[seat]))
            results.append(result)
            return result.outcomes[seat]

    client = NetMatchClient(connector, seat=seat, waiting=f"starting a match against the "
                                                          f"{args.bot} bot")
    run_ui(client)
    if results:
        print(f"transcript: {results[0].transcript_path}", file=out)
    if client.outcome is None:
        raise CommandError(client.connection().reason or "the match did not start")
    line, code = describe_outcome(client.outcome, seat)
    print(line, file=out)
    return code


# --- demo: two bots over loopback ---------------------------------------------------------------


class _Narrator:
    """Wraps a player: prints seat 0's board whenever a new turn has begun."""

    def __init__(self, player: Any, out: TextIO, quiet: bool, shown: list[int]) -> None:
        self.player, self.out, self.quiet, self.shown = player, out, quiet, shown
        self.name = player.name

    async def choose(self, view: PlayerView, legal: Sequence[Any]) -> Any:
        action = await self.player.choose(view, legal)
        if not self.quiet:
            if view.turn != self.shown[0]:
                self.shown[0] = view.turn
                print(f"turn {view.turn + 1}, as player {view.player} sees it:", file=self.out)
                print(render_board(view), file=self.out)
            print(f"  player {view.player}: {action}", file=self.out)
        return action


def _seeded(seed: bytes | None, label: str) -> bytes:
    import hashlib
    import secrets

    if seed is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(b"versus/demo/" + label.encode() + b"/" + seed).digest()


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    rules = rules_from(args)
    seed = args.seed
    bot_seeds = [int.from_bytes(_seeded(seed, f"bot{s}")[:8], "big") for s in (0, 1)]
    identities = (Identity(_seeded(seed, "id0")), Identity(_seeded(seed, "id1")))
    master = (_seeded(seed, "secret0"), _seeded(seed, "secret1"))
    out_dir = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="versus-demo-"))
    shown = [-1]

    async def main() -> Any:
        async with AsyncExitStack() as stack:
            players = [_Narrator(await enter_player(stack, name, bot_seeds[s]), out, args.quiet,
                                 shown) for s, name in enumerate((args.bot_a, args.bot_b))]
            return await play_loopback_match(players, rules, transcript_dir=out_dir,
                                             identities=identities, master_secrets=master,
                                             timeout=600)

    print(f"versus demo: {args.bot_a} (player 0) vs {args.bot_b} (player 1), "
          f"{rules.deal_mode.value} deal, over TCP on 127.0.0.1", file=out)
    if not args.quiet:
        print(LEGEND, file=out)
    result = trio.run(main)
    print(f"result: {result.result}", file=out)
    print(f"transcript: {result.transcript_path}", file=out)
    report = verify_transcript(result.transcript_path.read_bytes()
                               if result.transcript_path else result.transcript)
    print("verify: " + report.describe().splitlines()[0], file=out)
    return EXIT_OK if report.ok and result.result is not None else EXIT_FAULT


# --- the error boundary -------------------------------------------------------------------------


def guarded(func: Callable[[argparse.Namespace, TextIO], int], args: argparse.Namespace,
            out: TextIO) -> int:
    """Run a command; every expected failure becomes one line on stderr and an exit code."""
    try:
        return func(args, out)
    except KeyboardInterrupt:
        print("versus: interrupted; a started match can be resumed with --resume MATCH_ID",
              file=sys.stderr)
        return EXIT_UNFINISHED
    except (CommandError, TransportError, StoreError, LocalProtocolError,
            RemoteProtocolError, EngineError, trio.TooSlowError, OSError) as error:
        text = " ".join(str(error).split()) or type(error).__name__
        print(f"versus: {text}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as error:  # a bug: still one line (set VERSUS_DEBUG=1 for the traceback)
        import os

        if os.environ.get("VERSUS_DEBUG"):
            raise
        print(f"versus: internal error ({type(error).__name__}: "
              f"{' '.join(str(error).split())[:200]}); please report it", file=sys.stderr)
        return EXIT_ERROR
    except BaseExceptionGroup as group:  # several tasks failed at once: report the first
        first = group.exceptions[0]
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        print(f"versus: {' '.join(str(first).split()) or type(first).__name__}",
              file=sys.stderr)
        return EXIT_ERROR


# --- the parsers ------------------------------------------------------------------------------


def _hex_seed(text: str) -> bytes:
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed {text!r} is not hexadecimal") from None
    if not 1 <= len(seed) <= 32:
        raise argparse.ArgumentTypeError("seed must be 1..32 bytes (2..64 hex digits)")
    return seed


def _add_test_seed_option(parser: argparse.ArgumentParser) -> None:
    # For tests (tests/netfaults): the same match, byte for byte, with and without network
    # faults. A seeded master secret is predictable, so the option is hidden from --help.
    parser.add_argument("--insecure-test-seed", type=_hex_seed, default=None,
                        help=argparse.SUPPRESS)


def _guard(func: Callable[[argparse.Namespace, TextIO], int]
           ) -> Callable[[argparse.Namespace, TextIO], int]:
    return lambda args, out: guarded(func, args, out)


EXIT_CODES = ("exit codes: 0 match finished, 1 error, 2 bad command line, 3 match unfinished "
              "(resumable with --resume), 4 protocol fault / transcript invalid")


def add_network_parsers(sub: Any, *, offline_demo: Callable[[argparse.Namespace, TextIO], int]
                        ) -> None:
    """Add host, join, play and demo to the `versus` subcommands."""
    host = sub.add_parser("host", help="host a match and print the invite to share",
                          epilog=EXIT_CODES)
    host.add_argument("--port", type=int, default=None,
                      help=f"TCP port (default {DEFAULT_GAME_PORT}; 0 = any free port)")
    host.add_argument("--bind", default=None, metavar="ADDR",
                      help="listen only on this address (default: every IPv4 and IPv6 one)")
    host.add_argument("--lan", action="store_true", help="announce the game on the LAN")
    host.add_argument("--name", default=None, help="the game's name in LAN announcements")
    add_rules_options(host)
    add_session_options(host)
    _add_test_seed_option(host)
    host.set_defaults(func=_guard(cmd_host))

    join = sub.add_parser("join", help="join a match by invite, HOST:PORT or --lan",
                          epilog=EXIT_CODES)
    join.add_argument("target", nargs="?", default=None,
                      help="versus://HOST:PORT#FINGERPRINT or HOST:PORT")
    join.add_argument("--lan", action="store_true", help="find games on the LAN")
    join.add_argument("--pick", type=int, default=None, metavar="N",
                      help="with --lan: join the N-th game found")
    add_session_options(join)
    _add_test_seed_option(join)
    join.set_defaults(func=_guard(cmd_join))

    play = sub.add_parser("play", help="play against a bot on this machine (terminal UI)",
                          epilog=EXIT_CODES)
    play.add_argument("--bot", default="greedy", metavar="NAME",
                      help="the opponent (random, greedy, ismcts, ismcts-tree, cmd:...; "
                           "default greedy)")
    play.add_argument("--seat", type=int, choices=(0, 1), default=0, help="your seat")
    add_rules_options(play)
    add_session_options(play, bot=False)
    play.set_defaults(func=_guard(cmd_play))

    demo = sub.add_parser("demo", help="two bots play a whole match over loopback TCP",
                          epilog=EXIT_CODES)
    demo.add_argument("--seed", type=_hex_seed, default=None,
                      help="hex seed: identities, secrets and bots (reproducible transcript)")
    demo.add_argument("--bot-a", default="random", metavar="NAME", help="player 0's bot")
    demo.add_argument("--bot-b", default="random", metavar="NAME", help="player 1's bot")
    demo.add_argument("--quiet", action="store_true", help="print only the summary")
    demo.add_argument("--out", default=None, metavar="DIR",
                      help="where to write the match directory (default: a temp dir)")
    demo.add_argument("--offline", action="store_true",
                      help="engine only: no protocol, no network (the first demo)")
    add_rules_options(demo)

    def demo_dispatch(args: argparse.Namespace, out: TextIO) -> int:
        return offline_demo(args, out) if args.offline else cmd_demo(args, out)

    demo.set_defaults(func=_guard(demo_dispatch))
