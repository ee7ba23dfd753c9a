# The PCP / NAT-PMP client on trio UDP: map a port, renew it while hosting, delete it on exit.
#
# One exchange = one connected UDP socket to gateway:5351 (connecting makes the kernel drop
# datagrams from any other address, which RFC 6886 §3.2 and RFC 6887 §8.3 require us to
# ignore; the socket's own address is the PCP client address). The request is sent, then sent
# again after each timeout of the retry policy, reusing the same bytes (same nonce). Datagrams
# that do not decode, or decode but answer another request (wrong nonce, port or protocol), are
# ignored so a spoofer on the LAN cannot cut the exchange short; the last such problem is named
# in the timeout message. A decoded failure result ends the exchange at once (NatResultError).
#
# Timings. RFC 6887 §8.1.1: first timeout IRT = 3 s, then doubled up to MRT = 1024 s, each times
# (1 + RAND), RAND uniform in [-0.1, +0.1], with no limit on count or duration; we stop after
# `attempts` (3 by default: about 21 s). RFC 6886 §3.1: 250 ms, doubled, 9 attempts (about
# 64 s); we keep that, but `map_port` only tries NAT-PMP when the gateway answered PCP with
# "unsupported version" (RFC 6886 §3.5 obliges a NAT-PMP gateway to), so a gateway that speaks
# neither costs one PCP timeout, not two. Tests pass a RetryPolicy scaled down.
#
# Renewal (`maintain`): PCP at a random point in [1/2, 5/8] of the granted lifetime (RFC 6887
# §11.2.1), NAT-PMP at 1/2 (RFC 6886 §3.3); a renewal sends the same nonce and suggests the
# current external port, so the gateway keeps the mapping (or re-creates it after losing its
# state: an epoch that fails RFC 6887 §8.5's check is reported as a change). A failed renewal is
# retried at shorter intervals until the mapping expires. Deletion: lifetime 0, same nonce.
from __future__ import annotations

import contextlib
import enum
import ipaddress
import random
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TypeVar

import trio

from versus.p2p.nat import natpmp, pcp
from versus.p2p.nat.errors import (
    NatError,
    NatProtocolError,
    NatResultError,
    NatTimeoutError,
    NatUnavailableError,
    NatVersionError,
)
from versus.p2p.nat.pcp import EpochSample, IPAddress, Protocol, epoch_is_valid

T = TypeVar("T")
_SYSTEM_RANDOM = random.SystemRandom()
MAX_DATAGRAM = 2048
#: How long a deletion on exit may take before we give up (the lease then simply expires).
DELETE_TIMEOUT = 2.0


@dataclass(frozen=True)
class RetryPolicy:
    """Timeouts between retransmissions: `initial`, doubled up to `maximum`, each scaled by
    (1 + uniform(-jitter, +jitter)), for `attempts` sends in all."""

    initial: float
    maximum: float
    attempts: int
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if not 0 < self.initial <= self.maximum:
            raise ValueError(
                f"retry timeouts initial={self.initial!r}, maximum={self.maximum!r}: need "
                "0 < initial <= maximum"
            )
        if not isinstance(self.attempts, int) or self.attempts < 1:
            raise ValueError(f"retry attempts {self.attempts!r} must be at least 1")
        if not 0 <= self.jitter < 1:
            raise ValueError(f"retry jitter {self.jitter!r} is outside [0, 1)")

    def timeouts(self, rand: Callable[[float, float], float] = _SYSTEM_RANDOM.uniform) -> list[
        float
    ]:
        out: list[float] = []
        base = self.initial
        for _ in range(self.attempts):
            out.append(base * (1 + rand(-self.jitter, self.jitter)) if self.jitter else base)
            base = min(2 * base, self.maximum)
        return out


#: RFC 6887 §8.1.1 with the count capped (see the module comment).
PCP_RETRY = RetryPolicy(initial=3.0, maximum=1024.0, attempts=3, jitter=0.1)
#: RFC 6886 §3.1 as written.
NATPMP_RETRY = RetryPolicy(initial=0.25, maximum=64.0, attempts=9)


