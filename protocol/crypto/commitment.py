# Commit-reveal hashing: coin flips, per-card deck commitments and the draw order.
#
# Every commitment is SHA-256(tag || encode([match_id, who, what..., secret])) with a 32-byte
# secret from the caller's rng. The tag separates purposes, the match id and the seat/slot stop a
# commitment from being copied into another match, another seat or another slot, and the 256-bit
# secret hides a value from a small set (a card id, a coin seed) and binds it.
#
# Coin flip (SPEC §4.6): each seat commits to a 32-byte seed, both commitments are exchanged,
# then both seeds are revealed and checked; the outcome is SHA-256 over both seeds. Because each
# commitment names its seat, a peer cannot echo ours back as its own. Whoever reveals last sees
# the outcome first and could walk away; the match state machine treats that as a forfeit.
#
# Decklist deal (SPEC §4.7): the owner commits to each card of its deck in a secret order
# (slot i -> card, salt_i) and publishes the list of commitments and its root. The opponent
# commits to a seed that fixes a permutation of the slots and announces the drawn slots one at a
# time; the owner opens a slot when the rules need its identity, checked at once. At the end
# everything is opened: every slot once, the multiset of cards within the decklist's counts
# (optionally against a registered decklist hash), and the draw seed against every announced
# position.
#
# Uniform integers come from a hash stream (counter-mode SHA-256) by rejection sampling, so a
# permutation or a choice among n is exactly uniform and reproducible by any auditor.
from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from versus.engine.hashing import fisher_yates
from versus.protocol.errors import (
    CommitmentMismatch,
    DecklistViolation,
    DuplicateCard,
    IllegalAction,
    LocalProtocolError,
    MalformedMessage,
)
from versus.protocol.wire.canonical import (
    HASH_SIZE,
    TAG_CARD_COMMIT,
    TAG_COIN_COMMIT,
    TAG_COIN_RESULT,
    TAG_DECK_ROOT,
    TAG_DECKLIST,
    TAG_DRAW_ORDER,
    TAG_DRAW_SEED_COMMIT,
    TAG_RANDOM_STREAM,
    encode,
    tagged_hash,
)

Rng = Callable[[int], bytes]
CardId = str | int

SECRET_SIZE = 32
MAX_DECK_SIZE = 1024
_SEATS = (0, 1)


def _fresh_secret(rng: Rng) -> bytes:
    secret = rng(SECRET_SIZE)
    if type(secret) is not bytes or len(secret) != SECRET_SIZE:
        raise LocalProtocolError(f"rng must return {SECRET_SIZE} bytes, got {secret!r:.80}")
    return secret


def _check_secret(secret: object, what: str, evidence: Sequence[bytes], player: int) -> bytes:
    if type(secret) is not bytes or len(secret) != SECRET_SIZE:
        raise MalformedMessage(
            f"{what} must be {SECRET_SIZE} bytes, got {secret!r:.80}", evidence, player=player
        )
    return secret


# --- uniform integers from a hash stream ----------------------------------------------------


class HashStream:
    """Counter-mode SHA-256 over (tag, label, key): a deterministic stream of uniform bytes."""

    def __init__(self, label: str, key: bytes, *, tag: bytes = TAG_RANDOM_STREAM) -> None:
        self._prefix = tag + encode([label, key])
        self._counter = 0
        self._buffer = b""

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size:
            block = hashlib.sha256(self._prefix + self._counter.to_bytes(8, "big")).digest()
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:size], self._buffer[size:]
        return out

    def below(self, bound: int) -> int:
        """A uniform integer in [0, bound): 64-bit draws, rejecting the biased tail."""
        if not 0 < bound <= 1 << 32:
            raise LocalProtocolError(f"bound must be in 1..2**32, got {bound}")
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = int.from_bytes(self.read(8), "big")
            if value < limit:
                return value % bound


# --- coin flip ------------------------------------------------------------------------------


def coin_commitment(match_id: bytes, seat: int, purpose: str, seed: bytes) -> bytes:
    return tagged_hash(TAG_COIN_COMMIT, match_id, seat, purpose, seed)


