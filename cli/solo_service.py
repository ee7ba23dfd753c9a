# The reveal service over TCP (SPEC Part 11, §11.7.8–11.7.9): the organiser's trio server, its
# durable state file, and the player's blocking client. The decisions (ledger, wire messages) are
# sans-IO in protocol/solo/service.py; this module moves their bytes and keeps them on disk.
#
# Wire. Each message is one frame: a u32 big-endian length (p2p/framing.py, the project's frame
# layer) then one canonical msgpack body (protocol/wire/canonical.py): a request of at most
# MAX_REQUEST bytes, an answer or a refusal of at most MAX_ANSWER. The server reads a frame
# within FRAME_TIMEOUT of its first byte, waits FRAME_TIMEOUT for a connection's first request
# and closes a connection IDLE_TIMEOUT after its last NEW step (a person thinks between random
# steps; the client reconnects after): a repeated answer renews nothing, so asking the same
# step again and again holds no slot. It answers each request in order, and closes the
# connection after a frame it cannot read (oversize, empty, not canonical) with a refusal
# saying why: the stream position is lost or the client is broken. Every other refusal (wrong
# challenge, bad signature, out of order, second history...) is answered and the connection
# closed too: a connection holds its slot past its first request only while its requests are
# answered, so no one can hold slots with requests that cost nothing to make (a wrong digest
# needs no signature). Who holds the MAX_CONNECTIONS slots is the sans-IO `Slots` policy
# (protocol/solo/service.py): per address group (p2p/connect.py's `source_prefix`: an IPv4
# address, an IPv6 /64), per player key, and a fair share when full, the newcomer evicting a
# connection of a crowded group or one without progress; one that gets no slot is told "busy"
# and closed. The ledger step and its fsync run in a worker thread, one at a time, so a slow
# disk does not stall the other connections.
#
# Durability. The state file is an append-only log of frames: a header [format, challenge
# digest] then one ledger entry per answered step, written and fsynced BEFORE the answer is sent
# (write-ahead), so a restarted service refuses a second history for every step it ever
# answered. A crash mid-write leaves a partial last frame, never answered: it is cut off on
# load. An flock keeps a second service from serving the same file. The client retries a
# request once on a fresh connection (answers are idempotent: the same head gets the same
# answer) and checks every answer's attestation against the challenge's organiser key.
from __future__ import annotations

import contextlib
import fcntl
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from versus.p2p.connect import stream_source
from versus.p2p.errors import FrameTooLargeError, MalformedFrameError, TransportError
from versus.p2p.framing import LENGTH_PREFIX, FrameDecoder, encode_frame
from versus.protocol.crypto.identity import Identity, fingerprint
from versus.protocol.errors import LocalProtocolError
from versus.protocol.solo.challenge import Challenge
from versus.protocol.solo.service import (
    MAX_ANSWER,
    MAX_REQUEST,
    STATE_FORMAT,
    Entry,
    MalformedRequest,
    RequestTooLarge,
    RevealRefused,
    RevealRequest,
    RevealService,
    ServiceBusy,
    Slot,
    SlotLimits,
    Slots,
    StateError,
    Timeout,
    Unavailable,
    refusal_bytes,
)
from versus.protocol.wire.canonical import encode

DEFAULT_PORT = 47821
IDLE_TIMEOUT = 300.0
FRAME_TIMEOUT = 10.0
SEND_TIMEOUT = 10.0
MAX_CONNECTIONS = 64
PER_SOURCE = 4  # connections at once from one address group (a player needs one)
PER_KEY = 2  # connections at once of one player key (a retry may overlap its lost one)
REPEATS = 2  # repeated answers per step on one connection (a client retries once)
GRACE = 10.0  # seconds without progress after which a connection yields its slot when full
CLIENT_TIMEOUT = 30.0
MAX_STATE_FRAME = 256

Log = Callable[[str], None]


class ServiceUnreachable(TransportError):
    """The player cannot reach the reveal service, or it went silent (one line)."""


