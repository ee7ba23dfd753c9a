# The one full-information loop (engine/referee_loop.py) and what a game registers for the shell
# (engine/shell.py). The loop plays any game through the Game interface alone: the toy game
# (tests/engine/toy_game.py, every decision kind) runs to its end, each owner learns exactly the
# cards dealt to it, the same seed replays the same game, and a player's answer is asked for
# TURN and CHOICE only. Every built-in game's registered bots can be made by name and answer a
# legal input from their seat's view; a game's `describe_view` draws a view.
from __future__ import annotations

from typing import Any

import pytest

from tests.engine.toy_game import TOY
from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal, pool_deal
from versus.engine.registry import BUILTIN_GAMES, get_game
from versus.engine.shell import bot_factory, game_bots


def _toy_game(seed: bytes) -> tuple[LocalPlay, Finished, list[tuple[str, int]]]:
    rules, catalogue = TOY.default_rules(), TOY.default_catalogue()
    identity, orders = pool_deal(TOY, rules, catalogue, seed)
    play = LocalPlay.start(TOY, Setup(rules, catalogue, seed), identity, orders,
                           HashBelow(seed + b"/chance").below)
    asked: list[tuple[str, int]] = []

    def choose(view: Any, legal: list[Any], seat: int) -> Any:
        asked.append((TOY.decision(play.state).kind.value, seat))
        return legal[-1]

    return play, play.play(choose), asked


def test_the_loop_plays_a_game_through_the_interface_alone() -> None:
    play, result, asked = _toy_game(b"loop-1")
    assert isinstance(result, Finished)
    assert {kind for kind, _ in asked} <= {DecisionKind.TURN.value, DecisionKind.CHOICE.value}
    assert asked and play.inputs > len(asked)  # the deals, the die and the reveals were its own
    dealt = [dict(k.cards) for k in play.knowledge]  # each owner knows its own card only
    assert [len(cards) for cards in dealt] == [1, 1] and not set(dealt[0]) & set(dealt[1])
    assert all(play.identity[h] == card for cards in dealt for h, card in cards.items())
    again, result_again, asked_again = _toy_game(b"loop-1")
    assert (again.state, result_again, asked_again) == (play.state, result, asked)


def test_to_player_stops_at_a_player_decision() -> None:
    rules, catalogue = TOY.default_rules(), TOY.default_catalogue()
    identity, orders = local_deal(TOY, rules, catalogue, b"stop")
    play = LocalPlay.start(TOY, Setup(rules, catalogue, b"stop"), identity, orders,
                           HashBelow(b"stop").below)
    d = play.to_player()
    assert not isinstance(d, Finished) and d.kind is DecisionKind.TURN and d.player == 0


@pytest.mark.parametrize("game_id", sorted(BUILTIN_GAMES))
def test_every_registered_bot_answers_a_legal_input(game_id: str) -> None:
    from versus.cli.bots import make_bot

    game = get_game(game_id)
    if game.players != 2:
        assert game_bots(game) == ()
        return
    rules, catalogue = game.default_rules(), game.default_catalogue()
    identity, orders = local_deal(game, rules, catalogue, b"bots")
    play = LocalPlay.start(game, Setup(rules, catalogue, b"bots"), identity, orders,
                           HashBelow(b"bots/chance").below)
    d = play.to_player()
    assert not isinstance(d, Finished) and d.player is not None
    legal = list(game.legal_actions(play.state))
    for name in game_bots(game):
        assert callable(bot_factory(game, name))
        bot = make_bot(f"{name}:iterations=1" if "ismcts" in name else name, seed=1,
                       game=game_id)
        assert bot.choose(play.view(d.player), legal) in legal, name
    describe = getattr(game, "describe_view", None)
    if describe is not None:
        drawn = describe(play.view(d.player))
        assert drawn.strip()
        if "you are player" in drawn:  # players are counted from 1 on every screen
            assert f"you are player {d.player + 1}" in drawn, drawn[:200]
    if game.players > 1:
        for seat in range(game.players):
            told = " ".join(game.narrate_start(play.state, seat))
            if "you are player" in told:
                assert f"you are player {seat + 1}" in told, told


