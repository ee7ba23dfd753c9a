from __future__ import annotations

import pytest
import trio
import trio.testing

from tests.p2p.conftest import Wire, channel_pair, identity, run_handshake
from versus.p2p.channel import ChannelConfig, RecordKind, SecureChannel
from versus.p2p.errors import (
    ChannelClosedError,
    ConnectionLostError,
    DecryptionError,
    FrameTooLargeError,
    IdleTimeoutError,
    MalformedFrameError,
    PayloadTooLargeError,
    PeerClosedError,
    ReplayedFrameError,
    SendTimeoutError,
    SlowFrameError,
)
from versus.p2p.framing import encode_frame

QUICK = ChannelConfig(keepalive_interval=10, idle_timeout=30, frame_timeout=5, send_timeout=5)


async def test_objects_both_ways() -> None:
    client, server = await channel_pair()
    messages = [None, 1, "hé", b"\x00\xff", [1, [2]], {"a": {"b": b"c"}}, 2**64 - 1]
    for message in messages:
        await client.send(message)
        assert await server.receive() == message
        await server.send(message)
        assert await client.receive() == message
    assert client.handshake.handshake_hash == server.handshake.handshake_hash
    assert client.peer_fingerprint == identity(2).fingerprint


async def test_a_frame_split_byte_by_byte(wire: Wire) -> None:
    raw = await wire.client_frame({"hello": "world"})
    async with trio.open_nursery() as nursery:
        received = []

        async def receive() -> None:
            received.append(await wire.server.receive())

        nursery.start_soon(receive)
        for byte in raw:
            await wire.deliver(bytes([byte]))
            await trio.sleep(0)
    assert received == [{"hello": "world"}]


async def test_a_replayed_frame_is_refused(wire: Wire) -> None:
    raw = await wire.client_frame("move 1")
    await wire.deliver(raw + raw)
    assert await wire.server.receive() == "move 1"
    with pytest.raises(ReplayedFrameError, match="record number 0 where 1 was due") as info:
        await wire.server.receive()
    assert info.value.evidence == (raw[4:],)
    assert wire.server.closed


async def test_reordered_frames_are_refused(wire: Wire) -> None:
    first = await wire.client_frame("first")
    second = await wire.client_frame("second")
    await wire.deliver(second + first)
    with pytest.raises(ReplayedFrameError, match="record number 1 where 0 was due"):
        await wire.server.receive()


async def test_a_tampered_frame_is_refused(wire: Wire) -> None:
    raw = bytearray(await wire.client_frame("attack"))
    raw[-3] ^= 0x40
    await wire.deliver(bytes(raw))
    with pytest.raises(DecryptionError, match="record 0 from the client failed authentication"):
        await wire.server.receive()


async def test_a_frame_sealed_with_the_wrong_key_is_refused(wire: Wire) -> None:
    stranger, _, _ = run_handshake(identity(1), identity(2), seed=99)
    other = Wire()
    other.client._sealer = type(other.client._sealer)(stranger.send_key)
    await wire.deliver(await other.client_frame("hi"))
    with pytest.raises(DecryptionError):
        await wire.server.receive()


@pytest.mark.parametrize(
    "raw, error",
    [
        (encode_frame(b"short"), MalformedFrameError),
        (encode_frame(bytes(8) + b"garbage garbage garbage!"), DecryptionError),
        ((2**20 + 1).to_bytes(4, "big"), FrameTooLargeError),
        (b"\x00\x00\x00\x00", MalformedFrameError),
    ],
)
async def test_garbage_after_the_handshake(wire: Wire, raw: bytes, error: type) -> None:
    await wire.deliver(raw)
    with pytest.raises(error):
        await wire.server.receive()
    assert wire.server.closed


async def test_valid_record_with_bad_msgpack(wire: Wire) -> None:
    await wire.deliver(wire.client._seal(RecordKind.DATA, b"\xc1"))
    with pytest.raises(MalformedFrameError, match="the client sent a payload that is not valid"):
        await wire.server.receive()


async def test_unknown_record_kind(wire: Wire) -> None:
    await wire.deliver(wire.client._seal(0x55, b""))  # type: ignore[arg-type]
    with pytest.raises(MalformedFrameError, match="unknown kind 0x55"):
        await wire.server.receive()


async def test_goodbye_carries_a_reason() -> None:
    client, server = await channel_pair()
    await client.aclose("match over")
    expected = "the joining player closed the connection: match over"
    with pytest.raises(PeerClosedError, match=expected) as info:
        await server.receive()
    assert info.value.reason == "match over"
    with pytest.raises(ChannelClosedError):
        await client.send("late")


async def test_a_vanished_peer_is_a_lost_connection() -> None:
    client, server = await channel_pair()
    await client._stream.aclose()
    with pytest.raises(ConnectionLostError, match="without saying goodbye"):
        await server.receive()


async def test_oversize_payload_is_our_bug() -> None:
    client, _ = await channel_pair(ChannelConfig(max_frame=1000))
    with pytest.raises(PayloadTooLargeError, match="exceeds the 975-byte limit"):
        await client.send(b"x" * 1000)


async def test_slow_drip_hits_the_frame_deadline(autojump_clock: trio.abc.Clock) -> None:
    wire = Wire(QUICK)
    raw = await wire.client_frame("x" * 100)
    start = trio.current_time()

    async def drip() -> None:
        for byte in raw:  # one byte every 2 s: never idle, never done
            await wire.deliver(bytes([byte]))
            await trio.sleep(2)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(drip)
        with pytest.raises(SlowFrameError, match="in 5 s"):
            await wire.server.receive()
        nursery.cancel_scope.cancel()
    assert 5 <= trio.current_time() - start < 7


