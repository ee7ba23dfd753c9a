# Opening channels: the trio driver of the handshake, connecting, listening and accepting.
#
# The handshake itself is the sans-IO machine in p2p/handshake.py; this module only moves its
# messages through frames, under one deadline for the whole exchange (an anonymous peer gets
# `handshake_timeout` seconds and MAX_HANDSHAKE_FRAME bytes per message, nothing more). The frame
# decoder survives the handshake and becomes the channel's, so bytes the peer sent right after
# its last handshake message are not lost.
#
# Who we accept: the initiator checks the responder's proven key, before revealing its own
# identity, against the fingerprint pinned by an invite (authoritative: a match also updates
# known_peers) or else against known_peers (trust on first use; a new peer is recorded after the
# handshake succeeds, a changed key is refused with PeerKeyChangedError).
from __future__ import annotations

import contextlib
import errno
import ipaddress
import secrets
import socket
from collections.abc import Awaitable, Callable, Sequence
from functools import partial

import trio

from versus.p2p.channel import ChannelConfig, SecureChannel
from versus.p2p.errors import (
    ConnectError,
    ConnectionLostError,
    ConnectTimeoutError,
    FingerprintMismatchError,
    HandshakeTimeoutError,
    ListenError,
    TransportError,
)
from versus.p2p.framing import MAX_HANDSHAKE_FRAME, FrameDecoder, encode_frame
from versus.p2p.handshake import Handshake, PeerCheck, Purpose, Role
from versus.p2p.invite import Invite, format_hostport
from versus.p2p.known_peers import KnownPeers
from versus.protocol.crypto.identity import Identity, fingerprint, normalize_fingerprint

DEFAULT_PORT = 47_820
CONNECT_TIMEOUT = 10.0
HANDSHAKE_TIMEOUT = 10.0
#: Happy eyeballs (RFC 8305 §5's recommended Connection Attempt Delay): the next address of an
#: invite is dialled this long after the previous one, unless that one failed sooner.
HAPPY_EYEBALLS_DELAY = 0.25
#: Handshakes in progress at once on a listener; more connections are dropped at once, so a
#: connection flood costs us bounded memory.
MAX_PENDING_HANDSHAKES = 16
#: Of those, how many one source may hold (an IPv4 address, or an IPv6 /64, which one machine
#: usually owns whole): a single host that opens connections and sends nothing cannot fill every
#: slot and lock the real opponent out for a handshake timeout after another.
MAX_PENDING_PER_SOURCE = 4

Rng = Callable[[int], bytes]
ChannelHandler = Callable[[SecureChannel], Awaitable[None]]
ErrorHandler = Callable[[TransportError], None]


# --- the handshake over a stream -----------------------------------------------------------------


async def secure_stream(
    stream: trio.abc.Stream,
    handshake: Handshake,
    *,
    peer: str,
    timeout: float = HANDSHAKE_TIMEOUT,
    config: ChannelConfig | None = None,
) -> SecureChannel:
    """Run `handshake` over `stream` and return the channel. Closes the stream on any failure."""
    decoder = FrameDecoder(MAX_HANDSHAKE_FRAME, peer)
    try:
        with trio.fail_after(timeout):
            await _exchange(stream, handshake, decoder, peer)
    except trio.TooSlowError:
        await trio.aclose_forcefully(stream)
        raise HandshakeTimeoutError(
            f"{peer} did not complete the handshake within {timeout:g} s; it may not be a "
            "Versus player, or the network is too slow"
        ) from None
    except TransportError:
        await _send_farewell(stream, handshake)
        await trio.aclose_forcefully(stream)
        raise
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    assert handshake.result is not None
    return SecureChannel(stream, handshake.result, config=config, decoder=decoder, peer=peer)


async def _exchange(
    stream: trio.abc.Stream, handshake: Handshake, decoder: FrameDecoder, peer: str
) -> None:
    if handshake.role is Role.INITIATOR:
        await _send(stream, handshake.start(), peer)
    while not handshake.done:
        reply = handshake.receive(await _next_frame(stream, decoder, handshake, peer))
        if reply is not None:
            await _send(stream, reply, peer)


async def _next_frame(
    stream: trio.abc.Stream, decoder: FrameDecoder, handshake: Handshake, peer: str
) -> bytes:
    while (frame := decoder.next_frame()) is None:
        try:
            data = await stream.receive_some(MAX_HANDSHAKE_FRAME)
        except (trio.BrokenResourceError, OSError) as error:
            raise ConnectionLostError(
                f"the connection to {peer} broke during the handshake ({error or 'reset'})"
            ) from None
        if not data:
            raise ConnectionLostError(
                f"{peer} closed the connection during the handshake (state "
                f"{handshake.state.value}); it may have refused us — ask its player"
            )
        decoder.feed(data)
    return frame


