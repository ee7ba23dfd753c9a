# Cheating and malformed behaviour: each is caught by the honest peer with the right error class
# and the signed evidence; the honest side's transcript (ending in its EVIDENCE) verifies offline
# and the verifier, re-checking that evidence, names the same culprit.
from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import versus.protocol.match.peer as match_module
from tests.protocol.pair import Pair, identities, on_nth, reseal, rules_for
from versus.engine.versus42 import default_catalogue
from versus.protocol import errors
from versus.protocol.crypto.group import CryptoProofError, L, decode_scalar, encode_scalar
from versus.protocol.deals.dealers import DecklistHand, decklist_commitment
from versus.protocol.deals.pool import CardMismatchError
from versus.protocol.match import Phase, evidence_body
from versus.protocol.match.rules import DealMode
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import Envelope, MessageKind, parse_envelope

K = MessageKind
DECK = DealMode.DECKLIST
POOL = DealMode.SHARED_POOL
CHEATER = 0
IDS = {label: identities(label) for label in ("cheat",)}


def _key() -> object:
    return IDS["cheat"][CHEATER]


def _signed(change: Callable[[Envelope], dict[str, object]]) -> Callable[[Envelope], bytes]:
    return lambda env: reseal(_key(), env, **change(env))  # type: ignore[arg-type]


def _body(env: Envelope, index: int, value: object) -> dict[str, object]:
    body = list(env.body)
    body[index] = value
    return {"body": body}


def _flip_sig(env: Envelope) -> bytes:
    raw = bytearray(env.raw)
    raw[-1] ^= 1
    return bytes(raw)


def _scalar_plus_one(data: bytes) -> bytes:
    return encode_scalar((decode_scalar(data, "x") + 1) % L)


def _bad_shuffle(env: Envelope) -> dict[str, object]:
    wire = [list(x) if isinstance(x, list) else x for x in env.body[0]]
    proof = list(wire[3])
    proof[3] = [_scalar_plus_one(proof[3][0]), *proof[3][1:]]
    wire[3] = proof
    return {"body": [wire]}


def _bad_share(env: Envelope) -> dict[str, object]:
    wire = list(env.body[0])
    wire[3] = [wire[3][0], _scalar_plus_one(wire[3][1])]
    return _body(env, 0, wire)


def _other_card(env: Envelope) -> dict[str, object]:
    wire = list(env.body[0])
    ids = [c.id for c in default_catalogue().cards]
    wire[2] = next(c for c in ids if c != wire[2])
    return _body(env, 0, wire)


