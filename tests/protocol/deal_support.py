# Shared helpers of the shared-pool deal tests: a reproducible rng and an honest deal driver.
from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable

import msgpack

from versus.protocol.deals.pool import DealMessage, SharedPoolDeal, parse_message

MATCH_ID = b"versus-test-match-0001"
IDENTITIES = (bytes(range(32)), bytes(range(32, 64)))


def seeded_rng(seed: bytes | str | int) -> Callable[[int], bytes]:
    """A deterministic byte stream (SHA-256 in counter mode) standing in for token_bytes."""
    key = repr(seed).encode()
    counter = itertools.count()

    def rng(n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(key + next(counter).to_bytes(8, "big")).digest()
        return out[:n]

    return rng


def over_the_wire(message: DealMessage) -> DealMessage:
    """Encode with msgpack and parse back, as the peer would receive it."""
    return parse_message(msgpack.unpackb(msgpack.packb(message.to_wire()), raw=False))


def make_pair(
    card_ids: list[str], seed: object = 0, match_id: bytes = MATCH_ID
) -> tuple[SharedPoolDeal, SharedPoolDeal]:
    return tuple(  # type: ignore[return-value]
        SharedPoolDeal(role, match_id, IDENTITIES, card_ids, seeded_rng((seed, role)))
        for role in (0, 1)
    )


def exchange_keys(p0: SharedPoolDeal, p1: SharedPoolDeal) -> None:
    k0, k1 = p0.key_share(), p1.key_share()
    p1.accept_key_share(over_the_wire(k0))
    p0.accept_key_share(over_the_wire(k1))


def run_shuffles(p0: SharedPoolDeal, p1: SharedPoolDeal) -> None:
    exchange_keys(p0, p1)
    p1.accept_shuffle(over_the_wire(p0.shuffle()))
    p0.accept_shuffle(over_the_wire(p1.shuffle()))


def draw_all(p0: SharedPoolDeal, p1: SharedPoolDeal, deck_size: int
             ) -> tuple[list[str], list[str]]:
    """Each player draws a deck of `deck_size` (player p's slot k at position p*deck_size + k,
    as Versus lays out its decks); returns the card ids each learned, slot by slot."""
    decks: tuple[list[str], list[str]] = ([], [])
    for owner, (me, peer) in enumerate(((p0, p1), (p1, p0))):
        for slot in range(deck_size):
            position = owner * deck_size + slot
            decks[owner].append(
                me.accept_draw_share(position, over_the_wire(peer.draw_share(position)))
            )
    return decks
