# `versus join`: connect to a host (an invite, HOST:PORT or --lan), accept its rules knowingly,
# play the match.
#
# The joiner is shown the offered rules (match_text.describe_offer) and must accept them: on a
# terminal without a bot, `cmd_join` reads the offer on a first connection, asks y/N before
# anything starts (before the UI too), and the join then accepts that same offer only;
# headless, the player accepts with `--accept-rules`, and without it the join declines with a
# one-line reason the host logs too. Programs that join on their own (demo, play, the
# tournament's loopback matches) call p2p directly and accept what they offered themselves.
# Joining by HOST:PORT (no fingerprint to pin) trusts a new host's key on first use, and says
# so loudly, with the fingerprint to compare. A joiner plays only the game it asked for; a
# resumed match is of the game its transcript names.
from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO, TypeVar

import trio

from versus.engine.api import start_of
from versus.engine.scene import player_name
from versus.p2p.discovery import discover
from versus.p2p.invite import Address, Invite, format_hostport, split_hostport
from versus.p2p.known_peers import KnownPeers
from versus.p2p.link import (
    DeclinedError,
    JoinFailedError,
    JoinLink,
)
from versus.p2p.nat.relay import RelayAddress
from versus.p2p.session import (
    MatchSession,
    SessionConfig,
    SessionOutcome,
    create_peer,
)
from versus.p2p.store import MatchFiles, MatchStore
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError
from versus.protocol.match.rules import DealMode, MatchRules
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
    session_config,
)
from .match_text import MAX_LOG_LINE, show_offer
from .parsers import NO_JOIN_TARGET

T = TypeVar("T")
#: what a joiner that may not accept tells the host (and itself)
NOT_ACCEPTED = ("the joining player has not accepted the rules (no terminal to ask, and no "
                "--accept-rules)")


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
    if "://" in target:  # another scheme (http://...): its colons are not an IPv6 address's
        raise CommandError(f"{target!r} is not an invite: an invite looks like "
                           "versus://HOST:PORT#FINGERPRINT (the host prints it), or give "
                           "HOST:PORT")
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
    raise CommandError(NO_JOIN_TARGET)  # (cli/parsers.py refuses this command line first)


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
    identity = load_identity(args)
    store = open_store(args, identity)
    config = session_config(args, narrate)
    deck = deck_of(args)
    if args.resume is None:
        given_target(args)  # a bad invite is one line now
        return JoinPlan(identity, store, config, deck)
    files = store.find(args.resume)
    session = MatchSession.restore(files, identity, store=store, config=config)
    resumed_game(args, session)
    check_resumable(session)
    host, port_text = split_hostport(session.address, session.address)
    return JoinPlan(identity, store, config, deck, (files, session, host, int(port_text)))


async def read_host_offer(args: argparse.Namespace, out: TextIO,
                          identity: Identity | None = None) -> AcceptedOffer:
    """The host's offer, read on a connection of its own (see JoinLink.read_offer)."""
    target = await join_target(args, out)
    host, port, fingerprint = target.host, target.port, target.fingerprint
    known = KnownPeers.load()
    was_known = known.lookup(format_hostport(host, port)) is not None
    link = target.link(identity or load_identity(args), known_peers=known,
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
            stack, args, seeded_number(args, "bot1"), args.game)
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
                               on_retry=say, rng=seeded_rng(args, "handshake1"))
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
                                               master_secret=seeded_secret(args, seat))
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
            say(f"joined {channel.peer} ({channel.peer_fingerprint}) as {player_name(seat, None)}")
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
    lines = not plays_full_screen(stdin)  # no terminal: the line interface
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
