# Bots by name, for the command line and tournaments: "random", "greedy", "ismcts" (the paired
# search), "ismcts-tree" (the deep tree, SPEC Part 7), and "cmd:<command line>" for an external
# program (async only: wrap any of them with as_async).
#
# Only `random` plays every game (it knows a game through its legal inputs alone); the others
# read Versus's views and search with its engine (the external bot protocol sends Versus views
# too), so they play versus42 only: `make_bot(name, game=...)` says so in one line.
from __future__ import annotations

from .base import Bot, BotError, Budget, UnknownBotError
from .external import ExternalBot, time_ms_of
from .ismcts import IsmctsBot, SearchMode
from .simple import GreedyBot, RandomBot

KNOWN_BOTS = ("random", "greedy", "ismcts", "ismcts-tree", "cmd:<command line>")
#: the bots that play any registered game
GENERIC_BOTS = ("random",)
VERSUS = "versus42"


class UnsupportedGameError(BotError, ValueError):
    """The bot does not play that game (greedy, ismcts and external bots play versus42)."""


def game_problem(name: str, game: str) -> str | None:
    """Why the bot `name` cannot play `game` (a registry id), or None."""
    if game == VERSUS or name in GENERIC_BOTS:
        return None
    if name.startswith("cmd:"):
        return (f"an external bot (cmd:...) plays versus42 only (the external bot protocol "
                f"sends Versus views); bots for {game}: {', '.join(GENERIC_BOTS)}")
    if name in KNOWN_BOTS:
        return f"bot {name!r} plays versus42 only; bots for {game}: {', '.join(GENERIC_BOTS)}"
    return None  # an unknown name: make_bot says so


def make_bot(name: str, *, seed: int | None = None, budget: Budget | None = None,
             game: str = VERSUS) -> Bot | ExternalBot:
    """A new bot for `game` (a registry id). `seed` pins its randomness (None: from
    `secrets`); `budget` bounds the thinking of ismcts and the per-decision time of an external
    bot (its `seconds`). UnsupportedGameError when the bot does not play that game."""
    problem = game_problem(name, game)
    if problem is not None:
        raise UnsupportedGameError(problem)
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    if name == "ismcts":
        return IsmctsBot(seed, budget)
    if name == "ismcts-tree":
        return IsmctsBot(seed, budget, name=name, mode=SearchMode.TREE)
    if name.startswith("cmd:"):
        command = name[4:].strip()
        if not command:
            raise UnknownBotError("bot 'cmd:' needs a command line after the colon")
        return ExternalBot(command, time_ms=time_ms_of(None if budget is None
                                                       else budget.seconds))
    raise UnknownBotError(f"unknown bot {name!r}; known bots: {', '.join(KNOWN_BOTS)}")
