# Player identities: Ed25519 key pairs and their human fingerprints.
#
# A player is its Ed25519 public key. People compare and pin keys by fingerprint, so the
# fingerprint is short enough to read aloud yet long enough that forging one is out of reach:
# 100 bits of a domain-separated SHA-256 of the key, in Crockford base32 (no I/L/O/U, so no
# 0/O or 1/I/L confusion), grouped 4x5. Parsing is forgiving (case, separators, the look-alike
# letters Crockford maps), formatting is canonical, so a fingerprint typed by hand compares
# equal to the printed one.
#
# Key generation takes its 32 secret bytes from the caller (`rng`), never from a global source:
# protocol/ stays free of hidden randomness, and tests can make reproducible identities.
#
# Signing and verifying go through libsodium (PyNaCl's low-level bindings): it verifies an
# Ed25519 signature in about half the time of the OpenSSL path, and it is strict (canonical S,
# canonical R and A, no small-order keys), so one signature has one valid encoding. Every
# envelope is signed or verified, so an Identity keeps libsodium's 64-byte signing key instead
# of re-deriving it per call.
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import nacl.bindings as _sodium
from nacl.exceptions import BadSignatureError

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64
SECRET_KEY_SIZE = 32

_FINGERPRINT_DOMAIN = b"versus/v1/fingerprint"
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_CROCKFORD_ALIASES = {"O": "0", "I": "1", "L": "1"}
_FINGERPRINT_CHARS = 20  # 100 bits
_GROUP = 4


class InvalidKeyError(ValueError):
    """A public key, secret key or fingerprint that is malformed."""


def fingerprint(public_key: bytes) -> str:
    """The canonical fingerprint of a public key, e.g. ``7K2D-M9QX-4TZB-H1CV-8RNW``."""
    _check_public_key(public_key)
    digest = hashlib.sha256(_FINGERPRINT_DOMAIN + public_key).digest()
    bits = int.from_bytes(digest[:13], "big") >> 4  # top 100 bits
    chars = [
        _CROCKFORD[(bits >> (5 * (_FINGERPRINT_CHARS - 1 - i))) & 31]
        for i in range(_FINGERPRINT_CHARS)
    ]
    return "-".join(
        "".join(chars[i : i + _GROUP]) for i in range(0, _FINGERPRINT_CHARS, _GROUP)
    )


def normalize_fingerprint(text: str) -> str:
    """Parse a fingerprint typed by a person into the canonical form.

    Raises InvalidKeyError naming the input when it is not 20 Crockford base32 characters.
    """
    raw = "".join(ch for ch in text.upper() if ch not in "- _")
    raw = "".join(_CROCKFORD_ALIASES.get(ch, ch) for ch in raw)
    if len(raw) != _FINGERPRINT_CHARS or any(ch not in _CROCKFORD for ch in raw):
        raise InvalidKeyError(
            f"not a fingerprint: {text!r} (expected {_FINGERPRINT_CHARS} characters of "
            f"0-9 A-Z without I L O U, e.g. 7K2D-M9QX-4TZB-H1CV-8RNW)"
        )
    return "-".join(raw[i : i + _GROUP] for i in range(0, _FINGERPRINT_CHARS, _GROUP))


def verify_signature(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """True when `signature` is a valid Ed25519 signature of `message` by `public_key`."""
    if len(public_key) != PUBLIC_KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        _sodium.crypto_sign_open(signature + message, public_key)
    except (BadSignatureError, ValueError, TypeError):
        return False
    return True


def _check_public_key(public_key: bytes) -> None:
    if not isinstance(public_key, bytes) or len(public_key) != PUBLIC_KEY_SIZE:
        raise InvalidKeyError(
            f"an Ed25519 public key is {PUBLIC_KEY_SIZE} bytes, got {public_key!r}"
        )


@dataclass(frozen=True)
class Identity:
    """A player's key pair. Holds the secret key: never serialise it into a message."""

    secret_key: bytes = field(repr=False)
    public_key: bytes = field(init=False)
    _signing_key: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.secret_key, bytes) or len(self.secret_key) != SECRET_KEY_SIZE:
            raise InvalidKeyError(f"an Ed25519 secret key is {SECRET_KEY_SIZE} bytes")
        public, signing_key = _sodium.crypto_sign_seed_keypair(self.secret_key)
        object.__setattr__(self, "public_key", public)
        object.__setattr__(self, "_signing_key", signing_key)

    @classmethod
    def generate(cls, rng: Callable[[int], bytes]) -> Identity:
        return cls(rng(SECRET_KEY_SIZE))

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, message: bytes) -> bytes:
        return _sodium.crypto_sign(message, self._signing_key)[:SIGNATURE_SIZE]

    def secret_bytes(self) -> bytes:
        return self.secret_key
