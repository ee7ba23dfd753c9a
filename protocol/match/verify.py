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
# actions) is what `versus verify` prints, and `to_dict()` is JSON-able. A seat is named at fault
# only for an envelope its own key signed: a record after the end is authenticated before it
# blames anyone. Every string that came from the file (an EVIDENCE's code and message, a result
# detail, an error message quoting peer data) goes through `printable` before it is shown.
#
# Nothing a file holds makes it raise (SPEC §8.1, Decided): a game engine that raises on the
# rules is `unplayable-rules` at record 1, on a signed input `unplayable-input` against its
# signer (core.py), and anything else that escapes a check (a bug of ours, a game's bug outside
# an input) is `internal-error` at the record being checked, blaming no one; an outer guard
# turns whatever is left into the same verdict without a record.
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from versus.engine.scene import player_name
from versus.protocol.crypto.identity import fingerprint
from versus.protocol.errors import (
    MalformedMessage,
    OutOfTurn,
    RemoteProtocolError,
    SetupMismatch,
    UnplayableRules,
)
from versus.protocol.match import Ending, MatchCore, Phase, StateChanged
from versus.protocol.match.rules import DealMode, MatchRules
from versus.protocol.match.setup import MatchSetup, open_hello
from versus.protocol.wire.envelope import Envelope, MessageKind, parse_envelope
from versus.protocol.wire.text import printable
from versus.protocol.wire.transcript import Transcript, load_transcript

#: how much of a message or detail taken from the file `describe` shows (an EVIDENCE message is
#: at most 200 characters from an honest peer; the rest is our own words around it)
SHOWN_TEXT = 400
#: how much of a check code taken from the file `describe` shows
SHOWN_CODE = 64
#: the check code of a record the verifier itself failed on (no seat blamed)
INTERNAL_ERROR = "internal-error"


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
        """The human summary `versus verify` prints: the verdict line, then the match."""
        s = self.summary
        if self.ok:
            lines = [f"OK: {self.records} records verified"]
        else:
            who = "unknown" if self.player is None else f"seat {self.player}"
            where = "" if self.bad_index is None else f" at record {self.bad_index}"
            bad = s.get("bad_envelope")
            if bad is not None:
                # "from" only when the report blames that seat, i.e. the record proved to be
                # its own; otherwise the sender field is just what unsigned bytes claim
                named = "from" if self.player == bad["sender"] else "naming"
                where += f" ({bad['kind']} seq {bad['seq']} {named} seat {bad['sender']})"
            lines = [f"INVALID{where}: {printable(self.check, SHOWN_CODE)} (at fault: {who}): "
                     f"{printable(self.message, SHOWN_TEXT)}"]
        lines += [f"  {label:<9}{text}" for label, text in _summary_lines(s)]
        return "\n".join(lines)


def _seat_and_player(seat: int) -> str:
    """A seat in the report: the protocol's number (the records' `sender`), with the player's
    name every screen gives it (counted from 1), so an auditor matches the two at a glance."""
    return f"seat {seat} ({player_name(seat, None)})"


