from __future__ import annotations

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from versus.protocol.errors import (
    LocalProtocolError,
    MalformedMessage,
    OversizeField,
    ProtocolError,
    all_error_classes,
)
from versus.protocol.wire.canonical import (
    DOMAIN_TAGS,
    INT_MAX,
    INT_MIN,
    decode,
    encode,
    tagged_hash,
)

LIMIT = 1 << 16

canonical_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(INT_MIN, INT_MAX)
    | st.binary(max_size=64)
    | st.text(max_size=32),
    lambda children: st.lists(children, max_size=6),
    max_leaves=30,
)


@given(canonical_values)
def test_round_trip_is_identity_and_canonical(value):
    data = encode(value)
    assert decode(data, max_size=LIMIT) == value
    assert encode(decode(data, max_size=LIMIT)) == data


def test_tuples_encode_as_arrays():
    assert encode((1, (b"a", "b"))) == encode([1, [b"a", "b"]])
    assert decode(encode((1, (2,))), max_size=LIMIT) == [1, [2]]


def test_known_bytes():
    assert encode([None, True, False, 0, -1, 127, 128, b"\x01", "é"]) == bytes.fromhex(
        "99c0c3c2" "00ff7fcc80" "c40101" "a2c3a9"
    )


@pytest.mark.parametrize(
    "value",
    [1.5, {"a": 1}, {1, 2}, INT_MAX + 1, INT_MIN - 1, bytearray(b"x"), "\ud800", [1, [2.0]]],
)
def test_encode_refuses_values_outside_the_subset(value):
    with pytest.raises(LocalProtocolError):
        encode(value)


def test_encode_error_names_the_path():
    with pytest.raises(LocalProtocolError, match=r"value\[1\]\[0\]"):
        encode([1, [2.5]])


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xcb" + bytes(8), "float"),
        (b"\xca" + bytes(4), "float"),
        (b"\x81\x01\x02", "map"),
        (b"\x80", "dict"),
        (b"\xd4\x01\x00", "ext"),
        (b"\xd6\xff" + bytes(4), "ext"),  # msgpack timestamp
        (b"\xd0\x05", "non-canonical"),  # int8 where a fixint fits
        (b"\xcc\x05", "non-canonical"),
        (b"\xd9\x01a", "non-canonical"),  # str8 for one character
        (b"\xc5\x00\x01a", "non-canonical"),  # bin16 for one byte
        (b"\xdc\x00\x01\x01", "non-canonical"),  # array16 for one item
        (b"\xd3" + (5).to_bytes(8, "big"), "non-canonical"),
        (b"\xcf" + (INT_MAX + 1).to_bytes(8, "big"), "64-bit"),
        (b"\x01\x02", "trailing"),
        (b"", "empty"),
        (b"\x92\x01", "not msgpack"),
        (b"\xc1", "not msgpack"),
        (b"\xa1\xff", "not msgpack"),
        (b"\xc6\xff\xff\xff\xff", "not msgpack"),  # a 4 GiB bin header, truncated
    ],
)
def test_decode_refuses(data, reason):
    with pytest.raises(MalformedMessage, match=reason) as info:
        decode(data, max_size=LIMIT)
    assert info.value.evidence == (data,)
    assert info.value.code in {"malformed-message", "oversize-field"}


@pytest.mark.parametrize(
    ("data", "limits"),
    [
        (encode(list(range(10))), {"max_array_len": 9}),
        (encode(b"x" * 10), {"max_bytes_len": 9}),
        (encode("x" * 10), {"max_str_len": 9}),
        (encode([[[[1]]]]), {"max_depth": 3}),
        (b"\x91" * 2000 + b"\x01", {}),
        (b"\xdd\xff\xff\xff\xff", {}),  # a 4-billion-item array header in 5 bytes
    ],
)
def test_decode_limits_raise_oversize(data, limits):
    with pytest.raises(OversizeField):
        decode(data, max_size=LIMIT, **limits)


def test_decode_total_size_limit():
    data = encode(b"x" * 100)
    with pytest.raises(OversizeField, match="exceeds the limit of 50"):
        decode(data, max_size=50)
    assert decode(data, max_size=len(data)) == b"x" * 100


def test_decode_refuses_non_bytes():
    with pytest.raises(MalformedMessage):
        decode("text", max_size=LIMIT)  # type: ignore[arg-type]


def test_malformed_message_is_a_value_error_for_file_readers():
    with pytest.raises(ValueError):
        decode(b"\xc1", max_size=LIMIT)


@given(st.binary(max_size=200))
def test_arbitrary_bytes_decode_or_raise_only_malformed(data):
    try:
        value = decode(data, max_size=LIMIT)
    except MalformedMessage:
        return
    assert encode(value) == data


@given(canonical_values)
def test_legacy_encoding_never_decodes_to_the_same_value(value):
    # msgpack's old raw mode writes bytes as str: it must be refused or read as another value,
    # never accepted as a second encoding of the same value.
    alternative = msgpack.packb(value, use_bin_type=False)
    if alternative == encode(value):
        return
    try:
        decoded = decode(alternative, max_size=LIMIT)
    except MalformedMessage:
        return
    assert decoded != value


def test_tagged_hash_separates_tags_and_field_splits():
    assert tagged_hash(b"versus/v1/a", b"xy") != tagged_hash(b"versus/v1/b", b"xy")
    assert tagged_hash(b"t", b"x", b"y") != tagged_hash(b"t", b"xy")
    assert len(tagged_hash(b"t")) == 32


def test_domain_tags_are_distinct_and_prefix_free():
    assert len(set(DOMAIN_TAGS)) == len(DOMAIN_TAGS)
    for tag in DOMAIN_TAGS:
        assert tag.startswith(b"versus/v1/")
        for other in DOMAIN_TAGS:
            assert tag == other or not other.startswith(tag)


def test_error_codes_are_unique_and_stable():
    classes = all_error_classes()
    codes = [cls.code for cls in classes]
    assert len(codes) == len(set(codes))
    assert all(issubclass(cls, ProtocolError) for cls in classes)
    assert {"bad-signature", "equivocation", "oversize-field", "duplicate-card"} <= set(codes)
