# LAN discovery: a host announces its game in small signed UDP datagrams; joiners listen.
#
# Datagram (SPEC §6.5), at most 178 bytes:
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
#   GAME_TTL (10 s, ten announcement rounds) expires, and when the table is full a game let in
#   evicts an entry heard in one round only (a fresh key sent once: what a flood is made of)
#   before one heard in two, each time the least recently renewed. A host that keeps
#   announcing is heard in two rounds, so a flood of fresh keys hides it only while the flood
#   lasts, and once it is back they evict one another, not it.
# - A rate limit per source. Each source address (IPv4, or IPv6 with its zone) may bring in
#   at most NEW_GAMES_PER_SOURCE (4) distinct new games per fixed
#   window of SOURCE_INTERVAL (10 s), and hold at most MAX_GAMES_PER_SOURCE (8) places at once.
#   One neighbour therefore never holds more than 8 of the 64 places; keeping a host that
#   announces every second out of the table takes 64 new games every second, so at least 160
#   source addresses (UDP sources can be forged on a LAN: this bounds a flood, it cannot stop
#   one).
# - A game a source has had listed is its own. The quota above is for NEW keys only: the table
#   remembers the games each source has had listed (KNOWN_PER_SOURCE of them, with the time it
#   first listed each, its seniority there). Renewals are free, a known game comes back free
#   after an eviction or a pause (taking the place of a game its source listed after it, when
#   the source holds its 8), and no game ever evicts one its own source listed before it. So
#   fakes forged with a listed host's own address (UDP sources are not checked) cannot use up
#   its share, nor take its place. What no table can do: tell a host it has never listed from
#   fakes sent from its address before it (a listener that starts during such a flood lists
#   the host only when the window leaves room).
#   IPv6 counts per address too, not per /64 as p2p/connect.py's listener limits do: every
#   machine on a LAN shares the LAN's /64 (and its link-local fe80::/64), so one neighbour
#   flooding would otherwise shut out every other IPv6 host; on the link an IPv6 neighbour can
#   forge source addresses exactly as an IPv4 one can, so the bound above is the same.
#
# Announcements go, every `interval` seconds, on UDP port 47821, to the IPv4 multicast group
# 239.255.77.83 (organisation-local scope, TTL 1), to the broadcast address 255.255.255.255,
# and to the IPv6 link-local multicast group ff02::5653:4c44 ("VSLD", hop limit 1) on every
# interface that takes it (the group is link-scoped, so each send names its interface: the
# scope id). A listener binds UDP 47821 once per family (the IPv6 socket IPv6-only) and joins
# the IPv6 group on every interface; an IPv6 source comes with its zone (fe80::1%eth0) so the
# joiner can dial it. Both families feed one GameTable, with the same checks and limits. One
# game heard over both (same key, port, name) is listed once, its addresses in the order heard:
# its invite carries them all and `join` tries each with the key pinned (a replayed datagram
# from a decoy address adds an address that fails the pin, nothing more).
from __future__ import annotations

import collections
import contextlib
import dataclasses
import enum
import ipaddress
import socket
import struct
import time
from dataclasses import dataclass, field

import trio

from versus.p2p.errors import DiscoveryError, InvalidAnnouncementError, StaleAnnouncementError
from versus.p2p.handshake import MAX_VERSION
from versus.p2p.invite import MAX_ADDRESSES as MAX_INVITE_ADDRESSES
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
MULTICAST_GROUP_V6 = "ff02::5653:4c44"  # link-local scope; "VSLD" in its last 32 bits
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
KNOWN_PER_SOURCE = 16  # games a source has had listed, remembered (more than it may hold)

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
    host: str  # the datagram's source address (an IPv6 one with its %zone if link-local)
    port: int
    fingerprint: str
    version: int
    more: tuple[str, ...] = field(default=(), compare=False)  # other sources of the same game

    @property
    def invite(self) -> Invite:
        hosts = [self.host, *self.more][:MAX_INVITE_ADDRESSES]
        return Invite.of([(host, self.port) for host in hosts], self.fingerprint)


