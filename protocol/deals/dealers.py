# The two deal modes as the match state machine uses them: what each seat keeps secret, and
# what anyone (the peer, an auditor) checks in public.
#
# Each mode has a public side, fed every deal message of both seats in chain order (the same
# checks for our own messages and the peer's, as h11's "Rule 2"), and a private side that only a
# live peer has (its secrets, used to produce messages and to learn its own cards):
#
#   decklist     DecklistAudit (public: DeckAudit + DrawAudit per seat, the decklist
#                commitment)  |  DecklistHand (private: SecretDeck, DrawOrder, decklist + salt)
#   shared pool  PoolAudit (public: every Schnorr, shuffle and DLEQ proof re-verified from the
#                transcript; decrypts a revealed card from the two public shares)  |  PoolLive
#                (private: protocol.pool.SharedPoolDeal, which also checks the peer's messages);
#                both in protocol/deals/pool_sides.py, imported only for a shared-pool match
#
# A live peer checks the peer's pool messages through SharedPoolDeal (so nothing is verified
# twice); an auditor runs PoolAudit over both seats. Both raise the same classes and codes
# (CryptoProofError, CardMismatchError, UnexpectedMessageError), so evidence that a live peer
# seals re-checks identically in the verifier.
from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from versus.protocol.crypto.commitment import (
    DeckAudit,
    DeckCommitment,
    DrawAudit,
    DrawOrder,
    Opening,
    Rng,
    SecretDeck,
    decklist_hash,
)
from versus.protocol.errors import (
    CommitmentMismatch,
    DecklistViolation,
    IllegalAction,
    LocalProtocolError,
    MalformedMessage,
)
from versus.protocol.wire.canonical import HASH_SIZE, TAG_DECKLIST_COMMIT, encode, tagged_hash

# --- decklist mode --------------------------------------------------------------------------


def decklist_entries(decklist: Mapping[str, int]) -> list[list[object]]:
    """[card, count] pairs sorted by canonical encoding (as decklist_hash orders them)."""
    return sorted(([card, count] for card, count in decklist.items()), key=encode)


def decklist_commitment(match_id: bytes, seat: int, decklist: Mapping[str, int], salt: bytes
                        ) -> bytes:
    """Salted, match-bound commitment to a decklist: fixes it at COMMIT, hides it until the end."""
    return tagged_hash(TAG_DECKLIST_COMMIT, match_id, seat, decklist_entries(decklist), salt)


class DecklistHand:
    """One seat's decklist secrets: its deck in a secret order with salts, the seed of the order
    in which it draws the opponent's slots, and its decklist with the commitment's salt.
    `opponent_size`: the cards of the opponent's deck (the draw order's length); None: as many
    as ours (the decks of the two seats may differ, SPEC §4.7)."""

    def __init__(self, match_id: bytes, seat: int, cards: Sequence[str], rng: Rng, *,
                 opponent_size: int | None = None) -> None:
        # the group module (and libsodium's group bindings) load only when a deck is dealt, so
        # verifying a transcript does not pay for them (start-up)
        from versus.protocol.crypto.group import random_permutation

        order = random_permutation(rng, len(cards))
        shuffled = [cards[i] for i in order]
        self.decklist: Counter[str] = Counter(cards)
        self.deck = SecretDeck.commit(match_id, seat, shuffled, rng)
        self.draw_order = DrawOrder(match_id, seat, 1 - seat,
                                    len(cards) if opponent_size is None else opponent_size, rng)
        self.salt = rng(HASH_SIZE)
        self.commitment = decklist_commitment(match_id, seat, self.decklist, self.salt)

    def commit_body(self) -> list[object]:
        return [self.deck.public.body(), self.draw_order.commitment, self.commitment]

    def secret_body(self) -> list[object]:
        return [
            [opening.body() for opening in self.deck.open_all()],
            self.draw_order.seed,
            decklist_entries(self.decklist),
            self.salt,
        ]


