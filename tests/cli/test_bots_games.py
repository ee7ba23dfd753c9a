# The greedy bots and the line-terminal renderings of the grid and vanquishers games: greedy answers
# legal inputs only and finishes games, beats random in a small duplicate sample, is deterministic
# given its seed; the renderings never name a card the viewer does not know; `versus demo --game
# grid --bot-a greedy --bot-b random` plays and verifies.
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from versus.cli.bots import make_bot
from versus.cli.bots.registry import game_problem
from versus.cli.line_ui import describe_view
from versus.engine.registry import get_game

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_bots_games", ROOT / "bench" / "bots_games.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

GAMES = ("grid", "vanquishers")


class Checked:
    """A bot wrapper that records every view it is given and checks its answer is legal."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.name = bot, bot.name
        self.decisions = 0

    def choose(self, view: Any, legal: Any) -> Any:
        action = self.bot.choose(view, list(legal))
        assert action in legal, f"{self.name} answered {action} not in the legal inputs"
        self.decisions += 1
        return action


@pytest.mark.parametrize("game", GAMES)
def test_greedy_is_offered_for_the_game(game: str) -> None:
    assert game_problem("greedy", game) is None
    assert game_problem("ismcts-tree", game) is not None  # grid has its own ismcts
    assert make_bot("greedy", seed=1, game=game).name == "greedy"


@pytest.mark.parametrize("game", GAMES)
def test_greedy_plays_legal_inputs_and_finishes(game: str) -> None:
    for i in range(2):
        greedy = Checked(make_bot("greedy", seed=i, game=game))
        other = Checked(make_bot("random", seed=100 + i, game=game))
        bots = (greedy, other) if i % 2 == 0 else (other, greedy)
        result = bench.play_game(game, bots, b"test-bots-games/%d" % i)
        assert result.outcome
        assert greedy.decisions > 0


def test_greedy_grid_other_modes() -> None:
    grid = get_game("grid")
    for options in ({"mode": "normal", "deck": "shared"}, {"mode": "vs"}):
        rules = grid.rules_from_options(options)
        bots = (Checked(make_bot("greedy", seed=3, game="grid")),
                Checked(make_bot("random", seed=4, game="grid")))
        assert bench.play_game("grid", bots, b"modes", rules=rules).outcome


@pytest.mark.parametrize("game", GAMES)
def test_greedy_is_deterministic_given_its_seed(game: str) -> None:
    def moves() -> list[str]:
        out: list[str] = []
        greedy = make_bot("greedy", seed=7, game=game)

        class Recorder:
            name = "greedy"

            def choose(self, view: Any, legal: Any) -> Any:
                action = greedy.choose(view, legal)
                out.append(str(action))
                return action

        bench.play_game(game, (Recorder(), make_bot("random", seed=8, game=game)), b"det")
        return out

    assert moves() == moves()


@pytest.mark.parametrize(("game", "pairs"), [("grid", 10), ("vanquishers", 4)])
def test_greedy_beats_random_in_a_small_duplicate_sample(game: str, pairs: int) -> None:
    r = bench.run(game, "greedy", "random", 2 * pairs, jobs=1, salt=11)
    assert r["rate"] >= 0.7, r


@pytest.mark.parametrize("seat", [0, 1])
def test_a_run_from_one_seat_plays_the_duplicate_runs_games_of_that_seat(
        seat: int, monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[int] = []

    def fake(task: tuple[str, str, str, int, int]) -> tuple[int, float, float, float]:
        played.append(task[3])
        return task[3] // 2, 1.0, 0.5, 0.25

    monkeypatch.setattr(bench, "play_pair_game", fake)
    r = bench.run("vanquishers", "ismcts", "greedy", 3, jobs=1, seat=seat)
    # deal k's game with A in `seat` is game 2k + seat of the whole run: same deals and seeds
    assert played == [seat, 2 + seat, 4 + seat]
    assert (r["games"], r["wins"], r["cpu"]) == (3, 3, 0.75)


# --- renderings ------------------------------------------------------------------------------


def _names_hidden(game: Any, state: Any, viewer: int, knowledge: Any,
                  identity: dict[int, str]) -> set[str]:
    """Names of the cards whose identity `viewer` may not know at `state` (and that no card it
    may know shares)."""
    cat = game.default_catalogue()
    if game.id == "grid":
        view = game.view(state, viewer, knowledge)
        allowed = view.card_ids()
        known = {h for h in identity if state.ident[h] >= 0
                 or (h in knowledge.cards and state.holder[h] == viewer)}
        name = {c.id: c.name for c in cat.cards}
    else:
        known = {h for h in identity if state.card[h] >= 0
                 or (h in knowledge.cards and state.owner(h) == viewer)}
        allowed = {identity[h] for h in known}
        name = {c.id: c.name for c in cat.cards}
    hidden_ids = {identity[h] for h in identity if h not in known} - set(allowed)
    allowed_names = {name[c] for c in allowed if c in name}
    return {name[c] for c in hidden_ids if c in name} - allowed_names


@pytest.mark.parametrize("game_id", GAMES)
def test_renderings_never_show_a_card_the_viewer_does_not_know(game_id: str) -> None:
    game = get_game(game_id)
    rules = game.default_rules()
    from versus.engine.api import Finished, Setup
    from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal

    identity, orders = local_deal(game, rules, game.default_catalogue(), b"render")
    play = LocalPlay.start(game, Setup(rules, game.default_catalogue(), b"render"), identity,
                           orders, HashBelow(b"render/chance", 8).below)
    bots = [make_bot("random", seed=1, game=game_id), make_bot("random", seed=2, game=game_id)]
    checked = 0
    for step_no in range(5000):
        state, knowledge = play.state, play.knowledge
        d = game.decision(state)
        if step_no % 3 == 0 or isinstance(d, Finished):
            for viewer in (0, 1):
                view = game.view(state, viewer, knowledge[viewer])
                text = "\n".join(describe_view(game, view))
                for secret in _names_hidden(game, state, viewer, knowledge[viewer], identity):
                    assert secret not in text, f"step {step_no}: {secret!r} leaked to {viewer}"
                checked += 1
        if isinstance(d, Finished):
            break
        play.advance(lambda view, legal, seat: bots[seat].choose(view, legal))
    assert checked > 10


def test_grid_rendering_shows_the_board_and_hand() -> None:
    seen: list[str] = []

    class Look:
        name = "look"

        def __init__(self) -> None:
            self.bot = make_bot("random", seed=5, game="grid")

        def choose(self, view: Any, legal: Any) -> Any:
            if not seen:
                seen.extend(describe_view(get_game("grid"), view))
            return self.bot.choose(view, legal)

    bench.play_game("grid", (Look(), Look()), b"look")
    text = "\n".join(seen)
    assert "your home base" in text and "your hand:" in text and "+------+" in text


def test_vanquishers_rendering_shows_heroes_and_hand() -> None:
    seen: list[str] = []

    class Look:
        name = "look"

        def __init__(self) -> None:
            self.bot = make_bot("random", seed=5, game="vanquishers")

        def choose(self, view: Any, legal: Any) -> Any:
            if view.state.turn >= 2 and not seen:
                seen.extend(describe_view(get_game("vanquishers"), view))
            return self.bot.choose(view, legal)

    bench.play_game("vanquishers", (Look(), Look()), b"look")
    text = "\n".join(seen)
    assert "Life" in text and "Shield" in text and "your hand" in text and "Energy" in text


def test_demo_grid_greedy_against_random(tmp_path: Path, capsys: Any) -> None:
    from versus.cli.main import main

    code = main(["demo", "--game", "grid", "--bot-a", "greedy", "--bot-b", "random",
                 "--seed", "00112233", "--quiet", "--out", str(tmp_path)])
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    assert "verify: OK" in out.out + out.err