def test_the_engine_imports_no_randomness_clock_or_io() -> None:
    """The games' bots live in the engine now: their generator and clock are inputs."""
    import ast
    from pathlib import Path

    forbidden = {"random", "time", "trio", "socket", "secrets"}  # (os: its card data files)
    root = Path(__file__).resolve().parents[2] / "engine"
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [f"{path.relative_to(root)}: {n}" for n in names
                      if n.split(".")[0] in forbidden]
    assert found == []


def test_a_referee_may_keep_a_deal_from_its_owner() -> None:
    """`owner_learns` (Versus's referee: a card dealt to be discarded): the deals it refuses
    leave the owner's knowledge as it was, the others teach the owner its card."""
    rules, catalogue = TOY.default_rules(), TOY.default_catalogue()
    identity, orders = pool_deal(TOY, rules, catalogue, b"keep")
    kept: list[int] = []

    def learns(d: Any) -> bool:
        kept.append(d.player)
        return d.player != 1  # seat 1 is never told

    play = LocalPlay.start(TOY, Setup(rules, catalogue, b"keep"), identity, orders,
                           HashBelow(b"keep/chance").below)
    play.owner_learns = learns
    play.play(lambda view, legal, seat: legal[0])
    assert sorted(set(kept)) == [0, 1]
    assert dict(play.knowledge[0].cards) and not dict(play.knowledge[1].cards)


async def _awaited(view: Any, legal: list[Any], seat: int) -> Any:
    return legal[-1]


def test_play_async_plays_the_game_play_does() -> None:
    import trio

    games = []
    for awaited in (False, True):
        rules, catalogue = TOY.default_rules(), TOY.default_catalogue()
        identity, orders = pool_deal(TOY, rules, catalogue, b"async")
        play = LocalPlay.start(TOY, Setup(rules, catalogue, b"async"), identity, orders,
                               HashBelow(b"async/chance").below)
        result = (trio.run(play.play_async, _awaited) if awaited
                  else play.play(lambda view, legal, seat: legal[-1]))
        games.append((result, play.state, play.inputs))
    assert games[0] == games[1]


class _Counted:
    """A game that counts the views and legal lists the loop asks of it."""

    def __init__(self, game: Any) -> None:
        self.game, self.views, self.lists = game, 0, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def view(self, state: Any, player: int, knowledge: Any) -> Any:
        self.views += 1
        return self.game.view(state, player, knowledge)

    def legal_actions(self, state: Any) -> Any:
        self.lists += 1
        return self.game.legal_actions(state)


def _counted_toy(seed: bytes) -> tuple[LocalPlay, _Counted]:
    rules, catalogue = TOY.default_rules(), TOY.default_catalogue()
    identity, orders = pool_deal(TOY, rules, catalogue, seed)
    game = _Counted(TOY)
    return LocalPlay.start(game, Setup(rules, catalogue, seed), identity, orders,  # type: ignore[arg-type]
                           HashBelow(seed + b"/chance").below), game


def _random_game(seed: bytes, blind: bool) -> tuple[Any, ...]:
    play, game = _counted_toy(seed)
    picks = [HashBelow(seed + b"/p%d" % p).below for p in (0, 1)]
    applied: list[Any] = []
    play.on_input = lambda state, inp: applied.append(inp)
    if blind:
        result = play.play_random(picks)
    else:
        result = play.play(lambda view, legal, seat: legal[picks[seat](len(legal))])
    assert len(applied) == play.inputs
    return result, play.state, applied, game.lists, game.views


@pytest.mark.parametrize("seed", [b"random-0", b"random-1", b"random-2"])
def test_random_self_play_is_a_chooser_that_reads_no_view(seed: bytes) -> None:
    """`play_random` (the engine benchmarks) plays the game `play` plays with a chooser drawing
    from the same picks: every input through `step` (and `on_input`), the legal list asked as
    often, and no view built."""
    *chosen, views = _random_game(seed, blind=False)
    *picked, no_views = _random_game(seed, blind=True)
    assert picked == chosen and views > 0 and no_views == 0
