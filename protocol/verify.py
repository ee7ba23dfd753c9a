# The offline verifier: one call that checks a whole match transcript as a third party.
#
# It replays exactly what a live peer checks, with the same code (MatchCore), for both seats:
# both HELLOs and the match id, every signature and chain link, the transition table, every
# commitment and proof (PoolAudit re-verifies every Schnorr, shuffle and DLEQ proof of the
# shared pool from public data), a full engine replay with the state hash of every input, the
# RESULT and its countersignature against the replayed game, and the end-of-match secret reveals
# (every deck opening, decklist and draw-order seed; or both key shares, which decrypt the whole
# pool). An EVIDENCE envelope is re-checked: its offending envelope is fed to the replay at the
# point where the honest side refused it, and must fail with the same code; the verifier then
# names the culprit from its own check, never from the accuser's word.
#
# The report names the first bad record (0 and 1 are the HELLOs), the check that failed and the
# seat at fault; its summary (fingerprints, rules, result, how the match ended, number of
# actions) is what `versus verify` prints, and `to_dict()` is JSON-able.
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Catalogue, default_catalogue
from protocol.dealers import PoolAudit
from protocol.envelope import MessageKind, parse_envelope
from protocol.errors import OutOfTurn, RemoteProtocolError, SetupMismatch
from protocol.identity import fingerprint
from protocol.match import Ending, MatchCore, Phase
from protocol.rules import DealMode, MatchRules
from protocol.setup import MatchSetup, open_hello
from protocol.transcript import Transcript, load_transcript


@dataclass(frozen=True)
class Fault:
    """A fault the transcript proves (from a re-checked EVIDENCE envelope)."""

    code: str
    player: int | None
    attributable: bool
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "player": self.player, "attributable": self.attributable,
                "message": self.message}


@dataclass(frozen=True)
class Report:
    ok: bool
    records: int  # records checked (HELLOs included)
    bad_index: int | None = None  # first bad record (0 and 1 are the HELLOs)
    check: str | None = None  # the code of the failed check
    player: int | None = None  # the seat at fault, when the evidence names one
    message: str = ""
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "records": self.records, "bad_index": self.bad_index,
                "check": self.check, "player": self.player, "message": self.message,
                "summary": self.summary}

    def describe(self) -> str:
        s = self.summary
        lines = []
        if self.ok:
            lines.append(f"OK: {self.records} records verified")
        else:
            who = "unknown" if self.player is None else f"seat {self.player}"
            lines.append(f"FAILED at record {self.bad_index}: {self.check} (at fault: {who}): "
                         f"{self.message}")
        for key in ("match_id", "players", "deal_mode", "result", "ending", "actions",
                    "inputs", "fault", "secrets_revealed"):
            if key in s:
                lines.append(f"  {key}: {s[key]}")
        return "\n".join(lines)


def verify_transcript(transcript: Transcript | bytes, catalogue: Catalogue | None = None, *,
                      expected_keys: Sequence[bytes | None] = (None, None)) -> Report:
    """Verify a transcript (object or file bytes) fully; see the module comment."""
    try:
        if not isinstance(transcript, Transcript):
            transcript = load_transcript(transcript)
    except RemoteProtocolError as error:
        return Report(False, 0, None, error.code, None, str(error))
    setup_or_report = _setup(transcript, expected_keys)
    if isinstance(setup_or_report, Report):
        return setup_or_report
    setup, rules = setup_or_report
    summary: dict[str, Any] = {
        "match_id": setup.match_id.hex(),
        "players": [fingerprint(key) for key in setup.keys],
        "software": [open_hello(raw).software for raw in transcript.hellos],
        "rules": rules.to_dict(),
        "deal_mode": rules.deal_mode.value,
    }
    catalogue = catalogue or default_catalogue()
    if catalogue.digest != setup.catalogue_hash:
        return Report(False, 2, 0, "catalogue-mismatch", None,
                      f"the match used catalogue {setup.catalogue_hash.hex()[:16]}…, not the "
                      f"one given ({catalogue.digest.hex()[:16]}…)", summary)
    pool = None
    if rules.deal_mode is DealMode.SHARED_POOL:
        pool = PoolAudit(setup.match_id, setup.keys, rules.pool_ids(catalogue),
                         rules.ruleset.deck_size)
    core = MatchCore(setup, rules, catalogue, pool)
    fault: Fault | None = None
    for index, raw in enumerate(transcript.envelopes, start=2):
        try:
            fault = _verify_one(core, raw) or fault
        except RemoteProtocolError as error:
            _summarise(core, summary, fault)
            return Report(False, index, index, error.code, error.player, str(error), summary)
        except _FalseEvidence as error:
            _summarise(core, summary, fault)
            return Report(False, index, index, "false-evidence", error.player, str(error),
                          summary)
    _summarise(core, summary, fault)
    return _completeness(core, len(transcript.records), summary)


