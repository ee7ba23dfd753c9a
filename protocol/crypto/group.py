# The prime-order group of edwards25519, as the shared-pool deal uses it (SPEC Part 5).
#
# Points are libsodium's 32-byte Ed25519 encodings; every operation goes through PyNaCl's
# bindings to libsodium. Scalars are Python ints in [0, L): scalar arithmetic in Python is
# exact and faster than a call into libsodium, and only multiplications leave Python.
#
# Two kinds of points exist and the type system keeps them apart by construction path:
# - points we computed ourselves (`Point._trusted`), valid by construction;
# - points that came from the peer (`Point.from_wire`), which are checked before any use: our own
#   canonical-encoding check (y < p, and no "negative zero" sign bit) followed by libsodium's
#   `crypto_core_ed25519_is_valid_point` (on the curve, in the prime-order subgroup, not of small
#   order, hence never the identity). A mixed-order point P + T (T of order 2, 4 or 8) would let a
#   cheater leak one bit of a secret per multiplication, so the subgroup check is not optional.
#
# libsodium's noclamp multiplications refuse a zero scalar, an identity input and an identity
# result. With a prime-order input and a scalar in [1, L) the result is never the identity, so
# `Point.__mul__` handles the two legitimate zero cases (scalar 0, identity point) itself and
# every other refusal would be a bug, reported as such.
#
# Hashes are SHA-512 over a length-framed list of parts, always starting with a
# `b"versus/v1/deal/<purpose>"` tag and the match id (the callers pass both), so no hash of one
# purpose or match can be replayed as another. Proof nonces are hedged (`hedged_scalar`): a hash
# of the witness, the statement and fresh rng bytes, never rng bytes alone.
from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import ClassVar

import nacl.bindings as _na
from nacl.exceptions import RuntimeError as _NaclRuntimeError

from versus.engine.hashing import fisher_yates
from versus.protocol.errors import LocalProtocolError, MalformedMessage, RemoteProtocolError

#: order of the prime-order subgroup of edwards25519
L = 2**252 + 27742317777372353535851937790883648493
#: the field prime
FIELD_P = 2**255 - 19
POINT_SIZE = 32
SCALAR_SIZE = 32

Rng = Callable[[int], bytes]

_IDENTITY_BYTES = bytes([1]) + bytes(31)


# --- errors -----------------------------------------------------------------------------------


# The structural errors refine protocol.errors.MalformedMessage, so the envelope layer's handlers
# (and its `code`-based reports) treat them as the malformed input they are; a failed proof in a
# signed message is attributable to its signer.


class MalformedMessageError(MalformedMessage):
    """A deal message whose structure (type, length, count, range) is wrong."""

    code = "deal-malformed-message"


class InvalidPointError(MalformedMessage):
    """A received group element that is non-canonical, off the curve or of small order."""

    code = "deal-invalid-point"


class InvalidScalarError(MalformedMessage):
    """A received scalar that is not a canonical 32-byte encoding of an integer below L."""

    code = "deal-invalid-scalar"


class CryptoProofError(RemoteProtocolError):
    """A zero-knowledge proof (Schnorr, Chaum–Pedersen, shuffle) that does not verify."""

    code = "deal-bad-proof"
    attributable = True


class NonceReuseError(CryptoProofError):
    """The peer used the same proof commitment twice in one match (it would leak its secret)."""

    code = "deal-nonce-reuse"


# --- points -----------------------------------------------------------------------------------


def _is_canonical_encoding(data: bytes) -> bool:
    """y < p, and the sign bit is clear when x = 0 (y = ±1), since -0 = 0 has one encoding."""
    y = int.from_bytes(data, "little") & ((1 << 255) - 1)
    if y >= FIELD_P:
        return False
    sign = data[31] >> 7
    return not (sign and y in (1, FIELD_P - 1))


