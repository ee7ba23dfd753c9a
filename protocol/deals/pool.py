# The shared-pool deal: two players shuffle one pool of cards and deal each a secret deck
# (mental poker, SPEC Part 5). Sans-IO: methods take and return message objects; the caller
# signs, sends and receives them (in envelopes), and feeds them back in.
#
# Flow (every proof is checked the moment its message arrives):
#   1. KEYS       both send KeyShare (Yᵢ = xᵢ·G + Schnorr proof bound to identity and match).
#                 The joint key is Y = Y0 + Y1; the pool starts as (O, M_card) for each card.
#   2. SHUFFLE_0  player 0 re-encrypts and permutes the whole pool, sends Shuffle + TW proof.
#   3. SHUFFLE_1  player 1 does the same on player 0's output.
#   4. DEALT      the caller (the match, from the game's hidden decks) says which position is
#                 dealt next and to whom: position h stands for the game's card h.
#                 A draw: the non-owner sends DrawShare (its decryption share of the position
#                 + Chaum–Pedersen proof); the owner adds its own share and learns the card.
#                 The position's owner is fixed by that draw (whoever received it).
#                 A public reveal: the owner sends Reveal (its share + proof + the card id) for
#                 a card it has drawn; the peer checks that it sent the draw share for that
#                 position, adds its own share and checks the card id.
#   5. ENDED      each may send EndReveal (its secret xᵢ) once the game is over; then the peer,
#                 or an auditor holding the transcript, can decrypt the whole pool.
# Neither player alone can decrypt anything, neither knows the permutation (each knows only its
# own), and as long as one shuffle is honest the deal is uniform. After a RemoteProtocolError the
# object refuses every further call, as protocol/errors.py requires.
from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from versus.protocol.crypto.elgamal import (
    Ciphertext,
    card_table,
    check_card_id,
    combine,
    decryption_share,
    trivial_encryption,
)
from versus.protocol.crypto.group import (
    CryptoProofError,
    L,
    MalformedMessageError,
    Point,
    Rng,
    base_mul,
    decode_scalar,
    encode_scalar,
    random_scalar,
)
from versus.protocol.crypto.shuffle import (
    MAX_POOL,
    Generators,
    ShuffleProof,
    prove_shuffle,
    shuffle,
    shuffle_generators,
    verify_shuffle,
)
from versus.protocol.crypto.zkp import (
    NonceLedger,
    Proof,
    dleq_prove,
    dleq_verify,
    schnorr_prove,
    schnorr_verify,
)
from versus.protocol.errors import LocalProtocolError, OutOfTurn, RemoteProtocolError

IDENTITY_SIZE = 32
MAX_MATCH_ID = 64


class UnexpectedMessageError(OutOfTurn):
    """A deal message that is well formed but not allowed now (wrong phase, position, repeat)."""

    code = "deal-unexpected-message"


class CardMismatchError(CryptoProofError):
    """A reveal whose proven share decrypts to another card than the one it names."""

    code = "deal-card-mismatch"


class DealPhase(enum.Enum):
    KEYS = "keys"
    SHUFFLE_0 = "shuffle-0"
    SHUFFLE_1 = "shuffle-1"
    DEALT = "dealt"
    FAILED = "failed"


# The transition table. Each phase change happens on one event; a RemoteProtocolError from any
# phase leads to FAILED. Draws, reveals and end reveals all stay in DEALT.
_TRANSITIONS: dict[tuple[DealPhase, str], DealPhase] = {
    (DealPhase.KEYS, "both key shares"): DealPhase.SHUFFLE_0,
    (DealPhase.SHUFFLE_0, "shuffle 0"): DealPhase.SHUFFLE_1,
    (DealPhase.SHUFFLE_1, "shuffle 1"): DealPhase.DEALT,
}
#: whose shuffle each shuffle phase waits for
_SHUFFLE_TURN = {0: DealPhase.SHUFFLE_0, 1: DealPhase.SHUFFLE_1}


# --- messages ---------------------------------------------------------------------------------


def _check_frame(obj: object, kind: str, length: int) -> Sequence[object]:
    if not isinstance(obj, list | tuple) or not obj:
        raise MalformedMessageError(f"{kind}: a message is a non-empty list")
    if obj[0] != kind:
        raise MalformedMessageError(f"{kind}: wrong message kind {str(obj[0])[:40]!r}")
    if len(obj) != length:
        raise MalformedMessageError(f"{kind}: expected {length} items, got {len(obj)}")
    return obj


