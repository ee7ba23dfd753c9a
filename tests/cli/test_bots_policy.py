# The `py:MODULE:CALLABLE` bot kind (cli/bots/policy.py): a policy over the game's observation
# and action mask plays through the bot registry like any bot. It sees what the research
# environments show the seat (the same observation, read from the seat's view alone); a policy
# that answers an illegal index forfeits with one line; every mistake in the name is one line;
# and two py: bots play a `versus tournament` over TCP on 127.0.0.1 whose transcripts verify
# (also with `versus verify`). The example policy (examples/random_mask_policy.py) runs.
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from versus.cli.bots import UnsupportedGameError, make_bot
from versus.cli.bots.base import BotForfeit, UnknownBotError
from versus.cli.bots.registry import parse_bot
from versus.cli.main import main
from versus.engine import encoding
from versus.engine.api import Finished, Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import games, get_game

from .test_tournament import assert_consistent, assert_standings_add_up, results

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "random_mask_policy.py"
POLICY = f"py:{EXAMPLE}:policy"
PLAYED = tuple(g.id for g in games() if g.players == 2
               and encoding.has_encoding(get_game(g.id)))


@pytest.mark.parametrize("game_id", PLAYED)
def test_a_policy_sees_the_environment_observation_and_plays_a_game(game_id: str) -> None:
    game = get_game(game_id)
    seen: list[tuple[list[float], list[int]]] = []

    def spy(observation: list[float], mask: list[int]) -> int:
        seen.append((observation, mask))
        return mask.index(1)

    bot = make_bot(POLICY, game=game_id)
    bot.policy = spy  # type: ignore[union-attr]
    rules, catalogue = game.default_rules(), game.default_catalogue()
    identity, orders = local_deal(game, rules, catalogue, b"policy")
    play = LocalPlay.start(game, Setup(rules, catalogue, b"policy"), identity, orders,
                           HashBelow(b"policy/chance", 8).below)

    def choose(view: Any, legal: list[Any], seat: int) -> Any:
        before = len(seen)
        answer = bot.choose(view, legal)
        observation, mask = seen[before]
        assert observation == encoding.observe(game, rules, play.state, seat,
                                               play.knowledge[seat])
        assert [i for i, m in enumerate(mask) if m] == \
            sorted(encoding.legal_indices(game, play.state))
        return answer

    assert isinstance(play.play(choose), Finished)
    assert seen


def test_an_illegal_answer_forfeits_and_bad_names_are_one_line(tmp_path: Path) -> None:
    game_id = PLAYED[0]
    bad = tmp_path / "bad.py"
    bad.write_text("def policy(observation, mask):\n    return len(mask)\n"
                   "def broken(observation, mask):\n    raise RuntimeError('no idea')\n"
                   "NOT_CALLABLE = 3\n")
    game = get_game(game_id)
    rules, catalogue = game.default_rules(), game.default_catalogue()
    identity, orders = local_deal(game, rules, catalogue, b"x")
    play = LocalPlay.start(game, Setup(rules, catalogue, b"x"), identity, orders,
                           HashBelow(b"x", 8).below)
    d = play.to_player()
    view = play.view(d.player)
    legal = list(game.legal_actions(play.state))
    with pytest.raises(BotForfeit, match="not legal here"):
        make_bot(f"py:{bad}:policy", game=game_id).choose(view, legal)
    with pytest.raises(BotForfeit, match="RuntimeError: no idea"):
        make_bot(f"py:{bad}:broken", game=game_id).choose(view, legal)
    with pytest.raises(UnknownBotError, match="no callable 'NOT_CALLABLE'"):
        make_bot(f"py:{bad}:NOT_CALLABLE", game=game_id)
    with pytest.raises(UnknownBotError, match="cannot import 'no_such_module_here'"):
        make_bot("py:no_such_module_here:policy", game=game_id)
    with pytest.raises(UnknownBotError, match="py:MODULE:CALLABLE"):
        make_bot("py:policy", game=game_id)
    solo = next(g.id for g in games() if g.players == 1)
    with pytest.raises(UnsupportedGameError, match="encoding"):
        make_bot(POLICY, game=solo)
    spec = parse_bot(f"{POLICY}:name=Mine")
    assert spec.bot == POLICY and spec.name == "Mine"
    assert parse_bot(POLICY).bot == POLICY


def test_two_policies_play_a_verified_tournament_over_tcp(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "t"
    game_id = PLAYED[0]
    a, b = f"{POLICY}:name=policy-a", f"{POLICY}:name=policy-b"
    assert main(["tournament", a, b, "--game", game_id, "--games", "1", "--unpaired",
                 "--concurrency", "1", "--seed", "02", "--out", str(out)]) == 0
    data, rows = results(out)
    assert data["complete"] and len(data["games"]) == 1
    assert {tuple(g["seats"]) for g in data["games"]} <= {("policy-a", "policy-b"),
                                                          ("policy-b", "policy-a")}
    assert all(g["ending"] == "game" and g["forfeit_seat"] is None for g in data["games"])
    assert_consistent(out, data, rows)
    assert_standings_add_up(data)
    capsys.readouterr()
    transcript = out / data["games"][0]["transcript"]
    assert main(["verify", str(transcript)]) == 0
    assert "OK" in capsys.readouterr().out


def test_the_example_policy_runs() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == len(PLAYED)


def test_bot_check_passes_a_policy(capsys: Any) -> None:
    assert main(["bot-check", "--game", PLAYED[-1], POLICY]) == 0
    assert "checks passed" in capsys.readouterr().out