async def _send(stream: trio.abc.Stream, message: bytes, peer: str) -> None:
    try:
        await stream.send_all(encode_frame(message, MAX_HANDSHAKE_FRAME))
    except (trio.BrokenResourceError, OSError) as error:
        raise ConnectionLostError(
            f"the connection to {peer} broke during the handshake ({error or 'reset'})"
        ) from None


async def _send_farewell(stream: trio.abc.Stream, handshake: Handshake) -> None:
    if handshake.farewell is None:
        return
    with trio.move_on_after(1.0):
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await stream.send_all(encode_frame(handshake.farewell, MAX_HANDSHAKE_FRAME))


async def handshake_initiator(
    stream: trio.abc.Stream,
    identity: Identity,
    *,
    peer: str = "the host",
    purpose: Purpose = Purpose.NEW_MATCH,
    check_peer: PeerCheck | None = None,
    timeout: float = HANDSHAKE_TIMEOUT,
    config: ChannelConfig | None = None,
    rng: Rng = secrets.token_bytes,
) -> SecureChannel:
    """Open a channel as the connecting side over an already-connected stream."""
    handshake = Handshake(
        Role.INITIATOR, identity, rng, purpose=purpose, check_peer=check_peer, peer=peer
    )
    return await secure_stream(stream, handshake, peer=peer, timeout=timeout, config=config)


async def handshake_responder(
    stream: trio.abc.Stream,
    identity: Identity,
    *,
    peer: str = "the joining player",
    check_peer: PeerCheck | None = None,
    timeout: float = HANDSHAKE_TIMEOUT,
    config: ChannelConfig | None = None,
    rng: Rng = secrets.token_bytes,
) -> SecureChannel:
    """Open a channel as the accepting side over an already-connected stream."""
    handshake = Handshake(Role.RESPONDER, identity, rng, check_peer=check_peer, peer=peer)
    return await secure_stream(stream, handshake, peer=peer, timeout=timeout, config=config)


# --- who we accept -------------------------------------------------------------------------------


def pin_check(label: str, expected_fingerprint: str | None, known_peers: KnownPeers | None) -> (
    PeerCheck
):
    """The check an initiator applies to the host's proven key (see the module comment)."""
    expected = normalize_fingerprint(expected_fingerprint) if expected_fingerprint else None

    def check(public_key: bytes) -> None:
        actual = fingerprint(public_key)
        if expected is not None:
            if actual != expected:
                raise FingerprintMismatchError(
                    f"{label} presented identity {actual}, but the invite pins {expected}; "
                    "connection aborted — get a fresh invite from the host's player",
                    expected,
                    actual,
                )
        elif known_peers is not None:
            known_peers.check(label, actual)

    return check


# --- connecting ----------------------------------------------------------------------------------


async def connect(
    host: str,
    port: int,
    identity: Identity,
    *,
    purpose: Purpose = Purpose.NEW_MATCH,
    expected_fingerprint: str | None = None,
    known_peers: KnownPeers | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
    config: ChannelConfig | None = None,
    rng: Rng = secrets.token_bytes,
) -> SecureChannel:
    """Connect to a host (happy eyeballs over IPv4/IPv6) and run the handshake as initiator.
    `rng` draws the handshake's ephemeral key and nonce: `secrets` always, except a test or a
    seeded demo that must reproduce its transcript (the match is bound to the handshake)."""
    label = format_hostport(host, port)
    stream = await open_stream(host, port, timeout=connect_timeout)
    channel = await handshake_initiator(
        stream,
        identity,
        peer=label,
        purpose=purpose,
        check_peer=pin_check(label, expected_fingerprint, known_peers),
        timeout=handshake_timeout,
        config=config,
        rng=rng,
    )
    if known_peers is not None:
        note = "pinned by invite" if expected_fingerprint else "trusted on first use"
        try:
            await trio.to_thread.run_sync(
                partial(
                    known_peers.remember, label, channel.peer_fingerprint, note,
                    replace=expected_fingerprint is not None,
                )
            )
        except BaseException:  # an unwritable file (or a cancel) must not leak the connection
            await channel.aclose("the joining player could not record the host's identity")
            raise
    return channel


