# Start positions (SPEC Part 3 "Start positions"): a ruleset carrying a position's
# canonical text starts the game there. Positions come from real random games; the deals that
# rebuild them are answered in each deck's handle order, as the protocol deals them.
from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from tests.engine.start_support import deal_back, placing_narration, play_out, without_start
from versus.engine import HashRng, PositionError, RulesetError, load_position
from versus.engine.api import DecisionKind, Setup, rules_for_position
from versus.engine.registry import get_game
from versus.engine.versus42 import (
    Referee,
    Ruleset,
    TurnDecision,
    default_catalogue,
    dump_position,
    random_chooser,
    random_deal,
    state_hash,
)
from versus.engine.versus42.actions import Deal
from versus.engine.versus42.catalogue import shipped_catalogues
from versus.engine.versus42.game import DECK, FIELD, HAND

CAT = default_catalogue()
VERSUS = get_game("versus42")


def positions(seed: bytes) -> list[str]:
    """Every position of one random game where the active player waits for a turn action."""
    rules = Ruleset()
    ids, orders = random_deal(CAT, rules, HashRng(seed, "deal"))
    ref = Referee(rules, CAT, seed, ids, orders,
                  (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))
    found = []
    while ref.state.result is None:
        ref.advance()
        if isinstance(ref.state.pending, TurnDecision):
            found.append(dump_position(ref.state))
    return found


