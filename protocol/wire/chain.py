# The hash chain: one ordered log of envelopes from both seats.
#
# Both peers keep the same chain: envelope n has seq n and names envelope n-1's hash as
# prev_hash (envelope 0 names the match's genesis hash). Since both seats' messages share one
# sequence, the chain is a total order that both signed into: a peer cannot later deny having
# seen a message it built upon, nor show two different histories to two audiences.
#
# This is the link layer only. It checks authenticity, match id, sequence and linkage, keeps
# every accepted envelope's exact bytes, and classifies what it refuses:
#   seq == next, wrong prev_hash           PrevHashMismatch (attributable only if the sender
#                                          signed the head, or the head is the genesis)
#   seq <  next, identical bytes           Replay (anyone can replay: not the signer's fault)
#   seq <  next, same signer, other bytes  Equivocation (both envelopes kept as evidence)
#   seq <  next, other signer              SequenceConflict (a race; the state machine decides)
#   seq >  next                            SequenceGap
# One fork is no one's fault: a timeout claim that crossed the accused's envelopes (SPEC §4.11).
# The accused rolls back to the claim and signs its DISPUTE and reveal after it, possibly at
# seqs of its dropped branch. So after the other seat's claim, the sender's envelope that does
# not link to its own head, or that takes one of its seqs on another prefix (prev_hash differs),
# proves nothing: not attributable (PrevHashMismatch without a player, SequenceConflict).
# Which seat may send which kind when is the match state machine's job, one layer up. After the
# first error the chain is closed: it refuses every further call, so a caller cannot carry on
# from a state the peer has already corrupted.
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from versus.protocol.crypto.identity import Identity
from versus.protocol.errors import (
    Equivocation,
    LocalProtocolError,
    PrevHashMismatch,
    RemoteProtocolError,
    Replay,
    SequenceConflict,
    SequenceGap,
    WrongMatch,
)
from versus.protocol.wire.envelope import (
    MAX_ENVELOPE_SIZE,
    Envelope,
    MessageKind,
    genesis_hash,
    open_envelope,
    seal,
)


