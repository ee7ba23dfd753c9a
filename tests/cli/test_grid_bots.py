# The grid ISMCTS bot (engine/grid/bot_search.py; SPEC §7.11.9): offered for the grid under the
# name `ismcts` with its budget options, it answers only legal inputs (every decision of a whole
# game checked against the legal list), and it is deterministic given its seed at an iteration
# budget. Its strength is measured by bench/grid.py --ismcts-games, not tested here.
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from versus.cli.bots import make_bot
from versus.cli.bots.base import Budget
from versus.cli.bots.registry import game_problem
from versus.engine.grid.bot_search import DEFAULT_BUDGET, GridIsmctsBot

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_bots_games", ROOT / "bench" / "bots_games.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


class Recorder:
    """Checks every answer is among the legal inputs and records the answers."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.name = bot, bot.name
        self.moves: list[str] = []
        self.searched = 0

    def choose(self, view: Any, legal: Any) -> Any:
        assert view.player in (0, 1) and view.legal_actions == tuple(legal)
        action = self.bot.choose(view, list(legal))
        assert action in legal, f"{self.name} answered {action} not in the legal inputs"
        self.moves.append(str(action))
        self.searched += getattr(self.bot, "last_iterations", 0) > 0
        return action


def test_ismcts_is_a_grid_bot_with_its_budget_options() -> None:
    assert game_problem("ismcts", "grid") is None
    assert game_problem("ismcts-tree", "grid") is not None
    assert make_bot("ismcts", seed=1, game="grid").budget == DEFAULT_BUDGET
    assert make_bot("ismcts:iterations=3", game="grid").budget == Budget(3, None)
    assert make_bot("ismcts:time=0.05", game="grid").budget == Budget(None, 0.05)
    assert make_bot("ismcts", game="grid", budget=Budget(seconds=0.2)).budget.seconds == 0.2
    bot = make_bot("ismcts:time=0.2,iterations=5,seed=3", game="grid")
    assert isinstance(bot, GridIsmctsBot) and bot.budget == Budget(5, 0.2)


class Enough(Exception):
    """Ends the replayed game once its prefix is compared."""


def test_ismcts_answers_legal_inputs_and_is_deterministic_given_its_seed() -> None:
    def game(stop: int | None = None) -> tuple[Recorder, Any]:
        ismcts = Recorder(make_bot("ismcts:iterations=1", seed=7, game="grid"))
        greedy = Recorder(make_bot("greedy", seed=8, game="grid"))
        if stop is not None:
            inner = ismcts.choose

            def choose(view: Any, legal: Any) -> Any:
                if len(ismcts.moves) >= stop:
                    raise Enough
                return inner(view, legal)

            ismcts.choose = choose  # type: ignore[method-assign]
        try:
            return ismcts, bench.play_game("grid", (greedy, ismcts), b"test-grid-ismcts")
        except Enough:
            return ismcts, None

    first, result = game()
    assert result is not None and result.outcome
    assert first.searched > 3  # it searched, not only answered forced decisions
    again, _ = game(stop=8)  # the same seed, views and legal inputs: the same answers
    assert again.moves == first.moves[:8]
