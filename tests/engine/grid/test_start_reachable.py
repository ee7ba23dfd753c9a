# A grid start position states only what the rules can reach (SPEC §9.5 "Reachable" and "What
# can start"): a host that offers a start cannot hand itself the turn, a weakened or shielded
# board, the opponent's cards, a card in the opponent's home base or a hand no game deals, nor a
# face the rules never show. Each deceptive start below is a real start with one field changed,
# which the reader used to accept and the whole match verified; the reader now refuses it
# naming the field and the value. Then the readers are held to the rules from both sides: every
# position random play reaches passes the start checks, and every mutated real start the reader
# accepts plays whole random games and verifies.
from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.grid.test_start_positions import positions
from tests.engine.start_support import accepted_mutations as shared_accepted_mutations
from tests.engine.start_support import accepted_start, mutate_position, play_out
from versus.engine.api import Finished, rules_for_position
from versus.engine.errors import PositionError
from versus.engine.grid import GRID
from versus.engine.grid.cards import Kind, Op
from versus.engine.grid.positions import dump_position, load_position
from versus.engine.grid.referee import random_game
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import Dec, Zone, cell_name, neighbour_cells

CAT = GRID.default_catalogue()
#: (rules options, seed) of the real starts: individual 4x4 and 6x6 decks, the shared deck
BASES = ((("mode", "fast"),), b"start-1"), ((("mode", "vs"),), b"start-2"), (
    (("deck", "shared"),), b"start-3")


@functools.cache
def rich_start(options: tuple[tuple[str, str], ...] = (), seed: bytes = b"start-1") -> str:
    """A real startable position some turns in, with face-up cards of both players and a
    face-down grid card."""
    for text in positions(options, seed):
        s = load_position(text)
        up = {s.ctrl[h] for h in range(len(s.zone)) if s.zone[h] == Zone.GRID and s.up[h]}
        hidden_on_grid = any(s.zone[h] == Zone.GRID and s.ident[h] < 0
                             for h in range(len(s.zone)))
        if up == {0, 1} and hidden_on_grid and s.turn >= 4:
            try:
                rules_for_position(GRID, text)
            except PositionError:
                continue
            return text
    raise AssertionError("no startable position with face-up cards of both players")


def _first(o: dict[str, Any], test: Callable[[int, dict[str, Any]], bool]) -> int:
    return next(h for h, c in enumerate(o["cards"]) if test(h, c))


def _face_up(player: int | None = None) -> Callable[[int, dict[str, Any]], bool]:
    return lambda h, c: c["zone"] == "grid" and c.get("up", False) and (
        player is None or c["controller"] == player)


def _kind(kind: Kind) -> str:
    return next(c.id for c in CAT.cards if c.kind is kind)


def _other_players_turn(o: dict[str, Any]) -> None:
    o["active"] = 1 - o["active"]
    o["decision"] = {"kind": "turn", "fields": [o["active"]]}


def _controls_the_opponents_card(o: dict[str, Any]) -> None:
    card = o["cards"][_first(o, _face_up(1 - o["active"]))]
    card["controller"] = o["active"]


def _weakened(o: dict[str, Any]) -> None:
    o["cards"][_first(o, _face_up(1 - o["active"]))]["weaken"] = 99


def _boosted_before_acting(o: dict[str, Any]) -> None:
    """The waiting player's card boosted, though no FREE window has opened this turn."""
    o["cards"][_first(o, _face_up(1 - o["active"]))]["boost"] = 5


def _spend(o: dict[str, Any], player: int, op: Op) -> None:
    """One of the player's deck cards spent: an item of that effect, public in its graveyard."""
    n = len(o["cards"]) // 2
    h = next(h for h in range(player * n, (player + 1) * n) if o["cards"][h]["zone"] == "deck")
    item = next(c.id for c in CAT.cards if c.kind is Kind.ITEM and c.effect is not None
                and c.effect.op is op)
    o["cards"][h] = {"zone": "graveyard", "holder": player, "card": item}
    o["graveyards"][player].append(h)


def _shielded_for_nothing(o: dict[str, Any]) -> None:
    """The active player's card shielded, with no shield item spent (a double item spent, one
    placement made)."""
    _spend(o, o["active"], Op.DOUBLE)
    o.update(acted=True, placements=1)
    o["cards"][_first(o, _face_up(o["active"]))]["shield"] = True


