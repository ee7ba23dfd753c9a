# PCP (Port Control Protocol, RFC 6887): the MAP opcode, sans-IO.
#
# The host asks its gateway (UDP port 5351) to forward an external port to its listening port.
# Only what MAP needs is here: the 24-byte common header, the 36-byte MAP body and the option
# TLVs (PREFER_FAILURE is the one we may send; options in responses are checked for structure
# and otherwise ignored, as §7.3 lets a client). The client side is p2p/nat/client.py.
#
#   request  = version 2 | R=0,opcode | reserved 16 | requested lifetime 32 | client IP 128
#              | MAP body | options
#   response = version 2 | R=1,opcode | reserved 8 | result 8 | lifetime 32 | epoch 32
#              | reserved 96 | MAP body | options
#   MAP body = nonce 96 | protocol 8 | reserved 24 | internal port 16 | (suggested|assigned)
#              external port 16 | (suggested|assigned) external IP 128
#
# IPv4 addresses travel as IPv4-mapped IPv6 (::ffff:a.b.c.d). Every packet is a multiple of 4
# bytes and at most 1100. The decoders check every size before reading and raise only
# NatProtocolError subclasses (p2p/nat/errors.py); reserved bits are ignored on receipt, as the
# RFC says. The request classes also decode, so tests/p2p/nat/fake_gateway.py and the fuzz tests
# can read what the client sent.
from __future__ import annotations

import enum
import ipaddress
import secrets
import struct
from dataclasses import dataclass, field

from versus.p2p.nat.errors import (
    NatFieldError,
    NatPacketSizeError,
    NatProtocolError,
    NatVersionError,
)

VERSION = 2
SERVER_PORT = 5351
HEADER_SIZE = 24
MAP_BODY_SIZE = 36
MAP_SIZE = HEADER_SIZE + MAP_BODY_SIZE  # 60
MAX_PACKET = 1100
NONCE_SIZE = 12
MAX_LIFETIME = 0xFFFF_FFFF
#: The lifetime we ask for (the RFC suggests a renewal at half of whatever is granted).
DEFAULT_LIFETIME = 7200

_REQUEST_HEADER = struct.Struct(">BBHI16s")
_RESPONSE_HEADER = struct.Struct(">BBBBII12s")
_MAP_BODY = struct.Struct(">12sB3sHH16s")
_OPTION_HEADER = struct.Struct(">BBH")

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Opcode(enum.IntEnum):
    ANNOUNCE = 0
    MAP = 1
    PEER = 2


class ResultCode(enum.IntEnum):
    SUCCESS = 0
    UNSUPP_VERSION = 1
    NOT_AUTHORIZED = 2
    MALFORMED_REQUEST = 3
    UNSUPP_OPCODE = 4
    UNSUPP_OPTION = 5
    MALFORMED_OPTION = 6
    NETWORK_FAILURE = 7
    NO_RESOURCES = 8
    UNSUPP_PROTOCOL = 9
    USER_EX_QUOTA = 10
    CANNOT_PROVIDE_EXTERNAL = 11
    ADDRESS_MISMATCH = 12
    EXCESSIVE_REMOTE_PEERS = 13


class Protocol(enum.IntEnum):
    """IANA protocol numbers MAP accepts for us (0, "all protocols", is never ours to ask)."""

    TCP = 6
    UDP = 17


class OptionCode(enum.IntEnum):
    THIRD_PARTY = 1
    PREFER_FAILURE = 2
    FILTER = 3


#: What the user reads for each failure result (RFC 6887 §7.4), after "the gateway refused".
RESULT_ADVICE: dict[ResultCode, str] = {
    ResultCode.UNSUPP_VERSION: "it does not speak PCP version 2",
    ResultCode.NOT_AUTHORIZED: "port mapping is disabled or not allowed for this computer",
    ResultCode.MALFORMED_REQUEST: "it found our request malformed",
    ResultCode.UNSUPP_OPCODE: "it does not support MAP",
    ResultCode.UNSUPP_OPTION: "it does not support an option we sent",
    ResultCode.MALFORMED_OPTION: "it found an option malformed",
    ResultCode.NETWORK_FAILURE: "it has no working external connection right now",
    ResultCode.NO_RESOURCES: "it is out of mappings",
    ResultCode.UNSUPP_PROTOCOL: "it cannot map this protocol",
    ResultCode.USER_EX_QUOTA: "this computer has used up its mapping quota",
    ResultCode.CANNOT_PROVIDE_EXTERNAL: "the suggested external port or address is taken",
    ResultCode.ADDRESS_MISMATCH: "our address differs from the one it sees (another NAT between "
    "us and it?)",
    ResultCode.EXCESSIVE_REMOTE_PEERS: "too many remote peers",
}