def coin_outcome(match_id: bytes, purpose: str, seed_0: bytes, seed_1: bytes) -> bytes:
    """The joint 32-byte outcome of a flip from both revealed seeds (seat order)."""
    return tagged_hash(TAG_COIN_RESULT, match_id, purpose, seed_0, seed_1)


class CoinFlip:
    """One commit-reveal flip from one seat's side, sans-IO.

    Order: send `commitment`, `receive_commitment(peer's)`, send `reveal()` (refused before
    the peer's commitment is in), `receive_reveal(peer's seed)`, then `outcome` / `below(n)`.
    `purpose` names the flip ("layout", "first-player", "chance/<n>") so one seed never serves
    two flips.
    """

    def __init__(self, match_id: bytes, seat: int, purpose: str, rng: Rng) -> None:
        if seat not in _SEATS:
            raise LocalProtocolError(f"seat must be 0 or 1, got {seat!r}")
        self.match_id = match_id
        self.seat = seat
        self.purpose = purpose
        self._seed = _fresh_secret(rng)
        self.commitment = coin_commitment(match_id, seat, purpose, self._seed)
        self._peer_commitment: bytes | None = None
        self._peer_seed: bytes | None = None

    @property
    def peer(self) -> int:
        return 1 - self.seat

    def receive_commitment(self, commitment: bytes, evidence: Sequence[bytes] = ()) -> None:
        if self._peer_commitment is not None:
            raise LocalProtocolError("the peer's commitment was already received")
        if type(commitment) is not bytes or len(commitment) != HASH_SIZE:
            raise MalformedMessage(
                f"a coin commitment is {HASH_SIZE} bytes, got {commitment!r:.80}",
                evidence,
                player=self.peer,
            )
        if commitment == self.commitment:
            raise CommitmentMismatch(
                "the peer echoed our own coin commitment", evidence, player=self.peer
            )
        self._peer_commitment = commitment

    def reveal(self) -> bytes:
        """Our seed, only once the peer is committed (revealing first would let it choose)."""
        if self._peer_commitment is None:
            raise LocalProtocolError("reveal only after the peer's commitment is received")
        return self._seed

    def receive_reveal(self, seed: bytes, evidence: Sequence[bytes] = ()) -> bytes:
        """Check the peer's seed against its commitment; return the outcome."""
        if self._peer_commitment is None:
            raise LocalProtocolError("the peer's commitment has not been received")
        seed = _check_secret(seed, "a coin seed", evidence, self.peer)
        if coin_commitment(self.match_id, self.peer, self.purpose, seed) != self._peer_commitment:
            raise CommitmentMismatch(
                f"seat {self.peer}'s coin seed for {self.purpose!r} does not match its "
                f"commitment",
                evidence,
                player=self.peer,
            )
        self._peer_seed = seed
        return self.outcome

    @property
    def outcome(self) -> bytes:
        if self._peer_seed is None:
            raise LocalProtocolError("the flip is not complete")
        seeds = (self._seed, self._peer_seed) if self.seat == 0 else (self._peer_seed, self._seed)
        return coin_outcome(self.match_id, self.purpose, *seeds)

    def below(self, bound: int) -> int:
        """A uniform integer in [0, bound) from the outcome (e.g. below(2) = first player)."""
        return HashStream(self.purpose, self.outcome).below(bound)


# --- per-card commitments -------------------------------------------------------------------


def card_commitment(match_id: bytes, owner: int, slot: int, card: CardId, salt: bytes) -> bytes:
    return tagged_hash(TAG_CARD_COMMIT, match_id, owner, slot, card, salt)


@dataclass(frozen=True)
class Opening:
    """What opens one slot: the card and the salt it was committed with."""

    slot: int
    card: CardId
    salt: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if type(self.slot) is not int or type(self.card) not in (str, int):
            raise LocalProtocolError(f"an opening is (int slot, str|int card), got {self!r}")
        if type(self.salt) is not bytes or len(self.salt) != SECRET_SIZE:
            raise LocalProtocolError(f"a salt is {SECRET_SIZE} bytes")

    def body(self) -> list[object]:
        return [self.slot, self.card, self.salt]

    @classmethod
    def from_body(cls, body: object, evidence: Sequence[bytes] = (), player: int = 0) -> Opening:
        """Parse a received [slot, card, salt]; MalformedMessage if it is not one."""
        if (
            not isinstance(body, list | tuple)
            or len(body) != 3
            or type(body[0]) is not int
            or type(body[1]) not in (str, int)
        ):
            raise MalformedMessage(
                f"an opening is [slot, card, salt], got {body!r:.120}", evidence, player=player
            )
        salt = _check_secret(body[2], "a salt", evidence, player)
        return cls(body[0], body[1], salt)


