from __future__ import annotations

import pytest

from tests.protocol.support import make_players, make_rng, make_setup, play
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import (
    BadSignature,
    Equivocation,
    LocalProtocolError,
    PrevHashMismatch,
    Replay,
    SequenceConflict,
    SequenceGap,
    WrongMatch,
)
from versus.protocol.wire.chain import Chain
from versus.protocol.wire.envelope import MessageKind, seal

PLAYERS = make_players()
SETUP = make_setup(PLAYERS)


def fed_chain(envelopes) -> Chain:
    chain = SETUP.new_chain()
    for envelope in envelopes:
        chain.receive(envelope.raw)
    return chain


def test_both_seats_interleave_and_both_sides_agree():
    envelopes = play(SETUP, PLAYERS, 6)
    chain = fed_chain(envelopes)
    assert [e.seq for e in chain.envelopes] == list(range(6))
    assert [e.sender for e in chain.envelopes] == [0, 1, 0, 1, 0, 1]
    assert chain.envelopes[0].prev_hash == SETUP.genesis == chain.genesis
    for earlier, later in zip(chain.envelopes, chain.envelopes[1:], strict=False):
        assert later.prev_hash == earlier.hash
    assert chain.head == envelopes[-1].hash
    assert chain.next_seq == len(chain) == 6


def test_seal_at_head_is_received_by_the_other_side():
    mine, theirs = SETUP.new_chain(), SETUP.new_chain()
    for turn in range(3):
        envelope = mine.seal(PLAYERS[turn % 2], MessageKind.CHOICE, [turn])
        assert theirs.receive(envelope.raw) == envelope
    assert mine.head == theirs.head


def test_replay_is_rejected_without_blame():
    envelopes = play(SETUP, PLAYERS, 3)
    chain = fed_chain(envelopes)
    with pytest.raises(Replay) as info:
        chain.receive(envelopes[1].raw)
    assert info.value.evidence == (envelopes[1].raw,)
    assert info.value.player is None


def test_gap_is_rejected():
    envelopes = play(SETUP, PLAYERS, 4)
    chain = fed_chain(envelopes[:2])
    with pytest.raises(SequenceGap, match="seq 3") as info:
        chain.receive(envelopes[3].raw)
    assert info.value.player == 1


def test_equivocation_keeps_both_envelopes():
    envelopes = play(SETUP, PLAYERS, 3)
    chain = fed_chain(envelopes)
    second = seal(PLAYERS[1], match_id=SETUP.match_id, seq=1, prev_hash=envelopes[0].hash,
                  sender=1, kind=MessageKind.ACTION, body=["something else"])
    with pytest.raises(Equivocation) as info:
        chain.receive(second.raw)
    assert info.value.evidence == (envelopes[1].raw, second.raw)
    assert info.value.player == 1
    assert info.value.attributable


def _after_a_claim_race() -> tuple[Chain, list, object]:
    """Seat 1 signed seqs 2 and 3 on its own branch; seat 0's TIMEOUT_CLAIM took seq 2 and
    seat 1 carried on after the claim (a roll-back, SPEC §4.11): its DISPUTE at seq 3."""
    envelopes = play(SETUP, PLAYERS, 2)
    mine = fed_chain(envelopes)  # seat 1's own branch
    dropped = [mine.seal(PLAYERS[1], MessageKind.ACTION, [n]) for n in range(2)]
    chain = fed_chain(envelopes)
    chain.seal(PLAYERS[0], MessageKind.TIMEOUT_CLAIM, [1, 60_000, 60_000])
    dispute = chain.seal(PLAYERS[1], MessageKind.DISPUTE, [b"x" * 32, 1, 59_000])
    return chain, dropped, dispute


def test_a_dropped_branch_after_the_other_seat_s_claim_is_no_equivocation():
    """Seat 1's dropped envelope at its DISPUTE's seq was signed on another prefix, after seat
    0's claim: a fork the claim made, not seat 1's equivocation (no one to blame)."""
    chain, dropped, dispute = _after_a_claim_race()
    assert dropped[1].seq == dispute.seq == 3
    with pytest.raises(SequenceConflict, match="another prefix") as info:
        chain.receive(dropped[1].raw)
    assert not info.value.attributable
    assert info.value.evidence == (dispute.raw, dropped[1].raw)


def test_a_dropped_envelope_after_its_sender_s_head_is_not_attributable_after_a_claim():
    chain, dropped, _dispute = _after_a_claim_race()
    later = SETUP.new_chain()
    for envelope in play(SETUP, PLAYERS, 2):
        later.receive(envelope.raw)
    for envelope in dropped:
        later.receive(envelope.raw)
    third = later.seal(PLAYERS[1], MessageKind.ACTION, [2])  # seq 4, after seat 1's seq 3
    with pytest.raises(PrevHashMismatch) as info:
        chain.receive(third.raw)
    assert not info.value.attributable and info.value.player is None


