# Versus's `greedy` bot (SPEC Part 7): one ply. It applies each legal action to a few
# determinized worlds (hidden cards sampled from what its view allows, worlds.py), lets the
# Deals and Reveals that follow resolve from the sample, scores the result with the static
# evaluation (evaluate.py) and plays the best average; ties go to a random one of the best.
# Every action is tried on the same worlds and the same chance seeds (common random numbers:
# each seed replayed by a new generator, `seeded`), so the comparison between actions is not
# drowned in sampling noise.
#
# Randomness is the shell's: the bot's generator and its `seeded` (engine/shell.py BotRequest),
# seeded from `secrets` or a given seed for reproducible tests and benchmarks; a bot's choices
# are not a secret of the protocol.
from __future__ import annotations

from collections.abc import Sequence

from ...shell import BotRequest
from ..actions import Action
from ..decisions import DealDecision, RevealDecision
from ..game import State, step
from ..views import PlayerView
from .evaluate import evaluate
from .worlds import Rng, Seeded, determinize, public_state, resolve_chance


def seeded_of(request: BotRequest) -> Seeded:
    """The request's `seeded` generators (the bots of this package need them)."""
    if request.seeded is None:
        raise ValueError(f"bot {request.name!r}: its request has no seeded generators")
    return request.seeded


def greedy_bot(request: BotRequest) -> GreedyBot:
    """Versus's `greedy` (Versus42.bots, engine/shell.py)."""
    return GreedyBot(request.rng, seeded_of(request), name=request.name)


class GreedyBot:
    """One-ply search over `worlds` determinizations with the static evaluation. `rng`: its
    draws (the worlds, the ties); `seeded`: a new generator per chance seed."""

    cheap = False

    def __init__(self, rng: Rng, seeded: Seeded, worlds: int = 3, name: str = "greedy") -> None:
        if worlds < 1:
            raise ValueError(f"greedy needs at least one world, got {worlds}")
        self.name = name
        self.worlds = worlds
        self.rng, self.seeded = rng, seeded

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        state = public_state(view)
        samples = [(determinize(view, self.rng), self.rng.getrandbits(32))
                   for _ in range(self.worlds)]
        best, _ = best_actions(state, legal, samples, view.player, self.seeded)
        return best[self.rng.randrange(len(best))]


def best_actions(state: State, actions: Sequence[Action],
                 samples: Sequence[tuple[Sequence[str], int]],
                 player: int, seeded: Seeded) -> tuple[list[Action], float]:
    """The actions whose evaluation for `player` one step ahead, summed over `samples` (a world
    and the seed that answers its chance), is best (all of them on a tie), and that sum. Every
    action meets the same worlds and seeds: common random numbers, so the comparison is not
    drowned in sampling noise. Greedy's choice, and the tree mode's."""
    best: list[Action] = []
    best_score = float("-inf")
    for action in actions:
        after = step(state, action)
        total = 0.0
        # a generator is seeded only where chance follows (seeding costs as much as a step)
        chance = isinstance(after.pending, (DealDecision, RevealDecision))
        for ids, chance_seed in samples:
            world = resolve_chance(after, ids, seeded(chance_seed)) if chance else after
            total += evaluate(world, ids, player)
        if total > best_score + 1e-9:
            best, best_score = [action], total
        elif total > best_score - 1e-9:
            best.append(action)
    return best, best_score
