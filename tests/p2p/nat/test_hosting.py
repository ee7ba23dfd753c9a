# What `versus host` does for port mapping (p2p/nat/hosting.py), against the loopback fake
# gateway (tests/p2p/nat/fake_gateway.py): one line per method tried, the external address for
# the invite, deletion on exit, the NAT-PMP fallback, a dead gateway, and UPnP through a stand-in
# miniupnpc module (the real one is an optional extra), and the IPv6 pinhole asked alongside
# (a second fake gateway on ::1). Every test stops itself; none asks a real gateway (the IPv6
# pinhole is off unless a test gives an address).
from __future__ import annotations

import socket
import threading
from functools import partial
from types import SimpleNamespace
from typing import ClassVar

import pytest
import trio

from tests.p2p.nat.fake_gateway import FakeGateway
from versus.p2p.nat import hosting
from versus.p2p.nat.client import RetryPolicy

FAST = RetryPolicy(initial=0.05, maximum=0.2, attempts=3)
OPTIONS = {"pcp_policy": FAST, "natpmp_policy": FAST, "ipv6_address": lambda: None}
LIMIT = 10


def _no_upnp() -> None:
    return None


async def test_pcp_maps_lists_the_external_address_and_deletes_on_exit(
    nursery: trio.Nursery,
) -> None:
    fake = FakeGateway()
    await nursery.start(fake.serve, "127.0.0.1")
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with hosting.host_port_mapping(47820, lines.append, gateway="127.0.0.1",
                                             gateway_port=fake.port, upnp=_no_upnp,
                                             **OPTIONS) as mapped:
            assert mapped.external == [("198.51.100.7", 47820)]
            assert len(fake.table) == 1
        assert fake.table == {}  # deleted on exit
    assert len(lines) == 1 and lines[0].startswith("port mapping: PCP: PCP on gateway 127.0.0.1")
    assert "198.51.100.7:47820" in lines[0]


async def test_natpmp_after_pcp_unsupported_version(nursery: trio.Nursery) -> None:
    fake = FakeGateway(speaks_pcp=False)
    await nursery.start(fake.serve, "127.0.0.1")
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with hosting.host_port_mapping(47821, lines.append, gateway="127.0.0.1",
                                             gateway_port=fake.port, upnp=_no_upnp,
                                             **OPTIONS) as mapped:
            assert mapped.external == [("198.51.100.7", 47821)]
        assert fake.table == {}
    assert lines[0] == "port mapping: PCP: gateway 127.0.0.1 speaks NAT-PMP only; trying NAT-PMP"
    assert lines[1].startswith("port mapping: NAT-PMP: NAT-PMP on gateway 127.0.0.1")
    assert len(lines) == 2


def _dead_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_nothing_maps_one_line_per_method_and_no_address() -> None:
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with hosting.host_port_mapping(47822, lines.append, gateway="127.0.0.1",
                                             gateway_port=_dead_udp_port(), upnp=_no_upnp,
                                             **OPTIONS) as mapped:
            assert mapped.external == []
    assert len(lines) == 2
    assert lines[0].startswith("port mapping: PCP: ") and "nothing listens" in lines[0]
    assert lines[1] == ("port mapping: UPnP: not tried: miniupnpc is not installed "
                        "(pip install 'versus-p2p[upnp]')")


async def test_no_gateway_is_one_line(monkeypatch) -> None:
    from versus.p2p.nat.errors import NoGatewayError

    def none(family: int) -> object:
        raise NoGatewayError("no default IPv4 gateway (test)")

    monkeypatch.setattr(hosting, "default_gateway", none)
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with hosting.host_port_mapping(47823, lines.append, upnp=_no_upnp,
                                             ipv6_address=lambda: None) as mapped:
            assert mapped.external == []
    assert lines[0] == "port mapping: PCP, NAT-PMP: not tried: no default IPv4 gateway (test)"


