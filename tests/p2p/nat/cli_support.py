# The `versus` command as the NAT tests run it: a real host or joiner process (in a network
# namespace when `prefix` is `ip netns exec NS`), with its own key and data folders; reading
# the host's invite and a finished process's transcript path.
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from versus.p2p.keystore import load_or_create_identity

ROOT = Path(__file__).resolve().parents[3]


def versus_process(tmp_path: Path, name: str, *args: str,
                   prefix: Sequence[str] = ()) -> subprocess.Popen[str]:
    key = tmp_path / f"{name}.key"
    load_or_create_identity(key)
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / name / "config"),
               XDG_DATA_HOME=str(tmp_path / name / "data"), PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [*prefix, sys.executable, "-m", "versus.cli.main", *args, "--identity", str(key)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def until_invite(host: subprocess.Popen[str], deadline: float) -> list[str]:
    """The host's lines up to its invite line (killed, and an AssertionError, without one)."""
    lines: list[str] = []
    assert host.stdout is not None
    while time.monotonic() < deadline:
        line = host.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("invite: versus://"):
            return lines
    host.kill()
    raise AssertionError(f"the host printed no invite: {lines!r} {host.stderr.read()[-1500:]!r}")


def transcript_path(output: str) -> Path:
    line = next(line for line in output.splitlines() if line.startswith("transcript: "))
    return Path(line.split(": ", 1)[1])