def _check_int(obj: object, low: int, high: int, field: str) -> int:
    if type(obj) is not int or not low <= obj < high:
        raise MalformedMessageError(f"{field}: expected an int in [{low}, {high})")
    return obj


def _check_position(position: int) -> None:
    if type(position) is not int or not 0 <= position < MAX_POOL:
        raise LocalProtocolError(f"position {position!r} outside [0, {MAX_POOL})")


@dataclass(frozen=True)
class KeyShare:
    """["deal/key-share", Y (32 bytes), [challenge, response]]."""

    KIND: ClassVar[str] = "deal/key-share"
    key: Point
    proof: Proof

    def to_wire(self) -> list[object]:
        return [self.KIND, self.key.encoded, self.proof.to_wire()]

    @classmethod
    def from_wire(cls, obj: object) -> KeyShare:
        _, key, proof = _check_frame(obj, cls.KIND, 3)
        return cls(Point.from_wire(key, "key-share.key"), Proof.from_wire(proof, "key-share.proof"))


@dataclass(frozen=True)
class Shuffle:
    """["deal/shuffle", step, [[a, b] × N], proof] with proof as ShuffleProof.to_wire()."""

    KIND: ClassVar[str] = "deal/shuffle"
    step: int
    outputs: tuple[Ciphertext, ...]
    proof: ShuffleProof

    def __post_init__(self) -> None:
        if self.step not in (0, 1) or len(self.outputs) != len(self.proof.perm_commitments):
            raise LocalProtocolError("a Shuffle has step 0 or 1 and one output per commitment")

    def to_wire(self) -> list[object]:
        return [self.KIND, self.step, [ct.to_wire() for ct in self.outputs], self.proof.to_wire()]

    @classmethod
    def from_wire(cls, obj: object, *, ours: bool = False) -> Shuffle:
        """`ours`: our own message read back (`Point.from_wire`): no subgroup checks."""
        _, step, outputs, proof = _check_frame(obj, cls.KIND, 4)
        step = _check_int(step, 0, 2, "shuffle.step")
        if not isinstance(outputs, list | tuple) or not 1 <= len(outputs) <= MAX_POOL:
            raise MalformedMessageError(f"shuffle.outputs: a list of 1 to {MAX_POOL} ciphertexts")
        parsed = tuple(
            Ciphertext.from_wire(ct, f"shuffle.outputs[{i}]", ours=ours)
            for i, ct in enumerate(outputs)
        )
        return cls(step, parsed,
                   ShuffleProof.from_wire(proof, len(parsed), "shuffle.proof", ours=ours))


@dataclass(frozen=True)
class DrawShare:
    """["deal/draw-share", position, D (32 bytes), [challenge, response]]."""

    KIND: ClassVar[str] = "deal/draw-share"
    position: int
    share: Point
    proof: Proof

    def __post_init__(self) -> None:
        _check_position(self.position)

    def to_wire(self) -> list[object]:
        return [self.KIND, self.position, self.share.encoded, self.proof.to_wire()]

    @classmethod
    def from_wire(cls, obj: object, *, ours: bool = False) -> DrawShare:
        """`ours` as in `Shuffle.from_wire`."""
        _, position, share, proof = _check_frame(obj, cls.KIND, 4)
        return cls(
            _check_int(position, 0, MAX_POOL, "draw-share.position"),
            Point.from_wire(share, "draw-share.share", ours=ours),
            Proof.from_wire(proof, "draw-share.proof"),
        )


@dataclass(frozen=True)
class Reveal:
    """["deal/reveal", position, card id (str), D (32 bytes), [challenge, response]]."""

    KIND: ClassVar[str] = "deal/reveal"
    position: int
    card_id: str
    share: Point
    proof: Proof

    def __post_init__(self) -> None:
        _check_position(self.position)
        try:
            check_card_id(self.card_id, "reveal.card_id")
        except MalformedMessageError as exc:
            raise LocalProtocolError(str(exc)) from exc

    def to_wire(self) -> list[object]:
        return [self.KIND, self.position, self.card_id, self.share.encoded, self.proof.to_wire()]

    @classmethod
    def from_wire(cls, obj: object, *, ours: bool = False) -> Reveal:
        """`ours` as in `Shuffle.from_wire`."""
        _, position, card_id, share, proof = _check_frame(obj, cls.KIND, 5)
        return cls(
            _check_int(position, 0, MAX_POOL, "reveal.position"),
            check_card_id(card_id, "reveal.card_id"),
            Point.from_wire(share, "reveal.share", ours=ours),
            Proof.from_wire(proof, "reveal.proof"),
        )


