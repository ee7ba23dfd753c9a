# The hostile-peer harness: an honest host (a real MatchSession behind a real HostLink on
# 127.0.0.1) and a joiner that misbehaves on purpose, one behaviour per test.
#
# The hostile joiner is built from the real parts with a hook at the layer under attack:
#   * raw socket bytes, before or instead of the handshake: `raw_connect` gives a bare TCP
#     stream (garbage, truncated or oversize frames, a slow drip);
#   * channel records, after the handshake: `HostilePeer.send_record` / `send_raw` / `seal_frame`
#     reach under SecureChannel (bad AEAD, replayed or reordered records, unknown kinds, floods,
#     payloads that are not msgpack or not an envelope);
#   * signed envelopes: `HostilePeer` plays a real MatchPeer (seat 1), and every envelope it
#     would send passes through a `Tamper` (async: it may send nothing, the envelope, or forged
#     ones re-sealed with the cheater's key: out of turn, illegal, wrong hash, equivocation...);
#   * protocol secrets: `on_setup(peer)` runs once the hostile MatchPeer has its deck or deal, so
#     a test can corrupt what the cheater commits to (duplicate card, draw order lie).
# The honest side records every transport error it meets (by class) and the handshake errors of
# its listener, so a test asserts on the exact failure, not on a log line.
#
# Everything is small so the suite stays fast: decklist matches of 3 cards, hand 1, 1 turn each
# (16 envelopes), shared-pool matches over a 6-card pool, channel timers of a fraction of a
# second, a resume window of 0.3 s.
from __future__ import annotations

import functools
import hashlib
import tracemalloc
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import trio

from tests.protocol.pair import identities, master_secret, rng_for
from versus.cli.driving import drive_player
from versus.engine.versus42 import Action, PlayerView, Ruleset, default_catalogue
from versus.p2p.channel import ChannelConfig, RecordKind, SecureChannel
from versus.p2p.connect import HANDSHAKE_TIMEOUT, connect, listening_port, open_listeners, serve
from versus.p2p.errors import TransportError
from versus.p2p.framing import encode_frame, pack_payload
from versus.p2p.handshake import Handshake, Purpose, Role
from versus.p2p.link import Backoff, HostLink, JoinLink, take_offer
from versus.p2p.session import (
    MatchSession,
    SessionConfig,
    SessionOutcome,
    open_nursery,
)
from versus.p2p.store import MatchStore
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError
from versus.protocol.match import MatchPeer, Phase
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.setup import NO_BINDING, open_hello
from versus.protocol.match.verify import Report, verify_transcript
from versus.protocol.wire.envelope import Envelope, MessageKind, parse_envelope, seal
from versus.protocol.wire.transcript import load_transcript

K = MessageKind
CATALOGUE = default_catalogue()
LABEL = "hostile"
IDS = identities(LABEL)
HONEST, CHEATER = 0, 1
SMALL = Ruleset(deck_size=3, hand_size=1, max_turns=1)
DECK_RULES = MatchRules(SMALL, DealMode.DECKLIST)
POOL_RULES = MatchRules(SMALL, DealMode.SHARED_POOL,
                        pool=tuple(card.id for card in CATALOGUE.cards[:6]))
FAST_CHANNEL = ChannelConfig(keepalive_interval=0.5, idle_timeout=2.0, frame_timeout=0.3,
                             send_timeout=2.0, min_pong_interval=0.25, close_timeout=0.2)
FAST_SESSION = SessionConfig(resume_window=0.3, linger=0.3, channel=FAST_CHANNEL, narrate=False)
MEMORY_BOUND = 64 << 20


def choose(view: PlayerView, legal: Sequence[Action]) -> Action:
    """HashBot's choice (tests/p2p/session_support.py), synchronous for the hostile loop."""
    digest = hashlib.sha256(f"{view.turn}|{'|'.join(map(str, legal))}".encode()).digest()
    return legal[int.from_bytes(digest[:4], "big") % len(legal)]


class HashPlayer:
    name = "hash"

    async def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        return choose(view, legal)


