# A full-information referee: it knows every handle's identity and each deck's order, answers
# every Deal and Reveal decision itself, keeps each player's Knowledge up to date (the owner
# learns a dealt card), and asks a `choose(view, legal_actions) -> Action` callback for turn
# actions and choices. The demo, the tests, the benchmark and (later) a bot's simulations use
# it; networked play replaces it with the protocol, which answers deals and reveals from
# commitments and mental poker instead.
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ..errors import EngineError
from ..hashing import fisher_yates
from .actions import Action, Deal, Input, Reveal
from .begin import new_game
from .catalogue import Catalogue
from .decisions import DealDecision, DealPurpose, GameResult, RevealDecision
from .decks import hidden_decks
from .game import State, legal_actions, step
from .ruleset import Ruleset
from .views import Knowledge, PlayerView

Chooser = Callable[[PlayerView, list[Action]], Action]


class RandRange(Protocol):
    def randrange(self, start: int, stop: int = ..., /) -> int: ...


def random_chooser(rng: RandRange) -> Chooser:
    """Uniformly random legal actions; randomness comes only from the given generator."""

    def choose(view: PlayerView, legal: list[Action]) -> Action:
        return legal[rng.randrange(len(legal))]

    return choose


def random_deal(catalogue: Catalogue, ruleset: Ruleset, rng: RandRange
                ) -> tuple[list[str], tuple[list[int], list[int]]]:
    """Shared-pool style setup: 2*deck_size distinct cards drawn from the pool, random draw
    order. Returns (card id of every handle, each player's draw order of handles)."""
    n = ruleset.deck_size
    if len(catalogue) < 2 * n:
        raise EngineError(f"the pool has {len(catalogue)} cards, two decks need {2 * n}")
    pool = list(range(len(catalogue)))
    fisher_yates(pool, rng.randrange)
    ids = [catalogue.cards[i].id for i in pool[: 2 * n]]
    if ruleset.start:  # a start position's public cards are its own (SPEC §3.3)
        from .positions import load_position

        known = load_position(ruleset.start, catalogue)
        for h in range(2 * n):
            if known.ident[h] >= 0:
                ids[h] = catalogue.cards[known.ident[h]].id
    orders: tuple[list[int], list[int]] = ([], [])
    for p in (0, 1):
        order = list(deck_handles(ruleset, p))
        fisher_yates(order, rng.randrange)
        orders[p].extend(order)
    return ids, orders


def deck_handles(ruleset: Ruleset, player: int) -> range:
    """The handles of `player`'s hidden deck: all its cards, or a start position's hidden ones
    (the game's `decks`, SPEC §3.3)."""
    return hidden_decks(ruleset)[player].handles


class Referee:
    """Runs one game with full information; `play()` returns the result."""

    def __init__(self, ruleset: Ruleset, catalogue: Catalogue, layout_seed: bytes,
                 identities: Sequence[str], orders: tuple[Sequence[int], Sequence[int]],
                 choosers: tuple[Chooser, Chooser]) -> None:
        n = ruleset.deck_size
        if len(identities) != 2 * n:
            raise EngineError(f"{len(identities)} identities given for {2 * n} handles")
        for cid in identities:
            if cid not in catalogue:
                raise EngineError(f"unknown card id {cid!r}")
        for p in (0, 1):
            if sorted(orders[p]) != list(deck_handles(ruleset, p)):
                raise EngineError(f"player {p}'s draw order is not a permutation of its deck's "
                                  "handles")
        self.identities = list(identities)
        self.orders = (list(orders[0]), list(orders[1]))
        self._next = [0, 0]
        self.choosers = choosers
        self.knowledge = (Knowledge(0), Knowledge(1))
        self.state: State = new_game(ruleset, catalogue, layout_seed)
        self.history: list[Input] = []
        self.steps = 0

    def view(self, player: int) -> PlayerView:
        return PlayerView(self.state, self.knowledge[player], player)

    def next_input(self) -> Input:
        """The input the referee (or a chooser) gives to the pending decision."""
        d = self.state.pending
        if isinstance(d, DealDecision):
            p = d.player
            h = self.orders[p][self._next[p]]
            return Deal(h)
        if isinstance(d, RevealDecision):
            return Reveal(d.handle, self.identities[d.handle])
        if d is None:
            raise EngineError("the game is over")
        p = d.player
        return self.choosers[p](self.view(p), legal_actions(self.state))

    def advance(self) -> Input:
        """Apply one input; return it."""
        inp = self.next_input()
        d = self.state.pending
        self.state = step(self.state, inp)
        if isinstance(inp, Deal) and isinstance(d, DealDecision):
            self._next[d.player] += 1
            if d.purpose is not DealPurpose.DISCARD:  # the owner learns its card
                self.knowledge[d.player].learn(inp.handle, self.identities[inp.handle])
        self.history.append(inp)
        self.steps += 1
        return inp

    def play(self, on_step: Callable[[Referee, Input], None] | None = None) -> GameResult:
        while self.state.result is None:
            inp = self.advance()
            if on_step is not None:
                on_step(self, inp)
        return self.state.result
