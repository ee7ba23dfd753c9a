from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2p.discovery import (
    MAX_DATAGRAM,
    Announcement,
    decode_announcement,
    encode_announcement,
)
from p2p.errors import InvalidAnnouncementError
from tests.p2p.conftest import identity

REPO = Path(__file__).resolve().parents[2]


def test_round_trip() -> None:
    datagram = encode_announcement(identity(2), "Bob's table ♠", 47820)
    assert len(datagram) == 42 + len("Bob's table ♠".encode()) + 64
    announcement = decode_announcement(datagram)
    assert announcement == Announcement("Bob's table ♠", 47820, identity(2).public_key, 1)
    assert announcement.fingerprint == identity(2).fingerprint


def _tamper(datagram: bytes, index: int) -> bytes:
    raw = bytearray(datagram)
    raw[index] ^= 1
    return bytes(raw)


GOOD = encode_announcement(identity(2), "game", 47820)


@pytest.mark.parametrize(
    "datagram, problem",
    [
        (b"", "too short"),
        (b"x" * (MAX_DATAGRAM + 1), "too large"),
        (b"HTTP" + GOOD[4:], "not a Versus announcement"),
        (GOOD + b"!", "does not match its name length"),
        (_tamper(GOOD, 8), "signature does not verify"),  # the port
        (_tamper(GOOD, 45), "signature does not verify"),  # the name
        (_tamper(GOOD, -1), "signature does not verify"),
    ],
)
def test_garbage_is_rejected(datagram: bytes, problem: str) -> None:
    with pytest.raises(InvalidAnnouncementError, match=problem):
        decode_announcement(datagram)


def test_names_are_bounded() -> None:
    with pytest.raises(ValueError, match="game name"):
        encode_announcement(identity(2), "x" * 65, 1)
    with pytest.raises(ValueError, match="game name"):
        encode_announcement(identity(2), "bell\x07", 1)


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
from p2p.discovery import announce
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
from p2p.discovery import discover
games = trio.run(discover, 2.0)
print(json.dumps([g.__dict__ for g in games]))
"""


@pytest.mark.netns
@pytest.mark.parametrize(
    "targets",
    [None, [(f"{_SUBNET}.255", 47821)]],
    ids=["multicast-and-broadcast", "subnet-broadcast"],
)
def test_discover_across_a_virtual_lan(lan: tuple[str, str], targets: object) -> None:
    host, joiner = lan
    listener = _in_netns(joiner, _DISCOVERER)
    junk_target = ("239.255.77.83", 47821) if targets is None else (f"{_SUBNET}.255", 47821)
    announcer = _in_netns(
        host, _ANNOUNCER.format(targets=targets, junk_target=junk_target)
    )
    out, err = listener.communicate(timeout=20)
    announcer.communicate(timeout=20)
    assert listener.returncode == 0, err
    assert json.loads(out) == [
        {
            "name": "Bob's game",
            "host": f"{_SUBNET}.1",
            "port": 47820,
            "fingerprint": identity(2).fingerprint,
            "version": 1,
        }
    ]