# (name, mode, tamper factory, expected error class, attributable culprit)
WIRE_CHEATS = [
    ("wrong sender", DECK, lambda: on_nth(CHEATER, K.ACTION, 0, lambda env: reseal(
        IDS["cheat"][CHEATER], env, sender=1)), errors.WrongSender, CHEATER),
    ("equivocation", DECK, lambda: on_nth(CHEATER, K.ACTION, 0, lambda env: [
        env.raw, reseal(_key(), env, body=["end", env.body[1]])]),  # type: ignore[arg-type]
     errors.Equivocation, CHEATER),
    ("prev-hash mismatch", DECK, lambda: on_nth(CHEATER, K.ACTION, 1, _signed(
        lambda env: {"prev_hash": bytes(32)})), errors.PrevHashMismatch, CHEATER),
    ("out-of-turn kind", DECK, lambda: on_nth(CHEATER, K.DRAW, 0, _signed(
        lambda env: {"kind": K.ACTION})), errors.OutOfTurn, CHEATER),
    ("illegal action", DECK, lambda: on_nth(CHEATER, K.ACTION, 0, _signed(
        lambda env: _body(env, 0, "move a1 e4"))), errors.IllegalAction, CHEATER),
    ("non-canonical action text", POOL, lambda: on_nth(CHEATER, K.ACTION, 0, _signed(
        lambda env: _body(env, 0, " " + env.body[0]))), errors.IllegalAction, CHEATER),
    ("wrong state hash", DECK, lambda: on_nth(CHEATER, K.ACTION, 0, _signed(
        lambda env: _body(env, 1, bytes(32)))), errors.StateHashMismatch, CHEATER),
    ("malformed body", DECK, lambda: on_nth(CHEATER, K.ACTION, 0, _signed(
        lambda env: {"body": [1, 2, 3]})), errors.MalformedMessage, CHEATER),
    ("coin seed not matching commitment", DECK, lambda: on_nth(CHEATER, K.REVEAL, 0, _signed(
        lambda env: {"body": [bytes(32)]})), errors.CommitmentMismatch, CHEATER),
    ("opening not matching commitment", DECK, lambda: on_nth(CHEATER, K.OPEN, 0, _signed(
        lambda env: _body(env, 2, bytes(32)))), errors.CommitmentMismatch, CHEATER),
    ("wrong result", DECK, lambda: on_nth(CHEATER, K.RESULT, 0, _signed(
        lambda env: _body(env, 1, None if env.body[1] is not None else 0))),
     errors.ResultMismatch, CHEATER),
    ("tampered shuffle proof", POOL, lambda: on_nth(CHEATER, K.SHUFFLE, 0, _signed(
        _bad_shuffle)), CryptoProofError, CHEATER),
    ("wrong decryption share", POOL, lambda: on_nth(CHEATER, K.DRAW, 0, _signed(_bad_share)),
     CryptoProofError, CHEATER),
    ("pool reveal of another card", POOL, lambda: on_nth(CHEATER, K.OPEN, 0, _signed(
        _other_card)), CardMismatchError, CHEATER),
]


def _check_caught(pair: Pair, expected: type, culprit: int | None) -> None:
    assert len(pair.errors) == 1, pair.errors
    seat, error = pair.errors[0]
    assert seat == 1 - CHEATER
    assert isinstance(error, expected), (type(error), error)
    assert error.evidence, "no evidence"
    if culprit is not None:
        assert error.player == culprit
    honest = pair.peers[seat]
    assert honest.fault is error
    with pytest.raises(errors.LocalProtocolError):
        honest.receive(b"anything")
    report = verify_transcript(honest.transcript())
    assert report.ok, report.describe()
    fault = report.summary["fault"]
    assert fault["code"] == error.code
    if culprit is not None:
        assert fault["player"] == culprit


@pytest.mark.parametrize(("name", "mode", "make", "expected", "culprit"), WIRE_CHEATS,
                         ids=[c[0] for c in WIRE_CHEATS])
def test_wire_cheat_is_caught(name: str, mode: DealMode, make: Callable[[], object],
                              expected: type, culprit: int | None) -> None:
    pair = Pair(rules_for(mode), label="cheat", tamper=make())  # type: ignore[arg-type]
    pair.run()
    _check_caught(pair, expected, culprit)


# Faults that prove nothing about the peer (anyone on the path could cause them): the honest
# side drops the envelope, seals no EVIDENCE and stays in the match; a resume (the session
# reconnects, each side resends its chain after the common prefix) resynchronises (SPEC §4.11).
LINK_FAULTS = [
    ("bad signature", lambda: on_nth(CHEATER, K.ACTION, 0, _flip_sig), errors.BadSignature),
    ("replay", lambda: on_nth(CHEATER, K.ACTION, 0, lambda env: [env.raw, env.raw]),
     errors.Replay),
    ("sequence gap", lambda: on_nth(CHEATER, K.DRAW, 0, lambda env: None), errors.SequenceGap),
    ("wrong match id", lambda: on_nth(CHEATER, K.ACTION, 0, _signed(
        lambda env: {"match_id": bytes(32)})), errors.WrongMatch),
]


