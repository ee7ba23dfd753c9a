# Transport benchmark: over real TCP on 127.0.0.1, the time to connect and complete the
# handshake, and the round-trip time of a ~300-byte encrypted msgpack message echoed by the
# peer; then the full protocol through two MatchSessions (p2p/loopback.py, random bots, the
# host's transcript written to a temp dir): per action, the time from one player's submit to
# the opponent's session having applied it (seal, persist, send, receive, verify the
# signature and chain, engine step, state-hash check, persist) and back to the submitter as the
# next envelope when the peer answers automatically (a DRAW or OPEN); and match setup
# (listen + connect + handshake + offer + HELLO/COMMIT/REVEAL(/SHUFFLE) until PLAY) per deal
# mode. Each figure is the median
# over several runs (CONTRIBUTING: benchmarks print a table). One row does not move with the
# machine's load: the trio task steps per envelope of a whole match (both sides, one process),
# each a task switch on the path of the messages.
#
#   .venv/bin/python bench/p2p.py [--runs 5] [--round-trips 2000] [--handshakes 100]
#                                 [--matches 10]
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from versus.cli.argtypes import count
from versus.cli.driving import drive_player
from versus.p2p.channel import SecureChannel
from versus.p2p.connect import connect, listening_port, open_listeners, serve
from versus.p2p.errors import ConnectionClosedError
from versus.p2p.framing import pack_payload
from versus.protocol.crypto.identity import Identity

MESSAGE = {"type": "action", "seq": 12345, "action": ["summon", 3, [1, 2]], "pad": b"x" * 240}


async def echo(channel: SecureChannel) -> None:
    try:
        while True:
            await channel.send(await channel.receive())
    except ConnectionClosedError:
        pass


async def one_run(round_trips: int, handshakes: int) -> tuple[list[float], list[float]]:
    host, guest = Identity(b"\x01" * 32), Identity(b"\x02" * 32)
    listeners = await open_listeners(0, bind="127.0.0.1")
    port = listening_port(listeners)
    rtts: list[float] = []
    setups: list[float] = []
    async with trio.open_nursery() as nursery:
        await nursery.start(serve, listeners, host, echo)
        for _ in range(handshakes):
            start = time.perf_counter()
            channel = await connect("127.0.0.1", port, guest)
            setups.append(time.perf_counter() - start)
            await channel.aclose()
        channel = await connect("127.0.0.1", port, guest, expected_fingerprint=host.fingerprint)
        for _ in range(50):  # warm up
            await channel.send(MESSAGE)
            await channel.receive()
        for _ in range(round_trips):
            start = time.perf_counter()
            await channel.send(MESSAGE)
            await channel.receive()
            rtts.append(time.perf_counter() - start)
        await channel.aclose()
        nursery.cancel_scope.cancel()
    for listener in listeners:
        await listener.aclose()
    return rtts, setups


class _Timed:
    """A random bot whose answers are timestamped: the submit follows at once."""

    def __init__(self, seed: int, marks: list[tuple[float, int, int]], seat: int) -> None:
        from versus.cli.bots import RandomBot

        self.bot, self.marks, self.seat, self.name = RandomBot(seed), marks, seat, "timed"
        self.session = None

    async def choose(self, view, legal):  # type: ignore[no-untyped-def]
        # Think 2 ms, as any real player does: both sessions share this process's one thread,
        # and a bot answering in zero time would measure its own next action's work (and the
        # other side's queued work) as latency. With two machines each side has its own CPU.
        await trio.sleep(0.002)
        action = self.bot.choose(view, legal)
        assert self.session is not None
        self.marks.append((time.perf_counter(), self.seat, self.session.peer.seq + 1))
        return action


class _Steps(trio.abc.Instrument):
    """Counts the task steps trio runs (each one a task switch)."""

    def __init__(self) -> None:
        self.steps = 0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self.steps += 1


