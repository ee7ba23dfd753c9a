# The offline verifier's fast path (SPEC §4.4): a valid transcript is accepted after checking
# one signature per seat (its last chain envelope), the HELLOs and the EVIDENCE items, since a
# seat's signature endorses the whole chain before it through prev_hash; anything that fails
# reruns the full per-envelope verification. These tests hold the fast path to the full one.
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import tests.protocol.test_corrupt_transcripts as corpus
from tests.protocol.pair import reseal
from tests.protocol.test_corrupt_transcripts import (
    cheat_ended,
    finished,
    relink,
    resigned,
    timed_out,
    transcript_of,
    with_envelopes,
)
from versus.protocol.match.verify import Report, verify_transcript
from versus.protocol.wire.envelope import MessageKind, parse_envelope
from versus.protocol.wire.transcript import Transcript

DECK, POOL = corpus.DECK, corpus.POOL
#: the one corpus case the fast path reports differently, by design: an edit re-signed with both
#: keys that the edited seat's own later signature endorses (see the module comment)
BOTH_KEYS = {"test_envelope_signed_by_the_other_seat"}


def _same(transcript: Transcript | bytes, *args: Any, **kwargs: Any) -> Report:
    kwargs.pop("full", None)
    fast = verify_transcript(transcript, *args, **kwargs)
    full = verify_transcript(transcript, *args, full=True, **kwargs)
    assert fast.to_dict() == full.to_dict()
    return fast


def _corpus() -> list[tuple[str, Callable[..., None], dict[str, Any]]]:
    out = []
    for name, test in sorted(vars(corpus).items()):
        if not name.startswith("test_") or name in BOTH_KEYS:
            continue
        marks = getattr(test, "pytestmark", [])
        params = [m for m in marks if m.name == "parametrize"]
        if params:
            arg, values = params[0].args
            out += [(f"{name}[{v}]", test, {arg: v}) for v in values]
        elif not inspect.signature(test).parameters:
            out.append((name, test, {}))
    return out


@pytest.mark.parametrize(("name", "test", "kwargs"), _corpus(), ids=[c[0] for c in _corpus()])
def test_fast_path_reports_as_the_full_path_on_the_corpus(
        name: str, test: Callable[..., None], kwargs: dict[str, Any],
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Report] = []

    def both(*args: Any, **kw: Any) -> Report:
        calls.append(_same(*args, **kw))
        return calls[-1]

    monkeypatch.setattr(corpus, "verify_transcript", both)
    test(**kwargs)
    if not calls:
        pytest.skip("this corpus test does not call verify_transcript")


@pytest.mark.parametrize("make", [lambda: transcript_of(finished(DECK)),
                                  lambda: transcript_of(finished(POOL)),
                                  lambda: transcript_of(resigned()),
                                  lambda: transcript_of(timed_out()),
                                  lambda: transcript_of(cheat_ended(), 1)])
def test_fast_path_reports_as_the_full_path_on_valid_transcripts(
        make: Callable[[], Transcript]) -> None:
    assert _same(make()).ok


def test_a_bad_signature_anywhere_is_found_and_named() -> None:
    t = transcript_of(finished())
    n = len(t.envelopes)
    # the setup, a spread of the play, the end (every envelope costs a full verification)
    for i in sorted({*range(min(8, n)), *range(8, n, 5), *range(max(0, n - 6), n)}):
        envelopes = list(t.envelopes)
        envelopes[i] = envelopes[i][:-1] + bytes([envelopes[i][-1] ^ 1])
        report = _same(with_envelopes(t, envelopes))
        assert (report.ok, report.check, report.bad_index) == (False, "bad-signature", i + 2)


def test_an_early_bad_signature_in_a_consistent_chain_is_rejected() -> None:
    """An early envelope with a bad signature, the rest relinked and re-signed: the chain
    links, yet the edit changed the early envelope's hash, so the seat's later signature no
    longer endorses what it signed... unless the forger re-signed it, which needs that seat's
    key: then it is that seat's own (re-)signed history. With one key, the other seat's last
    envelope still names the old history and the fast path fails over to the full one."""
    pair = finished()
    t = transcript_of(pair)
    envelopes = list(t.envelopes)
    i = 3
    envelopes[i] = envelopes[i][:-1] + bytes([envelopes[i][-1] ^ 1])
    # re-sign only the forger's own later envelopes (one key): the other seat's stay as they were
    forger = parse_envelope(envelopes[i]).sender
    out = list(envelopes)
    for j in range(i + 1, len(out)):
        env = parse_envelope(out[j])
        prev = parse_envelope(out[j - 1])
        if env.sender == forger:
            out[j] = reseal(pair.ids[forger], env, prev_hash=prev.hash)
    report = _same(with_envelopes(t, out))
    assert not report.ok and report.bad_index == i + 2 and report.check == "bad-signature"


def test_fast_path_still_checks_the_last_signature_of_each_seat() -> None:
    t = transcript_of(finished())
    for seat in (0, 1):
        last = max(i for i, raw in enumerate(t.envelopes) if parse_envelope(raw).sender == seat)
        envelopes = list(t.envelopes)
        envelopes[last] = envelopes[last][:-1] + bytes([envelopes[last][-1] ^ 1])
        report = verify_transcript(with_envelopes(t, envelopes))
        assert not report.ok and report.check == "bad-signature" and report.bad_index == last + 2


def test_both_keys_relinked_edit_is_named_by_the_full_path() -> None:
    pair = finished()
    t = transcript_of(pair)
    i = corpus.index_of(t, MessageKind.ACTION)
    env = parse_envelope(t.envelopes[i])
    envelopes = list(t.envelopes)
    envelopes[i] = reseal(pair.ids[1 - env.sender], env)
    forged = with_envelopes(t, relink(pair, envelopes, i))
    full = verify_transcript(forged, full=True)
    assert not full.ok and full.check == "wrong-sender"
    # every envelope is endorsed by both keys through the chain: the fast path accepts it
    assert verify_transcript(forged).ok