def test_same_prefix_twice_is_an_equivocation_even_after_a_claim():
    """The exemption is for another prefix only: seat 1 signing two envelopes on the same
    prefix after the claim (its DISPUTE and a concession, say) is still its equivocation."""
    chain, _dropped, dispute = _after_a_claim_race()
    twin = seal(PLAYERS[1], match_id=SETUP.match_id, seq=dispute.seq,
                prev_hash=dispute.prev_hash, sender=1, kind=MessageKind.SECRET_REVEAL, body=[])
    with pytest.raises(Equivocation) as info:
        chain.receive(twin.raw)
    assert info.value.attributable and info.value.player == 1


def test_same_seq_from_the_other_seat_is_a_conflict():
    envelopes = play(SETUP, PLAYERS, 2)
    chain = fed_chain(envelopes)
    racing = seal(PLAYERS[0], match_id=SETUP.match_id, seq=1, prev_hash=envelopes[0].hash,
                  sender=0, kind=MessageKind.RESIGN, body=[])
    with pytest.raises(SequenceConflict) as info:
        chain.receive(racing.raw)
    assert info.value.evidence == (envelopes[1].raw, racing.raw)


def test_wrong_prev_hash_is_rejected():
    envelopes = play(SETUP, PLAYERS, 2)
    chain = fed_chain(envelopes)
    forked = seal(PLAYERS[0], match_id=SETUP.match_id, seq=2, prev_hash=envelopes[0].hash,
                  sender=0, kind=MessageKind.ACTION, body=[])
    with pytest.raises(PrevHashMismatch) as info:
        chain.receive(forked.raw)
    # the head is seat 1's: seat 1 may have swapped it after seat 0 built on the first one
    assert info.value.player is None and not info.value.attributable
    assert info.value.evidence == (forked.raw,)


def test_wrong_prev_hash_over_the_senders_own_head_is_attributable():
    envelopes = play(SETUP, PLAYERS, 2)
    chain = fed_chain(envelopes)
    forked = seal(PLAYERS[1], match_id=SETUP.match_id, seq=2, prev_hash=envelopes[0].hash,
                  sender=1, kind=MessageKind.ACTION, body=[])
    with pytest.raises(PrevHashMismatch) as info:
        chain.receive(forked.raw)
    assert info.value.player == 1 and info.value.attributable


def test_envelope_of_another_match_between_the_same_players_is_rejected():
    other_setup = make_setup(PLAYERS, label="another match")
    assert other_setup.match_id != SETUP.match_id
    foreign = play(other_setup, PLAYERS, 1)[0]
    with pytest.raises(WrongMatch):
        SETUP.new_chain().receive(foreign.raw)


def test_hello_inside_the_chain_is_rejected():
    hello = seal(PLAYERS[0], match_id=SETUP.match_id, seq=0, prev_hash=SETUP.genesis, sender=0,
                 kind=MessageKind.HELLO, body=[])
    with pytest.raises(WrongMatch, match="HELLO"):
        SETUP.new_chain().receive(hello.raw)
    with pytest.raises(LocalProtocolError, match="HELLO"):
        SETUP.new_chain().seal(PLAYERS[0], MessageKind.HELLO, [])


def test_chain_refuses_everything_after_an_error():
    envelopes = play(SETUP, PLAYERS, 3)
    chain = fed_chain(envelopes[:1])
    with pytest.raises(SequenceGap):
        chain.receive(envelopes[2].raw)
    assert chain.error is not None and chain.error.code == "sequence-gap"
    with pytest.raises(LocalProtocolError, match="closed after sequence-gap"):
        chain.receive(envelopes[1].raw)
    with pytest.raises(LocalProtocolError):
        chain.seal(PLAYERS[1], MessageKind.ACTION, [])
    assert len(chain) == 1


def test_seal_by_a_stranger_is_our_bug():
    stranger = Identity.generate(make_rng("stranger"))
    with pytest.raises(LocalProtocolError, match="not a player"):
        SETUP.new_chain().seal(stranger, MessageKind.ACTION, [])


def test_a_stranger_cannot_inject():
    stranger = Identity.generate(make_rng("stranger"))
    forged = seal(stranger, match_id=SETUP.match_id, seq=0, prev_hash=SETUP.genesis, sender=1,
                  kind=MessageKind.RESIGN, body=[])
    chain = SETUP.new_chain()
    with pytest.raises(BadSignature):
        chain.receive(forged.raw)
