# Argument types shared by the benchmark scripts: a count of runs, games or matches must be a
# whole number in range, so a typo ends in argparse's one-line usage error rather than in a
# traceback from an empty median deep inside a run.
from __future__ import annotations

import argparse


def count(text: str) -> int:
    """A positive whole number (runs, games, matches, round trips, processes)."""
    return _int_at_least(text, 1)


def count_or_zero(text: str) -> int:
    """A whole number >= 0 (where 0 means "no limit" or "skip")."""
    return _int_at_least(text, 0)


def _int_at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is below the minimum {least}")
    return value
