# The one place the environments turn an encoding's plain values into numpy arrays.
from __future__ import annotations

import numpy as np


def vector(entries: dict[int, float], size: int) -> np.ndarray:
    """The float32 observation vector of `size` with `entries` (index -> value) set: the
    encoding gives the nonzero entries only (engine/encoding.py)."""
    out = np.zeros(size, dtype=np.float32)
    if entries:
        out[np.fromiter(entries.keys(), np.intp, len(entries))] = \
            np.fromiter(entries.values(), np.float32, len(entries))
    return out


def mask(indices: list[int], size: int) -> np.ndarray:
    """The int8 action mask of `size`: 1 at each legal index."""
    out = np.zeros(size, dtype=np.int8)
    out[indices] = 1
    return out
