# The two error families of the protocol, as h11 draws them.
#
# LocalProtocolError: our own side misused the API (sent out of turn, fed an action that is not
# ours to make). It is a bug in the caller and says nothing about the peer.
#
# RemoteProtocolError: the peer broke the protocol. Every subclass carries the evidence: the
# signed envelope(s) that prove it (or the raw bytes when nothing could be authenticated), so the
# honest side can stop the match and keep a transcript that convinces an auditor. After one is
# raised, the peer object refuses everything else.
from __future__ import annotations

from collections.abc import Sequence


class ProtocolError(Exception):
    """Base of every protocol error."""


class LocalProtocolError(ProtocolError):
    """Our own side misused the protocol API."""


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol; `evidence` holds the offending envelopes (or raw bytes)."""

    #: short stable identifier used in transcripts and verifier reports
    code = "remote-protocol-error"

    def __init__(self, message: str, evidence: Sequence[bytes] = ()) -> None:
        super().__init__(message)
        self.evidence: tuple[bytes, ...] = tuple(evidence)
