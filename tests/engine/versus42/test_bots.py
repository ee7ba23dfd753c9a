# Versus's own bots (engine/versus42/bots/): they only ever choose legal actions, their
# determinizations respect what their view hides, and the registry and async adapter make and
# run them as SPEC Part 7 says.
from __future__ import annotations

import random
import time

import pytest
import trio

from versus.cli.bots import KNOWN_BOTS, Budget, ExternalBot, RandomBot, UnknownBotError, as_async
from versus.cli.bots import make_bot as make_any_bot
from versus.engine import HashRng
from versus.engine.versus42 import (
    Referee,
    Ruleset,
    TurnDecision,
    default_catalogue,
    legal_actions,
    random_deal,
    step,
)
from versus.engine.versus42.bots import (
    Determinizer,
    GreedyBot,
    IsmctsBot,
    hidden_handles,
    ismcts,
    public_state,
    unseen_cards,
)
from versus.engine.versus42.bots.ismcts import SearchMode
from versus.engine.versus42.bots.worlds import World, draw_orders, resolve_world, sample_world
from versus.engine.versus42.game import DECK


def make_bot(name: str, **options):  # type: ignore[no-untyped-def]
    return make_any_bot(name, game="versus42", **options)


def greedy(seed: int) -> GreedyBot:
    return GreedyBot(random.Random(seed), random.Random)


def searcher(seed: int, budget: Budget | None = None, clock=time.perf_counter,  # type: ignore[no-untyped-def]
             **options) -> IsmctsBot:
    return IsmctsBot(random.Random(seed), random.Random, clock, budget, **options)


CAT = default_catalogue()


def referee(seed: int, bots, ruleset: Ruleset | None = None, checks=None) -> Referee:  # type: ignore[no-untyped-def]
    """A game between two bots whose every answer is checked against the legal actions."""
    ruleset = ruleset or Ruleset()
    seed_bytes = seed.to_bytes(4, "big")
    ids, orders = random_deal(CAT, ruleset, HashRng(seed_bytes, "test-deal"))

    def checked(bot):  # type: ignore[no-untyped-def]
        def choose(view, legal):  # type: ignore[no-untyped-def]
            assert view.legal_actions == legal
            action = bot.choose(view, legal)
            assert action in legal, f"{bot.name} chose illegal {action} among {legal}"
            if checks is not None:
                checks(view)
            return action
        return choose

    return Referee(ruleset, CAT, seed_bytes, ids, orders, (checked(bots[0]), checked(bots[1])))


def _position_with_many_actions(seed: int) -> Referee:
    """A game of two random bots advanced to a turn decision with over 10 legal actions."""
    ref = referee(seed, (RandomBot(1), RandomBot(2)))
    while not (isinstance(ref.state.pending, TurnDecision)
               and len(legal_actions(ref.state)) > 10):
        ref.advance()
    return ref


def test_random_bots_play_only_legal_actions():
    for g in range(30):
        ruleset = Ruleset.from_options(action_order="any") if g % 3 == 0 else Ruleset()
        result = referee(g, (RandomBot(g), RandomBot(g + 100)), ruleset).play()
        assert result is not None


def test_greedy_plays_only_legal_actions_and_beats_random():
    wins = 0
    for g in range(16):
        bots = (greedy(g), RandomBot(g)) if g % 2 == 0 else (RandomBot(g), greedy(g))
        result = referee(1000 + g, bots).play()
        wins += result.winner == g % 2
    assert wins >= 14


def test_greedy_against_itself_in_any_order_ruleset():
    for g in range(4):
        ruleset = Ruleset.from_options(action_order="any")
        assert referee(2000 + g, (greedy(g), greedy(g + 1)), ruleset).play() is not None


@pytest.mark.parametrize(("mode", "iterations"), [(SearchMode.PAIRED, 2),
                                                    (SearchMode.TREE, 40)])
def test_ismcts_plays_only_legal_actions(mode: SearchMode, iterations: int):
    budget = Budget(iterations=iterations, seconds=None)
    for g in range(3):
        bots = ((searcher(g, budget, mode=mode), greedy(g)) if g % 2
                else (RandomBot(g), searcher(g, budget, mode=mode)))
        assert referee(3000 + g, bots).play() is not None