@dataclass(frozen=True)
class EndReveal:
    """["deal/end-reveal", x (32-byte scalar)]: the sender's secret key share."""

    KIND: ClassVar[str] = "deal/end-reveal"
    secret: int

    def __post_init__(self) -> None:
        encode_scalar(self.secret)

    def to_wire(self) -> list[object]:
        return [self.KIND, encode_scalar(self.secret)]

    @classmethod
    def from_wire(cls, obj: object) -> EndReveal:
        _, secret = _check_frame(obj, cls.KIND, 2)
        return cls(decode_scalar(secret, "end-reveal.secret"))


DealMessage = KeyShare | Shuffle | DrawShare | Reveal | EndReveal
_MESSAGE_TYPES: dict[str, type[DealMessage]] = {
    t.KIND: t for t in (KeyShare, Shuffle, DrawShare, Reveal, EndReveal)
}


def parse_message(obj: object) -> DealMessage:
    """Decode any deal message from its msgpack-level form (validating everything)."""
    if not isinstance(obj, list | tuple) or not obj or not isinstance(obj[0], str):
        raise MalformedMessageError("deal message: expected a list starting with its kind")
    message_type = _MESSAGE_TYPES.get(obj[0])
    if message_type is None:
        raise MalformedMessageError(f"deal message: unknown kind {obj[0][:40]!r}")
    return message_type.from_wire(obj)


# --- checks of the peer's messages -------------------------------------------------------------
# Pure functions: SharedPoolDeal runs them on the peer's messages as they arrive, the offline
# auditor (protocol/deals/dealers.py PoolAudit) on both seats' messages from the transcript.


# The proof labels: each proof is bound to its step and position (SPEC Part 5).


def key_label(seat: int) -> str:
    return f"key-share/{seat}"


def shuffle_label(seat: int) -> str:
    return f"shuffle/{seat}"


def draw_label(position: int) -> str:
    return f"draw/{position}"


def reveal_label(position: int) -> str:
    return f"reveal/{position}"


def verify_key_share(message: KeyShare, seat: int, other_key: Point | None, match_id: bytes,
                     identity: bytes, ledger: NonceLedger) -> None:
    """Seat's key share: not an echo of the other seat's key, and its Schnorr proof (the proof's
    nonce goes into the seat's ledger)."""
    if message.key == other_key:
        raise CryptoProofError("key-share.key: the peer echoed our own key share")
    commitment = schnorr_verify(
        message.proof, message.key, match_id, key_label(seat), identity, "key-share.proof",
    )  # fmt: skip
    ledger.record(commitment, "key-share.proof")


def verify_shuffle_proof(pool: Sequence[Ciphertext], message: Shuffle, joint_key: Point,
                         match_id: bytes, seat: int, identity: bytes, ledger: NonceLedger
                         ) -> None:
    """Seat's shuffle proof that `message.outputs` re-encrypt and permute `pool`."""
    t1, t2 = verify_shuffle(
        pool, message.outputs, message.proof, joint_key, shuffle_generators(match_id, len(pool)),
        match_id, shuffle_label(seat), identity, "shuffle.proof",
    )  # fmt: skip
    ledger.record(t1, "shuffle.proof.t1")
    ledger.record(t2, "shuffle.proof.t2")


def verify_decryption_share(ciphertext: Ciphertext, key: Point, share: Point, proof: Proof,
                            match_id: bytes, label: str, identity: bytes, ledger: NonceLedger
                            ) -> None:
    """The Chaum–Pedersen proof that `share` is the decryption share of the key's owner."""
    commitment = dleq_verify(
        proof, key, ciphertext.a, share, match_id, label, identity,
        (ciphertext.a, ciphertext.b), f"{label}.proof",
    )  # fmt: skip
    ledger.record(commitment, f"{label}.proof")


def decrypt_card(table: dict[bytes, str], ciphertext: Ciphertext, share0: Point, share1: Point,
                 position: int, field: str) -> str:
    """The card id a pool position decrypts to with both shares (CryptoProofError if none)."""
    card_id = table.get(combine(ciphertext, share0, share1).encoded)
    if card_id is None:  # unreachable past sound proofs; a precise error all the same
        raise CryptoProofError(f"{field}: position {position} decrypts to no card of the pool")
    return card_id


def check_named_card(position: int, card_id: str, named: str) -> None:
    if card_id != named:
        raise CardMismatchError(
            f"reveal.card_id: position {position} holds {card_id!r}, the peer named {named!r}"
        )


