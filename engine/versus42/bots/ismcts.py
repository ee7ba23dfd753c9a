# Information-set Monte Carlo search (ISMCTS; Cowling, Powley and Whitehouse, "Information Set
# Monte Carlo Tree Search", IEEE TCIAIG 2012), in two modes (SPEC Part 7).
#
# Paired mode (the default). The root's children are the CANDIDATES best actions of greedy's
# one-ply ranking (evaluate.py over PRIOR_WORLDS sampled worlds). An iteration samples one world
# consistent with the bot's view (worlds.py: known cards fixed, hidden handles get cards the
# view has not shown, each deck a draw order) and plays *every* candidate in it: after the
# candidate both players play greedy's one-ply choice in that full-information world until
# PLAYOUT_TURNS turns after the current one are over (on the bot's own turn: the rest of it,
# the opponent's reply, the bot's next turn), and the position reached is scored by the
# evaluation's win probability. The bot plays the candidate with the best total.
# Why: in Versus the deal decides most games (SPEC Part 7, "Strength"), so one world's luck
# swamps the difference between two actions. Playing all candidates on the same world (common
# random numbers: the same hidden cards and, through the world's draw orders, the same draws
# however late in the playout) takes that luck out of the comparison; a round cut by the
# deadline is dropped whole to keep it so. With the draws fixed by the world, the position the
# playout's policy scored for an action is the one it plays on: no action is stepped twice and
# no generator is seeded per action (together a fifth of a decision's time). The playout
# lets a candidate be judged by what the opponent can answer with a whole turn (a teleport or
# Copy capture, a Backline Move), which no static term, and no tree that rarely reaches the
# opponent's turn within a second, could see.
# Measured (fourth round, 0.5 s per decision): 73 % against greedy over the 100 games it was
# developed on and 71 % over 200 games on other deals, where the tree mode scored 64-67 %; the
# same playouts at the leaves of the deep tree, without the pairing, scored 64 %. The benchmark
# (400 games at 0.5 s): 71.6 % against greedy (95 % CI 67.0-75.8 %), 200-0 against random.
#
# Tree mode (SearchMode.TREE, bot name "ismcts-tree"): single-observer ISMCTS. The tree is
# over information sets of the bot's own view: a node is reached by a sequence of actions (turn
# actions and choice picks of *both* players; an Action tuple is the edge key), never by hidden
# identities. Each iteration: 1. determinize: sample one world; 2. select/expand down the tree
# in that world: Deals and Reveals are answered by the world, turn and choice decisions are
# tree nodes; a child is scored with UCB1 whose exploration term counts how often the child was
# *available* (legal in the sampled world), the ISMCTS correction for actions that exist in
# some worlds only; 3. evaluate the new leaf by the static evaluation's win probability (or
# after a capped cheap playout); 4. backpropagate: each node keeps the reward of the player
# whose action led to it. Nodes widen progressively (at most WIDEN_C * sqrt(visits + 1)
# children); the root ranks all its actions with greedy's one-ply evaluation first and uses
# that win probability as a progressive bias (BIAS * prior / (visits+1)); deeper nodes add the
# best of EXPAND_SAMPLE sampled untried actions. Three rounds of experiments (SPEC Part 7) left
# it at 56-64 % against greedy whatever its budget, shape or evaluation: past ~25 iterations
# more search did not help, because the leaves' static evaluation cannot see the opponent's
# next turn and each leaf's world luck is not paired.
#
# Randomness and time are the shell's (engine/shell.py BotRequest): the bot's generator, a new
# generator per chance seed (`seeded`, the common random numbers) and the clock of its deadline.
from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence

from ...shell import BotRequest, Budget
from ..actions import Action
from ..game import legal_actions, step
from ..views import PlayerView
from .evaluate import evaluate, win_probability
from .greedy import best_actions, seeded_of
from .worlds import (
    Determinizer,
    Rng,
    Seeded,
    World,
    draw_orders,
    public_state,
    resolve_chance,
    resolve_world,
    sample_world,
)

