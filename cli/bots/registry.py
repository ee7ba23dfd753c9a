# Bots by name, for the command line and tournaments: "random", "greedy", "ismcts" (the paired
# search), "ismcts-tree" (the deep tree, SPEC Part 7), and "cmd:<command line>" for an external
# program (async only: wrap any of them with as_async).
from __future__ import annotations

from .base import Bot, Budget, UnknownBotError
from .external import ExternalBot, time_ms_of
from .ismcts import IsmctsBot, SearchMode
from .simple import GreedyBot, RandomBot

KNOWN_BOTS = ("random", "greedy", "ismcts", "ismcts-tree", "cmd:<command line>")


def make_bot(name: str, *, seed: int | None = None,
             budget: Budget | None = None) -> Bot | ExternalBot:
    """A new bot. `seed` pins its randomness (None: from `secrets`); `budget` bounds the
    thinking of ismcts and the per-decision time of an external bot (its `seconds`)."""
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
