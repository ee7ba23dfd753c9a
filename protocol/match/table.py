# The match's vocabulary and its one transition table (SPEC §4.11): phases, endings, the
# events a MatchCore returns, and TRANSITIONS, the machine itself, in the manner of h11's
# _state.py: every row names who may send which kinds, the MatchCore handler that checks and
# applies them, where the phase goes next (a phase, or the one decider function that reads the
# match and names it) and, for a message a seat sends by itself, the MatchPeer method that
# builds it. Handlers never move the phase: `MatchCore._move` does, after the handler returns,
# from the row (and ON_ENTRY says what entering a phase does). SPEC prints `spec_table()`;
# tests/protocol/test_table.py fails when the two differ.
from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from versus.engine.api import Pending
from versus.protocol.wire.envelope import (
    Envelope,
    MessageKind,
)

if TYPE_CHECKING:  # the deciders read the referee (core.py imports this module)
    from versus.protocol.match.core import MatchCore

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
class Decider:
    """Where the phase goes after a row whose next phase depends on the match: `decide` reads
    the referee as the row's handler left it (the envelope's sender, the game's decision, the
    result the handler fixed) and returns the phase; it changes nothing. `text` is what SPEC
    prints for it."""

    name: str
    text: str
    decide: Callable[[MatchCore, Envelope], Phase]

    def __call__(self, core: MatchCore, envelope: Envelope) -> Phase:
        return self.decide(core, envelope)


def _decider(text: str) -> Callable[[Callable[[MatchCore, Envelope], Phase]], Decider]:
    def wrap(decide: Callable[[MatchCore, Envelope], Phase]) -> Decider:
        return Decider(decide.__name__, text, decide)

    return wrap


@dataclass(frozen=True)
class Rule:
    """One row of the transition table. `phases`: where it applies; `decisions`: in PLAY, the
    game's decision kinds it answers (`DecisionKind` names; CHANCE_ANSWER: a CHANCE whose first
    preimage is in; "" outside PLAY); `handler`: the MatchCore method that checks and applies
    the envelope (`_HANDLERS` in core.py is built from this column); `next`: the phase after it,
    or the Decider that names it; `owed`: the row names the one message the match waits for
    (False: a claim, a dispute or evidence, which may interrupt); `auto`: the MatchPeer method
    that builds the body when the sending seat sends it by itself ("": the local player answers,
    or an interrupt); `pool_only`: skipped in decklist mode (its predecessor's decider skips
    it); `clocked`: only in a match with a clock."""

    phases: tuple[Phase, ...]
    sender: Sender
    kinds: tuple[MessageKind, ...]
    handler: str
    next: Phase | Decider
    decisions: tuple[str, ...] = ("",)
    owed: bool = True
    auto: str = ""
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


@dataclass(frozen=True)
class Entry:
    """What entering a phase does (run by the transition, after the row's handler, only when
    the phase changes): `action`, a MatchCore method, returns the events that follow the
    handler's; when it raises UnplayableRules the phase goes to `failed` instead."""

    action: str
    text: str
    failed: Phase | None = None


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


# --- the deciders: the rows whose next phase depends on the match ----------------------------


def _if_shared_pool(shuffle: Phase, otherwise: Phase) -> Decider:
    def if_shared_pool(core: MatchCore, envelope: Envelope) -> Phase:
        return shuffle if core.decklist is None else otherwise

    return Decider("if_shared_pool", f"{shuffle.name} in a shared-pool match, else "
                   f"{otherwise.name}", if_shared_pool)


@_decider("RESULT once the game is finished, else PLAY")
def game_over(core: MatchCore, envelope: Envelope) -> Phase:
    return Phase.RESULT if core.game_result is not None else Phase.PLAY


@_decider("SECRETS_(1−p): the winner's reveal is owed first")
def winner_reveals_first(core: MatchCore, envelope: Envelope) -> Phase:
    return SECRETS[1 - envelope.sender]


@_decider("SECRETS of the other seat, CLOSED once both are in")
def other_reveal(core: MatchCore, envelope: Envelope) -> Phase:
    other = 1 - envelope.sender
    return Phase.CLOSED if core.revealed[other] else SECRETS[other]


