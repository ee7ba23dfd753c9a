# The match's public referee (SPEC §4.11), sans-IO in the style of h11: setup, joint
# randomness, the deal, lockstep play, public chance, the end of the match and the evidence of
# a fault, for any registered game.
#
# MatchCore holds the chain, the game's public state and the public side of the deal, and
# accepts one envelope at a time after checking it against the transition table (table.py:
# at every moment exactly one seat may send, and which kinds). The row that admits an envelope
# names its handler, which checks and applies it, and where the phase goes next: `_move` is
# the one place the phase changes, after the handler returns. It is fed our own envelopes and
# the peer's alike ("Rule 2"), and the offline verifier (verify.py) feeds it a whole
# transcript. One player's side, with its secrets and clocks, is MatchPeer (peer.py).
#
# A received envelope enters the chain only after its meaning is checked, so a refused envelope
# is never part of the honest transcript: it goes into the EVIDENCE envelope the honest side
# seals instead, which the verifier re-checks. Every input to the game carries the hash of the
# public state after it; the receiver applies the same input and compares (lockstep). The game
# is reached only through its Game interface (engine/api.py): nothing here knows its rules.
#
# The engine is code we run on inputs someone else chose, so whatever it raises is sorted by
# whose input it was (SPEC §4.9, Decided): on an input the peer signed it is the peer's fault
# (UnplayableInput, evidence like any illegal move: the sender's own engine raises the same, so
# an honest seat never signs it); on our own input it is our bug, a LocalProtocolError raised
# before anything is signed (`prepare`, `send`); when the rules' new game raises, nobody signed
# anything wrong (UnplayableRules).
from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from versus.engine.api import DecisionKind, Finished, Pending, Setup
from versus.engine.errors import EngineError
from versus.protocol.crypto.chance import ChanceAudit, chance_outcome
from versus.protocol.crypto.commitment import coin_commitment, coin_outcome
from versus.protocol.crypto.identity import Identity
from versus.protocol.deals.dealers import DecklistAudit
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
    StateHashMismatch,
    UnplayableInput,
    UnplayableRules,
)
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.setup import MatchSetup
from versus.protocol.match.table import (
    CHANCE_ANSWER,
    COIN_PURPOSE,
    ENDED,
    INTERRUPTS,
    MAX_CLAIM_MS,
    ON_ENTRY,
    OPENING,
    OWED,
    SECRETS,
    TRANSITIONS,
    Ending,
    Event,
    MatchClosed,
    MatchEnded,
    MatchResult,
    MatchStarted,
    Phase,
    Rule,
    Sender,
    StateChanged,
)
from versus.protocol.wire.canonical import HASH_SIZE
from versus.protocol.wire.envelope import (
    MAX_ENVELOPE_SIZE,
    MAX_MESSAGE_SIZE,
    Envelope,
    MessageKind,
    parse_envelope,
    seal,
)
from versus.protocol.wire.text import printable

if TYPE_CHECKING:  # the mental-poker modules load only for a shared-pool match (start-up)
    from versus.protocol.deals.pool_sides import PoolAudit, PoolLive

K = MessageKind
#: evidence items an EVIDENCE carries at most (bytes): the offending envelope always fits, since
#: every kind but EVIDENCE is at most MAX_MESSAGE_SIZE (envelope.py) and the EVIDENCE's own
#: fields fit the EVIDENCE_HEADROOM left above it
MAX_EVIDENCE_BYTES = MAX_MESSAGE_SIZE
MAX_EVIDENCE_ITEMS = 4
MAX_EVIDENCE_MESSAGE = 200
#: envelope bytes around a body: 8-array header, version, match id, seq, prev_hash, sender, kind,
#: signature (147 at most) and the body's array header (5)
_ENVELOPE_FRAME = 152
#: body caps (bytes) of the kinds whose bodies do not grow with the deck or the pool: an ACTION's
#: text is at most 200 characters of canonical (ASCII) input notation plus the state hash
_SMALL_BODY = {
    K.REVEAL: 80, K.CHANCE: 80, K.ACTION: 256, K.CHOICE: 256, K.RESULT: 128, K.RESULT_COSIGN: 128,
    K.RESIGN: 8, K.TIMEOUT_CLAIM: 64, K.DISPUTE: 64,
}


