# The `versus` command's exit codes, one place for every command and the error boundary
# (README and `versus --help` document them). A leaf module: the parsers, the boundary and
# every command import it without importing each other.
from __future__ import annotations

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNFINISHED, EXIT_FAULT = 0, 1, 2, 3, 4
