# Invite links: `versus://HOST:PORT#FINGERPRINT`, what a host gives the player who joins.
#
# The fingerprint is the host's identity (protocol/crypto/identity.py); joining with an invite pins
# it, so whoever answers at HOST:PORT must prove that identity or the handshake aborts. The text
# form round-trips: `Invite.parse(str(invite)) == invite`. IPv6 addresses go in brackets (RFC 3986),
# with a zone as `%25zone`. Parsing is strict about structure and forgiving about the fingerprint
# (case, separators), and every error names the input and what is wrong with it.
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from versus.p2p.errors import InviteError
from versus.protocol.crypto.identity import InvalidKeyError, normalize_fingerprint

SCHEME = "versus://"
MAX_INVITE_LENGTH = 300
_HOSTNAME_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def format_hostport(host: str, port: int) -> str:
    """`host:port`, with an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _check_hostname(host: str, text: str) -> str:
    if ":" in host:
        try:
            return str(ipaddress.IPv6Address(host))
        except ValueError:
            raise InviteError(f"invite {text!r}: {host!r} is not an IPv6 address") from None
    try:
        return str(ipaddress.IPv4Address(host))
    except ValueError:
        pass
    name = host.rstrip(".")
    if not name or len(name) > 253 or not all(
        _HOSTNAME_LABEL.match(label) for label in name.split(".")
    ):
        raise InviteError(f"invite {text!r}: {host!r} is not a valid host name or address")
    if name.replace(".", "").isdigit():
        raise InviteError(f"invite {text!r}: {host!r} is not a valid IPv4 address")
    return name.lower()


def _check_port(port_text: str, text: str) -> int:
    if not port_text.isdigit() or not port_text.isascii():
        raise InviteError(f"invite {text!r}: port {port_text!r} is not a number")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise InviteError(f"invite {text!r}: port {port} is outside 1..65535")
    return port


@dataclass(frozen=True)
class Invite:
    host: str
    port: int
    fingerprint: str

    def __post_init__(self) -> None:
        text = f"{self.host}:{self.port}"
        object.__setattr__(self, "host", _check_hostname(self.host, text))
        if not isinstance(self.port, int) or not 1 <= self.port <= 65535:
            raise InviteError(f"invite port {self.port!r} is outside 1..65535")
        try:
            object.__setattr__(self, "fingerprint", normalize_fingerprint(self.fingerprint))
        except InvalidKeyError as error:
            raise InviteError(f"invite for {text}: {error}") from None

    def __str__(self) -> str:
        host = self.host.replace("%", "%25")
        return f"{SCHEME}{format_hostport(host, self.port)}#{self.fingerprint}"

    @classmethod
    def parse(cls, text: str) -> Invite:
        """Parse `versus://HOST:PORT#FINGERPRINT`; InviteError names what is wrong."""
        if len(text) > MAX_INVITE_LENGTH:
            raise InviteError(
                f"invite of {len(text)} characters is too long (at most {MAX_INVITE_LENGTH})"
            )
        stripped = text.strip()
        if not stripped.lower().startswith(SCHEME):
            raise InviteError(f"invite {text!r} does not start with {SCHEME}")
        rest = stripped[len(SCHEME) :]
        address, hash_sign, fingerprint = rest.partition("#")
        if not hash_sign or not fingerprint:
            raise InviteError(
                f"invite {text!r} has no #FINGERPRINT after the address; ask the host for the "
                "full link"
            )
        if any(ch in address for ch in "/?@ "):
            raise InviteError(
                f"invite {text!r}: the address {address!r} may only be HOST:PORT"
            )
        host, port_text = split_hostport(address, text)
        host = host.replace("%25", "%")
        port = _check_port(port_text, text)
        try:
            fingerprint = normalize_fingerprint(fingerprint)
        except InvalidKeyError as error:
            raise InviteError(f"invite {text!r}: {error}") from None
        return cls(host, port, fingerprint)


def split_hostport(address: str, text: str) -> tuple[str, str]:
    """`HOST:PORT` or `[IPV6]:PORT` as (host, port text); InviteError quoting `text`, the input
    the address came from."""
    if address.startswith("["):
        host, bracket, after = address[1:].partition("]")
        if not bracket or not after.startswith(":"):
            raise InviteError(
                f"invite {text!r}: expected [IPV6]:PORT, got {address!r}"
            )
        if ":" not in host:
            raise InviteError(f"invite {text!r}: {host!r} is not an IPv6 address")
        if "%" in host and "%25" not in host:
            raise InviteError(f"invite {text!r}: write an IPv6 zone as %25, e.g. [fe80::1%25eth0]")
        return host, after[1:]
    if address.count(":") > 1:
        raise InviteError(
            f"invite {text!r}: an IPv6 address must be in brackets, e.g. versus://[::1]:47820#..."
        )
    host, colon, port_text = address.partition(":")
    if not colon:
        raise InviteError(f"invite {text!r}: the address {address!r} has no :PORT")
    if not host:
        raise InviteError(f"invite {text!r}: the address {address!r} has no host")
    return host, port_text


def parse_invite(text: str) -> Invite:
    return Invite.parse(text)
