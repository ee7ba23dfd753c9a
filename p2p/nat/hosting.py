# What `versus host` does to be reachable from the internet: map its port on the home gateway
# (PCP, then NAT-PMP, then UPnP-IGD when miniupnpc is installed), keep the mapping alive while
# hosting, delete it on exit, and say in one line per method tried what happened.
#
# Order (SPEC §6.10): PCP first; NAT-PMP only when the gateway answered PCP as a
# NAT-PMP gateway ("unsupported version"), since both listen on the same port and a gateway
# silent to one is silent to the other; UPnP-IGD (SSDP discovery, then SOAP, in miniupnpc's
# blocking calls on a worker thread) only when neither mapped the port. Its discovery, which
# only listens for the router's answer, starts alongside PCP, because with no IGD on the LAN
# miniupnpc waits about 1 s for each of the 4 device types it searches: waiting for PCP and
# then for discovery would keep the player from the invite for their sum. The first exchange uses
# short retry policies (STARTUP_*: a few seconds, not RFC 6887's ~21 s), because the host's
# player waits for the invite; renewals in the background use the RFC timings (client.py).
# A mapping whose external address is itself private or shared (double NAT, carrier-grade NAT)
# is still kept, but the line says the internet cannot reach it: the relay is then the way.
#
# IPv6 needs no mapping: a global address is in the invite as it is. But a home router's IPv6
# firewall usually drops inbound connections, so when this machine has a global IPv6 address,
# the host also asks the IPv6 default gateway for a PCP MAP from that address (RFC 6887 §11:
# with an IPv6 client address a MAP opens a pinhole; the "external" address is our own). It
# runs alongside the IPv4 methods and the invite waits for both (a silent IPv6 gateway adds
# its retries, about 3.5 s, only when IPv4 mapped faster), is
# renewed and deleted like the IPv4 mapping, and prints its own line; with no global IPv6
# address nothing is tried and nothing printed. The request is sent from the global address
# itself (the gateway is often link-local, for which the kernel would pick a link-local source).
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
#: UPnP: how long SSDP discovery listens for each device type (ms; SSDP's MX, the longest a
#: device may wait before it answers, is then 1 s), and the lease asked (0 if the IGD refuses
#: one).
UPNP_DISCOVER_MS = 1000
UPNP_LEASE = 7200
UPNP_INSTALL = "pip install 'versus-p2p[upnp]'"
#: where `global_ipv6_address` asks the kernel for a route (documentation prefix: nothing is sent)
IPV6_PROBE = "2001:db8::1"
PINHOLE = "PCP IPv6 pinhole"

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


def global_ipv6_address() -> str | None:
    """The global IPv6 address this machine would use toward the internet (a UDP connect sends
    nothing), or None (no IPv6 route, or only a unique-local or link-local address)."""
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
            probe.connect((IPV6_PROBE, 9))
            address = ipaddress.ip_address(probe.getsockname()[0].partition("%")[0])
    except (OSError, ValueError):
        return None
    return str(address) if address.is_global else None


async def _ipv6_pinhole(address: str, port: int, say: Say, *, gateway: str | None,
                        gateway_port: int, policy: RetryPolicy) -> Mapping | None:
    """A PCP MAP from our global IPv6 `address` to the IPv6 gateway: a firewall pinhole."""
    if gateway is None:
        try:
            gateway = default_gateway(socket.AF_INET6).host
        except NoGatewayError as error:
            say(f"port mapping: {PINHOLE}: not tried: {error}")
            return None
    try:
        return await client.pcp_map(gateway, port, suggested_port=port, port=gateway_port,
                                     policy=policy, source=address)
    except NatVersionError:
        say(f"port mapping: {PINHOLE}: gateway {gateway} does not speak PCP (NAT-PMP has no "
            "IPv6); inbound IPv6 may be blocked by its firewall")
    except NatError as error:
        say(f"port mapping: {PINHOLE}: {error}")
    return None


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


