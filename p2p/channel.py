# SecureChannel: the encrypted, authenticated message pipe the session layer talks through.
#
# After the handshake every frame body is a sealed record (SPEC §6.3):
#
#     counter u64 BE ‖ ChaCha20-Poly1305(key, nonce = 0x00000000 ‖ counter u64 BE, kind ‖ payload)
#
# Each direction has its own key and its own counter starting at 0. The counter travels in the
# clear so that a replayed, dropped or reordered frame is named as such (ReplayedFrameError)
# before any decryption is tried; the nonce is the counter, so it can't be lied about either.
#
# Liveness lives here so the session never has to think about it, on one condition: some task
# is inside `receive()` (the session's receive loop always is). While waiting, `receive()`
#   * sends a PING when nothing has been heard for `keepalive_interval`, answers PINGs with
#     PONGs (at most one per `min_pong_interval`, so a ping flood can't make us flood back);
#   * raises IdleTimeoutError when no authenticated record at all arrived for `idle_timeout`;
#   * raises SlowFrameError when a frame's first byte arrived more than `frame_timeout` ago and
#     the frame is still incomplete (a slow drip of bytes cannot hold the session hostage).
# The idle and frame clocks run only while a task is inside `receive()`: records that arrived while
# nobody listened are sitting unread in our socket, so that time is not the peer's silence.
# Buffering is bounded: we read at most `receive_chunk` bytes at a time and only when no whole
# frame is buffered, and a frame longer than `max_frame` is refused from its length prefix.
# Sends carry a deadline too (`send_timeout`): a peer that stops reading makes our send fail
# rather than hang forever. A send that is cancelled or fails midway leaves an unknown part of a
# frame on the wire and has used up its counter, so it closes the channel (as trio's SSLStream
# does); reusing it would only make the peer see garbage or a "replayed" record.
from __future__ import annotations

import contextlib
import enum
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import trio
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from versus.p2p.errors import (
    ChannelClosedError,
    ConnectionLostError,
    DecryptionError,
    IdleTimeoutError,
    MalformedFrameError,
    PayloadTooLargeError,
    PeerClosedError,
    ReplayedFrameError,
    SendTimeoutError,
    SlowFrameError,
    TransportError,
)
from versus.p2p.framing import MAX_FRAME, FrameDecoder, encode_frame, pack_payload, unpack_payload
from versus.p2p.handshake import TAG_SIZE, HandshakeResult, aead_nonce
from versus.protocol.wire.text import printable

COUNTER = struct.Struct(">Q")
RECORD_OVERHEAD = COUNTER.size + TAG_SIZE + 1  # counter, Poly1305 tag, kind byte
MAX_CLOSE_REASON = 200


class RecordKind(enum.IntEnum):
    DATA = 0x00  # payload: one msgpack object
    PING = 0x01  # payload: 8 opaque bytes
    PONG = 0x02  # payload: the 8 bytes of the PING it answers
    CLOSE = 0x03  # payload: UTF-8 reason, at most 200 bytes


@dataclass(frozen=True)
class ChannelConfig:
    """Limits and timers of a channel, in bytes and seconds."""

    max_frame: int = MAX_FRAME
    keepalive_interval: float = 10.0
    idle_timeout: float = 30.0
    frame_timeout: float = 10.0
    send_timeout: float = 30.0
    min_pong_interval: float = 1.0
    close_timeout: float = 1.0
    receive_chunk: int = 65_536

    def __post_init__(self) -> None:
        if self.max_frame <= RECORD_OVERHEAD:
            raise ValueError(f"max_frame must exceed {RECORD_OVERHEAD}, got {self.max_frame}")
        if not 0 < self.keepalive_interval < self.idle_timeout:
            raise ValueError(
                f"keepalive_interval ({self.keepalive_interval}) must be positive and below "
                f"idle_timeout ({self.idle_timeout}), or a quiet peer would time out"
            )
        for name in ("frame_timeout", "send_timeout", "min_pong_interval", "close_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive")
        if self.receive_chunk <= 0:
            raise ValueError("receive_chunk must be positive")

    @property
    def max_payload(self) -> int:
        return self.max_frame - RECORD_OVERHEAD


