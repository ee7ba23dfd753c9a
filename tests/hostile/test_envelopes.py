# Hostile peers at the envelope and protocol layers, over real TCP: the joiner (seat 1) plays a
# real MatchPeer but swaps envelopes for forged ones re-sealed with its own key, or commits to
# lies (duplicate card, draw order, shuffle proof, decryption share, result), or stalls.
#
# Attributable cheats: the honest host stops the match with the precise error, its transcript
# ends with its EVIDENCE, and the offline verifier (and once `versus verify`) re-checks that
# evidence and names seat 1. Faults nobody can prove (replays, gaps, bad signatures, another
# match's envelopes) are followed here by the genuine envelope, so whichever policy the protocol
# applies (EVIDENCE without a culprit, or drop and go on), the honest side ends, its transcript
# verifies and never blames seat 0.
from __future__ import annotations

import contextlib
import io
from collections import Counter
from collections.abc import Callable

import pytest
import trio

from tests.hostile.harness import (
    CATALOGUE,
    CHEATER,
    DECK_RULES,
    FAST_CHANNEL,
    HONEST,
    POOL_RULES,
    SMALL,
    HonestHost,
    HostilePeer,
    Tamper,
    arena,
    assert_caught,
    assert_never_blames_honest,
    at,
    chain_kinds,
    hostile_match,
    reseal,
    resealed,
    still_serves,
    with_body,
)
from versus.cli.verify_cmd import EXIT_VALID, cmd_verify
from versus.p2p.errors import TransportError
from versus.p2p.session import SessionConfig, SetupLostError
from versus.p2p.store import MatchStore
from versus.protocol import errors
from versus.protocol.crypto.group import CryptoProofError, L, decode_scalar, encode_scalar
from versus.protocol.deals.dealers import DecklistHand, decklist_commitment
from versus.protocol.deals.pool import CardMismatchError
from versus.protocol.match import MatchPeer
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.wire.envelope import Envelope, MessageKind, parse_envelope

K = MessageKind


async def run(tamper: Tamper, rules: MatchRules = DECK_RULES, *, limit: float = 10.0,
              **hostile: object) -> HonestHost:
    with trio.fail_after(limit):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, rules)
            host = await hostile_match(a, HostilePeer(rules, tamper, **hostile), limit)  # type: ignore[arg-type]
            nursery.cancel_scope.cancel()
    return host


def send_all(*make: Callable[[bytes], bytes]) -> Tamper:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        for m in make:
            await hostile.send(m(raw))

    return action


def same(raw: bytes) -> bytes:
    return raw


def flip_signature(raw: bytes) -> bytes:
    return raw[:-1] + bytes([raw[-1] ^ 1])


# --- envelopes the transport cannot vouch for (not attributable) ------------------------------


async def test_bad_signature_blames_nobody() -> None:
    host = await run(at(K.ACTION, 0, send_all(flip_signature, same)))
    assert_never_blames_honest(host)
    if host.session.peer.fault is not None:
        assert isinstance(host.session.peer.fault, errors.BadSignature)


