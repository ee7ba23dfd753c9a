# A full-information referee for Vanquishers tests and the bench: it plays both seats and the
# protocol's part (deals from a seeded order of each player's deck, reveals from the identities
# it holds, die outcomes from a seeded stream), so a whole game runs in memory without the
# protocol. Deterministic in its seed (a hashlib stream, not `random`, to mirror the engine).
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from versus.engine.api import DecisionKind, Finished, Setup
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
        self.knowledge = [G.new_knowledge(0), G.new_knowledge(1)]
        self.state = G.new_game(Setup(self.rules, self.catalogue, b"seed"))

    def next_input(self) -> Any:
        d = G.decision(self.state)
        assert not isinstance(d, Finished)
        if d.kind is DecisionKind.DEAL:
            h = self.order[d.deck].pop(0)
            self.knowledge[d.player].learn(h, self.identity[h])
            return G.deal_input(h)
        if d.kind is DecisionKind.REVEAL:
            return G.reveal_input(d.handle, self.identity[d.handle])
        legal = list(G.legal_actions(self.state))
        if d.kind is DecisionKind.CHANCE:
            return legal[self.rng.below(d.outcomes)]
        view = G.view(self.state, d.player, self.knowledge[d.player])
        return self.choosers[d.player](view, legal, self.rng)

    def advance(self) -> Any:
        inp = self.next_input()
        before = self.state
        self.state = G.step(before, inp)
        self.history.append((before, inp, self.state))
        return inp

    def play(self, max_inputs: int = 200_000) -> Finished:
        for _ in range(max_inputs):
            d = G.decision(self.state)
            if isinstance(d, Finished):
                return d
            self.advance()
        raise AssertionError("the game did not end")