DEFAULT_BUDGET = Budget(iterations=None, seconds=0.5)
UCB_C = 0.3  # exploration constant (rewards are win probabilities in [0, 1])
BIAS = 1.0  # progressive bias: + BIAS * prior / (visits + 1), prior = one-ply win probability
WIDEN_C = 2.0  # progressive widening: children allowed = WIDEN_C * sqrt(visits + 1)
EXPAND_SAMPLE = 6  # untried actions scored before expanding the best one (unranked nodes)
RANK_AFTER = None  # if set, a node visited this often ranks all its actions once (its world)
PRIOR_WORLDS = 4  # worlds the root's one-ply ranking averages over (common random numbers)
ROLLOUT_SAMPLE = 4  # actions scored per playout decision (tree mode)
ROLLOUT_DECISIONS = 0  # playout length cap in tree mode (0: evaluate the leaf directly)
CANDIDATES = 6  # paired mode: the root actions searched, greedy's best first
PLAYOUT_TURNS = 2  # paired mode: a playout ends when this many turns after the root's are over
PLAYOUT_DECISIONS = 60  # paired mode: hard cap on one playout's decisions


class SearchMode(enum.Enum):
    PAIRED = "paired"  # one-level tree, every candidate played in each world, greedy playouts
    TREE = "tree"  # deep SO-ISMCTS tree with progressive widening, static evaluation at leaves


class Node:
    __slots__ = ("avail", "children", "order", "player", "prior", "total", "visits")

    def __init__(self, player: int, prior: float = 0.5) -> None:
        self.player = player  # who chose the action leading here (the reward is theirs)
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.prior = prior  # one-ply win probability of the action leading here, for `player`
        # the actions ranked best first with their priors, once the node is worth it
        self.order: list[tuple[Action, float]] | None = None


