# Deterministic randomness for the fuzz seeds: SHAKE-256 over a label and a counter, so a seed
# built from real objects (keys, handshakes, deals) is the same on every run and replays.
from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable

Rng = Callable[[int], bytes]


def seeded_rng(label: str) -> Rng:
    """Deterministic bytes (SHAKE-256 over a label and a counter), fresh on every call."""
    counter = itertools.count()

    def rng(size: int) -> bytes:
        return hashlib.shake_256(f"fuzz/{label}/{next(counter)}".encode()).digest(size)

    return rng
