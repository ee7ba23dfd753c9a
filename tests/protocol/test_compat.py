# Transcripts made before the protocol became generic still verify, and the same
# seeded match still writes the same bytes: the versus42 wire format did not change (SPEC §4.11,
# "no version bump"). The two files were written by `versus demo --seed 5eed` (decklist and
# shared pool) at commit 6589776, before the change, with catalogue version 1 (cards.json).
# Since catalogue version 2 new matches use the latest catalogue version; the verifier finds an old
# match's version by the digest its HELLOs bind (SPEC Part 2, "Versions").
from __future__ import annotations

from pathlib import Path

import pytest

from versus.cli.main import main
from versus.engine.versus42 import catalogue as catalogue_module
from versus.engine.versus42.catalogue import LATEST, catalogue_version, default_catalogue
from versus.p2p.session import saved_catalogue
from versus.protocol.match.verify import replay_inputs, verify_transcript

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


def test_the_same_seeded_match_writes_the_same_bytes_as_before(tmp_path: Path, capsys,
                                                                monkeypatch) -> None:
    monkeypatch.setattr(catalogue_module, "LATEST", 1)  # the card pool the fixture was made with
    assert main(["demo", "--deal", "decklist", "--seed", "5eed", "--quiet",
                 "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.glob("*/transcript.vtr")
    assert written.read_bytes() == (DATA / "versus42-decklist-before-issue16.vtr").read_bytes()


def test_a_new_demo_binds_the_latest_catalogue_and_old_transcripts_still_verify(
        tmp_path: Path, capsys) -> None:
    assert LATEST >= 2 and default_catalogue() is catalogue_version(LATEST)
    assert main(["demo", "--deal", "decklist", "--seed", "5eed", "--quiet",
                 "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.glob("*/transcript.vtr")
    new = replay_inputs(written.read_bytes())
    assert new.report.ok, new.report
    assert new.catalogue is catalogue_version(LATEST)  # found by the digest its HELLOs bind
    old_bytes = (DATA / "versus42-decklist-before-issue16.vtr").read_bytes()
    old = replay_inputs(old_bytes)
    assert old.report.ok, old.report
    assert old.catalogue is catalogue_version(1)
    # the digest binds the card pool: replayed with the latest one, the old match fails
    wrong = verify_transcript(old_bytes, catalogue_version(LATEST))
    assert not wrong.ok and wrong.check == "catalogue-mismatch"


def test_a_match_saved_before_the_upgrade_resumes_with_its_own_card_pool(tmp_path: Path,
                                                                          capsys) -> None:
    # before: MatchSession.restore rebuilt every saved match with the game's latest pool, so a
    # match begun before an upgrade could not resume (its HELLOs bind the old digest)
    old_bytes = (DATA / "versus42-decklist-before-issue16.vtr").read_bytes()
    assert saved_catalogue(old_bytes) is catalogue_version(1)
    assert main(["demo", "--deal", "decklist", "--seed", "5eed", "--quiet",
                 "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.glob("*/transcript.vtr")
    assert saved_catalogue(written.read_bytes()) is catalogue_version(LATEST)


def test_card_data_no_shipped_version_has_is_named_as_such(monkeypatch) -> None:
    # e.g. a transcript from a newer release: the verifier says which card data is missing
    from versus.engine.versus42 import VERSUS42

    monkeypatch.setattr(type(VERSUS42), "catalogue_for_digest", lambda self, digest: None)
    report = verify_transcript((DATA / "versus42-decklist-before-issue16.vtr").read_bytes())
    assert not report.ok and report.check == "catalogue-mismatch"
    assert "which no version of this game's card data has" in report.message
