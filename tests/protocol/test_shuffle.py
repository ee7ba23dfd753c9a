# The Terelius–Wikström shuffle proof: honest shuffles verify, every cheating shuffle is caught.
from __future__ import annotations

import dataclasses

import pytest

from tests.protocol.deal_support import seeded_rng
from versus.protocol.crypto import shuffle as shuffle_module
from versus.protocol.crypto.elgamal import Ciphertext, card_point, card_table, trivial_encryption
from versus.protocol.crypto.group import (
    CryptoProofError,
    InvalidPointError,
    L,
    Point,
    base_mul,
    multi_mul,
    point_sum,
    random_scalar,
)
from versus.protocol.crypto.shuffle import (
    ShuffleProof,
    ShuffleWitness,
    _challenge,
    _u_challenges,
    prove_shuffle,
    shuffle,
    shuffle_generators,
    verify_shuffle,
)

MATCH = b"match-shuffle"
SHUFFLER = bytes([9]) * 32
CARDS = [f"card-{i}" for i in range(8)]


@dataclasses.dataclass
class Setup:
    secret: int
    key: Point
    inputs: tuple[Ciphertext, ...]


@pytest.fixture
def setup() -> Setup:
    rng = seeded_rng("setup")
    secret = random_scalar(rng)
    key = base_mul(secret)
    pool = [trivial_encryption(card_point(MATCH, c)) for c in CARDS]
    inputs, _ = shuffle(pool, key, rng)  # a pool with real randomness in both components
    return Setup(secret, key, inputs)


def _prove(s: Setup, outputs, witness, seed: object = "prove") -> ShuffleProof:
    gens = shuffle_generators(MATCH, len(s.inputs))
    return prove_shuffle(s.inputs, outputs, witness, s.key, gens, MATCH, "shuffle/0", SHUFFLER,
                         seeded_rng(seed))  # fmt: skip


def _verify(s: Setup, outputs, proof, match_id=MATCH, label="shuffle/0", identity=SHUFFLER):
    gens = shuffle_generators(match_id, len(s.inputs))
    return verify_shuffle(s.inputs, outputs, proof, s.key, gens, match_id, label, identity,
                          "shuffle.proof")  # fmt: skip


def _decrypt(s: Setup, outputs) -> list[str]:
    table = card_table(MATCH, CARDS)
    return [table.get((ct.b - ct.a * s.secret).encoded, "?") for ct in outputs]


def test_honest_shuffle_verifies_and_permutes(setup: Setup) -> None:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng("honest"))
    proof = _prove(setup, outputs, witness)
    t1, t2 = _verify(setup, outputs, proof)
    assert t1 != t2
    assert sorted(_decrypt(setup, outputs)) == sorted(_decrypt(setup, setup.inputs))
    assert _decrypt(setup, outputs) == [
        _decrypt(setup, setup.inputs)[j] for j in witness.permutation
    ]
    assert not {ct.a for ct in outputs} & {ct.a for ct in setup.inputs}  # every byte changed


def test_first_shuffle_of_trivial_encryptions_verifies(setup: Setup) -> None:
    """The prover computes t42 from the witness; on the pool's trivial encryptions (every a is
    O) that is one fixed-base multiplication, and the proof must still verify."""
    s = dataclasses.replace(
        setup, inputs=tuple(trivial_encryption(card_point(MATCH, c)) for c in CARDS)
    )
    outputs, witness = shuffle(s.inputs, s.key, seeded_rng("first"))
    _verify(s, outputs, _prove(s, outputs, witness))
    assert sorted(_decrypt(s, outputs)) == sorted(CARDS)


def test_generator_sum_is_the_sum_of_the_generators() -> None:
    gens = shuffle_generators(MATCH, 5)
    assert gens.hs_sum == point_sum(gens.hs)


def test_proof_roundtrips_through_the_wire(setup: Setup) -> None:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng("wire"))
    proof = _prove(setup, outputs, witness)
    again = ShuffleProof.from_wire(proof.to_wire(), len(outputs), "p")
    assert again == proof
    _verify(setup, outputs, again)


def _cheat(setup: Setup, kind: str) -> tuple[tuple[Ciphertext, ...], ShuffleWitness]:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng(kind))
    out = list(outputs)
    if kind == "duplicate":  # card at output 0 also at output 1; the card at 1 is dropped
        out[1] = setup.inputs[witness.permutation[0]].rerandomize(12345, setup.key)
    elif kind == "replace":  # output 2 becomes a card that was never in the pool
        out[2] = trivial_encryption(card_point(MATCH, "forged")).rerandomize(777, setup.key)
    elif kind == "swap-untracked":  # two outputs exchanged after the permutation was fixed
        out[0], out[1] = out[1], out[0]
    elif kind == "wrong-key":  # re-encrypted under a key the shuffler alone can open
        wrong = base_mul(42)
        out = [setup.inputs[j].rerandomize(s, wrong)
               for j, s in zip(witness.permutation, witness.rerand, strict=True)]  # fmt: skip
    elif kind == "plaintext-shift":  # M changed by adding a known point
        out[3] = Ciphertext(out[3].a, out[3].b + Point.BASE)
    return tuple(out), witness


