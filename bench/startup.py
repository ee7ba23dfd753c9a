# Start-up cost and memory of the `versus` command: how long the imports of `versus --help` and
# of `versus verify FILE` on a small transcript take, measured with `python -X importtime`.
#
# Each command runs in a fresh interpreter, N times; the figures are medians over runs:
# - "imports (-X importtime)": the summed cumulative time of the imports the command adds to a
#   bare interpreter (every top-level import line of -X importtime, minus those `python -c pass`
#   already makes). -X importtime does not see a module loaded by `importlib.import_module` (the
#   lazy exports, the game registry, the subcommand table), so this figure is a lower bound;
# - "all imports": the time spent inside importlib's `_find_and_load` (which both the import
#   statement and `import_module` go through), outermost calls only, from the moment the command
#   starts until it exits: every import the command makes, lazy ones included. The target,
#   150 ms, is on this figure;
# - the wall time of the whole process, for reference.
# The transcript is a seeded decklist demo, made once.
# Last, the peak resident memory of a whole `versus demo` (both peers, their bots and the
# verification of the transcript run in the one process), read from the child's own rusage
# (os.wait4), target 40 MiB.
#
# The package's bytecode is compiled first and the children may write bytecode, as after any
# `pip install` (which compiles it): with PYTHONDONTWRITEBYTECODE set and stale .pyc files, each
# run would recompile every changed module and measure the compiler, not the start-up.
#
#   .venv/bin/python bench/startup.py [--runs N]
from __future__ import annotations

import argparse
import compileall
import os
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

TARGET_MS = 150.0  # of `versus verify`'s imports (SPEC, Packaging)
TARGET_DEMO_MB = 40.0  # peak resident memory (MiB) of `versus demo`, both peers
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def top_level_imports(stderr: str) -> dict[str, int]:
    """module -> cumulative microseconds, for the imports made at the top level."""
    found: dict[str, int] = {}
    for line in stderr.splitlines():
        match = _LINE.match(line)
        if match and len(match.group(3)) == 1:  # one space: a top-level import
            found[match.group(4)] = int(match.group(2))
    return found


PACKAGES = ("versus", "engine", "protocol", "p2p", "cli")
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_bytecode() -> None:
    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=1)


# Runs `python -m versus.cli.main ARGS` under a timer on importlib's one loading function and
# prints the milliseconds spent importing on the last line of stderr.
PROBE = """
import importlib._bootstrap as bootstrap, runpy, sys, time
load, depth, spent = bootstrap._find_and_load, [0], [0.0]
def timed(*args, **kwargs):
    depth[0] += 1
    start = time.perf_counter()
    try:
        return load(*args, **kwargs)
    finally:
        depth[0] -= 1
        if depth[0] == 0:
            spent[0] += time.perf_counter() - start
bootstrap._find_and_load = timed
sys.argv = ["versus", *sys.argv[1:]]
try:
    runpy.run_module("versus.cli.main", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print(f"ALL_IMPORTS_MS {spent[0] * 1000:.3f}", file=sys.stderr)
"""


def all_imports_ms(args: list[str], cwd: Path) -> float:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, env=CHILD_ENV,
                          capture_output=True, text=True, check=False)
    last = done.stderr.strip().splitlines()[-1:]
    if not last or not last[0].startswith("ALL_IMPORTS_MS "):
        raise SystemExit(f"startup probe failed: {done.stderr[-300:]}")
    return float(last[0].split()[1])


def import_ms(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(ms of imports beyond a bare interpreter's, wall ms) of one run of `argv`."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], cwd=cwd, env=CHILD_ENV,
                          capture_output=True, text=True, check=False)
    wall = (time.perf_counter() - start) * 1000
    bare = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], cwd=cwd,
                          env=CHILD_ENV, capture_output=True, text=True, check=False)
    baseline = top_level_imports(bare.stderr)
    added = {m: us for m, us in top_level_imports(done.stderr).items() if m not in baseline}
    return sum(added.values()) / 1000, wall


def small_transcript(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "versus.cli.main", "demo", "--deal", "decklist",
                    "--seed", "5eed", "--quiet", "--out", str(folder)], cwd=ROOT, check=True,
                    capture_output=True)
    return next(folder.glob("*/transcript.vtr"))


#: runs `versus` in this interpreter and writes its peak resident set (VmHWM, kB) to stderr at
#: exit; the kernel resets VmHWM at exec, while ru_maxrss keeps the high-water mark of the forked
#: copy of its parent before the exec (a bench process bigger than the demo showed its own size)
PEAK_WRAPPER = """
import atexit, runpy, sys
def peak():
    with open('/proc/self/status') as status:
        kb = next(line.split()[1] for line in status if line.startswith('VmHWM:'))
    sys.stderr.write('VmHWM ' + kb + '\\n')
atexit.register(peak)
sys.argv[0] = 'versus'
runpy.run_module('versus.cli.main', run_name='__main__')
"""


def demo_peak_mb(folder: Path, seed: int) -> float:
    """Peak resident MiB of one seeded `versus demo` (the child's own VmHWM, see
    PEAK_WRAPPER)."""
    done = subprocess.run([sys.executable, "-c", PEAK_WRAPPER, "demo", "--seed", f"5eed{seed:04x}",
                           "--quiet", "--out", str(folder / f"demo{seed}")],
                          cwd=ROOT, env=CHILD_ENV, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    peaks = re.findall(r"^VmHWM (\d+)$", done.stderr, re.MULTILINE)
    if done.returncode != 0 or not peaks:
        raise SystemExit(f"versus demo failed ({done.returncode}): {done.stderr[-300:]!r}")
    return int(peaks[-1]) / 1024


def figures(runs: int = 7) -> list[dict[str, object]]:
    compile_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        transcript = small_transcript(Path(tmp))
        commands = {
            "versus --help": ["--help"],
            "versus verify (small transcript)": ["verify", str(transcript)],
        }
        rows: list[dict[str, object]] = []
        for name, args in commands.items():
            argv = ["-m", "versus.cli.main", *args]
            import_ms(argv, Path(tmp))  # warm-up: the file cache, any bytecode still missing
            samples = [import_ms(argv, Path(tmp)) for _ in range(runs)]
            probed = [all_imports_ms(args, Path(tmp)) for _ in range(runs)]
            rows.append({"name": f"{name}: all imports", "value": statistics.median(probed),
                         "unit": "ms", "target": TARGET_MS, "comparison": "<="})
            rows.append({"name": f"{name}: imports (-X importtime)",
                         "value": statistics.median(s[0] for s in samples), "unit": "ms",
                         "target": None, "comparison": None})
            rows.append({"name": f"{name}: whole process",
                         "value": statistics.median(s[1] for s in samples), "unit": "ms",
                         "target": None, "comparison": None})
        peaks = [demo_peak_mb(Path(tmp), seed) for seed in range(1, min(runs, 5) + 1)]
        rows.append({"name": "versus demo: peak memory (both peers)",
                     "value": statistics.median(peaks), "unit": "MiB", "target": TARGET_DEMO_MB,
                     "comparison": "<="})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description="Start-up (import) time of the versus command.")
    parser.add_argument("--runs", type=count, default=7, help="runs per command (median)")
    args = parser.parse_args()
    rows = figures(args.runs)
    width = max(len(str(r["name"])) for r in rows)
    print(f"{'figure':<{width}}  {'median':>10}  {'target':>10}")
    for r in rows:
        target = "" if r["target"] is None else f"<= {r['target']:.0f} {r['unit']}"
        print(f"{r['name']:<{width}}  {r['value']:>7.1f} {r['unit']:<3}  {target:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
