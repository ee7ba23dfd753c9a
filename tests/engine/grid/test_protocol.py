# Whole grid matches through the protocol in memory (tests/protocol/pair.py): the game
# registered only while the test runs, individual decks dealt from decklist commitments and
# from the shared pool, one shared deck from the shared pool; both transcripts agree and
# verify offline.
from __future__ import annotations

import pytest

from tests.protocol.pair import Pair
from versus.engine.grid import GRID
from versus.engine.grid.cards import build_deck, build_pool
from versus.engine.registry import get_game
from versus.protocol.match import Phase
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import verify_transcript

CAT = GRID.default_catalogue()


def test_the_game_is_registered_beside_versus() -> None:
    assert get_game(GRID.id) is GRID


def _match(label: str, rules: MatchRules, decks: tuple[object, object] = (None, None),
           seed: int = 0) -> Pair:
    pair = Pair(rules, label=label, catalogue=CAT, decks=decks, seed=seed).run()  # type: ignore[arg-type]
    assert not pair.errors, pair.errors
    assert [p.phase for p in pair.peers] == [Phase.CLOSED, Phase.CLOSED]
    assert pair.transcript(0).records == pair.transcript(1).records
    report = verify_transcript(pair.transcript(0), CAT)
    assert report.ok, report
    return pair


@pytest.mark.parametrize("mode", ["fast", "vs"])
def test_individual_decks_from_decklist_commitments(mode: str) -> None:
    rules = GRID.rules_from_options({"mode": mode})
    decks = (build_deck(CAT, mode, "standard", b"a"), build_deck(CAT, mode, "standard", b"b"))
    _match(f"grid/decklist/{mode}", MatchRules(rules, DealMode.DECKLIST, game="grid"), decks)


def test_individual_decks_from_the_shared_pool() -> None:
    rules = GRID.rules_from_options({})
    _match("grid/pool/individual", MatchRules(rules, DealMode.SHARED_POOL, game="grid"))


@pytest.mark.parametrize("mode", ["fast", "vs"])
def test_one_shared_deck_from_the_shared_pool(mode: str) -> None:
    rules = GRID.rules_from_options({"mode": mode, "deck": "shared", "tie": "sudden-death"})
    pool = tuple(build_pool(CAT, mode, "standard", b"pool"))
    pair = _match(f"grid/pool/shared/{mode}",
                  MatchRules(rules, DealMode.SHARED_POOL, pool=pool, game="grid"))
    report = verify_transcript(pair.transcript(1), CAT)
    assert report.ok and "one shared" in report.summary["rules_text"]


def test_a_shared_deck_cannot_be_dealt_from_decklists() -> None:
    rules = GRID.rules_from_options({"deck": "shared"})
    with pytest.raises(Exception, match="decklist mode needs one deck per seat"):
        MatchRules(rules, DealMode.DECKLIST, game="grid")
