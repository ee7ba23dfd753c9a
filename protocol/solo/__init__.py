# Verifiable solo runs (SPEC Part 11 "Verifiable solo runs"): challenges signed by an
# organiser (challenge.py), runs played from them, revealed step by step and verified by
# replay (run.py), and the organiser's reveal service, sans-IO (service.py; its TCP server and
# state file: cli/solo_service.py).
#
# `RUN_FORMAT` and `is_run` live here, apart from the heavier modules, so `versus verify` tells a
# run file from a match transcript without loading them (start-up).
from __future__ import annotations

RUN_FORMAT = "versus-solo-run/2"
#: every run format string starts so; an older one is recognised, then refused with its reason
RUN_FORMAT_PREFIX = "versus-solo-run/"
#: the largest run file read (a run is a few hundred KiB): `versus verify` refuses a larger one
#: before reading it
MAX_RUN = 8 << 20


def is_run(data: bytes) -> bool:
    """Whether `data` looks like a solo run file of any version (its first field), for
    `versus verify`."""
    return data[:40].find(RUN_FORMAT_PREFIX.encode()) >= 0
