# A full-information referee: it knows every handle's identity and each deck's order, answers
# every Deal and Reveal decision itself, keeps each player's Knowledge up to date (the owner
# learns a dealt card, but one dealt to be discarded: the rules reveal it at once), and asks a
# `choose(view, legal_actions) -> Action` callback for turn actions and choices. The demo, the
# tests and the benchmarks use it; networked play replaces it with the protocol, which answers
# deals and reveals from commitments and mental poker instead.
#
# How: the one full-information loop of every game (engine/referee_loop.py `LocalPlay`) plays
# it; this module adds what is Versus's own: its random deal (`random_deal`), its typed choosers,
# the checks of a given deal, and the history of inputs the tests replay.
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ..api import DecisionKind, Pending, Setup
from ..errors import EngineError
from ..hashing import fisher_yates
from ..referee_loop import LocalPlay
from .actions import Action, Deal, Input, Reveal
from .catalogue import Catalogue
from .decisions import DealPurpose, GameResult
from .decks import hidden_decks
from .game import State
from .ruleset import Ruleset
from .views import Knowledge, PlayerView

Chooser = Callable[[PlayerView, list[Action]], Action]
MAX_INPUTS = 1_000_000  # a game that has not ended by then is a bug of the engine


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


def owner_learns(d: Pending) -> bool:
    """Whether the owner of a deal learns its card: not of a card dealt to be discarded."""
    return d.label != _DISCARD_LABEL


_DISCARD_LABEL = DealPurpose.DISCARD.value  # (an Enum's .value is a Python property: per deal)


def _no_chance(n: int) -> int:
    raise EngineError("Versus has no chance decision")


class Referee:
    """Runs one game with full information; `play()` returns the result."""

    def __init__(self, ruleset: Ruleset, catalogue: Catalogue, layout_seed: bytes,
                 identities: Sequence[str], orders: tuple[Sequence[int], Sequence[int]],
                 choosers: tuple[Chooser, Chooser]) -> None:
        from . import VERSUS42

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
        self.choosers = choosers
        self.history: list[Input] = []
        self.local = LocalPlay.start(VERSUS42, Setup(ruleset, catalogue, layout_seed),
                                     self.identities, self.orders, _no_chance)
        self.local.owner_learns = owner_learns
        self.local.on_input = lambda state, inp: self.history.append(inp)

    @property
    def state(self) -> State:
        return self.local.state  # type: ignore[no-any-return]

    @property
    def knowledge(self) -> tuple[Knowledge, Knowledge]:
        return tuple(self.local.knowledge)  # type: ignore[return-value]

    @property
    def steps(self) -> int:
        return self.local.inputs

    def view(self, player: int) -> PlayerView:
        return self.local.view(player)  # type: ignore[no-any-return]

    def next_input(self) -> Input:
        """The input the referee (or a chooser) gives to the pending decision, not applied."""
        d = self.local.game.decision(self.state)
        if not isinstance(d, Pending):
            raise EngineError("the game is over")
        if d.kind is DecisionKind.DEAL:
            return Deal(self.orders[d.deck][self.local.dealt[d.deck]])
        if d.kind is DecisionKind.REVEAL:
            return Reveal(d.handle, self.identities[d.handle])
        return self._choose(self.view(d.player), list(self.local.game.legal_actions(self.state)),
                            d.player)  # type: ignore[arg-type]

    def _choose(self, view: PlayerView, legal: list[Action], player: int) -> Action:
        return self.choosers[player](view, legal)

    def advance(self) -> Input:
        """Apply one input; return it."""
        if self.state.result is not None:
            raise EngineError("the game is over")
        return self.local.advance(self._choose)  # type: ignore[no-any-return]

    def play(self, on_step: Callable[[Referee, Input], None] | None = None) -> GameResult:
        if on_step is None:
            self.local.play(self._choose, MAX_INPUTS)
        while self.state.result is None:
            inp = self.advance()
            if on_step is not None:
                on_step(self, inp)
        return self.state.result
