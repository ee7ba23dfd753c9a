# `versus host`: listen, offer the match to whoever joins, play it (a bot headless, a person in
# the terminal UI or at the line interface).
#
# The host plays the first joiner that accepts its offer (p2p/link.py offers it to every
# waiting joiner at once) and brings the match into existence, i.e. both HELLOs are in within
# SETUP_TIMEOUT. A joiner that fails before that (a bad or reflected HELLO, a silent or lost
# link) is dropped with one log line, and the host waits for another one with a fresh
# MatchPeer (a new master secret: nothing of the failed attempt is reused). From the match id
# on, the match is real: resume, faults and the rest follow the session's rules.
#
# Everything that can fail before a match exists fails before the UI starts, as one line: the
# command line's files and values (`plan_host`: identity, data directory, deck, rules, a saved
# match to resume, the invite), then the network (the port is opened), then the terminal.
from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

import trio

from versus.p2p.connect import listening_port
from versus.p2p.discovery import announce
from versus.p2p.invite import MAX_ADDRESSES as MAX_INVITE_ADDRESSES
from versus.p2p.invite import Address, Invite
from versus.p2p.link import (
    HostLink,
    open_game_listeners,
)
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
from versus.p2p.store import MatchStore
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError
from versus.protocol.match.rules import MatchRules
from versus.protocol.wire.text import printable

from .boundary import CommandError
from .insecure_seed import seeded_number, seeded_rng, seeded_secret
from .match_run import (
    run_headless,
    run_in_lines,
    run_in_ui,
    run_session,
)
from .match_setup import (
    check_resumable,
    deck_of,
    enter_headless_bot,
    game_args,
    load_identity,
    open_store,
    plays_full_screen,
    resumed_game,
    rules_from,
    session_config,
)
from .match_text import MAX_LOG_LINE
from .parsers import DEFAULT_GAME_PORT

#: the chosen joiner must bring the match into existence (both HELLOs in) this fast; its
#: program sends its HELLO right after accepting, so this only bounds a stalled joiner
SETUP_TIMEOUT = 10.0


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
    §6.10): the mapped external ones, then global IPv6, then the LAN's (IPv4, then other
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
            return self.session.rules.game
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
    identity = load_identity(args)
    store = open_store(args, identity)
    config = session_config(args, narrate)
    deck = deck_of(args)
    if args.resume is not None:
        files = store.find(args.resume)
        session = MatchSession.restore(files, identity, store=store, config=config)
        resumed_game(args, session)
        check_resumable(session)
        port = args.port if args.port is not None else session.port or DEFAULT_GAME_PORT
        return HostPlan(identity, store, config, port, deck, session=session, relay=relay,
                        room=room)
    rules = rules_from(args)
    try:
        fresh = create_peer(0, identity, rules, rules.game_impl.default_catalogue(), deck=deck,
                            master_secret=seeded_secret(args, 0))
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
            stack, args, seeded_number(args, "bot0"), plan.game)
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
                            rng=seeded_rng(args, "handshake0"))
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
            master_secret=seeded_secret(args, 0, attempt))
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
            while not session.started:
                await session.wait_changed()
            link.settle()  # the others waiting are turned away
            if attach is not None:  # the UI follows this session from now on
                attach(session)
            return
        why = f"{channel.peer} sent no HELLO within {SETUP_TIMEOUT:g} s"
        raise SetupLostError(why, reason=why)

    return await run_session(session, channel, link.reconnect, player,
                             say if attach is None else None, until_the_match_exists)


def cmd_host(args: argparse.Namespace, out: TextIO, stdin: TextIO | None = None) -> int:
    """Host; for the UI, the command line is checked and the port opened before it starts."""
    if args.bot is not None:
        return run_headless(host_match, "host", args, out, seat=0)
    plan = plan_host(args, narrate=True)
    listeners = trio.run(open_game_listeners, plan.port, args.bind)
    try:
        command = partial(host_match, plan=plan, listeners=listeners)
        if not plays_full_screen(stdin or sys.stdin):
            return run_in_lines(command, "host", args, out, stdin or sys.stdin, 0, plan.game)
        return run_in_ui(command, "host", args, out, seat=0)
    finally:  # host_match closes them, unless it never ran
        if any(listener.socket.fileno() != -1 for listener in listeners):
            trio.run(_close_listeners, listeners)
