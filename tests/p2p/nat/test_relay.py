# The relay client against a REAL magic-wormhole transit relay (PyPI magic-wormhole-transit-relay)
# started by this module on 127.0.0.1 and stopped at its end: two players meet through it and
# complete our real handshake (connect.handshake_initiator/-responder, fingerprint pinned), and
# exchange messages on the encrypted channel. A test-only proxy in front of the relay, speaking
# the relay's line protocol, then flips, drops or injects bytes: the handshake or the channel
# must fail with a TransportError, never yield a channel that carries altered data.
#
# The relay runs from VERSUS_TRANSIT_RELAY_PYTHON (a Python whose environment has the package,
# as .ci/run sets up) or from this interpreter if it has the package; otherwise the tests skip
# and say so. The sans-IO parts (token, side, request line, reply check) are tested always.
from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio

from tests.p2p.conftest import identity
from versus.p2p.channel import SecureChannel
from versus.p2p.errors import (
    ConnectError,
    DecryptionError,
    FingerprintMismatchError,
    HandshakeError,
    TransportError,
)
from versus.p2p.nat import relay as rl
from versus.p2p.nat.errors import (
    RelayAddressError,
    RelayError,
    RelayRefusedError,
    RelayTimeoutError,
)
from versus.p2p.nat.relay import RelayAddress, RelayRole

HOST, JOINER = identity(2), identity(1)
ROOM = bytes(range(16))
LIMIT = 20
#: The handshake's bytes on the wire, frame prefixes included: WELCOME host -> joiner,
#: HELLO + AUTH joiner -> host (p2p/handshake.py sizes, 4-byte length prefixes).
HANDSHAKE_TO_JOINER = 4 + 179
HANDSHAKE_TO_HOST = 4 + 74 + 4 + 113


# --- sans-IO -----------------------------------------------------------------------------------


def test_token_is_domain_separated_and_bound_to_fingerprint_and_room() -> None:
    token = rl.relay_token(HOST.fingerprint, ROOM)
    assert len(token) == 64 and int(token, 16) >= 0
    assert token == rl.relay_token(HOST.fingerprint.lower().replace("-", ""), ROOM)
    assert token != rl.relay_token(JOINER.fingerprint, ROOM)
    assert token != rl.relay_token(HOST.fingerprint, bytes(16))
    assert HOST.fingerprint.replace("-", "").lower() not in token
    with pytest.raises(RelayError, match="16 bytes"):
        rl.relay_token(HOST.fingerprint, b"short")


def test_sides_are_fixed_per_role_and_differ() -> None:
    token = rl.relay_token(HOST.fingerprint, ROOM)
    host, join = rl.relay_side(token, RelayRole.HOST), rl.relay_side(token, RelayRole.JOIN)
    assert host != join and len(host) == len(join) == 16
    assert host == rl.relay_side(token, RelayRole.HOST)
    line = rl.relay_request(token, host)
    assert line == f"please relay {token} for side {host}\n".encode()
    with pytest.raises(RelayError, match="64 hex"):
        rl.relay_request("zz", host)
    with pytest.raises(RelayError, match="16 hex"):
        rl.relay_request(token, "x")


def test_reply_check() -> None:
    rl.check_reply(b"ok\n", "tcp:r:1")
    for reply, needle in ((b"bad handshake\n", "bad handshake"), (b"impatient\n", "impatient"),
                          (b"HTTP/1.1 400\n", "transit relay")):
        with pytest.raises(RelayRefusedError, match=needle):
            rl.check_reply(reply, "tcp:r:1")


@pytest.mark.parametrize(
    ("text", "host", "port"),
    [("tcp:relay.example.org:4001", "relay.example.org", 4001),
     ("tcp:127.0.0.1:4001", "127.0.0.1", 4001),
     ("tcp:[::1]:4001", "::1", 4001)],
)
def test_relay_address_round_trips(text: str, host: str, port: int) -> None:
    address = RelayAddress.parse(text)
    assert (address.host, address.port) == (host, port)
    assert str(address) == text and RelayAddress.parse(str(address)) == address


