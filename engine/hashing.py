# Deterministic randomness from hashes. The engine never uses `random`: every random-looking
# choice (the tile layout) is a Fisher-Yates shuffle driven by a SHA-256 counter-mode stream of
# a seed, domain-separated by a tag, with rejection sampling so there is no modulo bias. Two
# engines given the same seed compute the same layout on any platform.
#
# `HashRng` wraps the same stream behind a `.randrange(n)` method so callers (tests, the demo,
# bots) can pass a reproducible generator wherever the engine accepts "any object with
# .randrange".
from __future__ import annotations

import hashlib
from collections.abc import Callable, MutableSequence
from typing import Any

DOMAIN_PREFIX = b"versus/v1/"


def tagged_hash(purpose: str, *parts: bytes) -> bytes:
    """SHA-256 over a domain tag and length-prefixed parts (no concatenation ambiguity)."""
    return tagged_hasher(purpose, *parts).digest()


def tagged_hasher(purpose: str, *parts: bytes) -> Any:
    """The running SHA-256 of `tagged_hash(purpose, *parts)`, to `.copy()` and `.update()` with
    more parts (each as `length_prefixed(part)`): a hash over fixed leading parts, computed once."""
    h = hashlib.sha256(DOMAIN_PREFIX + purpose.encode() + b"\x00")
    for part in parts:
        h.update(length_prefixed(part))
    return h


def length_prefixed(part: bytes) -> bytes:
    """One part as `tagged_hash` frames it: its length (4 bytes, big-endian), then the part."""
    return len(part).to_bytes(4, "big") + part


def fisher_yates(items: MutableSequence[Any], randbelow: Callable[[int], int]) -> None:
    """In-place Fisher-Yates (Durstenfeld) shuffle: for i from the last index down to 1, swap
    item i with item randbelow(i + 1), where randbelow(k) is uniform in [0, k). The engine's
    one shuffle: the tile layout (§1.3.2), the referee's random deals and the protocol's
    permutations (protocol/crypto: random_permutation, draw_permutation) use it."""
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(i + 1)
        items[i], items[j] = items[j], items[i]


class HashStream:
    """Unbounded byte stream: block i = SHA-256(tag | seed | i)."""

    __slots__ = ("_buf", "_counter", "_key", "_pos")

    def __init__(self, purpose: str, seed: bytes) -> None:
        self._key = tagged_hash(purpose, bytes(seed))
        self._counter = 0
        self._buf = b""
        self._pos = 0  # bytes of _buf already read (an offset: no re-slicing per read)

    def read(self, n: int) -> bytes:
        buf, pos = self._buf, self._pos
        while len(buf) - pos < n:
            buf = buf[pos:] + hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            pos = 0
            self._counter += 1
        self._buf, self._pos = buf, pos + n
        return buf[pos:pos + n]

    def randbelow(self, n: int) -> int:
        """Uniform integer in [0, n) by rejection sampling on whole bytes."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        if n == 1:
            return 0
        if n <= 256:  # one byte per try, read in place (a random player's pick: most calls)
            limit = 256 - 256 % n
            while True:
                pos = self._pos
                if pos >= len(self._buf):  # the stream's next block
                    self._buf = hashlib.sha256(
                        self._key + self._counter.to_bytes(8, "big")).digest()
                    self._counter += 1
                    pos = 0
                x = self._buf[pos]
                self._pos = pos + 1
                if x < limit:
                    return x % n
        nbytes = ((n - 1).bit_length() + 7) // 8
        span = 1 << (8 * nbytes)
        limit = span - span % n
        while True:
            x = int.from_bytes(self.read(nbytes), "big")
            if x < limit:
                return x % n

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """In-place Fisher-Yates shuffle driven by this stream."""
        fisher_yates(items, self.randbelow)


class HashRng:
    """A reproducible generator with the `randrange` interface, seeded from bytes."""

    __slots__ = ("_stream",)

    def __init__(self, seed: bytes, purpose: str = "rng") -> None:
        self._stream = HashStream(purpose, seed)

    def randrange(self, start: int, stop: int | None = None) -> int:
        if stop is None:
            start, stop = 0, start
        return start + self._stream.randbelow(stop - start)
