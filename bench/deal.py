# Benchmark of the shared-pool deal (SPEC Part 5): a full deal with every proof created and
# verified, timed per side on one core, and the bytes each side sends (msgpack).
#
#   .venv/bin/python bench/deal.py [--runs 7]
#
# Per side = the time spent inside that player's SharedPoolDeal calls: setup, its key share,
# accepting the peer's, its shuffle + proof, parsing and verifying the peer's shuffle, producing
# the peer's D draw shares and checking its own D draws. The shuffle generators are cached per
# match id and pool size, and every run has a fresh match id, so they are recomputed each run.
# Targets: 150 ms (24 cards) and 300 ms (42 cards).
from __future__ import annotations

import argparse
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import msgpack

# the checkout first: else bench/protocol.py (this folder is sys.path[0]) shadows the package
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.cli.argtypes import count
from versus.protocol.deals.pool import DealMessage, SharedPoolDeal, parse_message

T = TypeVar("T")
CASES = [(24, 12), (42, 21)]


class Side:
    def __init__(self, deal: SharedPoolDeal) -> None:
        self.deal = deal
        self.seconds = 0.0
        self.sent: dict[str, int] = {}

    def call(self, fn: Callable[..., T], *args: object) -> T:
        start = time.perf_counter()
        result = fn(*args)
        self.seconds += time.perf_counter() - start
        return result

    def count_sent(self, message: DealMessage, data: bytes) -> None:
        self.sent[message.KIND] = self.sent.get(message.KIND, 0) + len(data)


def one_deal(pool: int, deck: int) -> tuple[Side, Side]:
    match_id = secrets.token_bytes(32)
    identities = (secrets.token_bytes(32), secrets.token_bytes(32))
    cards = [f"card-{i:02d}" for i in range(pool)]
    sides = []
    for role in (0, 1):
        start = time.perf_counter()  # setup (card points, key) counts too
        side = Side(SharedPoolDeal(role, match_id, identities, cards, secrets.token_bytes))
        side.seconds = time.perf_counter() - start
        sides.append(side)

    def deliver(sender: Side, receiver: Side, message: DealMessage) -> DealMessage:
        data = msgpack.packb(message.to_wire())
        sender.count_sent(message, data)
        # parsing validates every point: it is part of the receiver's cost
        return receiver.call(parse_message, msgpack.unpackb(data))

    s0, s1 = sides
    k0 = s0.call(s0.deal.key_share)
    k1 = s1.call(s1.deal.key_share)
    s1.call(s1.deal.accept_key_share, deliver(s0, s1, k0))
    s0.call(s0.deal.accept_key_share, deliver(s1, s0, k1))
    sh0 = s0.call(s0.deal.shuffle)
    s1.call(s1.deal.accept_shuffle, deliver(s0, s1, sh0))
    sh1 = s1.call(s1.deal.shuffle)
    s0.call(s0.deal.accept_shuffle, deliver(s1, s0, sh1))
    for owner, peer in ((s0, s1), (s1, s0)):
        for slot in range(deck):
            position = owner.deal.role * deck + slot
            share = peer.call(peer.deal.draw_share, position)
            owner.call(owner.deal.accept_draw_share, position, deliver(peer, owner, share))
    return s0, s1


TARGETS_MS = {24: 40, 42: 70}  # the slower side (SPEC, Performance goals)


def measure(pool: int, deck: int, runs: int) -> tuple[list[float], dict[str, int]]:
    """(median ms of side 0 and side 1, bytes sent by side 0 per message kind)."""
    one_deal(pool, deck)  # warm-up (generator cache, imports)
    done = [one_deal(pool, deck) for _ in range(runs)]
    return [statistics.median(r[i].seconds for r in done) * 1000 for i in (0, 1)], done[0][0].sent


def figures(runs: int = 7) -> list[dict[str, object]]:
    """The slower side's median per case, against its target (for bench/run_all.py)."""
    out: list[dict[str, object]] = []
    for pool, deck in CASES:
        ms, _ = measure(pool, deck, runs)
        out.append({"name": f"shared-pool deal {pool} cards ({deck}/{deck}), slower side",
                    "value": max(ms), "unit": "ms", "target": TARGETS_MS[pool],
                    "comparison": "<="})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=count, default=7)
    args = parser.parse_args()
    print(f"shared-pool deal, median of {args.runs} runs, one core, per side")
    header = (
        f"{'pool':>4} {'decks':>6} {'side 0 ms':>10} {'side 1 ms':>10} "
        f"{'target':>7} {'shuffle msg B':>14} {'key msg B':>10} {'draw msgs B':>12} "
        f"{'sent/side B':>12}"
    )
    print(header)
    print("-" * len(header))
    for pool, deck in CASES:
        ms, sent = measure(pool, deck, args.runs)
        target = TARGETS_MS[pool]
        print(
            f"{pool:>4} {f'{deck}/{deck}':>6} {ms[0]:>10.1f} {ms[1]:>10.1f} {target:>7} "
            f"{sent['deal/shuffle']:>14} {sent['deal/key-share']:>10} "
            f"{sent['deal/draw-share']:>12} {sum(sent.values()):>12}"
        )


if __name__ == "__main__":
    main()
