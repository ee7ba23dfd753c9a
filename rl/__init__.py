# The games as research environments: PettingZoo AEC environments for the two-player games
# (rl/pettingzoo.py), a Gymnasium environment for a solo game (rl/gymnasium.py), OpenSpiel
# Python games (rl/openspiel.py), all on one game-agnostic driver (rl/table.py). What an
# observation vector and an action index mean is each game's own encoding (engine/encoding.py,
# SPEC Part 3 "Observation and action encoding"); nothing here names a game.
#
# These modules need the optional `rl` extra (numpy, pettingzoo, gymnasium; open_spiel for
# rl/openspiel.py): `import versus.rl` loads none of them, `versus.rl.env(...)` loads PettingZoo.
from __future__ import annotations

from typing import Any


def env(game_id: str, rules: dict[str, Any] | None = None, seed: int | None = None,
        render_mode: str | None = None) -> Any:
    """The PettingZoo AEC environment of a two-player game (`rl/pettingzoo.py` `env`), wrapped
    as PettingZoo users expect: `versus.rl.env("grid", rules={"mode": "normal"}, seed=1)`."""
    from .pettingzoo import env as make

    return make(game_id, rules=rules, seed=seed, render_mode=render_mode)
