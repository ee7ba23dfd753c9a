# Our envelopes reach the disk (fsync) before they are queued for sending: after a power cut the
# transcript still holds every envelope the peer may have seen, so a restored peer regenerates
# exactly those and never signs another at their seqs.
from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio

from tests.p2p.session_support import HashBot, MemLink, make_sessions
from tests.protocol.support import make_hellos, make_players, make_setup, play
from versus.cli.driving import drive_player
from versus.p2p.session import MatchSession, open_nursery
from versus.p2p.store import MatchFiles, SessionInfo
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.wire.envelope import MessageKind, parse_envelope
from versus.protocol.wire.transcript import encode_record

SECRET = bytes(range(32))


class FsyncLog:
    """Stands in for os.fsync: does the real one, then notes each file's size at that moment."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[Path, int]] = []
        self._real = os.fsync
        monkeypatch.setattr(os, "fsync", self)

    def __call__(self, fd: int) -> None:
        self._real(fd)
        self.calls.append((Path(os.readlink(f"/proc/self/fd/{fd}")), os.fstat(fd).st_size))

    def synced_size(self, path: Path) -> int:
        """How many bytes of `path` the last fsync of it covered (0: never synced)."""
        sizes = [size for p, size in self.calls if p == path]
        return sizes[-1] if sizes else 0


pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="finds the fsync'ed file through /proc")


def _records() -> list[bytes]:
    """Two HELLOs and four chain envelopes, seats 0, 1, 0, 1."""
    players = make_players()
    return [h.raw for h in make_hellos(players)] + [
        e.raw for e in play(make_setup(players), players, 4)]


def test_creating_the_match_files_fsyncs_the_directory_once_for_all_of_them(tmp_path,
                                                                            monkeypatch):
    log = FsyncLog(monkeypatch)
    files = MatchFiles(tmp_path / "m")
    files.create(SECRET, SessionInfo("join", 1, "fingerprint"))
    # the secret's and session.json's temporary files, then the directory once: the three
    # names (the transcript's too) survive a power cut with one directory fsync, not three
    assert [p.parent for p, _ in log.calls] == [files.directory] * 2 + [tmp_path]
    assert log.calls[-1][0] == files.directory
    assert files.transcript_path.exists() and (files.directory / "secret").read_bytes() == SECRET
    files.close()


def test_creating_the_match_files_with_the_first_records_makes_them_durable_in_one_flight(
        tmp_path, monkeypatch):
    # the session hands the records it holds (its first envelope of ours among them) to
    # `create`: fsync'ed with the secret and session.json, so the append needs no fsync of its own
    records = _records()
    log = FsyncLog(monkeypatch)
    files = MatchFiles(tmp_path / "m")
    files.create(SECRET, SessionInfo("host", 0, "fingerprint"), records[:3])
    path = files.transcript_path
    assert log.synced_size(path) == path.stat().st_size
    assert path.read_bytes().endswith(encode_record(records[2]))
    assert log.calls[-1][0] == files.directory  # the names, once, after every file
    assert sum(p.parent == files.directory for p, _ in log.calls) == 3
    calls = len(log.calls)
    files.sync(records[:3])  # what create wrote: nothing new to append or fsync
    assert len(log.calls) == calls
    files.sync(records[:4])
    assert log.calls[-1] == (path, path.stat().st_size)
    files.close()


def test_an_append_with_our_envelope_is_fsynced_before_sync_returns(tmp_path, monkeypatch):
    records = _records()
    files = MatchFiles(tmp_path / "m")
    files.create(SECRET, SessionInfo("join", 1, "fingerprint"))
    log = FsyncLog(monkeypatch)
    path = files.transcript_path

    files.sync(records[:2])  # both HELLOs, ours among them: the file (create synced its name)
    assert log.calls == [(path, path.stat().st_size)]
    files.sync(records[:3], ours=False)  # the peer's alone: resent on resume if lost, no fsync
    assert len(log.calls) == 1
    files.sync(records[:4])  # ours: on disk, with everything before it, when sync returns
    assert log.calls[-1] == (path, path.stat().st_size) and len(log.calls) == 2
    assert path.read_bytes().endswith(encode_record(records[3]))
    files.sync(records[:6])  # the peer's and ours in one append: one fsync covers both
    assert log.calls[-1] == (path, path.stat().st_size) and len(log.calls) == 3
    files.close()


def test_durable_files_and_files_of_an_unknown_seat_fsync_every_append(tmp_path, monkeypatch):
    records = _records()
    log = FsyncLog(monkeypatch)
    for name, durable in (("durable", True), ("unknown-seat", False)):
        files = MatchFiles(tmp_path / name, durable=durable)
        files.directory.mkdir()
        if durable:
            files.create(SECRET, SessionInfo("host", 0, "fingerprint"))
        log.calls.clear()
        for n in (2, 3, 4, 5):  # seat 0's HELLO, then envelopes of seats 0, 1, 0
            files.sync(records[:n])
        file_calls = [size for p, size in log.calls if p == files.transcript_path]
        assert len(file_calls) == 4 and file_calls[-1] == files.transcript_path.stat().st_size
        files.close()


def test_a_restored_side_fsyncs_only_appends_of_its_own(tmp_path, monkeypatch):
    records = _records()
    MatchFiles(tmp_path / "m").create(SECRET, SessionInfo("host", 0, "fingerprint"))
    files = MatchFiles(tmp_path / "m")  # as MatchStore.find gives it after a restart
    assert files.read_info().seat == 0
    files.sync(records[:4], rewrite=True)  # MatchSession.restore: atomic, fsync'ed
    log = FsyncLog(monkeypatch)
    files.sync(records[:5], ours=True)  # seat 0's: fsync'ed
    files.sync(records[:6], ours=False)  # seat 1's: not
    assert [p for p, _ in log.calls] == [files.transcript_path]
    files.close()


async def test_every_envelope_of_ours_is_on_disk_before_it_is_queued(tmp_path, monkeypatch):
    """A whole match between two sessions with match directories: at the moment each chain
    envelope enters a send queue, the last fsync of its sender's transcript covered it."""
    log = FsyncLog(monkeypatch)
    dirs = (tmp_path / "host", tmp_path / "join")
    checked = [0, 0]
    real_send_nowait = trio.MemorySendChannel.send_nowait

    def send_nowait(channel: trio.MemorySendChannel, value: object) -> None:
        if isinstance(value, bytes):
            envelope = parse_envelope(value)
            if envelope.kind is not MessageKind.HELLO:  # sent before the match id exists
                seat = envelope.sender
                path = dirs[seat] / envelope.match_id.hex() / "transcript.vtr"
                synced = path.read_bytes()[:log.synced_size(path)]
                assert encode_record(value) in synced, f"seq {envelope.seq} queued unsynced"
                checked[seat] += 1
        real_send_nowait(channel, value)

    monkeypatch.setattr(trio.MemorySendChannel, "send_nowait", send_nowait)
    sessions = make_sessions(MatchRules(deal_mode=DealMode.DECKLIST), "durable", dirs=dirs)
    with trio.fail_after(30):
        await _play(sessions, MemLink())
    assert all(s.done for s in sessions)
    assert min(checked) >= 5  # setup, deck commits, actions and the result, on both sides
    for seat, session in enumerate(sessions):
        assert session.peer.core is not None
        assert checked[seat] == sum(e.sender == seat for e in session.peer.core.chain.envelopes)


async def _play(sessions: list[MatchSession], link: MemLink) -> None:
    host_channel, join_channel = await link.first(sessions)
    async with open_nursery() as nursery:
        nursery.start_soon(sessions[0].run, host_channel, link.host_reconnect)
        nursery.start_soon(sessions[1].run, join_channel, link.join_reconnect)
        for session in sessions:
            nursery.start_soon(drive_player, session, HashBot())