def merge_games(games: list[DiscoveredGame]) -> list[DiscoveredGame]:
    """One entry per game heard from several addresses (IPv4 and IPv6, say): the first one's,
    with the others' addresses in `more`, in order."""
    merged: dict[tuple[str, int, str, int], DiscoveredGame] = {}
    for game in games:
        key = (game.fingerprint, game.port, game.name, game.version)
        first = merged.get(key)
        if first is None:
            merged[key] = dataclasses.replace(game, more=())
        elif game.host != first.host and game.host not in first.more:
            merged[key] = dataclasses.replace(first, more=(*first.more, game.host))
    return list(merged.values())


def source_unit(host: str) -> str:
    """The unit of the rate limit: the source address, normalised (an IPv4-mapped IPv6 one as
    IPv4; an IPv6 one compressed, with its zone). See the module comment."""
    address, percent, zone = host.partition("%")
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return f"{ip}{percent}{zone}"


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
    source: str  # source_unit(game.host), the unit of the rate limit
    timestamp_ms: int  # the newest timestamp accepted for this game
    renewed: float  # our clock when that announcement arrived
    listed: float  # when its source first listed it (its seniority there; see `_Known`)
    proven: bool  # heard from its source in two rounds (renewed, or back after an eviction)


@dataclass(frozen=True)
class _Known:
    """A game its source has had listed: since when (its seniority), last heard when."""

    listed: float
    heard: float


@dataclass(frozen=True)
class _Source:
    start: float  # of the current rate-limit window
    admitted: int  # new games brought in during that window
    known: dict[GameKey, _Known]  # the games it has had listed, most recently heard last


class GameTable:
    """The games heard on the LAN: bounded, expiring, rate-limited per source, with the games
    a source has had listed kept apart from its new ones (see the module comment).

    Pure: every call takes the datagram's source and our clock (`now`, unix seconds)."""

    def __init__(self, *, capacity: int = MAX_GAMES) -> None:
        if capacity < 1:
            raise ValueError(f"a game table holds at least one game, not {capacity}")
        self._capacity = capacity
        self._entries: dict[GameKey, _Entry] = {}  # in the order first heard
        self._sources: dict[str, _Source] = {}  # least recently used first

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
                entry, game=game, timestamp_ms=announcement.timestamp_ms, renewed=now,
                proven=True,
            )
            self._heard(entry.source, key, entry.listed, now)
            return Offer.RENEWED
        prefix = source_unit(source)
        listed = self._admit(prefix, key, now)
        if listed is None:
            return Offer.RATE_LIMITED
        self._entries[key] = _Entry(
            game, prefix, announcement.timestamp_ms, now, listed, proven=listed < now
        )
        self._heard(prefix, key, listed, now)
        return Offer.ADDED

    def games(self, now: float) -> list[DiscoveredGame]:
        """The games listed at `now`, in the order first heard."""
        self._expire(now)
        return [entry.game for entry in self._entries.values()]

    def _expire(self, now: float) -> None:
        for key in [k for k, e in self._entries.items() if now - e.renewed >= GAME_TTL]:
            del self._entries[key]

    def _record(self, prefix: str, now: float) -> _Source:
        """The source's record, moved last (the least recently used is forgotten first)."""
        record = self._sources.pop(prefix, None) or _Source(now, 0, {})
        self._sources[prefix] = record
        while len(self._sources) > MAX_SOURCES:
            del self._sources[next(iter(self._sources))]
        return record

    def _admit(self, prefix: str, key: GameKey, now: float) -> float | None:
        """Make room for a game not listed, from `prefix`; its seniority at the source, or
        None when it is over the source's share or there is no room it may take.

        A game the source has had listed comes back free of the window and takes the place
        of a game its source listed after it; a new one is counted against the window and
        the source's places. Neither evicts a game its source listed before it: only the
        table's least recently renewed entry of another source, or a junior of its own."""
        record = self._record(prefix, now)
        if not 0 <= now - record.start < SOURCE_INTERVAL:  # a new window
            record = self._sources[prefix] = dataclasses.replace(record, start=now, admitted=0)
        known = record.known.get(key)
        mine = [k for k, e in self._entries.items() if e.source == prefix]
        if known is not None:
            listed = known.listed
        elif record.admitted < NEW_GAMES_PER_SOURCE and len(mine) < MAX_GAMES_PER_SOURCE:
            listed = now
            self._sources[prefix] = dataclasses.replace(record, admitted=record.admitted + 1)
        else:
            return None
        if len(mine) >= MAX_GAMES_PER_SOURCE or len(self._entries) >= self._capacity:
            victim = self._victim(prefix, listed, full_source=len(mine) >= MAX_GAMES_PER_SOURCE)
            if victim is None:
                return None
            del self._entries[victim]
        return listed

    def _victim(self, prefix: str, listed: float, *, full_source: bool) -> GameKey | None:
        """The entry a game from `prefix` with seniority `listed` may evict: of its source's
        juniors the youngest when the source holds all its places; else, in a full table, a
        fair share per source: an entry of a source holding at least two more games than
        `prefix` does (the source holding the most first), so no flood, however it renews,
        takes the place of a game whose source holds fewer than the flood's; when no source
        holds that many, any other source's entry or its own source's juniors; each time one
        heard in a single round (a fresh key sent once) before one heard in two, then the
        least recently renewed."""
        juniors = [k for k, e in self._entries.items() if e.source == prefix and e.listed > listed]
        if full_source:
            return max(juniors, key=lambda k: self._entries[k].listed, default=None)
        held = collections.Counter(e.source for e in self._entries.values())
        crowded = [k for k, e in self._entries.items()
                   if e.source != prefix and held[e.source] >= held[prefix] + 2]
        if crowded:
            top = max(held[self._entries[k].source] for k in crowded)
            candidates = [k for k in crowded if held[self._entries[k].source] == top]
        else:  # sources of one or two games each: the least recently renewed of any
            candidates = [*(k for k, e in self._entries.items() if e.source != prefix),
                          *juniors]
        return min(candidates, default=None,
                   key=lambda k: (self._entries[k].proven, self._entries[k].renewed))

    def _heard(self, prefix: str, key: GameKey, listed: float, now: float) -> None:
        """Remember that `prefix` had `key` listed (at most KNOWN_PER_SOURCE games a source;
        the least recently heard one not listed now is forgotten first)."""
        record = self._record(prefix, now)
        known = {k: v for k, v in record.known.items() if k != key}
        known[key] = _Known(listed, now)
        while len(known) > KNOWN_PER_SOURCE:
            gone = next((k for k in known if k not in self._entries), next(iter(known)))
            del known[gone]
        self._sources[prefix] = dataclasses.replace(record, known=known)