def with_verso_field_cards(seed: bytes, uneven: bool = False) -> str:
    """A position of a random game with a face-down field card that can start a match;
    `uneven`: one where the players hold different numbers of hidden cards."""
    for text in positions(seed):
        s = load_position(text)
        hidden = [h for h in range(2 * s.n) if s.ident[h] < 0]
        counts = [sum(h // s.n == p for h in hidden) for p in (0, 1)]
        if any(s.zone[h] == FIELD for h in hidden) and min(counts) > 0 and (
                not uneven or counts[0] != counts[1]):
            try:
                VERSUS.rules_for_position(text)
            except PositionError:
                continue
            return text
    raise AssertionError("no position with a face-down field card")


def deal_in_order(rules: Ruleset):  # type: ignore[no-untyped-def]
    """The start state after its deals, each deck dealt from its first handle up (as the
    protocol deals), and the number of deals."""
    state, labels = deal_back(VERSUS, rules, VERSUS.new_game(Setup(rules, CAT, b"seed")))
    return state, len(labels)


@pytest.mark.parametrize("seed", [b"start-1", b"start-2", b"start-3"])
def test_the_deals_rebuild_the_position_card_for_card(seed: bytes) -> None:
    text = with_verso_field_cards(seed)
    rules = rules_for_position(VERSUS, text)
    position = load_position(rules.start)
    hidden = [sum(position.ident[h] < 0 for h in range(p * position.n, (p + 1) * position.n))
              for p in (0, 1)]
    assert [d.size for d in VERSUS.decks(rules)] == hidden
    first = VERSUS.new_game(Setup(rules, CAT, b"seed"))
    labels = set()
    s = first
    while (d := VERSUS.decision(s)).kind is DecisionKind.DEAL:
        labels.add(d.label)
        s = VERSUS.step(s, Deal(VERSUS.decks(rules)[d.deck].first
                                + sum(s.zone[h] != DECK for h in VERSUS.decks(rules)[d.deck]
                                      .handles)))
    assert labels == {"hand", "field"}  # this position has both kinds of hidden card
    after, count = deal_in_order(rules)
    placed = sum(position.zone[h] in (HAND, FIELD) and position.ident[h] < 0
                 for h in range(2 * position.n))
    assert count == placed
    assert without_start(dump_position(after)) == json.loads(rules.start)
    # the same public facts as the position given (up to the numbering of its cards)
    given = load_position(text)
    for p in (0, 1):
        mine = range(p * given.n, (p + 1) * given.n)
        assert sorted((given.zone[h], given.ident[h], given.face[h]) for h in mine) == \
            sorted((after.zone[h], after.ident[h], after.face[h]) for h in
                   range(p * after.n, (p + 1) * after.n))
    assert VERSUS.decision(after).kind is DecisionKind.TURN
    assert VERSUS.decision(after).player == given.active
    # the state hash binds the start: the same public state without it hashes otherwise
    assert state_hash(after) != state_hash(load_position(rules.start))


def test_the_canonical_text_does_not_depend_on_the_hidden_cards_numbering() -> None:
    """Any renumbering of each seat's hidden cards among themselves (the public cards, and so
    the absorbed lists, in place) gives the same canonical text, over the startable positions
    of three games, some with two face-down field cards of one seat (review: the first
    version kept the field cards' order given)."""
    rng = random.Random(7)  # which renumbering: nothing secret
    tried = two_field = 0
    for seed in (b"start-1", b"start-2", b"start-3"):
        for text in positions(seed):
            try:
                canonical = rules_for_position(VERSUS, text).start
            except PositionError:
                continue
            obj = json.loads(text)
            s = load_position(text)
            for p in (0, 1):
                hidden = [h for h in range(p * s.n, (p + 1) * s.n) if s.ident[h] < 0]
                two_field += sum(s.zone[h] == FIELD for h in hidden) >= 2
                shuffled = hidden[:]
                rng.shuffle(shuffled)
                cards = list(obj["cards"])
                for old, new in zip(hidden, shuffled, strict=True):
                    obj["cards"][new] = cards[old]
            assert rules_for_position(VERSUS, json.dumps(obj)).start == canonical
            tried += 1
    assert tried >= 20 and two_field >= 1


def test_every_ruleset_without_a_start_keeps_its_encoding() -> None:
    assert b"start" not in Ruleset().encode()
    assert Ruleset().digest().hex().startswith(
        Ruleset.decode(Ruleset().encode()).digest().hex())
    assert "start" not in Ruleset().to_options()


def test_a_start_ruleset_round_trips_and_describes_itself() -> None:
    rules = rules_for_position(VERSUS, with_verso_field_cards(b"start-2"))
    assert Ruleset.decode(rules.encode()) == rules
    assert VERSUS.decode_rules(VERSUS.encode_rules(rules)) == rules
    assert "from start position " in VERSUS.describe_rules(rules)
    assert VERSUS.narrate_start(VERSUS.new_game(Setup(rules, CAT, b"x")), 0)[0].startswith(
        "the match starts from a position at turn ")


def test_positions_of_the_start_phase_round_trip() -> None:
    rules = rules_for_position(VERSUS, with_verso_field_cards(b"start-3"))
    s = VERSUS.new_game(Setup(rules, CAT, b"seed"))
    decks = VERSUS.decks(rules)
    seen_field = False
    while (d := VERSUS.decision(s)).kind is DecisionKind.DEAL:
        text = dump_position(s)
        loaded = load_position(text)
        assert dump_position(loaded) == text and state_hash(loaded) == state_hash(s)
        seen_field |= d.label == "field"
        s = VERSUS.step(s, Deal(next(h for h in decks[d.deck].handles if s.zone[h] == DECK)))
    assert seen_field


def eliminate_hidden_cards(obj: dict) -> None:  # type: ignore[type-arg]
    """A player with a field card has every hidden card named: discarded, or (on the field)
    turned recto."""
    n = len(obj["cards"]) // 2
    p = next(p for p in (0, 1) if any(c["zone"] == "field" for c in obj["cards"][p * n:
                                                                                (p + 1) * n]))
    for card in obj["cards"][p * n:(p + 1) * n]:
        if "card" in card:
            continue
        if card["zone"] == "field":
            card.update(card="dawn-moth", face="recto")
        else:
            card.clear()
            card.update(zone="discarded", card="dawn-moth", face="recto")


@pytest.mark.parametrize(("change", "message"), [
    (lambda o: o.update(result={"outcome": "elimination", "winner": 0}, decision=None),
     "not finished"),
    (lambda o: o.update(decision={"kind": "deal", "player": 0, "purpose": "hand"}),
     "waits for the active player"),
    (lambda o: o.pop("catalogue"), "names the catalogue"),
    (lambda o: o.update(catalogue="00" * 32), "not a shipped catalogue"),
    (lambda o: [c.update(zone="discarded") for c in o["cards"][:1]], "hidden cards are in"),
    (lambda o: eliminate_hidden_cards(o), "no hidden card"),
])
def test_a_position_that_cannot_start_says_why(change, message) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(with_verso_field_cards(b"start-1"))
    change(obj)
    with pytest.raises(PositionError, match=message):
        rules_for_position(VERSUS, json.dumps(obj))


def test_a_start_that_is_not_canonical_or_not_these_rules_is_refused() -> None:
    rules = rules_for_position(VERSUS, with_verso_field_cards(b"start-1"))
    # the rules value checks its own options; the game checks its start wherever rules enter
    options = rules.to_options()
    with pytest.raises(RulesetError, match="canonical"):
        VERSUS.rules_from_options({**options,
                                   "start": json.dumps(json.loads(rules.start), indent=1)})
    with pytest.raises(RulesetError, match="rules differ"):
        VERSUS.rules_from_options({**options, "max_turns": 30})
    with pytest.raises(RulesetError, match="rules differ"):
        VERSUS.decode_rules(replace(rules, max_turns=30).encode())
    with pytest.raises(RulesetError, match="rules differ"):  # nor does a match begin from one
        VERSUS.new_game(Setup(replace(rules, max_turns=30), CAT, b"x"))
    with pytest.raises(RulesetError, match="start"):
        VERSUS.rules_from_options({"start": "{" * 100_000})
    hostile = Ruleset().encode()[:-1] + b',"start":"' + b"x" * 60_000 + b'"}'
    with pytest.raises(RulesetError, match="longer than"):
        Ruleset.decode(hostile)


def test_another_catalogue_than_the_positions_is_refused_at_the_start() -> None:
    rules = rules_for_position(VERSUS, with_verso_field_cards(b"start-2"))
    other = next(c for c in shipped_catalogues() if c.digest != CAT.digest)
    with pytest.raises(RulesetError, match="made with catalogue"):
        VERSUS.new_game(Setup(rules, other, b"x"))


def test_games_without_start_positions_say_so() -> None:
    solo = get_game("multiverse")
    with pytest.raises(PositionError, match="'multiverse' cannot start from a position"):
        rules_for_position(solo, "{}")


def test_random_play_from_a_start_reaches_a_result() -> None:
    rules = rules_for_position(VERSUS, with_verso_field_cards(b"start-3"))
    assert play_out(VERSUS, rules, 5).outcome


def test_the_placing_deals_are_told_to_the_owner_only() -> None:
    rules = rules_for_position(VERSUS, with_verso_field_cards(b"start-1"))
    told, placers = placing_narration(VERSUS, rules, VERSUS.new_game(Setup(rules, CAT, b"seed")),
                                      "dawn-moth", "field")
    assert placers
    owner = next(p for p in (0, 1) if any("face down on" in line for line in told[p]
                                          if not line.startswith("Opponent")))
    mine = [line for line in told[owner] if "face down" in line and "Opponent" not in line]
    assert mine and all("Dawn Moth" in line for line in mine)
    theirs = [line for line in told[1 - owner] if "face down" in line]
    assert theirs and all(line.startswith("Opponent placed a card face down on ")
                          for line in theirs)
