# engine.narrate: one step in words for one viewer. The main property: across many random
# games, no line ever names a card whose identity is hidden from the viewer.
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.versus42.scenario import Scenario
from versus.engine import HashRng
from versus.engine.versus42 import (
    Deal,
    DealDecision,
    Knowledge,
    Referee,
    Ruleset,
    State,
    TurnDecision,
    default_catalogue,
    parse_input,
    random_chooser,
    random_deal,
    step,
)
from versus.engine.versus42.game import (
    _HANDLERS,
    T_ABSORB,
    T_LOCATION,
    EndedTurn,
    _apply_input,
    _check_end,
    _end_turn,
    _has_turn_action,
    _strength,
    encode_state,
    step_with_report,
)
from versus.engine.versus42.narrate import narrate, resolve

CAT = default_catalogue()
NEUTRAL = "GGGGG GGGGG GGGGG GGGGB"  # Gray everywhere (no Strength bonus), Blue on e4


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
        # the re-run that finds the battles' Strengths reproduces the engine's step
        assert resolve(before, inp, ref.state) is not None, f"resolve drifted at {inp}"
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


def _strength_value(label: str) -> int:
    """'4+1' -> 5, '3' -> 3 (how battle lines write a Strength, as the board does)."""
    printed, _, bonus = label.partition("+")
    if "-" in printed[1:]:
        printed, _, minus = printed.partition("-")
        return int(printed) - int(minus)
    return int(printed) + (int(bonus) if bonus else 0)


BATTLE = re.compile(r"Battle on [a-e][1-4]: (.+) \(([0-9+-]+)\) vs (.+) \(([0-9+-]+)\): (.*)$")


def test_battle_lines_give_the_strengths_the_battle_was_decided_with() -> None:
    """the line's Strengths agree with its outcome (the weaker card falls, equal
    ones both do), which they did not when the survivor's Strength was read after the step
    (an absorption bonus, an Increase that had expired)."""
    battles = 0
    for i in range(40):
        for line in _play_and_check(_referee(b"battle-%d" % i)):
            m = BATTLE.match(line)
            if m is None:
                continue
            battles += 1
            _first, a, second, b, outcome = m.groups()
            sa, sb = _strength_value(a), _strength_value(b)
            if outcome.startswith("equal Strength"):
                assert sa == sb, line
            elif "destroyed and absorbed by" in outcome:
                assert sa > sb, line  # the absorber is written first
            elif outcome.endswith(f"{second} destroyed"):
                assert sa > sb, line
    assert battles > 100


@pytest.mark.parametrize(("card", "before", "line", "after"), [
    # an Increase (Sun Squire's Active, +2) that expires when the turn ends by itself
    ("sun-squire", "2+2", "Battle on c2: Sun Squire (2+2) vs Void Knight (3): 4 beats 3, "
     "Void Knight destroyed and absorbed by Sun Squire (level 1)", 2),
    # a bonus per absorbed card (Seraph Guard) that the absorption itself adds
    ("seraph-guard", "4", "Battle on c2: Seraph Guard (4) vs Void Knight (3): 4 beats 3, "
     "Void Knight destroyed and absorbed by Seraph Guard (level 1)", 5),
])
def test_a_battle_line_writes_the_strength_the_board_showed(card: str, before: str, line: str,
                                                             after: int) -> None:
    sc = Scenario(tiles=NEUTRAL)
    mine = sc.field(0, card, "b2")
    sc.field(1, "void-knight", "c2")
    sc.hand(1, "shade-mite")  # player 1 keeps a card; with an empty deck nothing is drawn
    sc.empty_deck(1)
    s = sc.start()
    if card == "sun-squire":
        s = sc.play(s, "activate b2")
    assert _label(s, mine) == before  # what the board's cell shows before the Move
    move = parse_input("move b2 c2")
    then = step(s, move)
    said = narrate(s, move, then, 0, Knowledge(0))
    assert line in said
    assert then.strength(mine) == after and then.turn == s.turn + 1
    expired = "; Increases until the end of the turn expired" if card == "sun-squire" else ""
    assert f"Your turn {s.turn + 1} ended by itself (no action but 'end' was left){expired}" \
        in said
    theirs = narrate(s, move, then, 1, Knowledge(1))
    assert f"The opponent's turn {s.turn + 1} ended by itself" in " ".join(theirs)


