# "Against the Multiverse" solo runs benchmark (SPEC Part 11): the greedy and random
# bots each play the same N challenges (default 500, difficulties easy/normal/hard in turn)
# with one player key, so both meet the same card order and dice: a paired comparison. Every
# run goes through the real protocol (signed records, the organiser's reveal service in
# process, attestations) and every run file, secret published, is verified by replay.
#
# Prints, per bot: wins and win rate (Wilson 95 % interval), mean score (normal 95 % interval),
# median and quartiles; the paired greedy - random score difference (95 % interval); runs per
# second played and verified (median over chunks of 50 runs); run-file sizes; a chi-square test
# of the d6 outcomes every run used (5 degrees of freedom); and, unless --tcp-runs 0, runs
# played against the reveal service over TCP on 127.0.0.1 (state file fsynced per step).
# Exit 1 when greedy does not score better than random (the requirement).
#   nice -n 10 python bench/multiverse.py [--challenges 500] [--tcp-runs 20] [--seed S]
from __future__ import annotations

import argparse
import hashlib
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.cli.solo import make_bot
from versus.cli.tournament_stats import wilson
from versus.engine.multiverse import MULTIVERSE as G
from versus.protocol.crypto.identity import Identity
from versus.protocol.solo import run as R
from versus.protocol.solo.challenge import new_challenge
from versus.protocol.solo.service import RevealService
from versus.protocol.wire.canonical import decode

BOTS = ("greedy", "random")
DIFFICULTIES = ("easy", "normal", "hard")
CHUNK = 50
Z95 = 1.959964


def challenges(n: int, seed: str) -> list[tuple[Any, Any]]:
    org = Identity(hashlib.sha256(f"bench/multiverse/org/{seed}".encode()).digest())
    out = []
    for i in range(n):
        secret = hashlib.sha256(f"bench/multiverse/{seed}/{i}".encode()).digest()
        rules = G.rules_from_options({"difficulty": DIFFICULTIES[i % 3]})
        out.append(new_challenge(org, G, rules, f"bench-{i:04d}", lambda k, s=secret: s[:k]))
    return out


def dice(data: bytes) -> list[int]:
    """The d6 outcomes (0..5) a run file used."""
    _, _, records, _ = decode(data, max_size=R.MAX_RUN, max_array_len=R.MAX_RECORDS)
    out = []
    for rec in records:
        body = decode(decode(rec, max_size=R.MAX_RUN)[0], max_size=R.MAX_RUN)
        if body[2] == "random" and body[3] == "d6":
            out.append(R.below(body[5], 6))
    return out



