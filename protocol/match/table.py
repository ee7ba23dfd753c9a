# The match's vocabulary and its one transition table (SPEC §4.11): phases, endings, the
# events a MatchCore returns, and TRANSITIONS, the table every check reads (`expected()`,
# `_allowed`, the setup steps; the verifier through MatchCore) and SPEC prints
# (`spec_table()`; tests/protocol/test_table.py fails when the two differ).
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from versus.engine.api import Pending
from versus.protocol.wire.envelope import (
    MessageKind,
)

if TYPE_CHECKING:  # the mental-poker modules load only for a shared-pool match (start-up)
    pass

K = MessageKind
#: the purpose label of the setup flip (§4.6), whose outcome seeds `Game.new_game`; "layout"
#: is historical (Versus lays out its tiles with it) and stays: it is in every coin commitment
COIN_PURPOSE = "layout"
#: the largest time a TIMEOUT_CLAIM or DISPUTE may state (ms): any honest reading fits
MAX_CLAIM_MS = 1 << 48
#: what a seat may take for a message it sends automatically (setup, DRAW, OPEN, RESULT,
#: RESULT_COSIGN) before the other seat may claim a timeout, in a match with a clock (SPEC §4.11)
AUTOMATIC_GRACE_MS = 30_000

class Phase(enum.Enum):
    HELLO = "hello"  # before both HELLOs (no chain yet)
    COMMIT_0 = "commit-0"
    COMMIT_1 = "commit-1"
    REVEAL_0 = "reveal-0"
    SHUFFLE_0 = "shuffle-0"  # shared pool only
    REVEAL_1 = "reveal-1"
    SHUFFLE_1 = "shuffle-1"  # shared pool only
    PLAY = "play"
    RESULT = "result"  # the game is over: seat 0 states the result
    COSIGN = "cosign"  # seat 1 countersigns it
    SECRETS_0 = "secrets-0"
    SECRETS_1 = "secrets-1"
    CLAIMED = "claimed"  # a timeout claim during setup: only the accused's DISPUTE may follow
    CLOSED = "closed"
    ABORTED = "aborted"  # an EVIDENCE envelope ended the match


class Ending(enum.Enum):
    GAME = "game"  # the engine reached a result; certificate = RESULT + RESULT_COSIGN
    RESIGNATION = "resignation"
    TIMEOUT = "timeout"  # a signed claim by the waiting player: a statement, not a proof
    DISPUTE = "dispute"  # the accused answered a timeout claim with its own measure: no winner
    FAULT = "fault"  # an EVIDENCE envelope: the match stopped on a protocol fault


@dataclass(frozen=True)
class MatchResult:
    ending: Ending
    winner: int | None  # None: a draw, or no winner (a fault)
    outcome: str | None = None  # the game's outcome label for Ending.GAME (`Finished.outcome`)
    detail: str = ""

    def __str__(self) -> str:
        who = "no winner" if self.winner is None else f"seat {self.winner} wins"
        what = self.outcome if self.outcome is not None else self.ending.value
        return f"{who} ({what}{': ' + self.detail if self.detail else ''})"

    def to_dict(self) -> dict[str, Any]:
        return {"ending": self.ending.value, "winner": self.winner, "outcome": self.outcome,
                "detail": self.detail}


# --- events (what receive/submit return) ----------------------------------------------------


@dataclass(frozen=True)
class MatchStarted:
    """The game began: `state` is the game's first state (`Game.new_game` of the setup seed)."""

    match_id: bytes
    state: Any


@dataclass(frozen=True)
class StateChanged:
    """One input was applied: the states before and after it, so a reader (narration, a UI,
    a replay) never re-runs the game."""

    input: Any  # the game's input value
    by: int  # the seat whose envelope carried the input
    text: str  # the input in the game's notation
    before: Any
    after: Any


@dataclass(frozen=True)
class DecisionNeeded:
    """Our seat answers the next TURN or CHOICE (`MatchPeer.submit`)."""

    decision: Pending


@dataclass(frozen=True)
class MatchEnded:
    """The result is fixed (RESULT_COSIGN, RESIGN, TIMEOUT_CLAIM or EVIDENCE). After a game it
    comes before the SECRET_REVEALs and their deck checks: MatchClosed is the final word, and a
    deck check that fails after it still ends the match with EVIDENCE (SPEC §4.11)."""

    result: MatchResult


