# Bots: players that receive exactly what a person gets (a PlayerView and the legal actions).
# SPEC Part 7 documents the bots, their evaluation and the external bot protocol.
from .base import AsyncPlayer, Bot, BotError, BotForfeit, Budget, UnknownBotError, as_async
from .evaluate import evaluate, win_probability
from .external import ExternalBot
from .ismcts import IsmctsBot
from .match import play_match
from .registry import GENERIC_BOTS, KNOWN_BOTS, UnsupportedGameError, game_problem, make_bot
from .simple import GreedyBot, RandomBot
from .worlds import Determinizer, determinize, hidden_handles, public_state, unseen_cards

__all__ = [
    "GENERIC_BOTS", "KNOWN_BOTS", "AsyncPlayer", "Bot", "BotError", "BotForfeit", "Budget",
    "Determinizer", "ExternalBot", "GreedyBot", "IsmctsBot", "RandomBot", "UnknownBotError",
    "UnsupportedGameError", "as_async", "determinize", "evaluate", "game_problem",
    "hidden_handles", "make_bot", "play_match", "public_state", "unseen_cards",
    "win_probability",
]
