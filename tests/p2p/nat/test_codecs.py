# The PCP and NAT-PMP codecs: exact bytes against hand-packed RFC layouts, round trips, every
# size and field check with its error class, and the epoch rule of RFC 6887 §8.5.
from __future__ import annotations

import ipaddress
import struct

import pytest

from versus.p2p.nat import natpmp, pcp
from versus.p2p.nat.errors import (
    NatFieldError,
    NatPacketSizeError,
    NatProtocolError,
    NatVersionError,
)
from versus.p2p.nat.pcp import EpochSample, epoch_is_valid

NONCE = bytes(range(12))
V4 = ipaddress.IPv4Address("192.168.1.20")
EXT = ipaddress.IPv4Address("198.51.100.7")
MAPPED_V4 = b"\0" * 10 + b"\xff\xff" + V4.packed


# --- PCP -------------------------------------------------------------------------------------


def test_map_request_bytes_match_rfc_layout() -> None:
    request = pcp.MapRequest(V4, 47820, NONCE, pcp.Protocol.TCP, 7200, 47820)
    expected = (
        bytes([2, 1, 0, 0]) + struct.pack(">I", 7200) + MAPPED_V4
        + NONCE + bytes([6, 0, 0, 0]) + struct.pack(">HH", 47820, 47820)
        + b"\0" * 10 + b"\xff\xff" + b"\0\0\0\0"
    )
    assert request.encode() == expected
    assert len(expected) == pcp.MAP_SIZE == 60
    assert pcp.MapRequest.decode(expected) == request


def test_map_request_ipv6_and_prefer_failure_round_trip() -> None:
    client = ipaddress.IPv6Address("2001:db8::20")
    request = pcp.MapRequest(client, 1234, NONCE, pcp.Protocol.UDP, 60, 0, prefer_failure=True)
    wire = request.encode()
    assert len(wire) == 64 and wire[60:] == bytes([2, 0, 0, 0])
    assert wire[8:24] == client.packed and wire[44:60] == b"\0" * 16
    assert pcp.MapRequest.decode(wire) == request


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"internal_port": 0}, "internal port 0"),
        ({"internal_port": 70000}, "internal port 70000"),
        ({"suggested_port": -1}, "suggested external port -1"),
        ({"lifetime": 2**32}, "lifetime"),
        ({"nonce": b"short"}, "nonce"),
        ({"client_address": "not-an-ip"}, "'not-an-ip'"),
        ({"protocol": 1}, "1"),
    ],
)
def test_map_request_validates_on_construction(kwargs: dict[str, object], needle: str) -> None:
    fields: dict[str, object] = {"client_address": V4, "internal_port": 80, "nonce": NONCE}
    fields.update(kwargs)
    with pytest.raises(ValueError, match=needle):
        pcp.MapRequest(**fields)  # type: ignore[arg-type]


def test_new_nonces_are_random() -> None:
    assert len({pcp.new_nonce() for _ in range(50)}) == 50


def _response(result: int = 0, lifetime: int = 3600, epoch: int = 77, port: int = 47820) -> bytes:
    return (
        bytes([2, 0x81, 0, result]) + struct.pack(">II", lifetime, epoch) + b"\0" * 12
        + NONCE + bytes([6, 0, 0, 0]) + struct.pack(">HH", 47820, port)
        + b"\0" * 10 + b"\xff\xff" + EXT.packed
    )


def test_map_response_decodes_and_answers_its_request() -> None:
    answer = pcp.decode_response(_response())
    assert isinstance(answer, pcp.MapResponse)
    assert answer.ok and answer.lifetime == 3600 and answer.epoch == 77
    assert answer.external_address == EXT and answer.external_port == 47820
    assert answer.encode() == _response()
    request = pcp.MapRequest(V4, 47820, NONCE)
    assert answer.answers(request)
    assert not answer.answers(pcp.MapRequest(V4, 47820, bytes(12)))
    assert not answer.answers(pcp.MapRequest(V4, 47821, NONCE))
    assert not answer.answers(pcp.MapRequest(V4, 47820, NONCE, pcp.Protocol.UDP))


def test_map_response_options_are_checked_then_ignored() -> None:
    wire = _response() + bytes([2, 0, 0, 0]) + bytes([99, 0, 0, 5]) + b"abcde\0\0\0"
    answer = pcp.decode_response(wire)
    assert isinstance(answer, pcp.MapResponse) and answer.options == (2, 99)
    with pytest.raises(NatPacketSizeError, match="announces 9 bytes"):
        pcp.decode_response(_response() + bytes([99, 0, 0, 9]) + b"\0" * 8)
    with pytest.raises(NatPacketSizeError, match="multiple of 4"):
        pcp.decode_response(_response() + b"\0\0")


