# Regression tests of the trust review: each replays an attack that worked against
# the earlier code, in memory (two MatchPeers) and offline (verify_transcript). The TCP versions
# of the live attacks are in tests/hostile/.
#
#   - timeout claims: a claim against a seat that signed nothing credits no one; a claim
#     the receiver's own clock contradicts ends in a signed DISPUTE, no winner; a HELLO
#     copied from another match cannot make a "win"; verify calls a timeout a claim
#   - the match is bound to the channel: another key or another channel session refused
#   - a crossing claim the prefix refuses is answered with EVIDENCE, our move kept
#   - an EVIDENCE is re-checked on arrival; a false one is the accuser's fault
#   - an exception in our own handler is a LocalProtocolError, never the peer's fault
#   - a claim timed to cross a burst of the mover's envelopes is still disputed, and the
#     DISPUTE at a seq of the dropped branch cannot be passed off as an equivocation
from __future__ import annotations

import pytest

from tests.protocol.pair import Pair, identities, master_secret, seat_zero_to_move
from versus.protocol import errors
from versus.protocol.match import (
    AUTOMATIC_GRACE_MS,
    CLAIM_TOLERANCE_MS,
    Ending,
    MatchCore,
    MatchPeer,
    Phase,
    evidence_body,
)
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.setup import NO_BINDING, open_hello
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import MessageKind, parse_envelope
from versus.protocol.wire.transcript import Transcript

K = MessageKind
TIMED = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=60_000, clock_increment_ms=0)


def _force_claim(peer: MatchPeer, *, checked: bool = True) -> list[bytes]:
    """A cheater's TIMEOUT_CLAIM, whatever its own clock says (the shape is right). `checked`:
    its own referee takes it (it then reveals as a claimant does); else it is only signed."""
    assert peer.core is not None
    body = [1 - peer.seat, 60_000, 60_000]
    if checked:
        peer.core.send(peer.identity, K.TIMEOUT_CLAIM, body)
    else:
        peer.core.chain.seal(peer.identity, K.TIMEOUT_CLAIM, body)
    peer._last_claim = peer.core.chain.envelopes[-1]
    return [peer._last_claim.raw]


# --- stolen wins on time -------------------------------------------------------------


def test_claim_right_after_own_commit_credits_no_one() -> None:
    """Seat 0 commits and claims at once: seat 1 had signed nothing of this match."""
    pair = Pair(TIMED, label="trust/early")
    pair.start()
    host = pair.peers[0]
    for seat in (0, 1):  # both HELLOs in; seat 0's COMMIT goes out, seat 1 sees nothing more
        pair.flush(seat)
    while pair.wire:
        sender, raw = pair.wire.popleft()
        if parse_envelope(raw).kind is K.HELLO:
            pair.peers[1 - sender].receive(raw, 0)
    pair.peers[1].outgoing()
    assert host.phase is Phase.COMMIT_1
    host.claim_timeout(AUTOMATIC_GRACE_MS)
    assert host.result is not None and host.result.winner is None
    report = verify_transcript(host.transcript())
    assert report.ok and report.summary["result"]["winner"] is None, report.describe()
    assert "wins" not in report.describe()


def test_a_hello_copied_from_an_old_match_cannot_win_on_time() -> None:
    """The forger takes the victim's HELLO from an old transcript, adds a fresh HELLO of its
    own and one TIMEOUT_CLAIM at seq 0: before, `versus verify` said "OK ... seat 1 wins"."""
    old = Pair(TIMED, label="trust/old").run()
    victim_hello = old.transcript().hellos[0]
    forger_id = identities("trust/forger")[1]
    forger = MatchPeer(1, forger_id, TIMED, old.catalogue,
                       master_secret=master_secret("trust/forger", 1))
    binding = open_hello(victim_hello).binding
    forger.start(binding=binding)
    forger.receive(victim_hello, 0)
    forger.outgoing()
    core = forger.core
    assert core is not None
    # seat 0 (the victim) "owes" its COMMIT: the forger claims at once
    core.send(forger_id, K.TIMEOUT_CLAIM, [0, AUTOMATIC_GRACE_MS, AUTOMATIC_GRACE_MS])
    report = verify_transcript(forger.transcript())
    assert report.summary["result"]["winner"] is None, report.describe()
    assert " wins" not in report.describe()


