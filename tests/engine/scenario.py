# Building precise positions for rule tests: start a real game, then lay out hands, decks and
# the field directly in the public state (the engine's own fields), and drive it with real
# inputs. Deals and reveals are answered from the scenario's identity table, as a referee does.
from __future__ import annotations

from versus.engine import (
    Action,
    Deal,
    DealDecision,
    Reveal,
    RevealDecision,
    Ruleset,
    State,
    default_catalogue,
    new_game,
    parse_input,
    step,
)
from versus.engine.game import DECK, FIELD, HAND, _has_turn_action

CAT = default_catalogue()
TILE_CODES = {"W": 0, "K": 1, "G": 2, "B": 3}


class Scenario:
    def __init__(self, ruleset: Ruleset | None = None, tiles: str | None = None,
                 active: int = 0) -> None:
        self.rules = ruleset or Ruleset()
        s = new_game(self.rules, CAT, b"scenario")
        s.tasks, s.pending = [], None
        if tiles is not None:
            # rows from 1 to 4, 5 letters each, separated by spaces: "WWWWW KKKKK ..."
            codes = tuple(TILE_CODES[ch] for ch in tiles.replace(" ", ""))
            assert len(codes) == 20
            s.tiles = codes
            s.blue = codes.index(3)
        s.zone = [DECK] * (2 * s.n)
        s.deck_n, s.hand_n = [s.n, s.n], [0, 0]
        s.active = active
        self.s = s
        self.ids: dict[int, str] = {}
        self.order: list[list[int]] = [[], []]
        self._free = [list(range(0, s.n)), list(range(s.n, 2 * s.n))]

    def _take(self, p: int, card_id: str) -> int:
        h = self._free[p].pop(0)
        self.ids[h] = card_id
        return h

    def hand(self, p: int, card_id: str) -> int:
        h = self._take(p, card_id)
        self.s.zone[h] = HAND
        self.s.deck_n[p] -= 1
        self.s.hand_n[p] += 1
        return h

    def field(self, p: int, card_id: str, area: str, recto: bool = True) -> int:
        h = self._take(p, card_id)
        s = self.s
        i = s.geom.index[area]
        assert s.board[i] < 0
        s.zone[h], s.pos[h], s.face[h] = FIELD, i, int(recto)
        s.board[i] = h
        if recto:
            s.ident[h] = CAT[card_id].index
        s.deck_n[p] -= 1
        return h

    def deck(self, p: int, card_id: str) -> int:
        """A deck card; decks are dealt in the order they are declared."""
        h = self._take(p, card_id)
        self.order[p].append(h)
        return h

    def empty_deck(self, p: int) -> None:
        """Eliminate the unused handles of player p (as if discarded long ago)."""
        s = self.s
        for h in self._free[p]:
            s.zone[h] = 3
            s.deck_n[p] -= 1
            s.alive[p] -= 1
        self._free[p] = []

    def start(self) -> State:
        from versus.engine import TurnDecision
        s = self.s
        assert _has_turn_action(s)
        s.pending = TurnDecision(s.active)
        # all undeclared handles stay in the deck, dealt after the declared ones
        for p in (0, 1):
            self.order[p] += self._free[p]
            for h in self._free[p]:
                self.ids.setdefault(h, "lumen-sprite" if p == 0 else "shade-mite")
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
