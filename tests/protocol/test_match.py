# Whole matches between two in-memory peers: both deal modes, both action orders, resignation,
# timeouts, restore from a transcript, hidden information, and the offline verifier.
from __future__ import annotations

import pytest

from tests.protocol.pair import Pair, master_secret, play, rules_for, seat_zero_to_move
from versus.engine import DecisionKind
from versus.engine.versus42 import ActionOrder
from versus.protocol.match import DecisionNeeded, Ending, MatchEnded, MatchPeer, MatchStarted, Phase
from versus.protocol.match.rules import DealMode, MatchRules, master_rng
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import MessageKind as K
from versus.protocol.wire.envelope import parse_envelope
from versus.protocol.wire.transcript import dump_transcript, load_transcript

MODES = list(DealMode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("order", list(ActionOrder))
def test_random_match_closes_and_verifies(mode: DealMode, order: ActionOrder) -> None:
    pair = play(mode, order, label=f"full/{mode.value}/{order.value}", seed=3)
    assert pair.errors == []
    a, b = pair.peers
    assert a.phase is b.phase is Phase.CLOSED
    assert a.result == b.result and a.result is not None and a.result.ending is Ending.GAME
    assert a.transcript_bytes() == b.transcript_bytes()
    report = verify_transcript(a.transcript_bytes())
    assert report.ok, report.describe()
    s = report.summary
    assert s["ending"] == "game" and s["deal_mode"] == mode.value
    assert s["actions"] > 0 and s["secrets_revealed"] is True
    assert len(s["deal"]) == 2 * MatchRules().ruleset.deck_size
    assert any(isinstance(e, MatchStarted) for e in pair.events[0])


def test_rules_round_trip_and_default_is_shared_pool() -> None:
    rules = MatchRules(clock_initial_ms=60_000, clock_increment_ms=2_000)
    assert MatchRules.decode(rules.encode()) == rules
    assert MatchRules().deal_mode is DealMode.SHARED_POOL


@pytest.mark.parametrize("mode", MODES)
def test_view_never_shows_a_hidden_card_of_the_other(mode: DealMode) -> None:
    pair = Pair(rules_for(mode), label=f"hidden/{mode.value}")
    pair.start()
    checks = 0
    for _ in range(400):
        pair.deliver(max_steps=1)
        for peer in pair.peers:
            if peer.core is None or peer.core.state is None:
                continue
            state, view = peer.core.state, peer.view()
            other = 1 - peer.seat
            for handle in state.handles(other):
                if state.public_id(handle) is None:
                    assert view.identity(handle) is None
                    checks += 1
            assert all(state.owner(h) == peer.seat for h in peer.knowledge.cards)
            assert all(c.card_id is None or c.owner == peer.seat or
                       state.public_id(c.handle) is not None for c in view.field)
    assert checks > 100


def test_restore_reproduces_the_peer_exactly() -> None:
    pair = Pair(rules_for(DealMode.DECKLIST), label="restore")
    pair.start()
    pair.deliver(max_steps=60)
    for seat in (0, 1):
        live = pair.peers[seat]
        transcript = live.transcript()
        rebuilt = MatchPeer.restore(dump_transcript(transcript), master_secret("restore", seat),
                                    pair.ids[seat], pair.catalogue, deck=None)
        assert rebuilt.transcript() == transcript
        assert rebuilt.head == live.head and rebuilt.seq == live.seq
        assert rebuilt.knowledge.cards == live.knowledge.cards
        assert rebuilt.envelopes_after(live.seq - 3) == live.envelopes_after(live.seq - 3)


def test_restored_peer_finishes_the_match() -> None:
    pair = Pair(rules_for(DealMode.SHARED_POOL), label="resume")
    pair.start()
    pair.deliver(max_steps=40)
    old = pair.peers[1]
    rebuilt = MatchPeer.restore(old.transcript(), master_secret("resume", 1), pair.ids[1],
                                pair.catalogue)
    rebuilt._out = old.outgoing()  # what the crashed side had not sent yet
    pair.peers = (pair.peers[0], rebuilt)
    pair.deliver()
    assert pair.errors == [] and rebuilt.phase is Phase.CLOSED
    assert verify_transcript(rebuilt.transcript()).ok


def test_master_rng_is_deterministic() -> None:
    a, b = master_rng(bytes(32)), master_rng(bytes(32))
    assert [a(5), a(40), a(1)] == [b(5), b(40), b(1)]


@pytest.mark.parametrize("mode", MODES)
def test_resignation_ends_with_reveals_and_verifies(mode: DealMode) -> None:
    pair = Pair(rules_for(mode), label=f"resign/{mode.value}")
    pair.start()
    pair.deliver(max_steps=30)
    waiting = next(p for p in pair.peers if not p.my_turn)
    waiting.resign()  # not its decision: queued until its next one
    assert waiting.phase is Phase.PLAY
    pair.deliver()
    assert pair.errors == []
    assert all(p.phase is Phase.CLOSED for p in pair.peers)
    result = pair.peers[0].result
    assert result is not None and result.ending is Ending.RESIGNATION
    assert result.winner == 1 - waiting.seat
    report = verify_transcript(pair.transcript(1))
    assert report.ok and report.summary["ending"] == "resignation"


def test_timeout_claim_with_caller_clock() -> None:
    rules = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=1_000,
                       clock_increment_ms=100)
    pair = Pair(rules, label="clock")
    pair.start()
    pair.deliver(now_ms=0, choose=False)
    mover = next(p for p in pair.peers if p.my_turn)
    waiter = pair.peers[1 - mover.seat]
    assert mover.decision is not None and mover.decision.kind in (DecisionKind.TURN,
                                                                  DecisionKind.CHOICE)
    from versus.protocol.errors import LocalProtocolError

    with pytest.raises(LocalProtocolError):
        waiter.claim_timeout(500)
    waiter.claim_timeout(5_000)
    assert waiter.result is not None and waiter.result.ending is Ending.TIMEOUT
    # the late side's crossing action loses the race, without blame
    legal = mover.legal_actions()
    mover.submit(legal[0], 5_001)
    for raw in mover.outgoing():
        assert waiter.receive(raw, 5_002) == []
    report = verify_transcript(waiter.transcript())
    assert report.ok and report.summary["ending"] == "timeout", report.describe()


