# The corrupted-transcript corpus: real transcripts (two in-memory peers, tests/protocol/pair.py)
# edited the ways a file gets damaged or forged, each refused by verify_transcript with the
# right check code, the right first bad record and the right seat at fault (None when the file
# alone cannot prove who did it). Forgeries are re-signed with the cheater's key, and every later
# envelope is re-linked with both keys, so exactly the intended check is what fails, not a
# signature or a chain link further on. Valid endings (a finished match, a resignation with and
# without the reveals, a timeout claim, a detected cheat) are accepted.
#
# The builders at the top are shared with tests/cli (verify and replay commands).
from __future__ import annotations

import functools
from collections.abc import Callable

import pytest

from tests.protocol.pair import Pair, on_nth, play, reseal, rules_for
from versus.engine.versus42 import ActionOrder
from versus.protocol.match import Phase
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import Report, replay_inputs, verify_transcript
from versus.protocol.wire.envelope import Envelope, MessageKind, parse_envelope, seal
from versus.protocol.wire.transcript import Transcript, dump_transcript, load_transcript

K = MessageKind
DECK, POOL = DealMode.DECKLIST, DealMode.SHARED_POOL


# --- real transcripts -----------------------------------------------------------------------


@functools.cache
def finished(mode: DealMode = DECK) -> Pair:
    """A whole match played to the end: RESULT, RESULT_COSIGN, both SECRET_REVEALs."""
    pair = play(mode, ActionOrder.ORDERED, label=f"corpus/{mode.value}", seed=5)
    assert pair.errors == [] and pair.peers[0].phase is Phase.CLOSED
    return pair


@functools.cache
def resigned() -> Pair:
    pair = Pair(rules_for(DECK), label="corpus/resign")
    pair.start()
    pair.deliver(max_steps=40)
    next(p for p in pair.peers if not p.my_turn).resign()  # queued until its next decision
    pair.deliver()
    assert pair.errors == [] and pair.peers[0].phase is Phase.CLOSED
    return pair


@functools.cache
def timed_out() -> Pair:
    rules = MatchRules(deal_mode=DECK, clock_initial_ms=1_000, clock_increment_ms=100)
    pair = Pair(rules, label="corpus/clock")
    pair.start()
    pair.deliver(now_ms=0, choose=False)
    waiter = next(p for p in pair.peers if not p.my_turn)
    waiter.claim_timeout(5_000)
    pair.deliver(now_ms=5_000, choose=False)
    assert pair.errors == []
    return pair


@functools.cache
def cheat_ended() -> Pair:
    """Seat 0 signs an illegal move; seat 1 refuses it and ends the match with EVIDENCE."""
    def illegal(env: Envelope) -> bytes:
        return reseal(pair.ids[0], env, body=["move a1 e4", env.body[1]])

    pair = Pair(rules_for(DECK), label="corpus/cheat", tamper=on_nth(0, K.ACTION, 0, illegal))
    pair.run()
    assert len(pair.errors) == 1 and pair.errors[0][0] == 1
    return pair


def transcript_of(pair: Pair, seat: int = 0) -> Transcript:
    return pair.peers[seat].transcript()


#: a peer-signed text that, printed raw, erases the line and forges a verdict
FAKE_OK = "\r\x1b[2KOK: 40 records verified\n"


def hostile_evidence(message: str = FAKE_OK + "\u202e", code: str = "replay") -> Transcript:
    """A finished match cut after its 11th envelope, ended by an EVIDENCE that seat 1 signs: it
    replays the envelope before it (a real "replay", which proves nobody's fault, so the
    transcript is INVALID, unproven-evidence against seat 1) with `message` as its text."""
    pair = finished()
    t = transcript_of(pair)
    previous = parse_envelope(t.envelopes[10])
    evidence = seal(pair.ids[1], match_id=previous.match_id, seq=previous.seq + 1,
                    prev_hash=previous.hash, sender=1, kind=K.EVIDENCE,
                    body=[code, message, [previous.raw], 0]).raw
    return with_envelopes(t, [*t.envelopes[:11], evidence])


# --- editing helpers ------------------------------------------------------------------------


def index_of(t: Transcript, kind: MessageKind, n: int = 0) -> int:
    """Position in `t.envelopes` of the n-th envelope of `kind` (record index = this + 2)."""
    hits = [i for i, raw in enumerate(t.envelopes) if parse_envelope(raw).kind is kind]
    return hits[n]


def with_envelopes(t: Transcript, envelopes: list[bytes]) -> Transcript:
    return Transcript(t.hellos, tuple(envelopes))


