# Start-up cost of the `versus` command (issue 15): how long the imports of `versus --help` and
# of `versus verify FILE` on a small transcript take, measured with `python -X importtime`.
#
# Each command runs in a fresh interpreter, N times; the figure is the median over runs of the
# summed cumulative time of the imports the command adds to a bare interpreter (every top-level
# import line of -X importtime, minus those `python -c pass` already makes), and the median wall
# time of the whole process for reference. The transcript is a seeded decklist demo, made once.
#
#   .venv/bin/python bench/startup.py [--runs N]
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from versus.cli.argtypes import count  # noqa: E402

TARGET_MS = 100.0
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def top_level_imports(stderr: str) -> dict[str, int]:
    """module -> cumulative microseconds, for the imports made at the top level."""
    found: dict[str, int] = {}
    for line in stderr.splitlines():
        match = _LINE.match(line)
        if match and len(match.group(3)) == 1:  # one space: a top-level import
            found[match.group(4)] = int(match.group(2))
    return found


def import_ms(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(ms of imports beyond a bare interpreter's, wall ms) of one run of `argv`."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=cwd,
                          capture_output=True, text=True, check=False)
    wall = (time.perf_counter() - start) * 1000
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], cwd=cwd,
                          capture_output=True, text=True, check=False)
    baseline = top_level_imports(bare.stderr)
    added = {m: us for m, us in top_level_imports(done.stderr).items() if m not in baseline}
    return sum(added.values()) / 1000, wall


def small_transcript(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "versus.cli.main", "demo", "--deal", "decklist",
                    "--seed", "5eed", "--quiet", "--out", str(folder)], cwd=ROOT, check=True,
                    capture_output=True)
    return next(folder.glob("*/transcript.vtr"))


def figures(runs: int = 7) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        transcript = small_transcript(Path(tmp))
        commands = {
            "versus --help: imports": ["-m", "versus.cli.main", "--help"],
            "versus verify (small transcript): imports": ["-m", "versus.cli.main", "verify",
                                                          str(transcript)],
        }
        rows: list[dict[str, object]] = []
        for name, argv in commands.items():
            samples = [import_ms(argv, Path(tmp)) for _ in range(runs)]
            rows.append({"name": name, "value": statistics.median(s[0] for s in samples),
                         "unit": "ms", "target": TARGET_MS, "comparison": "<="})
            rows.append({"name": name.replace("imports", "whole process"),
                         "value": statistics.median(s[1] for s in samples), "unit": "ms",
                         "target": None, "comparison": None})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description="Start-up (import) time of the versus command.")
    parser.add_argument("--runs", type=count, default=7, help="runs per command (median)")
    args = parser.parse_args()
    rows = figures(args.runs)
    width = max(len(str(r["name"])) for r in rows)
    print(f"{'figure':<{width}}  {'median':>10}  {'target':>10}")
    for r in rows:
        target = "" if r["target"] is None else f"<= {r['target']:.0f} ms"
        print(f"{r['name']:<{width}}  {r['value']:>7.1f} ms  {target:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
