# Sigma proofs of the shared-pool deal, made non-interactive with Fiat–Shamir (SPEC Part 5).
#
# - Schnorr proof of knowledge of x with Y = x·G: binds a key share to its owner, so a player
#   cannot pick its share as a function of the other's (a rogue key such as Y1 = X − Y0) or
#   replay the other's share.
# - Chaum–Pedersen proof that log_G(Y) = log_A(D): a decryption share D = x·A was computed with
#   the secret behind the published key share Y, so a wrong share is caught at once.
#
# Both are sent in compact form (challenge c, response s = k + c·x); the verifier recomputes the
# commitments (T = s·G − c·Y, ...) and checks that they hash to c. The recomputed commitments are
# returned so the caller can reject a commitment seen twice: two proofs with the same nonce k and
# different challenges give x = (s − s')/(c − c'). Every challenge hashes a domain tag, the match
# id, a step label (which names the step and card position), the prover's identity key, the full
# statement and the commitments, so no proof can be moved to another match, step or player.
#
# Nonces are hedged (`group.hedged_scalar`): k = H(nonce tag, match id, x, statement, 64 rng
# bytes) mod L, with the same statement parts as the challenge. Our rng is deterministic
# (`master_rng`, so a restored peer regenerates its envelopes byte for byte); a restart from a
# transcript that lacks our last envelopes replays the same rng bytes, and a plain k = rng would
# then prove another statement with the same nonce and give x away. Hedged, the same statement
# gives the same proof and another statement an unrelated nonce.
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from versus.protocol.crypto.group import (
    CryptoProofError,
    HashPart,
    L,
    MalformedMessageError,
    NonceReuseError,
    Point,
    Rng,
    base_mul,
    decode_scalar,
    encode_scalar,
    hash_to_scalar,
    hedged_scalar,
)
from versus.protocol.errors import LocalProtocolError
from versus.protocol.wire.canonical import TAG_DEAL_NONCE_DLEQ, TAG_DEAL_NONCE_SCHNORR

SCHNORR_TAG = b"versus/v1/deal/schnorr"
DLEQ_TAG = b"versus/v1/deal/dleq"

#: the public parts of a statement (as the challenge hashes them) -> the proof's nonce k
NonceSource = Callable[[tuple[HashPart, ...]], int]


@dataclass(frozen=True, slots=True)
class Proof:
    """A compact sigma proof: the Fiat–Shamir challenge and the response, both scalars < L."""

    challenge: int
    response: int

    def __post_init__(self) -> None:
        encode_scalar(self.challenge)
        encode_scalar(self.response)

    def to_wire(self) -> list[bytes]:
        return [encode_scalar(self.challenge), encode_scalar(self.response)]

    @classmethod
    def from_wire(cls, obj: object, field: str) -> Proof:
        if not isinstance(obj, list | tuple) or len(obj) != 2:
            raise MalformedMessageError(f"{field}: a proof is a list [challenge, response]")
        return cls(
            decode_scalar(obj[0], f"{field}.challenge"),
            decode_scalar(obj[1], f"{field}.response"),
        )


class NonceLedger:
    """Every G-commitment (k·G) one player has used in this match; a repeat is refused.

    For the peer a repeat is a NonceReuseError (the peer's fault, and the evidence that its
    secret may now be public); for ourselves it means our rng is broken, a LocalProtocolError.
    """

    def __init__(self, *, remote: bool) -> None:
        self._seen: set[bytes] = set()
        self._remote = remote

    def record(self, commitment: Point, field: str) -> None:
        if commitment.encoded in self._seen:
            if self._remote:
                raise NonceReuseError(f"{field}: proof commitment {commitment!r} used twice")
            raise LocalProtocolError(f"{field}: our rng repeated a proof nonce")
        self._seen.add(commitment.encoded)

    def __contains__(self, commitment: Point) -> bool:
        return commitment.encoded in self._seen


# --- Schnorr ----------------------------------------------------------------------------------


def _schnorr_statement(label: str, identity: bytes, key: Point) -> tuple[HashPart, ...]:
    return (label, identity, Point.BASE, key)


