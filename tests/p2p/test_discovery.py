from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.p2p.conftest import identity
from versus.p2p.discovery import (
    FRESHNESS_WINDOW,
    GAME_TTL,
    MAX_DATAGRAM,
    MAX_GAMES,
    MAX_GAMES_PER_SOURCE,
    NEW_GAMES_PER_SOURCE,
    SIGNATURE_DOMAIN,
    SOURCE_INTERVAL,
    Announcement,
    DiscoveredGame,
    GameTable,
    Offer,
    announce,
    decode_announcement,
    discover,
    encode_announcement,
    merge_games,
    source_unit,
)
from versus.p2p.errors import InvalidAnnouncementError, StaleAnnouncementError
from versus.protocol.crypto.identity import Identity

REPO = Path(__file__).resolve().parents[2]
T = 1_700_000_000.0  # the receiver's clock (unix seconds) in the pure tests
HOST = "10.0.0.1"


def test_round_trip() -> None:
    datagram = encode_announcement(identity(2), "Bob's table ♠", 47820, T)
    assert len(datagram) == 50 + len("Bob's table ♠".encode()) + 64
    announcement = decode_announcement(datagram, T)
    assert announcement == Announcement(
        "Bob's table ♠", 47820, identity(2).public_key, 1_700_000_000_000, 1
    )
    assert announcement.fingerprint == identity(2).fingerprint


def _tamper(datagram: bytes, index: int) -> bytes:
    raw = bytearray(datagram)
    raw[index] ^= 1
    return bytes(raw)


def _format_1(key: Identity, name: str, port: int) -> bytes:
    """A datagram as Versus sent it before timestamps (format 1), validly signed."""
    encoded = name.encode()
    body = struct.pack(">4sBHH32sB", b"VSLD", 1, 1, port, key.public_key, len(encoded)) + encoded
    return body + key.sign(SIGNATURE_DOMAIN + body)


GOOD = encode_announcement(identity(2), "game", 47820, T)


@pytest.mark.parametrize(
    "datagram, problem",
    [
        (b"", "too short"),
        (b"VSLD", "too short"),
        (b"x" * (MAX_DATAGRAM + 1), "too large"),
        (b"HTTP" + GOOD[4:], "not a Versus announcement"),
        (_format_1(identity(2), "g", 47820), "format 1 carries no timestamp and is refused"),
        (GOOD[:4] + b"\x03" + GOOD[5:], "unsupported announcement format 3"),
        (GOOD[:60], "too short"),
        (GOOD + b"!", "does not match its name length"),
        (_tamper(GOOD, 8), "signature does not verify"),  # the port
        (_tamper(GOOD, 16), "signature does not verify"),  # the timestamp, 1 ms off
        (_tamper(GOOD, 53), "signature does not verify"),  # the name
        (_tamper(GOOD, -1), "signature does not verify"),
    ],
)
def test_garbage_is_rejected(datagram: bytes, problem: str) -> None:
    with pytest.raises(InvalidAnnouncementError, match=problem):
        decode_announcement(datagram, T)


def test_names_are_bounded() -> None:
    with pytest.raises(ValueError, match="game name"):
        encode_announcement(identity(2), "x" * 65, 1, T)
    with pytest.raises(ValueError, match="game name"):
        encode_announcement(identity(2), "bell\x07", 1, T)
    with pytest.raises(ValueError, match="timestamp"):
        encode_announcement(identity(2), "game", 1, -1.0)


# --- freshness and replays ----------------------------------------------------------------------


def test_the_freshness_window_is_30_seconds_either_way() -> None:
    assert decode_announcement(GOOD, T + FRESHNESS_WINDOW).timestamp_ms == T * 1000
    assert decode_announcement(GOOD, T - FRESHNESS_WINDOW).timestamp_ms == T * 1000
    with pytest.raises(StaleAnnouncementError, match=r"31\.0 s old"):
        decode_announcement(GOOD, T + 31)
    with pytest.raises(StaleAnnouncementError, match=r"31\.0 s in the future"):
        decode_announcement(GOOD, T - 31)


def test_a_replayed_old_datagram_is_dropped() -> None:
    # Captured while the host was announcing, replayed a minute later (the host has left).
    table = GameTable()
    assert table.offer(GOOD, HOST, T + 60) is Offer.STALE
    assert table.offer(GOOD, "10.0.0.99", T + 3600) is Offer.STALE
    assert table.games(T + 60) == []


