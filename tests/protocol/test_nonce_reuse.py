# Proof nonces after a restart: the attack replayed, then refused.
#
# A MatchPeer draws every secret from its deterministic match rng (`master_rng`). Restored from a
# transcript that lacks its last envelopes, it draws the same rng bytes again, possibly for
# another statement (a draw share for another card). With k taken from the rng alone, two proofs
# with one k and two challenges give the key share away: x = (s1 − s2)/(c1 − c2). Hedged nonces
# (k = H(tag, match id, x, statement, rng bytes)) make the second statement's nonce unrelated,
# while the same statement still gets the same proof, which is what lets `MatchPeer.restore`
# regenerate our envelopes byte for byte. Each attack is first shown to work on an old-style
# proof (k straight from the rng), so the tests prove the attack is real.
from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.protocol.deal_support import IDENTITIES, MATCH_ID
from versus.protocol.crypto import shuffle as shuffle_module
from versus.protocol.crypto.elgamal import Ciphertext, card_point, trivial_encryption
from versus.protocol.crypto.group import L, Point, Rng, base_mul, hedged_scalar, random_scalar
from versus.protocol.crypto.shuffle import (
    ShuffleProof,
    _u_challenges,
    prove_shuffle,
    shuffle,
    shuffle_generators,
    verify_shuffle,
)
from versus.protocol.crypto.zkp import (
    Proof,
    _dleq_prove,
    _schnorr_prove,
    dleq_prove,
    dleq_verify,
    schnorr_prove,
    schnorr_verify,
)
from versus.protocol.deals.pool import DealPhase, SharedPoolDeal
from versus.protocol.match.rules import master_rng
from versus.protocol.wire.canonical import (
    TAG_DEAL_NONCE_DLEQ,
    TAG_DEAL_NONCE_SCHNORR,
    TAG_DEAL_NONCE_SHUFFLE,
)

MASTER = bytes(range(100, 132))
ALICE = IDENTITIES[0]
CARDS = [f"card-{i}" for i in range(8)]


def twin_rngs(master: bytes = MASTER, position: int = 0) -> tuple[Rng, Rng]:
    """Two copies of one match rng at the same position: the peer before the crash, and the
    peer rebuilt from a transcript that lacks its last envelopes."""
    rngs = master_rng(master), master_rng(master)
    for rng in rngs:
        rng(position)
    return rngs


def extract(p1: Proof, p2: Proof) -> int:
    """The key-extraction formula for two proofs that share a nonce: (s1 − s2)/(c1 − c2)."""
    return (p1.response - p2.response) * pow(p1.challenge - p2.challenge, -1, L) % L


def old_style(rng: Rng) -> Callable[[object], int]:
    """The nonce as it was before the fix: k = 64 rng bytes mod L, whatever the statement."""
    return lambda _statement: random_scalar(rng)


class CountingRng:
    """Wraps an rng and counts the bytes drawn (the stream order must not change)."""

    def __init__(self, rng: Rng) -> None:
        self.rng, self.drawn = rng, 0

    def __call__(self, n: int) -> bytes:
        self.drawn += n
        return self.rng(n)


# --- Schnorr and DLEQ -------------------------------------------------------------------------


def test_old_style_nonces_leak_the_key_share_through_two_draw_shares() -> None:
    secret = random_scalar(master_rng(b"key" * 11))
    old_a, old_b = twin_rngs()
    base_a, base_b = base_mul(11), base_mul(12)
    _, p1, t1 = _dleq_prove(secret, base_a, MATCH_ID, "draw/0", ALICE, (), old_style(old_a))
    _, p2, t2 = _dleq_prove(secret, base_b, MATCH_ID, "draw/1", ALICE, (), old_style(old_b))
    assert t1 == t2
    assert extract(p1, p2) == secret  # the attack is real

    new_a, new_b = twin_rngs()
    _, q1, u1 = dleq_prove(secret, base_a, MATCH_ID, "draw/0", ALICE, (), new_a)
    _, q2, u2 = dleq_prove(secret, base_b, MATCH_ID, "draw/1", ALICE, (), new_b)
    assert u1 != u2
    assert extract(q1, q2) != secret
    assert base_mul(extract(q1, q2)) != base_mul(secret)