def test_public_state_is_the_views_state_without_hidden_identities():
    ref = referee(4050, (RandomBot(1), RandomBot(2)))
    for _ in range(40):
        ref.advance()
    for p in (0, 1):
        view = ref.view(p)
        s = public_state(view)
        assert s is view.public_state
        for h in range(2 * s.n):
            # the state names a card only where it is public (recto, eliminated face up)
            assert s.public_id(h) is None or s.public_id(h) == view.identity(h)
        hidden = hidden_handles(view)
        assert hidden and all(s.public_id(h) is None for h in hidden)


def _check_determinizations(view) -> None:  # type: ignore[no-untyped-def]
    """Known cards stay fixed; hidden handles get distinct cards the view has not shown."""
    s = public_state(view)
    known = {h: view.identity(h) for h in range(2 * s.n)}
    hidden = hidden_handles(view)
    unseen = set(unseen_cards(view))
    assert unseen.isdisjoint(known.values())
    assert set(hidden) == {h for h, cid in known.items() if cid is None}
    worlds = Determinizer(view)
    rng = random.Random(7)
    for _ in range(5):
        ids = worlds.sample(rng)
        for h, cid in known.items():
            if cid is not None:
                assert ids[h] == cid
        sampled = [ids[h] for h in hidden]
        assert set(sampled) <= unseen
        assert len(set(sampled)) == len(sampled)


def test_determinizations_respect_the_view():
    checked = []

    def checks(view):  # type: ignore[no-untyped-def]
        checked.append(view.turn)
        _check_determinizations(view)

    referee(4000, (RandomBot(1), RandomBot(2)), checks=checks).play()
    assert len(checked) > 20


@pytest.mark.parametrize("mode", list(SearchMode))
def test_ismcts_samples_only_from_what_its_view_allows(monkeypatch, mode: SearchMode):
    """Every world the search samples agrees with the view it was given: the opponent's hand,
    verso cards and both decks come only from cards this player has not seen."""
    samples: list[tuple[object, list[str]]] = []
    original = Determinizer.sample

    def recording(self, rng):  # type: ignore[no-untyped-def]
        ids = original(self, rng)
        samples.append((self, ids))
        return ids

    monkeypatch.setattr(Determinizer, "sample", recording)
    bot = searcher(5, Budget(iterations=3 if mode is SearchMode.PAIRED else 20, seconds=None),
                    mode=mode)
    ref = referee(4100, (bot, RandomBot(3)))
    truth = ref.identities
    leaks = 0
    views_checked = 0
    while ref.state.result is None and views_checked < 15:
        d = ref.state.pending
        if isinstance(d, TurnDecision) and d.player == 0 and len(legal_actions(ref.state)) > 1:
            view = ref.view(0)
            samples.clear()
            bot.choose(view, legal_actions(ref.state))
            views_checked += 1
            assert samples
            hidden = hidden_handles(view)
            unseen = set(unseen_cards(view))
            for _, ids in samples:
                for h in range(len(ids)):
                    if h in hidden:
                        assert ids[h] in unseen
                    else:
                        assert ids[h] == view.identity(h) == truth[h]
            # the hidden truth is not what the bot samples every time (it does not peek)
            leaks += all(all(ids[h] == truth[h] for h in hidden) for _, ids in samples)
        ref.advance()
    assert views_checked >= 5
    assert leaks == 0


def test_make_bot_knows_its_bots():
    assert isinstance(make_bot("random", seed=1), RandomBot)
    assert isinstance(make_bot("greedy", seed=1), GreedyBot)
    bot = make_bot("ismcts", seed=1, budget=Budget(iterations=10, seconds=None))
    assert isinstance(bot, IsmctsBot) and bot.budget.iterations == 10
    assert bot.mode is SearchMode.PAIRED
    tree = make_bot("ismcts-tree", seed=1)
    assert isinstance(tree, IsmctsBot) and tree.mode is SearchMode.TREE
    assert tree.name == "ismcts-tree"
    ext = make_bot("cmd:python3 examples/random_bot.py", budget=Budget(seconds=0.25))
    assert isinstance(ext, ExternalBot)
    assert ext.argv == ["python3", "examples/random_bot.py"] and ext.time_ms == 250


def test_make_bot_rejects_unknown_names_listing_the_known_ones():
    with pytest.raises(UnknownBotError) as e:
        make_bot("alphazero")
    assert "'alphazero'" in str(e.value)
    for name in KNOWN_BOTS:
        assert name in str(e.value)
    with pytest.raises(UnknownBotError, match="command line"):
        make_bot("cmd:  ")


