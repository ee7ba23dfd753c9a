# MatchRules carries the game id: HELLO's `ruleset` field, so the match id binds the
# game and its rules. The format before the game id still decodes (old transcripts verify).
from __future__ import annotations

import pytest

from tests.engine.toy_game import TOY
from versus.engine.registry import register_game, unregister_game
from versus.engine.versus42 import Ruleset
from versus.protocol.errors import LocalProtocolError, MalformedMessage
from versus.protocol.match.rules import RULES_FORMAT, RULES_FORMAT_V1, DealMode, MatchRules


def test_the_encoding_names_the_game_and_round_trips() -> None:
    rules = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=60_000)
    data = rules.encode()
    assert MatchRules.decode(data) == rules
    assert RULES_FORMAT.encode() in data and b"versus42" in data


def test_the_format_before_the_game_id_reads_as_versus42() -> None:
    rules = MatchRules(deal_mode=DealMode.DECKLIST)
    old = rules.encode_v1()
    assert RULES_FORMAT_V1.encode() in old
    assert MatchRules.decode(old) == rules and MatchRules.decode(old).game == "versus42"


def test_an_unknown_game_is_refused_naming_it() -> None:
    with pytest.raises(LocalProtocolError, match="unknown game id 'chess'"):
        MatchRules(game="chess")
    data = MatchRules().encode().replace(b"versus42", b"versus43")
    with pytest.raises(MalformedMessage, match="versus43"):
        MatchRules.decode(data)


def test_another_registered_game_gets_its_own_rules_and_decks() -> None:
    register_game(TOY)
    try:
        rules = MatchRules(game=TOY.id)  # its default rules, dealt from a shared pool
        assert rules.ruleset == TOY.default_rules() == 6
        assert [(d.owner, d.size) for d in rules.decks] == [(None, 3)]
        assert rules.pool_ids(TOY.default_catalogue()) == ("one", "two", "three")
        assert MatchRules.decode(rules.encode()) == rules
        assert rules.describe() == "toy-duel, shared-pool, 6-sided die, no clock"
        with pytest.raises(LocalProtocolError, match="decklist mode needs one deck per seat"):
            MatchRules(game=TOY.id, deal_mode=DealMode.DECKLIST)
        with pytest.raises(LocalProtocolError, match="is not 'toy-duel' rules"):
            MatchRules(Ruleset(), game=TOY.id)
    finally:
        unregister_game(TOY.id)


def test_the_versus_fast_path_is_the_registry_s_encoding() -> None:
    """protocol/match/rules.py encodes versus42's rules without loading the registry: the bytes must
    be the game's own `encode_rules`."""
    from versus.engine.registry import get_game
    from versus.engine.versus42 import Ruleset

    game = get_game("versus42")
    for ruleset in (Ruleset(), Ruleset(deck_size=8, hand_size=2)):
        rules = MatchRules(ruleset)
        assert game.encode_rules(ruleset) == ruleset.encode()
        assert game.decode_rules(ruleset.encode()) == MatchRules.decode(rules.encode()).ruleset
