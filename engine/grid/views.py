# What one player may see of a grid game (SPEC Part 9, "Views and narration"): its private
# knowledge and its view of the public state (the narration of each step: narrate.py; the
# scene every shell draws: scene.py, built from this view).
#
# How: `GridKnowledge` records the identity of every card dealt to its player (the protocol
# calls `learn`). `view` builds a `GridView` holding the public state plus the identities the
# player knows, so whatever is built from a view can name no other card. The fields that name
# cards (grid, hands, decks, graveyards, modifiers) are built at their first read, from the
# state and a copy of the knowledge taken when the view was made: local play makes a view at
# every decision, and a player that reads none of them (a random one) pays nothing for them.
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..api import DecisionKind, Finished, Pending
from .notation import GridInput, format_input
from .state import DECK, GridState, cell_name, decision, legal_tuple, on_grid


class GridKnowledge:
    """A player's private knowledge: the card ids of the handles dealt to it."""

    def __init__(self, player: int) -> None:
        if player not in (0, 1):
            raise ValueError(f"grid knowledge is for player 0 or 1, got {player!r}")
        self.player = player
        self.cards: dict[int, str] = {}

    def learn(self, handle: int, card_id: str) -> None:
        if type(handle) is not int or handle < 0 or not isinstance(card_id, str):
            raise ValueError(f"learn: bad handle or card id ({handle!r}, {card_id!r:.40})")
        self.cards[handle] = card_id


def known_id(s: GridState, h: int, knowledge: GridKnowledge | None) -> str | None:
    """The card id of h if public, or known to the knowledge's player; else None."""
    i = s.ident[h]
    if i >= 0:
        return s.catalogue.cards[i].id
    if knowledge is not None:
        return knowledge.cards.get(h)
    return None


@dataclass(frozen=True, slots=True)
class CellView:
    cell: str
    handle: int
    controller: int
    up: bool
    card: str | None  # None: hidden from this player
    weaken: int = 0
    boost: int = 0
    shield: bool = False


@dataclass(frozen=True)
class GridView:
    player: int
    size: int
    first: int
    active: int
    turn: int
    grid: tuple[CellView, ...]
    hand: tuple[tuple[int, str | None], ...]
    opponent_hand: tuple[tuple[int, str | None], ...]
    decks: tuple[int, ...]
    graveyards: tuple[tuple[tuple[int, str], ...], ...]
    modifiers: tuple[tuple[int, str], ...]
    decision: Pending | Finished
    legal_actions: tuple[GridInput, ...] = field(default=())
    #: the match's rules and card data (the external bot driver's hello carries them)
    rules: Any = field(default=None, compare=False, repr=False)
    catalogue: Any = field(default=None, compare=False, repr=False)
    #: the public state the view shows (no hidden identity: a `py:` bot's encoding reads it)
    state: Any = field(default=None, compare=False, repr=False)

    def __getattr__(self, name: str) -> Any:
        # Called only for a field not set yet: `view` sets the cheap fields and leaves the
        # ones that name cards (LAZY) to the first read, from what it kept in `_lazy` (the
        # state and a copy of the knowledge then). A chooser that reads no view, or only the
        # decision, pays none of it; any read gets the values an eager build would have had.
        lazy = self.__dict__.get("_lazy") if name in LAZY else None
        if lazy is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        parts = _named_parts(*lazy)
        self.__dict__.update(parts)  # frozen: set as the dataclass's own __init__ would
        return parts[name]

    def card_ids(self) -> set[str]:
        """Every card id this view names (the leak tests compare it with what is allowed)."""
        ids = {c.card for c in self.grid if c.card}
        ids |= {cid for _, cid in (*self.hand, *self.opponent_hand) if cid}
        ids |= {cid for g in self.graveyards for _, cid in g}
        ids |= {cid for _, cid in self.modifiers}
        return ids

    def to_dict(self) -> dict[str, Any]:
        return {
            "player": self.player, "size": self.size, "first": self.first,
            "active": self.active, "turn": self.turn,
            "grid": [{"cell": c.cell, "handle": c.handle, "controller": c.controller,
                      "up": c.up, "card": c.card, "weaken": c.weaken, "boost": c.boost,
                      "shield": c.shield} for c in self.grid],
            "hand": [[h, cid] for h, cid in self.hand],
            "opponent_hand": [[h, cid] for h, cid in self.opponent_hand],
            "decks": list(self.decks),
            "graveyards": [[[h, cid] for h, cid in g] for g in self.graveyards],
            "modifiers": [[h, cid] for h, cid in self.modifiers],
            "decision": _decision_dict(self.decision),
            "legal": [format_input(a) for a in self.legal_actions],
        }


def _decision_dict(d: Pending | Finished) -> dict[str, Any]:
    if isinstance(d, Finished):
        return {"kind": "finished", "outcome": d.outcome, "winner": d.winner}
    return {"kind": d.kind.value, "player": d.player, "label": d.label}


