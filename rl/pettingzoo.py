# PettingZoo AEC environments for the two-player games (the layout PettingZoo's classic
# environments have: `env()` wrapped, `raw_env` bare). An agent's observation is a dict: its own
# view as the game's fixed-length vector ("observation", float32) and "action_mask" (int8) over
# the game's fixed action space, set only for the agent to move. Deals, reveals and chance are
# resolved inside from the seed (rl/table.py); render() draws the scene of the agent to move.
#
# Rewards: +1 to the winner and -1 to the loser when the game ends, 0 to both for a draw; the
# environment truncates a game that runs past rl/table.py MAX_INPUTS.
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from versus.engine import encoding
from versus.engine.registry import get_game

from .arrays import Observed, mask
from .table import Table, TableError, rules_of

RENDER_MODES = ("human", "ansi")


def env(game_id: str, rules: Mapping[str, Any] | None = None, seed: int | None = None,
        render_mode: str | None = None) -> AECEnv:
    """The environment of `game_id`, with PettingZoo's usual checking wrappers."""
    inner = raw_env(game_id, rules=rules, seed=seed, render_mode=render_mode)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(inner))


class raw_env(AECEnv):  # PettingZoo's name for the unwrapped environment
    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES),
                                          "name": "versus_v0", "is_parallelizable": False}

    def __init__(self, game_id: str, rules: Mapping[str, Any] | None = None,
                 seed: int | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        self.game = get_game(game_id)
        if self.game.players != 2:
            raise TableError(f"game {game_id!r} has {self.game.players} seat(s): a PettingZoo "
                             "environment here is for a two-player game (a solo game: "
                             "versus.rl.gymnasium)")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise TableError(f"render_mode {render_mode!r}: one of {', '.join(RENDER_MODES)}")
        self.rules = rules_of(self.game, rules)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"versus_{self.game.id.replace('-', '_')}_v0"}
        self._seed = seed
        self._resets = 0
        self.possible_agents = ["player_0", "player_1"]
        if not encoding.has_encoding(self.game):
            raise TableError(f"game {game_id!r} has no observation/action encoding")
        size = self._size = encoding.observation_size(self.game, self.rules)
        count = encoding.action_count(self.game, self.rules)
        box = spaces.Box(low=-np.inf, high=np.inf, shape=(size,), dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(count,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(count) for a in self.possible_agents}
        self._count = count  # (a Discrete's n is a numpy integer: a plain int is cheaper)
        self._seats = {a: seat for seat, a in enumerate(self.possible_agents)}
        self.table: Table | None = None
        self._observed = [Observed(size) for _ in self.possible_agents]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- the AEC loop -----------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            # the constructor's seed, one game after another; none given: a fresh one
            seed = (self._seed + self._resets if self._seed is not None
                    else int.from_bytes(os.urandom(8), "big"))
        self._resets += 1
        self.table = Table.open(self.game, self.rules, seed)
        self._observed = [Observed(self._size) for _ in self.possible_agents]
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._after_move()

    def _after_move(self) -> None:
        table = self._table()
        mover = table.to_move
        if mover is not None:
            self.agent_selection = self.possible_agents[mover]
        if table.finished or table.truncated:
            done = dict.fromkeys(self.agents, True)
            if table.finished:
                self.terminations = done
                self.rewards = dict(zip(self.possible_agents, table.returns(), strict=True))
            else:
                self.truncations = done

    def _table(self) -> Table:
        if self.table is None:
            raise TableError("call reset() before using the environment")
        return self.table

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        table = self._table()
        table.act(int(action))  # type: ignore[arg-type]
        # the rewards are all 0 until the game ends (`_after_move` sets them then, and every
        # agent is done): nothing to reset or add up on the steps before
        self._after_move()
        if table.finished or table.truncated:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        table = self._table()
        seat = self._seats[agent]
        seen = self._observed[seat]
        return {"observation": seen.update(*table.observe_changes(seat, seen.memo)),
                "action_mask": mask(table.legal(seat), self._count)}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        table = self._table()
        seat = table.to_move
        text = "\n".join(table.scene_lines(seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.table = None
