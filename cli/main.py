# The `versus` command: the subcommands' command lines (cli/parsers.py, argparse only) and the
# dispatch. Nothing heavy is imported here: each subcommand imports what it needs when it runs,
# so `versus --help`, a usage error and `versus verify` start fast (bench/startup.py).
from __future__ import annotations

import sys
from collections.abc import Sequence

from .parsers import build_parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args, sys.stdout))


if __name__ == "__main__":
    raise SystemExit(main())
