# The grid ISMCTS's search pieces (engine/grid/bot_search.py, SPEC §7.11.9): the opponent of a
# playout chooses as greedy does, blind to the bot's hidden cards (it walks into a face-down
# trap it cannot see, where an all-seeing one would not); the race drops a candidate only when
# its paired differences from the leader say it is worse, and the budget counts playouts.
from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

from versus.cli.bots import make_bot
from versus.engine.api import DecisionKind, Setup
from versus.engine.grid.bot_search import CANDIDATES, GridIsmctsBot, policy
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import get_game
from versus.engine.shell import Budget, prune

from .scene import CAT, Scene, resolve


def _trap_position() -> tuple[Scene, Any, int, int]:
    """Player 2 to move, a fire 9 in hand, beside player 1's face-down pitfall (b1) and earth
    2 (c1): (scene, state, the pitfall's handle, the earth 2's)."""
    sc = Scene()
    trap = sc.grid(0, "b1", "pitfall", up=False)
    own = sc.grid(0, "c1", "earth2", up=False)
    sc.hand(1, "fire9")
    sc.grid(1, "b3", "fire1", up=False)
    return sc, resolve(sc.state(active=1), sc), trap, own


def test_the_playout_opponent_cannot_see_the_bot_s_face_down_trap() -> None:
    sc, s, trap, own = _trap_position()
    world = replace(s, ident=tuple(CAT.index[sc.identity(h)] for h in range(len(s.zone))),
                    _cache={})
    seeing = policy(world, 1)
    blind = policy(world, 1, {trap: "water1", own: "earth2"})
    assert seeing.cell != "b2"  # it knows the pitfall
    assert (blind.cell, blind.up) == ("b2", True)  # it attacks the weak card it imagines


def test_the_opponent_s_blind_choice_does_not_depend_on_the_bot_s_hidden_cards() -> None:
    sc, s, trap, own = _trap_position()
    ident = [CAT.index[sc.identity(h)] for h in range(len(s.zone))]
    imagined = {trap: "fire3", own: "water4"}
    first = policy(replace(s, ident=tuple(ident), _cache={}), 1, imagined)
    ident[trap], ident[own] = CAT.index["water1"], CAT.index["keg"]
    assert policy(replace(s, ident=tuple(ident), _cache={}), 1, imagined) == first


def _views(seed: bytes, seat: int, count: int) -> list[tuple[Any, list[Any]]]:
    """The first `count` views (and legal inputs) of `seat` in a greedy game of fast mode."""
    game = get_game("grid")
    rules, cat = game.default_rules(), game.default_catalogue()
    identity, orders = local_deal(game, rules, cat, seed)
    play = LocalPlay.start(game, Setup(rules, cat, seed), identity, orders,
                           HashBelow(seed + b"/chance", 8).below)
    bots = [make_bot("greedy", seed=1, game="grid"), make_bot("greedy", seed=2, game="grid")]
    seen: list[tuple[Any, list[Any]]] = []

    def choose(view: Any, legal: list[Any], p: int) -> Any:
        if p == seat and len(seen) < count and view.decision.kind is DecisionKind.TURN:
            seen.append((view, list(legal)))
        return bots[p].choose(view, legal)

    play.play(choose, 10_000)
    return seen


def test_the_race_ends_a_search_early_and_the_budget_counts_playouts() -> None:
    views = _views(b"grid-race", 0, 4)
    assert len(views) == 4
    for view, legal in views:
        bot = GridIsmctsBot(random.Random(5), time.perf_counter, Budget(40, None))
        wide = GridIsmctsBot(random.Random(5), time.perf_counter, Budget(40, None),
                             race_z=100.0)  # nobody leaves the race
        assert bot.choose(view, legal) in legal and wide.choose(view, legal) in legal
        assert 0 < bot.last_iterations <= wide.last_iterations < 40 + CANDIDATES
        assert wide.last_iterations >= 40


def test_the_race_drops_only_what_the_paired_differences_condemn() -> None:
    rows = [[0.9, 0.8, 0.7, 0.9], [0.1, 0.2, 0.1, 0.0], [0.8, 0.9, 0.6, 0.9],
            [0.9, 0.8, 0.7, 0.9]]
    totals = [sum(r) for r in rows]
    # 1 is worse in every world; 2 is as good on average (noise); 3 equals the leader
    assert prune([0, 1, 2, 3], rows, totals, 1.5) == [0, 2]
