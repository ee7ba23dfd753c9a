# Whom `verify_transcript` blames, and what its report shows.
#
# Item 8: a seat is at fault only for what its key signed. A record appended after CLOSED or
# ABORTED is always bad, but one that names seat 0 without seat 0's signature on it (no
# signature, a stranger's key, another match, a replay, a gap) blames nobody; only an envelope
# seat X really signed after the end blames X (the other seat's key on a record naming seat 0
# blames that other seat: it signed). A bad HELLO is named in the summary like any bad record.
# Item 7: whatever the transcript says (an EVIDENCE's code and message, a result detail) is
# shown printable: no line of the report carries a control character or can pass for "OK".
from __future__ import annotations

import re
from typing import Any

import pytest

from tests.protocol.pair import Pair, identities
from tests.protocol.test_corrupt_transcripts import (
    FAKE_OK,
    cheat_ended,
    finished,
    flip,
    hostile_evidence,
    timed_out,
    transcript_of,
    with_envelopes,
)
from versus.protocol.crypto.identity import Identity
from versus.protocol.match.verify import Report, verify_transcript
from versus.protocol.wire.envelope import MessageKind, parse_envelope, seal
from versus.protocol.wire.transcript import Transcript, dump_transcript

K = MessageKind
STRANGER = identities("stranger")[0]
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def ended(name: str) -> tuple[Pair, Transcript]:
    """A transcript that ended: "closed" (a whole match), "aborted" (a verified cheat)."""
    if name == "closed":
        pair = finished()
        return pair, transcript_of(pair)
    pair = cheat_ended()
    return pair, transcript_of(pair, 1)


def after_the_end(pair: Pair, t: Transcript, how: str) -> bytes:
    """One more record naming seat 0 as its sender, forged `how`."""
    last = parse_envelope(t.envelopes[-1])
    fields: dict[str, Any] = {"match_id": last.match_id, "seq": last.seq + 1,
                              "prev_hash": last.hash, "sender": 0, "kind": K.ACTION,
                              "body": ["end", bytes(32)]}
    signer: Identity = pair.ids[0]
    if how == "unsigned":
        return seal(signer, **fields).raw[:-64] + bytes(64)
    if how == "stranger":
        signer = STRANGER
    elif how == "other match":
        fields["match_id"] = bytes(32)
    elif how == "gap":
        fields["seq"] += 5
    elif how == "replayed":
        return next(raw for raw in t.envelopes if parse_envelope(raw).sender == 0)
    elif how == "seat 1's key":
        signer = pair.ids[1]
    return seal(signer, **fields).raw


def terminal_lines(text: str) -> list[str]:
    """The lines a terminal would show: split at CR and LF, CSI escape sequences removed."""
    return [ANSI.sub("", line) for line in re.split(r"[\r\n]", text)]


def assert_printable(text: str, ok: bool = False) -> None:
    """Every line printable, and no line a terminal shows starts with "OK" but the verdict of a
    valid transcript."""
    for line in text.splitlines():
        assert line.isprintable(), repr(line)
    shown = terminal_lines(text)
    assert shown[0].startswith("OK") is ok, text
    assert not any(line.startswith("OK") for line in shown[1:]), text


# --- item 8: after the end, only a signature blames ------------------------------------------


@pytest.mark.parametrize("full", [False, True], ids=["fast", "full"])
@pytest.mark.parametrize("end", ["closed", "aborted"])
@pytest.mark.parametrize(("how", "check"), [
    ("unsigned", "bad-signature"),
    ("stranger", "bad-signature"),
    ("other match", "wrong-match-id"),
    ("gap", "sequence-gap"),
    ("replayed", "replay"),
])
def test_a_record_seat_0_did_not_sign_after_the_end_blames_nobody(
        end: str, how: str, check: str, full: bool) -> None:
    pair, t = ended(end)
    assert verify_transcript(t).ok
    report = verify_transcript(with_envelopes(t, [*t.envelopes, after_the_end(pair, t, how)]),
                               full=full)
    assert (report.ok, report.check, report.bad_index, report.player) == (
        False, check, len(t.records), None), report.describe()
    verdict = report.describe().splitlines()[0]
    assert "(at fault: unknown)" in verdict and "seat 0)" not in verdict.split(":")[1], verdict
    assert "at fault: seat" not in report.describe()
    if how != "replayed":  # a replay names the sender of the envelope it copies
        assert report.summary["bad_envelope"]["sender"] == 0
        assert "naming seat 0" in verdict, verdict


