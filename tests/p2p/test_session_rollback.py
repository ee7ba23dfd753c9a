# A roll-back survives a restart (SPEC §4.11 race, §6.9 rollback.json). In the timeout race
# the late side drops its own crossing envelopes and rewrites its transcript without them; it
# must then never sign at those seqs again until the claim is in (its own automatic envelope
# there would be a second one on the same prefix: an equivocation to frame it with); after the
# claim, what it signs (its DISPUTE, its reveal) is on the claim's prefix, which SPEC §4.4 does
# not count as one. The transcript on disk no longer shows the branch, so a restarted program
# learns it only from rollback.json.
from __future__ import annotations

from pathlib import Path

import pytest

from tests.p2p.session_support import CATALOGUE
from tests.protocol.pair import Pair, master_secret, seat_zero_to_move
from versus.engine.versus42 import format_input
from versus.p2p.session import MatchSession
from versus.p2p.store import ROLLBACK_FILE, MatchFiles, MatchStore, SessionInfo, StoreError
from versus.protocol.match import MatchPeer
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.wire.envelope import MessageKind as K
from versus.protocol.wire.envelope import parse_envelope

TIMED = MatchRules(deal_mode=DealMode.DECKLIST, clock_initial_ms=1_000, clock_increment_ms=100)


def crossing(label_prefix: str) -> tuple[Pair, MatchPeer, list[bytes], list[bytes], str]:
    """Seat 0 is late: a recto summon (ACTION, OPEN) and a second ACTION cross the opponent's
    TIMEOUT_CLAIM and SECRET_REVEAL, which seat 0 has not received yet. Returns the pair, the
    late peer, its crossing envelopes, the claim and the pair's label."""
    pair = seat_zero_to_move(TIMED, label_prefix)
    late, claimant, label = pair.peers[0], pair.peers[1], pair.label
    claimant.claim_timeout(5_000)
    late.submit(next(a for a in late.legal_actions() if format_input(a).endswith("recto")), 5_001)
    assert late.my_turn
    late.submit(late.legal_actions()[0], 5_001)
    claim, crossed = claimant.outgoing(), late.outgoing()
    for raw in crossed:
        claimant.receive(raw, 5_002)
    return pair, late, crossed, claim, label


def crossed_claim() -> tuple[Pair, MatchPeer, list[bytes], str]:
    """`crossing`, then seat 0 receives the claim and rolls its three envelopes back."""
    pair, late, dropped, claim, label = crossing("rollback-restart")
    for raw in claim:
        late.receive(raw, 5_003)
    assert late.rolled_back == 1
    return pair, late, dropped, label


def saved_match(tmp_path: Path, late: MatchPeer, label: str) -> MatchFiles:
    """The late side's match directory as its session would have left it."""
    files = MatchStore(tmp_path).files(late.match_id)  # type: ignore[arg-type]
    files.create(master_secret(label, late.seat), SessionInfo("host", late.seat, "peer"))
    files.sync(late.transcript().records)
    files.close()
    return files


def test_restart_after_a_roll_back_keeps_the_dropped_branch(tmp_path) -> None:
    pair, late, dropped, label = crossed_claim()
    branch = late.dropped_branch
    assert branch == (parse_envelope(dropped[0]).seq, parse_envelope(dropped[-1]).seq)
    # live: its SECRET_REVEAL follows the claim, at the dropped ACTION's seq but on the claim's
    # prefix (before: it was skipped, and a claim crossing three envelopes went undisputed)
    reveal = [parse_envelope(raw) for raw in late.outgoing()]
    assert [e.kind for e in reveal] == [K.SECRET_REVEAL]
    assert reveal[0].seq in {parse_envelope(raw).seq for raw in dropped}
    assert reveal[0].prev_hash != parse_envelope(dropped[1]).hash
    files = saved_match(tmp_path, late, label)
    files.write_rollback(branch)  # type: ignore[arg-type]

    restored = MatchSession.restore(files, pair.ids[0], CATALOGUE)
    assert restored.peer.dropped_branch == branch
    assert restored.peer.seq == late.seq and restored.peer.outgoing() == []
    assert restored.peer.transcript_bytes() == late.transcript_bytes()