def test_a_hello_of_another_channel_session_is_refused() -> None:
    old = Pair(TIMED, label="trust/old2").run()
    victim_hello = old.transcript().hellos[0]
    forger = MatchPeer(1, identities("trust/forger2")[1], TIMED, old.catalogue,
                       master_secret=master_secret("trust/forger2", 1))
    forger.start(binding=b"\x01" * 32)
    with pytest.raises(errors.SetupMismatch, match="different channel sessions"):
        forger.receive(victim_hello, 0)


def _timed_pair_at_first_turn(label: str) -> tuple[Pair, MatchPeer, MatchPeer]:
    pair = seat_zero_to_move(TIMED, label)
    return pair, pair.peers[0], pair.peers[1]


def test_an_early_claim_is_disputed_and_credits_no_one() -> None:
    """The waiter claims with the mover's clock barely started: the mover's own measure
    contradicts it; it does not concede, it signs a DISPUTE. Before: the claimant won."""
    _pair, mover, claimant = _timed_pair_at_first_turn("trust/dispute")
    claim = _force_claim(claimant)
    claimant._pump(1_000)  # the claimant's secret reveal follows its claim
    sent = claim + claimant.outgoing()
    for raw in sent:
        mover.receive(raw, 1_000)  # the mover had used 1 s of its 60 s
    out = mover.outgoing()
    kinds = [parse_envelope(raw).kind for raw in out]
    assert kinds == [K.DISPUTE, K.SECRET_REVEAL]
    dispute = parse_envelope(out[0])
    assert dispute.body[0] == parse_envelope(claim[0]).hash
    assert dispute.body[2] > CLAIM_TOLERANCE_MS
    for raw in out:
        claimant.receive(raw, 1_001)
    for peer in (mover, claimant):
        assert peer.result is not None and peer.result.ending is Ending.DISPUTE
        assert peer.result.winner is None and peer.phase is Phase.CLOSED
    assert mover.transcript_bytes() == claimant.transcript_bytes()
    report = verify_transcript(mover.transcript())
    assert report.ok and report.summary["result"]["ending"] == "dispute", report.describe()
    assert "wins" not in report.describe()


def test_a_late_claim_is_conceded() -> None:
    _pair, mover, claimant = _timed_pair_at_first_turn("trust/concede")
    claimant.claim_timeout(60_000 + 200)
    for raw in claimant.outgoing():
        mover.receive(raw, 60_000 + 250)
    assert [parse_envelope(r).kind for r in mover.outgoing()] == [K.SECRET_REVEAL]
    assert mover.result is not None and mover.result.winner == claimant.seat


def _crossed(label: str, actions: int) -> tuple[MatchPeer, MatchPeer, list[bytes], list[bytes]]:
    """A claim on demand crosses the mover's `actions` quick actions (sent with 59 s left; a
    fast bot plays its turn in a few ms): the claimant drops them, the mover rolls back to the
    claim. The mover, the claimant, the dropped envelopes and what the mover sends after."""
    _pair, mover, claimant = _timed_pair_at_first_turn(label)
    claim = _force_claim(claimant)
    for _ in range(actions):  # a summon (ACTION, OPEN if face up), then a move (ACTION)
        mover.submit(next(a for a in mover.legal_actions() if "end" not in str(a)), 1_000)
    burst = mover.outgoing()
    for raw in burst:
        assert claimant.receive(raw, 1_001) == []  # dropped: the claim won the race
    claimant._pump(1_001)
    for raw in claim + claimant.outgoing():
        mover.receive(raw, 1_002)
    assert mover.rolled_back == 1
    return mover, claimant, burst, mover.outgoing()


