# Fuzz targets: one function per decoder of untrusted bytes, and seed inputs from real objects.
#
# A target takes one byte string and returns normally whatever the bytes are; the decoders' own
# documented errors (SPEC §4.9, §6.11) are swallowed. Anything that escapes is a finding:
# another exception class (a crash the peer could trigger), or an AssertionError from an
# invariant the target checks on inputs the decoder accepted (decode → encode gives the same
# bytes; frames split the same whatever the chunking; a re-signed envelope opens).
#
# Several targets read their first byte as a *mode* so that one byte string can reach both the
# raw decoder and the code behind a signature: a fuzzer cannot forge Ed25519, so the "re-sign"
# modes replace the signature of a mutated message with a valid one by the fixed test keys and
# check what lies behind it. The transcript target also has a record-level mode, where the bytes
# are edits (drop, duplicate, swap) applied to the records of a real transcript.
#
# Seeds are built here from real objects (a real handshake, a real engine-free chain, a real
# shared-pool deal) with deterministic randomness, never stored as binaries. `mutate` is the
# structure-unaware byte mutator shared by hypothesis (tests/fuzz/) and the built-in loop of
# fuzz/run.py; it is a pure function of its inputs, so both engines replay exactly.
from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fuzz import files
from fuzz.rng import seeded_rng
from versus.p2p.discovery import (
    SIGNATURE_DOMAIN,
    GameTable,
    InvalidAnnouncementError,
    Offer,
    _signed_part,
    decode_announcement,
    encode_announcement,
)
from versus.p2p.errors import (
    FrameTooLargeError,
    HandshakeError,
    MalformedFrameError,
    PeerRejectedError,
)
from versus.p2p.framing import (
    MAX_FRAME,
    MAX_HANDSHAKE_FRAME,
    FrameDecoder,
    encode_frame,
    pack_payload,
    unpack_payload,
)
from versus.p2p.handshake import Handshake, HandshakeState, Role
from versus.protocol.crypto.identity import Identity
from versus.protocol.deals.pool import SharedPoolDeal, parse_message
from versus.protocol.errors import (
    BadSignature,
    MalformedMessage,
    RemoteProtocolError,
    WrongMatch,
    WrongSender,
)
from versus.protocol.match.setup import MatchSetup, make_hello
from versus.protocol.wire.canonical import TAG_ENVELOPE_SIGNATURE, decode, encode
from versus.protocol.wire.envelope import (
    Envelope,
    MessageKind,
    open_envelope,
    parse_envelope,
)
from versus.protocol.wire.transcript import (
    Transcript,
    dump_transcript,
    load_transcript,
    transcript_header,
    verify_chain,
)

#: the largest input a fuzzer should build for each target (bounds time per input)
MAX_INPUT = 1 << 16


@functools.cache
def players() -> tuple[Identity, Identity]:
    rng = seeded_rng("players")
    return Identity.generate(rng), Identity.generate(rng)


# --- a real match: setup, chain, transcript -----------------------------------------------------

RULESET = b"\x92\xa8standard\x01"
CATALOGUE_HASH = hashlib.sha256(b"fuzz catalogue").digest()


@functools.cache
def real_setup() -> MatchSetup:
    rng = seeded_rng("hellos")
    hellos = [
        make_hello(
            identity, seat=seat, ruleset=RULESET, catalogue_hash=CATALOGUE_HASH, rng=rng,
            software="versus-fuzz",
        )
        for seat, identity in enumerate(players())
    ]
    return MatchSetup.from_hellos(*hellos)


# Bodies of varied shapes and kinds, so mutations start from every canonical type.
_BODIES: tuple[tuple[MessageKind, list[object]], ...] = (
    (MessageKind.COMMIT, ["layout", bytes(range(32))]),
    (MessageKind.COMMIT, ["layout", bytes(range(32, 64))]),
    (MessageKind.REVEAL, ["layout", b"\x01" * 32]),
    (MessageKind.REVEAL, ["layout", b"\x02" * 32]),
    (MessageKind.ACTION, [0, "summon", [0, 3], None, True, False, -1, 2**40, "é✓"]),
    (MessageKind.CHOICE, [1, [[1, 2], [3, [4, [5]]]], b"", ""]),
    (MessageKind.ACTION, [2, "attack", [-(2**63), 2**63 - 1], b"\xff" * 300]),
    (MessageKind.RESIGN, []),
)


