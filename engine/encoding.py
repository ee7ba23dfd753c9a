# A game as a research environment: its observation vector and its fixed action space (SPEC
# Part 3, "Observation and action encoding"). The environments in rl/ (PettingZoo, Gymnasium,
# OpenSpiel) and the `py:` bot kind ask a game only through these functions, never by its id.
#
# How: a game that offers an encoding has five optional members, kept in its own package
# (engine/<game>/encode.py), since what a vector means is a rule of that game:
#
#   observation_size(rules) -> int         the length of every observation under `rules`
#   observe(state, seat, knowledge) -> dict[int, float]
#                                          what `seat` sees, as the vector's nonzero entries
#                                          (index -> value): built from the public state and
#                                          that seat's own knowledge only, never another's
#   action_count(rules) -> int             the size of the fixed action space under `rules`
#   action_index(state, inp) -> int        a legal TURN/CHOICE input's index in that space
#   input_of(state, index) -> input        the inverse; an index that is not legal raises
#
# Why plain dicts, lists and ints here: the engine never imports numpy (start-up, and the base
# install has no numpy); rl/ writes the entries into arrays. Why the nonzero entries: a vector
# is thousands of floats of which a few hundred are set, and building only those keeps the
# environments' cost per step near the engine's. A game may add `legal_indices(state, legal)`
# when computing the indices together is cheaper than one by one (Versus's Activate ranks), and
# `observe_changes(state, seat, knowledge, memo)`: only the entries that changed since the
# observation its memo describes, since an environment keeps one vector per seat and between
# two decisions a few handles change (the helpers below serve those members).
from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from operator import ne
from typing import Any

from .api import Finished, Game, GameInput, GameKnowledge, GameRules, GameState
from .errors import EngineError

#: the optional members a game with an encoding has (all of them, or none)
MEMBERS = ("observation_size", "observe", "action_count", "action_index", "input_of")


class EncodingError(EngineError):
    """A game has no encoding, or an input or index is outside the encoding (the message names
    the game and the offending value)."""


def has_encoding(game: Game) -> bool:
    """Whether `game` offers the encoding members (all five)."""
    return all(callable(getattr(game, name, None)) for name in MEMBERS)


def _member(game: Game, name: str) -> Any:
    member = getattr(game, name, None)
    if member is None or not has_encoding(game):  # (all five checked only when one is absent)
        missing = [m for m in MEMBERS if not callable(getattr(game, m, None))]
        raise EncodingError(f"game {game.id!r} has no observation/action encoding (it lacks "
                            f"{', '.join(missing)})")
    return member


def observation_size(game: Game, rules: GameRules) -> int:
    return int(_member(game, "observation_size")(rules))


def observe_entries(game: Game, state: GameState, seat: int,
                    knowledge: GameKnowledge) -> dict[int, float]:
    """`seat`'s observation of `state` as its nonzero entries, index -> value (an entry may
    also be 0.0); every index is below `observation_size`."""
    return _member(game, "observe")(state, seat, knowledge)  # type: ignore[no-any-return]


def per_step(game: Game, name: str) -> Any:
    """The game's member `name` as an environment calls it every step, or None without it.
    Decided (SPEC §3.6): a game's `observe_changes` and `legal_indices` are the functions of
    those names in its package's encode module when it has one, which the game's member only
    imports on first use (start-up); the import statement costs ~1.5 µs a call (the package's
    name resolved, sys.modules searched), a few per cent of a raw engine step, so the module's
    function is called directly once the member has loaded it."""
    key = (type(game), name)
    hit = _PER_STEP.get(key)
    if hit is None:
        member = getattr(game, name, None)
        home = type(game).__module__
        if not hasattr(sys.modules.get(home), "__path__"):  # a class in a package's module
            home = home.rpartition(".")[0]
        direct = getattr(sys.modules.get(f"{home}.encode"), name, None)
        if member is None or not callable(direct):
            return member  # (not kept: the module may be loaded by the member's first call)
        hit = _PER_STEP[key] = direct
    return hit


_PER_STEP: dict[tuple[type, str], Any] = {}


def observe_changes(game: Game, state: GameState, seat: int, knowledge: GameKnowledge,
                    memo: Any) -> tuple[dict[int, float], Any]:
    """`seat`'s observation of `state` as the entries that differ from the observation `memo`
    describes (None: the zero vector), index -> value (0.0: an entry to clear), and the memo
    of this observation for the next call. An environment keeps one vector per seat and
    writes only these: between two steps a few handles change, so the game's optional member
    `observe_changes` (same signature, its own memo) rebuilds only their blocks. Without it,
    the whole observation each time, with the last one's entries cleared (the memo: their
    indices)."""
    member = per_step(game, "observe_changes")
    if member is not None:
        return member(state, seat, knowledge, memo)  # type: ignore[no-any-return]
    entries = observe_entries(game, state, seat, knowledge)
    changes = dict.fromkeys(memo, 0.0) if memo else {}
    changes.update(entries)
    return changes, tuple(entries)


def changed_handles(pairs: Iterable[tuple[Sequence[Any], Sequence[Any]]]) -> set[int]:
    """The positions at which any (new, old) pair of per-handle sequences differ: each pair
    compared whole first, the positions of one that differs found by map and compress (all
    in C: a game's `observe_changes` asks this every step). A pair of one list (a
    copy-on-write state shares the lists a step did not write) is known equal for free."""
    out: set[int] = set()
    for new, old in pairs:
        if new is not old and new != old:
            out.update(compress(range(len(new)), map(ne, new, old)))
    return out


