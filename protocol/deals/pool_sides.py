# The shared-pool sides of a match (SPEC Part 5), apart from the decklist side (dealers.py) so
# that a decklist match, and `versus verify` of one, never imports the mental-poker modules:
#   PoolLive   a live peer's side: SharedPoolDeal makes our messages and checks the peer's;
#   PoolAudit  the offline verifier's side: every proof re-verified from public data.
# MatchCore builds one or the other only when the rules deal from a shared pool.
from __future__ import annotations

from collections.abc import Sequence

from versus.protocol.crypto.elgamal import Ciphertext, card_table, trivial_encryption
from versus.protocol.crypto.group import CryptoProofError, L, Point
from versus.protocol.crypto.zkp import NonceLedger
from versus.protocol.deals.pool import (
    DrawShare,
    EndReveal,
    KeyShare,
    Reveal,
    SharedPoolDeal,
    Shuffle,
    UnexpectedMessageError,
    check_end_secret,
    check_message_position,
    check_named_card,
    decrypt_card,
    draw_label,
    reveal_label,
    verify_decryption_share,
    verify_key_share,
    verify_shuffle_proof,
)
from versus.protocol.errors import (
    MalformedMessage,
)

# --- shared-pool mode -----------------------------------------------------------------------


class PoolLive:
    """A live peer's side of the pool: SharedPoolDeal makes our messages and checks the peer's.
    Our own messages pass through unchecked (we made them); the peer's go to accept_*."""

    def __init__(self, deal: SharedPoolDeal) -> None:
        self.deal = deal
        self.full_deal: tuple[str, ...] | None = None

    def key_share(self, seat: int, message: KeyShare, own: bool) -> None:
        if not own:
            self.deal.accept_key_share(message)

    def shuffle(self, seat: int, message: Shuffle, own: bool) -> None:
        if message.step != seat:
            raise UnexpectedMessageError(f"shuffle.step: {message.step}, expected {seat}")
        if not own:
            self.deal.accept_shuffle(message)

    def draw(self, sender: int, position: int, message: DrawShare, own: bool) -> str | None:
        if own:
            return None
        return self.deal.accept_draw_share(position, message)

    def reveal(self, owner: int, position: int, message: Reveal, own: bool) -> str:
        if own:
            return message.card_id
        return self.deal.accept_reveal(position, message)

    def end_reveal(self, seat: int, message: EndReveal, own: bool) -> None:
        if not own:
            self.full_deal = self.deal.accept_end_reveal(message)


class PoolAudit:
    """The auditor's side of the pool: every proof of both seats re-verified from public data.

    A revealed card is decrypted from the two public shares of its position (the non-owner's
    draw share and the owner's reveal share): every revealed card was dealt, and a deal is
    always a draw share first (SPEC §5.6 step 6)."""

    def __init__(self, match_id: bytes, identities: tuple[bytes, bytes],
                 pool_ids: Sequence[str]) -> None:
        self.match_id, self.identities = match_id, identities
        self.pool_ids = tuple(pool_ids)
        self._table = card_table(match_id, self.pool_ids)
        self.pool: tuple[Ciphertext, ...] = tuple(
            trivial_encryption(Point(encoded)) for encoded in self._table
        )
        self.keys: list[Point | None] = [None, None]
        self.ledgers = (NonceLedger(remote=True), NonceLedger(remote=True))
        self.draw_shares: dict[int, Point] = {}
        self.secrets: list[int | None] = [None, None]
        self.full_deal: tuple[str, ...] | None = None

    def _joint(self) -> Point:
        return self.keys[0] + self.keys[1]  # type: ignore[operator]

    def key_share(self, seat: int, message: KeyShare, own: bool) -> None:
        verify_key_share(message, seat, self.keys[1 - seat], self.match_id,
                         self.identities[seat], self.ledgers[seat])
        self.keys[seat] = message.key
        if self.keys[1 - seat] is not None and self._joint().is_identity:
            raise CryptoProofError("key-share.key: the joint key is the identity")

    def shuffle(self, seat: int, message: Shuffle, own: bool) -> None:
        if message.step != seat:
            raise UnexpectedMessageError(f"shuffle.step: {message.step}, expected {seat}")
        if len(message.outputs) != len(self.pool):
            raise MalformedMessage(f"shuffle.outputs: {len(message.outputs)} ciphertexts, pool "
                                   f"has {len(self.pool)}")
        verify_shuffle_proof(self.pool, message, self._joint(), self.match_id, seat,
                             self.identities[seat], self.ledgers[seat])
        self.pool = message.outputs

    def draw(self, sender: int, position: int, message: DrawShare, own: bool) -> str | None:
        check_message_position(message.position, position, "draw-share")
        self._verify_share(sender, position, message.share, message.proof, draw_label(position))
        self.draw_shares[position] = message.share
        return None

    def reveal(self, owner: int, position: int, message: Reveal, own: bool) -> str:
        check_message_position(message.position, position, "reveal")
        self._verify_share(owner, position, message.share, message.proof, reveal_label(position))
        other = self.draw_shares.get(position)
        if other is None:
            raise UnexpectedMessageError(f"reveal: position {position} was never drawn")
        card = decrypt_card(self._table, self.pool[position], other, message.share, position,
                            "reveal")
        check_named_card(position, card, message.card_id)
        return card

    def end_reveal(self, seat: int, message: EndReveal, own: bool) -> None:
        check_end_secret(message, self.keys[seat])
        self.secrets[seat] = message.secret
        if self.secrets[0] is not None and self.secrets[1] is not None:
            x = (self.secrets[0] + self.secrets[1]) % L
            self.full_deal = tuple(
                self._table.get((ct.b - ct.a * x).encoded, "?") for ct in self.pool
            )

    def _verify_share(self, seat: int, position: int, share: Point, proof: object,
                      label: str) -> None:
        verify_decryption_share(self.pool[position], self.keys[seat], share, proof,  # type: ignore[arg-type]
                                self.match_id, label, self.identities[seat], self.ledgers[seat])
