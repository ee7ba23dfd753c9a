# The transition table is the machine: MatchCore dispatches and moves the phase by it, MatchPeer
# sends its automatic rows, and SPEC §4.11 prints it. These tests fail when the printed table and
# the code differ, when the table misses a state the match can be in or a row misses where the
# phase goes next, and when any code but `MatchCore._move` sets the phase.
from __future__ import annotations

import ast
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


# --- the table is the machine ---------------------------------------------------------------

MATCH = Path(__file__).resolve().parents[2] / "protocol" / "match"
#: where the phase may be set: the start (the HELLO row's next) and the one transition function
_PHASE_SETTERS = {("core.py", "MatchCore.__init__"), ("core.py", "MatchCore._move")}


def _phase_assignments(path: Path) -> list[tuple[str, int]]:
    """(the qualified function, line) of every assignment to an attribute named `phase`."""
    found: list[tuple[str, int]] = []

    def walk(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                walk(child, f"{scope}.{child.name}" if scope else child.name)
                continue
            targets: list[ast.expr] = []
            if isinstance(child, ast.Assign):
                targets = list(child.targets)
            elif isinstance(child, ast.AugAssign | ast.AnnAssign):
                targets = [child.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Attribute) and sub.attr == "phase":
                        found.append((scope, child.lineno))
            walk(child, scope)
            if isinstance(child, ast.Call):  # setattr(x, "phase", ...)
                func = child.func
                if (isinstance(func, ast.Name) and func.id == "setattr" and len(child.args) > 1
                        and isinstance(child.args[1], ast.Constant)
                        and child.args[1].value == "phase"):
                    found.append((scope, child.lineno))

    walk(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def test_no_handler_sets_the_phase_only_the_transition_does() -> None:
    setters = {(path.name, scope, line) for path in sorted(MATCH.glob("*.py"))
               for scope, line in _phase_assignments(path)}
    stray = {s for s in setters if (s[0], s[1]) not in _PHASE_SETTERS}
    assert not stray, f"the phase is set outside MatchCore._move: {sorted(stray)}"
    assert {(s[0], s[1]) for s in setters} == _PHASE_SETTERS  # the walk finds what it must


def test_the_phase_walk_finds_a_handler_that_sets_the_phase(tmp_path: Path) -> None:
    source = tmp_path / "core.py"
    source.write_text("class MatchCore:\n    def _on_x(self):\n        if True:\n"
                      "            self.phase = 1\n    def _move(self):\n"
                      "        self.phase, y = 2, 3\n", encoding="utf-8")
    assert _phase_assignments(source) == [("MatchCore._on_x", 4), ("MatchCore._move", 6)]


def test_every_row_names_its_next_phase_or_its_decider() -> None:
    from versus.protocol.match.table import Decider

    for rule in TRANSITIONS:
        assert isinstance(rule.next, Phase | Decider), rule
        if isinstance(rule.next, Decider):
            assert rule.next.name and rule.next.text, rule.next


def test_every_row_names_a_handler_the_core_dispatches_to() -> None:
    from versus.protocol.match.core import _HANDLERS, MatchCore
    from versus.protocol.match.table import ON_ENTRY, OPENING

    assert OPENING.kinds == (MessageKind.HELLO,) and OPENING.next is Phase.COMMIT_0
    by_kind: dict[MessageKind, str] = {}
    for rule in TRANSITIONS[1:]:
        for kind in rule.kinds:
            assert by_kind.setdefault(kind, rule.handler) == rule.handler, (
                f"{kind.name} rows name two handlers: _HANDLERS is keyed by kind")
    assert {kind: fn.__name__ for kind, fn in _HANDLERS.items()} == by_kind
    for entry in ON_ENTRY.values():
        assert callable(getattr(MatchCore, entry.action)), entry


def test_every_message_a_seat_owes_by_itself_is_built_by_the_row_s_auto() -> None:
    from versus.protocol.match.peer import MatchPeer
    from versus.protocol.match.table import INTERRUPTS

    player = {MessageKind.ACTION, MessageKind.CHOICE, MessageKind.RESIGN}
    for rules in OWED.values():
        assert len({rule.sender for rule in rules}) == 1, rules  # one seat owes the message
    for rule in TRANSITIONS[1:]:
        if not rule.owed:
            assert not rule.auto and rule in INTERRUPTS.values(), rule
        elif set(rule.kinds) <= player:
            assert not rule.auto, rule  # the local player answers (`MatchPeer.submit`)
        else:
            assert len(rule.kinds) == 1 and callable(getattr(MatchPeer, rule.auto)), rule