def _empty_hand(o: dict[str, Any]) -> None:
    """The active player's hand spent on nothing: its cards in the graveyard, as characters."""
    n = len(o["cards"]) // 2
    for h, c in enumerate(o["cards"]):
        if c["zone"] == "hand" and c["controller"] == o["active"]:
            o["cards"][h] = {"zone": "graveyard", "holder": c["holder"], "card": _kind(
                Kind.CHARACTER)}
            o["graveyards"][0 if len(o["graveyards"]) == 1 else h // n].append(h)


def _in_the_opponents_home_base(o: dict[str, Any]) -> None:
    size = load_position(json.dumps(o)).size
    h = _first(o, _face_up(o["active"]))
    row = size if o["active"] == 0 else 1
    taken = {c.get("cell") for c in o["cards"]}
    o["cards"][h]["cell"] = next(f"{col}{row}" for col in "abcdef"[:size]
                                 if f"{col}{row}" not in taken)


def _face_down_public(kind: Kind) -> Callable[[dict[str, Any]], None]:
    def change(o: dict[str, Any]) -> None:
        card = o["cards"][_first(o, _face_up(o["active"]))]
        card.pop("up")
        card["card"] = _kind(kind)
    return change


def _public_in_hand(o: dict[str, Any]) -> None:
    o["cards"][_first(o, lambda h, c: c["zone"] == "hand")]["card"] = _kind(Kind.ITEM)


def _face_down_next_to_the_opponent(o: dict[str, Any]) -> None:
    """A hidden grid card moved next to an opponent's card (outside both home bases)."""
    s = load_position(json.dumps(o))
    size, board = s.size, s.board()
    h = _first(o, lambda h, c: c["zone"] == "grid" and "card" not in c)
    p = s.ctrl[h]
    cell = next(c for c in range(size, size * size - size) if c not in board and any(
        n in board and s.ctrl[board[n]] == 1 - p for n in neighbour_cells(c, size)))
    o["cards"][h]["cell"] = cell_name(cell, size)


def _big_hand(o: dict[str, Any]) -> None:
    """The waiting player holds eight hidden cards, with no draw, recall or bounce spent."""
    p = 1 - o["active"]
    n = len(o["cards"]) // 2
    for h in range(p * n, (p + 1) * n):
        if sum(c["zone"] == "hand" and c["controller"] == p for c in o["cards"]) >= 8:
            break
        if o["cards"][h]["zone"] == "deck":
            o["cards"][h] = {"zone": "hand", "holder": p, "controller": p}


def _placements_before_acting(o: dict[str, Any]) -> None:
    o.update(placements=2, airdrop=True)


#: (the deceptive change, the field the reader names, a word of the value it quotes)
DECEPTIONS = [
    (_other_players_turn, "active", "got player"),
    (lambda o: o.update(turn=30000), "turn", "30000 turns"),
    (_controls_the_opponents_card, "controller", "but card"),
    (_weakened, "weaken", "99"),
    (_boosted_before_acting, "boost", "5, but player"),
    (_shielded_for_nothing, "shield", "give at most 0"),
    (_placements_before_acting, "placements", "2 placement(s) left and an airdrop"),
    (lambda o: o.update(acted=True, placements=2), "placements", "no double or airdrop"),
    (_empty_hand, "decision", "holds no card"),
    (_in_the_opponents_home_base, "cell", "home base"),
    (_face_down_public(Kind.TRAP), "card", "is a trap"),
    (_public_in_hand, "card", "is an item"),
    (_face_down_next_to_the_opponent, "up", "a face-down card on"),
    (_big_hand, "cards", "holds 8 cards"),
]
NAMES = ["other-players-turn", "turn-30000", "controls-the-opponents-card", "weakened-99",
         "boosted-before-acting", "shielded-for-nothing", "placements-before-acting",
         "placements-for-nothing",
         "empty-hand", "in-the-opponents-home-base", "public-face-down-trap",
         "public-item-in-hand", "face-down-next-to-the-opponent", "big-hand"]


@pytest.mark.parametrize(("change", "field", "value"), DECEPTIONS, ids=NAMES)
def test_a_deceptive_start_is_refused_naming_the_field_and_value(change, field, value) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(rich_start())
    change(obj)
    with pytest.raises(PositionError, match=f"position field '[^']*{field}'") as caught:
        rules_for_position(GRID, json.dumps(obj))
    assert value in str(caught.value)


def test_a_shared_deck_start_holds_each_card_once() -> None:
    """Two face-up cards of the shared deck showing the same card (a shared pool holds distinct
    cards, §9.6)."""
    obj = json.loads(rich_start((("deck", "shared"),), b"start-3"))
    a = _first(obj, _face_up())
    b = _first(obj, lambda h, c: h != a and _face_up()(h, c))
    obj["cards"][b]["card"] = obj["cards"][a]["card"]
    with pytest.raises(PositionError, match=rf"'cards\[{b}\].card'.* is card {a} too"):
        rules_for_position(GRID, json.dumps(obj))


def test_every_position_random_play_reaches_passes_the_start_checks() -> None:
    """The start checks refuse nothing the rules reach: every position that waits for a turn
    decision with nothing pending in random games of every mode, both deck types and mixes."""
    from versus.engine.grid.start import check_turn_facts

    seen = 0
    for i, options in enumerate([{}, {"mode": "normal"}, {"mode": "vs"}, {"deck": "shared"},
                                 {"mix": "no-traps", "tie": "sudden-death"}]):
        ref = random_game(GridRules.from_options(options), CAT, f"reachable-{i}".encode())
        while not ref.state.finished:
            ref.advance()
            if ref.state.decision[:1] == (Dec.TURN,) and not ref.state.tasks:
                check_turn_facts(load_position(dump_position(ref.state)))
                seen += 1
    assert seen > 100


def test_every_weakening_boost_and_shield_comes_from_a_spent_card() -> None:
    """The reader's totals of weakening, boosts and shields hold for the positions of random
    games in which those effects happen (loaded back: the reader checks them all)."""
    effects = set()
    for i in range(6):
        ref = random_game(GridRules.from_options({"mode": "vs"}), CAT, f"effects-{i}".encode())
        while not ref.state.finished:
            ref.advance()
            s = ref.state
            for name, values in (("weaken", s.weaken), ("boost", s.boost), ("shield", s.shield)):
                if any(values):
                    effects.add(name)
                    load_position(dump_position(s))
    assert effects == {"weaken", "boost", "shield"}


def _accepted(obj: dict[str, Any]) -> Any:
    return accepted_start(GRID, obj)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BASES), st.integers(1, 3), st.data())
