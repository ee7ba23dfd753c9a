#!/usr/bin/env python3
# Long-running fuzzer for the decoders of untrusted bytes: `python fuzz/run.py TARGET`.
#
# The targets and their seeds live in fuzz/targets.py (shared with the test suite). With atheris
# installed (`pip install -e '.[fuzz]'`) the run is coverage-guided by libFuzzer, over the
# instrumented versus packages; without it, or with `--engine builtin`, a plain loop
# mutates the seeds with `fuzz.targets.mutate` (no coverage feedback, but no dependency either).
# Seeds are written to fuzz/corpus/TARGET/ (libFuzzer grows that corpus); a finding is saved to
# fuzz/crashes/ with its traceback. Both folders are ignored by git.
#
# `all` runs every target in turn, each in its own process (libFuzzer owns the process it runs
# in) and each for the given --time / --runs.
from __future__ import annotations

import argparse
import hashlib
import os
import random
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

TARGET_NAMES = ("frame", "handshake", "envelope", "transcript", "pool", "announcement",
                "position", "solo", "reveal", "invite", "nat")
CRASH_DIR = HERE / "crashes"
CORPUS_DIR = HERE / "corpus"
REPORT_EVERY = 10.0  # seconds between progress lines
HANG_SECONDS = 10  # one input taking longer than this is a finding (a hang)
MAX_LEN = {"transcript": 16384, "envelope": 8192, "pool": 16384}


