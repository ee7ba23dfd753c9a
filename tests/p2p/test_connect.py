from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
import trio
import trio.testing

from tests.p2p.conftest import counter_rng, identity
from versus.p2p.channel import SecureChannel
from versus.p2p.connect import (
    accept_one,
    connect,
    connect_invite,
    handshake_initiator,
    handshake_responder,
    listening_port,
    open_listeners,
    pin_check,
    secure_stream,
    serve,
)
from versus.p2p.errors import (
    ConnectError,
    ConnectionLostError,
    FingerprintMismatchError,
    FrameTooLargeError,
    HandshakeError,
    HandshakeTimeoutError,
    ListenError,
    PeerKeyChangedError,
    PeerRejectedError,
    TransportError,
)
from versus.p2p.framing import encode_frame
from versus.p2p.handshake import Handshake, Role
from versus.p2p.invite import Invite
from versus.p2p.known_peers import KnownPeers

HOST = identity(2)


async def _pair(
    initiator_check: object = None, responder_identity: object = HOST
) -> tuple[list[object], list[object]]:
    """Run both driver sides over memory; each list holds the channel or the error."""
    left, right = trio.testing.memory_stream_pair()
    out_i: list[object] = []
    out_r: list[object] = []

    async def side(out: list[object], coro: object) -> None:
        try:
            out.append(await coro)  # type: ignore[misc]
        except TransportError as error:
            out.append(error)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, out_r, handshake_responder(right, responder_identity))  # type: ignore[arg-type]
        nursery.start_soon(
            side, out_i,
            handshake_initiator(left, identity(1), peer="host:9", check_peer=initiator_check),  # type: ignore[arg-type]
        )
    return out_i, out_r


async def test_pinned_fingerprint_match() -> None:
    (client,), (server,) = await _pair(pin_check("host:9", HOST.fingerprint.lower(), None))
    assert isinstance(client, SecureChannel) and isinstance(server, SecureChannel)
    await client.send("ok")
    assert await server.receive() == "ok"


async def test_pinned_fingerprint_mismatch_aborts_before_we_reveal_ourselves() -> None:
    impostor = identity(66)
    (error,), (host_side,) = await _pair(pin_check("host:9", HOST.fingerprint, None), impostor)
    assert isinstance(error, FingerprintMismatchError)
    assert str(error) == (
        f"host:9 presented identity {impostor.fingerprint}, but the invite pins "
        f"{HOST.fingerprint}; connection aborted — get a fresh invite from the host's player"
    )
    assert isinstance(host_side, ConnectionLostError)  # it never saw our AUTH


async def test_changed_key_in_known_peers(tmp_path: Path) -> None:
    peers = KnownPeers.load(tmp_path / "known_peers")
    peers.remember("host:9", HOST.fingerprint, "test")
    (error,), _ = await _pair(pin_check("host:9", None, peers), identity(66))
    assert isinstance(error, PeerKeyChangedError)
    assert HOST.fingerprint in str(error) and identity(66).fingerprint in str(error)
    assert "line 2" in str(error)


async def test_truncated_handshake() -> None:
    left, right = trio.testing.memory_stream_pair()
    hello = Handshake(Role.INITIATOR, identity(1), counter_rng()).start()
    await left.send_all(encode_frame(hello)[:40])
    await left.aclose()
    with pytest.raises(ConnectionLostError, match="closed the connection during the handshake"):
        await handshake_responder(right, HOST, peer="10.1.1.1:5")


async def test_stalled_handshake_times_out(autojump_clock: trio.abc.Clock) -> None:
    _left, right = trio.testing.memory_stream_pair()
    start = trio.current_time()
    with pytest.raises(HandshakeTimeoutError, match=r"10\.1\.1\.1:5 did not complete"):
        await handshake_responder(right, HOST, peer="10.1.1.1:5", timeout=7)
    assert trio.current_time() - start == pytest.approx(7)