@pytest.mark.parametrize("actions", [1, 2])
def test_a_crossing_early_claim_rolls_back_and_is_disputed(actions: int) -> None:
    """Both transcripts agree on the claim, and the mover's DISPUTE follows it: no one wins
    (before: the claimant did). With two actions the claim crosses three envelopes, so the
    DISPUTE (after the claimant's reveal) takes a seq the mover signed on the dropped branch:
    before, it was skipped there, and the claimant won on demand in a transcript that
    verified."""
    mover, claimant, burst, out = _crossed(f"trust/cross{actions}", actions)
    assert len(burst) >= 1 + 2 * (actions - 1)
    assert K.DISPUTE in [parse_envelope(raw).kind for raw in out]
    for raw in out:
        claimant.receive(raw, 1_003)
    for peer in (mover, claimant):
        assert peer.result is not None and peer.result.ending is Ending.DISPUTE
        assert peer.result.winner is None
    assert mover.transcript_bytes() == claimant.transcript_bytes()
    report = verify_transcript(claimant.transcript())
    assert report.ok and report.summary["result"]["ending"] == "dispute", report.describe()
    assert "wins" not in report.describe()


def test_a_dispute_at_a_dropped_seq_cannot_frame_the_mover() -> None:
    """The claimant keeps the mover's dropped envelope that has the DISPUTE's seq and reports
    the pair as an equivocation: the two were signed on different prefixes (the claim forked
    them), so the accusation is false and the accuser's fault (SPEC §4.4, §4.11)."""
    mover, claimant, burst, out = _crossed("trust/burst-frame", 2)
    dispute = next(parse_envelope(raw) for raw in out if parse_envelope(raw).kind is K.DISPUTE)
    twin = next(raw for raw in burst if parse_envelope(raw).seq == dispute.seq)
    claimant.receive(dispute.raw, 1_003)
    lie = errors.Equivocation("made up", [dispute.raw, twin], player=mover.seat)
    assert claimant.core is not None
    claimant.core.chain.reopen()
    claimant.core.send(claimant.identity, K.EVIDENCE, evidence_body(lie))
    report = verify_transcript(claimant.transcript())
    assert not report.ok and report.check == "false-evidence", report.describe()
    assert report.player == claimant.seat, report.describe()


def test_verify_calls_a_timeout_a_claim() -> None:
    pair, _mover, claimant = _timed_pair_at_first_turn("trust/claimtext")
    claimant.claim_timeout(60_000 + 200)
    pair.deliver(now_ms=60_000 + 250, choose=False)
    report = verify_transcript(claimant.transcript())
    assert report.ok
    text = report.describe()
    assert "claim" in text and "not proven" in text, text


# --- a crossing claim the prefix refuses ---------------------------------------------


def test_an_invalid_crossing_claim_keeps_our_move_and_is_evidence() -> None:
    """In a match without a clock the cheater's claim crosses our action: before, we rolled our
    action back first and checked later, leaving a transcript that blamed us."""
    rules = MatchRules(deal_mode=DealMode.DECKLIST)
    pair = seat_zero_to_move(rules, "trust/badcross")
    mover, cheater = pair.peers
    claim = _force_claim(cheater, checked=False)
    mover.submit(mover.legal_actions()[0])
    ours = mover.outgoing()
    with pytest.raises(errors.IllegalAction):
        mover.receive(claim[0])
    assert mover.rolled_back == 0
    out = [parse_envelope(raw) for raw in mover.outgoing()]
    assert [e.kind for e in out] == [K.EVIDENCE]
    assert out[0].seq == parse_envelope(ours[-1]).seq + 1  # a fresh seq: our action stays
    report = verify_transcript(mover.transcript())
    assert report.ok and report.summary["fault"]["player"] == cheater.seat, report.describe()


# --- false accusations ---------------------------------------------------------------


