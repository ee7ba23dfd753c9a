# Signed envelopes: the one shape of every protocol message.
#
# An envelope is the canonical 8-array [version, match_id, seq, prev_hash, sender, kind, body,
# signature]. The signature covers TAG_ENVELOPE_SIGNATURE followed by the canonical 7-array of
# the first seven fields. Because msgpack frames an array as one header byte (0x97 / 0x98 for 7 /
# 8 items) followed by the items, the wire bytes are the signed array with its header bumped and
# the signature (bin8: c4 40 + 64 bytes) appended: 0x98 || signed[1:] || c4 40 || sig. So sealing
# encodes once, and opening recovers the exact signed bytes by slicing, never by re-encoding.
#
# An envelope's hash, SHA-256(TAG_ENVELOPE_HASH || wire bytes), is what the next envelope's
# prev_hash names. The first chain envelope's prev_hash is the genesis hash of the match id, so
# a chain cannot be grafted onto another match's setup.
#
# Opening checks, in order: size and canonical form (MalformedMessage / OversizeField; every kind
# but EVIDENCE leaves EVIDENCE_HEADROOM bytes of the limit free), field
# types and the protocol version (MalformedMessage), the signature under the key of the seat the
# envelope names (BadSignature, or WrongSender when the other seat's key verifies it), and last
# the match id (WrongMatch), so that everything a peer is blamed for is something it signed.
# Sequence and linkage are the chain's business (protocol/wire/chain.py).
from __future__ import annotations

import enum
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from versus.protocol.crypto.identity import SIGNATURE_SIZE, Identity, verify_signature
from versus.protocol.errors import (
    BadSignature,
    LocalProtocolError,
    MalformedMessage,
    OversizeField,
    WrongMatch,
    WrongSender,
)
from versus.protocol.wire.canonical import (
    HASH_SIZE,
    INT_MAX,
    TAG_ENVELOPE_HASH,
    TAG_ENVELOPE_SIGNATURE,
    TAG_GENESIS,
    decode,
    encode,
    encode_after,
    tagged_hash,
)

PROTOCOL_VERSION = 1
MATCH_ID_SIZE = HASH_SIZE
#: the match id field of HELLO envelopes, sent before the match id exists
NO_MATCH_ID = bytes(MATCH_ID_SIZE)
SEATS = (0, 1)

#: default limit on one envelope's wire size; shared-pool SHUFFLE messages are the big ones
MAX_ENVELOPE_SIZE = 1 << 20
#: room kept free for an EVIDENCE envelope's own fields (code, message, framing) around the
#: offending envelope it carries: every other kind is limited to MAX_ENVELOPE_SIZE minus this,
#: so an EVIDENCE that quotes any envelope a peer can receive still fits the envelope limit
EVIDENCE_HEADROOM = 8 << 10
MAX_MESSAGE_SIZE = MAX_ENVELOPE_SIZE - EVIDENCE_HEADROOM

_SIGNED_HEADER = b"\x97"  # fixarray of 7
_WIRE_HEADER = b"\x98"  # fixarray of 8
_SIGNATURE_TRAILER = b"\xc4\x40"  # bin8 of 64 bytes
_SIGNATURE_TAIL = len(_SIGNATURE_TRAILER) + SIGNATURE_SIZE


