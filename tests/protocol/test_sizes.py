# Per-kind envelope caps (SPEC §4.11 Sizes) and the claims that keep a seat from stalling
# (SPEC §4.11 Timeout): honest envelopes always fit their caps, the caps are tight where they
# grow (SHUFFLE with the pool), and every cap leaves room for an EVIDENCE quoting it.
from __future__ import annotations

import pytest

from tests.protocol.pair import Pair, play, rules_for
from versus.engine.versus42 import Ruleset, default_catalogue
from versus.protocol import errors
from versus.protocol.match import AUTOMATIC_GRACE_MS, MatchPeer, Phase
from versus.protocol.match.core import _size_caps
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.verify import verify_transcript
from versus.protocol.wire.envelope import (
    MAX_ENVELOPE_SIZE,
    MAX_MESSAGE_SIZE,
    MessageKind,
    parse_envelope,
)

K = MessageKind


@pytest.mark.parametrize("mode", [DealMode.DECKLIST, DealMode.SHARED_POOL])
def test_honest_envelopes_fit_their_caps(mode: DealMode) -> None:
    catalogue = default_catalogue()
    caps = _size_caps(rules_for(mode), catalogue)
    largest: dict[MessageKind, int] = {}
    for seed in range(2):
        for raw in play(mode, label=f"sizes/{seed}", seed=seed).transcript(0).envelopes:
            kind = parse_envelope(raw).kind
            largest[kind] = max(largest.get(kind, 0), len(raw))
    for kind, size in largest.items():
        assert size <= caps[kind], (kind, size, caps[kind])
    if mode is DealMode.SHARED_POOL:
        assert caps[K.SHUFFLE] - largest[K.SHUFFLE] < 128  # sized to the pool, not generous


def test_every_cap_leaves_room_for_the_evidence() -> None:
    catalogue = default_catalogue()
    for mode in DealMode:
        rules = MatchRules(Ruleset(deck_size=21), mode)
        caps = _size_caps(rules, catalogue)
        assert caps[K.EVIDENCE] == MAX_ENVELOPE_SIZE
        assert all(cap <= MAX_MESSAGE_SIZE for kind, cap in caps.items() if kind is not K.EVIDENCE)


def _setup_stalled(rules: MatchRules) -> Pair:
    """Seat 0 never sends its COMMIT (the wire drops it)."""
    pair = Pair(rules, label="sizes/stall",
                tamper=lambda seat, raw: None if seat == 0 and parse_envelope(raw).kind is K.COMMIT
                else raw)
    pair.start()
    pair.deliver(now_ms=0, choose=False)
    return pair


def test_a_claim_against_a_seat_that_signed_nothing_credits_no_one() -> None:
    """Seat 0 stalls its first COMMIT: it never signed anything bound to this match (its HELLO
    could be a copy from another match), so seat 1's claim, valid after the grace, wins nothing
    (SPEC §4.11: a result needs both seats' signatures after the match id)."""
    pair = _setup_stalled(MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=60_000,
                                     clock_increment_ms=0))
    waiting = pair.peers[1]
    assert waiting.phase is Phase.COMMIT_0 and waiting.claim_deadline_ms == AUTOMATIC_GRACE_MS
    with pytest.raises(errors.LocalProtocolError):
        waiting.claim_timeout(AUTOMATIC_GRACE_MS - 1)
    waiting.claim_timeout(AUTOMATIC_GRACE_MS)
    assert waiting.result is not None and waiting.result.winner is None
    assert waiting.phase is Phase.CLOSED  # a claim in setup: nothing was dealt, nothing to reveal
    report = verify_transcript(waiting.transcript())
    assert report.ok and report.summary["ending"] == "timeout", report.describe()
    assert report.summary["result"]["winner"] is None


def test_without_a_clock_no_claim_is_possible() -> None:
    pair = _setup_stalled(MatchRules(deal_mode=DealMode.DECKLIST))
    waiting: MatchPeer = pair.peers[1]
    assert waiting.claim_deadline_ms is None
    with pytest.raises(errors.LocalProtocolError):
        waiting.claim_timeout(10 ** 9)
    report = verify_transcript(waiting.transcript())
    assert not report.ok and report.check == "incomplete" and report.player == 0
