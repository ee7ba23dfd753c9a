# The legal list and `step` agree, for every built-in game (SPEC Part 3, §3.1): random games from
# many seeds, played by each game's full-information referee, and at every TURN, CHOICE or
# CHANCE every input `legal_actions` lists is stepped through the generic interface (with its
# state hash and next decision, as the protocol does), and its notation goes over the wire and
# back (the receiver parses it, canonical). Every deal of the next card and every reveal of a
# truly dealt card is stepped the same way. Why: a seat offered an input its own engine then
# cannot apply stops the match on itself, and the protocol can only say so (a LocalProtocolError,
# SPEC §4.9); the property keeps the list and the rules from drifting apart.
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from versus.engine.api import DecisionKind, Finished, Pending, Setup
from versus.engine.registry import BUILTIN_GAMES, get_game

CHOSEN = (DecisionKind.TURN, DecisionKind.CHOICE, DecisionKind.CHANCE)

#: a game variant's play: yields (state before, the referee's input) until the game ends, the
#: referee applying its input after the check
Play = Callable[[int], Iterator[tuple[Any, Any]]]


def _versus42(seed: int) -> Iterator[tuple[Any, Any]]:
    from versus.engine.hashing import HashRng
    from versus.engine.versus42 import default_catalogue
    from versus.engine.versus42.referee import Referee, random_chooser, random_deal
    from versus.engine.versus42.ruleset import Ruleset

    rules, raw = Ruleset(), f"versus42/{seed}".encode()
    ids, orders = random_deal(default_catalogue(), rules, HashRng(raw, "deal"))
    ref = Referee(rules, default_catalogue(), raw, ids, orders,
                  (random_chooser(HashRng(raw, "a")), random_chooser(HashRng(raw, "b"))))
    while ref.state.result is None:
        chosen = get_game("versus42").decision(ref.state).kind in CHOSEN
        yield ref.state, None if chosen else ref.next_input()
        ref.advance()


def _grid(shared: bool) -> Play:
    def play(seed: int) -> Iterator[tuple[Any, Any]]:
        from versus.engine.grid import GRID
        from versus.engine.grid.referee import random_game

        rules = GRID.rules_from_options({"deck": "shared"} if shared else {})
        ref = random_game(rules, GRID.default_catalogue(), f"grid/{seed}".encode())
        while isinstance(GRID.decision(ref.state), Pending):
            state = ref.state
            yield state, ref.advance()  # (states are values: the check sees the one before)
    return play


def _vanquishers(advanced: bool, any_deck: bool = False) -> Play:
    """`any_deck`: each seat brings the deck a decklist-mode peer draws when given none (any
    distinct cards of the catalogue, not a constructed deck), so every card's reveal is met."""
    def play(seed: int) -> Iterator[tuple[Any, Any]]:
        from tests.engine.vanquishers.referee import Game, Stream
        from versus.engine.vanquishers import VANQUISHERS as G
        from versus.engine.vanquishers.rules import Mode, Rules

        rules = Rules(mode=Mode.ADVANCED) if advanced else Rules()
        name = ("advanced" if advanced else "standard") + ("-any" if any_deck else "")
        decks = None
        if any_deck:
            ids = list(G.card_ids(G.default_catalogue()))
            stream = Stream(f"vanquishers-{name}/{seed}/decks")
            decks = tuple(stream.shuffle(ids)[:rules.deck_size] for _ in (0, 1))
        game = Game(rules, seed=f"vanquishers-{name}/{seed}", decks=decks)
        while not isinstance(G.decision(game.state), Finished):
            state = game.state
            yield state, game.advance()  # (states are values: the check sees the one before)
    return play


