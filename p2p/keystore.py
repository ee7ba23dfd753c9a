# The local identity: an Ed25519 secret key kept in a file only its owner can read.
#
# File: `$XDG_CONFIG_HOME/versus/identity` (else ~/.config/versus/identity), one line
# `versus-ed25519-secret-v1 <64 hex digits>`, mode 0600 in a 0700 directory. Like ssh, we refuse
# a key file that others can read rather than use a secret that may have leaked. A new key comes
# from `secrets.token_bytes` and is published with a hard link from a fully written temporary
# file, so a crash leaves no half key and two programs starting at once end up with one key.
from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path

from versus.p2p.errors import KeyFileError
from versus.protocol.crypto.identity import SECRET_KEY_SIZE, Identity

KEY_FILE_NAME = "identity"
KEY_FILE_TAG = "versus-ed25519-secret-v1"
_MAX_KEY_FILE_SIZE = 4096


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/versus`, else `~/.config/versus` (XDG base directory spec)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME", "")
    if not base or not os.path.isabs(base):  # the spec says to ignore a relative value
        base = os.path.join(env.get("HOME") or os.path.expanduser("~"), ".config")
    return Path(base) / "versus"


def default_identity_path() -> Path:
    return config_dir() / KEY_FILE_NAME


def load_identity(path: Path | str) -> Identity:
    """Read the key file; KeyFileError says precisely what is wrong with it."""
    path = Path(path)
    try:
        with open(path, "rb") as file:
            mode = os.fstat(file.fileno()).st_mode
            data = file.read(_MAX_KEY_FILE_SIZE + 1)
    except FileNotFoundError:
        raise KeyFileError(f"no identity key file at {path}") from None
    except OSError as error:
        raise KeyFileError(f"cannot read identity key {path}: {error.strerror}") from None
    if os.name == "posix" and stat.S_IMODE(mode) & 0o077:
        raise KeyFileError(
            f"identity key {path} is readable by others (mode {stat.S_IMODE(mode):04o}); run "
            f"'chmod 600 {path}', or delete it to make a new identity"
        )
    return Identity(_parse_key(data, path))


def _parse_key(data: bytes, path: Path) -> bytes:
    fields = data.decode("ascii", "replace").split()
    if len(fields) != 2 or fields[0] != KEY_FILE_TAG:
        raise KeyFileError(
            f"identity key {path} is not a Versus key file (expected one line "
            f"'{KEY_FILE_TAG} <hex>'); restore it from a backup or delete it to make a new one"
        )
    try:
        secret = bytes.fromhex(fields[1])
    except ValueError:
        secret = b""
    if len(secret) != SECRET_KEY_SIZE:
        raise KeyFileError(
            f"identity key {path} is corrupt (expected {2 * SECRET_KEY_SIZE} hex digits); "
            "restore it from a backup or delete it to make a new one"
        )
    return secret


def create_identity(path: Path | str) -> Identity:
    """Make a new identity and store it at `path` (which must not exist yet)."""
    path = Path(path)
    identity = Identity.generate(secrets.token_bytes)
    line = f"{KEY_FILE_TAG} {identity.secret_bytes().hex()}\n".encode()
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.link(temporary, path)  # fails if the key appeared meanwhile: never overwrite a key
    except FileExistsError:
        raise KeyFileError(f"identity key {path} already exists; not overwriting it") from None
    except OSError as error:
        raise KeyFileError(
            f"cannot create identity key {path}: {error.strerror}; check the directory's "
            "permissions"
        ) from None
    finally:
        temporary.unlink(missing_ok=True)
    return identity


def load_or_create_identity(path: Path | str | None = None) -> Identity:
    """The identity stored at `path` (default: the config dir), created on first use."""
    path = Path(path) if path is not None else default_identity_path()
    if not path.exists():
        try:
            return create_identity(path)
        except KeyFileError:
            if not path.exists():
                raise
    return load_identity(path)
