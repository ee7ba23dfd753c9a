# The match: setup (HELLO, match id: setup.py), the agreed rules (rules.py), the transition
# table and its vocabulary (table.py), the public referee (core.py), one player's side
# (peer.py) and the offline verifier (verify.py). SPEC §4.11 is this package's specification.
#
# The names most callers need are exported here, loaded on first use (PEP 562), so importing
# one small module of the package (e.g. rules.py for a listing) does not load the referee.
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "peer": ("MatchPeer",),
    "core": ("MatchCore", "evidence_body", "MAX_EVIDENCE_MESSAGE"),
    "table": ("TRANSITIONS", "AUTOMATIC_GRACE_MS", "CLAIM_TOLERANCE_MS", "COIN_PURPOSE",
              "DecisionNeeded", "Ending", "Event", "MatchClosed", "MatchEnded", "MatchResult",
              "MatchStarted", "Phase", "Rule", "Sender", "StateChanged", "spec_table"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
