# Random playouts of Vanquishers (hypothesis picks the seeds, the modes and the choosers):
# every game ends, the same inputs give the same hashes, nothing hidden leaks into a view or a
# narration, every position reached round-trips, every input's text round-trips, and the state
# encoding is re-computed from the text of SPEC §10.4 alone.
from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from versus.engine.api import Finished, Setup
from versus.engine.errors import PositionError
from versus.engine.vanquishers import VANQUISHERS as G
from versus.engine.vanquishers import starter_deck, validate_deck
from versus.engine.vanquishers.engine import Verb, Zone
from versus.engine.vanquishers.rules import Mode, Rules

from .referee import Game, random_chooser, useful_chooser

CAT = G.default_catalogue()
HEROES = [h.id for h in CAT.heroes]
NAMES = {c.id: c.name for c in CAT.cards}

games = st.builds(
    lambda seed, mode, h0, h1, useful, size: Game(
        Rules(size, mode, h0, h1), seed=f"p{seed}",
        choosers=(useful_chooser, useful_chooser) if useful else (random_chooser,
                                                                   random_chooser)),
    st.integers(0, 10**6), st.sampled_from(list(Mode)), st.sampled_from(HEROES),
    st.sampled_from(HEROES), st.booleans(), st.sampled_from([30, 40]))


@settings(max_examples=30, deadline=None)
@given(games)
def test_every_game_ends_and_replays_to_the_same_hashes(game: Game) -> None:
    result = game.play()
    assert isinstance(result, Finished)
    state = G.new_game(Setup(game.rules, CAT, b"other seed"))
    for before, inp, _after in game.history:
        assert G.state_hash(state) == G.state_hash(before)
        text = G.format_input(inp)
        assert G.parse_input(text) == inp and G.format_input(G.parse_input(text)) == text
        state = G.step(state, inp)
    assert G.state_hash(state) == G.state_hash(game.state)
    assert G.legal_actions(game.state) == []


def _allowed(state, knowledge) -> set[str]:  # type: ignore[no-untyped-def]
    public = {state.cat.cards[i].id for i in state.card if i >= 0}
    public |= {state.cat.cards[side[6]].id for side in state.sides if side[6] >= 0}
    return public | set(knowledge.cards.values())


@settings(max_examples=6, deadline=None)
@given(games)
def test_no_hidden_card_leaks_into_views_or_narration(game: Game) -> None:
    game.play()
    for viewer in (0, 1):
        knowledge = G.new_knowledge(viewer)
        for before, inp, after in game.history[::3] + game.history[-3:]:
            for h, cid in game.knowledge[viewer].cards.items():
                knowledge.learn(h, cid)
            allowed = _allowed(after, knowledge) | _allowed(before, knowledge)
            text = " ".join(G.narrate(before, inp, after, viewer, knowledge))
            view = json.dumps(G.view(after, viewer, knowledge).to_dict())
            for cid, name in NAMES.items():
                if cid in allowed or cid in HEROES:
                    continue
                assert name not in text, (name, text)
                assert f'"{cid}"' not in view, cid
    # a view holds only the viewer's own hidden cards: the opponent's hand is a count
    view = G.view(game.state, 0, game.knowledge[0]).to_dict()
    assert isinstance(view["opponent"]["hand"], int)


@settings(max_examples=6, deadline=None)
@given(games)
def test_positions_round_trip(game: Game) -> None:
    game.play()
    for _, _, after in [*game.history[::7], game.history[-1]]:
        text = G.dump_position(after)
        loaded = G.load_position(text)
        assert G.dump_position(loaded) == text
        assert G.state_hash(loaded) == G.state_hash(after)
        assert G.legal_actions(loaded) == G.legal_actions(after)


def trap_deck(hero: str, size: int = 30) -> list[str]:
    """A legal deck with 4 of each of two traps: random play sets a trap face up (a trap played
    face up fizzles and stays public) and a copy face down often."""
    traps = ["tripwire"] * 4 + ["smoke-screen"] * 4
    base = [c for c in starter_deck(CAT, hero, size) if c not in traps]
    deck = base[:size - len(traps)] + traps
    validate_deck(CAT, hero, deck, size)
    return deck


@pytest.mark.parametrize(("mode", "seed"), [(Mode.STANDARD, "vq-trap/8"),
                                            (Mode.ADVANCED, "vq-trap/24")])
