# Random playouts with invariants (SPEC Part M): cards are conserved, hidden cards never enter
# `known` before a reveal, outcomes match the board, positions round-trip.
from __future__ import annotations

import hashlib

from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.multiverse import MULTIVERSE as G


def _zones(s) -> list[int]:
    d = s.d
    out = list(d["hand"]) + list(d["discard"]) + [h for h in d["pdef"] if h >= 0]
    out += [h for r in d["rows"] for h in r["cards"] if h >= 0]
    if d["combat"]:
        out += [h for h in d["combat"]["attackers"] + d["combat"]["instants"]
                if d["combat"]["side"] == 0]
    return out


def test_playouts_invariants():
    for seed in range(12):
        diff = ("easy", "normal", "hard")[seed % 3]
        s = G.new_game(Setup(G.rules_from_options({"difficulty": diff}),
                             G.default_catalogue(), b"p"))
        n = 0
        while not isinstance(d := G.decision(s), Finished):
            n += 1
            r = int.from_bytes(hashlib.sha256(f"{seed}/{n}".encode()).digest()[:8], "big")
            if d.kind is DecisionKind.DEAL:
                left = G.undealt(s, d.deck)
                inp = G.deal_input(left[r % len(left)])
            elif d.kind is DecisionKind.REVEAL:
                inp = G.reveal_input(d.handle, G.card_of(s, d.handle))
            else:
                legal = G.legal_actions(s)
                inp = legal[r % len(legal)]
            before = s.d["side"]
            s = G.step(s, inp)
            if before == 0 and s.d["side"] == 1:  # M8: the hand limit holds at the turn's end
                assert len(s.d["hand"]) <= 6
            zones = _zones(s)
            assert len(zones) == len(set(zones))  # no card in two places
            assert set(zones) <= set(s.d["dealt"][0])  # only dealt cards are in play
            for row in s.d["rows"]:
                for h, up in zip(row["cards"], row["up"], strict=False):
                    assert not up or str(h) in s.d["known"]
            if n % 37 == 0:
                assert G.load_position(G.dump_position(s)) == s
        out = d.outcome
        rows_empty = all(h < 0 for r in s.d["rows"] for h in r["cards"])
        assert (out == "victory") == rows_empty
        if out == "defenses-eliminated":
            assert all(h < 0 for h in s.d["pdef"])
        if out == "deck-exhausted":
            assert not G.undealt(s, 0)
        assert G.score(s) >= (100 if out == "victory" else 0)
