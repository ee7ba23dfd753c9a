# The constants SPEC §4.6 and §4.11 give for public chance, recomputed from the code: the hash
# stream of a roll (tag and label), the size and layout of a chain link's message, and the code a
# copied anchor is refused with. A re-implementer works from the text alone, so it must match.
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from versus.protocol.crypto.chance import ChanceAudit, chance_link, chance_outcome
from versus.protocol.errors import CommitmentMismatch
from versus.protocol.wire.canonical import encode

SPEC = Path(__file__).resolve().parents[2] / "SPEC.md"
MATCH_ID, VALUE = bytes(range(32)), bytes(range(32, 64))


def _text() -> str:
    return " ".join(SPEC.read_text(encoding="utf-8").split())


def _below(prefix: bytes, n: int) -> int:
    """SPEC §4.6's hash stream, written out: 8-byte big-endian draws, the biased tail rejected."""
    limit, block, buffer = (1 << 64) - (1 << 64) % n, 0, b""
    while True:
        if len(buffer) < 8:
            buffer += hashlib.sha256(prefix + block.to_bytes(8, "big")).digest()
            block += 1
        value, buffer = int.from_bytes(buffer[:8], "big"), buffer[8:]
        if value < limit:
            return value % n


def test_a_roll_uses_the_random_stream_tag_with_the_label_chance() -> None:
    stated = ("a CHANCE roll (§4.11 \"Chance\") uses the same tag `versus/v1/random-stream` "
              "with the label `\"chance\"`")
    assert stated in _text()
    p0, p1 = b"\x01" * 32, b"\x02" * 32
    for roll, n in ((0, 6), (5, 2), (300, 6)):
        seed = hashlib.sha256(b"versus/v1/chance-roll" + encode([MATCH_ID, roll, p0, p1])).digest()
        prefix = b"versus/v1/random-stream" + encode(["chance", seed])
        assert _below(prefix, n) == chance_outcome(MATCH_ID, roll, (p0, p1), n)


@pytest.mark.parametrize("seat", [0, 1])
def test_a_link_message_is_91_bytes_laid_out_as_spec_says(seat: int) -> None:
    assert "one SHA-256 of 91 bytes each" in _text()
    message = (b"versus/v1/chance-link" + b"\x93" + b"\xc4\x20" + MATCH_ID + bytes([seat])
               + b"\xc4\x20" + VALUE)
    assert len(message) == 91
    assert hashlib.sha256(message).digest() == chance_link(MATCH_ID, seat, VALUE)


def test_a_copied_anchor_is_a_commitment_mismatch() -> None:
    assert "a copied anchor is `commitment-mismatch`" in _text()
    audit = ChanceAudit(MATCH_ID)
    audit.anchor(0, VALUE)
    with pytest.raises(CommitmentMismatch) as caught:
        audit.anchor(1, VALUE)
    assert caught.value.code == "commitment-mismatch"