def _schnorr_challenge(
    match_id: bytes, label: str, identity: bytes, key: Point, commitment: Point
) -> int:
    return hash_to_scalar(
        SCHNORR_TAG, match_id, (*_schnorr_statement(label, identity, key), commitment)
    )


def schnorr_prove(
    secret: int, match_id: bytes, label: str, identity: bytes, rng: Rng
) -> tuple[Proof, Point]:
    """Prove knowledge of `secret` for key = secret·G; returns the proof and its commitment."""
    return _schnorr_prove(
        secret, match_id, label, identity,
        lambda statement: hedged_scalar(TAG_DEAL_NONCE_SCHNORR, match_id, (secret,), statement,
                                        rng),
    )  # fmt: skip


def _schnorr_prove(
    secret: int, match_id: bytes, label: str, identity: bytes, nonce: NonceSource
) -> tuple[Proof, Point]:
    """`schnorr_prove` with the nonce k = nonce(statement) (tests pass a fixed k to show why
    a repeated nonce is fatal)."""
    key = base_mul(secret)
    k = nonce(_schnorr_statement(label, identity, key))
    commitment = base_mul(k)
    c = _schnorr_challenge(match_id, label, identity, key, commitment)
    return Proof(c, (k + c * secret) % L), commitment


def schnorr_verify(
    proof: Proof, key: Point, match_id: bytes, label: str, identity: bytes, field: str
) -> Point:
    """Check the proof; return the recomputed commitment (for the nonce ledger)."""
    commitment = base_mul(proof.response) - key * proof.challenge
    if _schnorr_challenge(match_id, label, identity, key, commitment) != proof.challenge:
        raise CryptoProofError(f"{field}: Schnorr proof of the key share does not verify")
    return commitment


# --- Chaum–Pedersen (DLEQ) --------------------------------------------------------------------


def _dleq_challenge(
    match_id: bytes,
    label: str,
    identity: bytes,
    statement: tuple[HashPart, ...],
    commitments: tuple[Point, Point],
) -> int:
    return hash_to_scalar(DLEQ_TAG, match_id, (label, identity, *statement, *commitments))


def dleq_prove(
    secret: int,
    base: Point,
    match_id: bytes,
    label: str,
    identity: bytes,
    context: tuple[HashPart, ...],
    rng: Rng,
) -> tuple[Point, Proof, Point]:
    """Return (share = secret·base, proof that log_G(secret·G) = log_base(share), k·G).

    `context` is extra statement (e.g. the whole ciphertext) bound into the challenge.
    """
    return _dleq_prove(
        secret, base, match_id, label, identity, context,
        lambda statement: hedged_scalar(TAG_DEAL_NONCE_DLEQ, match_id, (secret,), statement, rng),
    )  # fmt: skip


def _dleq_prove(
    secret: int,
    base: Point,
    match_id: bytes,
    label: str,
    identity: bytes,
    context: tuple[HashPart, ...],
    nonce: NonceSource,
) -> tuple[Point, Proof, Point]:
    """`dleq_prove` with the nonce k = nonce(label, identity, statement)."""
    share = base * secret
    statement = (*context, Point.BASE, base_mul(secret), base, share)
    k = nonce((label, identity, *statement))
    commitments = (base_mul(k), base * k)
    c = _dleq_challenge(match_id, label, identity, statement, commitments)
    return share, Proof(c, (k + c * secret) % L), commitments[0]


def dleq_verify(
    proof: Proof,
    key: Point,
    base: Point,
    share: Point,
    match_id: bytes,
    label: str,
    identity: bytes,
    context: tuple[HashPart, ...],
    field: str,
) -> Point:
    """Check that log_G(key) = log_base(share); return the recomputed k·G (for the ledger)."""
    commitments = (
        base_mul(proof.response) - key * proof.challenge,
        base * proof.response - share * proof.challenge,
    )
    statement = (*context, Point.BASE, key, base, share)
    if _dleq_challenge(match_id, label, identity, statement, commitments) != proof.challenge:
        raise CryptoProofError(f"{field}: Chaum–Pedersen proof of the decryption share fails")
    return commitments[0]
