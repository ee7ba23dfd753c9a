# Reading a file a user names, with a size limit checked before it is read whole: the one
# helper every command that takes a file uses (verify, replay, --start, the tournament's
# manifest, records and deals). A leaf module (the standard library only), so any command
# imports it without importing another command.
from __future__ import annotations

import os
import sys


class UnreadableFile(Exception):
    """A file that could not be read from disk (missing, a directory, no permission)."""


def read_limited(path: str, limit: int) -> bytes | None:
    """The file's bytes, or None when it is over `limit` (not read). `-` is standard input."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(limit + 1)
            return None if len(data) > limit else data
        if os.stat(path).st_size > limit:
            return None
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as error:
        raise UnreadableFile(error.strerror or str(error)) from None
    return None if len(data) > limit else data
