# The reveal service over TCP (SPEC Part M, S8-S9): the organiser's trio server, its durable
# state file, and the player's blocking client. The decisions (ledger, wire messages) are
# sans-IO in protocol/solo/service.py; this module moves their bytes and keeps them on disk.
#
# Wire. Each message is one frame: a u32 big-endian length (p2p/framing.py, the project's frame
# layer) then one canonical msgpack body (protocol/wire/canonical.py): a request of at most
# MAX_REQUEST bytes, an answer or a refusal of at most MAX_ANSWER. The server reads a frame
# within FRAME_TIMEOUT of its first byte, waits FRAME_TIMEOUT for a connection's first request
# and at most IDLE_TIMEOUT for the next ones (a person thinks between random steps; the client
# reconnects after), answers each request in order, and closes the connection after a frame
# it cannot read (oversize, empty, not canonical) with a refusal saying why: the stream
# position is lost or the client is broken. Every other refusal (wrong challenge, bad
# signature, out of order, second history...) is answered and the connection closed too: a
# connection holds its slot past its first request only while its requests are answered, so
# no one can hold slots with requests that cost nothing to make (a wrong digest needs no
# signature). At most MAX_CONNECTIONS at once, PER_SOURCE of them from one address; one more is
# told "busy" and closed. The ledger step and its fsync run in a worker thread, one at a
# time, so a slow disk does not stall the other connections.
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
PER_SOURCE = 4  # connections at once from one address (a player needs one)
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

    def __post_init__(self) -> None:
        if min(self.idle, self.frame, self.send) <= 0 or min(self.connections,
                                                              self.per_source) < 1:
            raise ValueError(f"service limits must be positive: {self}")


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
                      first: bool) -> bytes:
    """The next request frame body: its first byte within `idle` (`frame` for the first
    request of a connection: a client connects when it needs a value, so idle connections
    cannot hold the slots), else _Closed, as at a clean end; all of it within `frame` of its
    first byte (Timeout: no dripping); a bad frame as a RevealRefused (or the framing
    layer's error)."""
    deadline: float | None = None
    while (frame := decoder.next_frame()) is None:
        if decoder.in_frame and deadline is None:
            deadline = trio.current_time() + limits.frame
        wait = limits.frame if first else limits.idle
        until = deadline if deadline is not None else trio.current_time() + wait
        data = b""
        with trio.move_on_at(until) as scope:
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
        self._slots = trio.Semaphore(self.limits.connections)
        self._per_source: dict[str, int] = {}
        self._ledger_lock = trio.Lock()  # one ledger step (and its fsync) at a time
        self.answered = 0

    async def handle(self, stream: trio.SocketStream) -> None:
        try:
            source, port = stream.socket.getpeername()[:2]
            peer = f"{source}:{port}"
        except OSError:
            source = peer = "a client"
        try:
            if self._slots.value == 0 or self._per_source.get(source, 0) >= \
                    self.limits.per_source:
                await _send(stream, refusal_bytes(ServiceBusy(
                    f"the service serves {self.limits.connections} connections at once, "
                    f"{self.limits.per_source} per address; retry later")), self.limits)
                return
            self._per_source[source] = self._per_source.get(source, 0) + 1
            try:
                async with self._slots:
                    await self._serve_connection(stream, peer)
            finally:
                self._per_source[source] -= 1
                if not self._per_source[source]:
                    del self._per_source[source]
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
            self.log(f"{peer}: connection lost: {e or type(e).__name__}")
        except trio.TooSlowError:
            self.log(f"{peer}: did not read its answer within {self.limits.send:g} s; closed")
        finally:
            with trio.move_on_after(1):
                await stream.aclose()

    async def _serve_connection(self, stream: trio.SocketStream, peer: str) -> None:
        decoder = FrameDecoder(MAX_REQUEST, peer=f"client {peer}")
        first = True
        while True:
            try:
                frame = await _read_frame(stream, decoder, self.limits, first)
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
                async with self._ledger_lock:
                    answer, refused = await trio.to_thread.run_sync(
                        self.service.answer, frame, self.state.append)
            except OSError as e:
                self.log(f"cannot record a step in {self.state.path}: {e}")
                return await self._refuse_and_close(stream, peer, Unavailable(
                    "the service cannot record the step now; retry later"))
            if refused is not None:  # answered, then closed (module comment)
                return await self._refuse_and_close(stream, peer, refused)
            self.answered += 1
            await _send(stream, answer, self.limits)

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
