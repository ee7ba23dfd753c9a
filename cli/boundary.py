# The error boundary of every `versus` command (cli/parsers.py `Lazy` runs a command inside
# `guarded`): whatever a command raises that a user can cause (a bad file or option, the
# network, the peer, a store, the engine refusing an input) becomes one line on stderr and an
# exit code (cli/exit_codes.py); a bug is one line too ("internal error", VERSUS_DEBUG=1 shows
# the traceback); a closed stdout ends the command quietly (cli/main.py, exit 141). A command
# says "this failed, here is why" by raising CommandError.
from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable
from typing import TextIO

import trio

from versus.engine.errors import EngineError
from versus.p2p.errors import TransportError
from versus.p2p.store import StoreError
from versus.protocol.errors import LocalProtocolError, RemoteProtocolError

from .exit_codes import EXIT_ERROR, EXIT_UNFINISHED


class CommandError(Exception):
    """A one-line failure of a command (bad file, bad option value, nothing found)."""


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a match that can be resumed (its directory is on disk): `resume` is the
    command line that continues it. A bare KeyboardInterrupt resumes nothing (a demo, `play`,
    a question asked before the match exists), and the boundary does not say it does."""

    def __init__(self, resume: str) -> None:
        super().__init__(resume)
        self.resume = resume


def guarded(func: Callable[[argparse.Namespace, TextIO], int], args: argparse.Namespace,
            out: TextIO) -> int:
    """Run a command; every expected failure becomes one line on stderr and an exit code."""
    try:
        return func(args, out)
    except BrokenPipeError:
        raise  # our stdout's reader went away: cli/main.py ends quietly (exit 141)
    except KeyboardInterrupt as interrupt:
        return _interrupted(interrupt)
    except _EXPECTED as error:
        return _one_line(error)
    except BaseExceptionGroup as group:  # several tasks failed at once: the first one counts
        _reraise_closed_stdout(group)
        first: BaseException = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        if isinstance(first, KeyboardInterrupt):
            return _interrupted(first)
        if isinstance(first, _EXPECTED):
            return _one_line(first)
        return _internal_error(first, group)
    except Exception as error:  # a bug: still one line (set VERSUS_DEBUG=1 for the traceback)
        _reraise_closed_stdout(error)
        return _internal_error(error, error)


#: the failures a command reports as one line (the user's input, the peer, the network, a file)
_EXPECTED = (CommandError, TransportError, StoreError, LocalProtocolError, RemoteProtocolError,
             EngineError, trio.TooSlowError, OSError)


def _interrupted(interrupt: KeyboardInterrupt) -> int:
    resume = (f"; continue the match with: {interrupt.resume}"
              if isinstance(interrupt, MatchInterrupted) else "")
    print(f"versus: interrupted{resume}", file=sys.stderr)
    return EXIT_UNFINISHED


def _one_line(error: BaseException) -> int:
    text = " ".join(str(error).split()) or type(error).__name__
    print(f"versus: {text}", file=sys.stderr)
    return EXIT_ERROR


def _internal_error(error: BaseException, raised: BaseException) -> int:
    if os.environ.get("VERSUS_DEBUG"):
        raise raised
    print(f"versus: internal error ({type(error).__name__}: "
          f"{' '.join(str(error).split())[:200]}); please report it", file=sys.stderr)
    return EXIT_ERROR


def _reraise_closed_stdout(error: BaseException) -> None:
    """A closed stdout that failed a trio task arrives grouped with the others' failures: it
    still ends the command quietly (cli/main.py)."""
    if isinstance(error, BaseExceptionGroup) and error.subgroup(BrokenPipeError) is not None:
        raise BrokenPipeError(errno.EPIPE, "the reader of the standard output went away")