@dataclass(frozen=True, slots=True)
class Point:
    """An element of the prime-order group (or the identity), as its 32-byte encoding."""

    encoded: bytes

    IDENTITY: ClassVar[Point]
    BASE: ClassVar[Point]

    def __post_init__(self) -> None:
        if type(self.encoded) is not bytes or len(self.encoded) != POINT_SIZE:
            raise LocalProtocolError("a Point holds exactly 32 bytes")

    @classmethod
    def from_wire(cls, data: object, field: str, *, ours: bool = False) -> Point:
        """Validate a point received from the peer; `field` names it in the error. `ours`: a
        point of our own message, read back as the peer will read it (MatchCore checks what it
        sends): computed by libsodium from group elements, so in the group by construction;
        the subgroup check (a multiplication each, 4N per shuffle) is kept for the peer's."""
        if type(data) is not bytes or len(data) != POINT_SIZE:
            raise InvalidPointError(f"{field}: expected {POINT_SIZE} bytes, got {_describe(data)}")
        if not _is_canonical_encoding(data):
            raise InvalidPointError(f"{field}: non-canonical point encoding {data.hex()}")
        if not ours and not _na.crypto_core_ed25519_is_valid_point(data):
            raise InvalidPointError(
                f"{field}: not a point of the prime-order subgroup (off the curve, small or "
                f"mixed order, or identity): {data.hex()}"
            )
        return cls(data)

    @property
    def is_identity(self) -> bool:
        return self.encoded == _IDENTITY_BYTES

    # O + P = P - O = P without a call into libsodium (≈ 12 µs each: it decompresses both
    # points): every Point is a canonical subgroup encoding (checked or computed), so the
    # other operand is already the exact bytes libsodium would return. Trivial encryptions,
    # sums started at O and identity products of a shuffle hit this path often.
    def __add__(self, other: Point) -> Point:
        if self.encoded == _IDENTITY_BYTES:
            return other
        if other.encoded == _IDENTITY_BYTES:
            return self
        return Point(_na.crypto_core_ed25519_add(self.encoded, other.encoded))

    def __sub__(self, other: Point) -> Point:
        if other.encoded == _IDENTITY_BYTES:
            return self
        return Point(_na.crypto_core_ed25519_sub(self.encoded, other.encoded))

    def __mul__(self, scalar: int) -> Point:
        scalar %= L
        if scalar == 0 or self.is_identity:
            return Point.IDENTITY
        if self.encoded == _BASE_BYTES:
            return base_mul(scalar)
        try:
            return Point(_na.crypto_scalarmult_ed25519_noclamp(_scalar_bytes(scalar), self.encoded))
        except _NaclRuntimeError as exc:  # only a point outside the group gets here: our bug
            raise LocalProtocolError(f"multiplication refused for {self.encoded.hex()}") from exc

    __rmul__ = __mul__

    def __neg__(self) -> Point:
        return Point.IDENTITY - self

    def __repr__(self) -> str:
        return f"Point({self.encoded.hex()[:16]}…)"


_BASE_BYTES = _na.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(SCALAR_SIZE, "little"))
Point.IDENTITY = Point(_IDENTITY_BYTES)
Point.BASE = Point(_BASE_BYTES)


def base_mul(scalar: int) -> Point:
    """scalar·G with libsodium's fixed-base tables (about five times faster than `Point * s`)."""
    scalar %= L
    if scalar == 0:
        return Point.IDENTITY
    return Point(_na.crypto_scalarmult_ed25519_base_noclamp(_scalar_bytes(scalar)))


def point_sum(points: Iterable[Point]) -> Point:
    total = Point.IDENTITY
    for p in points:
        total = total + p
    return total


def multi_mul(scalars: Iterable[int], points: Iterable[Point]) -> Point:
    """Σ sᵢ·Pᵢ (PyNaCl has no multi-scalar multiplication; one call per term)."""
    return point_sum(p * s for s, p in zip(scalars, points, strict=True))


# --- scalars ----------------------------------------------------------------------------------


def _scalar_bytes(scalar: int) -> bytes:
    return scalar.to_bytes(SCALAR_SIZE, "little")


def encode_scalar(scalar: int) -> bytes:
    if not 0 <= scalar < L:
        raise LocalProtocolError("a scalar to encode must lie in [0, L)")
    return _scalar_bytes(scalar)


def decode_scalar(data: object, field: str) -> int:
    """A received scalar: exactly 32 bytes, little-endian, strictly below L."""
    if type(data) is not bytes or len(data) != SCALAR_SIZE:
        raise InvalidScalarError(f"{field}: expected {SCALAR_SIZE} bytes, got {_describe(data)}")
    value = int.from_bytes(data, "little")
    if value >= L:
        raise InvalidScalarError(f"{field}: non-canonical scalar (not below L) {data.hex()}")
    return value


def random_scalar(rng: Rng) -> int:
    """A uniform scalar in [1, L) from 64 rng bytes (the bias of the reduction is < 2^-250)."""
    while True:
        value = int.from_bytes(_take(rng, 64), "little") % L
        if value:
            return value


