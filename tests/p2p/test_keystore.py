from __future__ import annotations

import stat
from pathlib import Path

import pytest

from versus.p2p.errors import KeyFileError
from versus.p2p.keystore import create_identity, load_identity, load_or_create_identity


def test_created_once_then_loaded(tmp_path: Path) -> None:
    path = tmp_path / "versus" / "identity"
    first = load_or_create_identity(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert load_or_create_identity(path).public_key == first.public_key
    assert path.read_text().startswith("versus-ed25519-secret-v1 ")
    assert [p.name for p in path.parent.iterdir()] == ["identity"]


def test_never_overwrites_a_key(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    create_identity(path)
    with pytest.raises(KeyFileError, match="already exists"):
        create_identity(path)


def test_readable_by_others_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    create_identity(path)
    path.chmod(0o644)
    with pytest.raises(KeyFileError) as info:
        load_identity(path)
    assert f"readable by others (mode 0644); run 'chmod 600 {path}'" in str(info.value)


@pytest.mark.parametrize(
    "content, match",
    [
        ("hello\n", "not a Versus key file"),
        ("versus-ed25519-secret-v1 abcd\n", "corrupt"),
        ("versus-ed25519-secret-v1 " + "zz" * 32 + "\n", "corrupt"),
    ],
)
def test_malformed_key_files(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "identity"
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(KeyFileError, match=match):
        load_identity(path)
