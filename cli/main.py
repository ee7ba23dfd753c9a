# The `versus` command: the subcommands' command lines (cli/parsers.py, argparse only) and the
# dispatch. Nothing heavy is imported here: each subcommand imports what it needs when it runs,
# so `versus --help`, a usage error and `versus verify` start fast (bench/startup.py).
#
# A reader that goes away (`versus verify --json F | head -1`) is not an error of ours: Python
# ignores SIGPIPE, so the next write to stdout raises BrokenPipeError. Every subcommand ends
# here, so this is the one place that handles it, the way the Python docs advise
# (https://docs.python.org/3/library/signal.html#note-on-sigpipe): stdout is pointed at
# /dev/null (the interpreter's final flush would fail again) and we exit quietly with 141, the
# status a shell reports for a program that SIGPIPE ended. SIGPIPE itself stays ignored: its
# default action would also kill us on a peer's closed socket.
#
# Game plugins (VERSUS_GAMES, engine/registry.py) load before the command line is read, so
# `--game` knows their games; a plugin that fails is one line, `versus: game plugin 'x':
# <reason>`, and exit 2, whatever the subcommand. Without the variable nothing is loaded here.
from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from .exit_codes import EXIT_USAGE
from .parsers import build_parser

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE
PLUGINS_VARIABLE = "VERSUS_GAMES"  # engine/registry.py's


def plugin_failure() -> str | None:
    """The one-line failure of the game plugins VERSUS_GAMES names, or None (also when it
    names none: then the registry is not loaded here)."""
    if not os.environ.get(PLUGINS_VARIABLE, "").strip():
        return None
    from versus.engine.registry import plugin_error

    return plugin_error()


def main(argv: Sequence[str] | None = None) -> int:
    failure = plugin_failure()
    if failure is not None:
        print(f"versus: {failure}", file=sys.stderr)
        return EXIT_USAGE
    try:
        try:
            args = build_parser().parse_args(argv)
            code = int(args.func(args, sys.stdout))
        finally:  # --help and usage errors too (SystemExit)
            sys.stdout.flush()  # a closed pipe shows here, not in the flush at exit
    except BrokenPipeError:
        return stdout_closed()
    return code


def stdout_closed() -> int:
    """Our stdout's reader went away: silence stdout for the rest of the run, return 141."""
    # (no file descriptor behind sys.stdout: a caller that replaced it; nothing to silence)
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    raise SystemExit(main())