@pytest.mark.parametrize("end", ["closed", "aborted"])
def test_an_envelope_seat_0_signed_after_the_end_blames_seat_0(end: str) -> None:
    pair, t = ended(end)
    for full in (False, True):
        report = verify_transcript(
            with_envelopes(t, [*t.envelopes, after_the_end(pair, t, "signed")]), full=full)
        assert (report.check, report.bad_index, report.player) == (
            "out-of-turn", len(t.records), 0), report.describe()
        verdict = report.describe().splitlines()[0]
        assert "from seat 0)" in verdict and "(at fault: seat 0)" in verdict, verdict
        assert "signed by seat 0 after the match" in report.message


def test_the_other_seat_s_key_on_a_record_naming_seat_0_blames_the_signer() -> None:
    pair, t = ended("closed")
    report = verify_transcript(
        with_envelopes(t, [*t.envelopes, after_the_end(pair, t, "seat 1's key")]))
    assert (report.check, report.bad_index, report.player) == (
        "wrong-sender", len(t.records), 1), report.describe()
    assert "naming seat 0" in report.describe() and "(at fault: seat 1)" in report.describe()


# --- the verifier detail: a bad HELLO is named in the summary --------------------------------


def test_a_bad_hello_is_named_in_the_summary() -> None:
    t = transcript_of(finished())
    hello = flip(t.hellos[1], len(t.hellos[1]) - 72)  # last byte of the nonce: parses, unsigned
    report = verify_transcript(Transcript((t.hellos[0], hello), t.envelopes))
    assert (report.check, report.bad_index, report.player) == ("bad-signature", 1, None)
    assert report.summary["bad_envelope"] == {"seq": 0, "kind": "HELLO", "sender": 1}
    assert report.describe().startswith("INVALID at record 1 (HELLO seq 0 naming seat 1): "
                                        "bad-signature (at fault: unknown)"), report.describe()


def test_hellos_out_of_order_and_of_other_rules_are_named() -> None:
    t = transcript_of(finished())
    swapped = verify_transcript(Transcript((t.hellos[1], t.hellos[0]), t.envelopes))
    assert (swapped.check, swapped.bad_index) == ("setup-mismatch", 0)
    assert swapped.summary["bad_envelope"] == {"seq": 0, "kind": "HELLO", "sender": 1}
    clock = transcript_of(timed_out()).hellos[1]  # a clock: rules the other HELLO never offered
    mixed = verify_transcript(Transcript((t.hellos[0], clock), t.envelopes))
    assert (mixed.check, mixed.bad_index, mixed.player) == ("setup-mismatch", 1, None)
    assert mixed.summary["bad_envelope"] == {"seq": 0, "kind": "HELLO", "sender": 1}


def test_a_hello_that_does_not_parse_has_no_bad_envelope() -> None:
    t = transcript_of(finished())
    report = verify_transcript(Transcript((t.hellos[0], b"\xc1"), t.envelopes))
    assert (report.check, report.bad_index) == ("malformed-message", 1)
    assert "bad_envelope" not in report.summary


# --- item 7: what the report shows is printable ----------------------------------------------


def test_an_evidence_text_with_a_fake_verdict_is_shown_escaped() -> None:
    report = verify_transcript(dump_transcript(hostile_evidence()))
    assert (report.ok, report.check, report.player) == (False, "unproven-evidence", 1)
    text = report.describe()
    assert_printable(text)
    assert "\\x1b[2KOK: 40 records verified\\x0a\\u202e" in text


def test_describe_escapes_peer_text_in_every_summary_field() -> None:
    """`describe` itself makes whatever a summary holds printable (a report rebuilt from JSON,
    or text from a peer that no earlier layer cleaned)."""
    evil = FAKE_OK + "\u202e\u2066\x07" + "x" * 10_000
    summary = {"result": {"ending": "fault", "winner": None, "outcome": None,
                          "detail": f"seat 1 reports replay: {evil}"},
               "fault": {"code": f"replay{FAKE_OK}", "player": None, "attributable": False,
                         "message": evil},
               "bad_envelope": {"seq": 11, "kind": "EVIDENCE", "sender": 1}}
    for ok in (False, True):
        report = Report(ok, 14, None if ok else 14, None if ok else f"code{FAKE_OK}", 1, evil,
                        summary)
        text = report.describe()
        assert_printable(text, ok)
        assert all(len(line) < 600 for line in text.splitlines())  # each text was cut
        assert "\\x0d\\x1b[2KOK" in text and "\\u202e\\u2066\\x07" in text
