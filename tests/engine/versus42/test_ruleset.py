from __future__ import annotations

import pytest

from versus.engine import RulesetError
from versus.engine.hashing import HashStream
from versus.engine.versus42 import ActionOrder, Ruleset


def test_defaults_and_round_trip():
    rs = Ruleset()
    assert (rs.deck_size, rs.hand_size, rs.action_order) == (12, 3, ActionOrder.ORDERED)
    assert Ruleset.decode(rs.encode()) == rs
    assert Ruleset.from_options(action_order="any").digest() != rs.digest()


@pytest.mark.parametrize("options, name", [
    ({"deck_size": 22}, "deck_size"), ({"hand_size": 6}, "hand_size"),
    ({"blue_tiles": 2, "white_tiles": 7}, "blue_tiles"), ({"gray_tiles": 4}, "white_tiles"),
    ({"action_order": "sideways"}, "action_order"), ({"colour": 1}, "colour"),
    ({"max_turns": 0}, "max_turns"), ({"deck_size": "12"}, "deck_size"),
])
def test_bad_options_name_the_option(options, name):
    with pytest.raises(RulesetError, match=name):
        Ruleset.from_options(**options)


def test_decode_rejects_non_canonical():
    with pytest.raises(RulesetError):
        Ruleset.decode(Ruleset().encode().replace(b",", b", "))
    with pytest.raises(RulesetError):
        Ruleset.decode(b"nope")


def test_hash_stream_is_unbiased_and_deterministic():
    a, b = HashStream("t", b"s"), HashStream("t", b"s")
    xs = [a.randbelow(3) for _ in range(3000)]
    assert xs == [b.randbelow(3) for _ in range(3000)]
    assert all(900 < xs.count(v) < 1100 for v in range(3))
