# What is hidden stays hidden (SPEC §11.3, §11.1.5): a handle is a deal position, so nothing the
# player is shown before a flip depends on which cards lie face down. Two games with the same public
# setup and the same choices, whose decks differ only in the face-down cards (swapped with cards
# deep in the deck), show the very same views, legal inputs, narration, notation, board and
# scenes (at each decision of the player) until the first reveal that differs (a face-down
# card's flip, or rarely a deep card's draw), or to the end when the hidden cards never show.
from __future__ import annotations

import hashlib
import random

import pytest

from versus.engine.api import DecisionKind, Finished, Setup, scene_of
from versus.engine.multiverse import MULTIVERSE as G
from versus.engine.multiverse import engine as E
from versus.engine.multiverse.text import board

from .test_playouts import orders


def _hidden_twin(order: list[str], face_down: list[int], seed: int) -> list[str]:
    """`order` with each face-down position's card swapped with a different card from the
    last ten positions (rarely dealt before a flip)."""
    twin = list(order)
    rng = random.Random(seed)
    for p in face_down:
        deep = [q for q in range(len(twin) - 10, len(twin)) if twin[q] != twin[p]]
        q = rng.choice(deep)
        twin[p], twin[q] = twin[q], twin[p]
    return twin


def _shown(s, before, inp) -> tuple:
    """Everything a player (or its bot) is shown after `inp`."""
    narration = G.narrate(before, inp, s, 0, None) if before is not None else \
        G.narrate_start(s, 0)
    public = G.narrate(before, inp, s, None, None) if before is not None else \
        G.narrate_start(s, None)
    d = G.decision(s)
    asked = not isinstance(d, Finished) and d.kind in (DecisionKind.TURN, DecisionKind.CHOICE)
    scenes = (scene_of(G, s, 0, None), scene_of(G, s, None, None)) if asked else ()
    return (G.view(s, 0, None), d, board(s), G.format_input(inp) if inp else None,
            narration, public, scenes)


@pytest.mark.parametrize("difficulty", ["easy", "normal", "hard"])
def test_views_are_the_same_whatever_lies_face_down(difficulty):
    flips = turns = alike = 0
    for seed in range(8):
        rules = G.rules_from_options({"difficulty": difficulty, "deck": 80})
        start = G.new_game(Setup(rules, G.default_catalogue(), b"h"))
        order = orders(start, seed)
        # dealt face down: yours (0-2), then the rows (3 each). The twin differs in the
        # farthest row's cards, flipped last, so the games run alike for several turns (with
        # one row: in every face-down card)
        far = 3 + 3 * (rules.rows - 1)
        face_down = [far, far + 1, far + 2] if rules.rows > 1 else list(range(6))
        twin = [_hidden_twin(order[0], face_down, seed), order[1]]
        games = [start, start]
        shown = [_shown(start, None, None)] * 2
        rng = random.Random(seed)
        while True:
            assert shown[0] == shown[1]
            d = G.decision(games[0])
            if isinstance(d, Finished):  # the hidden cards never showed: alike to the end
                alike += 1
                break
            if d.kind is DecisionKind.DEAL:
                inps = [G.deal_input(E.next_handle(games[0].d, rules, start.cat, d.deck))] * 2
            elif d.kind is DecisionKind.REVEAL:
                deck = E.deck_of(rules, start.cat, d.handle)
                pos = d.handle - G.decks(rules)[deck].first
                inps = [G.reveal_input(d.handle, o[deck][pos]) for o in (order, twin)]
                if inps[0] != inps[1]:  # the first difference: a face-down card flips (or,
                    assert d.handle in face_down or d.handle >= 70, (seed, d.handle)
                    flips += d.handle in face_down  # rarely, a deep card is drawn)
                    break
            elif d.kind is DecisionKind.CHANCE:
                inps = [G.legal_actions(games[0])[rng.randrange(6)]] * 2
            else:
                legal = G.view(games[0], 0, None)["legal_actions"]
                inps = [legal[rng.randrange(len(legal))]] * 2
                turns += 1
            before = games
            games = [G.step(g, i) for g, i in zip(games, inps, strict=True)]
            shown = [_shown(g, b, i) for g, b, i in zip(games, before, inps, strict=True)]
    # nearly every game reached a flip, after a real stretch of play
    assert flips + alike >= 6 and turns >= (8 if difficulty == "easy" else 40), (flips, turns)


def test_the_player_decides_no_die_roll():
    """While the Multiverse's d6 is pending (and while a deal or reveal is), the player's view
    lists no input: the die is the run's randomness, not the player's choice."""
    seen = set()
    for seed in range(6):
        s = G.new_game(Setup(G.rules_from_options({"difficulty": "easy", "deck": 50}),
                             G.default_catalogue(), b"r"))
        order = orders(s, seed)
        rng = random.Random(seed)
        while not isinstance(d := G.decision(s), Finished):
            legal = G.view(s, 0, None)["legal_actions"]
            assert not any(a.startswith("roll") for a in legal)
            if d.kind is DecisionKind.DEAL:
                inp = G.deal_input(E.next_handle(s.d, s.rules, s.cat, d.deck))
            elif d.kind is DecisionKind.REVEAL:
                deck = E.deck_of(s.rules, s.cat, d.handle)
                inp = G.reveal_input(d.handle, order[deck][d.handle - G.decks(s.rules)[deck].first])
            elif d.kind is DecisionKind.CHANCE:
                inp = G.legal_actions(s)[int(hashlib.sha256(bytes([seed])).digest()[0]) % 6]
            else:
                inp = legal[rng.randrange(len(legal))]
            if d.kind not in (DecisionKind.TURN, DecisionKind.CHOICE):
                assert legal == []
            seen.add(d.kind)
            s = G.step(s, inp)
    assert DecisionKind.CHANCE in seen


def test_deals_are_forced_and_reveals_checked_against_the_deck():
    s = G.new_game(Setup(G.rules_from_options({"difficulty": "easy", "deck": 50}),
                         G.default_catalogue(), b"f"))
    assert G.decision(s).kind is DecisionKind.DEAL
    first_bg = G.decks(s.rules)[1].first
    from versus.engine.errors import IllegalActionError

    with pytest.raises(IllegalActionError, match="next card of deck 1 is 50"):
        G.step(s, G.deal_input(first_bg + 1))
    s = G.step(s, G.deal_input(first_bg))
    with pytest.raises(IllegalActionError, match="no unrevealed 'ember-knight'"):
        G.step(s, G.reveal_input(first_bg, "ember-knight"))  # a Power card is no battleground
    s = G.step(s, G.reveal_input(first_bg, "mirror-wastes"))
    assert "mirror-wastes" not in G.unrevealed(s, 1)
    assert len(G.unrevealed(s, 1)) == G.decks(s.rules)[1].size - 1
