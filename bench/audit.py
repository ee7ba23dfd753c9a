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
# Sections are functions in SECTIONS returning table rows, so another section (tournaments) is
# one more function and one more entry. Run: .venv/bin/python bench/audit.py [--runs N]
# [--matches M] [--section verify].
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.rules import DealMode
from protocol.verify import verify_transcript
from tests.protocol.pair import play

Row = tuple[str, str, str]  # (what, median, note)
TARGET_DECKLIST = 100.0


def transcripts(mode: DealMode, count: int) -> list[bytes]:
    out = []
    for seed in range(count):
        pair = play(mode, label=f"bench-audit/{mode.value}/{seed}", seed=seed)
        if pair.errors:
            raise RuntimeError(f"bench match {seed} failed: {pair.errors}")
        out.append(pair.peers[0].transcript_bytes())
    return out


def verify_rate(files: list[bytes], runs: int) -> tuple[float, float]:
    """(median transcripts/s, median ms per transcript) over `runs` passes over `files`."""
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        for data in files:
            if not verify_transcript(data).ok:
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
        if mode is DealMode.DECKLIST:
            note += f", target >= {TARGET_DECKLIST:.0f}/s"
        rows.append((f"verify, {mode.value}", f"{rate:.0f}/s", note))
    return rows


SECTIONS: dict[str, Callable[[argparse.Namespace], list[Row]]] = {
    "verify": section_verify,
}


def print_table(title: str, rows: list[Row]) -> None:
    print(f"{title:<28}{'median':>12}  note")
    for what, value, note in rows:
        print(f"{what:<28}{value:>12}  {note}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per row (median)")
    parser.add_argument("--matches", type=int, default=20, help="decklist matches per run")
    parser.add_argument("--section", choices=sorted(SECTIONS), action="append",
                        help="only these sections (default: all)")
    args = parser.parse_args()
    for name in args.section or list(SECTIONS):
        print_table(f"{name} (one core)", SECTIONS[name](args))


if __name__ == "__main__":
    main()
