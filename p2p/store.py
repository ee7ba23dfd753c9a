# Match directories on disk: what a session keeps so that a match survives a dropped
# connection or a restarted program (SPEC §6.9).
#
#   $XDG_DATA_HOME/versus/matches/<our fingerprint>/<match id hex>/   (else ~/.local/share/...;
#       the older layout, still read to resume, had no <our fingerprint>/ level)
#       secret          the per-match master secret (32 bytes from `secrets`), mode 0600: the
#                       MatchPeer's rng is master_rng(secret), so with the transcript it rebuilds
#                       the peer exactly (MatchPeer.restore)
#       transcript.vtr  the transcript (SPEC §4.10), appended record by record as it grows
#       session.json    how to reach the peer again: role, address, port, fingerprints, deck
#       clock.json      timed matches: the last clock reading (remaining ms per seat, the
#                       running seat, the wall-clock time it started running, the chain length),
#                       rewritten at every change: envelopes carry no times, so this is what
#                       a restarted program resumes the clocks from (SPEC §6.7)
#       rollback.json   after a roll-back (the timeout race): the seqs of our dropped branch,
#                       which the rewritten transcript no longer shows and at which a
#                       restarted program must never sign again (SPEC §4.11)
#
# Ordering is what makes it safe: the secret and session.json are written (temporary file,
# fsync, rename) before the first chain envelope is sent, and every envelope of ours is appended
# to the transcript before it goes on the wire, so a restarted program never signs a second,
# different envelope for a seq it already sent (an equivocation). The peer's envelopes are
# appended as they are accepted; one lost in a crash is simply sent again on resume. Appends
# are written through to the OS (a crashed process loses nothing), and an append that holds an
# envelope of ours (the session says so: it is about to queue it) is fsync'ed before `sync`
# returns, so before the session queues it for
# sending: after a power cut the file still has every envelope the peer may have seen (the
# fsync covers the peer's envelopes before it too). Appends of the peer's envelopes alone are
# fsync'ed when the match ends, or at every append with `durable=True`.
# When our own last envelopes are rolled back (the timeout race, SPEC §4.11) rollback.json is
# written (fsync, rename) first, then the transcript is rewritten atomically.
#
# Everything read back is untrusted: sizes are bounded and each problem is a StoreError naming
# the file.
from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from versus.p2p.errors import TransportError
from versus.protocol.wire.transcript import encode_record, transcript_header

SECRET_SIZE = 32
SECRET_FILE = "secret"
TRANSCRIPT_FILE = "transcript.vtr"
SESSION_FILE = "session.json"
CLOCK_FILE = "clock.json"
ROLLBACK_FILE = "rollback.json"
MAX_SESSION_FILE = 64 * 1024
_MATCH_ID_HEX = re.compile(r"^[0-9a-f]{64}$")
T = TypeVar("T")  # what a JSON file parser returns (_parse_json)


