# Happy eyeballs over an invite's addresses (connect.connect_any, JoinLink): on real loopback
# TCP, a dead address before a live one (a port that refuses, and one that accepts TCP but never
# answers the handshake), an impostor before the real host (the pin still applies to every
# address), every address failing (one reason each, in order), and the single-address case that
# must stay exactly `connect`. Every test stops itself with trio.fail_after.
from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest
import trio

from tests.p2p.conftest import identity
from versus.p2p.channel import SecureChannel
from versus.p2p.connect import (
    AllAddressesFailedError,
    connect_any,
    connect_invite,
    listening_port,
    open_listeners,
    serve,
)
from versus.p2p.errors import ConnectError, FingerprintMismatchError
from versus.p2p.invite import Invite
from versus.p2p.link import JoinFailedError, JoinLink
from versus.p2p.nat.relay import RelayAddress

HOST, JOINER, IMPOSTOR = identity(2), identity(1), identity(66)
LIMIT = 10


def _refusing_port() -> int:
    """A loopback port nothing listens on (connecting is refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _host(nursery: trio.Nursery, who: object = HOST) -> tuple[int, list[SecureChannel]]:
    listeners = await open_listeners(0, bind="127.0.0.1")
    accepted: list[SecureChannel] = []

    async def keep(channel: SecureChannel) -> None:
        accepted.append(channel)

    await nursery.start(serve, listeners, who, keep)
    return listening_port(listeners), accepted


@pytest.fixture
async def silent() -> AsyncIterator[int]:
    """A port that completes TCP connections (the kernel's backlog) and never says a word."""
    sock = trio.socket.socket()
    await sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


async def test_a_refusing_address_then_the_live_one(nursery: trio.Nursery) -> None:
    with trio.fail_after(LIMIT):
        port, _accepted = await _host(nursery)
        dead = _refusing_port()
        started = trio.current_time()
        channel = await connect_any([("127.0.0.1", dead), ("127.0.0.1", port)], JOINER,
                                    expected_fingerprint=HOST.fingerprint, stagger=2.0)
        # the refusal starts the next attempt at once, without waiting out the stagger
        assert trio.current_time() - started < 1.5
        assert channel.peer == f"127.0.0.1:{port}"
        assert channel.peer_fingerprint == HOST.fingerprint
        await channel.aclose("done")


async def test_a_silent_address_is_overtaken_after_the_stagger(
    nursery: trio.Nursery, silent: int,
) -> None:
    with trio.fail_after(LIMIT):
        port, accepted = await _host(nursery)
        started = trio.current_time()
        channel = await connect_any([("127.0.0.1", silent), ("127.0.0.1", port)], JOINER,
                                    expected_fingerprint=HOST.fingerprint, stagger=0.25,
                                    handshake_timeout=8.0)
        elapsed = trio.current_time() - started
        assert 0.2 <= elapsed < 3.0  # not the silent address's handshake timeout
        assert channel.peer == f"127.0.0.1:{port}"
        await trio.sleep(0.1)
        assert len(accepted) == 1
        await channel.send("hello")
        assert await accepted[0].receive() == "hello"
        await channel.aclose("done")


async def test_the_pin_applies_to_every_address(nursery: trio.Nursery) -> None:
    with trio.fail_after(LIMIT):
        impostor_port, _ = await _host(nursery, IMPOSTOR)
        port, _ = await _host(nursery)
        channel = await connect_any([("127.0.0.1", impostor_port), ("127.0.0.1", port)],
                                    JOINER, expected_fingerprint=HOST.fingerprint)
        assert channel.peer_fingerprint == HOST.fingerprint
        assert channel.peer == f"127.0.0.1:{port}"
        await channel.aclose("done")
        # only impostors: no channel, and the mismatch is named
        with pytest.raises(AllAddressesFailedError) as info:
            await connect_any([("127.0.0.1", impostor_port), ("localhost", impostor_port)],
                              JOINER, expected_fingerprint=HOST.fingerprint)
        assert [type(e) for _a, e in info.value.failures] == [FingerprintMismatchError] * 2


async def test_every_address_failing_names_each_in_order(silent: int) -> None:
    with trio.fail_after(LIMIT):
        dead = _refusing_port()
        with pytest.raises(AllAddressesFailedError) as info:
            await connect_any([("127.0.0.1", silent), ("127.0.0.1", dead)], JOINER,
                              expected_fingerprint=HOST.fingerprint, stagger=0.1,
                              handshake_timeout=0.5)
        labels = [label for label, _error in info.value.failures]
        assert labels == [f"127.0.0.1:{silent}", f"127.0.0.1:{dead}"]
        message = str(info.value)
        assert "2 addresses" in message and "connection refused" in message
        assert "did not complete the handshake" in message and "\n" not in message


async def test_one_address_is_exactly_connect() -> None:
    with trio.fail_after(LIMIT):
        dead = _refusing_port()
        with pytest.raises(ConnectError) as info:
            await connect_any([("127.0.0.1", dead)], JOINER)
        assert not isinstance(info.value, AllAddressesFailedError)
        assert str(info.value).startswith(f"could not connect to 127.0.0.1:{dead}")


async def test_connect_invite_tries_every_address(nursery: trio.Nursery) -> None:
    with trio.fail_after(LIMIT):
        port, _ = await _host(nursery)
        invite = Invite.of([("127.0.0.1", _refusing_port()), ("127.0.0.1", port)],
                           HOST.fingerprint)
        channel = await connect_invite(str(invite), JOINER)
        assert channel.peer_fingerprint == HOST.fingerprint
        await channel.aclose("done")


async def test_join_link_lists_every_failure_with_the_relay_last() -> None:
    with trio.fail_after(LIMIT):
        dead = _refusing_port()
        relay = RelayAddress("127.0.0.1", _refusing_port())
        link = JoinLink("127.0.0.1", dead, JOINER, fingerprint=HOST.fingerprint,
                        more=(("localhost", dead),), relay=relay, room=bytes(16))
        with pytest.raises(JoinFailedError) as info:
            await link.first()
        failures = info.value.failures
        assert len(failures) == 3
        assert failures[0].startswith(f"127.0.0.1:{dead}: could not connect")
        assert failures[1].startswith(f"localhost:{dead}: ")
        assert failures[2].startswith(f"relay {relay}: ")
        assert str(info.value) == (f"could not reach the host at its 2 addresses nor through "
                                   f"relay {relay}")
