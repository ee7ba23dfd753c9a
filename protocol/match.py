# The match state machine (SPEC §4.11): setup, joint randomness, the deal, lockstep play, the
# end of the match and the evidence of a fault, sans-IO in the style of h11.
#
# Two layers:
#   MatchCore   the public referee. It holds the chain, the public engine state and the public
#               side of the deal, and accepts one envelope at a time after checking it against
#               the transition table (`expected()`: at every moment exactly one seat may send,
#               and which kinds). It is fed our own envelopes and the peer's alike ("Rule 2"),
#               and the offline verifier (protocol/verify.py) feeds it a whole transcript.
#   MatchPeer   one player's side: a MatchCore plus that player's secrets (coin seed, deck
#               secrets or shared-pool key, private knowledge of its own cards) and clocks. It
#               produces every message it can by itself (COMMIT, REVEAL, SHUFFLE, DRAW, OPEN,
#               RESULT, RESULT_COSIGN, SECRET_REVEAL); only turn actions and choices come from
#               the local player through `submit`.
#
# A received envelope enters the chain only after its meaning is checked, so a refused envelope
# is never part of the honest transcript: it goes into the EVIDENCE envelope the honest side
# seals instead, which the verifier re-checks. Every input to the engine carries the hash of the
# public state after it; the receiver applies the same input and compares (lockstep).
#
# Determinism: every secret comes from the caller's rng, in an order fixed by the transcript,
# so `MatchPeer.restore` rebuilds a peer from its transcript and the rng's master secret.
from __future__ import annotations

import contextlib
import enum
import functools
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from versus.engine import (
    Action,
    Catalogue,
    ChoiceDecision,
    Deal,
    DealDecision,
    EngineError,
    GameResult,
    Input,
    Knowledge,
    Outcome,
    PlayerView,
    Reveal,
    RevealDecision,
    State,
    TurnDecision,
    format_input,
    legal_actions,
    new_game,
    parse_input,
    state_hash,
    step,
)
from versus.protocol.canonical import HASH_SIZE
from versus.protocol.commitment import coin_commitment, coin_outcome
from versus.protocol.dealers import DecklistAudit, DecklistHand, check_decklist
from versus.protocol.envelope import (
    MAX_ENVELOPE_SIZE,
    MAX_MESSAGE_SIZE,
    Envelope,
    MessageKind,
    parse_envelope,
)
from versus.protocol.errors import (
    CommitmentMismatch,
    FalseEvidence,
    IllegalAction,
    LocalProtocolError,
    MalformedMessage,
    OutOfTurn,
    OversizeField,
    RemoteProtocolError,
    ResultMismatch,
    SequenceConflict,
    SetupMismatch,
    StateHashMismatch,
)
from versus.protocol.group import Rng, random_permutation
from versus.protocol.identity import Identity
from versus.protocol.rules import DealMode, MatchRules, master_rng
from versus.protocol.setup import NO_BINDING, Hello, MatchSetup, make_hello, open_hello
from versus.protocol.text import printable
from versus.protocol.transcript import Transcript, dump_transcript, load_transcript

if TYPE_CHECKING:  # the mental-poker modules load only for a shared-pool match (start-up)
    from versus.protocol.pool import SharedPoolDeal
    from versus.protocol.pool_sides import PoolAudit, PoolLive

K = MessageKind
COIN_PURPOSE = "layout"
#: evidence items an EVIDENCE carries at most (bytes): the offending envelope always fits, since
#: every kind but EVIDENCE is at most MAX_MESSAGE_SIZE (envelope.py) and the EVIDENCE's own
#: fields fit the EVIDENCE_HEADROOM left above it
MAX_EVIDENCE_BYTES = MAX_MESSAGE_SIZE
MAX_EVIDENCE_ITEMS = 4
MAX_EVIDENCE_MESSAGE = 200
#: the largest time a TIMEOUT_CLAIM or DISPUTE may state (ms): any honest reading fits
MAX_CLAIM_MS = 1 << 48
#: what a seat may take for a message it sends automatically (setup, DRAW, OPEN, RESULT,
#: RESULT_COSIGN) before the other seat may claim a timeout, in a match with a clock (SPEC §4.11)
AUTOMATIC_GRACE_MS = 30_000
#: envelope bytes around a body: 8-array header, version, match id, seq, prev_hash, sender, kind,
#: signature (147 at most) and the body's array header (5)
_ENVELOPE_FRAME = 152
#: body caps (bytes) of the kinds whose bodies do not grow with the deck or the pool: an ACTION's
#: text is at most 200 characters of canonical (ASCII) input notation plus the state hash
_SMALL_BODY = {
    K.REVEAL: 64, K.ACTION: 256, K.CHOICE: 256, K.RESULT: 128, K.RESULT_COSIGN: 128,
    K.RESIGN: 8, K.TIMEOUT_CLAIM: 64, K.DISPUTE: 64,
}


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
    outcome: Outcome | None = None  # the engine's outcome for Ending.GAME
    detail: str = ""

    def __str__(self) -> str:
        who = "no winner" if self.winner is None else f"seat {self.winner} wins"
        what = self.outcome.value if self.outcome is not None else self.ending.value
        return f"{who} ({what}{': ' + self.detail if self.detail else ''})"

    def to_dict(self) -> dict[str, Any]:
        return {"ending": self.ending.value, "winner": self.winner,
                "outcome": None if self.outcome is None else self.outcome.value,
                "detail": self.detail}


# --- events (what receive/submit return) ----------------------------------------------------


@dataclass(frozen=True)
class MatchStarted:
    match_id: bytes
    first_player: int
    tiles: tuple[int, ...]


@dataclass(frozen=True)
class StateChanged:
    input: Input
    by: int  # the seat whose envelope carried the input
    text: str  # the input in engine notation


@dataclass(frozen=True)
class DecisionNeeded:
    decision: TurnDecision | ChoiceDecision


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
    WAITING = "the seat that does not owe the next message"
    ACCUSED = "the seat a standing timeout claim accuses, before its SECRET_REVEAL"
    DETECTOR = "the seat that detected a fault"


@dataclass(frozen=True)
class Rule:
    """One row of the transition table. `phases`: where it applies; `decision`: in PLAY, the
    engine decision it answers (the class name); `owed`: the row names the one message the
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

    def seat(self, decision: object = None) -> int | None:
        """The sending seat of an owed row (None: either seat, or a role the row's own check
        resolves)."""
        if self.sender is Sender.SEAT_0:
            return 0
        if self.sender is Sender.SEAT_1:
            return 1
        player = getattr(decision, "player", None)
        if self.sender is Sender.DECIDER:
            return player
        if self.sender is Sender.DEALER:
            return None if player is None else 1 - player
        return None


P = Phase
#: phases in which the seat that does not owe the next message may claim a timeout (with a clock)
_CLAIMABLE = (P.COMMIT_0, P.COMMIT_1, P.REVEAL_0, P.SHUFFLE_0, P.REVEAL_1, P.SHUFFLE_1, P.PLAY,
              P.RESULT, P.COSIGN)
_ENDED = (P.CLOSED, P.ABORTED)
_SECRETS = (P.SECRETS_0, P.SECRETS_1)
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
    Rule((P.SHUFFLE_1,), Sender.SEAT_1, (K.SHUFFLE,), "PLAY (`new_game(layout seed)`)",
         next=P.PLAY, pool_only=True),
    Rule((P.PLAY,), Sender.DECIDER, (K.ACTION, K.RESIGN),
         "PLAY / RESULT / SECRETS_(1−p) after `RESIGN` (the winner's reveal first)",
         decision="TurnDecision"),
    Rule((P.PLAY,), Sender.DECIDER, (K.CHOICE, K.RESIGN),
         "PLAY / RESULT / SECRETS_(1−p) after `RESIGN`", decision="ChoiceDecision"),
    Rule((P.PLAY,), Sender.DEALER, (K.DRAW,), "PLAY / RESULT", decision="DealDecision"),
    Rule((P.PLAY,), Sender.DECIDER, (K.OPEN,), "PLAY / RESULT", decision="RevealDecision"),
    Rule((P.RESULT,), Sender.SEAT_0, (K.RESULT,), "COSIGN", next=P.COSIGN),
    Rule((P.COSIGN,), Sender.SEAT_1, (K.RESULT_COSIGN,), "SECRETS_0", next=P.SECRETS_0),
    Rule((P.SECRETS_0,), Sender.SEAT_0, (K.SECRET_REVEAL,),
         "SECRETS_1, or CLOSED once both are in"),
    Rule((P.SECRETS_1,), Sender.SEAT_1, (K.SECRET_REVEAL,),
         "SECRETS_0, or CLOSED once both are in"),
    Rule(_CLAIMABLE, Sender.WAITING, (K.TIMEOUT_CLAIM,),
         "SECRETS of the claimant; before PLAY: CLAIMED; against a seat that signed nothing "
         "of this match: no winner (CLOSED before PLAY)", owed=False, clocked=True),
    Rule((P.CLAIMED, *_SECRETS), Sender.ACCUSED, (K.DISPUTE,),
         "unchanged, CLOSED from CLAIMED (result: dispute, no winner)", owed=False),
    Rule(tuple(p for p in Phase if p not in (P.HELLO, *_ENDED)), Sender.DETECTOR,
         (K.EVIDENCE,), "ABORTED", owed=False),
)
del P

_OWED: dict[tuple[Phase, str], Rule] = {
    (phase, rule.decision): rule for rule in TRANSITIONS if rule.owed for phase in rule.phases}
_INTERRUPTS: dict[MessageKind, Rule] = {
    kind: rule for rule in TRANSITIONS if not rule.owed for kind in rule.kinds}


def _phase_names(phases: tuple[Phase, ...]) -> str:
    if phases == _CLAIMABLE:
        return "COMMIT_0 … COSIGN"
    if len(phases) > 4:
        return "any phase but HELLO, CLOSED and ABORTED"
    return " / ".join(p.name for p in phases)


def spec_table() -> str:
    """SPEC §4.11's transition table, generated from TRANSITIONS (Markdown)."""
    lines = ["| phase | sender | kinds | next |", "|---|---|---|---|"]
    for rule in TRANSITIONS:
        phase = _phase_names(rule.phases)
        if rule.decision:
            phase += f", `{rule.decision}(p)`"
        if rule.pool_only:
            phase += " (shared pool only)"
        if rule.clocked:
            phase += ", with a clock"
        kinds = ", ".join(f"`{k.name}`" for k in rule.kinds)
        lines.append(f"| {phase} | {rule.sender.value} | {kinds} | {rule.then} |")
    return "\n".join(lines)


