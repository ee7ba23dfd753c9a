# Audit benchmark: how fast `versus verify` checks transcripts on one core.
#
# Section "verify": a set of real transcripts (random legal play between two in-memory peers,
# the tests' pairing helper, different seeds so match lengths vary) is verified end to end with
# `protocol.verify.verify_transcript` from file bytes: framing, HELLOs, every signature and
# link, the transition table, every commitment (decklist) or every Schnorr/shuffle/DLEQ proof
# (shared pool), the engine replay with a state hash per input, the result and the reveals.
# Each run verifies the whole set once; a row is the median over the runs of transcripts per
# second. Target: >= 100 transcripts/s in decklist mode.
#
# Section "tournament": whole `versus tournament random random --concurrency 2` runs, each a
# fresh output folder and a fresh process (`python -m versus.cli.main`), timed from the command's
# start to its exit: worker start-up, every match over TCP on 127.0.0.1 through the full
# protocol, the in-worker verification, the records and the results. A row is the median over
# the runs of matches per minute. Target: >= 300 matches/min in decklist mode. The note breaks
# a game down from the records (median wall time of a game inside its worker, of which the
# setup until PLAY) and gives the fixed cost of a run (worker start-up and the runner).
#
# Section "memory": the peak resident memory of `versus verify` (a fresh interpreter) on a hostile
# file of --hostile-mb MB: a real transcript followed by copies of its last envelope, every one of
# which parses, refused at the first copy. The row is the peak above that of verifying the small
# real transcript alone. Target: under 64 MB + the largest record (64 KiB), whatever the file.
#
# Sections are functions in SECTIONS returning table rows, so another section is one more
# function and one more entry. Run: .venv/bin/python bench/audit.py [--runs N] [--matches M]
# [--section verify] [--section tournament --games G].
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.protocol.pair import play
from versus.cli.argtypes import count
from versus.protocol.match.rules import DealMode
from versus.protocol.match.verify import verify_transcript

Row = tuple[str, str, str]  # (what, median, note)
TARGET_DECKLIST = 300.0  # transcripts/s (SPEC, Performance goals)
TARGET_SHARED = 20.0
TARGET_TOURNAMENT = 1500.0  # matches per minute, decklist, concurrency 2
TARGET_TOURNAMENT_SHARED = 400.0
TARGET_MEMORY_MB = 64.0  # verify's peak above a small file's, any hostile file
ROOT = Path(__file__).resolve().parent.parent


def transcripts(mode: DealMode, count: int) -> list[bytes]:
    out = []
    for seed in range(count):
        pair = play(mode, label=f"bench-audit/{mode.value}/{seed}", seed=seed)
        if pair.errors:
            raise RuntimeError(f"bench match {seed} failed: {pair.errors}")
        out.append(pair.peers[0].transcript_bytes())
    return out


def verify_rate(files: list[bytes], runs: int, full: bool = False) -> tuple[float, float]:
    """(median transcripts/s, median ms per transcript) over `runs` passes over `files`.
    `full`: check every envelope's signature (no fast path, SPEC §4.4)."""
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        for data in files:
            if not verify_transcript(data, full=full).ok:
                raise RuntimeError("a bench transcript does not verify")
        rates.append(len(files) / (time.perf_counter() - start))
    rate = statistics.median(rates)
    return rate, 1000 / rate


