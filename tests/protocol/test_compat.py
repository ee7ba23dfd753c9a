# Transcripts made before the protocol became generic (issue 16) still verify, and the same
# seeded match still writes the same bytes: the versus42 wire format did not change (SPEC §4.11,
# "no version bump"). The two files were written by `versus demo --seed 5eed` (decklist and
# shared pool) at commit 6589776, before the change.
from __future__ import annotations

from pathlib import Path

import pytest

from versus.cli.main import main
from versus.protocol.match.verify import verify_transcript

DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(("name", "records", "outcome"), [
    ("versus42-decklist-before-issue16.vtr", 83, "absorption"),
    ("versus42-pool-before-issue16.vtr", 155, "elimination"),
])
def test_a_transcript_from_before_the_generic_protocol_verifies(name: str, records: int,
                                                                outcome: str) -> None:
    report = verify_transcript((DATA / name).read_bytes())
    assert report.ok, report
    assert report.records == records
    assert report.summary["result"]["outcome"] == outcome
    assert report.summary["rules"]["game"] == "versus42"


def test_the_same_seeded_match_writes_the_same_bytes_as_before(tmp_path: Path, capsys) -> None:
    assert main(["demo", "--deal", "decklist", "--seed", "5eed", "--quiet",
                 "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.glob("*/transcript.vtr")
    assert written.read_bytes() == (DATA / "versus42-decklist-before-issue16.vtr").read_bytes()