@pytest.mark.parametrize(
    ("text", "needle"),
    [("relay.example.org:4001", "tcp:HOST:PORT"), ("tcp:relay.example.org", "no :PORT"),
     ("tcp:relay:0", "outside"), ("tcp:relay:x1", "not a number"), ("tcp:::1:4001", "brackets"),
     ("tcp:bad_host!:4001", "not a valid host")],
)
def test_relay_address_errors(text: str, needle: str) -> None:
    with pytest.raises(RelayAddressError, match=needle):
        RelayAddress.parse(text)


def test_new_rooms_are_random() -> None:
    assert len({rl.new_room() for _ in range(20)}) == 20


# --- the real relay --------------------------------------------------------------------------


def _relay_python() -> str | None:
    configured = os.environ.get("VERSUS_TRANSIT_RELAY_PYTHON")
    if configured:
        return configured
    if importlib.util.find_spec("wormhole_transit_relay") is not None:
        return sys.executable
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def relay_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RelayAddress]:
    python = _relay_python()
    if python is None:
        pytest.skip("magic-wormhole-transit-relay is not installed (pip install "
                    "magic-wormhole-transit-relay, or set VERSUS_TRANSIT_RELAY_PYTHON)")
    port = _free_port()
    log = tmp_path_factory.mktemp("relay") / "relay.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [python, "-m", "twisted", "transitrelay", f"--port=tcp:{port}:interface=127.0.0.1"],
            stdout=out, stderr=subprocess.STDOUT, cwd=str(log.parent),
        )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    text = Path(log).read_text(errors="replace")[-2000:]
                    pytest.fail(f"the transit relay did not start on port {port}:\n{text}")
                time.sleep(0.1)
        yield RelayAddress("127.0.0.1", port)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


async def _meet(
    relay_for_host: RelayAddress, relay_for_joiner: RelayAddress, *,
    pin: str | None = None, room_for_joiner: bytes = ROOM, handshake_timeout: float = 5.0,
    wait_timeout: float = 10.0,
) -> tuple[SecureChannel | BaseException, SecureChannel | BaseException]:
    """Host and joiner meet at the relay; each result is the channel or the error raised."""
    results: dict[str, SecureChannel | BaseException] = {}

    async def side(name: str, make: Callable[[], object]) -> None:
        try:
            results[name] = await make()  # type: ignore[misc]
        except TransportError as error:
            results[name] = error

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, "host", lambda: rl.relay_accept(
            relay_for_host, ROOM, HOST, handshake_timeout=handshake_timeout,
            wait_timeout=wait_timeout))
        await trio.sleep(0.1)
        nursery.start_soon(side, "join", lambda: rl.relay_connect(
            relay_for_joiner, pin or HOST.fingerprint, room_for_joiner, JOINER,
            handshake_timeout=handshake_timeout, wait_timeout=wait_timeout))
    return results["host"], results["join"]


async def test_two_players_meet_and_play_through_the_real_relay(
    relay_server: RelayAddress,
) -> None:
    with trio.fail_after(LIMIT):
        host, join = await _meet(relay_server, relay_server)
        assert isinstance(host, SecureChannel) and isinstance(join, SecureChannel)
        assert join.peer_fingerprint == HOST.fingerprint
        assert host.peer_fingerprint == JOINER.fingerprint
        assert host.handshake.handshake_hash == join.handshake.handshake_hash
        await join.send({"move": "hello", "n": 1})
        assert await host.receive() == {"move": "hello", "n": 1}
        await host.send(["reply", b"\x00" * 1000])
        assert await join.receive() == ["reply", b"\x00" * 1000]
        await join.aclose("done")
        await host.aclose("done")


async def test_a_second_meeting_works_after_the_first(relay_server: RelayAddress) -> None:
    with trio.fail_after(LIMIT):
        for _ in range(2):
            host, join = await _meet(relay_server, relay_server)
            assert isinstance(host, SecureChannel) and isinstance(join, SecureChannel)
            await host.aclose("bye")
            await join.aclose("bye")