def test_a_face_down_trap_named_as_a_face_up_one_springs_as_a_decoy(mode: Mode, seed: str
                                                                     ) -> None:
    """Found by review: the legal list offered `trap h c` for a hidden card; when it sprang and
    was named as a trap its owner had set face up, its true reveal was refused ("a trap named
    'tripwire' is already set"), so the engine framed an honest player. These random games
    (seeds found so) reach that spring; they now end, and the card was a decoy (§10.1.5.6)."""
    rules = Rules(mode=mode)
    game = Game(rules, seed=seed, decks=(trap_deck(rules.hero0), trap_deck(rules.hero1)),
                choosers=(random_chooser, random_chooser))
    assert isinstance(game.play(), Finished)
    sprung = []
    for before, inp, after in game.history:
        if inp.verb is Verb.REVEAL and before.zone[inp.handle] == Zone.TRAP:
            owner = before.owner(inp.handle)
            face_up = {before.card[t] for t in before.handles(owner, Zone.TRAP)}
            if after.card[inp.handle] in face_up:
                sprung.append(inp)
    assert sprung  # the game reached the case, and went on
    assert G.state_hash(game.state)


def test_a_bad_position_names_the_field() -> None:
    game = Game(Rules(), seed="bad")
    for _ in range(40):
        game.advance()
    obj = json.loads(G.dump_position(game.state))
    for path, value, field in ((("state", "zone"), [9] * 60, "state.zone[0]"),
                               (("state", "step"), 9, "state.step"),
                               (("game",), "versus42", "game"),
                               (("state", "card"), ["nope"] * 60, "state.card[0]")):
        broken = json.loads(json.dumps(obj))
        target = broken
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        text = json.dumps(broken, sort_keys=True, separators=(",", ":"))
        try:
            G.load_position(text)
        except PositionError as e:
            assert field in str(e), (field, e)
        else:
            raise AssertionError(f"{field} accepted")


# --- §10.4: the encoding, re-computed from the SPEC text alone -----------------------------------


def spec_encoding(position: dict, catalogue_ids: list[str]) -> bytes:  # type: ignore[type-arg]
    """SPEC §10.4, from a position's fields (no engine code)."""
    st_ = position["state"]
    n = position["rules"]["deck_size"]
    values = [1, n, st_["turn"], st_["active"], st_["first"], st_["step"], st_["exiles"]]
    for side in st_["sides"]:
        values += side
    values += st_["zone"]
    values += [-1 if c is None else catalogue_ids.index(c) for c in st_["card"]]
    values += st_["host"] + st_["aux"]
    values += [len(st_["dice"]), *st_["dice"]]
    values += st_["attack"]
    values.append(len(st_["tasks"]))
    for task in st_["tasks"]:
        values += [len(task), *task]
    values += [len(st_["decision"]), *st_["decision"]]
    values += st_["result"]
    return b"VQ" + b"".join(v.to_bytes(2, "big", signed=True) for v in values)


def tagged(purpose: str, data: bytes) -> bytes:
    return hashlib.sha256(f"versus/v1/vanquishers/{purpose}".encode() + b"\x00"
                          + len(data).to_bytes(4, "big") + data).digest()


def test_encoding_and_hash_follow_the_spec_text() -> None:
    game = Game(Rules(mode=Mode.ADVANCED), seed="spec")
    game.play()
    ids = [c.id for c in CAT.cards]
    rules_bytes = json.dumps({"format": "vanquishers-rules/1", **game.rules.to_options()},
                             sort_keys=True, separators=(",", ":")).encode()
    assert G.encode_rules(game.rules) == rules_bytes
    catalogue_text = (__import__("importlib.resources").resources.files(
        "versus.engine.vanquishers") / "data/cards.json").read_text()
    canonical = json.dumps(json.loads(catalogue_text), sort_keys=True, separators=(",", ":"),
                           ensure_ascii=True).encode()
    assert G.catalogue_digest(CAT) == tagged("catalogue", canonical)
    for _, _, after in game.history[::5]:
        position = json.loads(G.dump_position(after))
        encoding = spec_encoding(position, ids)
        assert G.encode_state(after) == encoding
        framed = b"".join(len(x).to_bytes(4, "big") + x for x in (
            tagged("rules", rules_bytes), tagged("catalogue", canonical), encoding))
        assert G.state_hash(after) == hashlib.sha256(b"versus/v1/vanquishers/state\x00"
                                                     + framed).digest()
