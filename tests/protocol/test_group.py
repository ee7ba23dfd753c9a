# The group layer: point and scalar validation, arithmetic, hashing and unbiased sampling.
from __future__ import annotations

import collections

import nacl.bindings as na
import pytest

from tests.protocol.deal_support import seeded_rng
from versus.protocol.crypto.group import (
    FIELD_P,
    InvalidPointError,
    InvalidScalarError,
    L,
    Point,
    base_mul,
    decode_scalar,
    encode_scalar,
    hash_to_point,
    random_below,
    random_permutation,
    random_scalar,
)
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError

# The eight points of small order of edwards25519 (canonical encodings), as listed by libsodium
# and by the Ed25519 test vectors of Chalkias et al., "Taming the many EdDSAs".
SMALL_ORDER = {
    "identity": "0100000000000000000000000000000000000000000000000000000000000000",
    "order 2": "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "order 4 (+)": "0000000000000000000000000000000000000000000000000000000000000000",
    "order 4 (-)": "0000000000000000000000000000000000000000000000000000000000000080",
    "order 8 (a+)": "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "order 8 (a-)": "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "order 8 (b+)": "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "order 8 (b-)": "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
}
NON_CANONICAL = {
    "identity, sign bit set": "0100000000000000000000000000000000000000000000000000000000000080",
    "identity as y = p + 1": "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "y = p": "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "y = 2^255 - 1": "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "order 2 with sign bit": "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
}


@pytest.mark.parametrize("name", sorted(SMALL_ORDER))
def test_small_order_points_are_rejected(name: str) -> None:
    encoded = bytes.fromhex(SMALL_ORDER[name])
    eight_times = encoded
    for _ in range(3):  # 8·T by doubling: libsodium's multiplications refuse small-order input
        eight_times = na.crypto_core_ed25519_add(eight_times, eight_times)
    assert eight_times == Point.IDENTITY.encoded
    with pytest.raises(InvalidPointError, match=r"key-share\.key"):
        Point.from_wire(encoded, "key-share.key")


@pytest.mark.parametrize("name", sorted(NON_CANONICAL))
def test_non_canonical_encodings_are_rejected(name: str) -> None:
    with pytest.raises(InvalidPointError, match="non-canonical"):
        Point.from_wire(bytes.fromhex(NON_CANONICAL[name]), "share")


@pytest.mark.parametrize("name", sorted(k for k in SMALL_ORDER if k != "identity"))
def test_mixed_order_points_are_rejected(name: str) -> None:
    torsion = bytes.fromhex(SMALL_ORDER[name])
    mixed = na.crypto_core_ed25519_add(base_mul(7).encoded, torsion)
    assert mixed != base_mul(7).encoded
    with pytest.raises(InvalidPointError, match="prime-order subgroup"):
        Point.from_wire(mixed, "share")


def test_off_curve_and_wrong_size_points_are_rejected() -> None:
    off_curve = next(
        bytes([y]) + bytes(31)
        for y in range(2, 50)
        if not na.crypto_core_ed25519_is_valid_point(bytes([y]) + bytes(31))
    )
    with pytest.raises(InvalidPointError, match="prime-order"):
        Point.from_wire(off_curve, "c")
    with pytest.raises(InvalidPointError, match="31 bytes"):
        Point.from_wire(base_mul(3).encoded[:31], "c")
    with pytest.raises(InvalidPointError, match="expected 32 bytes, got str"):
        Point.from_wire("x" * 32, "c")


def test_valid_points_pass() -> None:
    for k in (1, 2, L - 1, random_scalar(seeded_rng(1))):
        assert Point.from_wire(base_mul(k).encoded, "p") == base_mul(k)