@pytest.mark.parametrize(("name", "make", "expected"), LINK_FAULTS, ids=[c[0] for c in LINK_FAULTS])
def test_link_fault_is_dropped_and_resynchronised(name: str, make: Callable[[], object],
                                                  expected: type) -> None:
    pair = Pair(rules_for(DECK), label="cheat", tamper=make())  # type: ignore[arg-type]
    pair.run()
    assert len(pair.errors) == 1, pair.errors
    seat, error = pair.errors[0]
    assert seat == 1 - CHEATER and isinstance(error, expected), (type(error), error)
    assert not error.attributable
    honest = pair.peers[seat]
    assert honest.fault is None  # still in the match
    assert all(parse_envelope(raw).kind is not K.EVIDENCE for _, raw in pair.sent)
    pair.tamper = None
    pair.wire.clear()  # the session drops the link; on resume each side resends what it has
    for sender, peer in enumerate(pair.peers):
        for raw in peer.envelopes_after(pair.peers[1 - sender].seq - 1):
            pair.wire.append((sender, raw))
    pair.deliver()
    assert len(pair.errors) == 1, pair.errors
    assert all(p.phase is Phase.CLOSED for p in pair.peers)
    assert verify_transcript(honest.transcript()).ok


def _cheating_hand(monkeypatch: pytest.MonkeyPatch,
                   mutate: Callable[[DecklistHand, bytes], None]) -> None:
    class Hand(DecklistHand):
        def __init__(self, match_id: bytes, seat: int, cards: object, rng: object,
                     **sizes: object) -> None:
            super().__init__(match_id, seat, cards, rng, **sizes)  # type: ignore[arg-type]
            if seat == CHEATER:
                mutate(self, match_id)

    monkeypatch.setattr(match_module, "DecklistHand", Hand)


def _run_without_self_check(pair: Pair) -> Pair:
    """The cheater's own core would refuse its own lie (same checks both ways): switch that
    self-check off for the cheater's SECRET_REVEAL."""
    pair.start()
    pair.deliver(max_steps=2, choose=False)
    audit = pair.peers[CHEATER].core.decklist  # type: ignore[union-attr]
    honest_secrets = audit.secrets

    def secrets(seat: int, parts: object, evidence: object) -> None:
        if seat != CHEATER:
            honest_secrets(seat, parts, evidence)  # type: ignore[arg-type]

    audit.secrets = secrets  # type: ignore[method-assign]
    pair.deliver()
    return pair


def _fake_decklist(hand: DecklistHand, match_id: bytes, decklist: Counter[str]) -> None:
    hand.decklist = decklist
    hand.commitment = decklist_commitment(match_id, CHEATER, decklist, hand.salt)


IDS_ALL = [c.id for c in default_catalogue().cards]


def test_duplicate_card_beyond_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    deck = [IDS_ALL[0], IDS_ALL[0], *IDS_ALL[2:12]]
    listed = Counter(deck)
    listed[IDS_ALL[0]] = 1
    listed[IDS_ALL[20]] = 1
    _cheating_hand(monkeypatch, lambda hand, mid: _fake_decklist(hand, mid, listed))
    pair = _run_without_self_check(Pair(rules_for(DECK), label="cheat", decks=(deck, None)))
    _check_caught(pair, errors.DuplicateCard, CHEATER)


def test_card_outside_the_decklist(monkeypatch: pytest.MonkeyPatch) -> None:
    deck = IDS_ALL[:12]
    listed = Counter(IDS_ALL[1:13])
    _cheating_hand(monkeypatch, lambda hand, mid: _fake_decklist(hand, mid, listed))
    pair = _run_without_self_check(Pair(rules_for(DECK), label="cheat", decks=(deck, None)))
    _check_caught(pair, errors.DecklistViolation, CHEATER)


def test_draw_order_contradicting_the_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    def swap(hand: DecklistHand, match_id: bytes) -> None:
        order = hand.draw_order._order
        order[0], order[1] = order[1], order[0]

    _cheating_hand(monkeypatch, swap)
    pair = _run_without_self_check(Pair(rules_for(DECK), label="cheat"))
    _check_caught(pair, errors.CommitmentMismatch, CHEATER)
    assert len(pair.errors[0][1].evidence) == 2  # the DRAW and the SECRET_REVEAL


