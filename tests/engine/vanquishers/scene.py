# Rule scenarios for the Vanquishers tests: a position built card by card (hands stay hidden
# handles whose identities the scene holds, board cards are public), then driven input by input
# with the protocol's part answered by the scene: deals in deck order, reveals from the
# identities, dice from a queue the test gives (so a targeting roll is exactly the one the rule
# test needs).
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from versus.engine.api import DecisionKind, Finished
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers.begin import new_state
from versus.engine.vanquishers.cards import CardType, default_catalogue
from versus.engine.vanquishers.engine import S, State, T, Zone, _run, _Work
from versus.engine.vanquishers.rules import Mode, Rules

CAT = default_catalogue()


class Scene:
    def __init__(self, *, hero0: str = "kael-ironvow", hero1: str = "nyra-vale",
                 mode: Mode = Mode.STANDARD, hands: Sequence[Sequence[str]] = ((), ()),
                 boards: Sequence[Sequence[str]] = ((), ()),
                 decks: Sequence[Sequence[str]] = ((), ()), storage: tuple[int, int] = (0, 0),
                 phase: int = 5, active: int = 0, deck_size: int = 30, max_turns: int = 60,
                 dice: Sequence[int] = (), sides: dict[int, dict[int, int]] | None = None
                 ) -> None:
        self.rules = Rules(deck_size, mode, hero0, hero1, max_turns)
        w = _Work(new_state(self.rules, CAT))
        w.tasks, w.dice, w.dec = [], [], ()
        w.first = w.active = active
        w.turn, w.phase = 0, phase
        self.identity: dict[int, str] = {}
        self.deck_order: list[list[int]] = [[], []]
        n = deck_size
        for p in (0, 1):
            w.sides[p][S.STORAGE] = storage[p]
            free = iter(range(p * n, p * n + n))
            for cid in hands[p]:
                h = next(free)
                w.zone[h] = Zone.HAND
                self.identity[h] = cid
            for cid in boards[p]:
                h = next(free)
                card = CAT.get(cid)
                assert card is not None, cid
                w.zone[h], w.card[h] = Zone.BOARD, CAT.index(cid)
                if card.type in (CardType.AMMO, CardType.MOD):
                    w.host[h] = w.board(p, CardType.WEAPON)[0]
                if card.type is CardType.ARMOR:
                    w.aux[h] = card.durability
                    w.sides[p][S.SHIELD] += card.shield
                if card.subtype is not None and card.turns:
                    w.aux[h] = card.turns
            rest = list(free)
            for i, h in enumerate(rest):
                self.identity[h] = decks[p][i] if i < len(decks[p]) else "kinetic-rounds"
            self.deck_order[p] = rest
        for p, fields in (sides or {}).items():
            for f, value in fields.items():
                w.sides[p][f] = value
        _run(w)
        self.state: State = w.freeze()
        self.dice = list(dice)
        self.log: list[str] = []
        self.auto()

    def handles(self, p: int, zone: Zone) -> list[int]:
        return self.state.handles(p, zone)

    def hand(self, p: int) -> list[int]:
        return self.handles(p, Zone.HAND)

    def side(self, p: int) -> tuple[int, ...]:
        return self.state.sides[p]

    def auto(self) -> None:
        """Answer deals, reveals and (queued) dice until a TURN/CHOICE or the end."""
        while True:
            d = G.decision(self.state)
            if isinstance(d, Finished) or d.kind in (DecisionKind.TURN, DecisionKind.CHOICE):
                return
            if d.kind is DecisionKind.DEAL:
                inp = G.deal_input(self.deck_order[d.player].pop(0))
            elif d.kind is DecisionKind.REVEAL:
                inp = G.reveal_input(d.handle, self.identity[d.handle])
            else:
                if not self.dice:
                    return
                inp = G.legal_actions(self.state)[self.dice.pop(0) - 1]
            self.state = G.step(self.state, inp)

    def do(self, *texts: str) -> Scene:
        for text in texts:
            self.auto()
            self.state = G.step(self.state, G.parse_input(text))
            self.log.append(text)
        self.auto()
        return self

    def legal(self) -> list[str]:
        return [G.format_input(m) for m in G.legal_actions(self.state)]

    @property
    def decision(self) -> Any:
        return G.decision(self.state)

    def zone(self, h: int) -> Zone:
        return Zone(self.state.zone[h])


__all__ = ["CAT", "S", "Scene", "T", "Zone"]