def test_scalars_must_be_canonical() -> None:
    assert decode_scalar(encode_scalar(L - 1), "s") == L - 1
    assert decode_scalar(bytes(32), "s") == 0
    for bad in (L, L + 1, 2**256 - 1):
        with pytest.raises(InvalidScalarError, match=r"proof\.response"):
            decode_scalar(bad.to_bytes(32, "little"), "proof.response")
    with pytest.raises(InvalidScalarError, match="33 bytes"):
        decode_scalar(bytes(33), "s")
    with pytest.raises(LocalProtocolError):
        encode_scalar(L)


def test_errors_belong_to_the_remote_family() -> None:
    assert issubclass(InvalidPointError, RemoteProtocolError)
    assert issubclass(InvalidScalarError, RemoteProtocolError)


def test_arithmetic_including_the_identity_cases() -> None:
    p = base_mul(11)
    assert p == Point.BASE * 11
    assert p * 0 == Point.IDENTITY
    assert Point.IDENTITY * 5 == Point.IDENTITY
    assert p * 3 + p * 4 == p * 7
    assert p * L == Point.IDENTITY
    assert p - p == Point.IDENTITY
    assert -p + p == Point.IDENTITY
    assert 2 * p == p + p
    assert (p * (L - 1)) == -p


def test_hash_to_point_is_domain_separated_and_in_the_group() -> None:
    a = hash_to_point(b"versus/v1/deal/card", b"match-a", ("x",))
    b = hash_to_point(b"versus/v1/deal/card", b"match-b", ("x",))
    c = hash_to_point(b"versus/v1/deal/other", b"match-a", ("x",))
    assert len({a, b, c}) == 3
    for p in (a, b, c):
        assert Point.from_wire(p.encoded, "p") == p


def test_identity_shortcuts_give_libsodium_bytes() -> None:
    """O + P, P + O and P − O skip libsodium: the bytes must be exactly what it returns, for a
    point we computed and for one received from the wire."""
    for p in (base_mul(12345), Point.from_wire(hash_to_point(b"t", b"m", ("p",)).encoded, "p")):
        o = Point.IDENTITY
        assert (o + p).encoded == na.crypto_core_ed25519_add(o.encoded, p.encoded)
        assert (p + o).encoded == na.crypto_core_ed25519_add(p.encoded, o.encoded)
        assert (p - o).encoded == na.crypto_core_ed25519_sub(p.encoded, o.encoded)
        assert (o - p).encoded == na.crypto_core_ed25519_sub(o.encoded, p.encoded)


def test_hashed_points_pass_libsodiums_validity_check() -> None:
    """hash_to_point checks "not the identity" only: the sum of two cofactor-cleared points
    passes every other check of is_valid_point, which this confirms on many inputs."""
    for i in range(200):
        point = hash_to_point(b"versus/v1/deal/card", b"match-valid", (f"card-{i}",))
        assert na.crypto_core_ed25519_is_valid_point(point.encoded)


def test_random_below_and_permutations_are_uniform() -> None:
    rng = seeded_rng("uniform")
    # bound 3 within one byte + 1: a plain "% 3" would be biased; rejection sampling is not
    counts = collections.Counter(random_below(rng, 3) for _ in range(6000))
    assert _chi_square(counts, 3, 6000) < 13.8  # df = 2, p = 0.001
    perms = collections.Counter(random_permutation(rng, 3) for _ in range(6000))
    assert len(perms) == 6
    assert _chi_square(perms, 6, 6000) < 20.5  # df = 5, p = 0.001


def test_rng_must_return_the_bytes_it_was_asked_for() -> None:
    with pytest.raises(LocalProtocolError, match="exactly 64 bytes"):
        random_scalar(lambda n: bytes(n - 1))


def test_field_prime_is_the_curve25519_prime() -> None:
    assert FIELD_P == 2**255 - 19
    assert base_mul(L) == Point.IDENTITY


def _chi_square(counts: collections.Counter, cells: int, total: int) -> float:
    expected = total / cells
    return sum((counts[k] - expected) ** 2 / expected for k in counts) + expected * (
        cells - len(counts)
    )
