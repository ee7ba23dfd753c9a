# Invite links, what a host gives the player who joins:
#
#   versus://HOST:PORT#FINGERPRINT                                   (one address: the old form)
#   versus://HOST1:PORT,HOST2:PORT,[V6]:PORT?relay=tcp:HOST:PORT&room=BASE32#FINGERPRINT
#
# The fingerprint is the host's identity (protocol/crypto/identity.py); joining with an invite pins
# it, so whoever answers at any of the addresses, or through the relay, must prove that identity
# or the handshake aborts. The addresses (at most MAX_ADDRESSES, no repeats) are tried in order
# with happy eyeballs (p2p/connect.py connect_any): the host lists its mapped external address
# first, then its LAN ones. `relay=` names a magic-wormhole transit relay where the host also
# waits, and `room=` (required with it, and only with it) is the host's 16-byte meeting secret in
# lowercase RFC 4648 base32 without padding (p2p/nat/relay.py derives the relay token from it and
# the fingerprint). The text form round-trips: `Invite.parse(str(invite)) == invite`. IPv6
# addresses go in brackets (RFC 3986), with a zone as `%25zone`. Parsing is strict about structure
# and forgiving about the fingerprint (case, separators) and the scheme's case, and every error
# names the input and what is wrong with it. SPEC §6.4 and §6.10 give the grammar.
from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from dataclasses import dataclass

from versus.p2p.errors import InviteError
from versus.protocol.crypto.identity import InvalidKeyError, normalize_fingerprint

SCHEME = "versus://"
#: Eight addresses with zones, a relay host name and a room fit; anything longer is not ours.
MAX_INVITE_LENGTH = 600
#: Addresses one invite may list (the joiner dials each, 250 ms apart).
MAX_ADDRESSES = 8
ROOM_SIZE = 16
_ROOM_TEXT_LENGTH = 26  # base32 of 16 bytes, unpadded
_HOSTNAME_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")

Address = tuple[str, int]


def format_hostport(host: str, port: int) -> str:
    """`host:port`, with an IPv6 address in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def check_hostname(host: str, text: str) -> str:
    """`host` (an IPv4 or IPv6 address, or a DNS name) in canonical form; InviteError quoting
    `text`, the input it came from."""
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


def check_port(port_text: str, text: str) -> int:
    """A port's text as 1..65535; InviteError quoting `text`."""
    if not port_text.isdigit() or not port_text.isascii():
        raise InviteError(f"invite {text!r}: port {port_text!r} is not a number")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise InviteError(f"invite {text!r}: port {port} is outside 1..65535")
    return port


def encode_room(room: bytes) -> str:
    """The room as the invite writes it: lowercase base32, no padding (26 characters)."""
    return base64.b32encode(room).decode("ascii").rstrip("=").lower()


def decode_room(room_text: str, text: str) -> bytes:
    """The inverse of `encode_room`, strict (only the canonical text of 16 bytes)."""
    if len(room_text) != _ROOM_TEXT_LENGTH or not room_text.isascii():
        raise InviteError(
            f"invite {text!r}: room {room_text!r} is not {_ROOM_TEXT_LENGTH} base32 characters"
        )
    try:
        room = base64.b32decode(room_text.upper() + "======")
    except (binascii.Error, ValueError):
        raise InviteError(f"invite {text!r}: room {room_text!r} is not base32") from None
    if encode_room(room) != room_text.lower():
        raise InviteError(f"invite {text!r}: room {room_text!r} is not canonical base32")
    return room


def _check_address(host: str, port: object, text: str) -> Address:
    host = check_hostname(host, text)
    if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
        raise InviteError(f"invite {text!r}: port {port!r} is outside 1..65535")
    return host, port


def _text_host(host: str) -> str:
    return host.replace("%", "%25")


