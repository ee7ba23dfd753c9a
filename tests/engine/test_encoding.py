# The games' observation and action encodings (engine/encoding.py, engine/<game>/encode.py,
# SPEC Part 3 "Observation and action encoding"), on seeded random games of every game and of
# every rules option value: each observation has the size the rules say; each legal input has
# its own index below the action count, and the index and the input round-trip; an index that
# is not legal is refused; and a seat's observation never holds what its view hides: it is the
# same when the seat's knowledge also names every card of the opponent, and the cards it names
# are exactly those the game's view function names to that seat.
from __future__ import annotations

from typing import Any

import pytest

from versus.engine import encoding
from versus.engine.api import Finished, Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import games, get_game

ENCODED = tuple(g.id for g in games() if encoding.has_encoding(get_game(g.id)))
#: the games whose observations `named_cards` decodes (their layouts, SPEC)
DECODED = ("grid", "vanquishers", "versus42")


def rules_modes(game: Any) -> list[dict[str, Any]]:
    """The default rules, then each rules option's other choices one at a time (an integer
    option: its minimum and maximum), as option dicts the game accepts."""
    modes: list[dict[str, Any]] = [{}]
    for option in game.rules_options:
        values = option.choices or (option.minimum, option.maximum)
        for value in values:
            if value != option.default:
                try:
                    game.rules_from_options({option.name: value})
                except ValueError:  # a value valid only with others (Versus's tile counts)
                    continue
                modes.append({option.name: value})
    return modes


def play_random(game: Any, rules: Any, seed: bytes, visit: Any, max_decisions: int = 400
                ) -> Finished | None:
    """A seeded random game; `visit(play)` at each player decision (before the move)."""
    catalogue = game.default_catalogue()
    identity, orders = local_deal(game, rules, catalogue, seed)
    play = LocalPlay.start(game, Setup(rules, catalogue, seed), identity, orders,
                           HashBelow(seed + b"/chance", 8).below)
    pick = HashBelow(seed + b"/pick", 8)
    for _ in range(max_decisions):
        d = play.to_player()
        if isinstance(d, Finished):
            return d
        visit(play, d.player)
        indices = encoding.legal_indices(game, play.state)
        play.apply(encoding.input_of(game, play.state, indices[pick.below(len(indices))]))
    return None


def test_the_games_with_an_encoding() -> None:
    assert set(ENCODED) == {"grid", "multiverse", "vanquishers", "versus42"}


def _modes() -> list[tuple[str, dict[str, Any]]]:
    return [(gid, mode) for gid in ENCODED for mode in rules_modes(get_game(gid))]


