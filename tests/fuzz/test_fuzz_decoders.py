# Hypothesis fuzzing of every decoder of untrusted bytes (the targets of fuzz/targets.py).
#
# Each target swallows its decoder's documented errors and asserts its round-trip invariants, so
# a test here fails on any other exception or a broken invariant. Inputs are raw bytes and
# structure-aware mutations (bit flips, truncation, splices, duplicated spans, forged length
# fields, record edits) of seeds built from real objects. Runs are derandomized so CI is
# deterministic; `fuzz/run.py` is the long-running counterpart.
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz.targets import MAX_INPUT, MUTATION_KINDS, TARGETS, mutate
from versus.p2p.framing import (
    MAX_HANDSHAKE_FRAME,
    FrameDecoder,
    encode_frame,
    pack_payload,
    unpack_payload,
)
from versus.protocol.wire.canonical import INT_MAX, INT_MIN, decode, encode

FUZZ = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SEEDS = {name: target.seeds() for name, target in TARGETS.items()}

mutation_ops = st.lists(
    st.tuples(
        st.integers(0, MUTATION_KINDS - 1),
        st.integers(0, MAX_INPUT),
        st.integers(0, 1 << 16),
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.parametrize("name", sorted(TARGETS))
@FUZZ
@given(data=st.binary(max_size=700))
def test_raw_bytes_raise_only_documented_errors(name: str, data: bytes) -> None:
    TARGETS[name].run(data)


@pytest.mark.parametrize("name", sorted(TARGETS))
@FUZZ
@given(choice=st.data(), ops=mutation_ops)
def test_mutated_real_messages_raise_only_documented_errors(
    name: str, choice: st.DataObject, ops: list[tuple[int, int, int]]
) -> None:
    seeds = SEEDS[name]
    seed = choice.draw(st.sampled_from(seeds), label="seed")
    TARGETS[name].run(mutate(seed, ops, seeds))


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_seed_is_accepted_cleanly(name: str) -> None:
    for seed in SEEDS[name]:
        TARGETS[name].run(seed)


@FUZZ
@given(
    bodies=st.lists(st.binary(min_size=1, max_size=MAX_HANDSHAKE_FRAME), max_size=6),
    cuts=st.lists(st.integers(1, 200), min_size=1, max_size=20),
)
def test_frames_round_trip_whatever_the_chunking(bodies: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode_frame(body, MAX_HANDSHAKE_FRAME) for body in bodies)
    decoder = FrameDecoder(MAX_HANDSHAKE_FRAME)
    received: list[bytes] = []
    position, turn = 0, 0
    while position < len(stream):
        size = cuts[turn % len(cuts)]
        decoder.feed(stream[position : position + size])
        position, turn = position + size, turn + 1
        while (body := decoder.next_frame()) is not None:
            received.append(body)
    assert received == bodies
    assert not decoder.in_frame


canonical_values = st.recursive(
    st.none() | st.booleans() | st.integers(INT_MIN, INT_MAX) | st.binary(max_size=300)
    | st.text(max_size=40),
    lambda children: st.lists(children, max_size=6),
    max_leaves=30,
)


@FUZZ
@given(value=canonical_values)
def test_canonical_decode_encode_identity(value: object) -> None:
    wire = encode(value)
    decoded = decode(wire, max_size=len(wire))
    assert decoded == value
    assert encode(decoded) == wire
    assert unpack_payload(pack_payload(value)) == value  # the transport's msgpack agrees
