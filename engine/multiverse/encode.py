# Against the Multiverse as a research environment (SPEC Part 11, "Observation and action
# encoding"): the player's observation as a fixed-length list of floats, and every TURN/CHOICE
# input as an index in a fixed action space (engine/encoding.py says what the members are for).
#
# How: a header (turn, whose side, the turn's flags, shields, rallies, the last roll, how many
# defense cards are defeated), then one block per handle (a deal position, §11.3: the Power
# deck's, then the Battlegrounds'): where the card is, face up or not, and its identity once
# revealed (`known`, the only identities the public state holds; a solo player sees nothing
# more). Actions: a slot for draw, end and done, one per Power handle for slow, instant and
# discard, and one per (handle, column) for attack.
from __future__ import annotations

from functools import cache
from typing import Any

from ..encoding import EncodingError
from .cards import default
from .engine import State, legal
from .rules import Rules

#: turn/100, the player's side, slow used, main used, shield (2), rally (2), last roll/6,
#: defeated/10, finished, won
HEADER = 12
#: where a handle is: not dealt, hand, discard, the player's defense, the player's
#: battleground, a Multiverse defense, a Multiverse battleground
PLACES = 7
SCALE_TURN, SCALE_COUNT = 100.0, 10.0
BARE = ("draw", "end", "done")
ONE_HANDLE = ("slow", "instant", "discard")
COLUMNS = 3


@cache
def _ids() -> tuple[str, ...]:
    cat = default()
    return tuple(p.id for p in cat.powers) + tuple(b.id for b in cat.battlegrounds)


@cache
def _battlegrounds() -> int:
    return len(default().battlegrounds)


def _handles(rules: Rules) -> int:
    return rules.deck + _battlegrounds()


def handle_width(rules: Rules) -> int:
    """place one-hot, face up, row one-hot (the Multiverse's rows), card one-hot."""
    return PLACES + 1 + rules.rows + len(_ids())


def observation_size(rules: Rules) -> int:
    return HEADER + _handles(rules) * handle_width(rules)


def observe(s: State, seat: int, knowledge: Any) -> dict[int, float]:
    if seat != 0:
        raise EncodingError(f"multiverse observation: seat {seat!r} is not 0 (a solo game)")
    d, rules = s.d, s.rules
    out: dict[int, float] = {}
    out[0] = d["turn"] / SCALE_TURN
    out[1] = float(d["side"] == 0)
    out[2], out[3] = float(d["slow_used"]), float(d["main_used"])
    out[4], out[5] = d["shield"][0] / SCALE_COUNT, d["shield"][1] / SCALE_COUNT
    out[6], out[7] = d["rally"][0] / SCALE_COUNT, d["rally"][1] / SCALE_COUNT
    out[8] = d["last_roll"] / 6.0
    out[9] = d["defeated"] / SCALE_COUNT
    if d["outcome"] is not None:
        out[10] = 1.0
        out[11] = float(d["outcome"][1] == 0)
    width = handle_width(rules)
    place: dict[int, tuple[int, bool, int]] = {}  # handle -> (place, face up, row)
    for h in d["hand"]:
        place[h] = (1, False, -1)
    for h in d["discard"]:
        place[h] = (2, True, -1)
    for k, h in enumerate(d["pdef"]):
        if h >= 0:
            place[h] = (3, bool(d["pup"][k]), -1)
    if d["pbg"] >= 0:
        place[d["pbg"]] = (4, True, -1)
    for r, row in enumerate(d["rows"]):
        for c, h in enumerate(row["cards"]):
            if h >= 0:
                place[h] = (5, bool(row["up"][c]), r)
        if row["bg"] >= 0:
            place[row["bg"]] = (6, True, r)
    ids = _ids()
    for h in range(_handles(rules)):
        base = HEADER + h * width
        where, up, row = place.get(h, (0, False, -1))
        out[base + where] = 1.0
        out[base + PLACES] = float(up)
        if row >= 0:
            out[base + PLACES + 1 + row] = 1.0
        cid = d["known"].get(str(h))
        if cid is not None and cid in ids:
            out[base + PLACES + 1 + rules.rows + ids.index(cid)] = 1.0
    return out


def action_count(rules: Rules) -> int:
    return len(BARE) + len(ONE_HANDLE) * rules.deck + rules.deck * COLUMNS


def action_index(s: State, inp: str) -> int:
    n = s.rules.deck
    words = inp.split(" ") if isinstance(inp, str) else []
    if len(words) == 1 and words[0] in BARE:
        return BARE.index(words[0])
    if len(words) >= 2 and words[1].isdigit() and int(words[1]) < n:
        h = int(words[1])
        if len(words) == 2 and words[0] in ONE_HANDLE:
            return len(BARE) + ONE_HANDLE.index(words[0]) * n + h
        if len(words) == 3 and words[0] == "attack" and words[2] in ("0", "1", "2"):
            return len(BARE) + len(ONE_HANDLE) * n + h * COLUMNS + int(words[2])
    raise EncodingError(f"multiverse: input {inp!r:.60} has no action index")


def _input_at(rules: Rules, index: int) -> str | None:
    n = rules.deck
    if 0 <= index < len(BARE):
        return BARE[index]
    index -= len(BARE)
    if 0 <= index < len(ONE_HANDLE) * n:
        return f"{ONE_HANDLE[index // n]} {index % n}"
    index -= len(ONE_HANDLE) * n
    if 0 <= index < n * COLUMNS:
        return f"attack {index // COLUMNS} {index % COLUMNS}"
    return None


def input_of(s: State, index: int) -> str:
    inp = _input_at(s.rules, index)
    if inp is None or inp not in legal(s):
        raise EncodingError(f"multiverse: action {index} is not a legal input here")
    return inp