def test_budget_is_validated():
    with pytest.raises(ValueError, match="iterations, seconds or both"):
        Budget(iterations=None, seconds=None)
    with pytest.raises(ValueError, match="iterations"):
        Budget(iterations=0)
    with pytest.raises(ValueError, match="seconds"):
        Budget(seconds=-1)


@pytest.mark.parametrize("mode", list(SearchMode))
def test_ismcts_respects_a_time_budget(mode: SearchMode):
    ref = _position_with_many_actions(4200)
    p = ref.state.pending.player
    bot = searcher(1, Budget(seconds=0.05), mode=mode)
    t0 = time.perf_counter()
    action = bot.choose(ref.view(p), legal_actions(ref.state))
    assert time.perf_counter() - t0 < 0.5
    assert action in legal_actions(ref.state)
    assert bot.last_iterations >= 1


async def test_as_async_keeps_the_event_loop_running():
    """A heavy bot thinks in a worker thread: a concurrent task keeps ticking meanwhile."""
    ref = referee(4300, (RandomBot(1), RandomBot(2)))
    while not isinstance(ref.state.pending, TurnDecision):
        ref.advance()
    p = ref.state.pending.player
    player = as_async(searcher(1, Budget(seconds=0.3)))
    assert as_async(player) is player
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await trio.sleep(0.01)
            ticks += 1

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ticker)
        action = await player.choose(ref.view(p), legal_actions(ref.state))
        nursery.cancel_scope.cancel()
    assert action in legal_actions(ref.state)
    assert ticks >= 10


def test_ismcts_root_ranks_every_legal_action_and_expands_the_best_first():
    """The root's prior is greedy's one-ply ranking of all legal actions (best first), so
    greedy's choice is always a candidate and the first child the search adds."""
    ref = _position_with_many_actions(4400)
    p = ref.state.pending.player
    legal = legal_actions(ref.state)
    root = searcher(1, Budget(iterations=1, seconds=None),
                     mode=SearchMode.TREE).search(ref.view(p))
    assert root.order is not None
    assert sorted(map(str, (a for a, _ in root.order))) == sorted(map(str, legal))
    priors = [prior for _, prior in root.order]
    assert priors == sorted(priors, reverse=True) and all(0 <= x <= 1 for x in priors)
    assert list(root.children) == [root.order[0][0]]
    assert root.children[root.order[0][0]].prior == priors[0]


def test_paired_ismcts_searches_greedys_best_candidates_one_world_at_a_time():
    """The root's children are the one-ply ranking's first CANDIDATES actions, best first,
    and every iteration adds one visit to each of them (one world, all candidates)."""
    ref = _position_with_many_actions(4500)
    view = ref.view(ref.state.pending.player)
    bot = searcher(1, Budget(iterations=3, seconds=None))
    root = bot.search(view)
    assert root.order is not None and len(root.order) == len(legal_actions(ref.state))
    assert list(root.children) == [a for a, _ in root.order[:ismcts.CANDIDATES]]
    assert bot.last_iterations == root.visits == 3
    assert [c.visits for c in root.children.values()] == [3] * ismcts.CANDIDATES


class _Clock:
    """A clock standing still until the test moves it past any deadline, at the
    playout numbered `jump`."""

    def __init__(self, jump: int) -> None:
        self.now, self.playouts, self.jump = 0.0, 0, jump

    def perf_counter(self) -> float:
        return self.now


def test_paired_round_cut_by_the_deadline_is_dropped_whole(monkeypatch):
    """The deadline passes in the middle of the second world: its playouts are discarded, so
    every candidate keeps exactly the one world they all saw."""
    clock = _Clock(jump=ismcts.CANDIDATES + 2)
    real = ismcts._playout_value

    def counted(*args):  # type: ignore[no-untyped-def]
        clock.playouts += 1
        if clock.playouts == clock.jump:
            clock.now = 1e9
        return real(*args)

    monkeypatch.setattr(ismcts, "_playout_value", counted)
    ref = _position_with_many_actions(4500)
    bot = searcher(1, Budget(seconds=10), clock=clock.perf_counter)
    root = bot.search(ref.view(ref.state.pending.player))
    assert clock.playouts == clock.jump  # it stopped at the first playout past the deadline
    assert bot.last_iterations == root.visits == 1
    assert [c.visits for c in root.children.values()] == [1] * ismcts.CANDIDATES


