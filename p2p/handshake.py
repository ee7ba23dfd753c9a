# The handshake: an encrypted, mutually authenticated channel in three messages, sans-IO.
#
# It follows the shape of Noise XX (-> e; <- e, ee, s; -> s) with one change: players are Ed25519
# signing keys (protocol/crypto/identity.py), not X25519 static keys, so each side proves its
# identity by signing the running handshake hash (SIGMA-I style) instead of mixing in a static DH.
# Both signatures cover both ephemerals and both nonces, so a recorded handshake cannot be replayed
# into a new session; each identity travels encrypted under a key from the ephemeral DH, so a
# passive observer learns neither identity; the signature tags name the role, so a signature cannot
# be reflected back at its author. A peer that proves *our own* key is refused on both sides
# (SelfConnectionError): two programs of one account share the keystore's key, and a match needs two
# identities, so the user is told at once how to give one side another.
#
# HELLO   I -> R  0x01 ‖ "VSP2" ‖ min_ver u16 ‖ max_ver u16 ‖ purpose u8 ‖ nonce_i 32 ‖ e_i 32
# WELCOME R -> I  0x02 ‖ version u16 ‖ nonce_r 32 ‖ e_r 32 ‖ seal(k, 0, s_r ‖ sig_r, ad=h) AUTH    I
# -> R  0x03 ‖ seal(k, 1, s_i ‖ sig_i, ad=h) REJECT  R -> I  0x7F ‖ reason u8 ‖ UTF-8 text (≤ 200
# bytes), instead of WELCOME
#
# SPEC §6.2 gives the hash and key schedule byte for byte. The machine is driven by
# `start()` (initiator) and `receive(message)`; each returns the message to send, if any. All
# transitions live in `_TRANSITIONS`; anything else is a HandshakeError. Randomness comes in through
# `rng`, so tests can replay a handshake exactly.
from __future__ import annotations

import enum
import hashlib
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from versus.p2p.errors import (
    HandshakeError,
    ImpostorError,
    PeerRejectedError,
    SelfConnectionError,
    TransportError,
    VersionMismatchError,
)
from versus.protocol.crypto.identity import (
    PUBLIC_KEY_SIZE,
    SIGNATURE_SIZE,
    Identity,
    fingerprint,
    verify_signature,
)
from versus.protocol.wire.text import printable

#: The transport protocol versions this code speaks.
MIN_VERSION = 1
MAX_VERSION = 1

PROTOCOL_NAME = b"versus/v1/handshake/X25519-Ed25519-ChaChaPoly-SHA256"
MAGIC = b"VSP2"
HANDSHAKE_KEY_INFO = b"versus/v1/handshake-key"
TRANSPORT_KEYS_INFO = b"versus/v1/transport-keys"
RESPONDER_SIG_TAG = b"versus/v1/handshake/responder"
INITIATOR_SIG_TAG = b"versus/v1/handshake/initiator"

NONCE_SIZE = 32
X25519_SIZE = 32
TAG_SIZE = 16
MAX_REJECT_TEXT = 200

_HELLO = struct.Struct(">B4sHHB32s32s")  # 74 bytes
_WELCOME_HEAD = struct.Struct(">BH32s32s")  # 67 bytes, followed by the sealed identity
_SEALED_IDENTITY_SIZE = PUBLIC_KEY_SIZE + SIGNATURE_SIZE + TAG_SIZE  # 112
WELCOME_SIZE = _WELCOME_HEAD.size + _SEALED_IDENTITY_SIZE  # 179
AUTH_SIZE = 1 + _SEALED_IDENTITY_SIZE  # 113
HELLO_SIZE = _HELLO.size


class MessageType(enum.IntEnum):
    HELLO = 0x01
    WELCOME = 0x02
    AUTH = 0x03
    REJECT = 0x7F


class Purpose(enum.IntEnum):
    """Why the initiator connects; the session layer acts on it after the handshake."""

    NEW_MATCH = 1
    RESUME = 2


class RejectReason(enum.IntEnum):
    NO_COMMON_VERSION = 1
    UNSUPPORTED_PURPOSE = 2
    BUSY = 3


class Role(enum.Enum):
    INITIATOR = "initiator"
    RESPONDER = "responder"