def test_old_style_nonces_leak_the_key_share_through_two_schnorr_proofs() -> None:
    secret = random_scalar(master_rng(b"key" * 11))
    old_a, old_b = twin_rngs(position=96)
    p1, t1 = _schnorr_prove(secret, MATCH_ID, "key-share/0", ALICE, old_style(old_a))
    p2, t2 = _schnorr_prove(secret, b"other-match", "key-share/0", ALICE, old_style(old_b))
    assert t1 == t2 and extract(p1, p2) == secret

    new_a, new_b = twin_rngs(position=96)
    q1, u1 = schnorr_prove(secret, MATCH_ID, "key-share/0", ALICE, new_a)
    q2, u2 = schnorr_prove(secret, b"other-match", "key-share/0", ALICE, new_b)
    assert u1 != u2 and extract(q1, q2) != secret
    assert schnorr_verify(q1, base_mul(secret), MATCH_ID, "key-share/0", ALICE, "k") == u1


def _dealt_pair(master: bytes) -> tuple[SharedPoolDeal, SharedPoolDeal]:
    """A small shared-pool deal whose player 1 draws from master_rng(master), as a MatchPeer."""
    p0 = SharedPoolDeal(0, MATCH_ID, IDENTITIES, CARDS, master_rng(b"player-0" * 4))
    p1 = SharedPoolDeal(1, MATCH_ID, IDENTITIES, CARDS, master_rng(master))
    p0.accept_key_share(p1.key_share())
    p1.accept_key_share(p0.key_share())
    p1.accept_shuffle(p0.shuffle())
    p0.accept_shuffle(p1.shuffle())
    assert p0.phase is p1.phase is DealPhase.DEALT
    return p0, p1


def test_a_restored_deal_that_proves_another_card_leaks_nothing() -> None:
    """Player 1 sends the draw share for position 0, crashes before the envelope reaches its
    disk, is rebuilt at the same rng position and now owes the share of position 1."""
    p0, before = _dealt_pair(MASTER)
    _, rebuilt = _dealt_pair(MASTER)
    sent, resent = before.draw_share(0), rebuilt.draw_share(1)
    x1 = before._secret
    assert rebuilt._secret == x1  # the same peer, the same rng position
    assert p0.accept_draw_share(0, sent) and p0.accept_draw_share(1, resent)  # both valid

    key = base_mul(x1)
    ledger_points = [
        dleq_verify(message.proof, key, p0.pool[pos].a, message.share, MATCH_ID, f"draw/{pos}",
                    IDENTITIES[1], (p0.pool[pos].a, p0.pool[pos].b), "d")
        for pos, message in ((0, sent), (1, resent))
    ]  # fmt: skip
    assert ledger_points[0] != ledger_points[1]
    assert extract(sent.proof, resent.proof) != x1

    # the same two proofs made the old way: the opponent computes x1 and so player 1's hand
    old_a, old_b = twin_rngs(position=4096)
    proofs = [
        _dleq_prove(x1, p0.pool[pos].a, MATCH_ID, f"draw/{pos}", IDENTITIES[1],
                    (p0.pool[pos].a, p0.pool[pos].b), old_style(rng))[1]
        for pos, rng in ((0, old_a), (1, old_b))
    ]  # fmt: skip
    assert extract(*proofs) == x1


def test_a_restored_deal_that_proves_the_same_card_sends_the_same_envelope() -> None:
    _, before = _dealt_pair(MASTER)
    _, rebuilt = _dealt_pair(MASTER)
    assert before.draw_share(2) == rebuilt.draw_share(2)
    assert before.draw_share(0) == rebuilt.draw_share(0)


def test_same_statement_from_the_same_rng_state_gives_the_same_proof() -> None:
    secret = random_scalar(master_rng(b"key" * 11))
    a, b = twin_rngs(position=7)
    assert schnorr_prove(secret, MATCH_ID, "key-share/1", ALICE, a) == schnorr_prove(
        secret, MATCH_ID, "key-share/1", ALICE, b
    )
    context = (base_mul(3), base_mul(4))
    assert dleq_prove(secret, base_mul(3), MATCH_ID, "reveal/5", ALICE, context, a) == dleq_prove(
        secret, base_mul(3), MATCH_ID, "reveal/5", ALICE, context, b
    )
    assert a(32) == b(32)  # and both rngs moved on by the same amount