def decklist_hash(decklist: Mapping[CardId, int]) -> bytes:
    """A match-independent digest of a decklist (for registering it before a tournament)."""
    return tagged_hash(TAG_DECKLIST, _decklist_entries(decklist))


def _decklist_entries(decklist: Mapping[CardId, int]) -> list[list[object]]:
    # Sorted by canonical encoding so the digest does not depend on mapping order or on
    # mixing str and int ids.
    return sorted(([card, count] for card, count in decklist.items()), key=encode)


@dataclass(frozen=True)
class DeckCommitment:
    """The public side of a committed deck: one commitment per slot and the root over them."""

    match_id: bytes
    owner: int
    commitments: tuple[bytes, ...]

    def __post_init__(self) -> None:
        if self.owner not in _SEATS:
            raise LocalProtocolError(f"owner must be 0 or 1, got {self.owner!r}")
        if not 0 < len(self.commitments) <= MAX_DECK_SIZE or not all(
            type(c) is bytes and len(c) == HASH_SIZE for c in self.commitments
        ):
            raise LocalProtocolError(
                f"a deck is 1..{MAX_DECK_SIZE} commitments of {HASH_SIZE} bytes"
            )

    @property
    def root(self) -> bytes:
        return tagged_hash(TAG_DECK_ROOT, self.match_id, self.owner, list(self.commitments))

    def __len__(self) -> int:
        return len(self.commitments)

    @classmethod
    def from_body(
        cls, match_id: bytes, owner: int, body: object, evidence: Sequence[bytes] = ()
    ) -> DeckCommitment:
        """Parse a received DECK_COMMIT body [[commitment, ...], root]."""
        problem = None
        if not isinstance(body, list | tuple) or len(body) != 2:
            problem = "a deck commitment is [[commitment, ...], root]"
        elif not isinstance(body[0], list | tuple) or not 0 < len(body[0]) <= MAX_DECK_SIZE:
            problem = f"a deck has 1..{MAX_DECK_SIZE} commitments"
        elif not all(type(c) is bytes and len(c) == HASH_SIZE for c in body[0]):
            problem = f"each commitment is {HASH_SIZE} bytes"
        if problem is not None:
            raise MalformedMessage(problem, evidence, player=owner)
        deck = cls(match_id, owner, tuple(body[0]))
        if body[1] != deck.root:
            raise CommitmentMismatch(
                "the deck root does not match its commitments", evidence, player=owner
            )
        return deck

    def body(self) -> list[object]:
        return [list(self.commitments), self.root]

    def check_opening(self, opening: Opening, evidence: Sequence[bytes] = ()) -> CardId:
        """The card of a valid opening; CommitmentMismatch (or IllegalAction) otherwise."""
        if not 0 <= opening.slot < len(self.commitments):
            raise IllegalAction(
                f"slot {opening.slot} is outside the deck of {len(self.commitments)}",
                evidence,
                player=self.owner,
            )
        expected = self.commitments[opening.slot]
        actual = card_commitment(
            self.match_id, self.owner, opening.slot, opening.card, opening.salt
        )
        if actual != expected:
            raise CommitmentMismatch(
                f"seat {self.owner}'s opening of slot {opening.slot} as {opening.card!r} does "
                f"not match its commitment",
                evidence,
                player=self.owner,
            )
        return opening.card


