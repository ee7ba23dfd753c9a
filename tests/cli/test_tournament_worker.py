# The tournament worker's BotGuard (cli/tournament_worker.py): every way a bot misbehaves is a
# recorded forfeit, with or without a time limit of the guard's own.
from __future__ import annotations

import time

from versus.cli.bots import as_async
from versus.cli.tournament_worker import FORFEIT, BotGuard


class _Nothing:
    """A cheap bot that answers no action."""

    name, cheap = "nothing", True

    def choose(self, view, legal):
        return None


class _Slow:
    """A bot that thinks in a worker thread, longer than its guard allows."""

    name = "slow"

    def choose(self, view, legal):
        time.sleep(0.3)
        return legal[0]


async def test_a_guard_without_a_limit_forfeits_a_bot_that_answers_nothing() -> None:
    # a guard without a limit (an external bot, or a cheap built-in one: no cancel scope)
    # formatted its limit, None, into the reason and failed with a TypeError
    guard = BotGuard(as_async(_Nothing()), "nothing", None)
    assert await guard.choose(None, ["a", "b"]) is FORFEIT
    assert guard.forfeit == "bot 'nothing' answered no action on decision 1"


async def test_a_guard_with_a_limit_cuts_a_thinking_bot_off() -> None:
    guard = BotGuard(as_async(_Slow()), "slow", 0.05)
    assert await guard.choose(None, ["a", "b"]) is FORFEIT
    assert guard.forfeit == "bot 'slow' exceeded 0.05 s on decision 1"