def _summary_lines(s: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if "match_id" in s:
        out.append(("match", s["match_id"]))
    if "players" in s:
        out.append(("players", ", ".join(f"{_seat_and_player(i)} {fp}"
                                         for i, fp in enumerate(s["players"]))))
    if "channel_binding" in s:
        binding = s["channel_binding"]
        out.append(("channel", "none: played over no secure channel" if binding is None else
                    f"both HELLOs name secure-channel session {binding[:16]}…"))
    if "rules_text" in s:
        out.append(("rules", s["rules_text"]))
    result = s.get("result")
    if result is not None:
        winner = result["winner"]
        who = "no winner" if winner is None else f"{_seat_and_player(winner)} wins"
        if result["ending"] == "timeout" and winner is not None:
            who = f"{_seat_and_player(winner)} wins by its own claim"
        how = result["outcome"] or result["ending"]
        out.append(("result", f"{who} ({how})"))
        ended = ("game over, result countersigned by both seats" if result["ending"] == "game"
                 else printable(result["detail"], SHOWN_TEXT))  # the peer's words for a fault
        out.append(("ended", f"{result['ending']}: {ended}"))
        out.append(("proof", _PROOF.get(result["ending"], "")))
    elif "phase" in s:
        out.append(("result", f"none (stopped in phase {s['phase']})"))
    if "actions" in s:
        out.append(("actions", f"{s['actions']} actions, {s['inputs']} engine inputs, "
                               f"{s['envelopes']} chain envelopes"))
    fault = s.get("fault")
    if fault is not None:
        who = "unknown seat" if fault["player"] is None else _seat_and_player(fault["player"])
        out.append(("fault", f"{printable(fault['code'], SHOWN_CODE)} by {who} (verified): "
                             f"{printable(fault['message'], SHOWN_TEXT)}"))
    if "secrets_revealed" in s:
        out.append(("secrets", "revealed: every card of both decks is public" if s["deal"]
                    else "not revealed"))
    return out


#: what an auditor may conclude from each ending (SPEC §4.12 threat model): a claim is no proof
_PROOF = {
    Ending.GAME.value: "proven: the replayed game reached this result and both seats signed it",
    Ending.RESIGNATION.value: "proven: the loser signed its resignation",
    Ending.TIMEOUT.value: "a claim, not proven: the claimant's own clock against the other "
                          "seat's silence (no one can prove time offline); the accused did not "
                          "dispute it",
    Ending.DISPUTE.value: "a dispute, not proven either way: both seats' clock measures are "
                          "recorded; no one is credited",
    Ending.FAULT.value: "proven: the offending envelope, signed by the seat at fault, fails the "
                        "re-check",
}


def verify_transcript(transcript: Transcript | bytes, catalogue: Any = None, *,
                      expected_keys: Sequence[bytes | None] = (None, None),
                      full: bool = False) -> Report:
    """Verify a transcript (object or file bytes) fully; see the module comment. `full=True`
    checks every envelope's signature even when the transcript is valid (the report is the
    same; the default fast path checks one signature per seat unless something fails)."""
    return _run(transcript, catalogue, expected_keys, full).report


@dataclass(frozen=True)
class ReplayStep:
    """One game input of a verified transcript, as the replay feeds it to `step`."""

    input: Any
    seat: int  # the seat whose envelope carried it
    seq: int  # that envelope's seq in the chain
    text: str  # the input in engine notation
    record: int = -1  # that envelope's record index in the file (0 and 1 are the HELLOs)
    #: (owner, handle) of the card this input dealt to its owner's hand or face down (the
    #: owner learned it then): what a replay "as seat k" lets seat k know from this step on
    drawn: tuple[int, int] | None = None


@dataclass(frozen=True)
class MatchReplay:
    """What a replay needs, taken from the same run as the verification (never re-parsed):
    the game's `new_game(Setup(rules.ruleset, catalogue, setup_seed))`, then `step` through
    `inputs`; `catalogue` is the card data the match used (the shipped version its HELLOs
    name, else the game's default one, unless another was given), None when the transcript
    failed before its rules were read. `identities` (handle -> card id of both decks) is there
    once the end-of-match reveals made every card public; `rules` and `setup_seed` are None
    when the transcript failed before."""

    report: Report
    catalogue: Any
    rules: MatchRules | None
    setup_seed: bytes | None
    inputs: tuple[ReplayStep, ...]
    identities: dict[int, str] | None


def replay_inputs(transcript: Transcript | bytes, catalogue: Any = None, *,
                  expected_keys: Sequence[bytes | None] = (None, None),
                  full: bool = False) -> MatchReplay:
    """Verify a transcript and return its engine inputs, layout seed and revealed deal.
    On a failed verification the inputs are those accepted before the first bad record."""
    return _run(transcript, catalogue, expected_keys, full)


def _run(transcript: Transcript | bytes, catalogue: Any,
         expected_keys: Sequence[bytes | None], full: bool = False) -> MatchReplay:
    """`_checked_run` behind the outer guard: what still escapes it is a verdict too."""
    try:
        return _checked_run(transcript, catalogue, expected_keys, full)
    except Exception as error:
        return _early(Report(False, 0, None, INTERNAL_ERROR, None,
                             f"the verifier failed on this transcript: {_error_text(error)}"),
                      catalogue)


def _error_text(error: BaseException) -> str:
    return printable(f"{type(error).__name__}: {error}", 300)


def _checked_run(transcript: Transcript | bytes, catalogue: Any,
                 expected_keys: Sequence[bytes | None], full: bool = False) -> MatchReplay:
    try:
        if not isinstance(transcript, Transcript):
            transcript = load_transcript(transcript)
    except RemoteProtocolError as error:
        return _early(Report(False, 0, None, error.code, None, str(error)), catalogue)
    setup_or_report = _setup(transcript, expected_keys)
    if isinstance(setup_or_report, Report):
        return _early(setup_or_report, catalogue)
    setup, rules = setup_or_report
    given = catalogue is not None
    try:
        if catalogue is None:  # the shipped version the HELLOs name (SPEC Part 2, "Versions")
            catalogue = (rules.game_impl.catalogue_for_digest(setup.catalogue_hash)
                         or rules.game_impl.default_catalogue())
        summary = _setup_summary(setup, rules)
        digest = rules.catalogue_digest(catalogue)
    except Exception as error:  # the game's code on the HELLOs' rules: nobody signed a fault
        return _early(_unplayable(f"game {rules.game!r} cannot read them: "
                                  f"{_error_text(error)}", {}), catalogue)
    if digest != setup.catalogue_hash:
        return _early(Report(False, 2, 0, "catalogue-mismatch", None,
                             f"the match used catalogue {setup.catalogue_hash.hex()[:16]}…, not "
                             f"the one given ({digest.hex()[:16]}…)" if given else
                             f"the match used catalogue {setup.catalogue_hash.hex()[:16]}…, "
                             "which no version of this game's card data has (give its file "
                             "with --catalogue)", summary),
                      catalogue)
    if rules.deal_mode is DealMode.SHARED_POOL:
        try:  # both HELLOs agree on these rules, but they cannot deal (pool too small, ...)
            rules.pool_ids(catalogue)
        except Exception as error:
            return _early(Report(False, 2, 1, MalformedMessage.code, None,
                                 f"the match rules cannot be dealt: {printable(str(error), 200)}",
                                 summary), catalogue)
    problem = rules.start_problem(catalogue)
    if problem is not None:  # both HELLOs agree on them, but no game starts (SPEC §3.3)
        return _early(Report(False, 2, 1, MalformedMessage.code, None,
                             f"the match rules cannot start a game with this card data: "
                             f"{printable(problem, 200)}", summary), catalogue)
    if not full:
        fast = _replay(transcript, setup, rules, catalogue, dict(summary), fast=True)
        if fast is not None and fast.report.ok:
            return fast
    replay = _replay(transcript, setup, rules, catalogue, summary, fast=False)
    assert replay is not None
    return replay


def _setup_summary(setup: MatchSetup, rules: MatchRules) -> dict[str, Any]:
    return {
        "match_id": setup.match_id.hex(),
        "channel_binding": setup.hellos[0].binding.hex() if setup.hellos[0].bound else None,
        "players": [fingerprint(key) for key in setup.keys],
        "software": [hello.software for hello in setup.hellos],
        "rules": rules.to_dict(),
        "rules_text": rules.describe(),
        "deal_mode": rules.deal_mode.value,
    }


def _unplayable(why: str, summary: dict[str, Any], records: int = 2) -> Report:
    """The rules both HELLOs signed cannot be played (`why`): record 1, no seat at fault."""
    return Report(False, records, 1, UnplayableRules.code, None,
                  f"the match rules cannot be played: {why}", summary)


def _endorsed(transcript: Transcript) -> tuple[list[Envelope] | None, set[int]] | None:
    """The fast path's plan: the indices whose signature it checks, each seat's last chain
    envelope (SPEC §4.4), and every envelope parsed once, kept for the pass when the
    transcript is in memory (a file-backed one is parsed again as it is read: memory stays
    bounded). None: something does not even parse (the full path names it)."""
    keep = isinstance(transcript.envelopes, tuple)
    parsed: list[Envelope] = []
    last: dict[int, int] = {}
    try:
        for index, raw in enumerate(transcript.envelopes):
            envelope = parse_envelope(raw)
            last[envelope.sender] = index
            if keep:
                parsed.append(envelope)
    except RemoteProtocolError:
        return None
    return (parsed if keep else None), set(last.values())


def _replay(transcript: Transcript, setup: MatchSetup, rules: MatchRules, catalogue: Any,
            summary: dict[str, Any], *, fast: bool) -> MatchReplay | None:
    """One pass over the chain. `fast`: check the signatures of each seat's last envelope
    only (and of every EVIDENCE item); the caller reruns the full pass if anything fails."""
    plan = _endorsed(transcript) if fast else None
    if fast and plan is None:
        return None
    pool = None
    if rules.deal_mode is DealMode.SHARED_POOL:
        from versus.protocol.deals.pool_sides import PoolAudit  # loaded for a shared pool only

        pool = PoolAudit(setup.match_id, setup.keys, rules.pool_ids(catalogue))
    drawn: list[tuple[int, int]] = []  # the deal the envelope being checked made, if any
    core = MatchCore(setup, rules, catalogue, pool,
                     lambda owner, handle, _card: drawn.append((owner, handle)))
    fault: Fault | None = None
    steps: list[ReplayStep] = []
    report: Report | None = None
    for index, raw in enumerate(transcript.envelopes, start=2):
        parsed, signature = None, True
        if plan is not None:
            parsed = None if plan[0] is None else plan[0][index - 2]
            signature = index - 2 in plan[1]
        try:
            drawn.clear()
            fault = _verify_one(core, raw, steps, parsed, signature, index, drawn) or fault
        except RemoteProtocolError as error:
            report = Report(False, index, index, error.code, error.player, str(error), summary)
        except UnplayableRules as error:  # the HELLOs' rules, not this record, are at fault
            report = Report(False, index, 1, error.code, None, str(error), summary)
            break
        except Exception as error:  # never a traceback: the record we failed on, no blame
            report = Report(False, index, index, INTERNAL_ERROR, None,
                            f"the verifier could not check this record: {_error_text(error)}",
                            summary)
        if report is not None:
            _note_bad_envelope(summary, raw)
            break
    _summarise(core, summary, fault)
    if report is None:
        report = _completeness(core, transcript.record_count, summary, fault)
    return MatchReplay(report, catalogue, rules, _setup_seed(core), tuple(steps),
                       core.full_deal())


def _note_bad_envelope(summary: dict[str, Any], raw: bytes) -> None:
    """Name the first bad envelope (a HELLO or a chain envelope) by kind, seq and sender field,
    when it parses at all. The sender is what the bytes claim, not a verdict: the report's
    `player` says whom the record proves at fault."""
    try:
        envelope = parse_envelope(raw)
    except RemoteProtocolError:
        return
    summary["bad_envelope"] = {"seq": envelope.seq, "kind": envelope.kind.name,
                               "sender": envelope.sender}


def _early(report: Report, catalogue: Any) -> MatchReplay:
    return MatchReplay(report, catalogue, None, None, (), None)


def _setup_seed(core: MatchCore) -> bytes | None:
    return None if core.state is None else core.setup_seed


def _setup(transcript: Transcript, expected_keys: Sequence[bytes | None]
           ) -> tuple[MatchSetup, MatchRules] | Report:
    hellos = []
    for index, raw in enumerate(transcript.hellos):
        try:
            hello = open_hello(raw)
            if hello.seat != index:
                raise SetupMismatch(f"record {index} must be seat {index}'s hello", [raw])
        except RemoteProtocolError as error:
            return _bad_hello(index, raw, error)
        hellos.append(hello)
    try:
        setup = MatchSetup.from_hellos(hellos[0], hellos[1], expected_keys=expected_keys)
        rules = MatchRules.decode(setup.ruleset)
    except RemoteProtocolError as error:
        return _bad_hello(1, transcript.hellos[1], error)
    return setup, rules


def _bad_hello(index: int, raw: bytes, error: RemoteProtocolError) -> Report:
    """The report on a bad HELLO (record `index`), naming it in the summary like any record."""
    summary: dict[str, Any] = {}
    _note_bad_envelope(summary, raw)
    return Report(False, index, index, error.code, error.player, str(error), summary)


def _verify_one(core: MatchCore, raw: bytes, steps: list[ReplayStep],
                parsed: Envelope | None = None, signature: bool = True, record: int = -1,
                drawn: Sequence[tuple[int, int]] = ()) -> Fault | None:
    ended = core.phase in (Phase.CLOSED, Phase.ABORTED)
    try:
        # After the end every record is bad, but it blames a seat only if that seat signed it:
        # its signature is always checked there (no later envelope endorses it).
        envelope = core.chain.authenticate(raw, parsed=parsed, signature=signature or ended)
    except RemoteProtocolError as error:
        # A file can lose, repeat or reorder records, or carry bytes nobody signed: only the
        # errors a signature proves (wrong sender, a link that misses the sender's own head,
        # equivocation) blame; another match's envelope, a replay, a gap name nobody.
        if not error.attributable:
            error.player = None
        raise
    if ended:
        raise OutOfTurn(f"{envelope.kind.name} at seq {envelope.seq} signed by seat "
                        f"{envelope.sender} after the match {core.phase.value}", [raw],
                        player=envelope.sender)
    if envelope.kind is MessageKind.EVIDENCE:
        # MatchCore re-checks the evidence as a live peer does (FalseEvidence if it fails)
        core.check(envelope, own=False)
        core.chain.append(envelope)
        assert core.fault_found is not None
        return Fault(*core.fault_found)
    for event in core.check(envelope, own=False):
        if isinstance(event, StateChanged):
            steps.append(ReplayStep(event.input, event.by, envelope.seq, event.text, record,
                                    drawn[-1] if drawn else None))
    core.chain.append(envelope)
    return None


def _summarise(core: MatchCore, summary: dict[str, Any], fault: Fault | None) -> None:
    summary["envelopes"] = core.chain.next_seq
    summary["inputs"] = core.inputs
    summary["actions"] = core.actions
    summary["phase"] = core.phase.value
    summary["result"] = None if core.result is None else core.result.to_dict()
    summary["ending"] = None if core.result is None else core.result.ending.value
    if fault is not None:
        summary["fault"] = fault.to_dict()
    deal = core.full_deal()
    summary["secrets_revealed"] = core.phase is Phase.CLOSED
    summary["deal"] = None if deal is None else {str(h): c for h, c in sorted(deal.items())}


def _first_revealer(core: MatchCore) -> int | None:
    """After a resignation, the winner; after a timeout claim (disputed or not), the claimant:
    the seat whose SECRET_REVEAL is owed first and completes the transcript."""
    result = core.result
    if result is None:
        return None
    if result.ending is Ending.RESIGNATION:
        return result.winner
    if result.ending in (Ending.TIMEOUT, Ending.DISPUTE) and core.claim is not None:
        return core.claim.sender
    return None


def _completeness(core: MatchCore, records: int, summary: dict[str, Any],
                  fault: Fault | None) -> Report:
    if core.phase is Phase.ABORTED:
        if fault is not None and fault.attributable:
            return Report(True, records, summary=summary)
        # An EVIDENCE that proves no one's fault is no clean ending: honest peers never seal
        # one (SPEC §4.11), so it is the accuser walking away, like any other missing message.
        accuser = core.chain.envelopes[-1].sender
        code = "nothing" if fault is None else fault.code
        return Report(False, records, records, "unproven-evidence", accuser,
                      f"seat {accuser} ended the match with evidence ({code}) that proves no "
                      f"seat's fault: an abort without proof counts against the accuser",
                      summary)
    if core.phase in (Phase.CLOSED, Phase.CLAIMED):  # CLAIMED: a setup claim, undisputed
        return Report(True, records, summary=summary)
    first = _first_revealer(core)
    if first is not None and core.revealed[first]:
        return Report(True, records, summary=summary)  # the other reveal is best effort
    seat, kinds = core.expected()
    owed = "/".join(k.name for k in kinds)
    return Report(False, records, records, "incomplete", seat,
                  f"the transcript stops in phase {core.phase.value}: seat {seat} never sent "
                  f"its {owed}", summary)