def _multiverse(seed: int) -> Iterator[tuple[Any, Any]]:
    """Dealt as a solo run deals (protocol/solo/run.py): a DEAL is the deck's next position, a
    REVEAL draws from the cards its deck has not revealed yet."""
    from versus.engine.hashing import HashRng
    from versus.engine.multiverse import MULTIVERSE as G

    rng = HashRng(f"multiverse/{seed}".encode(), "choices")
    rules = G.default_rules()
    decks = G.decks(rules)
    dealt = [0] * len(decks)
    s = G.new_game(Setup(rules, G.default_catalogue(), f"mv/{seed}".encode()))
    while isinstance(d := G.decision(s), Pending):
        if d.kind is DecisionKind.DEAL:
            inp = G.deal_input(decks[d.deck].first + dealt[d.deck])
            dealt[d.deck] += 1
        elif d.kind is DecisionKind.REVEAL:
            deck = next(i for i, x in enumerate(decks) if d.handle in x.handles)
            pool = G.unrevealed(s, deck)
            inp = G.reveal_input(d.handle, pool[rng.randrange(len(pool))])
        else:
            legal = list(G.legal_actions(s))
            inp = legal[rng.randrange(len(legal))]
        yield s, inp
        s = G.step(s, inp)


#: (game id, variant label, play, seeds) for every built-in game; a new game adds its line here.
#: Seeds are whole random games (about 0.1-0.6 s each: every listed input is stepped).
VARIANTS: list[tuple[str, str, Play, int]] = [
    ("versus42", "standard", _versus42, 10),
    ("grid", "decks", _grid(False), 8),
    ("grid", "shared", _grid(True), 8),
    ("vanquishers", "standard", _vanquishers(False), 3),
    ("vanquishers", "advanced", _vanquishers(True), 3),
    ("vanquishers", "standard-any-deck", _vanquishers(False, any_deck=True), 3),
    ("vanquishers", "advanced-any-deck", _vanquishers(True, any_deck=True), 3),
    ("multiverse", "solo", _multiverse, 10),
]


def test_every_built_in_game_is_covered() -> None:
    assert {game for game, *_ in VARIANTS} == set(BUILTIN_GAMES)


def _applies(game: Any, state: Any, inp: Any) -> None:
    """`inp` goes over the wire and is applied as the protocol applies it (core.py `_apply`)."""
    text = game.format_input(inp)
    parsed = game.parse_input(text)
    assert game.format_input(parsed) == text, f"{text!r} is not canonical after a round trip"
    after = game.step(state, parsed)
    game.state_hash(after)
    game.decision(after)


def _check_game(game_id: str, play: Play, seed: int) -> int:
    """Play one random game, checking every listed input and every dealt and revealed card;
    the number of inputs checked."""
    game = get_game(game_id)
    checked = 0
    for state, truth in play(seed):
        d = game.decision(state)
        assert isinstance(d, Pending)
        label = f"{game_id} seed {seed}, {d.kind.value} of player {d.player}"
        if d.kind in CHOSEN:
            legal = list(game.legal_actions(state))
            assert legal, f"{label}: no legal input listed"
            for inp in legal:
                try:
                    _applies(game, state, inp)
                except Exception as error:
                    raise AssertionError(f"{label}: listed {game.format_input(inp)!r} fails: "
                                         f"{type(error).__name__}: {error}") from error
                checked += 1
        elif truth is not None:  # the referee's true deal or reveal
            try:
                _applies(game, state, truth)
            except Exception as error:
                raise AssertionError(f"{label}: the true {game.format_input(truth)!r} fails: "
                                     f"{type(error).__name__}: {error}") from error
            checked += 1
    return checked


def _cases() -> list[Any]:
    return [pytest.param(game_id, play, seed, id=f"{game_id}-{variant}-{seed}")
            for game_id, variant, play, seeds in VARIANTS for seed in range(seeds)]


@pytest.mark.parametrize(("game_id", "play", "seed"), _cases())
def test_every_listed_input_steps_and_every_true_card_is_accepted(game_id: str, play: Play,
                                                                 seed: int) -> None:
    assert _check_game(game_id, play, seed) > 0