@pytest.mark.parametrize(("game_id", "mode"), _modes(),
                         ids=lambda v: str(v) if not isinstance(v, dict) else
                         ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_indices_round_trip_and_observations_have_their_size(game_id: str,
                                                             mode: dict[str, Any]) -> None:
    game = get_game(game_id)
    rules = game.rules_from_options(mode)
    size, count = encoding.observation_size(game, rules), encoding.action_count(game, rules)
    seen = []

    def visit(play: LocalPlay, seat: int) -> None:
        state = play.state
        assert len(encoding.observe(game, rules, state, seat, play.knowledge[seat])) == size
        legal = list(game.legal_actions(state))
        indices = encoding.legal_indices(game, state)
        assert len(set(indices)) == len(indices) == len(legal)
        assert all(0 <= i < count for i in indices)
        for inp, i in zip(legal, indices, strict=True):
            assert encoding.action_index(game, state, inp) == i
            assert encoding.input_of(game, state, i) == inp
        outside = next(i for i in range(count + 1) if i not in indices)
        with pytest.raises(encoding.EncodingError):
            encoding.input_of(game, state, outside)
        seen.append(seat)

    play_random(game, rules, b"encoding/%s/%r" % (game_id.encode(), mode), visit, 40)
    assert seen


@pytest.mark.parametrize(("game_id", "mode"), _modes(),
                         ids=lambda v: str(v) if not isinstance(v, dict) else
                         ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_observation_changes_keep_a_vector_equal_to_the_whole_observation(
        game_id: str, mode: dict[str, Any]) -> None:
    """`observe_changes` (what the environments write each step): a vector per seat written
    only with the changes since its memo is the whole observation at every player decision,
    for every seat (a memo of the seat's last decision, or of the same state), and still
    when the memo is one of another game."""
    game = get_game(game_id)
    rules = game.rules_from_options(mode)
    size = encoding.observation_size(game, rules)
    vectors = [[0.0] * size for _ in range(game.players)]
    memos: list[Any] = [None] * game.players
    checked = [0]

    def visit(play: LocalPlay, seat: int) -> None:
        for p in range(game.players):
            state, knowledge = play.state, play.knowledge[p]
            changes, memos[p] = encoding.observe_changes(game, state, p, knowledge, memos[p])
            for i, value in changes.items():
                vectors[p][i] = value
            assert vectors[p] == encoding.observe(game, rules, state, p, knowledge)
            again, memos[p] = encoding.observe_changes(game, state, p, knowledge, memos[p])
            assert all(vectors[p][i] == value for i, value in again.items())
        checked[0] += 1

    seed = b"encoding-changes/%s/%r" % (game_id.encode(), mode)
    play_random(game, rules, seed, visit, 40)
    play_random(game, rules, seed + b"/next", visit, 15)  # the first game's memos carried on
    assert checked[0] > 2


@pytest.mark.parametrize("game_id", ENCODED)
def test_legal_indices_stay_right_when_the_known_inputs_start_afresh(
        game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`KnownIndices` (the indices kept by input object) replaced every few inputs: each legal
    index is still the input's own `action_index`."""
    monkeypatch.setattr(encoding.KnownIndices, "LIMIT", 5)
    game = get_game(game_id)
    rules = game.default_rules()
    checked = [0]

    def visit(play: LocalPlay, seat: int) -> None:
        legal = list(game.legal_actions(play.state))
        assert encoding.legal_indices(game, play.state, legal) == \
            [encoding.action_index(game, play.state, inp) for inp in legal]
        checked[0] += 1

    play_random(game, rules, b"encoding-known/" + game_id.encode(), visit, 60)
    assert checked[0] > 2


@pytest.mark.parametrize("game_id", [g for g in ENCODED if get_game(g).players == 2])
def test_an_observation_holds_only_what_the_seat_may_see(game_id: str) -> None:
    game = get_game(game_id)
    rules = game.default_rules()
    seed = b"encoding-leak/" + game_id.encode()
    catalogue = game.default_catalogue()
    identity, _ = local_deal(game, rules, catalogue, seed)
    checked = [0]

    def visit(play: LocalPlay, seat: int) -> None:
        for p in (0, 1):
            own = play.knowledge[p]
            everything = game.new_knowledge(p)  # knows every card, the opponent's included
            for h, cid in dict(identity).items():
                everything.learn(h, cid)
            for h, cid in own.cards.items():
                everything.learn(h, cid)
            mine = encoding.observe(game, rules, play.state, p, own)
            assert encoding.observe(game, rules, play.state, p, everything) == mine
            if game_id in DECODED:  # a game whose card entries this test knows how to read
                assert named_cards(game_id, play.state, p, mine) == \
                    view_cards(game, play.state, p, own)
        checked[0] += 1

    play_random(game, rules, seed, visit, 80)
    assert checked[0] > 10


def named_cards(game_id: str, state: Any, seat: int, obs: list[float]) -> dict[int, int]:
    """handle -> catalogue index of every card the observation names (its layout, SPEC)."""
    if game_id == "grid":
        from versus.engine.grid import encode as E

        width = E.handle_width(state.rules)
        first = len(E.ZONES) + 1 + state.rules.size ** 2
        bases = [E.HEADER + h * width + first for h in range(len(state.zone))]
        cards = E._card_count()
    elif game_id == "versus42":
        from versus.engine.versus42 import encode as V

        areas = state.rules.geometry.size
        width = V.handle_width(state.rules)
        start = V.HEADER + areas * V.TILES
        bases = [start + h * width + 2 * 6 + 1 + areas for h in range(2 * state.n)]
        cards = V._card_count()
    else:
        from versus.engine.vanquishers import encode as Q
        from versus.engine.vanquishers.engine import Zone

        start = Q.HEADER + 2 * Q.side_width()
        bases = [start + h * Q.handle_width() + 2 * len(Zone) for h in range(2 * state.n)]
        cards = Q._card_count()
    out = {}
    for h, base in enumerate(bases):
        hot = [i for i in range(cards) if obs[base + i]]
        assert len(hot) <= 1
        if hot:
            out[h] = hot[0]
    return out


def view_cards(game: Any, state: Any, seat: int, knowledge: Any) -> dict[int, int]:
    """handle -> catalogue index of every card the game's view function names to `seat`."""
    view = game.view(state, seat, knowledge)
    if game.id == "grid":
        named = {c.handle: c.card for c in view.grid}
        named |= dict(view.hand) | dict(view.opponent_hand)
        named |= {h: cid for g in view.graveyards for h, cid in g} | dict(view.modifiers)
        index = state.catalogue.index
        return {h: index[cid] for h, cid in named.items() if cid is not None}
    if game.id == "versus42":
        ids = {h: view.identity(h) for h in range(2 * state.n)}
        return {h: state.cat[cid].index for h, cid in ids.items() if cid is not None}
    snapshot = view.to_dict()  # vanquishers: public cards, the hand, the seat's own traps
    named = {h: cid for h, cid in view.hand if cid is not None}
    named |= {h: cid for h, cid in snapshot["my_traps"].items() if cid is not None}
    named |= {h: state.cat.cards[i].id for h, i in enumerate(state.card) if i >= 0}
    for h in range(2 * state.n):  # the seat's own exiled or set cards it was dealt
        if state.owner(h) == seat and h in knowledge.cards and state.zone[h] != 0:
            named.setdefault(h, knowledge.cards[h])
    return {h: state.cat.index(cid) for h, cid in named.items()}


def test_the_sizes_spec_gives() -> None:
    """SPEC §3.6, §9.8, §10.7, §11.9: each default encoding's sizes from the formulas there."""
    sizes = {gid: (encoding.observation_size(get_game(gid), get_game(gid).default_rules()),
                   encoding.action_count(get_game(gid), get_game(gid).default_rules()))
             for gid in ENCODED}
    n, a, c = 12, 20, 42  # Versus: deck_size, areas, cards
    assert sizes["versus42"] == (14 + 4 * a + 2 * n * (12 + 1 + a + c + 2),
                                 1 + a + a * a + 2 * n * 2 * a + 2 * n + 512 * a)
    h, s, c = 40, 16, 124  # grid fast: handles, cells, cards
    assert sizes["grid"] == (13 + h * (7 + 1 + s + c + 3), 2 + 2 * h * s + 3 * h)
    n, c, k = 30, 52, 2  # vanquishers
    assert sizes["vanquishers"] == (19 + 2 * (11 + 2 * c) + 2 * n * (12 + c + 2),
                                    5 + 5 * 2 * n + 2 * n * k)
    d, b, r, c = 60, 12, 2, 32  # multiverse normal
    assert sizes["multiverse"] == (12 + (d + b) * (7 + 1 + r + c), 3 + 3 * d + 3 * d)


def test_versus_ranks_each_areas_activates_in_the_order_of_the_list_given() -> None:
    """Versus's Activate slot is (area, rank among that area's Activates in the list given):
    a list whose area runs are split and recur (odd positions first, then even ones) still
    ranks each area's Activates 0, 1, 2... in that list's order, other inputs keep their own
    index."""
    game = get_game("versus42")
    checked = [0]

    def visit(play: LocalPlay, seat: int) -> None:
        legal = list(game.legal_actions(play.state))
        own = [encoding.action_index(game, play.state, inp) for inp in legal]
        acts = [i for i, inp in enumerate(legal) if inp.kind == 2]  # ActionKind.ACTIVATE
        if len(acts) < 3:
            return
        base = {legal[i].area: own[i] for i in reversed(acts)}  # each area's rank 0 slot
        order = list(range(1, len(legal), 2)) + list(range(0, len(legal), 2))
        seen: dict[str, int] = {}
        want = []
        for i in order:
            if legal[i].kind == 2:
                area = legal[i].area
                want.append(base[area] + seen.get(area, 0))
                seen[area] = seen.get(area, 0) + 1
            else:
                want.append(own[i])
        assert encoding.legal_indices(game, play.state, [legal[i] for i in order]) == want
        checked[0] += 1

    play_random(game, game.default_rules(), b"encoding-ranks", visit, 150)
    assert checked[0] > 5
