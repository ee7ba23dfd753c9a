# The two-party shared-pool deal: honest flow, every cheat caught, fuzzed parsing, uniformity.
from __future__ import annotations

import collections
import contextlib
import dataclasses

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.protocol.deal_support import (
    IDENTITIES,
    MATCH_ID,
    draw_all,
    exchange_keys,
    make_pair,
    over_the_wire,
    run_shuffles,
    seeded_rng,
)
from versus.protocol.crypto.group import (
    CryptoProofError,
    InvalidPointError,
    MalformedMessageError,
    NonceReuseError,
    Point,
)
from versus.protocol.crypto.shuffle import prove_shuffle, shuffle, shuffle_generators
from versus.protocol.crypto.zkp import _dleq_prove, dleq_prove, schnorr_prove
from versus.protocol.deals.pool import (
    CardMismatchError,
    DealPhase,
    DrawShare,
    EndReveal,
    KeyShare,
    Reveal,
    SharedPoolDeal,
    Shuffle,
    UnexpectedMessageError,
    parse_message,
)
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError

CATALOGUE = [f"card-{i:02d}" for i in range(42)]
ORDER_2 = bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")


@pytest.fixture
def dealt() -> tuple[SharedPoolDeal, SharedPoolDeal]:
    p0, p1 = make_pair(CATALOGUE, seed="dealt")
    run_shuffles(p0, p1)
    return p0, p1


def test_honest_deal_each_player_learns_exactly_its_cards(dealt) -> None:
    p0, p1 = dealt
    assert p0.phase is p1.phase is DealPhase.DEALT
    assert p0.pool == p1.pool
    deck0, deck1 = draw_all(p0, p1, 12)
    assert len(set(deck0) | set(deck1)) == 24 and set(deck0 + deck1) <= set(CATALOGUE)
    assert p0.known_cards == dict(enumerate(deck0))
    assert p1.known_cards == {12 + i: card for i, card in enumerate(deck1)}
    # the end reveal confirms both decks and the undealt rest
    order = p0.accept_end_reveal(over_the_wire(p1.end_reveal()))
    assert p1.accept_end_reveal(over_the_wire(p0.end_reveal())) == order
    assert list(order[:12]) == deck0 and list(order[12:24]) == deck1
    assert sorted(order) == sorted(CATALOGUE)


def test_public_reveal(dealt) -> None:
    p0, p1 = dealt
    card = p0.accept_draw_share(3, over_the_wire(p1.draw_share(3)))
    assert p1.accept_reveal(3, over_the_wire(p0.reveal(3))) == card
    assert p1.known_cards == {3: card}
    with pytest.raises(LocalProtocolError, match="position 4 was not dealt to me"):
        p0.reveal(4)  # never dealt
    p1.accept_draw_share(12, over_the_wire(p0.draw_share(12)))
    with pytest.raises(LocalProtocolError, match="position 12 was not dealt to me"):
        p0.reveal(12)  # dealt to the peer
    with pytest.raises(LocalProtocolError, match="position 12 was dealt already"):
        p0.draw_share(12)


def test_reveal_of_another_card_is_caught(dealt) -> None:
    p0, p1 = dealt
    for position in (0, 1):
        p0.accept_draw_share(position, p1.draw_share(position))
    honest = p0.reveal(0)
    lie = dataclasses.replace(honest, card_id=p0.known_cards[1])
    with pytest.raises(CardMismatchError, match="position 0 holds"):
        p1.accept_reveal(0, over_the_wire(lie))
    assert p1.phase is DealPhase.FAILED
    with pytest.raises(LocalProtocolError, match="failed"):
        p1.accept_reveal(0, honest)


def test_reveal_with_another_positions_share_is_caught(dealt) -> None:
    p0, p1 = dealt
    for position in (0, 1):
        p0.accept_draw_share(position, p1.draw_share(position))
    other = p0.reveal(1)
    forged = Reveal(0, p0.known_cards[1], other.share, other.proof)
    with pytest.raises(CryptoProofError, match="reveal/0"):
        p1.accept_reveal(0, forged)


