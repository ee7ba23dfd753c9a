# Protocol-security review of the match state machine and the offline verifier (SPEC §4.11).
#
# Each test plays a cheating or misbehaving seat against an honest one and asserts what a sound
# protocol must guarantee. Each was first written as a strict xfail demonstrating a real problem;
# the fixes landed (SPEC §4.4, §4.9, §4.11) and the markers were removed.
from __future__ import annotations

import pytest

import versus.protocol.match.peer as match_module
from tests.protocol.pair import Pair, master_secret, on_nth, reseal, rules_for, seat_zero_to_move
from versus.engine.versus42 import format_input, new_game, state_hash, step
from versus.protocol import errors
from versus.protocol.crypto.commitment import coin_outcome, draw_permutation
from versus.protocol.deals.dealers import DecklistHand
from versus.protocol.match import COIN_PURPOSE, MatchPeer, Phase, evidence_body
from versus.protocol.match.rules import DealMode, MatchRules, master_rng
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import Envelope, MessageKind, parse_envelope, seal
from versus.protocol.wire.transcript import Transcript

K = MessageKind
DECK = DealMode.DECKLIST
CLOCK = {"clock_initial_ms": 1_000, "clock_increment_ms": 100}


def _seal_after(pair: Pair, seat: int, chain: tuple[bytes, ...], kind: MessageKind,
                body: list[object]) -> bytes:
    """`seat`'s next envelope on top of `chain` (a list of wire envelopes)."""
    head = parse_envelope(chain[-1])
    return seal(pair.ids[seat], match_id=head.match_id, seq=head.seq + 1, prev_hash=head.hash,
                sender=seat, kind=kind, body=body).raw


def _evidence(pair: Pair, seat: int, chain: tuple[bytes, ...],
              error: errors.RemoteProtocolError) -> bytes:
    return _seal_after(pair, seat, chain, K.EVIDENCE, evidence_body(error))


def _playing(label: str, rules: MatchRules | None = None) -> Pair:
    pair = Pair(rules or rules_for(DECK), label=label)
    pair.start()
    pair.deliver(max_steps=30, choose=False)
    assert pair.errors == [] and pair.peers[0].phase is Phase.PLAY
    return pair


def _frames(report: object, victim: int) -> bool:
    """Does a verifier report say `victim` committed an attributable fault?"""
    fault = report.summary.get("fault")  # type: ignore[attr-defined]
    blamed_ok = report.ok and fault is not None and fault["player"] == victim and fault[  # type: ignore[attr-defined]
        "attributable"]
    blamed_bad = not report.ok and report.player == victim  # type: ignore[attr-defined]
    return blamed_ok or blamed_bad


# --- 1. EVIDENCE that frames an honest player ------------------------------------------------


@pytest.mark.parametrize("source", ["this match's HELLO", "an earlier match"])
def test_evidence_cannot_frame_with_an_old_signed_envelope(source: str) -> None:
    pair = _playing("review/frame-hello")
    victim = 1
    if source == "this match's HELLO":
        stolen = pair.transcript(0).hellos[victim]
    else:  # the same two identities played before; the liar kept the victim's envelopes
        earlier = Pair(rules_for(DECK), label="review/frame-earlier")
        earlier.ids = pair.ids
        earlier.peers = tuple(  # type: ignore[assignment]
            MatchPeer(seat, pair.ids[seat], earlier.rules, earlier.catalogue,
                      rng=master_rng(master_secret("review/frame-earlier", seat)))
            for seat in (0, 1))
        earlier.start()
        earlier.deliver(max_steps=30, choose=False)
        stolen = next(raw for raw in earlier.transcript(0).envelopes
                      if parse_envelope(raw).sender == victim)
    chain = pair.transcript(0).envelopes
    lie = errors.WrongMatch("made up", [stolen], player=victim)
    report = verify_transcript(Transcript(pair.transcript(0).hellos,
                                          (*chain, _evidence(pair, 0, chain, lie))))
    assert not _frames(report, victim), report.describe()


def test_oversize_offending_envelope_does_not_turn_against_the_accuser() -> None:
    cheater = 0

    def huge(env: Envelope) -> bytes:  # a signed ACTION with a 950 kB text (< 1 MiB)
        return reseal(pair.ids[cheater], env, body=["x" * 950_000, env.body[1]])

    pair = Pair(rules_for(DECK), label="review/huge", tamper=on_nth(cheater, K.ACTION, 0, huge))
    pair.run()
    assert len(pair.errors) == 1 and isinstance(pair.errors[0][1], errors.MalformedMessage)
    honest = pair.peers[1 - cheater]
    report = verify_transcript(honest.transcript())
    assert report.ok, report.describe()
    assert report.summary["fault"]["player"] == cheater