@pytest.mark.parametrize("mode", [DealMode.DECKLIST, DealMode.SHARED_POOL])
def test_timeout_claim_crossing_the_late_action_rolls_the_late_side_back(mode) -> None:
    rules = MatchRules(deal_mode=mode, clock_initial_ms=1_000, clock_increment_ms=100)
    pair = Pair(rules, label=f"race-{mode.value}")
    pair.start()
    pair.deliver(now_ms=0, choose=False)
    mover = next(p for p in pair.peers if p.my_turn)
    waiter = pair.peers[1 - mover.seat]
    seq = mover.seq
    waiter.claim_timeout(5_000)  # both envelopes take the same seq: they cross on the wire
    mover.submit(mover.legal_actions()[0], 5_001)
    claim, late = waiter.outgoing(), mover.outgoing()
    assert parse_envelope(claim[0]).seq == parse_envelope(late[0]).seq == seq
    for raw in late:  # the claimant drops the crossing action without blame
        assert waiter.receive(raw, 5_002) == []
    events = []
    for raw in claim:  # the late side rolls its action back and accepts the claim
        events += mover.receive(raw, 5_003)
    assert mover.rolled_back == 1 and mover.fault is None
    assert any(isinstance(e, MatchEnded) and e.result.ending is Ending.TIMEOUT for e in events)
    pair.deliver(now_ms=5_004)  # the secret reveals follow
    assert pair.errors == []
    assert all(p.phase is Phase.CLOSED for p in pair.peers)
    assert mover.transcript_bytes() == waiter.transcript_bytes()
    for seat in (0, 1):
        report = verify_transcript(pair.transcript(seat))
        assert report.ok and report.summary["ending"] == "timeout", report.describe()
        assert report.summary["result"]["winner"] == waiter.seat


