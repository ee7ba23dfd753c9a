from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.protocol.support import make_players
from versus.protocol.crypto.identity import verify_signature
from versus.protocol.errors import (
    BadSignature,
    LocalProtocolError,
    MalformedMessage,
    OversizeField,
    RemoteProtocolError,
    WrongMatch,
    WrongSender,
)
from versus.protocol.wire.canonical import TAG_ENVELOPE_HASH, TAG_ENVELOPE_SIGNATURE, decode, encode
from versus.protocol.wire.envelope import (
    MAX_ENVELOPE_SIZE,
    PROTOCOL_VERSION,
    Envelope,
    MessageKind,
    envelope_hash,
    genesis_hash,
    open_envelope,
    seal,
)

PLAYERS = make_players()
KEYS = tuple(p.public_key for p in PLAYERS)
MATCH = hashlib.sha256(b"match").digest()
BODY = [7, "summon", [3, 1], b"\x00" * 32]


def sealed(sender: int = 0, **overrides) -> Envelope:
    fields = {
        "match_id": MATCH,
        "seq": 5,
        "prev_hash": genesis_hash(MATCH),
        "sender": sender,
        "kind": MessageKind.ACTION,
        "body": BODY,
    }
    fields.update(overrides)
    return seal(PLAYERS[fields["sender"]], **fields)


def sign_raw(signer: int, fields: list) -> bytes:
    """Wire bytes for arbitrary unsigned fields, validly signed (to reach the later checks)."""
    unsigned = encode(fields)
    signature = PLAYERS[signer].sign(TAG_ENVELOPE_SIGNATURE + unsigned)
    return b"\x98" + unsigned[1:] + b"\xc4\x40" + signature


def test_round_trip():
    envelope = sealed(sender=1)
    opened = open_envelope(envelope.raw, MATCH, KEYS)
    assert opened == envelope
    assert (opened.seq, opened.sender, opened.kind, opened.body) == (5, 1, MessageKind.ACTION, (
        7, "summon", [3, 1], b"\x00" * 32))
    assert opened.hash == envelope.hash == envelope_hash(envelope.raw)


def test_wire_layout_is_the_signed_array_plus_signature():
    envelope = sealed()
    fields = decode(envelope.raw, max_size=MAX_ENVELOPE_SIZE)
    assert fields == [PROTOCOL_VERSION, MATCH, 5, genesis_hash(MATCH), 0, 32, BODY,
                      envelope.signature]
    unsigned = encode(fields[:7])
    assert envelope.raw == b"\x98" + unsigned[1:] + b"\xc4\x40" + envelope.signature
    assert envelope.signed_bytes() == TAG_ENVELOPE_SIGNATURE + unsigned
    assert verify_signature(KEYS[0], envelope.signature, envelope.signed_bytes())
    assert envelope.hash == hashlib.sha256(TAG_ENVELOPE_HASH + envelope.raw).digest()


def test_directly_built_envelope_encodes_like_a_sealed_one():
    envelope = sealed()
    rebuilt = Envelope(*(getattr(envelope, f) for f in (
        "version", "match_id", "seq", "prev_hash", "sender", "kind", "body", "signature")))
    assert rebuilt.raw == envelope.raw


def test_every_single_byte_change_is_rejected():
    raw = sealed().raw
    for index in range(len(raw)):
        for flip in (0x01, 0x80):
            tampered = raw[:index] + bytes([raw[index] ^ flip]) + raw[index + 1 :]
            with pytest.raises(RemoteProtocolError):
                open_envelope(tampered, MATCH, KEYS)


def test_bad_signature_carries_the_bytes_and_blames_nobody():
    raw = sealed().raw
    forged = raw[:-1] + bytes([raw[-1] ^ 1])
    with pytest.raises(BadSignature) as info:
        open_envelope(forged, MATCH, KEYS)
    assert info.value.evidence == (forged,)
    assert info.value.player is None
    assert not info.value.attributable


def test_sender_field_must_match_the_signing_key():
    raw = sign_raw(0, [1, MATCH, 0, genesis_hash(MATCH), 1, 32, []])
    with pytest.raises(WrongSender) as info:
        open_envelope(raw, MATCH, KEYS)
    assert info.value.player == 0
    assert info.value.evidence == (raw,)
    assert info.value.attributable


