# Finding the other player and getting it back: the host's listener and the joiner's dialler,
# and the one-round "offer" that tells the joiner the rules (SPEC §6.6).
#
# The offer. The host sends {"t": "offer", "rules": MatchRules.encode(), "seat": 1}; the joiner
# answers {"t": "accept"} or {"t": "decline", "reason": text}. The joiner's program answers at
# once: a person confirms the rules *before* the connection that joins (`JoinLink.read_offer`
# reads the offer on a first connection and declines it with READING_RULES; once the person
# has accepted, the joiner reconnects and accepts that same offer at once). So the host waits
# only OFFER_TIMEOUT (5 s) for an answer, and a joiner that never answers costs it 5 s of one
# slot, never the match.
#
# Matchmaking is built so that nobody can keep the real joiner out by connecting first:
#   * every NEW_MATCH connection is held in a table of at most MAX_WAITING, and while `first()`
#     runs each one is offered the match at once, concurrently: the first to accept wins, the
#     others are closed with "the host already has an opponent";
#   * when the table is full, a newcomer makes room by closing the oldest connection of the
#     source (an IPv4 address or IPv6 /64, as the listener counts them) that holds the most
#     entries: a flood from one machine only ever pushes out its own connections;
#   * connections that arrive while the chosen joiner sets up (between `first()` and `settle()`)
#     wait, unoffered, for at most OFFER_WAIT: if that joiner fails before the match exists
#     (`reopen()`), the next `first()` offers them the match; once the match exists
#     (`settle()`) they are closed with "the host already has an opponent".
# From `settle()` on, only Purpose.RESUME connections from the opponent's identity are handed to
# the session (the newest wins); anything else is closed with a one-line reason. The joiner
# redials with exponential backoff (0.25 s doubling to 5 s), pinning the host's fingerprint
# from the first handshake, until the session's resume window ends.
#
# Several addresses and a relay (SPEC §6.10). The joiner dials every address of the
# invite with happy eyeballs (connect.connect_any), and only when all fail meets the host at the
# invite's relay (nat/relay.py), for the first connection and every reconnection alike; the pin
# is the same on every path. The host, given a relay, keeps one connection waiting there
# (`HostLink.serve_relay`): each relayed joiner that completes the handshake is handled exactly
# like one that came to the listeners, and the host goes back to wait for the next.
from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import trio

from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.connect import (
    AllAddressesFailedError,
    Rng,
    connect_any,
    listening_port,
    open_listeners,
    serve,
    stream_source,
)
from versus.p2p.errors import ConnectError, ListenError, PeerIdentityError, TransportError
from versus.p2p.handshake import Purpose
from versus.p2p.known_peers import KnownPeers
from versus.p2p.nat.errors import RelayError
from versus.p2p.nat.relay import RelayAddress, relay_accept, relay_connect
from versus.p2p.session import SessionProtocolError
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError
from versus.protocol.match.rules import MatchRules
from versus.protocol.wire.text import printable

OFFER_TIMEOUT = 5.0  # host: the joiner's answer (its program answers at once, see above)
#: joiner: how long it waits for the offer; the host may hold it while another joiner sets up
#: (at most a setup deadline, cli/host_cmd.py SETUP_TIMEOUT), so this is the longer wait
OFFER_WAIT = 30.0
MAX_WAITING = 16  # NEW_MATCH connections the host holds at once (offered or waiting)
MAX_DECLINE = 200
#: the decline a joiner sends after reading the offer for its person to confirm
READING_RULES = "the player is reading the rules; it reconnects to accept them"
OPPONENT_CHOSEN = "the host already has an opponent"
TABLE_FULL = "too many players are waiting to join this host; try again"
HOST_BUSY = "the host is busy with a match; try again later"
#: host: the longest wait before trying an unreachable or refusing relay again
RELAY_RETRY_MAX = 30.0

#: (rules, our seat) -> None to accept, or a one-line reason to decline
RulesCheck = Callable[[MatchRules, int], str | None]


class DeclinedError(TransportError):
    """The joiner declined the offered rules (or we declined the host's)."""


class OfferTimeoutError(TransportError):
    """The offer exchange did not complete in time (no answer, or no offer)."""


@dataclass(frozen=True)
class Backoff:
    initial: float = 0.25
    factor: float = 2.0
    maximum: float = 5.0


# --- the offer ------------------------------------------------------------------------------


