# The two simple bots. `random`: a uniformly random legal input, of any game (it reads nothing
# but the legal inputs the Game interface lists, never the view). `greedy` (Versus): one ply:
# it applies each legal action to a few determinized worlds (hidden cards sampled from what its
# view allows, worlds.py), lets the Deals and Reveals that follow resolve from the sample,
# scores the result with the static evaluation (evaluate.py) and plays the best average; ties
# go to a random one of the best. Every action is tried on the same worlds (common random
# numbers), so the comparison between actions is not drowned in sampling noise.
#
# Bot randomness is `random.Random` seeded from `secrets` (or a given seed for reproducible
# tests and benchmarks): a bot's choices are not a secret of the protocol.
from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from typing import Any

from versus.engine.versus42 import Action, PlayerView, State, step

from .evaluate import evaluate
from .worlds import determinize, public_state, resolve_chance


def versus_greedy(request: Any) -> GreedyBot:
    """Versus's `greedy` (its game's `bots`, engine/shell.py)."""
    return GreedyBot(request.seed)


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


class GreedyBot:
    """One-ply search over `worlds` determinizations with the static evaluation."""

    cheap = False

    def __init__(self, seed: int | None = None, worlds: int = 3, name: str = "greedy") -> None:
        if worlds < 1:
            raise ValueError(f"greedy needs at least one world, got {worlds}")
        self.name = name
        self.worlds = worlds
        self.rng = bot_rng(seed)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        state = public_state(view)
        samples = [(determinize(view, self.rng), self.rng.getrandbits(32))
                   for _ in range(self.worlds)]
        best, _ = best_actions(state, legal, samples, view.player)
        return best[self.rng.randrange(len(best))]


def best_actions(state: State, actions: Sequence[Action],
                 samples: Sequence[tuple[Sequence[str], int]],
                 player: int) -> tuple[list[Action], float]:
    """The actions whose evaluation for `player` one step ahead, summed over `samples` (a world
    and the seed that answers its chance), is best (all of them on a tie), and that sum. Every
    action meets the same worlds and seeds: common random numbers, so the comparison is not
    drowned in sampling noise. Greedy's choice, and the ismcts playout policy's."""
    best: list[Action] = []
    best_score = float("-inf")
    for action in actions:
        after = step(state, action)
        total = 0.0
        for ids, chance_seed in samples:
            world = resolve_chance(after, ids, random.Random(chance_seed))
            total += evaluate(world, ids, player)
        if total > best_score + 1e-9:
            best, best_score = [action], total
        elif total > best_score - 1e-9:
            best.append(action)
    return best, best_score
