from __future__ import annotations

import hashlib
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.protocol.support import make_rng
from versus.protocol.crypto.commitment import (
    CoinFlip,
    DeckAudit,
    DeckCommitment,
    DrawAudit,
    DrawOrder,
    HashStream,
    Opening,
    SecretDeck,
    card_commitment,
    coin_commitment,
    decklist_hash,
    draw_permutation,
)
from versus.protocol.errors import (
    CommitmentMismatch,
    DecklistViolation,
    DuplicateCard,
    IllegalAction,
    LocalProtocolError,
    MalformedMessage,
)

MATCH = hashlib.sha256(b"match").digest()
OTHER_MATCH = hashlib.sha256(b"other").digest()
DECKLIST = {"knight": 2, "dragon": 1, 7: 3}
DECK = ["knight", 7, "dragon", 7, "knight", 7]


def flip_pair(purpose: str = "first-player") -> tuple[CoinFlip, CoinFlip]:
    return (CoinFlip(MATCH, 0, purpose, make_rng("a")), CoinFlip(MATCH, 1, purpose, make_rng("b")))


# --- coin flip ------------------------------------------------------------------------------


def test_coin_flip_both_sides_agree():
    zero, one = flip_pair()
    zero.receive_commitment(one.commitment)
    one.receive_commitment(zero.commitment)
    assert zero.receive_reveal(one.reveal()) == one.receive_reveal(zero.reveal())
    assert zero.below(2) == one.below(2) in (0, 1)


def test_coin_reveal_that_does_not_match_its_commitment_is_rejected():
    zero, one = flip_pair()
    zero.receive_commitment(one.commitment)
    with pytest.raises(CommitmentMismatch) as info:
        zero.receive_reveal(b"\x00" * 32, evidence=[b"reveal envelope"])
    assert info.value.player == 1
    assert info.value.evidence == (b"reveal envelope",)


def test_coin_commitment_is_bound_to_seat_purpose_and_match():
    seed = bytes(range(32))
    base = coin_commitment(MATCH, 0, "layout", seed)
    assert base != coin_commitment(MATCH, 1, "layout", seed)
    assert base != coin_commitment(MATCH, 0, "first-player", seed)
    assert base != coin_commitment(OTHER_MATCH, 0, "layout", seed)


def test_echoed_commitment_is_rejected():
    zero, _ = flip_pair()
    with pytest.raises(CommitmentMismatch, match="echoed"):
        zero.receive_commitment(zero.commitment)


def test_our_own_seed_played_back_does_not_verify_for_the_peer():
    zero, one = flip_pair()
    zero.receive_commitment(one.commitment)
    with pytest.raises(CommitmentMismatch):
        zero.receive_reveal(zero.reveal())


def test_coin_flip_order_is_enforced_locally():
    zero, one = flip_pair()
    with pytest.raises(LocalProtocolError):
        zero.reveal()
    with pytest.raises(LocalProtocolError):
        _ = zero.outcome
    zero.receive_commitment(one.commitment)
    with pytest.raises(LocalProtocolError):
        zero.receive_commitment(one.commitment)
    with pytest.raises(MalformedMessage):
        zero.receive_reveal(b"short")


# --- hash stream ----------------------------------------------------------------------------