async def make_offer(channel: SecureChannel, rules: MatchRules, seat: int = 1) -> None:
    """Host: offer the rules; DeclinedError if the joiner declines, OfferTimeoutError if it
    does not answer within OFFER_TIMEOUT."""
    with trio.move_on_after(OFFER_TIMEOUT) as waited:
        await channel.send({"t": "offer", "rules": rules.encode(), "seat": seat})
        answer = await channel.receive()
    if waited.cancelled_caught:
        raise OfferTimeoutError(f"{channel.peer} did not answer the offer within "
                                f"{OFFER_TIMEOUT:g} s")
    if isinstance(answer, dict) and answer.get("t") == "accept":
        return
    if isinstance(answer, dict) and answer.get("t") == "decline":
        reason = printable(str(answer.get("reason", "")), MAX_DECLINE)
        raise DeclinedError(f"{channel.peer} declined the match: {reason or 'no reason given'}")
    raise SessionProtocolError(f"{channel.peer} answered the offer with something other than "
                               "accept or decline", [])


async def take_offer(channel: SecureChannel, check: RulesCheck | None = None
                     ) -> tuple[MatchRules, int]:
    """Joiner: receive the host's offer, accept it (or decline: DeclinedError)."""
    with trio.move_on_after(OFFER_WAIT) as waited:
        offer = await channel.receive()
    if waited.cancelled_caught:
        raise OfferTimeoutError(f"{channel.peer} sent no match offer within {OFFER_WAIT:g} s")
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
        reason = printable(reason, MAX_DECLINE)
        await channel.send({"t": "decline", "reason": reason})
        raise DeclinedError(f"declined {channel.peer}'s match: {reason}")
    await channel.send({"t": "accept"})
    return rules, offer["seat"]


# --- the host ---------------------------------------------------------------------------------


@dataclass(eq=False)
class _Waiting:
    """A NEW_MATCH connection the host holds until it is offered the match or turned away."""

    channel: SecureChannel
    source: str
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    farewell: str = ""  # the CLOSE reason when it is turned away


@dataclass(eq=False)
class _Round:
    """One call of `HostLink.first`: what is offered, and who accepted first."""

    rules: MatchRules
    seat: int
    on_declined: Callable[[str], None] | None
    done: trio.Event = field(default_factory=trio.Event)
    winner: SecureChannel | None = None


