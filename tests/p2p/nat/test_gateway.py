# Finding the default gateway from the kernel's route tables (samples, and this machine's).
from __future__ import annotations

import ipaddress
import socket
import sys

import pytest

from versus.p2p.nat import gateway as gw
from versus.p2p.nat.errors import NoGatewayError

ROUTE = """\
Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
wlan0\t00000000\t FE01A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0
eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0
tun0\t00000000\t00000000\t0001\t0\t0\t50\t00000000\t0\t0\t0
eth1\t00000000\t0102A8C0\t0002\t0\t0\t10\t00000000\t0\t0\t0
garbage line
eth2\t00000000\tZZZZZZZZ\t0003\t0\t0\t1\t00000000\t0\t0\t0
"""

IPV6_ROUTE = (
    "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
    "fe800000000000000000000000000001 00000400 00000001 00000000 00000003 eth0\n"
    "20010db8000000000000000000000000 40 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 00000100 00000001 00000000 00000001 eth0\n"
    "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 ffffffff 00000001 00000000 00200200 lo\n"
)


def test_ipv4_default_routes_with_a_next_hop_lowest_metric_first() -> None:
    found = gw.parse_route_table(ROUTE)
    assert [(str(g.address), g.interface, g.metric) for g in found] == [
        ("192.168.1.1", "eth0", 100), ("192.168.1.254", "wlan0", 600),
    ]


def test_ipv6_default_route_keeps_its_zone() -> None:
    (found,) = gw.parse_ipv6_route_table(IPV6_ROUTE)
    assert found.address == ipaddress.IPv6Address("fe80::1") and found.metric == 0x400
    assert found.host == "fe80::1%eth0"


def test_empty_tables_have_no_gateway() -> None:
    assert gw.parse_route_table(ROUTE.splitlines()[0]) == []
    assert gw.parse_ipv6_route_table("") == []


def test_gateway_validates() -> None:
    with pytest.raises(ValueError, match="interface"):
        gw.Gateway(ipaddress.IPv4Address("10.0.0.1"), "")
    with pytest.raises(ValueError):
        gw.Gateway("nonsense", "eth0")  # type: ignore[arg-type]


def test_default_gateway_says_when_there_is_none(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: object) -> None:
    monkeypatch.setattr(gw, "default_gateways", lambda family=socket.AF_INET: [])
    with pytest.raises(NoGatewayError, match="no default IPv4 gateway"):
        gw.default_gateway()
    monkeypatch.undo()
    monkeypatch.setattr(sys, "platform", "darwin")
    with pytest.raises(NoGatewayError, match="on darwin"):
        gw.default_gateways()


def test_this_machines_table_parses() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the route tables are Linux's")
    for family in (socket.AF_INET, socket.AF_INET6):
        try:
            found = gw.default_gateways(family)
        except NoGatewayError:
            continue
        assert all(isinstance(g, gw.Gateway) for g in found)