def test_reveal_of_a_card_never_drawn_is_refused_before_decryption() -> None:
    """Without my draw share the owner can only guess the card: right or wrong, it is refused.

    Before the fix a wrong guess raised CardMismatchError naming the real card (a probe of the
    owner's undrawn deck) and a lucky guess made a card public that its owner did not know.
    """
    for lucky in (False, True):
        p0, p1 = make_pair(CATALOGUE, seed="dealt")
        run_shuffles(p0, p1)
        ct = p0.pool[0]
        truth = p1._table[(ct.b - ct.a * (p0._secret + p1._secret)).encoded]
        guess = truth if lucky else next(c for c in CATALOGUE if c != truth)
        share, proof, _ = dleq_prove(p0._secret, ct.a, MATCH_ID, "reveal/0", IDENTITIES[0],
                                     (ct.a, ct.b), seeded_rng("guess"))  # fmt: skip
        with pytest.raises(UnexpectedMessageError, match="position 0 was never drawn") as info:
            p1.accept_reveal(0, over_the_wire(Reveal(0, guess, share, proof)))
        assert truth not in str(info.value)
        assert p1.known_cards == {} and p1.phase is DealPhase.FAILED


def test_wrong_draw_share_is_caught(dealt) -> None:
    p0, p1 = dealt
    honest = p1.draw_share(0)
    wrong = dataclasses.replace(honest, share=honest.share + Point.BASE)
    with pytest.raises(CryptoProofError, match="draw/0"):
        p0.accept_draw_share(0, wrong)


def test_draw_share_for_another_position_is_caught(dealt) -> None:
    p0, p1 = dealt
    honest = p1.draw_share(5)
    with pytest.raises(UnexpectedMessageError, match="got 5, expected 4"):
        p0.accept_draw_share(4, honest)
    p0b, p1b = make_pair(CATALOGUE, seed="dealt")
    run_shuffles(p0b, p1b)
    moved = dataclasses.replace(p1b.draw_share(5), position=4)
    with pytest.raises(CryptoProofError, match="draw/4"):
        p0b.accept_draw_share(4, moved)


def test_draw_share_from_another_match_is_caught(dealt) -> None:
    p0, p1 = dealt
    ct = p1.pool[2]
    share, proof, _ = dleq_prove(p1._secret, ct.a, b"another-match", "draw/2", IDENTITIES[1],
                                 (ct.a, ct.b), seeded_rng("x"))  # fmt: skip
    with pytest.raises(CryptoProofError, match="draw/2"):
        p0.accept_draw_share(2, DrawShare(2, share, proof))


def test_reused_nonce_from_the_peer_is_caught(dealt) -> None:
    p0, p1 = dealt
    fixed = lambda _statement: 12345  # noqa: E731 - a peer that repeats its nonce
    messages = []
    for position in (0, 1):
        ct = p1.pool[position]
        share, proof, _ = _dleq_prove(p1._secret, ct.a, MATCH_ID, f"draw/{position}",
                                      IDENTITIES[1], (ct.a, ct.b), fixed)  # fmt: skip
        messages.append(DrawShare(position, share, proof))
    p0.accept_draw_share(0, messages[0])  # a valid proof on its own
    with pytest.raises(NonceReuseError, match="draw/1"):
        p0.accept_draw_share(1, messages[1])


def test_key_share_bound_to_identity_and_checked() -> None:
    p0, p1 = make_pair(CATALOGUE, seed="keys")
    k1 = p1.key_share()
    # the peer echoes our own key share back (which would make the joint key 2·Y0)
    with pytest.raises(CryptoProofError, match="echoed"):
        p0.accept_key_share(p0.key_share())
    q0, _ = make_pair(CATALOGUE, seed="keys2")
    proof, _ = schnorr_prove(p1._secret, MATCH_ID, "key-share/1", IDENTITIES[0], seeded_rng(1))
    with pytest.raises(CryptoProofError, match="Schnorr"):
        q0.accept_key_share(KeyShare(k1.key, proof))
    with pytest.raises(InvalidPointError, match=r"key-share\.key"):
        KeyShare.from_wire(["deal/key-share", ORDER_2, k1.proof.to_wire()])


