# The Gymnasium environment of a solo game (rl/gymnasium.py) passes Gymnasium's env checker
# for every rules mode, plays a whole seeded game to a ±1 reward, replays it from the same
# seed, and changes nothing on an illegal action.
from __future__ import annotations

from typing import Any

import pytest

from tests.rl.support import encoded_games, game_modes, mode_id, need

need("numpy", "gymnasium")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from versus.rl.gymnasium import SoloEnv  # noqa: E402
from versus.rl.table import TableError  # noqa: E402


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(("game_id", "rules"), game_modes(1), ids=mode_id)
def test_gymnasium_env_checker(game_id: str, rules: dict[str, Any]) -> None:
    check_env(SoloEnv(game_id, rules=rules, render_mode="ansi"), skip_render_check=False)


def _run(env: Any, seed: int) -> tuple[list[int], float]:
    obs, info = env.reset(seed=seed)
    rng, actions = np.random.default_rng(seed), []
    while True:
        assert obs.shape == env.observation_space.shape
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return actions, reward


def test_a_whole_game_replays_from_its_seed() -> None:
    env = gymnasium.make("versus/Solo-v0")
    first = _run(env, 5)
    assert first[1] in (-1.0, 1.0)
    assert _run(env, 5) == first


def test_an_illegal_action_changes_nothing() -> None:
    env = SoloEnv(encoded_games(1)[0])
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    after, reward, terminated, _, info2 = env.step(illegal)
    assert info2["illegal_action"] and reward == 0.0 and not terminated
    assert np.array_equal(after, obs)
    with pytest.raises(TableError, match="not a solo game"):
        SoloEnv(encoded_games(2)[0])