def test_the_same_datagram_again_does_not_extend_its_freshness() -> None:
    table = GameTable()
    assert table.offer(GOOD, HOST, T) is Offer.ADDED
    assert table.offer(GOOD, HOST, T + GAME_TTL - 1) is Offer.REPEATED  # inside the window
    assert [g.name for g in table.games(T + GAME_TTL - 0.5)] == ["game"]
    assert table.games(T + GAME_TTL) == []  # expired at T + TTL, as if never repeated
    # An older announcement of the game does not renew it either...
    newer = encode_announcement(identity(2), "game", 47820, T + 5)
    assert table.offer(newer, HOST, T + 12) is Offer.ADDED
    assert table.offer(GOOD, HOST, T + 13) is Offer.REPEATED
    # ... while a newer one does.
    assert table.offer(
        encode_announcement(identity(2), "game", 47820, T + 20), HOST, T + 20
    ) is Offer.RENEWED
    assert [g.name for g in table.games(T + 20 + GAME_TTL - 0.5)] == ["game"]


def test_one_datagram_lists_a_game_at_most_until_its_time_plus_window_and_ttl() -> None:
    table = GameTable()
    listed = []
    for tick in range(-80, 160):  # the same datagram every half second, for two minutes
        now = T + tick / 2
        table.offer(GOOD, HOST, now)
        if table.games(now):
            listed.append(now)
    assert min(listed) == T - FRESHNESS_WINDOW
    assert T + FRESHNESS_WINDOW <= max(listed) < T + FRESHNESS_WINDOW + GAME_TTL


# --- floods: the bounded table and the rate limit per source ----------------------------------


def _fake(n: int, now: float) -> bytes:
    """A validly signed announcement of a fake game under a fresh key."""
    return encode_announcement(identity(1000 + n), f"fake {n}", 40000 + n, now)


def _host_games(table: GameTable, now: float) -> list[DiscoveredGame]:
    return [g for g in table.games(now) if g.fingerprint == _HOST_FINGERPRINT]


_HOST_FINGERPRINT = identity(2).fingerprint


def test_a_flood_from_one_source_does_not_hide_the_real_host() -> None:
    table = GameTable()
    outcomes = [table.offer(_fake(n, T), "10.0.0.66", T + n / 1000) for n in range(120)]
    assert outcomes == [Offer.ADDED] * NEW_GAMES_PER_SOURCE + [Offer.RATE_LIMITED] * (
        120 - NEW_GAMES_PER_SOURCE
    )
    real = encode_announcement(identity(2), "Bob's game", 47820, T + 0.5)
    assert table.offer(real, HOST, T + 0.5) is Offer.ADDED
    games = table.games(T + 0.5)
    assert DiscoveredGame("Bob's game", HOST, 47820, identity(2).fingerprint, 1) in games
    assert len(games) == NEW_GAMES_PER_SOURCE + 1


def test_a_flood_from_many_sources_does_not_permanently_hide_a_host() -> None:
    # Every second, 100 fake games from 100 fresh addresses, then the host's announcement.
    table = GameTable()
    fake = 0
    for second in range(5):
        now = T + second
        for address in range(100):
            assert table.offer(_fake(fake, now), f"10.1.{second}.{address}", now) is Offer.ADDED
            fake += 1
        assert len(table.games(now)) == MAX_GAMES
        # 64 new games between two rounds evict the host until its next round, only as long
        # as it has been heard in one round only: from then on they evict one another ...
        assert len(_host_games(table, now)) == (second >= 2)
        host = encode_announcement(identity(2), "Bob's game", 47820, now + 0.5)
        assert table.offer(host, HOST, now + 0.5) is (
            Offer.RENEWED if second >= 2 else Offer.ADDED)
        # ... and it comes back in the place of the entry renewed least recently, a fake
        assert len(_host_games(table, now + 0.5)) == 1
        assert len(table.games(now + 0.5)) == MAX_GAMES
    # The flood stops; the host keeps announcing; the fakes expire.
    for second in range(5, 16):
        now = T + second + 0.5
        host = encode_announcement(identity(2), "Bob's game", 47820, now)
        assert table.offer(host, HOST, now) is Offer.RENEWED
    assert table.games(T + 15.5) == [
        DiscoveredGame("Bob's game", HOST, 47820, identity(2).fingerprint, 1)
    ]