@dataclass(frozen=True)
class _UpnpMapping:
    igd: Any
    external_address: str
    port: int
    lease: int


def _interface_towards(gateway: str) -> str:
    """The local IPv4 address this machine would send from to reach `gateway` (a connected UDP
    socket sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect((gateway, 1900))
        return str(probe.getsockname()[0])


def _upnp_discover(module: Any, gateway: str | None = None) -> Any:
    """Blocking (a worker thread): find the IGD on the LAN (SSDP, then its description). With
    a gateway named (`--gateway`), the SSDP search leaves by the interface that routes to it
    only: a gateway on 127.0.0.1 keeps the search on this computer."""
    where = {} if gateway is None else {"multicastif": _interface_towards(gateway)}
    igd = module.UPnP(**where)
    igd.discoverdelay = UPNP_DISCOVER_MS
    try:
        found = igd.discover()
    except Exception:  # miniupnpc raises Exception("Success") when nothing answered
        found = 0
    if not found:
        raise OSError("no UPnP gateway answered discovery on the LAN")
    igd.selectigd()
    return igd


def _upnp_map(igd: Any, port: int) -> _UpnpMapping:
    """Blocking (a worker thread): map `port` TCP to this machine on the IGD found."""
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
    ipv6_address: Callable[[], str | None] = global_ipv6_address,
    gateway6: str | None = None,
) -> AsyncIterator[HostMapping]:
    """Map `port` (see the module comment), yield the external addresses, renew in the
    background while the block runs, delete on exit (best effort, even when cancelled).
    `gateway` overrides the default route's, `gateway6` the IPv6 default route's (for the
    pinhole); `say` gets one line per method tried."""
    result = HostMapping()
    mapping: Mapping | None = None
    upnp_mapping: _UpnpMapping | None = None
    pinhole: Mapping | None = None
    address6 = ipv6_address()

    async def open_pinhole() -> None:
        nonlocal pinhole
        assert address6 is not None
        pinhole = await _ipv6_pinhole(address6, port, say, gateway=gateway6,
                                      gateway_port=gateway_port, policy=pcp_policy)
        if pinhole is not None:
            say(f"port mapping: {PINHOLE}: {pinhole.describe()}")

    try:
        async with trio.open_nursery() as startup:
            if address6 is not None:
                startup.start_soon(open_pinhole)
            mapping, upnp_mapping = await _map_ipv4(port, say, result, gateway=gateway,
                                                    gateway_port=gateway_port,
                                                    pcp_policy=pcp_policy,
                                                    natpmp_policy=natpmp_policy, upnp=upnp)
    except BaseException:  # e.g. cancelled while the pinhole is still being asked for
        await _delete_all([mapping, pinhole], upnp_mapping)
        raise

    def changed(fresh: Mapping) -> None:
        nonlocal mapping
        mapping = fresh
        say(_describe(fresh) + " (renewed with a change: invites printed before may be stale)")
        result.external = ([(str(fresh.external_address), fresh.external_port)]
                           if fresh.external_address is not None else [])
        if on_change is not None:
            on_change(list(result.external))

    def pinhole_changed(fresh: Mapping) -> None:
        nonlocal pinhole
        pinhole = fresh
        say(f"port mapping: {PINHOLE}: renewed with a change: {fresh.describe()}")

    try:
        async with trio.open_nursery() as nursery:
            if mapping is not None:
                await nursery.start(partial(
                    client.maintain, mapping, on_change=changed,
                    on_error=lambda error: say(f"port mapping: renewal failed: {error}")))
            elif upnp_mapping is not None:
                nursery.start_soon(_upnp_maintain, upnp_mapping, say)
            if pinhole is not None:
                await nursery.start(partial(
                    client.maintain, pinhole, on_change=pinhole_changed,
                    on_error=lambda error: say(f"port mapping: {PINHOLE}: renewal failed: "
                                               f"{error}")))
            try:
                yield result
            finally:
                nursery.cancel_scope.cancel()
    finally:
        await _delete_all([mapping, pinhole], upnp_mapping)


async def _delete_all(mappings: list[Mapping | None], upnp_mapping: _UpnpMapping | None) -> None:
    """Delete every mapping held, at once and within DELETE_TIMEOUT in all, even when
    cancelled; a deletion that fails or is cut short just lets its lease expire."""

    async def delete(held: Mapping) -> None:
        with contextlib.suppress(NatError):
            await client.delete(held)

    async def delete_upnp(held: _UpnpMapping) -> None:
        with contextlib.suppress(Exception):  # miniupnpc raises plain Exception
            await trio.to_thread.run_sync(_upnp_delete, held, abandon_on_cancel=True)

    with trio.CancelScope(shield=True), trio.move_on_after(DELETE_TIMEOUT):
        async with trio.open_nursery() as nursery:
            for held in mappings:
                if held is not None:
                    nursery.start_soon(delete, held)
            if upnp_mapping is not None:
                nursery.start_soon(delete_upnp, upnp_mapping)


async def _map_ipv4(port: int, say: Say, result: HostMapping, *, gateway: str | None,
                    gateway_port: int, pcp_policy: RetryPolicy, natpmp_policy: RetryPolicy,
                    upnp: Callable[[], ModuleType | None],
                    ) -> tuple[Mapping | None, _UpnpMapping | None]:
    """PCP, then NAT-PMP, then UPnP (module comment); the external address into `result`."""
    mapping: Mapping | None = None
    upnp_mapping: _UpnpMapping | None = None
    module = upnp()
    found: list[Any] = []  # the IGD, or the exception discovery raised
    explicit_gateway = gateway  # --gateway (before the default route fills `gateway` in)
    discovered = trio.Event()

    async def discover() -> None:
        try:
            found.append(await trio.to_thread.run_sync(
                partial(_upnp_discover, module, explicit_gateway), abandon_on_cancel=True))
        except Exception as error:  # miniupnpc raises plain Exception
            found.append(error)
        discovered.set()

    async with trio.open_nursery() as nursery:
        if module is not None:
            nursery.start_soon(discover)
        if gateway is None:
            try:
                gateway = default_gateway(socket.AF_INET).host
            except NoGatewayError as error:
                say(f"port mapping: PCP, NAT-PMP: not tried: {error}")
        if gateway is not None:
            mapping = await _pcp_or_natpmp(gateway, port, say, gateway_port=gateway_port,
                                           pcp_policy=pcp_policy, natpmp_policy=natpmp_policy)
        if mapping is not None:
            nursery.cancel_scope.cancel()  # UPnP is not needed (its thread is abandoned)
        elif module is not None:
            await discovered.wait()
    if mapping is not None:
        say(_describe(mapping))
        if mapping.external_address is not None:
            result.external.append((str(mapping.external_address), mapping.external_port))
    else:
        if module is None:
            say(f"port mapping: UPnP: not tried: miniupnpc is not installed ({UPNP_INSTALL})")
        else:
            try:
                if isinstance(found[0], Exception):
                    raise found[0]
                upnp_mapping = await trio.to_thread.run_sync(
                    partial(_upnp_map, found[0], port), abandon_on_cancel=True)
            except Exception as error:  # miniupnpc raises plain Exception
                say(f"port mapping: UPnP: {error or type(error).__name__}")
            else:
                say(f"port mapping: UPnP: gateway mapped {upnp_mapping.external_address}:"
                    f"{port} to local port {port}"
                    + (f" for {upnp_mapping.lease} s" if upnp_mapping.lease else "")
                    + reachability_note(upnp_mapping.external_address))
                result.external.append((upnp_mapping.external_address, port))
    return mapping, upnp_mapping
