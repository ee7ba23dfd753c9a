# The one bot of every game, `random`: a uniformly random legal input (it reads nothing but
# the legal inputs the Game interface lists, never the view). A game's own bots live in the
# game's package (engine/shell.py `bots`).
#
# Bot randomness is `random.Random` seeded from `secrets` (or a given seed for reproducible
# tests and benchmarks): a bot's choices are not a secret of the protocol. `bot_rng` makes
# every bot's generator, a game's bots' too (BotRequest.rng, .seeded).
from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any


def bot_rng(seed: int | None) -> random.Random:
    return random.Random(secrets.randbits(64) if seed is None else seed)


class RandomBot:
    """A uniformly random legal input of any game: one of `legal` (the game's
    `legal_actions`, in its order), drawn from a `random.Random` seeded with `seed` (None: a
    seed from `secrets`); the view is not read."""

    cheap = True

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self.rng = bot_rng(seed)

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        if not legal:
            raise ValueError("random: no legal input to choose from")
        return legal[self.rng.randrange(len(legal))]