async def test_a_wrong_pin_through_the_relay_is_refused(relay_server: RelayAddress) -> None:
    with trio.fail_after(LIMIT):
        host, join = await _meet(relay_server, relay_server, pin=JOINER.fingerprint,
                                 wait_timeout=3.0)
    # the token is bound to the pinned fingerprint: the joiner never even meets this host
    assert isinstance(join, RelayTimeoutError)
    assert isinstance(host, RelayTimeoutError)


async def test_a_wrong_room_never_meets(relay_server: RelayAddress) -> None:
    with trio.fail_after(LIMIT):
        host, join = await _meet(relay_server, relay_server, room_for_joiner=bytes(16),
                                 wait_timeout=2.0)
    assert isinstance(join, RelayTimeoutError) and "did not reach relay" in str(join)
    assert isinstance(host, RelayTimeoutError)


async def test_an_impostor_host_at_the_relay_fails_the_pin(relay_server: RelayAddress) -> None:
    # Someone who learned the room and the host's fingerprint (the invite) waits as the host
    # with another key: the joiner's pin refuses it after the relay's "ok".
    impostor = identity(3)
    token = rl.relay_token(HOST.fingerprint, ROOM)
    results: dict[str, object] = {}
    with trio.fail_after(LIMIT):
        async def fake_host() -> None:
            stream = await rl.open_relay_stream(relay_server, token, RelayRole.HOST,
                                                wait_timeout=10)
            from versus.p2p.connect import handshake_responder
            try:
                results["host"] = await handshake_responder(stream, impostor, timeout=5)
            except TransportError as error:
                results["host"] = error

        async def joiner() -> None:
            try:
                results["join"] = await rl.relay_connect(relay_server, HOST.fingerprint, ROOM,
                                                         JOINER, handshake_timeout=5)
            except TransportError as error:
                results["join"] = error

        async with trio.open_nursery() as nursery:
            nursery.start_soon(fake_host)
            await trio.sleep(0.1)
            nursery.start_soon(joiner)
    assert isinstance(results["join"], FingerprintMismatchError)
    assert isinstance(results["host"], TransportError)


async def test_nothing_listening_is_a_connect_error() -> None:
    with trio.fail_after(LIMIT), pytest.raises(ConnectError):
        await rl.relay_connect(RelayAddress("127.0.0.1", _free_port()), HOST.fingerprint, ROOM,
                               JOINER, connect_timeout=2)


