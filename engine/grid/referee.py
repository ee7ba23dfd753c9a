# A full-information referee for the grid game: it plays a whole game locally, answering each
# DEAL from a fixed deck order, each REVEAL with the true card, each CHANCE with a seeded draw
# and each TURN/CHOICE with the players' choosers. For tests, the bench and bot simulations;
# a real match is dealt and revealed by the protocol instead.
#
# How: `GridReferee.advance()` answers the one pending decision; `play()` runs to the end.
# Randomness comes from `HashRng` (a SHA-256 stream), never `random`, so a seed reproduces
# a game exactly.
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..api import DecisionKind, Finished, Pending
from ..hashing import HashRng, HashStream
from .begin import new_game
from .cards import Catalogue, build_deck, build_pool
from .notation import GridInput, Verb
from .rules import GridRules
from .state import GridState, decision, legal_actions, step
from .views import GridKnowledge, GridView, view

Chooser = Callable[[GridView, list[GridInput]], GridInput]


def random_chooser(rng: HashRng) -> Chooser:
    return lambda v, legal: legal[rng.randrange(len(legal))]


def random_deal(catalogue: Catalogue, rules: GridRules, seed: bytes
                ) -> tuple[list[str], list[list[int]]]:
    """Card ids per handle and the deal order of each hidden deck: individual decks with the
    recommended mix (built from `seed`), or a shared deck of twice the mix. From a start
    position: its public cards are its own, and the hidden decks are its hidden cards."""
    if rules.shared:
        ids = build_pool(catalogue, rules.mode.value, rules.mix.value, seed)
        orders = [list(range(len(ids)))]
    else:
        ids = (build_deck(catalogue, rules.mode.value, rules.mix.value, seed + b"/0")
               + build_deck(catalogue, rules.mode.value, rules.mix.value, seed + b"/1"))
        n = rules.deck_size
        orders = [list(range(0, n)), list(range(n, 2 * n))]
    if rules.start:
        from . import GRID
        from .positions import load_position

        known = load_position(rules.start, catalogue)
        for h, i in enumerate(known.ident):
            if i >= 0:
                ids[h] = catalogue.cards[i].id
        orders = [list(deck.handles) for deck in GRID.decks(rules)]
    return ids, orders


@dataclass
class GridReferee:
    rules: GridRules
    catalogue: Catalogue
    identities: Sequence[str]
    orders: Sequence[Sequence[int]]
    choosers: tuple[Chooser, Chooser]
    seed: bytes = b"referee"
    state: GridState = field(init=False)
    knowledge: tuple[GridKnowledge, GridKnowledge] = field(init=False)
    history: list[tuple[GridState, GridInput]] = field(init=False, default_factory=list)
    steps: int = 0

    def __post_init__(self) -> None:
        self.state = new_game(self.rules, self.catalogue)
        self.knowledge = (GridKnowledge(0), GridKnowledge(1))
        self._dealt = [0] * len(self.orders)
        self._chance = HashStream("grid/referee-chance", self.seed)

    def answer(self) -> GridInput:
        d = decision(self.state)
        assert isinstance(d, Pending)
        if d.kind is DecisionKind.DEAL:
            h = self.orders[d.deck][self._dealt[d.deck]]
            self._dealt[d.deck] += 1
            assert d.player is not None
            self.knowledge[d.player].learn(h, self.identities[h])
            return GridInput(Verb.DEAL, h)
        if d.kind is DecisionKind.REVEAL:
            return GridInput(Verb.REVEAL, d.handle, card=self.identities[d.handle])
        legal = legal_actions(self.state)
        if d.kind is DecisionKind.CHANCE:
            return legal[self._chance.randbelow(d.outcomes)]
        assert d.player is not None
        return self.choosers[d.player](view(self.state, d.player, self.knowledge[d.player]),
                                       legal)

    def advance(self) -> GridInput:
        inp = self.answer()
        self.history.append((self.state, inp))
        self.state = step(self.state, inp)
        self.steps += 1
        return inp

    def play(self, max_steps: int = 200_000) -> Finished:
        for _ in range(max_steps):
            d = decision(self.state)
            if isinstance(d, Finished):
                return d
            self.advance()
        raise AssertionError(f"grid game did not end within {max_steps} steps")


def random_game(rules: GridRules, catalogue: Catalogue, seed: bytes) -> GridReferee:
    """A referee of two random players over a random deal (not yet played)."""
    ids, orders = random_deal(catalogue, rules, seed)
    return GridReferee(rules, catalogue, ids, orders,
                       (random_chooser(HashRng(seed, "grid/p0")),
                        random_chooser(HashRng(seed, "grid/p1"))), seed)