def check_message_position(got: int, expected: int, kind: str) -> None:
    if got != expected:
        raise UnexpectedMessageError(f"{kind}.position: got {got}, expected {expected}")


def check_end_secret(message: EndReveal, key: Point | None) -> None:
    if base_mul(message.secret) != key:
        raise CryptoProofError("end-reveal.secret: does not match the peer's key share")


# --- the two-party deal -----------------------------------------------------------------------

_Result = TypeVar("_Result")


def _remote(method: Callable[..., _Result]) -> Callable[..., _Result]:
    """Mark the object failed when the peer's message breaks the protocol."""

    def wrapper(self: SharedPoolDeal, *args: object) -> _Result:
        self._require_alive()
        try:
            return method(self, *args)
        except RemoteProtocolError:
            self._phase = DealPhase.FAILED
            raise

    wrapper.__name__ = method.__name__
    wrapper.__doc__ = method.__doc__
    return wrapper


class SharedPoolDeal:
    """One player's side of the shared-pool deal (see the module comment for the flow)."""

    def __init__(
        self,
        role: int,
        match_id: bytes,
        identities: tuple[bytes, bytes],
        pool_card_ids: Sequence[str],
        rng: Rng,
    ) -> None:
        if role not in (0, 1):
            raise LocalProtocolError("role must be 0 or 1")
        if not isinstance(match_id, bytes) or not 1 <= len(match_id) <= MAX_MATCH_ID:
            raise LocalProtocolError(f"match id must be 1 to {MAX_MATCH_ID} bytes")
        if len(identities) != 2 or any(
            not isinstance(i, bytes) or len(i) != IDENTITY_SIZE for i in identities
        ):
            raise LocalProtocolError("identities must be two 32-byte Ed25519 public keys")
        if identities[0] == identities[1]:
            raise LocalProtocolError("the two identities must differ")
        card_ids = tuple(pool_card_ids)
        for card_id in card_ids:
            try:
                check_card_id(card_id, "pool")
            except MalformedMessageError as exc:
                raise LocalProtocolError(str(exc)) from exc
        if not 2 <= len(card_ids) <= MAX_POOL:
            raise LocalProtocolError(f"the pool holds 2 to {MAX_POOL} cards")

        self.role = role
        self.match_id = match_id
        self.identities = identities
        self.pool_card_ids = card_ids
        self._rng = rng
        self._table = card_table(match_id, card_ids)  # also rejects duplicate card ids
        self._pool: tuple[Ciphertext, ...] = tuple(
            trivial_encryption(Point(encoded)) for encoded in self._table
        )
        self._phase = DealPhase.KEYS
        self._secret = random_scalar(rng)
        self._keys: list[Point | None] = [None, None]
        self._keys[role] = base_mul(self._secret)
        self._key_share_sent = False
        self._witness_sent = False
        self._own_ledger = NonceLedger(remote=False)
        self._peer_ledger = NonceLedger(remote=True)
        self._known: dict[int, str] = {}  # position → card id, for cards I know
        self._owners: dict[int, int] = {}  # position → the player it was dealt to
        self._shares_sent: set[int] = set()  # positions I sent a draw share for
        self._revealed: set[int] = set()  # positions made public (by either side)
        self._end_sent = False
        self._peer_secret: int | None = None

    # --- public state ---------------------------------------------------------------------

    @property
    def phase(self) -> DealPhase:
        return self._phase

    @property
    def peer(self) -> int:
        return 1 - self.role

    @property
    def joint_key(self) -> Point:
        self._require_keys()
        return self._keys[0] + self._keys[1]  # type: ignore[operator]

    @property
    def pool(self) -> tuple[Ciphertext, ...]:
        """The current public pool (the dealt order once phase is DEALT)."""
        return self._pool

    @property
    def known_cards(self) -> dict[int, str]:
        """position → card id for every card this player knows (own draws and public reveals)."""
        return dict(self._known)

    def owner_of(self, position: int) -> int | None:
        """The player `position` was dealt to, None while it is undealt."""
        if type(position) is not int or not 0 <= position < len(self.pool_card_ids):
            raise LocalProtocolError(f"position {position!r} outside the pool")
        return self._owners.get(position)

    def _deal_to(self, position: int, player: int) -> None:
        """Record who receives `position` (the caller decides: our own misuse if dealt twice)."""
        if self.owner_of(position) is not None:
            raise LocalProtocolError(f"position {position} was dealt already")
        self._owners[position] = player

    # --- 1. key shares --------------------------------------------------------------------

    def key_share(self) -> KeyShare:
        self._require_phase(DealPhase.KEYS, "key_share")
        if self._key_share_sent:
            raise LocalProtocolError("key share already sent")
        proof, commitment = schnorr_prove(
            self._secret, self.match_id, key_label(self.role), self.identities[self.role],
            self._rng,
        )  # fmt: skip
        self._own_ledger.record(commitment, "key-share")
        self._key_share_sent = True
        self._advance_after_keys()
        return KeyShare(self._keys[self.role], proof)  # type: ignore[arg-type]

    @_remote
    def accept_key_share(self, message: KeyShare) -> None:
        self._expect(message, KeyShare, DealPhase.KEYS)
        if self._keys[self.peer] is not None:
            raise UnexpectedMessageError("key-share: the peer's key share arrived twice")
        verify_key_share(message, self.peer, self._keys[self.role], self.match_id,
                         self.identities[self.peer], self._peer_ledger)
        self._keys[self.peer] = message.key
        if self.joint_key.is_identity:  # impossible with a sound proof; checked all the same
            raise CryptoProofError("key-share.key: the joint key is the identity")
        self._advance_after_keys()

    # --- 2./3. shuffles -------------------------------------------------------------------

    def shuffle(self) -> Shuffle:
        self._require_phase(_SHUFFLE_TURN[self.role], "shuffle")
        joint_key = self.joint_key
        outputs, witness = shuffle(self._pool, joint_key, self._rng)
        proof = prove_shuffle(
            self._pool, outputs, witness, joint_key, self._generators(), self.match_id,
            shuffle_label(self.role), self.identities[self.role], self._rng,
        )  # fmt: skip
        self._pool = outputs
        self._advance(f"shuffle {self.role}")
        return Shuffle(self.role, outputs, proof)

    @_remote
    def accept_shuffle(self, message: Shuffle) -> None:
        self._expect(message, Shuffle, _SHUFFLE_TURN[self.peer])
        if message.step != self.peer:
            raise UnexpectedMessageError(f"shuffle.step: {message.step}, expected {self.peer}")
        if len(message.outputs) != len(self._pool):
            raise MalformedMessageError(
                f"shuffle.outputs: {len(message.outputs)} ciphertexts, pool has {len(self._pool)}"
            )
        verify_shuffle_proof(self._pool, message, self.joint_key, self.match_id, self.peer,
                             self.identities[self.peer], self._peer_ledger)
        self._pool = message.outputs
        self._advance(f"shuffle {self.peer}")

    # --- 4. draws and reveals -------------------------------------------------------------

    def draw_share(self, position: int) -> DrawShare:
        """My decryption share of a card the peer draws (it alone learns the card)."""
        self._require_dealt("draw_share")
        self._deal_to(position, self.peer)
        share, proof = self._prove_share(position, draw_label(position))
        self._shares_sent.add(position)
        return DrawShare(position, share, proof)

    @_remote
    def accept_draw_share(self, position: int, message: DrawShare) -> str:
        """Check the peer's share for one of my cards; return the card id I drew."""
        self._expect(message, DrawShare, DealPhase.DEALT)
        if self.owner_of(position) is not None:
            raise LocalProtocolError(f"position {position} was dealt already")
        check_message_position(message.position, position, "draw-share")
        self._verify_peer_share(message.share, message.proof, position, draw_label(position))
        own_share = decryption_share(self._secret, self._pool[position])
        card_id = self._decrypt(position, message.share, own_share, "draw-share")
        self._owners[position] = self.role
        self._known[position] = card_id
        return card_id

    def reveal(self, position: int) -> Reveal:
        """Make one of my drawn cards public: my share, its proof and the card id."""
        self._require_dealt("reveal")
        if self.owner_of(position) != self.role:
            raise LocalProtocolError(f"position {position} was not dealt to me")
        if position not in self._known:
            raise LocalProtocolError(f"position {position} not drawn yet: draw it before revealing")
        if position in self._revealed:
            raise LocalProtocolError(f"position {position} already revealed")
        share, proof = self._prove_share(position, reveal_label(position))
        self._revealed.add(position)
        return Reveal(position, self._known[position], share, proof)

    @_remote
    def accept_reveal(self, position: int, message: Reveal) -> str:
        """Check the peer's public reveal of one of its drawn cards; return the card id."""
        self._expect(message, Reveal, DealPhase.DEALT)
        if self.owner_of(position) not in (self.peer, None):
            raise LocalProtocolError(f"position {position} was not dealt to the peer")
        check_message_position(message.position, position, "reveal")
        if position in self._revealed:
            raise UnexpectedMessageError(f"reveal: position {position} already revealed")
        if position not in self._shares_sent:
            # Without my draw share the owner cannot know the card: it would be guessing, and a
            # wrong guess would make me name the real card in the CardMismatchError evidence.
            raise UnexpectedMessageError(
                f"reveal: position {position} was never drawn (I sent no draw share for it)"
            )
        self._verify_peer_share(
            message.share, message.proof, position, reveal_label(position)
        )
        own_share = decryption_share(self._secret, self._pool[position])
        card_id = self._decrypt(position, message.share, own_share, "reveal")
        check_named_card(position, card_id, message.card_id)
        self._revealed.add(position)
        self._known[position] = card_id
        return card_id

    # --- 5. end of match ------------------------------------------------------------------

    def end_reveal(self) -> EndReveal:
        """Publish my secret key share; afterwards I produce no more shares or reveals."""
        self._require_dealt("end_reveal")
        if self._end_sent:
            raise LocalProtocolError("end reveal already sent")
        self._end_sent = True
        return EndReveal(self._secret)

    @_remote
    def accept_end_reveal(self, message: EndReveal) -> tuple[str, ...]:
        """Check the peer's secret against its key share; return the whole pool's card ids."""
        self._expect(message, EndReveal, DealPhase.DEALT)
        if self._peer_secret is not None:
            raise UnexpectedMessageError("end-reveal: the peer's secret arrived twice")
        check_end_secret(message, self._keys[self.peer])
        self._peer_secret = message.secret
        # both secrets known: one multiplication by x0 + x1 per card instead of one per share
        joint_secret = (message.secret + self._secret) % L
        return tuple(
            self._decrypt(
                position, decryption_share(joint_secret, ciphertext), Point.IDENTITY, "end-reveal"
            )
            for position, ciphertext in enumerate(self._pool)
        )

    # --- helpers --------------------------------------------------------------------------

    def _prove_share(self, position: int, label: str) -> tuple[Point, Proof]:
        if self._end_sent:
            raise LocalProtocolError("my secret is already public: no more shares")
        ciphertext = self._pool[position]
        share, proof, commitment = dleq_prove(
            self._secret, ciphertext.a, self.match_id, label, self.identities[self.role],
            (ciphertext.a, ciphertext.b), self._rng,
        )  # fmt: skip
        self._own_ledger.record(commitment, label)
        return share, proof

    def _verify_peer_share(self, share: Point, proof: Proof, position: int, label: str) -> None:
        if self._peer_secret is not None:
            raise UnexpectedMessageError(f"{label}: the peer already revealed its secret")
        verify_decryption_share(
            self._pool[position], self._keys[self.peer], share, proof, self.match_id, label,  # type: ignore[arg-type]
            self.identities[self.peer], self._peer_ledger,
        )  # fmt: skip

    def _decrypt(self, position: int, share0: Point, share1: Point, field: str) -> str:
        return decrypt_card(self._table, self._pool[position], share0, share1, position, field)

    def _advance_after_keys(self) -> None:
        if self._key_share_sent and self._keys[self.peer] is not None:
            self._advance("both key shares")

    def _advance(self, event: str) -> None:
        self._phase = _TRANSITIONS[(self._phase, event)]

    def _generators(self) -> Generators:
        return shuffle_generators(self.match_id, len(self._pool))

    def _require_alive(self) -> None:
        if self._phase is DealPhase.FAILED:
            raise LocalProtocolError("the deal failed earlier: the peer broke the protocol")

    def _require_phase(self, phase: DealPhase, action: str) -> None:
        self._require_alive()
        if self._phase is not phase:
            raise LocalProtocolError(f"{action} not allowed in phase {self._phase.value}")

    def _require_dealt(self, action: str) -> None:
        self._require_phase(DealPhase.DEALT, action)

    def _require_keys(self) -> None:
        if self._keys[0] is None or self._keys[1] is None:
            raise LocalProtocolError("the joint key needs both key shares")

    def _expect(self, message: object, kind: type, phase: DealPhase) -> None:
        if not isinstance(message, kind):
            raise LocalProtocolError(f"expected a {kind.__name__}, got {type(message).__name__}")
        if self._phase is not phase:
            raise UnexpectedMessageError(
                f"{kind.KIND}: not expected in phase {self._phase.value}"  # type: ignore[attr-defined]
            )
