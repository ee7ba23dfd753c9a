# Hostile peers below the envelope: raw bytes before and instead of the handshake, sealed
# records after it, payloads that are not msgpack or not an envelope, floods and slow drips, and
# session messages (offer, resume) that lie. Over real TCP on 127.0.0.1, against a real host.
#
# What "ends cleanly" means here: the honest listener refuses the connection with the precise
# error class (and keeps serving: a fresh honest match on it completes), or the honest session
# loses the link with the precise error class and, the attacker not coming back, gives the match
# up after its resume window with a transcript that checks record by record (only its end is
# missing). Memory stays bounded (tracemalloc peak of this process, both sides included).
from __future__ import annotations

import dataclasses
import os

import pytest
import trio

from tests.hostile.harness import (
    FAST_CHANNEL,
    FAST_SESSION,
    HONEST,
    IDS,
    MEMORY_BOUND,
    Arena,
    HostilePeer,
    arena,
    assert_never_blames_honest,
    assert_valid_prefix,
    at,
    honest_joiner,
    hostile_match,
    offered,
    peak_memory,
    raw_connect,
    read_until_closed,
    still_serves,
)
from versus.p2p.channel import RecordKind
from versus.p2p.connect import listening_port, open_listeners, serve
from versus.p2p.errors import (
    ConnectionLostError,
    DecryptionError,
    FrameTooLargeError,
    HandshakeError,
    HandshakeTimeoutError,
    MalformedFrameError,
    PeerClosedError,
    ReplayedFrameError,
    SlowFrameError,
    TransportError,
)
from versus.p2p.framing import MAX_FRAME, encode_frame
from versus.p2p.handshake import Purpose
from versus.p2p.link import make_offer, take_offer
from versus.p2p.session import ResumeError, SessionProtocolError
from versus.protocol.match.rules import MatchRules
from versus.protocol.wire.envelope import MessageKind

K = MessageKind
HELLO_74 = b"\x01VSP2\x00\x01\x00\x01\x01" + bytes(64)  # right size and magic, zero ephemeral


# --- before the handshake: the anonymous peer -------------------------------------------------


async def _handshake_attack(send: bytes | list[bytes], expected: type, *, drip: float = 0.0,
                            handshake_timeout: float = 10.0) -> Arena:
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, handshake_timeout=handshake_timeout)
            stream = await raw_connect(a.port)
            try:
                for chunk in [send] if isinstance(send, bytes) else send:
                    if drip:
                        for i in range(len(chunk)):
                            await stream.send_all(chunk[i:i + 1])
                            await trio.sleep(drip)
                    else:
                        await stream.send_all(chunk)
                if isinstance(send, list) and send and send[-1] == b"":
                    await stream.send_eof()
            except trio.BrokenResourceError:
                pass  # the host hung up on us: what the test wants
            await read_until_closed(stream)
            while not a.host.link.handshake_errors:
                await trio.sleep(0.01)
            [error] = a.host.link.handshake_errors
            assert isinstance(error, expected), (type(error), error)
            await still_serves(a)
            nursery.cancel_scope.cancel()
    return a


async def test_garbage_instead_of_hello_is_a_handshake_error() -> None:
    await _handshake_attack(encode_frame(os.urandom(74), 512), HandshakeError)


async def test_low_order_ephemeral_is_refused() -> None:
    await _handshake_attack(encode_frame(HELLO_74, 512), HandshakeError)


async def test_oversize_handshake_length_prefix_is_refused_before_buffering() -> None:
    with peak_memory() as peak:
        await _handshake_attack(b"\xff\xff\xff\xff" + os.urandom(1000), FrameTooLargeError)
    assert peak[0] < MEMORY_BOUND


async def test_zero_length_frame_is_malformed() -> None:
    await _handshake_attack(b"\x00\x00\x00\x00", MalformedFrameError)


async def test_truncated_hello_then_eof_is_a_lost_connection() -> None:
    await _handshake_attack([encode_frame(HELLO_74, 512)[:30], b""], ConnectionLostError)


