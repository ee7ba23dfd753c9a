# A hostile external bot for the tests of a bot's process lifetime: at start it leaves a child
# behind (`sleep 600`) that holds the bot's stderr open, writes the child's pid to a file, then
# forfeits on its first decision, by an illegal action or by exiting. A driver that waits for
# the end of the bot's stderr waits as long as the child lives; one that kills only the bot
# leaves the child running. `gone(pid)` says whether such a child is no more.
from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

HOLDER = """
import json, subprocess, sys
pids, how = sys.argv[1], sys.argv[2]
child = subprocess.Popen(["sleep", "600"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL)  # stderr: the bot's own, inherited
with open(pids, "a") as file:
    file.write(f"{child.pid}\\n")
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "holder"}), flush=True)
    elif message["type"] == "decide" and how == "exit":
        sys.exit(5)
    elif message["type"] == "decide":
        print(json.dumps({"type": "action", "action": "not a move"}), flush=True)
"""


def holder_bot(tmp_path: Path, how: str = "illegal") -> tuple[list[str], Path]:
    """The bot's argv and the file its children's pids are written to (one a line)."""
    script = tmp_path / "holder_bot.py"
    script.write_text(HOLDER)
    pids = tmp_path / "holder.pids"
    return [sys.executable, str(script), str(pids), how], pids


def children(pids: Path) -> list[int]:
    return [int(x) for x in pids.read_text().split()] if pids.exists() else []


def gone(pid: int) -> bool:
    """The process is no more (a zombie waiting for a reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return True
    return state in ("Z", "X")


def all_gone(pids: Path, within: float = 3.0) -> bool:
    """Every child listed in `pids` is gone within `within` seconds."""
    end = time.monotonic() + within
    while any(not gone(pid) for pid in children(pids)):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def kill_children(pids: Path) -> None:
    """Clean up after a test that failed: the children it left behind."""
    for pid in children(pids):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
