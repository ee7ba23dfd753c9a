# The ISMCTS bot of Vanquishers (SPEC Part 10, "Bots"), registered as the game's `ismcts`
# (Vanquishers.bots, engine/shell.py); the shell gives its generator and clock.
#
# What it sees: exactly its seat's `View` (text.py) and the legal inputs, as the greedy bot
# (bots.py): the public state and its own dealt cards. It never reads a hidden identity; it
# samples them (determinization).
#
# How it plays: the paired information-set search of the grid bot (engine/grid/bot_search.py;
# Cowling, Powley and Whitehouse 2012), with its race. The root's children are the CANDIDATES
# best inputs of greedy's one-ply ranking (expected over the dice). An iteration samples one
# world consistent with the view: every card hidden from the bot (its own deck, the opponent's
# hand, deck and face-down traps) gets an identity from the owner's presumed deck list (the
# starter deck of its hero, the game's recommended deck, less the cards that player has shown;
# what that list lacks comes from the rest of it, so the copy limits hold), each deck a draw
# order, and the dice a seeded stream. It then plays every candidate still in the race in that
# same world (common random numbers: a world's cards and dice are luck common to all
# candidates, which so cancels out): the candidate, then both players follow a fast rule policy
# (`policy`) through the opponent's reply and the bot's own next turn, and the position reached
# is scored by greedy's evaluation turned into a win probability. The bot plays the candidate
# with the best mean plus a small share of greedy's own score (which breaks ties and weighs the
# dice exactly where few worlds were played). Why through its own next turn: greedy's
# evaluation is calibrated with the opponent to move, as the grid bot found; on the same deals
# as Kael (the weaker hero of the default rules) it won 6 of 16 games so, 2 of 12 with the
# playout ending where its next turn begins.
# Why the race (shell.prune, as the grid bot's): from RACE_AFTER worlds on, a candidate whose
# per-world differences from the leader put it RACE_Z standard errors behind, or that equals
# the leader in every world (`next` and `end` often reach the same position), stops being
# played; the playouts go to the inputs still in question and a clear decision ends early, so
# more candidates cost less than five did without it. It starts later than the grid's (8
# worlds, not 4): the dice make a playout's value noisy, and an early race dropped good inputs
# (as Kael, on the same 40 deals: 18 wins from the 4th world, 24 from the 8th).
# The opponent is blind as greedy is: the rule policy reads only the identities of the cards
# of the seat it plays for (its hand, its traps), never the bot's hand, deck or face-down
# traps, so the playouts need no imagined cards (the grid bot's playout opponent, greedy's
# one-ply, reads the whole state and must be blinded).
#
# A world is a full-information state: the sampled identities are written into the state's
# card column, so no reveal is ever asked and every legal action is one that works. Nothing
# random remains inside a playout but the world's dice, so an iteration is a pure function of
# its world.
#
# Budget: `iterations` playouts per decision (reproducible given the seed, the default) and/or
# `seconds`; a world once started is played by every candidate in the race, so the count may
# pass the budget by one world's; a round cut by the deadline is dropped whole, the first
# always completes. When the view cannot be rebuilt (a catalogue without the starter decks, an
# engine error in a world), greedy answers (a legal input).
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import EngineError
from ..referee_loop import HashBelow
from ..shell import BotRequest, Budget, paired_race
from ..shell import win_probability as shell_win_probability
from .bots import VanquishersGreedyBot, evaluate
from .cards import CardType, DeckError, Subtype, starter_deck, usable_by
from .engine import (
    ChoiceKind,
    D,
    Move,
    S,
    State,
    Verb,
    Zone,
    _move,
    _Work,
    legal_actions,
    step,
)

DEFAULT_BUDGET = Budget(iterations=96, seconds=None)  # playouts a decision, no clock
CANDIDATES = 8  # the root inputs searched, greedy's best first
RACE_Z = 1.5  # a candidate leaves the race this many standard errors behind the leader
RACE_AFTER = 8  # worlds every candidate plays before the race drops any (dice: noisy)
PLAYOUT_TURNS = 2  # a playout ends when this many turns after the bot's current one are over
PLAYOUT_DECISIONS = 150  # hard cap on one playout's inputs
SCALE = 12.0  # evaluation points per logistic unit of the win probability
PRIOR = 0.002  # weight of greedy's score (in win probability per evaluation point)
EXILE_BELOW = 6  # the rule policy exiles for Storage Energy while it has less


@dataclass(frozen=True, slots=True)
class World:
    """One sampled completion of the view: the full-information state, each player's deck
    draw order and the seed of its dice."""

    state: State
    orders: tuple[tuple[int, ...], tuple[int, ...]]
    dice: int


class Unbuildable(Exception):
    """The view cannot be completed into a world (greedy then answers)."""