async def test_slow_drip_handshake_hits_the_deadline() -> None:
    with peak_memory() as peak:
        await _handshake_attack(encode_frame(os.urandom(74), 512), HandshakeTimeoutError,
                                drip=0.05, handshake_timeout=0.5)
    assert peak[0] < MEMORY_BOUND


# --- after the handshake: records and payloads during the match ------------------------------


async def _after_setup(action, expected: type | None, *, when: MessageKind = K.DRAW,
                       limit: float = 10.0, why: str = "") -> Arena:
    """The hostile joiner plays honestly until its first `when` envelope, then does `action`
    instead (and stops). The honest host must lose the link with `expected`, give the match up
    after its resume window, and hold a valid transcript prefix."""

    async def tamper(hostile: HostilePeer, raw: bytes) -> None:
        await action(hostile, raw)
        hostile.stall()

    with trio.fail_after(limit):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            host = await hostile_match(a, HostilePeer(tamper=at(when, 0, tamper)), limit)
            assert host.outcome is not None
            if expected is SessionProtocolError:  # raised by the session, not the channel
                assert host.session is not None
                assert any("Connection lost" in line and why in line
                           for line in host.session.log), host.session.log
            elif expected is not None:
                assert any(isinstance(e, expected) for e in host.transport_errors), \
                    host.transport_errors
            if expected is not None:
                assert host.outcome.abandoned and host.outcome.result is None, host.outcome
                assert_valid_prefix(host.report())
            nursery.cancel_scope.cancel()
    return a


async def test_record_failing_authentication_breaks_the_link() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        frame = bytearray(hostile.data_frame(raw))
        frame[-1] ^= 1  # the Poly1305 tag
        await hostile.send_raw(bytes(frame))

    await _after_setup(action, DecryptionError)


async def test_random_record_bytes_are_a_replay_or_decryption_error() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_raw(encode_frame(os.urandom(200)))

    await _after_setup(action, (ReplayedFrameError, DecryptionError))


async def test_replayed_record_is_refused() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        frame = hostile.data_frame(raw)
        await hostile.send_raw(frame + frame)

    await _after_setup(action, ReplayedFrameError)


async def test_reordered_records_are_refused() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        first, second = hostile.data_frame(raw), hostile.data_frame(raw)
        await hostile.send_raw(second + first)

    await _after_setup(action, ReplayedFrameError)


async def test_oversize_record_length_prefix_is_refused_before_buffering() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_raw((MAX_FRAME + 1).to_bytes(4, "big") + bytes(65536))

    with peak_memory() as peak:
        await _after_setup(action, FrameTooLargeError)
    assert peak[0] < MEMORY_BOUND


async def test_truncated_record_then_disconnect_is_a_lost_link() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_raw(hostile.data_frame(raw)[:-5])
        await hostile.stream.send_eof()

    await _after_setup(action, ConnectionLostError)


async def test_slow_drip_record_times_out_with_bounded_memory() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        frame = hostile.data_frame(raw)
        for i in range(len(frame)):
            await hostile.send_raw(frame[i:i + 1])
            await trio.sleep(0.1)  # 3 bytes under the 0.3 s frame deadline

    with peak_memory() as peak:
        await _after_setup(action, SlowFrameError)
    assert peak[0] < MEMORY_BOUND


async def test_unknown_record_kind_is_malformed() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_record(0x42, raw)

    await _after_setup(action, MalformedFrameError)


async def test_record_shorter_than_its_overhead_is_malformed() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_raw(encode_frame(bytes(10)))

    await _after_setup(action, MalformedFrameError)


async def test_payload_that_is_not_msgpack_is_malformed() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_record(RecordKind.DATA, b"\xc1" + raw)

    await _after_setup(action, MalformedFrameError)


async def test_nested_array_bomb_payload_is_refused_with_bounded_memory() -> None:
    """`dc ff ff` x 1000: each level claims 65,535 items (the p2p/framing regression)."""

    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_record(RecordKind.DATA, b"\xdc\xff\xff" * 1000)

    with peak_memory() as peak:
        await _after_setup(action, MalformedFrameError)
    assert peak[0] < 8 << 20, peak[0]


