# A Gymnasium environment for a solo game (one seat): `versus.rl.gymnasium.SoloEnv(game_id)` or
# `gymnasium.make("versus/Solo-v0", game_id=...)` once this module is imported. The
# observation is the game's fixed-length vector (float32, engine/encoding.py); the action space
# is the game's fixed one, and `info["action_mask"]` (int8) says which actions are legal. An
# illegal action changes nothing: reward 0, `info["illegal_action"]` True (Gymnasium's checker
# and unmasked agents sample the whole space; the game itself would refuse it). Deals, reveals
# and the die are resolved inside from the seed (rl/table.py).
#
# Reward: +1 when the game ends won, -1 when lost, 0 otherwise; `terminated` at the end,
# `truncated` past rl/table.py MAX_INPUTS.
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from versus.engine import encoding
from versus.engine.registry import DEFAULT_SOLO_GAME, get_game
from versus.engine.shell import is_solo

from .arrays import Observed, mask
from .table import Table, TableError, rules_of

RENDER_MODES = ("human", "ansi")


class SoloEnv(gymnasium.Env):
    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES)}

    def __init__(self, game_id: str, rules: Mapping[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        self.game = get_game(game_id)
        if not is_solo(self.game):
            raise TableError(f"game {game_id!r} is not a solo game (a two-player game: "
                             "versus.rl.pettingzoo)")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise TableError(f"render_mode {render_mode!r}: one of {', '.join(RENDER_MODES)}")
        self.rules = rules_of(self.game, rules)
        self.render_mode = render_mode
        if not encoding.has_encoding(self.game):
            raise TableError(f"game {game_id!r} has no observation/action encoding")
        size = self._size = encoding.observation_size(self.game, self.rules)
        self.observation_space = spaces.Box(low=-np.inf, high=np.inf, shape=(size,),
                                            dtype=np.float32)
        self.action_space = spaces.Discrete(encoding.action_count(self.game, self.rules))
        self.table: Table | None = None
        self._observed = Observed(size)

    def _info(self) -> dict[str, Any]:
        assert self.table is not None
        return {"action_mask": mask(self.table.legal(0), int(self.action_space.n))}

    def _observation(self) -> np.ndarray:
        assert self.table is not None
        return self._observed.update(*self.table.observe_changes(0, self._observed.memo))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is None:  # a fresh game from the environment's own generator
            seed = int(self.np_random.integers(0, 2**62)) if self.np_random is not None \
                else int.from_bytes(os.urandom(8), "big")
        self.table = Table.open(self.game, self.rules, seed)
        self._observed = Observed(self._size)
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.table is None:
            raise TableError("call reset() before step()")
        if int(action) not in self.table.legal(0):
            info = {**self._info(), "illegal_action": True}
            return self._observation(), 0.0, self.table.finished, self.table.truncated, info
        self.table.act(int(action))
        reward = self.table.returns()[0] if self.table.finished else 0.0
        if self.render_mode == "human":
            self.render()
        return (self._observation(), reward, self.table.finished, self.table.truncated,
                self._info())

    def render(self) -> str | None:
        if self.render_mode is None or self.table is None:
            return None
        text = "\n".join(self.table.scene_lines(0))
        if self.render_mode == "human":
            print(text)
            return None
        return text


if "versus/Solo-v0" not in gymnasium.registry:  # the default solo game, by the registry's word
    gymnasium.register(id="versus/Solo-v0", entry_point=f"{__name__}:SoloEnv",
                       kwargs={"game_id": DEFAULT_SOLO_GAME})
