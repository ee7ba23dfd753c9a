# The state hash as SPEC Part 3 ("State encoding and hash") defines it: an encoder written here
# from that text alone, reading only the public position (engine/versus42/positions.py), must give
# the engine's bytes and hash for every state of random games; the documented task codes must be
# the engine's (TASK_CODES_DOC is SPEC's table); and hashes made before the game interface existed
# must not change.
from __future__ import annotations

import contextlib
import hashlib
import json
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from versus.engine import HashRng, PositionError
from versus.engine.versus42 import (
    ActionOrder,
    Referee,
    Ruleset,
    dump_position,
    encode_state,
    layout_tiles,
    random_chooser,
    random_deal,
    state_hash,
)
from versus.engine.versus42.catalogue import catalogue_version
from versus.engine.versus42.game import _HANDLERS, TASKS
from versus.engine.versus42.positions import position_object

# catalogue version 1: the golden hashes below were computed with it (it stays shipped)
CAT = catalogue_version(1)

# SPEC Part 3, "Task codes" (code, task, fields): kept verbatim from SPEC
TASK_CODES_DOC = """
| 0 | `draw` | player |
| 1 | `discard` | player |
| 2 | `reveal` | handle |
| 3 | `land` | handle area face |
| 4 | `turn-up` | handle |
| 5 | `location` | area handle handle |
| 6 | `revelation` | area handle handle |
| 7 | `turned` | area handle handle |
| 8 | `absorb` | area handle handle |
| 9 | `passive` | handle other area |
| 10 | `end-turn` | — |
| 11 | `place` | player area |
"""


def documented_tasks() -> dict[str, tuple[int, tuple[str, ...]]]:
    out = {}
    for line in TASK_CODES_DOC.strip().splitlines():
        code, name, fields = (cell.strip() for cell in line.strip("|").split("|"))
        out[name.strip("`")] = (int(code), () if fields == "—" else tuple(fields.split()))
    return out


ZONES = ["deck", "hand", "field", "discarded", "destroyed", "absorbed"]
ACTIONS = ["summon", "flip", "activate", "move"]
CHOICES = ["discard-from-hand", "discard-from-field"]
PURPOSES = ["hand", "discard", "field"]
OUTCOMES = ["elimination", "absorption", "mutual-elimination", "turn-limit"]


def tagged(purpose: str, *parts: bytes) -> bytes:
    data = b"versus/v1/" + purpose.encode() + b"\x00"
    for part in parts:
        data += len(part).to_bytes(4, "big") + part
    return hashlib.sha256(data).digest()