class Method(enum.Enum):
    PCP = "PCP"
    NATPMP = "NAT-PMP"


@dataclass(frozen=True)
class Mapping:
    """A port the gateway forwards to us: `external_address:external_port` -> our
    `internal_port`, for `lifetime` seconds from `obtained_at` (trio's clock)."""

    method: Method
    gateway: str
    gateway_port: int
    protocol: Protocol
    internal_port: int
    external_port: int
    external_address: IPAddress | None
    lifetime: int
    obtained_at: float
    epoch: int
    nonce: bytes = field(default=b"", repr=False)
    client_address: IPAddress | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", Method(self.method))
        object.__setattr__(self, "protocol", Protocol(self.protocol))
        for name in ("internal_port", "external_port", "gateway_port"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 1 <= value <= 65535:
                raise ValueError(f"mapping {name} {value!r} is outside 1..65535")
        if not isinstance(self.lifetime, int) or self.lifetime < 1:
            raise ValueError(f"mapping lifetime {self.lifetime!r} must be at least 1 s")
        if self.method is Method.PCP and len(self.nonce) != pcp.NONCE_SIZE:
            raise ValueError("a PCP mapping needs its 12-byte nonce to be renewed or deleted")

    @property
    def expires_at(self) -> float:
        return self.obtained_at + self.lifetime

    def renew_at(self, rand: Callable[[float, float], float] = _SYSTEM_RANDOM.uniform) -> float:
        """When to renew: PCP in [1/2, 5/8] of the lifetime, NAT-PMP at 1/2."""
        fraction = rand(0.5, 0.625) if self.method is Method.PCP else 0.5
        return self.obtained_at + self.lifetime * fraction

    def describe(self) -> str:
        """One line for the host's player."""
        where = (
            pcp_hostport(self.external_address, self.external_port)
            if self.external_address is not None
            else f"external port {self.external_port}"
        )
        return (
            f"{self.method.value} on gateway {self.gateway} mapped {where} to local port "
            f"{self.internal_port} for {self.lifetime} s"
        )


def pcp_hostport(address: IPAddress, port: int) -> str:
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"


# --- one request/response exchange -----------------------------------------------------------


def _family(gateway: str) -> int:
    try:
        address = ipaddress.ip_address(gateway.partition("%")[0])
    except ValueError:
        raise NatError(f"gateway {gateway!r} is not an IP address") from None
    return socket.AF_INET6 if address.version == 6 else socket.AF_INET


async def _exchange(
    gateway: str,
    port: int,
    build: Callable[[IPAddress], bytes],
    accept: Callable[[bytes], T | None],
    policy: RetryPolicy,
    what: str,
    source: str | None = None,
) -> T:
    """Send `build(our address)` to gateway:port until `accept` returns non-None for an answer.
    `accept` returns None to ignore a datagram; NatProtocolError from it is ignored too, except
    NatVersionError (the gateway speaks the other protocol), which ends the exchange. `source`:
    the local address to send from (an IPv6 pinhole's global address, when the gateway is
    link-local); else the kernel's choice."""
    label = pcp_hostport(ipaddress.ip_address(gateway.partition("%")[0]), port)
    family = _family(gateway)
    ignored: NatProtocolError | None = None
    sock = trio.socket.socket(family, socket.SOCK_DGRAM)
    with sock:
        try:
            if source is not None:
                await sock.bind((source, 0))
            await sock.connect((gateway, port))
        except OSError as error:
            raise NatUnavailableError(
                f"cannot reach gateway {label} for {what} ({error.strerror or error})"
            ) from None
        local = ipaddress.ip_address(sock.getsockname()[0].partition("%")[0])
        payload = build(local)
        timeouts = policy.timeouts()
        for timeout in timeouts:
            try:
                await sock.send(payload)
            except OSError as error:
                raise NatUnavailableError(
                    f"cannot send {what} to gateway {label} ({error.strerror or error})"
                ) from None
            with trio.move_on_after(timeout):
                while True:
                    try:
                        data = await sock.recv(MAX_DATAGRAM)
                    except ConnectionRefusedError:
                        raise NatUnavailableError(
                            f"gateway {label} refused {what}: nothing listens on UDP port "
                            f"{port} (no PCP or NAT-PMP service)"
                        ) from None
                    except OSError as error:
                        raise NatUnavailableError(
                            f"no answer from gateway {label} for {what} "
                            f"({error.strerror or error})"
                        ) from None
                    try:
                        result = accept(data)
                    except NatVersionError:
                        raise
                    except NatProtocolError as error:
                        ignored = error
                        continue
                    if result is not None:
                        return result
    also = f"; ignored a bad answer: {ignored}" if ignored is not None else ""
    raise NatTimeoutError(
        f"gateway {label} did not answer {what} after {len(timeouts)} attempts "
        f"({sum(timeouts):.3g} s){also}"
    )


# --- PCP -------------------------------------------------------------------------------------


def _pcp_failure(gateway: str, answer: pcp.MapResponse | pcp.ErrorResponse) -> NatResultError:
    advice = pcp.RESULT_ADVICE.get(answer.result, "")
    return NatResultError(
        f"gateway {gateway} refused the PCP mapping: {answer.result.name} ({advice})",
        answer.result, answer.lifetime,
    )


async def pcp_map(
    gateway: str,
    internal_port: int,
    *,
    protocol: Protocol = Protocol.TCP,
    lifetime: int = pcp.DEFAULT_LIFETIME,
    suggested_port: int = 0,
    suggested_address: IPAddress | None = None,
    nonce: bytes | None = None,
    prefer_failure: bool = False,
    port: int = pcp.SERVER_PORT,
    policy: RetryPolicy = PCP_RETRY,
    source: str | None = None,
) -> Mapping:
    """Ask the gateway to map `internal_port` (PCP MAP); for an IPv6 client address that is a
    firewall pinhole (the external address is then the client's own). `source`: the address to
    send from (see `_exchange`). Raises NatVersionError when the gateway speaks NAT-PMP only,
    NatResultError on a refusal, NatTimeoutError/NatUnavailableError when nothing answers."""
    if lifetime < 1:
        raise ValueError(f"PCP lifetime {lifetime!r}: a mapping needs at least 1 s (0 deletes)")
    nonce = pcp.new_nonce() if nonce is None else nonce
    request: pcp.MapRequest | None = None

    def build(local: IPAddress) -> bytes:
        nonlocal request
        request = pcp.MapRequest(
            local, internal_port, nonce, protocol, lifetime, suggested_port, suggested_address,
            prefer_failure,
        )
        return request.encode()

    def accept(data: bytes) -> pcp.MapResponse | None:
        answer = pcp.decode_response(data)
        if isinstance(answer, pcp.ErrorResponse):
            if answer.result is pcp.ResultCode.UNSUPP_VERSION:
                raise NatVersionError(
                    f"gateway {gateway} answered PCP with UNSUPP_VERSION", bytes(data), -1
                )
            raise _pcp_failure(gateway, answer)
        assert request is not None
        if not answer.answers(request):
            return None
        if not answer.ok:
            if answer.result is pcp.ResultCode.UNSUPP_VERSION:
                raise NatVersionError(
                    f"gateway {gateway} answered PCP with UNSUPP_VERSION", bytes(data), -1
                )
            raise _pcp_failure(gateway, answer)
        if answer.lifetime == 0:
            raise NatProtocolError(f"gateway {gateway} granted the mapping for 0 s", bytes(data))
        return answer

    answer = await _exchange(gateway, port, build, accept, policy, "a PCP MAP request", source)
    assert request is not None
    return Mapping(
        Method.PCP, gateway, port, protocol, internal_port, answer.external_port,
        answer.external_address, answer.lifetime, trio.current_time(), answer.epoch, nonce,
        request.client_address,
    )


async def pcp_delete(mapping: Mapping, *, policy: RetryPolicy = PCP_RETRY) -> None:
    """Delete a PCP mapping (MAP with lifetime 0 and the mapping's nonce)."""

    def build(local: IPAddress) -> bytes:
        return pcp.MapRequest(
            local, mapping.internal_port, mapping.nonce, mapping.protocol, 0
        ).encode()

    request = pcp.MapRequest(
        mapping.client_address or ipaddress.IPv4Address(0), mapping.internal_port,
        mapping.nonce, mapping.protocol, 0,
    )

    def accept(data: bytes) -> bool | None:
        answer = pcp.decode_response(data)
        if isinstance(answer, pcp.ErrorResponse):
            raise _pcp_failure(mapping.gateway, answer)
        if not answer.answers(request):
            return None
        if not answer.ok:
            raise _pcp_failure(mapping.gateway, answer)
        return True

    await _exchange(mapping.gateway, mapping.gateway_port, build, accept, policy,
                    "a PCP MAP deletion", _source(mapping))


def _source(mapping: Mapping) -> str | None:
    """Where a renewal or deletion is sent from: an IPv6 mapping's own global client address
    (the kernel might pick another one of the machine's, which the gateway would not know)."""
    address = mapping.client_address
    if isinstance(address, ipaddress.IPv6Address) and not address.is_link_local:
        return str(address)
    return None


# --- NAT-PMP ---------------------------------------------------------------------------------


def _natpmp_failure(
    gateway: str, answer: natpmp.Response, what: str
) -> NatResultError:
    advice = natpmp.RESULT_ADVICE.get(answer.result, "")
    return NatResultError(
        f"gateway {gateway} refused the NAT-PMP {what}: {answer.result.name} ({advice})",
        answer.result,
    )


async def natpmp_external_address(
    gateway: str, *, port: int = natpmp.SERVER_PORT, policy: RetryPolicy = NATPMP_RETRY
) -> tuple[ipaddress.IPv4Address, int]:
    """The gateway's external IPv4 address and its epoch."""

    def accept(data: bytes) -> natpmp.ExternalAddressResponse | None:
        answer = natpmp.decode_response(data)
        if isinstance(answer, natpmp.ErrorResponse):
            if answer.opcode is not natpmp.Opcode.EXTERNAL_ADDRESS:
                return None
            raise _natpmp_failure(gateway, answer, "external address request")
        if not isinstance(answer, natpmp.ExternalAddressResponse):
            return None
        if not answer.ok:
            raise _natpmp_failure(gateway, answer, "external address request")
        return answer

    answer = await _exchange(
        gateway, port, lambda _local: natpmp.ExternalAddressRequest().encode(), accept, policy,
        "a NAT-PMP external address request",
    )
    return answer.address, answer.epoch


def _natpmp_opcode(protocol: Protocol) -> natpmp.Opcode:
    return natpmp.Opcode.MAP_TCP if protocol is Protocol.TCP else natpmp.Opcode.MAP_UDP


async def _natpmp_mapping(
    gateway: str, request: natpmp.MappingRequest, port: int, policy: RetryPolicy, what: str
) -> natpmp.MappingResponse:
    def accept(data: bytes) -> natpmp.MappingResponse | None:
        answer = natpmp.decode_response(data)
        if isinstance(answer, natpmp.ErrorResponse):
            if answer.opcode != request.opcode:
                return None
            raise _natpmp_failure(gateway, answer, what)
        if not isinstance(answer, natpmp.MappingResponse) or not answer.answers(request):
            return None
        if not answer.ok:
            raise _natpmp_failure(gateway, answer, what)
        return answer

    return await _exchange(gateway, port, lambda _local: request.encode(), accept, policy,
                           f"a NAT-PMP {what}")


async def natpmp_map(
    gateway: str,
    internal_port: int,
    *,
    protocol: Protocol = Protocol.TCP,
    lifetime: int = natpmp.DEFAULT_LIFETIME,
    suggested_port: int = 0,
    port: int = natpmp.SERVER_PORT,
    policy: RetryPolicy = NATPMP_RETRY,
    external_address: bool = True,
) -> Mapping:
    """Map `internal_port` by NAT-PMP (and, unless told not to, ask the external address)."""
    if lifetime < 1:
        raise ValueError(f"NAT-PMP lifetime {lifetime!r}: a mapping needs at least 1 s")
    address: ipaddress.IPv4Address | None = None
    if external_address:
        address, _epoch = await natpmp_external_address(gateway, port=port, policy=policy)
    request = natpmp.MappingRequest(_natpmp_opcode(protocol), internal_port, suggested_port,
                                    lifetime)
    answer = await _natpmp_mapping(gateway, request, port, policy, "mapping request")
    if answer.lifetime == 0:
        raise NatProtocolError(f"gateway {gateway} granted the NAT-PMP mapping for 0 s")
    return Mapping(
        Method.NATPMP, gateway, port, protocol, internal_port, answer.external_port, address,
        answer.lifetime, trio.current_time(), answer.epoch,
    )


async def natpmp_delete(mapping: Mapping, *, policy: RetryPolicy = NATPMP_RETRY) -> None:
    """Delete a NAT-PMP mapping (lifetime 0, suggested port 0: RFC 6886 §3.4)."""
    request = natpmp.MappingRequest(_natpmp_opcode(mapping.protocol), mapping.internal_port, 0, 0)
    await _natpmp_mapping(mapping.gateway, request, mapping.gateway_port, policy,
                          "mapping deletion")


# --- either protocol ---------------------------------------------------------------------------


async def map_port(
    gateway: str,
    internal_port: int,
    *,
    protocol: Protocol = Protocol.TCP,
    lifetime: int = pcp.DEFAULT_LIFETIME,
    suggested_port: int | None = None,
    port: int = pcp.SERVER_PORT,
    pcp_policy: RetryPolicy = PCP_RETRY,
    natpmp_policy: RetryPolicy = NATPMP_RETRY,
) -> Mapping:
    """PCP first; NAT-PMP when the gateway answers PCP with "unsupported version". The external
    port asked for is `internal_port` unless `suggested_port` says otherwise (0: any)."""
    suggested = internal_port if suggested_port is None else suggested_port
    try:
        return await pcp_map(gateway, internal_port, protocol=protocol, lifetime=lifetime,
                             suggested_port=suggested, port=port, policy=pcp_policy)
    except NatVersionError:
        pass
    return await natpmp_map(gateway, internal_port, protocol=protocol, lifetime=lifetime,
                            suggested_port=suggested, port=port, policy=natpmp_policy)


async def renew(
    mapping: Mapping, *, pcp_policy: RetryPolicy = PCP_RETRY,
    natpmp_policy: RetryPolicy = NATPMP_RETRY,
) -> Mapping:
    """Renew (or re-create) `mapping` with the same nonce, suggesting the same external port."""
    if mapping.method is Method.PCP:
        return await pcp_map(
            mapping.gateway, mapping.internal_port, protocol=mapping.protocol,
            lifetime=mapping.lifetime, suggested_port=mapping.external_port,
            suggested_address=mapping.external_address, nonce=mapping.nonce,
            port=mapping.gateway_port, policy=pcp_policy, source=_source(mapping),
        )
    fresh = await natpmp_map(
        mapping.gateway, mapping.internal_port, protocol=mapping.protocol,
        lifetime=mapping.lifetime, suggested_port=mapping.external_port,
        port=mapping.gateway_port, policy=natpmp_policy, external_address=False,
    )
    return replace(fresh, external_address=mapping.external_address)


async def delete(
    mapping: Mapping, *, pcp_policy: RetryPolicy = PCP_RETRY,
    natpmp_policy: RetryPolicy = NATPMP_RETRY,
) -> None:
    if mapping.method is Method.PCP:
        await pcp_delete(mapping, policy=pcp_policy)
    else:
        await natpmp_delete(mapping, policy=natpmp_policy)


def gateway_lost_state(old: Mapping, new: Mapping) -> bool:
    """RFC 6887 §8.5 on two answers' epochs: True when the gateway restarted in between."""
    return not epoch_is_valid(
        EpochSample(old.epoch, old.obtained_at), EpochSample(new.epoch, new.obtained_at)
    )


#: Called with the renewed mapping when its external address or port changed, or the gateway
#: lost its state (the joiner's invite may then be stale).
ChangeHandler = Callable[[Mapping], None]
ErrorHandler = Callable[[NatError], None]


async def maintain(
    mapping: Mapping,
    *,
    on_change: ChangeHandler | None = None,
    on_error: ErrorHandler | None = None,
    pcp_policy: RetryPolicy = PCP_RETRY,
    natpmp_policy: RetryPolicy = NATPMP_RETRY,
    min_retry: float = 1.0,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Renew `mapping` forever (until cancelled); see the module comment for the timing."""
    current = mapping
    task_status.started()
    when = current.renew_at()
    while True:
        await trio.sleep_until(when)
        try:
            fresh = await renew(current, pcp_policy=pcp_policy, natpmp_policy=natpmp_policy)
        except NatError as error:
            if on_error is not None:
                on_error(error)
            remaining = current.expires_at - trio.current_time()
            when = trio.current_time() + max(min_retry, remaining / 2)
            continue
        changed = (
            fresh.external_port != current.external_port
            or fresh.external_address != current.external_address
            or gateway_lost_state(current, fresh)
        )
        current = fresh
        if changed and on_change is not None:
            on_change(current)
        when = current.renew_at()


@dataclass
class MappedPort:
    """What `mapped_port` yields: the current mapping, updated by renewals."""

    mapping: Mapping
    errors: list[NatError] = field(default_factory=list)


@contextlib.asynccontextmanager
async def mapped_port(
    gateway: str,
    internal_port: int,
    *,
    on_change: ChangeHandler | None = None,
    pcp_policy: RetryPolicy = PCP_RETRY,
    natpmp_policy: RetryPolicy = NATPMP_RETRY,
    **options: object,
) -> AsyncIterator[MappedPort]:
    """Map the port, renew it in the background while the block runs, delete it on exit (best
    effort, DELETE_TIMEOUT at most, even when cancelled). Mapping errors raise on entry."""
    first = await map_port(gateway, internal_port, pcp_policy=pcp_policy,
                           natpmp_policy=natpmp_policy, **options)  # type: ignore[arg-type]
    holder = MappedPort(first)

    def changed(mapping: Mapping) -> None:
        holder.mapping = mapping
        if on_change is not None:
            on_change(mapping)

    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(
                maintain, first, on_change=changed, on_error=holder.errors.append,
                pcp_policy=pcp_policy, natpmp_policy=natpmp_policy,
            ))
            try:
                yield holder
            finally:
                nursery.cancel_scope.cancel()
    finally:
        with (
            trio.CancelScope(shield=True),
            trio.move_on_after(DELETE_TIMEOUT),
            contextlib.suppress(NatError),
        ):
            await delete(holder.mapping, pcp_policy=pcp_policy, natpmp_policy=natpmp_policy)


__all__ = [
    "NATPMP_RETRY",
    "PCP_RETRY",
    "MappedPort",
    "Mapping",
    "Method",
    "RetryPolicy",
    "delete",
    "gateway_lost_state",
    "maintain",
    "map_port",
    "mapped_port",
    "natpmp_delete",
    "natpmp_external_address",
    "natpmp_map",
    "pcp_delete",
    "pcp_map",
    "renew",
]