def test_a_game_evicted_by_a_flood_comes_back_without_spending_its_source_s_share() -> None:
    table = GameTable(capacity=NEW_GAMES_PER_SOURCE)
    for n in range(NEW_GAMES_PER_SOURCE):
        assert table.offer(_fake(n, T), HOST, T) is Offer.ADDED
    assert table.offer(_fake(99, T + 1), "10.0.0.2", T + 1) is Offer.ADDED  # evicts fake 0
    assert "fake 0" not in [g.name for g in table.games(T + 1)]
    # fake 0 comes back free, and takes the place of another source's game, never of a game
    # its own source listed with it or before it
    assert table.offer(_fake(0, T + 2), HOST, T + 2) is Offer.ADDED
    assert sorted(g.name for g in table.games(T + 2)) == [f"fake {n}" for n in range(4)]
    assert table.offer(_fake(50, T + 3), HOST, T + 3) is Offer.RATE_LIMITED  # a fifth new game
    # long after (everything expired), a game its source has had listed still comes back free
    # of the window, in the place of a game its source listed after it
    later = T + 3 * SOURCE_INTERVAL
    for n in range(60, 60 + NEW_GAMES_PER_SOURCE):
        assert table.offer(_fake(n, later), HOST, later) is Offer.ADDED
    assert table.offer(_fake(64, later + 1), HOST, later + 1) is Offer.RATE_LIMITED
    assert table.offer(_fake(0, later + 1), HOST, later + 1) is Offer.ADDED
    assert "fake 60" not in [g.name for g in table.games(later + 1)]


def _spoofing_the_host(table: GameTable, start: float, seconds: int,
                       burst: int) -> tuple[list[float], int]:
    """A busy LAN (MAX_GAMES - 1 other hosts, announcing every second on the second, and the
    host at half past: so the host is the table's least recently renewed entry just before
    its rounds, the worst case) while an attacker forges the host's own source address: a
    burst of `burst` fakes, then 8 a second, each with a fresh key, each landing just before
    one of the host's rounds. The times at which the host was not listed, and how many fakes
    were let in."""
    events: list[tuple[float, int, str]] = []  # (time, key, source)
    for second in range(seconds):
        now = start + second
        events += [(now, 3000 + i, f"10.0.1.{i}") for i in range(MAX_GAMES - 1)]
        events.append((now + 0.5, 2, HOST))
    fakes = iter(range(5000, 10**6))
    events += [(start + 2.49, next(fakes), HOST) for _ in range(burst)]
    events += [(start + 2.49 + n / 8, next(fakes), HOST) for n in range(8 * (seconds - 3))]
    hidden, let_in = [], 0
    for now, key, source in sorted(events):
        datagram = encode_announcement(identity(key), f"g{key}", 40000 + key % 20000, now)
        outcome = table.offer(datagram, source, now)
        let_in += key >= 5000 and outcome is Offer.ADDED
        if now > start + 0.5 and not _host_games(table, now):
            hidden.append(now)
    return hidden, let_in


def test_a_flood_spoofing_the_host_s_address_never_displaces_it() -> None:
    """Review finding: fakes forged with the host's own source address used up the host's
    share of its source: each one admitted evicted the least recently renewed entry, the host
    too, and the host then came back only if the fakes had left room in its source's window.
    A game a source has had listed is never displaced by that source's other games."""
    hidden, let_in = _spoofing_the_host(GameTable(), T, seconds=30, burst=100)
    assert hidden == []
    # the fakes still got their source's share of new games, in other hosts' places: 3 in
    # the window the host opened at 0.5 s, 4 in each of those opened at 10.6 s and 20.6 s
    assert let_in == 3 + 2 * NEW_GAMES_PER_SOURCE


def test_a_host_back_after_a_pause_is_not_kept_out_by_fakes_from_its_address() -> None:
    """A listed host whose entry lapsed (its announcements lost for GAME_TTL, or evicted by a
    flood from many addresses) comes back at its next round, however many fakes forged with
    its address took the new games of its source's window: before, 8 fakes a second kept it
    out for as long as they were sent."""
    table = GameTable()
    fakes = iter(range(100, 10**6))
    for tick in range(8 * 40):  # a fake every 1/8 s, the host every second but seconds 6..16
        now = T + tick / 8
        table.offer(_fake(next(fakes), now), HOST, now)
        second, eighth = divmod(tick, 8)
        if eighth == 0 and not 6 <= second <= 16:
            host = encode_announcement(identity(2), "Bob's game", 47820, now + 0.01)
            assert table.offer(host, HOST, now + 0.01) in (Offer.ADDED, Offer.RENEWED)
        if second < 6 or second >= 17:
            assert len(_host_games(table, now + 0.01)) == 1, tick / 8


