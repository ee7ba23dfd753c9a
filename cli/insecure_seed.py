# The test hooks of the networked commands, in one place: `--insecure-test-seed` (hidden, for
# tests and the golden transcripts) makes a host/join match's master secrets, handshake
# randomness and bot seeds derive from one seed, exactly as `versus demo --seed` derives its
# own (`seeded`), so a seeded match writes the same bytes on every run. Without the option
# every secret comes from `secrets`. Nothing else in cli derives a secret from a seed.
from __future__ import annotations

import argparse
import hashlib
import secrets
from collections.abc import Callable

from versus.protocol.match.rules import master_rng


def seeded(seed: bytes | None, label: str) -> bytes:
    """32 bytes for `label` from the seed (None: fresh random bytes)."""
    if seed is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(b"versus/demo/" + label.encode() + b"/" + seed).digest()


def seeded_secret(args: argparse.Namespace, seat: int, attempt: int = 0) -> bytes | None:
    """`--insecure-test-seed`: the master secret from the seed, as `versus demo --seed` derives
    it (so both sides of a host/join match given one seed replay the demo's secrets). A host's
    later attempt (after a joiner failed) gets a secret of its own: never one already used."""
    seed = getattr(args, "insecure_test_seed", None)
    label = f"secret{seat}" if attempt == 0 else f"secret{seat}/attempt{attempt}"
    return None if seed is None else seeded(seed, label)


def seeded_rng(args: argparse.Namespace, label: str) -> Callable[[int], bytes]:
    """`--insecure-test-seed`: the handshakes' randomness from the seed too (the match is bound
    to the first handshake, SPEC §4.5), as `versus demo --seed` does; else `secrets`."""
    seed = getattr(args, "insecure_test_seed", None)
    if seed is None:
        return secrets.token_bytes
    return master_rng(seeded(seed, label))


def seeded_number(args: argparse.Namespace, label: str) -> int | None:
    """A bot's seed from `--insecure-test-seed`, or None (the bot seeds itself)."""
    seed = getattr(args, "insecure_test_seed", None)
    return None if seed is None else int.from_bytes(seeded(seed, label)[:8], "big")
