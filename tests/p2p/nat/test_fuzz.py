# Fuzzing the PCP and NAT-PMP decoders: arbitrary bytes and mutations of valid packets (bit
# flips, truncation, extension, wrong version/opcode/result/nonce) never raise anything but
# the NatProtocolError family, and what decodes re-encodes to the same bytes (where the format
# has one encoding). Derandomized, as tests/fuzz is, so CI is deterministic.
from __future__ import annotations

import ipaddress

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from versus.p2p.nat import natpmp, pcp
from versus.p2p.nat.errors import NatProtocolError

FUZZ = settings(
    max_examples=400, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
EXT = ipaddress.IPv4Address("198.51.100.7")
SEEDS = [
    pcp.MapResponse(pcp.ResultCode.SUCCESS, 3600, 9, bytes(12), pcp.Protocol.TCP, 80, 80,
                    EXT).encode(),
    pcp.MapResponse(pcp.ResultCode.NO_RESOURCES, 30, 9, bytes(12), pcp.Protocol.UDP, 80, 0,
                    ipaddress.IPv6Address("2001:db8::1"), (2,)).encode(),
    pcp.MapRequest(EXT, 80, bytes(12), prefer_failure=True).encode(),
    natpmp.ExternalAddressResponse(natpmp.ResultCode.SUCCESS, 5, EXT).encode(),
    natpmp.MappingResponse(natpmp.Opcode.MAP_TCP, natpmp.ResultCode.SUCCESS, 5, 80, 81,
                           60).encode(),
    natpmp.MappingRequest(natpmp.Opcode.MAP_UDP, 80).encode(),
    b"\x00\x00",
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["flip", "set", "truncate", "extend", "splice"]))
        if kind == "flip" and data:
            i = draw(st.integers(0, len(data) - 1))
            data[i] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del data[draw(st.integers(0, len(data))):]
        elif kind == "extend":
            data += draw(st.binary(max_size=40))
        elif kind == "splice" and data:
            i = draw(st.integers(0, len(data)))
            data[i:i] = draw(st.binary(max_size=8))
    return bytes(data)


ANY_BYTES = st.one_of(st.binary(max_size=1200), mutated())


def _decode_all(data: bytes) -> None:
    for decode in (pcp.decode_response, pcp.MapRequest.decode, natpmp.decode_response,
                   natpmp.decode_request):
        try:
            decoded = decode(data)
        except NatProtocolError:
            continue
        encode = getattr(decoded, "encode", None)
        if isinstance(decoded, pcp.MapResponse):
            # reserved bits are ignored on receipt: compare the meaningful fields only
            again = pcp.decode_response(decoded.encode())
            assert again == decoded
        elif isinstance(decoded, natpmp.MappingResponse | natpmp.ExternalAddressResponse):
            assert encode is not None and encode() == data
        elif isinstance(decoded, natpmp.MappingRequest):
            assert decoded.encode()[:2] == data[:2] and len(decoded.encode()) == len(data)


@FUZZ
@given(ANY_BYTES)
def test_decoders_raise_only_nat_protocol_errors(data: bytes) -> None:
    _decode_all(data)


@FUZZ
@given(st.binary(min_size=60, max_size=60), st.integers(0, 255), st.integers(0, 255))
def test_pcp_headers_with_any_version_and_opcode(body: bytes, version: int, opcode: int) -> None:
    _decode_all(bytes([version, opcode]) + body[2:])
