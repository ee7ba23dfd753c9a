# What a Multiverse position may hold (engine/multiverse/bounds.py, SPEC §11.3 "Positions"): the
# reader refuses what the rules cannot reach, naming the field and the value, and is held to the
# rules from both sides: every state random play reaches loads back, and every mutated real
# position the reader accepts plays to the end (legal inputs, deals and reveals as a solo run
# answers them) without an exception.
from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.engine.start_support import mutate_position
from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.errors import PositionError
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.multiverse import engine as E

CAT = G.default_catalogue()
#: a fuzz finding (target `position`): an unknown operation in the queue left a TURN pending
#: with no legal input
RHVEAL = (
    '{"format":"versus-position/1","game":"multiverse","rules":{"deck":60,"difficulty":"normal"'
    '},"state":{"combat":null,"dealt":[[0,1,2,3,4,5,6,7,8,9,10,11],[60,61,62]],"defeated":0,'
    '"delayed":[],"discard":[],"hand":[9,10,11],"known":{"10":"battle-cry","60":"ash-plains",'
    '"61":"iron-steppe","62":"root-labyrinth","9":"war-drummer"},"last_roll":0,"main_used":'
    'false,"outcome":null,"pbg":60,"pdef":[0,1,2],"pup":[false,false,false],"q":[["rhveal",11,'
    '"show"],["deal",0,"hand"]],"rally":[0,0],"rows":[{"bg":61,"cards":[3,4,5],"up":[false,'
    'false,false]},{"bg":62,"cards":[6,7,8],"up":[false,false,false]}],"shield":[0,0],"side":0,'
    '"slow_used":false,"turn":0}}')


def _answer(state: Any, pick: Callable[[list[Any]], Any]) -> str:
    """The next input of a game, as a solo run plays it: the deck's next position for a deal,
    a card the deck still holds for a reveal, a legal input otherwise (`pick` chooses)."""
    d = G.decision(state)
    assert not isinstance(d, Finished)
    if d.kind is DecisionKind.DEAL:
        return G.deal_input(E.next_handle(state.d, state.rules, state.cat, d.deck))
    if d.kind is DecisionKind.REVEAL:
        deck = E.deck_of(state.rules, state.cat, d.handle)
        return G.reveal_input(d.handle, pick(list(G.unrevealed(state, deck))))
    legal = list(G.legal_actions(state))
    assert legal, f"a pending {d.kind.name} with no legal input"
    return pick(legal)


def play(state: Any, pick: Callable[[list[Any]], Any], most: int = 5000) -> list[Any]:
    """Every state of a game from `state` to its end."""
    states = [state]
    while not isinstance(G.decision(states[-1]), Finished):
        assert len(states) < most, "the game did not end"
        states.append(G.step(states[-1], _answer(states[-1], pick)))
    return states


def new(difficulty: str, deck: int) -> Any:
    rules = G.rules_from_options({"difficulty": difficulty, "deck": deck})
    return G.new_game(Setup(rules, CAT, b"positions"))


