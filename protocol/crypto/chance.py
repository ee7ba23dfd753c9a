# Public randomness during play (SPEC §4.11 "Chance"): a die roll or a coin that no player
# chooses, settled without a commit-reveal round per roll.
#
# How it works. At setup each seat picks a secret x and publishes, in its REVEAL, the anchor
# of a hash chain over it: v_0 = x, v_{i+1} = H(match id, seat, v_i), anchor = v_L (L =
# CHANCE_ROLLS). Roll r (0-based) is settled by each seat's next preimage, v_{L-1-r}: the seat
# that signed the last envelope sends its own at once (CHANCE, first half), the other seat
# answers with its own (second half), and the outcome is an unbiased integer below n drawn
# from H(match id, r, v0, v1). Anyone checks a preimage in one hash against the seat's
# previous value; nothing is revealed early, so no one can steer the game towards or away from
# an outcome it already knows.
#
# Why it is fair. Both chains are fixed before either seat sees the other's preimages, and a
# preimage cannot be changed later (a second preimage of SHA-256), so each outcome is fixed at
# setup yet unknown to both seats until the roll: neither can bias it. The seat that answers
# second learns the outcome first; it cannot change it, only withhold its answer, which the
# clock turns into a loss (a timeout claim). The cost: one envelope per roll, sent without
# waiting for anything, where a commit-reveal flip needs three.
from __future__ import annotations

import hashlib

from versus.protocol.crypto.commitment import HashStream, Rng
from versus.protocol.errors import CommitmentMismatch, LocalProtocolError, MalformedMessage
from versus.protocol.wire.canonical import (
    HASH_SIZE,
    TAG_CHANCE_LINK,
    TAG_CHANCE_ROLL,
    encode,
    tagged_hash,
)

#: public random outcomes one match can settle (each seat's chain has this many preimages)
CHANCE_ROLLS = 1 << 15


def chance_link(match_id: bytes, seat: int, value: bytes) -> bytes:
    """One step up a seat's chain: the value a preimage must hash to."""
    return tagged_hash(TAG_CHANCE_LINK, match_id, seat, value)


def _link_prefix(match_id: bytes, seat: int) -> bytes:
    """What `chance_link` hashes before the value: the tag and the canonical array up to the
    value's bytes (a 32-byte value is always the last 32 bytes of its encoding)."""
    whole = TAG_CHANCE_LINK + encode([match_id, seat, bytes(HASH_SIZE)])
    return whole[:-HASH_SIZE]


def chance_outcome(match_id: bytes, roll: int, preimages: tuple[bytes, bytes],
                   outcomes: int) -> int:
    """Roll `roll`'s outcome, an unbiased integer in [0, outcomes), from both seats' preimages
    (seat order)."""
    seed = tagged_hash(TAG_CHANCE_ROLL, match_id, roll, preimages[0], preimages[1])
    return HashStream("chance", seed).below(outcomes)


class ChanceChain:
    """One seat's secret chain: its anchor, and its preimage for each roll in turn."""

    def __init__(self, match_id: bytes, seat: int, rng: Rng) -> None:
        values = [rng(HASH_SIZE)]
        # chance_link's bytes are the same prefix then the value: hash the prefix once
        head = hashlib.sha256(_link_prefix(match_id, seat))
        for _ in range(CHANCE_ROLLS):
            link = head.copy()
            link.update(values[-1])
            values.append(link.digest())
        self._values = values
        self.anchor = values[-1]

    def preimage(self, roll: int) -> bytes:
        if not 0 <= roll < CHANCE_ROLLS:
            raise LocalProtocolError(f"chance roll {roll}: a match settles at most "
                                     f"{CHANCE_ROLLS} public random outcomes")
        return self._values[CHANCE_ROLLS - 1 - roll]


class ChanceAudit:
    """The public side: both anchors, each seat's latest value, the rolls settled so far."""

    def __init__(self, match_id: bytes) -> None:
        self.match_id = match_id
        self.heads: list[bytes | None] = [None, None]
        self.rolls = 0

    def anchor(self, seat: int, value: object) -> None:
        if type(value) is not bytes or len(value) != HASH_SIZE:
            raise MalformedMessage(f"seat {seat}'s chance anchor is not {HASH_SIZE} bytes")
        if value == self.heads[1 - seat]:
            raise CommitmentMismatch(f"seat {seat} copied the other seat's chance anchor")
        self.heads[seat] = value

    def check(self, seat: int, preimage: object) -> bytes:
        """Seat's next preimage, checked against its chain; recorded once it holds."""
        if type(preimage) is not bytes or len(preimage) != HASH_SIZE:
            raise MalformedMessage(f"a chance preimage is {HASH_SIZE} bytes")
        if self.rolls >= CHANCE_ROLLS:
            raise LocalProtocolError(f"the match settled its {CHANCE_ROLLS} chance rolls")
        head = self.heads[seat]
        if head is None or chance_link(self.match_id, seat, preimage) != head:
            raise CommitmentMismatch(f"seat {seat}'s chance preimage for roll {self.rolls} "
                                     "does not hash to its chain")
        self.heads[seat] = preimage
        return preimage
