# Trust on first use: the peers we have met, like SSH's known_hosts.
#
# File: `$XDG_CONFIG_HOME/versus/known_peers` (else ~/.config/versus/known_peers). One peer a
# line, `LABEL FINGERPRINT NOTE...`, where LABEL is how we reached it (`host:port`, `[v6]:port`,
# or a name the user chose), FINGERPRINT its canonical fingerprint, NOTE free text (when and how
# it was first seen). `#` starts a comment line; blank lines are ignored. A label appears once.
#
# The first connection to a label records its fingerprint; a later connection that proves a
# different key is refused with PeerKeyChangedError, naming both fingerprints and the line to
# delete if the change is legitimate. The file is rewritten atomically (temporary file, fsync,
# rename) after re-reading it, so a crash never leaves it half-written and two programs adding
# different peers don't lose each other's lines. Checks are in memory and pure; only `load` and
# `remember` touch the disk.
from __future__ import annotations

import datetime
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from versus.p2p.errors import KnownPeersFileError, PeerKeyChangedError
from versus.p2p.keystore import config_dir
from versus.protocol.crypto.identity import InvalidKeyError, normalize_fingerprint

FILE_NAME = "known_peers"
MAX_FILE_SIZE = 1 << 20
MAX_LABEL_LENGTH = 255
_HEADER = "# Versus known peers: LABEL FINGERPRINT NOTE (see SPEC Part 6, §6.4)\n"


def default_known_peers_path() -> Path:
    return config_dir() / FILE_NAME


@dataclass(frozen=True)
class KnownPeer:
    label: str
    fingerprint: str
    note: str
    line: int  # 1-based line in the file, 0 when not yet written

    def __post_init__(self) -> None:
        check_label(self.label)
        object.__setattr__(self, "fingerprint", normalize_fingerprint(self.fingerprint))
        if "\n" in self.note or "\r" in self.note:
            raise ValueError("a known-peer note is one line")

    def to_line(self) -> str:
        return f"{self.label} {self.fingerprint} {self.note}".rstrip() + "\n"


def check_label(label: str) -> None:
    if (
        not label
        or len(label) > MAX_LABEL_LENGTH
        or label.startswith("#")
        or any(ch.isspace() or not ch.isprintable() for ch in label)
    ):
        raise ValueError(
            f"a known-peer label is 1..{MAX_LABEL_LENGTH} printable characters without spaces, "
            f"not starting with '#': got {label!r}"
        )


def parse_known_peers(text: str, path: Path | str = FILE_NAME) -> dict[str, KnownPeer]:
    """Parse the file's text; KnownPeersFileError names the file and line of any problem."""
    peers: dict[str, KnownPeer] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(maxsplit=2)
        if len(fields) < 2:
            raise KnownPeersFileError(
                f"{path} line {number}: expected 'LABEL FINGERPRINT NOTE', got {raw!r}; fix or "
                "delete that line"
            )
        label, print_text = fields[0], fields[1]
        note = fields[2] if len(fields) > 2 else ""
        try:
            peer = KnownPeer(label, print_text, note, number)
        except (ValueError, InvalidKeyError) as error:
            raise KnownPeersFileError(
                f"{path} line {number}: {error}; fix or delete that line"
            ) from None
        if label in peers:
            raise KnownPeersFileError(
                f"{path} line {number}: {label} is already listed on line "
                f"{peers[label].line}; delete one of the two lines"
            )
        peers[label] = peer
    return peers


class KnownPeers:
    """The known_peers file in memory, bound to its path."""

    def __init__(self, path: Path, peers: dict[str, KnownPeer] | None = None) -> None:
        self.path = path
        self.peers = dict(peers or {})

    @classmethod
    def load(cls, path: Path | str | None = None) -> KnownPeers:
        path = Path(path) if path is not None else default_known_peers_path()
        return cls(path, _read(path))

    def lookup(self, label: str) -> KnownPeer | None:
        return self.peers.get(label)

    def check(self, label: str, fingerprint: str) -> bool:
        """True when `label` is known with this fingerprint, False when it is new.

        Raises PeerKeyChangedError when `label` is known with another fingerprint.
        """
        actual = normalize_fingerprint(fingerprint)
        known = self.peers.get(label)
        if known is None:
            return False
        if known.fingerprint != actual:
            raise PeerKeyChangedError(
                f"WARNING: the identity of {label} has CHANGED: {self.path} line {known.line} "
                f"says {known.fingerprint}, it now presents {actual}; someone may be "
                f"impersonating it. Connection refused. If the peer really has a new key, "
                f"delete line {known.line} of {self.path} and connect again",
                known.fingerprint,
                actual,
            )
        return True

    def remember(
        self, label: str, fingerprint: str, how: str = "", *, replace: bool = True
    ) -> KnownPeer:
        """Record (or replace) `label`'s fingerprint and rewrite the file atomically.

        With `replace=False` (trust on first use) a different fingerprint that another program
        recorded since we loaded the file is not overwritten: PeerKeyChangedError instead.
        """
        when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        note = f"first-seen {when}" + (f" {how}" if how else "")
        current = _read(self.path)
        if not replace:
            KnownPeers(self.path, current).check(label, fingerprint)
        existing = current.get(label)
        if existing is not None and existing.fingerprint == normalize_fingerprint(fingerprint):
            self.peers = current
            return existing
        current[label] = KnownPeer(label, fingerprint, note, 0)
        _write(self.path, current)
        self.peers = _read(self.path)
        return self.peers[label]


def _read(path: Path) -> dict[str, KnownPeer]:
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_FILE_SIZE + 1)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise KnownPeersFileError(f"cannot read {path}: {error.strerror}") from None
    if len(data) > MAX_FILE_SIZE:
        raise KnownPeersFileError(
            f"{path} is larger than {MAX_FILE_SIZE} bytes; is it the right file?"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise KnownPeersFileError(
            f"{path} line {line}: not UTF-8 text; fix or delete that line"
        ) from None
    return parse_known_peers(text, path)


def _write(path: Path, peers: dict[str, KnownPeer]) -> None:
    text = _HEADER + "".join(peer.to_line() for peer in peers.values())
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(text)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise KnownPeersFileError(
            f"cannot write {path}: {error.strerror}; check the directory's permissions"
        ) from None