class IsmctsBot:
    """Information-set Monte Carlo search within a per-decision budget (iterations and/or
    seconds), in the paired mode (default) or the tree mode. `candidates` and
    `playout_turns` tune the paired mode only; `rollout_decisions`, `ucb_c`, `bias`,
    `rank_after` and `turn_end` the tree mode only; `prior_worlds` both. `rng`: its draws;
    `seeded`: a new generator per chance seed; `clock`: seconds, for the deadline."""

    cheap = False

    def __init__(self, rng: Rng, seeded: Seeded, clock: Callable[[], float],
                 budget: Budget | None = None, name: str = "ismcts",
                 rollout_decisions: int = ROLLOUT_DECISIONS, ucb_c: float = UCB_C,
                 bias: float = BIAS, rank_after: int | None = RANK_AFTER,
                 prior_worlds: int = PRIOR_WORLDS, turn_end: bool = False,
                 mode: SearchMode = SearchMode.PAIRED, candidates: int = CANDIDATES,
                 playout_turns: int = PLAYOUT_TURNS) -> None:
        if candidates < 1 or playout_turns < 0:
            raise ValueError(f"ismcts needs candidates >= 1 and playout_turns >= 0, got "
                             f"{candidates} and {playout_turns}")
        self.name = name
        self.mode, self.candidates, self.playout_turns = mode, candidates, playout_turns
        self.budget = budget or DEFAULT_BUDGET
        self.rng, self.seeded, self.clock = rng, seeded, clock
        self.rollout_decisions = rollout_decisions
        self.ucb_c, self.bias, self.rank_after = ucb_c, bias, rank_after
        self.prior_worlds = prior_worlds
        self.turn_end = turn_end
        self.last_iterations = 0  # of the last decision (for the benchmark)

    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        root = self.search(view)
        allowed = set(legal)
        # the most visited child, then the best total; in paired mode every candidate has the
        # same visits, and a tie in total goes to the earlier (better ranked) candidate
        best = max((c.visits, c.total, -i, a)
                   for i, (a, c) in enumerate(root.children.items()) if a in allowed)
        return best[3]

    def search(self, view: PlayerView) -> Node:
        """Run the search from `view`'s decision; the root's children are its statistics."""
        if self.mode is SearchMode.PAIRED:
            return self._search_paired(view)
        rng = self.rng
        worlds = Determinizer(view)
        state0 = public_state(view)
        root = Node(1 - view.player)
        iterations, seconds = self.budget.iterations, self.budget.seconds
        deadline = None if seconds is None else self.clock() + seconds
        if self.prior_worlds > 0:
            root.order = _ranked(state0, legal_actions(state0),
                                 [sample_world(worlds, state0, rng)
                                  for _ in range(self.prior_worlds)], view.player)
        done = 0
        while True:
            self._iterate(root, state0, worlds.sample(rng), rng)
            done += 1
            if iterations is not None and done >= iterations:
                break
            if deadline is not None and self.clock() >= deadline:
                break
        self.last_iterations = done
        return root

    def _search_paired(self, view: PlayerView) -> Node:
        """The one-level search: the root's children are greedy's `candidates` best actions;
        each iteration samples one world and plays every candidate in it with the same chance
        seed (common random numbers), so candidates are compared on identical luck; a round
        cut by the deadline is dropped whole, keeping the comparison paired."""
        rng = self.rng
        iterations, seconds = self.budget.iterations, self.budget.seconds
        deadline = None if seconds is None else self.clock() + seconds
        worlds = Determinizer(view)
        state0 = public_state(view)
        me = view.player
        root = Node(1 - me)
        # the candidates are the ranking's head, so this mode needs one (tree mode may skip it)
        root.order = _ranked(state0, legal_actions(state0),
                             [sample_world(worlds, state0, rng)
                              for _ in range(max(1, self.prior_worlds))], me)
        for a, prior in root.order[:self.candidates]:
            root.children[a] = Node(me, prior)
        last_turn = state0.turn + self.playout_turns
        candidates, nodes = list(root.children), list(root.children.values())
        done = 0
        while len(candidates) > 1:
            # the first round always completes: a searched decision has one iteration or more
            values = self._paired_round(state0, candidates, worlds, me, last_turn,
                                        deadline if done else None)
            if values is None:
                break
            for child, value in zip(nodes, values, strict=True):
                child.visits += 1
                child.total += value
            root.visits += 1
            done += 1
            if ((iterations is not None and done >= iterations)
                    or (deadline is not None and self.clock() >= deadline)):
                break
        self.last_iterations = done
        return root

    def _paired_round(self, state0, candidates: list[Action],  # type: ignore[no-untyped-def]
                      worlds: Determinizer, me: int, last_turn: int,
                      deadline: float | None) -> list[float] | None:
        """Every candidate's playout value in one sampled world (its cards and draw orders),
        or None if the deadline passed before the round was complete."""
        rng = self.rng
        world, seed = sample_world(worlds, state0, rng), rng.getrandbits(64)
        values = []
        for a in candidates:
            after = resolve_world(step(state0, a), world)
            # one tie-breaking stream per round, the same for every candidate
            values.append(_playout_value(after, world, self.seeded(seed), me, last_turn))
            if deadline is not None and self.clock() >= deadline:
                return None if len(values) < len(candidates) else values
        return values

    def _iterate(self, root: Node, state, ids: list[str], rng: Rng) -> None:  # type: ignore[no-untyped-def]
        node = root
        path = [root]
        while state.result is None:
            legal = legal_actions(state)
            mover = state.pending.player
            children = node.children
            available = [a for a in legal if a in children]
            for a in available:
                children[a].avail += 1
            limit = WIDEN_C * math.sqrt(node.visits + 1)
            if len(available) < len(legal) and len(available) < limit:
                if (node.order is None and self.rank_after is not None
                        and node.visits >= self.rank_after):
                    node.order = _ranked(state, legal, [World(ids, draw_orders(state, rng))],
                                         mover)
                action, prior = self._expand_choice(node, state, legal, ids, rng, mover)
                child = children[action] = Node(mover, prior)
                child.avail = 1
                state = resolve_chance(step(state, action), ids, rng)
                path.append(child)
                break
            action = self._select(node, available)
            node = children[action]
            state = resolve_chance(step(state, action), ids, rng)
            path.append(node)
        value0 = self._leaf_value(state, ids, rng)
        root.visits += 1
        for n in path[1:]:
            n.visits += 1
            n.total += value0 if n.player == 0 else 1.0 - value0

    def _select(self, node: Node, available: list[Action]) -> Action:
        children = node.children
        c_ucb, bias = self.ucb_c, self.bias
        best, best_score = available[0], -1.0
        for a in available:
            c = children[a]
            score = (c.total / c.visits + c_ucb * math.sqrt(math.log(c.avail) / c.visits)
                     + bias * c.prior / (c.visits + 1))
            if score > best_score:
                best, best_score = a, score
        return best

    def _expand_choice(self, node: Node, state, legal: list[Action],  # type: ignore[no-untyped-def]
                       ids: list[str], rng: Rng, mover: int) -> tuple[Action, float]:
        children = node.children
        if node.order is not None:
            legal_set = set(legal)
            for a, prior in node.order:
                if a not in children and a in legal_set:
                    return a, prior
        untried = [a for a in legal if a not in children]
        if len(untried) > EXPAND_SAMPLE:
            untried = rng.sample(untried, EXPAND_SAMPLE)
        return _best_of(state, untried, ids, rng, mover, self.seeded)

    def _leaf_value(self, state, ids: list[str], rng: Rng) -> float:  # type: ignore[no-untyped-def]
        last_turn = state.turn if self.turn_end else math.inf
        state = _playout(state, ids, rng, last_turn, self.rollout_decisions, self.seeded,
                         ROLLOUT_SAMPLE)
        return win_probability(evaluate(state, ids, 0))


