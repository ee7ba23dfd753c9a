# Vanquishers through the real protocol (SPEC §4.11): whole matches in memory in decklist mode
# (each player brings a legal constructed deck), verified offline with verify_transcript, and
# the dice settled by the two seats' chance chains checked for uniformity (chi-square).
from __future__ import annotations

import collections
import time

import pytest

from tests.protocol.pair import Pair
from versus.engine.registry import get_game
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers import starter_deck
from versus.engine.vanquishers.cards import ADVANCED_ONLY
from versus.engine.vanquishers.rules import Mode, Rules
from versus.protocol.match import Phase
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import replay_inputs, verify_transcript

CAT = G.default_catalogue()


def test_the_game_is_registered_beside_versus() -> None:
    assert get_game(G.id) is G


def match(label: str, rules: Rules | None = None, seed: int = 0) -> Pair:
    rules = rules or Rules()
    decks = tuple(starter_deck(CAT, rules.heroes[p], rules.deck_size) for p in (0, 1))
    return Pair(MatchRules(rules, DealMode.DECKLIST, game=G.id), label=label, seed=seed,
                decks=decks, catalogue=CAT).run()  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", list(Mode))
def test_a_whole_decklist_match_closes_and_verifies(mode: Mode) -> None:
    pair = match(f"vq/whole/{mode.value}", Rules(mode=mode, deck_size=32))
    assert not pair.errors, pair.errors
    assert [p.phase for p in pair.peers] == [Phase.CLOSED, Phase.CLOSED]
    assert pair.transcript(0).records == pair.transcript(1).records
    report = verify_transcript(pair.transcript(0), CAT)
    assert report.ok, report
    texts = [s.text for s in replay_inputs(pair.transcript(0), CAT).inputs]
    assert any(t.startswith("roll ") for t in texts) and any(t.startswith("reveal ") for t in
                                                             texts)


def test_dice_settled_by_the_protocol_are_uniform() -> None:
    """chi-square, df = 5, p = 0.001 -> 20.52, over every die of several matches (120 rolls:
    20 expected per face, enough for the test's approximation; the chance outcome itself is
    tested at scale in tests/protocol/test_generic_game.py)."""
    counts: collections.Counter[int] = collections.Counter()
    start = time.monotonic()
    seed = 0
    while sum(counts.values()) < 120 and time.monotonic() - start < 60:
        pair = match(f"vq/dice/{seed}", seed=seed)
        seed += 1
        assert not pair.errors
        for step in replay_inputs(pair.transcript(0), CAT).inputs:
            if step.text.startswith("roll "):
                counts[int(step.text.split()[1])] += 1
    total = sum(counts.values())
    assert total >= 120, total
    expected = total / 6
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in range(1, 7))
    assert chi2 < 20.52, (chi2, counts)


@pytest.mark.parametrize("size", [49, 70])
def test_seats_that_bring_no_deck_get_random_decks_of_any_allowed_size(size: int) -> None:
    """SPEC allows decks of 30..70 cards, the catalogue has 48 distinct deck cards: a random
    deck of more takes further copies the deck rules allow (`more_copies`: never a second
    unique card, so no reveal of it is refused as a cheat), and the match verifies."""
    rules = Rules(deck_size=size, max_turns=3)
    pair = Pair(MatchRules(rules, DealMode.DECKLIST, game=G.id), label=f"vq/random/{size}",
                decks=(None, None), catalogue=CAT).run()  # type: ignore[arg-type]
    assert not pair.errors, pair.errors
    report = verify_transcript(pair.transcript(0), CAT)
    assert report.ok, report
    for peer in pair.peers:
        deck = peer._deck_cards
        assert deck is not None and len(deck) == size
        counts = collections.Counter(deck)
        assert all(counts[c.id] <= (1 if c.unique else 4) for c in CAT.cards), counts


def test_a_seat_that_brings_no_deck_plays_its_heros_starter_deck_in_the_matchs_mode() -> None:
    """A random pick of the whole catalogue gave a Standard match other heroes' energy classes
    and Advanced mods, cards that only fizzle: the game's `default_deck` is the hero's
    starter deck of the match's mode."""
    rules = Rules(max_turns=3)
    pair = Pair(MatchRules(rules, DealMode.DECKLIST, game=G.id), label="vq/default-deck",
                decks=(None, None), catalogue=CAT).run()  # type: ignore[arg-type]
    assert not pair.errors, pair.errors
    for seat, peer in enumerate(pair.peers):
        assert peer._deck_cards == list(starter_deck(CAT, rules.heroes[seat], rules.deck_size,
                                                     advanced=False))
        assert not {CAT.get(c).type for c in peer._deck_cards} & set(ADVANCED_ONLY)
