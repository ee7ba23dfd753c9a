# Finding the other player and getting it back: the host's listener and the joiner's dialler,
# and the one-round "offer" that tells the joiner the rules (SPEC Part 6 §T-SESSION).
#
# The host listens for the whole match. The first connection with Purpose.NEW_MATCH receives
# the offer {"t": "offer", "rules": MatchRules.encode(), "seat": 1}; the joiner answers
# {"t": "accept"} or {"t": "decline", "reason": text} (then the host waits for the next one).
# From then on only Purpose.RESUME connections from the same identity are handed to the
# session (the newest wins); anything else is closed with a one-line reason. The joiner redials
# with exponential backoff (0.25 s doubling to 5 s), pinning the host's fingerprint from the
# first handshake, until the session's resume window ends.
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import trio

from p2p.channel import ChannelConfig, SecureChannel
from p2p.connect import connect, listening_port, open_listeners, serve
from p2p.errors import ListenError, PeerIdentityError, TransportError
from p2p.handshake import Purpose
from p2p.known_peers import KnownPeers
from p2p.session import SessionProtocolError
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.identity import Identity
from protocol.rules import MatchRules

OFFER_TIMEOUT = 30.0  # the joiner's program answers at once; this bounds a stalled peer
MAX_DECLINE = 200

#: (rules, our seat) -> None to accept, or a one-line reason to decline
RulesCheck = Callable[[MatchRules, int], str | None]


class DeclinedError(TransportError):
    """The joiner declined the offered rules (or we declined the host's)."""


@dataclass(frozen=True)
class Backoff:
    initial: float = 0.25
    factor: float = 2.0
    maximum: float = 5.0


# --- the offer ------------------------------------------------------------------------------


async def make_offer(channel: SecureChannel, rules: MatchRules, seat: int = 1) -> None:
    """Host: offer the rules; DeclinedError if the joiner declines."""
    with trio.fail_after(OFFER_TIMEOUT):
        await channel.send({"t": "offer", "rules": rules.encode(), "seat": seat})
        answer = await channel.receive()
    if isinstance(answer, dict) and answer.get("t") == "accept":
        return
    if isinstance(answer, dict) and answer.get("t") == "decline":
        reason = str(answer.get("reason", ""))[:MAX_DECLINE]
        reason = "".join(ch if ch.isprintable() else "?" for ch in reason)
        raise DeclinedError(f"{channel.peer} declined the match: {reason or 'no reason given'}")
    raise SessionProtocolError(f"{channel.peer} answered the offer with something other than "
                               "accept or decline", [])


async def take_offer(channel: SecureChannel, check: RulesCheck | None = None
                     ) -> tuple[MatchRules, int]:
    """Joiner: receive the host's offer, accept it (or decline: DeclinedError)."""
    with trio.fail_after(OFFER_TIMEOUT):
        offer = await channel.receive()
    if (not isinstance(offer, dict) or offer.get("t") != "offer"
            or type(offer.get("rules")) is not bytes or offer.get("seat") not in (0, 1)):
        raise SessionProtocolError(f"{channel.peer} did not open with a valid match offer", [])
    try:
        rules = MatchRules.decode(offer["rules"])
    except RemoteProtocolError as error:
        raise SessionProtocolError(f"{channel.peer} offered malformed rules: {error}",
                                   []) from None
    reason = check(rules, offer["seat"]) if check is not None else None
    if reason is not None:
        await channel.send({"t": "decline", "reason": reason[:MAX_DECLINE]})
        raise DeclinedError(f"declined {channel.peer}'s match: {reason}")
    await channel.send({"t": "accept"})
    return rules, offer["seat"]


# --- the host ---------------------------------------------------------------------------------