def win_probability(score: float) -> float:
    return shell_win_probability(score, SCALE)


class VanquishersIsmctsBot:
    """Paired information-set search for Vanquishers (see the module note)."""

    cheap = False

    def __init__(self, rng: Any, clock: Callable[[], float], budget: Budget | None = None,
                 name: str = "ismcts", candidates: int = CANDIDATES,
                 playout_turns: int = PLAYOUT_TURNS, race_z: float = RACE_Z,
                 race_after: int = RACE_AFTER) -> None:
        if candidates < 1 or playout_turns < 0 or race_after < 2 or race_z < 0:
            raise ValueError(f"vanquishers ismcts needs candidates >= 1, playout_turns >= 0, "
                             f"race_after >= 2 and race_z >= 0, got {candidates}, "
                             f"{playout_turns}, {race_after}, {race_z}")
        self.name = name
        self.budget = budget or DEFAULT_BUDGET
        self.candidates, self.playout_turns = candidates, playout_turns
        self.race_z, self.race_after = race_z, race_after
        self.rng, self.clock = rng, clock
        # greedy ranks the root and answers when no world can be built; one generator
        self.greedy = VanquishersGreedyBot(rng, name=name)
        self.last_iterations = 0  # playouts of the last decision (for the benchmark)
        self.last_worlds = 0

    def choose(self, view: Any, legal: Sequence[Move]) -> Move:
        if not legal:
            raise ValueError("ismcts: no legal input to choose from")
        legal = list(legal)
        self.last_iterations = self.last_worlds = 0
        if len(legal) == 1:
            return legal[0]
        deadline = None if self.budget.seconds is None else \
            self.clock() + self.budget.seconds
        candidates = self.greedy.candidates(view, legal)
        prior = self.greedy.scores(view, candidates)
        order = sorted(range(len(candidates)), key=lambda i: (-prior[i], i))[:self.candidates]
        ranked = [candidates[i] for i in order]
        prior = [prior[i] for i in order]
        best = 0
        if len(ranked) > 1:
            try:
                totals = self.search(view, ranked, deadline)
            except (Unbuildable, EngineError, AssertionError):  # a world the view misjudged
                totals = [0.0] * len(ranked)
            done = max(1, self.last_worlds)
            value = [t / done + PRIOR * p for t, p in zip(totals, prior, strict=True)]
            best = max(range(len(ranked)), key=lambda i: (value[i], -i))
        move = ranked[best]
        self.greedy.played(view, move)
        return move

    def search(self, view: Any, candidates: list[Move], deadline: float | None) -> list[float]:
        """Each candidate's total win probability over the worlds it played (paired); a
        candidate that left the race scores -inf."""
        me, root = view.player, view.state
        # the turn counter counts both players' turns: the root's own turn is over at +1
        horizon = root.turn + self.playout_turns + (1 if root.active == me else 0)
        found = paired_race(
            len(candidates), lambda: self.sample_world(view),
            lambda world, i: playout(world, candidates[i], me, horizon),
            self.budget, self.race_after, self.race_z, self.clock, deadline)
        self.last_iterations, self.last_worlds = found.playouts, found.worlds
        return found.totals

    def sample_world(self, view: Any) -> World:
        """Identities for every card hidden from the view (see the module note), each deck's
        draw order and a dice seed."""
        s: State = view.state
        cat, n, rng = s.cat, s.n, self.rng
        card = list(s.card)
        for h, cid in view.knowledge.cards.items():
            if 0 <= h < len(card) and card[h] < 0 and cat.get(cid) is not None:
                card[h] = cat.index(cid)
        orders = []
        for p in (0, 1):
            pool = list(_deck_list(s, p))
            handles = range(p * n, p * n + n)
            for h in handles:
                if card[h] >= 0 and card[h] in pool:
                    pool.remove(card[h])
            hidden = [h for h in handles if card[h] < 0]
            if len(pool) < len(hidden):
                raise Unbuildable(f"player {p}: {len(hidden)} hidden cards, {len(pool)} left")
            rng.shuffle(pool)
            for h, i in zip(hidden, pool, strict=False):
                card[h] = i
            deck = [h for h in handles if s.zone[h] == Zone.DECK]
            rng.shuffle(deck)
            orders.append(tuple(deck))
        w = _Work(s)
        w.card = card
        return World(w.freeze(), (orders[0], orders[1]), rng.getrandbits(64))


_DECKS: dict[tuple[int, int, bool, bytes], tuple[int, ...]] = {}


def _deck_list(s: State, p: int) -> tuple[int, ...]:
    """The catalogue indices of the deck p is presumed to play: its hero's starter deck."""
    hero = s.hero(p)
    key = (s.sides[p][S.HERO], s.n, s.rules.advanced, s.cat.digest)
    deck = _DECKS.get(key)
    if deck is None:
        try:
            ids = starter_deck(s.cat, hero.id, s.n, advanced=s.rules.advanced)
        except DeckError as e:
            raise Unbuildable(str(e)) from e
        deck = _DECKS[key] = tuple(s.cat.index(c) for c in ids)
    return deck