class _FakeIGD:
    calls: ClassVar[list[tuple[object, ...]]] = []

    def __init__(self, multicastif: str = "") -> None:
        self.calls.append(("UPnP", multicastif))
        self.discoverdelay = 0
        self.lanaddr = "10.0.0.2"

    def discover(self) -> int:
        return 1

    def selectigd(self) -> str:
        return "http://10.0.0.1/ctl"

    def externalipaddress(self) -> str:
        return "100.64.1.2"

    def addportmapping(self, *args: object) -> bool:
        self.calls.append(("add", *args))
        if args[-1] != 0:
            raise Exception("OnlyPermanentLeasesSupported")  # as miniupnpc does
        return True

    def deleteportmapping(self, *args: object) -> bool:
        self.calls.append(("delete", *args))
        return True


async def test_upnp_in_a_worker_thread_when_pcp_fails() -> None:
    _FakeIGD.calls = []
    module = SimpleNamespace(UPnP=_FakeIGD)
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with hosting.host_port_mapping(47824, lines.append, gateway="127.0.0.1",
                                             gateway_port=_dead_udp_port(),
                                             upnp=lambda: module, **OPTIONS) as mapped:
            assert mapped.external == [("100.64.1.2", 47824)], lines
    assert lines[1].startswith("port mapping: UPnP: gateway mapped 100.64.1.2:47824 to local "
                               "port 47824 (a carrier-grade NAT address")
    assert [call[0] for call in _FakeIGD.calls] == ["UPnP", "add", "add", "delete"]
    assert _FakeIGD.calls[0] == ("UPnP", "127.0.0.1")  # discovery left by loopback only
    assert _FakeIGD.calls[2] == ("add", 47824, "TCP", "10.0.0.2", 47824, "versus", "", 0)
    assert _FakeIGD.calls[3] == ("delete", 47824, "TCP")


async def test_upnp_discovery_runs_alongside_pcp_and_is_dropped_when_pcp_maps(
    nursery: trio.Nursery,
) -> None:
    release = threading.Event()  # the discovery thread, abandoned, ends with the test

    class SlowIGD(_FakeIGD):
        def discover(self) -> int:
            release.wait(10)
            return 1

    fake = FakeGateway()
    await nursery.start(fake.serve, "127.0.0.1")
    lines: list[str] = []
    try:
        with trio.fail_after(2):  # discovery would take 10 s
            async with hosting.host_port_mapping(47827, lines.append, gateway="127.0.0.1",
                                                 gateway_port=fake.port,
                                                 upnp=lambda: SimpleNamespace(UPnP=SlowIGD),
                                                 **OPTIONS) as mapped:
                assert mapped.external == [("198.51.100.7", 47827)]
    finally:
        release.set()
    assert len(lines) == 1 and lines[0].startswith("port mapping: PCP: PCP on gateway")


def test_reachability_note() -> None:
    assert hosting.reachability_note("203.0.113.5") == "" or "private" in (
        hosting.reachability_note("203.0.113.5"))
    assert hosting.reachability_note("61.88.0.1") == ""
    assert "private" in hosting.reachability_note("192.168.1.1")
    assert "carrier-grade" in hosting.reachability_note("100.64.0.9")


# --- the IPv6 pinhole ---------------------------------------------------------------------------


async def test_an_ipv6_pinhole_is_asked_alongside_the_ipv4_mapping(
    nursery: trio.Nursery,
) -> None:
    fake4, fake6 = FakeGateway(), FakeGateway()
    port = await nursery.start(fake4.serve, "127.0.0.1")
    await nursery.start(partial(fake6.serve, "::1", port))
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with hosting.host_port_mapping(47825, lines.append, gateway="127.0.0.1",
                                             gateway_port=port, upnp=_no_upnp, **{
                                                 **OPTIONS, "ipv6_address": lambda: "::1"},
                                             gateway6="::1") as mapped:
            # the pinhole's address is our own global one, already in the invite
            assert mapped.external == [("198.51.100.7", 47825)]
            assert list(fake6.table) == [(6, 47825, "::1")]
        assert fake4.table == {} and fake6.table == {}  # both deleted on exit
    assert len(lines) == 2
    assert any(line.startswith("port mapping: PCP: PCP on gateway 127.0.0.1 mapped "
                               "198.51.100.7:47825 to local port 47825 for 3600 s")
               for line in lines), lines
    assert ("port mapping: PCP IPv6 pinhole: PCP on gateway ::1 mapped [2001:db8::7]:47825 to "
            "local port 47825 for 3600 s") in lines


