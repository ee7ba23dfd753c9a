# Framing: how bytes on a TCP stream become whole messages, sans-IO.
#
# Layering (SPEC Part 6, §6.1):
#
#     TCP byte stream
#       └─ frame       = length (u32 big-endian, ≥ 1) ‖ body
#            └─ body   = a handshake message (fixed binary layout, p2p/handshake.py) until the
#                        handshake completes, then a sealed record (p2p/channel.py):
#                        counter (u64 BE) ‖ ChaCha20-Poly1305 ciphertext of (kind u8 ‖ payload)
#                            └─ payload of a DATA record = one msgpack object
#
# The decoder is fed whatever bytes arrived and hands back complete frame bodies. It reads the
# 4-byte length first and refuses an oversize frame *before* buffering its body, so a hostile
# peer can make us hold at most `max_frame` + 4 bytes plus one network read. The limit changes
# after the handshake (small while the peer is unauthenticated, larger afterwards).
#
# msgpack payloads come from an untrusted peer, so they are unpacked with every length limit the
# unpacker offers, no ext types, str/bytes map keys only, and a single object per payload.
from __future__ import annotations

import struct
from typing import Any

import msgpack

from versus.p2p.errors import FrameTooLargeError, MalformedFrameError
from versus.protocol.wire.canonical import too_deep

LENGTH_PREFIX = struct.Struct(">I")
#: Largest frame body accepted once the channel is authenticated (1 MiB: room for a mental-poker
#: shuffle proof, small enough to buffer safely).
MAX_FRAME = 1 << 20
#: Largest frame body accepted during the handshake, while the peer is still anonymous.
MAX_HANDSHAKE_FRAME = 512

#: msgpack limits: containers stay far below what the frame size alone would allow, so a small
#: frame cannot expand into millions of Python objects.
MAX_ARRAY_LEN = 65_536
MAX_MAP_LEN = 4_096
#: Channel payloads are shallow (an envelope travels as one bin, control messages are flat
#: maps). The unpacker's own limit is its 1,024-level stack, and it pre-allocates every array
#: it opens: nested headers alone (`dc ff ff` x 1000, 3 KB) made it hold ~80 MB. So depth is
#: checked before unpacking (protocol.canonical.too_deep), and no container may claim more
#: items than the payload has bytes.
MAX_DEPTH = 8


def encode_frame(body: bytes, max_frame: int = MAX_FRAME) -> bytes:
    """Prefix `body` with its length. Refuses (ValueError) a body the peer would reject."""
    if not 1 <= len(body) <= max_frame:
        raise ValueError(f"frame body of {len(body)} bytes is outside 1..{max_frame}")
    return LENGTH_PREFIX.pack(len(body)) + body


class FrameDecoder:
    """Feed bytes with `feed`, take complete frame bodies with `next_frame` (until None).

    After an error the decoder stays broken: the stream position is lost, so the connection must
    be closed.
    """

    def __init__(self, max_frame: int = MAX_FRAME, peer: str = "the peer") -> None:
        self.max_frame = max_frame
        self.peer = peer
        self._buffer = bytearray()
        self._expected: int | None = None  # body length of the frame being read, once known
        self._broken: Exception | None = None

    @property
    def in_frame(self) -> bool:
        """True when part of a frame has arrived but not all of it (drives the drip deadline)."""
        return bool(self._buffer) or self._expected is not None

    @property
    def buffered(self) -> int:
        return len(self._buffer)

    def feed(self, data: bytes) -> None:
        """Append received bytes. Call `next_frame` until it returns None before feeding more,
        so the buffer never holds more than one frame plus one network read."""
        if self._broken is not None:
            raise self._broken
        self._buffer += data

    def next_frame(self) -> bytes | None:
        """The next complete frame body, or None when it has not fully arrived yet.

        Frames are split here, lazily, so the limit in force is the one set when the frame is
        taken: the handshake can raise `max_frame` before the first channel frame is parsed.
        """
        if self._broken is not None:
            raise self._broken
        if self._expected is None:
            if len(self._buffer) < LENGTH_PREFIX.size:
                return None
            (length,) = LENGTH_PREFIX.unpack_from(self._buffer)
            try:
                self._check_length(length)
            except (FrameTooLargeError, MalformedFrameError) as error:
                self._broken = error
                self._buffer.clear()
                raise
            del self._buffer[: LENGTH_PREFIX.size]
            self._expected = length
        if len(self._buffer) < self._expected:
            return None
        frame = bytes(self._buffer[: self._expected])
        del self._buffer[: self._expected]
        self._expected = None
        return frame

    def _check_length(self, length: int) -> None:
        prefix = bytes(self._buffer[: LENGTH_PREFIX.size])
        if length == 0:
            raise MalformedFrameError(
                f"{self.peer} sent an empty frame (length 0), which the protocol never uses; "
                "connection closed",
                [prefix],
            )
        if length > self.max_frame:
            raise FrameTooLargeError(
                f"{self.peer} announced a frame of {length} bytes (limit {self.max_frame}); "
                "connection closed — the peer runs an incompatible or hostile client",
                [prefix],
            )


def pack_payload(obj: Any) -> bytes:
    """msgpack-encode one payload (bin for bytes, str for text, no ext types)."""
    try:
        return msgpack.packb(obj, use_bin_type=True)
    except (TypeError, ValueError, OverflowError) as error:
        raise ValueError(f"cannot encode {type(obj).__name__} as msgpack: {error}") from error


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack ext type {code} is not allowed")


def unpack_payload(data: bytes, peer: str = "the peer") -> Any:
    """Decode one untrusted msgpack payload with strict limits; MalformedFrameError otherwise."""
    size = len(data)
    try:
        if too_deep(data, MAX_DEPTH):
            raise ValueError(f"containers nested deeper than {MAX_DEPTH} levels")
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            ext_hook=_refuse_ext,
            max_str_len=size,
            max_bin_len=size,
            max_array_len=min(MAX_ARRAY_LEN, size),
            max_map_len=min(MAX_MAP_LEN, size // 2),
            max_ext_len=0,
        )
    except (ValueError, TypeError, msgpack.UnpackException, msgpack.StackError) as error:
        detail = str(error) or type(error).__name__
        raise MalformedFrameError(
            f"{peer} sent a payload that is not valid msgpack within limits ({detail}); "
            "connection closed",
            [data],
        ) from error
