# Match setup: two signed Hello messages and the match id derived from both.
#
# Each peer sends one HELLO envelope before anything else: its seat, its public key, the ruleset
# and catalogue it means to play (opaque canonical bytes and a digest here; the engine defines
# them), a fresh 32-byte nonce, a free-form software name and the *channel binding*: the
# handshake hash of the secure channel the HELLO is sent on (32 zero bytes for a match that runs
# over no channel, e.g. two peers in one process). The HELLO is signed like every envelope, but
# it is sent before a match id exists, so its match_id and prev_hash are all zero and its seq is
# 0; it never enters the hash chain.
#
# Why the binding: a HELLO names no one but its signer, so on its own it can be replayed (copied
# from an old transcript into a new one) or relayed (a man in the middle with two channels makes
# two players meet while each channel names the relay). Both HELLOs must carry the same binding,
# and a live peer requires it to equal its own channel's handshake hash and the peer's HELLO key
# to equal the key that channel authenticated (SPEC §4.5): a relay has two different handshakes,
# and an old HELLO carries an old one. Offline, an auditor sees that both HELLOs name one channel
# session; it cannot see the channel, so the match id alone binds nothing of a seat that never
# signed a chain envelope: results need both seats' signatures after the match id (SPEC §4.11).
#
# The match id is SHA-256(TAG_MATCH_ID || encode([hello_0 wire bytes, hello_1 wire bytes])) in
# seat order. It commits to everything both sides said, including both fresh nonces, so an
# envelope (or a whole chain) from another match, even between the same two keys, can never
# verify here: every later envelope carries the match id, and the chain starts from its genesis.
#
# Validation refuses pairs that cannot be one match: two claims to one seat, a reflected Hello
# (our own key or nonce coming back), different rulesets or catalogues, a peer key other than
# the pinned one.
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from versus.protocol.crypto.identity import PUBLIC_KEY_SIZE, Identity
from versus.protocol.errors import LocalProtocolError, MalformedMessage, SetupMismatch
from versus.protocol.wire.canonical import HASH_SIZE, TAG_MATCH_ID, tagged_hash
from versus.protocol.wire.chain import Chain
from versus.protocol.wire.envelope import (
    NO_MATCH_ID,
    SEATS,
    Envelope,
    MessageKind,
    check_signature,
    genesis_hash,
    parse_envelope,
    seal,
)

NONCE_SIZE = 32
BINDING_SIZE = 32
#: the binding of a match run over no secure channel (in-process peers, tests)
NO_BINDING = bytes(BINDING_SIZE)
#: a HELLO body of the format before the binding (6 fields) is read as bound to NO_BINDING, so
#: transcripts made then still verify; a live peer over a channel refuses it (binding differs)
_LEGACY_FIELDS = 6
MAX_RULESET_SIZE = 64 * 1024
MAX_SOFTWARE_LEN = 64
MAX_HELLO_SIZE = MAX_RULESET_SIZE + 1024
_ZERO_HASH = bytes(HASH_SIZE)


@dataclass(frozen=True)
class Hello:
    """One peer's opening statement. `raw` is its signed HELLO envelope (what is hashed)."""

    seat: int
    public_key: bytes
    ruleset: bytes
    catalogue_hash: bytes
    nonce: bytes
    software: str
    binding: bytes
    raw: bytes

    def __post_init__(self) -> None:
        problem = _hello_problem(self.body())
        if problem is not None:
            raise LocalProtocolError(f"invalid hello: {problem}")

    def body(self) -> list[object]:
        return [
            self.seat,
            self.public_key,
            self.ruleset,
            self.catalogue_hash,
            self.nonce,
            self.software,
            self.binding,
        ]

    @property
    def bound(self) -> bool:
        """Whether the HELLO names a secure-channel session (not NO_BINDING)."""
        return self.binding != NO_BINDING


def make_hello(
    identity: Identity,
    *,
    seat: int,
    ruleset: bytes,
    catalogue_hash: bytes,
    rng: Callable[[int], bytes],
    software: str = "",
    binding: bytes = NO_BINDING,
) -> Hello:
    """Our HELLO for `seat` (0 = the side that hosts), with a fresh nonce from `rng`, bound to
    the channel whose handshake hash is `binding`."""
    body = [seat, identity.public_key, ruleset, catalogue_hash, rng(NONCE_SIZE), software,
            binding]
    problem = _hello_problem(body)
    if problem is not None:
        raise LocalProtocolError(f"cannot make hello: {problem}")
    envelope = seal(
        identity,
        match_id=NO_MATCH_ID,
        seq=0,
        prev_hash=_ZERO_HASH,
        sender=seat,
        kind=MessageKind.HELLO,
        body=body,
    )
    return Hello(*body, raw=envelope.raw)  # type: ignore[arg-type]


def open_hello(raw: bytes, *, max_size: int = MAX_HELLO_SIZE) -> Hello:
    """Parse and authenticate a HELLO (signed by the key it announces)."""
    envelope = parse_envelope(raw, max_size=max_size)
    problem = _hello_envelope_problem(envelope)
    if problem is not None:
        raise MalformedMessage(f"malformed hello: {problem}", [envelope.raw])
    public_key = envelope.body[1]
    check_signature(envelope, (public_key, public_key))
    body = list(envelope.body)
    if len(body) == _LEGACY_FIELDS:  # signed before HELLOs carried a binding: bound to nothing
        body.append(NO_BINDING)
    return Hello(*body, raw=envelope.raw)