@pytest.mark.parametrize(
    "kind", ["duplicate", "replace", "swap-untracked", "wrong-key", "plaintext-shift"]
)
def test_cheating_shuffles_are_caught(setup: Setup, kind: str) -> None:
    outputs, witness = _cheat(setup, kind)
    if kind in ("duplicate", "replace"):
        assert sorted(_decrypt(setup, outputs)) != sorted(_decrypt(setup, setup.inputs))
    # attempt 1: run the prover over the cheating outputs with the witness it has
    with pytest.raises(CryptoProofError, match=r"shuffle\.proof"):
        _verify(setup, outputs, _prove(setup, outputs, witness))
    # attempt 2: prove an honest shuffle, then send the cheating outputs with that proof
    honest, honest_witness = shuffle(setup.inputs, setup.key, seeded_rng(kind))
    with pytest.raises(CryptoProofError):
        _verify(setup, outputs, _prove(setup, honest, honest_witness))


def test_dropped_card_is_caught(setup: Setup) -> None:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng("drop"))
    proof = _prove(setup, outputs, witness)
    with pytest.raises(CryptoProofError, match="7 cards, expected 8"):
        _verify(setup, outputs[:-1], proof)


def test_proof_is_bound_to_match_step_and_prover(setup: Setup) -> None:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng("bind"))
    proof = _prove(setup, outputs, witness)
    for kwargs in ({"match_id": b"other-match"}, {"label": "shuffle/1"},
                   {"identity": bytes(32)}):  # fmt: skip
        with pytest.raises(CryptoProofError):
            _verify(setup, outputs, proof, **kwargs)


@pytest.mark.parametrize("field", ["chain", "perm_commitments", "s4", "s_prime", "challenge"])
def test_tampered_proof_fails(setup: Setup, field: str) -> None:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng("tamper"))
    proof = _prove(setup, outputs, witness)
    value = getattr(proof, field)
    if isinstance(value, tuple) and isinstance(value[0], Point):
        value = (value[1], value[0], *value[2:])
    elif isinstance(value, tuple):
        value = ((value[0] + 1) % L, *value[1:])
    else:
        value = (value + 1) % L
    with pytest.raises(CryptoProofError):
        _verify(setup, outputs, dataclasses.replace(proof, **{field: value}))


def test_proof_with_a_small_order_commitment_is_refused_on_parse(setup: Setup) -> None:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng("parse"))
    wire = _prove(setup, outputs, witness).to_wire()
    wire[1][4] = bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
    with pytest.raises(InvalidPointError, match=r"shuffle\.proof\.chain\[4\]"):
        ShuffleProof.from_wire(wire, len(outputs), "shuffle.proof")


# --- a prover for linear (non-permutation) shuffles ----------------------------------------------
#
# Output i = Σⱼ A_ij·input_j re-encrypted, proved with a commitment to B = A^-T (CHVote's
# permutation matrix generalised). With B's rows summing to 1, the t1, t3 and t4 equations hold
# for any such B; only the commitment chain's product check (t2: Πũ = Πu) tells a permutation
# matrix from the rest. The tests run it with a permutation (it must verify, which checks the
# harness) and with a matrix that adds card 0 to card 2 and subtracts it from card 1.