def test_registered_decklist_mismatch_is_refused_locally() -> None:
    from versus.protocol.crypto.commitment import decklist_hash
    from versus.protocol.match import MatchPeer
    from versus.protocol.match.rules import MatchRules

    rules = MatchRules(deal_mode=DECK,
                       registered_decklists=(decklist_hash(Counter(IDS_ALL[:12])), None))
    with pytest.raises(errors.LocalProtocolError):
        MatchPeer(0, identities("x")[0], rules, default_catalogue(), deck=IDS_ALL[1:13],
                  rng=lambda n: bytes(n))


def test_false_evidence_blames_the_accuser() -> None:
    pair = Pair(rules_for(DECK), label="cheat")
    pair.start()
    pair.deliver(max_steps=20, choose=False)
    honest_raw = pair.peers[1].transcript().envelopes[-1]
    liar = pair.peers[0]
    # an honest MatchPeer re-checks its own EVIDENCE: the liar seals one by hand
    assert liar.core is not None
    liar.core.chain.seal(liar.identity, K.EVIDENCE,
                         evidence_body(errors.IllegalAction("made up", [honest_raw], player=1)))
    report = verify_transcript(liar.transcript())
    assert not report.ok and report.check == "false-evidence" and report.player == 0


# --- arbitrary bytes ------------------------------------------------------------------------

def _fresh_playing_pair() -> Pair:
    pair = Pair(rules_for(DECK), label="fuzz")
    pair.start()
    pair.deliver(max_steps=25, choose=False)
    return pair


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=600), in_setup=st.booleans())
def test_arbitrary_bytes_raise_only_remote_errors(data: bytes, in_setup: bool) -> None:
    if in_setup:
        from versus.protocol.match import MatchPeer

        peer = MatchPeer(1, identities("fuzz")[1], rules_for(DECK), default_catalogue(),
                         rng=lambda n: b"\x07" * n)
        peer.start()
    else:
        peer = _fresh_playing_pair().peers[1]
    with pytest.raises(errors.RemoteProtocolError):
        peer.receive(data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.integers(min_value=0), bit=st.integers(min_value=0, max_value=7))
def test_mutated_next_envelope_raises_only_remote_errors(position: int, bit: int) -> None:
    pair = _fresh_playing_pair()
    mover = next(p for p in pair.peers if p.my_turn)
    mover.submit(mover.legal_actions()[0])
    raw = mover.outgoing()[0]
    mutated = bytearray(raw)
    mutated[position % len(raw)] ^= 1 << bit
    with pytest.raises(errors.RemoteProtocolError):
        pair.peers[1 - mover.seat].receive(bytes(mutated))


# Signed envelopes of every kind with any body, from the seat whose turn it is or not: the
# honest peer answers with a RemoteProtocolError (the signer's fault, or a broken link), never
# with a LocalProtocolError or any other exception: every handler validates before it uses
# the body (our own bugs are never the peer's fault, and the peer's bytes
# never reach our code unvalidated).
_BODY = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.binary(max_size=40) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5), max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from([k for k in MessageKind if k is not MessageKind.HELLO]),
       body=st.lists(_BODY, max_size=5), timed=st.booleans())
def test_any_signed_body_of_any_kind_raises_only_remote_errors(kind, body, timed) -> None:
    from versus.protocol.match.rules import MatchRules

    rules = (MatchRules(deal_mode=DECK, clock_initial_ms=60_000, clock_increment_ms=0)
             if timed else rules_for(DECK))
    pair = Pair(rules, label="fuzz/bodies")
    pair.start()
    pair.deliver(max_steps=25, choose=False, now_ms=0)
    honest, other = pair.peers[1], pair.peers[0]
    assert honest.core is not None
    raw = Envelope(1, honest.core.match_id, honest.seq, honest.head, other.seat, kind, body,
                   bytes(64))
    forged = pair.forge(other.seat, raw.raw)
    with contextlib.suppress(errors.RemoteProtocolError):  # anything else fails the test
        honest.receive(forged, 1)
