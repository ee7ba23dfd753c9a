# Every way the transport can fail, as one precise exception class each.
#
# The CLI prints `str(error)` and exits; it never shows a traceback. So every message is one line
# that says who (the peer's address or label), what happened, and what the user can do about it.
# The classes follow the protocol's two families (protocol/errors.py): when the peer broke the
# transport protocol (garbage frames, a bad signature, a replayed frame) the error is also a
# `RemoteProtocolError` and carries the offending raw bytes as evidence, since nothing in them
# could be authenticated. Failures that are nobody's provable fault (a refused connection, a
# timeout, a closed socket) and problems with our own files are plain `TransportError`s.
from __future__ import annotations

from collections.abc import Sequence

from versus.protocol.errors import LocalProtocolError, RemoteProtocolError


class TransportError(Exception):
    """Base of every p2p error; `str(error)` is one line fit for the CLI."""


class RemoteTransportError(TransportError, RemoteProtocolError):
    """The peer broke the transport protocol; `evidence` holds the raw bytes involved."""

    code = "remote-transport-error"

    def __init__(self, message: str, evidence: Sequence[bytes] = ()) -> None:
        RemoteProtocolError.__init__(self, message, evidence)


class LocalTransportError(TransportError, LocalProtocolError):
    """Our own code misused the transport API (a bug on this side, not the peer's fault)."""


# --- framing -----------------------------------------------------------------------------------


class FrameTooLargeError(RemoteTransportError):
    """A length prefix announced a frame larger than the limit (rejected before buffering)."""

    code = "frame-too-large"


class MalformedFrameError(RemoteTransportError):
    """A frame whose content is not what the protocol allows (bad msgpack, bad kind byte...)."""

    code = "malformed-frame"


# --- handshake ---------------------------------------------------------------------------------


class HandshakeError(RemoteTransportError):
    """The peer sent a handshake message that is malformed, unexpected, or fails its checks."""

    code = "handshake-failed"


class ImpostorError(HandshakeError):
    """The peer's identity signature over the handshake does not verify."""

    code = "impostor"


class VersionMismatchError(HandshakeError):
    """The two sides share no transport protocol version."""

    code = "version-mismatch"


class PeerRejectedError(TransportError):
    """The peer refused the handshake and said why."""


class HandshakeTimeoutError(TransportError):
    """The handshake did not complete in time."""


# --- identity pinning --------------------------------------------------------------------------


class PeerIdentityError(TransportError):
    """The peer proved an identity, but not the one we expected."""

    def __init__(self, message: str, expected: str, actual: str) -> None:
        super().__init__(message)
        self.expected = expected
        self.actual = actual


class FingerprintMismatchError(PeerIdentityError):
    """The peer's fingerprint differs from the one pinned by an invite."""


class PeerKeyChangedError(PeerIdentityError):
    """The peer's fingerprint differs from the one recorded in known_peers (like SSH's warning)."""


class SelfConnectionError(PeerIdentityError):
    """The peer proved our own key: both programs use one identity (host and join from the same
    account, or a connection that reached ourselves). Not the peer's fault, and retrying cannot
    help: one side needs another identity (`--identity PATH`, or another XDG_CONFIG_HOME)."""

    def __init__(self, message: str, fingerprint: str) -> None:
        super().__init__(message, "another player's key", fingerprint)


# --- encrypted channel -------------------------------------------------------------------------


class DecryptionError(RemoteTransportError):
    """A ciphertext frame failed authentication: tampered, or not from this session."""

    code = "decryption-failed"


class ReplayedFrameError(RemoteTransportError):
    """A frame's counter is not the next one expected: a replay, a reordering or a drop."""

    code = "replayed-frame"


class ConnectionClosedError(TransportError):
    """The connection ended."""


class PeerClosedError(ConnectionClosedError):
    """The peer closed the channel on purpose; `reason` is what it said."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class ConnectionLostError(ConnectionClosedError):
    """The connection broke or hit end-of-file without a goodbye."""


class IdleTimeoutError(TransportError):
    """Nothing at all (not even a keepalive) arrived from the peer for too long."""


class SlowFrameError(TransportError):
    """A frame started arriving but was not complete before its deadline (a slow drip)."""


class SendTimeoutError(TransportError):
    """A send could not complete in time: the peer stopped reading (or the network stalled)."""


class ChannelClosedError(LocalTransportError):
    """Our own code used a channel after closing it."""


class PayloadTooLargeError(LocalTransportError, ValueError):
    """Our own code tried to send a payload larger than a frame can carry."""


# --- connecting, listening, discovery ----------------------------------------------------------


class ConnectError(TransportError):
    """Could not open a TCP connection to the peer."""


class ConnectTimeoutError(ConnectError):
    """The TCP connection attempt did not succeed in time."""


class ListenError(TransportError):
    """Could not listen on the requested address/port."""


class DiscoveryError(TransportError):
    """LAN discovery could not open or use its UDP socket."""


class InvalidAnnouncementError(ValueError):
    """A LAN discovery datagram that is malformed or badly signed (ignored by `discover`)."""


class StaleAnnouncementError(InvalidAnnouncementError):
    """A LAN announcement whose signed timestamp is outside the receiver's freshness window
    (a replay of an old datagram, or a host whose clock is far off); ignored by `discover`."""


# --- local files and user input ----------------------------------------------------------------


class InviteError(TransportError, ValueError):
    """An invite link that cannot be parsed; the message names the input and the problem."""


class KnownPeersFileError(TransportError):
    """The known_peers file is malformed (the message names the file and line) or unwritable."""


class KeyFileError(TransportError):
    """The identity key file is malformed, unreadable or has unsafe permissions."""