class DecklistAudit:
    """The public record of both decks: every check of SPEC §4.7-4.8, for both seats.
    `sizes`: the cards of each seat's deck, by seat (they may differ: a match that starts from a
    position); `card_ids`: what a deck may hold; `firsts`: the handle of each seat's slot 0 (the
    game's hidden decks), so slot s of seat p's deck is the game's card firsts[p] + s."""

    def __init__(self, match_id: bytes, sizes: tuple[int, int], card_ids: Collection[str],
                 registered: tuple[bytes | None, bytes | None],
                 firsts: tuple[int, int]) -> None:
        self.match_id, self.sizes, self.card_ids = match_id, tuple(sizes), frozenset(card_ids)
        self.registered, self.firsts = registered, firsts
        self.decks: list[DeckAudit | None] = [None, None]  # by owner
        self.orders: list[DrawAudit | None] = [None, None]  # by owner (chooser = 1 - owner)
        self.list_commitments: list[bytes | None] = [None, None]
        self.decklists: list[dict[str, int] | None] = [None, None]

    def commit(self, seat: int, parts: Sequence[object], evidence: Sequence[bytes]) -> None:
        if len(parts) != 3:
            raise MalformedMessage("a decklist COMMIT carries [deck, draw-seed, decklist] "
                                   "commitments", evidence, player=seat)
        deck_body, seed_commitment, list_commitment = parts
        deck = DeckCommitment.from_body(self.match_id, seat, deck_body, evidence)
        if len(deck) != self.sizes[seat]:
            raise IllegalAction(f"seat {seat} committed {len(deck)} cards, the ruleset's deck "
                                f"has {self.sizes[seat]} for seat {seat}", evidence, player=seat)
        if type(list_commitment) is not bytes or len(list_commitment) != HASH_SIZE:
            raise MalformedMessage("a decklist commitment is 32 bytes", evidence, player=seat)
        try:
            order = DrawAudit(self.match_id, seat, 1 - seat, self.sizes[1 - seat],
                              seed_commitment)  # type: ignore[arg-type]
        except MalformedMessage as error:
            raise MalformedMessage(str(error), evidence, player=seat) from None
        self.decks[seat] = DeckAudit(deck)
        self.orders[1 - seat] = order
        self.list_commitments[seat] = list_commitment

    def draw(self, chooser: int, slot: object, evidence: Sequence[bytes]) -> int:
        """The handle the chooser's announced slot of the opponent's deck stands for."""
        owner = 1 - chooser
        order = self.orders[owner]
        assert order is not None
        return self.firsts[owner] + order.announce(slot, evidence)

    def open(self, owner: int, parts: Sequence[object], evidence: Sequence[bytes], *,
             expected_slot: int | None = None) -> Opening:
        """Check and record one opening; `expected_slot`: the slot the pending reveal asks for
        (checked before anything is recorded)."""
        opening = Opening.from_body(list(parts), evidence, owner)
        if expected_slot is not None and opening.slot != expected_slot:
            raise IllegalAction(f"OPEN of slot {opening.slot}; the pending reveal is of slot "
                                f"{expected_slot}", evidence, player=owner)
        deck = self.decks[owner]
        assert deck is not None
        deck.record(opening, evidence)
        return opening

    def secrets(self, seat: int, parts: Sequence[object], evidence: Sequence[bytes]) -> None:
        """SECRET_REVEAL: seat's every opening, its draw seed, its decklist and salt."""
        if len(parts) != 4 or not isinstance(parts[0], list) or not isinstance(parts[2], list):
            raise MalformedMessage("a decklist SECRET_REVEAL is [openings, draw seed, decklist, "
                                   "salt]", evidence, player=seat)
        openings, seed, entries, salt = parts
        decklist = self._decklist(seat, entries, evidence)
        if type(salt) is not bytes or decklist_commitment(
            self.match_id, seat, decklist, salt
        ) != self.list_commitments[seat]:
            raise CommitmentMismatch(f"seat {seat}'s decklist does not match its commitment",
                                     evidence, player=seat)
        deck = self.decks[seat]
        assert deck is not None
        for body in openings:
            opening = Opening.from_body(body, evidence, seat)
            deck.record(opening, evidence)
            if opening.card not in self.card_ids:
                raise DecklistViolation(f"seat {seat}'s slot {opening.slot} holds "
                                        f"{opening.card!r}, not a catalogue card",
                                        evidence, player=seat)
        deck.finish(decklist, registered_hash=self.registered[seat], evidence=evidence)
        order = self.orders[1 - seat]
        assert order is not None
        order.finish(seed, evidence)
        self.decklists[seat] = decklist

    def _decklist(self, seat: int, entries: list[object], evidence: Sequence[bytes]
                  ) -> dict[str, int]:
        decklist: dict[str, int] = {}
        for entry in entries:
            if (not isinstance(entry, list) or len(entry) != 2 or type(entry[0]) is not str
                    or type(entry[1]) is not int or entry[1] < 1 or entry[0] in decklist):
                raise MalformedMessage(f"a decklist entry is [card, count >= 1], got "
                                       f"{entry!r:.80}", evidence, player=seat)
            decklist[entry[0]] = entry[1]
        if decklist_entries(decklist) != entries or sum(decklist.values()) != self.sizes[seat]:
            raise DecklistViolation(f"seat {seat}'s decklist is not {self.sizes[seat]} cards "
                                    f"(seat {seat}'s deck) in canonical order", evidence,
                                    player=seat)
        return decklist

    def deal(self) -> dict[int, str] | None:
        """handle -> card of both decks once both seats opened everything."""
        if any(d is None or len(d.opened) < size for d, size in zip(self.decks, self.sizes,
                                                                    strict=True)):
            return None
        out: dict[int, str] = {}
        for owner, deck in enumerate(self.decks):
            assert deck is not None
            for slot, card in deck.opened.items():
                out[self.firsts[owner] + slot] = str(card)
        return out


