from __future__ import annotations

import itertools

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from versus.p2p.errors import FrameTooLargeError, MalformedFrameError
from versus.p2p.framing import (
    MAX_ARRAY_LEN,
    MAX_DEPTH,
    MAX_FRAME,
    FrameDecoder,
    encode_frame,
    pack_payload,
    unpack_payload,
)


def drain(decoder: FrameDecoder) -> list[bytes]:
    frames = []
    while (frame := decoder.next_frame()) is not None:
        frames.append(frame)
    return frames


@given(
    bodies=st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=3000), max_size=20),
)
def test_frames_survive_any_split(bodies: list[bytes], cuts: list[int]) -> None:
    wire = b"".join(encode_frame(body) for body in bodies)
    points = sorted({0, len(wire), *(c % (len(wire) + 1) for c in cuts)})
    decoder = FrameDecoder()
    received = []
    for start, end in itertools.pairwise(points):
        decoder.feed(wire[start:end])
        received += drain(decoder)
    assert received == bodies
    assert not decoder.in_frame


def test_byte_by_byte() -> None:
    decoder = FrameDecoder()
    wire = encode_frame(b"hello") + encode_frame(b"x" * 70_000)
    received = []
    for byte in wire:
        decoder.feed(bytes([byte]))
        received += drain(decoder)
    assert received == [b"hello", b"x" * 70_000]


def test_oversize_prefix_is_refused_before_the_body_arrives() -> None:
    decoder = FrameDecoder(max_frame=1000, peer="10.0.0.9:4242")
    decoder.feed((1001).to_bytes(4, "big"))
    with pytest.raises(FrameTooLargeError, match=r"10\.0\.0\.9:4242 announced a frame of 1001"):
        decoder.next_frame()
    assert decoder.buffered == 0
    with pytest.raises(FrameTooLargeError):  # the decoder stays broken
        decoder.feed(b"more")


def test_the_default_limit_is_one_mebibyte() -> None:
    decoder = FrameDecoder()
    decoder.feed((MAX_FRAME + 1).to_bytes(4, "big"))
    with pytest.raises(FrameTooLargeError):
        decoder.next_frame()


def test_empty_frame_is_malformed() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"\x00\x00\x00\x00")
    with pytest.raises(MalformedFrameError, match="empty frame"):
        decoder.next_frame()


def test_limit_applies_when_the_frame_is_taken() -> None:
    # The handshake raises the limit after its last message; a big frame already buffered
    # behind it must be judged by the new limit.
    decoder = FrameDecoder(max_frame=10)
    decoder.feed(encode_frame(b"small") + encode_frame(b"y" * 100))
    assert decoder.next_frame() == b"small"
    decoder.max_frame = 1000
    assert decoder.next_frame() == b"y" * 100


def test_encode_frame_refuses_what_the_peer_would_refuse() -> None:
    with pytest.raises(ValueError):
        encode_frame(b"")
    with pytest.raises(ValueError):
        encode_frame(b"x" * 11, max_frame=10)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text() | st.binary(),
        lambda children: st.lists(children, max_size=5)
        | st.dictionaries(st.text(max_size=5), children, max_size=5),
        max_leaves=20,
    )
)
def test_payload_round_trip(obj: object) -> None:
    if _depth(obj) > MAX_DEPTH:
        with pytest.raises(MalformedFrameError, match="nested deeper"):
            unpack_payload(pack_payload(obj))
    else:
        assert unpack_payload(pack_payload(obj)) == obj


def _depth(obj: object) -> int:
    """Nesting depth of non-empty containers (the ones the unpacker has to allocate)."""
    items = list(obj.items()) if isinstance(obj, dict) else obj if isinstance(obj, list) else []
    flat = [x for pair in items for x in pair] if isinstance(obj, dict) else items
    return 1 + max(map(_depth, flat)) if flat else 0


@pytest.mark.parametrize(
    "data, why",
    [
        (b"\xc1", "reserved byte"),
        (b"\x01\x02", "trailing data"),
        (b"\xa5ab", "truncated string"),
        (b"\xd4\x01\x00", "ext type"),
        (b"\x81\x01\x02", "int map key"),
        (b"\xa2\xff\xfe", "invalid UTF-8"),
        (b"\xdd" + (MAX_ARRAY_LEN + 1).to_bytes(4, "big"), "array over the limit"),
        (b"\x91" * 5000, "nesting too deep"),
        (b"\x91" * MAX_DEPTH + b"\x91\x00", "nesting over the channel's depth"),
        (b"\xdc\x00\x10" + b"\x00" * 15, "array claiming more items than bytes"),
    ],
)
def test_hostile_payloads_are_malformed(data: bytes, why: str) -> None:
    with pytest.raises(MalformedFrameError, match="not valid msgpack") as info:
        unpack_payload(data, peer="mallory")
    assert str(info.value).startswith("mallory ")
    assert info.value.evidence == (data,)


def test_pack_payload_refuses_unencodable() -> None:
    with pytest.raises(ValueError, match="cannot encode"):
        pack_payload(object())
    assert msgpack.unpackb(pack_payload(b"\x00")) == b"\x00"  # bytes travel as bin


def test_nested_array_headers_allocate_nothing() -> None:
    """Regression: `dc ff ff` x 1000 (3 KB, each level claiming 65,535 items) made the unpacker
    pre-allocate ~80 MB before failing; now the depth walk refuses it first."""
    import tracemalloc

    for data in (b"\xdc\xff\xff" * 1000,
                 (b"\xdd\x00\x01\x00\x00" * 1000).ljust(MAX_FRAME - 29, b"\x00")):
        tracemalloc.start()
        try:
            with pytest.raises(MalformedFrameError, match="nested deeper"):
                unpack_payload(data)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1 << 20, f"{peak} bytes allocated"


def test_deep_but_allowed_payload_round_trips() -> None:
    obj: object = b"leaf"
    for _ in range(MAX_DEPTH - 1):  # the innermost list holds a map: MAX_DEPTH levels
        obj = [obj, {"k": 1}] if isinstance(obj, bytes) else [obj]
    assert unpack_payload(pack_payload(obj)) == obj
