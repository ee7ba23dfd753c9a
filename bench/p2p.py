# Transport benchmark: over real TCP on 127.0.0.1, the time to connect and complete the
# handshake, and the round-trip time of a ~300-byte encrypted msgpack message echoed by the
# peer. Each figure is the median over several runs (CONTRIBUTING: benchmarks print a table).
#
#   .venv/bin/python bench/p2p.py [--runs 5] [--round-trips 2000] [--handshakes 100]
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from p2p.channel import SecureChannel
from p2p.connect import connect, listening_port, open_listeners, serve
from p2p.errors import ConnectionClosedError
from p2p.framing import pack_payload
from protocol.identity import Identity

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


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--handshakes", type=int, default=100)
    args = parser.parse_args()
    rtt_medians, rtt_p99s, setup_medians = [], [], []
    for _ in range(args.runs):
        rtts, setups = trio.run(one_run, args.round_trips, args.handshakes)
        rtt_medians.append(statistics.median(rtts))
        rtt_p99s.append(p99(rtts))
        setup_medians.append(statistics.median(setups))
    size = len(pack_payload(MESSAGE))
    ms = 1000
    rows = [
        (f"echo round trip, median ({size} B payload)", statistics.median(rtt_medians) * ms,
         "≤ 1 ms (full action)"),
        (f"echo round trip, p99 ({args.round_trips} per run)",
         statistics.median(rtt_p99s) * ms, "≤ 5 ms (full action)"),
        (f"connect + handshake, median ({args.handshakes} per run)",
         statistics.median(setup_medians) * ms, "≤ 50 ms (match setup)"),
    ]
    print(f"p2p transport over TCP 127.0.0.1, median of {args.runs} runs (Python "
          f"{sys.version.split()[0]}, trio {trio.__version__})")
    print(f"{'measure':<48} {'ms':>8}   target")
    print("-" * 80)
    for name, value, target in rows:
        print(f"{name:<48} {value:>8.3f}   {target}")


if __name__ == "__main__":
    main()
