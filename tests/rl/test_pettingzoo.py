# The PettingZoo AEC environments (rl/pettingzoo.py) pass PettingZoo's own API test and seed
# test for every two-player game and every rules mode; an agent's observation is its own view
# (the game's encoding of its seat, rl/table.py); render() draws the scene of the agent to move.
from __future__ import annotations

from typing import Any

import pytest

from tests.rl.support import encoded_games, game_modes, mode_id, need

need("numpy", "pettingzoo", "gymnasium")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import versus.rl  # noqa: E402
from versus.engine import encoding  # noqa: E402
from versus.rl import pettingzoo as zoo  # noqa: E402
from versus.rl.table import TableError  # noqa: E402


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game_id", "rules"), game_modes(2), ids=mode_id)
def test_pettingzoo_api_and_seed_tests(game_id: str, rules: dict[str, Any]) -> None:
    api_test(versus.rl.env(game_id, rules=rules, seed=7), num_cycles=25,
             verbose_progress=False)
    seed_test(lambda: zoo.env(game_id, rules=rules), num_cycles=10)


@pytest.mark.parametrize("game_id", encoded_games(2))
def test_a_game_to_its_end_with_own_views_and_rewards(game_id: str) -> None:
    env = zoo.raw_env(game_id, seed=11, render_mode="ansi")
    env.reset(seed=11)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter(max_iter=5000):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        table = env.table
        assert table is not None and table.to_move == seat
        expected = encoding.observe(table.game, table.rules, table.state, seat,
                                   table.play.knowledge[seat])
        assert np.array_equal(obs["observation"], np.asarray(expected, np.float32))
        other = env.observe(env.possible_agents[1 - seat])
        assert not other["action_mask"].any()  # only the agent to move has legal actions
        assert sorted(np.flatnonzero(obs["action_mask"])) == sorted(table.legal(seat))
        text = env.render()
        assert isinstance(text, str) and text.splitlines()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == []
    returns = table.returns()
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_environment_refusals_name_the_problem() -> None:
    solo = encoded_games(1)[0]
    with pytest.raises(TableError, match="two-player"):
        zoo.raw_env(solo)
    two = encoded_games(2)[0]
    with pytest.raises(TableError, match="render_mode"):
        zoo.raw_env(two, render_mode="rgb_array")
    with pytest.raises(TableError, match=two):
        zoo.raw_env(two, rules={"no_such_option": 1})
    env = zoo.raw_env(two, seed=1)
    env.reset()
    mask = env.observe(env.agent_selection)["action_mask"]
    with pytest.raises(TableError, match="not a legal input"):
        env.step(int(np.flatnonzero(mask == 0)[0]))
