# The one place the environments turn an encoding's plain values into numpy arrays.
#
# An observation is kept per seat between steps (`Observed`): the encoding says which entries
# changed since the last one (engine/encoding.py `observe_changes`), so a step writes a few
# entries instead of rebuilding thousands of floats; the caller gets a copy it may keep.
from __future__ import annotations

from typing import Any

import numpy as np

#: at most this many changes are written one by one (two numpy index arrays cost more: the
#: two ways cost the same near 40 entries, measured on a Versus and a grid vector)
FEW = 32


def vector(entries: dict[int, float], size: int) -> np.ndarray:
    """The float32 observation vector of `size` with `entries` (index -> value) set: the
    encoding gives the nonzero entries only (engine/encoding.py)."""
    out = np.zeros(size, dtype=np.float32)
    _write(out, entries)
    return out


def _write(out: np.ndarray, entries: dict[int, float]) -> None:
    if len(entries) <= FEW:
        for i, value in entries.items():
            out[i] = value
    else:
        out[np.fromiter(entries.keys(), np.intp, len(entries))] = \
            np.fromiter(entries.values(), np.float32, len(entries))


def mask(indices: list[int], size: int) -> np.ndarray:
    """The int8 action mask of `size`: 1 at each legal index."""
    out = np.zeros(size, dtype=np.int8)
    if indices:
        out.put(indices, 1)  # (put takes the list as it is: a fancy index converts it first)
    return out


class Observed:
    """One seat's observation vector kept between reads, and the encoding's memo of it."""

    __slots__ = ("array", "memo")

    def __init__(self, size: int) -> None:
        self.array = np.zeros(size, dtype=np.float32)
        self.memo: Any = None

    def update(self, changes: dict[int, float], memo: Any) -> np.ndarray:
        """Write `changes` (engine/encoding.py `observe_changes`); a copy of the vector."""
        _write(self.array, changes)
        self.memo = memo
        return self.array.copy()
