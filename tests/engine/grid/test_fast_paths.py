# The grid engine's speed paths agree with the plain definitions they replace: `is_legal` (what
# step asks) with membership in `legal_actions`, the shared engine-built inputs with validated
# ones, the shared Pending of a decision with a fresh one, and the C-level hand scans with the
# obvious comprehension. Random games of every mode and deck type, every well-formed input of
# each player decision tried (legal or not).
from __future__ import annotations

import pytest

from versus.engine.errors import IllegalActionError
from versus.engine.grid.cards import default_catalogue
from versus.engine.grid.notation import GridInput, Verb, format_input, parse_input
from versus.engine.grid.referee import random_game
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import (
    Dec,
    GridState,
    _decision,
    cell_name,
    decision,
    hand_of,
    is_legal,
    legal_actions,
    step,
)

CAT = default_catalogue()


def candidates(s: GridState) -> list[GridInput]:
    """Every well-formed input a player could send at a TURN or CHOICE of `s`."""
    n, size = len(s.zone), s.rules.size
    out = [GridInput(Verb.END), GridInput(Verb.PASS), GridInput(Verb.FIRST, player=0)]
    for h in range(n):
        out += [GridInput(Verb.USE, h), GridInput(Verb.FREE, h), GridInput(Verb.PICK, h)]
    for h in (*s.hand(0), *s.hand(1), 0, n - 1):  # every cell: hand cards and two others
        out += [GridInput(Verb.PLACE, h, cell=cell_name(c, size), up=up)
                for c in range(size * size) for up in (False, True)]
    out.append(GridInput(Verb.PLACE, 0, cell="f6", up=True))  # off a 4x4 or 5x5 grid
    return out


@pytest.mark.parametrize("mode", ["fast", "normal", "vs"])
@pytest.mark.parametrize("deck", ["individual", "shared"])
def test_is_legal_is_membership_in_the_legal_list(mode: str, deck: str) -> None:
    ref = random_game(GridRules.from_options({"mode": mode, "deck": deck}), CAT,
                      b"fast-paths/" + mode.encode() + deck.encode())
    ref.play()
    checked = 0
    for k, (s, _) in enumerate(ref.history):
        code = s.decision[0]
        if code not in (Dec.TURN, Dec.WINDOW, Dec.ORDER, Dec.TARGET) or k % 2:
            continue
        fresh = GridState(**{f: getattr(s, f) for f in s.__dataclass_fields__ if f != "_cache"})
        legal = legal_actions(fresh)
        for inp in candidates(s):
            assert is_legal(s, inp) == (inp in legal), format_input(inp)
            if inp not in legal and len(s.zone) <= 40 and inp.verb is not Verb.PLACE:
                with pytest.raises(IllegalActionError):
                    step(s, inp)
        checked += 1
    assert checked >= 3


def test_engine_built_inputs_and_decisions_equal_validated_ones() -> None:
    ref = random_game(GridRules.from_options({"mode": "normal"}), CAT, b"fast-paths/inputs")
    ref.play()
    for s, inp in ref.history:
        assert decision(s) == _decision(s)
        for a in legal_actions(s):
            assert parse_input(format_input(a)) == a
        assert parse_input(format_input(inp)) == inp
        for p in (0, 1):
            assert hand_of(s.zone, s.ctrl, p) == [
                h for h, z in enumerate(s.zone) if z == 1 and s.ctrl[h] == p]
            assert s.hand(p) == tuple(hand_of(s.zone, s.ctrl, p))
