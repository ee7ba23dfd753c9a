# Grid start positions (SPEC Part 9 "Start positions"; the design of Versus's,
# tests/engine/versus42/test_start_positions.py): rules carrying a position's canonical text start
# the game there. Positions come from real random grid games; the deals that rebuild them are
# answered in each deck's handle order, as the protocol deals them; a whole match from a start
# runs through the protocol pair in both deal modes and with the shared deck, and verifies.
from __future__ import annotations

import functools
import json
from dataclasses import replace

import pytest

from tests.engine.start_support import deal_back, placing_narration, without_start
from versus.engine.api import DecisionKind, Finished, Setup, rules_for_position
from versus.engine.errors import PositionError, RulesetError
from versus.engine.grid import GRID
from versus.engine.grid.positions import dump_position, load_position
from versus.engine.grid.referee import GridReferee, random_chooser, random_deal, random_game
from versus.engine.grid.rules import GridRules, Tie
from versus.engine.grid.state import Dec, Zone, cell_index, encode_state, state_hash
from versus.engine.hashing import HashRng

CAT = GRID.default_catalogue()
#: (rules options, seed): individual 4x4, individual 6x6, the shared deck
CASES = [({}, b"start-1"), ({"mode": "vs"}, b"start-2"), ({"deck": "shared"}, b"start-3")]
IDS = ["fast", "vs", "shared"]


@functools.cache
def positions(options: tuple[tuple[str, str], ...], seed: bytes) -> tuple[str, ...]:
    """Every position of one random grid game where the active player waits for a turn."""
    ref = random_game(GridRules.from_options(dict(options)), CAT, seed)
    found = []
    while not ref.state.finished:
        ref.advance()
        if ref.state.decision and ref.state.decision[0] == Dec.TURN:
            found.append(dump_position(ref.state))
    return tuple(found)


