# Shared helpers of the start-position tests of every game
# (tests/engine/versus42/test_start_positions.py, tests/engine/grid/ and
# tests/engine/vanquishers/): they reach a game through the Game interface only, as the protocol
# does.
from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from versus.engine.api import DecisionKind, Game, Pending, Setup
from versus.engine.referee_loop import LocalPlay

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


class _Drawn(dict):  # type: ignore[type-arg]
    """Card ids by handle, each drawn from `ids` the first time it is asked for (and kept)."""

    def __init__(self, ids: Sequence[str], choice: Callable[[Sequence[str]], str]) -> None:
        super().__init__()
        self.ids, self.choice = ids, choice

    def __missing__(self, handle: int) -> str:
        self[handle] = card = self.choice(self.ids)
        return card


def play_out(game: Game, rules: Any, seed: int, max_steps: int = 20_000) -> Any:
    """A whole random game from `rules` (a start's) in the one full-information loop
    (engine/referee_loop.py), as the protocol plays it: each deck dealt from its first handle
    up, each card's id drawn at random the first time it is dealt or revealed (the same id every
    time after), every turn, choice and chance answered by a random legal input; every state
    encoded (what the state hash reads). Returns the result."""
    import random

    rng = random.Random(seed)  # a test's own stream: nothing here is secret
    catalogue = game.default_catalogue()
    identity = _Drawn(list(game.card_ids(catalogue)), rng.choice)
    orders = [list(deck.handles) for deck in game.decks(rules)]
    play = LocalPlay.start(game, Setup(rules, catalogue, b"play-out"), identity, orders,
                           rng.randrange)
    play.on_input = lambda state, inp: game.encode_state(state)

    def choose(view: Any, legal: list[Any], seat: int) -> Any:
        assert legal, f"{game.decision(play.state)} with no legal input"
        return rng.choice(legal)

    result = play.play(choose, max_steps)
    game.encode_state(play.state)
    return result


#: values a mutation of a start position writes: the bounds of the readers' ranges, the words
#: of their fields, and a few odd ones
ODD_VALUES: tuple[Any, ...] = (
    0, 1, 2, 3, 4, 5, 6, 11, 12, 19, 20, 21, 39, 40, 99, 100, 119, 120, 159, 161, 32767, -1,
    True, False, None, "recto", "verso", "deck", "hand", "field", "grid", "graveyard",
    "modifier", "discarded", "destroyed", "absorbed", "summon", "flip", "activate", "move",
    "a1", "c3", "e4", "d4", "f6", "b2")


def mutate_position(obj: dict[str, Any], choices: Callable[[Sequence[Any]], Any],
                    card_ids: Sequence[str], count: int) -> dict[str, Any]:
    """A copy of a position object with `count` changes, each chosen by `choices` (a function
    picking one item of a sequence: hypothesis's or a random generator's): a value anywhere
    (the rules and catalogue aside) set to an odd value or a card id, a card's key set, a key
    dropped, or two cards swapped."""
    import copy

    out = copy.deepcopy(obj)

    def pick(seq: Sequence[Any]) -> Any:  # an index drawn, so a report shows small values
        return seq[choices(range(len(seq)))]

    for _ in range(count):
        places = list(_places(out))
        cards = out.get("cards")
        cards = cards if isinstance(cards, list) and cards else [{}]
        kind = choices(("set", "card-key", "drop", "swap"))
        if kind == "set" and places:
            container, key = pick(places)
            container[key] = pick((*ODD_VALUES, *card_ids[:3], pick(card_ids)))
        elif kind == "card-key" and isinstance(card := pick(cards), dict):
            card[choices(("card", "increase", "weaken", "boost", "shield", "up", "face",
                          "absorbed", "holder", "controller", "cell", "area", "zone"))] = pick(
                (*ODD_VALUES, pick(card_ids), [choices(range(len(cards)))]))
        elif kind == "drop" and isinstance(card := pick(cards), dict) and card:
            card.pop(choices(sorted(card)))
        elif kind == "swap":
            i, j = choices(range(len(cards))), choices(range(len(cards)))
            cards[i], cards[j] = cards[j], cards[i]
    return out


def _places(obj: Any, depth: int = 0):  # type: ignore[no-untyped-def]
    """(container, key) of every value of a position object, three levels down, its rules and
    catalogue aside."""
    if depth >= 3:
        return
    items = (obj.items() if isinstance(obj, dict) else enumerate(obj)
             if isinstance(obj, list) else ())
    for key, value in items:
        if key in ("format", "game", "rules", "catalogue"):
            continue
        yield obj, key
        yield from _places(value, depth + 1)


def accepted_start(game: Game, obj: dict[str, Any]) -> Any:
    """The rules of the start `obj` describes, or None when the game's reader refuses it."""
    from versus.engine.api import rules_for_position
    from versus.engine.errors import PositionError, RulesetError

    try:
        return rules_for_position(game, json.dumps(obj))
    except (PositionError, RulesetError):
        return None


def accepted_mutations(game: Game, text: str, ids: Sequence[str], seed: bytes,
                       wanted: int) -> list[Any]:
    """The first `wanted` mutated copies of the start `text` (one change each, a fixed
    sequence from `seed`) that the reader accepts and that differ from the start itself."""
    import random

    rng = random.Random(seed)  # which mutations: nothing secret
    obj = json.loads(text)
    original = accepted_start(game, obj)
    found: list[Any] = []
    for _ in range(5000):
        rules = accepted_start(game, mutate_position(obj, rng.choice, ids, 1))
        if rules is not None and rules != original and rules not in found:
            found.append(rules)
            if len(found) == wanted:
                return found
    raise AssertionError("no accepted mutation")