@functools.cache
def real_envelopes() -> tuple[Envelope, ...]:
    chain = real_setup().new_chain()
    for turn, (kind, body) in enumerate(_BODIES):
        chain.seal(players()[turn % 2], kind, body)
    return chain.envelopes


@functools.cache
def real_transcript() -> Transcript:
    hellos = tuple(hello.raw for hello in real_setup().hellos)
    return Transcript((hellos[0], hellos[1]), tuple(e.raw for e in real_envelopes()))


# --- byte mutations ---------------------------------------------------------------------------

_INTERESTING_BYTES = (
    0x00, 0x01, 0x7F, 0x80, 0xFF, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xC4, 0xC5, 0xC6,
    0xC7, 0xCA, 0xCB, 0xCC, 0xCF, 0xD0, 0xD3, 0xD4, 0xD9, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF,
    0xE0,
)
_INTERESTING_INTS = (0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000,
                     MAX_HANDSHAKE_FRAME, MAX_HANDSHAKE_FRAME + 1, MAX_FRAME, MAX_FRAME + 1,
                     0x7FFFFFFF, 0xFFFFFFFF)
MUTATION_KINDS = 9


def mutate(data: bytes, ops: Sequence[tuple[int, int, int]], donors: Sequence[bytes]) -> bytes:
    """Apply byte-level edits `(kind, position, value)` to `data`; positions wrap around.

    Kinds: flip a bit, set an interesting byte, insert a byte, delete a span, truncate,
    duplicate a span, splice the tail of a donor, overwrite a big-endian u32 or u16.
    """
    out = bytearray(data)
    for kind, position, value in ops:
        pos = position % (len(out) + 1)
        match kind % MUTATION_KINDS:
            case 0 if out:
                out[pos % len(out)] ^= 1 << (value % 8)
            case 1 if out:
                out[pos % len(out)] = _INTERESTING_BYTES[value % len(_INTERESTING_BYTES)]
            case 2:
                out.insert(pos, value % 256)
            case 3:
                del out[pos : pos + 1 + value % 16]
            case 4:
                del out[pos:]
            case 5:
                out[pos:pos] = out[pos : pos + 1 + value % 64]
            case 6 if donors:
                donor = donors[value % len(donors)]
                out[pos:] = donor[position % (len(donor) + 1) :]
            case 7:
                number = _INTERESTING_INTS[value % len(_INTERESTING_INTS)]
                out[pos : pos + 4] = number.to_bytes(4, "big")
            case 8:
                number = _INTERESTING_INTS[value % len(_INTERESTING_INTS)] & 0xFFFF
                out[pos : pos + 2] = number.to_bytes(2, "big")
        if len(out) > MAX_INPUT:
            del out[MAX_INPUT:]
    return bytes(out)


# --- frame decoder and msgpack payloads ---------------------------------------------------------


def fuzz_frame(data: bytes) -> None:
    """data[0]: bit 0 picks the handshake limit, the rest a chunk size; data[1:] is the stream."""
    if not data:
        return
    max_frame = MAX_HANDSHAKE_FRAME if data[0] & 1 else MAX_FRAME
    chunk = 1 + (data[0] >> 1)
    stream = data[1:]
    decoder = FrameDecoder(max_frame)
    bodies: list[bytes] = []
    failure: Exception | None = None
    try:
        for start in range(0, len(stream), chunk):
            decoder.feed(stream[start : start + chunk])
            while (body := decoder.next_frame()) is not None:
                bodies.append(body)
    except (FrameTooLargeError, MalformedFrameError) as error:
        failure = error
    consumed = b"".join(encode_frame(body, max_frame) for body in bodies)
    assert stream.startswith(consumed), "the bodies returned are not the stream's frames"
    if failure is None:
        assert decoder.in_frame == (len(consumed) < len(stream)), "in_frame disagrees"
    else:
        for call in (lambda: decoder.feed(b"x"), decoder.next_frame):
            try:
                call()
            except (FrameTooLargeError, MalformedFrameError):
                continue
            raise AssertionError("a broken decoder accepted more input")
    for body in bodies:
        fuzz_payload(body)


def fuzz_payload(data: bytes) -> None:
    """unpack_payload: MalformedFrameError or a value that msgpack packs again."""
    try:
        value = unpack_payload(data)
    except MalformedFrameError:
        return
    pack_payload(value)  # whatever the strict unpacker accepts is a plain msgpack value