class MessageKind(enum.IntEnum):
    """Every message kind of the protocol; the number is what goes on the wire.

    Ranges keep related kinds together and leave room: 1-15 setup and joint randomness,
    16-31 decklist deal, 32-47 play, 48-63 end of match, 64-79 shared-pool deal. A new kind
    takes the next free number in its range; numbers are never reused.
    """

    HELLO = 1
    COMMIT = 2  # coin-flip seed commitment
    REVEAL = 3  # coin-flip seed reveal
    DECK_COMMIT = 16  # per-slot card commitments + root (decklist mode)
    DRAW_SEED_COMMIT = 17  # opponent's commitment to the draw-order seed
    DRAW = 18  # the draw-order chooser announces the next drawn slot
    OPEN = 19  # the deck owner opens a slot (card + salt)
    ACTION = 32  # a turn action of the active player
    CHOICE = 33  # an answer to a choice the rules ask of a player
    CHANCE = 34  # one seat's preimage of its chance chain: two settle a public random outcome
    RESULT = 48  # a player states the final result and state hash
    RESULT_COSIGN = 49  # the other player countersigns it
    RESIGN = 50
    TIMEOUT_CLAIM = 51  # a claim that the peer exceeded its clock (with explicit times)
    SECRET_REVEAL = 52  # end-of-match openings of every remaining secret
    # 53 was ABORT, never sent (EVIDENCE ends a match): retired, never reused
    EVIDENCE = 54  # a RemoteProtocolError's code and evidence envelopes
    DISPUTE = 55  # the accused's signed refusal of a timeout claim its own clock contradicts
    KEY_SHARE = 64  # shared-pool: public key share + proof
    SHUFFLE = 65  # shared-pool: re-encrypted, permuted deck + shuffle proof
    DECRYPT_SHARE = 66  # shared-pool: decryption share + Chaum–Pedersen proof


#: each kind by its wire number
_KINDS: dict[int, MessageKind] = {int(kind): kind for kind in MessageKind}