def relink(pair: Pair, envelopes: list[bytes], start: int) -> list[bytes]:
    """Re-sign every envelope after `start` so that it links to the (edited) one before it:
    only someone holding both keys could, which makes the edit at `start` the only fault."""
    out = list(envelopes)
    for i in range(start + 1, len(out)):
        env = parse_envelope(out[i])
        previous = parse_envelope(out[i - 1])
        out[i] = reseal(pair.ids[env.sender], env, prev_hash=previous.hash)
    return out


def forged(pair: Pair, kind: MessageKind, change: Callable[[Envelope], dict[str, object]],
           n: int = 0, signer: int | None = None) -> tuple[Transcript, int, int]:
    """The transcript with the n-th `kind` envelope re-signed with `change` applied (by its
    sender unless `signer` says otherwise), later envelopes relinked. -> (t, record, sender)"""
    t = transcript_of(pair)
    i = index_of(t, kind, n)
    env = parse_envelope(t.envelopes[i])
    envelopes = list(t.envelopes)
    key = pair.ids[env.sender if signer is None else signer]
    envelopes[i] = reseal(key, env, **change(env))
    return with_envelopes(t, relink(pair, envelopes, i)), i + 2, env.sender


def body_with(env: Envelope, index: int, value: object) -> dict[str, object]:
    body = list(env.body)
    body[index] = value
    return {"body": body}


def flip(raw: bytes, position: int) -> bytes:
    data = bytearray(raw)
    data[position] ^= 0x01
    return bytes(data)


def assert_refused(report: Report, check: str, record: int | None, player: int | None) -> None:
    assert not report.ok, "accepted"
    assert (report.check, report.bad_index, report.player) == (check, record, player), \
        report.describe()
    assert report.message
    assert report.describe().startswith("INVALID")


# --- valid endings --------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [DECK, POOL])
def test_a_finished_match_is_valid(mode: DealMode) -> None:
    report = verify_transcript(finished(mode).peers[1].transcript_bytes())
    assert report.ok, report.describe()
    s = report.summary
    assert s["ending"] == "game" and s["secrets_revealed"] and len(s["deal"]) == 24
    assert s["phase"] == "closed" and s["actions"] > 0


def test_a_resignation_is_valid_with_and_without_the_reveals() -> None:
    t = transcript_of(resigned())
    report = verify_transcript(t)
    assert report.ok and report.summary["ending"] == "resignation", report.describe()
    assert report.summary["deal"] is not None
    resign = index_of(t, K.RESIGN)
    winner = 1 - parse_envelope(t.envelopes[resign]).sender
    # right after the RESIGN the winner owes its SECRET_REVEAL (it comes first) ...
    cut = verify_transcript(with_envelopes(t, list(t.envelopes[:resign + 1])))
    assert (cut.ok, cut.check, cut.player) == (False, "incomplete", winner), cut.describe()
    # ... and once it is in, the loser's is best effort
    early = verify_transcript(with_envelopes(t, list(t.envelopes[:resign + 2])))
    assert early.ok and early.summary["ending"] == "resignation", early.describe()
    assert early.summary["deal"] is None and early.summary["secrets_revealed"] is False


def test_a_timeout_claim_is_valid() -> None:
    report = verify_transcript(transcript_of(timed_out()))
    assert report.ok, report.describe()
    assert report.summary["ending"] == "timeout"
    assert "ran out of time" in report.describe()


def test_a_detected_cheat_is_valid_and_names_the_cheater() -> None:
    report = verify_transcript(transcript_of(cheat_ended(), 1))
    assert report.ok, report.describe()
    assert report.summary["ending"] == "fault"
    assert report.summary["fault"]["code"] == "illegal-action"
    assert report.summary["fault"]["player"] == 0
    assert "illegal-action by seat 0 (player 1) (verified)" in report.describe()


# --- the corpus -----------------------------------------------------------------------------


def test_flipped_byte_in_a_signed_envelope() -> None:
    t = transcript_of(finished())
    i = index_of(t, K.ACTION, 3)
    envelopes = list(t.envelopes)
    envelopes[i] = flip(envelopes[i], len(envelopes[i]) - 67)  # last byte of the state hash
    report = verify_transcript(with_envelopes(t, envelopes))
    assert_refused(report, "bad-signature", i + 2, None)
    assert report.summary["bad_envelope"]["kind"] == "ACTION"