def test_decision_needed_is_announced_once_per_decision() -> None:
    pair = play(DealMode.DECKLIST, label="announce")
    for seat in (0, 1):
        needed = [e for e in pair.events[seat] if isinstance(e, DecisionNeeded)]
        assert needed and all(e.decision.player == seat for e in needed)


@pytest.mark.parametrize("mode", MODES)
def test_every_sampled_byte_change_is_rejected(mode: DealMode) -> None:
    pair = play(mode, label=f"bytes/{mode.value}")
    data = pair.peers[0].transcript_bytes()
    assert verify_transcript(data).ok
    step = max(1, len(data) // (45 if mode is DealMode.DECKLIST else 20))
    for position in range(0, len(data), step):
        changed = bytearray(data)
        changed[position] ^= 0x41
        assert not verify_transcript(bytes(changed)).ok, position


def test_truncated_transcript_is_incomplete() -> None:
    pair = play(DealMode.DECKLIST, label="trunc")
    t = load_transcript(pair.peers[0].transcript_bytes())
    from versus.protocol.wire.transcript import Transcript

    cut = Transcript(t.hellos, t.envelopes[:40])
    report = verify_transcript(cut)
    assert not report.ok and report.check == "incomplete"
    assert report.to_dict()["summary"]["inputs"] > 0


def test_claim_crossing_an_automatic_envelope_rolls_back_once() -> None:
    """The late side's crossing envelope is an automatic DRAW or OPEN (its grace ran out): the
    roll-back must not regenerate it at the claim's seq (that looped until RecursionError)."""
    rules = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=86_400_000,
                       clock_increment_ms=100)
    full = Pair(rules, label="auto-race").run()
    envelopes = [parse_envelope(raw) for raw in full.transcript().envelopes]
    target = next(e for e in envelopes[12:] if e.kind in (K.DRAW, K.OPEN)
                  and e.sender != envelopes[e.seq - 1].sender)
    pair = Pair(rules, label="auto-race")
    pair.start()
    while True:  # the same match, up to the envelope that makes the DRAW/OPEN owed
        for seat in (0, 1):
            pair.flush(seat)
        if pair.wire:
            sender, raw = pair.wire.popleft()
            pair.peers[1 - sender].receive(raw, 0)
            if parse_envelope(raw).seq == target.seq - 1:
                break
            continue
        mover = next(p for p in pair.peers if p.my_turn)
        legal = mover.legal_actions()
        mover.submit(legal[pair.chooser.randrange(len(legal))], 0)
    late, claimant = pair.peers[target.sender], pair.peers[1 - target.sender]
    crossed = late.outgoing()
    sent = [(parse_envelope(r).seq, parse_envelope(r).kind) for r in crossed]
    assert sent[0] == (target.seq, target.kind)  # (an automatic DRAW may follow it)
    claimant.claim_timeout(claimant.claim_deadline_ms)  # type: ignore[arg-type]
    claim = claimant.outgoing()
    for raw in crossed:
        assert claimant.receive(raw, 40_000) == []
    for raw in claim:
        late.receive(raw, 40_001)
    assert late.rolled_back == 1 and late.fault is None
    assert late.dropped_branch == (target.seq, sent[-1][0])
    pair.deliver(now_ms=40_002)
    assert pair.errors == [] and late.transcript_bytes() == claimant.transcript_bytes()
    assert verify_transcript(late.transcript()).ok


def test_claimant_is_restored_with_its_claim_and_what_follows() -> None:
    rules = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=1_000,
                       clock_increment_ms=100)
    pair = seat_zero_to_move(rules, "restore-claimant")
    claimant = pair.peers[1]
    claimant.claim_timeout(5_000)
    sent = claimant.outgoing()
    assert [parse_envelope(raw).kind for raw in sent] == [K.TIMEOUT_CLAIM, K.SECRET_REVEAL]
    rebuilt = MatchPeer.restore(claimant.transcript_bytes(), master_secret(pair.label, 1),
                                pair.ids[1], pair.catalogue)
    assert rebuilt.transcript_bytes() == claimant.transcript_bytes()
    assert rebuilt.result == claimant.result is not None
    assert isinstance(rebuilt.replayed_events[-1], MatchEnded)