async def test_a_server_that_is_not_a_relay_is_named(nursery: trio.Nursery) -> None:
    async def not_a_relay(stream: trio.SocketStream) -> None:
        await stream.receive_some(200)
        await stream.send_all(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    nursery.start_soon(trio.serve_listeners, not_a_relay, listeners)
    with trio.fail_after(LIMIT), pytest.raises(RelayRefusedError, match="transit relay"):
        await rl.relay_connect(RelayAddress("127.0.0.1", port), HOST.fingerprint, ROOM, JOINER)


# --- a relay that tampers --------------------------------------------------------------------

Tamper = Callable[[int, bytes], bytes]  # (offset of chunk in its direction, chunk) -> chunk


def _flip_at(offset: int) -> Tamper:
    def tamper(start: int, chunk: bytes) -> bytes:
        if start <= offset < start + len(chunk):
            i = offset - start
            return chunk[:i] + bytes([chunk[i] ^ 0x40]) + chunk[i + 1:]
        return chunk
    return tamper


def _drop_at(offset: int) -> Tamper:
    def tamper(start: int, chunk: bytes) -> bytes:
        if start <= offset < start + len(chunk):
            i = offset - start
            return chunk[:i] + chunk[i + 1:]
        return chunk
    return tamper


def _inject_at(offset: int, extra: bytes) -> Tamper:
    def tamper(start: int, chunk: bytes) -> bytes:
        if start <= offset < start + len(chunk):
            i = offset - start
            return chunk[:i] + extra + chunk[i:]
        return chunk
    return tamper


def _clean(start: int, chunk: bytes) -> bytes:
    return chunk


async def _tampering_proxy(
    relay: RelayAddress, to_joiner: Tamper, to_host: Tamper, *,
    task_status: trio.TaskStatus[RelayAddress] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Sits between the joiner and the real relay: passes the relay line and "ok" through
    untouched, then hands every later chunk to a tamper function per direction."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]

    async def pump(source: trio.abc.Stream, sink: trio.abc.Stream, tamper: Tamper,
                   skip: int) -> None:
        offset = -skip  # the relay's own line ("please relay..." or "ok\n") is not tampered
        try:
            while data := await source.receive_some(1):  # one byte at a time: exact offsets
                out = data if offset < 0 else tamper(offset, data)
                offset += len(data)
                if out:
                    await sink.send_all(out)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            await trio.aclose_forcefully(sink)

    async def handle(joiner: trio.SocketStream) -> None:
        upstream = await trio.open_tcp_stream(relay.host, relay.port)
        request_length = len(rl.relay_request("0" * 64, "0" * 16))
        async with trio.open_nursery() as inner:
            inner.start_soon(pump, joiner, upstream, to_host, request_length)
            inner.start_soon(pump, upstream, joiner, to_joiner, len(rl.OK))

    async with trio.open_nursery() as nursery:
        task_status.started(RelayAddress("127.0.0.1", port))
        await trio.serve_listeners(handle, listeners, handler_nursery=nursery)


# name -> (tamper towards the joiner, towards the host, error of the host, error of the
# joiner); None: that side finished its part of the handshake (the initiator does after AUTH),
# and its channel's first receive must then fail, as the other side refused.
TAMPERING: dict[str, tuple[Tamper, Tamper, type[TransportError], type[TransportError] | None]] = {
    "flip-in-hello": (_clean, _flip_at(20), TransportError, HandshakeError),
    "flip-in-welcome": (_flip_at(100), _clean, TransportError, HandshakeError),
    "flip-in-auth": (_clean, _flip_at(4 + 74 + 30), HandshakeError, None),
    # (these two: both sides then wait for bytes that never come; whichever times out first
    # hangs up on the other, which sees the connection lost: a timeout or a lost connection)
    "drop-from-welcome": (_drop_at(50), _clean, TransportError, TransportError),
    "flip-in-welcome-length": (_flip_at(3), _clean, TransportError, TransportError),
    "inject-before-welcome": (_inject_at(0, b"\x00\x00\x00\x05hello"), _clean, TransportError,
                              HandshakeError),
    "inject-into-auth": (_clean, _inject_at(4 + 74 + 10, b"\xff"), HandshakeError, None),
}


@pytest.mark.parametrize("name", sorted(TAMPERING))
async def test_a_relay_that_tampers_with_the_handshake_fails_it(
    relay_server: RelayAddress, nursery: trio.Nursery, name: str,
) -> None:
    to_joiner, to_host, host_error, join_error = TAMPERING[name]
    proxy = await nursery.start(_tampering_proxy, relay_server, to_joiner, to_host)
    with trio.fail_after(LIMIT):
        host, join = await _meet(relay_server, proxy, handshake_timeout=2.0)
        assert isinstance(host, host_error), host
        if join_error is not None:
            assert isinstance(join, join_error), join
        else:
            assert isinstance(join, SecureChannel), join
            with pytest.raises(TransportError):
                await join.receive()
            await join.aclose("test")


@pytest.mark.parametrize("direction", ["to-joiner", "to-host"])
async def test_a_relay_that_tampers_after_the_handshake_breaks_the_channel(
    relay_server: RelayAddress, nursery: trio.Nursery, direction: str,
) -> None:
    if direction == "to-joiner":
        tampers = (_flip_at(HANDSHAKE_TO_JOINER + 30), _clean)
    else:
        tampers = (_clean, _flip_at(HANDSHAKE_TO_HOST + 30))
    proxy = await nursery.start(_tampering_proxy, relay_server, *tampers)
    with trio.fail_after(LIMIT):
        host, join = await _meet(relay_server, proxy)
        assert isinstance(host, SecureChannel) and isinstance(join, SecureChannel)
        sender, receiver = (host, join) if direction == "to-joiner" else (join, host)
        await sender.send({"score": 10, "padding": "x" * 100})
        with pytest.raises(DecryptionError, match="failed authentication"):
            await receiver.receive()
        await host.aclose("test")
        await join.aclose("test")
