# The one full-information referee loop over the Game interface (engine/api.py): it plays a
# whole game locally, answering each DEAL from a fixed order of each hidden deck (and telling
# the owner's knowledge which card it was dealt), each REVEAL with the true card and each
# CHANCE from a seeded stream; TURN and CHOICE go to the players. Games' local referees
# (engine/grid/referee.py), `versus bot-check`, the bot benchmarks and the tests use it; a real
# match is dealt, revealed and rolled by the protocol instead.
#
# How: `LocalPlay.advance(choose)` answers the one pending decision, `play(choose)` runs to the
# end, `play_async(choose)` does the same with players that are awaited (bots over a pipe, a
# bot thinking in a thread), `play_random(picks)` with random players that read the legal list
# only (the engine benchmarks: no view built, no chooser's frames), and `to_player()` runs the
# automatic decisions up to the next one a player answers. Randomness is an explicit input:
# the caller's `chance(n)` gives an outcome below n (a SHA-256 stream, never `random`), so a
# seed reproduces a game exactly.
#
# Who learns a dealt card: its owner, as in a match. A referee may keep some deals from their
# owner (`owner_learns`, e.g. Versus's referee for a card dealt to be discarded, which the rules
# reveal at once: the owner's knowledge stays as the referee always kept it).
from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .api import DecisionKind, Finished, Game, Pending, Setup

#: a player's answer: (its seat's view, the legal inputs, its seat) -> one of them
Choose = Callable[[Any, list[Any], int], Any]
#: the same, awaited
ChooseAsync = Callable[[Any, list[Any], int], Awaitable[Any]]
#: a random player's pick: an index below n (n >= 1)
Pick = Callable[[int], int]
# The loop answers DEAL, REVEAL and CHANCE itself; a player answers TURN and CHOICE. (The kinds
# as constants: an enum member read from its class is a descriptor call in 3.11, and the loop
# reads them for every input.)
_DEAL, _REVEAL = DecisionKind.DEAL, DecisionKind.REVEAL
_TURN, _CHOICE = DecisionKind.TURN, DecisionKind.CHOICE


