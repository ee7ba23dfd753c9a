# A userspace stand-in for `tc netem` where the kernel lacks sch_netem: a "wire" between two
# TUN devices. Run as a process in the root namespace, it creates both devices (the test then
# moves each into its namespace and gives it an address) and forwards every IP packet read from
# one device to the other, late by the configured delay and dropped with the configured
# probability, per direction, in order (as netem does with a fixed delay). The kernels on both
# ends see a point-to-point link with real packet loss and latency; their TCP stacks retransmit.
#
#   python tests/netfaults/wire.py DEV_A DEV_B [--delay-ab S] [--delay-ba S] [--loss P]
#                                  [--seed N]
# It prints "ready" once both devices exist, and runs until SIGTERM, when it prints
# "forwarded N dropped M" (packets) and exits.
from __future__ import annotations

import argparse
import fcntl
import heapq
import os
import random
import selectors
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
MTU_READ = 65_536


def open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def run(dev_a: str, dev_b: str, delays: tuple[float, float], loss: float, seed: int) -> None:
    fds = (open_tun(dev_a), open_tun(dev_b))
    chance = random.Random(seed)  # a test fixture, not a secret: reproducible drops
    selector = selectors.DefaultSelector()
    for side, fd in enumerate(fds):
        selector.register(fd, selectors.EVENT_READ, side)
    due: list[tuple[float, int, int, bytes]] = []  # (when, order, to fd, packet)
    order = dropped = forwarded = 0

    def report(*_: object) -> None:
        print(f"forwarded {forwarded} dropped {dropped}", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, report)
    print("ready", flush=True)
    while True:
        timeout = None if not due else max(0.0, due[0][0] - time.monotonic())
        for key, _ in selector.select(timeout):
            side = key.data
            while True:
                try:
                    packet = os.read(fds[side], MTU_READ)
                except (BlockingIOError, OSError):
                    break
                if loss and chance.random() < loss:
                    dropped += 1
                    continue
                order += 1
                heapq.heappush(due, (time.monotonic() + delays[side], order, fds[1 - side],
                                     packet))
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, _, fd, packet = heapq.heappop(due)
            try:
                os.write(fd, packet)
                forwarded += 1
            except OSError:  # the far device is down (a cut link): the packet is lost
                pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dev_a")
    parser.add_argument("dev_b")
    parser.add_argument("--delay-ab", type=float, default=0.0)
    parser.add_argument("--delay-ba", type=float, default=0.0)
    parser.add_argument("--loss", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        run(args.dev_a, args.dev_b, (args.delay_ab, args.delay_ba), args.loss, args.seed)
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
