# What `versus host` does to be reachable from the internet: map its port on the home gateway
# (PCP, then NAT-PMP, then UPnP-IGD when miniupnpc is installed), keep the mapping alive while
# hosting, delete it on exit, and say in one line per method tried what happened.
#
# Order (SPEC Part 6 §T-NAT): PCP first; NAT-PMP only when the gateway answered PCP as a
# NAT-PMP gateway ("unsupported version"), since both listen on the same port and a gateway
# silent to one is silent to the other; UPnP-IGD (SSDP discovery, then SOAP, in miniupnpc's
# blocking calls on a worker thread) only when neither mapped the port. The first exchange uses
# short retry policies (STARTUP_*: a few seconds, not RFC 6887's ~21 s), because the host's
# player waits for the invite; renewals in the background use the RFC timings (client.py).
# A mapping whose external address is itself private or shared (double NAT, carrier-grade NAT)
# is still kept, but the line says the internet cannot reach it: the relay is then the way.
from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import partial
from types import ModuleType
from typing import Any

import trio

from versus.p2p.nat import client
from versus.p2p.nat.client import DELETE_TIMEOUT, Mapping, RetryPolicy
from versus.p2p.nat.errors import NatError, NatVersionError, NoGatewayError
from versus.p2p.nat.gateway import default_gateway

#: The first PCP exchange at startup: 0.5 + 1 + 2 s.
STARTUP_PCP = RetryPolicy(initial=0.5, maximum=2.0, attempts=3, jitter=0.1)
#: The first NAT-PMP exchanges at startup (the gateway already answered PCP): 0.25 .. 2 s.
STARTUP_NATPMP = RetryPolicy(initial=0.25, maximum=2.0, attempts=4)
#: UPnP: how long SSDP discovery listens (ms), and the lease asked (0 if the IGD refuses one).
UPNP_DISCOVER_MS = 2000
UPNP_LEASE = 7200
UPNP_INSTALL = "pip install 'versus-p2p[upnp]'"

Address = tuple[str, int]
Say = Callable[[str], None]


def _import_miniupnpc() -> ModuleType | None:
    try:
        import miniupnpc  # type: ignore[import-not-found]
    except ImportError:
        return None
    return miniupnpc  # type: ignore[no-any-return]


def reachability_note(address: str) -> str:
    """"" for a public address; else why the internet cannot reach it."""
    try:
        ip = ipaddress.ip_address(address.partition("%")[0])
    except ValueError:
        return ""
    if ip.version == 4 and ip in ipaddress.IPv4Network("100.64.0.0/10"):
        return (" (a carrier-grade NAT address: the internet cannot reach it; use --relay)")
    if ip.is_private or ip.is_loopback or ip.is_link_local:
        return (" (a private address: another router stands in front of this one; the "
                "internet cannot reach it; use --relay)")
    return ""


@dataclass
class HostMapping:
    """What the host learned: the external addresses to list first in the invite."""

    external: list[Address] = field(default_factory=list)


async def _pcp_or_natpmp(gateway: str, port: int, say: Say, *, gateway_port: int,
                         pcp_policy: RetryPolicy, natpmp_policy: RetryPolicy
                         ) -> Mapping | None:
    try:
        mapping = await client.pcp_map(gateway, port, suggested_port=port, port=gateway_port,
                                       policy=pcp_policy)
    except NatVersionError:
        say(f"port mapping: PCP: gateway {gateway} speaks NAT-PMP only; trying NAT-PMP")
    except NatError as error:
        say(f"port mapping: PCP: {error}")
        return None
    else:
        return mapping
    try:
        return await client.natpmp_map(gateway, port, suggested_port=port, port=gateway_port,
                                       policy=natpmp_policy)
    except NatError as error:
        say(f"port mapping: NAT-PMP: {error}")
        return None


def _describe(mapping: Mapping) -> str:
    note = (reachability_note(str(mapping.external_address))
            if mapping.external_address is not None else
            " (the gateway did not say its external address; it is not in the invite)")
    return f"port mapping: {mapping.method.value}: {mapping.describe()}{note}"


# --- UPnP-IGD (optional) ------------------------------------------------------------------------


@dataclass
class _UpnpMapping:
    igd: Any
    external_address: str
    port: int
    lease: int