def test_failure_with_header_only_is_an_error_response() -> None:
    header = bytes([2, 0x81, 0, 8]) + struct.pack(">II", 30, 5) + b"\0" * 12
    answer = pcp.decode_response(header)
    assert isinstance(answer, pcp.ErrorResponse)
    assert answer.result is pcp.ResultCode.NO_RESOURCES and answer.lifetime == 30


def test_failure_with_a_zeroed_body_is_an_error_response() -> None:
    # what miniupnpd 2.3.1 answers to a PCP version it does not know: header and zeroed body
    wire = bytes([2, 0x81, 0, 1]) + struct.pack(">II", 0, 5) + b"\0" * 12 + b"\0" * 36
    answer = pcp.decode_response(wire)
    assert answer == pcp.ErrorResponse(1, pcp.ResultCode.UNSUPP_VERSION, 0, 5)
    # a success with such a body is still refused
    with pytest.raises(NatFieldError, match="protocol 0"):
        pcp.decode_response(bytes([2, 0x81, 0, 0]) + wire[4:])


@pytest.mark.parametrize(
    ("wire", "error", "needle"),
    [
        (b"", NatPacketSizeError, "0 bytes"),
        (b"\x02\x81\x00", NatPacketSizeError, "3 bytes"),
        (_response()[:24], NatPacketSizeError, "success response of 24 bytes"),
        (_response()[:40], NatPacketSizeError, "ends inside an option|shorter"),
        (_response() + b"\0" * 1100, NatPacketSizeError, "1100-byte maximum"),
        (b"\x00\x81\x00\x01" + b"\0" * 4, NatVersionError, "NAT-PMP only"),
        (b"\x01" + _response()[1:], NatVersionError, "version 1"),
        (bytes([2, 0x01]) + _response()[2:], NatFieldError, "R bit clear"),
        (bytes([2, 0x82]) + _response()[2:], NatFieldError, "opcode 2"),
        (_response(result=99), NatFieldError, "unknown result code 99"),
        (_response(port=0), NatFieldError, "external port 0"),
        (_response()[:36] + bytes([1]) + _response()[37:], NatFieldError, "protocol 1"),
    ],
)
def test_pcp_bad_responses_raise_precise_errors(
    wire: bytes, error: type[NatProtocolError], needle: str
) -> None:
    with pytest.raises(error, match=needle) as caught:
        pcp.decode_response(wire)
    assert caught.value.packet == wire


def test_pcp_version_error_carries_the_version() -> None:
    with pytest.raises(NatVersionError) as caught:
        pcp.decode_response(b"\x00\x81\x00\x01\x00\x00\x00\x05")
    assert caught.value.version == 0


def test_map_request_decode_refuses_responses_and_bad_fields() -> None:
    with pytest.raises(NatFieldError, match="R bit set"):
        pcp.MapRequest.decode(_response())
    wire = bytearray(pcp.MapRequest(V4, 80, NONCE).encode())
    wire[42:44] = b"\0\0"  # internal port... is at 40:42; 42:44 is the suggested port
    assert pcp.MapRequest.decode(bytes(wire)).suggested_port == 0
    wire[40:42] = b"\0\0"
    with pytest.raises(NatFieldError, match="internal port 0"):
        pcp.MapRequest.decode(bytes(wire))


@pytest.mark.parametrize(
    ("previous", "current", "valid"),
    [
        (None, EpochSample(5, 0.0), True),
        (EpochSample(1000, 0.0), EpochSample(1100, 100.0), True),
        (EpochSample(1000, 0.0), EpochSample(999, 0.5), True),     # back by 1 s: tolerated
        (EpochSample(1000, 0.0), EpochSample(10, 100.0), False),   # restarted
        (EpochSample(1000, 0.0), EpochSample(1500, 100.0), False),  # too fast
        (EpochSample(1000, 0.0), EpochSample(1010, 100.0), False),  # too slow
        (EpochSample(1000, 0.0), EpochSample(1105, 100.0), True),  # within 1/16 + 2 s
    ],
)
def test_epoch_rule(previous: EpochSample | None, current: EpochSample, valid: bool) -> None:
    assert epoch_is_valid(previous, current) is valid


# --- NAT-PMP ---------------------------------------------------------------------------------


