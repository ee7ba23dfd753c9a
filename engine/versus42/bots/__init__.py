# Versus's own bots (SPEC Part 7), registered by the game (Versus42.bots, engine/shell.py):
# `greedy` (greedy.py, one ply over sampled worlds), `ismcts` and `ismcts-tree` (ismcts.py, the
# paired search and the deep tree), on the static evaluation (evaluate.py) and the sampling of
# worlds a view allows (worlds.py). They live in the game's package because they simulate with
# the game's own state; the shell (cli/bots/) makes them by name and knows no game.
#
# A bot is a player like a person: it gets its seat's `PlayerView` and the legal actions,
# nothing more (the public state behind the view holds no hidden identity). Its randomness and
# clock are the shell's (BotRequest.rng, .seeded, .clock): the engine imports neither `random`
# nor a clock.
from __future__ import annotations

from .evaluate import evaluate, win_probability
from .greedy import GreedyBot, best_actions, greedy_bot
from .ismcts import IsmctsBot, SearchMode, paired_bot, tree_bot
from .worlds import Determinizer, determinize, hidden_handles, public_state, unseen_cards

__all__ = [
    "Determinizer", "GreedyBot", "IsmctsBot", "SearchMode", "best_actions", "determinize",
    "evaluate", "greedy_bot", "hidden_handles", "paired_bot", "public_state", "tree_bot",
    "unseen_cards", "win_probability",
]