@_decider("SECRETS of the claimant (its reveal first); before PLAY: CLAIMED, or CLOSED when "
          "the accused signed nothing of this match (the claim credits no one)")
def after_claim(core: MatchCore, envelope: Envelope) -> Phase:
    if core.state is not None:
        return SECRETS[envelope.sender]
    assert core.result is not None
    return Phase.CLOSED if core.result.winner is None else Phase.CLAIMED


@_decider("CLOSED from CLAIMED, else unchanged (result: dispute, no winner)")
def after_dispute(core: MatchCore, envelope: Envelope) -> Phase:
    return Phase.CLOSED if core.phase is Phase.CLAIMED else core.phase


#: The one table of the match: who may send what when, which handler applies it and where the
#: phase goes next. MatchCore reads it for every envelope (`expected`, `_admitting`, `_HANDLERS`,
#: `_move`: the live peer and the verifier are both a MatchCore), MatchPeer sends the `auto`
#: rows by itself, and SPEC §4.11 prints `spec_table()` of it (tests/protocol/test_table.py
#: fails when they differ).
TRANSITIONS: tuple[Rule, ...] = (
    Rule((P.HELLO,), Sender.BOTH, (K.HELLO,), "MatchSetup.from_hellos", P.COMMIT_0),
    Rule((P.COMMIT_0,), Sender.SEAT_0, (K.COMMIT,), "_on_commit", P.COMMIT_1,
         auto="_commit_body"),
    Rule((P.COMMIT_1,), Sender.SEAT_1, (K.COMMIT,), "_on_commit", P.REVEAL_0,
         auto="_commit_body"),
    Rule((P.REVEAL_0,), Sender.SEAT_0, (K.REVEAL,), "_on_reveal",
         _if_shared_pool(P.SHUFFLE_0, P.REVEAL_1), auto="_reveal_body"),
    Rule((P.SHUFFLE_0,), Sender.SEAT_0, (K.SHUFFLE,), "_on_shuffle", P.REVEAL_1,
         auto="_shuffle_body", pool_only=True),
    Rule((P.REVEAL_1,), Sender.SEAT_1, (K.REVEAL,), "_on_reveal",
         _if_shared_pool(P.SHUFFLE_1, P.PLAY), auto="_reveal_body"),
    Rule((P.SHUFFLE_1,), Sender.SEAT_1, (K.SHUFFLE,), "_on_shuffle", P.PLAY,
         auto="_shuffle_body", pool_only=True),
    Rule((P.PLAY,), Sender.DECIDER, (K.ACTION,), "_on_action", game_over, decisions=("TURN",)),
    Rule((P.PLAY,), Sender.DECIDER, (K.CHOICE,), "_on_action", game_over,
         decisions=("CHOICE",)),
    Rule((P.PLAY,), Sender.DECIDER, (K.RESIGN,), "_on_resign", winner_reveals_first,
         decisions=("TURN", "CHOICE")),
    Rule((P.PLAY,), Sender.DEALER, (K.DRAW,), "_on_draw", game_over, decisions=("DEAL",),
         auto="_draw_body"),
    Rule((P.PLAY,), Sender.DECIDER, (K.OPEN,), "_on_open", game_over, decisions=("REVEAL",),
         auto="_open_body"),
    Rule((P.PLAY,), Sender.OPENER, (K.CHANCE,), "_on_chance", P.PLAY, decisions=("CHANCE",),
         auto="_chance_open_body"),
    Rule((P.PLAY,), Sender.ANSWERER, (K.CHANCE,), "_on_chance", game_over,
         decisions=(CHANCE_ANSWER,), auto="_chance_answer_body"),
    Rule((P.RESULT,), Sender.SEAT_0, (K.RESULT,), "_on_result", P.COSIGN,
         auto="_result_body"),
    Rule((P.COSIGN,), Sender.SEAT_1, (K.RESULT_COSIGN,), "_on_result", P.SECRETS_0,
         auto="_result_body"),
    Rule((P.SECRETS_0,), Sender.SEAT_0, (K.SECRET_REVEAL,), "_on_secrets", other_reveal,
         auto="_secrets_body"),
    Rule((P.SECRETS_1,), Sender.SEAT_1, (K.SECRET_REVEAL,), "_on_secrets", other_reveal,
         auto="_secrets_body"),
    Rule(CLAIMABLE, Sender.WAITING, (K.TIMEOUT_CLAIM,), "_on_timeout", after_claim, owed=False,
         clocked=True),
    Rule((P.CLAIMED, *SECRETS), Sender.ACCUSED, (K.DISPUTE,), "_on_dispute", after_dispute,
         owed=False),
    Rule(tuple(p for p in Phase if p not in (P.HELLO, *ENDED)), Sender.DETECTOR,
         (K.EVIDENCE,), "_on_evidence", P.ABORTED, owed=False),
)