def frame_seeds() -> list[bytes]:
    payloads = [pack_payload(x) for x in ([1, "a", b"\x00"], {"k": [None, True, 1.5]}, "x" * 40)]
    stream = b"".join(encode_frame(p) for p in payloads)
    handshake = b"".join(encode_frame(m, MAX_HANDSHAKE_FRAME) for m in handshake_messages())
    return [
        bytes([0]) + stream,
        bytes([6]) + stream,
        bytes([1]) + handshake,
        bytes([255]) + handshake + stream,
    ]


# --- handshake messages ----------------------------------------------------------------------

HANDSHAKE_MODES = ("hello-to-responder", "welcome-to-initiator", "auth-to-responder")


def _initiator() -> Handshake:
    return Handshake(Role.INITIATOR, players()[0], seeded_rng("initiator"))


def _responder() -> Handshake:
    return Handshake(Role.RESPONDER, players()[1], seeded_rng("responder"))


@functools.cache
def handshake_messages() -> tuple[bytes, bytes, bytes]:
    """HELLO, WELCOME, AUTH of one real handshake (the targets replay the same sides)."""
    initiator, responder = _initiator(), _responder()
    hello = initiator.start()
    welcome = responder.receive(hello)
    assert welcome is not None
    auth = initiator.receive(welcome)
    assert auth is not None
    responder.receive(auth)
    return hello, welcome, auth


def fuzz_handshake(data: bytes) -> None:
    """data[0] % 3 picks the message the bytes stand for (HANDSHAKE_MODES); data[1:] is it."""
    if not data:
        return
    mode, message = data[0] % len(HANDSHAKE_MODES), data[1:]
    if mode == 1:
        side = _initiator()
        side.start()
    else:
        side = _responder()
        if mode == 2:
            side.receive(handshake_messages()[0])
    try:
        side.receive(message)
    except (HandshakeError, PeerRejectedError):
        assert side.state is HandshakeState.FAILED, "a failed handshake is not FAILED"
        return
    if mode == 0:
        assert side.state is HandshakeState.AWAIT_AUTH
    else:
        assert side.done and side.result is not None
        assert side.result.peer_public_key == players()[mode % 2].public_key


def handshake_seeds() -> list[bytes]:
    hello, welcome, auth = handshake_messages()
    reject = bytes([0x7F, 1]) + "no common version é".encode()
    return [b"\x00" + hello, b"\x01" + welcome, b"\x01" + reject, b"\x02" + auth]


# --- LAN announcements -----------------------------------------------------------------------

_TIMESTAMP_OFFSET = 9  # "VSLD" format version port
_KEY_OFFSET = 17  # ... timestamp u64
ANNOUNCE_NOW = 1_700_000_000.0  # the receiver's clock for every announcement input (unix s)


def fuzz_announcement(data: bytes) -> None:
    """data[0] bit 0: data[1:] is the signed part, re-keyed and re-signed by the test key;
    bit 1 (with bit 0): its timestamp is set to ANNOUNCE_NOW first, so mutations reach the
    checks behind the freshness window. An accepted datagram must round-trip, enter a fresh
    GameTable once, and not renew it when repeated."""
    if not data:
        return
    datagram = data[1:]
    if data[0] & 1:
        identity = players()[0]
        body = datagram
        if data[0] & 2:
            stamp = int(ANNOUNCE_NOW * 1000).to_bytes(8, "big")
            body = body[:_TIMESTAMP_OFFSET] + stamp + body[_TIMESTAMP_OFFSET + 8 :]
        body = body[:_KEY_OFFSET] + identity.public_key + body[_KEY_OFFSET + 32 :]
        datagram = body + identity.sign(SIGNATURE_DOMAIN + body)
    try:
        announcement = decode_announcement(datagram, ANNOUNCE_NOW)
    except InvalidAnnouncementError:
        return
    assert _signed_part(announcement) + datagram[-64:] == datagram, "announcement round trip"
    table = GameTable()
    assert table.offer(datagram, "192.0.2.1", ANNOUNCE_NOW) is Offer.ADDED, "announcement added"
    assert table.offer(datagram, "192.0.2.1", ANNOUNCE_NOW + 1) is Offer.REPEATED, "repeat"
    assert len(table.games(ANNOUNCE_NOW + 1)) == 1, "one game listed"


def announcement_seeds() -> list[bytes]:
    identity = players()[0]
    real = [
        encode_announcement(identity, "Alice's game", 47820, ANNOUNCE_NOW),
        encode_announcement(identity, "é" * 32, 1, ANNOUNCE_NOW - 29),
    ]
    format_1 = real[0][:4] + b"\x01" + real[0][5:]
    return [b"\x00" + real[0], b"\x00" + real[1], b"\x00" + format_1,
            b"\x01" + real[0][:-64], b"\x03" + real[1][:-64]]


