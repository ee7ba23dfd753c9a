# A full-information referee for the grid game: it plays a whole game locally, answering each
# DEAL from a fixed deck order, each REVEAL with the true card, each CHANCE with a seeded draw
# and each TURN/CHOICE with the players' choosers. For tests, the bench and bot simulations;
# a real match is dealt and revealed by the protocol instead.
#
# How: the one full-information loop of every game (engine/referee_loop.py) plays it; this
# module adds what is the grid's own: its deal (`random_deal`: the recommended decks of its
# mode, or a start position's cards), its chance stream and its typed choosers.
# `GridReferee.advance()` answers the one pending decision; `play()` runs to the end.
# Randomness comes from `HashRng` (a SHA-256 stream), never `random`, so a seed reproduces
# a game exactly.
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..api import Finished, Setup
from ..hashing import HashRng, HashStream
from ..referee_loop import LocalPlay, Pick
from .cards import Catalogue
from .decks import random_deal
from .notation import GridInput
from .rules import GridRules
from .state import GridState
from .views import GridKnowledge, GridView

Chooser = Callable[[GridView, list[GridInput]], GridInput]


def random_chooser(rng: HashRng) -> Chooser:
    return lambda v, legal: legal[rng.randrange(len(legal))]


@dataclass
class GridReferee:
    """The grid's view of the one full-information loop (engine/referee_loop.py): its typed
    choosers, its chance stream and the history of (state before, input) the tests replay."""

    rules: GridRules
    catalogue: Catalogue
    identities: Sequence[str]
    orders: Sequence[Sequence[int]]
    choosers: tuple[Chooser, Chooser]
    seed: bytes = b"referee"
    #: keep `history` (the tests replay it); off for the bench: every state of the game kept
    #: alive is work for the garbage collector that no engine in a match pays
    keep_history: bool = True
    history: list[tuple[GridState, GridInput]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        from . import GRID

        self._play = LocalPlay.start(GRID, Setup(self.rules, self.catalogue, self.seed),
                                     self.identities, self.orders,
                                     HashStream("grid/referee-chance", self.seed).randbelow)
        if self.keep_history:
            self._play.on_input = lambda state, inp: self.history.append((state, inp))

    @property
    def state(self) -> GridState:
        return self._play.state  # type: ignore[no-any-return]

    @property
    def knowledge(self) -> tuple[GridKnowledge, GridKnowledge]:
        return tuple(self._play.knowledge)  # type: ignore[return-value]

    @property
    def steps(self) -> int:
        return self._play.inputs

    def _choose(self, view: GridView, legal: list[GridInput], player: int) -> GridInput:
        return self.choosers[player](view, legal)

    def advance(self) -> GridInput:
        return self._play.advance(self._choose)  # type: ignore[no-any-return]

    def play(self, max_steps: int = 200_000) -> Finished:
        return self._play.play(self._choose, max_steps)

    def play_random(self, picks: Sequence[Pick], max_steps: int = 200_000) -> Finished:
        """Random self-play without the choosers (the bench): seat p answers with
        `legal[picks[p](len(legal))]` and no view is built (engine/referee_loop.py)."""
        return self._play.play_random(picks, max_steps)


def random_game(rules: GridRules, catalogue: Catalogue, seed: bytes, history: bool = True
                ) -> GridReferee:
    """A referee of two random players over a random deal (not yet played); `history`: keep
    its (state, input) history."""
    ids, orders = random_deal(catalogue, rules, seed)
    return GridReferee(rules, catalogue, ids, orders,
                       (random_chooser(HashRng(seed, "grid/p0")),
                        random_chooser(HashRng(seed, "grid/p1"))), seed, history)