class _FalseEvidence(Exception):
    def __init__(self, message: str, player: int) -> None:
        super().__init__(message)
        self.player = player


def _setup(transcript: Transcript, expected_keys: Sequence[bytes | None]
           ) -> tuple[MatchSetup, MatchRules] | Report:
    hellos = []
    for index, raw in enumerate(transcript.hellos):
        try:
            hello = open_hello(raw)
            if hello.seat != index:
                raise SetupMismatch(f"record {index} must be seat {index}'s hello", [raw])
        except RemoteProtocolError as error:
            return Report(False, index, index, error.code, error.player, str(error))
        hellos.append(hello)
    try:
        setup = MatchSetup.from_hellos(hellos[0], hellos[1], expected_keys=expected_keys)
        rules = MatchRules.decode(setup.ruleset)
    except RemoteProtocolError as error:
        return Report(False, 1, 1, error.code, error.player, str(error))
    return setup, rules


def _verify_one(core: MatchCore, raw: bytes) -> Fault | None:
    if core.phase in (Phase.CLOSED, Phase.ABORTED):
        envelope = parse_envelope(raw)
        raise OutOfTurn(f"{envelope.kind.name} at seq {envelope.seq} after the match "
                        f"{core.phase.value}", [raw], player=envelope.sender)
    envelope = core.chain.authenticate(raw)
    if envelope.kind is MessageKind.EVIDENCE:
        fault = _recheck(core, list(envelope.body), envelope.sender)
        core.chain.reopen()
        core.check(envelope, own=False)
        core.chain.append(envelope)
        return fault
    core.check(envelope, own=False)
    core.chain.append(envelope)
    return None


def _recheck(core: MatchCore, body: list[Any], accuser: int) -> Fault:
    """Feed the EVIDENCE's offending envelope to the replay: it must fail with the same code."""
    if len(body) != 4 or type(body[2]) is not list or not body[2] or type(body[2][-1]) is not bytes:
        raise _FalseEvidence("an EVIDENCE without its offending envelope", accuser)
    try:
        core.receive(body[2][-1])
    except RemoteProtocolError as error:
        if error.code != body[0]:
            raise _FalseEvidence(f"the evidence fails with {error.code}, not the claimed "
                                 f"{body[0]!r:.40}", accuser) from None
        return Fault(error.code, error.player, type(error).attributable, str(error))
    raise _FalseEvidence(f"the envelope seat {accuser} reports as {body[0]!r:.40} passes every "
                         f"check", accuser)


def _summarise(core: MatchCore, summary: dict[str, Any], fault: Fault | None) -> None:
    summary["envelopes"] = core.chain.next_seq
    summary["inputs"] = core.inputs
    summary["actions"] = core.actions
    summary["phase"] = core.phase.value
    if core.state is not None:
        summary["first_player"] = core.state.first
    summary["result"] = None if core.result is None else core.result.to_dict()
    summary["ending"] = None if core.result is None else core.result.ending.value
    if fault is not None:
        summary["fault"] = fault.to_dict()
    deal = core.full_deal()
    summary["secrets_revealed"] = core.phase is Phase.CLOSED
    summary["deal"] = None if deal is None else {str(h): c for h, c in sorted(deal.items())}


def _completeness(core: MatchCore, records: int, summary: dict[str, Any]) -> Report:
    result = core.result
    if core.phase in (Phase.CLOSED, Phase.ABORTED):
        return Report(True, records, summary=summary)
    if result is not None and result.ending in (Ending.RESIGNATION, Ending.TIMEOUT):
        return Report(True, records, summary=summary)  # the reveals after these are best effort
    seat, kinds = core.expected()
    owed = "/".join(k.name for k in kinds)
    return Report(False, records, records, "incomplete", seat,
                  f"the transcript stops in phase {core.phase.value}: seat {seat} never sent "
                  f"its {owed}", summary)
