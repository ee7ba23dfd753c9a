# Verifiable re-encryption shuffle: the Terelius–Wikström proof (SPEC Part 5).
#
# The algorithms are CHVote's GenShuffle / GenShuffleProof / CheckShuffleProof (Haenni et al.,
# "CHVote Protocol Specification", §8.4 and §8.6 in the versions we read) translated from
# multiplicative to additive notation and to our ciphertext layout. CHVote's (a, b) =
# (m·pk^r, g^r) is our (b, a) = (M + r·Y, r·G); their x^y is our y·X and their product a sum.
#
# Output i is input ψ(i) re-encrypted with r̃ᵢ. The prover commits to the permutation with
# Pedersen commitments c_ψ(i) = r_ψ(i)·G + Hᵢ over generators Hᵢ that are hashed, never sampled
# (nobody knows a relation between them), derives 128-bit challenges u from the statement, and
# proves with a chain of commitments ĉ to the permuted u that (1) c commits to a permutation
# matrix and (2) the outputs are the inputs, permuted the same way, plus encryptions of zero.
# The soundness error is about N·2^-128 + 2^-252, far below the 2^-80 we require.
#
# Every Fiat–Shamir hash covers the tag, the match id, the step label, the prover's identity,
# the joint key and every input and output ciphertext, so a proof is valid for exactly one
# statement of one match.
#
# The proof's own randomness (r, r̂, ω) is hedged like every proof nonce (`group.hedged_scalar`):
# each value hashes a digest of the witness (ψ, r̃) and of the full statement (label, identity,
# joint key, generators, inputs, outputs), its index and 64 fresh rng bytes. A restored peer
# that proves the same shuffle again sends the same proof; the same rng bytes behind another
# shuffle (a restart after a lost envelope) give unrelated values, so no two responses share an
# ω and nothing leaks. ψ and r̃ themselves are the witness and stay plain rng draws.
from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from versus.protocol.crypto.elgamal import Ciphertext
from versus.protocol.crypto.group import (
    CryptoProofError,
    L,
    MalformedMessageError,
    Point,
    Rng,
    base_mul,
    decode_scalar,
    encode_scalar,
    hash_parts,
    hash_to_point,
    hash_to_scalar,
    hedged_scalar,
    multi_mul,
    point_sum,
    random_permutation,
    random_scalar,
)
from versus.protocol.errors import LocalProtocolError
from versus.protocol.wire.canonical import TAG_DEAL_NONCE_SHUFFLE

GENERATOR_TAG = b"versus/v1/deal/shuffle-generator"
U_TAG = b"versus/v1/deal/shuffle-u"
CHALLENGE_TAG = b"versus/v1/deal/shuffle-c"
#: bytes of each per-ciphertext challenge uᵢ (128 bits)
U_BYTES = 16
#: largest pool a shuffle message may carry (bounds the work a peer can ask of us)
MAX_POOL = 256


@dataclass(frozen=True)
class Generators:
    """H (the start of the commitment chain) and H_0..H_{N-1} (one per position)."""

    h: Point
    hs: tuple[Point, ...]

    @functools.cached_property
    def hs_sum(self) -> Point:
        """Σ Hᵢ, which every verification of a shuffle over these generators subtracts (the
        generators are cached per match, so this saves N additions per verification)."""
        return point_sum(self.hs)


@functools.lru_cache(maxsize=8)
def shuffle_generators(match_id: bytes, n: int) -> Generators:
    """Independent generators, hashed from the match id, the pool size and an index."""
    points = [hash_to_point(GENERATOR_TAG, match_id, (n, i)) for i in range(n + 1)]
    return Generators(points[0], tuple(points[1:]))