def test_wrong_match_id_is_rejected_after_authentication():
    other = hashlib.sha256(b"other").digest()
    envelope = sealed(match_id=other)
    with pytest.raises(WrongMatch) as info:
        open_envelope(envelope.raw, MATCH, KEYS)
    assert info.value.player == 0
    assert info.value.evidence == (envelope.raw,)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ([2, MATCH, 0, bytes(32), 0, 32, []], "unsupported protocol version 2"),
        ([1, MATCH, 0, bytes(32), 0, 999, []], "unknown message kind 999"),
        ([1, MATCH, 0, bytes(32), 0, True, []], "unknown message kind"),
        ([1, MATCH[:31], 0, bytes(32), 0, 32, []], "match_id must be 32 bytes"),
        ([1, MATCH, -1, bytes(32), 0, 32, []], "seq must be"),
        ([1, MATCH, 0, bytes(31), 0, 32, []], "prev_hash must be"),
        ([1, MATCH, 0, bytes(32), 0, 32, b"body"], "body must be an array"),
    ],
)
def test_malformed_fields(fields, reason):
    raw = sign_raw(0, fields)
    with pytest.raises(MalformedMessage, match=reason):
        open_envelope(raw, MATCH, KEYS)


@pytest.mark.parametrize("value", [[1, 2, 3], list(range(9)), b"bytes", None])
def test_not_an_eight_field_array(value):
    with pytest.raises(MalformedMessage, match="array of 8 fields"):
        open_envelope(encode(value), MATCH, KEYS)


def test_sender_outside_the_seats_is_malformed():
    raw = b"\x98" + encode([1, MATCH, 0, bytes(32), 2, 32, []])[1:] + b"\xc4\x40" + bytes(64)
    with pytest.raises(MalformedMessage, match="sender must be 0 or 1"):
        open_envelope(raw, MATCH, KEYS)


def test_short_signature_is_malformed():
    raw = b"\x98" + encode([1, MATCH, 0, bytes(32), 0, 32, []])[1:] + encode(bytes(63))
    with pytest.raises(MalformedMessage, match="signature must be 64 bytes"):
        open_envelope(raw, MATCH, KEYS)


def test_size_limit():
    envelope = sealed(body=[b"x" * 5000])
    with pytest.raises(OversizeField):
        open_envelope(envelope.raw, MATCH, KEYS, max_size=4096)


def test_seal_refuses_bad_fields():
    with pytest.raises(LocalProtocolError, match="sender"):
        seal(PLAYERS[0], match_id=MATCH, seq=0, prev_hash=bytes(32), sender=2,
             kind=MessageKind.ACTION, body=[])
    with pytest.raises(LocalProtocolError, match="match_id"):
        sealed(match_id=b"short")
    with pytest.raises(LocalProtocolError):
        sealed(body=[1.5])
    with pytest.raises(ValueError):
        sealed(kind=999)


def test_open_requires_two_keys():
    with pytest.raises(LocalProtocolError, match="known_keys"):
        open_envelope(sealed().raw, MATCH, KEYS[:1])


def test_message_kind_numbers_are_stable_and_unique():
    assert len({int(kind) for kind in MessageKind}) == len(MessageKind)
    assert (MessageKind.HELLO, MessageKind.ACTION, MessageKind.DECRYPT_SHARE) == (1, 32, 66)


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_raise_only_protocol_errors(data):
    with pytest.raises(RemoteProtocolError):
        open_envelope(data, MATCH, KEYS)


@settings(max_examples=200)
@given(st.integers(0, 500), st.integers(1, 255))
def test_mutated_envelopes_raise_only_remote_errors(position, xor):
    raw = sealed().raw
    position %= len(raw)
    tampered = raw[:position] + bytes([raw[position] ^ xor]) + raw[position + 1 :]
    with pytest.raises(RemoteProtocolError):
        open_envelope(tampered, MATCH, KEYS)


def test_signatures_agree_with_the_openssl_ed25519():
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    envelope = sealed()
    reference = Ed25519PrivateKey.from_private_bytes(PLAYERS[0].secret_bytes())
    public = reference.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    assert public == KEYS[0]
    assert reference.sign(envelope.signed_bytes()) == envelope.signature
