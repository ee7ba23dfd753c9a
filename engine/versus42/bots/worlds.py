# Determinization: turning what one player may know into a full-information "world" a bot can
# simulate (Cowling, Powley & Whitehouse 2012, "Information Set Monte Carlo Tree Search").
#
# How it works. A `PlayerView` is the public state plus the player's own knowledge. Every
# handle whose identity the view hides (the opponent's hand and verso field cards, both decks,
# cards destroyed face down) gets a distinct catalogue card drawn uniformly from the cards the
# view has not shown anywhere: one copy of each card, as in shared-pool mode where the pool is
# the catalogue. Deck order is not sampled: the public state knows a deck only as a set of
# handles whose identities are exchangeable, so a Deal answered with a uniformly random deck
# handle is the same distribution as a shuffled deck. Reveals are answered from the sample.
#
# Why it reads the state: simulations need the engine's public `State` behind the view
# (`PlayerView.public_state`). It is public by construction (the engine never puts a hidden
# identity in it), so reading it gives a bot nothing a person's screen does not show.
#
# A `World` adds one draw order per deck: a Deal answered by the first handle of the order still
# in the deck. Why: the search plays many actions in one world, and with the draws fixed by the
# world every action meets the same cards however many turns later it draws them (common random
# numbers through the whole playout, not only for the draws right after the action), and a
# world's future is a pure function of the actions played, so no generator is seeded per action.
#
# Randomness is the caller's generator (`Rng`: the shell's, engine/shell.py BotRequest); the
# engine imports no `random`.
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..actions import Deal, Reveal
from ..decisions import DealDecision, RevealDecision
from ..game import DECK, State, step
from ..views import PlayerView

_DEALS: dict[int, Deal] = {}
_REVEALS: dict[tuple[int, str], Reveal] = {}


class Rng(Protocol):
    """What the bots draw from (a `random.Random` given by the shell)."""

    def randrange(self, start: int, stop: int = ..., /) -> int: ...

    def sample(self, population: Sequence[Any], k: int) -> list[Any]: ...

    def choice(self, seq: Sequence[Any]) -> Any: ...

    def getrandbits(self, k: int, /) -> int: ...

    def shuffle(self, x: list[Any], /) -> None: ...


#: a new generator seeded with an integer (BotRequest.seeded): one seed, the same draws
Seeded = Callable[[int], Rng]


def public_state(view: PlayerView) -> State:
    """The public engine state a view shows (no hidden identity in it, see the module note)."""
    return view.public_state


def unseen_cards(view: PlayerView) -> list[str]:
    """Catalogue ids this player has not seen anywhere: the pool hidden handles come from."""
    return list(Determinizer(view).pool)


def hidden_handles(view: PlayerView) -> list[int]:
    return list(Determinizer(view).hidden)


class Determinizer:
    """Samples worlds for one view: known ids fixed, hidden handles get distinct unseen ids.

    If the catalogue has fewer unseen cards than hidden handles (a small custom pool, or
    decklists with repeated cards), the handles left over reuse ids drawn with replacement."""

    __slots__ = ("all_ids", "hidden", "known", "pool")

    def __init__(self, view: PlayerView) -> None:
        s = public_state(view)
        self.known: list[str | None] = [view.identity(h) for h in range(2 * s.n)]
        self.hidden = [h for h, cid in enumerate(self.known) if cid is None]
        seen = set(self.known)
        self.pool = [c.id for c in s.cat.cards if c.id not in seen]
        self.all_ids = [c.id for c in s.cat.cards]

    def sample(self, rng: Rng) -> list[str]:
        ids = self.known[:]
        pool = self.pool
        picked = rng.sample(pool, min(len(self.hidden), len(pool)))
        for i, h in enumerate(self.hidden):
            ids[h] = picked[i] if i < len(picked) else rng.choice(self.all_ids)
        return ids  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class World:
    """One sampled completion of a view: a card id per handle and each player's draw order
    (the deck's handles at sampling time, shuffled)."""

    ids: list[str]
    orders: tuple[tuple[int, ...], tuple[int, ...]]


def sample_world(determinizer: Determinizer, state: State, rng: Rng) -> World:
    """A world for `determinizer`'s view (its `sample`) with a uniformly random draw order of
    each deck of `state` (the view's public state)."""
    return World(determinizer.sample(rng), draw_orders(state, rng))


def draw_orders(state: State, rng: Rng) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each player's deck handles in `state`, in a uniformly random order."""
    n, zone = state.n, state.zone
    orders = []
    for p in (0, 1):
        deck = [h for h in range(p * n, p * n + n) if zone[h] == DECK]
        rng.shuffle(deck)
        orders.append(tuple(deck))
    return orders[0], orders[1]


def determinize(view: PlayerView, rng: Rng) -> list[str]:
    """A card id for every handle: the view's known ones, distinct unseen ids for the rest."""
    return Determinizer(view).sample(rng)


def deal_input(handle: int) -> Deal:
    d = _DEALS.get(handle)
    if d is None:
        d = _DEALS[handle] = Deal(handle)
    return d


def reveal_input(handle: int, card_id: str) -> Reveal:
    key = (handle, card_id)
    r = _REVEALS.get(key)
    if r is None:
        r = _REVEALS[key] = Reveal(handle, card_id)
    return r


def resolve_chance(state: State, ids: Sequence[str], rng: Rng) -> State:
    """Answer Deal and Reveal decisions from a determinization until a player must decide."""
    while True:
        d = state.pending
        if isinstance(d, RevealDecision):
            state = step(state, reveal_input(d.handle, ids[d.handle]))
        elif isinstance(d, DealDecision):
            zone, n = state.zone, state.n
            deck = [h for h in range(d.player * n, d.player * n + n) if zone[h] == DECK]
            state = step(state, deal_input(deck[rng.randrange(len(deck))]))
        else:
            return state


def resolve_world(state: State, world: World) -> State:
    """Answer Deal and Reveal decisions from `world` until a player must decide: a Deal takes
    the first handle of the deck's draw order still in the deck."""
    while True:
        d = state.pending
        if isinstance(d, RevealDecision):
            state = step(state, reveal_input(d.handle, world.ids[d.handle]))
        elif isinstance(d, DealDecision):
            zone = state.zone
            # no rule moves a card back into a deck, so the order holds every card a Deal takes
            h = next(h for h in world.orders[d.player] if zone[h] == DECK)
            state = step(state, deal_input(h))
        else:
            return state