class StoreError(TransportError):
    """A match directory or one of its files is missing, unreadable or malformed."""


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_DATA_HOME/versus`, else `~/.local/share/versus` (XDG base directory spec)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME", "")
    if not base or not os.path.isabs(base):
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "share")
    return Path(base) / "versus"


def default_matches_dir() -> Path:
    return data_dir() / "matches"


def new_master_secret() -> bytes:
    return secrets.token_bytes(SECRET_SIZE)


def parse_match_id(text: str) -> str:
    """A match id as given on a command line: 64 hex digits (a unique prefix is resolved by
    `MatchStore.find`). Returns it lower-cased."""
    text = text.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{4,64}", text):
        raise StoreError(f"match id {text[:80]!r} is not hexadecimal (4 to 64 digits)")
    return text


def _read_small(path: Path, *, missing_ok: bool = False) -> bytes | None:
    """A JSON file of ours (at most MAX_SESSION_FILE bytes); None when it does not exist and
    `missing_ok`, else a StoreError naming the file."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_SESSION_FILE + 1)
    except OSError as error:
        if missing_ok and isinstance(error, FileNotFoundError):
            return None
        raise StoreError(f"cannot read {path} ({error.strerror or error})") from None
    if len(data) > MAX_SESSION_FILE:
        raise StoreError(f"{path} is larger than {MAX_SESSION_FILE} bytes")
    return data


def _parse_json(data: bytes, file_format: str, path: Path, read: Callable[[dict[str, Any]], T],
                hint: str = "") -> T:
    """One of our JSON files: an object with `"format": file_format` that `read` turns into a
    value (raising ValueError, KeyError or TypeError on a bad field); anything wrong is a
    StoreError naming the file."""
    try:
        obj = json.loads(data)
        if not isinstance(obj, dict) or obj.get("format") != file_format:
            raise ValueError(f"not a {file_format} file")
        return read(obj)
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as error:
        raise StoreError(f"{path} is malformed ({error}){hint}") from None


def _branch_from_object(obj: dict[str, Any]) -> tuple[int, int]:
    first, last = obj["from"], obj["up_to"]
    if type(first) is not int or type(last) is not int or not 0 <= first <= last < 2**32:
        raise ValueError("from and up_to must be seqs with from <= up_to")
    return first, last


def _write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    _write_atomic_group({path: data}, mode)


def _write_atomic_group(files: Mapping[Path, bytes], mode: int = 0o600, *,
                        sync_directory: bool = True, also: Sequence[int] = ()) -> None:
    """Replace each file atomically (temporary file, fsync, rename), then fsync their directory
    once (all of `files` are in one directory): each name is durable when this returns. `also`:
    open files fsync'ed in the same flight as the temporary ones."""
    written: list[tuple[Path, Path]] = []  # (temporary file, final name)
    fds: list[int] = []
    try:
        for path, data in files.items():
            tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
            fds.append(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
            written.append((tmp, path))
            _write_all(fds[-1], data)
        _fsync_together([*fds, *also])
        for fd in fds:
            os.close(fd)
        fds.clear()
        for tmp, path in written:
            os.replace(tmp, path)
    except BaseException:
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        for tmp, _ in written:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    if sync_directory and files:
        _sync_directory(next(iter(files)).parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


#: the threads `_fsync_together` waits on (created on first use: most commands never write)
_FSYNC_POOL: ThreadPoolExecutor | None = None


def _fsync_together(fds: Sequence[int]) -> None:
    """fsync every file of `fds`, all at once: one waits for the disk about as long as several
    (the file system commits them in one journal flush), so a flight of files costs one fsync
    of latency, not one per file; each file is durable when this returns."""
    global _FSYNC_POOL
    if len(fds) < 2:
        for fd in fds:
            os.fsync(fd)
        return
    if _FSYNC_POOL is None:
        _FSYNC_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="versus-fsync")
    pending = [_FSYNC_POOL.submit(os.fsync, fd) for fd in fds]
    wait(pending)  # every one, even after a failure: the caller closes these descriptors next
    for done in pending:
        done.result()  # re-raises the OSError of a failed fsync


def _forget_fsync_pool() -> None:
    # a forked child (a tournament worker) has none of the parent's threads: a pool it
    # inherited would queue work no thread runs
    global _FSYNC_POOL
    _FSYNC_POOL = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_fsync_pool)


def _sync_directory(directory: Path) -> None:
    """fsync a directory so a rename in it survives a power cut (POSIX; elsewhere a no-op)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class SessionInfo:
    """session.json: what a restarted program needs to reach the peer again."""

    role: str  # "host" (listens) or "join" (dials)
    seat: int
    peer_fingerprint: str
    address: str = ""  # join: the host's HOST:PORT as dialled
    port: int = 0  # host: the port it listened on
    deck: tuple[str, ...] | None = None  # decklist mode: the deck we brought, if chosen

    def to_json(self) -> bytes:
        return json.dumps({"format": "versus-session/1", "role": self.role, "seat": self.seat,
                           "peer_fingerprint": self.peer_fingerprint, "address": self.address,
                           "port": self.port,
                           "deck": None if self.deck is None else list(self.deck)},
                          indent=1).encode()

    @classmethod
    def from_json(cls, data: bytes, path: Path) -> SessionInfo:
        return _parse_json(data, "versus-session/1", path, cls._from_object,
                           "; the match cannot be resumed from it")

    @classmethod
    def _from_object(cls, obj: dict[str, Any]) -> SessionInfo:
        role, seat, deck = obj["role"], obj["seat"], obj.get("deck")
        if role not in ("host", "join") or seat not in (0, 1):
            raise ValueError("role must be host/join and seat 0/1")
        if deck is not None and not (isinstance(deck, list)
                                     and all(isinstance(c, str) for c in deck)):
            raise ValueError("deck must be a list of card ids")
        port = obj.get("port", 0)
        if type(port) is not int or not 0 <= port <= 65535:
            raise ValueError("port must be 0..65535")
        return cls(role, seat, str(obj["peer_fingerprint"]), str(obj.get("address", "")),
                   port, None if deck is None else tuple(deck))


@dataclass(frozen=True)
class ClockReading:
    """clock.json: the clocks as of chain length `seq`. `running` (a seat or None) has been
    running since the wall-clock time `since` (time.time()); `remaining_ms` is as of then."""

    seq: int
    remaining_ms: tuple[int, int]
    running: int | None
    since: float

    def to_json(self) -> bytes:
        return json.dumps({"format": "versus-clock/1", "seq": self.seq,
                           "remaining_ms": list(self.remaining_ms), "running": self.running,
                           "since": self.since}).encode()

    @classmethod
    def from_json(cls, data: bytes, path: Path) -> ClockReading:
        return _parse_json(data, "versus-clock/1", path, cls._from_object)

    @classmethod
    def _from_object(cls, obj: dict[str, Any]) -> ClockReading:
        seq, left, running, since = (obj["seq"], obj["remaining_ms"], obj["running"],
                                     obj["since"])
        if type(seq) is not int or seq < 0:
            raise ValueError("seq must be a non-negative integer")
        if (type(left) is not list or len(left) != 2
                or any(type(v) is not int or abs(v) > 10**10 for v in left)):
            raise ValueError("remaining_ms must be two integers")
        if running not in (None, 0, 1) or type(running) is bool:
            raise ValueError("running must be 0, 1 or null")
        if type(since) not in (int, float) or not 0 <= since < 10**11:
            raise ValueError("since must be a time in seconds")
        return cls(seq, (left[0], left[1]), running, float(since))


class MatchFiles:
    """One match directory: the secret, the growing transcript and session.json."""

    def __init__(self, directory: Path, *, durable: bool = False) -> None:
        self.directory = directory
        self.durable = durable
        self._file: Any = None
        self._records = 0  # records (HELLOs included) in the transcript file
        self._entry_synced = False  # the directory fsync'ed since the transcript file exists

    @property
    def transcript_path(self) -> Path:
        return self.directory / TRANSCRIPT_FILE

    @property
    def match_id(self) -> str:
        return self.directory.name

    # --- creation ---------------------------------------------------------------------------

    def create(self, secret: bytes, info: SessionInfo, records: Sequence[bytes] = ()) -> None:
        """Make the directory (0700), write the secret and session.json atomically and start
        the transcript file (its header, then `records`: the envelopes the match holds so far):
        one flight of files, fsync'ed all at once, then the directory once for all three names
        (SPEC §6.9). Handing the first records here saves the append's own fsync after it."""
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            started: list[int] = []  # the transcript, when it holds records to make durable
            if self._file is None and not self.transcript_path.exists():
                self._open_transcript()
                if records:
                    self._file.write(b"".join(encode_record(raw) for raw in records))
                    self._records = len(records)
                    started.append(self._file.fileno())
            _write_atomic_group({self.directory / SECRET_FILE: secret,
                                 self.directory / SESSION_FILE: info.to_json()},
                                sync_directory=False, also=started)
            _sync_directory(self.directory)
            self._entry_synced = self._file is not None
        except OSError as error:
            raise StoreError(f"cannot write the match files in {self.directory} "
                             f"({error.strerror or error}); check the data directory") from None

    def write_clock(self, reading: ClockReading) -> None:
        """Replace clock.json (rename, no fsync unless durable: a reading lost in a power cut
        only makes the restored clocks a little generous)."""
        path = self.directory / CLOCK_FILE
        tmp = path.with_name(f".{CLOCK_FILE}.tmp")
        try:
            if self.durable:
                _write_atomic(path, reading.to_json())
                return
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as file:
                file.write(reading.to_json())
            os.replace(tmp, path)
        except OSError as error:
            raise StoreError(f"cannot write {path} ({error.strerror or error})") from None

    def read_clock(self) -> ClockReading | None:
        """The last clock reading; None when there is none (an untimed match, or older
        files)."""
        path = self.directory / CLOCK_FILE
        data = _read_small(path, missing_ok=True)
        return None if data is None else ClockReading.from_json(data, path)

    def write_rollback(self, branch: tuple[int, int]) -> None:
        """Record the dropped branch (first seq, highest seq we signed) before the transcript
        loses it: always fsync'ed, since forgetting it could make a restart equivocate."""
        path = self.directory / ROLLBACK_FILE
        data = json.dumps({"format": "versus-rollback/1", "from": branch[0],
                           "up_to": branch[1]}).encode()
        try:
            _write_atomic(path, data)
        except OSError as error:
            raise StoreError(f"cannot write {path} ({error.strerror or error})") from None

    def read_rollback(self) -> tuple[int, int] | None:
        """The dropped branch rollback.json records; None when nothing was rolled back."""
        path = self.directory / ROLLBACK_FILE
        data = _read_small(path, missing_ok=True)
        if data is None:
            return None
        return _parse_json(data, "versus-rollback/1", path, _branch_from_object)

    # --- the transcript ---------------------------------------------------------------------

    def sync(self, records: Sequence[bytes], *, rewrite: bool = False, ours: bool = True
             ) -> None:
        """Make the file hold exactly `records` (HELLOs first): append the new ones, or rewrite
        it atomically when `rewrite` (our rolled-back envelopes must disappear). `ours`: the new
        records hold an envelope of ours (the caller knows: it is about to send it); then they
        are on disk (fsync) when this returns. The peer's alone wait for the end of the match."""
        try:
            if rewrite or (self._file is None and self.transcript_path.exists()):
                self._rewrite(records)
                return
            if self._file is None:
                self._open_transcript()
            new = records[self._records:]
            if new:
                self._file.write(b"".join(encode_record(raw) for raw in new))
                self._records = len(records)
                if self.durable or ours:
                    os.fsync(self._file.fileno())
                    if not self._entry_synced:  # the file's name must survive a power cut too
                        _sync_directory(self.directory)
                        self._entry_synced = True
        except OSError as error:
            raise StoreError(f"cannot write the transcript {self.transcript_path} "
                             f"({error.strerror or error}); the match cannot be saved") from None

    def _open_transcript(self) -> None:
        """Create the transcript file with its header (its content is fsync'ed by `create`
        when it is given records, else by the first append of ours; `create` fsyncs its
        name)."""
        self._file = open(self.transcript_path, "ab", buffering=0)  # noqa: SIM115
        os.chmod(self.transcript_path, 0o600)
        self._file.write(transcript_header())

    def _rewrite(self, records: Sequence[bytes]) -> None:
        self.close()
        _write_atomic(self.transcript_path,
                      transcript_header() + b"".join(encode_record(raw) for raw in records))
        self._file = open(self.transcript_path, "ab", buffering=0)  # noqa: SIM115
        self._records = len(records)
        self._entry_synced = True  # _write_atomic synced the directory after its rename

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                os.fsync(self._file.fileno())
            self._file.close()
            self._file = None

    # --- reading back -----------------------------------------------------------------------

    def read_secret(self) -> bytes:
        path = self.directory / SECRET_FILE
        try:
            with open(path, "rb") as file:
                mode = os.fstat(file.fileno()).st_mode
                data = file.read(SECRET_SIZE + 1)
        except OSError as error:
            raise StoreError(f"cannot read {path} ({error.strerror or error})") from None
        if os.name == "posix" and stat.S_IMODE(mode) & 0o077:
            raise StoreError(f"{path} is readable by others (mode {stat.S_IMODE(mode):04o}); "
                             f"run 'chmod 600 {path}'")
        if len(data) != SECRET_SIZE:
            raise StoreError(f"{path} holds {len(data)} bytes, expected {SECRET_SIZE}")
        return data

    def read_transcript(self) -> bytes:
        try:
            return self.transcript_path.read_bytes()
        except OSError as error:
            raise StoreError(f"cannot read {self.transcript_path} "
                             f"({error.strerror or error})") from None

    def read_info(self) -> SessionInfo:
        path = self.directory / SESSION_FILE
        data = _read_small(path)
        assert data is not None
        return SessionInfo.from_json(data, path)


class MatchStore:
    """The directory of match directories (default: `default_matches_dir()`).

    `owner`: our identity's fingerprint. Its matches live in `root/<owner>/<match id>/`, so a
    host and a joiner of one home (two --identity keys, one data directory) keep a directory
    each: one directory per match id would hold the master secret of whichever wrote last.
    `find` also reads the older layout, `root/<match id>/`, to resume a match saved by it."""

    def __init__(self, root: Path | str | None = None, *, durable: bool = False,
                 owner: str | None = None) -> None:
        self.root = Path(root) if root is not None else default_matches_dir()
        self.durable = durable
        self.owner = owner

    @property
    def own_root(self) -> Path:
        """Where this store's new match directories go."""
        return self.root if self.owner is None else self.root / self.owner

    def files(self, match_id: bytes) -> MatchFiles:
        return MatchFiles(self.own_root / match_id.hex(), durable=self.durable)

    def find(self, match_id: str) -> MatchFiles:
        """The match directory whose id is `match_id` or starts with it (unique prefix): ours,
        else one of the older layout (see the class comment)."""
        prefix = parse_match_id(match_id)
        folders = [self.own_root] if self.owner is None else [self.own_root, self.root]
        for folder in folders:
            found = [n for n in self._match_names(folder) if n.startswith(prefix)]
            if len(found) > 1:
                raise StoreError(f"match id {prefix} is ambiguous ({len(found)} saved matches "
                                 "start with it); give more digits")
            if found:
                return MatchFiles(folder / found[0], durable=self.durable)
        raise StoreError(f"no saved match {prefix} in {self.own_root}")

    @staticmethod
    def _match_names(folder: Path) -> list[str]:
        try:
            return sorted(p.name for p in folder.iterdir()
                          if p.is_dir() and _MATCH_ID_HEX.match(p.name))
        except FileNotFoundError:
            return []
        except OSError as error:
            raise StoreError(f"cannot list {folder} ({error.strerror or error})") from None