@dataclass(frozen=True)
class ShuffleProof:
    """π = (c, ĉ, challenge, s1..s4, ŝ, s′), CHVote's compact form (the t's are recomputed)."""

    perm_commitments: tuple[Point, ...]  # c, indexed by input position
    chain: tuple[Point, ...]  # ĉ_0..ĉ_{N-1} (CHVote's ĉ_1..ĉ_N; H plays ĉ_0)
    challenge: int
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]

    def __post_init__(self) -> None:
        n = len(self.perm_commitments)
        if not 1 <= n <= MAX_POOL or any(
            len(seq) != n for seq in (self.chain, self.s_hat, self.s_prime)
        ):
            raise LocalProtocolError("shuffle proof vectors must share one length in [1, 256]")
        for scalar in (self.challenge, self.s1, self.s2, self.s3, self.s4, *self.s_hat):
            encode_scalar(scalar)
        for scalar in self.s_prime:
            encode_scalar(scalar)

    def to_wire(self) -> list[object]:
        return [
            [p.encoded for p in self.perm_commitments],
            [p.encoded for p in self.chain],
            encode_scalar(self.challenge),
            [encode_scalar(s) for s in (self.s1, self.s2, self.s3, self.s4)],
            [encode_scalar(s) for s in self.s_hat],
            [encode_scalar(s) for s in self.s_prime],
        ]

    @classmethod
    def from_wire(cls, obj: object, n: int, field: str, *, ours: bool = False) -> ShuffleProof:
        """Parse a proof over n ciphertexts (n comes from the already-parsed output list);
        `ours` as in `Point.from_wire`."""
        if not isinstance(obj, list | tuple) or len(obj) != 6:
            raise MalformedMessageError(f"{field}: a shuffle proof is a list of 6 items")
        commitments, chain, challenge, s, s_hat, s_prime = obj
        return cls(
            _points(commitments, n, f"{field}.perm_commitments", ours),
            _points(chain, n, f"{field}.chain", ours),
            decode_scalar(challenge, f"{field}.challenge"),
            *_scalars(s, 4, f"{field}.s"),
            _scalars(s_hat, n, f"{field}.s_hat"),
            _scalars(s_prime, n, f"{field}.s_prime"),
        )


def _points(obj: object, n: int, field: str, ours: bool = False) -> tuple[Point, ...]:
    _check_list(obj, n, field)
    return tuple(Point.from_wire(item, f"{field}[{i}]", ours=ours) for i, item in enumerate(obj))


def _scalars(obj: object, n: int, field: str) -> tuple[int, ...]:
    _check_list(obj, n, field)
    return tuple(decode_scalar(item, f"{field}[{i}]") for i, item in enumerate(obj))


def _check_list(obj: object, n: int, field: str) -> None:
    if not isinstance(obj, list | tuple):
        raise MalformedMessageError(f"{field}: expected a list, got {type(obj).__name__}")
    if len(obj) != n:
        raise MalformedMessageError(f"{field}: expected {n} items, got {len(obj)}")


# --- shuffling --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShuffleWitness:
    """The prover's secrets: output i = input permutation[i] re-encrypted with rerand[i]."""

    permutation: tuple[int, ...]
    rerand: tuple[int, ...]


def shuffle(
    inputs: Sequence[Ciphertext], joint_key: Point, rng: Rng
) -> tuple[tuple[Ciphertext, ...], ShuffleWitness]:
    """GenShuffle: a uniform permutation and a fresh re-encryption of every ciphertext."""
    permutation = random_permutation(rng, len(inputs))
    rerand = tuple(random_scalar(rng) for _ in inputs)
    outputs = tuple(
        inputs[j].rerandomize(s, joint_key) for j, s in zip(permutation, rerand, strict=True)
    )
    return outputs, ShuffleWitness(permutation, rerand)


def _flatten(ciphertexts: Sequence[Ciphertext]) -> list[Point]:
    return [p for ct in ciphertexts for p in (ct.a, ct.b)]


def _u_challenges(
    match_id: bytes,
    label: str,
    identity: bytes,
    joint_key: Point,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    commitments: Sequence[Point],
) -> list[int]:
    """CHVote's GetChallenges: 128-bit uᵢ from one hash of (pk, e, ẽ, c), then an index."""
    seed = hash_parts(
        U_TAG,
        match_id,
        (label, identity, joint_key, *_flatten(inputs), *_flatten(outputs), *commitments),
    )
    return [
        int.from_bytes(hash_parts(U_TAG, match_id, (seed, i))[:U_BYTES], "little")
        for i in range(len(inputs))
    ]