# --- canonical msgpack and envelopes ---------------------------------------------------------


def fuzz_canonical(data: bytes) -> None:
    try:
        value = decode(data, max_size=MAX_INPUT)
    except MalformedMessage:
        return
    assert encode(value) == data, "decode → encode changed the bytes"


def fuzz_envelope(data: bytes) -> None:
    """data[0] odd: re-sign the parsed envelope by its seat's key, then open it and chain it."""
    if not data:
        return
    raw = data[1:]
    fuzz_canonical(raw)
    setup = real_setup()
    try:
        envelope = parse_envelope(raw)
    except MalformedMessage:
        return
    rebuilt = Envelope(
        envelope.version, envelope.match_id, envelope.seq, envelope.prev_hash, envelope.sender,
        envelope.kind, envelope.body, envelope.signature,
    )
    assert rebuilt.signed_bytes()[len(TAG_ENVELOPE_SIGNATURE) + 1 :] == raw[1:-66]
    assert rebuilt.raw == raw, "parse → encode changed the envelope bytes"
    if data[0] & 1:
        signed = TAG_ENVELOPE_SIGNATURE + b"\x97" + raw[1:-66]
        raw = raw[:-64] + players()[envelope.sender].sign(signed)
    try:
        opened = open_envelope(raw, setup.match_id, setup.keys)
    except (BadSignature, WrongSender, WrongMatch) as error:
        resigned_here = bool(data[0] & 1)
        assert not (resigned_here and not isinstance(error, WrongMatch)), error
        assert not (isinstance(error, WrongMatch) and envelope.match_id == setup.match_id)
        return
    assert opened.raw == raw
    chain = setup.new_chain()
    try:
        for accepted in real_envelopes()[: data[0] >> 5]:
            chain.receive(accepted.raw)
        chain.receive(raw)
    except RemoteProtocolError:
        return


def envelope_seeds() -> list[bytes]:
    # Mode byte 1 + 32·i re-signs and chains after the first i real envelopes: the seed for
    # envelope i is then the next link, so mutations start from an accepted envelope.
    seeds = [b"\x00" + hello.raw for hello in real_setup().hellos]
    for i, envelope in enumerate(real_envelopes()):
        seeds += [b"\x00" + envelope.raw, bytes([1 + 32 * (i % 8)]) + envelope.raw]
    return seeds


# --- transcripts ---------------------------------------------------------------------------

#: record edits of the record-level mode: (op, index) byte pairs, at most MAX_RECORD_EDITS
RECORD_OPS = ("drop", "duplicate", "swap-with-next", "move-to-end", "cut-after")
MAX_RECORD_EDITS = 64


def edit_records(records: Sequence[bytes], edits: bytes) -> list[bytes]:
    out = list(records)
    edits = edits[: 2 * MAX_RECORD_EDITS]
    for op, index in zip(edits[::2], edits[1::2], strict=False):
        if not out:
            break
        i = index % len(out)
        match RECORD_OPS[op % len(RECORD_OPS)]:
            case "drop":
                del out[i]
            case "duplicate":
                out.insert(i + 1, out[i])
            case "swap-with-next" if i + 1 < len(out):
                out[i], out[i + 1] = out[i + 1], out[i]
            case "move-to-end":
                out.append(out.pop(i))
            case "cut-after":
                del out[i + 1 :]
    return out


def fuzz_transcript(data: bytes) -> None:
    """data[0] even: data[1:] is a transcript file; odd: record edits of the real transcript."""
    if not data:
        return
    real = real_transcript().records
    edited: list[bytes] | None = None
    if data[0] & 1:
        edited = edit_records(real, data[1:])
        file = transcript_header() + b"".join(len(r).to_bytes(4, "big") + r for r in edited)
    else:
        file = data[1:]
    try:
        transcript = load_transcript(file, max_size=MAX_INPUT * 4)
    except MalformedMessage:  # TranscriptFormatError, OversizeField
        assert edited is None or len(edited) < 2, "a well-framed transcript was refused"
        return
    assert dump_transcript(transcript) == file, "load → dump changed the file"
    verdict = verify_chain(transcript)
    if verdict.ok:
        assert verdict.checked == len(transcript.records)
    else:
        assert isinstance(verdict.error, RemoteProtocolError)
        assert verdict.bad_index is not None and 0 <= verdict.bad_index < len(transcript.records)
    if edited is not None:
        # Only real records move around, so the chain verifies exactly when it is a prefix.
        is_prefix = len(edited) >= 2 and list(real[: len(edited)]) == edited
        assert verdict.ok == is_prefix, (verdict.describe(), len(edited))


