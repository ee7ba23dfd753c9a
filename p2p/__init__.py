# p2p: the only package with I/O. It moves frames between a TCP socket and the protocol layer:
# framing (framing.py), the authenticated key exchange (handshake.py, sans-IO), the encrypted
# channel with its timeouts and keepalives (channel.py), connecting and listening (connect.py),
# trust on first use (known_peers.py), local keys (keystore.py), invite links (invite.py) and
# LAN discovery (discovery.py). SPEC.md Part 6 is the wire format.
from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.connect import (
    accept_one,
    connect,
    connect_invite,
    handshake_initiator,
    handshake_responder,
    listening_port,
    open_listeners,
    serve,
)
from versus.p2p.discovery import DiscoveredGame, announce, discover
from versus.p2p.handshake import HandshakeResult, Purpose
from versus.p2p.invite import Invite, parse_invite
from versus.p2p.keystore import load_or_create_identity
from versus.p2p.known_peers import KnownPeers

__all__ = [
    "ChannelConfig",
    "DiscoveredGame",
    "HandshakeResult",
    "Invite",
    "KnownPeers",
    "Purpose",
    "SecureChannel",
    "accept_one",
    "announce",
    "connect",
    "connect_invite",
    "discover",
    "handshake_initiator",
    "handshake_responder",
    "listening_port",
    "load_or_create_identity",
    "open_listeners",
    "parse_invite",
    "serve",
]
