# SPEC Part 11, §11.7.3.1: the worked example's hashes, recomputed from the code, so the SPEC text
# and the implementation cannot drift apart (a change to either fails here).
from __future__ import annotations

import re
from pathlib import Path

from versus.protocol.solo import run as R
from versus.protocol.solo.challenge import commitment
from versus.protocol.wire.canonical import TAG_SOLO_DAILY, tagged_hash

SPEC = Path(__file__).resolve().parents[3] / "SPEC.md"


def _example() -> str:
    text = SPEC.read_text(encoding="utf-8")
    start = text.index("- **11.7.3.1 Worked example**")
    return text[start:text.index("- **11.7.4 Records.**", start)]


def test_spec_worked_example_recomputes():
    ex = " ".join(_example().split())
    secret, challenge, player = b"\x07" * 32, b"\x01" * 32, b"\x02" * 32
    assert f"commitment = `{commitment(secret).hex()}`" in ex
    for k in (0, 1):
        v = R.value(secret, challenge, player, "d6", k)
        below = R.below(v, 6)
        assert f"v(d6, {k}) = `{v.hex()}` (below(6) = {below}: die {below + 1})" in ex
    daily = tagged_hash(TAG_SOLO_DAILY, b"\x01" * 32, "multiverse", "2025-03-01")
    assert re.search(rf"date 2025-03-01\) = `{daily.hex()}`", ex)


def test_spec_s6_names_every_verify_code():
    text = SPEC.read_text(encoding="utf-8")
    s6 = text[text.index("- **11.7.6 Verify**"):text.index("- **11.7.7 What is proved")]
    assert [c for c in R.CHECKS if f"`{c}`" not in s6] == []
