# Shared fixtures for the protocol tests: reproducible randomness, two players, a match setup.
#
# The rng is SHAKE-256 over a label and a counter: deterministic, so a failing test replays
# exactly, yet every call returns fresh bytes, as secrets.token_bytes would.
from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable

from versus.protocol.crypto.identity import Identity
from versus.protocol.match.setup import Hello, MatchSetup, make_hello
from versus.protocol.wire.chain import Chain
from versus.protocol.wire.envelope import Envelope, MessageKind

RULESET = b"\x92\xa8standard\x01"
CATALOGUE_HASH = hashlib.sha256(b"test catalogue").digest()


def make_rng(label: str = "test") -> Callable[[int], bytes]:
    counter = itertools.count()

    def rng(size: int) -> bytes:
        return hashlib.shake_256(f"{label}/{next(counter)}".encode()).digest(size)

    return rng


def make_players(label: str = "players") -> tuple[Identity, Identity]:
    rng = make_rng(label)
    return Identity.generate(rng), Identity.generate(rng)


def make_hellos(
    players: tuple[Identity, Identity], label: str = "hellos"
) -> tuple[Hello, Hello]:
    rng = make_rng(label)
    return (
        make_hello(players[0], seat=0, ruleset=RULESET, catalogue_hash=CATALOGUE_HASH, rng=rng),
        make_hello(players[1], seat=1, ruleset=RULESET, catalogue_hash=CATALOGUE_HASH, rng=rng),
    )


def make_setup(
    players: tuple[Identity, Identity], label: str = "hellos"
) -> MatchSetup:
    return MatchSetup.from_hellos(*make_hellos(players, label))


def play(setup: MatchSetup, players: tuple[Identity, Identity], turns: int) -> list[Envelope]:
    """`turns` ACTION envelopes, seats alternating, accepted by a fresh chain."""
    chain: Chain = setup.new_chain()
    for turn in range(turns):
        chain.seal(players[turn % 2], MessageKind.ACTION, [turn, "summon", [turn, 3], bytes(32)])
    return list(chain.envelopes)


def write_padded_transcript(path: str, transcript: bytes, size: int) -> int:
    """Write `transcript` (a real one's file bytes) to `path`, followed by copies of its last
    record until the file holds about `size` bytes: a hostile file whose every record parses
    (so a verifier that keeps what it parsed grows with it) and is refused at the first copy.
    Returns the number of records written."""
    from versus.protocol.wire.transcript import dump_transcript, encode_record, load_transcript

    loaded = load_transcript(transcript)
    last = encode_record(loaded.envelopes[-1])
    copies = max(0, (size - len(transcript)) // len(last))
    with open(path, "wb") as file:
        file.write(dump_transcript(loaded))
        chunk = last * 4096
        for _ in range(copies // 4096):
            file.write(chunk)
        file.write(last * (copies % 4096))
    return 2 + len(loaded.envelopes) + copies


_PEAK_RSS = """
import resource, sys
from versus.cli.main import main
code = main(["verify", "--quiet", sys.argv[1]])
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def verify_peak_mb(path: str) -> tuple[int, int]:
    """(exit status, peak resident MiB) of `versus verify --quiet PATH` in a fresh interpreter
    of this checkout (the test of bounded memory and bench/audit.py's memory section)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _PEAK_RSS, path], capture_output=True,
                          text=True, timeout=600, check=False,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    code, peak = done.stdout.split()[-2:]
    return int(code), int(peak)