@dataclass(frozen=True, eq=False)
class Envelope:
    """One signed message. Build with `seal`, parse with `open_envelope`; `raw` is the wire form.

    Two envelopes are equal when their wire bytes are (a body sealed with tuples and the same
    body decoded as lists are one message).
    """

    version: int
    match_id: bytes
    seq: int
    prev_hash: bytes
    sender: int
    kind: MessageKind
    body: tuple[Any, ...] | list[Any]
    signature: bytes

    def __post_init__(self) -> None:
        problem = _field_problem(
            self.version, self.match_id, self.seq, self.prev_hash, self.sender, self.body
        )
        if problem is None and not _is_bytes(self.signature, SIGNATURE_SIZE):
            problem = f"signature must be {SIGNATURE_SIZE} bytes"
        if problem is None and not isinstance(self.kind, MessageKind):
            problem = f"kind must be a MessageKind, got {self.kind!r}"
        if problem is not None:
            raise LocalProtocolError(f"invalid envelope: {problem}")

    @cached_property
    def raw(self) -> bytes:
        """The exact wire bytes (also what the transcript stores)."""
        return _wire(self.signed_bytes()[len(TAG_ENVELOPE_SIGNATURE) :], self.signature)

    @cached_property
    def hash(self) -> bytes:
        """SHA-256(TAG_ENVELOPE_HASH || raw): what the next envelope's prev_hash names."""
        return envelope_hash(self.raw)

    def signed_bytes(self) -> bytes:
        """The exact message the signature covers: TAG_ENVELOPE_SIGNATURE || 7-array."""
        return TAG_ENVELOPE_SIGNATURE + encode(_unsigned_fields(self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Envelope) and self.raw == other.raw

    def __hash__(self) -> int:
        return hash(self.raw)

    def __repr__(self) -> str:
        return (
            f"Envelope(seq={self.seq}, sender={self.sender}, kind={self.kind.name}, "
            f"match_id={self.match_id[:4].hex()}…, hash={self.hash[:4].hex()}…)"
        )


def envelope_hash(raw: bytes) -> bytes:
    return hashlib.sha256(TAG_ENVELOPE_HASH + raw).digest()


def genesis_hash(match_id: bytes) -> bytes:
    """The prev_hash of a match's first chain envelope."""
    return tagged_hash(TAG_GENESIS, match_id)


def seal(
    identity: Identity,
    *,
    match_id: bytes,
    seq: int,
    prev_hash: bytes,
    sender: int,
    kind: MessageKind,
    body: Sequence[Any],
    version: int = PROTOCOL_VERSION,
) -> Envelope:
    """Sign a new envelope with `identity` (the key of seat `sender`)."""
    problem = _field_problem(version, match_id, seq, prev_hash, sender, body)
    if problem is not None:
        raise LocalProtocolError(f"cannot seal envelope: {problem}")
    kind = MessageKind(kind)
    # the header fields were just checked (`_field_problem`): only the body is walked
    unsigned = encode_after([version, match_id, seq, prev_hash, sender, int(kind)], body)
    signature = identity.sign(TAG_ENVELOPE_SIGNATURE + unsigned)
    raw = _wire(unsigned, signature)
    # Every check of Envelope.__post_init__ has just passed (the signature is ours, 64 bytes):
    # build it without repeating them, its wire bytes and hash primed (every envelope sent is
    # appended to the chain, which reads the hash at once).
    return _trusted(version, match_id, seq, prev_hash, sender, kind, tuple(body), signature, raw)


def open_envelope(
    raw: bytes,
    expected_match_id: bytes,
    known_keys: Sequence[bytes],
    *,
    max_size: int = MAX_ENVELOPE_SIZE,
    parsed: Envelope | None = None,
    signature: bool = True,
) -> Envelope:
    """Parse and authenticate wire bytes. `known_keys[s]` is the public key of seat s.

    Raises MalformedMessage/OversizeField, BadSignature, WrongSender or WrongMatch; each
    carries `raw` as evidence and, once the signature is checked, the responsible seat.
    `parsed`: `parse_envelope(raw)` already done by the caller (not repeated). `signature=False`
    skips the signature check: only for the offline verifier's fast path, where a later
    signature of the same seat endorses the envelope through the hash chain (SPEC §4.4).
    """
    _check_known_keys(known_keys)
    envelope = parsed if parsed is not None else parse_envelope(raw, max_size=max_size)
    limit = max_size - EVIDENCE_HEADROOM if max_size > EVIDENCE_HEADROOM else max_size
    if envelope.kind is not MessageKind.EVIDENCE and len(envelope.raw) > limit:
        # before the signature: bytes this large prove nothing about anyone (SPEC §4.3)
        raise OversizeField(
            f"{envelope.kind.name} envelope of {len(envelope.raw)} bytes exceeds the limit of "
            f"{limit} (only EVIDENCE may use the last {EVIDENCE_HEADROOM} bytes)",
            [envelope.raw],
        )
    if signature:
        check_signature(envelope, known_keys)
    if envelope.match_id != expected_match_id:
        raise WrongMatch(
            f"envelope seq {envelope.seq} from seat {envelope.sender} is for match "
            f"{envelope.match_id.hex()}, not {expected_match_id.hex()}",
            [envelope.raw],
            player=envelope.sender,
        )
    return envelope


def parse_envelope(raw: bytes, *, max_size: int = MAX_ENVELOPE_SIZE) -> Envelope:
    """Decode wire bytes into an Envelope without checking the signature or the match."""
    fields = decode(raw, max_size=max_size, max_bytes_len=max_size, max_str_len=max_size)
    raw = bytes(raw)
    if type(fields) is not list or len(fields) != 8:
        raise MalformedMessage(
            f"an envelope is an array of 8 fields, got {_describe(fields)}", [raw]
        )
    version, match_id, seq, prev_hash, sender, kind, body, signature = fields
    problem = _field_problem(version, match_id, seq, prev_hash, sender, body)
    if problem is None and not _is_bytes(signature, SIGNATURE_SIZE):
        problem = f"signature must be {SIGNATURE_SIZE} bytes"
    if problem is None and version != PROTOCOL_VERSION:
        problem = f"unsupported protocol version {version} (this side speaks {PROTOCOL_VERSION})"
    if problem is None:
        kind = _KINDS.get(kind) if type(kind) is int else None  # a dict: no Enum call
        if kind is None:
            problem = f"unknown message kind {fields[5]!r}"
    if problem is not None:
        raise MalformedMessage(f"malformed envelope: {problem}", [raw])
    # Every check of Envelope.__post_init__ has just passed: build it without repeating them
    # (the verifier parses thousands of envelopes per second). `raw` is canonical, so identical
    # to re-encoding: that work is saved.
    return _trusted(version, match_id, seq, prev_hash, sender, kind, tuple(body), signature, raw)


def check_signature(envelope: Envelope, known_keys: Sequence[bytes]) -> None:
    """Raise BadSignature (or WrongSender) unless seat `envelope.sender`'s key signed it."""
    message = TAG_ENVELOPE_SIGNATURE + _SIGNED_HEADER + envelope.raw[1:-_SIGNATURE_TAIL]
    if verify_signature(known_keys[envelope.sender], envelope.signature, message):
        return
    other = 1 - envelope.sender
    if other < len(known_keys) and verify_signature(known_keys[other], envelope.signature, message):
        raise WrongSender(
            f"envelope seq {envelope.seq} names seat {envelope.sender} but is signed by "
            f"seat {other}",
            [envelope.raw],
            player=other,
        )
    raise BadSignature(
        f"envelope seq {envelope.seq} ({envelope.kind.name}) does not carry a valid "
        f"signature of seat {envelope.sender}",
        [envelope.raw],
    )


def _trusted(version: int, match_id: bytes, seq: int, prev_hash: bytes, sender: int,
             kind: MessageKind, body: tuple[Any, ...], signature: bytes, raw: bytes) -> Envelope:
    """An Envelope whose fields the caller has checked, with `raw` and `hash` already stored
    where `cached_property` would put them on first use."""
    envelope = object.__new__(Envelope)
    envelope.__dict__.update(
        version=version, match_id=match_id, seq=seq, prev_hash=prev_hash, sender=sender,
        kind=kind, body=body, signature=signature, raw=raw, hash=envelope_hash(raw))
    return envelope


def _check_known_keys(known_keys: Sequence[bytes]) -> None:
    if len(known_keys) != len(SEATS) or not all(_is_bytes(k, 32) for k in known_keys):
        raise LocalProtocolError(
            f"known_keys must be the two seats' 32-byte public keys, got {known_keys!r:.120}"
        )


def _unsigned_fields(envelope: Envelope) -> list[Any]:
    return [
        envelope.version,
        envelope.match_id,
        envelope.seq,
        envelope.prev_hash,
        envelope.sender,
        int(envelope.kind),
        envelope.body,
    ]


def _wire(unsigned: bytes, signature: bytes) -> bytes:
    return _WIRE_HEADER + unsigned[1:] + _SIGNATURE_TRAILER + signature


def _field_problem(
    version: Any, match_id: Any, seq: Any, prev_hash: Any, sender: Any, body: Any
) -> str | None:
    if type(version) is not int or not 0 <= version <= 0xFFFF:
        return f"version must be an int in 0..65535, got {version!r:.40}"
    if not _is_bytes(match_id, MATCH_ID_SIZE):
        return f"match_id must be {MATCH_ID_SIZE} bytes, got {match_id!r:.80}"
    if type(seq) is not int or not 0 <= seq <= INT_MAX:
        return f"seq must be a non-negative 64-bit int, got {seq!r:.40}"
    if not _is_bytes(prev_hash, HASH_SIZE):
        return f"prev_hash must be {HASH_SIZE} bytes, got {prev_hash!r:.80}"
    if type(sender) is not int or sender not in SEATS:
        return f"sender must be 0 or 1, got {sender!r:.40}"
    if not isinstance(body, list | tuple):
        return f"body must be an array, got {type(body).__name__}"
    return None


def _is_bytes(value: Any, size: int) -> bool:
    return type(value) is bytes and len(value) == size


def _describe(value: Any) -> str:
    if type(value) is list:
        return f"an array of {len(value)}"
    return type(value).__name__
