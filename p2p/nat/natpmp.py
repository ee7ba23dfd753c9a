# NAT-PMP (RFC 6886): the external-address and mapping requests and responses, sans-IO.
#
# PCP's predecessor, still what many home gateways speak; the client tries it when a gateway
# answers PCP with "unsupported version" (p2p/nat/client.py). All big-endian, UDP port 5351:
#
#   external address request   version 0 | opcode 0                                   2 bytes
#   external address response  version 0 | 128 | result 16 | epoch 32 | IPv4 32      12 bytes
#   mapping request            version 0 | opcode 1 (UDP) or 2 (TCP) | reserved 16
#                              | internal port 16 | suggested external port 16 | lifetime 32  12
#   mapping response           version 0 | 128 + opcode | result 16 | epoch 32
#                              | internal port 16 | mapped external port 16 | lifetime 32  16
#
# A failure answer may be cut after the 8-byte header (RFC 6886 §3.5: an "unsupported version"
# answer need carry nothing else), so the decoder accepts 8 bytes or the full size for a failure
# and exactly the full size for a success; anything else is a NatPacketSizeError. A request to
# delete a mapping is a mapping request with lifetime 0 and suggested port 0. The decoders raise
# only NatProtocolError subclasses.
from __future__ import annotations

import enum
import ipaddress
import struct
from dataclasses import dataclass

from versus.p2p.nat.errors import NatFieldError, NatPacketSizeError, NatVersionError

VERSION = 0
SERVER_PORT = 5351
RESPONSE_BIT = 0x80
HEADER_SIZE = 8
EXTERNAL_REQUEST_SIZE = 2
EXTERNAL_RESPONSE_SIZE = 12
MAPPING_REQUEST_SIZE = 12
MAPPING_RESPONSE_SIZE = 16
MAX_LIFETIME = 0xFFFF_FFFF
#: RFC 6886 §3.3 recommends two hours.
DEFAULT_LIFETIME = 7200

_HEADER = struct.Struct(">BBHI")
_MAPPING_REQUEST = struct.Struct(">BBHHHI")
_MAPPING_BODY = struct.Struct(">HHI")


class Opcode(enum.IntEnum):
    EXTERNAL_ADDRESS = 0
    MAP_UDP = 1
    MAP_TCP = 2


class ResultCode(enum.IntEnum):
    SUCCESS = 0
    UNSUPPORTED_VERSION = 1
    NOT_AUTHORIZED = 2
    NETWORK_FAILURE = 3
    OUT_OF_RESOURCES = 4
    UNSUPPORTED_OPCODE = 5


RESULT_ADVICE: dict[ResultCode, str] = {
    ResultCode.UNSUPPORTED_VERSION: "it does not speak NAT-PMP version 0",
    ResultCode.NOT_AUTHORIZED: "port mapping is disabled or refused for this computer",
    ResultCode.NETWORK_FAILURE: "it has no external address yet (no working uplink)",
    ResultCode.OUT_OF_RESOURCES: "it is out of mappings",
    ResultCode.UNSUPPORTED_OPCODE: "it does not support this request",
}


