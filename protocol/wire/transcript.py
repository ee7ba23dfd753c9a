# Transcript files: the exact signed bytes of one match, and the link-layer check of them.
#
# Layout (SPEC §4.10): an 8-byte magic, a 2-byte big-endian format version, then records, each
# a 4-byte big-endian length and that many bytes of one envelope's wire form. Records 0 and 1
# are the two HELLOs in seat order, the rest are the chain envelopes in seq order. The format is
# append-only on purpose: `p2p` can write the header, then one `encode_record` per envelope as it
# is accepted, and a crash leaves a readable prefix. Envelopes are kept as the bytes that were
# signed, never re-encoded, so a signature checked today is the one checked by an auditor later.
#
# `load_transcript` checks only the framing and the limits; `open_transcript` does the same for
# a file without reading it whole: it walks the length prefixes (seeking over each record), keeps
# their offsets, and reads a chain envelope only when it is asked for, so an auditor verifies a
# file of any size in memory bounded by the offsets and one record (a hostile 200 MB file of tiny
# records would otherwise become a million bytes objects and as many parsed envelopes).
# `verify_chain` replays setup and
# chain exactly as a live peer does (same code: MatchSetup and Chain) and reports the first bad
# record and the seat responsible. It cannot see a truncated tail: completeness (the cosigned
# RESULT at the end) is the match verifier's job, one layer up.
from __future__ import annotations

import os
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO, overload

from versus.protocol.errors import (
    OversizeField,
    RemoteProtocolError,
    SetupMismatch,
    TranscriptFormatError,
)
from versus.protocol.match.setup import MatchSetup, open_hello
from versus.protocol.wire.envelope import MAX_ENVELOPE_SIZE

MAGIC = b"\x89VERSUS\n"  # high bit and newline: a file mangled as text fails at once
FORMAT_VERSION = 1
HEADER = MAGIC + FORMAT_VERSION.to_bytes(2, "big")
_LENGTH_SIZE = 4

MAX_TRANSCRIPT_SIZE = 256 << 20
MAX_RECORDS = 1_000_000


@dataclass(frozen=True)
class Transcript:
    """The signed HELLOs (seat order) and chain envelopes of one match, as wire bytes."""

    hellos: tuple[bytes, bytes]
    envelopes: tuple[bytes, ...]

    @property
    def records(self) -> tuple[bytes, ...]:
        """Everything in file order: the indices verify_chain reports."""
        return (*self.hellos, *self.envelopes)

    @property
    def record_count(self) -> int:
        """len(records), without reading a file-backed transcript's envelopes."""
        return len(self.hellos) + len(self.envelopes)


def transcript_header() -> bytes:
    return HEADER


def encode_record(raw: bytes) -> bytes:
    """One record: 4-byte big-endian length, then the envelope's wire bytes."""
    return len(raw).to_bytes(_LENGTH_SIZE, "big") + raw


def dump_transcript(transcript: Transcript) -> bytes:
    return HEADER + b"".join(encode_record(raw) for raw in transcript.records)


