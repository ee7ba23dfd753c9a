# The grid engine's speed paths agree with the plain definitions they replace: `is_legal` (what
# step asks) with membership in `legal_actions`, the shared engine-built inputs with validated
# ones, the shared Pending of a decision with a fresh one, and the C-level hand scans with the
# obvious comprehension; a step's copy-on-write columns with a step that copies them all; a
# view's fields built at their first read with the eager build. Random games of every mode and
# deck type, every well-formed input of each player decision tried (legal or not).
from __future__ import annotations

import pytest

from versus.engine.errors import IllegalActionError, MalformedActionError
from versus.engine.grid.cards import default_catalogue
from versus.engine.grid.notation import GridInput, Verb, answer_input, format_input, parse_input
from versus.engine.grid.referee import random_game
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import (
    GRID,
    Dec,
    GridState,
    _decision,
    _Work,
    cell_index,
    cell_name,
    decision,
    encode_state,
    hand_of,
    hands_of,
    home_row,
    is_legal,
    legal_actions,
    neighbour_cells,
    on_grid,
    placements,
    scan_masks,
    step,
    traced_step,
)
from versus.engine.grid.views import LAZY, GridKnowledge, GridView, _named_parts, view

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
        assert fresh.hand(0) == s.hand(0) and fresh.hand(1) == s.hand(1)  # kept: as found
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
            assert s.hand(p) == hands_of(s.zone, s.ctrl)[p]
        assert on_grid(s.zone) == [h for h, c in enumerate(s.cell) if c >= 0]
        assert on_grid(s.zone) == [h for h, z in enumerate(s.zone) if z == GRID]