def _challenge(
    match_id: bytes,
    label: str,
    identity: bytes,
    joint_key: Point,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    commitments: Sequence[Point],
    chain: Sequence[Point],
    t: Sequence[Point],
) -> int:
    """CHVote's GetChallenge(y, t) with y = (e, ẽ, c, ĉ, pk), full size (mod L)."""
    return hash_to_scalar(
        CHALLENGE_TAG,
        match_id,
        (
            label,
            identity,
            joint_key,
            *_flatten(inputs),
            *_flatten(outputs),
            *commitments,
            *chain,
            *t,
        ),
    )


def _nonce_source(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    witness: ShuffleWitness,
    joint_key: Point,
    generators: Generators,
    match_id: bytes,
    label: str,
    identity: bytes,
    rng: Rng,
) -> Callable[[], int]:
    """The proof's random scalars, in draw order: scalar number i is
    hedged_scalar(TAG, match_id, (W,), (S, i), rng) with W = H(TAG, match_id, "witness", N, ψ,
    r̃), the witness digest, and S = H(TAG, match_id, "statement", label, identity, Y, H,
    H_0…, all a_j b_j, all ã_i b̃_i), the statement digest (each hashed once, so the hash per
    scalar stays short)."""
    n = len(inputs)
    witness_digest = hash_parts(
        TAG_DEAL_NONCE_SHUFFLE, match_id, ("witness", n, *witness.permutation, *witness.rerand)
    )
    statement_digest = hash_parts(
        TAG_DEAL_NONCE_SHUFFLE,
        match_id,
        ("statement", label, identity, joint_key, generators.h, *generators.hs, *_flatten(inputs),
         *_flatten(outputs)),
    )  # fmt: skip
    index = itertools.count()

    def nonce() -> int:
        return hedged_scalar(TAG_DEAL_NONCE_SHUFFLE, match_id, (witness_digest,),
                             (statement_digest, next(index)), rng)  # fmt: skip

    return nonce


def prove_shuffle(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    witness: ShuffleWitness,
    joint_key: Point,
    generators: Generators,
    match_id: bytes,
    label: str,
    identity: bytes,
    rng: Rng,
) -> ShuffleProof:
    """GenShuffleProof."""
    n = len(inputs)
    psi, rerand = witness.permutation, witness.rerand
    if not (len(outputs) == len(psi) == len(rerand) == len(generators.hs) == n):
        raise LocalProtocolError("shuffle inputs, outputs, witness and generators differ in size")
    g_h, hs = generators.h, generators.hs
    nonce = _nonce_source(inputs, outputs, witness, joint_key, generators, match_id, label,
                          identity, rng)

    # permutation commitment (GenPermutationCommitment)
    r = [0] * n
    commitments: list[Point | None] = [None] * n
    for i, j in enumerate(psi):
        r[j] = nonce()
        commitments[j] = base_mul(r[j]) + hs[i]
    c_vec = tuple(p for p in commitments if p is not None)

    u = _u_challenges(match_id, label, identity, joint_key, inputs, outputs, c_vec)
    u_perm = [u[j] for j in psi]

    # commitment chain (GenCommitmentChain) over the permuted challenges
    r_hat = [nonce() for _ in range(n)]
    chain: list[Point] = []
    previous = g_h
    for i in range(n):
        previous = base_mul(r_hat[i]) + previous * u_perm[i]
        chain.append(previous)

    w1, w2, w3, w4 = (nonce() for _ in range(4))
    w_hat = [nonce() for _ in range(n)]
    w_prime = [nonce() for _ in range(n)]
    t1 = base_mul(w1)
    t2 = base_mul(w2)
    t3 = base_mul(w3) + multi_mul(w_prime, hs)
    # Output i is input ψ(i) plus r̃ᵢ·(G, Y), so Σ w′ᵢ·ãᵢ = Σ w′ᵢ·a_ψ(i) + (Σ w′ᵢ·r̃ᵢ)·G and the
    # same for b with Y: the same t41, t42 with one multiplication less each, and for the first
    # shuffle (every input a is O) t42 is one fixed-base multiplication instead of N.
    w_r = sum(w * rt for w, rt in zip(w_prime, rerand, strict=True))
    t41 = multi_mul(w_prime, [inputs[j].b for j in psi]) + joint_key * (w_r - w4)
    t42 = multi_mul(w_prime, [inputs[j].a for j in psi]) + base_mul(w_r - w4)
    previous_chain = [g_h, *chain[:-1]]
    t_hat = [base_mul(w_hat[i]) + previous_chain[i] * w_prime[i] for i in range(n)]

    c = _challenge(
        match_id, label, identity, joint_key, inputs, outputs, c_vec, chain,
        (t1, t2, t3, t41, t42, *t_hat),
    )  # fmt: skip

    # v_i = ũ_{i+1}·…·ũ_{N-1}: the weight of r̂_i in the chain's final randomness
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = u_perm[i + 1] * v[i + 1] % L
    r_bar = sum(r) % L
    r_hat_total = sum(rh * vi for rh, vi in zip(r_hat, v, strict=True)) % L
    r_u = sum(rj * uj for rj, uj in zip(r, u, strict=True)) % L
    r_tilde = sum(rt * ut for rt, ut in zip(rerand, u_perm, strict=True)) % L
    return ShuffleProof(
        perm_commitments=c_vec,
        chain=tuple(chain),
        challenge=c,
        s1=(w1 + c * r_bar) % L,
        s2=(w2 + c * r_hat_total) % L,
        s3=(w3 + c * r_u) % L,
        s4=(w4 + c * r_tilde) % L,
        s_hat=tuple((w_hat[i] + c * r_hat[i]) % L for i in range(n)),
        s_prime=tuple((w_prime[i] + c * u_perm[i]) % L for i in range(n)),
    )


