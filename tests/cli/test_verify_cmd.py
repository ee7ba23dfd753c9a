# `versus verify`: exit codes (0 all valid, 1 some invalid, 2 usage or unreadable), the human
# summary, the JSON document, and one clear line (never a traceback) for files it cannot use.
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import versus.cli.verify_cmd as verify_cmd
from tests.protocol.test_corrupt_transcripts import (
    DECK,
    cheat_ended,
    finished,
    forged,
    hostile_evidence,
    resigned,
    timed_out,
    transcript_of,
)
from tests.protocol.test_verify_blame import assert_printable
from versus.cli.main import main
from versus.protocol.wire.envelope import MessageKind
from versus.protocol.wire.transcript import dump_transcript


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("transcripts")
    made = {
        "finished": finished(DECK).peers[0].transcript_bytes(),
        "resigned": resigned().peers[0].transcript_bytes(),
        "timeout": dump_transcript(transcript_of(timed_out())),
        "cheat": dump_transcript(transcript_of(cheat_ended(), 1)),
        "illegal": dump_transcript(forged(finished(DECK), MessageKind.ACTION, lambda env: {
            "body": ["move a1 e4", env.body[1]]}, n=2)[0]),
        "text": b"just some text\n",
        "evidence": dump_transcript(hostile_evidence()),
    }
    paths = {}
    for name, data in made.items():
        paths[name] = root / f"{name}.vst"
        paths[name].write_bytes(data)
    return paths


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main(["verify", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_endings_exit_zero_with_a_human_summary(files: dict[str, Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    names = ("finished", "resigned", "timeout", "cheat")
    code, out, err = run(capsys, *(files[n] for n in names))
    assert code == 0 and err == ""
    assert out.count(": OK: ") == 4 and "4 of 4 transcripts valid" in out
    pair = finished(DECK)
    for identity in pair.ids:
        assert identity.fingerprint in out
    assert "decklist, deck 12, hand 3" in out
    for ending in ("ended    game:", "ended    resignation:", "ended    timeout:",
                   "ended    fault:"):
        assert ending in out
    assert "actions  " in out and "illegal-action by seat 0 (player 1) (verified)" in out


def test_an_invalid_file_exits_one_and_names_envelope_check_and_seat(
        files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, files["finished"], files["illegal"])
    assert code == 1
    line = next(x for x in out.splitlines() if x.startswith(str(files["illegal"])))
    assert "INVALID at record" in line and "(ACTION seq" in line
    assert "illegal-action (at fault: seat" in line and "move a1 e4" in line
    assert "1 of 2 transcripts valid" in out


def test_json_is_one_document_with_a_report_per_file(files: dict[str, Path],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--json", files["finished"], files["illegal"], files["text"])
    assert code == 1
    reports = json.loads(out)
    assert [r["file"] for r in reports] == [str(files[n]) for n in ("finished", "illegal",
                                                                    "text")]
    good, bad, text = reports
    assert good["ok"] and good["summary"]["ending"] == "game" and good["check"] is None
    assert good["summary"]["players"] == [i.fingerprint for i in finished(DECK).ids]
    assert not bad["ok"] and bad["check"] == "illegal-action" and bad["player"] in (0, 1)
    assert bad["summary"]["bad_envelope"]["kind"] == "ACTION"
    assert text["check"] == "malformed-transcript" and text["bad_index"] is None


def test_unreadable_files_exit_two_with_one_line_each(files: dict[str, Path], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, tmp_path / "missing.vst", tmp_path, files["finished"])
    assert code == 2
    assert err.splitlines() == [
        f"versus verify: {tmp_path / 'missing.vst'}: UNREADABLE: No such file or directory",
        f"versus verify: {tmp_path}: UNREADABLE: Is a directory",
    ]
    assert "OK: " in out
    code, out, _ = run(capsys, "--json", tmp_path / "missing.vst")
    assert code == 2 and json.loads(out)[0]["check"] == "unreadable"


def test_not_a_transcript_and_oversize_are_invalid_in_one_line(
        files: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, files["text"])
    assert code == 1
    assert out.splitlines() == [f"{files['text']}: INVALID: malformed-transcript (at fault: "
                                "unknown): not a Versus transcript: starts with "
                                f"{b'just som'.hex()}, expected 895645525355530a"]
    monkeypatch.setattr(verify_cmd, "MAX_FILE_SIZE", 1000)
    code, out, _ = run(capsys, "-q", files["finished"])
    assert code == 1 and "oversize-field" in out and len(out.splitlines()) == 1


def test_usage_error_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["verify"])
    assert exit_info.value.code == 2


def test_the_installed_command_never_prints_a_traceback(files: dict[str, Path],
                                                        tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.vst"
    garbage.write_bytes(b"\x89VERSUS\n\x00\x01\x00\x00\xff\xff" + bytes(100))
    done = subprocess.run([sys.executable, "-m", "versus.cli.main", "verify", str(garbage),
                           str(files["cheat"])], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "malformed-transcript" in done.stdout or "oversize-field" in done.stdout


def test_peer_text_in_a_transcript_is_printed_escaped(files: dict[str, Path],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """An EVIDENCE message that would erase the line and print a fake "OK"."""
    for flags in ((), ("-q",), ("--json",)):
        code, out, err = run(capsys, *flags, files["evidence"])
        assert code == 1 and err == ""
        assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
        if flags == ("--json",):
            [report] = json.loads(out)
            assert report["check"] == "unproven-evidence" and report["player"] == 1
            continue
        assert_printable(out)
        assert f"{files['evidence']}: INVALID at record 14" in out
        if not flags:
            assert "reports replay: \\x0d\\x1b[2KOK: 40 records verified\\x0a\\u202e" in out


def test_a_file_name_with_escapes_is_printed_escaped(
        files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evil = tmp_path / "x\r\x1b[2KOK: 40 records verified\n.vst"
    evil.write_bytes(files["illegal"].read_bytes())
    for flags in ((), ("-q",)):
        code, out, err = run(capsys, *flags, evil, files["finished"])
        assert code == 1 and err == ""
        assert_printable(out)
        assert "x\\x0d\\x1b[2KOK: 40 records verified\\x0a.vst: INVALID at record" in out
    code, out, err = run(capsys, tmp_path / "gone\x1b[2K\rOK.vst")
    assert code == 2 and out == ""
    assert_printable(err)
    assert "gone\\x1b[2K\\x0dOK.vst: UNREADABLE" in err


def test_a_hostile_file_is_refused_in_bounded_memory(files: dict[str, Path],
                                                     tmp_path: Path) -> None:
    # 24 MB of copies of a real envelope, each of which parses: a verifier that reads the file
    # whole and parses every record first peaked at about 8 times the file.
    from tests.protocol.support import verify_peak_mb, write_padded_transcript

    hostile = tmp_path / "padded.vst"
    records = write_padded_transcript(str(hostile), files["finished"].read_bytes(), 24 << 20)
    assert records > 20_000
    code, small = verify_peak_mb(str(files["finished"]))
    assert code == 0
    code, peak = verify_peak_mb(str(hostile))
    assert code == 1  # refused at the first copy
    assert peak - small < 12, f"verifying 24 MB took {peak - small} MiB more than a small file"


def test_an_engine_that_raises_on_replay_is_one_verdict_line_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A transcript whose game's engine raises while it is replayed (any exception: here on
    every input) is INVALID at that record in one line, exit 1; anything that still escapes
    the verifier is the same one line (`internal-error`), never a traceback."""
    from tests.protocol.test_engine_faults import FaultyToy, toy_pair
    from versus.engine.registry import register_game, unregister_game

    register_game(FaultyToy())
    try:
        path = tmp_path / "toy.vtr"
        path.write_bytes(toy_pair("verify-cmd/faulty").run().peers[0].transcript_bytes())
        unregister_game(FaultyToy.id)
        register_game(FaultyToy(KeyError, "step", on=""))
        code, out, err = run(capsys, "-q", path)
        assert code == 1 and err == "" and out.count("\n") == 1, (out, err)
        assert ": INVALID at record " in out and "unplayable-input" in out and "KeyError" in out
    finally:
        unregister_game(FaultyToy.id)
    monkeypatch.setattr(verify_cmd, "verify_transcript", lambda *a, **k: [][0])
    code, out, err = run(capsys, path)
    assert code == 1 and err == "" and out.count("\n") == 1, (out, err)
    assert "INVALID: internal-error" in out and "IndexError" in out