async def one_match(mode: str, seed: int, tmp: str
                    ) -> tuple[list[float], list[float], float, float]:
    """(apply latencies, round trips, setup seconds, task steps per envelope) of one whole
    match."""
    from versus.p2p.loopback import play_loopback_match
    from versus.p2p.session import SessionConfig
    from versus.protocol.match.rules import DealMode, MatchRules

    marks: list[tuple[float, int, int]] = []
    players = [_Timed(seed, marks, 0), _Timed(seed + 1, marks, 1)]
    applied: list[float] = []
    rtts: list[float] = []
    sessions: list = []

    def on_start(host, guest) -> None:  # type: ignore[no-untyped-def]
        sessions.extend([host, guest])
        players[0].session, players[1].session = host, guest
        watch(0)
        watch(1)

    pending_rtt: list[tuple[float, int, int]] = []

    def watch(seat: int) -> None:
        # Hook the session's own post-call step, so the time is taken the moment the envelope
        # is applied (and persisted), not when some task next gets scheduled.
        session = sessions[seat]
        original = session._after_peer_call

        def after(events):  # type: ignore[no-untyped-def]
            original(events)
            now = time.perf_counter()
            seq = session.peer.seq
            for mark in [m for m in marks if m[1] != seat and seq >= m[2]]:
                applied.append(now - mark[0])
                marks.remove(mark)
                if seq > mark[2]:  # the peer answered at once (a DRAW, an OPEN): a round trip
                    pending_rtt.append(mark)
            for mark in [m for m in pending_rtt if m[1] == seat and seq > m[2]]:
                rtts.append(now - mark[0])
                pending_rtt.remove(mark)

        session._after_peer_call = after

    steps = _Steps()
    trio.lowlevel.add_instrument(steps)

    async def run() -> float:
        async with trio.open_nursery() as nursery:
            box = []

            async def play() -> None:
                box.append(await play_loopback_match(
                    players, MatchRules(deal_mode=DealMode(mode)), transcript_dir=tmp,
                    config=SessionConfig(narrate=False), on_start=on_start, timeout=120,
                    drive=drive_player))
                nursery.cancel_scope.cancel()

            nursery.start_soon(play)
        return box[0].setup_seconds

    setup = await run()
    trio.lowlevel.remove_instrument(steps)
    return applied, rtts, setup, steps.steps / max(1, sessions[0].peer.seq)


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


def measure(runs: int = 5, round_trips: int = 2000, handshakes: int = 100,
            matches: int = 10) -> list[tuple[str, float, str]]:
    """Every row of the table: (measure, median ms, target text)."""
    import tempfile
    rtt_medians, rtt_p99s, setup_medians = [], [], []
    for _ in range(runs):
        rtts, setups = trio.run(one_run, round_trips, handshakes)
        rtt_medians.append(statistics.median(rtts))
        rtt_p99s.append(p99(rtts))
        setup_medians.append(statistics.median(setups))
    size = len(pack_payload(MESSAGE))
    ms = 1000
    rows = [
        (f"echo round trip, median ({size} B payload)", statistics.median(rtt_medians) * ms,
         "≤ 1 ms (full action)"),
        (f"echo round trip, p99 ({round_trips} per run)",
         statistics.median(rtt_p99s) * ms, "≤ 5 ms (full action)"),
        (f"connect + handshake, median ({handshakes} per run)",
         statistics.median(setup_medians) * ms, "≤ 50 ms (match setup)"),
    ]
    for mode in ("decklist", "shared-pool"):
        applied_all: list[float] = []
        rtt_all: list[float] = []
        setups: list[float] = []
        steps: list[float] = []
        with tempfile.TemporaryDirectory() as tmp:
            for m in range(matches):
                applied, rtts, setup, per_envelope = trio.run(one_match, mode, 1000 + 2 * m, tmp)
                applied_all += applied
                rtt_all += rtts
                setups.append(setup)
                steps.append(per_envelope)
        n = len(applied_all)
        decklist = mode == "decklist"
        rows += [
            (f"{mode}: action submit -> peer applied, median", statistics.median(applied_all)
             * ms, "≤ 0.8 ms" if decklist else "≤ 1 ms"),
            (f"{mode}: action submit -> peer applied, p99 ({n})", p99(applied_all) * ms,
             "≤ 5 ms"),
            (f"{mode}: action + automatic answer round trip, median ({len(rtt_all)})",
             statistics.median(rtt_all) * ms, ""),
            (f"{mode}: action + automatic answer round trip, p99", p99(rtt_all) * ms, ""),
            (f"{mode}: match setup until PLAY, median ({matches})",
             statistics.median(setups) * ms, "≤ 8 ms" if decklist else "≤ 150 ms"),
            (f"{mode}: trio task steps per envelope (count, not ms)", statistics.median(steps),
             ""),
        ]
    return rows


def figures(runs: int = 5, round_trips: int = 2000, handshakes: int = 100,
            matches: int = 10) -> list[dict[str, object]]:
    """The rows as figures for bench/run_all.py; a target "≤ N ms" becomes (N, "<=")."""
    out: list[dict[str, object]] = []
    for name, value, target in measure(runs, round_trips, handshakes, matches):
        limit = float(target.split()[1]) if target.startswith("≤ ") else None
        unit = "steps" if "task steps" in name else "ms"
        out.append({"name": f"p2p {name}", "value": value, "unit": unit, "target": limit,
                    "comparison": None if limit is None else "<="})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=count, default=5)
    parser.add_argument("--round-trips", type=count, default=2000)
    parser.add_argument("--handshakes", type=count, default=100)
    parser.add_argument("--matches", type=count, default=10, help="protocol matches per mode")
    args = parser.parse_args()
    rows = measure(args.runs, args.round_trips, args.handshakes, args.matches)
    print(f"p2p transport over TCP 127.0.0.1, median of {args.runs} runs (Python "
          f"{sys.version.split()[0]}, trio {trio.__version__})")
    print(f"{'measure':<60} {'ms':>8}   target")
    print("-" * 80)
    for name, value, target in rows:
        print(f"{name:<60} {value:>8.3f}   {target}")


if __name__ == "__main__":
    main()