class SecureChannel:
    """Send and receive msgpack objects over an authenticated, encrypted stream.

    One task may `send` while another `receive`s; two concurrent receivers are a bug.
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        handshake: HandshakeResult,
        *,
        config: ChannelConfig | None = None,
        decoder: FrameDecoder | None = None,
        peer: str = "the peer",
    ) -> None:
        self.config = config or ChannelConfig()
        self.handshake = handshake
        self.peer = peer
        self._stream = stream
        self._sealer = ChaCha20Poly1305(handshake.send_key)
        self._opener = ChaCha20Poly1305(handshake.receive_key)
        self._send_counter = 0
        self._receive_counter = 0
        self._decoder = decoder or FrameDecoder(self.config.max_frame, peer)
        self._decoder.max_frame = self.config.max_frame
        self._decoder.peer = peer
        self._send_lock = trio.Lock()
        self._receiving = False
        self._closed = False
        now = trio.current_time()
        self._last_heard = now
        self._last_ping = -float("inf")
        self._last_pong = -float("inf")
        self._ping_sent_at: dict[bytes, float] = {}
        self._frame_started = now
        self._last_read = now
        self._paused_at: float | None = now  # when the last receive() returned (clocks stopped)
        #: round-trip time of the last answered keepalive, in seconds (None until one returns)
        self.rtt: float | None = None

    # --- public API ----------------------------------------------------------------------------

    @property
    def peer_fingerprint(self) -> str:
        return self.handshake.peer_fingerprint

    @property
    def closed(self) -> bool:
        return self._closed

    async def send(self, obj: Any) -> None:
        """Send one msgpack-encodable object."""
        await self._send_records(RecordKind.DATA, [self._payload(obj)])

    async def send_many(self, objs: Sequence[Any]) -> None:
        """Send objects in order, a record each, in one write: the bytes on the wire are those
        of as many `send`s, for one pass of the send lock and one socket write."""
        await self._send_records(RecordKind.DATA, [self._payload(obj) for obj in objs])

    def _payload(self, obj: Any) -> bytes:
        payload = pack_payload(obj)
        if len(payload) > self.config.max_payload:
            raise PayloadTooLargeError(
                f"payload of {len(payload)} bytes exceeds the {self.config.max_payload}-byte "
                f"limit of a frame to {self.peer}"
            )
        return payload

    async def receive(self) -> Any:
        """The next object from the peer. Handles keepalives and enforces every timeout."""
        if self._receiving:
            raise RuntimeError("another task is already receiving on this channel")
        self._receiving = True
        self._resume_clocks()
        try:
            return await self._receive_data()
        except TransportError as error:
            if not isinstance(error, ChannelClosedError):
                # shielded: the task sending meanwhile fails on the closed stream and cancels
                # this one; unshielded, that Cancelled would replace the error that says why
                # (a replayed record would read "already closed")
                with trio.CancelScope(shield=True):
                    await self._abort()
            raise
        finally:
            self._receiving = False
            self._paused_at = trio.current_time()

    async def aclose(self, reason: str = "") -> None:
        """Say goodbye (best effort, bounded by close_timeout) and close the stream."""
        if self._closed:
            return
        try:
            with trio.move_on_after(self.config.close_timeout):
                with contextlib.suppress(TransportError):
                    await self._send_record(
                        RecordKind.CLOSE, reason.encode()[:MAX_CLOSE_REASON], timeout=None
                    )
        finally:  # even when cancelled: the socket must not outlive the channel
            await self._abort()

    async def __aenter__(self) -> SecureChannel:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # --- sending ------------------------------------------------------------------------------

    def _seal(self, kind: RecordKind, payload: bytes) -> bytes:
        counter = self._send_counter
        self._send_counter += 1
        ciphertext = self._sealer.encrypt(aead_nonce(counter), bytes([kind]) + payload, None)
        return encode_frame(COUNTER.pack(counter) + ciphertext, self.config.max_frame)

    async def _send_record(
        self, kind: RecordKind, payload: bytes, *, timeout: float | None = -1.0
    ) -> None:
        await self._send_records(kind, [payload], timeout=timeout)

    async def _send_records(
        self, kind: RecordKind, payloads: Sequence[bytes], *, timeout: float | None = -1.0
    ) -> None:
        if self._closed:
            raise ChannelClosedError(f"the channel to {self.peer} is already closed")
        limit = self.config.send_timeout if timeout == -1.0 else timeout
        async with self._send_lock:
            frame = b"".join([self._seal(kind, payload) for payload in payloads])
            try:
                # a bare cancel scope, not trio.fail_after: that one is a generator-based
                # context manager, and this runs once per record sent
                with trio.CancelScope(relative_deadline=math.inf if limit is None else limit
                                      ) as scope:
                    await self._stream.send_all(frame)
            except (trio.BrokenResourceError, OSError) as error:
                await self._abort()
                raise ConnectionLostError(
                    f"the connection to {self.peer} broke while sending ({error or 'reset'}); "
                    "reconnect to continue"
                ) from None
            except trio.ClosedResourceError:
                raise ChannelClosedError(f"the channel to {self.peer} is already closed") from None
            except BaseException:  # cancelled midway: the stream position is lost
                await self._abort()
                raise
            if scope.cancelled_caught:
                await self._abort()
                raise SendTimeoutError(
                    f"{self.peer} stopped reading: a message could not be sent within "
                    f"{limit:g} s; connection closed — check the peer's network"
                )

    # --- receiving ----------------------------------------------------------------------------

    async def _receive_data(self) -> Any:
        while True:
            kind, payload = await self._receive_record()
            if kind is RecordKind.DATA:
                return unpack_payload(payload, self.peer)
            if kind is RecordKind.PING:
                await self._answer_ping(payload)
            elif kind is RecordKind.PONG:
                self._on_pong(payload)
            else:
                # the peer's words: escaped and cut before anyone logs or prints them
                reason = printable(payload[:MAX_CLOSE_REASON].decode("utf-8", "replace"),
                                   MAX_CLOSE_REASON)
                raise PeerClosedError(
                    f"{self.peer} closed the connection"
                    + (f": {reason}" if reason else " without giving a reason"),
                    reason,
                )

    async def _receive_record(self) -> tuple[RecordKind, bytes]:
        body = await self._receive_frame()
        if len(body) < RECORD_OVERHEAD:
            raise MalformedFrameError(
                f"{self.peer} sent a record of {len(body)} bytes, shorter than the "
                f"{RECORD_OVERHEAD}-byte minimum; connection closed",
                [body],
            )
        (counter,) = COUNTER.unpack_from(body)
        if counter != self._receive_counter:
            raise ReplayedFrameError(
                f"{self.peer} sent record number {counter} where {self._receive_counter} was "
                "due (replayed, reordered or dropped); connection closed — someone may be "
                "tampering with the connection",
                [body],
            )
        try:
            plaintext = self._opener.decrypt(
                aead_nonce(counter), body[COUNTER.size :], None
            )
        except InvalidTag:
            raise DecryptionError(
                f"record {counter} from {self.peer} failed authentication (tampered or "
                "corrupted in transit); connection closed",
                [body],
            ) from None
        self._receive_counter += 1
        self._last_heard = trio.current_time()
        try:
            kind = RecordKind(plaintext[0])
        except ValueError:
            raise MalformedFrameError(
                f"{self.peer} sent a record of unknown kind 0x{plaintext[0]:02x}; "
                "connection closed",
                [body],
            ) from None
        return kind, plaintext[1:]

    async def _receive_frame(self) -> bytes:
        while True:
            if self._closed:
                raise ChannelClosedError(f"the channel to {self.peer} is already closed")
            frame = self._decoder.next_frame()
            if frame is not None:
                if self._decoder.in_frame:
                    self._frame_started = self._last_read
                return frame
            data = None
            with trio.move_on_at(self._next_wakeup()):
                data = await self._read()
            if data is None:
                await self._on_timer()
                continue
            if not data:
                raise ConnectionLostError(
                    f"{self.peer} closed the connection"
                    + (" in the middle of a frame" if self._decoder.in_frame else "")
                    + " without saying goodbye; it may have crashed or lost its network"
                )
            self._last_read = trio.current_time()
            if not self._decoder.in_frame:
                self._frame_started = self._last_read
            self._decoder.feed(data)

    async def _read(self) -> bytes:
        try:
            return await self._stream.receive_some(self.config.receive_chunk)
        except (trio.BrokenResourceError, OSError) as error:
            raise ConnectionLostError(
                f"the connection to {self.peer} broke ({error or 'reset'}); reconnect to continue"
            ) from None
        except trio.ClosedResourceError:
            raise ChannelClosedError(f"the channel to {self.peer} is already closed") from None

    def _resume_clocks(self) -> None:
        if self._paused_at is None:
            return
        paused = trio.current_time() - self._paused_at
        self._paused_at = None
        self._last_heard += paused
        self._frame_started += paused

    def _next_wakeup(self) -> float:
        config = self.config
        wakeup = min(
            self._last_heard + config.idle_timeout,
            max(self._last_heard, self._last_ping) + config.keepalive_interval,
        )
        if self._decoder.in_frame:
            wakeup = min(wakeup, self._frame_started + config.frame_timeout)
        return wakeup

    async def _on_timer(self) -> None:
        now = trio.current_time()
        config = self.config
        if self._decoder.in_frame and now >= self._frame_started + config.frame_timeout:
            raise SlowFrameError(
                f"{self.peer} started a frame but sent only {self._decoder.buffered} bytes of "
                f"it in {config.frame_timeout:g} s; connection closed — the network is too "
                "slow or the peer is stalling"
            )
        if now >= self._last_heard + config.idle_timeout:
            raise IdleTimeoutError(
                f"nothing heard from {self.peer} for {config.idle_timeout:g} s; connection "
                "closed — the peer or the network is down"
            )
        if now >= max(self._last_heard, self._last_ping) + config.keepalive_interval:
            self._last_ping = now
            token = COUNTER.pack(self._send_counter)
            self._ping_sent_at = {token: now}  # only the latest ping's answer is timed
            await self._send_record(RecordKind.PING, token)

    async def _answer_ping(self, payload: bytes) -> None:
        now = trio.current_time()
        if now - self._last_pong < self.config.min_pong_interval:
            return  # any record already proves we are alive; don't amplify a ping flood
        self._last_pong = now
        await self._send_record(RecordKind.PONG, payload[:8])

    def _on_pong(self, payload: bytes) -> None:
        sent_at = self._ping_sent_at.pop(payload, None)
        if sent_at is not None:
            self.rtt = trio.current_time() - sent_at

    async def _abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        await trio.aclose_forcefully(self._stream)
