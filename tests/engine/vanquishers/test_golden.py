# Golden play-throughs: every state hash, legal list and narration record of a few seeded random
# games, digested. The engine's speed work (a step's copy-on-write work, its zone index, the
# legal lists it keeps) must leave every one of them as it was: a change of the digest is a
# change of the rules or of the state encoding, which SPEC Part 10 would have to say.
from __future__ import annotations

import hashlib

import pytest

from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers.engine import explain
from versus.engine.vanquishers.rules import Mode, Rules

from .referee import Game, random_chooser

#: (mode, deck size, seed) -> (inputs, digest), recorded before the speed work
GOLDEN = {
    ("standard", 30, "golden/a"):
        (279, "08fd351f07b600b2ac2a63c7219098086edfca1c71981b854deb590267e9aeb4"),
    ("standard", 40, "golden/b"):
        (387, "0f5da6418c87819153b4e042f630c86a2fc0a6a0bfc2c547fdd81bdcd394eeb4"),
    ("advanced", 30, "golden/c"):
        (355, "9a540eb1fcc0bdb94abbcfa8eab847823ebe4c195f726f1eb8ec04e3296cfff4"),
}


def play_digest(mode: str, deck: int, seed: str) -> tuple[int, str]:
    game = Game(Rules(deck_size=deck, mode=Mode(mode)), seed=seed,
                choosers=(random_chooser, random_chooser))
    game.play()
    digest = hashlib.sha256()
    for before, inp, _after in game.history:
        digest.update(G.state_hash(before) + G.format_input(inp).encode())
        digest.update(repr((G.legal_actions(before), explain(before, inp))).encode())
    digest.update(G.state_hash(game.state))
    return len(game.history), digest.hexdigest()


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_golden_play_through(key: tuple[str, int, str]) -> None:
    assert play_digest(*key) == GOLDEN[key]