def _best_of(state, actions: Sequence[Action], ids: list[str], rng: Rng,  # type: ignore[no-untyped-def]
             player: int, seeded: Seeded) -> tuple[Action, float]:
    """The action with the best static evaluation for `player` one step ahead in this world
    (ties to a random one of the best), with that evaluation as a win probability."""
    best, best_score = best_actions(state, actions, [(ids, rng.getrandbits(32))], player,
                                    seeded)
    # no draw without a tie, so tree mode's random stream is what it was before ties were broken
    pick = best[0] if len(best) == 1 else best[rng.randrange(len(best))]
    return pick, win_probability(best_score)


def _playout(state, ids: list[str], rng: Rng, last_turn: float,  # type: ignore[no-untyped-def]
             max_decisions: int, seeded: Seeded, sample: int | None = None):
    """Both players play the one-ply best action in this (full-information) world, among all
    their legal actions or a random `sample` of them, until turn `last_turn` is over, the game
    ends or `max_decisions` have been played; the position reached."""
    decisions = 0
    while state.result is None and state.turn <= last_turn and decisions < max_decisions:
        legal = legal_actions(state)
        if sample is not None and len(legal) > sample:
            legal = rng.sample(legal, sample)
        action = _best_of(state, legal, ids, rng, state.pending.player, seeded)[0]
        state = resolve_chance(step(state, action), ids, rng)
        decisions += 1
    return state


def _playout_value(state, world: World, rng: Rng, me: int,  # type: ignore[no-untyped-def]
                   last_turn: int) -> float:
    """The paired mode's playout: greedy's choice for both players in `world` through
    `last_turn` (at most PLAYOUT_DECISIONS; `rng` breaks greedy's ties); the win probability
    of the position reached, for `me`."""
    decisions = 0
    ids = world.ids
    while state.result is None and state.turn <= last_turn and decisions < PLAYOUT_DECISIONS:
        state = _greedy_step(state, world, rng)
        decisions += 1
    return win_probability(evaluate(state, ids, me))


def _greedy_step(state, world: World, rng: Rng):  # type: ignore[no-untyped-def]
    """The position after greedy's one-ply choice for the player to act in `world` (ties to
    an `rng` pick among the best). The world fixes every draw, so the position each action
    was scored on is the one played on: no action is stepped twice."""
    legal = legal_actions(state)
    if len(legal) == 1:
        return resolve_world(step(state, legal[0]), world)
    ids, player = world.ids, state.pending.player
    best: list = []  # type: ignore[type-arg]
    best_score = -math.inf
    for action in legal:
        after = resolve_world(step(state, action), world)
        score = evaluate(after, ids, player)
        if score > best_score + 1e-9:
            best, best_score = [after], score
        elif score > best_score - 1e-9:
            best.append(after)
    return best[0] if len(best) == 1 else best[rng.randrange(len(best))]


def _ranked(state, actions: Sequence[Action], worlds: list[World],  # type: ignore[no-untyped-def]
            player: int) -> list[tuple[Action, float]]:
    """Every action with its one-ply win probability for `player` averaged over `worlds`
    (the greedy bot's ranking, the same worlds and draws for every action), best first."""
    scored = []
    for i, a in enumerate(actions):
        after = step(state, a)
        total = 0.0
        for world in worlds:
            total += evaluate(resolve_world(after, world), world.ids, player)
        scored.append((-total, i, a))
    scored.sort()
    n = len(worlds)
    return [(a, win_probability(-neg / n)) for neg, _, a in scored]


def paired_bot(request: BotRequest) -> IsmctsBot:
    """Versus's `ismcts` (Versus42.bots, engine/shell.py)."""
    return IsmctsBot(request.rng, seeded_of(request), request.clock, request.budget,
                     name=request.name)


def tree_bot(request: BotRequest) -> IsmctsBot:
    """Versus's `ismcts-tree`."""
    return IsmctsBot(request.rng, seeded_of(request), request.clock, request.budget,
                     name=request.name, mode=SearchMode.TREE)
