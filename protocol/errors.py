# The two error families of the protocol, as h11 draws them.
#
# LocalProtocolError: our own side misused the API (sent out of turn, fed an action that is not
# ours to make). It is a bug in the caller and says nothing about the peer.
#
# RemoteProtocolError: the peer broke the protocol. Every subclass carries the evidence: the
# signed envelope(s) that prove it (or the raw bytes when nothing could be authenticated), so the
# honest side can stop the match and keep a transcript that convinces an auditor. After one is
# raised, the peer object refuses everything else.
#
# Every class has a stable `code` (SPEC §4.9): transcripts, verifier reports and the CLI print it,
# so renaming a class never changes what an auditor sees. `attributable` says whether the
# evidence alone convinces a third party that the named player misbehaved: a bad signature or
# garbled bytes could come from anyone on the path, a second signed envelope with the same
# sequence number can only come from its signer. Subclasses that need both families' catch
# clauses (a file loader catching ValueError) get them through the mixins below.
from __future__ import annotations

from collections.abc import Sequence


class ProtocolError(Exception):
    """Base of every protocol error."""

    #: short stable identifier used in transcripts and verifier reports
    code = "protocol-error"


class LocalProtocolError(ProtocolError):
    """Our own side misused the protocol API."""

    code = "local-protocol-error"


class UnplayableRules(LocalProtocolError):
    """The rules both HELLOs agree on cannot start a game: the game's `new_game` (or its first
    decision) raised. Nobody's signed act: both seats took the rules, the seed is joint; the
    verifier says so at record 1 and blames no seat (SPEC §4.9)."""

    code = "unplayable-rules"


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol; `evidence` holds the offending envelopes (or raw bytes).

    `player` is the seat (0 or 1) held responsible when it is known, else None.
    """

    code = "remote-protocol-error"
    #: True when the evidence proves the fault to a third party (signed by the culprit). The
    #: class value is the default; an instance may override it (`attributable=`): a malformed
    #: body inside an envelope that authenticated and extends the chain is its signer's fault,
    #: a prev-hash mismatch only when the sender signed the chain head itself.
    attributable = False

    def __init__(
        self, message: str, evidence: Sequence[bytes] = (), *, player: int | None = None,
        attributable: bool | None = None,
    ) -> None:
        super().__init__(message)
        self.evidence: tuple[bytes, ...] = tuple(evidence)
        self.player = player
        if attributable is not None:
            self.attributable = attributable


# --- bytes that are not a well-formed message -----------------------------------------------


class MalformedMessage(RemoteProtocolError, ValueError):
    """Bytes that are not a canonical message of the expected shape (type, length, range).

    Also a ValueError, so code reading a file or a command-line argument can treat it as bad
    input without importing the protocol error families.
    """

    code = "malformed-message"


class OversizeField(MalformedMessage):
    """A message, field, array or string longer than its limit."""

    code = "oversize-field"


class TranscriptFormatError(MalformedMessage):
    """A transcript file whose header or record framing is wrong (SPEC §4.10)."""

    code = "malformed-transcript"


# --- authentication and the hash chain ------------------------------------------------------


class BadSignature(RemoteProtocolError):
    """An envelope whose signature does not verify under its sender's key."""

    code = "bad-signature"


class WrongSender(RemoteProtocolError):
    """An envelope signed by one seat's key while its sender field names the other seat."""

    code = "wrong-sender"
    attributable = True


class BadChain(RemoteProtocolError):
    """An authentic envelope that does not extend the hash chain (base of the cases below)."""

    code = "bad-chain"


class WrongMatch(BadChain):
    """An envelope signed for another match id (or a setup message inside the chain). Not
    attributable: anyone holding an old envelope of a seat (its HELLO, an earlier match between
    the same keys) can replay it here, so it proves nothing about the seat now."""

    code = "wrong-match-id"


class Replay(BadChain):
    """An envelope identical to one already accepted. Anyone can replay: not attributable."""

    code = "replay"


class SequenceGap(BadChain):
    """An envelope whose sequence number skips ahead of the next expected one."""

    code = "sequence-gap"


class PrevHashMismatch(BadChain):
    """An envelope at the right sequence number whose prev_hash is not the chain head.
    Attributable only when the sender signed the head itself (it then signed two histories);
    when the head is the other seat's, the other seat may have swapped its own envelope, so
    the chain raises it with `attributable=False` and no player."""

    code = "prev-hash-mismatch"
    attributable = True


class SequenceConflict(BadChain):
    """Two authentic envelopes with one sequence number from different signers (a race or a
    fork; the link layer cannot tell which, the match state machine can)."""

    code = "sequence-conflict"


class Equivocation(BadChain):
    """Two different envelopes with one sequence number signed by the same player."""

    code = "equivocation"
    attributable = True


# --- setup ----------------------------------------------------------------------------------


class SetupMismatch(RemoteProtocolError):
    """Hello messages that cannot start a match together (version, seats, ruleset, catalogue,
    a reflected identity or nonce, an unexpected peer key)."""

    code = "setup-mismatch"


# --- game-level faults (raised by commitment checks and the match state machine) ------------


class OutOfTurn(RemoteProtocolError):
    """A message of a kind the sender may not send in the current state."""

    code = "out-of-turn"
    attributable = True


class IllegalAction(RemoteProtocolError):
    """A message that is well-formed and in turn but breaks the rules (an illegal move, a draw
    position outside the deck or drawn twice)."""

    code = "illegal-action"
    attributable = True


class UnplayableInput(IllegalAction):
    """An input the sender signed that the game's engine cannot apply: it raised something
    other than its own refusal (an OverflowError while encoding the state after it, an
    IndexError...). The sender's own engine raises the same (it is deterministic), so an honest
    seat never signs it (SPEC §4.9)."""

    code = "unplayable-input"


class CommitmentMismatch(RemoteProtocolError):
    """An opening or a reveal that does not match its earlier commitment."""

    code = "commitment-mismatch"
    attributable = True


class DecklistViolation(RemoteProtocolError):
    """An opened deck that does not fit the decklist (a card outside it, a wrong registered
    decklist hash, a slot never opened)."""

    code = "decklist-violation"
    attributable = True


class DuplicateCard(DecklistViolation):
    """A card opened more times than the decklist allows."""

    code = "duplicate-card"


class StateHashMismatch(RemoteProtocolError):
    """The peer's public state hash differs from ours after the same input (desync or cheat)."""

    code = "state-hash-mismatch"
    attributable = True


class ResultMismatch(RemoteProtocolError):
    """A RESULT or RESULT_COSIGN whose outcome, winner, final state hash or input count is not
    the one the replayed game reached (SPEC §4.11)."""

    code = "result-mismatch"
    attributable = True


class FalseEvidence(RemoteProtocolError):
    """An EVIDENCE whose offending envelope does not fail, re-checked, with the code it names:
    a false accusation, the accuser's own signed fault (SPEC §4.11 Evidence)."""

    code = "false-evidence"
    attributable = True


def all_error_classes() -> tuple[type[ProtocolError], ...]:
    """Every protocol error class defined here (for code-uniqueness checks and docs)."""
    found: list[type[ProtocolError]] = []
    pending: list[type[ProtocolError]] = [ProtocolError]
    while pending:
        cls = pending.pop()
        if cls.__module__ == __name__ and cls not in found:
            found.append(cls)
        pending.extend(cls.__subclasses__())
    return tuple(found)