def transcript_seeds() -> list[bytes]:
    file = dump_transcript(real_transcript())
    return [b"\x00" + file, b"\x01", b"\x01\x01\x03\x02\x05", b"\x01\x04\x04"]


# --- shared-pool deal messages ---------------------------------------------------------------


def fuzz_pool(data: bytes) -> None:
    """data[0] even: canonical msgpack (as in an envelope body); odd: any strict msgpack."""
    if not data:
        return
    raw = data[1:]
    try:
        value = decode(raw, max_size=MAX_INPUT) if data[0] % 2 == 0 else unpack_payload(raw)
    except (MalformedMessage, MalformedFrameError):
        return
    try:
        message = parse_message(value)
    except MalformedMessage:  # MalformedMessageError, InvalidPointError, InvalidScalarError
        return
    if data[0] % 2 == 0:
        assert encode(message.to_wire()) == raw, "parse → to_wire changed the message"


@functools.cache
def pool_messages() -> tuple[list[object], ...]:
    cards = ["c0", "c1", "c2", "c3"]
    match_id = real_setup().match_id
    keys = tuple(p.public_key for p in players())
    sides = [
        SharedPoolDeal(role, match_id, keys, cards, seeded_rng(f"deal/{role}"))
        for role in (0, 1)
    ]
    shares = [side.key_share() for side in sides]
    sides[1].accept_key_share(shares[0])
    sides[0].accept_key_share(shares[1])
    shuffle_0 = sides[0].shuffle()
    sides[1].accept_shuffle(shuffle_0)
    shuffle_1 = sides[1].shuffle()
    sides[0].accept_shuffle(shuffle_1)
    position = 0  # dealt to seat 0
    draw = sides[1].draw_share(position)
    sides[0].accept_draw_share(position, draw)
    reveal = sides[0].reveal(position)
    end = sides[0].end_reveal()
    return tuple(m.to_wire() for m in (shares[0], shuffle_0, shuffle_1, draw, reveal, end))


def pool_seeds() -> list[bytes]:
    return [bytes([mode]) + encode(m) for m in pool_messages() for mode in (0, 1)]


# --- the table ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    name: str
    run: Callable[[bytes], None]
    seeds: Callable[[], list[bytes]]
    covers: str


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("frame", fuzz_frame, frame_seeds,
               "p2p/framing.py FrameDecoder (any chunking, both limits) and unpack_payload"),
        Target("handshake", fuzz_handshake, handshake_seeds,
               "p2p/handshake.py HELLO at a responder, WELCOME/REJECT at an initiator, AUTH"),
        Target("announcement", fuzz_announcement, announcement_seeds,
               "p2p/discovery.py decode_announcement (format 2, timestamped) and "
               "GameTable.offer, raw and re-signed"),
        Target("envelope", fuzz_envelope, envelope_seeds,
               "protocol/wire/canonical.py decode, wire/envelope.py parse/open, chain receive"),
        Target("transcript", fuzz_transcript, transcript_seeds,
               "protocol/wire/transcript.py load_transcript + verify_chain, bytes, record edits"),
        Target("pool", fuzz_pool, pool_seeds,
               "protocol/deals/pool.py parse_message from canonical and from strict msgpack"),
    )
}


def _file_targets() -> tuple[Target, ...]:
    """The targets of fuzz/files.py (positions, solo files, reveal messages, invites, NAT
    datagrams), so that TARGETS names every target once."""
    return (
        Target("position", files.fuzz_position, files.position_seeds,
               "every game's load_position and rules_for_position; accepted ones played on"),
        Target("solo", files.fuzz_solo, files.solo_seeds,
               "protocol/solo challenge, secret and published files; verify_run of run files"),
        Target("reveal", files.fuzz_reveal, files.reveal_seeds,
               "protocol/solo/service.py RevealRequest.from_bytes and parse_answer"),
        Target("invite", files.fuzz_invite, files.invite_seeds,
               "p2p/invite.py parse_invite and p2p/nat/relay.py RelayAddress.parse"),
        Target("nat", files.fuzz_nat, files.nat_seeds,
               "p2p/nat PCP and NAT-PMP decode_response and decode_request"),
    )


TARGETS.update((target.name, target) for target in _file_targets())