def spec_encoding(pos: dict, catalogue_ids: list[str]) -> bytes:
    """encode_state written from SPEC's field list, over the public position only."""
    rules = pos["rules"]
    n, rows, cols = rules["deck_size"], rules["rows"], rules["cols"]
    names = [f"{chr(ord('a') + c)}{r + 1}" for r in range(rows) for c in range(cols)]
    tiles = ["WKGB".index(ch) for ch in pos["tiles"].replace(" ", "")]
    blue_row = tiles.index(3) // cols
    first = 1 - (0 if blue_row < rows // 2 else 1)  # §1.3.3: the Blue tile's owner plays second
    cards = pos["cards"]
    ints = [1, n, pos["turn"], pos["active"],
            sum(1 << ACTIONS.index(w) for w in pos["used"]), ACTIONS.index(pos["order"]),
            pos["summons"], first, *tiles]
    ints += [ZONES.index(c["zone"]) for c in cards]
    ints += [names.index(c["area"]) if "area" in c else -1 for c in cards]
    ints += [1 if c.get("face") == "recto" else 0 for c in cards]
    ints += [catalogue_ids.index(c["card"]) if "card" in c else -1 for c in cards]
    ints += [c.get("increase", 0) for c in cards]
    for c in cards:
        stack = c.get("absorbed", [])
        ints += [len(stack), *stack]
    battle = pos["battle"]
    board = [-1] * (rows * cols)
    for h, c in enumerate(cards):
        if c["zone"] == "field":
            board[names.index(c["area"])] = h
    if battle is not None:  # the card already there first
        board[names.index(battle["area"])] = battle["cards"][0]
    ints += board
    ints += [-1, -1, -1] if battle is None else [names.index(battle["area"]), *battle["cards"]]
    tasks = documented_tasks()
    ints.append(len(pos["tasks"]))
    for task in reversed(pos["tasks"]):  # the stack from the bottom: the next to run is last
        code, kinds = tasks[task[0]]
        values = [names.index(v) if k == "area" else ["verso", "recto"].index(v)
                  if k == "face" else -1 if v is None else v
                  for k, v in zip(kinds, task[1:], strict=True)]
        ints += [1 + len(values), code, *values]
    d = pos["decision"]
    if d is None:
        ints.append(0)
    elif d["kind"] == "turn":
        ints += [1, d["player"]]
    elif d["kind"] == "choice":
        ints += [2, d["player"], CHOICES.index(d["choice"]), len(d["options"]), *d["options"]]
    elif d["kind"] == "deal":
        ints += [3, d["player"], PURPOSES.index(d["purpose"])]
        if d["purpose"] == "field":
            ints.append(names.index(d["area"]))
    else:
        ints += [4, d["player"], d["handle"]]
    r = pos["result"]
    ints += [-1, -1] if r is None else [OUTCOMES.index(r["outcome"]),
                                        -1 if r["winner"] is None else r["winner"]]
    return b"VS" + struct.pack(f">{len(ints)}h", *ints)


def spec_hash(pos: dict, encoding: bytes) -> bytes:
    ruleset = json.dumps({"format": "versus-ruleset/1", **pos["rules"]}, sort_keys=True,
                         separators=(",", ":")).encode()
    return tagged("state", tagged("ruleset", ruleset), CAT.digest, encoding)


def _referee(seed: bytes, order: ActionOrder, deck: int, hand: int) -> Referee:
    rs = Ruleset(deck_size=deck, hand_size=min(hand, deck), action_order=order)
    ids, orders = random_deal(CAT, rs, HashRng(seed, "deal"))
    return Referee(rs, CAT, seed, ids, orders,
                   (random_chooser(HashRng(seed, "a")), random_chooser(HashRng(seed, "b"))))


games = st.tuples(st.binary(min_size=1, max_size=8), st.sampled_from(list(ActionOrder)),
                  st.integers(1, 21), st.integers(1, 5))


@settings(max_examples=15, deadline=None)
@given(games)
def test_spec_encoding_and_hash_reproduce_the_engine_from_the_position_alone(game):
    ref = _referee(*game)
    ids = [card.id for card in CAT.cards]
    while True:
        s = ref.state
        pos = position_object(s)
        encoding = spec_encoding(pos, ids)
        assert encoding == encode_state(s)
        assert spec_hash(pos, encoding) == state_hash(s)
        if s.result is not None:
            break
        ref.advance()


def test_documented_task_codes_are_the_engines():
    doc = documented_tasks()
    assert {t.name: (t.code, t.fields) for t in TASKS} == doc
    assert [t.code for t in TASKS] == list(range(len(TASKS))) == list(range(len(_HANDLERS)))
    for t, handler in zip(TASKS, _HANDLERS, strict=True):  # code k runs handler k
        assert handler.__name__ == "_t_" + t.name.replace("-", "_")


@settings(max_examples=15, deadline=None)
@given(games)
def test_every_task_pushed_in_play_is_documented(game):
    ref = _referee(*game)
    doc = {code: fields for code, fields in documented_tasks().values()}
    seen = 0
    while ref.state.result is None:
        s = ref.state
        for task in s.tasks:
            assert task[0] in doc
            kinds = doc[task[0]]
            assert len(task) == 1 + len(kinds)
            for kind, value in zip(kinds, task[1:], strict=True):
                lo, hi = {"player": (0, 1), "handle": (0, 2 * s.n - 1), "face": (0, 1),
                          "area": (0, s.geom.size - 1), "other": (-1, 2 * s.n - 1)}[kind]
                assert lo <= value <= hi, (task, kind)
            seen += 1
        ref.advance()
    assert seen > 0


def test_hashes_made_before_the_game_interface_are_unchanged():
    # computed with the engine as it was before the game interface (same seeds, referee and
    # choosers)
    assert layout_tiles(Ruleset(), b"golden") == (
        0, 0, 0, 0, 1, 1, 0, 2, 3, 0, 2, 1, 1, 1, 2, 1, 0, 1, 1, 0)
    golden = {  # inputs, the final state's hash, SHA-256 over every state's hash in turn
        ActionOrder.ORDERED: (
            90, "0d5e88209fa1484942d39d54443cc3c9310075aed12097ff92e2cc9971ea72ea",
            "4a4bc2c386f91fe0389163cb81d51d4d165fcacf99dae1dcbf2094481d71c199"),
        ActionOrder.ANY: (
            153, "e88e2334bbb5723786846f23c475176c93d84823096c8e8de6000c41768a39a6",
            "6bb0acd8f7c8a46070abe705694469c9aec237b241b6d7bed33a2e84c2756bf1"),
    }
    for order, (inputs, final, chain) in golden.items():
        seed = b"golden-" + order.value.encode()
        ref = _referee(seed, order, 12, 3)
        every = hashlib.sha256()
        while ref.state.result is None:
            ref.advance()
            every.update(state_hash(ref.state))
        assert (len(ref.history), state_hash(ref.state).hex(), every.hexdigest()) == (
            inputs, final, chain)


def test_spec_encoding_covers_the_deals_of_a_start_position():
    """SPEC §3.3 "Start positions": the `place` task and the deal of purpose field (with its
    area) are encoded as §3.4 says, recomputed from each position of the start's deals."""
    from versus.engine.api import rules_for_position
    from versus.engine.registry import get_game
    from versus.engine.versus42 import new_game
    from versus.engine.versus42.actions import Deal
    from versus.engine.versus42.game import DECK, FIELD

    ref = _referee(b"start", ActionOrder.ORDERED, 12, 3)
    versus, ids = get_game("versus42"), [card.id for card in CAT.cards]
    rules = None
    while rules is None and ref.state.result is None:
        ref.advance()
        s = ref.state
        if any(s.zone[h] == FIELD and s.ident[h] < 0 for h in range(2 * s.n)):
            with contextlib.suppress(PositionError):
                rules = rules_for_position(versus, dump_position(s))
    assert rules is not None
    s = new_game(rules, CAT, b"seed")
    kinds = set()
    while True:
        pos = position_object(s)
        encoding = spec_encoding(pos, ids)
        assert encoding == encode_state(s) and spec_hash(pos, encoding) == state_hash(s)
        d = versus.decision(s)
        if d.kind.value != "deal":
            break
        kinds.add(d.label)
        s = versus.step(s, Deal(next(h for h in versus.decks(rules)[d.deck].handles
                                     if s.zone[h] == DECK)))
    assert "field" in kinds