def test_malicious_shuffle_through_the_deal_is_caught() -> None:
    p0, p1 = make_pair(CATALOGUE, seed="cheat")
    exchange_keys(p0, p1)
    honest = p0.shuffle()
    # player 0 duplicates the card that lands in position 0 into position 1 (its deck) and
    # proves over the result with the witness it holds
    outputs, witness = shuffle(p1.pool, p1.joint_key, seeded_rng("w"))
    cheat = list(outputs)
    cheat[1] = p1.pool[witness.permutation[0]].rerandomize(99, p1.joint_key)
    proof = prove_shuffle(p1.pool, cheat, witness, p1.joint_key,
                          shuffle_generators(MATCH_ID, len(CATALOGUE)), MATCH_ID, "shuffle/0",
                          IDENTITIES[0], seeded_rng("p"))  # fmt: skip
    bad = dataclasses.replace(honest, outputs=tuple(cheat), proof=proof)
    with pytest.raises(CryptoProofError, match=r"shuffle\.proof"):
        p1.accept_shuffle(over_the_wire(bad))
    assert p1.phase is DealPhase.FAILED


def test_out_of_turn_messages() -> None:
    p0, p1 = make_pair(CATALOGUE, seed="turns")
    with pytest.raises(LocalProtocolError, match="shuffle not allowed in phase keys"):
        p0.shuffle()
    exchange_keys(p0, p1)
    with pytest.raises(LocalProtocolError, match="phase shuffle-0"):
        p1.shuffle()
    s0 = p0.shuffle()
    p1.accept_shuffle(s0)
    with pytest.raises(UnexpectedMessageError, match="phase shuffle-1"):
        p1.accept_shuffle(s0)  # a replayed shuffle


def test_end_reveal_must_match_the_key_share(dealt) -> None:
    p0, p1 = dealt
    with pytest.raises(CryptoProofError, match=r"end-reveal\.secret"):
        p0.accept_end_reveal(EndReveal(p1._secret + 1))
    q0, q1 = make_pair(CATALOGUE, seed="dealt")
    run_shuffles(q0, q1)
    q1.end_reveal()
    with pytest.raises(LocalProtocolError, match="already public"):
        q1.draw_share(0)


def test_construction_rejects_misuse() -> None:
    with pytest.raises(LocalProtocolError, match="twice"):
        SharedPoolDeal(0, MATCH_ID, IDENTITIES, ["a", "a"], seeded_rng(0))
    with pytest.raises(LocalProtocolError, match="2 to"):
        SharedPoolDeal(0, MATCH_ID, IDENTITIES, ["a"], seeded_rng(0))
    with pytest.raises(LocalProtocolError, match="differ"):
        SharedPoolDeal(0, MATCH_ID, (IDENTITIES[0],) * 2, ["a", "b"], seeded_rng(0))


# --- parsing untrusted input ------------------------------------------------------------------

_leaf = st.one_of(
    st.binary(max_size=40), st.binary(min_size=32, max_size=32), st.integers(-5, 300),
    st.text(max_size=10), st.none(), st.booleans(), st.floats(allow_nan=False),
    st.sampled_from(["deal/key-share", "deal/shuffle", "deal/draw-share", "deal/reveal",
                     "deal/end-reveal"]),
)  # fmt: skip
_tree = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=6), max_leaves=40)


def _valid_wires() -> list[list]:
    p0, p1 = make_pair(CATALOGUE[:6], seed="wires")
    k0 = p0.key_share()
    exchange = p1.key_share()
    p0.accept_key_share(exchange)
    p1.accept_key_share(k0)
    s0 = p0.shuffle()
    p1.accept_shuffle(s0)
    s1 = p1.shuffle()
    p0.accept_shuffle(s1)
    d = p1.draw_share(0)
    p0.accept_draw_share(0, d)
    return [m.to_wire() for m in (k0, s0, d, p0.reveal(0), p0.end_reveal())]


VALID_WIRES = _valid_wires()


def _mutate(obj: object, path: list[int], value: object) -> object:
    if not path or not isinstance(obj, list) or not obj:
        return value
    obj = list(obj)
    i = path[0] % len(obj)
    obj[i] = _mutate(obj[i], path[1:], value)
    return obj


@settings(max_examples=300, deadline=None)
@given(_tree)
def test_random_objects_raise_only_remote_errors(obj: object) -> None:
    with contextlib.suppress(RemoteProtocolError):
        parse_message(obj)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(VALID_WIRES))), st.lists(st.integers(0, 50), max_size=4), _leaf)
