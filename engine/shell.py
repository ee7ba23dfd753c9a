# What a game adds to the shell, through the registry (ARCHITECTURE "A game describes, the shell
# draws"). The shell (cli/, bench/) never names a game: what it needs beyond the Game interface
# it asks the game object for, by these optional members:
#
#   bots            {bot name: "module:factory"}: the game's own bots (`greedy`, `ismcts`, ...),
#                   each made by `factory(BotRequest)`; imported when asked for, so a game's
#                   bots load only when one plays. A bot is a player like a person: it gets its
#                   seat's view and the legal inputs (what it simulates inside is the game's
#                   own business, so the game's package holds it).
#   describe_view   view -> text: the view drawn for the line terminal.
#   local_deal      (rules, catalogue, seed) -> (card id per handle, deal orders): the deal of
#                   a local full-information game (engine/referee_loop.py).
#   check_positions () -> {name: (state, seat, knowledge)}: positions presenting the decisions
#                   random play reaches rarely, for `versus bot-check` (without it, bot-check
#                   finds each kind of decision in seeded random games).
#   solo            True for a one-seat game (a solo run instead of a match).
#
# Randomness and time enter a bot as explicit inputs (`BotRequest.rng`, `.seeded`, `.clock`):
# the engine imports neither `random` nor a clock; the shell seeds the generators and gives the
# clock (cli/bots/registry.py `bot_request`).
from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a searching bot may think per decision: at most `iterations` simulations and
    at most `seconds` of wall-clock time (either may be None for no limit of that kind)."""

    iterations: int | None = None
    seconds: float | None = 0.5

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise ValueError("a budget needs iterations, seconds or both")
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(f"budget iterations must be >= 1, got {self.iterations}")
        if self.seconds is not None and not 0 < self.seconds <= 3600:
            raise ValueError(f"budget seconds must be in (0, 3600], got {self.seconds}")


@dataclass(frozen=True)
class BotRequest:
    """What a game's bot factory is given. `rng`: the bot's seeded generator (randrange,
    sample, choice, shuffle, getrandbits); `budget`: the caller's budget with the bot name's
    options applied (None: the bot's default); `given`: the budget of the bot name's own
    options only (`time=`, `iterations=`), None without them; `clock`: seconds, for a
    deadline; `name`: the bot's name; `seed`: what `rng` was seeded with; `seeded(n)`: a new
    generator of `rng`'s kind seeded with the integer n, so that one n replays the same draws
    (a bot that meets several candidates with the same luck, common random numbers)."""

    rng: Any
    budget: Budget | None
    given: Budget | None
    clock: Callable[[], float]
    name: str
    seed: int | None = None  # what `rng` was seeded with (None: from `secrets`)
    seeded: Callable[[int], Any] | None = None  # None: the caller gives no such generators


def win_probability(score: float, scale: float) -> float:
    """A searching bot's evaluation `score` as a win probability: the logistic of score /
    scale (`scale`: the game's evaluation points per logistic unit), clamped against
    overflow."""
    x = max(-60.0, min(60.0, score / scale))
    return 1.0 / (1.0 + math.exp(-x))


def prune(alive: list[int], rows: list[list[float]], totals: list[float], z: float
          ) -> list[int]:
    """The candidates left in a paired search's race (a game's `ismcts` that plays every
    candidate in the same sampled worlds): `rows[i]` holds candidate i's value in each world
    every candidate in `alive` played, `totals[i]` their sum. A candidate whose paired
    differences from the leader (the best total, the better ranked on a tie) are worse by more
    than z standard errors, or equal in every world, leaves."""
    lead = max(alive, key=lambda i: (totals[i], -i))
    best = rows[lead]
    n = len(best)
    kept = []
    for i in alive:
        if i == lead:
            kept.append(i)
            continue
        d = [a - b for a, b in zip(best, rows[i], strict=True)]
        mean = sum(d) / n
        var = sum((x - mean) ** 2 for x in d) / (n - 1)
        if var == 0.0 and mean >= 0.0:
            continue
        if mean > z * math.sqrt(var / n):
            continue
        kept.append(i)
    return kept


@dataclass(frozen=True, slots=True)
class RaceResult:
    """What `paired_race` found: each candidate's total over the worlds it played (-inf for
    one that left the race), the playouts and the worlds played."""

    totals: list[float]
    playouts: int
    worlds: int


def paired_race(count: int, sample: Callable[[], Any], play: Callable[[Any, int], float],
                budget: Budget, race_after: int, race_z: float,
                clock: Callable[[], float], deadline: float | None) -> RaceResult:
    """The search loop of a game's paired `ismcts`: each round samples one world (`sample()`)
    and plays every candidate still in the race in it (`play(world, i)`, a win probability);
    from `race_after` worlds on, `prune` drops the clearly worse. It stops when one candidate
    is left, after `budget.iterations` playouts (the world that reaches the count completes), or
    at `deadline` by `clock` (a round cut by it is dropped whole; the first always completes)."""
    playouts = budget.iterations
    totals = [0.0] * count
    rows: list[list[float]] = [[] for _ in range(count)]
    alive = list(range(count))
    done = spent = 0
    while True:
        world = sample()
        values = []
        for i in alive:
            values.append(play(world, i))
            if done and deadline is not None and clock() >= deadline:
                break
        if len(values) < len(alive):
            break  # a round cut by the deadline is dropped whole
        for i, v in zip(alive, values, strict=True):
            totals[i] += v
            rows[i].append(v)
        done += 1
        spent += len(alive)
        if done >= race_after:
            alive = prune(alive, rows, totals, race_z)
        if (len(alive) == 1 or (playouts is not None and spent >= playouts)
                or (deadline is not None and clock() >= deadline)):
            break
    return RaceResult([t if i in alive else -math.inf for i, t in enumerate(totals)],
                      spent, done)


def game_bots(game: Any) -> tuple[str, ...]:
    """The names of the bots `game` registers, in its order."""
    return tuple(getattr(game, "bots", None) or ())


def bot_factory(game: Any, name: str) -> Callable[[BotRequest], Any]:
    """The factory of `game`'s bot `name` (KeyError when the game has none of that name)."""
    where = (getattr(game, "bots", None) or {})[name]
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)  # type: ignore[no-any-return]


def is_solo(game: Any) -> bool:
    """Whether `game` is played by one seat (its `solo` member, else one player)."""
    return bool(getattr(game, "solo", game.players == 1))