@functools.cache
def real_positions() -> tuple[str, ...]:
    """Positions of a few random games, every difficulty, from the setup to the end."""
    out: list[str] = []
    for seed, difficulty in enumerate(("easy", "normal", "hard")):
        rng = random.Random(seed)
        states = play(new(difficulty, 50 + 10 * seed), rng.choice)
        out += [G.dump_position(s) for s in states[:: max(1, len(states) // 40)]]
        out.append(G.dump_position(states[-1]))
    return tuple(out)


def test_the_fuzz_finding_is_refused():
    with pytest.raises(PositionError, match=r"state\.turn: 0 \(the setup"):
        G.load_position(RHVEAL)


def test_every_state_of_random_games_loads_back():
    for seed in range(6):
        rng = random.Random(100 + seed)
        difficulty = ("easy", "normal", "hard")[seed % 3]
        for s in play(new(difficulty, rng.choice((50, 60, 80))), rng.choice):
            text = G.dump_position(s)
            loaded = G.load_position(text)
            assert loaded.encode() == s.encode()
            assert G.legal_actions(loaded) == G.legal_actions(s)


def _mid_game() -> dict[str, Any]:
    """A real position past the setup with a face-down card on each side and cards in hand."""
    rng = random.Random(7)
    for s in play(new("normal", 60), rng.choice):
        d = s.d
        if d["turn"] >= 2 and d["q"][0] == ["turn"] and not d["slow_used"] and \
                not d["main_used"] and not all(d["pup"]) and d["combat"] is None:
            return json.loads(G.dump_position(s))
    raise AssertionError("no mid-game position")


def _text(obj: dict[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _face_down_pdef(st: dict[str, Any]) -> int:
    return next(i for i in range(3) if st["pdef"][i] >= 0 and not st["pup"][i])


CHANGES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("an unknown operation", lambda s: s["q"].insert(0, ["rhveal", s["hand"][0], "show"]),
     r"q\[0\]"),
    ("a turn past the cards dealt", lambda s: s.update(turn=40), r"state\.turn: 40"),
    ("a handle dealt twice", lambda s: s["hand"].append(s["hand"][0]), r"hand\[\d+\]"),
    ("a handle never dealt", lambda s: s["hand"].append(59), r"hand\[\d+\]: 59"),
    ("a battleground in the hand", lambda s: s["hand"].append(s["pbg"]), r"hand\[\d+\]"),
    ("a face-down card known", lambda s: s["known"].update(
        {str(s["pdef"][_face_down_pdef(s)]): "war-drummer"}), r"state\.known"),
    ("a card kind of the wrong deck", lambda s: s["known"].update(
        {str(s["hand"][0]): "ash-plains"}), r"state\.known: 'ash-plains'"),
    ("a face-up card unknown", lambda s: s["pup"].__setitem__(_face_down_pdef(s), True),
     r"state\.known"),
    ("shield far above the deck's", lambda s: s.update(shield=[99, 0]), r"shield\[0\]: 99"),
    ("rally as a boolean", lambda s: s.update(rally=[True, 0]), r"state\.rally"),
    ("defeated without an empty slot", lambda s: s.update(defeated=3), r"defeated: 3"),
    ("a die of 7", lambda s: s.update(last_roll=7), r"last_roll: 7"),
    ("the Multiverse's side on your turn", lambda s: s.update(side=1), r"state\.side: 1"),
    ("both actions used at your turn", lambda s: s.update(slow_used=True, main_used=True),
     r"q\[0\].*ends by itself"),
    ("a won game still playing", lambda s: s.update(outcome=["victory", 0]),
     r"state\.outcome"),
    ("a loss with a winner", lambda s: s.update(outcome=["deck-exhausted", 0]),
     r"state\.outcome"),
    ("every defense card gone, still playing", lambda s: s.update(pdef=[-1, -1, -1],
                                                                 pup=[False] * 3),
     r"dealt|outcome"),
    ("a combat with no combat queued", lambda s: s.update(combat={
        "side": 0, "attackers": [], "target": None, "a": 0, "d": 0, "instants": []}),
     r"state\.combat"),
    ("a delayed effect no card has", lambda s: s["delayed"].append([0, "draw", 99]),
     r"delayed\[0\]"),
    ("a setup deal after the setup", lambda s: s["q"].insert(0, ["deal", 1, "pbg"]),
     r"q\[0\]"),
    ("a turn queued twice", lambda s: s["q"].insert(0, ["turn"]), r"state\.q"),
]


@pytest.mark.parametrize(("change", "field"), [(c, f) for _, c, f in CHANGES],
                         ids=[n for n, _, _ in CHANGES])
def test_a_position_the_rules_cannot_reach_is_refused_naming_the_field(change, field):
    obj = _mid_game()
    G.load_position(_text(obj))
    change(obj["state"])
    with pytest.raises(PositionError, match=field):
        G.load_position(_text(obj))


def _leaves(o: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value of `o`, at any depth."""
    items = list(o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list)
                 else ())
    return [(*path, k) for k, _ in items] + [p for k, v in items for p in _leaves(v, (*path, k))]


def mutate_deep(state: dict[str, Any], pick: Callable[[list[Any]], Any], count: int) -> None:
    """`count` changes anywhere in a state, deep inside the queue, rows and combat included:
    a value set to a small integer, a handle-like number, a boolean, null or another value of
    the state, or an item dropped from a list."""
    for _ in range(count):
        paths = _leaves(state)
        path = pick(paths)
        parent = state
        for k in path[:-1]:
            parent = parent[k]
        if isinstance(parent, list) and pick([True, False, False]):
            parent.pop(path[-1])
            continue
        values = [json.loads(json.dumps(_at(state, p))) for p in paths[:40]]
        parent[path[-1]] = pick([-1, 0, 1, 2, 3, 6, 7, 59, 60, 61, 80, 99, True, False, None,
                                 *values])


def _at(o: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        o = o[k]
    return o


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(1, 3), st.booleans())
def test_a_mutated_position_the_reader_accepts_plays_to_the_end(data, count, deep):
    texts = real_positions()
    obj = json.loads(texts[data.draw(st.integers(0, len(texts) - 1))])
    choose = lambda seq: data.draw(st.sampled_from(list(seq)))  # noqa: E731
    if deep:
        mutate_deep(obj["state"], choose, count)
    else:
        obj = mutate_position(obj, choose, G.card_ids(CAT), count)
    try:
        state = G.load_position(_text(obj))
    except PositionError:
        return
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    end = play(state, rng.choice)[-1]
    G.score(end)
    G.state_hash(end)
