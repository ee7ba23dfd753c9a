# The ISMCTS bot of the grid game (SPEC Part 7, "Bots of the other games", §7.11.9), registered
# as the grid's `ismcts` (Grid.bots, engine/shell.py); the shell gives its generator and clock.
#
# What it sees: exactly its seat's `GridView` and the legal inputs, as the greedy bot
# (bots.py): it rebuilds the same simulation state from the view, in which only the
# identities its seat knows are set. It never reads a hidden identity; it samples them.
#
# How it plays: the paired information-set search of the Versus bot (versus42/bots/ismcts.py,
# "paired mode"; Cowling, Powley and Whitehouse 2012), on the grid engine, with a race. The
# root's children are the CANDIDATES best inputs of greedy's one-ply ranking. An iteration
# samples one world consistent with the view (every card hidden from the bot, in the decks, the
# opponent's hand and its face-down cards, gets a distinct catalogue card the view has not
# shown; each hidden deck gets one draw order) and plays every candidate still in the race in
# that same world: the candidate, then both players play greedy's one-ply choice until
# PLAYOUT_TURNS turns after the current one are over (on its own turn: the opponent's reply and
# its own next turn), and the position reached is scored by greedy's evaluation turned into a
# win probability. Why paired: a world's hidden cards decide much of a position, so comparing
# candidates on different worlds mostly measures the worlds; on one world with one draw order
# (common random numbers) that luck is common to all candidates and cancels out.
# Why the race: from RACE_AFTER worlds on, a candidate whose per-world differences from the
# leader put it RACE_Z standard errors behind (or that equals the leader in every world: the
# same position) stops being played, so the playouts go to the inputs still in question and a
# clear decision ends early; the pairing makes those differences far less noisy than the
# candidates' own values, so a few worlds settle most decisions (a median of 4 at 10
# candidates) and ten candidates cost less than six did without it.
# Why the playout: greedy's static evaluation cannot see what the opponent answers (a placement
# that wins a battle, a trap it walks into, a path to the home base); a played-out reply can.
# Why through its own next turn: greedy's evaluation assumes the opponent moves next (an enemy
# threat on the home base weighs 90, its own 25), so a leaf is scored where that holds; leaves
# at the start of its own turn (one turn fewer) scored worse (SPEC §7.11.9).
# Why the opponent plays blind: the greedy bot it models does not see the bot's hand and
# face-down cards; it answers a reveal of one from a sampled card. An all-seeing opponent in the
# playouts never walks into the bot's face-down trap and never fears a weak card, so the search
# would price the bot's face-down cards wrongly. The opponent's choices in a playout are made on
# the world with those identities removed, a reveal answered from an imagined card (one set
# per world, distinct cards the world does not hold), the move then played in the true world.
#
# A world is a full-information simulation state: the sampled identities are written into the
# state's identity column, so the engine resolves reveals by itself and every choice of either
# player can be simulated; deals follow the world's draw order. Nothing random remains inside a
# playout (ties go to the first best input), so an iteration is a pure function of its world.
#
# Budget: `iterations` playouts per decision (reproducible given the seed, the default: 96) and/or
# `seconds` (for play); a world once started is played by every candidate in the race, so the
# count may pass the budget by one world's; a round cut by the deadline is dropped whole, the
# first always completes. When the view cannot be rebuilt, greedy's fallback answers.
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import EngineError
from ..shell import BotRequest, Budget, paired_race
from ..shell import win_probability as shell_win_probability
from .bots import GridGreedyBot, Unbuildable, _known_kind, _Sim, evaluate, rebuild
from .cards import Kind
from .notation import GridInput, Verb, answer_input
from .state import Dec, GridState, Zone, deck_range, legal_actions, step
from .views import GridView

DEFAULT_BUDGET = Budget(iterations=96, seconds=None)  # playouts a decision, no clock
CANDIDATES = 10  # the root inputs searched, greedy's best first
RACE_Z = 1.5  # a candidate leaves the race this many standard errors behind the leader
RACE_AFTER = 4  # worlds every candidate plays before the race drops any
PLAYOUT_TURNS = 2  # a playout ends when this many turns after the root's are over
PLAYOUT_DECISIONS = 40  # hard cap on one playout's decisions
PRIOR_WORLDS = 4  # worlds greedy's one-ply ranking of the root averages over
SCALE = 40.0  # evaluation points per logistic unit of the win probability


@dataclass(frozen=True, slots=True)
class World:
    """One sampled completion of the view: the full-information state and each hidden deck's
    draw order."""

    state: GridState
    orders: tuple[tuple[int, ...], ...]


