# The CLOSE record a session sends when a fault ends the match or makes it drop the link names
# that fault's code, so the other side's log says why (p2p/session.py `_close_reason`). Over
# real TCP on 127.0.0.1 against the hostile joiner of tests/hostile, which reads the reason.
from __future__ import annotations

import pytest
import trio

from tests.hostile.harness import (
    HONEST,
    HostilePeer,
    arena,
    assert_caught,
    assert_valid_prefix,
    at,
    reseal,
)
from versus.p2p.errors import PeerClosedError
from versus.protocol import errors
from versus.protocol.wire.envelope import MessageKind

K = MessageKind


def forged(hostile: HostilePeer, raw: bytes) -> object:
    return reseal(raw, sender=HONEST)  # signed by seat 1 as seat 0: an attributable fault


def not_an_envelope(hostile: HostilePeer, raw: bytes) -> object:
    return {"t": "resume"}  # a session message where an envelope is due: the link is dropped


@pytest.mark.parametrize(("make", "reason"), [
    (forged, "match stopped: wrong-sender"),
    (not_an_envelope, "link dropped: malformed-session-message"),
])
async def test_the_close_record_names_the_fault(make, reason) -> None:
    heard: list[str] = []

    async def send_then_listen(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send(make(hostile, raw))
        hostile.stall()
        assert hostile.channel is not None
        while True:
            try:
                await hostile.channel.receive()
            except PeerClosedError as closed:
                heard.append(closed.reason)
                return

    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            nursery.start_soon(HostilePeer(tamper=at(K.ACTION, 0, send_then_listen)).play,
                               a.port)
            await a.host.play()
            with trio.fail_after(5):
                while not heard:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert heard == [reason]
    if make is forged:
        assert_caught(a.host, errors.WrongSender)
    else:
        assert a.host.outcome is not None and a.host.outcome.abandoned
        assert_valid_prefix(a.host.report())
