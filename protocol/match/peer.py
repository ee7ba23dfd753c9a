# One player's side of a match (SPEC §4.11), sans-IO: a MatchCore (protocol/match/core.py)
# plus that player's secrets, private knowledge and clocks. It sends every message it can by
# itself; only turn actions and choices come from the local player through `submit`.
#
# Determinism: every secret (coin seed, chance chain, deck secrets or pool key, nonces) comes
# from the caller's rng, in an order fixed by the transcript, so `MatchPeer.restore` rebuilds a
# peer from its transcript and the rng's master secret (how a session resumes after a restart).
from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from versus.engine.api import DecisionKind, Pending
from versus.engine.errors import EngineError
from versus.protocol.crypto.chance import ChanceChain
from versus.protocol.crypto.commitment import coin_commitment
from versus.protocol.crypto.group import Rng, random_permutation
from versus.protocol.crypto.identity import Identity
from versus.protocol.deals.dealers import DecklistHand, check_decklist
from versus.protocol.errors import (
    LocalProtocolError,
    RemoteProtocolError,
    SequenceConflict,
    SetupMismatch,
    UnplayableRules,
)
from versus.protocol.match.core import MatchCore, evidence_body
from versus.protocol.match.rules import DealMode, MatchRules, master_rng
from versus.protocol.match.setup import NO_BINDING, Hello, MatchSetup, make_hello, open_hello
from versus.protocol.match.table import (
    AUTOMATIC_GRACE_MS,
    CLAIM_TOLERANCE_MS,
    CLAIMABLE,
    COIN_PURPOSE,
    ENDED,
    MAX_CLAIM_MS,
    SECRETS,
    DecisionNeeded,
    Ending,
    Event,
    MatchResult,
    Phase,
    Rule,
)
from versus.protocol.wire.canonical import HASH_SIZE
from versus.protocol.wire.envelope import (
    Envelope,
    MessageKind,
    parse_envelope,
)
from versus.protocol.wire.text import printable
from versus.protocol.wire.transcript import Transcript, dump_transcript, load_transcript

if TYPE_CHECKING:  # the mental-poker modules load only for a shared-pool match (start-up)
    from versus.protocol.deals.pool import SharedPoolDeal
    from versus.protocol.deals.pool_sides import PoolLive

K = MessageKind
# --- one player's side ----------------------------------------------------------------------