@dataclass(frozen=True)
class Limits:
    idle: float = IDLE_TIMEOUT
    frame: float = FRAME_TIMEOUT
    send: float = SEND_TIMEOUT
    connections: int = MAX_CONNECTIONS
    per_source: int = PER_SOURCE
    per_key: int = PER_KEY
    repeats: int = REPEATS
    grace: float = GRACE

    def __post_init__(self) -> None:
        if min(self.idle, self.frame, self.send) <= 0:
            raise ValueError(f"service limits must be positive: {self}")
        self.slots()  # the connection limits are checked there

    def slots(self) -> SlotLimits:
        try:
            return SlotLimits(self.connections, self.per_source, self.per_key, self.repeats,
                              self.grace)
        except LocalProtocolError as e:
            raise ValueError(str(e)) from None


# --- the state file -----------------------------------------------------------------------------


class StateFile:
    """The ledger's durable log (see the top of the module). Open it with `open_state`."""

    def __init__(self, path: Path, fd: int, size: int) -> None:
        self.path, self._fd, self._size = path, fd, size
        self.broken = False

    def append(self, entry: Entry) -> None:
        """Write one entry and fsync it; OSError when the disk fails (the entry is then cut
        off again, or the file is marked broken and every new step is refused)."""
        if self.broken:
            raise OSError(f"the state file {self.path} is unusable after a write error")
        frame = encode_frame(entry.to_bytes(), MAX_STATE_FRAME)
        try:
            if os.write(self._fd, frame) != len(frame):
                raise OSError(f"short write to the state file {self.path}")
            os.fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, self._size)
            except OSError:
                self.broken = True
            raise
        self._size += len(frame)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


def _frames(data: bytes, path: Path) -> tuple[list[bytes], int]:
    """The whole frames of a state file and where they end (a partial last frame: cut)."""
    out, at = [], 0
    while at + LENGTH_PREFIX.size <= len(data):
        (n,) = LENGTH_PREFIX.unpack_from(data, at)
        if not 1 <= n <= MAX_STATE_FRAME:
            raise StateError(f"state file {path} is corrupt at byte {at} (frame of {n} bytes)")
        if at + LENGTH_PREFIX.size + n > len(data):
            break
        out.append(data[at + LENGTH_PREFIX.size: at + LENGTH_PREFIX.size + n])
        at += LENGTH_PREFIX.size + n
    return out, at


