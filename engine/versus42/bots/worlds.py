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
# Randomness is the caller's generator (`Rng`: the shell's, engine/shell.py BotRequest); the
# engine imports no `random`.
from __future__ import annotations

from collections.abc import Callable, Sequence
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
