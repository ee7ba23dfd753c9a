# Argument types shared by the command line and the benchmark scripts: counts and durations are
# checked where they are parsed, so a typo ends in argparse's one-line usage error (exit 2)
# rather than in a traceback from deep inside a run.
from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def count(text: str) -> int:
    """A whole number >= 1 (games, runs, matches, processes)."""
    return _whole_number(text, 1)


def count_or_zero(text: str) -> int:
    """A whole number >= 0 (where 0 means "no limit")."""
    return _whole_number(text, 0)


def seconds_up_to(limit: float) -> Callable[[str], float]:
    """A parser for a duration in seconds in (0, limit]."""
    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not (math.isfinite(value) and 0 < value <= limit):
            raise argparse.ArgumentTypeError(f"{text!r} must be in (0, {limit:g}] seconds")
        return value
    return seconds


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least {least}")
    return value