# --- addresses -------------------------------------------------------------------------------


def to_wire_address(address: IPAddress) -> bytes:
    """16 bytes: an IPv6 address as is, an IPv4 address as IPv4-mapped IPv6."""
    if isinstance(address, ipaddress.IPv4Address):
        return b"\x00" * 10 + b"\xff\xff" + address.packed
    return address.packed


def from_wire_address(raw: bytes) -> IPAddress:
    """The inverse of `to_wire_address` (an IPv4-mapped address comes back as IPv4)."""
    address = ipaddress.IPv6Address(raw)
    return address.ipv4_mapped if address.ipv4_mapped is not None else address


def any_address_like(address: IPAddress) -> IPAddress:
    """The "no preference" external address of the client's family (RFC 6887 §11.1): ::ffff:0.0.0.0
    for an IPv4 client, :: for an IPv6 one."""
    if isinstance(address, ipaddress.IPv4Address):
        return ipaddress.IPv4Address(0)
    return ipaddress.IPv6Address(0)


def _address(value: object, what: str) -> IPAddress:
    if isinstance(value, ipaddress.IPv4Address | ipaddress.IPv6Address):
        return value
    try:
        return ipaddress.ip_address(value)  # type: ignore[arg-type]
    except ValueError:
        raise ValueError(f"PCP {what} {value!r} is not an IP address") from None


def _check_port(value: object, what: str, *, zero_ok: bool) -> None:
    low = 0 if zero_ok else 1
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= 65535:
        raise ValueError(f"PCP {what} {value!r} is outside {low}..65535")