@pytest.mark.parametrize(("fake", "line"), [
    (FakeGateway(pcp_result=2), "port mapping: PCP IPv6 pinhole: gateway ::1 refused the PCP "
                                "mapping: NOT_AUTHORIZED"),
    (FakeGateway(speaks_pcp=False), "port mapping: PCP IPv6 pinhole: gateway ::1 does not speak "
                                    "PCP (NAT-PMP has no IPv6)"),
], ids=["refused", "nat-pmp-only"])
async def test_an_ipv6_pinhole_refused_is_one_line_and_the_ipv4_path_goes_on(
    nursery: trio.Nursery, fake: FakeGateway, line: str,
) -> None:
    port = await nursery.start(fake.serve, "::1")
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with hosting.host_port_mapping(47826, lines.append, gateway="127.0.0.1",
                                             gateway_port=port, upnp=_no_upnp,
                                             pcp_policy=FAST, natpmp_policy=FAST,
                                             ipv6_address=lambda: "::1", gateway6="::1",
                                             ) as mapped:  # nothing on 127.0.0.1:port
            assert mapped.external == []
    assert sum(x.startswith(line) for x in lines) == 1, lines
    assert len(lines) == 3  # PCP (IPv4), UPnP not installed, the pinhole


def test_global_ipv6_address_is_global_or_none() -> None:
    import ipaddress

    address = hosting.global_ipv6_address()
    assert address is None or ipaddress.IPv6Address(address).is_global


def test_upnp_discovery_with_a_named_gateway_leaves_by_its_interface_only() -> None:
    """--gateway 127.0.0.1 (the tests' fake gateway): the SSDP search goes out on loopback,
    never onto the real LAN; without a gateway miniupnpc picks the interface."""
    made: list[dict[str, object]] = []

    class FakeIgd:
        def __init__(self, **kwargs: object) -> None:
            made.append(kwargs)
            self.discoverdelay = 0

        def discover(self) -> int:
            return 0

    fake = type("FakeMiniupnpc", (), {"UPnP": FakeIgd})
    for gateway in ("127.0.0.1", None):
        with pytest.raises(OSError, match="no UPnP gateway answered"):
            hosting._upnp_discover(fake, gateway)
    assert made == [{"multicastif": "127.0.0.1"}, {}]


async def test_a_upnp_mapping_made_before_a_cancel_is_deleted() -> None:
    """Review finding: UPnP mapped, the IPv6 pinhole still asked of a silent gateway, then the
    host is stopped: the UPnP mapping was left on the router for its whole lease."""
    _FakeIGD.calls = []
    module = SimpleNamespace(UPnP=_FakeIGD)
    port = _dead_udp_port()
    silent6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    try:
        silent6.bind(("::1", port))  # answers nothing
    except OSError as error:
        silent6.close()
        pytest.skip(f"no IPv6 loopback here: {error}")
    with silent6, trio.move_on_after(1.5):
        async with hosting.host_port_mapping(
                47826, lambda line: None, gateway="127.0.0.1", gateway_port=port,
                upnp=lambda: module, ipv6_address=lambda: "::1", gateway6="::1",
                pcp_policy=RetryPolicy(initial=0.5, maximum=2.0, attempts=4)):
            pytest.fail("the pinhole's gateway is silent: the block is not reached in time")
    assert [call[0] for call in _FakeIGD.calls] == ["UPnP", "add", "add", "delete"], \
        _FakeIGD.calls