class AllAddressesFailedError(ConnectError):
    """No address of a host answered with a completed handshake; `failures` holds (address,
    error) for each address, in the order they were listed."""

    def __init__(self, message: str, failures: list[tuple[str, TransportError]]) -> None:
        super().__init__(message)
        self.failures = failures


async def connect_any(
    addresses: Sequence[tuple[str, int]],
    identity: Identity,
    *,
    stagger: float = HAPPY_EYEBALLS_DELAY,
    **options: object,
) -> SecureChannel:
    """Happy eyeballs over a host's addresses (an invite's, in its order): start `connect` to
    the first, then to the next one `stagger` seconds later or as soon as every attempt
    started so far failed; the first attempt whose handshake completes wins and the others are
    cancelled (a late second winner is closed). Each attempt applies the same pin
    (`expected_fingerprint`, `known_peers`: `options` are those of `connect`), so an address
    that answers with another identity is just a failed attempt. One address: exactly
    `connect` (its own error). Several that all fail: AllAddressesFailedError naming each."""
    if not addresses:
        raise ConnectError("no address to connect to")
    if len(addresses) == 1:
        host, port = addresses[0]
        return await connect(host, port, identity, **options)  # type: ignore[arg-type]
    winner: SecureChannel | None = None
    failures: dict[int, tuple[str, TransportError]] = {}
    async with trio.open_nursery() as nursery:

        async def attempt(index: int, host: str, port: int, failed: trio.Event) -> None:
            nonlocal winner
            try:
                channel = await connect(host, port, identity, **options)  # type: ignore[arg-type]
            except TransportError as error:
                failures[index] = (format_hostport(host, port), error)
                failed.set()
                return
            if winner is None:
                winner = channel
                nursery.cancel_scope.cancel()
            else:
                with trio.CancelScope(shield=True), trio.move_on_after(1.0):
                    await channel.aclose("connected through another address")

        for index, (host, port) in enumerate(addresses):
            failed = trio.Event()
            nursery.start_soon(attempt, index, host, port, failed)
            with trio.move_on_after(stagger):
                await failed.wait()  # this one failed: start the next one at once
    if winner is not None:
        return winner
    ordered = [failures[i] for i in sorted(failures)]
    raise AllAddressesFailedError(
        f"could not reach the host at any of its {len(ordered)} addresses ("
        + "; ".join(f"{label}: {_short(error)}" for label, error in ordered) + ")",
        ordered,
    )


def _short(error: TransportError) -> str:
    text = str(error) or type(error).__name__
    return text.split("; ")[0]


async def connect_invite(
    invite: Invite | str, identity: Identity, **options: object
) -> SecureChannel:
    """Join the game an invite points to (every address, happy eyeballs; no relay here: see
    p2p/link.py JoinLink); the invite's fingerprint is pinned."""
    if isinstance(invite, str):
        invite = Invite.parse(invite)
    return await connect_any(
        invite.addresses, identity, expected_fingerprint=invite.fingerprint,
        **options,
    )


async def open_stream(
    host: str, port: int, *, timeout: float = CONNECT_TIMEOUT
) -> trio.SocketStream:
    """A TCP stream to host:port, with precise errors for each way it can fail."""
    label = format_hostport(host, port)
    try:
        with trio.fail_after(timeout):
            stream = await trio.open_tcp_stream(host, port)
    except trio.TooSlowError:
        raise ConnectTimeoutError(
            f"could not connect to {label} within {timeout:g} s; check the address and that "
            "no firewall blocks the port"
        ) from None
    except socket.gaierror as error:
        raise ConnectError(
            f"could not resolve host {host!r} ({error.strerror}); check the spelling"
        ) from None
    except OSError as error:
        raise ConnectError(
            f"could not connect to {label} ({_os_reason(error)}); check that the host is "
            "listening and the port is open"
        ) from None
    return stream  # trio.SocketStream has already set TCP_NODELAY (ignoring a failure)


def _os_reason(error: OSError) -> str:
    # trio's happy eyeballs raises one OSError whose __cause__ groups the per-address errors;
    # the first of those says what actually happened.
    cause = error.__cause__
    if isinstance(cause, BaseExceptionGroup) and isinstance(cause.exceptions[0], OSError):
        error = cause.exceptions[0]
    if error.errno == errno.ECONNREFUSED:
        return "connection refused"
    if error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__


# --- listening and accepting ---------------------------------------------------------------------