def _plain_placements(s: GridState, p: int) -> list[tuple[int, tuple[bool, ...]]]:
    """§9.1.5-9.1.6 as written: free cells next to an own card (any free cell off the far home
    row with an airdrop, the own home row without a card on the grid); face up only on the far
    home row or next to an enemy card, face down only on the own home row."""
    size = s.rules.size
    board = {c: s.ctrl[h] for h, c in enumerate(s.cell) if c >= 0}
    mine, theirs = home_row(p, size), home_row(1 - p, size)
    own = [c for c, q in board.items() if q == p]
    out = []
    for c in range(size * size):
        if c in board:
            continue
        near = neighbour_cells(c, size)
        if s.airdrop:
            ok = c // size != theirs
        elif not own:
            ok = c // size == mine
        else:
            ok = any(n in own for n in near)
        if not ok:
            continue
        if c // size == theirs or any(board.get(n, p) != p for n in near):
            out.append((c, (True,)))
        else:
            out.append((c, (False,) if c // size == mine else (False, True)))
    return out


@pytest.mark.parametrize("mode", ["fast", "normal", "vs"])
def test_placements_by_masks_equal_the_plain_rule(mode: str) -> None:
    rules = GridRules.from_options({"mode": mode})
    ref = random_game(rules, CAT, b"fast-paths/place/" + mode.encode())
    ref.play()
    carried = 0
    for s, _ in ref.history:
        if "masks" in s._cache:  # carried on by the step that made s
            assert s._cache["masks"] == scan_masks(s.zone, s.cell, s.ctrl, s.size)
            carried += 1
        for p in (0, 1):
            assert placements(s, p) == _plain_placements(s, p)
    assert len(ref.history) > 50 and carried > len(ref.history) // 2


def _copying_step(s: GridState, inp: GridInput) -> GridState:
    """`step` with every column of the work copied before any rule runs (the plain way)."""
    real = _Work.__init__

    def copying(self: _Work, state: GridState) -> None:
        real(self, state)
        self.writable()

    _Work.__init__ = copying  # type: ignore[method-assign]
    try:
        return step(s, inp)
    finally:
        _Work.__init__ = real  # type: ignore[method-assign]


@pytest.mark.parametrize("mode", ["fast", "vs"])
@pytest.mark.parametrize("deck", ["individual", "shared"])
def test_copy_on_write_steps_equal_copying_steps(mode: str, deck: str) -> None:
    rules = GridRules.from_options({"mode": mode, "deck": deck, "tie": "sudden-death"})
    ref = random_game(rules, CAT, b"fast-paths/cow/" + mode.encode() + deck.encode())
    ref.play()
    for s, inp in ref.history:
        before = encode_state(GridState(**{f: getattr(s, f) for f in s.__dataclass_fields__
                                           if f != "_cache"}))
        after = step(s, inp)
        assert encode_state(after) == encode_state(_copying_step(s, inp))
        assert encode_state(traced_step(s, inp)[0]) == encode_state(after)
        assert encode_state(s) == before  # the state stepped is unchanged
        for column in ("zone", "holder", "ctrl", "cell", "up", "ident", "weaken", "boost",
                       "shield", "modifiers", "tasks"):
            assert type(getattr(after, column)) is tuple, column
        assert type(after.graves) is tuple and all(type(g) is tuple for g in after.graves)


def _eager(v: GridView) -> GridView:
    """The view with every field built now (the dataclass's own constructor)."""
    s, player, known = v.__dict__["_lazy"]
    fields = {f: v.__dict__[f] for f in GridView.__dataclass_fields__ if f not in LAZY}
    return GridView(**fields, **_named_parts(s, player, known))


def test_lazy_views_read_as_eager_ones() -> None:
    ref = random_game(GridRules.from_options({"mode": "normal"}), CAT, b"fast-paths/views")
    ref.play()
    known = [GridKnowledge(0), GridKnowledge(1)]
    unread: list[tuple[GridView, GridView]] = []
    for k, (s, inp) in enumerate(ref.history):
        for p in (0, 1):
            v, now = view(s, p, known[p]), _eager(view(s, p, known[p]))
            if k % 3 == p:  # some read at once, the others after the game
                assert v == now and v.to_dict() == now.to_dict()
            else:
                unread.append((v, now))
        if inp.verb is Verb.DEAL:
            known[s.decision[1]].learn(inp.handle, ref.identities[inp.handle])
    for p in (0, 1):  # the knowledge changes after the views: they show what it was then
        for h in list(known[p].cards):
            known[p].learn(h, "changed-later")
    for v, now in unread:
        assert v == now and v.grid == now.grid and v.hand == now.hand
        assert v.to_dict() == now.to_dict()
    assert any(cid for v, _ in unread for _, cid in v.hand)


@pytest.mark.parametrize("handle, card", [(0, ""), (1023, ""), (7, "ember-fox"), (5, "x"),
                                          (12, "a" * 40)])
def test_answer_inputs_equal_validated_ones(handle: int, card: str) -> None:
    verb = Verb.REVEAL if card else Verb.DEAL
    for _ in range(2):  # built, then shared
        assert answer_input(handle, card) == GridInput(verb, handle, card=card)


@pytest.mark.parametrize("handle, card", [(-1, ""), (1024, ""), (3, "Bad-Id"), (3, "-x"),
                                          (3, "a" * 41), (True, ""), (3, "x\n")])
def test_answer_inputs_refuse_what_validation_refuses(handle: int, card: str) -> None:
    for _ in range(2):  # not cached as valid after the first refusal
        with pytest.raises(MalformedActionError):
            answer_input(handle, card)


@pytest.mark.parametrize("deck", ["individual", "shared"])
def test_neighbours_from_the_shared_board_equal_the_column_scan(deck: str) -> None:
    ref = random_game(GridRules.from_options({"mode": "vs", "deck": deck}), CAT,
                      b"fast-paths/board/" + deck.encode())
    ref.play()
    checked = 0
    for s, _ in ref.history[::3]:
        shared, written = _Work(s), _Work(s)
        written.writable()  # list columns: the scan
        for c in range(s.size * s.size):
            plain = [h for n in neighbour_cells(c, s.size) for h, at in enumerate(s.cell)
                     if at == n]
            assert shared.neighbours(c) == written.neighbours(c) == plain
            checked += bool(plain)
    assert checked > 100


def test_cell_index_table_equals_the_arithmetic() -> None:
    for size in (4, 5, 6):
        for col in "abcdef":
            for row in range(1, 7):
                c, r = "abcdef".index(col), row - 1
                expected = r * size + c if c < size and r < size else -1
                assert cell_index(f"{col}{row}", size) == expected
