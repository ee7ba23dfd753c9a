# Shared helpers for the transport tests: reproducible identities and randomness, sans-IO
# handshakes, and channels whose raw wire bytes the test can read and forge.
from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable

import pytest
import trio
import trio.testing

from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.handshake import Handshake, HandshakeResult, Purpose, Role
from versus.protocol.crypto.identity import Identity


def identity(n: int) -> Identity:
    return Identity(hashlib.sha256(b"test identity %d" % n).digest())


def counter_rng(seed: int = 0) -> Callable[[int], bytes]:
    """Deterministic bytes for reproducible handshakes (tests only)."""
    counter = itertools.count()

    def rng(n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(b"rng %d %d" % (seed, next(counter))).digest()
        return out[:n]

    return rng


def run_handshake(
    initiator: Identity,
    responder: Identity,
    *,
    purpose: Purpose = Purpose.NEW_MATCH,
    seed: int = 0,
) -> tuple[HandshakeResult, HandshakeResult, list[bytes]]:
    """A complete in-memory handshake; returns both results and the three messages."""
    alice = Handshake(Role.INITIATOR, initiator, counter_rng(seed), purpose=purpose)
    bob = Handshake(Role.RESPONDER, responder, counter_rng(seed + 1))
    hello = alice.start()
    welcome = bob.receive(hello)
    assert welcome is not None
    auth = alice.receive(welcome)
    assert auth is not None
    assert bob.receive(auth) is None
    assert alice.result is not None and bob.result is not None
    return alice.result, bob.result, [hello, welcome, auth]


class Wire:
    """A channel pair cut in the middle: the test carries (or forges) every byte."""

    def __init__(self, config: ChannelConfig | None = None) -> None:
        client_result, server_result, _ = run_handshake(identity(1), identity(2))
        self.client_out_send, self.client_out = trio.testing.memory_stream_one_way_pair()
        self.server_in, server_in_receive = trio.testing.memory_stream_one_way_pair()
        self.server_out_send, self.server_out = trio.testing.memory_stream_one_way_pair()
        _, idle_receive = trio.testing.memory_stream_one_way_pair()
        self.client = SecureChannel(
            trio.StapledStream(self.client_out_send, idle_receive), client_result,
            config=config, peer="the server",
        )
        self.server = SecureChannel(
            trio.StapledStream(self.server_out_send, server_in_receive), server_result,
            config=config, peer="the client",
        )

    async def client_frame(self, obj: object) -> bytes:
        """The raw bytes the client puts on the wire for `obj`."""
        await self.client.send(obj)
        return await self.client_out.receive_some()

    async def deliver(self, raw: bytes) -> None:
        await self.server_in.send_all(raw)


async def channel_pair(
    config: ChannelConfig | None = None, ids: tuple[Identity, Identity] | None = None,
    rngs: tuple[Callable[[int], bytes], Callable[[int], bytes]] | None = None,
) -> tuple[SecureChannel, SecureChannel]:
    """Two channels joined by an in-memory stream, after a real handshake through the driver.
    `ids`: (client, server) keys, default identity(1) and identity(2); `rngs`: their handshake
    randomness (default `secrets`; seeded where a test reproduces a transcript, which is bound
    to the handshake hash)."""
    from versus.p2p.connect import handshake_initiator, handshake_responder

    client, server = ids if ids is not None else (identity(1), identity(2))
    left, right = trio.testing.memory_stream_pair()
    result: dict[str, SecureChannel] = {}

    async def respond() -> None:
        result["server"] = await handshake_responder(right, server, config=config,
                                                     **({} if rngs is None else {"rng": rngs[1]}))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(respond)
        result["client"] = await handshake_initiator(left, client, config=config,
                                                     **({} if rngs is None else {"rng": rngs[0]}))
    return result["client"], result["server"]


@pytest.fixture
async def wire() -> Wire:
    return Wire()
