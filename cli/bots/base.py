# What a bot is. A bot is a player like a person: it receives the same view of its seat and the
# same legal actions a person's screen shows, nothing more, and answers one of those actions.
# The view and the actions are the game's own objects (`Game.view`, `Game.legal_actions`).
#
# `Bot.choose` is synchronous, so a bot plugs straight into the one full-information loop
# (engine/referee_loop.py: demo, tests, bench). A network session is a trio program that must keep
# answering keepalives and running clocks while a bot thinks, so it talks to an `AsyncPlayer`;
# `as_async` adapts a `Bot`, running CPU-heavy ones in a worker thread
# (`trio.to_thread.run_sync`) so the event loop keeps running. External bots (a separate process
# speaking JSON lines, see external.py) are natively async.
from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import trio

from versus.engine.shell import Budget as Budget  # re-exported: the games budget bots too


class BotError(Exception):
    """Base class of the bot errors."""


class UnknownBotError(BotError, ValueError):
    """`make_bot` was given a name it does not know."""


class BotForfeit(BotError):
    """A bot lost by misbehaving: it crashed, answered garbage or an illegal action, or ran
    out of time. `reason` is one line naming the bot, the decision and the offending input."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@runtime_checkable
class Bot(Protocol):
    """A synchronous player: `choose` returns one element of `legal`."""

    name: str

    def choose(self, view: Any, legal: Sequence[Any]) -> Any: ...


@runtime_checkable
class AsyncPlayer(Protocol):
    """What a network session asks for a move (people through the UI, bots through as_async)."""

    name: str

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any: ...


class _ThreadedBot:
    """A sync bot seen as an AsyncPlayer; heavy ones think in a worker thread."""

    def __init__(self, bot: Bot, threaded: bool) -> None:
        self.bot, self.threaded, self.name = bot, threaded, bot.name

    async def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        if not self.threaded:
            return self.bot.choose(view, legal)
        # abandon_on_cancel: a cancelled session need not wait for the search to finish;
        # the thread only reads its own copies of the state and its result is dropped.
        return await trio.to_thread.run_sync(self.bot.choose, view, list(legal),
                                             abandon_on_cancel=True)


def as_async(bot: Bot | AsyncPlayer) -> AsyncPlayer:
    """An AsyncPlayer for any bot: async ones as they are, sync ones adapted (in a thread
    unless the bot says it is cheap with a true `cheap` attribute)."""
    if isinstance(bot, _ThreadedBot) or _is_async(bot):
        return bot  # type: ignore[return-value]
    return _ThreadedBot(bot, threaded=not getattr(bot, "cheap", False))  # type: ignore[arg-type]


def _is_async(bot: object) -> bool:
    return inspect.iscoroutinefunction(getattr(bot, "choose", None))