def test_every_mutated_start_the_reader_accepts_plays_to_the_end(base, count, data) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(rich_start(*base))
    ids = [c.id for c in CAT.cards]
    mutated = mutate_position(obj, lambda seq: data.draw(st.sampled_from(list(seq))), ids, count)
    rules = _accepted(mutated)
    if rules is not None:
        for seed in range(2):
            assert isinstance(play_out(GRID, rules, seed), Finished)


def accepted_mutations(base: tuple[Any, bytes], wanted: int) -> list[Any]:
    """The first `wanted` accepted one-change mutations of a real start (start_support)."""
    return shared_accepted_mutations(GRID, rich_start(*base), [c.id for c in CAT.cards], base[1],
                                     wanted)


def test_accepted_mutated_starts_verify_through_the_protocol() -> None:
    """Accepted mutations of real starts (individual decks from decklists, the shared deck
    from the shared pool), played as whole matches by the real MatchPeer pair and certified
    by the verifier."""
    from tests.protocol.pair import Pair
    from versus.protocol.match.rules import DealMode, MatchRules
    from versus.protocol.match.verify import verify_transcript

    plays = [(accepted_mutations(BASES[0], 1)[0], DealMode.DECKLIST),
             (accepted_mutations(BASES[2], 1)[0], DealMode.SHARED_POOL)]
    for rules, mode in plays:
        pair = Pair(MatchRules(rules, mode, game="grid"), label=f"grid-mutated-{mode.value}",
                    catalogue=CAT).run()
        assert not pair.errors, pair.errors
        report = verify_transcript(pair.peers[0].transcript_bytes())
        assert report.ok, report.describe()
        assert report.summary["result"] is not None


# --- positions mid-resolution (the reader of any position, SPEC §9.5 "Reachable") --------------


def _hidden_hand(o: dict[str, Any], player: int) -> list[int]:
    return [h for h, c in enumerate(o["cards"])
            if c["zone"] == "hand" and c["controller"] == player and "card" not in c]


def _use_unrevealed(o: dict[str, Any]) -> None:
    """A pending `use` of a hidden hand card that no reveal precedes (the engine asserted)."""
    a = o["active"]
    revealed, used = _hidden_hand(o, a)[:2]
    o.update(decision={"kind": "reveal", "fields": [a, revealed]},
             tasks=[["use", used, a, 0], ["play", a]])


def _order_twice(o: dict[str, Any]) -> None:
    """A battle order offering one enemy twice (the engine's decision raised ValueError)."""
    a = o["active"]
    mine, theirs = _first(o, _face_up(a)), _first(o, _face_up(1 - a))
    o.update(decision={"kind": "order", "fields": [a, mine, theirs, theirs]})


def _target_anything(o: dict[str, Any]) -> None:
    """An item-target choice of a card that is no item."""
    a = o["active"]
    mine, theirs = _first(o, _face_up(a)), _first(o, _face_up(1 - a))
    o.update(decision={"kind": "target", "fields": [a, mine, theirs]})


@pytest.mark.parametrize(("change", "field"), [
    (_use_unrevealed, "tasks[0]"), (_order_twice, "decision.fields"),
    (_target_anything, "decision.fields[1]")], ids=["use-unrevealed", "order-twice",
                                                   "target-no-item"])
def test_a_position_mid_resolution_states_only_what_the_rules_ask(change, field) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(rich_start())
    change(obj)
    with pytest.raises(PositionError, match=f"position field '{re.escape(field)}'"):
        load_position(json.dumps(obj))
