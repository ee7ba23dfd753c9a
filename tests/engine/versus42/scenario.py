# Building precise positions for rule tests: lay out hands, decks and the field with the public
# position builder (engine/versus42/positions.py), then drive the game with real inputs. Deals and
# reveals are answered from the scenario's identity table, as a referee does: the position itself
# holds only public identities (recto cards), the scenario knows every card it placed.
from __future__ import annotations

from versus.engine.versus42 import (
    Action,
    Deal,
    DealDecision,
    PositionBuilder,
    Reveal,
    RevealDecision,
    Ruleset,
    State,
    TurnDecision,
    parse_input,
    step,
)
from versus.engine.versus42.catalogue import catalogue_version
from versus.engine.versus42.game import DECK

# Rule tests exercise the effect vocabulary through catalogue version 1's cards (the rules are
# the same for every card pool; version 1 stays shipped, and has e.g. the Location-step destroy
# that version 2 dropped). Tests of the current pool use default_catalogue().
CAT = catalogue_version(1)
# the identities of deck cards a test never declared, dealt after the declared ones
FILLER = ("lumen-sprite", "shade-mite")


class Scenario:
    def __init__(self, ruleset: Ruleset | None = None, tiles: str | None = None,
                 active: int = 0) -> None:
        self.rules = ruleset or Ruleset()
        # tiles: rows from 1 to 4, 5 letters each (W K G B), separated by spaces; by default
        # the layout of the seed b"scenario"
        self.builder = PositionBuilder(self.rules, CAT, tiles=tiles, layout_seed=b"scenario",
                                       active=active)
        self.ids: dict[int, str] = {}
        self.order: list[list[int]] = [[], []]

    @property
    def active(self) -> int:
        return self.builder.active  # type: ignore[return-value]

    @active.setter
    def active(self, player: int) -> None:
        self.builder.active = player

    def hand(self, p: int, card_id: str) -> int:
        h = self.builder.hand(p)
        self.ids[h] = card_id
        return h

    def field(self, p: int, card_id: str, area: str, recto: bool = True) -> int:
        h = self.builder.field(p, area, card_id if recto else None, recto=recto)
        self.ids[h] = card_id
        return h

    def absorbed(self, card_id: str, into: int) -> int:
        """An enemy card already absorbed by card `into` (its level goes up by one)."""
        h = self.builder.absorbed(into, card_id)
        self.ids[h] = card_id
        return h

    def deck(self, p: int, card_id: str) -> int:
        """A deck card; decks are dealt in the order they are declared."""
        h = self.builder.deck(p)
        self.ids[h] = card_id
        self.order[p].append(h)
        return h

    def empty_deck(self, p: int) -> None:
        """Eliminate the unused handles of player p (as if discarded long ago)."""
        for h in self.builder.unplaced(p):
            self.builder.eliminated(p, handle=h)

    def start(self) -> State:
        """The position, with the active player to play."""
        s = self.builder.build()
        assert s.pending == TurnDecision(s.active), s.position()
        # all undeclared handles stay in the deck, dealt after the declared ones
        for p in (0, 1):
            rest = [h for h in s.handles(p) if s.zone[h] == DECK and h not in self.order[p]]
            self.order[p] += rest
            for h in rest:
                self.ids.setdefault(h, FILLER[p])
        return s

    def auto(self, s: State) -> State:
        """Answer deals and reveals until a turn or choice decision (or the end)."""
        while True:
            d = s.pending
            if isinstance(d, DealDecision):
                h = next(h for h in self.order[d.player] if s.zone[h] == DECK)
                s = step(s, Deal(h))
            elif isinstance(d, RevealDecision):
                s = step(s, Reveal(d.handle, self.ids[d.handle]))
            else:
                return s

    def play(self, s: State, *texts: str) -> State:
        for text in texts:
            s = self.auto(step(s, parse_input(text)))
        return s


def area_of(s: State, h: int) -> str | None:
    return None if s.pos[h] < 0 else s.geom.names[s.pos[h]]


def act(text: str) -> Action:
    x = parse_input(text)
    assert isinstance(x, Action)
    return x
