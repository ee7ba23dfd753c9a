# Every way port mapping and the relay can fail, one precise class each.
#
# Like p2p/errors.py, every message is one line for the CLI: who (the gateway or relay address),
# what happened, what the user can do. The decoders raise only the `NatProtocolError` family on
# any input (hypothesis checks it in tests/p2p/nat/test_fuzz.py), so the UDP clients can drop a
# malformed or spoofed datagram and keep waiting for the real answer. A gateway that answers
# with a failure result raises `NatResultError` (the result is known, retrying cannot help); a
# gateway that never answers raises `NatTimeoutError`. All are `TransportError`s.
from __future__ import annotations

from versus.p2p.errors import ConnectError, TransportError


class NatError(TransportError):
    """Base of every port-mapping failure."""


class NatProtocolError(NatError, ValueError):
    """A PCP or NAT-PMP packet that is not what the RFC allows; `packet` holds the raw bytes."""

    def __init__(self, message: str, packet: bytes = b"") -> None:
        super().__init__(message)
        self.packet = bytes(packet)


class NatPacketSizeError(NatProtocolError):
    """The packet is shorter or longer than its format allows."""


class NatVersionError(NatProtocolError):
    """The packet carries another protocol version (a NAT-PMP-only gateway answering PCP, or the
    reverse); `version` is the version byte it carried."""

    def __init__(self, message: str, packet: bytes = b"", version: int = -1) -> None:
        super().__init__(message, packet)
        self.version = version


class NatFieldError(NatProtocolError):
    """A field holds a value the format does not allow (an unknown opcode or result code, a
    request where a response belongs, a bad address, a malformed option)."""


class NatResultError(NatError):
    """The gateway answered with a failure result; `result` is the protocol's result-code enum
    member, `lifetime` how long (seconds) the gateway says the failure holds (PCP; 0 for
    NAT-PMP)."""

    def __init__(self, message: str, result: object, lifetime: int = 0) -> None:
        super().__init__(message)
        self.result = result
        self.lifetime = lifetime


class NatTimeoutError(NatError):
    """The gateway sent no valid answer after every retransmission."""


class NatUnavailableError(NatError):
    """Nothing listens on the gateway's PCP/NAT-PMP port (an ICMP port unreachable came back)."""


class NoGatewayError(NatError):
    """No default gateway could be found (no default route, or not Linux)."""


# --- the relay ---------------------------------------------------------------------------------


class RelayError(ConnectError):
    """Could not get a joined connection through the relay."""


class RelayAddressError(RelayError, ValueError):
    """A relay address that is not `tcp:HOST:PORT`."""


class RelayRefusedError(RelayError):
    """The relay answered its handshake with something other than "ok" (the text is quoted)."""


class RelayTimeoutError(RelayError):
    """The other player did not reach the relay in time (or the relay did not answer)."""
