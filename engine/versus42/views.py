# What one player may know. The public `State` holds no hidden identity by construction; a
# player's private knowledge (the identities of its own dealt cards) lives in a `Knowledge`
# object beside it. `PlayerView` combines the two for one player and exposes only: the public
# state, that player's own knowledge, and the decision/legal actions when the player decides.
# Bots receive exactly this object, as people see exactly its rendering.
#
# A view is lazy (it reads the state on demand) so building one per decision costs nothing;
# `to_dict()` gives the full, plain snapshot (used by tests to prove nothing leaks).
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Action
from .decisions import Decision, GameResult, TurnDecision
from .game import FIELD, HAND, ZONE_NAMES, State, legal_actions


class Knowledge:
    """handle -> card id of the hidden cards one player knows (its own dealt cards)."""

    __slots__ = ("cards", "player")

    def __init__(self, player: int, cards: dict[int, str] | None = None) -> None:
        self.player = player
        self.cards: dict[int, str] = dict(cards or {})

    def learn(self, handle: int, card_id: str) -> None:
        self.cards[handle] = card_id

    def copy(self) -> Knowledge:
        return Knowledge(self.player, self.cards)


@dataclass(frozen=True, slots=True)
class FieldCard:
    area: str
    handle: int
    owner: int
    recto: bool
    card_id: str | None  # None: hidden from this player
    strength: int | None  # current Strength when the identity is known to this player
    level: int  # number of absorbed cards


class PlayerView:
    """Everything `player` may see, and nothing more."""

    __slots__ = ("_know", "_state", "player")

    def __init__(self, state: State, knowledge: Knowledge, player: int) -> None:
        if knowledge.player != player:
            raise ValueError(f"knowledge of player {knowledge.player} given for player {player}")
        self._state, self._know, self.player = state, knowledge, player

    # public facts
    @property
    def public_state(self) -> State:
        """The public engine state behind this view, read-only; it holds no hidden identities."""
        return self._state

    @property
    def rules(self) -> Any:
        """The match's ruleset (the external bot driver's hello carries it)."""
        return self._state.rules

    @property
    def catalogue(self) -> Any:
        """The match's card data."""
        return self._state.cat

    @property
    def turn(self) -> int:
        return self._state.turn

    @property
    def active_player(self) -> int:
        return self._state.active

    @property
    def geometry(self):  # type: ignore[no-untyped-def]
        return self._state.geom

    @property
    def tiles(self) -> tuple[int, ...]:
        return self._state.tiles

    @property
    def decision(self) -> Decision | GameResult | None:
        return self._state.decision

    @property
    def result(self) -> GameResult | None:
        return self._state.result

    def identity(self, handle: int) -> str | None:
        """The card id behind a handle if this player may know it."""
        s = self._state
        public = s.public_id(handle)
        if public is not None:
            return public
        if s.owner(handle) == self.player and s.zone[handle] in (HAND, FIELD):
            return self._know.cards.get(handle)
        return None

    @property
    def field(self) -> list[FieldCard]:
        s = self._state
        out = []
        for area, h in enumerate(s.board):
            if h >= 0:
                out.append(self._field_card(area, h))
                if s.battle is not None and s.battle[0] == area:
                    # a battle in progress: its second participant stands here too
                    out.append(self._field_card(area, s.battle[2]))
        return out

    def _field_card(self, area: int, h: int) -> FieldCard:
        s = self._state
        cid = self.identity(h)
        strength = None
        if cid is not None:
            strength = (s.strength(h) if s.ident[h] >= 0
                        else s.cat[cid].strength + s.temp[h])
        return FieldCard(s.geom.names[area], h, s.owner(h), bool(s.face[h]), cid, strength,
                         s.level(h))

    @property
    def hand(self) -> list[tuple[int, str | None]]:
        """This player's hand: (handle, card id)."""
        s = self._state
        return [(h, self.identity(h)) for h in s.handles(self.player) if s.zone[h] == HAND]

    def hand_handles(self, player: int) -> list[int]:
        s = self._state
        return [h for h in s.handles(player) if s.zone[h] == HAND]

    def deck_count(self, player: int) -> int:
        return self._state.deck_n[player]

    def alive(self, player: int) -> int:
        return self._state.alive[player]

    @property
    def legal_actions(self) -> list[Action]:
        d = self._state.pending
        if d is not None and getattr(d, "player", None) == self.player and not isinstance(
                d, GameResult):
            return legal_actions(self._state)
        return []

    @property
    def my_turn(self) -> bool:
        return isinstance(self._state.pending, TurnDecision) and self._state.active == self.player

    def to_dict(self) -> dict[str, Any]:
        s = self._state
        return {
            "player": self.player,
            "turn": s.turn,
            "active": s.active,
            "tiles": list(s.tiles),
            "decision": repr(self.decision),
            "field": [vars_of(fc) for fc in self.field],
            "hands": {p: [(h, self.identity(h)) for h in self.hand_handles(p)] for p in (0, 1)},
            "decks": [s.deck_n[0], s.deck_n[1]],
            "zones": {h: (ZONE_NAMES[s.zone[h]], self.identity(h)) for h in range(2 * s.n)},
            "legal": [str(a) for a in self.legal_actions],
        }


def strength_label(printed: int, current: int) -> str:
    """How the board and the narration write a Strength: '4+1' (printed Strength and the
    bonus of the tile, Increases and continuous Passives), '3' without a bonus."""
    delta = current - printed
    return f"{printed}{delta:+d}" if delta else str(printed)


def vars_of(fc: FieldCard) -> dict[str, Any]:
    return {k: getattr(fc, k) for k in FieldCard.__slots__}
