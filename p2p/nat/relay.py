# The blind relay: both players dial out to a magic-wormhole transit relay, which glues their
# two TCP connections together; then our ordinary handshake runs end to end through it.
#
# The relay's protocol (magic-wormhole-transit-relay, transit_server.py): each side sends one
# line, "please relay TOKEN for side SIDE\n" (TOKEN 64 and SIDE 16 word characters), and waits.
# When a second connection presents the same TOKEN with a different SIDE the relay answers
# "ok\n" on both and from then on copies bytes both ways; it answers "bad handshake\n" to a
# malformed line and "impatient\n" (then hangs up) to a client that sends data before its "ok".
# Further connections of an already matched SIDE are dropped when the match is made.
#
# Our names in it (SPEC Part 6, "Relay"):
#   room   16 random bytes (`secrets`), made by the host, carried in the invite (`room=`)
#   TOKEN  hex(SHA-256(len-prefixed "versus/v1/relay-token", host fingerprint, room))
#   SIDE   hex(SHA-256(len-prefixed "versus/v1/relay-side", TOKEN, role)[:8]), role "host"
#          or "join": fixed per role, so two waiting connections of the host never match each
#          other (the relay keeps them apart as one side) and a spare one is dropped on a match.
# The token binds the meeting to the host's identity and a secret only invite holders know: a
# stranger who knows the host's public fingerprint cannot compute it to squat or hijack the
# meeting, and the relay, which sees the token, learns neither the fingerprint nor the room.
#
# After "ok" the stream is handed, unchanged, to connect.handshake_initiator/-responder: the
# fingerprint pin, the encryption and the transcript binding are exactly those of a direct
# connection, so a relay that flips, drops, reorders or injects bytes makes the handshake or the
# channel fail (HandshakeError, DecryptionError, ReplayedFrameError...), never a false result.
# The "ok" is read one byte at a time so no byte of the peer's first message is consumed here.
from __future__ import annotations

import contextlib
import enum
import hashlib
import re
import secrets
import socket
import struct
from dataclasses import dataclass

import trio

from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.connect import (
    CONNECT_TIMEOUT,
    HANDSHAKE_TIMEOUT,
    Rng,
    handshake_initiator,
    handshake_responder,
    open_stream,
    pin_check,
)
from versus.p2p.errors import InviteError
from versus.p2p.handshake import PeerCheck, Purpose
from versus.p2p.invite import check_hostname, format_hostport, split_hostport
from versus.p2p.known_peers import KnownPeers
from versus.p2p.nat.errors import (
    RelayAddressError,
    RelayError,
    RelayRefusedError,
    RelayTimeoutError,
)
from versus.protocol.crypto.identity import Identity, normalize_fingerprint

TOKEN_DOMAIN = b"versus/v1/relay-token"
SIDE_DOMAIN = b"versus/v1/relay-side"
ROOM_SIZE = 16
#: The relay's longest answer is "bad handshake\n"; a longer line is not a transit relay.
MAX_REPLY = 64
OK = b"ok\n"
#: How long the joiner waits at the relay for the host (the host waits as long as it hosts).
JOIN_WAIT_TIMEOUT = 60.0
_RELAY_TEXT = re.compile(r"^tcp:(?P<rest>.+)$")


class RelayRole(enum.Enum):
    HOST = "host"
    JOIN = "join"


@dataclass(frozen=True)
class RelayAddress:
    """Where the relay listens; its text form is `tcp:HOST:PORT` (IPv6 in brackets)."""

    host: str
    port: int

    def __post_init__(self) -> None:
        text = format_hostport(self.host, self.port)
        try:
            object.__setattr__(self, "host", check_hostname(self.host, text))
        except InviteError as error:
            raise RelayAddressError(f"relay address {text!r}: {error}") from None
        if not isinstance(self.port, int) or isinstance(self.port, bool) or not (
            1 <= self.port <= 65535
        ):
            raise RelayAddressError(f"relay port {self.port!r} is outside 1..65535")

    def __str__(self) -> str:
        return f"tcp:{format_hostport(self.host, self.port)}"

    @classmethod
    def parse(cls, text: str) -> RelayAddress:
        """`tcp:HOST:PORT` or `tcp:[IPV6]:PORT`; RelayAddressError names what is wrong."""
        match = _RELAY_TEXT.match(text.strip())
        if match is None:
            raise RelayAddressError(
                f"relay {text!r} is not tcp:HOST:PORT (e.g. tcp:relay.example.org:4001)"
            )
        try:
            host, port_text = split_hostport(match["rest"], text)
        except InviteError as error:
            raise RelayAddressError(str(error).replace("invite", "relay", 1)) from None
        if not port_text.isascii() or not port_text.isdigit():
            raise RelayAddressError(f"relay {text!r}: port {port_text!r} is not a number")
        return cls(host, int(port_text))


def new_room() -> bytes:
    """The host's meeting secret for one invite."""
    return secrets.token_bytes(ROOM_SIZE)


def _field(data: bytes) -> bytes:
    return struct.pack(">H", len(data)) + data


def relay_token(host_fingerprint: str, room: bytes) -> str:
    """The 64-hex-digit token both players present (see the module comment)."""
    if not isinstance(room, bytes) or len(room) != ROOM_SIZE:
        raise RelayError(f"relay room {room!r} is not {ROOM_SIZE} bytes")
    fingerprint = normalize_fingerprint(host_fingerprint).encode("ascii")
    digest = hashlib.sha256(_field(TOKEN_DOMAIN) + _field(fingerprint) + _field(room))
    return digest.hexdigest()