def _label(s: State, h: int) -> str:
    """A Strength as the board's cells write it: printed, then the bonus."""
    printed, now = s.cat[s.public_id(h)].strength, s.strength(h)  # the scenario's catalogue
    assert now is not None
    return f"{printed}{now - printed:+d}" if now != printed else str(printed)


def test_a_discard_from_the_deck_says_top_of_the_deck_to_an_owner_who_knew_the_card() -> None:
    """A Backline Move makes the opponent discard its top card; an owner who knew its deck's
    cards (a decklist) is told which, and that it was the top of the deck."""
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "sun-squire", "b3")
    top = sc.deck(1, "void-knight")
    s = step(sc.start(), parse_input("move b3 b4"))
    assert s.pending == DealDecision(1, s.pending.purpose) and s.pending.purpose.value == "discard"
    after = step(s, Deal(top))
    knew = Knowledge(1, {top: "void-knight"})
    assert narrate(s, Deal(top), after, 1, knew) == ["You discarded Void Knight (top of the deck)"]


def test_a_card_a_passive_destroys_during_its_battle_is_not_told_as_a_lost_battle() -> None:
    """§1.7.5: Solar Lancer's Passive destroys its weak opponent after the revelation, so the
    battle is never decided: no Strengths, no winner, just what happened."""
    sc = Scenario(tiles=NEUTRAL)
    sc.field(0, "solar-lancer", "b2")
    sc.field(1, "shade-mite", "c2")  # Strength 1
    sc.hand(1, "void-knight")
    sc.empty_deck(1)
    s = sc.start()
    move = parse_input("move b2 c2")
    then = step(s, move)
    said = narrate(s, move, then, 0, Knowledge(0))
    assert "The opponent's Shade Mite was destroyed on c2 by a Passive, during its battle with " \
           "your Solar Lancer" in said
    assert not any(line.startswith("Battle on") for line in said)


def _watched_rerun(before: State, inp: object) -> tuple[bytes, dict, set, list]:
    """The re-run narration used before the engine's step reported what it resolved: a
    copy of `game._run` reading both Strengths just before each Absorption."""
    s = before.clone()
    battles: dict[tuple[int, int], tuple[int, int]] = {}
    met: set[tuple[int, int]] = set()
    ended: list[EndedTurn] = []
    if before.battle is not None:
        met.add((before.battle[1], before.battle[2]))
    _apply_input(s, before, inp)  # type: ignore[arg-type]
    _check_end(s)
    tasks = s.tasks
    while s.pending is None and s.result is None:
        if not tasks:
            if _has_turn_action(s):
                s.pending = TurnDecision(s.active)
                break
            ended.append(EndedTurn(s.turn, s.active, any(s.temp)))
            _end_turn(s)
            continue
        t = tasks.pop()
        if t[0] in (T_LOCATION, T_ABSORB) and s.battle == t[1:]:
            met.add((t[2], t[3]))
            if t[0] == T_ABSORB:
                battles[t[2], t[3]] = (_strength(s, t[2]), _strength(s, t[3]))
        _HANDLERS[t[0]](s, t)
        _check_end(s)
    return encode_state(s), battles, met, ended


def test_the_step_report_is_what_narration_used_to_compute() -> None:
    """`step_with_report` (which narration reads) reports, for every step of random
    games, exactly what narration's own re-run of the step loop found, and returns the state
    `step` returns; the report is no part of the state (its encoding and hash)."""
    steps = battles = ended = 0
    for i in range(12):
        ref = _referee(b"report-%d" % i)
        while ref.state.result is None:
            before = ref.state
            inp = ref.advance()
            after, report = step_with_report(before, inp)
            assert encode_state(after) == encode_state(ref.state) == encode_state(step(before,
                                                                                       inp))
            assert not hasattr(after, "report") and not hasattr(after, "__dict__")
            encoded, want_battles, want_met, want_ended = _watched_rerun(before, inp)
            assert encoded == encode_state(after)
            assert report.battles == want_battles and report.met == want_met
            assert report.ended == want_ended
            assert resolve(before, inp, after) is not None
            steps += 1
            battles += len(report.battles)
            ended += len(report.ended)
    assert steps > 300 and battles > 10 and ended > 0