class HostLink:
    """The listeners of one hosted match (see the module comment). Run `serve` in a nursery
    (`await nursery.start(link.serve)`), then `first()`; `settle()` once the match exists (both
    HELLOs in) or `reopen()` if the chosen joiner failed before; give `reconnect` to the
    session."""

    def __init__(self, listeners: list[trio.SocketListener], identity: Identity, *,
                 config: ChannelConfig | None = None,
                 expected_fingerprint: str | None = None,
                 rng: Rng = secrets.token_bytes) -> None:
        self.listeners, self.identity, self.config = listeners, identity, config
        self.rng = rng  # the handshakes' randomness: `secrets`, but for a seeded demo or test
        self.expected_fingerprint = expected_fingerprint
        #: the match exists: NEW_MATCH connections are refused at once (a restored match too)
        self._settled = expected_fingerprint is not None
        self._waiting: list[_Waiting] = []  # oldest first
        self._round: _Round | None = None
        self._changed = trio.Event()
        self._resume_send, self._resume_receive = trio.open_memory_channel[SecureChannel](1)
        self.errors: list[str] = []

    @property
    def waiting(self) -> int:
        """How many NEW_MATCH connections the host holds now (at most MAX_WAITING)."""
        return len(self._waiting)

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        await serve(self.listeners, self.identity, self._handle, config=self.config,
                    on_error=lambda error: self.errors.append(str(error)), rng=self.rng,
                    task_status=task_status)

    async def _handle(self, channel: SecureChannel) -> None:
        purpose = channel.handshake.purpose
        expected = self.expected_fingerprint
        if purpose is Purpose.NEW_MATCH and (expected is None or not self._settled):
            await self._hold(channel)
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
        await channel.aclose(HOST_BUSY if expected is not None else "no match to resume here")

    # --- the waiting joiners ------------------------------------------------------------------

    async def _hold(self, channel: SecureChannel) -> None:
        entry = _Waiting(channel, stream_source(channel._stream))
        self._admit(entry)
        chosen = False
        try:
            with entry.scope:
                chosen = await self._offer_when_open(entry)
        finally:
            if entry in self._waiting:
                self._waiting.remove(entry)
            if not chosen:
                with trio.CancelScope(shield=True):
                    await channel.aclose(entry.farewell)

    def _admit(self, entry: _Waiting) -> None:
        if len(self._waiting) >= MAX_WAITING:
            held = Counter(e.source for e in self._waiting)
            most = max(held.values())
            self._turn_away(next(e for e in self._waiting if held[e.source] == most), TABLE_FULL)
        self._waiting.append(entry)

    def _turn_away(self, entry: _Waiting, reason: str) -> None:
        entry.farewell = reason
        entry.scope.cancel()
        if entry in self._waiting:
            self._waiting.remove(entry)

    def _open_round(self) -> _Round | None:
        r = self._round
        return r if r is not None and r.winner is None else None

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    async def _offer_when_open(self, entry: _Waiting) -> bool:
        """Offer the match to `entry` as soon as a round is open; True if it won the round."""
        round_: _Round | None = None
        with trio.move_on_after(OFFER_WAIT):
            while (round_ := self._open_round()) is None:
                await self._changed.wait()
        if round_ is None:
            entry.farewell = HOST_BUSY
            return False
        try:
            await make_offer(entry.channel, round_.rules, round_.seat)
        except TransportError as error:
            if isinstance(error, OfferTimeoutError):
                entry.farewell = f"no answer to the offer within {OFFER_TIMEOUT:g} s"
            if round_.on_declined is not None:
                round_.on_declined(printable(str(error) or type(error).__name__, 300))
            return False
        if round_ is not self._open_round():  # someone else accepted first, or first() ended
            entry.farewell = OPPONENT_CHOSEN if round_.winner is not None else HOST_BUSY
            return False
        round_.winner = entry.channel
        self.expected_fingerprint = entry.channel.peer_fingerprint
        self._waiting.remove(entry)
        for other in list(self._waiting):
            self._turn_away(other, OPPONENT_CHOSEN)
        round_.done.set()
        return True

    # --- the match's opponent -----------------------------------------------------------------

    async def serve_relay(self, relay: RelayAddress, room: bytes, *,
                          on_error: Callable[[str], None] | None = None,
                          task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                          ) -> None:
        """Wait at `relay` for joiners, one at a time, forever: each that completes the
        handshake is handled as a listener's would be. A relay that cannot be reached or
        refuses is retried after 1 s, doubling to RELAY_RETRY_MAX; a joiner whose handshake
        fails is reported and the host waits again at once."""
        task_status.started()
        delay = 1.0
        async with trio.open_nursery() as nursery:
            while True:
                try:
                    channel = await relay_accept(relay, room, self.identity,
                                                 config=self.config, rng=self.rng)
                except TransportError as error:
                    self.errors.append(str(error))
                    if on_error is not None:
                        on_error(str(error))
                    if isinstance(error, RelayError):
                        await trio.sleep(delay)
                        delay = min(delay * 2, RELAY_RETRY_MAX)
                    continue
                delay = 1.0
                nursery.start_soon(self._handle, channel)

    async def first(self, rules: MatchRules, seat: int = 1,
                    on_declined: Callable[[str], None] | None = None) -> SecureChannel:
        """The first joiner that accepts the rules (every waiting joiner is offered them at
        once); the match's opponent from then on, unless `reopen()`. `on_declined` gets one
        line for each joiner that declined, did not answer or answered nonsense."""
        if self.expected_fingerprint is not None or self._round is not None:
            raise LocalProtocolError("first() while the host has an opponent or is already "
                                     "waiting for one (reopen() drops the opponent)")
        round_ = _Round(rules, seat, on_declined)
        self._round = round_
        self._wake()
        try:
            await round_.done.wait()
        except BaseException:  # cancelled: a joiner that won meanwhile is not left open
            if round_.winner is not None:
                with trio.CancelScope(shield=True):
                    await round_.winner.aclose("the host stopped")
                self.expected_fingerprint = None
            raise
        finally:
            self._round = None
        assert round_.winner is not None
        return round_.winner

    def settle(self) -> None:
        """The match exists (both HELLOs are in): joiners still waiting are turned away, and
        NEW_MATCH connections from now on are refused at once."""
        if self.expected_fingerprint is None:
            raise LocalProtocolError("settle() without an opponent: call first()")
        self._settled = True
        for entry in list(self._waiting):
            self._turn_away(entry, OPPONENT_CHOSEN)

    async def reopen(self) -> None:
        """The joiner `first()` chose failed before the match existed: forget it, and any
        resume connection it left; the next `first()` offers the match to the others."""
        self.expected_fingerprint = None
        self._settled = False
        while True:
            try:
                stale = self._resume_receive.receive_nowait()
            except trio.WouldBlock:
                break
            await stale.aclose("no match to resume here")

    async def reconnect(self) -> SecureChannel:
        if self.expected_fingerprint is None:
            raise LocalProtocolError("reconnect() before first(): no opponent to wait for")
        return await self._resume_receive.receive()


