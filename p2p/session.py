# The match session: one player's MatchPeer (protocol/match/peer.py, sans-IO) driven from trio over
# a SecureChannel, with the transcript kept on disk, clocks, and resume (SPEC §6.6).
#
# How it works. Every call into the MatchPeer (a remote envelope, a local action, a resignation,
# a timeout claim) is followed by `_after_peer_call`: new envelopes of ours are appended to the
# transcript file *before* they are queued for sending (a restarted program must never sign a
# second envelope for a seq it already sent), the events go to the program's `on_events` hook
# (the cli's narrator turns them into log lines: cli/driving.py), and waiters are woken. The
# session knows no game: it never narrates, and it never picks an action (`submit` / `resign`
# come from the program: the UI, or cli/driving.py `drive_player` for bots).
# Calls never await between touching the peer and persisting, so the tasks that share the peer
# (receiver, local player, clock watcher) need no locks: trio switches tasks only at awaits.
#
# Tasks. While connected: a receiver (channel.receive -> MatchPeer.receive) and a sender fed
# by an unbounded queue, so receiving never waits for the peer to read (a peer that stops
# reading makes the sender fail with SendTimeoutError: a lost link like any other); the sender
# writes whatever is queued when it wakes in one go (SecureChannel.send_many). For the
# whole session: a clock watcher that claims the peer's timeout when its clock has run out by
# our measure (plus `claim_grace_ms`), connected or not. Local actions arrive through `submit`
# / `resign` from any task (the UI client, or cli/driving.py `drive_player` for bots).
#
# Liveness comes from the channel (keepalive PINGs, idle timeout, slow-frame timeout, send
# timeout): each failure is a lost link. A lost link is not the end of the match: the session
# waits for `reconnect()` (the host keeps listening, the joiner redials with backoff) for at
# most `resume_window` seconds, then the match is abandoned (with a clock, the peer's clock
# keeps running meanwhile and may end the match with our claim first).
#
# Resume. After a new handshake with Purpose.RESUME, both sides send at once
#     {"t": "resume", "match": match id, "seq": our chain length, "tail": [hashes of our last
#      <= 64 envelopes]}
# Each finds the longest prefix both chains share (`common_prefix`) and resends every envelope
# of its own chain after it (MatchPeer.envelopes_after). Normally one chain is a prefix of the
# other; they fork only when a timeout claim crossed the late player's envelopes, and then the
# protocol layer settles it (the claimant drops the crossing envelopes, the late side rolls its
# own back), so both end with the same transcript.
from __future__ import annotations

import contextlib
import enum
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.errors import ChannelClosedError, RemoteTransportError, TransportError
from versus.p2p.store import (
    ClockReading,
    MatchFiles,
    MatchStore,
    SessionInfo,
    StoreError,
    new_master_secret,
)
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError, UnplayableRules
from versus.protocol.match import (
    Ending,
    Event,
    MatchPeer,
    MatchResult,
    Phase,
)
from versus.protocol.match.rules import MatchRules
from versus.protocol.match.setup import open_hello
from versus.protocol.wire.transcript import load_transcript

MAX_TAIL = 64  # envelope hashes in a RESUME message: more than any one-sided run of envelopes
MAX_DUPLICATES = 256  # resent envelopes we already hold, tolerated per connection
MAX_LOG_LINES = 2000

Reconnect = Callable[[], Awaitable[SecureChannel]]
#: what the program hears of a match: the session and the events of one call into its peer
EventHook = Callable[["MatchSession", "list[Event]"], None]


class SessionError(TransportError):
    """The session cannot go on (one line for the CLI)."""


class SetupLostError(SessionError):
    """The link broke before both HELLOs were in: there is no match to resume. `reason` says
    why in one line (without advice; a host logs it and waits for another joiner); `code` is
    the error code when the peer's HELLO was refused."""

    def __init__(self, message: str, *, reason: str = "", code: str = "") -> None:
        super().__init__(message)
        self.reason, self.code = reason or message, code


class ResumeError(SessionError):
    """A resume failed: the peer resumes another match, or the histories cannot be joined."""


class SessionProtocolError(RemoteTransportError):
    """The peer sent a session message that is not what the session protocol allows."""

    code = "malformed-session-message"