@dataclass(frozen=True)
class Invite:
    """`host`/`port` is the first address; `more` the others, in order; `relay` where the host
    also waits, with its `room` (both or neither)."""

    host: str
    port: int
    fingerprint: str
    more: tuple[Address, ...] = ()
    relay: Address | None = None
    room: bytes | None = None

    def __post_init__(self) -> None:
        text = format_hostport(self.host, self.port)
        first = _check_address(self.host, self.port, text)
        object.__setattr__(self, "host", first[0])
        more = tuple(_check_address(host, port, text) for host, port in self.more)
        object.__setattr__(self, "more", more)
        addresses = (first, *more)
        if len(addresses) > MAX_ADDRESSES:
            raise InviteError(
                f"invite for {text}: {len(addresses)} addresses, at most {MAX_ADDRESSES}"
            )
        if len(set(addresses)) != len(addresses):
            raise InviteError(f"invite for {text}: an address is listed twice")
        if (self.relay is None) != (self.room is None):
            raise InviteError(f"invite for {text}: a relay needs a room and a room a relay")
        if self.relay is not None:
            object.__setattr__(self, "relay", _check_address(*self.relay, text))
            if not isinstance(self.room, bytes) or len(self.room) != ROOM_SIZE:
                raise InviteError(f"invite for {text}: the room is not {ROOM_SIZE} bytes")
        try:
            object.__setattr__(self, "fingerprint", normalize_fingerprint(self.fingerprint))
        except InvalidKeyError as error:
            raise InviteError(f"invite for {text}: {error}") from None

    @classmethod
    def of(cls, addresses: list[Address] | tuple[Address, ...], fingerprint: str, *,
           relay: Address | None = None, room: bytes | None = None) -> Invite:
        """An invite listing `addresses` (at least one), in order."""
        if not addresses:
            raise InviteError("an invite needs at least one address")
        (host, port), *more = addresses
        return cls(host, port, fingerprint, tuple(more), relay, room)

    @property
    def addresses(self) -> tuple[Address, ...]:
        """Every address, in the order the joiner tries them."""
        return ((self.host, self.port), *self.more)

    def __str__(self) -> str:
        hosts = ",".join(format_hostport(_text_host(h), p) for h, p in self.addresses)
        params = ""
        if self.relay is not None and self.room is not None:
            relay = format_hostport(_text_host(self.relay[0]), self.relay[1])
            params = f"?relay=tcp:{relay}&room={encode_room(self.room)}"
        return f"{SCHEME}{hosts}{params}#{self.fingerprint}"

    @classmethod
    def parse(cls, text: str) -> Invite:
        """Parse an invite (see the module comment); InviteError names what is wrong."""
        if len(text) > MAX_INVITE_LENGTH:
            raise InviteError(
                f"invite of {len(text)} characters is too long (at most {MAX_INVITE_LENGTH})"
            )
        stripped = text.strip()
        if not stripped.lower().startswith(SCHEME):
            raise InviteError(f"invite {text!r} does not start with {SCHEME}")
        rest = stripped[len(SCHEME) :]
        location, hash_sign, fingerprint = rest.partition("#")
        if not hash_sign or not fingerprint:
            raise InviteError(
                f"invite {text!r} has no #FINGERPRINT after the address; ask the host for the "
                "full link"
            )
        address_list, question, query = location.partition("?")
        if any(ch in address_list for ch in "/?@ "):
            raise InviteError(
                f"invite {text!r}: the address {address_list!r} may only be HOST:PORT (or "
                "several, separated by commas)"
            )
        addresses = [parse_hostport(item, text) for item in address_list.split(",")]
        relay, room = _parse_query(query, text) if question else (None, None)
        try:
            fingerprint = normalize_fingerprint(fingerprint)
        except InvalidKeyError as error:
            raise InviteError(f"invite {text!r}: {error}") from None
        if len(addresses) > MAX_ADDRESSES:
            raise InviteError(
                f"invite {text!r}: {len(addresses)} addresses, at most {MAX_ADDRESSES}"
            )
        if len(set(addresses)) != len(addresses):
            raise InviteError(f"invite {text!r}: an address is listed twice")
        (host, port), *more = addresses
        return cls(host, port, fingerprint, tuple(more), relay, room)


def parse_hostport(address: str, text: str) -> Address:
    """One `HOST:PORT` or `[IPV6]:PORT` of an invite, checked and canonical."""
    if not address:
        raise InviteError(f"invite {text!r}: an empty address (two commas, or one at an end)")
    host, port_text = split_hostport(address, text)
    host = host.replace("%25", "%")
    port = check_port(port_text, text)
    return check_hostname(host, text), port


def _parse_query(query: str, text: str) -> tuple[Address | None, bytes | None]:
    relay: Address | None = None
    room: bytes | None = None
    seen: set[str] = set()
    for param in query.split("&"):
        name, equals, value = param.partition("=")
        if not equals or not value:
            raise InviteError(f"invite {text!r}: parameter {param!r} is not NAME=VALUE")
        if name in seen:
            raise InviteError(f"invite {text!r}: parameter {name!r} is given twice")
        seen.add(name)
        if name == "relay":
            if not value.startswith("tcp:"):
                raise InviteError(
                    f"invite {text!r}: relay {value!r} is not tcp:HOST:PORT"
                )
            relay = parse_hostport(value[len("tcp:") :], text)
        elif name == "room":
            room = decode_room(value, text)
        else:
            raise InviteError(
                f"invite {text!r}: unknown parameter {name!r} (only relay= and room=); a newer "
                "version of Versus may be needed"
            )
    if (relay is None) != (room is None):
        missing = "room=" if room is None else "relay="
        raise InviteError(f"invite {text!r}: {missing} is missing (relay= and room= go together)")
    return relay, room


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