def _check_lifetime(value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_LIFETIME:
        raise ValueError(f"PCP lifetime {value!r} is outside 0..{MAX_LIFETIME}")


def _check_nonce(value: object) -> None:
    if not isinstance(value, bytes) or len(value) != NONCE_SIZE:
        raise ValueError(f"PCP mapping nonce {value!r} is not {NONCE_SIZE} bytes")


def new_nonce() -> bytes:
    """A fresh mapping nonce (RFC 6887 §11.1: random, kept for the mapping's renewals)."""
    return secrets.token_bytes(NONCE_SIZE)


# --- options ---------------------------------------------------------------------------------


def _encode_options(codes: tuple[OptionCode, ...]) -> bytes:
    return b"".join(_OPTION_HEADER.pack(code, 0, 0) for code in codes)


def _decode_options(data: bytes, packet: bytes) -> tuple[int, ...]:
    """The option codes in `data` (structure checked: each header and padded body fits)."""
    codes: list[int] = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < _OPTION_HEADER.size:
            raise NatPacketSizeError(
                f"PCP packet of {len(packet)} bytes ends inside an option header at byte "
                f"{HEADER_SIZE + MAP_BODY_SIZE + offset}", packet,
            )
        code, _reserved, length = _OPTION_HEADER.unpack_from(data, offset)
        padded = (length + 3) // 4 * 4
        offset += _OPTION_HEADER.size
        if padded > len(data) - offset:
            raise NatPacketSizeError(
                f"PCP option {code} announces {length} bytes but only {len(data) - offset} "
                "remain in the packet", packet,
            )
        offset += padded
        codes.append(code)
    return tuple(codes)


def _check_packet_size(data: bytes, minimum: int, what: str) -> None:
    if len(data) < minimum:
        raise NatPacketSizeError(
            f"PCP {what} of {len(data)} bytes is shorter than its {minimum}-byte minimum", data
        )
    if len(data) > MAX_PACKET:
        raise NatPacketSizeError(
            f"PCP {what} of {len(data)} bytes is longer than the {MAX_PACKET}-byte maximum", data
        )
    if len(data) % 4:
        raise NatPacketSizeError(
            f"PCP {what} of {len(data)} bytes is not a multiple of 4 bytes", data
        )


def _check_version(data: bytes, what: str) -> None:
    if data[0] != VERSION:
        hint = " (a NAT-PMP packet: the gateway speaks NAT-PMP only)" if data[0] == 0 else ""
        raise NatVersionError(
            f"PCP {what} has version {data[0]}, expected {VERSION}{hint}", data, data[0]
        )


# --- MAP request -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MapRequest:
    """Ask for (lifetime > 0: create or renew) or delete (lifetime 0) a mapping of
    `protocol`/`internal_port` on `client_address` (the address the gateway sees us send from)."""

    client_address: IPAddress
    internal_port: int
    nonce: bytes = field(default_factory=new_nonce, repr=False)
    protocol: Protocol = Protocol.TCP
    lifetime: int = DEFAULT_LIFETIME
    suggested_port: int = 0
    suggested_address: IPAddress | None = None
    prefer_failure: bool = False

    def __post_init__(self) -> None:
        client = _address(self.client_address, "client address")
        object.__setattr__(self, "client_address", client)
        suggested = (
            any_address_like(client)
            if self.suggested_address is None
            else _address(self.suggested_address, "suggested external address")
        )
        object.__setattr__(self, "suggested_address", suggested)
        object.__setattr__(self, "protocol", Protocol(self.protocol))
        _check_port(self.internal_port, "internal port", zero_ok=False)
        _check_port(self.suggested_port, "suggested external port", zero_ok=True)
        _check_lifetime(self.lifetime)
        _check_nonce(self.nonce)

    def encode(self) -> bytes:
        assert self.suggested_address is not None
        header = _REQUEST_HEADER.pack(
            VERSION, Opcode.MAP, 0, self.lifetime, to_wire_address(self.client_address)
        )
        body = _MAP_BODY.pack(
            self.nonce, self.protocol, b"\x00\x00\x00", self.internal_port,
            self.suggested_port, to_wire_address(self.suggested_address),
        )
        options = (OptionCode.PREFER_FAILURE,) if self.prefer_failure else ()
        return header + body + _encode_options(options)

    @classmethod
    def decode(cls, data: bytes) -> MapRequest:
        """Read a MAP request (the gateway's side; used by the test gateway and the fuzz tests)."""
        data = bytes(data)
        _check_packet_size(data, MAP_SIZE, "MAP request")
        _check_version(data, "request")
        if data[1] & 0x80:
            raise NatFieldError("PCP packet is a response (R bit set), expected a request", data)
        if data[1] != Opcode.MAP:
            raise NatFieldError(f"PCP request has opcode {data[1]}, expected MAP (1)", data)
        _v, _op, _reserved, lifetime, client = _REQUEST_HEADER.unpack_from(data)
        nonce, protocol, _r, internal, suggested, external = _MAP_BODY.unpack_from(
            data, HEADER_SIZE
        )
        codes = _decode_options(data[MAP_SIZE:], data)
        if protocol not in Protocol._value2member_map_:
            raise NatFieldError(f"PCP MAP request for protocol {protocol}, not TCP or UDP", data)
        if internal == 0:
            raise NatFieldError("PCP MAP request for internal port 0 (all ports)", data)
        try:
            return cls(
                from_wire_address(client), internal, nonce, Protocol(protocol), lifetime,
                suggested, from_wire_address(external),
                prefer_failure=OptionCode.PREFER_FAILURE in codes,
            )
        except ValueError as error:  # pragma: no cover - every field was range-checked above
            raise NatFieldError(f"PCP MAP request: {error}", data) from None


# --- MAP response ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MapResponse:
    """A gateway's answer to a MAP request. On success `external_port`/`external_address` are
    the assigned ones and `lifetime` the granted seconds (0: deleted); on failure `lifetime` is
    how long the error holds. `epoch` is the gateway's seconds since its mapping state began."""

    result: ResultCode
    lifetime: int
    epoch: int
    nonce: bytes = field(repr=False)
    protocol: Protocol
    internal_port: int
    external_port: int
    external_address: IPAddress
    options: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "result", ResultCode(self.result))
        object.__setattr__(self, "protocol", Protocol(self.protocol))
        object.__setattr__(
            self, "external_address", _address(self.external_address, "external address")
        )
        _check_lifetime(self.lifetime)
        if not isinstance(self.epoch, int) or not 0 <= self.epoch <= MAX_LIFETIME:
            raise ValueError(f"PCP epoch {self.epoch!r} is outside 0..{MAX_LIFETIME}")
        _check_nonce(self.nonce)
        _check_port(self.internal_port, "internal port", zero_ok=False)
        _check_port(self.external_port, "external port", zero_ok=True)

    @property
    def ok(self) -> bool:
        return self.result is ResultCode.SUCCESS

    def answers(self, request: MapRequest) -> bool:
        """Whether this is the answer to `request` (same nonce, protocol and internal port:
        RFC 6887 §11.3; anything else is a stale or spoofed datagram to ignore)."""
        return (
            secrets.compare_digest(self.nonce, request.nonce)
            and self.protocol == request.protocol
            and self.internal_port == request.internal_port
        )

    def encode(self) -> bytes:
        """The wire form (the gateway's side; used by the tests)."""
        header = _RESPONSE_HEADER.pack(
            VERSION, 0x80 | Opcode.MAP, 0, self.result, self.lifetime, self.epoch, b"\x00" * 12
        )
        body = _MAP_BODY.pack(
            self.nonce, self.protocol, b"\x00\x00\x00", self.internal_port, self.external_port,
            to_wire_address(self.external_address),
        )
        return header + body + b"".join(
            _OPTION_HEADER.pack(code, 0, 0) for code in self.options
        )


