# A test-only home gateway: a PCP (RFC 6887 MAP) and NAT-PMP (RFC 6886) responder on loopback.
#
# It speaks the wire format with its own struct layouts, not through p2p/nat's codecs, so the
# client tests check our encoders against an independent reading of the RFCs. It keeps a real
# mapping table (renewals keep the port, deletions free it, a taken port is moved) and can
# misbehave on demand: stay silent for the first requests, send garbage and a wrong-nonce
# answer before the real one, refuse with a result code, answer PCP as a NAT-PMP-only gateway
# (version 0, "unsupported version"), or restart (its epoch goes back to 0 and it forgets every
# mapping). The external address is a documentation address written into packets only: no
# traffic goes anywhere but 127.0.0.1 / ::1.
from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field

import trio

EXTERNAL_V4 = ipaddress.IPv4Address("198.51.100.7")
EXTERNAL_V6 = ipaddress.IPv6Address("2001:db8::7")
_PCP_REQ = struct.Struct(">BBHI16s")
_PCP_MAP = struct.Struct(">12sB3sHH16s")
_PCP_RESP = struct.Struct(">BBBBII12s")


def _mapped(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bytes:
    if address.version == 4:
        return b"\x00" * 10 + b"\xff\xff" + address.packed
    return address.packed


@dataclass
class FakeGateway:
    speaks_pcp: bool = True
    speaks_natpmp: bool = True
    silent_for: int = 0          # drop this many requests before answering
    junk_first: bool = False     # before each real answer: garbage, then a wrong-nonce answer
    pcp_result: int = 0          # answer every PCP MAP with this result code
    natpmp_result: int = 0       # answer every NAT-PMP request with this result code
    short_errors: bool = False   # failure answers cut after the header
    port: int = 0
    received: list[bytes] = field(default_factory=list)
    # (protocol number, internal port, client) -> (external port, nonce)
    table: dict[tuple[int, int, str], tuple[int, bytes]] = field(default_factory=dict)
    started: float = 0.0
    epoch_base: int = 1000

    def restart(self) -> None:
        """Lose every mapping; the epoch starts again from 0."""
        self.table.clear()
        self.epoch_base = 0
        self.started = trio.current_time()

    def epoch(self) -> int:
        return self.epoch_base + int(trio.current_time() - self.started)

    async def serve(self, host: str = "127.0.0.1", port: int = 0, *,
                    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        family = trio.socket.AF_INET6 if ":" in host else trio.socket.AF_INET
        sock = trio.socket.socket(family, trio.socket.SOCK_DGRAM)
        with sock:
            await sock.bind((host, port))
            self.port = sock.getsockname()[1]
            self.started = trio.current_time()
            task_status.started(self.port)
            while True:
                data, source = await sock.recvfrom(2048)
                self.received.append(data)
                if self.silent_for > 0:
                    self.silent_for -= 1
                    continue
                answer = self.answer(data, ipaddress.ip_address(source[0]))
                if answer is None:
                    continue
                if self.junk_first:
                    await sock.sendto(b"\x02\x81garbage", source)
                    if answer[0] == 2 and len(answer) >= 60:
                        wrong = bytearray(answer)
                        wrong[24] ^= 0xFF  # first nonce byte
                        await sock.sendto(bytes(wrong), source)
                await sock.sendto(answer, source)

    def answer(self, data: bytes, source: ipaddress.IPv4Address | ipaddress.IPv6Address
               ) -> bytes | None:
        if len(data) < 2:
            return None
        if data[0] == 0:
            if not self.speaks_natpmp:
                return None
            return self._natpmp(data)
        if not self.speaks_pcp:
            # RFC 6886 §3.5: a NAT-PMP gateway answers any other version with result 1
            return struct.pack(">BBHI", 0, 0x80 | (data[1] & 0x7F), 1, self.epoch())
        return self._pcp(data, source)

    # --- PCP ---------------------------------------------------------------------------------

    def _pcp_error(self, data: bytes, opcode: int, result: int) -> bytes:
        header = _PCP_RESP.pack(2, 0x80 | opcode, 0, result, 30, self.epoch(), b"\0" * 12)
        if self.short_errors or len(data) < 60:
            return header
        return header + data[24:60]

    def _pcp(self, data: bytes, source: ipaddress.IPv4Address | ipaddress.IPv6Address
             ) -> bytes:
        if data[0] != 2:
            return _PCP_RESP.pack(2, 0x80 | (data[1] & 0x7F), 0, 1, 0, self.epoch(), b"\0" * 12)
        if len(data) < 60 or len(data) % 4 or data[1] != 1:
            return self._pcp_error(data, data[1] & 0x7F, 3)  # MALFORMED_REQUEST
        _v, _op, _r, lifetime, client = _PCP_REQ.unpack_from(data)
        nonce, protocol, _r2, internal, suggested, _ext = _PCP_MAP.unpack_from(data, 24)
        if client != _mapped(source):
            return self._pcp_error(data, 1, 12)  # ADDRESS_MISMATCH
        if self.pcp_result:
            return self._pcp_error(data, 1, self.pcp_result)
        key = (protocol, internal, str(source))
        if lifetime == 0:
            existing = self.table.get(key)
            if existing is not None and existing[1] != nonce:
                return self._pcp_error(data, 1, 2)  # NOT_AUTHORIZED: another client's nonce
            self.table.pop(key, None)
            external = 0
        else:
            existing = self.table.get(key)
            if existing is not None and existing[1] != nonce:
                return self._pcp_error(data, 1, 2)
            external = existing[0] if existing else self._allocate(protocol, suggested)
            lifetime = min(lifetime, 3600)
            self.table[key] = (external, nonce)
        address = EXTERNAL_V6 if source.version == 6 else EXTERNAL_V4
        header = _PCP_RESP.pack(2, 0x81, 0, 0, lifetime, self.epoch(), b"\0" * 12)
        return header + _PCP_MAP.pack(nonce, protocol, b"\0\0\0", internal, external,
                                      _mapped(address))

    def _allocate(self, protocol: int, suggested: int) -> int:
        taken = {ext for (proto, _i, _c), (ext, _n) in self.table.items() if proto == protocol}
        if suggested and suggested not in taken:
            return suggested
        port = 40000
        while port in taken:
            port += 1
        return port

    # --- NAT-PMP -----------------------------------------------------------------------------

    def _natpmp(self, data: bytes) -> bytes | None:
        opcode = data[1]
        if opcode == 0 and len(data) == 2:
            if self.natpmp_result:
                return struct.pack(">BBHI", 0, 128, self.natpmp_result, self.epoch()) + (
                    b"" if self.short_errors else b"\0" * 4
                )
            return struct.pack(">BBHI", 0, 128, 0, self.epoch()) + EXTERNAL_V4.packed
        if opcode in (1, 2) and len(data) == 12:
            _v, _op, _r, internal, suggested, lifetime = struct.unpack(">BBHHHI", data)
            if self.natpmp_result:
                head = struct.pack(">BBHI", 0, 128 + opcode, self.natpmp_result, self.epoch())
                return head if self.short_errors else head + struct.pack(">HHI", internal, 0, 0)
            protocol = 6 if opcode == 2 else 17
            key = (protocol, internal, "natpmp")
            if lifetime == 0:
                self.table.pop(key, None)
                external = 0
            else:
                existing = self.table.get(key)
                external = existing[0] if existing else self._allocate(protocol, suggested)
                lifetime = min(lifetime, 3600)
                self.table[key] = (external, b"")
            return struct.pack(">BBHIHHI", 0, 128 + opcode, 0, self.epoch(), internal,
                               external, lifetime)
        return struct.pack(">BBHI", 0, 128 + (opcode & 0x7F), 5, self.epoch())  # UNSUPP_OPCODE