class HashBelow:
    """A seeded SHA-256 stream of integers below n (counter mode): deals and chance outcomes of
    local play. `width`: how many bytes of each digest make the integer (None: all 32)."""

    def __init__(self, seed: bytes, width: int | None = None) -> None:
        self.seed, self.width, self.counter = seed, width, 0

    def below(self, n: int) -> int:
        self.counter += 1
        digest = hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
        return int.from_bytes(digest[:self.width], "big") % n

    def shuffle(self, items: Sequence[Any]) -> list[Any]:
        """A Fisher-Yates shuffle of `items` (a new list)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def pool_deal(game: Game, rules: Any, catalogue: Any, seed: bytes
              ) -> tuple[dict[int, str], list[list[int]]]:
    """A deal of any game for local play: the card data's ids shuffled by a stream of `seed`,
    handle h getting the h-th; each hidden deck dealt in handle order."""
    ids = list(game.card_ids(catalogue))
    order = HashBelow(seed + b"/deal", 8).shuffle(range(len(ids)))
    decks = game.decks(rules)
    return {h: ids[order[h]] for d in decks for h in d.handles}, [list(d.handles) for d in decks]


def local_deal(game: Game, rules: Any, catalogue: Any, seed: bytes
               ) -> tuple[dict[int, str], list[list[int]]]:
    """The deal of a local game of `game` (card id per handle, each hidden deck's deal order):
    the game's optional member `local_deal(rules, catalogue, seed)` (a game that plays with
    built decks: its recommended ones), else `pool_deal`."""
    member = getattr(game, "local_deal", None)
    if member is None:
        return pool_deal(game, rules, catalogue, seed)
    return member(rules, catalogue, seed)  # type: ignore[no-any-return]


@dataclass
class LocalPlay:
    """One game played with full information (see the module note). `identity`: the card id of
    every hidden handle; `orders`: each hidden deck's deal order (by `Game.decks` index)."""

    game: Game
    state: Any
    identity: Mapping[int, str] | Sequence[str]
    orders: Sequence[Sequence[int]]
    chance: Callable[[int], int]
    knowledge: list[Any] = field(default_factory=list)
    dealt: list[int] = field(default_factory=list)
    inputs: int = 0
    on_input: Callable[[Any, Any], None] | None = None  # (state before, input), for a history
    #: whether a DEAL's owner learns its card (None: always, as in a match)
    owner_learns: Callable[[Pending], bool] | None = None

    def __post_init__(self) -> None:
        if not self.knowledge:
            self.knowledge = [self.game.new_knowledge(p) for p in range(self.game.players)]
        if not self.dealt:
            self.dealt = [0] * len(self.orders)

    @classmethod
    def start(cls, game: Game, setup: Setup, identity: Mapping[int, str] | Sequence[str],
              orders: Sequence[Sequence[int]], chance: Callable[[int], int]) -> LocalPlay:
        return cls(game, game.new_game(setup), identity, orders, chance)

    def view(self, player: int) -> Any:
        return self.game.view(self.state, player, self.knowledge[player])

    def automatic(self, d: Pending) -> Any:
        """The input answering a DEAL (the owner learns its card), REVEAL or CHANCE."""
        game = self.game
        if d.kind is _DEAL:
            h = self.orders[d.deck][self.dealt[d.deck]]
            self.dealt[d.deck] += 1
            assert d.player is not None
            if self.owner_learns is None or self.owner_learns(d):
                self.knowledge[d.player].learn(h, self.identity[h])
            return game.deal_input(h)
        if d.kind is _REVEAL:
            return game.reveal_input(d.handle, self.identity[d.handle])
        return game.legal_actions(self.state)[self.chance(d.outcomes)]

    def apply(self, inp: Any) -> None:
        if self.on_input is not None:
            self.on_input(self.state, inp)
        self.state = self.game.step(self.state, inp)
        self.inputs += 1

    def to_player(self, max_inputs: int = 100_000) -> Pending | Finished:
        """Answer the automatic decisions up to the next TURN or CHOICE (or the end)."""
        for _ in range(max_inputs):
            d = self.game.decision(self.state)
            if isinstance(d, Finished) or d.kind is _TURN or d.kind is _CHOICE:
                return d
            self.apply(self.automatic(d))
        raise RuntimeError(f"{self.game.id}: no player decision within {max_inputs} inputs")

    def advance(self, choose: Choose) -> Any:
        """Answer the pending decision (a player's through `choose`); the input applied."""
        d = self.game.decision(self.state)
        if isinstance(d, Finished):
            raise RuntimeError(f"{self.game.id}: the game is over ({d})")
        return self._answer(d, choose)

    def _answer(self, d: Pending, choose: Choose) -> Any:
        if d.kind is not _TURN and d.kind is not _CHOICE:
            inp = self.automatic(d)
        else:
            assert d.player is not None
            inp = choose(self.view(d.player), list(self.game.legal_actions(self.state)),
                         d.player)
        self.apply(inp)
        return inp

    def play(self, choose: Choose, max_inputs: int = 100_000) -> Finished:
        """Play to the end; RuntimeError when the game has not ended within `max_inputs`."""
        return self._run(choose, None, max_inputs)

    def play_random(self, picks: Sequence[Pick], max_inputs: int = 100_000) -> Finished:
        """Random self-play (the engine benchmarks): seat p answers each of its TURN and CHOICE
        decisions with `legal[picks[p](len(legal))]`, the game's full legal list asked every
        time and the input applied through the checked `step`; no view is built, since a
        random player reads none."""
        return self._run(None, picks, max_inputs)

    def _run(self, choose: Choose | None, picks: Sequence[Pick] | None, max_inputs: int
             ) -> Finished:
        # `advance`'s loop with the game's members and the callbacks bound once, `apply`
        # inlined and the decision kinds compared by identity: it runs once per input, and
        # for a fast engine its own calls were a fifth of a step
        game, knowledge = self.game, self.knowledge
        decision, step, legal, view = game.decision, game.step, game.legal_actions, game.view
        automatic, on_input = self.automatic, self.on_input
        for _ in range(max_inputs):
            state = self.state
            d = decision(state)
            if isinstance(d, Finished):
                return d
            kind = d.kind
            if kind is not _TURN and kind is not _CHOICE:
                inp = automatic(d)
            elif picks is not None:
                actions = legal(state)
                # (a turn's or a choice's player is set: None is a chance decision's)
                inp = actions[picks[d.player](len(actions))]  # type: ignore[index]
            else:
                p: int = d.player  # type: ignore[assignment]
                inp = choose(view(state, p, knowledge[p]), list(legal(state)), p)  # type: ignore[misc]
            if on_input is not None:
                on_input(state, inp)
            self.state = step(state, inp)
            self.inputs += 1
        raise self._unended(max_inputs)

    async def play_async(self, choose: ChooseAsync, max_inputs: int = 100_000) -> Finished:
        """`play` with players that are awaited (whatever the caller's event loop)."""
        while self.inputs < max_inputs:
            d = self.to_player(max_inputs - self.inputs)
            if isinstance(d, Finished):
                return d
            assert d.player is not None
            self.apply(await choose(self.view(d.player),
                                    list(self.game.legal_actions(self.state)), d.player))
        raise self._unended(max_inputs)

    def _unended(self, max_inputs: int) -> RuntimeError:
        return RuntimeError(f"{self.game.id}: the game did not end within {max_inputs} inputs")
