# Shared helpers of the start-position tests of every game (tests/engine/test_start_positions.py,
# tests/engine/grid/ and tests/engine/vanquishers/): they reach a game through the Game interface
# only, as the protocol does.
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from versus.engine.api import DecisionKind, Game, Pending

#: watches one deal: (the decision, the input, the state before, the state after)
OnDeal = Callable[[Pending, Any, Any, Any], None]


def deal_back(game: Game, rules: Any, state: Any, on_deal: OnDeal | None = None
              ) -> tuple[Any, list[str]]:
    """`state` after its pending deals, each deck dealt from its first handle up (as the
    protocol deals from a shared pool), and the labels of the deals."""
    decks = game.decks(rules)
    dealt = [0] * len(decks)
    labels = []
    while (d := game.decision(state)).kind is DecisionKind.DEAL:
        assert isinstance(d, Pending)
        labels.append(d.label)
        inp = game.deal_input(decks[d.deck].first + dealt[d.deck])
        after = game.step(state, inp)
        dealt[d.deck] += 1
        if on_deal is not None:
            on_deal(d, inp, state, after)
        state = after
    return state, labels


def placing_narration(game: Game, rules: Any, start: Any, card_id: str, placing: str
                      ) -> tuple[dict[int, list[str]], set[int]]:
    """What each player is told of the deals of a start (the dealt cards all `card_id` to their
    owner), and which players got a deal labelled `placing` (a card put face down)."""
    told: dict[int, list[str]] = {0: [], 1: []}
    placers: set[int] = set()

    def tell(d: Pending, inp: Any, before: Any, after: Any) -> None:
        if d.label == placing:
            placers.add(d.player)  # type: ignore[arg-type]
        for viewer in (0, 1):
            know = game.new_knowledge(viewer)
            if viewer == d.player:
                know.learn(inp.handle, card_id)
            told[viewer] += game.narrate(before, inp, after, viewer, know)

    deal_back(game, rules, start, tell)
    return told, placers


def without_start(text: str) -> dict[str, Any]:
    """A position object with the `start` of its rules dropped."""
    obj = json.loads(text)
    obj["rules"].pop("start", None)
    return obj  # type: ignore[no-any-return]