@dataclass(frozen=True)
class MatchSetup:
    """The agreed start of a match: both Hellos in seat order and what follows from them."""

    hellos: tuple[Hello, Hello]
    match_id: bytes

    @classmethod
    def from_hellos(
        cls,
        first: Hello,
        second: Hello,
        *,
        local_seat: int | None = None,
        expected_keys: Sequence[bytes | None] = (None, None),
    ) -> MatchSetup:
        """Validate two Hellos (either order) and derive the match id.

        `local_seat` names our own seat, so errors blame the other one; `expected_keys[s]`
        pins seat s's public key. Raises SetupMismatch.
        """
        hellos = tuple(sorted((first, second), key=lambda hello: hello.seat))
        blame = None if local_seat is None else 1 - local_seat
        evidence = [hello.raw for hello in hellos]
        problem = _pair_problem(hellos[0], hellos[1], expected_keys)
        if problem is not None:
            raise SetupMismatch(f"hellos do not agree: {problem}", evidence, player=blame)
        match_id = derive_match_id(hellos[0].raw, hellos[1].raw)
        return cls((hellos[0], hellos[1]), match_id)

    @property
    def keys(self) -> tuple[bytes, bytes]:
        return (self.hellos[0].public_key, self.hellos[1].public_key)

    @property
    def ruleset(self) -> bytes:
        return self.hellos[0].ruleset

    @property
    def catalogue_hash(self) -> bytes:
        return self.hellos[0].catalogue_hash

    @property
    def genesis(self) -> bytes:
        return genesis_hash(self.match_id)

    def seat_of(self, identity: Identity) -> int:
        """Our seat, or LocalProtocolError when `identity` is not a player of this match."""
        if identity.public_key not in self.keys:
            raise LocalProtocolError(f"{identity.fingerprint} is not a player of this match")
        return self.keys.index(identity.public_key)

    def new_chain(self) -> Chain:
        return Chain(self.match_id, self.keys)


def derive_match_id(hello_0: bytes, hello_1: bytes) -> bytes:
    """SHA-256(TAG_MATCH_ID || encode([hello_0, hello_1])) over the signed HELLO wire bytes."""
    return tagged_hash(TAG_MATCH_ID, hello_0, hello_1)


def _hello_envelope_problem(envelope: Envelope) -> str | None:
    if envelope.kind is not MessageKind.HELLO:
        return f"kind is {envelope.kind.name}, not HELLO"
    if envelope.match_id != NO_MATCH_ID or envelope.prev_hash != _ZERO_HASH or envelope.seq:
        return "a hello has seq 0 and all-zero match_id and prev_hash"
    body = list(envelope.body)
    if len(body) == _LEGACY_FIELDS:
        body.append(NO_BINDING)
    problem = _hello_problem(body)
    if problem is None and body[0] != envelope.sender:
        problem = f"seat {envelope.body[0]} differs from sender {envelope.sender}"
    return problem


def _hello_problem(body: Sequence[object]) -> str | None:
    if len(body) != 7:
        return f"a hello body has 7 fields, got {len(body)}"
    seat, public_key, ruleset, catalogue_hash, nonce, software, binding = body
    if type(seat) is not int or seat not in SEATS:
        return f"seat must be 0 or 1, got {seat!r:.40}"
    if type(public_key) is not bytes or len(public_key) != PUBLIC_KEY_SIZE:
        return f"public key must be {PUBLIC_KEY_SIZE} bytes, got {public_key!r:.80}"
    if type(ruleset) is not bytes or len(ruleset) > MAX_RULESET_SIZE:
        return f"ruleset must be at most {MAX_RULESET_SIZE} bytes"
    if type(catalogue_hash) is not bytes or len(catalogue_hash) != HASH_SIZE:
        return f"catalogue hash must be {HASH_SIZE} bytes, got {catalogue_hash!r:.80}"
    if type(nonce) is not bytes or len(nonce) != NONCE_SIZE:
        return f"nonce must be {NONCE_SIZE} bytes, got {nonce!r:.80}"
    if (type(software) is not str or len(software) > MAX_SOFTWARE_LEN
            or not software.isprintable()):
        return f"software must be a printable string of at most {MAX_SOFTWARE_LEN} characters"
    if type(binding) is not bytes or len(binding) != BINDING_SIZE:
        return f"channel binding must be {BINDING_SIZE} bytes, got {binding!r:.80}"
    return None


def _pair_problem(
    hello_0: Hello, hello_1: Hello, expected_keys: Sequence[bytes | None]
) -> str | None:
    if (hello_0.seat, hello_1.seat) != (0, 1):
        return f"both claim seat {hello_0.seat}"
    if hello_0.public_key == hello_1.public_key:
        return "both use the same public key (a reflected hello?)"
    if hello_0.nonce == hello_1.nonce:
        return "both use the same nonce (a reflected hello?)"
    if hello_0.ruleset != hello_1.ruleset:
        return "different rulesets"
    if hello_0.binding != hello_1.binding:
        return "the hellos name different channel sessions (a replayed or relayed hello?)"
    if hello_0.catalogue_hash != hello_1.catalogue_hash:
        return (
            f"different catalogues ({hello_0.catalogue_hash.hex()[:16]}… vs "
            f"{hello_1.catalogue_hash.hex()[:16]}…)"
        )
    for seat, (hello, pinned) in enumerate(zip((hello_0, hello_1), expected_keys, strict=True)):
        if pinned is not None and hello.public_key != pinned:
            return f"seat {seat} is not the expected key"
    return None