def _check_int(value: object, what: str, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ValueError(f"NAT-PMP {what} {value!r} is outside {low}..{high}")


def _map_opcode(value: object) -> Opcode:
    opcode = Opcode(value)  # ValueError names the value
    if opcode is Opcode.EXTERNAL_ADDRESS:
        raise ValueError("NAT-PMP mapping opcode must be MAP_UDP or MAP_TCP")
    return opcode


# --- requests ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExternalAddressRequest:
    def encode(self) -> bytes:
        return bytes((VERSION, Opcode.EXTERNAL_ADDRESS))


@dataclass(frozen=True)
class MappingRequest:
    """Create or renew (lifetime > 0), or delete (lifetime 0, suggested port 0), a mapping."""

    opcode: Opcode
    internal_port: int
    suggested_port: int = 0
    lifetime: int = DEFAULT_LIFETIME

    def __post_init__(self) -> None:
        object.__setattr__(self, "opcode", _map_opcode(self.opcode))
        _check_int(self.internal_port, "internal port", 1, 65535)
        _check_int(self.suggested_port, "suggested external port", 0, 65535)
        _check_int(self.lifetime, "lifetime", 0, MAX_LIFETIME)

    def encode(self) -> bytes:
        return _MAPPING_REQUEST.pack(
            VERSION, self.opcode, 0, self.internal_port, self.suggested_port, self.lifetime
        )


def decode_request(data: bytes) -> ExternalAddressRequest | MappingRequest:
    """Read a request (the gateway's side: the test gateway and the fuzz tests)."""
    data = bytes(data)
    if len(data) < 2:
        raise NatPacketSizeError(f"NAT-PMP request of {len(data)} bytes is too short", data)
    if data[0] != VERSION:
        raise NatVersionError(
            f"NAT-PMP request has version {data[0]}, expected {VERSION}", data, data[0]
        )
    if data[1] == Opcode.EXTERNAL_ADDRESS:
        if len(data) != EXTERNAL_REQUEST_SIZE:
            raise NatPacketSizeError(
                f"NAT-PMP external address request of {len(data)} bytes, expected "
                f"{EXTERNAL_REQUEST_SIZE}", data,
            )
        return ExternalAddressRequest()
    if data[1] not in (Opcode.MAP_UDP, Opcode.MAP_TCP):
        raise NatFieldError(f"NAT-PMP request has unknown opcode {data[1]}", data)
    if len(data) != MAPPING_REQUEST_SIZE:
        raise NatPacketSizeError(
            f"NAT-PMP mapping request of {len(data)} bytes, expected {MAPPING_REQUEST_SIZE}",
            data,
        )
    _v, opcode, _reserved, internal, suggested, lifetime = _MAPPING_REQUEST.unpack(data)
    if internal == 0:
        raise NatFieldError("NAT-PMP mapping request for internal port 0", data)
    return MappingRequest(Opcode(opcode), internal, suggested, lifetime)


# --- responses ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExternalAddressResponse:
    result: ResultCode
    epoch: int
    address: ipaddress.IPv4Address

    def __post_init__(self) -> None:
        object.__setattr__(self, "result", ResultCode(self.result))
        _check_int(self.epoch, "epoch", 0, MAX_LIFETIME)
        object.__setattr__(self, "address", ipaddress.IPv4Address(self.address))

    @property
    def ok(self) -> bool:
        return self.result is ResultCode.SUCCESS

    def encode(self) -> bytes:
        header = _HEADER.pack(VERSION, RESPONSE_BIT | Opcode.EXTERNAL_ADDRESS, self.result,
                              self.epoch)
        return header + self.address.packed


@dataclass(frozen=True)
class MappingResponse:
    """On success the mapped external port and granted lifetime (both 0 after a deletion)."""

    opcode: Opcode
    result: ResultCode
    epoch: int
    internal_port: int
    external_port: int
    lifetime: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "opcode", _map_opcode(self.opcode))
        object.__setattr__(self, "result", ResultCode(self.result))
        _check_int(self.epoch, "epoch", 0, MAX_LIFETIME)
        _check_int(self.internal_port, "internal port", 0, 65535)
        _check_int(self.external_port, "external port", 0, 65535)
        _check_int(self.lifetime, "lifetime", 0, MAX_LIFETIME)

    @property
    def ok(self) -> bool:
        return self.result is ResultCode.SUCCESS

    def answers(self, request: MappingRequest) -> bool:
        """Whether this answers `request` (same protocol and internal port)."""
        return self.opcode == request.opcode and self.internal_port == request.internal_port

    def encode(self) -> bytes:
        header = _HEADER.pack(VERSION, RESPONSE_BIT | self.opcode, self.result, self.epoch)
        return header + _MAPPING_BODY.pack(self.internal_port, self.external_port, self.lifetime)


@dataclass(frozen=True)
class ErrorResponse:
    """A failure answer cut after the 8-byte header."""

    opcode: Opcode
    result: ResultCode
    epoch: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "opcode", Opcode(self.opcode))
        object.__setattr__(self, "result", ResultCode(self.result))
        if self.result is ResultCode.SUCCESS:
            raise ValueError("a NAT-PMP ErrorResponse cannot carry SUCCESS")


Response = ExternalAddressResponse | MappingResponse | ErrorResponse


def decode_response(data: bytes) -> Response:
    """Decode a datagram from the gateway; raises only NatProtocolError subclasses."""
    data = bytes(data)
    if len(data) < 2:
        raise NatPacketSizeError(f"NAT-PMP response of {len(data)} bytes is too short", data)
    if data[0] != VERSION:
        hint = " (a PCP packet: the gateway speaks PCP)" if data[0] == 2 else ""
        raise NatVersionError(
            f"NAT-PMP response has version {data[0]}, expected {VERSION}{hint}", data, data[0]
        )
    if not data[1] & RESPONSE_BIT:
        raise NatFieldError(f"NAT-PMP packet has opcode {data[1]}, a request, not a response",
                            data)
    opcode = data[1] & 0x7F
    if opcode not in Opcode._value2member_map_:
        raise NatFieldError(f"NAT-PMP response has unknown opcode {data[1]}", data)
    if len(data) < HEADER_SIZE:
        raise NatPacketSizeError(
            f"NAT-PMP response of {len(data)} bytes is shorter than its {HEADER_SIZE}-byte "
            "header", data,
        )
    _v, _op, result, epoch = _HEADER.unpack_from(data)
    if result not in ResultCode._value2member_map_:
        raise NatFieldError(f"NAT-PMP response has unknown result code {result}", data)
    full = EXTERNAL_RESPONSE_SIZE if opcode == Opcode.EXTERNAL_ADDRESS else MAPPING_RESPONSE_SIZE
    if result != ResultCode.SUCCESS and len(data) == HEADER_SIZE:
        return ErrorResponse(Opcode(opcode), ResultCode(result), epoch)
    if len(data) != full:
        raise NatPacketSizeError(
            f"NAT-PMP {Opcode(opcode).name} response of {len(data)} bytes, expected {full}",
            data,
        )
    if opcode == Opcode.EXTERNAL_ADDRESS:
        return ExternalAddressResponse(
            ResultCode(result), epoch, ipaddress.IPv4Address(data[HEADER_SIZE:])
        )
    internal, external, lifetime = _MAPPING_BODY.unpack_from(data, HEADER_SIZE)
    if result == ResultCode.SUCCESS and internal == 0:
        raise NatFieldError("NAT-PMP mapping success response for internal port 0", data)
    if result == ResultCode.SUCCESS and lifetime and external == 0:
        raise NatFieldError("NAT-PMP mapping success response assigns external port 0", data)
    return MappingResponse(Opcode(opcode), ResultCode(result), epoch, internal, external,
                           lifetime)
