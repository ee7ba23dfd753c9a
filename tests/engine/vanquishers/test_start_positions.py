# Vanquishers start positions (SPEC Part 10 "Start positions"; the design of Versus's,
# tests/engine/versus42/test_start_positions.py): rules carrying a position's canonical text start
# the game there. Positions come from real random games; the deals that rebuild them are answered
# in each deck's handle order, as the protocol deals them; a whole match from a start runs through
# the protocol pair in decklist mode and verifies.
from __future__ import annotations

import functools
import json
import random
from dataclasses import replace

import pytest

from tests.engine.start_support import deal_back, placing_narration, without_start
from versus.engine.api import DecisionKind, Finished, Setup, rules_for_position
from versus.engine.errors import IllegalActionError, PositionError, RulesetError
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers import starter_deck
from versus.engine.vanquishers.cards import copy_limit
from versus.engine.vanquishers.engine import D, Zone, _Work, encode_state, state_hash
from versus.engine.vanquishers.rules import Mode, Rules
from versus.engine.vanquishers.text import dump_position, load_position

from .referee import Game
from .test_properties import spec_encoding

CAT = G.default_catalogue()
IDS = [c.id for c in CAT.cards]
#: (rules, seed of the random game the positions come from)
CASES = [(Rules(), "start-1"), (Rules(mode=Mode.ADVANCED, deck_size=40), "start-2"),
         (Rules(hero0="nyra-vale", hero1="kael-ironvow"), "start-3")]


@functools.cache
def positions(rules: Rules, seed: str) -> tuple[str, ...]:
    """Every position of one random game where the active player waits for a turn action."""
    game = Game(rules, seed=seed)
    found = []
    while not isinstance(G.decision(game.state), Finished):
        game.advance()
        if game.state.dec[0] == D.TURN:
            found.append(dump_position(game.state))
    return tuple(found)