class HandshakeState(enum.Enum):
    INITIAL = "initial"  # initiator before start()
    AWAIT_WELCOME = "await-welcome"  # initiator sent HELLO
    AWAIT_HELLO = "await-hello"  # responder, nothing received yet
    AWAIT_AUTH = "await-auth"  # responder sent WELCOME
    DONE = "done"
    FAILED = "failed"


# (state, message type) -> (handler name, next state). `None` stands for the local start().
_TRANSITIONS: dict[tuple[HandshakeState, MessageType | None], tuple[str, HandshakeState]] = {
    (HandshakeState.INITIAL, None): ("_send_hello", HandshakeState.AWAIT_WELCOME),
    (HandshakeState.AWAIT_HELLO, MessageType.HELLO): ("_on_hello", HandshakeState.AWAIT_AUTH),
    (HandshakeState.AWAIT_WELCOME, MessageType.WELCOME): ("_on_welcome", HandshakeState.DONE),
    (HandshakeState.AWAIT_WELCOME, MessageType.REJECT): ("_on_reject", HandshakeState.FAILED),
    (HandshakeState.AWAIT_AUTH, MessageType.AUTH): ("_on_auth", HandshakeState.DONE),
}

#: Called with the peer's proven public key; raises to refuse it (pinning, known peers).
PeerCheck = Callable[[bytes], None]


@dataclass(frozen=True)
class HandshakeResult:
    """What both sides agreed on; the keys seed the SecureChannel."""

    role: Role
    version: int
    purpose: Purpose
    peer_public_key: bytes
    handshake_hash: bytes  # channel binding: unique to this session, equal on both sides
    local_nonce: bytes
    peer_nonce: bytes
    send_key: bytes = field(repr=False)
    receive_key: bytes = field(repr=False)

    @property
    def peer_fingerprint(self) -> str:
        return fingerprint(self.peer_public_key)


