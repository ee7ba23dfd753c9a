# Random playouts (hypothesis picks the seeds, the variant and the sizes) checked against the
# engine's invariants after every input.
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from versus.engine import HashRng
from versus.engine.errors import IllegalActionError
from versus.engine.versus42 import (
    Action,
    ActionKind,
    ActionOrder,
    Referee,
    Ruleset,
    TurnDecision,
    default_catalogue,
    format_input,
    legal_actions,
    parse_action,
    random_chooser,
    random_deal,
    state_hash,
    step,
)
from versus.engine.versus42.game import FIELD, HAND

CAT = default_catalogue()

games = st.tuples(
    st.binary(min_size=1, max_size=8),
    st.sampled_from(list(ActionOrder)),
    st.integers(3, 21),
    st.integers(1, 5),
)


def _referee(seed: bytes, order: ActionOrder, deck: int, hand: int) -> Referee:
    rs = Ruleset(deck_size=deck, hand_size=min(hand, deck), action_order=order)
    ids, orders = random_deal(CAT, rs, HashRng(seed, "deal"))
    choosers = (random_chooser(HashRng(seed, "p0")), random_chooser(HashRng(seed, "p1")))
    return Referee(rs, CAT, seed, ids, orders, choosers)


def _check_invariants(ref: Referee) -> None:
    s = ref.state
    # every handle is in exactly one zone, consistent with the board and the counters
    on_board = [h for h in s.board if h >= 0]
    assert len(on_board) == len(set(on_board))
    for h in range(2 * s.n):
        assert (s.zone[h] == FIELD) == (s.pos[h] >= 0)
        if s.zone[h] == FIELD and s.battle is None:
            assert s.board[s.pos[h]] == h  # no area holds two cards outside a battle
    for p in (0, 1):
        hs = s.handles(p)
        assert s.deck_n[p] == sum(s.zone[h] == 0 for h in hs)
        assert s.hand_n[p] == sum(s.zone[h] == HAND for h in hs)
        assert s.alive[p] == sum(s.zone[h] in (0, HAND, FIELD) for h in hs)
    if isinstance(s.pending, TurnDecision):
        assert s.battle is None and s.tasks == []
    # no view contains a hidden identity
    for p in (0, 1):
        view = ref.view(p).to_dict()
        for h, (_zone, cid) in view["zones"].items():
            if cid is not None:
                assert s.public_id(h) == cid or (
                    s.owner(h) == p and ref.knowledge[p].cards.get(h) == cid)
        for fc in view["field"]:
            if fc["card_id"] is not None and s.public_id(fc["handle"]) is None:
                assert s.owner(fc["handle"]) == p
        for h, cid in view["hands"][1 - p]:
            assert cid is None or s.public_id(h) == cid


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_random_playouts_keep_invariants_and_terminate(game):
    ref = _referee(*game)
    limit = 20000
    while ref.state.result is None and limit:
        ref.advance()
        _check_invariants(ref)
        limit -= 1
    assert ref.state.result is not None, "every game terminates"
    assert ref.state.turn <= 2 * ref.state.rules.max_turns


@settings(max_examples=10, deadline=None)
@given(games)
def test_identical_inputs_give_identical_hashes(game):
    ref = _referee(*game)
    ref.play()
    a = b = None
    from versus.engine.versus42 import new_game
    a = new_game(ref.state.rules, CAT, game[0])
    b = new_game(ref.state.rules, CAT, game[0])
    for inp in ref.history:
        a, b = step(a, inp), step(b, inp)
        assert state_hash(a) == state_hash(b)
    assert state_hash(a) == state_hash(ref.state)


@settings(max_examples=10, deadline=None)
@given(games)
def test_every_legal_action_is_accepted_and_clone_is_independent(game):
    ref = _referee(*game)
    checked = 0
    while ref.state.result is None and checked < 40:
        s = ref.state
        if isinstance(s.pending, TurnDecision):
            before = state_hash(s)
            for a in legal_actions(s)[:60]:
                step(s, a)  # never raises
            assert state_hash(s) == before  # step is pure
            checked += 1
        ref.advance()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_the_checked_path_agrees_with_the_listed_one(game):
    # step applies an Action its state listed without re-checking it; an equal Action on a
    # copy that listed nothing goes through every check: both give the same state, and an
    # activate the list lacks (any one-target list of a listed card) is refused
    ref = _referee(*game)
    checked = 0
    while ref.state.result is None and checked < 30:
        s = ref.state
        if isinstance(s.pending, TurnDecision):
            legal = legal_actions(s)
            for a in legal[:60]:
                again = parse_action(format_input(a))
                assert state_hash(step(s.clone(), again)) == state_hash(step(s, a))
            for a in {(x.area, x.source) for x in legal if x.kind is ActionKind.ACTIVATE}:
                for t in s.geom.names:
                    probe = Action.activate(a[0], (t,), a[1])
                    try:
                        step(s.clone(), probe)
                    except IllegalActionError:
                        assert probe not in legal
                    else:
                        assert probe in legal
            checked += 1
        ref.advance()


def test_both_action_orders_finish_many_games():
    results = {}
    for order in ActionOrder:
        for i in range(30):
            ref = _referee(bytes([i, 7]), order, 12, 3)
            results[(order, i)] = ref.play()
    assert all(r is not None for r in results.values())


def _snapshot(s: object) -> tuple[object, ...]:
    """Every list of a state's public layout, copied (the hash leaves the counts out)."""
    return tuple(list(getattr(s, name)) for name in (
        "zone", "pos", "face", "ident", "temp", "stack", "board", "alive", "deck_n", "hand_n",
        "tasks"))


def test_no_input_changes_the_state_it_is_applied_to():
    # step shares the lists an input does not write with the state it came from (copy on
    # write): every kind of input (deals, reveals and choices too), and every sibling of a
    # turn action, must leave that state as it was
    inputs = siblings = 0
    for seed, order in ((b"pure-0", ActionOrder.ORDERED), (b"pure-1", ActionOrder.ANY),
                        (b"pure-2", ActionOrder.ORDERED), (b"pure-3", ActionOrder.ANY)):
        ref = _referee(seed, order, 12, 3)
        while ref.state.result is None:
            before = ref.state
            snap = _snapshot(before)
            if isinstance(before.pending, TurnDecision):
                for a in legal_actions(before):
                    step(before, a)
                    siblings += 1
                assert _snapshot(before) == snap, format_input(a)
            inp = ref.advance()
            inputs += 1
            assert _snapshot(before) == snap, format_input(inp)
    assert inputs > 300 and siblings > 1000
