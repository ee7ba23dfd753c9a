# Finding the gateway to ask for a port mapping: the default route's next hop.
#
# PCP and NAT-PMP talk to the default gateway (RFC 6887 §8.1, RFC 6886 §3). On Linux the kernel
# lists routes in /proc/net/route (IPv4: little-endian hex fields) and /proc/net/ipv6_route
# (IPv6: plain hex); the parsers here are pure functions of that text so tests feed them
# samples. Elsewhere there is no portable source, so `default_gateway` raises NoGatewayError
# saying so (the CLI can take an explicit gateway address instead). A default route without a
# next hop (a point-to-point link, a VPN device) has no gateway to ask and is skipped.
from __future__ import annotations

import ipaddress
import socket
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

from versus.p2p.nat.errors import NoGatewayError

PROC_ROUTE = Path("/proc/net/route")
PROC_IPV6_ROUTE = Path("/proc/net/ipv6_route")
_RTF_UP = 0x0001
_RTF_GATEWAY = 0x0002


@dataclass(frozen=True)
class Gateway:
    """A default route's next hop; `interface` matters for an IPv6 link-local address."""

    address: ipaddress.IPv4Address | ipaddress.IPv6Address
    interface: str
    metric: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "address", ipaddress.ip_address(self.address))
        if not self.interface or any(c.isspace() for c in self.interface):
            raise ValueError(f"gateway interface {self.interface!r} is not an interface name")
        if not isinstance(self.metric, int) or self.metric < 0:
            raise ValueError(f"gateway metric {self.metric!r} is not a non-negative integer")

    @property
    def host(self) -> str:
        """The address as a socket wants it (a link-local IPv6 one with its %zone)."""
        if isinstance(self.address, ipaddress.IPv6Address) and self.address.is_link_local:
            return f"{self.address}%{self.interface}"
        return str(self.address)


def parse_route_table(text: str) -> list[Gateway]:
    """Default IPv4 gateways in /proc/net/route text, lowest metric first. Malformed lines are
    skipped (the kernel writes this file; a line we cannot read is no route of ours)."""
    found: list[Gateway] = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8:
            continue
        iface, destination, gateway, flags, _refcnt, _use, metric, mask = fields[:8]
        try:
            flag_bits = int(flags, 16)
            if int(destination, 16) or int(mask, 16):
                continue
            if flag_bits & (_RTF_UP | _RTF_GATEWAY) != _RTF_UP | _RTF_GATEWAY:
                continue
            packed = struct.pack("<I", int(gateway, 16))
            found.append(Gateway(ipaddress.IPv4Address(packed), iface, int(metric)))
        except (ValueError, struct.error):
            continue
    return sorted(found, key=lambda g: g.metric)


def parse_ipv6_route_table(text: str) -> list[Gateway]:
    """Default IPv6 gateways in /proc/net/ipv6_route text, lowest metric first."""
    found: list[Gateway] = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 10:
            continue
        destination, prefix, _src, _src_prefix, next_hop, metric, _r, _u, flags, iface = fields
        try:
            if int(destination, 16) or int(prefix, 16) or not int(next_hop, 16):
                continue
            if int(flags, 16) & _RTF_UP == 0 or iface == "lo":
                continue
            address = ipaddress.IPv6Address(bytes.fromhex(next_hop))
            found.append(Gateway(address, iface, int(metric, 16)))
        except ValueError:
            continue
    return sorted(found, key=lambda g: g.metric)


def default_gateways(family: int = socket.AF_INET) -> list[Gateway]:
    """Every default gateway of `family` on this machine (Linux only); [] if there is none."""
    if not sys.platform.startswith("linux"):
        raise NoGatewayError(
            f"cannot find the default gateway on {sys.platform} (only Linux is supported); "
            "give the gateway's address explicitly"
        )
    path = PROC_IPV6_ROUTE if family == socket.AF_INET6 else PROC_ROUTE
    try:
        text = path.read_text(encoding="ascii", errors="replace")
    except OSError as error:
        raise NoGatewayError(
            f"cannot read the routing table {path} ({error.strerror or error}); give the "
            "gateway's address explicitly"
        ) from None
    if family == socket.AF_INET6:
        return parse_ipv6_route_table(text)
    return parse_route_table(text)


def default_gateway(family: int = socket.AF_INET) -> Gateway:
    """The default gateway with the lowest metric; NoGatewayError when there is none."""
    gateways = default_gateways(family)
    if not gateways:
        kind = "IPv6" if family == socket.AF_INET6 else "IPv4"
        raise NoGatewayError(
            f"no default {kind} gateway (no default route with a next hop): this computer is "
            "not behind a router we could ask to open a port"
        )
    return gateways[0]