def test_flipped_byte_in_a_hello_and_in_the_header() -> None:
    t = transcript_of(finished())
    hello = flip(t.hellos[1], len(t.hellos[1]) - 72)  # last byte of the nonce
    assert_refused(verify_transcript(Transcript((t.hellos[0], hello), t.envelopes)),
                   "bad-signature", 1, None)
    data = bytearray(dump_transcript(t))
    data[3] ^= 0x01
    assert_refused(verify_transcript(bytes(data)), "malformed-transcript", None, None)


def test_dropped_envelope() -> None:
    t = transcript_of(finished())
    envelopes = list(t.envelopes)
    del envelopes[10]
    assert_refused(verify_transcript(with_envelopes(t, envelopes)), "sequence-gap", 12, None)


def test_reordered_envelopes() -> None:
    t = transcript_of(finished())
    envelopes = list(t.envelopes)
    envelopes[10], envelopes[11] = envelopes[11], envelopes[10]
    assert_refused(verify_transcript(with_envelopes(t, envelopes)), "sequence-gap", 12, None)


def test_duplicated_envelope() -> None:
    t = transcript_of(finished())
    envelopes = list(t.envelopes)
    envelopes.insert(11, envelopes[10])
    assert_refused(verify_transcript(with_envelopes(t, envelopes)), "replay", 13, None)


def test_signature_taken_from_another_envelope() -> None:
    t = transcript_of(finished())
    envelopes = list(t.envelopes)
    for donor in (12, 13):  # one of each seat's: neither key verifies the borrowed signature
        edited = list(envelopes)
        edited[10] = envelopes[10][:-64] + envelopes[donor][-64:]
        assert_refused(verify_transcript(with_envelopes(t, edited)), "bad-signature", 12, None)


def test_envelope_signed_by_the_other_seat() -> None:
    pair = finished()
    t = transcript_of(pair)
    i = index_of(t, K.ACTION)
    env = parse_envelope(t.envelopes[i])
    envelopes = list(t.envelopes)
    envelopes[i] = reseal(pair.ids[1 - env.sender], env)  # still names env.sender
    # Relinking takes both keys, and the sender's own later signature endorses the edit through
    # the chain, so the fast path accepts it (SPEC §4.4); a full verification names it.
    report = verify_transcript(with_envelopes(t, relink(pair, envelopes, i)), full=True)
    assert_refused(report, "wrong-sender", i + 2, 1 - env.sender)


def test_altered_result() -> None:
    pair = finished()
    t, record, sender = forged(pair, K.RESULT, lambda env: body_with(
        env, 1, 1 - env.body[1] if env.body[1] is not None else 0))
    assert sender == 0
    assert_refused(verify_transcript(t), "result-mismatch", record, 0)
    t, record, sender = forged(pair, K.RESULT_COSIGN, lambda env: body_with(
        env, 3, env.body[3] + 1))
    assert_refused(verify_transcript(t), "result-mismatch", record, 1)


def test_opening_that_does_not_match_its_commitment() -> None:
    pair = finished()
    t, record, sender = forged(pair, K.OPEN, lambda env: body_with(env, 2, bytes(32)))
    assert_refused(verify_transcript(t), "commitment-mismatch", record, sender)


def test_coin_seed_that_does_not_match_its_commitment() -> None:
    t, record, sender = forged(finished(), K.REVEAL, lambda env: {"body": [bytes(32)]}, n=1)
    assert sender == 1
    assert_refused(verify_transcript(t), "commitment-mismatch", record, 1)


def test_secret_reveal_with_a_changed_salt() -> None:
    def other_salt(env: Envelope) -> dict[str, object]:
        openings = [list(o) for o in env.body[0]]
        openings[0][2] = bytes(32)
        return body_with(env, 0, openings)

    t, record, sender = forged(finished(), K.SECRET_REVEAL, other_salt, n=1)
    assert_refused(verify_transcript(t), "commitment-mismatch", record, sender)


def test_illegal_action_that_was_signed() -> None:
    t, record, sender = forged(finished(), K.ACTION, lambda env: body_with(env, 0, "move a1 e4"),
                               n=2)
    report = verify_transcript(t)
    assert_refused(report, "illegal-action", record, sender)
    assert "move a1 e4" in report.message


def test_state_hash_that_is_not_the_replay() -> None:
    t, record, sender = forged(finished(), K.DRAW, lambda env: body_with(env, 1, bytes(32)))
    assert_refused(verify_transcript(t), "state-hash-mismatch", record, sender)


def test_wrong_kind_at_this_moment() -> None:
    t, record, sender = forged(finished(), K.DRAW, lambda env: {"kind": K.RESIGN, "body": []})
    assert_refused(verify_transcript(t), "out-of-turn", record, sender)