@functools.lru_cache(maxsize=8)
def reference_transcript(rules: MatchRules, binding: bytes = NO_BINDING) -> bytes:
    """The transcript of the honest match between the two fixed players, computed in memory
    (the sessions over TCP must reproduce it byte for byte, given the channel binding their
    HELLOs carry: `binding_of` reads it from their transcript)."""
    peers = [MatchPeer(s, IDS[s], rules, CATALOGUE, master_secret=master_secret(LABEL, s),
                       software="test") for s in (0, 1)]
    wire = [(s, raw) for s in (0, 1) for raw in peers[s].start(binding=binding)]
    while True:
        if wire:
            sender, raw = wire.pop(0)
            peers[1 - sender].receive(raw)
            wire += [(s, r) for s in (0, 1) for r in peers[s].outgoing()]
            continue
        mover = next((p for p in peers if p.my_turn), None)
        if mover is None:
            break
        mover.submit(choose(mover.view(), mover.legal_actions()))
        wire += [(mover.seat, r) for r in mover.outgoing()]
    assert peers[0].phase is Phase.CLOSED
    return peers[0].transcript_bytes()


def binding_of(transcript: bytes) -> bytes:
    """The channel binding both HELLOs of a transcript carry."""
    return open_hello(load_transcript(transcript).hellos[0]).binding


def seeded_rng(label: str) -> Callable[[int], bytes]:
    """A reproducible handshake rng (tests only: a seeded handshake is no secret)."""
    return rng_for(f"{LABEL}/handshake/{label}")


def handshake_binding(joiner_rng: str, host_rng: str) -> bytes:
    """The handshake hash two fresh streams `seeded_rng(joiner_rng)` and `seeded_rng(host_rng)`
    give the first channel between the cheater (dialling) and the honest host: the sans-IO
    handshake run in memory, so a test knows the match's channel binding before any socket."""
    joiner = Handshake(Role.INITIATOR, IDS[CHEATER], seeded_rng(joiner_rng))
    host = Handshake(Role.RESPONDER, IDS[HONEST], seeded_rng(host_rng))
    message: bytes | None = joiner.start()
    sides = (host, joiner)
    turn = 0
    while message is not None:
        message = sides[turn].receive(message)
        turn = 1 - turn
    assert host.result is not None and joiner.result is not None
    assert host.result.handshake_hash == joiner.result.handshake_hash
    return host.result.handshake_hash


# --- memory ---------------------------------------------------------------------------------


