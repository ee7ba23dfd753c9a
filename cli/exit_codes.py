# The `versus` command's exit codes, one place for every command and the error boundary
# (README and `versus --help` document them). A leaf module: the parsers, the boundary and
# every command import it without importing each other.
#   0 the match finished (demo: and its transcript verified)
#   1 an error (network, files, bad input); the message says what to do
#   2 bad command line (argparse)
#   3 the match did not finish (left, abandoned, interrupted): a host/join match on disk is
#     resumable with --resume (Ctrl-C names the command, boundary.MatchInterrupted); play and
#     demo cannot be resumed (play keeps its transcript so far)
#   4 the match stopped on a protocol fault (the evidence is in the transcript), or the demo's
#     transcript failed verification
# (`versus verify` and `versus tournament` have their own, in their modules.)
from __future__ import annotations

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNFINISHED, EXIT_FAULT = 0, 1, 2, 3, 4
