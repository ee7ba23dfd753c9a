from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import pytest
import trio

from tests.p2p.conftest import counter_rng, identity, run_handshake
from versus.p2p.channel import SecureChannel
from versus.p2p.connect import connect, listening_port, open_listeners, serve
from versus.p2p.errors import (
    HandshakeError,
    ImpostorError,
    PeerIdentityError,
    PeerRejectedError,
    SelfConnectionError,
    TransportError,
    VersionMismatchError,
)
from versus.p2p.handshake import (
    AUTH_SIZE,
    HELLO_SIZE,
    WELCOME_SIZE,
    Handshake,
    HandshakeState,
    MessageType,
    Purpose,
    Role,
)
from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import RemoteProtocolError


def test_both_sides_agree() -> None:
    alice, bob = identity(1), identity(2)
    mine, theirs, messages = run_handshake(alice, bob, purpose=Purpose.RESUME)
    assert [len(m) for m in messages] == [HELLO_SIZE, WELCOME_SIZE, AUTH_SIZE] == [74, 179, 113]
    assert mine.send_key == theirs.receive_key and mine.receive_key == theirs.send_key
    assert mine.send_key != mine.receive_key
    assert mine.handshake_hash == theirs.handshake_hash
    assert mine.peer_public_key == bob.public_key and theirs.peer_public_key == alice.public_key
    assert mine.peer_fingerprint == bob.fingerprint
    assert mine.version == theirs.version == 1
    assert mine.purpose is theirs.purpose is Purpose.RESUME
    assert mine.local_nonce == theirs.peer_nonce and mine.peer_nonce == theirs.local_nonce


def test_same_randomness_same_handshake_and_fresh_randomness_fresh_keys() -> None:
    first = run_handshake(identity(1), identity(2), seed=5)
    assert run_handshake(identity(1), identity(2), seed=5) == first
    other = run_handshake(identity(1), identity(2), seed=9)
    assert other[0].send_key != first[0].send_key
    assert other[0].handshake_hash != first[0].handshake_hash


def test_identities_are_not_sent_in_the_clear() -> None:
    _, _, messages = run_handshake(identity(1), identity(2))
    for message in messages:
        assert identity(1).public_key not in message and identity(2).public_key not in message


def test_a_message_out_of_turn_fails_the_handshake() -> None:
    _, _, (hello, _welcome, auth) = run_handshake(identity(1), identity(2))
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(3), peer="mallory")
    with pytest.raises(HandshakeError, match="mallory sent AUTH while the handshake was in state"):
        bob.receive(auth)
    assert bob.state is HandshakeState.FAILED
    with pytest.raises(RuntimeError):
        bob.receive(hello)


@pytest.mark.parametrize(
    "message, match",
    [
        (b"\x42" + bytes(73), "unknown type 0x42"),
        (bytes([MessageType.HELLO]) + bytes(10), "HELLO of 11 bytes"),
        (bytes([MessageType.HELLO]) + b"HTTP" + bytes(69), "not a Versus client"),
    ],
)
def test_garbage_hello(message: bytes, match: str) -> None:
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng())
    with pytest.raises(HandshakeError, match=match) as info:
        bob.receive(message)
    assert info.value.evidence == (message,)


def test_low_order_ephemeral_is_refused() -> None:
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng())
    hello = alice.start()[:-32] + bytes(32)
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(1))
    with pytest.raises(HandshakeError, match="low-order point"):
        bob.receive(hello)


def test_a_tampered_welcome_is_refused() -> None:
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng())
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(1))
    welcome = bytearray(bob.receive(alice.start()))  # type: ignore[arg-type]
    welcome[-1] ^= 1
    with pytest.raises(HandshakeError, match="fails decryption"):
        alice.receive(bytes(welcome))
    assert alice.result is None and alice.state is HandshakeState.FAILED


@dataclass
class Forged:
    """Claims a victim's public key but can only sign with its own (or replay old signatures)."""

    public_key: bytes
    signer: Identity | None = None
    replayed: bytes = b""

    def sign(self, message: bytes) -> bytes:
        return self.signer.sign(message) if self.signer else self.replayed


def test_an_impostor_cannot_claim_someone_elses_key() -> None:
    bob, mallory = identity(2), identity(66)
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng(), peer="host:1")
    fake = Handshake(Role.RESPONDER, Forged(bob.public_key, mallory), counter_rng(1))  # type: ignore[arg-type]
    with pytest.raises(ImpostorError, match=f"host:1 claimed identity {bob.fingerprint}"):
        alice.receive(fake.receive(alice.start()))  # type: ignore[arg-type]


def test_a_recorded_signature_cannot_be_replayed_into_a_new_handshake() -> None:
    bob = identity(2)
    # Record Bob's genuine signature from an earlier handshake.
    alice0 = Handshake(Role.INITIATOR, identity(1), counter_rng(10))
    recorder = _Recorder(bob)
    real = Handshake(Role.RESPONDER, recorder, counter_rng(11))  # type: ignore[arg-type]
    alice0.receive(real.receive(alice0.start()))  # type: ignore[arg-type]
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng(20))
    replayer = Handshake(
        Role.RESPONDER, Forged(bob.public_key, replayed=recorder.signatures[0]), counter_rng(21)  # type: ignore[arg-type]
    )
    with pytest.raises(ImpostorError):
        alice.receive(replayer.receive(alice.start()))  # type: ignore[arg-type]