@dataclass(frozen=True)
class SecretDeck:
    """The owner's side: the deck in its secret order with the salts. Never send it whole."""

    cards: tuple[CardId, ...]
    salts: tuple[bytes, ...] = field(repr=False)
    public: DeckCommitment

    @classmethod
    def commit(
        cls, match_id: bytes, owner: int, cards: Sequence[CardId], rng: Rng
    ) -> SecretDeck:
        """Commit to `cards` in the order given (the caller shuffles it with its own rng)."""
        for card in cards:
            if type(card) not in (str, int):
                raise LocalProtocolError(f"a card id is a str or an int, got {card!r:.60}")
        salts = tuple(_fresh_secret(rng) for _ in cards)
        commitments = tuple(
            card_commitment(match_id, owner, slot, card, salt)
            for slot, (card, salt) in enumerate(zip(cards, salts, strict=True))
        )
        return cls(tuple(cards), salts, DeckCommitment(match_id, owner, commitments))

    def open(self, slot: int) -> Opening:
        if not 0 <= slot < len(self.cards):
            raise LocalProtocolError(f"slot {slot} is outside the deck of {len(self.cards)}")
        return Opening(slot, self.cards[slot], self.salts[slot])

    def open_all(self) -> list[Opening]:
        return [self.open(slot) for slot in range(len(self.cards))]


class DeckAudit:
    """The opponent's record of a committed deck: openings checked as they come, the whole
    deck checked against the decklist at the end.

    When the decklist is known from the start, counts are enforced at every opening, so a third
    copy of a two-of is caught the moment it appears.
    """

    def __init__(
        self, deck: DeckCommitment, decklist: Mapping[CardId, int] | None = None
    ) -> None:
        self.deck = deck
        self.decklist = dict(decklist) if decklist is not None else None
        self._opened: dict[int, CardId] = {}
        self._evidence: dict[int, tuple[bytes, ...]] = {}

    @property
    def opened(self) -> Mapping[int, CardId]:
        return dict(self._opened)

    def record(self, opening: Opening, evidence: Sequence[bytes] = ()) -> CardId:
        """Check one opening now; returns the card. Re-opening a slot must give the same card."""
        card = self.deck.check_opening(opening, evidence)
        if opening.slot in self._opened:
            return card  # binding: a valid re-opening can only name the same card
        self._opened[opening.slot] = card
        self._evidence[opening.slot] = tuple(evidence)
        if self.decklist is not None:
            self._check_card_fits(card, self.decklist, evidence)
        return card

    def finish(
        self,
        decklist: Mapping[CardId, int] | None = None,
        *,
        registered_hash: bytes | None = None,
        evidence: Sequence[bytes] = (),
    ) -> Counter[CardId]:
        """The end-of-match check: every slot opened, cards within the decklist's counts,
        the decklist matching `registered_hash` when given. Returns the deck's card counts."""
        decklist = dict(decklist) if decklist is not None else self.decklist
        owner = self.deck.owner
        if decklist is None:
            raise LocalProtocolError("the decklist is needed for the final deck check")
        if registered_hash is not None and decklist_hash(decklist) != registered_hash:
            raise DecklistViolation(
                f"seat {owner}'s decklist does not match its registered hash",
                evidence,
                player=owner,
            )
        missing = [slot for slot in range(len(self.deck)) if slot not in self._opened]
        if missing:
            raise DecklistViolation(
                f"seat {owner} never opened slots {missing[:10]}", evidence, player=owner
            )
        counts: Counter[CardId] = Counter()
        for slot in range(len(self.deck)):
            card = self._opened[slot]
            counts[card] += 1
            self._check_count(card, counts[card], decklist, self._evidence[slot] or evidence)
        return counts

    def _check_card_fits(
        self, card: CardId, decklist: Mapping[CardId, int], evidence: Sequence[bytes]
    ) -> None:
        seen = sum(1 for c in self._opened.values() if c == card)
        self._check_count(card, seen, decklist, evidence)

    def _check_count(
        self, card: CardId, count: int, decklist: Mapping[CardId, int], evidence: Sequence[bytes]
    ) -> None:
        owner = self.deck.owner
        allowed = decklist.get(card, 0)
        if allowed == 0:
            raise DecklistViolation(
                f"seat {owner} opened {card!r}, which is not in its decklist",
                evidence,
                player=owner,
            )
        if count > allowed:
            raise DuplicateCard(
                f"seat {owner} opened {card!r} {count} times; its decklist allows {allowed}",
                evidence,
                player=owner,
            )


