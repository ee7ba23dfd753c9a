# LAN discovery: a host announces its game in small signed UDP datagrams; joiners listen.
#
# Datagram (SPEC Part 6 §T-LAN), at most 178 bytes:
#
#   "VSLD" ‖ format u8 (2) ‖ transport version u16 ‖ game port u16 ‖ timestamp u64 ‖
#   Ed25519 public key 32 ‖ name length u8 (1..64) ‖ name UTF-8 ‖ signature 64
#
# The signature, by the announced key, covers b"versus/v1/lan-announce" ‖ every byte before it.
# It proves only that the announcer holds the key it announces (no one can advertise a game in
# someone else's name); the address is never in the datagram, it is the datagram's source (a
# forged UDP source only sends joiners to a machine that cannot prove the key). Joining a
# discovered game pins the announced fingerprint through an Invite, so the handshake then
# proves the host is who announced.
#
# Fresh keys cost nothing, so anyone on the LAN can sign as many fake games as they like, and
# anyone can capture a real announcement and send it again later. Three defences, all in the
# sans-IO `GameTable` that `discover` feeds (so tests drive it with explicit times and sources):
#
# - Freshness. The timestamp is the host's clock in unix milliseconds, re-signed every round.
#   A datagram more than FRESHNESS_WINDOW (30 s) away from the receiver's clock, either way, is
#   refused (`StaleAnnouncementError`), before its signature is even checked. A game's entry is
#   renewed only by a strictly newer timestamp, so a repeated datagram never extends it: one
#   datagram can keep a game listed at most until its timestamp + FRESHNESS_WINDOW + GAME_TTL.
# - A bounded table with expiry. At most MAX_GAMES (64) games; an entry not renewed for
#   GAME_TTL (10 s, ten announcement rounds) expires, and when the table is full a new game
#   evicts the entry renewed least recently. A host that keeps announcing is the most recently
#   renewed entry after each of its rounds, so a flood can hide it only while the flood lasts.
# - A rate limit per source. Each source (an IPv4 address; an IPv6 /64, for when discovery
#   speaks IPv6) may bring in at most NEW_GAMES_PER_SOURCE (4) distinct new games per fixed
#   window of SOURCE_INTERVAL (10 s), and hold at most MAX_GAMES_PER_SOURCE (8) places at once.
#   Renewals are free, and a game the source already brought in during the window comes back
#   free after an eviction (so a flood from elsewhere cannot use up a real host's share). One
#   neighbour therefore never holds more than 8 of the 64 places; keeping a host that announces
#   every second out of the table takes 64 new games every second, so at least 160 source
#   addresses (UDP sources can be forged on a LAN: this bounds a flood, it cannot stop one).
#
# Announcements go to the IPv4 multicast group 239.255.77.83 (organisation-local scope, TTL 1)
# and to the broadcast address 255.255.255.255, on UDP port 47821, every `interval` seconds.
# Discovery is IPv4 only; a host reachable only over IPv6 shares an invite instead.
from __future__ import annotations

import contextlib
import dataclasses
import enum
import socket
import struct
import time
from dataclasses import dataclass

import trio