@pytest.mark.parametrize(
    "raw, error, match",
    [
        (b"GET / HTTP/1.1\r\n\r\n", FrameTooLargeError, "limit 512"),
        (encode_frame(b"\x01VSP2\x00\x01\x00\x01\x01" + bytes(64)), HandshakeError, "low-order"),
        (encode_frame(b"\x01VSP2" + bytes(69)), HandshakeError, "versions 0..0"),
        (encode_frame(b"\x03" + bytes(112)), HandshakeError, "sent AUTH while"),
    ],
    ids=["http", "low-order-key", "version-0", "auth-first"],
)
async def test_garbage_handshakes(raw: bytes, error: type, match: str) -> None:
    left, right = trio.testing.memory_stream_pair()
    await left.send_all(raw)
    with pytest.raises(error, match=match):
        await handshake_responder(right, HOST)


async def test_version_mismatch_reaches_the_initiator_as_a_rejection() -> None:
    left, right = trio.testing.memory_stream_pair()
    results: list[object] = []

    async def respond() -> None:
        with pytest.raises(TransportError) as info:
            await handshake_responder(right, HOST)
        results.append(info.value)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(respond)
        handshake = Handshake(Role.INITIATOR, identity(1), counter_rng(), versions=(7, 9))
        with pytest.raises(PeerRejectedError, match="no common version"):
            await secure_stream(left, handshake, peer="host:9")
    assert "speaks transport versions 7..9" in str(results[0])


async def test_connection_refused() -> None:
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    for listener in listeners:
        await listener.aclose()
    with pytest.raises(ConnectError, match=f"127.0.0.1:{port} \\(connection refused\\)"):
        await connect("127.0.0.1", port, identity(1), connect_timeout=5)


async def test_port_in_use() -> None:
    listeners = await open_listeners(0, bind="127.0.0.1")
    try:
        with pytest.raises(ListenError, match="another program uses that port"):
            await open_listeners(listening_port(listeners), bind="127.0.0.1")
    finally:
        for listener in listeners:
            await listener.aclose()


@pytest.mark.slow
async def test_real_tcp_match(tmp_path: Path) -> None:
    """Handshake over 127.0.0.1, a garbage client turned away, 300 messages each way, close."""
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    rejected: list[TransportError] = []
    peers = KnownPeers.load(tmp_path / "known_peers")
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            hosting = trio.Event()
            server_box: list[SecureChannel] = []

            async def host() -> None:
                server_box.append(await accept_one(listeners, HOST, on_error=rejected.append))
                hosting.set()

            nursery.start_soon(host)
            garbage = await trio.open_tcp_stream("127.0.0.1", port)
            await garbage.send_all(b"\x00\x00\x00\x05hello")
            invite = str(Invite("127.0.0.1", port, HOST.fingerprint))
            client = await connect_invite(invite, identity(1), known_peers=peers)
            await hosting.wait()
            server = server_box[0]

            async def pump(channel: SecureChannel, tag: str) -> None:
                for i in range(300):
                    await channel.send({"from": tag, "n": i, "pad": b"x" * 200})

            async def drain(channel: SecureChannel, tag: str) -> None:
                for i in range(300):
                    assert await channel.receive() == {"from": tag, "n": i, "pad": b"x" * 200}

            async with trio.open_nursery() as traffic:
                traffic.start_soon(pump, client, "client")
                traffic.start_soon(pump, server, "server")
                traffic.start_soon(drain, client, "server")
                traffic.start_soon(drain, server, "client")
            await client.aclose("good game")
            with pytest.raises(TransportError, match="good game"):
                await server.receive()
            await garbage.aclose()
    for listener in listeners:
        await listener.aclose()
    assert [type(e).__name__ for e in rejected] == ["HandshakeError"]
    assert peers.lookup(f"127.0.0.1:{port}").fingerprint == HOST.fingerprint  # type: ignore[union-attr]


async def test_serve_keeps_serving_after_failures() -> None:
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    served: list[str] = []
    errors: list[TransportError] = []

    async def handler(channel: SecureChannel) -> None:
        served.append(await channel.receive())
        await channel.aclose()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(serve, listeners, HOST, handler, on_error=errors.append))
            for n in range(3):
                bad = await trio.open_tcp_stream("127.0.0.1", port)
                await bad.aclose()
                channel = await connect("127.0.0.1", port, identity(1))
                await channel.send(f"game {n}")
                with pytest.raises(TransportError):
                    await channel.receive()
            nursery.cancel_scope.cancel()
    assert served == ["game 0", "game 1", "game 2"]
    assert [type(error) for error in errors] == [ConnectionLostError] * 3


