# engine.narrate: one step in words for one viewer. The main property: across many random
# games, no line ever names a card whose identity is hidden from the viewer.
from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from versus.engine import HashRng, Referee, Ruleset, default_catalogue, random_chooser, random_deal
from versus.engine.narrate import narrate

CAT = default_catalogue()


def _referee(seed: bytes, deck: int = 12, hand: int = 3) -> Referee:
    rs = Ruleset(deck_size=deck, hand_size=min(hand, deck))
    ids, orders = random_deal(CAT, rs, HashRng(seed, "deal"))
    return Referee(rs, CAT, seed, ids, orders,
                   (random_chooser(HashRng(seed, "p0")), random_chooser(HashRng(seed, "p1"))))


def _hidden_names(ref: Referee, viewer: int) -> list[str]:
    state = ref.state
    known = {state.public_id(h) for h in range(2 * state.n)}
    known |= set(ref.knowledge[viewer].cards.values())
    return [CAT[cid].name for cid in ref.identities if cid not in known]


def _play_and_check(ref: Referee) -> list[str]:
    said: list[str] = []
    while ref.state.result is None:
        before = ref.state
        encoded = before.clone()
        inp = ref.advance()
        for viewer in (0, 1):
            lines = narrate(before, inp, ref.state, viewer, ref.knowledge[viewer])
            hidden = _hidden_names(ref, viewer)
            for line in lines:
                assert "\n" not in line
                for name in hidden:
                    assert not re.search(rf"\b{re.escape(name)}\b", line), (
                        f"viewer {viewer} was told hidden {name!r}: {line!r} after {inp}")
            if viewer == 0:
                said += lines
        assert before.zone == encoded.zone and before.board == encoded.board  # pure
    return said


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=1, max_size=8), st.integers(3, 21), st.integers(1, 5))
def test_narration_never_names_a_hidden_card(seed: bytes, deck: int, hand: int) -> None:
    _play_and_check(_referee(seed, deck, hand))


def test_narration_tells_the_story_of_a_game() -> None:
    said: list[str] = []
    for i in range(6):
        said += _play_and_check(_referee(bytes([i, 7])))
    text = "\n".join(said)
    for phrase in ("You drew ", "Opponent drew a card", "Opponent summoned a verso card on ",
                   "You summoned ", "Battle on ", "destroyed and absorbed by ", "ended the turn",
                   "Game over: "):
        assert phrase in text, phrase
    assert re.search(r"Battle on [a-e][1-4]: .+ \(\d\) vs .+ \(\d\): ", text)


def test_narrate_rejects_someone_elses_knowledge() -> None:
    ref = _referee(b"k")
    before = ref.state
    inp = ref.advance()
    try:
        narrate(before, inp, ref.state, 0, ref.knowledge[1])
    except ValueError as e:
        assert "knowledge of player 1" in str(e)
    else:
        raise AssertionError("mismatched knowledge accepted")