async def test_payload_that_is_not_an_envelope_breaks_the_link() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send({"t": "resume", "what": [1, 2, 3]})

    await _after_setup(action, SessionProtocolError, why="where an envelope was due")


async def test_close_record_with_junk_reason_is_a_clean_close() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_record(RecordKind.CLOSE, b"\x1b[2J\xff\x00" * 200)

    a = await _after_setup(action, PeerClosedError)
    [closed] = [e for e in a.host.transport_errors if isinstance(e, PeerClosedError)]
    assert len(closed.reason) <= 200 and all(ch.isprintable() for ch in str(closed))


async def test_ping_flood_is_not_amplified_and_the_match_goes_on() -> None:
    pongs: list[float] = []
    start: list[float] = []

    async def flood(hostile: HostilePeer, raw: bytes) -> None:
        assert hostile.channel is not None
        hostile.channel._on_pong = lambda payload: pongs.append(trio.current_time())
        start.append(trio.current_time())
        burst = b"".join(hostile.seal_frame(RecordKind.PING, bytes(8)) for _ in range(5000))
        await hostile.send_raw(burst)
        await hostile.send(raw)

    # the host answers 5000 PINGs before the flood's DRAW: on a loaded 2-core machine that can
    # take longer than the fast 0.3 s resume window, which this test is not about
    patient = dataclasses.replace(FAST_SESSION, resume_window=5.0)
    with peak_memory() as peak, trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, config=patient)
            hostile = HostilePeer(tamper=at(K.DRAW, 0, flood))
            host = await hostile_match(a, hostile)
            assert host.outcome is not None and host.outcome.result is not None
            assert host.outcome.result.ending.value == "game"
            assert host.report().ok
            nursery.cancel_scope.cancel()
    assert peak[0] < MEMORY_BOUND
    # 5000 PINGs, at most one PONG per min_pong_interval: the flood is not amplified
    elapsed = (pongs[-1] - start[0]) if pongs else 0.0
    assert 1 <= len(pongs) <= 1 + elapsed / FAST_CHANNEL.min_pong_interval, (len(pongs), elapsed)


async def test_flood_of_resent_envelopes_is_cut_off() -> None:
    async def action(hostile: HostilePeer, raw: bytes) -> None:
        held = hostile.peer.envelopes_after(-1)[:1]  # our COMMIT, which the host holds
        burst = b"".join(hostile.data_frame(held[0]) for _ in range(300))
        await hostile.send_raw(burst)

    await _after_setup(action, SessionProtocolError, why="envelopes we already hold")


async def test_flood_of_megabyte_junk_envelopes_keeps_memory_bounded() -> None:
    """1 MiB payloads of junk where envelopes are due, 40 of them: the host refuses (today:
    EVIDENCE on the first; once such non-attributable junk is dropped, the rest are read and
    dropped one by one) and its memory stays bounded either way."""

    async def action(hostile: HostilePeer, raw: bytes) -> None:
        junk = os.urandom(MAX_FRAME - 64)
        for _ in range(40):
            try:
                await hostile.send(junk)
            except Exception:  # the host hung up on us
                return
        await hostile.send(raw)

    with peak_memory() as peak, trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            host = await hostile_match(a, HostilePeer(tamper=at(K.DRAW, 0, action)), 20)
            assert host.outcome is not None
            assert host.outcome.result is not None or host.outcome.abandoned
            if host.outcome.result is not None:
                assert_never_blames_honest(host)
            nursery.cancel_scope.cancel()
    assert peak[0] < MEMORY_BOUND, peak[0]