@contextmanager
def peak_memory() -> Iterator[list[int]]:
    """tracemalloc's peak (bytes) over the block, in `box[0]` afterwards."""
    box = [0]
    tracemalloc.start()
    try:
        yield box
    finally:
        box[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


# --- the honest side ------------------------------------------------------------------------


def record_errors(channel: SecureChannel, errors: list[TransportError]) -> SecureChannel:
    """Keep every TransportError the channel raises to its user (the session)."""
    receive, send = channel.receive, channel.send

    async def receive_recorded() -> Any:
        try:
            return await receive()
        except TransportError as error:
            errors.append(error)
            raise

    async def send_recorded(obj: Any) -> None:
        try:
            await send(obj)
        except TransportError as error:
            errors.append(error)
            raise

    channel.receive = receive_recorded  # type: ignore[method-assign]
    channel.send = send_recorded  # type: ignore[method-assign]
    return channel


class RecordingHostLink(HostLink):
    """HostLink that keeps its listener's handshake errors and its channels' errors as objects,
    with a settable handshake deadline."""

    def __init__(self, *args: Any, handshake_timeout: float = HANDSHAKE_TIMEOUT,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.handshake_timeout = handshake_timeout
        self.handshake_errors: list[TransportError] = []
        self.channel_errors: list[TransportError] = []
        self.declined: list[str] = []

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                    ) -> None:
        await serve(self.listeners, self.identity, self._handle, config=self.config,
                    on_error=self.handshake_errors.append, rng=self.rng,
                    handshake_timeout=self.handshake_timeout, task_status=task_status)

    async def _handle(self, channel: SecureChannel) -> None:
        await super()._handle(record_errors(channel, self.channel_errors))


@dataclass
class HonestHost:
    """Seat 0: a real session behind a real listener, played by HashPlayer."""

    rules: MatchRules
    port: int
    link: RecordingHostLink
    config: SessionConfig
    store: MatchStore | None = None
    session: MatchSession | None = None
    outcome: SessionOutcome | None = None
    matches: int = 0

    async def play(self) -> SessionOutcome:
        """Wait for the first joiner that accepts the offer, then play the match to its end."""
        channel = await self.link.first(self.rules, on_declined=self.link.declined.append)
        peer = MatchPeer(HONEST, IDS[HONEST], self.rules, CATALOGUE,
                         master_secret=master_secret(LABEL, HONEST), software="test")
        self.session = MatchSession(peer, master_secret(LABEL, HONEST), store=self.store,
                                    role="host", port=self.port, config=self.config)
        self.matches += 1
        async with open_nursery() as nursery:
            nursery.start_soon(drive_player, self.session, HashPlayer())
            self.outcome = await self.session.run(channel, self.link.reconnect)
            nursery.cancel_scope.cancel()
        return self.outcome

    @property
    def transport_errors(self) -> list[TransportError]:
        return self.link.channel_errors

    def transcript(self) -> bytes:
        assert self.session is not None
        return self.session.peer.transcript_bytes()

    def report(self) -> Report:
        return verify_transcript(self.transcript(), CATALOGUE)


@dataclass
class Arena:
    host: HonestHost
    nursery: trio.Nursery
    port: int

    def new_host(self, rules: MatchRules | None = None) -> HonestHost:
        """A fresh honest session on the same listener (after the link forgot its opponent)."""
        self.host.link.expected_fingerprint = None
        self.host = HonestHost(rules or self.host.rules, self.port, self.host.link,
                               self.host.config, self.host.store)
        return self.host


async def arena(nursery: trio.Nursery, rules: MatchRules = DECK_RULES, *,
                config: SessionConfig = FAST_SESSION, store: MatchStore | None = None,
                handshake_timeout: float = HANDSHAKE_TIMEOUT,
                rng: Callable[[int], bytes] | None = None) -> Arena:
    """An honest host listening on 127.0.0.1 (the listener runs in `nursery`); `rng`: its
    handshakes' randomness, seeded by default: the match is bound to its channel's handshake
    hash (SPEC §4.5), so seeded handshakes keep every test's match the same from run to run."""
    rng = rng or seeded_rng("host")
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    link = RecordingHostLink(listeners, IDS[HONEST], config=config.channel,
                             handshake_timeout=handshake_timeout, rng=rng)
    await nursery.start(link.serve)
    return Arena(HonestHost(rules, port, link, config, store), nursery, port)


async def offered(nursery: trio.Nursery
                  ) -> tuple[Arena, HostilePeer, SecureChannel, dict[str, Any]]:
    """An arena whose host is playing, and a hostile peer joined to it holding the host's
    offer (not answered yet): (arena, hostile peer, its channel, the offer)."""
    a = await arena(nursery)
    nursery.start_soon(a.host.play)
    hostile = HostilePeer()
    channel = await hostile.join(a.port)
    offer = await channel.receive()
    assert offer["t"] == "offer"
    return a, hostile, channel, offer


async def honest_joiner(port: int, rules: MatchRules = DECK_RULES,
                        config: SessionConfig = FAST_SESSION) -> SessionOutcome:
    """A well-behaved seat 1 (to show the host still serves after an attack)."""
    dial = JoinLink("127.0.0.1", port, IDS[CHEATER], config=config.channel,
                    backoff=Backoff(0.01, 2.0, 0.05), rng=seeded_rng("joiner"))
    channel, offered, seat = await dial.first()
    assert offered == rules and seat == CHEATER
    peer = MatchPeer(CHEATER, IDS[CHEATER], rules, CATALOGUE,
                     master_secret=master_secret(LABEL, CHEATER), software="test")
    session = MatchSession(peer, master_secret(LABEL, CHEATER), store=None, role="join",
                           address=f"127.0.0.1:{port}", config=config)
    async with open_nursery() as nursery:
        nursery.start_soon(drive_player, session, HashPlayer())
        outcome = await session.run(channel, dial.reconnect)
        nursery.cancel_scope.cancel()
    return outcome


async def still_serves(a: Arena) -> None:
    """After an attack on the listener, a fresh honest match on it completes and verifies."""
    host = a.new_host(DECK_RULES)
    async with open_nursery() as nursery:
        nursery.start_soon(host.play)
        await honest_joiner(a.port)
    assert host.outcome is not None and host.outcome.result is not None
    assert host.session is not None and host.session.peer.phase is Phase.CLOSED
    assert host.report().ok


# --- the hostile side -----------------------------------------------------------------------


async def raw_connect(port: int) -> trio.SocketStream:
    return await trio.open_tcp_stream("127.0.0.1", port)


async def read_until_closed(stream: trio.abc.ReceiveStream, limit: float = 5.0) -> bytes:
    """Everything the other side sends until it closes (it must, within `limit`)."""
    data = bytearray()
    with trio.fail_after(limit):
        while True:
            try:
                chunk = await stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                break
            if not chunk:
                break
            data += chunk
    return bytes(data)


#: (hostile, raw envelope it would send) -> sends whatever it likes instead
Tamper = Callable[["HostilePeer", bytes], Awaitable[None]]


async def honest(hostile: HostilePeer, raw: bytes) -> None:
    await hostile.send(raw)


def at(kind: MessageKind, n: int, action: Tamper) -> Tamper:
    """A Tamper that applies `action` to the n-th (0-based) envelope of `kind` (HELLO counts
    as a kind) and sends every other envelope unchanged."""
    seen = [0]

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        env = parse_envelope(raw)
        if env.kind is kind:
            seen[0] += 1
            if seen[0] - 1 == n:
                await action(hostile, raw)
                return
        await hostile.send(raw)

    return tamper


def resealed(**changes: Any) -> Tamper:
    """Send the envelope re-signed by the cheater with some fields changed (a callable value
    gets the parsed envelope)."""

    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send(reseal(raw, **changes))

    return action


def reseal(raw: bytes, **changes: Any) -> bytes:
    env = parse_envelope(raw)
    fields: dict[str, Any] = {"match_id": env.match_id, "seq": env.seq,
                              "prev_hash": env.prev_hash, "sender": env.sender,
                              "kind": env.kind, "body": list(env.body)}
    for name, value in changes.items():
        fields[name] = value(env) if callable(value) else value
    return seal(IDS[CHEATER], **fields).raw


def with_body(index: int, value: Any) -> Callable[[Envelope], list[Any]]:
    def change(env: Envelope) -> list[Any]:
        body = list(env.body)
        body[index] = value(body[index]) if callable(value) else value
        return body

    return change


@dataclass
class HostilePeer:
    """Seat 1, a real MatchPeer over a real channel, with a Tamper on what it sends."""

    rules: MatchRules = DECK_RULES
    tamper: Tamper = honest
    on_setup: Callable[[MatchPeer], None] | None = None
    deck: Sequence[str] | None = None
    peer: MatchPeer = field(init=False)
    channel: SecureChannel | None = None
    stalled: bool = False
    received: list[Any] = field(default_factory=list)
    error: BaseException | None = None
    #: its handshakes' randomness, seeded (see `arena`)
    rng: Callable[[int], bytes] = field(default_factory=lambda: seeded_rng("joiner"))

    def __post_init__(self) -> None:
        self.peer = MatchPeer(CHEATER, IDS[CHEATER], self.rules, CATALOGUE, deck=self.deck,
                              master_secret=master_secret(LABEL, CHEATER), software="test")

    # the layers under the envelope ------------------------------------------------------

    @property
    def stream(self) -> trio.abc.Stream:
        assert self.channel is not None
        return self.channel._stream

    async def send(self, obj: Any) -> None:
        assert self.channel is not None
        await self.channel.send(obj)

    async def send_record(self, kind: int, payload: bytes) -> None:
        """A sealed record of any kind byte with any payload (bypasses msgpack encoding)."""
        await self.stream.send_all(self.seal_frame(kind, payload))

    def seal_frame(self, kind: int, payload: bytes) -> bytes:
        """The next record's frame, sealed but not sent (spends the counter)."""
        assert self.channel is not None
        channel = self.channel
        counter = channel._send_counter
        channel._send_counter += 1
        from versus.p2p.channel import COUNTER
        from versus.p2p.handshake import aead_nonce

        ciphertext = channel._sealer.encrypt(aead_nonce(counter), bytes([kind]) + payload, None)
        return encode_frame(COUNTER.pack(counter) + ciphertext, channel.config.max_frame)

    def data_frame(self, obj: Any) -> bytes:
        return self.seal_frame(RecordKind.DATA, pack_payload(obj))

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    def stall(self) -> None:
        """Send nothing more (keep reading: the channel still answers keepalives)."""
        self.stalled = True

    # the match ------------------------------------------------------------------------------

    async def join(self, port: int, purpose: Purpose = Purpose.NEW_MATCH) -> SecureChannel:
        self.channel = await connect("127.0.0.1", port, IDS[CHEATER], purpose=purpose,
                                     config=FAST_CHANNEL, rng=self.rng)
        return self.channel

    async def play(self, port: int) -> None:
        """Join, take the offer and play until the match ends or the link breaks; never
        raises for the peer's or the link's sake (a cheater does not care)."""
        try:
            channel = await self.join(port)
            await take_offer(channel)
            for raw in self.peer.start(binding=channel.handshake.handshake_hash,
                                       peer_key=channel.handshake.peer_public_key):
                await self._out(raw)
            await self._answer()
            while self.peer.phase not in (Phase.CLOSED, Phase.ABORTED):
                message = await channel.receive()
                self.received.append(message)
                if isinstance(message, bytes):
                    self._feed(message)
                await self._answer()
            await read_until_closed(self.stream, 2.0)
        except (TransportError, RemoteProtocolError, LocalProtocolError, trio.TooSlowError,
                trio.BrokenResourceError, trio.ClosedResourceError) as error:
            self.error = error
        finally:
            if self.channel is not None:
                await trio.aclose_forcefully(self.channel._stream)

    def _feed(self, raw: bytes) -> None:
        had_core = self.peer.core is not None
        with suppress(RemoteProtocolError, LocalProtocolError):  # a cheater does not care
            self.peer.receive(raw)
        if not had_core and self.peer.core is not None and self.on_setup is not None:
            self.on_setup(self.peer)

    async def _answer(self) -> None:
        peer = self.peer
        while peer.fault is None and peer.my_turn and not self.stalled:
            try:
                peer.submit(choose(peer.view(), peer.legal_actions()))
            except LocalProtocolError:
                break
            for raw in peer.outgoing():
                await self._out(raw)
        for raw in peer.outgoing():
            await self._out(raw)

    async def _out(self, raw: bytes) -> None:
        if not self.stalled:
            await self.tamper(self, raw)


async def hostile_match(a: Arena, hostile: HostilePeer, limit: float = 10.0) -> HonestHost:
    """Run the honest host against `hostile` until the host's session ends."""
    host = a.host
    with trio.fail_after(limit):
        async with open_nursery() as nursery:
            nursery.start_soon(hostile.play, a.port)
            await host.play()
            nursery.cancel_scope.cancel()
    return host


def chain_kinds(transcript: bytes) -> list[tuple[int, str]]:
    return [(parse_envelope(raw).sender, parse_envelope(raw).kind.name)
            for raw in load_transcript(transcript).envelopes]


def assert_valid_prefix(report: Report) -> None:
    """A transcript cut short by a lost link: every record checks, only the end is missing."""
    assert report.ok or (report.check == "incomplete" and report.bad_index == report.records), \
        report.describe()




# --- verdicts -------------------------------------------------------------------------------


def assert_caught(host: HonestHost, expected: type | tuple[type, ...],
                  culprit: int | None = CHEATER) -> Report:
    """The honest host stopped the match on the cheat: its fault is `expected`, its EVIDENCE is
    the last envelope of its transcript, and the verifier, re-checking that evidence, names the
    cheater (when `culprit` is given: the fault is attributable)."""
    assert host.outcome is not None and host.session is not None
    fault = host.session.peer.fault
    assert isinstance(fault, expected), (type(fault), fault)
    assert fault.evidence
    assert host.outcome.result is not None and host.outcome.result.ending.value == "fault"
    assert host.session.peer.phase is Phase.ABORTED
    assert chain_kinds(host.transcript())[-1] == (HONEST, "EVIDENCE")
    report = host.report()
    assert report.ok, report.describe()
    verdict = report.summary["fault"]
    assert verdict["code"] == fault.code
    if culprit is not None:
        assert verdict["player"] == culprit and verdict["attributable"], verdict
    else:
        assert verdict["player"] in (None, CHEATER), verdict
    return report


def assert_never_blames_honest(host: HonestHost) -> Report:
    """For faults nobody can prove (replays, gaps, bad signatures): the honest side ends (the
    match completes, stops on unattributed EVIDENCE, or drops the envelope and the link to
    resynchronise on resume, which this attacker never does: abandoned after the window), its
    transcript verifies (a valid prefix when abandoned), and nothing in it blames seat 0."""
    assert host.outcome is not None, host.outcome
    report = host.report()
    if host.outcome.result is None:
        assert host.outcome.abandoned, host.outcome
        assert_valid_prefix(report)
    else:
        assert report.ok, report.describe()
    fault = report.summary.get("fault")
    assert fault is None or fault["player"] in (None, CHEATER), fault
    return report