# --- the public referee ---------------------------------------------------------------------


class MatchCore:
    """The public state of one match and the checks of every envelope (see module comment).

    `pool_side` is a PoolLive for a MatchPeer (its own pool messages pass unchecked, the peer's
    go through SharedPoolDeal), a PoolAudit for the offline verifier, None in decklist mode.
    `on_draw(owner, handle, card)` lets a peer learn its own drawn cards.

    The game is known only through its Game interface (engine/api.py, `rules.game_impl`): its
    decision after each input says which table row applies, its hidden decks say which card a
    DEAL hands out, and its state hash is what both seats compare.
    """

    def __init__(self, setup: MatchSetup, rules: MatchRules, catalogue: Any,
                 pool_side: PoolLive | PoolAudit | None,
                 on_draw: Callable[[int, int, str | None], None] | None = None) -> None:
        self.setup, self.rules, self.catalogue = setup, rules, catalogue
        self.game = rules.game_impl
        self.decks = rules.decks
        self.match_id = setup.match_id
        self.chain = setup.new_chain()
        assert isinstance(OPENING.next, Phase)
        self.phase = OPENING.next  # both HELLOs are in (table.py)
        self.state: Any = None
        #: the game's decision in `state` (None before the game starts)
        self.pending: Pending | Finished | None = None
        self.inputs = 0
        self.actions = 0
        #: cards dealt so far from each hidden deck (the next one is deck.first + count)
        self.dealt = [0] * len(self.decks)
        self.coin_commits: list[bytes | None] = [None, None]
        self.coin_seeds: list[bytes | None] = [None, None]
        self.decklist = (
            DecklistAudit(self.match_id, rules.deck_sizes, rules.card_ids(catalogue),
                          rules.registered_decklists, (self.decks[0].first, self.decks[1].first))
            if rules.deal_mode is DealMode.DECKLIST else None
        )
        #: the public side of the chance chains (a game with CHANCE decisions only)
        self.chances = ChanceAudit(self.match_id) if self.game.chance else None
        #: the seat whose preimage opened the CHANCE now pending, and that preimage
        self.chance_opened: tuple[int, bytes] | None = None
        #: the sender of the last envelope this referee accepted (the opener of a CHANCE)
        self.last_sender: int | None = None
        self.pool = pool_side
        self.game_result: Finished | None = None
        self.result: MatchResult | None = None
        self.evidence: tuple[str, str, tuple[bytes, ...], int | None] | None = None
        self._on_draw = on_draw
        #: our next input, the state after it, its hash and its decision (`prepare`)
        self._pre: tuple[Any, Any, bytes, Pending | Finished] | None = None
        self.revealed = [False, False]  # whose SECRET_REVEAL is in
        self.claim: Envelope | None = None  # the TIMEOUT_CLAIM in the chain, if any
        self.disputed = False
        #: the fault a re-checked EVIDENCE proves (code, seat or None, attributable, message)
        self.fault_found: tuple[str, int | None, bool, str] | None = None
        self.size_caps = _size_caps(rules, catalogue)
        #: owed_rules' last answer: (phase, pending, chance_opened, rows)
        self._owed: tuple[Phase, Any, Any, tuple[Rule, ...]] | None = None

    # --- the table ------------------------------------------------------------------------

    def owed_rules(self) -> tuple[Rule, ...]:
        """The table rows of the message the match waits for, all with one sender (a turn:
        ACTION or RESIGN); () when nothing is owed (ended, or CLAIMED)."""
        # Asked several times per envelope (admit, expected, the peer's pump) while nothing it
        # depends on changes: the last answer is kept with the exact objects it came from.
        cached = self._owed
        if (cached is not None and cached[0] is self.phase and cached[1] is self.pending
                and cached[2] is self.chance_opened):
            return cached[3]
        rules = self._owed_rules()
        self._owed = (self.phase, self.pending, self.chance_opened, rules)
        return rules

    def _owed_rules(self) -> tuple[Rule, ...]:
        decision = ""
        if self.phase is Phase.PLAY:
            pending = self.pending
            if not isinstance(pending, Pending):
                raise LocalProtocolError(f"no play message expected after {pending}")
            decision = pending.kind.name
            if pending.kind is DecisionKind.CHANCE and self.chance_opened is not None:
                decision = CHANCE_ANSWER
        return OWED.get((self.phase, decision), ())

    def expected(self) -> tuple[int | None, tuple[MessageKind, ...]]:
        """(the one seat that may send next, the kinds it may send), from the table; (None, ())
        when nothing is owed (ended, or a setup claim that only a DISPUTE may answer). Not
        listed: the rows that interrupt (claim, dispute, evidence: see `_admitting`)."""
        rules = self.owed_rules()
        if not rules:
            return None, ()
        kinds = rules[0].kinds if len(rules) == 1 else tuple(k for r in rules for k in r.kinds)
        return self._owed_seat(rules), kinds

    def _owed_seat(self, rules: tuple[Rule, ...]) -> int | None:
        player = self.pending.player if isinstance(self.pending, Pending) else None
        return rules[0].seat(player, self.last_sender)

    def disputable_by(self) -> int | None:
        """The seat that may still DISPUTE the standing timeout claim (the accused, until its
        DISPUTE or its SECRET_REVEAL), or None."""
        claim = self.claim
        if claim is None or self.disputed or self.phase in ENDED:
            return None
        late = 1 - claim.sender
        if self.phase is Phase.CLAIMED or (self.phase in SECRETS and not self.revealed[late]):
            return late
        return None

    def _admitting(self, envelope: Envelope) -> Rule | None:
        """The table row that lets `envelope.sender` send `envelope.kind` now, or None."""
        kind, sender = envelope.kind, envelope.sender
        rule = INTERRUPTS.get(kind)
        if rule is not None:
            if self.phase not in rule.phases:
                return None
            if rule.sender is Sender.WAITING:
                return rule if self.expected()[0] == 1 - sender else None
            if rule.sender is Sender.ACCUSED:
                return rule if sender == self.disputable_by() else None
            return rule  # Sender.DETECTOR: its check says whether the evidence holds
        rules = self.owed_rules()
        if not rules or self._owed_seat(rules) != sender:
            return None
        return next((rule for rule in rules if kind in rule.kinds), None)

    def _move(self, rule: Rule, envelope: Envelope) -> list[Event]:
        """The one place the phase changes: to the row's next phase, or where its decider
        says, after the row's handler accepted `envelope`. Entering another phase runs its
        ON_ENTRY action, whose events follow the handler's."""
        before = self.phase
        self.phase = rule.next if isinstance(rule.next, Phase) else rule.next(self, envelope)
        if self.phase is before:  # most envelopes of the game stay in PLAY: no lookup
            return []
        entry = ON_ENTRY.get(self.phase)
        if entry is None:
            return []
        try:
            events: list[Event] = getattr(self, entry.action)()
        except UnplayableRules:
            if entry.failed is None:
                raise
            self.phase = entry.failed  # nothing more can be played
            raise
        return events

    # --- entry points ---------------------------------------------------------------------

    def receive(self, raw: bytes) -> list[Event]:
        """Authenticate, check and append a peer's (or, for the verifier, any) envelope."""
        envelope = self.chain.authenticate(raw)
        try:
            events = self.check(envelope, own=False)
        except UnplayableRules:  # a sound envelope: both transcripts end with it (see send)
            self.chain.append(envelope)
            raise
        self.chain.append(envelope)
        return events

    def send(self, identity: Identity, kind: MessageKind, body: Sequence[object]
             ) -> tuple[Envelope, list[Event]]:
        """Sign our next envelope, check it as the peer will, and only then append it: an
        envelope our own rules refuse is a bug of ours (LocalProtocolError) and never enters
        our transcript, so it is never sent nor held against us."""
        chain = self.chain
        if chain.error is not None:
            raise LocalProtocolError(f"the chain is closed after {chain.error.code}: "
                                     f"{chain.error}")
        if identity.public_key not in chain.keys:
            raise LocalProtocolError(f"{identity.fingerprint} is not a player of this match")
        envelope = seal(identity, match_id=self.match_id, seq=chain.next_seq,
                        prev_hash=chain.head, sender=chain.keys.index(identity.public_key),
                        kind=kind, body=body)
        try:
            events = self._process(envelope, own=True)
        except RemoteProtocolError as error:  # our own message broke our own rules: a bug
            raise LocalProtocolError(f"our own {kind.name} was refused: {error}") from error
        except UnplayableRules:
            # Our last setup message was sound, the rules are not: it is kept (and sent, see
            # MatchPeer), so both transcripts show the setup complete: unplayable-rules.
            chain.append(envelope)
            raise
        chain.append(envelope)
        return envelope, events

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
        rule = self._admitting(envelope)
        if rule is None:
            seat, kinds = self.expected()
            raise OutOfTurn(
                f"{envelope.kind.name} from seat {envelope.sender} at seq {envelope.seq}: in "
                f"phase {self.phase.value} only seat {seat} may send "
                f"{'/'.join(k.name for k in kinds) or 'nothing'}",
                [envelope.raw], player=envelope.sender)
        self._check_size(envelope)
        body = list(envelope.body)
        handler = _HANDLERS[envelope.kind]  # the row's handler (the map is built from it)
        events = handler(self, envelope, body, own)
        events += self._move(rule, envelope)
        self.last_sender = envelope.sender
        return events

    @property
    def setup_seed(self) -> bytes | None:
        """The game's seed from the joint coin flip (§4.6), once both REVEALs are in."""
        seeds = self.coin_seeds
        if seeds[0] is None or seeds[1] is None:
            return None
        return coin_outcome(self.match_id, COIN_PURPOSE, seeds[0], seeds[1])

    def _start_game(self) -> list[Event]:
        """Entering PLAY (ON_ENTRY): the game's first state from the setup seed."""
        seed = self.setup_seed
        assert seed is not None
        try:
            state = self.game.new_game(Setup(self.rules.ruleset, self.catalogue, seed))
            pending = self.game.decision(state)
        except Exception as error:  # the rules, not a message: nobody signed anything wrong
            raise UnplayableRules(f"the match rules cannot be played: game {self.game.id!r} "
                                  f"cannot start: {_error_text(error)}") from error
        self.state, self.pending = state, pending
        return [MatchStarted(self.match_id, self.state)]

    def _closed(self) -> list[Event]:
        """Entering CLOSED (ON_ENTRY): the final word on the match."""
        return [MatchClosed()]

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
        return []

    def _on_reveal(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        seat, chances = envelope.sender, self.chances
        fields = 1 if chances is None else 2
        if len(body) != fields or type(body[0]) is not bytes or len(body[0]) != HASH_SIZE:
            raise MalformedMessage("a REVEAL is [32-byte coin seed]" if chances is None else
                                   "a REVEAL is [32-byte coin seed, 32-byte chance anchor]")
        if coin_commitment(self.match_id, seat, COIN_PURPOSE, body[0]) != self.coin_commits[seat]:
            raise CommitmentMismatch(f"seat {seat}'s coin seed does not match its commitment")
        if chances is not None:
            chances.anchor(seat, body[1])
        self.coin_seeds[seat] = body[0]
        return []

    def _on_shuffle(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        if len(body) != 1:
            raise MalformedMessage("a SHUFFLE is [shuffle message]")
        assert self.pool is not None
        # our own SHUFFLE is read back without the 4N subgroup checks the peer's gets
        self.pool.shuffle(envelope.sender, _pool().Shuffle.from_wire(body[0], ours=own), own)
        return []

    # --- play handlers --------------------------------------------------------------------

    def _on_draw(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        pending = self._pending(DecisionKind.DEAL)
        owner, claimed = pending.player, _state_hash_field(body, 2)
        assert owner is not None
        card = None
        if self.decklist is not None:
            handle = self.decklist.draw(envelope.sender, body[0], [envelope.raw])
        else:
            assert self.pool is not None
            handle = self.next_handle(pending)
            card = self.pool.draw(envelope.sender, handle,
                                  _pool().DrawShare.from_wire(body[0], ours=own), own)
        inp = self._engine(f"deal {handle}", self.game.deal_input, handle)
        events = self._apply(envelope, inp, claimed, own)
        self.dealt[pending.deck] += 1
        if self._on_draw is not None:
            self._on_draw(owner, handle, card)
        return events

    def _on_open(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        pending = self._pending(DecisionKind.REVEAL)
        handle, owner = pending.handle, pending.player
        assert owner is not None
        if self.decklist is not None:
            claimed = _state_hash_field(body, 4)
            opening = self.decklist.open(owner, body[:3], [envelope.raw],
                                         expected_slot=handle - self.decklist.firsts[owner])
            card = opening.card
        else:
            claimed = _state_hash_field(body, 2)
            assert self.pool is not None
            card = self.pool.reveal(owner, handle, _pool().Reveal.from_wire(body[0], ours=own),
                                    own)
        if type(card) is not str:
            raise IllegalAction(f"card id {card!r:.40} is not a catalogue id")
        inp = self._engine(f"reveal {handle} {card!r:.40}", self.game.reveal_input, handle, card)
        return self._apply(envelope, inp, claimed, own)

    def _on_action(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        claimed = _state_hash_field(body, 2)
        text = body[0]
        if type(text) is not str or len(text) > 200:
            raise MalformedMessage("an ACTION/CHOICE is [input text (<= 200 chars), state hash]")
        action = _canonical_input(self.game, text)
        self.actions += 1
        return self._apply(envelope, action, claimed, own, text)

    def _on_chance(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        pending = self._pending(DecisionKind.CHANCE)
        chances, seat = self.chances, envelope.sender
        if chances is None:
            raise LocalProtocolError(f"game {self.game.id!r} asks for a CHANCE but declares "
                                     "chance = False (no chance chains were set up)")
        opened = self.chance_opened
        if opened is None:
            if len(body) != 1:
                raise MalformedMessage("an opening CHANCE is [32-byte preimage]")
            self.chance_opened = (seat, chances.check(seat, body[0]))
            return []
        claimed = _state_hash_field(body, 2)
        inp = self.chance_input(pending, opened, seat, chances.check(seat, body[0]))
        chances.rolls += 1
        self.chance_opened = None
        return self._apply(envelope, inp, claimed, own)

    def chance_input(self, pending: Pending, opened: tuple[int, bytes], seat: int,
                     preimage: bytes) -> Any:
        """The game's input for the pending CHANCE, from the opener's preimage and `seat`'s."""
        assert self.chances is not None
        pair = (opened[1], preimage) if opened[0] == 0 else (preimage, opened[1])
        outcome = chance_outcome(self.match_id, self.chances.rolls, pair, pending.outcomes)
        options = self._engine("the chance outcomes", self.game.legal_actions, self.state)
        if len(options) != pending.outcomes:
            raise LocalProtocolError(f"game {self.game.id!r} lists {len(options)} answers to a "
                                     f"CHANCE of {pending.outcomes} outcomes")
        return options[outcome]

    def _pending(self, kind: DecisionKind) -> Pending:
        pending = self.pending
        assert isinstance(pending, Pending) and pending.kind is kind, (pending, kind)
        return pending

    def _engine(self, what: str | Callable[[], str], call: Callable[..., Any], *args: Any
                ) -> Any:
        """`call(*args)`, a call into the game on data a message carried: its refusal
        (EngineError) is an illegal input, anything else it raises an unplayable one; both are
        the sender's (`check` blames it; `send` turns it into our LocalProtocolError). `what`
        names the input in the error; a callable is only called then (an input's repr costs
        more than the call it describes)."""
        try:
            return call(*args)
        except EngineError as error:
            what = what if isinstance(what, str) else what()
            raise IllegalAction(f"{printable(what, 80)}: {error}") from None
        except Exception as error:
            what = what if isinstance(what, str) else what()
            raise UnplayableInput(f"game {self.game.id!r} cannot apply {printable(what, 80)}: "
                                  f"{_error_text(error)}") from None

    def _apply(self, envelope: Envelope, inp: Any, claimed: bytes, own: bool,
               text: str | None = None) -> list[Event]:
        """`text`: `format_input(inp)` when the caller already has it."""
        state, game = self.state, self.game
        assert state is not None
        pre, self._pre = self._pre, None
        if text is None:
            text = self._engine(lambda: f"input {inp!r:.60}", game.format_input, inp)
        try:
            if own and pre is not None and pre[0] == inp:
                after, actual, pending = pre[1], pre[2], pre[3]
            else:
                after = game.step(state, inp)
                actual = game.state_hash(after)
                pending = game.decision(after) if actual == claimed else None
        except EngineError as error:
            raise IllegalAction(f"{text!r}: {error}") from None
        except Exception as error:  # sorted by whose input it is: see the module comment
            raise UnplayableInput(f"game {game.id!r} cannot apply {text!r}: "
                                  f"{_error_text(error)}") from None
        if actual != claimed:
            raise StateHashMismatch(
                f"after {text!r} seat {envelope.sender} claims state "
                f"{claimed.hex()[:16]}…, the replay gives {actual.hex()[:16]}…")
        self.state = after
        self.pending = pending
        self.inputs += 1
        if isinstance(pending, Finished):
            self.game_result = pending  # the row's decider moves the match to RESULT
        return [StateChanged(inp, envelope.sender, text, state, after)]

    def next_handle(self, pending: Pending) -> int:
        """Shared pool: the card a DEAL hands out, the next undealt one of the deck it names
        (its handle is its pool position)."""
        deck = self.decks[pending.deck] if 0 <= pending.deck < len(self.decks) else None
        if deck is None or deck.owner not in (None, pending.player):
            raise LocalProtocolError(f"game {self.game.id!r} deals seat {pending.player} from "
                                     f"deck {pending.deck}, which is not one of its decks")
        count = self.dealt[pending.deck]
        if count >= deck.size:
            raise LocalProtocolError(f"deck {pending.deck} of game {self.game.id!r} is empty")
        return deck.first + count

    def prepare(self, inp: Any) -> bytes:
        """The state hash after `inp` (for our own next envelope; the state is cached). The
        game's refusal is raised as its EngineError (the caller says why the input is illegal);
        anything else the engine raises on our own input is our bug: a LocalProtocolError,
        before anything is signed."""
        assert self.state is not None
        game = self.game
        try:
            after = game.step(self.state, inp)
            digest = game.state_hash(after)
            pending = game.decision(after)  # kept for `_apply`: the same state's decision
        except EngineError:
            raise
        except Exception as error:
            raise LocalProtocolError(f"the game's engine fails on our own input "
                                     f"{_input_text(game, inp)!r}: {_error_text(error)}"
                                     ) from error
        self._pre = (inp, after, digest, pending)
        return digest  # type: ignore[no-any-return]

    # --- end handlers ---------------------------------------------------------------------

    def result_body(self) -> list[object]:
        r = self.game_result
        assert r is not None and self.state is not None
        return [r.outcome, r.winner, self.game.state_hash(self.state), self.inputs]

    def _on_result(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        expected = self.result_body()
        if body != expected:
            raise ResultMismatch(
                f"{envelope.kind.name} from seat {envelope.sender} states "
                f"{_fields_text(body)}; the replayed game gives {_fields_text(expected)}")
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
        else:
            self.result = MatchResult(
                Ending.TIMEOUT, claimant,
                detail=f"seat {claimant} claims seat {late} ran out of time (waited "
                       f"{body[1]} ms with {body[2]} ms left, by seat {claimant}'s clock)")
        # `after_claim` (table.py) reads this result: during setup no card was dealt, nothing
        # to reveal (CLAIMED, or CLOSED when no one is credited); else the claimant reveals first
        return [MatchEnded(self.result)]

    def _on_dispute(self, envelope: Envelope, body: list[Any], own: bool) -> list[Event]:
        claim = self.claim
        assert claim is not None  # `_admitting` admits a DISPUTE only against a standing claim
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
        return []

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
            from versus.protocol.deals.pool_sides import PoolAudit

            pool = PoolAudit(self.match_id, self.setup.keys, self.rules.pool_ids(self.catalogue))
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
            return {h: self.pool.full_deal[h] for deck in self.decks for h in deck.handles}
        return None


#: each chain kind's handler, from the table's handler column (every row of one kind names the
#: same handler: tests/protocol/test_table.py); the HELLO row's is MatchSetup's, before any chain
_HANDLERS: dict[MessageKind, Callable[[MatchCore, Envelope, list[Any], bool], list[Event]]] = {
    kind: getattr(MatchCore, rule.handler)
    for rule in TRANSITIONS if rule is not OPENING for kind in rule.kinds}


def _state_hash_field(body: list[Any], length: int) -> bytes:
    if len(body) != length or type(body[-1]) is not bytes or len(body[-1]) != HASH_SIZE:
        raise MalformedMessage(f"expected {length} fields ending with the 32-byte state hash")
    return body[-1]


@functools.lru_cache(maxsize=4096)
def _canonical_input(game: Any, text: str) -> Any:
    """The input `text` names in `game`'s notation, refused unless it is in canonical form. A
    pure function of the (stateless) game and the text, and inputs are immutable values, so
    memoised: a match repeats few texts ("end", the same moves) and the verifier replays
    thousands (errors are never cached). Whether it answers the pending decision (a turn
    action, not a deal) is the game's `step` to check (SPEC Part 3)."""
    try:
        inp = game.parse_input(text)
        canonical = game.format_input(inp)
    except EngineError as error:
        raise IllegalAction(f"{text!r:.60} is not an input: {error}") from None
    except Exception as error:  # the game's reader failed on the sender's text
        raise UnplayableInput(f"game {game.id!r} cannot read {text!r:.60}: "
                              f"{_error_text(error)}") from None
    if canonical != text:
        raise IllegalAction(f"{text!r:.60} is not a canonical input")
    return inp


def _error_text(error: BaseException) -> str:
    """An exception as one printable line: its class and message, cut short."""
    return printable(f"{type(error).__name__}: {error}", 160)


def _input_text(game: Any, inp: Any) -> str:
    """`inp` in the game's notation, or its repr when even that fails."""
    try:
        return str(game.format_input(inp))
    except Exception:
        return printable(repr(inp), 60)


def _pool() -> Any:
    """protocol.pool, imported at the first shared-pool message (SPEC Part 5)."""
    from versus.protocol.deals import pool

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


def _size_caps(rules: MatchRules, catalogue: Any) -> dict[MessageKind, int]:
    """The largest envelope of each kind an honest seat can send under these rules (SPEC
    §4.11 Sizes), from the deck size n (decklist: the larger seat's deck, the caps are one per
    kind for both seats), the pool size and the longest card id L."""
    ids = rules.card_ids(catalogue)
    longest = max((len(str(i).encode()) for i in ids), default=0)
    card = longest + 2  # a str8 header
    body = dict(_SMALL_BODY)
    if rules.deal_mode is DealMode.DECKLIST:
        n = max(rules.deck_sizes)
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