async def test_reused_signature_blames_nobody() -> None:
    """A signature lifted from the cheater's previous envelope onto this one."""
    previous: list[bytes] = []

    async def keep(hostile: HostilePeer, raw: bytes) -> None:
        previous.append(raw)
        await hostile.send(raw)

    async def reuse(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send(raw[:-64] + previous[-1][-64:])
        await hostile.send(raw)

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        kind = parse_envelope(raw).kind
        if kind is K.DRAW and not previous:
            await keep(hostile, raw)
        elif kind is K.ACTION and previous:
            await reuse(hostile, raw)
            previous.clear()
        else:
            await hostile.send(raw)

    host = await run(tamper)
    assert_never_blames_honest(host)
    if host.session.peer.fault is not None:
        assert isinstance(host.session.peer.fault, errors.BadSignature)


async def test_replayed_envelope_blames_nobody() -> None:
    host = await run(at(K.ACTION, 0, send_all(same, same)))
    assert_never_blames_honest(host)
    if host.session.peer.fault is not None:
        assert isinstance(host.session.peer.fault, errors.Replay)


async def test_reordered_envelopes_blame_nobody() -> None:
    """ACTION then OPEN (back to back from seat 1) sent as OPEN, ACTION, OPEN."""
    held: list[bytes] = []

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        kind = parse_envelope(raw).kind
        if kind is K.ACTION and not held:
            held.append(raw)
            return
        if kind is K.OPEN and len(held) == 1:
            held.append(raw)
            for item in (raw, held[0], raw):
                await hostile.send(item)
            return
        await hostile.send(raw)

    host = await run(tamper)
    assert_never_blames_honest(host)
    if host.session.peer.fault is not None:
        assert isinstance(host.session.peer.fault, errors.SequenceGap)


async def test_envelope_of_another_match_blames_nobody_for_sure() -> None:
    host = await run(at(K.ACTION, 0, send_all(
        lambda raw: reseal(raw, match_id=bytes(32)), same)))
    assert_never_blames_honest(host)
    if host.session.peer.fault is not None:
        assert isinstance(host.session.peer.fault, errors.WrongMatch)


async def test_setup_message_inside_the_chain_is_refused() -> None:
    """The cheater's own HELLO replayed where a chain envelope is due."""
    hello: list[bytes] = []

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        kind = parse_envelope(raw).kind
        if kind is K.HELLO:
            hello.append(raw)
        elif kind is K.ACTION and hello:
            await hostile.send(hello.pop())
        await hostile.send(raw)

    host = await run(tamper)
    assert_never_blames_honest(host)


# --- signed lies (attributable) ------------------------------------------------------------------


async def test_wrong_sender_is_the_signer_s_fault() -> None:
    host = await run(at(K.ACTION, 0, resealed(sender=HONEST)))
    assert_caught(host, errors.WrongSender)


async def test_equivocation_is_caught() -> None:
    host = await run(at(K.ACTION, 0, send_all(
        same, lambda raw: reseal(raw, body=with_body(0, "end")))))
    assert_caught(host, errors.Equivocation)


async def test_prev_hash_not_linking_to_own_head_is_caught() -> None:
    """Seat 1's second ACTION follows its own first: a wrong link there is its own fault."""
    host = await run(at(K.OPEN, 0, resealed(prev_hash=bytes(32))))
    assert_caught(host, errors.PrevHashMismatch, culprit=None)


async def test_message_out_of_turn_is_caught() -> None:
    host = await run(at(K.DRAW, 0, resealed(kind=K.ACTION)))
    assert_caught(host, errors.OutOfTurn)


async def test_result_sent_by_the_wrong_seat_is_out_of_turn() -> None:
    host = await run(at(K.ACTION, 0, resealed(kind=K.RESULT, body=[0, None, bytes(32), 1])))
    assert_caught(host, errors.OutOfTurn)


async def test_illegal_action_is_caught() -> None:
    host = await run(at(K.ACTION, 0, resealed(body=with_body(0, "move a1 e4"))))
    assert_caught(host, errors.IllegalAction)


async def test_wrong_state_hash_is_caught() -> None:
    host = await run(at(K.ACTION, 0, resealed(body=with_body(1, bytes(32)))))
    assert_caught(host, errors.StateHashMismatch)


async def test_oversize_action_text_is_refused() -> None:
    host = await run(at(K.ACTION, 0, resealed(body=with_body(0, "x" * 50_000))))
    assert_caught(host, errors.MalformedMessage, culprit=None)


async def test_coin_reveal_not_matching_its_commitment_is_caught() -> None:
    host = await run(at(K.REVEAL, 0, resealed(body=[bytes(32)])))
    assert_caught(host, errors.CommitmentMismatch)


async def test_card_opening_not_matching_its_commitment_is_caught() -> None:
    host = await run(at(K.OPEN, 0, resealed(body=with_body(2, bytes(32)))))
    assert_caught(host, errors.CommitmentMismatch)


async def test_wrong_result_cosign_is_caught() -> None:
    host = await run(at(K.RESULT_COSIGN, 0, resealed(
        body=with_body(1, lambda winner: 1 if winner is None else None))))
    assert_caught(host, errors.ResultMismatch)


async def test_false_timeout_claim_in_an_untimed_match_is_caught() -> None:
    """Regression too: the claim lands while the honest player is answering; drive_player used
    to submit after the fault and crash the host's nursery with LocalProtocolError."""

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        # the claim must follow seat 1's last envelope of its turn, while seat 0 owes a move
        env = parse_envelope(raw)
        if env.kind is K.ACTION and env.seq == 9:
            await hostile.send(raw)
            await hostile.send(reseal(raw, kind=K.TIMEOUT_CLAIM, body=[HONEST, 10, 0],
                                      seq=env.seq + 1, prev_hash=env.hash))
            hostile.stall()
            return
        await hostile.send(raw)

    host = await run(tamper)
    if isinstance(host.session.peer.fault, errors.IllegalAction):
        assert_caught(host, errors.IllegalAction)  # the claim came first: a signed false claim
    else:  # our ACTION took seq 10 first: a race (SequenceConflict), nobody's provable fault
        assert_never_blames_honest(host)


async def test_reflected_hello_is_refused_before_the_match_exists() -> None:
    """The honest host's own HELLO sent back: no match id, so nothing to blame in a chain; the
    host must end the attempt at once (regression: it waited, keepalives answered, forever)
    and keep its listener."""

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        hostile.stall()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            hostile = HostilePeer(tamper=tamper)

            async def play() -> None:
                from versus.p2p.link import take_offer

                channel = await hostile.join(a.port)
                await take_offer(channel)
                theirs = await channel.receive()
                await channel.send(theirs)  # their own HELLO, reflected
                with trio.move_on_after(3), contextlib.suppress(TransportError):
                    while True:  # answer keepalives, as a real peer would: no idle timeout
                        await channel.receive()

            nursery.start_soon(play)
            with trio.fail_after(2), pytest.raises(SetupLostError, match="setup-mismatch"):
                await a.host.play()
            assert a.host.session is not None
            assert isinstance(a.host.session.peer.fault, errors.SetupMismatch)
            await still_serves(a)
            nursery.cancel_scope.cancel()


async def test_hello_with_other_rules_is_refused() -> None:
    other = MatchRules(SMALL, DealMode.DECKLIST, clock_initial_ms=1000)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            hostile = HostilePeer(other)
            nursery.start_soon(hostile.play, a.port)
            with trio.fail_after(2), pytest.raises(SetupLostError, match="setup-mismatch"):
                await a.host.play()
            assert isinstance(a.host.session.peer.fault, errors.SetupMismatch)
            nursery.cancel_scope.cancel()


# --- lies committed to in secret (decklist) ----------------------------------------------------

IDS_ALL = [card.id for card in CATALOGUE.cards]


def lie_in_secrets(mutate: Callable[[DecklistHand, bytes], None]) -> Callable[[MatchPeer], None]:
    """on_setup: corrupt the cheater's hand, and switch off its own core's check of its own
    SECRET_REVEAL (which would refuse the lie: the same checks run both ways)."""

    def on_setup(peer: MatchPeer) -> None:
        assert peer._hand is not None and peer.core is not None
        mutate(peer._hand, peer.core.match_id)
        audit = peer.core.decklist
        assert audit is not None
        honest_secrets = audit.secrets

        def secrets(seat: int, parts: object, evidence: object) -> None:
            if seat != CHEATER:
                honest_secrets(seat, parts, evidence)  # type: ignore[arg-type]

        audit.secrets = secrets  # type: ignore[method-assign]

    return on_setup


async def test_duplicate_card_beyond_the_decklist_is_caught() -> None:
    deck = [IDS_ALL[0], IDS_ALL[0], IDS_ALL[2]]
    listed = Counter({IDS_ALL[0]: 1, IDS_ALL[2]: 1, IDS_ALL[20]: 1})

    def fake(hand: DecklistHand, match_id: bytes) -> None:
        hand.decklist = listed
        hand.commitment = decklist_commitment(match_id, CHEATER, listed, hand.salt)

    host = await run(lambda h, raw: h.send(raw), deck=deck, on_setup=lie_in_secrets(fake))
    assert_caught(host, errors.DuplicateCard)


async def test_draw_order_lie_is_caught() -> None:
    def swap(hand: DecklistHand, match_id: bytes) -> None:
        order = hand.draw_order._order
        order[0], order[1] = order[1], order[0]

    host = await run(lambda h, raw: h.send(raw), on_setup=lie_in_secrets(swap))
    report = assert_caught(host, errors.CommitmentMismatch)
    assert len(host.session.peer.fault.evidence) == 2  # the DRAW and the SECRET_REVEAL
    assert report.summary["fault"]["player"] == CHEATER


# --- shared pool: proofs ---------------------------------------------------------------------


def _scalar_plus_one(data: bytes) -> bytes:
    return encode_scalar((decode_scalar(data, "x") + 1) % L)


def _bad_shuffle(env: Envelope) -> list[object]:
    wire = [list(x) if isinstance(x, list) else x for x in env.body[0]]
    proof = list(wire[3])
    proof[3] = [_scalar_plus_one(proof[3][0]), *proof[3][1:]]
    wire[3] = proof
    return [wire]


def _bad_share(env: Envelope) -> list[object]:
    wire = list(env.body[0])
    wire[3] = [wire[3][0], _scalar_plus_one(wire[3][1])]
    return [wire, env.body[1]]


def _other_card(env: Envelope) -> list[object]:
    wire = list(env.body[0])
    wire[2] = next(c for c in IDS_ALL if c != wire[2])
    return [wire, env.body[1]]


@pytest.mark.parametrize(("kind", "change", "expected"), [
    (K.SHUFFLE, _bad_shuffle, CryptoProofError),
    (K.DRAW, _bad_share, CryptoProofError),
    (K.OPEN, _other_card, CardMismatchError),
], ids=["bad shuffle proof", "wrong decryption share", "reveal of another card"])
async def test_shared_pool_proof_lies_are_caught(kind: MessageKind, change: Callable,
                                                 expected: type) -> None:
    host = await run(at(kind, 0, resealed(body=change)), POOL_RULES, limit=20)
    assert_caught(host, expected)


# --- the clock -------------------------------------------------------------------------------


async def test_stall_past_the_clock_loses_on_time() -> None:
    rules = MatchRules(SMALL, DealMode.DECKLIST, clock_initial_ms=400, clock_increment_ms=0)

    async def stall(hostile: HostilePeer, raw: bytes) -> None:
        hostile.stall()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, rules)
            host = await hostile_match(a, HostilePeer(rules, at(K.ACTION, 1, stall)))
            nursery.cancel_scope.cancel()
    result = host.outcome.result
    assert result is not None and result.ending.value == "timeout" and result.winner == HONEST
    report = host.report()
    assert report.ok and report.summary["ending"] == "timeout", report.describe()
    assert (HONEST, "TIMEOUT_CLAIM") in chain_kinds(host.transcript())


# --- the CLI, once ---------------------------------------------------------------------------


async def test_versus_verify_names_the_cheater(tmp_path) -> None:
    import argparse

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, store=MatchStore(tmp_path),
                            config=SessionConfig(resume_window=0.3, linger=0.3,
                                                 channel=FAST_CHANNEL, narrate=False))
            host = await hostile_match(a, HostilePeer(tamper=at(
                K.ACTION, 0, resealed(body=with_body(1, bytes(32))))))
            nursery.cancel_scope.cancel()
    path = host.outcome.transcript_path
    assert path is not None and path.read_bytes() == host.transcript()
    out = io.StringIO()
    status = cmd_verify(argparse.Namespace(files=[str(path)], json=False, quiet=False,
                                           catalogue=None), out)
    text = out.getvalue()
    assert status == EXIT_VALID, text
    assert "state-hash-mismatch by seat 1 (player 2) (verified)" in text, text

