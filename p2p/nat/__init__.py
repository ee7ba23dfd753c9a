# Reaching a host behind a home router: port mapping (PCP, NAT-PMP, UPnP-IGD), an IPv6 firewall
# pinhole (PCP), and a blind relay.
#
# pcp.py and natpmp.py are sans-IO codecs of RFC 6887 (MAP) and RFC 6886; client.py drives them
# over trio UDP (retries, renewal, deletion); gateway.py finds the gateway from the default
# route; hosting.py is what `versus host` does with them (and with miniupnpc, when the `upnp`
# extra is installed); relay.py joins two players through a magic-wormhole transit relay,
# after which the ordinary handshake (p2p/handshake.py) runs end to end, so the relay only ever
# carries ciphertext. errors.py holds every failure, all TransportErrors with one-line messages.
# SPEC Part 6 (port mapping and relay sections) gives the wire formats and timings.
from __future__ import annotations

from versus.p2p.nat.errors import (
    NatError,
    NatFieldError,
    NatPacketSizeError,
    NatProtocolError,
    NatResultError,
    NatTimeoutError,
    NatUnavailableError,
    NatVersionError,
    NoGatewayError,
    RelayAddressError,
    RelayError,
    RelayRefusedError,
    RelayTimeoutError,
)

__all__ = [
    "NatError", "NatFieldError", "NatPacketSizeError", "NatProtocolError", "NatResultError",
    "NatTimeoutError", "NatUnavailableError", "NatVersionError", "NoGatewayError",
    "RelayAddressError", "RelayError", "RelayRefusedError", "RelayTimeoutError",
]
