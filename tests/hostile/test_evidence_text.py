# A hostile peer's own words on the honest side's screen, over real
# TCP: the joiner (seat 1) ends the match with an EVIDENCE it signed whose code and message carry
# terminal escapes, a fake verdict line and a bidi override, and a CLOSE reason full of escapes.
# Whatever the honest side shows of them (the live outcome line, the session's fault detail, the
# transcript's `versus verify` output, the transport error) is printable, escaped visibly
# (`\x1b`, never a raw ESC) and length-limited; no line it prints can pass for "OK".
from __future__ import annotations

import argparse
import io
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from tests.hostile.harness import (
    CHEATER,
    FAST_CHANNEL,
    HONEST,
    HonestHost,
    HostilePeer,
    arena,
    at,
    hostile_match,
    reseal,
)
from tests.protocol.test_corrupt_transcripts import FAKE_OK
from tests.protocol.test_verify_blame import assert_printable as assert_safe
from versus.cli.match_text import describe_outcome
from versus.cli.verify_cmd import EXIT_INVALID, cmd_verify
from versus.p2p.channel import MAX_CLOSE_REASON, RecordKind
from versus.p2p.errors import PeerClosedError
from versus.p2p.session import SessionConfig
from versus.p2p.store import MatchStore
from versus.protocol.match import MAX_EVIDENCE_MESSAGE, Ending, Phase
from versus.protocol.wire.envelope import MessageKind, parse_envelope

K = MessageKind
HOSTILE_MESSAGE = f"{FAKE_OK}\u202eevil\u2066 \x07" + "x" * 5_000
#: a real code with escapes after it: no check fails with it, so the evidence is false
HOSTILE_CODE = "replay\r\x1b[2KOK\x1b[31m"


def evidence_with(code: str, message: str) -> Callable[[HostilePeer, bytes], Awaitable[None]]:
    """Instead of its first ACTION, seat 1 signs an EVIDENCE with `code` and `message` that
    replays the envelope before that ACTION (with the code "replay": a real, checkable replay,
    which proves nobody's fault), then sends nothing more."""

    async def action(hostile: HostilePeer, raw: bytes) -> None:
        assert hostile.peer.core is not None
        replayed = hostile.peer.core.chain.envelopes[parse_envelope(raw).seq - 1].raw
        await hostile.send(reseal(raw, kind=K.EVIDENCE,
                                  body=[code, message, [replayed], HONEST]))
        hostile.stall()

    return action


async def evidence_match(tmp_path: Path, code: str = "replay",
                         message: str = HOSTILE_MESSAGE) -> HonestHost:
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery, store=MatchStore(tmp_path),
                            config=SessionConfig(resume_window=0.3, linger=0.3,
                                                 channel=FAST_CHANNEL, narrate=False))
            host = await hostile_match(a, HostilePeer(tamper=at(K.ACTION, 0,
                                                                evidence_with(code, message))))
            nursery.cancel_scope.cancel()
    return host


async def test_hostile_evidence_message_is_printable_in_the_live_outcome_line(
        tmp_path: Path) -> None:
    host = await evidence_match(tmp_path)
    outcome = host.outcome
    assert outcome is not None and outcome.result is not None and host.session is not None
    assert outcome.result.ending is Ending.FAULT and host.session.peer.phase is Phase.ABORTED
    line, _ = describe_outcome(outcome, HONEST, "host")
    for shown in (line, outcome.detail, outcome.result.detail, str(outcome.result)):
        assert_safe(shown)
        assert "\\x1b[2KOK" in shown  # shown, visibly escaped, not dropped
    core = host.session.peer.core
    assert core is not None and core.evidence is not None
    code, message = core.evidence[0], core.evidence[1]
    assert code == "replay" and message.isprintable()
    assert len(message) <= MAX_EVIDENCE_MESSAGE and "\\u202e" in message


async def test_hostile_evidence_code_is_printable_in_the_live_outcome_line(
        tmp_path: Path) -> None:
    host = await evidence_match(tmp_path, code=HOSTILE_CODE, message="short")
    outcome = host.outcome
    assert outcome is not None and outcome.result is not None
    assert outcome.result.ending is Ending.FAULT
    line, _ = describe_outcome(outcome, HONEST, "host")
    for shown in (line, outcome.detail, str(outcome.result)):
        assert_safe(shown)


async def test_hostile_evidence_text_is_printable_in_versus_verify(tmp_path: Path) -> None:
    host = await evidence_match(tmp_path)
    assert host.outcome is not None
    path = host.outcome.transcript_path
    assert path is not None
    out = io.StringIO()
    status = cmd_verify(argparse.Namespace(files=[str(path)], json=False, quiet=False,
                                           catalogue=None), out)
    text = out.getvalue()
    # the EVIDENCE proves nobody's fault (a replay): the accuser's abort counts against it
    assert status == EXIT_INVALID, text
    assert f"unproven-evidence (at fault: seat {CHEATER})" in text, text
    assert_safe(text)
    assert "\\x1b[2KOK" in text


async def test_close_reason_with_escapes_is_shown_escaped() -> None:
    async def close_rudely(hostile: HostilePeer, raw: bytes) -> None:
        await hostile.send_record(RecordKind.CLOSE, FAKE_OK.encode() * 20)
        hostile.stall()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            a = await arena(nursery)
            host = await hostile_match(a, HostilePeer(tamper=at(K.DRAW, 0, close_rudely)))
            nursery.cancel_scope.cancel()
    [closed] = [e for e in host.transport_errors if isinstance(e, PeerClosedError)]
    assert len(closed.reason) <= MAX_CLOSE_REASON
    assert closed.reason.startswith("\\x0d\\x1b[2KOK: 40 records verified\\x0a"), closed.reason
    assert_safe(str(closed))