def own_changes(new: dict[int, str], old: dict[int, str]) -> set[int]:
    """The handles whose card a seat's knowledge names differently in `new` than in `old`."""
    if new == old:
        return set()
    # (set operations in C: the pairs new or changed, then the handles no longer named)
    return {h for h, _ in new.items() - old.items()} | (old.keys() - new.keys())


def rewrite_blocks(out: dict[int, float], blocks: list[dict[int, float]], changed: set[int],
                   build: Callable[[int], dict[int, float]]) -> list[dict[int, float]]:
    """Write into `out` what turns each `changed` handle's old entries (`blocks[h]`) into its
    new ones (`build(h)`); the blocks with those replaced (a copy: the memo that holds the old
    ones may still be read)."""
    if not changed:
        return blocks
    blocks = blocks.copy()
    for h in changed:
        out.update(dict.fromkeys(blocks[h], 0.0))
        block = blocks[h] = build(h)
        out.update(block)
    return blocks


def write_diff(out: dict[int, float], new: dict[int, float], old: dict[int, float]) -> None:
    """Write into `out` what turns the entries `old` into `new` (a header's, say)."""
    if new != old:
        out.update(dict.fromkeys(old.keys() - new.keys(), 0.0))
        out.update(new.items() - old.items())


def observe(game: Game, rules: GameRules, state: GameState, seat: int,
            knowledge: GameKnowledge) -> list[float]:
    """`seat`'s observation of `state` (a state of a match under `rules`) as the full vector
    of `observation_size(game, rules)` floats."""
    out = [0.0] * observation_size(game, rules)
    for i, value in observe_entries(game, state, seat, knowledge).items():
        out[i] = value
    return out


def action_count(game: Game, rules: GameRules) -> int:
    return int(_member(game, "action_count")(rules))


def action_index(game: Game, state: GameState, inp: GameInput) -> int:
    return int(_member(game, "action_index")(state, inp))


def input_of(game: Game, state: GameState, index: int) -> GameInput:
    """The legal input whose index is `index`; EncodingError when no legal input has it."""
    if type(index) is not int:
        try:
            index = int(index)  # a numpy integer from an environment
        except (TypeError, ValueError):
            raise EncodingError(f"game {game.id!r}: action {index!r:.40} is not an integer") \
                from None
    return _member(game, "input_of")(state, index)


def legal_indices(game: Game, state: GameState,
                  legal: Sequence[GameInput] | None = None) -> list[int]:
    """The indices of the legal TURN/CHOICE inputs of `state`, in the game's legal order
    ([] for a finished game or an automatic decision). `legal`: the legal inputs of the
    state's TURN or CHOICE decision when the caller has them already (computing them is most
    of the cost)."""
    if legal is None:
        d = game.decision(state)
        if isinstance(d, Finished) or d.kind.value not in ("turn", "choice"):
            return []
        legal = game.legal_actions(state)
    if not legal:
        return []
    fast = per_step(game, "legal_indices")  # optional: a game whose indices share work
    if fast is not None:
        out = fast(state, legal)
        return out if type(out) is list else list(out)  # (the games' own are new lists)
    index = _member(game, "action_index")
    return [index(state, inp) for inp in legal]


class KnownIndices:
    """The action index of every input object met under one rules, by the object's id: an
    engine that hands out the same input objects again and again (an action cache) then has
    a step's indices looked up in C (`list(map(known.index.get, map(id, legal)))`). The
    objects are kept alive here, so no id is reused while its entry stands. An entry may be
    only the first slot of a group, the game adding a rank per list (Versus's Activates).
    Take one with `known_indices` for each list: a full one is replaced, never emptied under
    a caller."""

    __slots__ = ("index", "kept")
    LIMIT = 1 << 16  # entries before starting afresh (bounds a game that builds new inputs)

    def __init__(self) -> None:
        self.index: dict[int, int] = {}
        self.kept: list[Any] = []

    def add(self, inp: Any, index: int) -> None:
        self.index[id(inp)] = index
        self.kept.append(inp)


_KNOWN: dict[Any, KnownIndices] = {}  # by rules (equal rules: one layout, one table)
_KNOWN_BY_ID: dict[int, tuple[Any, KnownIndices]] = {}  # the same by id (a rules' hash is slow)


def known_indices(rules: GameRules) -> KnownIndices:
    """The `KnownIndices` of `rules` (one per distinct rules; a new one once it is full)."""
    hit = _KNOWN_BY_ID.get(id(rules))
    if hit is not None and hit[0] is rules and len(hit[1].kept) < KnownIndices.LIMIT:
        return hit[1]
    if len(_KNOWN) >= 64 or len(_KNOWN_BY_ID) >= 256:
        _KNOWN.clear()
        _KNOWN_BY_ID.clear()
    known = _KNOWN.get(rules)
    if known is None or len(known.kept) >= KnownIndices.LIMIT:
        known = _KNOWN[rules] = KnownIndices()
    _KNOWN_BY_ID[id(rules)] = (rules, known)  # (the rules kept: their id is not reused)
    return known