def win_probability(score: float) -> float:
    return shell_win_probability(score, SCALE)


class GridIsmctsBot:
    """Paired information-set search for the grid game (see the module note)."""

    cheap = False

    def __init__(self, rng: Any, clock: Callable[[], float], budget: Budget | None = None,
                 name: str = "ismcts", candidates: int = CANDIDATES,
                 playout_turns: int = PLAYOUT_TURNS, prior_worlds: int = PRIOR_WORLDS,
                 race_z: float = RACE_Z, race_after: int = RACE_AFTER,
                 blind_opponent: bool = True) -> None:
        if candidates < 1 or playout_turns < 0 or prior_worlds < 1 or race_after < 2 \
                or race_z < 0:
            raise ValueError(f"grid ismcts needs candidates >= 1, playout_turns >= 0, "
                             f"prior_worlds >= 1, race_after >= 2 and race_z >= 0, got "
                             f"{candidates}, {playout_turns}, {prior_worlds}, {race_after}, "
                             f"{race_z}")
        self.name = name
        self.budget = budget or DEFAULT_BUDGET
        self.candidates, self.playout_turns = candidates, playout_turns
        self.race_z, self.race_after = race_z, race_after
        self.blind_opponent = blind_opponent
        self.rng, self.clock = rng, clock
        # greedy ranks the root and answers when the view cannot be rebuilt; one generator
        self.greedy = GridGreedyBot(rng, worlds=prior_worlds, name=name)
        self.last_iterations = 0  # playouts of the last decision (for the benchmark)
        self.last_worlds = 0

    def choose(self, view: GridView, legal: Sequence[GridInput]) -> GridInput:
        if not legal:
            raise ValueError("ismcts: no legal input to choose from")
        legal = list(legal)
        self.last_iterations = self.last_worlds = 0
        if len(legal) == 1:
            return legal[0]
        deadline = None if self.budget.seconds is None else \
            self.clock() + self.budget.seconds
        try:
            s = rebuild(view, legal)
            ranked = self.rank(s, view, legal)
        except Unbuildable:
            return self.greedy.choose(view, legal)
        if len(ranked) == 1:
            return ranked[0]
        try:
            totals = self.search(s, view, ranked, deadline)
        except (EngineError, AssertionError):  # a world the rebuilt state misjudged
            return ranked[0]
        best = max(range(len(ranked)), key=lambda i: (totals[i], -i))
        return ranked[best]

    def rank(self, s: GridState, view: GridView, legal: list[GridInput]) -> list[GridInput]:
        """The CANDIDATES best inputs by greedy's one-ply score (common worlds), best first;
        a trap or item placed face up (wasted) only if nothing else is legal."""
        worlds = self.greedy.sample_worlds(s, view)
        scored = []
        for i, action in enumerate(legal):
            if action.verb is Verb.PLACE and action.up and _known_kind(s, action.handle) \
                    not in (None, Kind.CHARACTER):
                continue
            scored.append((-self.greedy.score(s, action, worlds), i, action))
        if not scored:
            return legal[:1]
        scored.sort(key=lambda t: (t[0], t[1]))
        return [a for _, _, a in scored[:self.candidates]]

    def search(self, s: GridState, view: GridView, candidates: list[GridInput],
               deadline: float | None) -> list[float]:
        """Each candidate's total win probability over the worlds it played (paired); a
        candidate that left the race scores -inf."""
        me = view.player
        last_turn = s.turn + self.playout_turns

        def sample() -> tuple[World, dict[int, str] | None]:
            world = self.sample_world(s, view)
            return world, self.imagine(world.state, me) if self.blind_opponent else None

        def play(sampled: tuple[World, dict[int, str] | None], i: int) -> float:
            world, imagined = sampled
            return playout(step(world.state, candidates[i]), world.orders, me, last_turn,
                           imagined)

        found = paired_race(len(candidates), sample, play, self.budget, self.race_after,
                            self.race_z, self.clock, deadline)
        self.last_iterations, self.last_worlds = found.playouts, found.worlds
        return found.totals

    def sample_world(self, s: GridState, view: GridView) -> World:
        """Distinct unseen catalogue cards for every hidden handle (with replacement if the
        catalogue runs out), and a random draw order of each hidden deck's cards."""
        rng = self.rng
        hidden = [h for h, i in enumerate(s.ident) if i < 0]
        seen = view.card_ids()
        cat = s.catalogue
        pool = [i for i, c in enumerate(cat.cards) if c.id not in seen]
        picked = rng.sample(pool, min(len(hidden), len(pool)))
        ident = list(s.ident)
        for k, h in enumerate(hidden):
            ident[h] = picked[k] if k < len(picked) else rng.randrange(len(cat.cards))
        orders = []
        for deck in range(1 if s.rules.shared else 2):
            lo, hi = deck_range(s.rules, deck)
            order = [h for h in range(lo, hi) if s.zone[h] == Zone.DECK]
            rng.shuffle(order)
            orders.append(tuple(order))
        return World(replace(s, ident=tuple(ident), _cache={}), tuple(orders))

    def imagine(self, w: GridState, me: int) -> dict[int, str]:
        """What the opponent's greedy answers a reveal of the bot's cards with: distinct
        catalogue cards the world does not hold, for each card of the bot's that the opponent
        does not see (as greedy samples them, §7.11.4)."""
        cat = w.catalogue
        used = set(w.ident)
        spare = [i for i in range(len(cat.cards)) if i not in used]
        mine = [h for h in range(len(w.zone)) if w.zone[h] == Zone.DECK
                or (w.ctrl[h] == me and not w.up[h] and w.zone[h] in (Zone.HAND, Zone.GRID))]
        picked = self.rng.sample(spare, min(len(mine), len(spare)))
        return {h: cat.cards[picked[k] if k < len(picked)
                             else self.rng.randrange(len(cat.cards))].id
                for k, h in enumerate(mine)}


