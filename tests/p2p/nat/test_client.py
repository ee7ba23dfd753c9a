# The trio PCP / NAT-PMP client against a real responder over real UDP on loopback
# (tests/p2p/nat/fake_gateway.py): mapping, renewal, deletion, retransmission, spoofed and
# garbage answers, refusals, the NAT-PMP fallback, a gateway restart, and a dead port. Retry
# timings are scaled down; every test stops itself with trio.fail_after.
from __future__ import annotations

import ipaddress
import socket
from collections.abc import AsyncIterator

import pytest
import trio

from tests.p2p.nat.fake_gateway import EXTERNAL_V4, EXTERNAL_V6, FakeGateway
from versus.p2p.nat import client, natpmp, pcp
from versus.p2p.nat.client import Mapping, Method, RetryPolicy
from versus.p2p.nat.errors import (
    NatResultError,
    NatTimeoutError,
    NatUnavailableError,
    NatVersionError,
)

FAST = RetryPolicy(initial=0.05, maximum=0.2, attempts=4)
FAST_OPTIONS = {"pcp_policy": FAST, "natpmp_policy": FAST}
LIMIT = 10


async def _start(nursery: trio.Nursery, gateway: FakeGateway, host: str = "127.0.0.1") -> int:
    return await nursery.start(gateway.serve, host)


@pytest.fixture
async def fake(nursery: trio.Nursery) -> AsyncIterator[FakeGateway]:
    gateway = FakeGateway()
    await _start(nursery, gateway)
    yield gateway


async def test_pcp_maps_renews_and_deletes(fake: FakeGateway) -> None:
    with trio.fail_after(LIMIT):
        mapping = await client.pcp_map("127.0.0.1", 47820, suggested_port=47820, port=fake.port,
                                       policy=FAST)
        assert mapping.method is Method.PCP
        assert (mapping.external_address, mapping.external_port) == (EXTERNAL_V4, 47820)
        assert mapping.lifetime == 3600 and mapping.client_address == ipaddress.ip_address(
            "127.0.0.1")
        request = pcp.MapRequest.decode(fake.received[-1])
        assert request.client_address == ipaddress.ip_address("127.0.0.1")
        assert request.nonce == mapping.nonce and request.lifetime == pcp.DEFAULT_LIFETIME
        assert "198.51.100.7:47820" in mapping.describe()

        renewed = await client.renew(mapping, pcp_policy=FAST)
        assert renewed.nonce == mapping.nonce and renewed.external_port == 47820
        assert not client.gateway_lost_state(mapping, renewed)

        await client.delete(renewed, pcp_policy=FAST)
        assert fake.table == {}
        assert pcp.MapRequest.decode(fake.received[-1]).lifetime == 0


async def test_a_taken_port_is_moved_and_another_nonce_is_refused(fake: FakeGateway) -> None:
    with trio.fail_after(LIMIT):
        first = await client.pcp_map("127.0.0.1", 5000, suggested_port=47820, port=fake.port,
                                     policy=FAST)
        second = await client.pcp_map("127.0.0.1", 5001, suggested_port=47820, port=fake.port,
                                      policy=FAST)
        assert first.external_port == 47820 and second.external_port == 40000
        with pytest.raises(NatResultError, match="NOT_AUTHORIZED") as caught:
            await client.pcp_map("127.0.0.1", 5000, port=fake.port, policy=FAST)
        assert caught.value.result is pcp.ResultCode.NOT_AUTHORIZED


async def test_retransmits_until_the_gateway_answers(fake: FakeGateway) -> None:
    fake.silent_for = 2
    with trio.fail_after(LIMIT):
        mapping = await client.pcp_map("127.0.0.1", 47820, port=fake.port, policy=FAST)
    assert len(fake.received) == 3
    assert len({bytes(r) for r in fake.received}) == 1  # the same bytes, the same nonce
    assert mapping.external_port == 47820 or mapping.external_port >= 40000


