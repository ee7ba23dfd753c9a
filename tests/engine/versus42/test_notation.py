from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from versus.engine import HashRng, MalformedActionError
from versus.engine.versus42 import (
    Action,
    ActionKind,
    Deal,
    Referee,
    Reveal,
    Ruleset,
    default_catalogue,
    format_input,
    parse_input,
    random_chooser,
    random_deal,
)

EXAMPLES = ["summon 7 b2 recto", "summon 7 b2 verso", "flip c3", "move c3 c4", "end",
            "pick 5", "activate c3", "activate c3 e4", "activate c3/2 d4 b1", "deal 11",
            "reveal 11 dawn-moth"]


@pytest.mark.parametrize("text", EXAMPLES)
def test_round_trip_examples(text):
    assert format_input(parse_input(text)) == text


def test_round_trip_every_input_of_real_games():
    cat, rs = default_catalogue(), Ruleset()
    for i in range(5):
        seed = bytes([i])
        ids, orders = random_deal(cat, rs, HashRng(seed))
        ref = Referee(rs, cat, seed, ids, orders, (random_chooser(HashRng(seed, "a")),
                                                  random_chooser(HashRng(seed, "b"))))
        ref.play()
        for inp in ref.history:
            assert parse_input(format_input(inp)) == inp


areas = st.sampled_from([f"{c}{r}" for c in "abcde" for r in range(1, 5)])


@given(st.one_of(
    st.builds(Action.summon, st.integers(0, 41), areas, st.booleans()),
    st.builds(Action.flip, areas),
    st.builds(Action.move, areas, areas),
    st.builds(Action.pick, st.integers(0, 41)),
    st.builds(Action.activate, areas, st.lists(areas, max_size=3).map(tuple),
              st.integers(0, 4)),
    st.builds(Deal, st.integers(0, 41)),
    st.builds(Reveal, st.integers(0, 41), st.sampled_from(["dawn-moth", "last-dark"])),
))
def test_round_trip_property(x):
    assert parse_input(format_input(x)) == x


@pytest.mark.parametrize("text", ["", "summon", "summon 7 b2", "summon x b2 recto",
                                  "summon 07 b2 recto", "summon 7 b2 up", "flip", "flip zz",
                                  "move c3", "end now", "pick -1", "activate", "activate c3/9",
                                  "Summon 7 b2 recto", "summon  7 b2 recto", "reveal 1 Bad!",
                                  "jump c3", "x" * 500, "flip c10"])
def test_malformed_inputs_name_the_input(text):
    with pytest.raises(MalformedActionError) as e:
        parse_input(text)
    assert repr(text[:40])[:-1] in str(e.value)


def test_constructor_validates():
    with pytest.raises(MalformedActionError):
        Action(ActionKind.FLIP, area="c3", to="c4")
    with pytest.raises(MalformedActionError):
        Action(ActionKind.SUMMON, handle=5000, area="a1")
    with pytest.raises(MalformedActionError):
        Deal(-1)
