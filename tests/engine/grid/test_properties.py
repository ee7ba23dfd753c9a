# Random playouts of the grid game (hypothesis): every game ends; the same inputs give the
# same hashes; no view or narration names a card its viewer may not know; every position
# round-trips; and the state encoding is recomputed from its SPEC text (§9.4) from the position
# alone, so the hash is defined by the SPEC, not by the code.
from __future__ import annotations

import hashlib
import json
import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from versus.engine.api import DecisionKind, Finished
from versus.engine.grid import GRID
from versus.engine.grid.begin import new_game
from versus.engine.grid.cards import default_catalogue
from versus.engine.grid.positions import DEC_NAMES, TASK_NAMES, ZONE_NAMES, load_position
from versus.engine.grid.referee import random_game
from versus.engine.grid.rules import GridRules
from versus.engine.grid.state import OUTCOME_LABELS, cell_index, encode_state, step

CAT = default_catalogue()
RULES = st.builds(lambda m, d, t, x: GridRules.from_options(
    {"mode": m, "deck": d, "tie": t, "mix": x}),
    st.sampled_from(["fast", "normal", "vs"]), st.sampled_from(["individual", "shared"]),
    st.sampled_from(["draw", "sudden-death"]),
    st.sampled_from(["standard", "no-items", "no-traps", "characters-only"]))
SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def spec_encoding(position: str) -> bytes:
    """SPEC §9.4, from the position text alone."""
    o = json.loads(position)
    rules = GridRules.from_options(o["rules"])
    size = rules.size
    zones = {v: k for k, v in ZONE_NAMES.items()}
    cards = o["cards"]
    v = [1, size, len(cards), o["first"], o["active"], o["turn"], int(o["acted"]),
         o["placements"], int(o["airdrop"])]
    v += [int(zones[c["zone"]]) for c in cards]
    v += [c.get("holder", -1) for c in cards]
    v += [c.get("controller", -1) for c in cards]
    v += [cell_index(c["cell"], size) if "cell" in c else -1 for c in cards]
    v += [int(c.get("up", False)) for c in cards]
    v += [CAT.index[c["card"]] if "card" in c else -1 for c in cards]
    v += [c.get("weaken", 0) for c in cards]
    v += [c.get("boost", 0) for c in cards]
    v += [int(c.get("shield", False)) for c in cards]
    v.append(len(o["graveyards"]))
    for g in o["graveyards"]:
        v += [len(g), *g]
    v += [len(o["modifiers"]), *o["modifiers"]]
    tasks = {name: int(code) for code, name in TASK_NAMES.items()}
    v.append(len(o["tasks"]))
    for t in reversed(o["tasks"]):  # the position lists the next task first
        v += [len(t), tasks[t[0]], *t[1:]]
    d = o["decision"]
    if d is None:
        v.append(0)
    else:
        codes = {name: int(code) for code, name in DEC_NAMES.items()}
        v += [1 + len(d["fields"]), codes[d["kind"]], *d["fields"]]
    r = o["result"]
    if r is None:
        v += [-1, -1]
    else:
        labels = {label: int(code) for code, label in OUTCOME_LABELS.items()}
        v += [labels[r["outcome"]], -1 if r["winner"] is None else r["winner"]]
    return b"GR" + struct.pack(f">{len(v)}h", *v)


def spec_hash(rules: GridRules, encoding: bytes) -> bytes:
    def tagged(tag: bytes, *parts: bytes) -> bytes:
        h = hashlib.sha256(b"versus/v1/" + tag + b"\x00")
        for p in parts:
            h.update(len(p).to_bytes(4, "big") + p)
        return h.digest()

    rules_digest = tagged(b"grid/rules", rules.encode())
    cat_digest = tagged(b"grid/catalogue", CAT.encode())
    return tagged(b"grid/state", rules_digest, cat_digest, encoding)


@SETTINGS
@given(rules=RULES, seed=st.binary(min_size=1, max_size=8))
def test_random_games_end_replay_to_the_same_hashes_and_leak_nothing(rules: GridRules,
                                                                     seed: bytes) -> None:
    ref = random_game(rules, CAT, seed)
    result = ref.play()
    assert isinstance(result, Finished)
    # the same inputs give the same hashes
    s = new_game(rules, CAT)
    for before, inp in ref.history:
        assert GRID.state_hash(s) == GRID.state_hash(before)
        assert GRID.parse_input(GRID.format_input(inp)) == inp
        s = step(s, inp)
    assert encode_state(s) == encode_state(ref.state)
    # views and narration: only public cards and the viewer's own
    names = {h: CAT.card(cid).name for h, cid in enumerate(ref.identities)}
    for k, (before, inp) in enumerate(ref.history):
        after = ref.history[k + 1][0] if k + 1 < len(ref.history) else ref.state
        public = {CAT.cards[i].id for i in after.ident if i >= 0}
        for viewer in (0, 1):
            know = ref.knowledge[viewer]
            v = GRID.view(after, viewer, know)
            assert v.card_ids() <= public | set(know.cards.values())
            hidden = [h for h in range(len(after.zone)) if after.ident[h] < 0
                      and not (after.holder[h] == viewer and h in know.cards)]
            assert not [c for c in v.grid if c.handle in hidden and c.card]
            assert not [h for h, cid in v.opponent_hand if cid]  or \
                all(after.ident[h] >= 0 for h, cid in v.opponent_hand if cid)
            text = " ".join(GRID.narrate(before, inp, after, viewer, know))
            assert not [h for h in hidden if f"{names[h]} (card {h})" in text]
        third = " ".join(GRID.narrate(before, inp, after, 2, None))  # type: ignore[arg-type]
        assert not [h for h in range(len(after.zone))
                    if after.ident[h] < 0 and f"{names[h]} (card {h})" in third]


@SETTINGS
@given(rules=RULES, seed=st.binary(min_size=1, max_size=8), data=st.data())
def test_positions_round_trip_and_the_spec_encoding_matches(rules: GridRules, seed: bytes,
                                                           data: st.DataObject) -> None:
    ref = random_game(rules, CAT, seed)
    ref.play()
    states = [b for b, _ in ref.history] + [ref.state]
    picks = data.draw(st.lists(st.integers(0, len(states) - 1), min_size=1, max_size=6))
    for i in [*picks, 0, len(states) - 1]:
        s = states[i]
        text = GRID.dump_position(s)
        loaded = load_position(text, CAT)
        assert GRID.dump_position(loaded) == text
        assert GRID.state_hash(loaded) == GRID.state_hash(s)
        assert GRID.legal_actions(loaded) == GRID.legal_actions(s)
        assert spec_encoding(text) == encode_state(s)
        assert spec_hash(rules, encode_state(s)) == GRID.state_hash(s)


def test_every_decision_kind_and_outcome_occurs_in_random_play() -> None:
    kinds, labels, outcomes = set(), set(), set()
    for k in range(40):
        rules = GridRules.from_options({"tie": "sudden-death", "deck": ("individual",
                                                                        "shared")[k % 2]})
        ref = random_game(rules, CAT, b"kinds%d" % k)
        result = ref.play()
        outcomes.add(result.outcome)
        for before, _ in ref.history:
            d = GRID.decision(before)
            kinds.add(d.kind)  # type: ignore[union-attr]
            labels.add(d.label)  # type: ignore[union-attr]
    assert kinds == set(DecisionKind)
    assert {"coin", "draw", "free-window", "battle-order", "item-target"} <= labels
    assert {"home-base", "most-cards"} <= outcomes