def _hash(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def _hkdf(ikm: bytes, salt: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def aead_nonce(counter: int) -> bytes:
    """ChaCha20-Poly1305 nonce for a message counter: 4 zero bytes ‖ counter u64 BE."""
    return b"\x00\x00\x00\x00" + counter.to_bytes(8, "big")


class Handshake:
    """One side of one handshake. Not reusable; after an error it stays FAILED."""

    def __init__(
        self,
        role: Role,
        identity: Identity,
        rng: Callable[[int], bytes],
        *,
        purpose: Purpose = Purpose.NEW_MATCH,
        versions: tuple[int, int] = (MIN_VERSION, MAX_VERSION),
        check_peer: PeerCheck | None = None,
        peer: str = "the peer",
    ) -> None:
        if not 1 <= versions[0] <= versions[1] <= 0xFFFF:
            raise ValueError(f"bad version range {versions}")
        self.role = role
        self.peer = peer
        self._identity = identity
        self._purpose = purpose
        self._versions = versions
        self._check_peer = check_peer
        self._ephemeral = X25519PrivateKey.from_private_bytes(rng(X25519_SIZE))
        self._nonce = rng(NONCE_SIZE)
        self._hash = _hash(PROTOCOL_NAME)
        self._shared = b""
        self._key = b""
        self._version = 0
        self._peer_nonce = b""
        self._peer_public_key = b""
        self.state = (
            HandshakeState.INITIAL if role is Role.INITIATOR else HandshakeState.AWAIT_HELLO
        )
        self.result: HandshakeResult | None = None
        #: a REJECT the driver should send (best effort) before closing, after an error
        self.farewell: bytes | None = None

    # --- public API ----------------------------------------------------------------------------

    def start(self) -> bytes:
        """Initiator only: the HELLO to send first."""
        if self.role is not Role.INITIATOR or self.state is not HandshakeState.INITIAL:
            raise RuntimeError(f"start() is for a fresh initiator, not a {self.state.value} one")
        return self._step(None, b"")  # type: ignore[return-value]

    def receive(self, message: bytes) -> bytes | None:
        """Process one handshake message from the peer; returns the reply to send, if any."""
        if self.state in (HandshakeState.DONE, HandshakeState.FAILED, HandshakeState.INITIAL):
            raise RuntimeError(f"receive() on a handshake in state {self.state.value}")
        if not message:
            raise self._fail(HandshakeError(f"{self.peer} sent an empty handshake message"))
        try:
            kind: MessageType | None = MessageType(message[0])
        except ValueError:
            kind = None
        return self._step(kind, message, raw_kind=message[0])

    @property
    def done(self) -> bool:
        return self.state is HandshakeState.DONE

    # --- machinery ----------------------------------------------------------------------------

    def _step(self, kind: MessageType | None, message: bytes, raw_kind: int = -1) -> bytes | None:
        transition = _TRANSITIONS.get((self.state, kind))
        if transition is None or (kind is None and raw_kind != -1):
            name = kind.name if kind is not None else f"unknown type 0x{raw_kind:02x}"
            raise self._fail(
                HandshakeError(
                    f"{self.peer} sent {name} while the handshake was in state "
                    f"{self.state.value}; not a compatible Versus client",
                    [message],
                )
            )
        handler, next_state = transition
        try:
            reply = getattr(self, handler)(message)
        except TransportError as error:
            raise self._fail(error) from None
        self.state = next_state
        return reply

    def _fail(self, error: Exception) -> Exception:
        self.state = HandshakeState.FAILED
        self._key = self._shared = b""
        return error

    def _mix(self, data: bytes) -> None:
        self._hash = _hash(self._hash, data)

    def _agree(self, peer_ephemeral: bytes, message: bytes) -> None:
        try:
            public = X25519PublicKey.from_public_bytes(peer_ephemeral)
            self._shared = self._ephemeral.exchange(public)
        except ValueError:  # low-order point: the shared secret would be all zeros
            raise HandshakeError(
                f"{self.peer} sent an invalid ephemeral key (a low-order point)", [message]
            ) from None

    def _ephemeral_public(self) -> bytes:
        return self._ephemeral.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def _seal_identity(self, tag: bytes, counter: int) -> bytes:
        signature = self._identity.sign(tag + self._hash)
        plaintext = self._identity.public_key + signature
        sealed = ChaCha20Poly1305(self._key).encrypt(aead_nonce(counter), plaintext, self._hash)
        self._mix(sealed)
        return sealed

    def _open_identity(self, sealed: bytes, tag: bytes, counter: int, message: bytes) -> None:
        try:
            plaintext = ChaCha20Poly1305(self._key).decrypt(
                aead_nonce(counter), sealed, self._hash
            )
        except InvalidTag:
            raise HandshakeError(
                f"{self.peer} sent a handshake identity that fails decryption "
                "(tampered in transit, or not a Versus client)",
                [message],
            ) from None
        public_key, signature = plaintext[:PUBLIC_KEY_SIZE], plaintext[PUBLIC_KEY_SIZE:]
        if not verify_signature(public_key, signature, tag + self._hash):
            raise ImpostorError(
                f"{self.peer} claimed identity {_safe_fingerprint(public_key)} but could not "
                "prove it (bad signature); connection refused — someone may be impersonating "
                "that player",
                [message],
            )
        self._mix(sealed)
        self._peer_public_key = public_key
        self._refuse_own_key(public_key)
        if self._check_peer is not None:
            self._check_peer(public_key)

    def _refuse_own_key(self, public_key: bytes) -> None:
        """Before pinning and known_peers: our own key is a setup mistake, not an impostor."""
        if public_key == self._identity.public_key:
            raise SelfConnectionError(
                f"{self.peer} proved your own identity {fingerprint(public_key)}: both sides "
                "use the same key (host and join from one account?); give one of them another "
                "identity: --identity PATH (a new key is created there) or another "
                "XDG_CONFIG_HOME",
                fingerprint(public_key),
            )

    def _finish(self) -> None:
        keys = _hkdf(self._shared, self._hash, TRANSPORT_KEYS_INFO, 64)
        initiator_to_responder, responder_to_initiator = keys[:32], keys[32:]
        if self.role is Role.INITIATOR:
            send, receive = initiator_to_responder, responder_to_initiator
        else:
            send, receive = responder_to_initiator, initiator_to_responder
        self.result = HandshakeResult(
            role=self.role,
            version=self._version,
            purpose=self._purpose,
            peer_public_key=self._peer_public_key,
            handshake_hash=self._hash,
            local_nonce=self._nonce,
            peer_nonce=self._peer_nonce,
            send_key=send,
            receive_key=receive,
        )
        self._key = self._shared = b""

    # --- transitions --------------------------------------------------------------------------

    def _send_hello(self, _: bytes) -> bytes:
        low, high = self._versions
        hello = _HELLO.pack(
            MessageType.HELLO, MAGIC, low, high, self._purpose, self._nonce,
            self._ephemeral_public(),
        )
        self._mix(hello)
        return hello

    def _on_hello(self, message: bytes) -> bytes:
        if len(message) != _HELLO.size:
            raise HandshakeError(
                f"{self.peer} sent a HELLO of {len(message)} bytes (expected {_HELLO.size}); "
                "not a compatible Versus client",
                [message],
            )
        _, magic, low, high, purpose, nonce, ephemeral = _HELLO.unpack(message)
        if magic != MAGIC:
            raise HandshakeError(
                f"{self.peer} is not a Versus client (bad magic {magic!r})", [message]
            )
        self._version = self._negotiate(low, high, message)
        try:
            self._purpose = Purpose(purpose)
        except ValueError:
            self.farewell = _reject(RejectReason.UNSUPPORTED_PURPOSE, f"unknown purpose {purpose}")
            raise HandshakeError(
                f"{self.peer} asked for unknown purpose {purpose}; connection refused", [message]
            ) from None
        self._mix(message)
        self._peer_nonce = nonce
        self._agree(ephemeral, message)
        head = _WELCOME_HEAD.pack(
            MessageType.WELCOME, self._version, self._nonce, self._ephemeral_public()
        )
        self._mix(head)
        self._key = _hkdf(self._shared, self._hash, HANDSHAKE_KEY_INFO, 32)
        return head + self._seal_identity(RESPONDER_SIG_TAG, 0)

    def _negotiate(self, low: int, high: int, message: bytes) -> int:
        our_low, our_high = self._versions
        chosen = min(high, our_high)
        if low > high or chosen < max(low, our_low):
            self.farewell = _reject(
                RejectReason.NO_COMMON_VERSION,
                f"this peer speaks versions {our_low}..{our_high}",
            )
            raise VersionMismatchError(
                f"{self.peer} speaks transport versions {low}..{high}, we speak "
                f"{our_low}..{our_high}; one of you must update Versus",
                [message],
            )
        return chosen

    def _on_welcome(self, message: bytes) -> bytes:
        if len(message) != WELCOME_SIZE:
            raise HandshakeError(
                f"{self.peer} sent a WELCOME of {len(message)} bytes (expected {WELCOME_SIZE}); "
                "not a compatible Versus client",
                [message],
            )
        head, sealed = message[: _WELCOME_HEAD.size], message[_WELCOME_HEAD.size :]
        _, version, nonce, ephemeral = _WELCOME_HEAD.unpack(head)
        if not self._versions[0] <= version <= self._versions[1]:
            raise VersionMismatchError(
                f"{self.peer} chose transport version {version}, we speak "
                f"{self._versions[0]}..{self._versions[1]}; one of you must update Versus",
                [message],
            )
        self._version = version
        self._peer_nonce = nonce
        self._agree(ephemeral, message)
        self._mix(head)
        self._key = _hkdf(self._shared, self._hash, HANDSHAKE_KEY_INFO, 32)
        self._open_identity(sealed, RESPONDER_SIG_TAG, 0, message)
        auth = bytes([MessageType.AUTH]) + self._seal_identity(INITIATOR_SIG_TAG, 1)
        self._finish()
        return auth

    def _on_auth(self, message: bytes) -> None:
        if len(message) != AUTH_SIZE:
            raise HandshakeError(
                f"{self.peer} sent an AUTH of {len(message)} bytes (expected {AUTH_SIZE}); "
                "not a compatible Versus client",
                [message],
            )
        self._open_identity(message[1:], INITIATOR_SIG_TAG, 1, message)
        self._finish()

    def _on_reject(self, message: bytes) -> None:
        reason_code = message[1] if len(message) > 1 else 0
        text = printable(message[2 : 2 + MAX_REJECT_TEXT].decode("utf-8", "replace"),
                         MAX_REJECT_TEXT)
        try:
            reason = RejectReason(reason_code).name.lower().replace("_", " ")
        except ValueError:
            reason = f"reason {reason_code}"
        raise PeerRejectedError(f"{self.peer} refused the connection: {reason} ({text})")


def _reject(reason: RejectReason, text: str) -> bytes:
    return bytes([MessageType.REJECT, reason]) + text.encode()[:MAX_REJECT_TEXT]


def _safe_fingerprint(public_key: bytes) -> str:
    return fingerprint(public_key) if len(public_key) == PUBLIC_KEY_SIZE else "(malformed key)"