@dataclass(frozen=True)
class ErrorResponse:
    """A failure answer too short to carry a MAP body, or whose body is no copy of a MAP
    request (RFC 6887 §7.2: a gateway copies what it can; an UNSUPP_VERSION or
    MALFORMED_REQUEST answer may be the bare header, or the header and a zeroed body). It cannot
    be matched to a request by nonce."""

    opcode: int
    result: ResultCode
    lifetime: int
    epoch: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "result", ResultCode(self.result))
        if self.result is ResultCode.SUCCESS:
            raise ValueError("a PCP ErrorResponse cannot carry SUCCESS")


def decode_response(data: bytes) -> MapResponse | ErrorResponse:
    """Decode a datagram from the gateway. Raises only NatProtocolError subclasses:
    NatPacketSizeError, NatVersionError (another version: a NAT-PMP-only gateway answers a PCP
    request with version 0), NatFieldError (a request, another opcode, an unknown result, a
    bad field)."""
    data = bytes(data)
    if len(data) < 4:
        raise NatPacketSizeError(
            f"PCP response of {len(data)} bytes is too short to hold even a version", data
        )
    _check_version(data, "response")
    _check_packet_size(data, HEADER_SIZE, "response")
    if not data[1] & 0x80:
        raise NatFieldError("PCP packet is a request (R bit clear), expected a response", data)
    opcode = data[1] & 0x7F
    _v, _op, _reserved, result, lifetime, epoch, _r2 = _RESPONSE_HEADER.unpack_from(data)
    if result not in ResultCode._value2member_map_:
        raise NatFieldError(f"PCP response has unknown result code {result}", data)
    if opcode != Opcode.MAP:
        raise NatFieldError(
            f"PCP response has opcode {opcode}, expected MAP (1) — not an answer to us", data
        )
    if len(data) < MAP_SIZE:
        if result == ResultCode.SUCCESS:
            raise NatPacketSizeError(
                f"PCP MAP success response of {len(data)} bytes is shorter than {MAP_SIZE}", data
            )
        return ErrorResponse(opcode, ResultCode(result), lifetime, epoch)
    nonce, protocol, _r3, internal, external_port, external = _MAP_BODY.unpack_from(
        data, HEADER_SIZE
    )
    options = _decode_options(data[MAP_SIZE:], data)
    if result != ResultCode.SUCCESS and (
        internal == 0 or protocol not in Protocol._value2member_map_
    ):
        # a failure whose body is not a copy of a MAP request (miniupnpd zeroes it when it
        # answers UNSUPP_VERSION): as good as the bare header, it cannot be matched by nonce
        return ErrorResponse(opcode, ResultCode(result), lifetime, epoch)
    if protocol not in Protocol._value2member_map_:
        raise NatFieldError(f"PCP MAP response for protocol {protocol}, not TCP or UDP", data)
    if internal == 0:
        raise NatFieldError("PCP MAP response for internal port 0", data)
    if result == ResultCode.SUCCESS and lifetime and external_port == 0:
        raise NatFieldError("PCP MAP success response assigns external port 0", data)
    try:
        return MapResponse(
            ResultCode(result), lifetime, epoch, nonce, Protocol(protocol), internal,
            external_port, from_wire_address(external), options,
        )
    except ValueError as error:  # pragma: no cover - every field was range-checked above
        raise NatProtocolError(f"PCP MAP response: {error}", data) from None


# --- epoch (RFC 6887 §8.5) ---------------------------------------------------------------------


@dataclass(frozen=True)
class EpochSample:
    """One response's server epoch and our own clock (seconds) when it arrived."""

    server: int
    client: float


def epoch_is_valid(previous: EpochSample | None, current: EpochSample) -> bool:
    """False when the gateway's epoch shows it lost its mappings (went back more than 1 s, or
    moved at a rate its own clock cannot explain): the client must then re-create them."""
    if previous is None:
        return True
    if current.server < previous.server - 1:
        return False
    client_delta = current.client - previous.client
    server_delta = current.server - previous.server
    return not (
        client_delta + 2 < server_delta - server_delta / 16
        or server_delta + 2 < client_delta - client_delta / 16
    )
