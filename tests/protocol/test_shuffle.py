# The Terelius–Wikström shuffle proof: honest shuffles verify, every cheating shuffle is caught.
from __future__ import annotations

import dataclasses

import pytest

from protocol.elgamal import Ciphertext, card_point, card_table, trivial_encryption
from protocol.group import CryptoProofError, InvalidPointError, L, Point, base_mul, random_scalar
from protocol.shuffle import (
    ShuffleProof,
    ShuffleWitness,
    prove_shuffle,
    shuffle,
    shuffle_generators,
    verify_shuffle,
)
from tests.protocol.deal_support import seeded_rng

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