async def test_garbage_and_wrong_nonce_answers_are_ignored(fake: FakeGateway) -> None:
    fake.junk_first = True
    with trio.fail_after(LIMIT):
        mapping = await client.pcp_map("127.0.0.1", 47820, suggested_port=47820, port=fake.port,
                                       policy=FAST)
    assert mapping.external_port == 47820 and len(fake.received) == 1


async def test_a_silent_gateway_times_out_naming_the_attempts(fake: FakeGateway) -> None:
    fake.silent_for = 100
    with trio.fail_after(LIMIT), pytest.raises(NatTimeoutError, match="after 4 attempts"):
        await client.pcp_map("127.0.0.1", 47820, port=fake.port, policy=FAST)
    assert len(fake.received) == 4


async def test_a_gateway_that_sends_only_junk_times_out_naming_it() -> None:
    with trio.fail_after(LIMIT):
        sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        with sock:
            await sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]

            async def junk_only() -> None:
                while True:
                    _data, source = await sock.recvfrom(2048)
                    await sock.sendto(b"\x02\x81junk", source)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(junk_only)
                with pytest.raises(NatTimeoutError, match="ignored a bad answer"):
                    await client.pcp_map("127.0.0.1", 80, port=port, policy=FAST)
                nursery.cancel_scope.cancel()


async def test_refusals_are_result_errors(fake: FakeGateway) -> None:
    fake.pcp_result = pcp.ResultCode.NO_RESOURCES
    with trio.fail_after(LIMIT), pytest.raises(NatResultError, match="NO_RESOURCES") as caught:
        await client.pcp_map("127.0.0.1", 80, port=fake.port, policy=FAST)
    assert caught.value.lifetime == 30
    fake.short_errors = True  # a bare header cannot be matched by nonce but is still a refusal
    with trio.fail_after(LIMIT), pytest.raises(NatResultError, match="NO_RESOURCES"):
        await client.pcp_map("127.0.0.1", 80, port=fake.port, policy=FAST)


async def test_nat_pmp_only_gateway_falls_back(fake: FakeGateway) -> None:
    fake.speaks_pcp = False
    with trio.fail_after(LIMIT):
        with pytest.raises(NatVersionError):
            await client.pcp_map("127.0.0.1", 80, port=fake.port, policy=FAST)
        mapping = await client.map_port("127.0.0.1", 47820, port=fake.port, **FAST_OPTIONS)
        assert mapping.method is Method.NATPMP
        assert (mapping.external_address, mapping.external_port) == (EXTERNAL_V4, 47820)
        assert natpmp.decode_request(fake.received[-1]) == natpmp.MappingRequest(
            natpmp.Opcode.MAP_TCP, 47820, 47820, pcp.DEFAULT_LIFETIME)
        renewed = await client.renew(mapping, **FAST_OPTIONS)
        assert renewed.external_port == 47820 and renewed.external_address == EXTERNAL_V4
        await client.delete(renewed, **FAST_OPTIONS)
        assert fake.table == {}
        assert natpmp.decode_request(fake.received[-1]).lifetime == 0  # type: ignore[union-attr]


async def test_nat_pmp_refusals(fake: FakeGateway) -> None:
    fake.speaks_pcp = False
    fake.natpmp_result = natpmp.ResultCode.NOT_AUTHORIZED
    with trio.fail_after(LIMIT), pytest.raises(NatResultError, match="NOT_AUTHORIZED"):
        await client.natpmp_external_address("127.0.0.1", port=fake.port, policy=FAST)
    fake.short_errors = True
    with trio.fail_after(LIMIT), pytest.raises(NatResultError, match="NOT_AUTHORIZED"):
        await client.natpmp_map("127.0.0.1", 80, port=fake.port, policy=FAST,
                                external_address=False)


async def test_nothing_listening_is_reported_at_once() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # the port is now closed: loopback answers with ICMP port unreachable
    with trio.fail_after(LIMIT), pytest.raises(NatUnavailableError, match="nothing listens"):
        await client.pcp_map("127.0.0.1", 80, port=port,
                             policy=RetryPolicy(initial=1.0, maximum=1.0, attempts=3))


