# Envelope path benchmark: seal (encode + sign) and open (decode + canonical check + verify) of
# one action-sized envelope, the chain's receive (open + link + hash), and the wire size.
#
# Match-level rows (protocol/match/, through the tests' in-memory pairing helper): one action
# round (sender: step + state hash + seal; receiver: verify + link + step + hash + compare),
# in-memory match setup (HELLOs to the first play message) in both deal modes, and the
# transcript size of a default match with random legal actions.
#
# Run: .venv/bin/python bench/protocol.py. Prints a table of medians over several runs, each the
# mean of a batch, so one scheduler hiccup does not move the result. The target for the full
# round (sign + verify + apply + hash) is 150 µs (ROUND_TARGET_US).
from __future__ import annotations

import hashlib
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from versus.protocol.crypto.identity import Identity
from versus.protocol.match.setup import MatchSetup, make_hello
from versus.protocol.wire.canonical import encode
from versus.protocol.wire.envelope import MessageKind, open_envelope, seal

RUNS = 7
BATCH = 400
#: the action round's target (µs)
ROUND_TARGET_US = 150


def _rng() -> Callable[[int], bytes]:
    counter = itertools.count()
    return lambda size: hashlib.shake_256(str(next(counter)).encode()).digest(size)


def _median_us(action: Callable[[], object]) -> float:
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        for _ in range(BATCH):
            action()
        samples.append((time.perf_counter() - start) / BATCH * 1e6)
    return statistics.median(samples)


def envelope_measures() -> tuple[list[tuple[str, float]], int, int]:
    """(rows of (operation, median µs), bytes per action envelope, of which header +
    signature)."""
    rng = _rng()
    players = (Identity.generate(rng), Identity.generate(rng))
    hellos = [
        make_hello(p, seat=s, ruleset=b"std", catalogue_hash=bytes(32), rng=rng)
        for s, p in enumerate(players)
    ]
    setup = MatchSetup.from_hellos(*hellos)
    # A real ACTION body (SPEC §4.11): the input in engine notation and the state hash after it.
    body = ["activate d2 b3 e3", hashlib.sha256(b"state").digest()]
    fields = {
        "match_id": setup.match_id, "seq": 1234, "prev_hash": setup.genesis, "sender": 0,
        "kind": MessageKind.ACTION, "body": body,
    }
    envelope = seal(players[0], **fields)

    def receive_one() -> None:
        chain = setup.new_chain()
        chain.receive(first.raw)

    first = seal(players[0], **{**fields, "seq": 0})
    rows = [
        ("seal (encode + sign)", _median_us(lambda: seal(players[0], **fields))),
        ("open (decode + verify)", _median_us(
            lambda: open_envelope(envelope.raw, setup.match_id, setup.keys))),
        ("chain.receive (open + link + hash)", _median_us(receive_one)),
    ]
    rows.append(("seal + open", rows[0][1] + rows[1][1]))
    return rows, len(envelope.raw), len(envelope.raw) - len(encode(body))


def main() -> None:
    rows, size, overhead = envelope_measures()
    print(f"{'operation':<38}{'median µs':>12}")
    for name, micros in rows:
        print(f"{name:<38}{micros:>12.1f}")
    print(f"{'bytes per action envelope':<38}{size:>12}")
    print(f"{'  of which header + signature':<38}{overhead:>12}")


def match_measures() -> tuple[list[float], dict, dict]:
    """(action round µs samples, setup ms per deal mode, transcript bytes per deal mode)."""
    from tests.protocol.pair import Pair, play, rules_for
    from versus.protocol.match import Phase
    from versus.protocol.match.rules import DealMode

    rounds: list[float] = []
    for seed in range(4):
        pair = Pair(rules_for(DealMode.DECKLIST), label=f"bench/{seed}", seed=seed)
        pair.start()
        pair.deliver(choose=False)
        while True:
            mover = next((p for p in pair.peers if p.my_turn), None)
            if mover is None:
                break
            other = pair.peers[1 - mover.seat]
            legal = mover.legal_actions()
            action = legal[pair.chooser.randrange(len(legal))]
            start = time.perf_counter()
            mover.submit(action)
            out = mover.outgoing()
            other.receive(out[0])
            elapsed = time.perf_counter() - start
            if len(out) == 1 and not other._out:  # a plain one-envelope round
                rounds.append(elapsed * 1e6)
            for raw in out[1:]:
                other.receive(raw)
            pair.deliver(choose=False)
    setups: dict[DealMode, list[float]] = {mode: [] for mode in DealMode}
    sizes: dict[DealMode, list[int]] = {mode: [] for mode in DealMode}
    for mode in DealMode:
        for seed in range(RUNS if mode is DealMode.DECKLIST else 5):
            pair = Pair(rules_for(mode), label=f"setup/{mode.value}/{seed}")
            start = time.perf_counter()
            pair.start()
            while not all(p.phase is Phase.PLAY for p in pair.peers):
                pair.deliver(max_steps=1, choose=False)
            setups[mode].append((time.perf_counter() - start) * 1e3)
            sizes[mode].append(len(play(mode, label=f"size/{seed}", seed=seed)
                                   .peers[0].transcript_bytes()))
    return rounds, setups, sizes


def _match_rows() -> None:
    from versus.protocol.match.rules import DealMode

    rounds, setups, sizes = match_measures()
    print()
    print(f"{'match (in memory)':<38}{'median':>12}")
    print(f"{'action round (seal+verify+apply+hash)':<38}"
          f"{statistics.median(rounds):>9.1f} µs   (target <= {ROUND_TARGET_US}; n={len(rounds)})")
    for mode in DealMode:
        print(f"{'setup, ' + mode.value:<38}{statistics.median(setups[mode]):>9.1f} ms")
    for mode in DealMode:
        target = "; target <= 65536" if mode is DealMode.DECKLIST else ""
        print(f"{'transcript bytes, ' + mode.value:<38}{int(statistics.median(sizes[mode])):>9d}"
              f"      (max {max(sizes[mode])}{target})")


def figures() -> list[dict[str, object]]:
    """The figures with a documented target, and the other headline ones, for
    bench/run_all.py."""
    from versus.protocol.match.rules import DealMode

    rows, size, _ = envelope_measures()
    rounds, setups, sizes = match_measures()
    out: list[dict[str, object]] = [
        {"name": f"protocol {name}", "value": micros, "unit": "µs", "target": None,
         "comparison": None} for name, micros in rows]
    out += [
        {"name": "protocol bytes per action envelope", "value": size, "unit": "B",
         "target": None, "comparison": None},
        {"name": "protocol action round (seal+verify+apply+hash)",
         "value": statistics.median(rounds), "unit": "µs", "target": ROUND_TARGET_US,
         "comparison": "<="},
    ]
    for mode in DealMode:
        out.append({"name": f"protocol setup in memory, {mode.value}",
                    "value": statistics.median(setups[mode]), "unit": "ms", "target": None,
                    "comparison": None})
    for mode in DealMode:
        decklist = mode is DealMode.DECKLIST
        out.append({"name": f"protocol transcript bytes, {mode.value}",
                    "value": statistics.median(sizes[mode]), "unit": "B",
                    "target": 65536 if decklist else None,
                    "comparison": "<=" if decklist else None})
    return out


if __name__ == "__main__":
    main()
    _match_rows()