def start_text(options: dict[str, str], seed: bytes, uneven: bool = False) -> str:
    """A position of a random game with a face-down grid card and a hidden hand card that can
    start a match; `uneven`: one where the players hold different numbers of hidden cards."""
    for text in positions(tuple(sorted(options.items())), seed):
        s = load_position(text)
        hidden = [h for h in range(len(s.zone)) if s.ident[h] < 0]
        n = s.rules.deck_size
        counts = [sum(h // n == p for h in hidden) for p in (0, 1)]
        zones = {s.zone[h] for h in hidden}
        if {Zone.GRID, Zone.HAND} <= zones and (not uneven or counts[0] != counts[1]):
            try:
                GRID.rules_for_position(text)
            except PositionError:
                continue
            return text
    raise AssertionError("no position with a face-down grid card")


@pytest.mark.parametrize(("options", "seed"), CASES, ids=IDS)
def test_the_deals_rebuild_the_position_card_for_card(options, seed) -> None:  # type: ignore[no-untyped-def]
    text = start_text(options, seed)
    rules = rules_for_position(GRID, text)
    assert rules.start and replace(rules, start="") == GridRules.from_options(options)
    position = load_position(rules.start)
    n = position.rules.deck_size
    hidden = [h for h in range(2 * n) if position.ident[h] < 0]
    decks = GRID.decks(rules)
    if rules.shared:  # one shared hidden deck: every hidden card of both players and the deck
        assert [(d.owner, d.first, d.size) for d in decks] == [(None, 0, len(hidden))]
        assert hidden == list(range(len(hidden)))
    else:  # each player's hidden cards, numbered first within its handles
        assert [(d.owner, d.first, d.size) for d in decks] == [
            (p, p * n, sum(h // n == p for h in hidden)) for p in (0, 1)]
    first = GRID.new_game(Setup(rules, CAT, b"seed"))
    assert all(first.zone[h] == Zone.DECK for h in hidden)
    after, labels = deal_back(GRID, rules, first)
    assert set(labels) == {"draw", "place"}  # this position has both kinds of hidden card
    assert len(labels) == sum(position.zone[h] != Zone.DECK for h in hidden)
    assert without_start(dump_position(after)) == json.loads(rules.start)
    # the same public facts as the position given (up to the numbering of its cards)
    given = load_position(text)

    def facts(s):  # type: ignore[no-untyped-def]
        return sorted((s.zone[h], s.holder[h], s.ctrl[h], s.cell[h], s.up[h], s.ident[h])
                      for h in range(2 * n))

    assert facts(given) == facts(after)
    assert (after.first, after.active, after.turn) == (given.first, given.active, given.turn)
    assert GRID.decision(after).kind is DecisionKind.TURN
    assert GRID.decision(after).player == given.active
    assert GRID.legal_actions(after) == GRID.legal_actions(load_position(rules.start))
    # the state hash binds the start: the same public state without it hashes otherwise
    assert state_hash(after) != state_hash(load_position(rules.start))


def renumbered(text: str) -> str:
    """The same position with each player's handles (the shared deck: all) in reverse order."""
    obj = json.loads(text)
    cards = obj["cards"]
    n = len(cards) // 2
    if obj["rules"].get("deck") == "shared":
        new_of = {h: 2 * n - 1 - h for h in range(2 * n)}
    else:
        new_of = {h: (h // n) * n + (n - 1 - h % n) for h in range(2 * n)}
    obj["cards"] = [cards[old] for old in sorted(new_of, key=new_of.__getitem__)]
    obj["graveyards"] = [[new_of[h] for h in g] for g in obj["graveyards"]]
    obj["modifiers"] = [new_of[h] for h in obj["modifiers"]]
    return json.dumps(obj, indent=1)


@pytest.mark.parametrize(("options", "seed"), CASES, ids=IDS)
def test_the_canonical_text_does_not_depend_on_the_numbering_given(options, seed) -> None:  # type: ignore[no-untyped-def]
    text = start_text(options, seed)
    other = renumbered(text)
    assert load_position(other) is not None and other != text
    assert rules_for_position(GRID, other) == rules_for_position(GRID, text)


def test_every_rules_value_without_a_start_keeps_its_encoding() -> None:
    rules = GridRules()
    assert rules.encode() == (b'{"deck":"individual","format":"versus-grid-rules/1",'
                              b'"mix":"standard","mode":"fast","tie":"draw"}')
    assert "start" not in rules.to_options() and GridRules.decode(rules.encode()) == rules
    assert GRID.decks(rules) == GRID.decks(GridRules.from_options({"start": ""}))


@pytest.mark.parametrize(("options", "seed"), CASES, ids=IDS)
def test_a_start_rules_value_round_trips_and_describes_itself(options, seed) -> None:  # type: ignore[no-untyped-def]
    rules = rules_for_position(GRID, start_text(options, seed))
    assert GridRules.decode(rules.encode()) == rules
    assert GRID.decode_rules(GRID.encode_rules(rules)) == rules
    assert GRID.rules_from_options(GRID.rules_to_options(rules)) == rules
    assert GRID.rules_digest(rules) != GRID.rules_digest(replace(rules, start=""))
    text = GRID.describe_rules(rules)
    assert "from start position " in text and " to play, cards on the grid " in text
    s = GRID.new_game(Setup(rules, CAT, b"x"))
    for viewer in (0, 1):
        assert GRID.narrate_start(s, viewer)[0].startswith(
            "the match starts from a position at turn ")


def test_positions_of_the_start_phase_round_trip() -> None:
    from tests.engine.grid.test_properties import spec_encoding

    rules = rules_for_position(GRID, start_text({}, b"start-1"))
    s = GRID.new_game(Setup(rules, CAT, b"seed"))
    decks = GRID.decks(rules)
    seen = set()
    while (d := GRID.decision(s)).kind is DecisionKind.DEAL:
        text = dump_position(s)
        loaded = load_position(text)
        assert dump_position(loaded) == text and state_hash(loaded) == state_hash(s)
        assert encode_state(s) == spec_encoding(text)  # the new task and decision: SPEC §9.4
        seen.add(s.decision[0])
        h = next(h for h in decks[d.deck].handles if s.zone[h] == Zone.DECK)
        s = GRID.step(s, GRID.deal_input(h))
    assert seen == {Dec.DEAL, Dec.PLACE}
    # a placing deal onto a taken cell or off the grid is not a position
    obj = json.loads(dump_position(GRID.new_game(Setup(rules, CAT, b"seed"))))
    while obj["decision"]["kind"] != "place":
        s2 = load_position(json.dumps(obj))
        d = GRID.decision(s2)
        h = next(h for h in decks[d.deck].handles if s2.zone[h] == Zone.DECK)
        obj = json.loads(dump_position(GRID.step(s2, GRID.deal_input(h))))
    taken = [cell_index(c["cell"], rules.size) for c in obj["cards"] if "cell" in c]
    for cell in [rules.size ** 2, *taken[:1]]:  # off the grid; a cell a card lies on
        obj["decision"]["fields"][2] = cell
        with pytest.raises(PositionError, match="free cell"):
            load_position(json.dumps(obj))


@pytest.mark.parametrize(("options", "seed"), CASES, ids=IDS)
def test_random_play_from_a_start_reaches_a_result(options, seed) -> None:  # type: ignore[no-untyped-def]
    rules = rules_for_position(GRID, start_text(options, seed))
    ids, orders = random_deal(CAT, rules, b"ids")
    assert [list(d.handles) for d in GRID.decks(rules)] == orders
    ref = GridReferee(rules, CAT, ids, orders, (random_chooser(HashRng(seed, "a")),
                                                random_chooser(HashRng(seed, "b"))), seed)
    assert isinstance(ref.play(), Finished)


def test_the_placing_deals_are_told_to_the_owner_only() -> None:
    rules = rules_for_position(GRID, start_text({}, b"start-1"))
    card = CAT.cards[0]
    told, placers = placing_narration(GRID, rules, GRID.new_game(Setup(rules, CAT, b"seed")),
                                      card.id, "place")
    assert placers
    for p in placers:
        mine = [line for line in told[p] if line.startswith("You placed ")]
        theirs = [line for line in told[1 - p] if line.startswith("The opponent placed ")]
        assert mine and all(f"{card.name} (card " in line and "face down on " in line
                            and line.endswith("(start position)") for line in mine)
        assert len(theirs) == len(mine) and all(card.name not in line for line in theirs)


def _public_deck_card(o: dict) -> None:  # type: ignore[type-arg]
    deck = next(c for c in o["cards"] if c["zone"] == "deck")
    deck["card"] = CAT.cards[0].id


def _no_hidden_card(o: dict) -> None:  # type: ignore[type-arg]
    """Player 1's every hidden card is gone: named (its deck discarded to the graveyard)."""
    n = len(o["cards"]) // 2
    for h in range(n, 2 * n):
        card = o["cards"][h]
        if "card" not in card:
            card.clear()
            card.update(zone="graveyard", holder=1, card=CAT.cards[0].id)
            o["graveyards"][1].append(h)


def _shielded_face_down(o: dict) -> None:  # type: ignore[type-arg]
    """A hidden grid card shielded by a shield item its player spent (one of its deck cards,
    now public in its graveyard), once the active player has acted (a FREE window may have
    opened) and has a placement left (a double item spent)."""
    n = len(o["cards"]) // 2
    h = next(h for h, c in enumerate(o["cards"]) if c["zone"] == "grid" and "card" not in c)
    o["cards"][h]["shield"] = True
    a = h // n
    o.update(acted=True, placements=1)  # a double spent, then one placement
    for op in ("shield", "double"):
        h = next(h for h in range(a * n, (a + 1) * n) if o["cards"][h]["zone"] == "deck")
        item = next(c.id for c in CAT.cards if c.effect is not None and c.effect.op.value == op)
        o["cards"][h] = {"zone": "graveyard", "holder": a, "card": item}
        o["graveyards"][a].append(h)


@pytest.mark.parametrize(("change", "message"), [
    (lambda o: o.update(result={"outcome": "most-cards", "winner": 0}, decision=None),
     "not finished"),
    (lambda o: o.update(decision={"kind": "deal", "fields": [o["active"], o["active"]]}),
     "waits for the active player"),
    (lambda o: o.update(tasks=[["end-turn"]]), "no task pending"),
    (lambda o: o.pop("catalogue"), "names the catalogue"),
    (lambda o: o.update(catalogue="00" * 32), "not a shipped catalogue"),
    (_public_deck_card, "deck card of a start position is hidden"),
    (_shielded_face_down, "not weakened, boosted or shielded"),
    (_no_hidden_card, "player 1 has no hidden card"),
    (lambda o: o.update(format="x"), "format"),
])
def test_a_position_that_cannot_start_says_why(change, message) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(start_text({}, b"start-1"))
    change(obj)
    with pytest.raises(PositionError, match=message):
        rules_for_position(GRID, json.dumps(obj))


def test_a_start_that_is_not_canonical_or_not_these_rules_is_refused() -> None:
    rules = rules_for_position(GRID, start_text({}, b"start-1"))
    # the rules value checks its own options; the game checks its start wherever rules enter
    options = rules.to_options()
    with pytest.raises(RulesetError, match="canonical"):
        GRID.rules_from_options({**options,
                                 "start": json.dumps(json.loads(rules.start), indent=1)})
    with pytest.raises(RulesetError, match="canonical"):  # another numbering of it
        GRID.decode_rules(replace(rules, start=renumbered(rules.start)).encode())
    with pytest.raises(RulesetError, match="rules differ"):
        GRID.rules_from_options({**options, "tie": "sudden-death"})
    with pytest.raises(RulesetError, match="rules differ"):  # nor does a match begin from one
        GRID.new_game(Setup(replace(rules, tie=Tie.SUDDEN_DEATH), CAT, b"x"))
    with pytest.raises(RulesetError, match="start"):
        GRID.rules_from_options({"start": "{" * 100_000})
    with pytest.raises(RulesetError, match="start"):
        GridRules.from_options({"start": 7})
    hostile = GridRules().encode()[:-1] + b',"start":"' + b"x" * 60_000 + b'"}'
    with pytest.raises(RulesetError, match="longer than"):
        GridRules.decode(hostile)


def test_the_position_of_a_start_match_starts_the_same_match() -> None:
    """A position written during a match from a start carries the start in its rules; as a
    start it is that position alone (a start is never nested)."""
    rules = rules_for_position(GRID, start_text({}, b"start-1"))
    after, _ = deal_back(GRID, rules, GRID.new_game(Setup(rules, CAT, b"x")))
    assert "start" in json.loads(dump_position(after))["rules"]
    assert rules_for_position(GRID, dump_position(after)) == rules


def test_another_catalogue_than_the_positions_is_refused_at_the_start() -> None:
    from tests.engine.grid.scene import catalogue_json

    rules = rules_for_position(GRID, start_text({}, b"start-1"))
    other = GRID.load_catalogue(json.dumps(catalogue_json()))
    with pytest.raises(RulesetError, match="made with catalogue"):
        GRID.new_game(Setup(rules, other, b"x"))


# --- whole matches through the protocol ----------------------------------------------------------


@pytest.mark.parametrize(("options", "mode"), [
    ({}, "decklist"), ({}, "shared-pool"), ({"deck": "shared"}, "shared-pool")])
def test_a_match_from_a_start_position_verifies(options, mode) -> None:  # type: ignore[no-untyped-def]
    from tests.protocol.pair import Pair
    from versus.protocol.match.rules import DealMode, MatchRules
    from versus.protocol.match.verify import replay_inputs, verify_transcript

    rules = rules_for_position(GRID, start_text(options, b"start-1", uneven=not options))
    match_rules = MatchRules(rules, DealMode(mode), game="grid")
    pair = Pair(match_rules, label=f"grid-start-{mode}", catalogue=CAT).run()
    assert not pair.errors, pair.errors
    raw = pair.peers[0].transcript_bytes()
    assert raw == pair.peers[1].transcript_bytes()
    report = verify_transcript(raw)
    assert report.ok, report.describe()
    assert report.summary["result"] is not None
    assert "from start position " in report.summary["rules_text"]
    assert replay_inputs(raw).rules.ruleset == rules
    if not options:  # each seat's committed deck is the size of its hidden cards
        sizes = [d.size for d in match_rules.decks]
        assert sizes[0] != sizes[1]


def test_the_canonical_text_ignores_how_hidden_cards_were_numbered_in_any_position() -> None:
    """Review: the face-down grid cards kept the order given, so one position had several
    canonical texts. Each player's hidden cards renumbered among themselves at random, over
    every startable position of two games (individual decks): the same text."""
    import random

    rng = random.Random(11)  # which renumbering: nothing secret
    tried = two_on_grid = 0
    for options, seed in (((), b"start-1"), ((("mode", "vs"),), b"start-2")):
        for text in positions(options, seed):
            try:
                canonical = rules_for_position(GRID, text).start
            except PositionError:
                continue
            obj = json.loads(text)
            s = load_position(text)
            n = s.rules.deck_size
            for p in (0, 1):
                hidden = [h for h in range(p * n, (p + 1) * n) if s.ident[h] < 0]
                two_on_grid += sum(s.zone[h] == Zone.GRID for h in hidden) >= 2
                shuffled = hidden[:]
                rng.shuffle(shuffled)
                cards = list(obj["cards"])
                for old, new in zip(hidden, shuffled, strict=True):
                    obj["cards"][new] = cards[old]
            assert rules_for_position(GRID, json.dumps(obj)).start == canonical
            tried += 1
    assert tried >= 10 and two_on_grid >= 1