class MatchPeer:
    """One player's side of a match, sans-IO (see the module comment and SPEC §4.11).

    Call `start()` and send its HELLO; feed every frame from the peer to `receive`; send
    whatever `outgoing()` returns after each call; answer DecisionNeeded with `submit`.
    Times (`now_ms`, any monotonic milliseconds) are optional and only drive the clocks.
    """

    def __init__(self, seat: int, identity: Identity, rules: MatchRules, catalogue: Any,
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
        problem = rules.start_problem(catalogue)
        if problem is not None:
            raise LocalProtocolError(f"these rules cannot start a game with this card data: "
                                     f"{problem}")
        self.seat, self.identity, self.rules, self.catalogue = seat, identity, rules, catalogue
        self._rng, self._software, self._peer_key = rng, software, expected_peer_key
        self._deck_original = deck
        self._deck_cards = None if deck is None else _deck_cards(deck)
        #: how many times our own crossing envelopes were rolled back for a timeout claim
        self.rolled_back = 0
        if self._deck_cards is not None:
            check_decklist(frozenset(rules.card_ids(catalogue)), self._deck_cards,
                           rules.deck_sizes[seat], rules.registered_decklists[seat], seat=seat)
        #: our own measure of an owed message, per seq of our envelope that answered it:
        #: (ms used, ms left) when we sent it (a claim crossing it is judged against this)
        self._sent_measures: dict[int, tuple[int, int]] = {}
        #: a claim our clock contradicts: (claim hash, ms used, ms left), sent as a DISPUTE
        self._dispute: tuple[bytes, int, int] | None = None
        self.game = rules.game_impl
        #: what we know of hidden cards (the game's knowledge value: it learns our own draws)
        self.knowledge = self.game.new_knowledge(seat)
        self._chance: ChanceChain | None = None
        self.core: MatchCore | None = None
        #: (state, its legal inputs): a driver asks again on every change of the session (and
        #: once more before it submits), while the state only changes with an input
        self._legal: tuple[Any, tuple[Any, ...]] | None = None
        self._hello: Hello | None = None
        self._peer_hello: Hello | None = None
        self._out: list[bytes] = []
        self._fault: RemoteProtocolError | None = None
        self._coin_seed = b""
        self._hand: DecklistHand | None = None
        self._deal: SharedPoolDeal | None = None
        self._resign_queued = False
        self._announced = -1  # the input count at which DecisionNeeded was last emitted
        #: transcript_records' list and the core it was built from
        self._records: tuple[MatchCore, list[bytes]] | None = None
        self._clock = [rules.clock_initial_ms, rules.clock_initial_ms]
        self._clock_mark: int | None = None  # now_ms of the last envelope (the owed one's start)
        self._last_claim: Envelope | None = None
        #: after a roll-back: the highest seq we signed on the dropped branch; we never sign at
        #: a seq <= it again before the claim is in (an equivocation, SPEC §4.11 race)
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
                                 catalogue_hash=self.rules.catalogue_digest(self.catalogue),
                                 rng=self._rng,
                                 software=self._software, binding=binding)
        if self.rules.deal_mode is DealMode.DECKLIST and self._deck_cards is None:
            self._deck_cards = _random_deck(self.rules, self.catalogue, self.seat, self._rng)
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
            if self.core.phase in ENDED:
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
            accepted = self.core.chain.last
            assert accepted is not None
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

    def submit(self, action: Any, now_ms: int | None = None) -> list[Event]:
        """Our answer to a TURN or CHOICE decision (a game input or its notation)."""
        self._require_alive()
        decision = self.decision
        if not self.my_turn:
            raise LocalProtocolError(f"not our decision to make (awaiting {decision})")
        assert isinstance(decision, Pending)
        game = self.game
        assert self.core is not None
        try:  # whatever the game raises on our own input is ours, never the peer's (§4.9)
            if isinstance(action, str):
                action = game.parse_input(action)
            text = game.format_input(action)
        except EngineError as error:
            raise LocalProtocolError(str(error)) from None
        except Exception as error:
            raise LocalProtocolError(f"the game cannot read our own input {action!r:.60}: "
                                     f"{type(error).__name__}: {error}") from error
        try:
            post = self.core.prepare(action)
        except EngineError as error:
            raise LocalProtocolError(f"illegal: {error}") from None
        kind = K.ACTION if decision.kind is DecisionKind.TURN else K.CHOICE
        events = self._send(kind, [text, post], now_ms)
        return events + self._pump(now_ms)

    def resign(self, now_ms: int | None = None) -> list[Event]:
        """Resign now if we hold a turn or choice decision, else at our next one (queued)."""
        self._require_alive()
        if self.core is None or self.core.phase in (
                Phase.RESULT, Phase.COSIGN, Phase.CLAIMED, *SECRETS, *ENDED):
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
        if core is None or core.phase not in CLAIMABLE or not self.rules.has_clock:
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
    def decision(self) -> Pending | None:
        """The game's pending decision while the game is played (None before and after)."""
        if self.core is None or self.core.phase is not Phase.PLAY:
            return None
        pending = self.core.pending
        return pending if isinstance(pending, Pending) else None

    @property
    def my_turn(self) -> bool:
        d = self.decision
        return (d is not None and d.kind in (DecisionKind.TURN, DecisionKind.CHOICE)
                and d.player == self.seat)

    def legal_actions(self) -> list[Any]:
        if not self.my_turn:
            return []
        assert self.core is not None and self.core.state is not None
        state, cached = self.core.state, self._legal
        if cached is None or cached[0] is not state:  # a state is never changed in place
            cached = self._legal = (state, tuple(self.game.legal_actions(state)))
        return list(cached[1])

    def view(self) -> Any:
        """The game's view of the state for our seat (`Game.view`)."""
        if self.core is None or self.core.state is None:
            raise LocalProtocolError("the game has not started")
        return self.game.view(self.core.state, self.seat, self.knowledge)

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
                or core.phase not in CLAIMABLE):
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

    def transcript_records(self) -> list[bytes]:
        """`transcript().records` as a list, kept between calls and extended with the new
        envelopes only (the session writes it after every call: without the copy of the
        whole chain each time). A roll-back rebuilds the core, and with it this list."""
        core = self.core
        cached = self._records
        if cached is None or cached[0] is not core:
            records = list(self.transcript().records)  # raises before both HELLOs
            assert core is not None
            self._records = (core, records)
            return records
        records = cached[1]
        if len(records) < 2 + len(core.chain):
            records += core.chain.raws_from(len(records) - 2)
        return records

    def transcript_bytes(self) -> bytes:
        return dump_transcript(self.transcript())

    # --- restore --------------------------------------------------------------------------

    @classmethod
    def restore(cls, transcript: Transcript | bytes, master_secret: bytes, identity: Identity,
                catalogue: Any, *, deck: Sequence[str] | Mapping[str, int] | None = None,
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
        if self.game.chance:
            self._chance = ChanceChain(match_id, self.seat, self._rng)
        if self.rules.deal_mode is DealMode.DECKLIST:
            assert self._deck_cards is not None
            self._hand = DecklistHand(match_id, self.seat, self._deck_cards, self._rng,
                                      opponent_size=self.rules.deck_sizes[1 - self.seat])
            pool_side: PoolLive | None = None
        else:
            from versus.protocol.deals.pool import SharedPoolDeal
            from versus.protocol.deals.pool_sides import PoolLive

            self._deal = SharedPoolDeal(self.seat, match_id, setup.keys,
                                        self.rules.pool_ids(self.catalogue), self._rng)
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
            assert self.core is not None and self.core.decklist is not None
            card = str(self._hand.deck.cards[handle - self.core.decklist.firsts[owner]])
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
            seat = core.expected()[0]
            if seat != self.seat or self._on_dropped_branch():
                break  # (the second: e.g. the automatic DRAW the prefix led to, superseded)
            rule = core.owed_rules()[0]
            if not rule.auto:  # a turn or a choice: the local player answers (`submit`)
                if self._resign_queued:
                    events += self._send(K.RESIGN, [], now_ms)
                    continue
                if self._announced != core.inputs:
                    self._announced = core.inputs
                    assert isinstance(core.pending, Pending)
                    events.append(DecisionNeeded(core.pending))
                break
            kind = rule.kinds[0]
            events += self._send(kind, self._own_automatic(rule), now_ms)
        return events

    def _own_automatic(self, rule: Rule) -> list[object]:
        """The body of the message the owed `rule` has us send by ourselves (its `auto`
        method), where whatever the game (or the deal) raises while we build it is our bug: a
        LocalProtocolError, and nothing is signed (SPEC §4.9). The match then waits on us; it
        is never evidence against us."""
        kind = rule.kinds[0]
        try:
            body: list[object] = getattr(self, rule.auto)()
            return body
        except Exception as error:
            why = error if isinstance(error, LocalProtocolError) else \
                f"{type(error).__name__}: {printable(str(error), 160)}"
            raise LocalProtocolError(f"our own {kind.name} cannot be made: {why}") from error

    # The bodies of the messages we send by ourselves, one per `auto` of the table's rows
    # (table.py): `_pump` calls the one the owed row names.

    def _commit_body(self) -> list[object]:
        core, hand, deal = self.core, self._hand, self._deal
        assert core is not None
        coin = coin_commitment(core.match_id, self.seat, COIN_PURPOSE, self._coin_seed)
        if hand is not None:
            return [coin, *hand.commit_body()]
        assert deal is not None
        return [coin, deal.key_share().to_wire()]

    def _reveal_body(self) -> list[object]:
        chance = self._chance
        return [self._coin_seed] if chance is None else [self._coin_seed, chance.anchor]

    def _shuffle_body(self) -> list[object]:
        assert self._deal is not None
        return [self._deal.shuffle().to_wire()]

    def _result_body(self) -> list[object]:
        assert self.core is not None
        return self.core.result_body()

    def _secrets_body(self) -> list[object]:
        if self._hand is not None:
            return self._hand.secret_body()
        assert self._deal is not None
        return [self._deal.end_reveal().to_wire()]

    def _draw_body(self) -> list[object]:
        core, hand, deal, game = self.core, self._hand, self._deal, self.game
        assert core is not None
        decision = core.pending
        assert isinstance(decision, Pending) and decision.player is not None
        if hand is not None:
            assert core.decklist is not None
            slot = hand.draw_order.next_position()
            handle = core.decklist.firsts[decision.player] + slot
            return [slot, core.prepare(game.deal_input(handle))]
        assert deal is not None
        position = core.next_handle(decision)
        share = deal.draw_share(position)
        return [share.to_wire(), core.prepare(game.deal_input(position))]

    def _open_body(self) -> list[object]:
        core, hand, deal, game = self.core, self._hand, self._deal, self.game
        assert core is not None
        decision = core.pending
        assert isinstance(decision, Pending) and decision.kind is DecisionKind.REVEAL
        handle = decision.handle
        if hand is not None:
            assert core.decklist is not None
            opening = hand.deck.open(handle - core.decklist.firsts[self.seat])
            post = core.prepare(game.reveal_input(handle, str(opening.card)))
            return [*opening.body(), post]
        assert deal is not None
        reveal = deal.reveal(handle)
        return [reveal.to_wire(), core.prepare(game.reveal_input(handle, reveal.card_id))]

    def _chance_open_body(self) -> list[object]:
        """Our preimage of the pending roll, which we open (SPEC §4.11 "Chance")."""
        core, chain = self.core, self._chance
        assert core is not None and core.chances is not None and chain is not None
        return [chain.preimage(core.chances.rolls)]

    def _chance_answer_body(self) -> list[object]:
        """Our preimage of the pending roll, with the state hash after its outcome, when we
        answer the opener's (SPEC §4.11 "Chance")."""
        core, chain = self.core, self._chance
        assert core is not None and core.chances is not None and chain is not None
        decision, opened = core.pending, core.chance_opened
        assert isinstance(decision, Pending) and opened is not None
        preimage = chain.preimage(core.chances.rolls)
        inp = core.chance_input(decision, opened, self.seat, preimage)
        return [preimage, core.prepare(inp)]

    def _send(self, kind: MessageKind, body: list[object], now_ms: int | None) -> list[Event]:
        assert self.core is not None
        if kind not in (K.TIMEOUT_CLAIM, K.EVIDENCE, K.DISPUTE):
            measure = self._owed_measure(now_ms)
            if measure is not None:
                self._sent_measures[self.core.chain.next_seq] = measure
                for old in [seq for seq in self._sent_measures
                            if seq < self.core.chain.next_seq - 8]:
                    del self._sent_measures[old]  # a claim can cross only our latest envelopes
        try:
            envelope, events = self.core.send(self.identity, kind, body)
        except UnplayableRules:  # our sound setup message is kept: the peer must see it too
            self._out.append(self.core.chain.envelopes[-1].raw)
            raise
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
        self._clock_mark = now_ms if core.phase in CLAIMABLE else None

    def _owed_measure(self, now_ms: int | None) -> tuple[int, int] | None:
        """Our own measure of the message we owe now: (ms used since it became owed, ms left of
        its allowance: our clock for a turn or choice, AUTOMATIC_GRACE_MS for an automatic
        message). None when we owe nothing, or no time was given."""
        core, mark = self.core, self._clock_mark
        if (core is None or mark is None or now_ms is None or not self.rules.has_clock
                or core.phase not in CLAIMABLE):
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
        if core is None or core.disputable_by() != self.seat:
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
        """Whether our next envelope would take a seq we signed on a dropped branch, before the
        claim that dropped it is in: once it is, what we sign after it (our DISPUTE, our
        reveal) is on the claim's prefix, which no one can take for an equivocation (SPEC §4.4),
        and without it a claim crossing three of our envelopes would stand undisputed."""
        core = self.core
        assert core is not None
        if core.claim is not None and core.claim.seq >= self._dropped_from:
            return False
        return self._dropped_from <= core.chain.next_seq <= self._dropped_up_to

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
        # We signed envelopes up to `dropped` on the dropped branch: another envelope on the
        # prefix at any of those seqs would hand the claimant an equivocation, so the rebuilt
        # peer sends nothing there until the claim is in (not even the automatic DRAW or OPEN
        # the prefix leads to, which would take the claim's seq again); after the claim, our
        # DISPUTE and reveal are on the claim's prefix (`_on_dropped_branch`).
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
        if core is None or core.phase in ENDED or self._on_dropped_branch():
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


def _random_deck(rules: MatchRules, catalogue: Any, seat: int, rng: Rng) -> list[str]:
    """The deck of a seat that brought none (SPEC §4.7): the game's optional
    `default_deck(rules, catalogue, seat)` when it has the seat's size, else the catalogue's
    card ids in a random order, cut at the seat's deck size. A deck larger than the distinct
    ids takes the rest, in a random order, from the game's optional `more_copies(catalogue)`
    (the further copies its deck rules allow); a game without it cannot have such a deck (the
    commit is refused)."""
    size = rules.deck_sizes[seat]
    default = getattr(rules.game_impl, "default_deck", None)
    if default is not None:  # the game's deck for a player who brings none (SPEC §4.7)
        deck = list(default(rules.ruleset, catalogue, seat))
        if len(deck) == size:
            return deck
    ids = rules.card_ids(catalogue)
    deck = [ids[i] for i in random_permutation(rng, len(ids))[:size]]
    more = getattr(rules.game_impl, "more_copies", None)
    if len(deck) < size and more is not None:
        extra = tuple(more(catalogue))
        deck += [extra[i] for i in random_permutation(rng, len(extra))[:size - len(deck)]]
    return deck


def _deck_cards(deck: Sequence[str] | Mapping[str, int]) -> list[str]:
    if isinstance(deck, Mapping):
        return [card for card, count in sorted(deck.items()) for _ in range(count)]
    return [str(card) for card in deck]