class Hang(Exception):
    """An input ran longer than HANG_SECONDS."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__ or "fuzz a decoder")
    parser.add_argument("target", choices=(*TARGET_NAMES, "all"))
    parser.add_argument("--time", type=float, default=60.0, help="seconds per target (60)")
    parser.add_argument("--runs", type=int, default=0, help="stop after N inputs (0: no limit)")
    parser.add_argument("--engine", choices=("auto", "atheris", "builtin"), default="auto")
    parser.add_argument("--seed", type=int, default=0, help="random seed of the builtin loop")
    args = parser.parse_args(argv)
    if args.target == "all":
        return _run_all(args)
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if _has_atheris() else "builtin"
    CRASH_DIR.mkdir(exist_ok=True)
    if engine == "atheris":
        return _run_atheris(args.target, args.time, args.runs)
    return _run_builtin(args.target, args.time, args.runs, args.seed)


def _has_atheris() -> bool:
    try:
        import atheris  # noqa: F401
    except ImportError:
        return False
    return True


def _run_all(args: argparse.Namespace) -> int:
    failed = []
    for name in TARGET_NAMES:
        command = [sys.executable, str(Path(__file__).resolve()), name, "--time", str(args.time),
                   "--runs", str(args.runs), "--engine", args.engine, "--seed", str(args.seed)]
        if subprocess.run(command, check=False).returncode != 0:
            failed.append(name)
    print(f"[all] finished; targets with findings: {', '.join(failed) or 'none'}")
    return 1 if failed else 0


class _Progress:
    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0
        self.crashes = 0
        self.start = self.last = time.monotonic()

    def tick(self) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.last >= REPORT_EVERY:
            self.last = now
            self.report("progress")

    def report(self, what: str) -> None:
        elapsed = time.monotonic() - self.start
        print(f"[{self.name}] {what}: {self.count} inputs in {elapsed:.0f} s "
              f"({self.count / max(elapsed, 1e-9):.0f}/s), {self.crashes} findings", flush=True)


def _write_seeds(name: str, seeds: list[bytes]) -> Path:
    corpus = CORPUS_DIR / name
    corpus.mkdir(parents=True, exist_ok=True)
    for seed in seeds:
        (corpus / f"seed-{hashlib.sha1(seed).hexdigest()}").write_bytes(seed)
    return corpus


# --- atheris (libFuzzer) ------------------------------------------------------------------------


def _run_atheris(name: str, seconds: float, runs: int) -> int:
    import atheris

    with atheris.instrument_imports(include=["versus", "fuzz", "msgpack"]):
        from fuzz.targets import TARGETS
    target = TARGETS[name]
    corpus = _write_seeds(name, target.seeds())
    progress = _Progress(name)

    def one_input(data: bytes) -> None:
        # The time limit is ours, not libFuzzer's, so the summary line is printed: libFuzzer
        # ends a run with exit(), which skips Python's atexit handlers.
        if time.monotonic() - progress.start >= seconds:
            progress.report("done")
            os._exit(0)
        progress.tick()
        if runs and progress.count >= runs:
            progress.report("done")
        try:
            target.run(data)
        except Exception as error:  # libFuzzer saves the input and stops; we add the traceback
            _save_finding(name, data, error, set(), progress)
            progress.report("stopped at a finding")
            raise

    libfuzzer_args = [
        sys.argv[0], str(corpus), f"-max_total_time={int(seconds) + 10}",
        f"-artifact_prefix={CRASH_DIR}/{name}-", f"-max_len={MAX_LEN.get(name, 4096)}",
        f"-timeout={HANG_SECONDS}", "-print_final_stats=1",
    ]
    if runs:
        libfuzzer_args.append(f"-runs={runs}")
    print(f"[{name}] atheris: {target.covers}; seeds in {corpus}", flush=True)
    atheris.Setup(libfuzzer_args, one_input)
    atheris.Fuzz()
    return 0


# --- built-in mutation loop -----------------------------------------------------------------


def _run_builtin(name: str, seconds: float, runs: int, seed: int) -> int:
    from fuzz.targets import MUTATION_KINDS, TARGETS, mutate

    target = TARGETS[name]
    seeds = target.seeds()
    _write_seeds(name, seeds)
    rng = random.Random(seed)
    progress = _Progress(name)
    seen: set[str] = set()
    print(f"[{name}] builtin loop (no coverage): {target.covers}", flush=True)
    signal.signal(signal.SIGALRM, _on_alarm)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (runs and progress.count >= runs):
        data = _next_input(rng, seeds, MUTATION_KINDS, mutate)
        progress.tick()
        signal.alarm(HANG_SECONDS)
        try:
            target.run(data)
        except Exception as error:  # every escape is a finding: record it and go on
            signal.alarm(0)
            _save_finding(name, data, error, seen, progress)
        finally:
            signal.alarm(0)
    progress.report("done")
    return 1 if progress.crashes else 0


def _next_input(
    rng: random.Random, seeds: list[bytes], kinds: int, mutate: Callable[..., bytes]
) -> bytes:
    if rng.random() < 0.05:
        return rng.randbytes(rng.randrange(0, 600))
    base = rng.choice(seeds)
    ops = [(rng.randrange(kinds), rng.randrange(1 << 20), rng.randrange(1 << 16))
           for _ in range(rng.randrange(1, 9))]
    return mutate(base, ops, seeds)


def _on_alarm(signum: int, frame: object) -> None:
    raise Hang(f"one input ran for more than {HANG_SECONDS} s")


def _save_finding(
    name: str, data: bytes, error: Exception, seen: set[str], progress: _Progress
) -> None:
    where = traceback.extract_tb(error.__traceback__)[-1]
    signature = f"{type(error).__name__} at {where.filename}:{where.lineno}"
    digest = hashlib.sha1(data).hexdigest()
    path = CRASH_DIR / f"{name}-{digest}"
    path.write_bytes(data)
    path.with_suffix(".txt").write_text("".join(traceback.format_exception(error)))
    progress.crashes += 1
    if signature not in seen:  # print each distinct crash site once
        seen.add(signature)
        print(f"[{name}] FINDING {signature}: {str(error)[:200]!r} -> {path}", flush=True)


if __name__ == "__main__":
    os.chdir(HERE.parent)
    sys.exit(main())
