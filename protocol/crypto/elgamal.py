# ElGamal over edwards25519 with a key shared by the two players (SPEC Part 5).
#
# A ciphertext of the point M under the joint key Y = Y0 + Y1 is (a, b) = (r·G, M + r·Y).
# Re-encryption adds an encryption of the identity: (a + s·G, b + s·Y), which changes every byte
# of the ciphertext without changing M, so a shuffled pool cannot be linked to its input without
# breaking DDH. Decryption needs both shares: Dᵢ = xᵢ·a for each player i, M = b − D0 − D1.
#
# Cards are points obtained by hashing the card id with the match id, so the same card id maps
# to unrelated points in two matches and nobody knows a discrete-log relation between two cards.
# The pool starts as the trivial encryption (O, M) of each card, which both players compute
# alone; the shuffles supply all the randomness.
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from versus.protocol.crypto.group import MalformedMessageError, Point, base_mul, hash_to_point
from versus.protocol.errors import LocalProtocolError

CARD_TAG = b"versus/v1/deal/card"
MAX_CARD_ID_BYTES = 64


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """(a, b) = (r·G, M + r·Y)."""

    a: Point
    b: Point

    def __post_init__(self) -> None:
        if not (isinstance(self.a, Point) and isinstance(self.b, Point)):
            raise LocalProtocolError("a Ciphertext holds two Points")

    def rerandomize(self, s: int, joint_key: Point) -> Ciphertext:
        return Ciphertext(self.a + base_mul(s), self.b + joint_key * s)

    def to_wire(self) -> list[bytes]:
        return [self.a.encoded, self.b.encoded]

    @classmethod
    def from_wire(cls, obj: object, field: str, *, ours: bool = False) -> Ciphertext:
        """`ours` as in `Point.from_wire`."""
        if not isinstance(obj, list | tuple) or len(obj) != 2:
            raise MalformedMessageError(f"{field}: a ciphertext is a list of 2 points")
        return cls(Point.from_wire(obj[0], f"{field}.a", ours=ours),
                   Point.from_wire(obj[1], f"{field}.b", ours=ours))


def card_point(match_id: bytes, card_id: str) -> Point:
    return hash_to_point(CARD_TAG, match_id, (card_id,))


def check_card_id(card_id: object, field: str) -> str:
    """A card id as it may appear in a message: a non-empty str of at most 64 UTF-8 bytes."""
    if not isinstance(card_id, str) or not card_id:
        raise MalformedMessageError(f"{field}: a card id is a non-empty str")
    try:
        raw = card_id.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MalformedMessageError(f"{field}: card id is not valid Unicode") from exc
    if len(raw) > MAX_CARD_ID_BYTES:
        raise MalformedMessageError(f"{field}: card id longer than {MAX_CARD_ID_BYTES} bytes")
    return card_id


def card_table(match_id: bytes, card_ids: Sequence[str]) -> dict[bytes, str]:
    """Point encoding → card id, for turning a decryption back into a card."""
    table: dict[bytes, str] = {}
    for card_id in card_ids:
        point = card_point(match_id, card_id)
        if point.encoded in table:
            raise LocalProtocolError(f"card id {card_id!r} appears twice in the pool")
        table[point.encoded] = card_id
    return table


def trivial_encryption(point: Point) -> Ciphertext:
    """(O, M): the public starting state of a pool card, randomised by the first shuffle."""
    return Ciphertext(Point.IDENTITY, point)


def decryption_share(secret: int, ciphertext: Ciphertext) -> Point:
    return ciphertext.a * secret


def combine(ciphertext: Ciphertext, share0: Point, share1: Point) -> Point:
    return ciphertext.b - share0 - share1