@settings(max_examples=40, deadline=None)
@given(
    master=st.binary(min_size=32, max_size=32),
    position=st.integers(0, 300),
    secret=st.integers(1, L - 1),
    statements=st.lists(
        st.tuples(st.sampled_from(["draw", "reveal"]), st.integers(0, 255), st.integers(1, 2**64)),
        min_size=2, max_size=2, unique=True,
    ),
)  # fmt: skip
def test_property_distinct_statements_never_share_a_nonce(
    master: bytes, position: int, secret: int, statements: list[tuple[str, int, int]]
) -> None:
    a, b = twin_rngs(master, position)
    proofs = []
    for (step, pos, base_log), rng in zip(statements, (a, b), strict=True):
        base = base_mul(base_log)
        proofs.append(dleq_prove(secret, base, MATCH_ID, f"{step}/{pos}", ALICE, (base,), rng))
    (_, p1, t1), (_, p2, t2) = proofs
    assert t1 != t2
    assert extract(p1, p2) != secret

    step, pos, base_log = statements[0]
    again = dleq_prove(secret, base_mul(base_log), MATCH_ID, f"{step}/{pos}", ALICE,
                       (base_mul(base_log),), twin_rngs(master, position)[0])  # fmt: skip
    assert again[1] == p1 and again[2] == t1


def test_proofs_draw_as_many_rng_bytes_as_before() -> None:
    """64 bytes per Schnorr/DLEQ nonce, 64 per shuffle proof scalar: the stream order of the
    match rng is unchanged, so later secrets come from the same bytes as before the fix."""
    secret = random_scalar(master_rng(b"key" * 11))
    rng = CountingRng(master_rng(MASTER))
    schnorr_prove(secret, MATCH_ID, "key-share/0", ALICE, rng)
    assert rng.drawn == 64
    dleq_prove(secret, base_mul(5), MATCH_ID, "draw/0", ALICE, (), rng)
    assert rng.drawn == 128
    inputs, key = _pool()
    outputs, witness = shuffle(inputs, key, master_rng(MASTER))
    rng = CountingRng(master_rng(MASTER))
    prove_shuffle(inputs, outputs, witness, key, shuffle_generators(MATCH_ID, len(inputs)),
                  MATCH_ID, "shuffle/0", ALICE, rng)  # fmt: skip
    assert rng.drawn == (4 * len(inputs) + 4) * 64


# --- the hedge itself ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    witness=st.integers(0, L - 1),
    statement=st.lists(st.binary(max_size=40), max_size=4),
    randomness=st.binary(min_size=64, max_size=64),
    which=st.sampled_from(["tag", "match", "witness", "statement", "randomness"]),
)
def test_property_every_input_of_the_hedge_moves_the_nonce(
    witness: int, statement: list[bytes], randomness: bytes, which: str
) -> None:
    def nonce(tag: bytes = TAG_DEAL_NONCE_DLEQ, match_id: bytes = MATCH_ID, w: int = witness,
              s: tuple[bytes, ...] = tuple(statement), r: bytes = randomness) -> int:
        drawn: list[int] = []

        def rng(n: int) -> bytes:  # 64 bytes once: a second draw is a failure, not a loop
            assert not drawn, "the hedge drew from the rng twice"
            drawn.append(n)
            return r

        value = hedged_scalar(tag, match_id, (w,), s, rng)
        assert drawn == [64] and 1 <= value < L
        return value

    changed = {
        "tag": {"tag": TAG_DEAL_NONCE_SCHNORR},
        "match": {"match_id": MATCH_ID + b"!"},
        "witness": {"w": (witness + 1) % L},
        "statement": {"s": (*statement, b"")},
        "randomness": {"r": bytes(b ^ 1 for b in randomness)},
    }[which]
    assert nonce() == nonce()
    assert nonce() != nonce(**changed)


def test_the_nonce_tags_are_distinct_deal_tags() -> None:
    tags = (TAG_DEAL_NONCE_SCHNORR, TAG_DEAL_NONCE_DLEQ, TAG_DEAL_NONCE_SHUFFLE)
    assert len(set(tags)) == 3
    assert all(tag.startswith(b"versus/v1/deal/nonce/") for tag in tags)
    existing = (b"versus/v1/deal/schnorr", b"versus/v1/deal/dleq", shuffle_module.CHALLENGE_TAG,
                shuffle_module.U_TAG, shuffle_module.GENERATOR_TAG, b"versus/v1/deal/card")
    assert not any(a.startswith(b) or b.startswith(a) for a in tags for b in existing)


# --- the shuffle proof ------------------------------------------------------------------------