def relay_side(token: str, role: RelayRole) -> str:
    """The 16-hex-digit side for `role`: fixed per role (see the module comment)."""
    digest = hashlib.sha256(
        _field(SIDE_DOMAIN) + _field(token.encode("ascii")) + _field(role.value.encode())
    )
    return digest.hexdigest()[:16]


def relay_request(token: str, side: str) -> bytes:
    """The handshake line the relay expects."""
    if not re.fullmatch(r"[0-9a-f]{64}", token):
        raise RelayError(f"relay token {token!r} is not 64 hex digits")
    if not re.fullmatch(r"[0-9a-f]{16}", side):
        raise RelayError(f"relay side {side!r} is not 16 hex digits")
    return f"please relay {token} for side {side}\n".encode("ascii")


def check_reply(line: bytes, relay: str) -> None:
    """Raise unless `line` (one line, with its newline) is the relay's "ok"."""
    if line == OK:
        return
    text = line.decode("ascii", "replace").strip()
    if line in (b"bad handshake\n", b"impatient\n"):
        raise RelayRefusedError(f"relay {relay} refused the meeting: it answered {text!r}")
    raise RelayRefusedError(
        f"relay {relay} answered {text[:40]!r} instead of 'ok'; is it a magic-wormhole transit "
        "relay?"
    )


async def _read_reply(stream: trio.SocketStream, relay: str) -> bytes:
    line = b""
    while not line.endswith(b"\n"):
        if len(line) >= MAX_REPLY:
            check_reply(line + b"\n", relay)  # raises: an overlong line is not the relay's
        try:
            data = await stream.receive_some(1)
        except (trio.BrokenResourceError, OSError) as error:
            raise RelayError(
                f"the connection to relay {relay} broke ({error or 'reset'})"
            ) from None
        if not data:
            raise RelayError(
                f"relay {relay} closed the connection before the other player arrived"
                + (f" (after {line!r})" if line else "")
            )
        line += data
    return line


async def open_relay_stream(
    relay: RelayAddress,
    token: str,
    role: RelayRole,
    *,
    connect_timeout: float = CONNECT_TIMEOUT,
    wait_timeout: float | None = JOIN_WAIT_TIMEOUT,
) -> trio.SocketStream:
    """A TCP stream to the relay, joined to the other player's (after the relay's "ok"). Waits
    `wait_timeout` seconds (None: forever) for the other player."""
    label = str(relay)
    request = relay_request(token, relay_side(token, role))
    stream = await open_stream(relay.host, relay.port, timeout=connect_timeout)
    try:
        with contextlib.suppress(OSError):  # keepalive is a nicety; a reset socket may refuse
            stream.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        try:
            await stream.send_all(request)
        except (trio.BrokenResourceError, OSError) as error:
            raise RelayError(
                f"the connection to relay {label} broke ({error or 'reset'})"
            ) from None
        limit = wait_timeout if wait_timeout is not None else float("inf")
        with trio.move_on_after(limit) as scope:
            line = await _read_reply(stream, label)
        if scope.cancelled_caught:
            who = "host" if role is RelayRole.JOIN else "joining player"
            raise RelayTimeoutError(
                f"the {who} did not reach relay {label} within {wait_timeout:g} s; check that "
                "both use the same invite and relay"
            )
        check_reply(line, label)
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return stream


async def relay_connect(
    relay: RelayAddress,
    host_fingerprint: str,
    room: bytes,
    identity: Identity,
    *,
    purpose: Purpose = Purpose.NEW_MATCH,
    known_peers: KnownPeers | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    wait_timeout: float | None = JOIN_WAIT_TIMEOUT,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
    config: ChannelConfig | None = None,
    rng: Rng = secrets.token_bytes,
) -> SecureChannel:
    """Join through the relay: meet the host there, then run the handshake as initiator with
    the invite's fingerprint pinned (exactly as `connect` does for a direct address)."""
    token = relay_token(host_fingerprint, room)
    stream = await open_relay_stream(
        relay, token, RelayRole.JOIN, connect_timeout=connect_timeout, wait_timeout=wait_timeout
    )
    label = f"the host via relay {relay}"
    return await handshake_initiator(
        stream, identity, peer=label, purpose=purpose,
        check_peer=pin_check(label, host_fingerprint, known_peers),
        timeout=handshake_timeout, config=config, rng=rng,
    )


async def relay_accept(
    relay: RelayAddress,
    room: bytes,
    identity: Identity,
    *,
    check_peer: PeerCheck | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    wait_timeout: float | None = None,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
    config: ChannelConfig | None = None,
    rng: Rng = secrets.token_bytes,
) -> SecureChannel:
    """Host through the relay: wait there for the joining player, then run the handshake as
    responder. One meeting per call; a host that keeps hosting calls it again."""
    token = relay_token(identity.fingerprint, room)
    stream = await open_relay_stream(
        relay, token, RelayRole.HOST, connect_timeout=connect_timeout, wait_timeout=wait_timeout
    )
    return await handshake_responder(
        stream, identity, peer=f"the joining player via relay {relay}", check_peer=check_peer,
        timeout=handshake_timeout, config=config, rng=rng,
    )