def test_private_branch_does_not_frame_the_reply_as_prev_hash_mismatch() -> None:
    pair = _playing("review/branch")
    accuser = next(p for p in pair.peers if p.my_turn)
    victim = pair.peers[1 - accuser.seat]
    before = accuser.transcript().envelopes
    state = accuser.core.state  # type: ignore[union-attr]
    actions = accuser.legal_actions()
    end = next(a for a in actions if format_input(a) == "end")
    accuser.submit(end)  # X, really sent: the turn passes to the victim
    pair.deliver(choose=False)
    assert victim.my_turn
    victim.submit(victim.legal_actions()[0])
    reply = victim.outgoing()[0]  # seq n + 1, built on X
    assert parse_envelope(reply).seq == len(before) + 1
    # X': another legal action at the same seq, never sent to anyone
    other = next(a for a in actions if a != end)
    x2 = _seal_after(pair, accuser.seat, before, K.ACTION,
                     [format_input(other), state_hash(step(state, other))])
    chain = (*before, x2)
    lie = errors.PrevHashMismatch("made up", [reply], player=victim.seat)
    report = verify_transcript(Transcript(pair.transcript(0).hellos,
                                          (*chain, _evidence(pair, accuser.seat, chain, lie))))
    assert not _frames(report, victim.seat), report.describe()


def test_unattributable_evidence_is_not_a_clean_escape() -> None:
    pair = _playing("review/junk")
    quitter = pair.peers[0]
    quitter._fail(errors.MalformedMessage("the peer sent junk", [b"junk"]))
    report = verify_transcript(quitter.transcript())
    fault = report.summary.get("fault") or {}
    assert not report.ok or fault.get("player") == quitter.seat, report.describe()


# --- 2. who can walk away ---------------------------------------------------------------------


def test_last_revealer_who_sees_the_layout_and_walks_away_forfeits() -> None:
    def walk_away(sender: int, raw: bytes) -> bytes | None:
        # seat 1 reveals automatically the moment it holds seat 0's seed; the wire drops it
        return None if sender == 1 and parse_envelope(raw).kind is K.REVEAL else raw

    rules = MatchRules(deal_mode=DECK, **CLOCK)  # type: ignore[arg-type]
    pair = Pair(rules, label="review/last-revealer", tamper=walk_away)
    pair.start()
    last = pair.peers[1]
    pair.deliver(choose=False, now_ms=0)
    core = last.core
    assert core is not None and core.coin_seeds[0] is not None
    # seat 1 knows the layout and the first player before anyone else ...
    layout = coin_outcome(core.match_id, COIN_PURPOSE, core.coin_seeds[0], last._coin_seed)
    predicted = new_game(rules.ruleset, pair.catalogue, layout).first
    # ... and, not liking it, never sends its REVEAL
    assert pair.peers[0].phase is Phase.REVEAL_1
    report = verify_transcript(pair.transcript(0))
    assert not report.ok and report.check == "incomplete" and report.player == 1
    assert predicted in (0, 1)
    pair.peers[0].claim_timeout(10 ** 9)  # the forfeit
    assert pair.peers[0].result is not None and pair.peers[0].result.winner == 0
    report = verify_transcript(pair.transcript(0))  # a claim in setup closes the match
    assert report.ok and report.summary["result"]["winner"] == 0, report.describe()


def test_loser_cannot_stall_the_certificate() -> None:
    def withhold(sender: int, raw: bytes) -> bytes | None:
        env = parse_envelope(raw)
        owed = {K.RESULT: 0, K.RESULT_COSIGN: 1}.get(env.kind)
        if owed == sender and env.body[1] is not None and env.body[1] != sender:
            return None  # the loser stalls
        return raw

    rules = MatchRules(deal_mode=DECK, **CLOCK)  # type: ignore[arg-type]
    pair = Pair(rules, label="review/stall", tamper=withhold, seed=5)
    pair.start()
    pair.deliver(now_ms=0)
    waiting = next(p for p in pair.peers if p.phase in (Phase.RESULT, Phase.COSIGN))
    assert waiting.core is not None and waiting.core.game_result is not None
    winner = pair.peers[waiting.core.game_result.winner]  # (the loser owes the certificate)
    assert winner.claim_deadline_ms is not None
    winner.claim_timeout(10 ** 9)
    assert winner.result is not None and winner.result.winner == winner.seat


# --- 3. a cheat that passes the live checks and the verifier ---------------------------------