@dataclass(frozen=True)
class MatchClosed:
    """Both SECRET_REVEALs are in and every deck check passed: the final word on a match."""


Event = MatchStarted | StateChanged | DecisionNeeded | MatchEnded | MatchClosed


# --- the transition table -------------------------------------------------------------------


class Sender(enum.Enum):
    """Who may send a row's kinds, resolved against the match (`Rule.seat`)."""

    BOTH = "both, either order"
    SEAT_0 = "seat 0"
    SEAT_1 = "seat 1"
    DECIDER = "p, the player the decision names"
    DEALER = "1 − p (the other seat draws for p)"
    OPENER = "the seat that signed the last envelope"
    ANSWERER = "the other seat than the opener's"
    WAITING = "the seat that does not owe the next message"
    ACCUSED = "the seat a standing timeout claim accuses, before its SECRET_REVEAL"
    DETECTOR = "the seat that detected a fault"


@dataclass(frozen=True)
class Rule:
    """One row of the transition table. `phases`: where it applies; `decision`: in PLAY, the
    game's decision kind it answers (`DecisionKind` name; CHANCE_ANSWER: a CHANCE whose first
    preimage is in); `owed`: the row names the one message the
    match waits for (False: a claim, a dispute or evidence, which may interrupt);
    `next`: the phase after it when fixed (None: the handler decides, as `then` says);
    `pool_only`: skipped in decklist mode; `clocked`: only in a match with a clock."""

    phases: tuple[Phase, ...]
    sender: Sender
    kinds: tuple[MessageKind, ...]
    then: str
    decision: str = ""
    owed: bool = True
    next: Phase | None = None
    pool_only: bool = False
    clocked: bool = False

    def seat(self, player: int | None = None, last: int | None = None) -> int | None:
        """The sending seat of an owed row, given the decision's player and the sender of the
        last envelope (None: either seat, or a role the row's own check resolves)."""
        if self.sender is Sender.SEAT_0:
            return 0
        if self.sender is Sender.SEAT_1:
            return 1
        if self.sender is Sender.DECIDER:
            return player
        if self.sender is Sender.DEALER:
            return None if player is None else 1 - player
        if self.sender is Sender.OPENER:
            return last
        if self.sender is Sender.ANSWERER:
            return None if last is None else 1 - last
        return None


P = Phase
#: the decision key of a CHANCE whose first preimage is in (its answer is owed)
CHANCE_ANSWER = "CHANCE, first preimage in"
#: phases in which the seat that does not owe the next message may claim a timeout (with a clock)
CLAIMABLE = (P.COMMIT_0, P.COMMIT_1, P.REVEAL_0, P.SHUFFLE_0, P.REVEAL_1, P.SHUFFLE_1, P.PLAY,
              P.RESULT, P.COSIGN)
ENDED = (P.CLOSED, P.ABORTED)
SECRETS = (P.SECRETS_0, P.SECRETS_1)
#: how far the accused's own measure may fall short of the claimant's before it disputes a claim:
#: it covers the transit time of the accused's last envelope (SPEC §4.11 Timeout claims)
CLAIM_TOLERANCE_MS = 2_000

