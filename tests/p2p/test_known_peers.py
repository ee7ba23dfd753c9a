from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.p2p.conftest import identity
from versus.p2p.errors import KnownPeersFileError, PeerKeyChangedError
from versus.p2p.known_peers import KnownPeers, default_known_peers_path, parse_known_peers

A, B = identity(1).fingerprint, identity(2).fingerprint


def test_first_use_then_known(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "known_peers"
    peers = KnownPeers.load(path)
    assert peers.check("10.0.0.5:47820", A) is False
    peers.remember("10.0.0.5:47820", A, "trusted on first use")
    again = KnownPeers.load(path)
    assert again.check("10.0.0.5:47820", A.lower().replace("-", "")) is True
    line = path.read_text().splitlines()[1]
    assert line.startswith(f"10.0.0.5:47820 {A} first-seen 20")
    assert line.endswith("trusted on first use")
    assert not list(path.parent.glob(".known_peers.*"))  # no temporary file left behind


def test_changed_key_is_refused_loudly(tmp_path: Path) -> None:
    path = tmp_path / "known_peers"
    KnownPeers.load(path).remember("[::1]:9", A)
    with pytest.raises(PeerKeyChangedError) as info:
        KnownPeers.load(path).check("[::1]:9", B)
    message = str(info.value)
    assert "\n" not in message
    assert f"{path} line 2 says {A}, it now presents {B}" in message
    assert f"delete line 2 of {path}" in message
    assert (info.value.expected, info.value.actual) == (A, B)


def test_remember_merges_with_concurrent_writers(tmp_path: Path) -> None:
    path = tmp_path / "known_peers"
    first, second = KnownPeers.load(path), KnownPeers.load(path)
    first.remember("alice", A)
    second.remember("bob", B)
    assert set(KnownPeers.load(path).peers) == {"alice", "bob"}


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("# c\n\nhost:1\n", 3, "expected 'LABEL FINGERPRINT NOTE'"),
        (f"host:1 {A} ok\nhost:1 {B} again\n", 2, "already listed on line 1"),
        ("host:1 NOT-A-FINGERPRINT x\n", 1, "not a fingerprint"),
    ],
)
def test_malformed_file_names_the_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(KnownPeersFileError, match=f"known_peers line {line}: .*{problem}"):
        parse_known_peers(text, "known_peers")


def test_non_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "known_peers"
    path.write_bytes(f"a {A}\nb {B} \xff\n".encode("latin-1"))
    with pytest.raises(KnownPeersFileError, match="line 2: not UTF-8"):
        KnownPeers.load(path)


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_known_peers_path() == tmp_path / "versus" / "known_peers"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_known_peers_path() == tmp_path / ".config" / "versus" / "known_peers"


def test_unwritable_directory(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root can write anywhere")
    tmp_path.chmod(0o500)
    with pytest.raises(KnownPeersFileError, match="cannot write"):
        KnownPeers.load(tmp_path / "known_peers").remember("x", A)


def test_first_use_does_not_replace_a_key_written_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "known_peers"
    stale = KnownPeers.load(path)  # loaded before the other program wrote
    KnownPeers.load(path).remember("host:1", A)
    with pytest.raises(PeerKeyChangedError, match=f"says {A}, it now presents {B}"):
        stale.remember("host:1", B, "trusted on first use", replace=False)
    assert KnownPeers.load(path).lookup("host:1").fingerprint == A  # type: ignore[union-attr]
    stale.remember("host:1", B, "pinned by invite")  # an invite is authoritative
    assert KnownPeers.load(path).lookup("host:1").fingerprint == B  # type: ignore[union-attr]