async def test_ipv6_loopback() -> None:
    try:
        listeners = await open_listeners(0, bind="::1")
    except ListenError:
        pytest.skip("no IPv6 loopback on this machine")
    port = listening_port(listeners)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(accept_one, listeners, HOST)
            channel = await connect("::1", port, identity(1), expected_fingerprint=HOST.fingerprint)
            assert channel.peer == f"[::1]:{port}"
            await channel.aclose()
    for listener in listeners:
        await listener.aclose()


# --- review regressions ---------------------------------------------------------------------


async def test_a_reset_socket_does_not_stop_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    # macOS raises EINVAL from setsockopt on a connection the peer already reset; trio's
    # SocketStream ignores that, and serve() must not turn it into a server crash.
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)

    def reset(*args: object) -> None:
        raise OSError(22, "Invalid argument")

    served: list[str] = []

    async def handler(channel: SecureChannel) -> None:
        served.append(await channel.receive())
        await channel.aclose()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(serve, listeners, HOST, handler))
            monkeypatch.setattr(trio.SocketStream, "setsockopt", reset)
            channel = await connect("127.0.0.1", port, identity(1))
            await channel.send("still serving")
            with pytest.raises(TransportError):
                await channel.receive()
            nursery.cancel_scope.cancel()
    assert served == ["still serving"]
    for listener in listeners:
        await listener.aclose()


async def test_one_silent_source_cannot_fill_every_handshake_slot() -> None:
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    flood = []
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(serve, listeners, HOST, _close_channel))
            for _ in range(20):  # connect and say nothing, from another loopback address
                sock = trio.socket.socket()
                await sock.bind(("127.0.0.2", 0))
                await sock.connect(("127.0.0.1", port))
                flood.append(trio.SocketStream(sock))
            await trio.sleep(0.3)  # let the server accept them all
            channel = await connect("127.0.0.1", port, identity(1), handshake_timeout=5)
            await channel.aclose()
            dropped = 0
            for stream in flood:
                with trio.move_on_after(0.2):
                    dropped += await stream.receive_some() == b""
            assert dropped == 20 - 4
            nursery.cancel_scope.cancel()
    for stream in flood:
        await stream.aclose()
    for listener in listeners:
        await listener.aclose()


async def _close_channel(channel: SecureChannel) -> None:
    await channel.aclose()


async def test_tofu_never_overwrites_a_key_recorded_meanwhile(tmp_path: Path) -> None:
    # Loaded before another program (or the user) recorded the host: the new key must not
    # silently replace the one now on disk.
    peers = KnownPeers.load(tmp_path / "known_peers")
    KnownPeers.load(tmp_path / "known_peers").remember("127.0.0.1:1", HOST.fingerprint)
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    label = f"127.0.0.1:{port}"
    KnownPeers.load(tmp_path / "known_peers").remember(label, HOST.fingerprint)
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(serve, listeners, identity(66), _close_channel))
            with pytest.raises(PeerKeyChangedError):
                await connect("127.0.0.1", port, identity(1), known_peers=peers)
            nursery.cancel_scope.cancel()
    assert KnownPeers.load(tmp_path / "known_peers").lookup(label).fingerprint == (  # type: ignore[union-attr]
        HOST.fingerprint
    )
    for listener in listeners:
        await listener.aclose()


async def test_an_unwritable_known_peers_file_closes_the_new_channel(tmp_path: Path) -> None:
    peers = KnownPeers.load(tmp_path / "known_peers")
    (tmp_path / "known_peers").mkdir()  # not a file: the write fails
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    seen: list[BaseException] = []

    async def handler(channel: SecureChannel) -> None:
        try:
            await channel.receive()
        except TransportError as error:
            seen.append(error)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(serve, listeners, HOST, handler))
            with pytest.raises(TransportError, match="known_peers"):
                await connect("127.0.0.1", port, identity(1), known_peers=peers)
            while not seen:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert "could not record" in str(seen[0])  # the host was told, not left hanging
    for listener in listeners:
        await listener.aclose()