class _Recorder:
    def __init__(self, inner: Identity) -> None:
        self.public_key = inner.public_key
        self.inner = inner
        self.signatures: list[bytes] = []

    def sign(self, message: bytes) -> bytes:
        self.signatures.append(self.inner.sign(message))
        return self.signatures[-1]


def test_a_welcome_from_another_session_is_refused() -> None:
    _, _, (_, old_welcome, _) = run_handshake(identity(1), identity(2), seed=1)
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng(50))
    alice.start()
    with pytest.raises(HandshakeError):
        alice.receive(old_welcome)


def test_the_initiator_vets_the_responder_before_revealing_itself() -> None:
    def refuse(public_key: bytes) -> None:
        raise PeerIdentityError("not you", "A", "B")

    alice = Handshake(Role.INITIATOR, identity(1), counter_rng(), check_peer=refuse)
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(1))
    with pytest.raises(PeerIdentityError):
        alice.receive(bob.receive(alice.start()))  # type: ignore[arg-type]
    assert alice.state is HandshakeState.FAILED and alice.result is None


def test_the_responder_vets_the_initiator() -> None:
    seen = []
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng())
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(1), check_peer=seen.append)
    bob.receive(alice.receive(bob.receive(alice.start())))  # type: ignore[arg-type]
    assert seen == [identity(1).public_key]


def test_no_common_version_is_rejected_with_a_reason() -> None:
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng(), versions=(2, 3), peer="host:1")
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(1), peer="joiner:2")
    with pytest.raises(VersionMismatchError, match=r"joiner:2 speaks transport versions 2\.\.3"):
        bob.receive(alice.start())
    assert bob.farewell is not None and bob.farewell[0] == MessageType.REJECT
    with pytest.raises(PeerRejectedError, match="host:1 refused the connection: no common version"):
        alice.receive(bob.farewell)


def test_highest_common_version_is_chosen() -> None:
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng(), versions=(1, 4))
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(1), versions=(1, 3))
    bob.receive(alice.receive(bob.receive(alice.start())))  # type: ignore[arg-type]
    assert alice.result is not None and alice.result.version == 3


def test_unknown_purpose_is_rejected() -> None:
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng())
    hello = bytearray(alice.start())
    hello[9] = 99  # purpose byte
    bob = Handshake(Role.RESPONDER, identity(2), counter_rng(1))
    with pytest.raises(HandshakeError, match="unknown purpose 99"):
        bob.receive(bytes(hello))
    assert bob.farewell is not None


def test_our_own_key_is_refused_on_both_sides() -> None:
    # the initiator, at the WELCOME, before it reveals itself
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng(), peer="host:1")
    bob = Handshake(Role.RESPONDER, identity(1), counter_rng(1))
    with pytest.raises(SelfConnectionError, match="host:1 proved your own identity") as caught:
        alice.receive(bob.receive(alice.start()))  # type: ignore[arg-type]
    assert alice.state is HandshakeState.FAILED and alice.result is None
    assert caught.value.actual == identity(1).fingerprint
    # the responder, at the AUTH of an initiator that does not check (an older client)
    alice = Handshake(Role.INITIATOR, identity(1), counter_rng())
    alice._refuse_own_key = lambda public_key: None  # type: ignore[method-assign]
    bob = Handshake(Role.RESPONDER, identity(1), counter_rng(1), peer="joiner:2")
    with pytest.raises(SelfConnectionError, match="joiner:2 proved your own identity"):
        bob.receive(alice.receive(bob.receive(alice.start())))  # type: ignore[arg-type]
    assert bob.state is HandshakeState.FAILED and bob.result is None
    # our own setup, not the peer's fault, and never worth a retry (JoinLink.reconnect)
    assert isinstance(caught.value, PeerIdentityError)
    assert not isinstance(caught.value, RemoteProtocolError)


async def test_hosting_and_joining_with_one_key_over_tcp_says_how_to_fix_it() -> None:
    me = identity(7)
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    failed: list[TransportError] = []
    opened: list[object] = []

    async def handler(channel: SecureChannel) -> None:
        opened.append(channel)
        await channel.aclose("")

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            await nursery.start(partial(serve, listeners, me, handler, on_error=failed.append))
            with pytest.raises(SelfConnectionError) as caught:
                await connect("127.0.0.1", port, me)
            while not failed:  # the host's side of the aborted handshake
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    for listener in listeners:
        await listener.aclose()
    message = str(caught.value)
    assert message.startswith(f"127.0.0.1:{port} proved your own "
                              f"identity {me.fingerprint}: both sides use the same key")
    assert "--identity PATH" in message and "XDG_CONFIG_HOME" in message
    assert "\n" not in message
    assert opened == []  # no channel: nothing of a match was started