def test_the_rate_limit_window_and_the_share_of_one_source() -> None:
    table = GameTable()
    for n in range(NEW_GAMES_PER_SOURCE):
        assert table.offer(_fake(n, T), HOST, T) is Offer.ADDED
    assert table.offer(_fake(10, T + 9), HOST, T + 9) is Offer.RATE_LIMITED
    for n in range(NEW_GAMES_PER_SOURCE):  # renewals are free
        assert table.offer(_fake(n, T + 9), HOST, T + 9) is Offer.RENEWED
    later = T + SOURCE_INTERVAL  # a new window
    for n in range(10, 10 + NEW_GAMES_PER_SOURCE):
        assert table.offer(_fake(n, later), HOST, later) is Offer.ADDED
    assert len(table.games(later)) == MAX_GAMES_PER_SOURCE
    for n in [*range(NEW_GAMES_PER_SOURCE), *range(10, 10 + NEW_GAMES_PER_SOURCE)]:
        assert table.offer(_fake(n, later + 8), HOST, later + 8) is Offer.RENEWED
    latest = later + SOURCE_INTERVAL  # a fresh window, but the source holds its 8 places
    assert table.offer(_fake(20, latest), HOST, latest) is Offer.RATE_LIMITED
    assert table.offer(_fake(20, latest), "10.0.0.2", latest) is Offer.ADDED


def test_ipv6_sources_are_limited_per_address_with_its_zone() -> None:
    # every machine on a LAN shares its /64 (and fe80::/64): one neighbour's flood must not use
    # up the others' share, so an IPv6 source counts per address, as an IPv4 one does
    assert source_unit("2001:db8:0::1") == "2001:db8::1"
    assert source_unit("fe80::0:1%eth0") == "fe80::1%eth0" != source_unit("fe80::1%eth1")
    assert source_unit("::ffff:10.0.0.1") == source_unit("10.0.0.1") == "10.0.0.1"
    table = GameTable()
    for n in range(NEW_GAMES_PER_SOURCE):
        assert table.offer(_fake(n, T), "fe80::66%eth0", T) is Offer.ADDED
    assert table.offer(_fake(9, T), "fe80::66%eth0", T) is Offer.RATE_LIMITED
    assert table.offer(_fake(9, T), "fe80:0::66%eth0", T) is Offer.RATE_LIMITED
    real = encode_announcement(identity(2), "Bob's game", 47820, T)
    assert table.offer(real, "fe80::2%eth0", T) is Offer.ADDED  # the same /64, another machine
    assert table.offer(_fake(9, T), "fe80::66%eth1", T) is Offer.ADDED  # another link


def test_a_game_heard_from_several_addresses_is_listed_once_with_all_of_them() -> None:
    table = GameTable()
    now = T
    bob = encode_announcement(identity(2), "Bob's game", 47820, now)
    for source in ("10.0.0.1", "fe80::1%eth0", "10.0.0.1"):
        table.offer(bob, source, now)
    table.offer(encode_announcement(identity(3), "Ann's game", 47820, now), "10.0.0.5", now)
    games = merge_games(table.games(now))
    assert [(g.name, g.host, g.more) for g in games] == [
        ("Bob's game", "10.0.0.1", ("fe80::1%eth0",)), ("Ann's game", "10.0.0.5", ())]
    assert games[0].invite.addresses == (("10.0.0.1", 47820), ("fe80::1%eth0", 47820))
    assert str(games[0].invite).startswith("versus://10.0.0.1:47820,[fe80::1%25eth0]:47820#")


_POOL = [  # (key, timestamp offset): a few games, each at a few times
    (key, offset) for key in range(12) for offset in (-40, -5, 0, 5, 40)
]