class LinkState(enum.Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"  # the link is down; `deadline` (trio time) ends the window
    CLOSED = "closed"


@dataclass(frozen=True)
class LinkStatus:
    state: LinkState
    reason: str = ""
    deadline: float | None = None  # RECONNECTING: trio.current_time() when resume gives up


@dataclass(frozen=True)
class SessionConfig:
    """Timers of a session, in seconds unless named _ms."""

    resume_window: float = 300.0
    claim_grace_ms: int = 200  # claim only this long after the peer's clock ran out (latency)
    linger: float = 10.0  # after a resignation or claim: wait this long for the secret reveals
    channel: ChannelConfig | None = None
    #: whether `on_events` hears the match (the UI's narration); headless bots and benches
    #: skip it
    narrate: bool = True
    #: the program's hook for the events of every call into the peer, and, after a restore,
    #: for the events that rebuilt it (the match so far); the cli installs its narrator
    #: (cli/driving.py `narrate_events`: log lines). None: nothing is told.
    on_events: EventHook | None = None

    def __post_init__(self) -> None:
        if not self.resume_window >= 0 or not self.linger >= 0 or self.claim_grace_ms < 0:
            raise ValueError("session timers must be non-negative")


@dataclass(frozen=True)
class SessionOutcome:
    """How a session ended. `result` is None when the match was left or abandoned unfinished."""

    result: MatchResult | None
    match_id: bytes | None
    transcript_path: Path | None
    abandoned: bool = False
    left: bool = False
    detail: str = ""  # one line: why it ended without a result, or the fault
    fault_seat: int | None = None  # a fault: the seat its EVIDENCE blames (None: unknown)


@contextlib.asynccontextmanager
async def open_nursery() -> AsyncIterator[trio.Nursery]:
    """A nursery whose lone failure comes out as itself, not wrapped in an ExceptionGroup
    (trio groups them strictly), so callers catch TransportError and friends directly. When a
    link breaks, the sender and the receiver often both fail with it: transport errors alone
    come out as the one that says why. A ChannelClosedError only says that the other task had
    closed the channel already (e.g. on a replayed record), so the cause is preferred to it:
    the log and the user see "tampered", not "already closed"."""
    try:
        async with trio.open_nursery() as nursery:
            yield nursery
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        if len(leaves) == 1 or all(isinstance(e, TransportError) for e in leaves):
            causes = [e for e in leaves if not isinstance(e, ChannelClosedError)]
            raise (causes or leaves)[0] from None
        raise


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    out: list[BaseException] = []
    for error in group.exceptions:
        out += _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    return out


def now_ms() -> int:
    return int(trio.current_time() * 1000)


def create_peer(seat: int, identity: Identity, rules: MatchRules, catalogue: Any, *,
                deck: Sequence[str] | Mapping[str, int] | None = None,
                software: str = "versus-p2p", expected_peer_key: bytes | None = None,
                master_secret: bytes | None = None) -> tuple[MatchPeer, bytes]:
    """A new MatchPeer on a fresh master secret (from `secrets`, unless given), and that
    secret."""
    secret = master_secret if master_secret is not None else new_master_secret()
    peer = MatchPeer(seat, identity, rules, catalogue, deck=deck, master_secret=secret,
                     software=software, expected_peer_key=expected_peer_key)
    return peer, secret


def common_prefix(hashes: Sequence[bytes], their_seq: int, their_tail: Sequence[bytes]) -> int:
    """The length of the longest chain prefix we share with the peer, from our envelope hashes
    and the peer's chain length and last hashes. ResumeError when it lies before the tail."""
    start = their_seq - len(their_tail)
    if len(hashes) <= start:  # we are far behind: nothing of ours to send; the peer checks us
        return len(hashes)
    for k in range(min(len(hashes), their_seq), max(start, 0) - 1, -1):
        if k == 0 or (k - 1 >= start and hashes[k - 1] == their_tail[k - 1 - start]):
            return k
    raise ResumeError(f"the histories differ before the peer's last {len(their_tail)} "
                      "envelopes; this match cannot be resumed")


class MatchSession:
    """One player's side of a networked match (see the module comment)."""

    def __init__(self, peer: MatchPeer, secret: bytes, *, store: MatchStore | None,
                 role: str, address: str = "", port: int = 0,
                 config: SessionConfig | None = None, files: MatchFiles | None = None,
                 peer_fingerprint: str = "") -> None:
        if role not in ("host", "join"):
            raise ValueError(f"role must be host or join, got {role!r}")
        self.peer, self.config = peer, config or SessionConfig()
        self.role, self.address, self.port = role, address, port
        self._secret, self._store, self.files = secret, store, files
        self.peer_fingerprint = peer_fingerprint
        self.log: list[str] = []
        self.status = LinkStatus(LinkState.CONNECTING)
        self._changed = trio.Event()
        self._turn_changed = trio.Event()  # `turn_changed`
        self._queue: trio.MemorySendChannel[bytes] | None = None
        self._rolled_back = peer.rolled_back
        self._finished = trio.Event()
        self._outcome_detail = ""
        self._abandoned = self._left = False
        self._hello_sent = peer.core is not None
        self._deck = peer.brought_deck
        self._result_at: float | None = None
        self._result_seen = trio.Event()  # set with _result_at: wakes the linger task once
        #: the program's cancel scopes to cancel at the end of the match (`cancel_at_end`)
        self._end_scopes: set[trio.CancelScope] = set()
        self._own_out_noted: int | None = None
        self._clock_written: ClockReading | None = None
        self._clock_to_restore: tuple[ClockReading | None] | None = None  # set by restore
        #: raw bytes of every chain envelope we hold
        self._held: set[bytes] = set() if peer.core is None else {
            e.raw for e in peer.core.chain.envelopes}

    # --- restoring from disk -------------------------------------------------------------------

    @classmethod
    def restore(cls, files: MatchFiles, identity: Identity, catalogue: Any = None, *,
                store: MatchStore | None = None,
                config: SessionConfig | None = None) -> MatchSession:
        """A session rebuilt from a match directory (after a restart). `catalogue`: the card
        data of the match (None: its game's default one, the game read from the transcript)."""
        info = files.read_info()
        secret = files.read_secret()
        data = files.read_transcript()
        try:
            if catalogue is None:
                catalogue = saved_catalogue(data)
            peer = MatchPeer.restore(data, secret, identity, catalogue, deck=info.deck,
                                     dropped_branch=files.read_rollback())
        except (LocalProtocolError, RemoteProtocolError) as error:
            raise StoreError(f"cannot rebuild the match from {files.transcript_path}: "
                             f"{error}") from None
        session = cls(peer, secret, store=store, role=info.role, address=info.address,
                      port=info.port, config=config, files=files,
                      peer_fingerprint=info.peer_fingerprint)
        # the match so far, as it was told before the restart
        session._tell(peer.replayed_events)
        peer.replayed_events = []  # told: no need to keep them for the rest of the match
        session.log.append(f"Match {files.match_id[:16]} restored from disk at envelope "
                           f"{peer.seq}")
        files.sync(peer.transcript().records, rewrite=True)
        if peer.rules.has_clock:
            try:
                session._clock_to_restore = (files.read_clock(),)
            except StoreError as error:
                session.log.append(f"{error}; the clocks restart from their initial value")
                session._clock_to_restore = (None,)
            with contextlib.suppress(RuntimeError):  # outside trio: done when run() starts
                session._restore_clock()
        return session

    def _restore_clock(self) -> None:
        """Put the clocks back as the last reading in clock.json had them (SPEC §6.7): the
        clock that was running then has kept running (the peer's side charges it too), so the
        wall-clock time since it started is charged to it now."""
        if self._clock_to_restore is None:
            return
        now = now_ms()  # RuntimeError outside trio: kept for run()
        (reading,) = self._clock_to_restore
        self._clock_to_restore = None
        peer = self.peer
        if reading is None:
            self.log.append("No clock reading was saved: the clocks restart from their "
                            "initial value")
        elif reading.seq != peer.seq:
            self.log.append(f"The clock reading is from envelope {reading.seq}, the "
                            f"transcript has {peer.seq}: the clocks are approximate")
        # the protocol decides who owes now; it has been running since the reading started it
        elapsed = 0 if reading is None or reading.running is None else max(
            0, int((time.time() - reading.since) * 1000))
        peer.restore_clocks(None if reading is None else reading.remaining_ms, now - elapsed)
        self._clock_written = reading

    def _save_clock(self) -> None:
        """Rewrite clock.json when the clock reading changed (after every call into the peer)."""
        clock = self.clock()
        if clock is None or self.files is None or self._clock_to_restore is not None:
            return
        left, running, mark = clock
        since = time.time() - max(0, now_ms() - mark) / 1000
        reading = ClockReading(self.peer.seq, left, running, round(since, 3))
        last = self._clock_written
        if last is not None and (last.seq, last.remaining_ms, last.running) == (
                reading.seq, reading.remaining_ms, reading.running):
            return
        self.files.write_clock(reading)
        self._clock_written = reading

    # --- what the UI and bots read -------------------------------------------------------------

    @property
    def seat(self) -> int:
        return self.peer.seat

    @property
    def match_id(self) -> bytes | None:
        return self.peer.match_id

    @property
    def result(self) -> MatchResult | None:
        return self.peer.result

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    @property
    def transcript_path(self) -> Path | None:
        return None if self.files is None else self.files.transcript_path

    @property
    def game(self) -> Any:
        """The game this match plays (engine/api.py `Game`)."""
        return self.peer.game

    @property
    def rules(self) -> MatchRules:
        """The match's rules (offered by the host, or restored from the transcript)."""
        return self.peer.rules

    @property
    def started(self) -> bool:
        """Whether the match exists: both HELLOs are in (its id is known), so a UI can follow
        it and a host stops waiting for this joiner."""
        return self.peer.core is not None

    @property
    def state(self) -> Any:
        """The game's public state (the same on both sides); None until the first one exists
        (the coin toss and the deal come first)."""
        core = self.peer.core
        return None if core is None else core.state

    @property
    def knowledge(self) -> Any:
        """Our seat's private knowledge of hidden cards (the game's narration reads it)."""
        return self.peer.knowledge

    def view(self) -> Any:
        return self.peer.view()

    def legal_actions(self) -> list[Any]:
        if self.own_time_out():
            return []
        return self.legal_actions_untimed()

    def legal_actions_untimed(self) -> list[Any]:
        """`legal_actions` without reading the clock (trio's): callable from outside the trio
        run, e.g. the UI's thread, where an expired clock shows as the clock, not here."""
        if self.peer.core is None or self.peer.result is not None or self.peer.fault is not None:
            return []
        return self.peer.legal_actions()

    @property
    def my_decision(self) -> bool:
        return bool(self.legal_actions())

    def clock(self) -> tuple[tuple[int, int], int | None, int] | None:
        """(remaining ms per seat as of `as_of_ms`, the running seat, as_of_ms), None: untimed."""
        if not self.peer.rules.has_clock:
            return None
        left = list(self.peer.clocks_ms)
        running = self.peer.clock_running
        if running is None or self.peer.result is not None:
            return (left[0], left[1]), None, now_ms()
        seat, mark = running
        return (left[0], left[1]), seat, mark

    def own_deadline(self) -> float | None:
        """trio time at which our own clock runs out (None: not running)."""
        clock = self.clock()
        if clock is None or clock[1] != self.seat:
            return None
        left, seat, mark = clock
        return (mark + left[seat]) / 1000

    def own_time_out(self) -> bool:
        deadline = self.own_deadline()
        return deadline is not None and trio.current_time() >= deadline

    async def wait_changed(self) -> None:
        await self._changed.wait()

    @property
    def changed(self) -> trio.Event:
        """The event the next change sets. Take it before reading the session, then wait on
        it: a change between the reading and the wait is not missed."""
        return self._changed

    @property
    def turn_changed(self) -> trio.Event:
        """Like `changed`, but set only by a change after which a decision may be ours (a turn
        or choice of our seat), the match is over, or the session is done: what a player's
        driver waits on, so that the opponent's envelopes do not wake it one by one."""
        return self._turn_changed

    def cancel_at_end(self, scope: trio.CancelScope) -> None:
        """Cancel `scope` as soon as the match has a result or the session is done (at once
        if it is so already), until `forget_scope`: what a player thinking in the program's
        own task needs (cli/driving.py), without a task of its own waiting for the end."""
        if self.peer.result is not None or self.done:
            scope.cancel()
        else:
            self._end_scopes.add(scope)

    def forget_scope(self, scope: trio.CancelScope) -> None:
        self._end_scopes.discard(scope)

    def _cancel_end_scopes(self) -> None:
        for scope in self._end_scopes:
            scope.cancel()
        self._end_scopes.clear()

    # --- local actions -------------------------------------------------------------------------

    async def submit(self, action: Any) -> None:
        """Our turn action or choice. LocalProtocolError if it is not ours to make or illegal."""
        if self.own_time_out():
            raise LocalProtocolError("your clock has run out; waiting for the opponent's claim")
        self._call(self.peer.submit, action, now_ms())
        await trio.lowlevel.checkpoint()

    async def resign(self, detail: str = "") -> None:
        """Resign our seat; `detail` (e.g. why a bot gave up) becomes the outcome's detail."""
        if detail:
            self._outcome_detail = detail
        self._call(self.peer.resign, now_ms())
        await trio.lowlevel.checkpoint()

    async def leave(self, reason: str = "the opponent left") -> None:
        """Stop here; the match stays on disk and may be resumed (`--resume`)."""
        self._left = True
        self._outcome_detail = reason
        self._finish()
        await trio.lowlevel.checkpoint()

    # --- running -------------------------------------------------------------------------------

    async def run(self, channel: SecureChannel | None = None,
                  reconnect: Reconnect | None = None) -> SessionOutcome:
        """Play until the match ends, is left, or cannot be resumed. `channel`: the first link
        (None after a restart: go straight to `reconnect`)."""
        self._restore_clock()  # restored outside trio: the clocks are put back now
        try:
            async with open_nursery() as nursery:
                nursery.start_soon(self._watch_clocks)
                nursery.start_soon(self._linger_after_result)
                resume = self._hello_sent
                while not self.done:
                    if channel is None:
                        channel = await self._await_reconnect(reconnect)
                        if channel is None:
                            break
                        resume = True
                    await self._connected(channel, resume)
                    channel, resume = None, True
                nursery.cancel_scope.cancel()
        finally:
            if self.files is not None:
                self.files.close()
            self._set_status(LinkStatus(LinkState.CLOSED, self._closing_reason()))
        return self.outcome()

    def outcome(self) -> SessionOutcome:
        result = self.peer.result
        detail = self._outcome_detail
        blamed = None
        if result is not None and result.ending is Ending.FAULT:
            blamed, detail = self.fault()
        return SessionOutcome(result, self.match_id, self.transcript_path,
                              abandoned=self._abandoned and result is None,
                              left=self._left and result is None, detail=detail,
                              fault_seat=blamed)

    def fault(self) -> tuple[int | None, str]:
        """(the blamed seat or None, one-line reason) of a match that ended on EVIDENCE."""
        fault = self.peer.fault  # we caught the peer: our own error has the best message
        if fault is not None:
            blamed = 1 - self.seat if fault.player is None else fault.player
            return blamed, " ".join(str(fault).split())
        core = self.peer.core
        if core is None or core.evidence is None:
            result = self.peer.result
            return None, "" if result is None else result.detail
        code, message, _raws, blamed_seat = core.evidence
        return blamed_seat, " ".join(f"{code}: {message}".split())

    def _closing_reason(self) -> str:
        if self.peer.result is not None:
            return f"match over: {self.peer.result}"
        return self._outcome_detail or "session closed"

    async def _await_reconnect(self, reconnect: Reconnect | None) -> SecureChannel | None:
        if self.peer.core is None:
            why = f" ({self.status.reason})" if self.status.reason else ""
            raise SetupLostError(f"the connection was lost before the match was set "
                                 f"up{why}; start a new match", reason=self.status.reason)
        if reconnect is None:
            self._abandoned = self.peer.result is None
            self._outcome_detail = self._outcome_detail or "the connection was lost"
            self._finish()
            return None
        deadline = trio.current_time() + self.config.resume_window
        self._set_status(LinkStatus(LinkState.RECONNECTING, self.status.reason, deadline))
        with trio.move_on_at(deadline):
            async with open_nursery() as nursery:
                box: list[SecureChannel] = []

                async def dial() -> None:
                    box.append(await reconnect())
                    nursery.cancel_scope.cancel()

                async def until_done() -> None:
                    await self._finished.wait()  # left, or our claim ended the match
                    nursery.cancel_scope.cancel()

                nursery.start_soon(dial)
                nursery.start_soon(until_done)
            if box:
                if self.done:
                    await box[0].aclose("the match is over")
                    return None
                return box[0]
            return None
        self._abandoned = True
        self._outcome_detail = (f"the opponent did not come back within "
                                f"{self.config.resume_window:g} s")
        self._finish()
        return None

    async def _connected(self, channel: SecureChannel, resume: bool) -> None:
        self.peer_fingerprint = self.peer_fingerprint or channel.peer_fingerprint
        send, receive = trio.open_memory_channel[bytes](math.inf)
        reason = "connection closed"
        failure: TransportError | None = None
        try:
            async with open_nursery() as nursery:
                nursery.start_soon(self._sender, channel, receive)
                if resume:
                    await channel.send(self._resume_message())
                else:
                    # the match is bound to this channel session and to the key it proved
                    for raw in self.peer.start(binding=channel.handshake.handshake_hash,
                                               peer_key=channel.handshake.peer_public_key):
                        send.send_nowait(raw)
                    self._hello_sent = True
                    self._queue = send
                self._set_status(LinkStatus(LinkState.CONNECTED, channel.peer))
                await self._receive_loop(channel, send, resume)
                # finished: let the sender drain what is queued, then say goodbye
                self._queue = None
                send.close()
        except TransportError as error:
            reason, failure = str(error), error
        finally:
            self._queue = None
            send.close()
            with trio.CancelScope(shield=True):
                await channel.aclose(self._close_reason(failure))
        if not self.done:
            self.log.append(f"Connection lost: {reason}")
            self._set_status(LinkStatus(LinkState.RECONNECTING, reason, trio.current_time()
                                        + self.config.resume_window))

    def _close_reason(self, failure: TransportError | None) -> str:
        """The CLOSE record's reason, for the peer's log: the match is over or left, or the
        code of the fault that stopped the match or made us drop the link."""
        if self.done:
            result = self.peer.result
            if result is not None and result.ending is Ending.FAULT:
                fault, core = self.peer.fault, self.peer.core
                code = (fault.code if fault is not None else core.evidence[0]
                        if core is not None and core.evidence is not None else "fault")
                return f"match stopped: {code}"
            return "left the match; it can be resumed" if self._left else "match over"
        code = getattr(failure, "code", "")
        if not code:
            return ""
        return f"{'match not set up' if self.peer.core is None else 'link dropped'}: {code}"

    async def _sender(self, channel: SecureChannel,
                      queue: trio.MemoryReceiveChannel[bytes]) -> None:
        async for raw in queue:
            batch = [raw]
            while True:  # what was queued meanwhile leaves in the same write
                try:
                    batch.append(queue.receive_nowait())
                except (trio.WouldBlock, trio.EndOfChannel):
                    break
            await channel.send_many(batch)

    async def _receive_loop(self, channel: SecureChannel, send: trio.MemorySendChannel[bytes],
                            resume: bool) -> None:
        duplicates = 0
        waiting_resume = resume
        async with open_nursery() as nursery:

            async def stop_when_done() -> None:
                await self._finished.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(stop_when_done)
            while not self.done:
                message = await channel.receive()
                if waiting_resume:
                    self._on_resume(message, send)
                    waiting_resume = False
                    continue
                if not isinstance(message, bytes):
                    raise SessionProtocolError(
                        f"{channel.peer} sent a {type(message).__name__} where an envelope "
                        "was due; connection closed", [])
                if self._is_duplicate(message):
                    duplicates += 1
                    if duplicates > MAX_DUPLICATES:
                        raise SessionProtocolError(
                            f"{channel.peer} resent more than {MAX_DUPLICATES} envelopes we "
                            "already hold; connection closed", [])
                    continue
                # the peer's fault is recorded by _call, and our EVIDENCE is queued
                try:
                    self._call(self.peer.receive, message, now_ms())
                except RemoteProtocolError as error:
                    if self.peer.core is None:  # a HELLO we refuse: no match, no EVIDENCE
                        raise SetupLostError(
                            f"{channel.peer} sent a HELLO this match cannot start from "
                            f"({error.code}: {error})"[:300], code=error.code) from None
                    if self.peer.fault is None:  # a broken link, not a cheat (no EVIDENCE)
                        raise SessionProtocolError(
                            f"{channel.peer} sent an envelope that does not extend the chain "
                            f"({error.code}); reconnecting to resynchronise", []) from None
            nursery.cancel_scope.cancel()

    def _is_duplicate(self, raw: bytes) -> bool:
        """An envelope we already hold (resent after a resume): dropped without a look, since
        feeding it to the peer would be a Replay. A set of the raw bytes, no parsing."""
        return raw in self._held

    # --- resume --------------------------------------------------------------------------------

    def _hashes(self) -> list[bytes]:
        core = self.peer.core
        return [] if core is None else [e.hash for e in core.chain.envelopes]

    def _resume_message(self) -> dict[str, Any]:
        hashes = self._hashes()
        return {"t": "resume", "match": self.peer.match_id, "seq": len(hashes),
                "tail": hashes[-MAX_TAIL:]}

    def _on_resume(self, message: object, send: trio.MemorySendChannel[bytes]) -> None:
        if (not isinstance(message, dict) or message.get("t") != "resume"
                or type(message.get("seq")) is not int or type(message.get("tail")) is not list
                or len(message["tail"]) > MAX_TAIL or message["seq"] < len(message["tail"])
                or any(type(h) is not bytes or len(h) != 32 for h in message["tail"])):
            raise SessionProtocolError(
                "the peer's first message after a resume handshake is not a valid RESUME "
                "message; connection closed", [])
        if message.get("match") != self.peer.match_id:
            theirs = message.get("match")
            raise ResumeError(
                f"the peer resumes match {theirs.hex()[:16] if isinstance(theirs, bytes) else '?'}"
                f", not ours ({(self.peer.match_id or b'').hex()[:16]}); connection closed")
        common = common_prefix(self._hashes(), message["seq"], message["tail"])
        for raw in self.peer.envelopes_after(common - 1):
            send.send_nowait(raw)
        self._queue = send  # from here on new envelopes go straight out
        self.log.append(f"Resumed at envelope {common} (the peer had {message['seq']})")

    # --- after every call into the peer --------------------------------------------------------

    def _call(self, method: Callable[..., list[Event]], *args: object) -> list[Event]:
        try:
            events = method(*args)
        except RemoteProtocolError as error:
            if self.peer.fault is None:  # MatchPeer dropped it: a link fault, resume resyncs
                self.log.append(f"Dropped an envelope ({error.code}): {error}"[:300])
            else:
                self.log.append(f"The opponent broke the protocol ({error.code}): {error}"[:300])
            self._after_peer_call([])
            raise
        except UnplayableRules as error:
            # Both seats took rules whose new game fails with the joint seed: the last setup
            # message is sound, so it is kept and sent like any other, and the match ends
            # ABORTED on both sides with the same transcript (SPEC §4.9 "Engine errors").
            self.log.append(f"The match cannot be played: {error}"[:300])
            self._outcome_detail = " ".join(str(error).split())[:300]
            self._after_peer_call([])
            return []
        self._after_peer_call(events)
        return events

    def _after_peer_call(self, events: list[Event]) -> None:
        out = self.peer.outgoing()
        self._persist(ours=bool(out))  # our envelopes reach the disk before the send queue
        if self._queue is not None:
            for raw in out:
                self._queue.send_nowait(raw)
        self._tell(events)
        if self.peer.result is not None:
            if self._result_at is None:
                self._result_at = trio.current_time()
                self._result_seen.set()
            self._cancel_end_scopes()
        if self.peer.phase in (Phase.CLOSED, Phase.ABORTED):
            self._finish()
        self._notify()

    def _persist(self, *, ours: bool = True) -> None:
        core = self.peer.core
        if core is None:
            return
        if self.peer.rolled_back != self._rolled_back:
            self._held = {e.raw for e in core.chain.envelopes}
        elif len(self._held) != len(core.chain):
            self._held.update(core.chain.raws_from(len(self._held)))
        if self._store is None and self.files is None:
            self._rolled_back = self.peer.rolled_back
            return
        if self.files is None:
            assert self._store is not None
            self.files = self._store.files(core.match_id)
            self.files.create(self._secret, SessionInfo(
                self.role, self.seat, self.peer_fingerprint, self.address, self.port,
                self._deck), self.peer.transcript_records())  # one flight: no append's fsync
        rewrite = self.peer.rolled_back != self._rolled_back
        branch = self.peer.dropped_branch
        if rewrite and branch is not None:  # before the transcript forgets the branch
            self.files.write_rollback(branch)
        self.files.sync(self.peer.transcript_records(), rewrite=rewrite, ours=ours)
        self._rolled_back = self.peer.rolled_back  # only once done: a failed rewrite is retried
        self._save_clock()

    def _tell(self, events: list[Event]) -> None:
        """Hand the events to the program's hook (narration lives in the cli, not here)."""
        hook = self.config.on_events
        if self.config.narrate and hook is not None and events:
            hook(self, events)
        del self.log[:-MAX_LOG_LINES]

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
        if self.peer.my_turn or self.peer.result is not None or self._finished.is_set():
            self._turn_changed.set()
            self._turn_changed = trio.Event()

    def _finish(self) -> None:
        if not self._finished.is_set():
            self._finished.set()
            self._cancel_end_scopes()
            self._notify()

    def _set_status(self, status: LinkStatus) -> None:
        self.status = status
        self._notify()

    # --- clocks and the end ---------------------------------------------------------------------

    async def _watch_clocks(self) -> None:
        if not self.peer.rules.has_clock:
            # no clock, no claim and no deadline (clock() and claim_deadline_ms are None):
            # waking on every change would only cost a task switch per envelope
            return
        grace = self.config.claim_grace_ms
        while not self.done:
            changed = self._changed
            clock = self.clock() if self.peer.result is None else None
            wake = math.inf
            # the opponent owes a message: a turn or choice (its clock) or an automatic one
            # (setup, DRAW, OPEN, RESULT, RESULT_COSIGN: a fixed grace, SPEC §4.11)
            deadline = self.peer.claim_deadline_ms
            if deadline is not None:
                if now_ms() >= deadline + grace:
                    self.log.append("The opponent's time ran out: claiming the win")
                    self._call(self.peer.claim_timeout, now_ms())
                    continue
                wake = (deadline + grace) / 1000 + 0.0005
            if clock is not None and clock[1] == self.seat:
                left, seat, mark = clock
                out_at = mark + left[seat]
                if now_ms() >= out_at:
                    if self._own_out_noted != mark:
                        self._own_out_noted = mark
                        self.log.append("Your clock ran out")
                        self._notify()
                        continue
                else:
                    wake = min(wake, out_at / 1000 + 0.0005)
            with trio.move_on_at(wake):
                await changed.wait()

    async def _linger_after_result(self) -> None:
        """After a resignation or a claim, the secret reveals are best effort: wait at most
        `linger` seconds for them, then end the session with the result."""
        # woken by the result itself, not by every change: one task switch less per envelope
        await self._result_seen.wait()
        assert self._result_at is not None
        if self.done:
            return
        with trio.move_on_at(self._result_at + self.config.linger):
            await self._finished.wait()
        if not self.done:
            self._outcome_detail = "the secret reveals did not arrive in time"
            self._finish()


def saved_catalogue(transcript: bytes) -> Any:
    """The card data a saved match was set up with: the shipped version its first HELLO's
    digest names (a match begun before an upgrade of the card pool resumes with its own pool),
    else the game's default one (the restore then fails, naming the mismatch)."""
    hello = open_hello(_first_hello(transcript))
    game = MatchRules.decode(hello.ruleset).game_impl
    return game.catalogue_for_digest(hello.catalogue_hash) or game.default_catalogue()


def _first_hello(transcript: bytes) -> Any:
    hellos = load_transcript(transcript).hellos
    if not hellos:
        raise LocalProtocolError("the transcript has no HELLO")
    return hellos[0]


def saved_rules(transcript: bytes) -> MatchRules:
    """The rules a saved transcript's match was set up with (its first HELLO's): the game to
    rebuild it with. LocalProtocolError or RemoteProtocolError when they cannot be read."""
    return MatchRules.decode(open_hello(_first_hello(transcript)).ruleset)


__all__ = [
    "EventHook", "LinkState", "LinkStatus", "MatchSession", "Reconnect", "ResumeError",
    "SessionConfig", "SessionError", "SessionOutcome", "SessionProtocolError",
    "SetupLostError", "common_prefix", "create_peer", "now_ms", "open_nursery",
    "saved_catalogue", "saved_rules",
]