#: the view's fields built at their first read (GridView.__getattr__)
LAZY = frozenset({"grid", "hand", "opponent_hand", "decks", "graveyards", "modifiers"})
_new_view = object.__new__


def view(s: GridState, player: int, knowledge: GridKnowledge) -> GridView:
    if player not in (0, 1):
        raise ValueError(f"a grid view is for player 0 or 1, got {player!r}")
    mine = knowledge if knowledge is not None and knowledge.player == player else None
    d = decision(s)
    decides = isinstance(d, Pending) and d.player == player and d.kind in _PLAYER_KINDS
    v = _new_view(GridView)
    # the fields set straight into the instance (as freeze does for states): the LAZY ones
    # from the state and a copy of the knowledge now (it learns more cards later)
    v.__dict__.update(
        player=player, size=s.rules.size, first=s.first, active=s.active, turn=s.turn,
        decision=d, legal_actions=legal_tuple(s) if decides else (), rules=s.rules,
        catalogue=s.catalogue, state=s,
        _lazy=(s, player, dict(mine.cards) if mine is not None else {}))
    return v


def _named_parts(s: GridState, player: int, known: dict[int, str]) -> dict[str, Any]:
    """The LAZY fields of player's view of s, `known` its knowledge's cards."""
    # known_id inlined over local names
    holder, ident_col, ids = s.holder, s.ident, s.catalogue.ids

    def ident(h: int) -> str | None:
        # own cards: known from the knowledge; others only when public
        i = ident_col[h]
        if i >= 0:
            return ids[i]
        return known.get(h) if holder[h] == player else None

    size = s.rules.size
    ctrl, up, weaken, boost, shield, cell = s.ctrl, s.up, s.weaken, s.boost, s.shield, s.cell
    get = _CELL_VIEWS.get
    # ident(h) inlined (a call per cell costs as much as the rest of the cell's work); the grid
    # cards found by C-level scans of the zone column, not a loop over every handle
    grid = tuple([get(key) or _cell_view(key)
                  for c, h in sorted([(cell[h], h) for h in on_grid(s.zone)])
                  for key in ((size, c, h, ctrl[h], up[h],
                               ids[ident_col[h]] if ident_col[h] >= 0
                               else known.get(h) if holder[h] == player else None,
                               weaken[h], boost[h], shield[h]),)])
    graveyards, modifiers = _public(s, ids)
    return {"grid": grid, "hand": tuple([(h, ident(h)) for h in s.hand(player)]),
            "opponent_hand": tuple([(h, ident(h)) for h in s.hand(1 - player)]),
            "decks": _deck_counts(s), "graveyards": graveyards, "modifiers": modifiers}


#: the last (graves, modifiers, ids, (graveyards, modifiers) named): a step that buries no
#: card keeps the state's graves and modifiers tuples (copy on write, state.py), so most views
#: reuse the last one's names instead of naming every buried card again. Sound because a
#: graveyard or modifier card is public, and a public card's identity never changes.
_LAST_PUBLIC: tuple[Any, ...] = (None, None, None, None)


def _public(s: GridState, ids: tuple[str, ...]
            ) -> tuple[tuple[tuple[tuple[int, str], ...], ...], tuple[tuple[int, str], ...]]:
    """The graveyards and the modifiers, each card with its id."""
    global _LAST_PUBLIC
    graves, modifiers, last = s.graves, s.modifiers, _LAST_PUBLIC
    if last[0] is graves and last[1] is modifiers and last[2] is ids:
        return last[3]  # type: ignore[no-any-return]
    ident = s.ident
    named = (tuple([tuple([(h, ids[ident[h]]) for h in g]) for g in graves]),
             tuple([(h, ids[ident[h]]) for h in modifiers]))
    _LAST_PUBLIC = (graves, modifiers, ids, named)  # one tuple: swapped whole (threads)
    return named


#: the one CellView of each field set, keyed (size, cell index, handle, controller, up, card,
#: weaken, boost, shield): a cell changes seldom from one view to the next, and a dict lookup
#: costs a fraction of a frozen dataclass's construction (bounded: cleared when big)
_CELL_VIEWS: dict[tuple[Any, ...], CellView] = {}


def _cell_view(key: tuple[Any, ...]) -> CellView:
    if len(_CELL_VIEWS) > 100_000:
        _CELL_VIEWS.clear()
    size, c, h, ctrl, up, card, weaken, boost, shield = key
    cv = _CELL_VIEWS[key] = CellView(cell_name(c, size), h, ctrl, bool(up), card, weaken,
                                     boost, bool(shield))
    return cv


def _deck_counts(s: GridState) -> tuple[int, ...]:
    """`deck_count` of each hidden deck, from the zone column's slices (counted in C)."""
    n, zone = s.rules.deck_size, s.zone
    if s.rules.shared:
        return (zone.count(DECK),)
    return (zone[:n].count(DECK), zone[n:].count(DECK))


#: the decisions whose view lists the legal inputs (a player's own)
_PLAYER_KINDS = (DecisionKind.TURN, DecisionKind.CHOICE)