# --- draw order -----------------------------------------------------------------------------


def draw_seed_commitment(match_id: bytes, chooser: int, owner: int, seed: bytes) -> bytes:
    return tagged_hash(TAG_DRAW_SEED_COMMIT, match_id, chooser, owner, seed)


def draw_permutation(match_id: bytes, owner: int, seed: bytes, size: int) -> list[int]:
    """The order in which `owner`'s deck slots are drawn: a Fisher–Yates shuffle of
    range(size) driven by HashStream(TAG_DRAW_ORDER, [match_id, owner, seed])."""
    if not 0 < size <= MAX_DECK_SIZE:
        raise LocalProtocolError(f"a deck has 1..{MAX_DECK_SIZE} slots, got {size}")
    stream = HashStream("draw-order", encode([match_id, owner, seed]), tag=TAG_DRAW_ORDER)
    order = list(range(size))
    fisher_yates(order, stream.below)
    return order


class DrawOrder:
    """The chooser's side (the owner's opponent): the secret seed and the positions it fixes."""

    def __init__(self, match_id: bytes, chooser: int, owner: int, size: int, rng: Rng) -> None:
        if chooser not in _SEATS or owner not in _SEATS:
            raise LocalProtocolError("chooser and owner are seats 0 or 1")
        self.seed = _fresh_secret(rng)
        self.commitment = draw_seed_commitment(match_id, chooser, owner, self.seed)
        self._order = draw_permutation(match_id, owner, self.seed, size)
        self._drawn = 0

    def next_position(self) -> int:
        """The slot of the next draw (announce it in a DRAW message)."""
        if self._drawn >= len(self._order):
            raise LocalProtocolError("every slot has been drawn")
        position = self._order[self._drawn]
        self._drawn += 1
        return position


class DrawAudit:
    """The owner's (and an auditor's) record of announced draw positions, checked against the
    seed when it is revealed at the end."""

    def __init__(
        self, match_id: bytes, chooser: int, owner: int, size: int, commitment: bytes
    ) -> None:
        if type(commitment) is not bytes or len(commitment) != HASH_SIZE:
            raise MalformedMessage(
                f"a draw seed commitment is {HASH_SIZE} bytes", player=chooser
            )
        self.match_id, self.chooser, self.owner, self.size = match_id, chooser, owner, size
        self.commitment = commitment
        self._positions: list[int] = []
        self._evidence: list[tuple[bytes, ...]] = []

    @property
    def positions(self) -> tuple[int, ...]:
        return tuple(self._positions)

    def announce(self, position: object, evidence: Sequence[bytes] = ()) -> int:
        """Record the next announced slot: in range and not drawn before, checked now."""
        if type(position) is not int or not 0 <= position < self.size:
            raise IllegalAction(
                f"draw position {position!r:.40} is outside the deck of {self.size}",
                evidence,
                player=self.chooser,
            )
        if position in self._positions:
            raise IllegalAction(
                f"slot {position} was already drawn (draw {self._positions.index(position)})",
                evidence,
                player=self.chooser,
            )
        self._positions.append(position)
        self._evidence.append(tuple(evidence))
        return position

    def finish(self, seed: object, evidence: Sequence[bytes] = ()) -> None:
        """Check the revealed seed against the commitment and every announced position."""
        seed = _check_secret(seed, "a draw seed", evidence, self.chooser)
        expected = draw_seed_commitment(self.match_id, self.chooser, self.owner, seed)
        if expected != self.commitment:
            raise CommitmentMismatch(
                f"seat {self.chooser}'s draw seed does not match its commitment",
                evidence,
                player=self.chooser,
            )
        order = draw_permutation(self.match_id, self.owner, seed, self.size)
        for draw, (announced, proof) in enumerate(
            zip(self._positions, self._evidence, strict=True)
        ):
            if order[draw] != announced:
                raise CommitmentMismatch(
                    f"draw {draw} announced slot {announced}, the seed fixes slot {order[draw]}",
                    [*proof, *evidence],
                    player=self.chooser,
                )

