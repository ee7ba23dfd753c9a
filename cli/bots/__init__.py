# Bots: players that receive exactly what a person gets (their seat's view and the legal
# inputs). Here the shell's part, which names no game: the registry of bot kinds by name
# (registry.py), the `random` bot of every game (simple.py), external bots (external.py, run in
# a sandbox: sandbox.py) and local matches (match.py). A game's own bots live in its package
# (engine/shell.py `bots`). SPEC Part 7 documents the bots and the external bot protocol.
from .base import AsyncPlayer, Bot, BotError, BotForfeit, Budget, UnknownBotError, as_async
from .external import ExternalBot
from .match import play_match
from .registry import GENERIC_BOTS, KNOWN_BOTS, UnsupportedGameError, game_problem, make_bot
from .simple import RandomBot

__all__ = [
    "GENERIC_BOTS", "KNOWN_BOTS", "AsyncPlayer", "Bot", "BotError", "BotForfeit", "Budget",
    "ExternalBot", "RandomBot", "UnknownBotError", "UnsupportedGameError", "as_async",
    "game_problem", "make_bot", "play_match",
]
