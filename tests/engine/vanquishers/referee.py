# A full-information referee for Vanquishers tests: the one full-information loop
# (engine/referee_loop.py) with what the tests set: each player's deck (default: the starter
# deck of its hero), a seeded order of it, and one seeded stream for the orders, the die
# outcomes and the choosers. Deterministic in its seed (a hashlib stream, not `random`).
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from versus.engine.api import Finished, Setup
from versus.engine.referee_loop import LocalPlay
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers import starter_deck
from versus.engine.vanquishers.cards import Catalogue
from versus.engine.vanquishers.rules import Rules


class Stream:
    """Deterministic integers from a seed (SHA-256 in counter mode)."""

    def __init__(self, seed: bytes | str) -> None:
        self.seed = seed.encode() if isinstance(seed, str) else seed
        self.counter = 0

    def below(self, n: int) -> int:
        while True:
            self.counter += 1
            x = int.from_bytes(hashlib.sha256(self.seed + self.counter.to_bytes(8, "big"))
                               .digest()[:8], "big")
            limit = (1 << 64) - (1 << 64) % n
            if x < limit:
                return x % n

    def shuffle(self, items: Sequence[Any]) -> list[Any]:
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


Chooser = Callable[[Any, list[Any], "Stream"], Any]


def random_chooser(view: Any, legal: list[Any], rng: Stream) -> Any:
    return legal[rng.below(len(legal))]


def useful_chooser(view: Any, legal: list[Any], rng: Stream) -> Any:
    useful = view.useful_actions or legal
    return useful[rng.below(len(useful))]


@dataclass
class Game:
    rules: Rules
    seed: str = "ref"
    decks: tuple[Sequence[str], Sequence[str]] | None = None
    choosers: tuple[Chooser, Chooser] = (useful_chooser, useful_chooser)
    catalogue: Catalogue = field(default_factory=G.default_catalogue)
    history: list[tuple[Any, Any, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = Stream(self.seed)
        n = self.rules.deck_size
        decks = self.decks or tuple(starter_deck(self.catalogue, self.rules.heroes[p], n)
                                    for p in (0, 1))
        self.identity = {p * n + i: card for p in (0, 1) for i, card in enumerate(decks[p])}
        self.order = [self.rng.shuffle(range(p * n, p * n + n)) for p in (0, 1)]
        self._loop = LocalPlay.start(G, Setup(self.rules, self.catalogue, b"seed"),
                                     self.identity, self.order, self.rng.below)

    @property
    def state(self) -> Any:
        return self._loop.state

    @property
    def knowledge(self) -> list[Any]:
        return self._loop.knowledge

    def _choose(self, view: Any, legal: list[Any], seat: int) -> Any:
        return self.choosers[seat](view, legal, self.rng)

    def advance(self) -> Any:
        before = self.state
        inp = self._loop.advance(self._choose)
        self.history.append((before, inp, self.state))
        return inp

    def play(self, max_inputs: int = 200_000) -> Finished:
        for _ in range(max_inputs):
            d = G.decision(self.state)
            if isinstance(d, Finished):
                return d
            self.advance()
        raise AssertionError("the game did not end")
