# What one player may see of a grid game (SPEC Part 9, "Views and narration"): its private
# knowledge, its view of the public state, and the narration of each step.
#
# How: `GridKnowledge` records the identity of every card dealt to its player (the protocol
# calls `learn`). `view` builds a `GridView` holding the public state plus the identities the
# player knows; `narrate` tells one step by comparing the state before and after it, naming a
# card only when its identity is public in `after` or in the viewer's knowledge. Why by
# comparison: every effect of a step (a draw, a battle's loser, a trap, an item) shows up as a
# change of zone, face or grid cell, so one diff covers every rule without re-running it.
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..api import Finished, Pending
from .notation import GridInput, Verb, format_input
from .state import GridState, Zone, cell_name, decision, legal_actions


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


def view(s: GridState, player: int, knowledge: GridKnowledge) -> GridView:
    if player not in (0, 1):
        raise ValueError(f"a grid view is for player 0 or 1, got {player!r}")
    mine = knowledge if knowledge is not None and knowledge.player == player else None

    def ident(h: int) -> str | None:
        # own cards: known from the knowledge; others only when public
        return known_id(s, h, mine if s.holder[h] == player else None)

    grid = tuple(
        CellView(cell_name(c, s.size), h, s.ctrl[h], bool(s.up[h]), ident(h), s.weaken[h],
                 s.boost[h], bool(s.shield[h]))
        for c, h in sorted(s.board().items()))
    d = decision(s)
    decides = isinstance(d, Pending) and d.player == player
    legal = tuple(legal_actions(s)) if decides and d.kind.value in ("turn", "choice") else ()
    return GridView(
        player, s.size, s.first, s.active, s.turn, grid,
        tuple((h, ident(h)) for h in s.hand(player)),
        tuple((h, ident(h)) for h in s.hand(1 - player)),
        tuple(s.deck_count(k) for k in range(1 if s.rules.shared else 2)),
        tuple(tuple((h, s.catalogue.cards[s.ident[h]].id) for h in g) for g in s.graves),
        tuple((h, s.catalogue.cards[s.ident[h]].id) for h in s.modifiers),
        d, legal, s.rules, s.catalogue, s)


# --- narration -----------------------------------------------------------------------------------


def _who(p: int, viewer: int) -> str:
    if viewer not in (0, 1):
        return f"Player {p}"
    return "You" if p == viewer else "The opponent"


def _verb(p: int, viewer: int, base: str) -> str:
    return base if p == viewer else base + "s"


def _name(s: GridState, h: int, viewer: int, knowledge: GridKnowledge | None) -> str:
    mine = knowledge if (knowledge is not None and viewer in (0, 1)
                         and knowledge.player == viewer and s.holder[h] == viewer) else None
    cid = known_id(s, h, mine)
    if cid is None:
        return f"card {h}"
    return f"{s.catalogue.card(cid).name} (card {h})"


def narrate(before: GridState, inp: GridInput, after: GridState, viewer: int,
            knowledge: GridKnowledge | None) -> list[str]:
    """What `viewer` (0, 1, or another value for a third-person account) may learn from the
    step before --inp--> after; a card is named only if public in `after` or the viewer's own
    known card."""
    out: list[str] = []

    def name(h: int) -> str:
        return _name(after, h, viewer, knowledge)

    d = before.decision
    actor = d[1] if len(d) > 1 and d[0] not in (1, 8) else -1
    v = inp.verb
    if v is Verb.FIRST:
        out.append(f"{_who(inp.player, viewer)} {_verb(inp.player, viewer, 'play')} first "
                   "(coin flip)")
    elif v is Verb.DEAL:
        out.append(f"{_who(actor, viewer)} drew {name(inp.handle)}")
    elif v is Verb.REVEAL:
        out.append(f"{name(inp.handle)} is revealed")
    elif v is Verb.PLACE:
        face = "face up" if inp.up else "face down"
        out.append(f"{_who(actor, viewer)} placed {name(inp.handle)} {face} on {inp.cell}")
    elif v is Verb.USE:
        out.append(f"{_who(actor, viewer)} used {name(inp.handle)} from the hand")
    elif v is Verb.FREE:
        out.append(f"{_who(actor, viewer)} used {name(inp.handle)} as a FREE item")
    elif v is Verb.PASS:
        out.append(f"{_who(actor, viewer)} passed (no FREE item)")
    elif v is Verb.END:
        out.append(f"{_who(actor, viewer)} ended the turn")
    elif v is Verb.PICK:
        out.append(f"{_who(actor, viewer)} picked {name(inp.handle)}")
    elif v is Verb.DUEL:
        out.append(f"Sudden death: {name(inp.handle)} (player 0) against {name(inp.other)} "
                   f"(player 1)")
    # the consequences: cards turned face up, moved to a graveyard, back to a hand, modifiers
    for h in range(len(after.zone)):
        zb, za = before.zone[h], after.zone[h]
        if zb == Zone.GRID and za == Zone.GRID and not before.up[h] and after.up[h] and \
                not (v is Verb.PLACE and inp.handle == h):
            out.append(f"{name(h)} on {cell_name(after.cell[h], after.size)} turned face up")
        if za == Zone.GRAVEYARD and zb != Zone.GRAVEYARD:
            where = (f" from {cell_name(before.cell[h], before.size)}" if zb == Zone.GRID
                     else "")
            out.append(f"{name(h)} went to the graveyard{where}")
        if za == Zone.HAND and zb in (Zone.GRID, Zone.GRAVEYARD):
            owner = after.ctrl[h]
            whose = "your" if owner == viewer else ("the opponent's" if viewer in (0, 1)
                                                    else f"player {owner}'s")
            out.append(f"{name(h)} returned to {whose} hand")
        if za == Zone.MODIFIER and zb != Zone.MODIFIER:
            out.append(f"{name(h)} stays in play as a modifier")
        if after.weaken[h] > before.weaken[h] and za == Zone.GRID:
            out.append(f"{name(h)} is weakened by {after.weaken[h] - before.weaken[h]}")
    if after.turn != before.turn and not after.finished:
        out.append(f"{_who(after.active, viewer)} to play (turn {after.turn + 1})")
    if after.finished:
        res = decision(after)
        assert isinstance(res, Finished)
        if res.winner is None:
            out.append(f"The game ends in a draw ({res.outcome})")
        else:
            out.append(f"{_who(res.winner, viewer)} {_verb(res.winner, viewer, 'win')} "
                       f"({res.outcome})")
    return out


def narrate_start(s: GridState, viewer: int) -> list[str]:
    if s.first < 0:
        return ["a coin flip decides who plays first"]
    return ["you play first" if s.first == viewer else "the opponent plays first"]