def test_ismcts_plays_the_best_total_and_breaks_ties_by_rank(monkeypatch):
    ref = _position_with_many_actions(4500)
    view, legal = ref.view(ref.state.pending.player), legal_actions(ref.state)
    bot = searcher(1, Budget(iterations=1, seconds=None))
    first, second, third = legal[:3]

    def fake_search(totals):  # type: ignore[no-untyped-def]
        root = ismcts.Node(0)
        for a, total in zip((first, second, third), totals, strict=True):
            child = root.children[a] = ismcts.Node(1)
            child.visits, child.total = 4, total
        return lambda _view: root

    monkeypatch.setattr(bot, "search", fake_search((1.0, 3.0, 2.0)))
    assert bot.choose(view, legal) == second
    monkeypatch.setattr(bot, "search", fake_search((2.0, 1.0, 2.0)))
    assert bot.choose(view, legal) == first


def test_playout_stops_after_its_last_turn_and_is_reproducible(monkeypatch):
    """A playout is greedy play for both sides until `last_turn` is over; in the same world
    (cards and draw orders) with the same tie-breaking seed it always reaches the same
    position (common random numbers)."""
    ref = _position_with_many_actions(4600)
    state = ref.state
    world = World(list(ref.identities), draw_orders(state, random.Random(3)))
    reached: list[int] = []
    real = ismcts.evaluate

    def spy(s, world, me):  # type: ignore[no-untyped-def]
        reached.append(-1 if s.result is not None else s.turn)
        return real(s, world, me)

    monkeypatch.setattr(ismcts, "evaluate", spy)
    values = []
    for _ in range(2):
        reached.clear()
        values.append(ismcts._playout_value(state, world, random.Random(9), 0, state.turn + 1))
        assert reached[-1] in (-1, state.turn + 2)
    assert values[0] == values[1] and 0.0 <= values[0] <= 1.0


def test_ismcts_rejects_a_nonsense_configuration():
    with pytest.raises(ValueError, match="candidates"):
        searcher(1, candidates=0)
    with pytest.raises(ValueError, match="playout_turns"):
        searcher(1, playout_turns=-1)


def test_a_world_deals_in_its_draw_order():
    """A Deal in a world takes the first handle of its deck's draw order still in the deck,
    so every action played in one world meets the same cards, however late it draws."""
    ref = _position_with_many_actions(4700)
    state = ref.state
    view = ref.view(state.pending.player)
    world = sample_world(Determinizer(view), state, random.Random(4))
    for p in (0, 1):
        assert sorted(world.orders[p]) == [h for h in state.handles(p)
                                            if state.zone[h] == DECK]
    lines = 0
    for action in legal_actions(state)[:8]:
        draws: list[list[int]] = [[], []]
        after = resolve_world(step(state, action), world)
        while after.result is None and after.turn <= state.turn + 2:
            in_deck = [h for h in range(2 * after.n) if after.zone[h] == DECK]
            after = resolve_world(step(after, legal_actions(after)[0]), world)
            for h in in_deck:
                if after.zone[h] != DECK:
                    draws[h // after.n].append(h)
        for p in (0, 1):
            # every line of play draws the order's cards from its start, in its order
            assert draws[p] == list(world.orders[p][:len(draws[p])])
        lines += bool(draws[0] or draws[1])
    assert lines >= 4


def test_playout_policy_plays_greedys_best_action_in_the_world(monkeypatch):
    """The playout's policy is greedy's one-ply choice with the world's cards: the position
    it returns is the best-scored one among every legal action's, for the player to act."""
    ref = _position_with_many_actions(4800)
    state = ref.state
    world = World(list(ref.identities), draw_orders(state, random.Random(5)))
    player = state.pending.player
    scores = {}
    for action in legal_actions(state):
        after = resolve_world(step(state, action), world)
        scores[action] = ismcts.evaluate(after, world.ids, player)
    chosen = ismcts._greedy_step(state, world, random.Random(6))
    assert ismcts.evaluate(chosen, world.ids, player) == max(scores.values())
    assert len(set(scores.values())) > 1  # the position offers a real choice
