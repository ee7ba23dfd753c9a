# Decklist mode with decks of different sizes per seat (SPEC §4.7, Decided): a match
# that starts from a position gives seat 0, say, 7 hidden cards and seat 1 five. The toy variant
# of tests/engine/toy_game.py (`toy-decks`) declares such decks; every check and size cap uses
# the seat's own size, and equal sizes (every existing transcript) are unchanged.
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.engine.toy_game import CARDS, TOY_DECKS
from tests.protocol.pair import Pair, identities, on_nth, reseal
from versus.protocol import errors
from versus.protocol.crypto.commitment import SecretDeck
from versus.protocol.deals.dealers import decklist_entries
from versus.protocol.match import MatchPeer, Phase
from versus.protocol.match.core import _size_caps
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import Envelope, MessageKind

K = MessageKind
DECK = DealMode.DECKLIST
DECK0 = ["one", "two", "three", "one", "two", "three", "three"]  # seat 0: 7 cards
DECK1 = ["one", "two", "three", "two", "one"]  # seat 1: 5 cards


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    from versus.engine.registry import register_game, unregister_game

    register_game(TOY_DECKS)
    yield
    unregister_game(TOY_DECKS.id)


def rules(sizes: tuple[int, int] = (7, 5)) -> MatchRules:
    return MatchRules(sizes, DECK, game=TOY_DECKS.id)


def decks_pair(label: str, sizes: tuple[int, int] = (7, 5),
               decks: tuple[object, object] = (DECK0, DECK1), seed: int = 0,
               tamper: object = None) -> Pair:
    return Pair(rules(sizes), label=label, decks=decks, seed=seed, tamper=tamper,  # type: ignore[arg-type]
                catalogue=CARDS)  # type: ignore[arg-type]


def _check_caught(pair: Pair, cheater: int, expected: type, message: str) -> None:
    assert len(pair.errors) == 1, pair.errors
    seat, error = pair.errors[0]
    assert seat == 1 - cheater and isinstance(error, expected), (type(error), error)
    assert error.player == cheater and error.evidence
    assert message in str(error), str(error)
    report = verify_transcript(pair.peers[seat].transcript(), CARDS)
    assert report.ok, report.describe()
    assert report.summary["fault"]["code"] == error.code
    assert report.summary["fault"]["player"] == cheater


def test_the_rules_give_each_seat_its_own_deck_size() -> None:
    assert rules().deck_sizes == (7, 5)
    assert rules((3, 9)).deck_sizes == (3, 9)
    assert MatchRules(deal_mode=DECK).deck_sizes == (12, 12)  # versus42: one size, as before
    assert MatchRules.decode(rules().encode()) == rules()
    with pytest.raises(errors.LocalProtocolError, match="decklist mode only"):
        _ = MatchRules((7, 5), game=TOY_DECKS.id).deck_sizes  # shared pool: nothing brought


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_whole_match_with_decks_of_two_sizes_verifies(seed: int) -> None:
    pair = decks_pair(f"sizes/whole/{seed}", seed=seed).run()
    assert not pair.errors, pair.errors
    assert [p.phase for p in pair.peers] == [Phase.CLOSED, Phase.CLOSED]
    assert pair.transcript(0).records == pair.transcript(1).records
    report = verify_transcript(pair.transcript(0), CARDS)
    assert report.ok, report.describe()
    # each seat was dealt from its own deck only: seat 0 handles 0..6, seat 1 handles 7..11
    state = pair.peers[0].core.state  # type: ignore[union-attr]
    assert set(state.dealt[0]) <= set(range(7)) and set(state.dealt[1]) <= set(range(7, 12))
    assert set(pair.peers[0].knowledge.cards) == set(state.dealt[0])
    assert set(pair.peers[1].knowledge.cards) == set(state.dealt[1])
    # the end reveals every card of both decks: 7 + 5 identities
    deal = pair.peers[1].core.decklist.deal()  # type: ignore[union-attr]
    assert deal is not None and sorted(deal) == list(range(12))
    assert sorted(deal[h] for h in range(7)) == sorted(DECK0)
    assert sorted(deal[h] for h in range(7, 12)) == sorted(DECK1)


def test_random_decks_take_each_seat_s_size() -> None:
    pair = decks_pair("sizes/random", sizes=(2, 3), decks=(None, None)).run()
    assert not pair.errors, pair.errors
    assert [p.brought_deck for p in pair.peers] == [None, None]
    deal = pair.peers[0].core.decklist.deal()  # type: ignore[union-attr]
    assert deal is not None and sorted(deal) == list(range(5))  # 2 + 3 cards, all revealed
    assert verify_transcript(pair.transcript(0), CARDS).ok


def test_our_own_deck_is_checked_against_our_seat_s_size() -> None:
    ids = identities("sizes/local")
    with pytest.raises(errors.LocalProtocolError,
                       match=r"seat 1's deck is 5 catalogue card ids; got 7 cards"):
        MatchPeer(1, ids[1], rules(), CARDS, deck=DECK0, rng=lambda n: bytes(n))
    MatchPeer(0, ids[0], rules(), CARDS, deck=DECK0, rng=lambda n: bytes(n))  # seat 0's size


@pytest.mark.parametrize("cheater", [0, 1])
def test_committing_the_other_seat_s_size_is_illegal(cheater: int) -> None:
    label = f"sizes/commit/{cheater}"
    key = identities(label)[cheater]
    other = (DECK0, DECK1)[1 - cheater]

    def other_size(env: Envelope) -> bytes:
        deck = SecretDeck.commit(env.match_id, cheater, other, lambda n: bytes(n))
        body = list(env.body)
        body[1] = deck.public.body()
        return reseal(key, env, body=body)

    pair = decks_pair(label, tamper=on_nth(cheater, K.COMMIT, 0, other_size)).run()
    size, wrong = (7, 5)[cheater], (7, 5)[1 - cheater]
    _check_caught(pair, cheater, errors.IllegalAction,
                  f"seat {cheater} committed {wrong} cards, the ruleset's deck has {size} for "
                  f"seat {cheater}")


@pytest.mark.parametrize("cheater", [0, 1])
def test_a_secret_reveal_decklist_of_the_other_seat_s_size_is_a_violation(cheater: int) -> None:
    label = f"sizes/reveal/{cheater}"
    key = identities(label)[cheater]
    wrong = (7, 5)[1 - cheater]

    def other_size(env: Envelope) -> bytes:
        body = list(env.body)
        body[2] = decklist_entries({"one": wrong})
        return reseal(key, env, body=body)

    pair = decks_pair(label, tamper=on_nth(cheater, K.SECRET_REVEAL, 0, other_size)).run()
    size = (7, 5)[cheater]
    _check_caught(pair, cheater, errors.DecklistViolation,
                  f"seat {cheater}'s decklist is not {size} cards (seat {cheater}'s deck)")


def test_the_size_caps_hold_for_the_larger_deck() -> None:
    caps = _size_caps(rules((7, 5)), CARDS)
    assert caps == _size_caps(rules((5, 7)), CARDS) == _size_caps(rules((7, 7)), CARDS)
    assert caps[K.COMMIT] > _size_caps(rules((5, 5)), CARDS)[K.COMMIT]