async def test_mapped_port_renews_in_the_background_and_deletes_on_exit(
    fake: FakeGateway,
) -> None:
    changes: list[Mapping] = []
    with trio.fail_after(LIMIT):
        async with client.mapped_port("127.0.0.1", 47820, port=fake.port, lifetime=2,
                                      on_change=changes.append, **FAST_OPTIONS) as held:
            assert fake.table
            before = len(fake.received)
            await trio.sleep(1.5)  # renewal due at 1..1.25 s
            assert len(fake.received) > before
            assert held.errors == [] and changes == []
            fake.restart()  # the gateway forgets everything and its epoch restarts at 0
            await trio.sleep(1.5)
            assert changes and changes[-1].epoch < 5  # reported, and mapped again
            assert fake.table
        assert fake.table == {}


async def test_renewal_errors_are_reported_and_retried(fake: FakeGateway) -> None:
    errors: list[object] = []
    with trio.fail_after(LIMIT):
        mapping = await client.pcp_map("127.0.0.1", 47820, port=fake.port, lifetime=2,
                                       policy=FAST)
        fake.pcp_result = pcp.ResultCode.NETWORK_FAILURE
        async with trio.open_nursery() as nursery:
            await nursery.start(lambda task_status: client.maintain(
                mapping, on_error=errors.append, pcp_policy=FAST, min_retry=0.1,
                task_status=task_status))
            await trio.sleep(1.8)
            nursery.cancel_scope.cancel()
    assert len(errors) >= 2 and all(isinstance(e, NatResultError) for e in errors)


async def test_ipv6_loopback(nursery: trio.Nursery) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    gateway = FakeGateway()
    try:
        await _start(nursery, gateway, "::1")
    except OSError as error:
        pytest.skip(f"cannot bind ::1 here: {error}")
    with trio.fail_after(LIMIT):
        mapping = await client.pcp_map("::1", 47820, suggested_port=47820, port=gateway.port,
                                       policy=FAST)
    assert mapping.external_address == EXTERNAL_V6
    assert "[2001:db8::7]:47820" in mapping.describe()


def test_retry_policies_follow_the_rfcs() -> None:
    pcp_timeouts = client.PCP_RETRY.timeouts()
    assert len(pcp_timeouts) == 3
    for timeout, base in zip(pcp_timeouts, (3, 6, 12), strict=True):
        assert base * 0.9 <= timeout <= base * 1.1
    assert client.NATPMP_RETRY.timeouts() == [0.25 * 2**n for n in range(9)]
    assert RetryPolicy(1, 3, 4).timeouts() == [1, 2, 3, 3]
    for bad in ({"initial": 0, "maximum": 1, "attempts": 1},
                {"initial": 2, "maximum": 1, "attempts": 1},
                {"initial": 1, "maximum": 1, "attempts": 0},
                {"initial": 1, "maximum": 1, "attempts": 1, "jitter": 1}):
        with pytest.raises(ValueError):
            RetryPolicy(**bad)  # type: ignore[arg-type]


def test_mapping_renewal_window() -> None:
    mapping = Mapping(Method.PCP, "192.0.2.1", 5351, pcp.Protocol.TCP, 80, 80, EXTERNAL_V4, 100,
                      1000.0, 5, bytes(12))
    assert mapping.renew_at(lambda low, high: low) == 1050.0
    assert mapping.renew_at(lambda low, high: high) == 1062.5
    assert mapping.expires_at == 1100.0
    with pytest.raises(ValueError, match="nonce"):
        Mapping(Method.PCP, "192.0.2.1", 5351, pcp.Protocol.TCP, 80, 80, None, 100, 0.0, 5)
    with pytest.raises(ValueError, match="lifetime"):
        Mapping(Method.NATPMP, "192.0.2.1", 5351, pcp.Protocol.TCP, 80, 80, None, 0, 0.0, 5)