class Chain:
    """The envelopes of one match, in order, from both seats (`keys[s]` is seat s's key)."""

    def __init__(
        self, match_id: bytes, keys: Sequence[bytes], *, max_envelope_size: int = MAX_ENVELOPE_SIZE
    ) -> None:
        self.match_id = match_id
        self.keys: tuple[bytes, ...] = tuple(keys)
        self.max_envelope_size = max_envelope_size
        self.genesis = genesis_hash(match_id)
        self._envelopes: list[Envelope] = []
        self._head = self.genesis
        #: the error that closed the chain, if any
        self.error: RemoteProtocolError | None = None

    @property
    def next_seq(self) -> int:
        return len(self._envelopes)

    @property
    def head(self) -> bytes:
        """The hash the next envelope must name as prev_hash."""
        return self._head

    @property
    def envelopes(self) -> tuple[Envelope, ...]:
        return tuple(self._envelopes)

    def raws_from(self, seq: int) -> list[bytes]:
        """The wire bytes of the envelopes from `seq` on (a chain only grows: a caller that
        holds the first `seq` extends its copy without copying the whole chain again)."""
        return [e.raw for e in self._envelopes[seq:]]

    @property
    def last(self) -> Envelope | None:
        """The newest envelope (None while the chain is empty), without copying the chain."""
        return self._envelopes[-1] if self._envelopes else None

    def __len__(self) -> int:
        return len(self._envelopes)

    def receive(self, raw: bytes) -> Envelope:
        """Authenticate `raw` and append it. Raises a RemoteProtocolError and closes the chain
        when it is not the next link; LocalProtocolError once the chain is closed."""
        envelope = self.authenticate(raw)
        self._append(envelope)
        return envelope

    def authenticate(self, raw: bytes, *, parsed: Envelope | None = None,
                     signature: bool = True) -> Envelope:
        """`receive` without the append: the match layer checks an envelope's meaning before it
        enters the chain (so a refused envelope never becomes part of the honest transcript),
        then calls `append`. `parsed` and `signature` as in `open_envelope` (the offline
        verifier's fast path; a live peer checks every signature)."""
        self._check_open()
        try:
            envelope = open_envelope(
                raw, self.match_id, self.keys, max_size=self.max_envelope_size, parsed=parsed,
                signature=signature,
            )
            self._check_link(envelope)
        except RemoteProtocolError as error:
            self.error = error
            raise
        return envelope

    def append(self, envelope: Envelope) -> None:
        """Append an envelope `authenticate` returned (still the next link)."""
        self._check_open()
        if envelope.seq != self.next_seq or envelope.prev_hash != self._head:
            raise LocalProtocolError(f"envelope seq {envelope.seq} is not the next link")
        self._append(envelope)

    def reopen(self) -> None:
        """Clear the error that closed the chain. Only for the match layer, which has refused
        the peer for good and needs one more envelope of its own: the EVIDENCE (SPEC §4.11)."""
        self.error = None

    def seal(self, identity: Identity, kind: MessageKind, body: Sequence[Any]) -> Envelope:
        """Sign our next envelope (at the head of the chain) and append it."""
        self._check_open()
        if identity.public_key not in self.keys:
            raise LocalProtocolError(f"{identity.fingerprint} is not a player of this match")
        if kind is MessageKind.HELLO:
            raise LocalProtocolError("HELLO belongs to the setup, not to the chain")
        envelope = seal(
            identity,
            match_id=self.match_id,
            seq=self.next_seq,
            prev_hash=self._head,
            sender=self.keys.index(identity.public_key),
            kind=kind,
            body=body,
        )
        self._append(envelope)
        return envelope

    def _check_open(self) -> None:
        if self.error is not None:
            raise LocalProtocolError(
                f"the chain is closed after {self.error.code}: {self.error}"
            )

    def _check_link(self, envelope: Envelope) -> None:
        if envelope.kind is MessageKind.HELLO:
            raise WrongMatch(
                f"HELLO at seq {envelope.seq}: setup messages are not part of the chain",
                [envelope.raw],
                player=envelope.sender,
            )
        expected = self.next_seq
        if envelope.seq == expected:
            if envelope.prev_hash != self._head:
                # Provable only when the sender signed the head (or the head is the genesis,
                # a function of the match id it signed): otherwise the head's signer may have
                # swapped its own envelope for another after the sender built on the first.
                own = ((not self._envelopes or self._envelopes[-1].sender == envelope.sender)
                       and not self._claimed_before(envelope))
                raise PrevHashMismatch(
                    f"envelope seq {envelope.seq} from seat {envelope.sender} names prev_hash "
                    f"{envelope.prev_hash.hex()[:16]}…, the chain head is {self._head.hex()[:16]}…",
                    [envelope.raw],
                    player=envelope.sender if own else None,
                    attributable=own,
                )
        elif envelope.seq > expected:
            raise SequenceGap(
                f"envelope seq {envelope.seq} from seat {envelope.sender} skips ahead of the "
                f"next expected seq {expected}",
                [envelope.raw],
                player=envelope.sender,
            )
        else:
            self._raise_for_old_seq(envelope)

    def _raise_for_old_seq(self, envelope: Envelope) -> None:
        earlier = self._envelopes[envelope.seq]
        if earlier.raw == envelope.raw:
            raise Replay(f"envelope seq {envelope.seq} was already accepted", [envelope.raw])
        evidence = [earlier.raw, envelope.raw]
        if earlier.sender == envelope.sender and not (
                earlier.prev_hash != envelope.prev_hash and self._claimed_before(envelope)):
            raise Equivocation(
                f"seat {envelope.sender} signed two different envelopes with seq {envelope.seq}",
                evidence,
                player=envelope.sender,
            )
        if earlier.sender == envelope.sender:
            raise SequenceConflict(
                f"seat {envelope.sender} signed seq {envelope.seq} again on another prefix after "
                f"seat {1 - envelope.sender}'s timeout claim (a branch dropped for the claim: "
                f"no equivocation)",
                evidence,
                player=envelope.sender,
            )
        raise SequenceConflict(
            f"seat {envelope.sender} sent seq {envelope.seq}, already taken by seat "
            f"{earlier.sender}",
            evidence,
            player=envelope.sender,
        )

    def _claimed_before(self, envelope: Envelope) -> bool:
        """Whether the other seat's TIMEOUT_CLAIM precedes `envelope`'s seq in this chain: a
        roll-back may then have dropped a branch of the sender's (module note). Asked only
        when refusing an envelope, so a scan, not state kept on every append."""
        claimant = 1 - envelope.sender
        return any(e.kind is MessageKind.TIMEOUT_CLAIM and e.sender == claimant
                   for e in self._envelopes[:envelope.seq])

    def _append(self, envelope: Envelope) -> None:
        self._envelopes.append(envelope)
        self._head = envelope.hash