async def test_session_saves_the_dropped_branch_before_the_transcript_forgets_it(
        tmp_path, monkeypatch) -> None:
    _, late, dropped, claim, label = crossing("rollback-save")
    session = MatchSession(late, master_secret(label, 0), store=MatchStore(tmp_path), role="host")
    session._persist()  # as after every call into the peer
    files = session.files
    assert files is not None and files.read_rollback() is None
    assert files.read_transcript() == late.transcript_bytes()  # the branch is on disk
    for raw in claim:
        late.receive(raw, 5_003)
    real_sync = files.sync

    def crash_on_rewrite(records, *, rewrite=False, ours=True):  # type: ignore[no-untyped-def]
        if rewrite:
            raise StoreError("the program died here")
        real_sync(records, rewrite=rewrite, ours=ours)

    monkeypatch.setattr(files, "sync", crash_on_rewrite)
    with pytest.raises(StoreError, match="died here"):
        session._persist()
    assert files.read_rollback() == late.dropped_branch is not None  # saved first
    assert all(raw in files.read_transcript() for raw in dropped)  # not yet forgotten
    monkeypatch.setattr(files, "sync", real_sync)
    session._persist()  # the next call retries the rewrite
    assert files.read_transcript() == late.transcript_bytes()
    assert not any(raw in files.read_transcript() for raw in dropped)


def test_crash_between_saving_the_branch_and_rewriting_the_transcript(tmp_path) -> None:
    """rollback.json is on disk but the transcript still holds the branch: the branch is
    replayed as ours, and the claim (sent again on resume) rolls it back anew."""
    pair, late, crossed, claim, label = crossing("rollback-crash")
    files = saved_match(tmp_path, late, label)  # the transcript with the crossing envelopes
    branch = (parse_envelope(crossed[0]).seq, parse_envelope(crossed[-1]).seq)
    files.write_rollback(branch)
    restored = MatchSession.restore(files, pair.ids[0], CATALOGUE)
    assert restored.peer.seq == late.seq and restored.peer.dropped_branch is None
    for raw in claim:
        restored.peer.receive(raw, 5_003)
    assert restored.peer.dropped_branch == branch
    # nothing at the dropped seqs before the claim came back; its reveal after it
    assert [parse_envelope(raw).kind for raw in restored.peer.outgoing()] == [K.SECRET_REVEAL]


def test_rollback_file_contradicting_the_transcript_is_a_store_error(tmp_path) -> None:
    pair, late, _, label = crossed_claim()
    files = saved_match(tmp_path, late, label)
    first = next(i for i, raw in enumerate(late.transcript().envelopes)
                 if parse_envelope(raw).sender != late.seat)  # not a claim
    files.write_rollback((first, first + 1))
    with pytest.raises(StoreError, match="does not start at the peer's timeout claim"):
        MatchSession.restore(files, pair.ids[0], CATALOGUE)


def test_rollback_file_round_trips(tmp_path) -> None:
    files = MatchStore(tmp_path).files(bytes(32))
    files.create(bytes(32), SessionInfo("join", 1, "peer"))
    assert files.read_rollback() is None
    files.write_rollback((10, 12))
    assert files.read_rollback() == (10, 12)


@pytest.mark.parametrize("content", [
    b"not json", b"[]", b'{"format": "versus-clock/1", "from": 1, "up_to": 2}',
    b'{"format": "versus-rollback/1", "from": 5, "up_to": 4}',
    b'{"format": "versus-rollback/1", "from": -1, "up_to": 4}',
    b'{"format": "versus-rollback/1", "from": true, "up_to": 4}',
    b'{"format": "versus-rollback/1", "from": 1}',
    b"x" * 70_000, b"[" * 60_000,
])
def test_malformed_rollback_file_is_a_store_error(tmp_path, content: bytes) -> None:
    files = MatchStore(tmp_path).files(bytes(32))
    files.create(bytes(32), SessionInfo("join", 1, "peer"))
    (files.directory / ROLLBACK_FILE).write_bytes(content)
    with pytest.raises(StoreError, match=ROLLBACK_FILE):
        files.read_rollback()