#: What entering a phase does (`MatchCore._move`): the setup is complete when PLAY is entered,
#: and CLOSED is the final word on a match.
ON_ENTRY: dict[Phase, Entry] = {
    P.PLAY: Entry("_start_game", "the game starts, `new_game(setup seed)` (MatchStarted); "
                  "ABORTED when the rules cannot start one (unplayable-rules)", failed=P.ABORTED),
    P.CLOSED: Entry("_closed", "MatchClosed, the final word on the match"),
}
#: the HELLO row: once both HELLOs are in, a MatchCore is made and starts in its next phase
OPENING = TRANSITIONS[0]
del P

#: the owed rows by (phase, decision key), in table order: their kinds are what `expected()`
#: lists, and one sender sends them all
OWED: dict[tuple[Phase, str], tuple[Rule, ...]] = {}
for _rule in TRANSITIONS:
    if _rule.owed:
        for _phase in _rule.phases:
            for _decision in _rule.decisions:
                OWED[(_phase, _decision)] = (*OWED.get((_phase, _decision), ()), _rule)
INTERRUPTS: dict[MessageKind, Rule] = {
    kind: rule for rule in TRANSITIONS if not rule.owed for kind in rule.kinds}
del _rule, _phase, _decision


def _phase_names(phases: tuple[Phase, ...]) -> str:
    if phases == CLAIMABLE:
        return "COMMIT_0 … COSIGN"
    if len(phases) > 4:
        return "any phase but HELLO, CLOSED and ABORTED"
    return " / ".join(p.name for p in phases)


def _decision_names(decisions: tuple[str, ...]) -> str:
    names = []
    for decision in decisions:
        if decision == CHANCE_ANSWER:
            names.append("`CHANCE` with the opener's preimage in")
        elif decision == "CHANCE":
            names.append("`CHANCE`")
        elif decision:
            names.append(f"`{decision}(p)`")
    return " / ".join(names)


def _next_text(rule: Rule) -> str:
    if isinstance(rule.next, Phase):
        return rule.next.name
    return f"`{rule.next.name}`: {rule.next.text}"


def spec_table() -> str:
    """SPEC §4.11's transition table and what entering a phase does, generated from
    TRANSITIONS and ON_ENTRY (Markdown)."""
    lines = ["| phase | sender | kinds | handler | next | sent by itself |",
             "|---|---|---|---|---|---|"]
    for rule in TRANSITIONS:
        phase = _phase_names(rule.phases)
        if rule.decisions != ("",):
            phase += ", " + _decision_names(rule.decisions)
        if rule.pool_only:
            phase += " (shared pool only)"
        if rule.clocked:
            phase += ", with a clock"
        kinds = ", ".join(f"`{k.name}`" for k in rule.kinds)
        auto = f"`{rule.auto}`" if rule.auto else "—"
        lines.append(f"| {phase} | {rule.sender.value} | {kinds} | `{rule.handler}` | "
                     f"{_next_text(rule)} | {auto} |")
    lines += ["", "| entering | does |", "|---|---|"]
    lines += [f"| {phase.name} | `{entry.action}`: {entry.text} |"
              for phase, entry in ON_ENTRY.items()]
    return "\n".join(lines)