_DECK, _HAND, _GRID = int(Zone.DECK), int(Zone.HAND), int(Zone.GRID)


def policy(s: GridState, player: int, imagined: dict[int, str] | None = None) -> GridInput:
    """Greedy's one-ply choice for `player` in a full-information state: the first best.
    With `imagined`: as greedy chooses it, blind to the cards of the other seat it does not
    see, which a reveal answers from `imagined`."""
    legal = legal_actions(s)
    if len(legal) == 1:
        return legal[0]
    world: dict[int, str] = {}
    if imagined is not None:
        zone, ctrl, up = s.zone, s.ctrl, s.up
        ident = list(s.ident)
        for h, z in enumerate(zone):
            if z == _DECK or (ctrl[h] != player and not up[h] and z in (_HAND, _GRID)):
                ident[h] = -1
        s = replace(s, ident=tuple(ident), _cache={})
        world = imagined
    best, best_score = legal[0], -math.inf
    for action in legal:
        if action.verb is Verb.PLACE and action.up and _known_kind(s, action.handle) \
                is not Kind.CHARACTER:
            continue  # wasted (§9.1.10): every identity is known in a world
        score = _Sim(player, world).value(step(s, action))
        if score > best_score:
            best, best_score = action, score
    return best


def playout(s: GridState, orders: tuple[tuple[int, ...], ...], me: int,
            last_turn: int, imagined: dict[int, str] | None = None) -> float:
    """Both players play greedy's choice in the world until `last_turn` is over (at most
    PLAYOUT_DECISIONS inputs); the win probability of the position reached, for `me`."""
    for _ in range(PLAYOUT_DECISIONS):
        if s.finished or s.turn > last_turn:
            break
        d = s.decision
        code = d[0]
        if code == Dec.DEAL:
            zone = s.zone
            h = next(h for h in orders[d[2]] if zone[h] == Zone.DECK)
            s = step(s, answer_input(h))  # built once per value
        elif code in (Dec.TURN, Dec.WINDOW, Dec.ORDER, Dec.TARGET):
            s = step(s, policy(s, d[1], imagined if d[1] != me else None))
        elif code == Dec.DUEL:
            s = step(s, legal_actions(s)[0])
        else:
            break  # no reveal or coin in a world (every identity is set, the coin is past)
    if s.finished:
        winner = s.result[1]
        return 0.5 if winner < 0 else float(winner == me)
    return win_probability(evaluate(s, me))


def ismcts_bot(request: BotRequest) -> GridIsmctsBot:
    """The grid's `ismcts` (Grid.bots): the name's `iterations=` (playouts) and/or `time=` are
    its whole budget (no implicit 0.5 s beside an iteration count, so a measurement
    reproduces); without them the caller's budget, else DEFAULT_BUDGET (96 playouts)."""
    budget = request.given or request.budget or DEFAULT_BUDGET
    return GridIsmctsBot(request.rng, request.clock, budget, name=request.name)


__all__ = ["DEFAULT_BUDGET", "GridIsmctsBot", "ismcts_bot", "playout", "policy"]