from versus.p2p.connect import source_prefix
from versus.p2p.errors import DiscoveryError, InvalidAnnouncementError, StaleAnnouncementError
from versus.p2p.handshake import MAX_VERSION
from versus.p2p.invite import Invite
from versus.protocol.crypto.identity import (
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
FORMAT = 2  # 1 had no timestamp and is refused
SIGNATURE_DOMAIN = b"versus/v1/lan-announce"
MAX_NAME_BYTES = 64
MAX_DATAGRAM = 512  # anything larger is not ours; we read one byte more to notice it
MAX_TIMESTAMP_MS = 2**64 - 1

FRESHNESS_WINDOW = 30.0  # seconds a timestamp may differ from our clock, either way
GAME_TTL = 10.0  # seconds a game stays listed without a newer announcement
MAX_GAMES = 64  # games the table holds; a new one evicts the one renewed least recently
NEW_GAMES_PER_SOURCE = 4  # distinct new games one source may bring in per SOURCE_INTERVAL
SOURCE_INTERVAL = 10.0  # seconds of the fixed rate-limit window
MAX_GAMES_PER_SOURCE = 8  # places one source may hold at once
MAX_SOURCES = 1024  # rate-limit windows remembered; the least recently used goes first

_PREFIX = struct.Struct(">4sB")  # magic and format: read first, to name the format refused
_HEAD = struct.Struct(">4sBHHQ32sB")  # 50 bytes


@dataclass(frozen=True)
class Announcement:
    name: str
    port: int
    public_key: bytes
    timestamp_ms: int  # the host's clock (unix milliseconds) when it signed
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
        if not 0 <= self.timestamp_ms <= MAX_TIMESTAMP_MS:
            raise ValueError(f"timestamp {self.timestamp_ms} ms is outside 0..2**64-1")

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


def _signed_part(announcement: Announcement) -> bytes:
    name = announcement.name.encode("utf-8")
    return (
        _HEAD.pack(
            MAGIC, FORMAT, announcement.version, announcement.port, announcement.timestamp_ms,
            announcement.public_key, len(name),
        )
        + name
    )


def encode_announcement(identity: Identity, name: str, port: int, now: float) -> bytes:
    """The signed datagram announcing `identity`'s game called `name` on TCP `port`, stamped
    with `now` (unix seconds, the announcer's clock)."""
    announcement = Announcement(name, port, identity.public_key, round(now * 1000))
    body = _signed_part(announcement)
    return body + identity.sign(SIGNATURE_DOMAIN + body)


def _check_format(datagram: bytes) -> None:
    magic, form = _PREFIX.unpack_from(datagram)
    if magic != MAGIC:
        raise InvalidAnnouncementError(f"not a Versus announcement (magic {magic!r})")
    if form == 1:
        raise InvalidAnnouncementError(
            "announcement format 1 carries no timestamp and is refused; the host runs an older "
            f"Versus (format {FORMAT} needed)"
        )
    if form != FORMAT:
        raise InvalidAnnouncementError(
            f"unsupported announcement format {form} (this Versus reads format {FORMAT})"
        )


def _check_fresh(timestamp_ms: int, now: float) -> None:
    age = now - timestamp_ms / 1000
    if abs(age) > FRESHNESS_WINDOW:
        when = f"{age:.1f} s old" if age > 0 else f"{-age:.1f} s in the future"
        raise StaleAnnouncementError(
            f"announcement stamped {timestamp_ms} ms is {when}, outside the "
            f"±{FRESHNESS_WINDOW:g} s window (a replay, or the host's clock is off)"
        )


def decode_announcement(datagram: bytes, now: float) -> Announcement:
    """Validate a datagram received at `now` (unix seconds, our clock);
    InvalidAnnouncementError (StaleAnnouncementError for a timestamp outside the window) says
    why it is not a valid announcement."""
    if len(datagram) > MAX_DATAGRAM:
        raise InvalidAnnouncementError(f"datagram of {len(datagram)} bytes is too large")
    if len(datagram) < _PREFIX.size:
        raise InvalidAnnouncementError(f"datagram of {len(datagram)} bytes is too short")
    _check_format(datagram)
    if len(datagram) < _HEAD.size + 1 + SIGNATURE_SIZE:
        raise InvalidAnnouncementError(f"datagram of {len(datagram)} bytes is too short")
    _, _, version, port, timestamp_ms, public_key, name_length = _HEAD.unpack_from(datagram)
    body_length = _HEAD.size + name_length
    if len(datagram) != body_length + SIGNATURE_SIZE:
        raise InvalidAnnouncementError(
            f"datagram of {len(datagram)} bytes does not match its name length {name_length}"
        )
    _check_fresh(timestamp_ms, now)  # before the signature: a replay costs no verification
    body, signature = datagram[:body_length], datagram[body_length:]
    if not verify_signature(public_key, signature, SIGNATURE_DOMAIN + body):
        raise InvalidAnnouncementError("announcement signature does not verify")
    try:
        name = body[_HEAD.size :].decode("utf-8")
        return Announcement(name, port, public_key, timestamp_ms, version)
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


# --- the table of games heard (sans-IO) ------------------------------------------------------

GameKey = tuple[str, int, str]  # source address, game port, fingerprint


class Offer(enum.Enum):
    """What `GameTable.offer` did with a datagram."""

    ADDED = "added"  # a game not in the table
    RENEWED = "renewed"  # a newer announcement of a listed game
    REPEATED = "repeated"  # not newer than what the table holds: a repeat, changes nothing
    RATE_LIMITED = "rate-limited"  # its source brought in, or holds, its share of games
    STALE = "stale"  # timestamp outside the freshness window
    INVALID = "invalid"  # malformed, oversize, another format, or badly signed


@dataclass(frozen=True)
class _Entry:
    game: DiscoveredGame
    source: str  # source_prefix(game.host), the unit of the rate limit
    timestamp_ms: int  # the newest timestamp accepted for this game
    renewed: float  # our clock when that announcement arrived


@dataclass(frozen=True)
class _SourceWindow:
    start: float
    games: frozenset[GameKey]  # the new games the source brought in during this window


class GameTable:
    """The games heard on the LAN: bounded, expiring, rate-limited per source.

    Pure: every call takes the datagram's source and our clock (`now`, unix seconds)."""

    def __init__(self, *, capacity: int = MAX_GAMES) -> None:
        if capacity < 1:
            raise ValueError(f"a game table holds at least one game, not {capacity}")
        self._capacity = capacity
        self._entries: dict[GameKey, _Entry] = {}  # in the order first heard
        self._sources: dict[str, _SourceWindow] = {}  # least recently used first

    def offer(self, datagram: bytes, source: str, now: float) -> Offer:
        """Take a datagram from `source` (an IP address) received at `now`."""
        try:
            announcement = decode_announcement(datagram, now)
        except StaleAnnouncementError:
            return Offer.STALE
        except InvalidAnnouncementError:
            return Offer.INVALID
        game = DiscoveredGame(
            announcement.name, source, announcement.port, announcement.fingerprint,
            announcement.version,
        )
        key = (source, game.port, game.fingerprint)
        self._expire(now)
        entry = self._entries.get(key)
        if entry is not None:
            if announcement.timestamp_ms <= entry.timestamp_ms:
                return Offer.REPEATED
            self._entries[key] = dataclasses.replace(
                entry, game=game, timestamp_ms=announcement.timestamp_ms, renewed=now
            )
            return Offer.RENEWED
        prefix = source_prefix(source)
        if not self._admit(prefix, key, now):
            return Offer.RATE_LIMITED
        if len(self._entries) >= self._capacity:
            oldest = min(self._entries, key=lambda k: self._entries[k].renewed)
            del self._entries[oldest]
        self._entries[key] = _Entry(game, prefix, announcement.timestamp_ms, now)
        return Offer.ADDED

    def games(self, now: float) -> list[DiscoveredGame]:
        """The games listed at `now`, in the order first heard."""
        self._expire(now)
        return [entry.game for entry in self._entries.values()]

    def _expire(self, now: float) -> None:
        for key in [k for k, e in self._entries.items() if now - e.renewed >= GAME_TTL]:
            del self._entries[key]

    def _admit(self, prefix: str, key: GameKey, now: float) -> bool:
        """Count a new game against its source's share; False when the source is over it."""
        held = sum(1 for entry in self._entries.values() if entry.source == prefix)
        window = self._sources.pop(prefix, None)
        if window is None or not 0 <= now - window.start < SOURCE_INTERVAL:
            window = _SourceWindow(now, frozenset())
        admitted = held < MAX_GAMES_PER_SOURCE and (
            key in window.games or len(window.games) < NEW_GAMES_PER_SOURCE
        )
        if admitted:
            window = dataclasses.replace(window, games=window.games | {key})
        self._sources[prefix] = window  # re-inserted last: the dict stays in order of use
        while len(self._sources) > MAX_SOURCES:
            del self._sources[next(iter(self._sources))]
        return admitted


# --- sockets ------------------------------------------------------------------------------------


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
    """Announce the game every `interval` seconds until cancelled, freshly stamped each time.

    Raises DiscoveryError if no target can be reached at the first round (no network); later
    failures are ignored, as the network may come back.
    """
    targets = targets or [(MULTICAST_GROUP, DISCOVERY_PORT), (BROADCAST_ADDRESS, DISCOVERY_PORT)]
    with trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        first = True
        while True:
            datagram = encode_announcement(identity, name, game_port, time.time())
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
    bind: str = "",
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> list[DiscoveredGame]:
    """Listen for `timeout` seconds; the games listed at the end, in the order first heard.

    `task_status.started` reports the UDP port listened on (useful with `port=0`)."""
    table = GameTable()
    with _udp_socket() as sock:
        try:
            await sock.bind((bind, port))
        except OSError as error:
            raise DiscoveryError(
                f"could not listen for LAN games on UDP port {port} ({error.strerror})"
            ) from None
        if group is not None:
            membership = socket.inet_aton(group) + socket.inet_aton("0.0.0.0")
            with contextlib.suppress(OSError):  # no multicast route: broadcasts still arrive
                sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
        task_status.started(sock.getsockname()[1])
        with trio.move_on_after(timeout):
            while True:
                datagram, source = await sock.recvfrom(MAX_DATAGRAM + 1)
                table.offer(datagram, source[0], time.time())
    return table.games(time.time())
