from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.protocol.support import make_hellos, make_players, play
from versus.protocol.errors import (
    BadSignature,
    Equivocation,
    OversizeField,
    RemoteProtocolError,
    SetupMismatch,
    TranscriptFormatError,
)
from versus.protocol.match.setup import MatchSetup
from versus.protocol.wire.envelope import MessageKind, seal
from versus.protocol.wire.transcript import (
    HEADER,
    MAGIC,
    Transcript,
    dump_transcript,
    encode_record,
    load_transcript,
    verify_chain,
)

PLAYERS = make_players()
HELLOS = make_hellos(PLAYERS)
SETUP = MatchSetup.from_hellos(*HELLOS)
ENVELOPES = play(SETUP, PLAYERS, 4)
TRANSCRIPT = Transcript((HELLOS[0].raw, HELLOS[1].raw), tuple(e.raw for e in ENVELOPES))
DATA = dump_transcript(TRANSCRIPT)


def test_round_trip_keeps_exact_bytes():
    assert DATA.startswith(HEADER) and HEADER[:8] == MAGIC
    assert load_transcript(DATA) == TRANSCRIPT
    assert dump_transcript(load_transcript(DATA)) == DATA


def test_incremental_writing_gives_the_same_file():
    assert HEADER + b"".join(encode_record(raw) for raw in TRANSCRIPT.records) == DATA


def test_honest_transcript_verifies():
    verdict = verify_chain(load_transcript(DATA))
    assert verdict.ok and verdict.bad_index is None and verdict.checked == 6
    assert verdict.setup is not None and verdict.setup.match_id == SETUP.match_id
    assert "6 records" in verdict.describe()


def test_every_single_byte_change_is_rejected():
    for index in range(len(DATA)):
        tampered = DATA[:index] + bytes([DATA[index] ^ 0x01]) + DATA[index + 1 :]
        try:
            verdict = verify_chain(load_transcript(tampered))
        except RemoteProtocolError:
            continue
        assert not verdict.ok, f"change at byte {index} went unnoticed"


@settings(max_examples=300)
@given(st.integers(0, 10_000), st.integers(1, 255))
def test_any_single_byte_change_is_rejected(position, xor):
    position %= len(DATA)
    tampered = DATA[:position] + bytes([DATA[position] ^ xor]) + DATA[position + 1 :]
    try:
        verdict = verify_chain(load_transcript(tampered))
    except RemoteProtocolError:
        return
    assert not verdict.ok


@settings(max_examples=300)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_raise_only_protocol_errors(data):
    with pytest.raises(RemoteProtocolError):
        load_transcript(data)


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=120), min_size=2, max_size=5))
def test_arbitrary_records_give_a_verdict_not_an_exception(records):
    data = HEADER + b"".join(encode_record(r) for r in records)
    verdict = verify_chain(load_transcript(data))
    assert not verdict.ok and verdict.bad_index == 0


def test_forged_envelope_is_reported_with_its_index():
    raws = list(TRANSCRIPT.envelopes)
    raws[2] = raws[2][:-1] + bytes([raws[2][-1] ^ 1])
    verdict = verify_chain(Transcript(TRANSCRIPT.hellos, tuple(raws)))
    assert (verdict.ok, verdict.bad_index, verdict.player) == (False, 4, None)
    assert isinstance(verdict.error, BadSignature)
    assert verdict.checked == 4


def test_equivocation_in_a_transcript_names_the_culprit():
    twin = seal(PLAYERS[1], match_id=SETUP.match_id, seq=1, prev_hash=ENVELOPES[0].hash,
                sender=1, kind=MessageKind.ACTION, body=["other"])
    raws = (*TRANSCRIPT.envelopes[:2], twin.raw)
    verdict = verify_chain(Transcript(TRANSCRIPT.hellos, raws))
    assert (verdict.bad_index, verdict.player) == (4, 1)
    assert isinstance(verdict.error, Equivocation)
    assert "equivocation" in verdict.describe() and "seat 1" in verdict.describe()


def test_hellos_out_of_seat_order():
    swapped = Transcript((HELLOS[1].raw, HELLOS[0].raw), TRANSCRIPT.envelopes)
    verdict = verify_chain(swapped)
    assert verdict.bad_index == 0 and isinstance(verdict.error, SetupMismatch)


def test_pinned_keys():
    verdict = verify_chain(TRANSCRIPT, expected_keys=(PLAYERS[1].public_key, None))
    assert not verdict.ok and verdict.bad_index == 1


@pytest.mark.parametrize(
    ("data", "error", "reason"),
    [
        (b"", TranscriptFormatError, "not a Versus transcript"),
        (b"PK\x03\x04" + DATA[4:], TranscriptFormatError, "not a Versus transcript"),
        (MAGIC + b"\x00", TranscriptFormatError, "truncated"),
        (MAGIC + b"\x00\x02", TranscriptFormatError, "format version 2"),
        (HEADER + encode_record(b"x"), TranscriptFormatError, "2 hellos"),
        (DATA[:-1], TranscriptFormatError, "announced"),
        (DATA + b"\x00\x00", TranscriptFormatError, "truncated length"),
    ],
)
def test_framing_errors(data, error, reason):
    with pytest.raises(error, match=reason):
        load_transcript(data)


def test_limits():
    with pytest.raises(OversizeField):
        load_transcript(DATA, max_size=len(DATA) - 1)
    with pytest.raises(OversizeField, match="records"):
        load_transcript(DATA, max_records=5)
    with pytest.raises(OversizeField, match="exceed the limit"):
        load_transcript(DATA, max_record_size=100)
    with pytest.raises(OversizeField):
        load_transcript(HEADER + b"\xff\xff\xff\xff")