@functools.cache
def _pooled(key: int, offset: int) -> bytes:
    return encode_announcement(identity(2000 + key), f"g{key}", 1000 + key, T + offset)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(_POOL), st.integers(0, 2), st.floats(0, 4)), max_size=60
    )
)
def test_the_table_stays_bounded_and_fresh(
    steps: list[tuple[tuple[int, int], int, float]],
) -> None:
    table = GameTable(capacity=10)
    now, accepted = T - 20, {}
    for (key, offset), source, step in steps:
        now += step
        if table.offer(_pooled(key, offset), f"10.0.0.{source}", now) in (Offer.ADDED,
                                                                           Offer.RENEWED):
            accepted[key, source] = T + offset
        games = table.games(now)
        assert len(games) <= 10
        for address in {g.host for g in games}:
            assert sum(g.host == address for g in games) <= MAX_GAMES_PER_SOURCE
        for game in games:
            stamp = accepted[int(game.name[1:]), int(game.host.rsplit(".", 1)[1])]
            assert now < stamp + FRESHNESS_WINDOW + GAME_TTL


# --- on loopback ------------------------------------------------------------------------------


def test_discover_on_loopback_lists_the_host_despite_a_flood() -> None:
    """Real sockets: 120 fakes from 127.0.0.3, then the real announcer (from 127.0.0.1)."""
    found: list[DiscoveredGame] = []

    async def main() -> None:
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:

                async def listen(task_status: trio.TaskStatus[int]) -> None:
                    found.extend(await discover(
                        1.0, port=0, group=None, bind="127.0.0.1", bind6=None,
                        task_status=task_status,
                    ))
                    nursery.cancel_scope.cancel()

                port = await nursery.start(listen)
                with trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as flooder:
                    await flooder.bind(("127.0.0.3", 0))
                    for n in range(120):
                        await flooder.sendto(_fake(n, time.time()), ("127.0.0.1", port))
                nursery.start_soon(partial(
                    announce, identity(2), "Bob's game", 47820, interval=0.2,
                    targets=[("127.0.0.1", port)],
                ))

    trio.run(main)
    real = DiscoveredGame("Bob's game", "127.0.0.1", 47820, identity(2).fingerprint, 1)
    assert real in found
    fakes = [g for g in found if g != real]
    assert 1 <= len(fakes) <= NEW_GAMES_PER_SOURCE
    assert {g.host for g in fakes} == {"127.0.0.3"}


def test_discover_on_ipv6_loopback_alongside_ipv4_lists_the_game_once() -> None:
    """Real sockets on ::1 and 127.0.0.1 (multicast cannot loop on ::1: Linux's lo takes no
    multicast, so the group itself is tested across a veth below). A replayed stale datagram
    and garbage from ::1 are dropped; the same game heard over both families is one entry."""
    found: list[DiscoveredGame] = []

    async def main() -> None:
        with trio.fail_after(10):
            async with trio.open_nursery() as nursery:

                async def listen(task_status: trio.TaskStatus[int]) -> None:
                    found.extend(await discover(
                        1.0, port=0, group=None, bind="127.0.0.1", group6=None, bind6="::1",
                        task_status=task_status,
                    ))
                    nursery.cancel_scope.cancel()

                port = await nursery.start(listen)
                with trio.socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as other:
                    await other.sendto(_fake(1, time.time() - 60), ("::1", port))  # a replay
                    await other.sendto(b"VSLD" + b"\0" * 200, ("::1", port))
                nursery.start_soon(partial(
                    announce, identity(2), "Bob's game", 47820, interval=0.2,
                    targets=[("::1", port), ("127.0.0.1", port)],
                ))

    trio.run(main)
    assert found == [DiscoveredGame("Bob's game", "::1", 47820, identity(2).fingerprint, 1)]
    assert found[0].more == ("127.0.0.1",)
    assert found[0].invite.addresses == (("::1", 47820), ("127.0.0.1", 47820))


# --- over a real (virtual) LAN ----------------------------------------------------------------