class HostLink:
    """The listeners of one hosted match (see the module comment). Run `serve` in a nursery
    (`await nursery.start(link.serve)`), then `first()`, and give `reconnect` to the session."""

    def __init__(self, listeners: list[trio.SocketListener], identity: Identity, *,
                 config: ChannelConfig | None = None,
                 expected_fingerprint: str | None = None) -> None:
        self.listeners, self.identity, self.config = listeners, identity, config
        self.expected_fingerprint = expected_fingerprint
        self._new_send, self._new_receive = trio.open_memory_channel[SecureChannel](math.inf)
        self._resume_send, self._resume_receive = trio.open_memory_channel[SecureChannel](1)
        self.errors: list[str] = []

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        await serve(self.listeners, self.identity, self._handle, config=self.config,
                    on_error=lambda error: self.errors.append(str(error)),
                    task_status=task_status)

    async def _handle(self, channel: SecureChannel) -> None:
        purpose = channel.handshake.purpose
        expected = self.expected_fingerprint
        if expected is None and purpose is Purpose.NEW_MATCH:
            self._new_send.send_nowait(channel)
            return
        if expected is not None and purpose is Purpose.RESUME:
            if channel.peer_fingerprint != expected:
                await channel.aclose("this host resumes a match with another player")
                return
            try:
                self._resume_send.send_nowait(channel)
            except trio.WouldBlock:  # an older attempt nobody took yet: the newest wins
                old = self._resume_receive.receive_nowait()
                await old.aclose("superseded by a newer connection")
                self._resume_send.send_nowait(channel)
            return
        await channel.aclose("the host is busy with a match"
                             if expected is not None else "no match to resume here")

    async def first(self, rules: MatchRules, seat: int = 1,
                    on_declined: Callable[[str], None] | None = None) -> SecureChannel:
        """The first joiner that accepts the rules; the match's opponent from then on."""
        while True:
            channel = await self._new_receive.receive()
            if self.expected_fingerprint is not None:
                await channel.aclose("the host already has an opponent")
                continue
            try:
                await make_offer(channel, rules, seat)
            except (TransportError, trio.TooSlowError) as error:
                if on_declined is not None:
                    on_declined(str(error) if str(error) else "the joiner did not answer")
                await channel.aclose("")
                continue
            self.expected_fingerprint = channel.peer_fingerprint
            while True:  # the others that queued meanwhile are turned away
                try:
                    other = self._new_receive.receive_nowait()
                except trio.WouldBlock:
                    break
                await other.aclose("the host already has an opponent")
            return channel

    async def reconnect(self) -> SecureChannel:
        if self.expected_fingerprint is None:
            raise LocalProtocolError("reconnect() before first(): no opponent to wait for")
        return await self._resume_receive.receive()


# --- the joiner -------------------------------------------------------------------------------


class JoinLink:
    """Dial the host; `reconnect` redials with backoff (Purpose.RESUME, host key pinned)."""

    def __init__(self, host: str, port: int, identity: Identity, *,
                 fingerprint: str | None = None, known_peers: KnownPeers | None = None,
                 config: ChannelConfig | None = None, backoff: Backoff | None = None,
                 on_retry: Callable[[str], None] | None = None) -> None:
        self.host, self.port, self.identity = host, port, identity
        self.fingerprint, self.known_peers, self.config = fingerprint, known_peers, config
        self.backoff = backoff or Backoff()
        self.on_retry = on_retry

    async def first(self, check: RulesCheck | None = None
                    ) -> tuple[SecureChannel, MatchRules, int]:
        channel = await connect(self.host, self.port, self.identity,
                                expected_fingerprint=self.fingerprint,
                                known_peers=None if self.fingerprint else self.known_peers,
                                config=self.config)
        try:
            rules, seat = await take_offer(channel, check)
        except BaseException:
            with trio.CancelScope(shield=True):
                await channel.aclose("")
            raise
        self.fingerprint = channel.peer_fingerprint
        return channel, rules, seat

    async def reconnect(self) -> SecureChannel:
        delay = self.backoff.initial
        while True:
            try:
                return await connect(self.host, self.port, self.identity,
                                     purpose=Purpose.RESUME,
                                     expected_fingerprint=self.fingerprint, config=self.config)
            except PeerIdentityError:
                raise  # someone else answers at that address: never retry into an impostor
            except TransportError as error:
                if self.on_retry is not None:
                    self.on_retry(f"{error}; retrying in {delay:g} s")
            await trio.sleep(delay)
            delay = min(delay * self.backoff.factor, self.backoff.maximum)


async def open_game_listeners(port: int, bind: str | None = None
                              ) -> list[trio.SocketListener]:
    """Listeners on `port` (IPv4 and IPv6 unless `bind`). Port 0 picks one free port for all
    families (trio would give each family its own), so one invite reaches every listener."""
    listeners = await open_listeners(port, bind=bind)
    if port != 0 or len(listeners) == 1:
        return listeners
    for _ in range(8):
        chosen = listening_port(listeners)
        for listener in listeners:
            await listener.aclose()
        try:
            return await open_listeners(chosen, bind=bind)
        except ListenError:  # taken meanwhile by someone else: draw another
            listeners = await open_listeners(0, bind=bind)
    return listeners[:1]