def test_a_false_accusation_is_checked_on_arrival_and_blames_the_accuser() -> None:
    pair = Pair(MatchRules(deal_mode=DealMode.DECKLIST), label="trust/liar")
    pair.start()
    pair.deliver(max_steps=20, choose=False)
    honest, liar = pair.peers[1], pair.peers[0]
    pair.flush(0)
    pair.flush(1)
    assert not pair.wire
    honest_raw = honest.transcript().envelopes[-1]
    assert liar.core is not None
    accusation = evidence_body(errors.IllegalAction("made up", [honest_raw], player=1))
    liar.core.chain.reopen()
    raw = liar.core.chain.seal(liar.identity, K.EVIDENCE, accusation).raw
    with pytest.raises(errors.FalseEvidence):
        honest.receive(raw)
    out = [parse_envelope(r) for r in honest.outgoing()]
    assert [e.kind for e in out] == [K.EVIDENCE] and out[0].body[0] == "false-evidence"
    report = verify_transcript(honest.transcript())
    assert report.ok and report.summary["fault"]["player"] == liar.seat, report.describe()


# --- our bugs are ours --------------------------------------------------------------


def test_a_bug_in_our_handler_is_local_not_the_peer_s_fault(monkeypatch) -> None:
    pair = seat_zero_to_move(MatchRules(deal_mode=DealMode.DECKLIST), "trust/bug")
    mover, other = pair.peers
    mover.submit(mover.legal_actions()[0])
    raw = mover.outgoing()[0]

    def broken(self, envelope, body, own):  # type: ignore[no-untyped-def]
        raise KeyError("a bug of ours")

    monkeypatch.setitem(__import__("versus.protocol.match.core", fromlist=["_HANDLERS"])._HANDLERS,
                        K.ACTION, broken)
    with pytest.raises(errors.LocalProtocolError, match="internal error"):
        other.receive(raw)
    assert other.fault is None and other.outgoing() == []


# --- the match is bound to the channel -----------------------------------------------


def test_a_hello_whose_key_is_not_the_channel_s_is_refused() -> None:
    """A relay R between two channels forwards B's HELLO to A; A's channel proved R's key."""
    ids = identities("trust/uks")
    relay = identities("trust/relay")[0]
    rules = MatchRules(deal_mode=DealMode.DECKLIST)
    a = MatchPeer(0, ids[0], rules, Pair(rules).catalogue, master_secret=b"a" * 32)
    b = MatchPeer(1, ids[1], rules, Pair(rules).catalogue, master_secret=b"b" * 32)
    a.start(binding=b"\x0a" * 32, peer_key=relay.public_key)  # channel A-R
    hello_b = b.start(binding=b"\x0b" * 32, peer_key=relay.public_key)[0]  # channel R-B
    with pytest.raises(errors.SetupMismatch):
        a.receive(hello_b)
    # even a relay that could make the bindings equal is caught by the key
    a2 = MatchPeer(0, ids[0], rules, Pair(rules).catalogue, master_secret=b"c" * 32)
    b2 = MatchPeer(1, ids[1], rules, Pair(rules).catalogue, master_secret=b"d" * 32)
    a2.start(binding=NO_BINDING, peer_key=relay.public_key)
    with pytest.raises(errors.SetupMismatch, match="expected key"):
        a2.receive(b2.start()[0])


def test_verifier_refuses_hellos_of_two_sessions() -> None:
    one = Pair(TIMED, label="trust/s1").run()
    hellos = one.transcript().hellos
    other = MatchPeer(1, one.ids[1], TIMED, one.catalogue, master_secret=b"z" * 32)
    fresh = other.start(binding=b"\x07" * 32)[0]
    report = verify_transcript(Transcript((hellos[0], fresh), ()))
    assert not report.ok and report.check == "setup-mismatch"


def test_the_audit_referee_matches_the_live_one() -> None:
    """`audit_prefix` (what EVIDENCE re-checks run on) accepts every honest envelope."""
    pair = Pair(MatchRules(deal_mode=DealMode.SHARED_POOL), label="trust/audit").run()
    core: MatchCore | None = pair.peers[0].core
    assert core is not None
    referee = core.audit_prefix(len(core.chain.envelopes))
    assert referee.phase is core.phase and referee.inputs == core.inputs