def test_timeout_claimant_must_open_its_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    class Swapping(DecklistHand):  # both seats cheat: draw the opponent's slots out of order
        def __init__(self, match_id: bytes, seat: int, cards: object, rng: object,
                     **sizes: object) -> None:
            super().__init__(match_id, seat, cards, rng, **sizes)  # type: ignore[arg-type]
            order = self.draw_order._order
            order[0], order[1] = order[1], order[0]

    monkeypatch.setattr(match_module, "DecklistHand", Swapping)
    rules = MatchRules(deal_mode=DECK, **CLOCK)  # type: ignore[arg-type]
    pair = Pair(rules, label="review/escape")
    pair.start()
    pair.deliver(now_ms=0, choose=False)
    claimant = next(p for p in pair.peers if not p.my_turn)
    claimant._pump = lambda now_ms: []  # type: ignore[method-assign]  # it sends nothing more
    claimant.claim_timeout(10_000)
    hand = claimant._hand
    assert hand is not None
    honest_order = draw_permutation(claimant.match_id, 1 - claimant.seat,  # type: ignore[arg-type]
                                    hand.draw_order.seed, rules.ruleset.deck_size)
    announced = claimant.core.decklist.orders[1 - claimant.seat].positions  # type: ignore[union-attr]
    assert list(announced) != honest_order[:len(announced)]  # it really cheated
    report = verify_transcript(claimant.transcript())  # it stops here, reveals nothing
    assert not report.ok and report.player == claimant.seat, report.describe()


# --- 4. the timeout race (code under way in match.py) ----------------------------------------


def test_roll_back_after_a_claim_does_not_create_an_equivocation() -> None:
    if not hasattr(MatchPeer, "_roll_back_for_claim"):
        pytest.fail("no roll-back in this version (nothing to frame)")
    rules = MatchRules(deal_mode=DECK, **CLOCK)  # type: ignore[arg-type]
    pair = seat_zero_to_move(rules, "review/eq")  # seat 0 will be the late side
    late = pair.peers[0]
    claimant = pair.peers[1 - late.seat]
    claimant.claim_timeout(5_000)
    recto = next(a for a in late.legal_actions() if format_input(a).endswith("recto"))
    late.submit(recto, 5_001)  # ACTION and its OPEN cross the claim
    claim, crossing = claimant.outgoing(), late.outgoing()
    assert [parse_envelope(r).kind for r in crossing] == [K.ACTION, K.OPEN]
    for raw in crossing:
        assert claimant.receive(raw, 5_002) == []
    for raw in claim:
        late.receive(raw, 5_003)
    after = late.outgoing()  # its SECRET_REVEAL, at the seq of its dropped OPEN
    chain = (*claimant.transcript().envelopes, after[0])
    claimant_view = Transcript(claimant.transcript().hellos, chain)
    lie = errors.Equivocation("made up", [after[0], crossing[1]], player=late.seat)
    report = verify_transcript(Transcript(claimant_view.hellos,
                                          (*chain, _evidence(pair, claimant.seat, chain, lie))))
    assert not _frames(report, late.seat), report.describe()


# --- 5. checks that hold (regression guards for the review) ----------------------------------


def _end_of_match(label: str) -> tuple[Pair, tuple[bytes, ...]]:
    pair = Pair(rules_for(DECK), label=label)
    pair.run()
    assert pair.errors == []
    return pair, pair.transcript(0).envelopes


def _index_of(chain: tuple[bytes, ...], kind: MessageKind) -> int:
    return next(i for i, raw in enumerate(chain) if parse_envelope(raw).kind is kind)


def test_result_without_cosign_is_incomplete_and_names_seat_1() -> None:
    pair, chain = _end_of_match("review/cut")
    cut = chain[:_index_of(chain, K.RESULT) + 1]
    report = verify_transcript(Transcript(pair.transcript(0).hellos, cut))
    assert not report.ok and report.check == "incomplete" and report.player == 1


def test_disagreeing_cosign_is_a_result_mismatch_by_seat_1() -> None:
    pair, chain = _end_of_match("review/cosign")
    at = _index_of(chain, K.RESULT_COSIGN)
    env = parse_envelope(chain[at])
    body = list(env.body)
    body[3] += 1  # another input count
    forged = reseal(pair.ids[1], env, body=body)
    report = verify_transcript(Transcript(pair.transcript(0).hellos, (*chain[:at], forged)))
    assert not report.ok and report.check == "result-mismatch" and report.player == 1


def test_missing_secret_reveal_after_a_game_is_incomplete() -> None:
    pair, chain = _end_of_match("review/secrets")
    cut = chain[:-1]  # seat 1's SECRET_REVEAL withheld
    report = verify_transcript(Transcript(pair.transcript(0).hellos, cut))
    assert not report.ok and report.check == "incomplete" and report.player == 1


def test_envelope_of_an_earlier_match_is_refused_live() -> None:
    pair = _playing("review/replay-live")
    other = _playing("review/replay-live-other")
    foreign = other.transcript(1).envelopes[-1]
    with pytest.raises(errors.RemoteProtocolError):
        pair.peers[0].receive(foreign)


def test_reflected_hello_is_refused() -> None:
    template = Pair(rules_for(DECK), label="review/reflect")
    peer = MatchPeer(0, template.ids[0], template.rules, template.catalogue,
                     rng=master_rng(master_secret("review/reflect", 0)))
    hello = peer.start()[0]
    with pytest.raises(errors.SetupMismatch):
        peer.receive(hello)