#: a deck error names at most this many unknown ids, each cut to SHOWN_ID_CHARS characters
SHOWN_BAD_IDS = 5
SHOWN_ID_CHARS = 40


def check_decklist(card_ids: Collection[str], cards: Sequence[str], deck_size: int,
                   registered: bytes | None, *, seat: int | None = None) -> None:
    """Our own deck before we commit to it (LocalProtocolError: our own misuse). `deck_size`:
    the cards of our seat's deck; `seat`, when given, is named in the message."""
    if len(cards) != deck_size or any(card not in card_ids for card in cards):
        raise LocalProtocolError(deck_problem(card_ids, cards, deck_size, seat=seat))
    if registered is not None and decklist_hash(Counter(cards)) != registered:
        raise LocalProtocolError("our deck does not match the registered decklist hash")


def deck_problem(card_ids: Collection[str], cards: Sequence[str], deck_size: int, *,
                 seat: int | None = None) -> str:
    """What is wrong with a deck, the offending ids first: the whole list cut at a fixed length
    would hide a bad id at its end. `seat`, when given, is named with its size (the
    seats' decks may differ)."""
    unknown = list(dict.fromkeys(card for card in cards if card not in card_ids))
    problems = []
    if unknown:
        shown = ", ".join(repr(str(card)[:SHOWN_ID_CHARS]) for card in unknown[:SHOWN_BAD_IDS])
        more = len(unknown) - SHOWN_BAD_IDS
        problems.append(f"not in the catalogue: {shown}" + (f" and {more} more" if more > 0
                                                            else ""))
    if len(cards) != deck_size:
        problems.append(f"got {len(cards)} card{'' if len(cards) == 1 else 's'}")
    whose = "a deck" if seat is None else f"seat {seat}'s deck"
    return f"{whose} is {deck_size} catalogue card ids; " + "; ".join(problems)