def start_text(rules: Rules, seed: str, uneven: bool = False) -> str:
    """A position of a random game with a hidden trap and a hidden hand card that can start a
    match; `uneven`: one where the players hold different numbers of hidden cards."""
    for text in positions(rules, seed):
        s = load_position(text)
        hidden = [h for h in range(2 * s.n) if s.card[h] < 0]
        counts = [sum(h // s.n == p for h in hidden) for p in (0, 1)]
        zones = {s.zone[h] for h in hidden}
        if {Zone.TRAP, Zone.HAND} <= zones and (not uneven or counts[0] != counts[1]):
            try:
                G.rules_for_position(text)
            except PositionError:
                continue
            return text
    raise AssertionError("no position with a hidden trap")


def facts(s):  # type: ignore[no-untyped-def]
    """A player's public facts, whatever the numbering: (zone, card, aux) of each of its cards,
    with the card an attachment hangs on by its identity."""
    return [sorted((s.zone[h], s.card[h], s.aux[h], -1 if s.host[h] < 0 else s.card[s.host[h]])
                   for h in range(p * s.n, (p + 1) * s.n)) for p in (0, 1)]


@pytest.mark.parametrize(("rules", "seed"), CASES, ids=["standard", "advanced-40", "swapped"])
def test_the_deals_rebuild_the_position_card_for_card(rules: Rules, seed: str) -> None:
    text = start_text(rules, seed)
    start = rules_for_position(G, text)
    assert start.start and replace(start, start="") == rules
    position = load_position(start.start)
    n = position.n
    hidden = [h for h in range(2 * n) if position.card[h] < 0]
    decks = G.decks(start)
    assert [(d.owner, d.first, d.size) for d in decks] == [
        (p, p * n, sum(h // n == p for h in hidden)) for p in (0, 1)]
    assert hidden == [h for d in decks for h in d.handles]  # numbered first, per player
    first = G.new_game(Setup(start, CAT, b"seed"))
    assert all(first.zone[h] == Zone.DECK for h in hidden)
    assert first.sides == position.sides and first.dice == position.dice  # dice kept as given
    after, labels = deal_back(G, start, first)
    assert set(labels) == {"hand", "trap"}  # this position has both kinds of hidden card
    assert len(labels) == sum(position.zone[h] != Zone.DECK for h in hidden)
    assert without_start(dump_position(after)) == json.loads(start.start)
    given = load_position(text)
    assert facts(given) == facts(after)  # the same public facts as the position given
    assert (after.first, after.active, after.turn, after.phase) == (
        given.first, given.active, given.turn, given.phase)
    assert G.decision(after).kind is DecisionKind.TURN
    assert G.decision(after).player == given.active
    assert G.legal_actions(after) == G.legal_actions(load_position(start.start))
    # the state hash binds the start: the same public state without it hashes otherwise
    assert encode_state(after) == encode_state(load_position(start.start))
    assert state_hash(after) != state_hash(load_position(start.start))


def renumbered(text: str) -> str:
    """The same position numbered otherwise: each player's public cards first (in their
    order, which §10.1.5.4's "first weapon by handle" reads), then its hidden cards in reverse."""
    obj = json.loads(text)
    st = obj["state"]
    n = len(st["zone"]) // 2
    old_of = []
    for p in (0, 1):
        mine = range(p * n, (p + 1) * n)
        old_of += [h for h in mine if st["card"][h] is not None]
        old_of += [h for h in reversed(mine) if st["card"][h] is None]
    new_of = {old: new for new, old in enumerate(old_of)}
    for name in ("zone", "card", "aux"):
        st[name] = [st[name][old] for old in old_of]
    st["host"] = [-1 if st["host"][old] < 0 else new_of[st["host"][old]] for old in old_of]
    return json.dumps(obj, indent=1)


@pytest.mark.parametrize(("rules", "seed"), CASES[:2], ids=["standard", "advanced-40"])
def test_the_canonical_text_does_not_depend_on_the_numbering_given(rules, seed) -> None:  # type: ignore[no-untyped-def]
    text = start_text(rules, seed)
    other = renumbered(text)
    assert other != text and facts(load_position(json.dumps(json.loads(other), sort_keys=True,
                                                            separators=(",", ":")))) == \
        facts(load_position(text))
    assert rules_for_position(G, other) == rules_for_position(G, text)


def test_every_rules_value_without_a_start_keeps_its_encoding() -> None:
    rules = Rules()
    assert rules.encode() == (b'{"deck_size":30,"format":"vanquishers-rules/1","hero0":'
                              b'"kael-ironvow","hero1":"nyra-vale","max_turns":60,'
                              b'"mode":"standard"}')
    assert rules.digest().hex() == replace(rules, start="").digest().hex()
    assert "start" not in rules.to_options() and Rules.decode(rules.encode()) == rules
    assert G.decks(rules) == G.decks(Rules.from_options({"start": ""}))


def test_a_start_rules_value_round_trips_and_describes_itself() -> None:
    rules = rules_for_position(G, start_text(*CASES[0]))
    assert Rules.decode(rules.encode()) == rules
    assert G.decode_rules(G.encode_rules(rules)) == rules
    assert G.rules_from_options(G.rules_to_options(rules)) == rules
    assert G.rules_digest(rules) != G.rules_digest(replace(rules, start=""))
    text = G.describe_rules(rules)
    assert "from start position " in text and " to play, Life " in text
    s = G.new_game(Setup(rules, CAT, b"x"))
    for viewer in (0, 1):
        assert G.narrate_start(s, viewer)[0].startswith(
            "the match starts from a position at turn ")


def test_positions_of_the_start_phase_round_trip() -> None:
    rules = rules_for_position(G, start_text(*CASES[0]))
    s = G.new_game(Setup(rules, CAT, b"seed"))
    decks = G.decks(rules)
    seen = set()
    while (d := G.decision(s)).kind is DecisionKind.DEAL:
        text = dump_position(s)
        loaded = load_position(text)
        assert dump_position(loaded) == text and state_hash(loaded) == state_hash(s)
        assert encode_state(s) == spec_encoding(json.loads(text), IDS)  # SPEC §10.4
        seen.add(s.dec[0])
        h = next(h for h in decks[d.deck].handles if s.zone[h] == Zone.DECK)
        s = G.step(s, G.deal_input(h))
    assert seen == {D.DEAL, D.PLACE}


def test_random_play_from_a_start_reaches_a_result() -> None:
    rules = rules_for_position(G, start_text(*CASES[1]))
    s, _ = deal_back(G, rules, G.new_game(Setup(rules, CAT, b"seed")))
    rng = random.Random(5)  # a test's own stream: nothing here is secret
    identity = {}
    for deck in G.decks(rules):  # each player brings a legal deck of its hidden cards' size
        cards = starter_deck(CAT, rules.heroes[deck.owner], 70)  # type: ignore[index]
        identity.update(zip(deck.handles, rng.sample(cards, deck.size), strict=False))
    while not isinstance(d := G.decision(s), Finished):
        if d.kind is DecisionKind.DEAL:
            s = G.step(s, G.deal_input(next(h for h in G.decks(rules)[d.deck].handles
                                            if s.zone[h] == Zone.DECK)))
        elif d.kind is DecisionKind.REVEAL:
            s = G.step(s, G.reveal_input(d.handle, identity[d.handle]))
        else:
            s = G.step(s, rng.choice(list(G.legal_actions(s))))
    assert d.outcome


def test_the_placing_deals_are_told_to_the_owner_only() -> None:
    rules = rules_for_position(G, start_text(*CASES[0]))
    card = CAT.get("kinetic-rounds")
    assert card is not None
    told, placers = placing_narration(G, rules, G.new_game(Setup(rules, CAT, b"seed")),
                                      card.id, "trap")
    assert placers
    for p in placers:
        mine = [line for line in told[p] if line.startswith("you set ")]
        theirs = [line for line in told[1 - p] if line.startswith("the opponent sets ")]
        assert mine and all(f"{card.name} face down as a trap (" in line
                            and line.endswith("start position)") for line in mine)
        assert len(theirs) == len(mine) and all(card.name not in line for line in theirs)


def test_the_copy_limit_counts_the_cards_a_player_brought() -> None:
    """§10.2.3.2 in a start match: the position's public cards were given by the position, so a
    reveal is checked against the player's own hidden deck (the decklist it brought)."""
    rules = rules_for_position(G, start_text(*CASES[0]))
    s, _ = deal_back(G, rules, G.new_game(Setup(rules, CAT, b"seed")))
    p = 0
    deck = G.decks(rules)[p]
    unique = next(c for c in CAT.cards if c.type.value != "hero" and copy_limit(c) == 1)
    hand = next(h for h in deck.handles if s.zone[h] == Zone.HAND)
    public = [h for h in range(p * s.n, (p + 1) * s.n) if h not in deck.handles]
    w = _Work(s)
    w.card[public[0]] = CAT.index(unique.id)  # the position shows one copy already
    w.dec = (D.REVEAL, p, hand)
    shown = w.freeze()
    after = G.step(shown, G.reveal_input(hand, unique.id))  # p's own deck had none: accepted
    assert after.card[hand] == CAT.index(unique.id)
    other = next(h for h in deck.handles if h != hand and s.zone[h] == Zone.DECK)
    w = _Work(shown)
    w.card[other] = CAT.index(unique.id)  # one of p's own cards is that card: a second copy
    with pytest.raises(IllegalActionError, match="at most 1"):
        G.step(w.freeze(), G.reveal_input(hand, unique.id))


# --- refusals ---------------------------------------------------------------------------------


def _state(change):  # type: ignore[no-untyped-def]
    def apply(o: dict) -> None:  # type: ignore[type-arg]
        change(o["state"])
    return apply


def _first(st: dict, zone: Zone, public: bool) -> int:  # type: ignore[type-arg]
    return next(h for h, z in enumerate(st["zone"]) if z == zone
                and (st["card"][h] is not None) == public)


def _hidden_discarded(st: dict) -> None:  # type: ignore[type-arg]
    st["zone"][_first(st, Zone.HAND, False)] = Zone.DISCARD


def _public_deck_card(st: dict) -> None:  # type: ignore[type-arg]
    st["card"][_first(st, Zone.DECK, False)] = "kinetic-rounds"


def _no_hidden_card(st: dict) -> None:  # type: ignore[type-arg]
    n = len(st["zone"]) // 2
    for h in range(n, 2 * n):
        if st["card"][h] is None:
            st["zone"][h], st["card"][h], st["aux"][h] = Zone.DISCARD, "kinetic-rounds", 0


def _attached_hidden(st: dict) -> None:  # type: ignore[type-arg]
    st["host"][_first(st, Zone.HAND, False)] = 0


@pytest.mark.parametrize(("change", "message"), [
    (lambda o: o["state"].update(result=[0, 1], decision=[0]), r"state.result: \[0, 1\] \("),
    (_state(lambda st: st.update(decision=[3, st["active"]])), "waits for the active player"),
    (_state(lambda st: st.update(tasks=[[10]])), r"state.decision: .* \(turn\) .* no task"),
    (_state(lambda st: st.update(dice=[4])), r"state.decision: .* \(turn\) .* no task, die"),
    (lambda o: o.pop("catalogue"), "catalogue"),
    (lambda o: o.update(catalogue="00" * 32), "not a shipped catalogue"),
    (lambda o: o.update(game="grid"), "must be 'vanquishers'"),
    (_state(_hidden_discarded), r"state.zone\[\d+\]: 4 \(discard\) holds a hidden card"),
    (_state(_public_deck_card), r"state.card\[\d+\]: 'kinetic-rounds' is named, but a deck"),
    (_state(_attached_hidden), r"state.host\[\d+\]: 0 is set, but only a card on the board"),
    (_state(_no_hidden_card), "player 1 has no hidden card"),
])
def test_a_position_that_cannot_start_says_why(change, message) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(start_text(*CASES[0]))
    change(obj)
    with pytest.raises(PositionError, match=message):
        rules_for_position(G, json.dumps(obj))


def test_a_start_that_is_not_canonical_or_not_these_rules_is_refused() -> None:
    rules = rules_for_position(G, start_text(*CASES[0]))
    # the rules value checks its own options; the game checks its start wherever rules enter
    options = rules.to_options()
    with pytest.raises(RulesetError, match="canonical"):
        G.rules_from_options({**options, "start": json.dumps(json.loads(rules.start), indent=1)})
    with pytest.raises(RulesetError, match="canonical"):  # another numbering of it
        G.decode_rules(replace(rules, start=renumbered(rules.start)).encode())
    with pytest.raises(RulesetError, match="rules differ"):
        G.rules_from_options({**options, "max_turns": 30})
    with pytest.raises(RulesetError, match="rules differ"):  # nor does a match begin from one
        G.new_game(Setup(replace(rules, max_turns=30), CAT, b"x"))
    with pytest.raises(RulesetError, match="start"):
        G.rules_from_options({"start": "{" * 100_000})
    with pytest.raises(RulesetError, match="start"):
        Rules.from_options({"start": 7})
    hostile = Rules().encode()[:-1] + b',"start":"' + b"x" * 60_000 + b'"}'
    with pytest.raises(RulesetError, match="longer than"):
        Rules.decode(hostile)


def test_the_position_of_a_start_match_starts_the_same_match() -> None:
    """A position written during a match from a start carries the start in its rules; as a
    start it is that position alone (a start is never nested)."""
    rules = rules_for_position(G, start_text(*CASES[0]))
    after, _ = deal_back(G, rules, G.new_game(Setup(rules, CAT, b"x")))
    assert "start" in json.loads(dump_position(after))["rules"]
    assert rules_for_position(G, dump_position(after)) == rules


def test_another_catalogue_than_the_positions_is_refused_at_the_start() -> None:
    from importlib.resources import files

    data = json.loads((files("versus.engine.vanquishers") / "data/cards.json").read_text())
    data["cards"][-1]["name"] += " (reprint)"
    other = G.load_catalogue(json.dumps(data))
    rules = rules_for_position(G, start_text(*CASES[0]))
    with pytest.raises(RulesetError, match="made with catalogue"):
        G.new_game(Setup(rules, other, b"x"))


# --- a whole match through the protocol ---------------------------------------------------------


def test_a_match_from_a_start_position_verifies() -> None:
    from tests.protocol.pair import Pair
    from versus.protocol.match.rules import DealMode, MatchRules
    from versus.protocol.match.verify import replay_inputs, verify_transcript

    rules = rules_for_position(G, start_text(*CASES[0], uneven=True))
    decks = tuple(starter_deck(CAT, rules.heroes[d.owner], 70)[:d.size]  # type: ignore[index]
                  for d in G.decks(rules))
    match_rules = MatchRules(rules, DealMode.DECKLIST, game=G.id)
    pair = Pair(match_rules, label="vq-start-decklist", decks=decks,  # type: ignore[arg-type]
                catalogue=CAT).run()
    assert not pair.errors, pair.errors
    raw = pair.peers[0].transcript_bytes()
    assert raw == pair.peers[1].transcript_bytes()
    report = verify_transcript(raw)
    assert report.ok, report.describe()
    assert report.summary["result"] is not None
    assert "from start position " in report.summary["rules_text"]
    assert replay_inputs(raw).rules.ruleset == rules
    sizes = [d.size for d in match_rules.decks]  # each seat's deck: its hidden cards' size
    assert sizes[0] != sizes[1]


def test_a_start_with_any_one_field_changed_is_answered_at_once() -> None:
    """Found by review: a start whose `step` was 7 (the end step) with nothing pending made
    the engine step on to 8, 9, ... for ever, inside `Rules` validation, so one HELLO or offer
    of ~2 KB hung a peer or the verifier. Every integer of the state set to a few values
    (and the step to each of 0..7): each answer comes within a second."""
    import signal

    text = start_text(Rules(), "start-1")
    obj = json.loads(text)

    def mutations():  # type: ignore[no-untyped-def]
        for step in range(8):
            yield {**obj, "state": {**obj["state"], "step": step}}
        for key, value in obj["state"].items():
            if type(value) is int:
                for other in (0, 1, 7, 99):
                    yield {**obj, "state": {**obj["state"], key: other}}

    def too_slow(*_: object) -> None:
        raise TimeoutError("no answer within 1 s")

    previous = signal.signal(signal.SIGALRM, too_slow)
    try:
        for mutated in mutations():
            signal.alarm(1)
            try:
                G.rules_for_position(json.dumps(mutated))
            except PositionError:
                pass
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