def test_mutated_messages_raise_only_remote_errors(index: int, path: list[int], value) -> None:
    try:
        message = parse_message(_mutate(VALID_WIRES[index], path, value))
    except RemoteProtocolError:
        return
    assert message.to_wire() is not None  # anything accepted re-encodes


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_random_msgpack_bytes_raise_only_remote_errors(data: bytes) -> None:
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception:  # not msgpack at all: the transport's concern, not ours
        return
    with contextlib.suppress(RemoteProtocolError):
        parse_message(obj)


def test_valid_wires_roundtrip() -> None:
    for wire in VALID_WIRES:
        assert parse_message(msgpack.unpackb(msgpack.packb(wire), raw=False)).to_wire() == wire


def test_malformed_messages_name_the_field() -> None:
    key_share = VALID_WIRES[0]
    with pytest.raises(MalformedMessageError, match="expected 3 items"):
        parse_message([*key_share, b""])
    with pytest.raises(MalformedMessageError, match="unknown kind"):
        parse_message(["deal/nope"])
    with pytest.raises(MalformedMessageError, match=r"draw-share\.position"):
        parse_message(["deal/draw-share", True, bytes(32), [bytes(32), bytes(32)]])


# --- uniformity -------------------------------------------------------------------------------


def test_deal_is_uniform_even_if_one_player_always_shuffles_the_same_way() -> None:
    """180 full deals of 3 cards with every proof checked; player 1 reuses one seed each time.

    Player 1's permutation is then the same in every deal, yet the final order is uniform over
    the 6 permutations because player 0's shuffle is; chi-square, df = 5, p = 0.001 → 20.5.
    """
    cards = ["a", "b", "c"]
    counts: collections.Counter[tuple[str, ...]] = collections.Counter()
    runs = 180  # 30 expected per order: ample for the chi-square approximation
    for i in range(runs):
        p0 = SharedPoolDeal(0, MATCH_ID, IDENTITIES, cards, seeded_rng(("honest", i)))
        p1 = SharedPoolDeal(1, MATCH_ID, IDENTITIES, cards, seeded_rng("fixed"))
        run_shuffles(p0, p1)
        counts[p0.accept_end_reveal(p1.end_reveal())] += 1
    assert len(counts) == 6
    expected = runs / 6
    assert sum((n - expected) ** 2 / expected for n in counts.values()) < 20.5


def test_a_peer_reads_its_own_shuffle_back_without_subgroup_checks_and_the_peers_with(
        monkeypatch) -> None:
    """Each seat checks what it sends as the peer will, but the subgroup check of a point (a
    multiplication each, 4N per shuffle) is for the peer's points only: ours are computed from
    group elements. Counted over a whole in-memory shared-pool setup until PLAY."""
    from tests.protocol.pair import Pair, rules_for
    from versus.protocol.crypto import group
    from versus.protocol.match import Phase
    from versus.protocol.match.rules import DealMode

    checked: list[bytes] = []
    real = group._na.crypto_core_ed25519_is_valid_point
    monkeypatch.setattr(group._na, "crypto_core_ed25519_is_valid_point",
                        lambda data: checked.append(data) or real(data))
    pair = Pair(rules_for(DealMode.SHARED_POOL), label="own-shuffle")
    pair.start()
    while not all(p.phase is Phase.PLAY for p in pair.peers):
        pair.deliver(max_steps=1, choose=False)
    n = len(pair.peers[0].core.pool.deal._pool)
    # each seat reads the other's key share (1 point) and shuffle (2N outputs, N permutation
    # commitments, N chain points), and maybe the first deal's share, before both are in PLAY:
    # nothing of its own (its own shuffle alone would add 4N)
    peers = 2 * (1 + 4 * n)
    assert peers <= len(checked) <= peers + 4
    # the peer's points are checked: a shuffle whose output is off the group is refused
    bad = [[ct.a.encoded, bytes(32)] for ct in pair.peers[0].core.pool.deal._pool]
    with pytest.raises(InvalidPointError):
        Shuffle.from_wire(["deal/shuffle", 0, bad, [[], [], b"", [], [], []]])