def test_envelope_after_the_match_closed() -> None:
    pair = finished()
    t = transcript_of(pair)
    last = parse_envelope(t.envelopes[-1])
    extra = seal(pair.ids[0], match_id=last.match_id, seq=last.seq + 1, prev_hash=last.hash,
                 sender=0, kind=K.ACTION, body=["end", bytes(32)]).raw
    report = verify_transcript(with_envelopes(t, [*t.envelopes, extra]))
    assert_refused(report, "out-of-turn", len(t.records), 0)


def test_equivocation() -> None:
    pair = finished()
    t = transcript_of(pair)
    i = index_of(t, K.ACTION, 1)
    env = parse_envelope(t.envelopes[i])
    twin = reseal(pair.ids[env.sender], env, body=["end", env.body[1]])
    envelopes = [*t.envelopes[:i + 1], twin, *t.envelopes[i + 1:]]
    assert_refused(verify_transcript(with_envelopes(t, envelopes)), "equivocation", i + 3,
                   env.sender)


def test_envelope_signed_for_another_match() -> None:
    # anyone can replay a seat's old envelope: it proves nothing against the seat (§4.9)
    t, record, _ = forged(finished(), K.ACTION, lambda env: {"match_id": bytes(32)})
    assert_refused(verify_transcript(t), "wrong-match-id", record, None)


def test_broken_link() -> None:
    pair = finished()
    t = transcript_of(pair)
    i = 20
    env = parse_envelope(t.envelopes[i])
    envelopes = list(t.envelopes)
    envelopes[i] = reseal(pair.ids[env.sender], env, prev_hash=bytes(32))
    head = parse_envelope(t.envelopes[i - 1]).sender
    # attributable only when the sender signed the head it failed to name (§4.4)
    assert_refused(verify_transcript(with_envelopes(t, relink(pair, envelopes, i))),
                   "prev-hash-mismatch", i + 2, env.sender if head == env.sender else None)


def test_hellos_out_of_seat_order() -> None:
    t = transcript_of(finished())
    report = verify_transcript(Transcript((t.hellos[1], t.hellos[0]), t.envelopes))
    assert_refused(report, "setup-mismatch", 0, None)


def test_truncated_transcript_names_the_seat_that_owed() -> None:
    t = transcript_of(finished())
    i = index_of(t, K.RESULT)
    report = verify_transcript(with_envelopes(t, list(t.envelopes[:i + 1])))
    assert_refused(report, "incomplete", i + 3, 1)  # seat 1 never countersigned


def test_false_evidence_blames_the_accuser() -> None:
    pair = finished()
    t = transcript_of(pair)
    i = index_of(t, K.ACTION, 2)
    honest = parse_envelope(t.envelopes[i])
    accuser = 1 - honest.sender
    previous = parse_envelope(t.envelopes[i - 1])
    evidence = seal(pair.ids[accuser], match_id=honest.match_id, seq=honest.seq,
                    prev_hash=previous.hash, sender=accuser, kind=K.EVIDENCE,
                    body=["illegal-action", "made up", [honest.raw], honest.sender]).raw
    report = verify_transcript(with_envelopes(t, [*t.envelopes[:i], evidence]))
    assert_refused(report, "false-evidence", i + 2, accuser)


def test_shared_pool_bad_decryption_share() -> None:
    from versus.protocol.crypto.group import L, decode_scalar, encode_scalar

    def bad_share(env: Envelope) -> dict[str, object]:
        wire = list(env.body[0])
        proof = list(wire[3])
        proof[1] = encode_scalar((decode_scalar(proof[1], "x") + 1) % L)
        wire[3] = proof
        return body_with(env, 0, wire)

    t, record, sender = forged(finished(POOL), K.DRAW, bad_share, n=2)
    assert_refused(verify_transcript(t), "deal-bad-proof", record, sender)


def test_replay_inputs_come_from_the_verified_run() -> None:
    pair = finished()
    replay = replay_inputs(pair.peers[0].transcript_bytes())
    assert replay.report.ok and replay.rules == pair.rules
    assert len(replay.inputs) == replay.report.summary["inputs"]
    assert replay.identities is not None and len(replay.identities) == 24
    assert [s.text for s in replay.inputs if s.seq == replay.inputs[-1].seq]
    cut = load_transcript(pair.peers[0].transcript_bytes())
    partial = replay_inputs(with_envelopes(cut, list(cut.envelopes[:30])))
    assert not partial.report.ok and partial.identities is None
    assert 0 < len(partial.inputs) < len(replay.inputs)
