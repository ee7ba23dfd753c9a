# Test helpers for the grid game: a small catalogue with predictable cards (a character
# "water7" has 7 on every side; "arrow" is Water with top K and 1 elsewhere), a `Scene` that
# builds a position card by card through the game's own position reader, and `resolve`, which
# answers deals and reveals with the scene's true identities so a test sees only the turns,
# choices and chance decisions it is about.
from __future__ import annotations

import json
from typing import Any

from versus.engine.api import DecisionKind, Finished, Pending
from versus.engine.grid import GRID
from versus.engine.grid.cards import Catalogue, load_catalogue
from versus.engine.grid.notation import GridInput, Verb, parse_input
from versus.engine.grid.positions import load_position
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import GridState, cell_index, decision, step

ITEMS = [
    ("supply", "turn", {"op": "draw", "amount": 2}), ("bolt", "turn", {"op": "destroy"}),
    ("spyglass", "turn", {"op": "scout"}), ("march", "turn", {"op": "double"}),
    ("glider", "turn", {"op": "airdrop"}), ("bulwark", "free", {"op": "shield"}),
    ("warcry", "free", {"op": "boost", "amount": 2}),
    ("quick", "free", {"op": "draw", "amount": 1}),
    ("medic", "free", {"op": "recall"}), ("regicide", "modifier", {"op": "zero", "value": 13}),
    ("topsy", "modifier", {"op": "reverse"}),
    ("tide", "modifier", {"op": "bonus", "element": "water", "amount": 1}),
]
TRAPS = [("pitfall", {"op": "destroy"}), ("caltrops", {"op": "weaken", "amount": 2}),
         ("spring", {"op": "bounce"}), ("keg", {"op": "blast"})]


def catalogue_json() -> dict[str, Any]:
    cards: list[dict[str, Any]] = [
        {"id": f"{e}{v}", "name": f"{e.capitalize()} {v}", "kind": "character", "element": e,
         "sides": [v, v, v, v]}
        for e in ("water", "fire", "earth") for v in range(1, 14)]
    cards.append({"id": "arrow", "name": "Arrow", "kind": "character", "element": "water",
                  "sides": [13, 1, 1, 1]})
    cards += [{"id": i, "name": i.capitalize(), "kind": "item", "use": u, "effect": e}
              for i, u, e in ITEMS]
    cards += [{"id": i, "name": i.capitalize(), "kind": "trap", "effect": e} for i, e in TRAPS]
    return {"format": "versus-grid-catalogue/1", "cards": cards}


CAT: Catalogue = load_catalogue(json.dumps(catalogue_json()))
FILLER = "earth1"  # what a deck card turns out to be unless a test says otherwise


class Scene:
    """A position built card by card (handles taken lowest first from the player's deck, or
    from the shared deck), with the true identity of every card it places."""

    def __init__(self, **options: str) -> None:
        self.rules = GridRules.from_options(options)
        n = self.rules.cards
        self.cards: list[dict[str, Any]] = [{"zone": "deck"} for _ in range(n)]
        self.ids: dict[int, str] = {}
        self.graves: list[list[int]] = [[]] if self.rules.shared else [[], []]
        self.modifiers: list[int] = []

    def _take(self, p: int) -> int:
        n = self.rules.deck_size
        rng = range(2 * n) if self.rules.shared else range(p * n, p * n + n)
        for h in rng:
            if self.cards[h] == {"zone": "deck"} and h not in self.ids:
                return h
        raise AssertionError(f"player {p} has no deck card left")

    def grid(self, p: int, cell: str, card: str, up: bool = True) -> int:
        h = self._take(p)
        c: dict[str, Any] = {"zone": "grid", "holder": p, "controller": p, "cell": cell}
        if up:
            c.update(up=True, card=card)
        self.cards[h], self.ids[h] = c, card
        return h

    def hand(self, p: int, card: str, public: bool = False) -> int:
        h = self._take(p)
        self.cards[h] = {"zone": "hand", "holder": p, "controller": p}
        if public:
            self.cards[h]["card"] = card
        self.ids[h] = card
        return h

    def grave(self, p: int, card: str) -> int:
        h = self._take(p)
        self.cards[h] = {"zone": "graveyard", "holder": p, "card": card}
        self.graves[0 if self.rules.shared else p].append(h)
        self.ids[h] = card
        return h

    def modifier(self, p: int, card: str) -> int:
        h = self._take(p)
        self.cards[h] = {"zone": "modifier", "holder": p, "controller": p, "card": card}
        self.modifiers.append(h)
        self.ids[h] = card
        return h

    def empty_decks(self) -> None:
        """Every card not placed yet goes to a graveyard (out of play): the decks are empty."""
        for h, c in enumerate(self.cards):
            if c == {"zone": "deck"} and h not in self.ids:
                p = 0 if self.rules.shared else h // self.rules.deck_size
                self.cards[h] = {"zone": "graveyard", "holder": p, "card": FILLER}
                self.graves[0 if self.rules.shared else p].append(h)
                self.ids[h] = FILLER

    def position(self, active: int = 0, turn: int = 0, **fields: Any) -> dict[str, Any]:
        obj = {"format": "versus-position/1", "game": "grid",
               "rules": self.rules.to_options(), "first": 0, "active": active, "turn": turn,
               "acted": False, "placements": 1, "airdrop": False, "cards": self.cards,
               "graveyards": self.graves, "modifiers": self.modifiers, "tasks": [],
               "decision": {"kind": "turn", "fields": [active]}, "result": None}
        obj.update(fields)
        return obj

    def state(self, active: int = 0, turn: int = 0, **fields: Any) -> GridState:
        return load_position(json.dumps(self.position(active, turn, **fields)), CAT)

    def identity(self, h: int) -> str:
        return self.ids.get(h, FILLER)


def resolve(s: GridState, scene: Scene) -> GridState:
    """Answer deals (lowest undealt handle) and reveals (the scene's identities) until a turn,
    choice or chance decision, or the end."""
    while True:
        d = decision(s)
        if isinstance(d, Finished) or d.kind in (DecisionKind.TURN, DecisionKind.CHOICE,
                                                  DecisionKind.CHANCE):
            return s
        if d.kind is DecisionKind.DEAL:
            lo = 0 if s.rules.shared else d.deck * s.rules.deck_size
            h = next(h for h in range(lo, len(s.zone)) if s.zone[h] == 0)
            s = step(s, GridInput(Verb.DEAL, h))
        else:
            s = step(s, GridInput(Verb.REVEAL, d.handle, card=scene.identity(d.handle)))


def play(s: GridState, scene: Scene, *texts: str) -> GridState:
    """Step each input text (resolving deals and reveals after each)."""
    s = resolve(s, scene)
    for text in texts:
        s = resolve(step(s, parse_input(text)), scene)
    return s


def at(s: GridState, cell: str) -> int:
    """The handle on a cell, -1 if empty."""
    return s.board().get(cell_index(cell, s.size), -1)


def pending(s: GridState) -> Pending | Finished:
    return decision(s)


def card_id(s: GridState, h: int) -> str | None:
    c = s.card(h)
    return c.id if c else None


__all__ = ["CAT", "GRID", "Scene", "at", "card_id", "pending", "play", "resolve"]