def playout(world: World, first: Move, me: int, horizon: int) -> float:
    """`first` in the world, then both players' rule policy until turn `horizon` begins (at
    most PLAYOUT_DECISIONS inputs); the win probability of the position reached, for `me`."""
    dice = HashBelow(world.dice.to_bytes(32, "big", signed=True), 8)  # no `random` here
    dealt = [0, 0]
    s = step(world.state, first)
    for _ in range(PLAYOUT_DECISIONS):
        if s.result != (-1, -1) or s.turn >= horizon:
            break
        code = s.dec[0]
        if code == D.DEAL or code == D.PLACE:
            p = s.dec[1]
            order, zone = world.orders[p], s.zone
            while dealt[p] < len(order) and zone[order[dealt[p]]] != Zone.DECK:
                dealt[p] += 1
            s = step(s, _move(Verb.DEAL, order[dealt[p]]))
        elif code == D.CHANCE:
            s = step(s, _move(Verb.ROLL, value=dice.below(6) + 1))
        elif code == D.TURN or code == D.CHOICE:
            s = step(s, policy(s))
        else:
            break  # a reveal: no card is hidden in a world
    if s.result != (-1, -1):
        winner = s.result[1]
        return 0.5 if winner < 0 else float(winner == me)
    return win_probability(evaluate(s, me))


def policy(s: State) -> Move:
    """The fast rule policy of a playout (full information): recover when half the Shield is
    gone, V-Trigger, exile for
    energy while short of it, play the dearest card it can, set a real trap, use a rift,
    attack with every weapon; a trap springs when it is a real one; a weapon replaces the
    first it may."""
    if s.dec[0] == D.CHOICE:
        options = s.dec[4:]
        if s.dec[2] == ChoiceKind.REPLACE_WEAPON:
            return _move(Verb.PICK, options[0])
        for t in options:
            card = s.cat.cards[s.card[t]] if s.card[t] >= 0 else None
            if card is not None and card.subtype is Subtype.TRAP and card.cost == s.aux[t]:
                return _move(Verb.PICK, t)
        return _move(Verb.PASS)
    legal = legal_actions(s)
    best: Move | None = None
    best_cost = -1
    exile: Move | None = None
    for m in legal:
        v = m.verb
        if v is Verb.VTRIGGER or v is Verb.TARGET or v is Verb.RIFT:
            return m
        if v is Verb.RECOVER and 2 * s.sides[s.active][S.SHIELD] <= \
                _Work.reader(s).max_shield(s.active):  # a Storage point: when half is gone
            return m
        if v is Verb.PLAY or v is Verb.TRAP:
            cost = s.cat.cards[s.card[m.handle]].cost if s.card[m.handle] >= 0 else 0
            if cost > best_cost:
                best, best_cost = m, cost
        elif v is Verb.EXILE and exile is None:
            exile = m
    if best is not None:
        return best
    if exile is not None and _exile_wanted(s):
        return _exile_choice(s, legal)
    return _move(Verb.NEXT)


def _exile_wanted(s: State) -> bool:
    p = s.active
    return s.sides[p][S.STORAGE] < EXILE_BELOW and \
        sum(1 for h in range(p * s.n, p * s.n + s.n) if s.zone[h] == Zone.HAND) >= 3


def _exile_choice(s: State, legal: list[Move]) -> Move:
    """The hand card the policy exiles: one its hero cannot use, else the dearest one."""
    hero = s.hero(s.active)
    exiles = [m for m in legal if m.verb is Verb.EXILE and s.card[m.handle] >= 0]
    for m in exiles:
        card = s.cat.cards[s.card[m.handle]]
        if not usable_by(card, hero) or card.type is CardType.HERO:
            return m
    return max(exiles, key=lambda m: (s.cat.cards[s.card[m.handle]].cost, -m.handle),
               default=_move(Verb.NEXT))


def ismcts_bot(request: BotRequest) -> VanquishersIsmctsBot:
    """The game's `ismcts` (Vanquishers.bots): the name's `iterations=` (playouts) and/or
    `time=` are its whole budget (no implicit clock beside a playout count, so a measurement
    reproduces); without them the caller's budget, else DEFAULT_BUDGET (no clock)."""
    budget = request.given or request.budget or DEFAULT_BUDGET
    return VanquishersIsmctsBot(request.rng, request.clock, budget, name=request.name)


__all__ = ["DEFAULT_BUDGET", "VanquishersIsmctsBot", "ismcts_bot", "playout", "policy"]