def test_hash_stream_below_is_in_range_and_roughly_uniform():
    stream = HashStream("test", b"key")
    counts = Counter(stream.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(850 < n < 1150 for n in counts.values())
    with pytest.raises(LocalProtocolError):
        stream.below(0)


# --- card commitments -----------------------------------------------------------------------


def test_card_commitment_binding():
    salt = bytes(32)
    base = card_commitment(MATCH, 0, 3, "knight", salt)
    assert base == card_commitment(MATCH, 0, 3, "knight", salt)
    for variant in [
        (MATCH, 0, 3, "dragon", salt),
        (MATCH, 0, 3, "knight", b"\x01" + salt[1:]),
        (MATCH, 0, 4, "knight", salt),
        (MATCH, 1, 3, "knight", salt),
        (OTHER_MATCH, 0, 3, "knight", salt),
        (MATCH, 0, 3, 7, salt),
    ]:
        assert card_commitment(*variant) != base


def test_deck_commit_open_verify():
    secret = SecretDeck.commit(MATCH, 1, DECK, make_rng("deck"))
    public = DeckCommitment.from_body(MATCH, 1, secret.public.body())
    assert public == secret.public and len(public) == len(DECK)
    for slot in range(len(DECK)):
        assert public.check_opening(secret.open(slot)) == DECK[slot]


@given(st.integers(0, 5), st.sampled_from(["knight", "dragon", 7, 8]))
def test_opening_with_another_card_fails(slot, card):
    secret = SecretDeck.commit(MATCH, 0, DECK, make_rng("deck"))
    opening = secret.open(slot)
    forged = Opening(slot, card, opening.salt)
    if card == DECK[slot] and type(card) is type(DECK[slot]):
        assert secret.public.check_opening(forged) == card
    else:
        with pytest.raises(CommitmentMismatch):
            secret.public.check_opening(forged, evidence=[b"open"])


def test_opening_with_another_salt_or_slot_fails():
    secret = SecretDeck.commit(MATCH, 0, DECK, make_rng("deck"))
    opening = secret.open(1)
    with pytest.raises(CommitmentMismatch):
        secret.public.check_opening(Opening(1, opening.card, bytes(32)))
    with pytest.raises(CommitmentMismatch):
        secret.public.check_opening(Opening(3, opening.card, opening.salt))  # same card, slot 3
    with pytest.raises(IllegalAction):
        secret.public.check_opening(Opening(6, opening.card, opening.salt))


def test_deck_root_mismatch_and_malformed_bodies():
    secret = SecretDeck.commit(MATCH, 0, DECK, make_rng("deck"))
    commitments, _root = secret.public.body()
    with pytest.raises(CommitmentMismatch, match="root"):
        DeckCommitment.from_body(MATCH, 0, [commitments, bytes(32)])
    for body in ([], [[], bytes(32)], [[b"short"], bytes(32)], "x"):
        with pytest.raises(MalformedMessage):
            DeckCommitment.from_body(MATCH, 0, body)


def test_opening_from_body():
    assert Opening.from_body([2, "knight", bytes(32)]) == Opening(2, "knight", bytes(32))
    for body in ([2, "knight"], [2, 1.5, bytes(32)], ["2", "knight", bytes(32)],
                 [2, "knight", b"short"]):
        with pytest.raises(MalformedMessage):
            Opening.from_body(body, player=1)


def test_full_deck_check_passes_for_an_honest_deck():
    secret = SecretDeck.commit(MATCH, 0, DECK, make_rng("deck"))
    audit = DeckAudit(secret.public)
    for opening in secret.open_all():
        audit.record(opening)
    counts = audit.finish(DECKLIST, registered_hash=decklist_hash(DECKLIST))
    assert counts == Counter(DECK)


def test_card_outside_the_decklist():
    secret = SecretDeck.commit(MATCH, 0, [*DECK[:-1], "goblin"], make_rng("deck"))
    audit = DeckAudit(secret.public)
    for opening in secret.open_all():
        audit.record(opening)
    with pytest.raises(DecklistViolation, match="goblin"):
        audit.finish(DECKLIST)


def test_duplicate_card_is_caught_at_once_when_the_decklist_is_known():
    secret = SecretDeck.commit(MATCH, 0, ["dragon", "knight", "dragon"], make_rng("deck"))
    audit = DeckAudit(secret.public, DECKLIST)
    audit.record(secret.open(0))
    audit.record(secret.open(1))
    with pytest.raises(DuplicateCard, match="2 times") as info:
        audit.record(secret.open(2), evidence=[b"third open"])
    assert info.value.evidence == (b"third open",)
    assert info.value.player == 0


def test_duplicate_card_at_the_final_check():
    secret = SecretDeck.commit(MATCH, 0, ["dragon", "dragon"], make_rng("deck"))
    audit = DeckAudit(secret.public)
    for opening in secret.open_all():
        audit.record(opening)
    with pytest.raises(DuplicateCard):
        audit.finish(DECKLIST)


def test_missing_slots_and_registered_hash():
    secret = SecretDeck.commit(MATCH, 0, DECK, make_rng("deck"))
    audit = DeckAudit(secret.public)
    audit.record(secret.open(0))
    with pytest.raises(DecklistViolation, match="never opened"):
        audit.finish(DECKLIST)
    for opening in secret.open_all():
        audit.record(opening)
    with pytest.raises(DecklistViolation, match="registered"):
        audit.finish(DECKLIST, registered_hash=decklist_hash({"knight": 2}))
    with pytest.raises(LocalProtocolError):
        DeckAudit(secret.public).finish()


def test_decklist_hash_ignores_mapping_order():
    assert decklist_hash({"a": 1, "b": 2}) == decklist_hash({"b": 2, "a": 1})
    assert decklist_hash({"a": 1}) != decklist_hash({"a": 2})


# --- draw order -----------------------------------------------------------------------------


@given(st.binary(min_size=32, max_size=32), st.integers(1, 60))
def test_draw_permutation_is_a_deterministic_permutation(seed, size):
    order = draw_permutation(MATCH, 0, seed, size)
    assert sorted(order) == list(range(size))
    assert order == draw_permutation(MATCH, 0, seed, size)


def test_draw_permutation_is_bound_to_match_and_owner():
    seed = bytes(32)
    base = draw_permutation(MATCH, 0, seed, 40)
    assert base != draw_permutation(MATCH, 1, seed, 40)
    assert base != draw_permutation(OTHER_MATCH, 0, seed, 40)


def test_draw_permutation_uniformity_sanity():
    # 6000 seeds over the 6 permutations of 3 slots: each about 1000 times. A chi-square of
    # 25 with 5 degrees of freedom has p < 0.0002, so a fair shuffle essentially never fails.
    counts = Counter(
        tuple(draw_permutation(MATCH, 0, i.to_bytes(32, "big"), 3)) for i in range(6000)
    )
    assert set(counts) == set(permutations(range(3)))
    chi_square = sum((n - 1000) ** 2 / 1000 for n in counts.values())
    assert chi_square < 25
    firsts = Counter(draw_permutation(MATCH, 0, i.to_bytes(32, "big"), 40)[0] for i in range(4000))
    assert len(firsts) == 40 and max(firsts.values()) < 180


def test_draw_order_honest_round_trip():
    chooser = DrawOrder(MATCH, chooser=1, owner=0, size=6, rng=make_rng("draw"))
    audit = DrawAudit(MATCH, 1, 0, 6, chooser.commitment)
    for _ in range(4):
        audit.announce(chooser.next_position())
    audit.finish(chooser.seed)
    assert len(audit.positions) == 4


def test_announced_position_that_the_seed_does_not_fix():
    chooser = DrawOrder(MATCH, chooser=1, owner=0, size=6, rng=make_rng("draw"))
    audit = DrawAudit(MATCH, 1, 0, 6, chooser.commitment)
    honest = chooser.next_position()
    audit.announce((honest + 1) % 6, evidence=[b"draw 0"])
    with pytest.raises(CommitmentMismatch, match="draw 0") as info:
        audit.finish(chooser.seed, evidence=[b"seed"])
    assert info.value.evidence == (b"draw 0", b"seed")
    assert info.value.player == 1


def test_wrong_seed_and_illegal_positions():
    chooser = DrawOrder(MATCH, chooser=1, owner=0, size=6, rng=make_rng("draw"))
    audit = DrawAudit(MATCH, 1, 0, 6, chooser.commitment)
    with pytest.raises(CommitmentMismatch):
        audit.finish(bytes(32))
    audit.announce(2)
    with pytest.raises(IllegalAction, match="already drawn"):
        audit.announce(2)
    for bad in (6, -1, "2", True):
        with pytest.raises(IllegalAction):
            audit.announce(bad)
    with pytest.raises(MalformedMessage):
        audit.finish(b"short")
    for _ in range(6):
        chooser.next_position()
    with pytest.raises(LocalProtocolError):
        chooser.next_position()