def hedged_scalar(
    tag: bytes,
    match_id: bytes,
    witness: Iterable[HashPart],
    statement: Iterable[HashPart],
    rng: Rng,
) -> int:
    """A proof nonce in [1, L): H(tag, match_id, witness…, statement…, 64 rng bytes) mod L.

    A peer's rng is deterministic (`master_rng`), so after a restart from a transcript that lacks
    our last envelopes the same rng bytes come again; a nonce drawn from them alone would then
    prove another statement and give away the witness x = (s − s′)/(c − c′). Hashing the witness
    and the full statement in makes a different statement get an unrelated nonce, while the same
    statement gets the same nonce (restore regenerates identical envelopes); the rng bytes keep
    the nonce secret even if the hash were weak. 64 bytes like `random_scalar`, so the rng
    stream is consumed as before; the bias of the reduction of 512 bits is < 2^-250. The caller
    fixes the number of witness parts per tag, so the parts decode uniquely.
    """
    parts = (*witness, *statement)
    while True:
        value = hash_to_scalar(tag, match_id, (*parts, _take(rng, 64)))
        if value:
            return value


def random_below(rng: Rng, bound: int) -> int:
    """A uniform integer in [0, bound) by rejection sampling: no modulo bias."""
    if bound <= 0:
        raise LocalProtocolError("random_below needs a positive bound")
    nbytes = (bound.bit_length() + 7) // 8 + 1
    limit = (256**nbytes // bound) * bound  # the largest multiple of bound that fits
    while True:
        value = int.from_bytes(_take(rng, nbytes), "little")
        if value < limit:
            return value % bound


def random_permutation(rng: Rng, n: int) -> tuple[int, ...]:
    """A uniform permutation of range(n) (Fisher–Yates with unbiased draws)."""
    items = list(range(n))
    fisher_yates(items, lambda bound: random_below(rng, bound))
    return tuple(items)


def _take(rng: Rng, n: int) -> bytes:
    data = rng(n)
    if type(data) is not bytes or len(data) != n:
        raise LocalProtocolError(f"rng({n}) must return exactly {n} bytes")
    return data


# --- hashing ----------------------------------------------------------------------------------

HashPart = bytes | str | int | Point


def _frame(part: HashPart) -> bytes:
    if isinstance(part, Point):
        data = part.encoded
    elif isinstance(part, bytes):
        data = part
    elif isinstance(part, str):
        data = part.encode("utf-8")
    elif isinstance(part, int) and not isinstance(part, bool) and 0 <= part < 2**256:
        data = part.to_bytes(32, "little")
    else:
        raise LocalProtocolError(f"cannot hash {type(part).__name__}")
    return len(data).to_bytes(8, "big") + data


_POINT_FRAME = POINT_SIZE.to_bytes(8, "big")


def hash_parts(tag: bytes, match_id: bytes, parts: Iterable[HashPart]) -> bytes:
    """SHA-512 of the framed tag, match id and parts (each part: 8-byte length, then bytes)."""
    # one update of the joined frames, points framed inline: a shuffle hashes hundreds of
    # points per challenge, and a call per part was a visible share of verifying one
    framed = [_frame(tag), _frame(match_id)]
    for part in parts:
        if type(part) is Point:
            framed.append(_POINT_FRAME)
            framed.append(part.encoded)
        else:
            framed.append(_frame(part))
    return hashlib.sha512(b"".join(framed)).digest()


def hash_to_scalar(tag: bytes, match_id: bytes, parts: Iterable[HashPart]) -> int:
    """A full-size Fiat–Shamir challenge: 512 hash bits reduced modulo L."""
    return int.from_bytes(hash_parts(tag, match_id, parts), "little") % L


def hash_to_point(tag: bytes, match_id: bytes, parts: Iterable[HashPart]) -> Point:
    """A point nobody knows the discrete log of: the sum of two Elligator 2 maps of a hash.

    libsodium's `from_uniform` clears the cofactor, so the result is in the prime-order group;
    the (negligible) identity case is skipped with a counter so the result is always usable.
    The sum of two prime-order points in libsodium's canonical encoding is canonical, on the
    curve and in the prime-order group, so of `is_valid_point`'s checks only "not the
    identity" can fail: that comparison replaces the call (a subgroup multiplication, ≈ 50 µs).
    """
    parts = tuple(parts)
    counter = 0
    while True:
        digest = hash_parts(tag, match_id, (*parts, counter))
        point = Point(_na.crypto_core_ed25519_from_uniform(digest[:32])) + Point(
            _na.crypto_core_ed25519_from_uniform(digest[32:])
        )
        if not point.is_identity:
            return point
        counter += 1


def _describe(data: object) -> str:
    if isinstance(data, bytes):
        return f"{len(data)} bytes"
    return type(data).__name__