# --- the joiner -------------------------------------------------------------------------------


class JoinFailedError(ConnectError):
    """Neither any address of the host nor its relay gave a connection; `failures` has one
    line for each way tried (address or relay: why)."""

    def __init__(self, message: str, failures: list[str]) -> None:
        super().__init__(message)
        self.failures = failures


class JoinLink:
    """Dial the host (every address with happy eyeballs, then the relay if any); `reconnect`
    redials with backoff (Purpose.RESUME, host key pinned)."""

    def __init__(self, host: str, port: int, identity: Identity, *,
                 fingerprint: str | None = None, known_peers: KnownPeers | None = None,
                 config: ChannelConfig | None = None, backoff: Backoff | None = None,
                 on_retry: Callable[[str], None] | None = None,
                 rng: Rng = secrets.token_bytes,
                 more: tuple[tuple[str, int], ...] = (),
                 relay: RelayAddress | None = None, room: bytes | None = None) -> None:
        self.host, self.port, self.identity = host, port, identity
        self.addresses = [(host, port), *more]
        if relay is not None and (room is None or fingerprint is None):
            raise LocalProtocolError("a relay needs the invite's room and fingerprint")
        self.relay, self.room = relay, room
        self.rng = rng  # the handshakes' randomness: `secrets`, but for a seeded demo or test
        self.fingerprint, self.known_peers, self.config = fingerprint, known_peers, config
        self.backoff = backoff or Backoff()
        self.on_retry = on_retry
        #: how the last connection was made: "HOST:PORT" or "relay tcp:HOST:PORT"
        self.connected_via: str | None = None

    async def _dial(self, purpose: Purpose) -> SecureChannel:
        """The addresses with happy eyeballs, then the relay; one address and no relay raises
        that address's own error, else JoinFailedError listing every failure."""
        known = None if self.fingerprint or purpose is Purpose.RESUME else self.known_peers
        try:
            channel = await connect_any(self.addresses, self.identity, purpose=purpose,
                                        expected_fingerprint=self.fingerprint,
                                        known_peers=known, config=self.config, rng=self.rng)
        except TransportError as error:
            if self.relay is None:
                if len(self.addresses) > 1 and isinstance(error, AllAddressesFailedError):
                    raise JoinFailedError(
                        str(error), [f"{a}: {e}" for a, e in error.failures]) from None
                raise
            direct = error
        else:
            self.connected_via = channel.peer
            return channel
        failures = ([f"{a}: {e}" for a, e in direct.failures]
                    if isinstance(direct, AllAddressesFailedError)
                    else [f"{self.addresses[0][0]}:{self.addresses[0][1]}: {direct}"])
        assert self.room is not None and self.fingerprint is not None
        try:
            channel = await relay_connect(self.relay, self.fingerprint, self.room,
                                          self.identity, purpose=purpose, config=self.config,
                                          rng=self.rng)
        except PeerIdentityError:
            raise  # someone with the invite's room poses as the host: never retry into it
        except TransportError as error:
            failures.append(f"relay {self.relay}: {error}")
            count = len(self.addresses)
            raise JoinFailedError(
                f"could not reach the host at its {count} address{'es' if count > 1 else ''} "
                f"nor through relay {self.relay}", failures) from None
        self.connected_via = f"relay {self.relay}"
        return channel

    async def first(self, check: RulesCheck | None = None
                    ) -> tuple[SecureChannel, MatchRules, int]:
        channel = await self._dial(Purpose.NEW_MATCH)
        try:
            rules, seat = await take_offer(channel, check)
        except BaseException:
            with trio.CancelScope(shield=True):
                await channel.aclose("")
            raise
        self.fingerprint = channel.peer_fingerprint
        return channel, rules, seat

    async def read_offer(self) -> tuple[MatchRules, int]:
        """The host's offer, read on a connection of its own and declined with READING_RULES
        (for a person to confirm before `first()` joins). Pins the host's key like `first()`,
        so the offer accepted later comes from the same host."""
        offered: list[tuple[MatchRules, int]] = []

        def note(rules: MatchRules, seat: int) -> str:
            offered.append((rules, seat))
            return READING_RULES

        channel = await self._dial(Purpose.NEW_MATCH)
        try:
            await take_offer(channel, note)
        except DeclinedError:
            if not offered:
                raise
        finally:
            with trio.CancelScope(shield=True):
                await channel.aclose("")
        self.fingerprint = channel.peer_fingerprint
        return offered[0]

    async def reconnect(self) -> SecureChannel:
        delay = self.backoff.initial
        while True:
            try:
                return await self._dial(Purpose.RESUME)
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
