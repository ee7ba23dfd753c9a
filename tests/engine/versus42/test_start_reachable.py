# A Versus start position states only what the rules can reach (SPEC §3.3 "Reachable" and "What
# can start"): a host that offers a start cannot hand itself a turn, an Increase, a level or
# tiles no game gives, nor a face the rules never show. Each deceptive start below is a real
# start with one field changed, which the reader used to accept and the whole match verified;
# the reader now refuses it naming the field and the value. Then the readers are held to the
# rules from both sides: every position random play reaches passes the start checks, and every
# mutated real start the reader accepts plays whole random games and verifies.
from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.start_support import accepted_mutations as shared_accepted_mutations
from tests.engine.start_support import accepted_start, mutate_position, play_out
from tests.engine.versus42.test_start_positions import positions
from versus.engine import HashRng, PositionError, load_position
from versus.engine.api import Finished, rules_for_position
from versus.engine.registry import get_game
from versus.engine.versus42 import (
    Referee,
    Ruleset,
    TurnDecision,
    default_catalogue,
    dump_position,
    random_chooser,
    random_deal,
)
from versus.engine.versus42.game import FIELD
from versus.engine.versus42.ruleset import ActionOrder

VERSUS = get_game("versus42")
CAT = default_catalogue()


@functools.cache
def rich_start(seed: bytes = b"start-2") -> str:
    """A real startable position some turns in, with recto cards of both players."""
    for text in positions(seed):
        s = load_position(text)
        recto = [h for h in range(2 * s.n) if s.zone[h] == FIELD and s.face[h]]
        if len({h // s.n for h in recto}) == 2 and s.turn > 6:
            try:
                rules_for_position(VERSUS, text)
            except PositionError:
                continue
            return text
    raise AssertionError("no startable position with recto cards of both players")


def _recto(o: dict[str, Any], player: int | None = None) -> int:
    """A recto field card (of `player`, default the active one)."""
    n = len(o["cards"]) // 2
    p = o["active"] if player is None else player
    return next(h for h in range(p * n, (p + 1) * n)
                if o["cards"][h]["zone"] == "field" and o["cards"][h].get("face") == "recto")


def _deck_cards(o: dict[str, Any], player: int) -> list[int]:
    n = len(o["cards"]) // 2
    return [h for h in range(player * n, (player + 1) * n) if o["cards"][h]["zone"] == "deck"]


def _fresh_turn(o: dict[str, Any]) -> None:
    o.update(used=[], order="summon", summons=0)


def _other_players_turn(o: dict[str, Any]) -> None:
    """The host hands itself the turn: the other player is active, at the same turn number."""
    _fresh_turn(o)
    o["active"] = 1 - o["active"]
    o["decision"] = {"kind": "turn", "player": o["active"]}


def _past_the_turn_limit(o: dict[str, Any]) -> None:
    s = load_position(json.dumps(o))
    _fresh_turn(o)
    o.update(turn=2 * s.rules.max_turns, active=s.first,
             decision={"kind": "turn", "player": s.first})


def _increase(value: int, fresh: bool = False) -> Callable[[dict[str, Any]], None]:
    def change(o: dict[str, Any]) -> None:
        if fresh:
            _fresh_turn(o)
        o["cards"][_recto(o)]["increase"] = value
    return change


def _public_verso(o: dict[str, Any]) -> None:
    """The opponent's card shown face down with its identity named."""
    o["cards"][_recto(o, 1 - o["active"])].pop("face")


def _back_in_order(o: dict[str, Any]) -> None:
    """After its Move the active player may Flip and Activate again (§1.4.3 `ordered`)."""
    o.update(used=["summon", "move"], order="summon", summons=1)


def _absorbed(count: int, face: str | None) -> Callable[[dict[str, Any]], None]:
    """The active player's recto card absorbed `count` of the opponent's deck cards."""
    def change(o: dict[str, Any]) -> None:
        h = _recto(o)
        n = len(o["cards"]) // 2
        eaten = _deck_cards(o, 1 - h // n)[:count]
        for x in eaten:
            o["cards"][x] = {"zone": "absorbed", "card": CAT.cards[0].id}
            if face:
                o["cards"][x]["face"] = face
        o["cards"][h]["absorbed"] = eaten
    return change


def _verso_with_a_stack(o: dict[str, Any]) -> None:
    """An eliminated card that absorbed one but was never recto."""
    h = _deck_cards(o, o["active"])[0]
    n = len(o["cards"]) // 2
    x = _deck_cards(o, 1 - h // n)[0]
    o["cards"][h] = {"zone": "discarded", "card": CAT.cards[1].id, "absorbed": [x]}
    o["cards"][x] = {"zone": "absorbed", "card": CAT.cards[0].id, "face": "recto"}


def _recoloured(o: dict[str, Any]) -> None:
    """Every tile but the Blue one Black (the first player, from the Blue tile, unchanged)."""
    o["tiles"] = "".join(c if c in "B " else "K" for c in o["tiles"])


#: (the deceptive change, the field the reader names, a word of the value it quotes)
DECEPTIONS = [
    (_other_players_turn, "active", "got player"),
    (_past_the_turn_limit, "turn", "turn 120"),
    (_increase(99), "increase", "99 is more than"),
    (_increase(1, fresh=True), "increase", "1 is more than this turn's Actions can have "
                                           "added (0"),
    (_public_verso, "face", "got 'verso'"),
    (_back_in_order, "order", "got 'summon'"),
    (lambda o: o.update(summons=12), "summons", "12 Summon Actions"),
    (lambda o: o.update(used=[], summons=1), "summons", "1 Summon Actions"),
    (_recoloured, "tiles", "Black"),
    (_absorbed(1, None), "face", "got 'verso'"),
    (_absorbed(4, "recto"), "absorbed", "4 absorbed cards"),
    (_verso_with_a_stack, "absorbed", "recto and public"),
]


NAMES = ["other-players-turn", "past-the-turn-limit", "increase-99", "increase-before-acting",
         "public-verso", "back-in-order", "summons-over-cards-out", "summons-without-summon",
         "recoloured-tiles", "absorbed-verso", "fourth-absorption", "verso-with-a-stack"]


@pytest.mark.parametrize(("change", "field", "value"), DECEPTIONS, ids=NAMES)
def test_a_deceptive_start_is_refused_naming_the_field_and_value(change, field, value) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(rich_start())
    change(obj)
    with pytest.raises(PositionError, match=f"position field '[^']*{field}'") as caught:
        rules_for_position(VERSUS, json.dumps(obj))
    assert value in str(caught.value)


def test_every_position_random_play_reaches_passes_the_start_checks() -> None:
    """The start checks refuse nothing the rules reach: every position that waits for a turn
    action in random games of both Action orders and three deck sizes."""
    from versus.engine.versus42.start import check_turn_facts

    seen = 0
    for i, (order, size) in enumerate([(ActionOrder.ORDERED, 12), (ActionOrder.ANY, 21),
                                       (ActionOrder.ORDERED, 5), (ActionOrder.ANY, 12)]):
        rules = Ruleset(action_order=order, deck_size=size, hand_size=min(3, size))
        seed = f"reachable-{i}".encode()
        ids, orders = random_deal(CAT, rules, HashRng(seed, "deal"))
        ref = Referee(rules, CAT, seed, ids, orders, (random_chooser(HashRng(seed, "a")),
                                                      random_chooser(HashRng(seed, "b"))))
        while ref.state.result is None:
            ref.advance()
            if isinstance(ref.state.pending, TurnDecision):
                check_turn_facts(load_position(dump_position(ref.state)))
                seen += 1
    assert seen > 100


BASES = (b"start-1", b"start-2", b"start-3")


def _accepted(obj: dict[str, Any]) -> Any:
    return accepted_start(VERSUS, obj)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BASES), st.integers(1, 3), st.data())
def test_every_mutated_start_the_reader_accepts_plays_to_the_end(base, count, data) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(rich_start(base))
    ids = [c.id for c in CAT.cards]
    mutated = mutate_position(obj, lambda seq: data.draw(st.sampled_from(list(seq))), ids, count)
    rules = _accepted(mutated)
    if rules is not None:
        for seed in range(2):
            assert isinstance(play_out(VERSUS, rules, seed), Finished)


def accepted_mutations(base: bytes, wanted: int) -> list[Any]:
    """The first `wanted` accepted one-change mutations of a real start (start_support)."""
    return shared_accepted_mutations(VERSUS, rich_start(base), [c.id for c in CAT.cards], base,
                                     wanted)


def test_accepted_mutated_starts_verify_through_the_protocol() -> None:
    """Two accepted mutations of real starts, played as whole matches by the real MatchPeer
    pair (shared pool and decklists), and certified by the verifier."""
    from tests.protocol.pair import Pair
    from versus.protocol.match.rules import DealMode, MatchRules
    from versus.protocol.match.verify import verify_transcript

    for rules, mode in zip(accepted_mutations(b"start-1", 2), DealMode, strict=True):
        pair = Pair(MatchRules(rules, mode), label=f"mutated-start-{mode.value}").run()
        assert not pair.errors, pair.errors
        report = verify_transcript(pair.peers[0].transcript_bytes())
        assert report.ok, report.describe()
        assert report.summary["result"] is not None
