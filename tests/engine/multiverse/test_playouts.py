# Random playouts with invariants (SPEC Part 11): cards are conserved, hidden cards never enter
# `known` before a reveal, outcomes match the board, positions round-trip. Each playout's decks
# are in a random order (`orders`): a reveal names the card at the handle's deal position.
from __future__ import annotations

import hashlib

from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.multiverse import engine as E


def orders(s, seed: int) -> list[list[str]]:
    """Both decks' cards in a random (seeded) order: position k holds the k-th card dealt."""
    out = []
    for deck in (0, 1):
        cards = list(G.unrevealed(s, deck))
        keys = [hashlib.sha256(f"{seed}/{deck}/{i}".encode()).digest() for i in range(len(cards))]
        out.append([c for _, c in sorted(zip(keys, cards, strict=True))])
    return out


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
        order = orders(s, seed)
        n = 0
        while not isinstance(d := G.decision(s), Finished):
            n += 1
            r = int.from_bytes(hashlib.sha256(f"{seed}/{n}".encode()).digest()[:8], "big")
            if d.kind is DecisionKind.DEAL:
                inp = G.deal_input(E.next_handle(s.d, s.rules, s.cat, d.deck))
            elif d.kind is DecisionKind.REVEAL:
                deck = E.deck_of(s.rules, s.cat, d.handle)
                first = G.decks(s.rules)[deck].first
                inp = G.reveal_input(d.handle, order[deck][d.handle - first])
            else:
                legal = G.legal_actions(s)
                inp = legal[r % len(legal)]
            before = s.d["side"]
            s = G.step(s, inp)
            if before == 0 and s.d["side"] == 1:  # §11.1.8: the hand limit holds at the turn's end
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
            assert E.deck_left(s.d, s.rules, s.cat, 0) == 0
        assert G.score(s) >= (100 if out == "victory" else 0)