async def open_listeners(port: int = DEFAULT_PORT, *, bind: str | None = None) -> list[
    trio.SocketListener
]:
    """Listen on `port` on every local IPv4 and IPv6 address (or only on `bind`)."""
    try:
        return await trio.open_tcp_listeners(port, host=bind)
    except OSError as error:
        where = format_hostport(bind or "*", port)
        advice = (
            "another program uses that port; choose another with --port"
            if error.errno == errno.EADDRINUSE
            else "check the address and your permissions"
        )
        raise ListenError(
            f"could not listen on {where} ({_os_reason(error)}); {advice}"
        ) from None


def listening_port(listeners: list[trio.SocketListener]) -> int:
    """The port the listeners are bound to (useful after listening on port 0)."""
    return listeners[0].socket.getsockname()[1]


def _peer_label(stream: trio.abc.Stream) -> str:
    try:
        address = stream.socket.getpeername()  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return "a joining player"
    return format_hostport(address[0], address[1])


def source_prefix(host: str) -> str:
    """The unit a per-source limit counts (listener slots, waiting joiners, LAN announcements):
    an IPv4 address, or an IPv6 address's /64, which one machine usually owns whole."""
    try:
        address = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def stream_source(stream: trio.abc.Stream) -> str:
    """`source_prefix` of a connected stream's peer ("?" when the socket cannot tell)."""
    try:
        host = stream.socket.getpeername()[0]  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return "?"
    return source_prefix(host)


async def serve(
    listeners: list[trio.SocketListener],
    identity: Identity,
    handler: ChannelHandler,
    *,
    check_peer: PeerCheck | None = None,
    on_error: ErrorHandler | None = None,
    handshake_timeout: float = HANDSHAKE_TIMEOUT,
    config: ChannelConfig | None = None,
    rng: Rng = secrets.token_bytes,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Accept connections forever; run `handler(channel)` for each completed handshake.

    The handler owns the channel and must close it; the caller owns the listeners. A failed
    handshake is reported to `on_error` and never stops the server.
    """
    pending = trio.CapacityLimiter(MAX_PENDING_HANDSHAKES)
    pending_by_source: dict[str, int] = {}

    async def accept_one_stream(stream: trio.SocketStream) -> None:
        peer, source = _peer_label(stream), stream_source(stream)
        if pending_by_source.get(source, 0) >= MAX_PENDING_PER_SOURCE:
            await trio.aclose_forcefully(stream)
            return
        try:
            pending.acquire_nowait()
        except trio.WouldBlock:
            await trio.aclose_forcefully(stream)
            return
        pending_by_source[source] = pending_by_source.get(source, 0) + 1
        try:
            # No setsockopt(TCP_NODELAY) here: trio.SocketStream sets it and ignores the
            # OSError some systems (macOS) raise once the peer has reset the connection,
            # which would otherwise escape and stop the whole server.
            channel = await handshake_responder(
                stream, identity, peer=peer, check_peer=check_peer,
                timeout=handshake_timeout, config=config, rng=rng,
            )
        except TransportError as error:
            if on_error is not None:
                on_error(error)
            return
        finally:
            pending.release()
            pending_by_source[source] -= 1
            if not pending_by_source[source]:
                del pending_by_source[source]
        await handler(channel)

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(_accept_loop, listener, nursery, accept_one_stream)
        task_status.started()


#: errnos that mean "the system is momentarily out of resources": wait and accept again
_TRANSIENT_ACCEPT_ERRORS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}


async def _accept_loop(
    listener: trio.SocketListener,
    nursery: trio.Nursery,
    on_stream: Callable[[trio.SocketStream], Awaitable[None]],
) -> None:
    # Not trio.serve_listeners: it closes each stream when its handler returns, and a channel
    # handed over by accept_one must outlive the task that accepted it.
    while True:
        try:
            stream = await listener.accept()
        except OSError as error:
            if error.errno in _TRANSIENT_ACCEPT_ERRORS:
                await trio.sleep(0.1)
                continue
            raise ListenError(f"could not accept connections ({_os_reason(error)})") from None
        nursery.start_soon(on_stream, stream)


async def accept_one(
    listeners: list[trio.SocketListener],
    identity: Identity,
    **options: object,
) -> SecureChannel:
    """Wait for the first peer that completes a handshake; `options` are those of `serve`."""
    winner: SecureChannel | None = None
    async with trio.open_nursery() as nursery:

        async def take(channel: SecureChannel) -> None:
            nonlocal winner
            if winner is None:
                winner = channel
                nursery.cancel_scope.cancel()
            else:
                await channel.aclose("the host already has an opponent")

        nursery.start_soon(partial(serve, listeners, identity, take, **options))  # type: ignore[arg-type]
    assert winner is not None
    return winner