# --- the public referee ---------------------------------------------------------------------


class MatchCore:
    """The public state of one match and the checks of every envelope (see module comment).

    `pool_side` is a PoolLive for a MatchPeer (its own pool messages pass unchecked, the peer's
    go through SharedPoolDeal), a PoolAudit for the offline verifier, None in decklist mode.
    `on_draw(owner, handle, card)` lets a peer learn its own drawn cards.
    """

    def __init__(self, setup: MatchSetup, rules: MatchRules, catalogue: Catalogue,
                 pool_side: PoolLive | PoolAudit | None,
                 on_draw: Callable[[int, int, str | None], None] | None = None) -> None:
        self.setup, self.rules, self.catalogue = setup, rules, catalogue
        self.match_id = setup.match_id
        self.n = rules.ruleset.deck_size
        self.chain = setup.new_chain()
        self.phase = Phase.COMMIT_0
        self.state: State | None = None
        self.inputs = 0
        self.actions = 0
        self.coin_commits: list[bytes | None] = [None, None]
        self.coin_seeds: list[bytes | None] = [None, None]
        self.decklist = (
            DecklistAudit(self.match_id, self.n, catalogue, rules.registered_decklists)
            if rules.deal_mode is DealMode.DECKLIST else None
        )
        self.pool = pool_side
        self.game_result: GameResult | None = None
        self.result: MatchResult | None = None
        self.evidence: tuple[str, str, tuple[bytes, ...], int | None] | None = None
        self._on_draw = on_draw
        self._pre: tuple[Input, State] | None = None
        self.revealed = [False, False]  # whose SECRET_REVEAL is in
        self.claim: Envelope | None = None  # the TIMEOUT_CLAIM in the chain, if any
        self.disputed = False
        #: the fault a re-checked EVIDENCE proves (code, seat or None, attributable, message)
        self.fault_found: tuple[str, int | None, bool, str] | None = None
        self.size_caps = _size_caps(rules, catalogue)

    # --- the table ------------------------------------------------------------------------

    def owed_rule(self) -> Rule | None:
        """The table row of the message the match waits for (None: ended, or CLAIMED)."""
        decision = ""
        if self.phase is Phase.PLAY:
            assert self.state is not None
            decision = type(self.state.decision).__name__
        rule = _OWED.get((self.phase, decision))
        if rule is None and self.phase is Phase.PLAY:
            raise LocalProtocolError(
                f"no play message expected after {self.state.decision}")  # type: ignore[union-attr]
        return rule

    def expected(self) -> tuple[int | None, tuple[MessageKind, ...]]:
        """(the one seat that may send next, the kinds it may send), from the table; (None, ())
        when nothing is owed (ended, or a setup claim that only a DISPUTE may answer). Not
        listed: the rows that interrupt (claim, dispute, evidence: see `_allowed`)."""
        rule = self.owed_rule()
        if rule is None:
            return None, ()
        decision = self.state.decision if self.state is not None else None
        return rule.seat(decision), rule.kinds

    def disputable_by(self) -> int | None:
        """The seat that may still DISPUTE the standing timeout claim (the accused, until its
        DISPUTE or its SECRET_REVEAL), or None."""
        claim = self.claim
        if claim is None or self.disputed or self.phase in _ENDED:
            return None
        late = 1 - claim.sender
        if self.phase is Phase.CLAIMED or (self.phase in _SECRETS and not self.revealed[late]):
            return late
        return None

    def _allowed(self, envelope: Envelope) -> bool:
        """Whether the table lets `envelope.sender` send `envelope.kind` now."""
        kind, sender = envelope.kind, envelope.sender
        rule = _INTERRUPTS.get(kind)
        if rule is not None:
            if self.phase not in rule.phases:
                return False
            if rule.sender is Sender.WAITING:
                return self.expected()[0] == 1 - sender
            if rule.sender is Sender.ACCUSED:
                return sender == self.disputable_by()
            return True  # Sender.DETECTOR: its check says whether the evidence holds
        seat, kinds = self.expected()
        return seat == sender and kind in kinds

    # --- entry points ---------------------------------------------------------------------

    def receive(self, raw: bytes) -> list[Event]:
        """Authenticate, check and append a peer's (or, for the verifier, any) envelope."""
        envelope = self.chain.authenticate(raw)
        events = self.check(envelope, own=False)
        self.chain.append(envelope)
        return events

    def send(self, identity: Identity, kind: MessageKind, body: Sequence[object]
             ) -> tuple[Envelope, list[Event]]:
        envelope = self.chain.seal(identity, kind, body)
        try:
            return envelope, self._process(envelope, own=True)
        except RemoteProtocolError as error:  # our own message broke our own rules: a bug
            raise LocalProtocolError(f"our own {kind.name} was refused: {error}") from error

    def check(self, envelope: Envelope, *, own: bool) -> list[Event]:
        """Run every check of one authenticated envelope; errors carry it as evidence.

        Every handler validates the peer's body (types, sizes, ranges) before it uses it, and
        says what is wrong with a RemoteProtocolError. Any other exception is a bug of ours
        while handling a valid-looking envelope: it is a LocalProtocolError, never evidence
        against the peer (a `TypeError` in our code proves nothing about what the peer signed).
        """
        try:
            return self._process(envelope, own=own)
        except RemoteProtocolError as error:
            raise _blame(error, envelope) from None
        except LocalProtocolError:
            raise
        except Exception as error:
            raise LocalProtocolError(
                f"internal error while handling {envelope.kind.name} seq {envelope.seq} from "
                f"seat {envelope.sender}: {type(error).__name__}: {error}") from error

    # --- dispatch -------------------------------------------------------------------------

    def _check_size(self, envelope: Envelope) -> None:
        """The per-kind size cap, before any parsing of the body (SPEC §4.11 Sizes)."""
        cap = self.size_caps[envelope.kind]
        if len(envelope.raw) > cap:
            raise OversizeField(f"{envelope.kind.name} envelope of {len(envelope.raw)} bytes "
                                f"exceeds the cap of {cap} for its kind")

    def _process(self, envelope: Envelope, own: bool) -> list[Event]:
        if not self._allowed(envelope):
            seat, kinds = self.expected()
            raise OutOfTurn(
                f"{envelope.kind.name} from seat {envelope.sender} at seq {envelope.seq}: in "
                f"phase {self.phase.value} only seat {seat} may send "
                f"{'/'.join(k.name for k in kinds) or 'nothing'}",
                [envelope.raw], player=envelope.sender)
        self._check_size(envelope)
        body = list(envelope.body)
        handler = _HANDLERS[envelope.kind]
        return handler(self, envelope, body, own)

    def _advance_setup(self) -> list[Event]:
        rule = _OWED[(self.phase, "")]
        assert rule.next is not None
        phase = rule.next
        if self.rules.deal_mode is DealMode.DECKLIST and _OWED[(phase, "")].pool_only:
            phase = _OWED[(phase, "")].next  # type: ignore[assignment]
        self.phase = phase
        if phase is Phase.PLAY:
            return self._start_game()
        return []

    @property
    def layout_seed(self) -> bytes | None:
        """The game's seed from the joint coin flip (§4.6), once both REVEALs are in."""
        seeds = self.coin_seeds
        if seeds[0] is None or seeds[1] is None:
            return None
        return coin_outcome(self.match_id, COIN_PURPOSE, seeds[0], seeds[1])

    def _start_game(self) -> list[Event]:
        layout = self.layout_seed
        assert layout is not None
        self.state = new_game(self.rules.ruleset, self.catalogue, layout)
        return [MatchStarted(self.match_id, self.state.first, self.state.tiles)]

    # --- setup handlers -------------------------------------------------------------------

    def _on_commit(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        seat = envelope.sender
        if not body or type(body[0]) is not bytes or len(body[0]) != HASH_SIZE:
            raise MalformedMessage("a COMMIT starts with the 32-byte coin commitment")
        if body[0] == self.coin_commits[1 - seat]:
            raise IllegalAction(f"seat {seat} echoed the other seat's coin commitment")
        if self.decklist is not None:
            self.decklist.commit(seat, body[1:], [envelope.raw])
        else:
            if len(body) != 2:
                raise MalformedMessage("a shared-pool COMMIT is [coin commitment, key share]")
            assert self.pool is not None
            self.pool.key_share(seat, _pool().KeyShare.from_wire(body[1]), own)
        self.coin_commits[seat] = body[0]
        return self._advance_setup()

    def _on_reveal(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        seat = envelope.sender
        if len(body) != 1 or type(body[0]) is not bytes or len(body[0]) != HASH_SIZE:
            raise MalformedMessage("a REVEAL is [32-byte coin seed]")
        if coin_commitment(self.match_id, seat, COIN_PURPOSE, body[0]) != self.coin_commits[seat]:
            raise CommitmentMismatch(f"seat {seat}'s coin seed does not match its commitment")
        self.coin_seeds[seat] = body[0]
        return self._advance_setup()

    def _on_shuffle(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        if len(body) != 1:
            raise MalformedMessage("a SHUFFLE is [shuffle message]")
        assert self.pool is not None
        self.pool.shuffle(envelope.sender, _pool().Shuffle.from_wire(body[0]), own)
        return self._advance_setup()

    # --- play handlers --------------------------------------------------------------------

    def _on_draw(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        state = self.state
        assert state is not None and isinstance(state.decision, DealDecision)
        owner, claimed = state.decision.player, _state_hash_field(body, 2)
        card = None
        if self.decklist is not None:
            handle = self.decklist.draw(envelope.sender, body[0], [envelope.raw])
        else:
            assert self.pool is not None
            handle = self.next_undealt(owner)
            card = self.pool.draw(envelope.sender, handle, _pool().DrawShare.from_wire(body[0]),
                                  own)
        events = self._apply(envelope, Deal(handle), claimed, own)
        if self._on_draw is not None:
            self._on_draw(owner, handle, card)
        return events

    def _on_open(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        state = self.state
        assert state is not None and isinstance(state.decision, RevealDecision)
        handle, owner = state.decision.handle, state.decision.player
        if self.decklist is not None:
            claimed = _state_hash_field(body, 4)
            opening = self.decklist.open(owner, body[:3], [envelope.raw],
                                         expected_slot=handle - owner * self.n)
            card = opening.card
        else:
            claimed = _state_hash_field(body, 2)
            assert self.pool is not None
            card = self.pool.reveal(owner, handle, _pool().Reveal.from_wire(body[0]), own)
        if type(card) is not str:
            raise IllegalAction(f"card id {card!r:.40} is not a catalogue id")
        return self._apply(envelope, Reveal(handle, card), claimed, own)

    def _on_action(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        claimed = _state_hash_field(body, 2)
        text = body[0]
        if type(text) is not str or len(text) > 200:
            raise MalformedMessage("an ACTION/CHOICE is [input text (<= 200 chars), state hash]")
        action = _canonical_action(text)
        self.actions += 1
        return self._apply(envelope, action, claimed, own, text)

    def _apply(self, envelope: Envelope, inp: Input, claimed: bytes, own: bool,
               text: str | None = None) -> list[Event]:
        """`text`: `format_input(inp)` when the caller already has it."""
        state = self.state
        assert state is not None
        if own and self._pre is not None and self._pre[0] == inp:
            after = self._pre[1]
        else:
            try:
                after = step(state, inp)
            except EngineError as error:
                raise IllegalAction(f"{format_input(inp)!r}: {error}") from None
        self._pre = None
        actual = state_hash(after)
        if actual != claimed:
            raise StateHashMismatch(
                f"after {format_input(inp)!r} seat {envelope.sender} claims state "
                f"{claimed.hex()[:16]}…, the replay gives {actual.hex()[:16]}…")
        self.state = after
        self.inputs += 1
        events: list[Event] = [StateChanged(inp, envelope.sender, text or format_input(inp))]
        if after.result is not None:
            self.game_result = after.result
            self.phase = Phase.RESULT
        return events

    def next_undealt(self, owner: int) -> int:
        """Shared pool: the lowest handle of `owner` still in its deck (= its pool position)."""
        state = self.state
        assert state is not None
        for handle in state.handles(owner):
            if state.zone_of(handle) == "deck":
                return handle
        raise LocalProtocolError(f"seat {owner}'s deck is empty")

    def prepare(self, inp: Input) -> bytes:
        """The state hash after `inp` (for our own next envelope; the state is cached)."""
        assert self.state is not None
        after = step(self.state, inp)
        self._pre = (inp, after)
        return state_hash(after)

    # --- end handlers ---------------------------------------------------------------------

    def result_body(self) -> list[object]:
        r = self.game_result
        assert r is not None and self.state is not None
        return [r.outcome.value, r.winner, state_hash(self.state), self.inputs]

    def _on_result(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        expected = self.result_body()
        if body != expected:
            raise ResultMismatch(
                f"{envelope.kind.name} from seat {envelope.sender} states "
                f"{_fields_text(body)}; the replayed game gives {_fields_text(expected)}")
        self.phase = _OWED[(self.phase, "")].next  # type: ignore[assignment]
        if envelope.kind is K.RESULT_COSIGN:
            r = self.game_result
            assert r is not None
            self.result = MatchResult(Ending.GAME, r.winner, r.outcome)
            return [MatchEnded(self.result)]
        return []

    def _on_resign(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        if body:
            raise MalformedMessage("a RESIGN has an empty body")
        self.result = MatchResult(Ending.RESIGNATION, 1 - envelope.sender,
                                  detail=f"seat {envelope.sender} resigned")
        self.phase = _SECRETS[1 - envelope.sender]  # the winner's reveal first: it is owed
        return [MatchEnded(self.result)]

    def _on_timeout(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        late, claimant = 1 - envelope.sender, envelope.sender
        if (len(body) != 3 or any(type(v) is not int for v in body) or body[0] != late
                or not 0 <= body[2] <= body[1] <= MAX_CLAIM_MS):
            raise MalformedMessage("a TIMEOUT_CLAIM is [late seat, waited ms, clock left ms] "
                                   "with waited >= clock left")
        if not self.rules.has_clock:
            raise IllegalAction("a TIMEOUT_CLAIM in a match without a clock")
        self.claim = envelope
        if not any(e.sender == late for e in self.chain.envelopes):
            # The accused never signed anything bound to this match id: nothing shows it ever
            # took part (its HELLO may be a copy from another match), so no one is credited.
            self.result = MatchResult(
                Ending.TIMEOUT, None,
                detail=f"seat {claimant} claims seat {late} never answered; seat {late} signed "
                       "nothing of this match, so the claim credits no one")
            self.disputed = True  # nothing to dispute
            if self.state is None:
                self.phase = Phase.CLOSED
                return [MatchEnded(self.result), MatchClosed()]
        else:
            self.result = MatchResult(
                Ending.TIMEOUT, claimant,
                detail=f"seat {claimant} claims seat {late} ran out of time (waited "
                       f"{body[1]} ms with {body[2]} ms left, by seat {claimant}'s clock)")
            if self.state is None:  # during setup: no card was dealt, nothing to reveal
                self.phase = Phase.CLAIMED
                return [MatchEnded(self.result)]
        self.phase = _SECRETS[claimant]  # the claimant's reveal first: it is owed
        return [MatchEnded(self.result)]

    def _on_dispute(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        claim = self.claim
        assert claim is not None  # `_allowed` admits a DISPUTE only against a standing claim
        if (len(body) != 3 or type(body[0]) is not bytes or len(body[0]) != HASH_SIZE
                or type(body[1]) is not int or type(body[2]) is not int
                or not 0 <= body[1] <= MAX_CLAIM_MS or not 0 < body[2] <= MAX_CLAIM_MS):
            raise MalformedMessage("a DISPUTE is [claim envelope hash, used ms, left ms] with "
                                   "0 <= used and 0 < left")
        if body[0] != claim.hash:
            raise IllegalAction(f"the DISPUTE names claim {body[0].hex()[:16]}…, not the "
                                f"claim at seq {claim.seq}")
        late, claimant = envelope.sender, claim.sender
        self.disputed = True
        self.result = MatchResult(
            Ending.DISPUTE, None,
            detail=f"seat {late} disputes seat {claimant}'s timeout claim: seat {claimant} "
                   f"measured {claim.body[1]} ms waited with {claim.body[2]} ms allowed; seat "
                   f"{late} measured {body[1]} ms used with {body[2]} ms still left")
        if self.phase is Phase.CLAIMED:
            self.phase = Phase.CLOSED
            return [MatchEnded(self.result), MatchClosed()]
        return [MatchEnded(self.result)]

    def _on_secrets(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        seat = envelope.sender
        if self.decklist is not None:
            self.decklist.secrets(seat, body, [envelope.raw])
        else:
            if len(body) != 1:
                raise MalformedMessage("a shared-pool SECRET_REVEAL is [end reveal]")
            assert self.pool is not None
            self.pool.end_reveal(seat, _pool().EndReveal.from_wire(body[0]), own)
        self.revealed[seat] = True
        if self.claim is not None and seat == 1 - self.claim.sender:
            self.disputed = True  # the accused revealed without disputing: too late now
        self.phase = Phase.CLOSED if self.revealed[1 - seat] else _SECRETS[1 - seat]
        return [MatchClosed()] if self.phase is Phase.CLOSED else []

    def _on_evidence(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        if (len(body) != 4 or type(body[0]) is not str or type(body[1]) is not str
                or type(body[2]) is not list or any(type(e) is not bytes for e in body[2])
                or body[3] not in (None, 0, 1) or not body[2]):
            raise MalformedMessage("an EVIDENCE is [code, message, [raw, ..., offending "
                                   "envelope], seat or nil]")
        code, message = printable(body[0], 40), printable(body[1], MAX_EVIDENCE_MESSAGE)
        # Believed only once re-checked, live as offline (SPEC §4.11 Evidence): the offending
        # envelope must fail here with the code the accuser names; a false accusation is the
        # accuser's own fault, and whom to blame comes from our check, never from its word.
        if own:  # our own check just refused it; the verifier re-checks it offline
            self.fault_found = (body[0], body[3], body[3] is not None, message)
        else:
            self.fault_found = self._recheck(body[2][-1], body[0], envelope)
        self.evidence = (code, message, tuple(body[2]), self.fault_found[1])
        self.result = MatchResult(Ending.FAULT, None,
                                  detail=f"seat {envelope.sender} reports {code}: {message}")
        self.phase = Phase.ABORTED
        return [MatchEnded(self.result)]

    def _recheck(self, raw: bytes, code: str, evidence: Envelope
                 ) -> tuple[str, int | None, bool, str]:
        """Feed the offending envelope `raw` to a referee rebuilt from this chain, as the
        accuser's referee stood when it refused it: the whole chain before the EVIDENCE, or,
        for an envelope that crossed the chain (signed on a prefix, at a seq another seat's
        envelope holds here: a timeout claim against our move), the prefix it was signed on."""
        chain = self.chain.envelopes[:evidence.seq]  # our own EVIDENCE is sealed already
        upto = len(chain)
        with contextlib.suppress(RemoteProtocolError):
            offending = parse_envelope(raw)
            if offending.seq < upto and chain[offending.seq].sender != offending.sender:
                upto = offending.seq
        referee = self.audit_prefix(upto)
        try:
            referee.receive(raw)
        except RemoteProtocolError as error:
            if error.code != code:
                raise FalseEvidence(f"the evidence fails with {error.code}, not the claimed "
                                    f"{printable(code, 40)!r}", [evidence.raw],
                                    player=evidence.sender) from None
            # Only a signature proves a seat's fault: anything else (a replayed HELLO or old
            # envelope, junk bytes, a reply to a head the accuser swapped) names nobody.
            attributable = bool(error.attributable)
            return (error.code, error.player if attributable else None, attributable,
                    printable(str(error), MAX_EVIDENCE_MESSAGE))
        raise FalseEvidence(f"the envelope seat {evidence.sender} reports as "
                            f"{printable(code, 40)!r} passes every check", [evidence.raw],
                            player=evidence.sender)

    def audit_prefix(self, upto: int) -> MatchCore:
        """A referee with public knowledge only (PoolAudit), fed the first `upto` envelopes of
        this chain (checked already: their signatures are not checked again)."""
        pool = None
        if self.rules.deal_mode is DealMode.SHARED_POOL:
            from versus.protocol.pool_sides import PoolAudit

            pool = PoolAudit(self.match_id, self.setup.keys, self.rules.pool_ids(self.catalogue),
                             self.n)
        referee = MatchCore(self.setup, self.rules, self.catalogue, pool)
        for envelope in self.chain.envelopes[:upto]:
            checked = referee.chain.authenticate(envelope.raw, parsed=envelope, signature=False)
            referee.check(checked, own=False)
            referee.chain.append(checked)
        return referee

    def full_deal(self) -> dict[int, str] | None:
        """handle -> card of both decks, when the secret reveals made it public."""
        if self.decklist is not None:
            return self.decklist.deal()
        if self.pool is not None and self.pool.full_deal is not None:
            return {h: self.pool.full_deal[h] for h in range(2 * self.n)}
        return None


_HANDLERS: dict[MessageKind, Callable[[MatchCore, Envelope, list[Any], bool], list[Event]]] = {
    K.COMMIT: MatchCore._on_commit, K.REVEAL: MatchCore._on_reveal,
    K.SHUFFLE: MatchCore._on_shuffle, K.DRAW: MatchCore._on_draw, K.OPEN: MatchCore._on_open,
    K.ACTION: MatchCore._on_action, K.CHOICE: MatchCore._on_action,
    K.RESULT: MatchCore._on_result, K.RESULT_COSIGN: MatchCore._on_result,
    K.RESIGN: MatchCore._on_resign, K.TIMEOUT_CLAIM: MatchCore._on_timeout,
    K.DISPUTE: MatchCore._on_dispute,
    K.SECRET_REVEAL: MatchCore._on_secrets, K.EVIDENCE: MatchCore._on_evidence,
}


def _state_hash_field(body: list[Any], length: int) -> bytes:
    if len(body) != length or type(body[-1]) is not bytes or len(body[-1]) != HASH_SIZE:
        raise MalformedMessage(f"expected {length} fields ending with the 32-byte state hash")
    return body[-1]


@functools.lru_cache(maxsize=4096)
def _canonical_action(text: str) -> Action:
    """The turn action or choice `text` names, refused unless it is in canonical form. A pure
    function of the text and an immutable Action, so memoised: a match repeats few texts
    ("end", the same moves) and the verifier replays thousands (errors are never cached)."""
    try:
        action = parse_input(text)
    except EngineError as error:
        raise IllegalAction(f"{text!r:.60} is not an input: {error}") from None
    if not isinstance(action, Action) or format_input(action) != text:
        raise IllegalAction(f"{text!r:.60} is not a canonical turn action or choice")
    return action


def _pool() -> Any:
    """protocol.pool, imported at the first shared-pool message (SPEC Part 5)."""
    from versus.protocol import pool

    return pool


def _fields_text(fields: Sequence[object]) -> str:
    """A RESULT body as printable text: bytes as hex, strings made printable, cut short."""
    parts = [value.hex()[:16] + "…" if isinstance(value, bytes)
             else printable(value, 40) if isinstance(value, str) else printable(repr(value), 40)
             for value in list(fields)[:8]]
    return "[" + ", ".join(parts) + "]"


def _blame(error: RemoteProtocolError, envelope: Envelope) -> RemoteProtocolError:
    """Make the checked envelope the last piece of evidence and its signer the culprit."""
    error.evidence = (*(e for e in error.evidence if e != envelope.raw), envelope.raw)
    if error.player is None:
        error.player = envelope.sender
    if error.player == envelope.sender:
        # The envelope authenticated and names the chain head as prev_hash: its signer built it
        # on exactly this history, so whatever its content breaks is the signer's own doing.
        error.attributable = True
    return error


def evidence_body(error: RemoteProtocolError) -> list[object]:
    """EVIDENCE body: [code, one-line message, [raw evidence...], seat or nil]. The last item
    (the offending envelope, the one the verifier re-checks) is always kept; earlier ones while
    they fit MAX_EVIDENCE_BYTES and MAX_EVIDENCE_ITEMS."""
    message = " ".join(str(error).split())[:MAX_EVIDENCE_MESSAGE]
    if not error.evidence:
        return [error.code, message, [], error.player]
    kept: list[bytes] = [error.evidence[-1]]
    total = len(kept[0])
    for raw in reversed(error.evidence[:-1]):
        if total + len(raw) > MAX_EVIDENCE_BYTES or len(kept) >= MAX_EVIDENCE_ITEMS:
            break
        kept.insert(0, raw)
        total += len(raw)
    return [error.code, message, kept, error.player]


def _size_caps(rules: MatchRules, catalogue: Catalogue) -> dict[MessageKind, int]:
    """The largest envelope of each kind an honest seat can send under these rules (SPEC
    §4.11 Sizes), from the deck size n, the pool size and the longest card id L."""
    n = rules.ruleset.deck_size
    ids = [card.id for card in catalogue.cards]
    longest = max((len(str(i).encode()) for i in ids), default=0)
    card = longest + 2  # a str8 header
    body = dict(_SMALL_BODY)
    if rules.deal_mode is DealMode.DECKLIST:
        # [coin, [[n x commit], root], draw seed commit, decklist commit]
        body[K.COMMIT] = 4 * 34 + 2 * 5 + 34 * n
        body[K.DRAW] = 9 + 34  # [slot, h]
        body[K.OPEN] = 9 + card + 2 * 34  # [slot, card, salt, h]
        # [[[slot, card, salt] x n], seed, [[card, count] x <= n], salt]
        body[K.SECRET_REVEAL] = 3 * 5 + 2 * 34 + n * (1 + 9 + card + 34) + n * (1 + card + 9)
        body[K.SHUFFLE] = 0
    else:
        pool = len(rules.pool_ids(catalogue))
        point = scalar = 34
        proof = 1 + 2 * scalar
        tag = 2 + 16  # "deal/<kind>" as a short str
        body[K.COMMIT] = 34 + 5 + tag + point + proof
        body[K.DRAW] = 5 + tag + 9 + point + proof + 34
        body[K.OPEN] = 5 + tag + 9 + 2 + 64 + point + proof + 34  # card id <= 64 bytes
        body[K.SECRET_REVEAL] = 5 + tag + scalar
        # ["deal/shuffle", step, [[a, b] x N], [[N points], [N points], c, [4 s], [N s], [N s]]]
        per_card = (1 + 2 * point) + 4 * 34
        body[K.SHUFFLE] = 5 + tag + 9 + 5 + 5 + 6 * 5 + scalar + 4 * scalar + pool * per_card
    caps = {kind: _ENVELOPE_FRAME + size for kind, size in body.items()}
    caps[K.EVIDENCE] = MAX_ENVELOPE_SIZE
    for kind in K:
        caps.setdefault(kind, _ENVELOPE_FRAME)  # kinds never sent in the chain
    return caps


# --- one player's side ----------------------------------------------------------------------


class MatchPeer:
    """One player's side of a match, sans-IO (see the module comment and SPEC §4.11).

    Call `start()` and send its HELLO; feed every frame from the peer to `receive`; send
    whatever `outgoing()` returns after each call; answer DecisionNeeded with `submit`.
    Times (`now_ms`, any monotonic milliseconds) are optional and only drive the clocks.
    """

    def __init__(self, seat: int, identity: Identity, rules: MatchRules, catalogue: Catalogue,
                 *, deck: Sequence[str] | Mapping[str, int] | None = None,
                 rng: Rng | None = None, master_secret: bytes | None = None,
                 software: str = "", expected_peer_key: bytes | None = None) -> None:
        if seat not in (0, 1):
            raise LocalProtocolError(f"seat must be 0 or 1, got {seat!r}")
        if (rng is None) == (master_secret is None):
            raise LocalProtocolError("give exactly one of rng and master_secret")
        # With the master secret the peer can rebuild itself (restore), which is how it rolls
        # back its own envelopes that crossed a timeout claim (see `_roll_back_for_claim`).
        self._master_secret = master_secret
        if rng is None:
            assert master_secret is not None
            rng = master_rng(master_secret)
        if deck is not None and rules.deal_mode is not DealMode.DECKLIST:
            raise LocalProtocolError("a deck is brought only in decklist mode")
        if rules.deal_mode is DealMode.SHARED_POOL:
            rules.pool_ids(catalogue)
        self.seat, self.identity, self.rules, self.catalogue = seat, identity, rules, catalogue
        self._rng, self._software, self._peer_key = rng, software, expected_peer_key
        self._deck_original = deck
        self._deck_cards = None if deck is None else _deck_cards(deck)
        #: how many times our own crossing envelopes were rolled back for a timeout claim
        self.rolled_back = 0
        if self._deck_cards is not None:
            check_decklist(catalogue, self._deck_cards, rules.ruleset.deck_size,
                           rules.registered_decklists[seat])
        #: our own measure of an owed message, per seq of our envelope that answered it:
        #: (ms used, ms left) when we sent it (a claim crossing it is judged against this)
        self._sent_measures: dict[int, tuple[int, int]] = {}
        #: a claim our clock contradicts: (claim hash, ms used, ms left), sent as a DISPUTE
        self._dispute: tuple[bytes, int, int] | None = None
        self.knowledge = Knowledge(seat)
        self.core: MatchCore | None = None
        self._hello: Hello | None = None
        self._peer_hello: Hello | None = None
        self._out: list[bytes] = []
        self._fault: RemoteProtocolError | None = None
        self._coin_seed = b""
        self._hand: DecklistHand | None = None
        self._deal: SharedPoolDeal | None = None
        self._resign_queued = False
        self._announced = -1  # the input count at which DecisionNeeded was last emitted
        self._clock = [rules.clock_initial_ms, rules.clock_initial_ms]
        self._clock_mark: int | None = None  # now_ms of the last envelope (the owed one's start)
        self._last_claim: Envelope | None = None
        #: after a roll-back: the highest seq we signed on the dropped branch; we never sign at
        #: a seq <= it again (that would be an equivocation, SPEC §4.11 race)
        self._dropped_up_to = -1
        self._dropped_from = -1  # the seq where the last dropped branch began
        #: the events `restore` re-ran to rebuild this peer, in order (a UI tells the match so
        #: far from them after a restart); empty for a peer that was not restored
        self.replayed_events: list[Event] = []

    # --- lifecycle ------------------------------------------------------------------------

    def start(self, *, binding: bytes = NO_BINDING, peer_key: bytes | None = None
              ) -> list[bytes]:
        """Our HELLO (send it first). Draws the nonce, then a random deck if none was given.

        Over a secure channel, `binding` is its handshake hash and `peer_key` the key it
        authenticated: the match is then bound to that channel session and that key (SPEC §4.5),
        so a relay between two channels, or a HELLO replayed from another session, is refused."""
        if self._hello is not None:
            raise LocalProtocolError("start() was already called")
        if peer_key is not None:
            if self._peer_key is not None and self._peer_key != peer_key:
                raise LocalProtocolError("the channel authenticated another key than the "
                                         "expected peer key")
            self._peer_key = peer_key
        self._hello = make_hello(self.identity, seat=self.seat, ruleset=self.rules.encode(),
                                 catalogue_hash=self.catalogue.digest, rng=self._rng,
                                 software=self._software, binding=binding)
        if self.rules.deal_mode is DealMode.DECKLIST and self._deck_cards is None:
            ids = [card.id for card in self.catalogue.cards]
            order = random_permutation(self._rng, len(ids))
            self._deck_cards = [ids[i] for i in order[: self.rules.ruleset.deck_size]]
        return [self._hello.raw]

    def receive(self, raw: bytes, now_ms: int | None = None) -> list[Event]:
        """Process one envelope from the peer. Raises the peer's RemoteProtocolError (after
        sealing our EVIDENCE into outgoing()); LocalProtocolError once the match is over.

        A link-level error (one that proves nothing about the peer: unparsable or oversize
        bytes, a bad signature, a replay, a sequence gap or conflict, another match's envelope,
        a prev-hash mismatch on our own head) is raised too, but seals no EVIDENCE and leaves
        the match running (`fault` stays None): the envelope is dropped, and the caller should
        resynchronise the link (the session reconnects; resume resends what is missing)."""
        self._require_alive()
        if self._hello is None:
            raise LocalProtocolError("call start() before receive()")
        if not isinstance(raw, bytes | bytearray):
            raise LocalProtocolError(f"receive() takes bytes, got {type(raw).__name__}")
        raw = bytes(raw)
        try:
            if self.core is None:
                return self._receive_hello(raw, now_ms)
            if self.core.phase in _ENDED:
                raise LocalProtocolError(f"the match is {self.core.phase.value}")
            if self._crossed_claim(raw):
                return []
            measure = self._owed_measure(now_ms)
            try:
                events = self.core.receive(raw)
            except SequenceConflict as conflict:
                if self._lost_race(conflict):
                    return []
                if self._claim_crossed_ours(conflict):
                    return self._roll_back_for_claim(conflict, raw, now_ms)
                raise
            accepted = self.core.chain.envelopes[-1]
            if accepted.kind is K.TIMEOUT_CLAIM:
                self._judge_claim(accepted, measure)
            self._tick(now_ms, accepted)
        except RemoteProtocolError as error:
            if self.core is not None and not error.attributable:
                self.core.chain.reopen()  # a broken link, not a cheat: drop it, stay alive
                raise
            self._fail(error)
            raise
        return events + self._pump(now_ms)

    def outgoing(self) -> list[bytes]:
        """Envelopes to send, in order (each also went into our transcript)."""
        out, self._out = self._out, []
        return out

    def submit(self, action: Action | str, now_ms: int | None = None) -> list[Event]:
        """Our answer to a TurnDecision or ChoiceDecision (an Action or its notation)."""
        self._require_alive()
        decision = self.decision
        if not isinstance(decision, TurnDecision | ChoiceDecision) or decision.player != self.seat:
            raise LocalProtocolError(f"not our decision to make (awaiting {decision})")
        if isinstance(action, str):
            try:
                action = parse_input(action)
            except EngineError as error:
                raise LocalProtocolError(str(error)) from None
        if not isinstance(action, Action):
            raise LocalProtocolError(f"submit takes a turn action or a pick, got {action!r}")
        assert self.core is not None
        try:
            post = self.core.prepare(action)
        except EngineError as error:
            raise LocalProtocolError(f"illegal: {error}") from None
        kind = K.ACTION if isinstance(decision, TurnDecision) else K.CHOICE
        events = self._send(kind, [format_input(action), post], now_ms)
        return events + self._pump(now_ms)

    def resign(self, now_ms: int | None = None) -> list[Event]:
        """Resign now if we hold a turn or choice decision, else at our next one (queued)."""
        self._require_alive()
        if self.core is None or self.core.phase in (
                Phase.RESULT, Phase.COSIGN, Phase.CLAIMED, *_SECRETS, *_ENDED):
            raise LocalProtocolError(f"nothing to resign in phase {self.phase.value}")
        self._resign_queued = True
        return self._pump(now_ms)

    def claim_timeout(self, now_ms: int) -> list[Event]:
        """Claim that the peer's time ran out (the caller's `now_ms`, same timebase as the
        times passed to receive/submit): its clock on a turn or choice, AUTOMATIC_GRACE_MS on a
        message it sends by itself (setup, DRAW, OPEN, RESULT, RESULT_COSIGN). Only in a match
        with a clock. LocalProtocolError when the claim would be false."""
        self._require_alive()
        core = self.core
        if core is None or core.phase not in _CLAIMABLE or not self.rules.has_clock:
            raise LocalProtocolError("no clock is running")
        deadline = self.claim_deadline_ms
        if deadline is None or self._clock_mark is None:
            raise LocalProtocolError("the peer owes no message (or no time was given yet)")
        seat = 1 - self.seat
        waited = now_ms - self._clock_mark
        left = deadline - self._clock_mark
        if waited < left:
            raise LocalProtocolError(f"the peer has {left - waited} ms left")
        events = self._send(K.TIMEOUT_CLAIM, [seat, waited, max(left, 0)], now_ms)
        self._last_claim = core.chain.envelopes[-1]
        return events + self._pump(now_ms)

    # --- read-only state ------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        return Phase.HELLO if self.core is None else self.core.phase

    @property
    def decision(self) -> object:
        if self.core is None or self.core.state is None or self.core.phase is not Phase.PLAY:
            return None
        return self.core.state.decision

    @property
    def my_turn(self) -> bool:
        d = self.decision
        return isinstance(d, TurnDecision | ChoiceDecision) and d.player == self.seat

    def legal_actions(self) -> list[Action]:
        if not self.my_turn:
            return []
        assert self.core is not None and self.core.state is not None
        return legal_actions(self.core.state)

    def view(self) -> PlayerView:
        if self.core is None or self.core.state is None:
            raise LocalProtocolError("the game has not started")
        return PlayerView(self.core.state, self.knowledge, self.seat)

    @property
    def result(self) -> MatchResult | None:
        """The match result as we stand by it: the chain's, except that a timeout claim our own
        clock contradicts reads as a dispute while our DISPUTE waits for the claimant's secret
        reveal (a claimant that withholds it leaves its own transcript incomplete)."""
        if self.core is None:
            return None
        result = self.core.result
        if (self._dispute is not None and result is not None
                and result.ending is Ending.TIMEOUT and self.core.claim is not None):
            _hash, used, left = self._dispute
            return MatchResult(Ending.DISPUTE, None, detail=(
                f"our clock contradicts seat {self.core.claim.sender}'s timeout claim ({used} ms "
                f"used, {left} ms left); our DISPUTE follows its secret reveal"))
        return result

    @property
    def fault(self) -> RemoteProtocolError | None:
        return self._fault

    @property
    def clocks_ms(self) -> tuple[int, int]:
        return (self._clock[0], self._clock[1])

    def restore_clocks(self, remaining_ms: tuple[int, int] | None, running_since_ms: int
                       ) -> None:
        """Put the clocks back after a restart (the session's saved reading): the remaining
        time per seat (None keeps the initial values) and the `now_ms` from which the owed
        message's clock has been running."""
        if remaining_ms is not None:
            self._clock = list(remaining_ms)
        self._clock_mark = running_since_ms

    @property
    def dropped_branch(self) -> tuple[int, int] | None:
        """After a roll-back (SPEC §4.11 race): (first seq, highest seq we signed) of the
        dropped branch, seqs at which we never sign again; None when nothing was rolled back.
        A program that saves its transcript saves this too and gives it back to `restore`."""
        if self._dropped_up_to < 0:
            return None
        return self._dropped_from, self._dropped_up_to

    @property
    def brought_deck(self) -> tuple[str, ...] | None:
        """The deck we were given (card ids), None when we brought none (a random deck is drawn
        at start, or the deal is a shared pool)."""
        return None if self._deck_original is None else tuple(self._deck_cards or ())

    @property
    def clock_running(self) -> tuple[int, int] | None:
        """(seat whose clock runs, the `now_ms` at which it started), None when stopped."""
        core = self.core
        if self._clock_mark is None or core is None or core.phase is not Phase.PLAY:
            return None
        seat, kinds = core.expected()
        if seat is None or K.RESIGN not in kinds:
            return None
        return seat, self._clock_mark

    @property
    def claim_deadline_ms(self) -> int | None:
        """The `now_ms` from which `claim_timeout` succeeds (the peer owes the next message and
        its clock or, for an automatic message, AUTOMATIC_GRACE_MS runs out); None when no
        claim can come (no clock, we owe the next message, the result is fixed, no time yet)."""
        core, mark = self.core, self._clock_mark
        if (core is None or mark is None or not self.rules.has_clock or self._fault is not None
                or core.phase not in _CLAIMABLE):
            return None
        seat, kinds = core.expected()
        if seat != 1 - self.seat:
            return None
        allowance = max(self._clock[seat], 0) if K.RESIGN in kinds else AUTOMATIC_GRACE_MS
        return mark + allowance

    @property
    def match_id(self) -> bytes | None:
        return None if self.core is None else self.core.match_id

    @property
    def seq(self) -> int:
        """The number of chain envelopes (the next seq)."""
        return 0 if self.core is None else self.core.chain.next_seq

    @property
    def head(self) -> bytes | None:
        return None if self.core is None else self.core.chain.head

    def envelopes_after(self, seq: int) -> list[bytes]:
        """Chain envelopes with seq > `seq` (-1: all), to resend after a reconnect."""
        if self.core is None:
            return []
        return [e.raw for e in self.core.chain.envelopes[seq + 1:]]

    def transcript(self) -> Transcript:
        if self._hello is None or self._peer_hello is None or self.core is None:
            raise LocalProtocolError("no transcript before both HELLOs")
        hellos = sorted((self._hello, self._peer_hello), key=lambda h: h.seat)
        return Transcript((hellos[0].raw, hellos[1].raw),
                          tuple(e.raw for e in self.core.chain.envelopes))

    def transcript_bytes(self) -> bytes:
        return dump_transcript(self.transcript())

    # --- restore --------------------------------------------------------------------------

    @classmethod
    def restore(cls, transcript: Transcript | bytes, master_secret: bytes, identity: Identity,
                catalogue: Catalogue, *, deck: Sequence[str] | Mapping[str, int] | None = None,
                software: str = "", dropped_branch: tuple[int, int] | None = None
                ) -> MatchPeer:
        """Rebuild a peer from its transcript and the master secret its rng was made from
        (`master_rng(master_secret)`). Our own envelopes are regenerated and must match the
        transcript byte for byte; envelopes we owe beyond it end up in `outgoing()`.
        `dropped_branch` is the peer's `dropped_branch` as saved after a roll-back: the
        transcript no longer shows that branch, so only this keeps the rebuilt peer from signing
        at its seqs again."""
        if isinstance(transcript, bytes | bytearray):
            transcript = load_transcript(bytes(transcript))
        hellos = [open_hello(raw) for raw in transcript.hellos]
        seats = [h.seat for h in hellos if h.public_key == identity.public_key]
        if len(seats) != 1:
            raise LocalProtocolError("the identity is not exactly one player of the transcript")
        seat = seats[0]
        rules = MatchRules.decode(hellos[seat].ruleset)
        peer = cls(seat, identity, rules, catalogue, deck=deck, master_secret=master_secret,
                   software=hellos[seat].software)
        if peer.start(binding=hellos[seat].binding)[0] != transcript.hellos[seat]:
            raise LocalProtocolError("the master secret does not reproduce our HELLO")
        for raw in transcript.envelopes:  # our DISPUTE's measure is in no secret: take it back
            envelope = parse_envelope(raw)
            if envelope.kind is K.DISPUTE and envelope.sender == seat:
                claim_hash, used, left = envelope.body
                peer._dispute = (claim_hash, used, left)
        if dropped_branch is not None and _branch_was_dropped(transcript, seat, dropped_branch):
            peer._dropped_from, peer._dropped_up_to = dropped_branch
        pending: deque[bytes] = deque()
        replayed = peer.replayed_events
        replayed += peer.receive(transcript.hellos[1 - seat])
        pending.extend(peer.outgoing())
        for raw in transcript.envelopes:
            envelope = parse_envelope(raw)
            if envelope.sender != seat:
                with contextlib.suppress(RemoteProtocolError):  # our EVIDENCE: compared next
                    replayed += peer.receive(raw)
                pending.extend(peer.outgoing())
                continue
            if not pending:
                replayed += peer._replay_own(envelope)
                pending.extend(peer.outgoing())
            if not pending or pending.popleft() != raw:
                raise LocalProtocolError(
                    f"envelope seq {envelope.seq} of the transcript is not what this peer "
                    "produces (wrong master secret, deck or catalogue?)")
        peer._out = list(pending)
        return peer

    def _replay_own(self, envelope: Envelope) -> list[Event]:
        if envelope.kind in (K.ACTION, K.CHOICE):
            return self.submit(str(envelope.body[0]))
        if envelope.kind is K.RESIGN:
            return self.resign()
        if envelope.kind is K.TIMEOUT_CLAIM:  # as claim_timeout: the claim, then what we owe
            events = self._send(K.TIMEOUT_CLAIM, list(envelope.body), None)
            assert self.core is not None
            self._last_claim = self.core.chain.envelopes[-1]
            return events + self._pump(None)
        return []

    # --- internals ------------------------------------------------------------------------

    def _receive_hello(self, raw: bytes, now_ms: int | None) -> list[Event]:
        assert self._hello is not None
        hello = open_hello(raw)
        if hello.seat == self.seat:
            raise SetupMismatch(f"the peer claims our seat {self.seat}", [raw], player=hello.seat)
        expected: list[bytes | None] = [None, None]
        expected[hello.seat] = self._peer_key
        setup = MatchSetup.from_hellos(self._hello, hello, local_seat=self.seat,
                                       expected_keys=expected)
        self._peer_hello = hello
        match_id = setup.match_id
        self._coin_seed = self._rng(HASH_SIZE)
        if self.rules.deal_mode is DealMode.DECKLIST:
            assert self._deck_cards is not None
            self._hand = DecklistHand(match_id, self.seat, self._deck_cards, self._rng)
            pool_side: PoolLive | None = None
        else:
            from versus.protocol.pool import SharedPoolDeal
            from versus.protocol.pool_sides import PoolLive

            self._deal = SharedPoolDeal(self.seat, match_id, setup.keys,
                                        self.rules.pool_ids(self.catalogue),
                                        self.rules.ruleset.deck_size, self._rng)
            pool_side = PoolLive(self._deal)
        self.core = MatchCore(setup, self.rules, self.catalogue, pool_side, self._learn)
        if self.rules.has_clock and now_ms is not None:
            self._clock_mark = now_ms  # seat 0's COMMIT is owed from here
        return self._pump(now_ms)

    def _learn(self, owner: int, handle: int, card: str | None) -> None:
        if owner != self.seat:
            return
        if card is None:
            assert self._hand is not None
            card = str(self._hand.deck.cards[handle - owner * self.rules.ruleset.deck_size])
        self.knowledge.learn(handle, card)

    def _pump(self, now_ms: int | None) -> list[Event]:
        """Send everything that is ours to send automatically; announce our decisions."""
        events: list[Event] = []
        core = self.core
        while core is not None and self._fault is None:
            if self._dispute is not None and self._may_dispute_now():
                claim_hash, used, left = self._dispute
                self._dispute = None
                events += self._send(K.DISPUTE, [claim_hash, used, left], now_ms)
                continue
            seat, kinds = core.expected()
            if seat != self.seat or self._on_dropped_branch():
                break  # (the second: e.g. our best-effort SECRET_REVEAL after a roll-back)
            if K.RESIGN in kinds:
                if self._resign_queued:
                    events += self._send(K.RESIGN, [], now_ms)
                    continue
                if self._announced != core.inputs:
                    self._announced = core.inputs
                    events.append(DecisionNeeded(core.state.decision))  # type: ignore[union-attr,arg-type]
                break
            kind, body = self._automatic(kinds[0])
            events += self._send(kind, body, now_ms)
        return events

    def _automatic(self, kind: MessageKind) -> tuple[MessageKind, list[object]]:
        core = self.core
        assert core is not None
        hand, deal, n = self._hand, self._deal, self.rules.ruleset.deck_size
        if kind is K.COMMIT:
            coin = coin_commitment(core.match_id, self.seat, COIN_PURPOSE, self._coin_seed)
            if hand is not None:
                return kind, [coin, *hand.commit_body()]
            assert deal is not None
            return kind, [coin, deal.key_share().to_wire()]
        if kind is K.REVEAL:
            return kind, [self._coin_seed]
        if kind is K.SHUFFLE:
            assert deal is not None
            return kind, [deal.shuffle().to_wire()]
        if kind in (K.RESULT, K.RESULT_COSIGN):
            return kind, core.result_body()
        if kind is K.SECRET_REVEAL:
            if hand is not None:
                return kind, hand.secret_body()
            assert deal is not None
            return kind, [deal.end_reveal().to_wire()]
        decision = core.state.decision  # type: ignore[union-attr]
        if kind is K.DRAW:
            assert isinstance(decision, DealDecision)
            if hand is not None:
                slot = hand.draw_order.next_position()
                return kind, [slot, core.prepare(Deal(decision.player * n + slot))]
            assert deal is not None
            position = core.next_undealt(decision.player)
            share = deal.draw_share(position)
            return kind, [share.to_wire(), core.prepare(Deal(position))]
        assert kind is K.OPEN and isinstance(decision, RevealDecision)
        handle = decision.handle
        if hand is not None:
            opening = hand.deck.open(handle - self.seat * n)
            post = core.prepare(Reveal(handle, str(opening.card)))
            return kind, [*opening.body(), post]
        assert deal is not None
        reveal = deal.reveal(handle)
        return kind, [reveal.to_wire(), core.prepare(Reveal(handle, reveal.card_id))]

    def _send(self, kind: MessageKind, body: list[object], now_ms: int | None) -> list[Event]:
        assert self.core is not None
        if kind not in (K.TIMEOUT_CLAIM, K.EVIDENCE, K.DISPUTE):
            measure = self._owed_measure(now_ms)
            if measure is not None:
                self._sent_measures[self.core.chain.next_seq] = measure
                for old in [seq for seq in self._sent_measures
                            if seq < self.core.chain.next_seq - 8]:
                    del self._sent_measures[old]  # a claim can cross only our latest envelopes
        envelope, events = self.core.send(self.identity, kind, body)
        self._out.append(envelope.raw)
        self._tick(now_ms, envelope)
        return events

    def _tick(self, now_ms: int | None, envelope: Envelope) -> None:
        """Charge the time since the last envelope to the seat that owed a turn or choice."""
        core = self.core
        if not self.rules.has_clock or now_ms is None or core is None:
            return
        if envelope.kind in (K.ACTION, K.CHOICE) and self._clock_mark is not None:
            mover = envelope.sender
            self._clock[mover] += self.rules.clock_increment_ms - (now_ms - self._clock_mark)
        # every envelope starts the next owed message's time (a turn, a choice or an automatic
        # message of either seat), so a claim can follow any message the peer owes
        self._clock_mark = now_ms if core.phase in _CLAIMABLE else None

    def _owed_measure(self, now_ms: int | None) -> tuple[int, int] | None:
        """Our own measure of the message we owe now: (ms used since it became owed, ms left of
        its allowance: our clock for a turn or choice, AUTOMATIC_GRACE_MS for an automatic
        message). None when we owe nothing, or no time was given."""
        core, mark = self.core, self._clock_mark
        if (core is None or mark is None or now_ms is None or not self.rules.has_clock
                or core.phase not in _CLAIMABLE):
            return None
        seat, kinds = core.expected()
        if seat != self.seat:
            return None
        allowance = self._clock[seat] if K.RESIGN in kinds else AUTOMATIC_GRACE_MS
        used = max(now_ms - mark, 0)
        return used, allowance - used

    def _judge_claim(self, claim: Envelope, measure: tuple[int, int] | None) -> None:
        """A timeout claim against us entered the chain: if our own measure of the owed message
        (taken when the claim arrived, or when our crossing envelope left) says more than
        CLAIM_TOLERANCE_MS were still left, we do not concede: a DISPUTE follows (SPEC §4.11).
        Without a measure (no times given) the claim cannot be contradicted."""
        core = self.core
        if (core is None or claim.sender == self.seat or measure is None
                or core.disputable_by() != self.seat):
            return
        used, left = measure
        if left > CLAIM_TOLERANCE_MS:
            self._dispute = (claim.hash, min(used, MAX_CLAIM_MS), min(left, MAX_CLAIM_MS))

    def _may_dispute_now(self) -> bool:
        """Our DISPUTE goes out when no message of the claimant's is owed before it (in
        SECRETS, after the claimant's own reveal), so it never races another envelope."""
        core = self.core
        if core is None or core.disputable_by() != self.seat or self._on_dropped_branch():
            return False
        return core.phase is Phase.CLAIMED or core.expected()[0] == self.seat

    def _crossed_claim(self, raw: bytes) -> bool:
        """After our TIMEOUT_CLAIM: the late seat's envelopes that continue its own branch
        (not linked to our chain) are dropped: the claim won the race."""
        claim, core = self._last_claim, self.core
        if claim is None or core is None:
            return False
        try:
            envelope = parse_envelope(raw)
        except RemoteProtocolError:
            return False
        if envelope.seq <= claim.seq or envelope.sender == self.seat:
            return False
        envelopes = core.chain.envelopes
        linked = (envelope.seq - 1 < len(envelopes)
                  and envelope.prev_hash == envelopes[envelope.seq - 1].hash)
        return not linked and envelope.kind not in (K.SECRET_REVEAL, K.EVIDENCE)

    def _lost_race(self, conflict: SequenceConflict) -> bool:
        """Our TIMEOUT_CLAIM and the late seat's envelope crossed: the claim stands (SPEC
        §4.11), the crossing envelope is dropped without blame."""
        core = self.core
        assert core is not None
        earlier, later = conflict.evidence[0], conflict.evidence[-1]
        if self._last_claim is not None and earlier == self._last_claim.raw:
            core.chain.reopen()
            return parse_envelope(later).sender != self.seat
        return False

    def _claim_crossed_ours(self, conflict: SequenceConflict) -> bool:
        """The late side of the race: the peer's TIMEOUT_CLAIM names the same predecessor as
        our own envelope at its seq (both continued the same chain prefix)."""
        core = self.core
        if core is None or self._master_secret is None:
            return False
        earlier, later = (parse_envelope(raw) for raw in (conflict.evidence[0],
                                                          conflict.evidence[-1]))
        if earlier.sender != self.seat or later.sender == self.seat:
            return False
        if later.kind is not K.TIMEOUT_CLAIM or later.seq != earlier.seq:
            return False
        return later.prev_hash == earlier.prev_hash

    def _on_dropped_branch(self) -> bool:
        """Whether our next envelope would take a seq we signed on a dropped branch."""
        assert self.core is not None
        return self._dropped_from <= self.core.chain.next_seq <= self._dropped_up_to

    def _roll_back_for_claim(self, conflict: SequenceConflict, raw: bytes,
                             now_ms: int | None) -> list[Event]:
        """Drop our envelopes from the claim's seq on and accept the claim (SPEC §4.11 race):
        the peer is rebuilt from the transcript prefix (`restore` regenerates our own envelopes
        and rng position exactly), then takes the claim like any envelope. Both transcripts then
        end with the same claim and verify.

        Only a claim the prefix admits is worth a roll-back: one the rules refuse there (no
        clock, the claimant owed the message itself, a malformed body) is answered with
        EVIDENCE at our own next seq, our envelopes kept; the verifier re-checks it against the
        prefix it was signed on. A claim the prefix admits but our own clock contradicts (we
        sent our envelope with more than CLAIM_TOLERANCE_MS left) is still rolled back to, so
        both transcripts agree, and answered with a DISPUTE: no one wins it."""
        core, secret = self.core, self._master_secret
        assert core is not None and secret is not None
        seq = parse_envelope(conflict.evidence[0]).seq
        try:
            core.audit_prefix(seq).receive(raw)
        except RemoteProtocolError as error:
            if not error.attributable:
                raise conflict from None  # proves nothing about the claimant: drop it
            self._fail(error)
            raise error from None
        measure = self._sent_measures.get(seq)
        prefix = Transcript(self.transcript().hellos,
                            tuple(e.raw for e in core.chain.envelopes[:seq]))
        # We signed envelopes up to `dropped` on the dropped branch: signing another envelope
        # at any of those seqs would hand the claimant an equivocation, so the rebuilt peer
        # sends nothing there (not even the automatic DRAW or OPEN the prefix leads to, which
        # would take the claim's seq again; our SECRET_REVEAL is best effort after a claim).
        dropped = max(e.seq for e in core.chain.envelopes[seq:] if e.sender == self.seat)
        rebuilt = MatchPeer.restore(prefix, secret, self.identity, self.catalogue,
                                    deck=self._deck_original, software=self._software,
                                    dropped_branch=(seq, dropped))
        clocks, count = list(self._clock), self.rolled_back
        rebuilt._out = []  # anything it owes at the prefix is superseded by the claim
        rebuilt.replayed_events = []  # a roll-back is not a restart: nothing to retell
        self.__dict__.update(rebuilt.__dict__)
        self._clock, self.rolled_back = clocks, count + 1
        events = self.receive(raw, now_ms)
        assert self.core is not None
        claim = self.core.claim
        if claim is not None and claim.raw == raw:
            self._judge_claim(claim, measure)
            events += self._pump(now_ms)
        return events

    def _fail(self, error: RemoteProtocolError) -> None:
        self._fault = error
        core = self.core
        if core is None or core.phase in _ENDED or self._on_dropped_branch():
            return
        core.chain.reopen()
        envelope, _ = core.send(self.identity, K.EVIDENCE, evidence_body(error))
        self._out.append(envelope.raw)

    def _require_alive(self) -> None:
        if self._fault is not None:
            raise LocalProtocolError(
                f"the match stopped after the peer's {self._fault.code}: {self._fault}")


def _branch_was_dropped(transcript: Transcript, seat: int, branch: tuple[int, int]) -> bool:
    """Whether `transcript` is the one rewritten after the roll-back of `branch` (our dropped
    seqs): it stops before the branch (the roll-back's own prefix) or has the peer's TIMEOUT_CLAIM
    there. False when our own envelope is still there: the program stopped between saving the
    branch and rewriting the transcript, so the branch is still ours to replay (and the claim,
    sent again on resume, rolls it back anew). Anything else contradicts the transcript."""
    first, last = branch
    envelopes = transcript.envelopes
    if not 0 <= first <= last:
        raise LocalProtocolError(f"the dropped branch {first}..{last} is not a range of seqs")
    if len(envelopes) <= first:
        return True
    envelope = parse_envelope(envelopes[first])
    if envelope.seq == first and envelope.sender == seat:
        return False
    if envelope.seq != first or envelope.kind is not K.TIMEOUT_CLAIM:
        raise LocalProtocolError(f"the dropped branch {first}..{last} does not start at the "
                                 "peer's timeout claim in the transcript")
    return True


def _deck_cards(deck: Sequence[str] | Mapping[str, int]) -> list[str]:
    if isinstance(deck, Mapping):
        return [card for card, count in sorted(deck.items()) for _ in range(count)]
    return [str(card) for card in deck]


__all__ = [
    "TRANSITIONS",
    "DecisionNeeded",
    "Ending",
    "Event",
    "MatchClosed",
    "MatchCore",
    "MatchEnded",
    "MatchPeer",
    "MatchResult",
    "MatchStarted",
    "Phase",
    "Rule",
    "Sender",
    "StateChanged",
    "evidence_body",
    "spec_table",
]