def test_natpmp_requests_bytes() -> None:
    assert natpmp.ExternalAddressRequest().encode() == b"\x00\x00"
    request = natpmp.MappingRequest(natpmp.Opcode.MAP_TCP, 47820, 47821, 7200)
    assert request.encode() == struct.pack(">BBHHHI", 0, 2, 0, 47820, 47821, 7200)
    assert natpmp.decode_request(request.encode()) == request
    assert natpmp.decode_request(b"\0\0") == natpmp.ExternalAddressRequest()
    delete = natpmp.MappingRequest(natpmp.Opcode.MAP_UDP, 5000, 0, 0)
    assert delete.encode() == struct.pack(">BBHHHI", 0, 1, 0, 5000, 0, 0)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"opcode": 0}, "MAP_UDP or MAP_TCP"),
        ({"opcode": 7}, "7"),
        ({"internal_port": 0}, "internal port 0"),
        ({"suggested_port": 65536}, "65536"),
        ({"lifetime": -1}, "lifetime -1"),
    ],
)
def test_natpmp_mapping_request_validates(kwargs: dict[str, object], needle: str) -> None:
    fields: dict[str, object] = {"opcode": natpmp.Opcode.MAP_TCP, "internal_port": 80}
    fields.update(kwargs)
    with pytest.raises(ValueError, match=needle):
        natpmp.MappingRequest(**fields)  # type: ignore[arg-type]


def test_natpmp_responses_decode() -> None:
    address = natpmp.decode_response(struct.pack(">BBHI", 0, 128, 0, 42) + EXT.packed)
    assert address == natpmp.ExternalAddressResponse(natpmp.ResultCode.SUCCESS, 42, EXT)
    assert natpmp.decode_response(address.encode()) == address
    mapping = natpmp.decode_response(struct.pack(">BBHIHHI", 0, 130, 0, 42, 47820, 40000, 3600))
    assert isinstance(mapping, natpmp.MappingResponse) and mapping.ok
    assert (mapping.internal_port, mapping.external_port, mapping.lifetime) == (47820, 40000, 3600)
    assert mapping.answers(natpmp.MappingRequest(natpmp.Opcode.MAP_TCP, 47820))
    assert not mapping.answers(natpmp.MappingRequest(natpmp.Opcode.MAP_UDP, 47820))
    assert natpmp.decode_response(mapping.encode()) == mapping
    short = natpmp.decode_response(struct.pack(">BBHI", 0, 130, 2, 42))
    assert short == natpmp.ErrorResponse(natpmp.Opcode.MAP_TCP, natpmp.ResultCode.NOT_AUTHORIZED,
                                         42)


@pytest.mark.parametrize(
    ("wire", "error", "needle"),
    [
        (b"\x00", NatPacketSizeError, "1 bytes"),
        (b"\x02\x81" + b"\0" * 58, NatVersionError, "speaks PCP"),
        (b"\x00\x02" + b"\0" * 10, NatFieldError, "a request"),
        (b"\x00\x85" + b"\0" * 6, NatFieldError, "unknown opcode 133"),
        (b"\x00\x80\x00", NatPacketSizeError, "8-byte header"),
        (struct.pack(">BBHI", 0, 128, 0, 1), NatPacketSizeError, "expected 12"),
        (struct.pack(">BBHI", 0, 128, 0, 1) + b"\0" * 5, NatPacketSizeError, "13 bytes"),
        (struct.pack(">BBHI", 0, 128, 9, 1) + b"\0" * 4, NatFieldError, "result code 9"),
        (struct.pack(">BBHIHHI", 0, 130, 0, 1, 80, 0, 60), NatFieldError, "external port 0"),
        (struct.pack(">BBHIHHI", 0, 130, 0, 1, 0, 80, 60), NatFieldError, "internal port 0"),
        (struct.pack(">BBHIHHI", 0, 130, 0, 1, 80, 80, 60) + b"\0", NatPacketSizeError, "17"),
    ],
)
def test_natpmp_bad_responses_raise_precise_errors(
    wire: bytes, error: type[NatProtocolError], needle: str
) -> None:
    with pytest.raises(error, match=needle):
        natpmp.decode_response(wire)


def test_natpmp_bad_requests() -> None:
    with pytest.raises(NatVersionError):
        natpmp.decode_request(b"\x02\x01")
    with pytest.raises(NatFieldError, match="opcode 9"):
        natpmp.decode_request(b"\x00\x09")
    with pytest.raises(NatPacketSizeError, match="expected 12"):
        natpmp.decode_request(b"\x00\x01\x00")
    with pytest.raises(NatPacketSizeError, match="expected 2"):
        natpmp.decode_request(b"\x00\x00\x00")
