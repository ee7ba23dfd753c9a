# What the engine waits for next. After every input the state exposes exactly one of these:
# the active player's turn action, a choice by the player a rule names, a deal (which deck
# handle is the top card), a reveal (which catalogue card a handle is), or the game's result.
# This mirrors OpenSpiel's chance nodes: deals and reveals are answered by the protocol (or a
# referee with full information), turn actions and choices by people or bots.
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class DealPurpose(Enum):
    HAND = "hand"  # a draw: the card goes to its owner's hand
    DISCARD = "discard"  # a discard: the top card is eliminated (then revealed)
    FIELD = "field"  # a start position's face-down field card: it goes verso to `area`


class ChoiceKind(Enum):
    DISCARD_FROM_HAND = "discard-from-hand"  # deck empty: pick a hand card to discard
    DISCARD_FROM_FIELD = "discard-from-field"  # deck and hand empty: pick a field card


class Outcome(Enum):
    ELIMINATION = "elimination"  # §1.10.1: all the loser's cards are eliminated
    ABSORPTION = "absorption"  # §1.8.5: the winner's card absorbed its fourth card
    MUTUAL_ELIMINATION = "mutual-elimination"  # §1.10.2: both eliminated at once: a draw
    TURN_LIMIT = "turn-limit"  # §1.10.3: more cards left wins; equal: a draw


@dataclass(frozen=True, slots=True)
class TurnDecision:
    player: int


@dataclass(frozen=True, slots=True)
class ChoiceDecision:
    player: int
    kind: ChoiceKind
    options: tuple[int, ...]  # handles; answer with Action.pick(handle)


@dataclass(frozen=True, slots=True)
class DealDecision:
    player: int  # the owner of the deck
    purpose: DealPurpose
    area: int = -1  # purpose FIELD only: the area the card is placed on, face down


@dataclass(frozen=True, slots=True)
class RevealDecision:
    player: int  # the owner of the card
    handle: int


@dataclass(frozen=True, slots=True)
class GameResult:
    outcome: Outcome
    winner: int | None  # None: a draw

    def __str__(self) -> str:
        who = "draw" if self.winner is None else f"player {self.winner} wins"
        return f"{who} ({self.outcome.value})"


Decision = TurnDecision | ChoiceDecision | DealDecision | RevealDecision