def verify_shuffle(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    proof: ShuffleProof,
    joint_key: Point,
    generators: Generators,
    match_id: bytes,
    label: str,
    identity: bytes,
    field: str,
) -> tuple[Point, Point]:
    """CheckShuffleProof; raises CryptoProofError, returns (t1, t2) for the nonce ledger."""
    n = len(inputs)
    if not (len(outputs) == len(proof.perm_commitments) == len(generators.hs) == n):
        raise CryptoProofError(f"{field}: shuffle of {len(outputs)} cards, expected {n}")
    g_h, hs = generators.h, generators.hs
    c_vec, chain, c = proof.perm_commitments, proof.chain, proof.challenge

    u = _u_challenges(match_id, label, identity, joint_key, inputs, outputs, c_vec)
    u_prod = 1
    for ui in u:
        u_prod = u_prod * ui % L

    c_bar = point_sum(c_vec) - generators.hs_sum
    c_hat = chain[-1] - g_h * u_prod
    # CHVote's c̃ = Σ uᵢ·cᵢ, a_u = Σ uᵢ·aᵢ and b_u = Σ uᵢ·bᵢ only ever appear times the
    # challenge c: summing with the scalars c·uᵢ gives the same points with 3 multiplications less
    cu = [c * ui % L for ui in u]
    c_tilde_c = multi_mul(cu, c_vec)
    a_u_c = multi_mul(cu, [ct.a for ct in inputs])
    b_u_c = multi_mul(cu, [ct.b for ct in inputs])

    previous_chain = [g_h, *chain[:-1]]
    t_hat = [
        base_mul(proof.s_hat[i]) + previous_chain[i] * proof.s_prime[i] - chain[i] * c
        for i in range(n)
    ]
    t1 = base_mul(proof.s1) - c_bar * c
    t2 = base_mul(proof.s2) - c_hat * c
    t3 = base_mul(proof.s3) + multi_mul(proof.s_prime, hs) - c_tilde_c
    t41 = multi_mul(proof.s_prime, [ct.b for ct in outputs]) - joint_key * proof.s4 - b_u_c
    t42 = multi_mul(proof.s_prime, [ct.a for ct in outputs]) - base_mul(proof.s4) - a_u_c

    expected = _challenge(
        match_id, label, identity, joint_key, inputs, outputs, c_vec, chain,
        (t1, t2, t3, t41, t42, *t_hat),
    )  # fmt: skip
    if expected != c:
        raise CryptoProofError(f"{field}: shuffle proof does not verify")
    return t1, t2
