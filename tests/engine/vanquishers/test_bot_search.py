# The Vanquishers ISMCTS bot (engine/vanquishers/bot_search.py): registered as the game's
# `ismcts` (so `versus games` and `--bot` offer it), it answers only legal inputs over a whole
# game against greedy (every decision checked against the legal list), its worlds agree with
# the view, and it is deterministic given its seed at an iteration budget. Its strength is
# measured against greedy in paired games (bench/bots_games.py --a ismcts --b greedy).
from __future__ import annotations

from typing import Any

from versus.cli.bots import make_bot
from versus.cli.bots.base import Budget
from versus.cli.bots.registry import game_problem
from versus.engine.api import Setup
from versus.engine.referee_loop import HashBelow, LocalPlay
from versus.engine.registry import get_game
from versus.engine.shell import game_bots
from versus.engine.vanquishers.bot_search import (
    CANDIDATES,
    DEFAULT_BUDGET,
    RACE_AFTER,
    VanquishersIsmctsBot,
)
from versus.engine.vanquishers.engine import Zone

GAME = get_game("vanquishers")


class Recorder:
    """Checks every answer is among the legal inputs and records the answers."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.name = bot, bot.name
        self.moves: list[str] = []
        self.searched = 0

    def choose(self, view: Any, legal: Any) -> Any:
        assert view.legal_actions == list(legal)
        action = self.bot.choose(view, list(legal))
        assert action in legal, f"{self.name} answered {action} not in the legal inputs"
        self.moves.append(str(action))
        self.searched += getattr(self.bot, "last_iterations", 0) > 0
        return action


def start(seed: bytes) -> LocalPlay:
    rules, cat = GAME.default_rules(), GAME.default_catalogue()
    identity, orders = GAME.local_deal(rules, cat, seed)
    return LocalPlay.start(GAME, Setup(rules, cat, seed), identity, orders,
                           HashBelow(seed + b"/chance", 8).below)


def test_ismcts_is_a_vanquishers_bot_with_its_budget_options() -> None:
    assert "ismcts" in game_bots(GAME)
    assert game_problem("ismcts", "vanquishers") is None
    assert make_bot("ismcts", seed=1, game="vanquishers").budget == DEFAULT_BUDGET
    assert make_bot("ismcts:iterations=3", game="vanquishers").budget == Budget(3, None)
    bot = make_bot("ismcts:time=0.2,iterations=5,seed=3", game="vanquishers")
    assert isinstance(bot, VanquishersIsmctsBot) and bot.budget == Budget(5, 0.2)


def test_ismcts_plays_a_whole_game_of_legal_inputs_and_replays_given_its_seed() -> None:
    def game(stop: int | None) -> Recorder:
        ismcts = Recorder(make_bot("ismcts:iterations=1", seed=7, game="vanquishers"))
        greedy = Recorder(make_bot("greedy", seed=8, game="vanquishers"))
        play = start(b"test-vq-ismcts")
        bots = (ismcts, greedy)
        while stop is None or len(ismcts.moves) < stop:
            d = play.to_player()
            if not hasattr(d, "kind"):
                break
            play.advance(lambda view, legal, seat: bots[seat].choose(view, legal))
        if stop is None:
            assert GAME.decision(play.state).outcome  # the game is over
        return ismcts

    whole = game(None)
    assert whole.searched > 10  # it searched, not only answered forced decisions
    assert game(12).moves == whole.moves[:12]  # the same seed and views: the same answers


def test_a_world_keeps_what_the_view_shows_and_hides_nothing() -> None:
    play = start(b"test-vq-world")
    while True:  # to player 0's first turn
        d = play.to_player()
        if d.player == 0:
            break
        play.advance(lambda view, legal, seat: legal[-1])
    view = play.view(0)
    bot = make_bot("ismcts:iterations=1", seed=5, game="vanquishers")
    world = bot.sample_world(view)
    s, w = view.state, world.state
    assert all(c >= 0 for c in w.card)  # every identity set: no reveal in a world
    assert all(w.card[h] == s.card[h] for h in range(len(s.card)) if s.card[h] >= 0)
    cat = s.cat
    assert all(cat.cards[w.card[h]].id == cid for h, cid in view.knowledge.cards.items())
    assert (w.zone, w.sides, w.dec) == (s.zone, s.sides, s.dec)
    for p in (0, 1):  # a draw order of exactly each deck's cards
        assert sorted(world.orders[p]) == [h for h in range(p * s.n, p * s.n + s.n)
                                           if s.zone[h] == Zone.DECK]


def _first_turn_view(seed: bytes) -> Any:
    """Player 0's view at its first turn decision of a seeded game."""
    play = start(seed)
    while play.to_player().player != 0:
        play.advance(lambda view, legal, seat: legal[-1])
    return play.view(0)


def test_the_race_drops_a_candidate_that_is_the_leader_in_every_world() -> None:
    view = _first_turn_view(b"test-vq-race")
    move = view.legal_actions[0]
    bot = make_bot("ismcts:iterations=100", seed=3, game="vanquishers")
    totals = bot.search(view, [move, move], None)
    # equal to the leader in every world: out after the race's first worlds, and the search
    # ends there, far below its budget
    assert totals[1] == float("-inf") and totals[0] > 0
    assert (bot.last_worlds, bot.last_iterations) == (RACE_AFTER, 2 * RACE_AFTER)


def test_the_budget_counts_playouts_and_replays_given_the_seed() -> None:
    view = _first_turn_view(b"test-vq-budget")

    def decide() -> tuple[str, int, int]:
        bot = make_bot("ismcts:iterations=24", seed=5, game="vanquishers")
        move = bot.choose(view, view.legal_actions)
        return str(move), bot.last_iterations, bot.last_worlds

    move, playouts, worlds = decide()
    assert worlds >= 1 and 24 <= playouts < 24 + CANDIDATES  # a started world completes
    assert decide() == (move, playouts, worlds)
    assert DEFAULT_BUDGET.seconds is None and DEFAULT_BUDGET.iterations  # no clock by default