def _upnp_map(module: Any, port: int) -> _UpnpMapping:
    """Blocking (a worker thread): discover the IGD, map `port` TCP to this machine."""
    igd = module.UPnP()
    igd.discoverdelay = UPNP_DISCOVER_MS
    if not igd.discover():
        raise OSError(f"no UPnP gateway answered discovery within {UPNP_DISCOVER_MS} ms")
    igd.selectigd()
    external = str(igd.externalipaddress())
    lease = UPNP_LEASE
    try:
        igd.addportmapping(port, "TCP", igd.lanaddr, port, "versus", "", lease)
    except Exception:  # e.g. 725 OnlyPermanentLeasesSupported: ask for 0
        lease = 0
        igd.addportmapping(port, "TCP", igd.lanaddr, port, "versus", "", lease)
    return _UpnpMapping(igd, external, port, lease)


def _upnp_renew(mapping: _UpnpMapping) -> None:
    mapping.igd.addportmapping(mapping.port, "TCP", mapping.igd.lanaddr, mapping.port,
                               "versus", "", mapping.lease)


def _upnp_delete(mapping: _UpnpMapping) -> None:
    mapping.igd.deleteportmapping(mapping.port, "TCP")


async def _upnp_maintain(mapping: _UpnpMapping, say: Say) -> None:
    if not mapping.lease:
        return  # a permanent lease: nothing to renew (deleted on exit)
    while True:
        await trio.sleep(mapping.lease / 2)
        try:
            await trio.to_thread.run_sync(_upnp_renew, mapping, abandon_on_cancel=True)
        except Exception as error:  # miniupnpc raises plain Exception
            say(f"port mapping: UPnP: renewal failed: {error or type(error).__name__}")


# --- all together -------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def host_port_mapping(
    port: int,
    say: Say,
    *,
    gateway: str | None = None,
    gateway_port: int = 5351,
    on_change: Callable[[list[Address]], None] | None = None,
    pcp_policy: RetryPolicy = STARTUP_PCP,
    natpmp_policy: RetryPolicy = STARTUP_NATPMP,
    upnp: Callable[[], ModuleType | None] = _import_miniupnpc,
) -> AsyncIterator[HostMapping]:
    """Map `port` (see the module comment), yield the external addresses, renew in the
    background while the block runs, delete on exit (best effort, even when cancelled).
    `gateway` overrides the default route's; `say` gets one line per method tried."""
    result = HostMapping()
    mapping: Mapping | None = None
    upnp_mapping: _UpnpMapping | None = None
    if gateway is None:
        try:
            gateway = default_gateway(socket.AF_INET).host
        except NoGatewayError as error:
            say(f"port mapping: PCP, NAT-PMP: not tried: {error}")
    if gateway is not None:
        mapping = await _pcp_or_natpmp(gateway, port, say, gateway_port=gateway_port,
                                       pcp_policy=pcp_policy, natpmp_policy=natpmp_policy)
    if mapping is not None:
        say(_describe(mapping))
        if mapping.external_address is not None:
            result.external.append((str(mapping.external_address), mapping.external_port))
    else:
        module = upnp()
        if module is None:
            say(f"port mapping: UPnP: not tried: miniupnpc is not installed ({UPNP_INSTALL})")
        else:
            try:
                upnp_mapping = await trio.to_thread.run_sync(
                    partial(_upnp_map, module, port), abandon_on_cancel=True)
            except Exception as error:  # miniupnpc raises plain Exception
                say(f"port mapping: UPnP: {error or type(error).__name__}")
            else:
                say(f"port mapping: UPnP: gateway mapped {upnp_mapping.external_address}:"
                    f"{port} to local port {port}"
                    + (f" for {upnp_mapping.lease} s" if upnp_mapping.lease else "")
                    + reachability_note(upnp_mapping.external_address))
                result.external.append((upnp_mapping.external_address, port))

    def changed(fresh: Mapping) -> None:
        nonlocal mapping
        mapping = fresh
        say(_describe(fresh) + " (renewed with a change: invites printed before may be stale)")
        result.external = ([(str(fresh.external_address), fresh.external_port)]
                           if fresh.external_address is not None else [])
        if on_change is not None:
            on_change(list(result.external))

    try:
        async with trio.open_nursery() as nursery:
            if mapping is not None:
                await nursery.start(partial(
                    client.maintain, mapping, on_change=changed,
                    on_error=lambda error: say(f"port mapping: renewal failed: {error}")))
            elif upnp_mapping is not None:
                nursery.start_soon(_upnp_maintain, upnp_mapping, say)
            try:
                yield result
            finally:
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(DELETE_TIMEOUT):
            if mapping is not None:
                with contextlib.suppress(NatError):
                    await client.delete(mapping)
            if upnp_mapping is not None:
                with contextlib.suppress(Exception):
                    await trio.to_thread.run_sync(_upnp_delete, upnp_mapping,
                                                  abandon_on_cancel=True)
