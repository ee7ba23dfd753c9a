# bench/rl.py's overhead is a ratio of costs per step, so its raw engine and its environment must
# play the same games: the same positions, step for step, and the same number of steps.
from __future__ import annotations

import pytest

from tests.bench.support import load_bench_script

pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

from versus.engine.api import Finished
from versus.engine.registry import get_game
from versus.rl.pettingzoo import raw_env
from versus.rl.table import rules_of, start_play


@pytest.fixture(scope="module")
def bench():
    return load_bench_script("rl")


def _env_hashes(game_id: str, script) -> list[bytes]:
    """The state hash at each decision of the environment replaying `script`."""
    env = raw_env(game_id)
    env.reset(seed=script.seed)
    game, out, replies = env.game, [], iter(script.in_mask)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        out.append(game.state_hash(env.table.state))
        legal = obs["action_mask"].view(bool).nonzero()[0]
        env.step(int(legal[next(replies)]))
    out.append(game.state_hash(env.table.state))
    return out


def _raw_hashes(game_id: str, script) -> list[bytes]:
    """The same for the raw engine's replay (bench/rl.py `raw`)."""
    game = get_game(game_id)
    play, out = start_play(game, rules_of(game, None), script.seed), []
    for k in script.in_legal:
        play.to_player()
        out.append(game.state_hash(play.state))
        play.apply(game.legal_actions(play.state)[k])
    assert isinstance(play.to_player(), Finished)
    out.append(game.state_hash(play.state))
    return out


@pytest.mark.parametrize("game_id", ["versus42", "grid"])
def test_the_raw_engine_and_the_environment_play_the_same_games(bench, game_id: str) -> None:
    scripts = bench.record(game_id, 2)
    assert [s.seed for s in scripts] == [0, 1]
    for script in scripts:
        assert len(script.in_mask) == len(script.in_legal) > 0
        hashes = _env_hashes(game_id, script)
        assert hashes == _raw_hashes(game_id, script)
        assert len(set(hashes)) > 1
    # the timed loops replay them whole (the raw one checks that its games end there too)
    steps, _ = bench.raw(game_id, scripts)
    assert steps > 0 and bench.environment(game_id, scripts) > 0