def _fsync_dir(path: Path) -> None:
    fd = os.open(path.parent if str(path.parent) else ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def open_state(path: Path, challenge: Challenge) -> tuple[StateFile, list[Entry]]:
    """Open (or create) the state file of `challenge`, locked; the entries it holds."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StateError(f"state file {path} is in use by another reveal service") from None
        data = b""
        while chunk := os.read(fd, 1 << 20):
            data += chunk
        header = encode_frame(encode([STATE_FORMAT, challenge.digest]), MAX_STATE_FRAME)
        if not data:
            os.write(fd, header)
            os.fsync(fd)
            _fsync_dir(path)  # the new file's name is durable too
            return StateFile(path, fd, len(header)), []
        frames, end = _frames(data, path)
        if not frames or frames[0] != header[LENGTH_PREFIX.size:]:
            raise StateError(f"state file {path} is not this challenge's ({challenge.id!r}) "
                             "reveal state")
        if end != len(data):  # a crash mid-append: that entry was never answered
            os.ftruncate(fd, end)
        try:
            entries = [Entry.from_bytes(f) for f in frames[1:]]
        except StateError as e:
            raise StateError(f"state file {path} is corrupt: {e}") from None
        return StateFile(path, fd, end), entries
    except BaseException:
        os.close(fd)
        raise


# --- the server ----------------------------------------------------------------------------------


class _Closed(Exception):
    """The client closed the connection between requests (the normal end)."""


async def _read_frame(stream: trio.abc.Stream, decoder: FrameDecoder, limits: Limits,
                      until: float) -> bytes:
    """The next request frame body: its first byte by `until` (the connection's deadline:
    its first request within `frame` of the connection, a later one within `idle` of its
    last new step), else _Closed, as at a clean end; all of it within `frame` of its first
    byte (Timeout: no dripping); a bad frame as a RevealRefused (or the framing layer's
    error)."""
    deadline: float | None = None
    while (frame := decoder.next_frame()) is None:
        if decoder.in_frame and deadline is None:
            deadline = trio.current_time() + limits.frame
        data = b""
        with trio.move_on_at(deadline if deadline is not None else until) as scope:
            data = await stream.receive_some(4096)
        if scope.cancelled_caught:
            if decoder.in_frame:
                raise Timeout(f"a request frame did not arrive within {limits.frame:g} s")
            raise _Closed  # idle: closed; the client reconnects when it needs to
        if not data:
            if decoder.in_frame:
                raise MalformedRequest("the connection closed inside a frame")
            raise _Closed
        decoder.feed(data)
    return frame


async def _send(stream: trio.abc.Stream, body: bytes, limits: Limits) -> None:
    """Send one answer frame; trio.TooSlowError when the client does not read it in time."""
    with trio.fail_after(limits.send):
        await stream.send_all(encode_frame(body, MAX_ANSWER))


class Server:
    """One challenge's reveal service: the ledger (loaded from the state file) and the TCP
    handler. `serve` runs it until cancelled."""

    def __init__(self, service: RevealService, state: StateFile, entries: list[Entry],
                 log: Log, limits: Limits | None = None) -> None:
        service.ledger.load(entries)
        self.service, self.state, self.log = service, state, log
        self.limits = limits or Limits()
        self.slots = Slots(self.limits.slots())
        self._scopes: dict[Slot, trio.CancelScope] = {}
        self._ledger_lock = trio.Lock()  # one ledger step (and its fsync) at a time
        self.answered = 0
        self.evicted = 0

    async def handle(self, stream: trio.SocketStream) -> None:
        try:
            source, port = stream.socket.getpeername()[:2]
            peer = f"{source}:{port}"
        except OSError:
            peer = "a client"
        try:
            try:
                slot, victim = self.slots.admit(stream_source(stream), trio.current_time())
            except ServiceBusy as busy:
                await _send(stream, refusal_bytes(busy), self.limits)
                return
            self._evict(victim)
            try:
                with trio.CancelScope() as scope:
                    self._scopes[slot] = scope
                    await self._serve_connection(stream, peer, slot)
                if scope.cancelled_caught:
                    self.log(f"{peer}: evicted to make room for another connection; closed")
            finally:
                self.slots.release(slot)
                self._scopes.pop(slot, None)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            self.log(f"{peer}: connection lost: {e or type(e).__name__}")
        except trio.TooSlowError:
            self.log(f"{peer}: did not read its answer within {self.limits.send:g} s; closed")
        finally:
            with trio.move_on_after(1):
                await stream.aclose()

    def _evict(self, victim: Slot | None) -> None:
        """Close the connection the slot policy gave up (silently: its client reconnects)."""
        if victim is not None:
            self.evicted += 1
            scope = self._scopes.get(victim)
            if scope is not None:
                scope.cancel()

    async def _serve_connection(self, stream: trio.SocketStream, peer: str,
                                slot: Slot) -> None:
        decoder = FrameDecoder(MAX_REQUEST, peer=f"client {peer}")
        first = True
        while True:
            until = slot.opened + self.limits.frame if first else \
                slot.progress + self.limits.idle
            try:
                frame = await _read_frame(stream, decoder, self.limits, until)
                first = False
            except _Closed:
                return
            except FrameTooLargeError as e:
                return await self._refuse_and_close(stream, peer, RequestTooLarge(str(e)))
            except MalformedFrameError as e:
                return await self._refuse_and_close(stream, peer, MalformedRequest(str(e)))
            except (MalformedRequest, Timeout) as e:
                return await self._refuse_and_close(stream, peer, e)
            try:
                answer = await self._answer(frame, slot)
            except RevealRefused as refused:  # answered, then closed (module comment)
                return await self._refuse_and_close(stream, peer, refused)
            self.answered += 1
            await _send(stream, answer, self.limits)

    async def _answer(self, frame: bytes, slot: Slot) -> bytes:
        """The answer to one request frame on `slot`; RevealRefused (Unavailable when our
        disk fails)."""
        request = self.service.request(frame)
        self.slots.bind(slot, request.player)
        try:
            async with self._ledger_lock:
                answer, step = await trio.to_thread.run_sync(
                    self.service.respond, request, self.state.append)
        except OSError as e:
            self.log(f"cannot record a step in {self.state.path}: {e}")
            raise Unavailable("the service cannot record the step now; retry later") from None
        self._evict(self.slots.answered(slot, request.stream, request.k, step,
                                        trio.current_time()))
        return answer

    async def _refuse_and_close(self, stream: trio.SocketStream, peer: str,
                                error: RevealRefused) -> None:
        """Answer a refusal, then close: drain what the client still sends for a moment, so
        the close does not reset the connection before the refusal is read."""
        self.log(f"{peer}: {error.code}: {error}; connection closed")
        await _send(stream, refusal_bytes(error), self.limits)
        with trio.move_on_after(0.5):
            await stream.send_eof()
            for _ in range(16):
                if not await stream.receive_some(65536):
                    break

    async def serve(self, host: str, port: int,
                    task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Serve until cancelled; `task_status.started(listeners)`."""
        await trio.serve_tcp(self.handle, port, host=host, task_status=task_status)


def bound_address(listeners: list[Any]) -> tuple[str, int]:
    host, port = listeners[0].socket.getsockname()[:2]
    return host, port


# --- the client ----------------------------------------------------------------------------------


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` or `[V6]:PORT`; ValueError with a one-line reason."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"service address {text!r:.80} is not HOST:PORT (port 1..65535)")
    return host, int(port)


class ServiceClient:
    """The player's side: `reveal` (a run.Reveal) asks the service over one TCP connection,
    reconnecting once when it was closed, and checks each answer's attestation."""

    def __init__(self, address: tuple[str, int], challenge: Challenge, player: Identity,
                 timeout: float = CLIENT_TIMEOUT) -> None:
        self.address, self.challenge, self.player = address, challenge, player
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self.where = f"{address[0]}:{address[1]}"

    def reveal(self, player: bytes, stream: str, k: int, head: bytes) -> tuple[bytes, bytes]:
        from versus.protocol.solo.service import parse_answer

        if player != self.player.public_key:
            raise LocalProtocolError(f"this client asks for {fingerprint(self.player.public_key)}, "
                             f"not {fingerprint(player)}")
        request = RevealRequest.signed(self.player, self.challenge.digest, stream, k, head)
        frame = encode_frame(request.to_bytes(), MAX_REQUEST)
        for attempt in (0, 1):
            try:
                body = self._exchange(frame)
            except (OSError, EOFError) as e:
                self.close()
                if attempt:
                    raise ServiceUnreachable(f"the reveal service at {self.where} did not "
                                             f"answer {stream} step {k}: "
                                             f"{e or type(e).__name__}") from None
                continue
            answer = parse_answer(body, request, self.challenge.organiser)
            return answer.value, answer.attestation
        raise AssertionError("unreachable")

    def _exchange(self, frame: bytes) -> bytes:
        if self._sock is None:
            self._sock = socket.create_connection(self.address, timeout=self.timeout)
        self._sock.sendall(frame)
        decoder = FrameDecoder(MAX_ANSWER, peer=f"the reveal service at {self.where}")
        while (body := decoder.next_frame()) is None:
            data = self._sock.recv(4096)
            if not data:
                raise EOFError("connection closed")
            decoder.feed(data)
        return body

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
