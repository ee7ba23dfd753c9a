# LAN discovery: a host announces its game in small signed UDP datagrams; joiners listen.
#
# Datagram (SPEC Part 6 §T-LAN), at most 170 bytes:
#
#   "VSLD" ‖ format u8 (1) ‖ transport version u16 ‖ game port u16 ‖ Ed25519 public key 32 ‖
#   name length u8 (1..64) ‖ name UTF-8 ‖ signature 64
#
# The signature, by the announced key, covers b"versus/v1/lan-announce" ‖ every byte before it.
# It proves only that the announcer holds the key it announces (no one can advertise a game in
# someone else's name); the address is never in the datagram, it is the datagram's source, so a
# forged address is impossible too. Joining a discovered game pins the announced fingerprint
# through an Invite, so the handshake then proves the host is who announced.
#
# Announcements go to the IPv4 multicast group 239.255.77.83 (organisation-local scope, TTL 1)
# and to the broadcast address 255.255.255.255, on UDP port 47821, every `interval` seconds.
# `discover` listens on that port, ignores anything malformed, oversize or badly signed, and
# returns each game once.
from __future__ import annotations

import contextlib
import socket
import struct
from dataclasses import dataclass

import trio

from p2p.errors import DiscoveryError, InvalidAnnouncementError
from p2p.handshake import MAX_VERSION
from p2p.invite import Invite
from protocol.identity import (
    PUBLIC_KEY_SIZE,
    SIGNATURE_SIZE,
    Identity,
    fingerprint,
    verify_signature,
)

DISCOVERY_PORT = 47_821
MULTICAST_GROUP = "239.255.77.83"
BROADCAST_ADDRESS = "255.255.255.255"
MAGIC = b"VSLD"
FORMAT = 1
SIGNATURE_DOMAIN = b"versus/v1/lan-announce"
MAX_NAME_BYTES = 64
MAX_DATAGRAM = 512  # anything larger is not ours; we read one byte more to notice it
MAX_GAMES = 64  # distinct games one discover() keeps, so a flood of fakes is bounded

_HEAD = struct.Struct(">4sBHH32sB")  # 42 bytes


@dataclass(frozen=True)
class Announcement:
    name: str
    port: int
    public_key: bytes
    version: int = MAX_VERSION

    def __post_init__(self) -> None:
        encoded = self.name.encode("utf-8")
        if not 1 <= len(encoded) <= MAX_NAME_BYTES or not self.name.isprintable():
            raise ValueError(
                f"a game name is 1..{MAX_NAME_BYTES} bytes of printable text, got {self.name!r}"
            )
        if not 1 <= self.port <= 65535:
            raise ValueError(f"port {self.port} is outside 1..65535")
        if not 1 <= self.version <= 0xFFFF:
            raise ValueError(f"version {self.version} is outside 1..65535")
        if len(self.public_key) != PUBLIC_KEY_SIZE:
            raise ValueError(f"a public key is {PUBLIC_KEY_SIZE} bytes")

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


def _signed_part(announcement: Announcement) -> bytes:
    name = announcement.name.encode("utf-8")
    return (
        _HEAD.pack(
            MAGIC, FORMAT, announcement.version, announcement.port, announcement.public_key,
            len(name),
        )
        + name
    )


def encode_announcement(identity: Identity, name: str, port: int) -> bytes:
    """The signed datagram announcing `identity`'s game called `name` on TCP `port`."""
    body = _signed_part(Announcement(name, port, identity.public_key))
    return body + identity.sign(SIGNATURE_DOMAIN + body)


def decode_announcement(datagram: bytes) -> Announcement:
    """Validate a datagram; InvalidAnnouncementError says why it is not a valid announcement."""
    if len(datagram) > MAX_DATAGRAM:
        raise InvalidAnnouncementError(f"datagram of {len(datagram)} bytes is too large")
    if len(datagram) < _HEAD.size + 1 + SIGNATURE_SIZE:
        raise InvalidAnnouncementError(f"datagram of {len(datagram)} bytes is too short")
    magic, form, version, port, public_key, name_length = _HEAD.unpack_from(datagram)
    if magic != MAGIC or form != FORMAT:
        raise InvalidAnnouncementError(
            f"not a Versus announcement (magic {magic!r}, format {form})"
        )
    body_length = _HEAD.size + name_length
    if len(datagram) != body_length + SIGNATURE_SIZE:
        raise InvalidAnnouncementError(
            f"datagram of {len(datagram)} bytes does not match its name length {name_length}"
        )
    body, signature = datagram[:body_length], datagram[body_length:]
    if not verify_signature(public_key, signature, SIGNATURE_DOMAIN + body):
        raise InvalidAnnouncementError("announcement signature does not verify")
    try:
        name = body[_HEAD.size :].decode("utf-8")
        return Announcement(name, port, public_key, version)
    except ValueError as error:
        raise InvalidAnnouncementError(f"bad announcement field: {error}") from None


@dataclass(frozen=True)
class DiscoveredGame:
    name: str
    host: str  # the datagram's source address
    port: int
    fingerprint: str
    version: int

    @property
    def invite(self) -> Invite:
        return Invite(self.host, self.port, self.fingerprint)


def _udp_socket() -> trio.socket.SocketType:
    sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):  # several discoverers on one machine
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    return sock


async def announce(
    identity: Identity,
    name: str,
    game_port: int,
    *,
    interval: float = 1.0,
    targets: list[tuple[str, int]] | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Announce the game every `interval` seconds until cancelled.

    Raises DiscoveryError if no target can be reached at the first round (no network); later
    failures are ignored, as the network may come back.
    """
    datagram = encode_announcement(identity, name, game_port)
    targets = targets or [(MULTICAST_GROUP, DISCOVERY_PORT), (BROADCAST_ADDRESS, DISCOVERY_PORT)]
    with trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        first = True
        while True:
            errors = []
            for target in targets:
                try:
                    await sock.sendto(datagram, target)
                except OSError as error:
                    errors.append(f"{target[0]}:{target[1]}: {error.strerror}")
            if first:
                if len(errors) == len(targets):
                    raise DiscoveryError(
                        f"could not announce the game on the LAN ({'; '.join(errors)}); check "
                        "the network connection, or share an invite instead"
                    )
                task_status.started()
                first = False
            await trio.sleep(interval)


async def discover(
    timeout: float = 3.0,
    *,
    port: int = DISCOVERY_PORT,
    group: str | None = MULTICAST_GROUP,
) -> list[DiscoveredGame]:
    """Listen for `timeout` seconds; the valid games heard, in the order first heard."""
    games: dict[tuple[str, int, str], DiscoveredGame] = {}
    with _udp_socket() as sock:
        try:
            await sock.bind(("", port))
        except OSError as error:
            raise DiscoveryError(
                f"could not listen for LAN games on UDP port {port} ({error.strerror})"
            ) from None
        if group is not None:
            membership = socket.inet_aton(group) + socket.inet_aton("0.0.0.0")
            with contextlib.suppress(OSError):  # no multicast route: broadcasts still arrive
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
        with trio.move_on_after(timeout):
            while True:
                datagram, source = await sock.recvfrom(MAX_DATAGRAM + 1)
                try:
                    announcement = decode_announcement(datagram)
                except InvalidAnnouncementError:
                    continue
                game = DiscoveredGame(
                    announcement.name, source[0], announcement.port,
                    announcement.fingerprint, announcement.version,
                )
                key = (game.host, game.port, game.fingerprint)
                if key in games or len(games) < MAX_GAMES:
                    games[key] = game
    return list(games.values())