def section_verify(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    for mode in (DealMode.DECKLIST, DealMode.SHARED_POOL):
        count = args.matches if mode is DealMode.DECKLIST else max(2, args.matches // 4)
        files = transcripts(mode, count)
        verify_transcript(files[0])  # warm caches (catalogue, imports)
        rate, ms = verify_rate(files, args.runs)
        size = statistics.median(len(f) for f in files)
        note = f"{ms:.1f} ms each, {count} matches, median {size / 1000:.0f} KB"
        goal = TARGET_DECKLIST if mode is DealMode.DECKLIST else TARGET_SHARED
        note += f", target >= {goal:.0f}/s"
        rows.append((f"verify, {mode.value}", f"{rate:.0f}/s", note))
        if mode is DealMode.DECKLIST:
            rate, ms = verify_rate(files, args.runs, full=True)
            rows.append((f"verify, {mode.value}, full", f"{rate:.0f}/s",
                         f"{ms:.1f} ms each, every signature checked (no fast path)"))
    return rows


def tournament_run(deal: str, games: int, concurrency: int) -> tuple[float, list[dict]]:
    """One whole tournament in a fresh process: (wall seconds, the game records)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t"
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "versus.cli.main", "tournament", "random", "random",
             "--games", str(games), "--concurrency", str(concurrency), "--deal", deal,
             "--out", str(out)], cwd=ROOT, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"bench tournament failed: {done.stderr.strip()[-300:]}")
        records = json.loads((out / "results.json").read_text())["games"]
    if not all(r["verified"] for r in records):
        raise RuntimeError("a bench tournament game did not verify")
    return seconds, records


def section_tournament(args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    # paired deals play each deal twice (seats swapped): an even number of games
    shared = max(4, args.games // 4)
    for deal, games in (("decklist", args.games), ("shared-pool", shared + shared % 2)):
        rates, per_game, setups, fixed = [], [], [], []
        for _ in range(args.tournament_runs):
            seconds, records = tournament_run(deal, games, 2)
            rates.append(len(records) / seconds * 60)
            in_worker = [r["seconds"] for r in records]
            per_game += in_worker
            setups += [r["setup_seconds"] for r in records]
            fixed.append(seconds - sum(in_worker) / 2)  # what the two workers do not explain
        rate = statistics.median(rates)
        note = (f"{games} games x {args.tournament_runs} runs, concurrency 2; a game "
                f"{1000 * statistics.median(per_game):.0f} ms in its worker (setup "
                f"{1000 * statistics.median(setups):.0f} ms); fixed cost "
                f"{statistics.median(fixed):.1f} s per run")
        note += (f"; target >= "
                 f"{TARGET_TOURNAMENT if deal == 'decklist' else TARGET_TOURNAMENT_SHARED:.0f}/min")
        rows.append((f"tournament, {deal}", f"{rate:.0f}/min", note))
    return rows


def section_memory(args: argparse.Namespace) -> list[Row]:
    from tests.protocol.support import verify_peak_mb, write_padded_transcript

    real = transcripts(DealMode.DECKLIST, 1)[0]
    with tempfile.TemporaryDirectory() as folder:
        small, hostile = f"{folder}/real.vst", f"{folder}/hostile.vst"
        Path(small).write_bytes(real)
        records = write_padded_transcript(hostile, real, args.hostile_mb << 20)
        peaks, bases = [], []
        for _ in range(args.runs):
            bases.append(verify_peak_mb(small)[1])
            code, peak = verify_peak_mb(hostile)
            if code != 1:
                raise RuntimeError(f"the hostile file was not refused (exit {code})")
            peaks.append(peak)
    above = statistics.median(p - b for p, b in zip(peaks, bases, strict=True))
    return [(f"verify {args.hostile_mb} MB hostile: peak above a small file's", f"{above:.0f} MiB",
             f"{records} records; peak {statistics.median(peaks):.0f} MiB, a small file's "
             f"{statistics.median(bases):.0f} (target: < {TARGET_MEMORY_MB:g} above it)")]


SECTIONS: dict[str, Callable[[argparse.Namespace], list[Row]]] = {
    "verify": section_verify,
    "tournament": section_tournament,
    "memory": section_memory,
}


def figures(runs: int = 5, matches: int = 20, games: int = 40, tournament_runs: int = 3,
            hostile_mb: int = 64) -> list[dict[str, object]]:
    """Every row of every section as a figure for bench/run_all.py: the median's number and
    unit ("123/s" -> 123, "/s"), with the target where the row has one."""
    args = argparse.Namespace(runs=runs, matches=matches, games=games,
                              tournament_runs=tournament_runs, hostile_mb=hostile_mb)
    targets = {"verify, decklist": (TARGET_DECKLIST, ">="),
               "verify, shared-pool": (TARGET_SHARED, ">="),
               "tournament, decklist": (TARGET_TOURNAMENT, ">="),
               "tournament, shared-pool": (TARGET_TOURNAMENT_SHARED, ">="),
               f"verify {hostile_mb} MB hostile: peak above a small file's":
                   (TARGET_MEMORY_MB, "<=")}
    out: list[dict[str, object]] = []
    for section in SECTIONS.values():
        for what, value, _note in section(args):
            number, unit = value.split("/" if "/" in value else " ", 1)
            unit = "/" + unit if "/" in value else unit
            target, comparison = targets.get(what, (None, None))
            out.append({"name": f"audit {what}", "value": float(number), "unit": unit,
                        "target": target, "comparison": comparison})
    return out


def print_table(title: str, rows: list[Row]) -> None:
    print(f"{title:<28}{'median':>12}  note")
    for what, value, note in rows:
        print(f"{what:<28}{value:>12}  {note}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=count, default=5, help="runs per row (median)")
    parser.add_argument("--matches", type=count, default=20, help="decklist matches per run")
    parser.add_argument("--section", choices=sorted(SECTIONS), action="append",
                        help="only these sections (default: all)")
    parser.add_argument("--games", type=count, default=40,
                        help="tournament: decklist games per run (shared pool: a quarter)")
    parser.add_argument("--tournament-runs", type=count, default=3,
                        help="tournament: runs per row (median)")
    parser.add_argument("--hostile-mb", type=count, default=196,
                        help="memory: size of the hostile file in MB (196)")
    args = parser.parse_args()
    cores = {"verify": "one core", "tournament": "concurrency 2", "memory": "MiB, one core"}
    for name in args.section or list(SECTIONS):
        print_table(f"{name} ({cores[name]})", SECTIONS[name](args))


if __name__ == "__main__":
    main()