_NS = f"vs{os.getpid() % 100000}"
_SUBNET = "10.231.77"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@pytest.fixture(scope="module")
def lan() -> Iterator[tuple[str, str]]:
    """Two network namespaces joined by a veth pair, with a multicast route in each."""
    if shutil.which("ip") is None or sys.platform != "linux":
        pytest.skip("needs Linux and the ip command for network namespaces")
    host, joiner = f"{_NS}h", f"{_NS}j"
    try:
        _ip("netns", "add", host)
    except (subprocess.CalledProcessError, OSError) as error:
        pytest.skip(f"cannot create network namespaces here: {error}")
    try:
        _ip("netns", "add", joiner)
        _ip("link", "add", f"{_NS}a", "type", "veth", "peer", "name", f"{_NS}b")
        for ns, dev, last in ((host, f"{_NS}a", 1), (joiner, f"{_NS}b", 2)):
            _ip("link", "set", dev, "netns", ns)
            _ip("-n", ns, "addr", "add", f"{_SUBNET}.{last}/24", "dev", dev)
            # a fixed link-local address, usable at once (no duplicate address detection)
            _ip("-n", ns, "link", "set", "dev", dev, "addrgenmode", "none")
            _ip("-n", ns, "addr", "add", f"fe80::{last}/64", "dev", dev, "nodad")
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", dev)
        yield host, joiner
    finally:
        for ns in (host, joiner):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)


def _in_netns(ns: str, script: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, "-c", textwrap.dedent(script)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


_ANNOUNCER = """
import socket, trio
from versus.p2p.discovery import announce
from tests.p2p.conftest import identity

async def main():
    junk = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    junk.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    with trio.move_on_after(3):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: announce(identity(2), "Bob's game", 47820,
                                                interval=0.2, targets={targets}))
            for _ in range(15):
                junk.sendto(b"garbage" * 3, {junk_target})
                await trio.sleep(0.2)
trio.run(main)
"""

_DISCOVERER = """
import json, trio
from functools import partial
from versus.p2p.discovery import discover
games = trio.run(partial(discover, 2.0, bind={bind!r}))
print(json.dumps([g.__dict__ for g in games]))
"""


@pytest.mark.netns
@pytest.mark.parametrize(
    ("targets", "bind", "hosts"),
    [(None, "", [f"{_SUBNET}.1", f"fe80::1%{_NS}b"]),
     ([(f"{_SUBNET}.255", 47821)], "", [f"{_SUBNET}.1"]),
     (None, None, [f"fe80::1%{_NS}b"])],
    ids=["multicast-v4-v6-and-broadcast", "subnet-broadcast", "ipv6-link-local-multicast"],
)
def test_discover_across_a_virtual_lan(lan: tuple[str, str], targets: object, bind: str | None,
                                       hosts: list[str]) -> None:
    host, joiner = lan
    listener = _in_netns(joiner, _DISCOVERER.format(bind=bind))
    junk_target = ("239.255.77.83", 47821) if targets is None else (f"{_SUBNET}.255", 47821)
    announcer = _in_netns(
        host, _ANNOUNCER.format(targets=targets, junk_target=junk_target)
    )
    out, err = listener.communicate(timeout=20)
    announcer.communicate(timeout=20)
    assert listener.returncode == 0, err
    games = json.loads(out)
    assert len(games) == 1, games
    assert sorted([games[0].pop("host"), *games[0].pop("more")]) == sorted(hosts)
    assert games[0] == {"name": "Bob's game", "port": 47820,
                        "fingerprint": identity(2).fingerprint, "version": 1}


def test_proven_fakes_renewed_after_the_host_from_few_sources_do_not_hide_it() -> None:
    """8 forged sources hold 63 places with games they renew right after every round of the
    host, and 3 more bring one fresh key a second: the host was the least recently renewed
    proven entry, so each fresh fake evicted it (listed 0 of 360 looks). A full table now
    evicts from the source holding the most games, never from one holding fewer than the
    newcomer's source plus two."""
    table = GameTable()

    def host(now: float) -> None:
        table.offer(encode_announcement(identity(2), "Bob's game", 47820, now), HOST, now)

    holders = {n: f"10.9.0.{n // 8}" for n in range(63)}
    now = T
    for _ in range(25):  # the fakes come in at each source's rate and are renewed: proven
        host(now)
        for n, source in holders.items():
            table.offer(_fake(n, now + 0.01), source, now + 0.01)
        now += 1.0
    assert len(table.games(now)) == MAX_GAMES and _host_games(table, now)
    looks = listed = 0
    for second in range(60):
        now += 1.0
        host(now)
        for n, source in holders.items():  # free renewals, just after the host's
            table.offer(_fake(n, now + 0.01), source, now + 0.01)
        table.offer(_fake(1000 + second, now + 0.01), f"10.8.0.{second % 3}", now + 0.01)
        for look in (0.2, 0.5, 0.9):
            looks += 1
            listed += bool(_host_games(table, now + look))
    assert listed == looks, f"the host was listed at {listed} of {looks} looks"