# --- sockets ------------------------------------------------------------------------------------

#: a send target: (IPv4 host, port), or (IPv6 host, port, flowinfo, scope id)
Target = tuple[str, int] | tuple[str, int, int, int]


def _udp_socket(family: int = socket.AF_INET) -> trio.socket.SocketType:
    sock = trio.socket.socket(family, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):  # several discoverers on one machine
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    return sock


def _interfaces() -> list[tuple[int, str]]:
    """Every interface but loopback (which takes no multicast), as (index, name)."""
    try:
        return [(index, name) for index, name in socket.if_nameindex() if name != "lo"]
    except OSError:
        return []


def default_targets(port: int = DISCOVERY_PORT) -> list[Target]:
    """Where `announce` sends by default: the IPv4 group, IPv4 broadcast, and the IPv6 group on
    every interface (looked up again at each round, as interfaces come and go)."""
    return [(MULTICAST_GROUP, port), (BROADCAST_ADDRESS, port)] + [
        (MULTICAST_GROUP_V6, port, 0, index) for index, _name in _interfaces()
    ]


def _describe_target(target: Target) -> str:
    if len(target) == 4:
        scope = target[3]  # type: ignore[misc]
        with contextlib.suppress(OSError):
            scope = socket.if_indextoname(scope)
        return f"[{target[0]}%{scope}]:{target[1]}"
    return f"{target[0]}:{target[1]}"