def _pool(match_id: bytes = MATCH_ID, salt: int = 0) -> tuple[tuple[Ciphertext, ...], Point]:
    key = base_mul(random_scalar(master_rng(b"joint-key" * 4)))
    pool = [trivial_encryption(card_point(match_id, f"{c}/{salt}")) for c in CARDS[:6]]
    inputs, _ = shuffle(pool, key, master_rng(bytes([salt]) * 32))
    return inputs, key


def _twin_shuffles(
    monkeypatch: pytest.MonkeyPatch | None,
) -> list[tuple[tuple[Ciphertext, ...], tuple[Ciphertext, ...], ShuffleProof, Point]]:
    """The same rng position shuffles two different input pools: the same ψ and r̃ (they come
    from the same bytes) proved about two statements. With `monkeypatch`, the old proof
    randomness (plain rng draws) is restored first."""
    if monkeypatch is not None:
        monkeypatch.setattr(shuffle_module, "_nonce_source",
                            lambda *args: lambda: random_scalar(args[-1]))  # fmt: skip
    results = []
    for salt, rng in zip((1, 2), twin_rngs(position=512), strict=True):
        inputs, key = _pool(salt=salt)
        outputs, witness = shuffle(inputs, key, rng)
        gens = shuffle_generators(MATCH_ID, len(inputs))
        proof = prove_shuffle(inputs, outputs, witness, key, gens, MATCH_ID, "shuffle/1", ALICE,
                              rng)  # fmt: skip
        results.append((inputs, outputs, proof, key))
    return results


def _permutation_from_reused_randomness(
    inputs: tuple[Ciphertext, ...], outputs: tuple[Ciphertext, ...], key: Point,
    proof: ShuffleProof, other: ShuffleProof,
) -> list[int | None]:
    """The attack: with the same ω̂ in both proofs, r̂_i = (ŝ_i − ŝ′_i)/(c − c′), and then
    ĉ_i − r̂_i·G = u_ψ(i)·ĉ_{i−1} tells which public u_j, i.e. ψ(i). None where no u_j fits."""
    u = _u_challenges(MATCH_ID, "shuffle/1", ALICE, key, inputs, outputs, proof.perm_commitments)
    inverse = pow(proof.challenge - other.challenge, -1, L)
    previous = [shuffle_generators(MATCH_ID, len(inputs)).h, *proof.chain[:-1]]
    found: list[int | None] = []
    for i, link in enumerate(proof.chain):
        r_hat = (proof.s_hat[i] - other.s_hat[i]) * inverse % L
        rest = link - base_mul(r_hat)
        found.append(next((j for j, uj in enumerate(u) if previous[i] * uj == rest), None))
    return found


def test_old_style_shuffle_randomness_leaks_the_permutation(monkeypatch) -> None:
    (inputs, outputs, proof, key), (_, _, other, _) = _twin_shuffles(monkeypatch)
    psi = shuffle(inputs, key, twin_rngs(position=512)[0])[1].permutation
    assert _permutation_from_reused_randomness(inputs, outputs, key, proof, other) == list(psi)


def test_hedged_shuffle_randomness_leaks_nothing() -> None:
    (inputs, outputs, proof, key), (inputs2, outputs2, other, key2) = _twin_shuffles(None)
    found = _permutation_from_reused_randomness(inputs, outputs, key, proof, other)
    assert found == [None] * len(inputs)
    gens = shuffle_generators(MATCH_ID, len(inputs))
    t = verify_shuffle(inputs, outputs, proof, key, gens, MATCH_ID, "shuffle/1", ALICE, "p")
    t2 = verify_shuffle(inputs2, outputs2, other, key2, gens, MATCH_ID, "shuffle/1", ALICE, "p")
    assert t[0] != t2[0] and t[1] != t2[1]
    assert not set(proof.s_hat) & set(other.s_hat)
    assert not set(proof.perm_commitments) & set(other.perm_commitments)


def test_same_shuffle_from_the_same_rng_state_gives_the_same_proof() -> None:
    inputs, key = _pool()
    gens = shuffle_generators(MATCH_ID, len(inputs))
    proofs = []
    for rng in twin_rngs(position=33):
        outputs, witness = shuffle(inputs, key, rng)
        proofs.append((outputs, prove_shuffle(inputs, outputs, witness, key, gens, MATCH_ID,
                                              "shuffle/0", ALICE, rng)))  # fmt: skip
    assert proofs[0] == proofs[1]
    verify_shuffle(inputs, *proofs[0], key, gens, MATCH_ID, "shuffle/0", ALICE, "p")