def _prove_linear(s: Setup, outputs, b_matrix, rerand, rng) -> tuple[ShuffleProof, tuple]:
    n = len(s.inputs)
    gens = shuffle_generators(MATCH, n)
    r = [random_scalar(rng) for _ in range(n)]
    c_vec = tuple(
        base_mul(r[j]) + multi_mul([b_matrix[i][j] for i in range(n)], gens.hs) for j in range(n)
    )
    u = _u_challenges(MATCH, "shuffle/0", SHUFFLER, s.key, s.inputs, outputs, c_vec)
    u_t = [sum(b_matrix[i][j] * u[j] for j in range(n)) % L for i in range(n)]
    r_hat = [random_scalar(rng) for _ in range(n)]
    chain, previous = [], gens.h
    for i in range(n):
        previous = base_mul(r_hat[i]) + previous * u_t[i]
        chain.append(previous)
    w = [random_scalar(rng) for _ in range(4)]
    w_hat = [random_scalar(rng) for _ in range(n)]
    w_prime = [random_scalar(rng) for _ in range(n)]
    before = [gens.h, *chain[:-1]]
    t = (
        base_mul(w[0]),
        base_mul(w[1]),
        base_mul(w[2]) + multi_mul(w_prime, gens.hs),
        multi_mul(w_prime, [ct.b for ct in outputs]) - s.key * w[3],
        multi_mul(w_prime, [ct.a for ct in outputs]) - base_mul(w[3]),
        *(base_mul(w_hat[i]) + before[i] * w_prime[i] for i in range(n)),
    )
    c = _challenge(MATCH, "shuffle/0", SHUFFLER, s.key, s.inputs, outputs, c_vec, chain, t)
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = u_t[i + 1] * v[i + 1] % L
    proof = ShuffleProof(
        perm_commitments=c_vec,
        chain=tuple(chain),
        challenge=c,
        s1=(w[0] + c * sum(r)) % L,
        s2=(w[1] + c * sum(x * y for x, y in zip(r_hat, v, strict=True))) % L,
        s3=(w[2] + c * sum(x * y for x, y in zip(r, u, strict=True))) % L,
        s4=(w[3] + c * sum(x * y for x, y in zip(rerand, u_t, strict=True))) % L,
        s_hat=tuple((w_hat[i] + c * r_hat[i]) % L for i in range(n)),
        s_prime=tuple((w_prime[i] + c * u_t[i]) % L for i in range(n)),
    )
    return proof, t


def _linear_outputs(s: Setup, a_matrix, rerand) -> tuple[Ciphertext, ...]:
    n = len(s.inputs)
    return tuple(
        Ciphertext(
            multi_mul(a_matrix[i], [ct.a for ct in s.inputs]),
            multi_mul(a_matrix[i], [ct.b for ct in s.inputs]),
        ).rerandomize(rerand[i], s.key)
        for i in range(n)
    )


def test_non_permutation_matrix_is_caught_by_the_product_check(setup, monkeypatch) -> None:
    n = len(setup.inputs)
    rng = seeded_rng("linear")
    rerand = [random_scalar(rng) for _ in range(n)]
    identity = [[int(i == j) for j in range(n)] for i in range(n)]

    # harness check: a permutation matrix (B = A^-T = A) proves and verifies
    perm = [[int(j == (i + 3) % n) for j in range(n)] for i in range(n)]
    outputs = _linear_outputs(setup, perm, rerand)
    _verify(setup, outputs, _prove_linear(setup, outputs, perm, rerand, rng)[0])

    # A = I − (e1 − e2)·e0ᵀ: out1 = M1 − M0, out2 = M2 + M0; B = A^-T = I + e0·(e1 − e2)ᵀ
    a_matrix = [row[:] for row in identity]
    a_matrix[1][0], a_matrix[2][0] = L - 1, 1
    b_matrix = [row[:] for row in identity]
    b_matrix[0][1], b_matrix[0][2] = 1, L - 1
    assert all(sum(row) % L == 1 for row in b_matrix)  # so the t1 check (Σc − ΣH) passes
    outputs = _linear_outputs(setup, a_matrix, rerand)
    assert _decrypt(setup, outputs).count("?") == 2  # two cards became forgeries
    proof, t_prover = _prove_linear(setup, outputs, b_matrix, rerand, rng)

    seen: list[tuple] = []  # the t values the verifier recomputes, caught on their way to H
    original = shuffle_module._challenge

    def spy(*args):
        seen.append(tuple(args[-1]))
        return original(*args)

    monkeypatch.setattr(shuffle_module, "_challenge", spy)
    with pytest.raises(CryptoProofError, match="does not verify"):
        _verify(setup, outputs, proof)
    (t_verifier,) = seen
    differs = [i for i, (x, y) in enumerate(zip(t_prover, t_verifier, strict=True)) if x != y]
    assert differs == [1]  # only t2, the chain's product check, exposes the cheat


def test_proof_is_bound_to_the_input_pool_and_the_joint_key(setup: Setup) -> None:
    outputs, witness = shuffle(setup.inputs, setup.key, seeded_rng("statement"))
    proof = _prove(setup, outputs, witness)
    other_inputs = (setup.inputs[1], setup.inputs[0], *setup.inputs[2:])
    moved = dataclasses.replace(setup, inputs=other_inputs)
    with pytest.raises(CryptoProofError):
        _verify(moved, outputs, proof)
    with pytest.raises(CryptoProofError):
        _verify(dataclasses.replace(setup, key=setup.key + Point.BASE), outputs, proof)