async def announce(
    identity: Identity,
    name: str,
    game_port: int,
    *,
    interval: float = 1.0,
    targets: list[Target] | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Announce the game every `interval` seconds until cancelled, freshly stamped each time,
    to `targets` (default: `default_targets()`, recomputed each round); an IPv6 target is a
    4-tuple or an address with a colon.

    Raises DiscoveryError if no target can be reached at the first round (no network); later
    failures are ignored, as the network may come back.
    """
    async with contextlib.AsyncExitStack() as stack:
        sockets: dict[int, trio.socket.SocketType] = {}

        def socket_for(family: int) -> trio.socket.SocketType:
            if family not in sockets:
                sock = stack.enter_context(trio.socket.socket(family, socket.SOCK_DGRAM))
                if family == socket.AF_INET:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
                    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
                else:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 1)
                sockets[family] = sock
            return sockets[family]

        first = True
        while True:
            datagram = encode_announcement(identity, name, game_port, time.time())
            round_targets = default_targets() if targets is None else targets
            errors = []
            for target in round_targets:
                family = socket.AF_INET6 if len(target) == 4 or ":" in target[0] else (
                    socket.AF_INET)
                try:
                    await socket_for(family).sendto(datagram, target)
                except OSError as error:
                    errors.append(f"{_describe_target(target)}: {error.strerror}")
            if first:
                if len(errors) == len(round_targets):
                    raise DiscoveryError(
                        f"could not announce the game on the LAN ({'; '.join(errors)}); check "
                        "the network connection, or share an invite instead"
                    )
                task_status.started()
                first = False
            await trio.sleep(interval)


def _join_v6_group(sock: trio.socket.SocketType, group: str) -> int:
    """Join `group` on every interface that has IPv6 multicast; how many joined."""
    joined = 0
    packed = socket.inet_pton(socket.AF_INET6, group)
    for index, _name in _interfaces():
        with contextlib.suppress(OSError):  # no IPv6 or no multicast there
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                            packed + struct.pack("@I", index))
            joined += 1
    return joined


def _source_host(source: tuple[object, ...]) -> str:
    """The datagram's source address as a dialable host: a link-local IPv6 one with its zone."""
    host = str(source[0])
    if len(source) == 4 and "%" not in host and source[3]:
        with contextlib.suppress(ValueError, OSError):
            if ipaddress.IPv6Address(host).is_link_local:
                host = f"{host}%{socket.if_indextoname(int(source[3]))}"  # type: ignore[call-overload]
    return host


async def discover(
    timeout: float = 3.0,
    *,
    port: int = DISCOVERY_PORT,
    group: str | None = MULTICAST_GROUP,
    bind: str | None = "",
    group6: str | None = MULTICAST_GROUP_V6,
    bind6: str | None = "::",
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> list[DiscoveredGame]:
    """Listen for `timeout` seconds on IPv4 (`bind`; None: not) and IPv6 (`bind6`; None: not);
    the games listed at the end, in the order first heard, each once (`merge_games`).

    `task_status.started` reports the UDP port listened on (useful with `port=0`: the IPv6
    socket then takes the port the IPv4 one got). A machine without IPv6 listens on IPv4 only.
    """
    table = GameTable()
    with contextlib.ExitStack() as stack:
        sockets: list[trio.socket.SocketType] = []
        if bind is not None:
            sock = stack.enter_context(_udp_socket(socket.AF_INET))
            try:
                await sock.bind((bind, port))
            except OSError as error:
                raise DiscoveryError(
                    f"could not listen for LAN games on UDP port {port} ({error.strerror})"
                ) from None
            port = sock.getsockname()[1]
            if group is not None:
                membership = socket.inet_aton(group) + socket.inet_aton("0.0.0.0")
                with contextlib.suppress(OSError):  # no multicast route: broadcasts still arrive
                    sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
            sockets.append(sock)
        if bind6 is not None:
            try:
                sock6 = stack.enter_context(_udp_socket(socket.AF_INET6))
                await sock6.bind((bind6, port))
            except OSError as error:
                if not sockets:
                    raise DiscoveryError(
                        f"could not listen for LAN games on IPv6 UDP port {port} "
                        f"({error.strerror})"
                    ) from None
            else:
                port = sock6.getsockname()[1]
                if group6 is not None:
                    _join_v6_group(sock6, group6)
                sockets.append(sock6)
        if not sockets:
            raise ValueError("discover needs bind or bind6")
        task_status.started(port)

        async def listen(sock: trio.socket.SocketType) -> None:
            while True:
                datagram, source = await sock.recvfrom(MAX_DATAGRAM + 1)
                table.offer(datagram, _source_host(source), time.time())

        with trio.move_on_after(timeout):
            async with trio.open_nursery() as nursery:
                for sock in sockets:
                    nursery.start_soon(listen, sock)
    return merge_games(table.games(time.time()))