def mean_ci(xs: list[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    half = Z95 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0
    return m, m - half, m + half


def chi_square_p5(x: float) -> float:
    """P(chi-square with 5 degrees of freedom >= x), closed form for odd degrees."""
    r = math.sqrt(x)
    return math.erfc(r / math.sqrt(2)) + math.sqrt(2 / math.pi) * math.exp(-x / 2) * (
        r + r ** 3 / 3)


def run_bot(bot: str, pairs: list[tuple[Any, Any]], player: Identity) -> dict[str, Any]:
    scores, wins, sizes, rolls, bad = [], 0, [], [], 0
    play_rates, verify_rates = [], []
    for start in range(0, len(pairs), CHUNK):
        chunk = pairs[start:start + CHUNK]
        t0 = time.perf_counter()
        files = []
        for i, (ch, sec) in enumerate(chunk, start):
            svc = RevealService(ch, sec)
            run, state = R.play(G, ch, player, svc.reveal, make_bot(bot, i))
            files.append((ch, run.to_bytes(sec.secret)))
            scores.append(G.score(state))
            wins += G.decision(state).outcome == "victory"
        t1 = time.perf_counter()
        for ch, data in files:
            rep = R.verify_run(data, ch)
            bad += not rep.ok
        t2 = time.perf_counter()
        play_rates.append(len(chunk) / (t1 - t0))
        verify_rates.append(len(chunk) / (t2 - t1))
        for _, data in files:
            sizes.append(len(data))
            rolls += dice(data)
    return {"bot": bot, "scores": scores, "wins": wins, "sizes": sizes, "rolls": rolls,
            "bad": bad, "play_rate": statistics.median(play_rates),
            "verify_rate": statistics.median(verify_rates)}


def tcp_runs(pairs: list[tuple[Any, Any]], n: int, player: Identity) -> tuple[float, float]:
    """(runs/s, reveals/s) of `n` greedy runs against the reveal service over TCP."""
    import trio

    from versus.cli.solo_service import Server, ServiceClient, open_state

    reveals = 0

    async def main() -> float:
        nonlocal reveals
        t0 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            for i, (ch, sec) in enumerate(pairs[:n]):
                state, entries = open_state(Path(tmp) / f"{i}.state", ch)
                server = Server(RevealService(ch, sec), state, entries, lambda line: None)
                async with trio.open_nursery() as nursery:
                    listeners = await nursery.start(server.serve, "127.0.0.1", 0)
                    port = listeners[0].socket.getsockname()[1]

                    def go(ch: Any = ch, port: int = port) -> None:
                        client = ServiceClient(("127.0.0.1", port), ch, player)
                        try:
                            R.play(G, ch, player, client.reveal, make_bot("greedy", 0))
                        finally:
                            client.close()

                    await trio.to_thread.run_sync(go)
                    reveals += server.answered
                    nursery.cancel_scope.cancel()
                state.close()
        return time.perf_counter() - t0

    elapsed = trio.run(main)
    return n / elapsed, reveals / elapsed


#: the quick mode of bench/run_all.py (a few seconds; its rates say little)
QUICK = {"challenges_n": 60, "tcp": 5}


def figures(challenges_n: int = 500, tcp: int = 20, seed: str = "0") -> list[dict[str, Any]]:
    rows, _ = measure(challenges_n, tcp, seed)
    return rows


def measure(n: int, tcp: int, seed: str) -> tuple[list[dict[str, Any]], list[str]]:
    pairs = challenges(n, seed)
    player = Identity(hashlib.sha256(f"bench/multiverse/player/{seed}".encode()).digest())
    results = {bot: run_bot(bot, pairs, player) for bot in BOTS}
    lines, rows = [], []

    def fig(name: str, value: float, unit: str, target: float | None = None,
            comparison: str | None = None) -> None:
        rows.append({"name": f"multiverse {name}", "value": value, "unit": unit,
                     "target": target, "comparison": comparison})

    lines.append(f"{n} challenges (easy/normal/hard in turn), one player key, both bots on the "
                 "same challenges")
    lines.append(f"{'bot':<8}{'wins':>6}{'win rate (95% CI)':>24}{'mean score (95% CI)':>26}"
                 f"{'median':>8}{'q1':>7}{'q3':>7}{'runs/s':>8}{'verify/s':>10}{'bad':>5}")
    for bot, r in results.items():
        lo, hi = wilson(r["wins"], n)
        m, mlo, mhi = mean_ci(r["scores"])
        q1, med, q3 = statistics.quantiles(r["scores"], n=4, method="inclusive")
        lines.append(f"{bot:<8}{r['wins']:>6}{100 * r['wins'] / n:>9.1f} % "
                     f"[{100 * lo:5.1f}, {100 * hi:5.1f}]{m:>11.1f} [{mlo:6.1f}, {mhi:6.1f}]"
                     f"{med:>8.1f}{q1:>7.1f}{q3:>7.1f}{r['play_rate']:>8.1f}"
                     f"{r['verify_rate']:>10.1f}{r['bad']:>5}")
        fig(f"{bot} win rate", r["wins"] / n, "ratio")
        fig(f"{bot} mean score", m, "points")
        fig(f"{bot} runs/s", r["play_rate"], "runs/s")
        fig(f"{bot} verified runs/s", r["verify_rate"], "runs/s")
        fig(f"{bot} run files failing verification", r["bad"], "runs", 0, "<=")
    diff = [g - x for g, x in zip(results["greedy"]["scores"], results["random"]["scores"],
                                  strict=True)]
    d, dlo, dhi = mean_ci(diff)
    lines.append(f"greedy - random, paired: {d:+.1f} points [{dlo:+.1f}, {dhi:+.1f}] (95 % CI); "
                 f"greedy better: {'yes' if dlo > 0 else 'NO'}")
    fig("greedy - random mean score (95% CI low)", dlo, "points", 0, ">=")
    sizes = results["greedy"]["sizes"] + results["random"]["sizes"]
    lines.append(f"run file (secret published): median {statistics.median(sizes):.0f} B, "
                 f"max {max(sizes)} B, mean {statistics.fmean(sizes):.0f} B "
                 f"(limit {R.MAX_RUN} B)")
    fig("run file size (median)", statistics.median(sizes), "bytes")
    rolls = results["greedy"]["rolls"] + results["random"]["rolls"]
    counts = [rolls.count(face) for face in range(6)]
    expected = len(rolls) / 6
    chi2 = sum((c - expected) ** 2 / expected for c in counts) if rolls else 0.0
    p = chi_square_p5(chi2)
    lines.append(f"d6: {len(rolls)} dice, faces 1-6 {counts}, chi-square {chi2:.2f} (5 dof), "
                 f"p = {p:.3f} ({'uniform at 1 %' if p > 0.01 else 'NOT uniform at 1 %'})")
    fig("d6 chi-square p-value", p, "p", 0.01, ">=")
    if tcp:
        rate, reveals = tcp_runs(pairs, tcp, player)
        lines.append(f"over TCP (127.0.0.1, state fsynced per step): {tcp} greedy runs, "
                     f"{rate:.1f} runs/s, {reveals:.0f} reveals/s")
        fig("runs/s over TCP", rate, "runs/s")
        fig("reveals/s over TCP", reveals, "reveals/s")
    return rows, lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--challenges", type=int, default=500)
    ap.add_argument("--tcp-runs", type=int, default=20)
    ap.add_argument("--seed", default="0")
    args = ap.parse_args()
    if args.challenges < 2:
        print("bench/multiverse.py: --challenges must be at least 2", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    rows, lines = measure(args.challenges, args.tcp_runs, args.seed)
    for line in lines:
        print(line)
    print(f"({time.perf_counter() - t0:.0f} s)")
    ok = all(r["target"] is None or (r["value"] >= r["target"] if r["comparison"] == ">="
                                     else r["value"] <= r["target"]) for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