async def test_envelope_nesting_bomb_keeps_memory_bounded() -> None:
    """The same nested-header bomb one layer up: inside the bin of an envelope, where the
    canonical decoder (protocol/wire/canonical.py) used to pre-allocate ~87 MB for it."""

    async def action(hostile: HostilePeer, raw: bytes) -> None:
        bomb = (b"\xdd\x00\x01\x00\x00" * 1000).ljust(MAX_FRAME - 64, b"\x00")
        await hostile.send(bomb)
        await hostile.send(raw)

    with peak_memory() as peak, trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            host = await hostile_match(a, HostilePeer(tamper=at(K.DRAW, 0, action)))
            assert_never_blames_honest(host)
            nursery.cancel_scope.cancel()
    assert peak[0] < MEMORY_BOUND, peak[0]


# --- session messages: the offer and the resume -----------------------------------------------


async def test_malformed_answer_to_the_offer_leaves_the_host_serving() -> None:
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a, hostile, _, _ = await offered(nursery)
            await hostile.send_record(RecordKind.DATA, b"\x81\x01\x02")  # int map key
            await read_until_closed(hostile.stream)
            while not a.host.link.declined:
                await trio.sleep(0.01)
            assert any(isinstance(e, MalformedFrameError) for e in a.host.transport_errors)
            # the host still waits for a joiner: an honest one gets the match
            outcome = await honest_joiner(a.port)
            assert outcome.result is not None and a.host.report().ok
            nursery.cancel_scope.cancel()


async def test_hostile_host_sending_a_bad_offer_is_refused_by_the_joiner() -> None:

    async def bad_host(channel) -> None:
        await channel.send({"t": "offer", "rules": b"\x93\x01\x02\x03", "seat": 1})
        await read_until_closed(channel._stream)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            listeners = await open_listeners(0, bind="127.0.0.1")
            await nursery.start(lambda task_status: serve(listeners, IDS[HONEST], bad_host,
                                                          config=FAST_CHANNEL,
                                                          task_status=task_status))
            joiner = HostilePeer()  # an honest joiner here: the host is the hostile one
            channel = await joiner.join(listening_port(listeners))
            with pytest.raises(SessionProtocolError, match="malformed rules"):
                await take_offer(channel)
            await channel.aclose()
            nursery.cancel_scope.cancel()


async def _resume_attack(message: object, expected: type) -> None:
    """The hostile plays until its first DRAW, drops the link, comes back with Purpose RESUME
    and sends `message` as its RESUME: the host refuses that link, and not the match (the
    window then runs out: abandoned, valid prefix)."""

    async def vanish(hostile: HostilePeer, raw: bytes) -> None:
        hostile.stall()
        await trio.aclose_forcefully(hostile.stream)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            hostile = HostilePeer(tamper=at(K.DRAW, 0, vanish))
            nursery.start_soon(hostile.play, a.port)
            nursery.start_soon(a.host.play)
            while a.host.session is None or a.host.session.status.state.value != "reconnecting":
                await trio.sleep(0.01)
            channel = await hostile.join(a.port, Purpose.RESUME)
            await channel.send(message)
            await read_until_closed(hostile.stream)
            while a.host.outcome is None:
                await trio.sleep(0.01)
            assert a.host.outcome.abandoned
            log = " ".join(a.host.session.log)
            assert expected.__name__ in log or "RESUME" in log or "resumes match" in log, log
            assert_valid_prefix(a.host.report())
            nursery.cancel_scope.cancel()


async def test_invalid_resume_message_is_refused() -> None:
    await _resume_attack({"t": "resume", "match": b"x", "seq": -5, "tail": [1]},
                         SessionProtocolError)


async def test_resume_of_another_match_is_refused() -> None:
    await _resume_attack({"t": "resume", "match": bytes(32), "seq": 0, "tail": []}, ResumeError)


async def test_offer_exchange_cannot_be_reflected() -> None:
    """A joiner that answers the offer with an offer of its own is not a joiner."""
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a, _, channel, offer = await offered(nursery)
            with pytest.raises(TransportError), trio.fail_after(2):  # the host hangs up on us
                await make_offer(channel, MatchRules.decode(offer["rules"]))
            while not a.host.link.declined:
                await trio.sleep(0.01)
            assert "something other than accept or decline" in a.host.link.declined[0]
            nursery.cancel_scope.cancel()