#: The one table of who may send what when. `MatchCore.expected`, `_allowed` and the setup
#: steps read it (so do the live peer and the verifier: both are a MatchCore), and SPEC §4.11
#: prints `spec_table()` of it (tests/protocol/test_table.py fails when they differ).
TRANSITIONS: tuple[Rule, ...] = (
    Rule((P.HELLO,), Sender.BOTH, (K.HELLO,), "COMMIT_0 once both are in (match id)"),
    Rule((P.COMMIT_0,), Sender.SEAT_0, (K.COMMIT,), "COMMIT_1", next=P.COMMIT_1),
    Rule((P.COMMIT_1,), Sender.SEAT_1, (K.COMMIT,), "REVEAL_0", next=P.REVEAL_0),
    Rule((P.REVEAL_0,), Sender.SEAT_0, (K.REVEAL,), "SHUFFLE_0 (shared pool) or REVEAL_1",
         next=P.SHUFFLE_0),
    Rule((P.SHUFFLE_0,), Sender.SEAT_0, (K.SHUFFLE,), "REVEAL_1", next=P.REVEAL_1,
         pool_only=True),
    Rule((P.REVEAL_1,), Sender.SEAT_1, (K.REVEAL,), "SHUFFLE_1 (shared pool) or PLAY",
         next=P.SHUFFLE_1),
    Rule((P.SHUFFLE_1,), Sender.SEAT_1, (K.SHUFFLE,), "PLAY (`new_game(setup seed)`)",
         next=P.PLAY, pool_only=True),
    Rule((P.PLAY,), Sender.DECIDER, (K.ACTION, K.RESIGN),
         "PLAY / RESULT / SECRETS_(1−p) after `RESIGN` (the winner's reveal first)",
         decision="TURN"),
    Rule((P.PLAY,), Sender.DECIDER, (K.CHOICE, K.RESIGN),
         "PLAY / RESULT / SECRETS_(1−p) after `RESIGN`", decision="CHOICE"),
    Rule((P.PLAY,), Sender.DEALER, (K.DRAW,), "PLAY / RESULT", decision="DEAL"),
    Rule((P.PLAY,), Sender.DECIDER, (K.OPEN,), "PLAY / RESULT", decision="REVEAL"),
    Rule((P.PLAY,), Sender.OPENER, (K.CHANCE,), "PLAY (the answer is owed)",
         decision="CHANCE"),
    Rule((P.PLAY,), Sender.ANSWERER, (K.CHANCE,), "PLAY / RESULT (the outcome is applied)",
         decision=CHANCE_ANSWER),
    Rule((P.RESULT,), Sender.SEAT_0, (K.RESULT,), "COSIGN", next=P.COSIGN),
    Rule((P.COSIGN,), Sender.SEAT_1, (K.RESULT_COSIGN,), "SECRETS_0", next=P.SECRETS_0),
    Rule((P.SECRETS_0,), Sender.SEAT_0, (K.SECRET_REVEAL,),
         "SECRETS_1, or CLOSED once both are in"),
    Rule((P.SECRETS_1,), Sender.SEAT_1, (K.SECRET_REVEAL,),
         "SECRETS_0, or CLOSED once both are in"),
    Rule(CLAIMABLE, Sender.WAITING, (K.TIMEOUT_CLAIM,),
         "SECRETS of the claimant; before PLAY: CLAIMED; against a seat that signed nothing "
         "of this match: no winner (CLOSED before PLAY)", owed=False, clocked=True),
    Rule((P.CLAIMED, *SECRETS), Sender.ACCUSED, (K.DISPUTE,),
         "unchanged, CLOSED from CLAIMED (result: dispute, no winner)", owed=False),
    Rule(tuple(p for p in Phase if p not in (P.HELLO, *ENDED)), Sender.DETECTOR,
         (K.EVIDENCE,), "ABORTED", owed=False),
)
del P

OWED: dict[tuple[Phase, str], Rule] = {
    (phase, rule.decision): rule for rule in TRANSITIONS if rule.owed for phase in rule.phases}
INTERRUPTS: dict[MessageKind, Rule] = {
    kind: rule for rule in TRANSITIONS if not rule.owed for kind in rule.kinds}


def _phase_names(phases: tuple[Phase, ...]) -> str:
    if phases == CLAIMABLE:
        return "COMMIT_0 … COSIGN"
    if len(phases) > 4:
        return "any phase but HELLO, CLOSED and ABORTED"
    return " / ".join(p.name for p in phases)


def spec_table() -> str:
    """SPEC §4.11's transition table, generated from TRANSITIONS (Markdown)."""
    lines = ["| phase | sender | kinds | next |", "|---|---|---|---|"]
    for rule in TRANSITIONS:
        phase = _phase_names(rule.phases)
        if rule.decision == CHANCE_ANSWER:
            phase += ", `CHANCE` with the opener's preimage in"
        elif rule.decision == "CHANCE":
            phase += ", `CHANCE`"
        elif rule.decision:
            phase += f", `{rule.decision}(p)`"
        if rule.pool_only:
            phase += " (shared pool only)"
        if rule.clocked:
            phase += ", with a clock"
        kinds = ", ".join(f"`{k.name}`" for k in rule.kinds)
        lines.append(f"| {phase} | {rule.sender.value} | {kinds} | {rule.then} |")
    return "\n".join(lines)


