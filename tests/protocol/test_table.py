# The transition table is executable: MatchCore reads it, and SPEC §4.11 prints it.
# These tests fail when the printed table and the code differ, and check that the table
# covers every state the match can be in.
from __future__ import annotations

import re
from pathlib import Path

from versus.engine import DecisionKind
from versus.protocol.match.table import CHANCE_ANSWER, OWED, TRANSITIONS, Phase, spec_table
from versus.protocol.wire.envelope import MessageKind

SPEC = Path(__file__).resolve().parents[2] / "SPEC.md"
_BLOCK = re.compile(r"<!-- generated from protocol\.match\.TRANSITIONS[^\n]*-->\n(.*?)\n"
                    r"<!-- end of the generated table -->", re.S)


def test_spec_prints_the_table_the_code_runs() -> None:
    match = _BLOCK.search(SPEC.read_text(encoding="utf-8"))
    assert match is not None, "SPEC §4.11 lost its generated-table markers"
    assert match.group(1) == spec_table(), (
        "SPEC §4.11's table differs from protocol.match.TRANSITIONS: paste spec_table()")


def test_every_waiting_phase_and_decision_has_one_owed_row() -> None:
    fixed = [p for p in Phase if p not in (Phase.HELLO, Phase.PLAY, Phase.CLAIMED,
                                           Phase.CLOSED, Phase.ABORTED)]
    for phase in fixed:
        assert (phase, "") in OWED, phase
    for kind in DecisionKind:
        assert (Phase.PLAY, kind.name) in OWED, kind
    assert (Phase.PLAY, CHANCE_ANSWER) in OWED


def test_every_chain_kind_a_peer_sends_is_in_the_table() -> None:
    sent = {kind for rule in TRANSITIONS for kind in rule.kinds}
    reserved = {MessageKind.DECK_COMMIT, MessageKind.DRAW_SEED_COMMIT, MessageKind.KEY_SHARE,
                MessageKind.DECRYPT_SHARE}
    assert set(MessageKind) - sent - reserved == set()


def test_every_ending_says_what_an_auditor_may_conclude() -> None:
    from versus.protocol.match import Ending
    from versus.protocol.match.verify import _PROOF

    assert set(_PROOF) == {ending.value for ending in Ending}