async def test_silence_hits_the_idle_timeout(autojump_clock: trio.abc.Clock) -> None:
    wire = Wire(QUICK)  # nobody answers the server's pings
    start = trio.current_time()
    with pytest.raises(IdleTimeoutError, match="nothing heard from the client for 30 s"):
        await wire.server.receive()
    assert trio.current_time() - start == pytest.approx(30)
    pings = await wire.server_out.receive_some()
    assert len(pings) == 2 * (4 + 8 + 16 + 9)  # at 10 s and 20 s


async def test_keepalives_keep_a_quiet_match_alive(autojump_clock: trio.abc.Clock) -> None:
    client, server = await channel_pair(QUICK)
    received = []

    async def listen(channel: SecureChannel) -> None:
        received.append(await channel.receive())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(listen, client)
        nursery.start_soon(listen, server)
        await trio.sleep(300)  # ten idle timeouts
        await client.send("still here")
        await server.send("me too")
    assert sorted(received) == ["me too", "still here"]
    assert client.rtt is not None and server.rtt is not None


async def test_a_peer_that_stops_reading_fails_our_send(autojump_clock: trio.abc.Clock) -> None:
    left, right = trio.testing.lockstep_stream_pair()
    result, _, _ = run_handshake(identity(1), identity(2))
    channel = SecureChannel(trio.StapledStream(left, right), result, config=QUICK, peer="bob")
    with pytest.raises(SendTimeoutError, match="bob stopped reading"):
        await channel.send("anyone?")
    assert channel.closed


async def test_a_ping_flood_is_not_amplified(wire: Wire) -> None:
    pings = b"".join(wire.client._seal(RecordKind.PING, b"12345678") for _ in range(50))
    await wire.deliver(pings + await wire.client_frame("done"))
    assert await wire.server.receive() == "done"
    answered = await wire.server_out.receive_some()
    assert len(answered) == 4 + 8 + 16 + 9  # one pong for fifty pings


async def test_two_receivers_is_a_bug() -> None:
    client, _ = await channel_pair()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.receive)
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(RuntimeError, match="already receiving"):
            await client.receive()
        nursery.cancel_scope.cancel()


# --- review regressions ---------------------------------------------------------------------


class _Congested(trio.abc.SendStream):
    """A send stream whose first send blocks before writing a byte (a full socket buffer)."""

    def __init__(self, inner: trio.abc.SendStream) -> None:
        self.inner = inner
        self.congested = True

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.congested:
            await trio.sleep_forever()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_cancelled_send_closes_the_channel(autojump_clock: trio.abc.Clock) -> None:
    # The cancelled send used up record number 0 (and may have written part of it); sending on
    # would make the peer see "record number 1 where 0 was due" and blame an attacker.
    wire = Wire(QUICK)
    congested = _Congested(wire.client_out_send)
    wire.client._stream = trio.StapledStream(congested, wire.client._stream.receive_stream)
    with trio.move_on_after(1):
        await wire.client.send("never sent")
    congested.congested = False
    assert wire.client.closed
    with pytest.raises(ChannelClosedError):
        await wire.client.send("next")


async def test_aclose_closes_the_stream_even_when_cancelled() -> None:
    client, server = await channel_pair()
    with trio.CancelScope() as scope:
        scope.cancel()
        await client.aclose("bye")
    assert client.closed
    with pytest.raises(ConnectionLostError):  # the socket really went away
        await server.receive()


async def test_time_nobody_listens_is_not_the_peers_silence(
    autojump_clock: trio.abc.Clock,
) -> None:
    wire = Wire(QUICK)
    await wire.deliver(await wire.client_frame("sent long ago"))
    await trio.sleep(45)  # beyond idle_timeout, with no task in receive()
    assert await wire.server.receive() == "sent long ago"
    start = trio.current_time()
    with pytest.raises(IdleTimeoutError):  # the idle clock still runs while listening
        await wire.server.receive()
    assert trio.current_time() - start == pytest.approx(30)


async def test_a_frame_half_read_before_a_pause_is_not_a_slow_drip(
    autojump_clock: trio.abc.Clock,
) -> None:
    wire = Wire(QUICK)
    first = await wire.client_frame("one")
    second = await wire.client_frame("two")
    await wire.deliver(first + second[:5])
    assert await wire.server.receive() == "one"
    await trio.sleep(20)  # beyond frame_timeout, nobody listening; the rest is on its way
    await wire.deliver(second[5:])
    assert await wire.server.receive() == "two"


async def test_a_huge_close_reason_is_cut_to_the_limit(wire: Wire) -> None:
    await wire.deliver(wire.client._seal(RecordKind.CLOSE, "é".encode() * 50_000))
    with pytest.raises(PeerClosedError) as info:
        await wire.server.receive()
    assert len(info.value.reason) <= 200
    assert len(str(info.value)) < 300


async def test_send_many_writes_the_bytes_of_as_many_sends_at_once() -> None:
    """The session's sender writes what it finds queued in one go: one write on the stream,
    records numbered and sealed as if sent one by one (the same handshake: the same bytes)."""
    one_by_one, batched = Wire(), Wire()
    messages = [b"envelope 1", {"t": "resume"}, b"envelope 2"]
    sent = b""
    for message in messages:
        await one_by_one.client.send(message)
        sent += await one_by_one.client_out.receive_some()
    writes: list[bytes] = []
    stream = batched.client._stream
    write = stream.send_all

    async def counted(data: bytes) -> None:
        writes.append(bytes(data))
        await write(data)

    stream.send_all = counted  # type: ignore[method-assign]
    await batched.client.send_many(messages)
    assert writes == [sent]
    await batched.deliver(await batched.client_out.receive_some())
    assert [await batched.server.receive() for _ in messages] == messages