def load_transcript(
    data: bytes,
    *,
    max_size: int = MAX_TRANSCRIPT_SIZE,
    max_record_size: int = MAX_ENVELOPE_SIZE,
    max_records: int = MAX_RECORDS,
) -> Transcript:
    """Parse the framing of a transcript file. Raises TranscriptFormatError / OversizeField
    naming the offset; never checks signatures (verify_chain does)."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TranscriptFormatError(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > max_size:
        raise OversizeField(f"transcript of {len(data)} bytes exceeds the limit of {max_size}")
    if data[: len(MAGIC)] != MAGIC:
        raise TranscriptFormatError(
            f"not a Versus transcript: starts with {data[:len(MAGIC)].hex()}, expected "
            f"{MAGIC.hex()}"
        )
    if len(data) < len(HEADER):
        raise TranscriptFormatError("transcript header is truncated")
    version = int.from_bytes(data[len(MAGIC) : len(HEADER)], "big")
    if version != FORMAT_VERSION:
        raise TranscriptFormatError(
            f"transcript format version {version} is not supported (this reads {FORMAT_VERSION})"
        )
    records = _split_records(data, len(HEADER), max_record_size, max_records)
    if len(records) < 2:
        raise TranscriptFormatError(f"a transcript starts with 2 hellos, found {len(records)}")
    return Transcript((records[0], records[1]), tuple(records[2:]))


def _split_records(
    data: bytes, offset: int, max_record_size: int, max_records: int
) -> list[bytes]:
    records: list[bytes] = []
    while offset < len(data):
        if len(records) >= max_records:
            raise OversizeField(f"more than {max_records} records")
        if offset + _LENGTH_SIZE > len(data):
            raise TranscriptFormatError(
                f"record {len(records)} at offset {offset}: truncated length"
            )
        length = int.from_bytes(data[offset : offset + _LENGTH_SIZE], "big")
        if length > max_record_size:
            raise OversizeField(
                f"record {len(records)} at offset {offset}: {length} bytes exceed the limit of "
                f"{max_record_size}"
            )
        start = offset + _LENGTH_SIZE
        if start + length > len(data):
            raise TranscriptFormatError(
                f"record {len(records)} at offset {offset}: {length} bytes announced, "
                f"{len(data) - start} present"
            )
        records.append(data[start : start + length])
        offset = start + length
    return records


class FileRecords(Sequence[bytes]):
    """The chain envelopes of a transcript file, read from it one at a time when asked for
    (by index or in order). Only the offsets and lengths stay in memory: 16 bytes a record."""

    def __init__(self, file: BinaryIO, offsets: array, lengths: array) -> None:
        self._file, self._offsets, self._lengths = file, offsets, lengths

    def __len__(self) -> int:
        return len(self._offsets)

    @overload
    def __getitem__(self, index: int) -> bytes: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[bytes]: ...
    def __getitem__(self, index: int | slice) -> bytes | Sequence[bytes]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        self._file.seek(self._offsets[index])
        raw = self._file.read(self._lengths[index])
        if len(raw) != self._lengths[index]:  # the file shrank since it was scanned
            raise TranscriptFormatError(f"chain record {index} was cut while it was read")
        return raw

    def __iter__(self) -> Iterator[bytes]:
        for index in range(len(self)):
            yield self[index]


def open_transcript(
    file: BinaryIO,
    *,
    max_size: int = MAX_TRANSCRIPT_SIZE,
    max_record_size: int = MAX_ENVELOPE_SIZE,
    max_records: int = MAX_RECORDS,
) -> Transcript:
    """`load_transcript` for an open, seekable binary file: the same checks and errors, but
    the chain envelopes stay in the file (FileRecords) until they are read, so memory does not
    grow with the file. The file must stay open while the transcript is used."""
    size = os.fstat(file.fileno()).st_size
    if size > max_size:
        raise OversizeField(f"transcript of {size} bytes exceeds the limit of {max_size}")
    header = file.read(len(HEADER))
    if header[: len(MAGIC)] != MAGIC:
        raise TranscriptFormatError(
            f"not a Versus transcript: starts with {header[:len(MAGIC)].hex()}, expected "
            f"{MAGIC.hex()}"
        )
    if len(header) < len(HEADER):
        raise TranscriptFormatError("transcript header is truncated")
    version = int.from_bytes(header[len(MAGIC) :], "big")
    if version != FORMAT_VERSION:
        raise TranscriptFormatError(
            f"transcript format version {version} is not supported (this reads {FORMAT_VERSION})"
        )
    offsets, lengths = array("q"), array("q")
    offset = len(HEADER)
    while offset < size:
        count = len(offsets)
        if count >= max_records:
            raise OversizeField(f"more than {max_records} records")
        prefix = file.read(_LENGTH_SIZE)
        if len(prefix) < _LENGTH_SIZE:
            raise TranscriptFormatError(f"record {count} at offset {offset}: truncated length")
        length = int.from_bytes(prefix, "big")
        if length > max_record_size:
            raise OversizeField(
                f"record {count} at offset {offset}: {length} bytes exceed the limit of "
                f"{max_record_size}"
            )
        start = offset + _LENGTH_SIZE
        if start + length > size:
            raise TranscriptFormatError(
                f"record {count} at offset {offset}: {length} bytes announced, "
                f"{size - start} present"
            )
        offsets.append(start)
        lengths.append(length)
        offset = file.seek(start + length)
    if len(offsets) < 2:
        raise TranscriptFormatError(f"a transcript starts with 2 hellos, found {len(offsets)}")
    records = FileRecords(file, offsets, lengths)
    return Transcript((records[0], records[1]),
                      FileRecords(file, offsets[2:], lengths[2:]))  # type: ignore[arg-type]


@dataclass(frozen=True)
class ChainVerdict:
    """The outcome of verify_chain. `bad_index` indexes `Transcript.records` (0 and 1 are the
    hellos); `player` is the seat responsible when the evidence names one."""

    ok: bool
    checked: int
    bad_index: int | None = None
    player: int | None = None
    error: RemoteProtocolError | None = None
    setup: MatchSetup | None = None

    def describe(self) -> str:
        if self.ok:
            return f"ok: {self.checked} records verified"
        who = "unknown" if self.player is None else f"seat {self.player}"
        assert self.error is not None
        return f"record {self.bad_index}: {self.error.code} (responsible: {who}): {self.error}"


def verify_chain(
    transcript: Transcript, *, expected_keys: Sequence[bytes | None] = (None, None)
) -> ChainVerdict:
    """Check hellos, signatures, match id, seq and prev-hash links of every record."""
    hellos = []
    for index, raw in enumerate(transcript.hellos):
        try:
            hello = open_hello(raw)
            if hello.seat != index:
                raise SetupMismatch(
                    f"record {index} must be seat {index}'s hello, it is seat {hello.seat}'s",
                    [raw],
                )
        except RemoteProtocolError as error:
            return ChainVerdict(False, index, index, error.player, error)
        hellos.append(hello)
    try:
        setup = MatchSetup.from_hellos(hellos[0], hellos[1], expected_keys=expected_keys)
    except RemoteProtocolError as error:
        return ChainVerdict(False, 1, 1, error.player, error)
    chain = setup.new_chain()
    for offset, raw in enumerate(transcript.envelopes):
        try:
            chain.receive(raw)
        except RemoteProtocolError as error:
            index = len(transcript.hellos) + offset
            return ChainVerdict(False, index, index, error.player, error, setup)
    return ChainVerdict(True, transcript.record_count, setup=setup)
