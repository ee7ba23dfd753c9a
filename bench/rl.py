# The research environments' cost (versus.rl): for every game with an encoding, the same seeded
# random games played two ways on one core, timed per player decision (a step: one TURN or
# CHOICE, with the deals, reveals and chance up to the next one):
#   - the environment: the PettingZoo AEC environment (rl/pettingzoo.py; a solo game: the
#     Gymnasium one, rl/gymnasium.py), the agent's observation (numpy) and mask read every
#     step, as a training loop reads them, and an action among the mask's legal indices (read
#     through a bool view of the int8 mask: numpy's nonzero walks an int8 array element by
#     element, ~30 µs for Versus's 11,645 actions, a bool one in ~2 µs);
#   - the raw engine: the same local game (rl/table.py `start_play`) through LocalPlay
#     (engine/referee_loop.py), the same input at each step among the game's legal inputs, no
#     encoding (its inputs/s, every input counted, are shown beside);
# and the overhead, env time per step over raw time per step, minus 1 (target <= 30 %): the
# median of 3 rounds, each timing both one after the other.
#
# Why recorded games: a ratio of costs per step means something only over the same positions.
# The games (seeds 0.., a seeded random choice among the mask's legal indices) are played once
# through the environment untimed (`record`), then both sides replay them: the environment by
# each action's position among the mask's legal indices, the raw engine by its input's position
# among `legal_actions` (different seeds and policies on the two sides gave games of different
# lengths and positions, so a game's costlier positions weighed differently on each side).
#
#   .venv/bin/python bench/rl.py [--games N]
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from versus.cli.argtypes import count  # noqa: E402
from versus.engine import encoding  # noqa: E402
from versus.engine.api import Finished  # noqa: E402
from versus.engine.referee_loop import HashBelow  # noqa: E402
from versus.engine.registry import games, get_game  # noqa: E402

#: the environment layer's overhead per step over the raw engine's (SPEC Part 3, "Observation
#: and action encoding")
TARGET_OVERHEAD = 30.0
QUICK = {"games": 3}


def encoded() -> tuple[str, ...]:
    return tuple(g.id for g in games() if encoding.has_encoding(get_game(g.id)))


class Script(NamedTuple):
    """One recorded game: at each step, the chosen action's position among the mask's legal
    indices (the environment's order) and its input's among the game's legal inputs (the
    raw engine's order)."""

    seed: int
    in_mask: list[int]
    in_legal: list[int]


def record(game_id: str, games_: int) -> list[Script]:
    """The games both loops replay: seeds 0.., a seeded random action among the mask's legal
    indices at each step, played through the environment (untimed)."""
    scripts = []
    for g in range(games_):
        pick = HashBelow(b"bench-rl/pick/%d" % g, 8)
        script = Script(g, [], [])

        def choose(legal: Any, table: Any, seat: int, script: Script = script,
                   pick: HashBelow = pick) -> int:
            j = pick.below(len(legal))
            action = int(legal[j])
            script.in_mask.append(j)
            script.in_legal.append(table.legal(seat).index(action))
            return action

        _play_env(game_id, [g], choose)
        scripts.append(script)
    return scripts


def raw(game_id: str, scripts: list[Script]) -> tuple[float, float]:
    """(player decisions per second, inputs per second) of the raw engine replaying
    `scripts`: the same local games as the environment's tables (rl/table.py `start_play`),
    each step the recorded input among the game's legal inputs."""
    from versus.rl.table import rules_of, start_play

    game = get_game(game_id)
    rules = rules_of(game, None)  # the environments' rules
    steps = inputs = 0
    start = time.perf_counter()
    for script in scripts:
        play = start_play(game, rules, script.seed)
        for k in script.in_legal:
            play.to_player()
            play.apply(game.legal_actions(play.state)[k])
        if not isinstance(play.to_player(), Finished):
            raise RuntimeError(f"{game_id} seed {script.seed}: the raw replay did not end "
                               "where the environment's game did")
        steps += len(script.in_legal)
        inputs += play.inputs
    seconds = time.perf_counter() - start
    return steps / seconds, inputs / seconds


def environment(game_id: str, scripts: list[Script]) -> float:
    """Steps per second of the game's environment replaying `scripts` (the recorded position
    among the mask's legal indices; its imports and construction are not timed)."""
    steps = sum(len(s.in_mask) for s in scripts)
    replies = iter([j for s in scripts for j in s.in_mask])
    seconds = _play_env(game_id, [s.seed for s in scripts],
                        lambda legal, table, seat: int(legal[next(replies)]))
    return steps / seconds


def _play_env(game_id: str, seeds: list[int],
              choose: Callable[[Any, Any, int], int]) -> float:
    """Play the games of `seeds` in the game's environment, reading the observation and the
    mask every step, `choose(legal indices, table, seat)` picking the action; the seconds."""
    import numpy as np

    from versus.rl.gymnasium import SoloEnv
    from versus.rl.pettingzoo import raw_env

    if get_game(game_id).players == 1:
        solo = SoloEnv(game_id)
        start = time.perf_counter()
        for g in seeds:
            _, info = solo.reset(seed=g)
            while True:
                legal = info["action_mask"].view(np.bool_).nonzero()[0]
                _, _, terminated, truncated, info = solo.step(choose(legal, solo.table, 0))
                if terminated or truncated:
                    break
        return time.perf_counter() - start
    env = raw_env(game_id)
    start = time.perf_counter()
    for g in seeds:
        env.reset(seed=g)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            env.step(choose(legal, env.table, env.possible_agents.index(agent)))
    return time.perf_counter() - start


def measure(games_: int, rounds: int = 3) -> list[dict[str, Any]]:
    """Per game: medians over `rounds` rounds, each timing the raw engine then the environment
    on `games_` games (alternating, so a load that comes and goes on a shared machine hits
    both sides of one round alike); the overhead is the median of the rounds' overheads."""
    out = []
    for game_id in encoded():
        scripts = record(game_id, games_)  # (also the warm-up: modules and card data load)
        runs = []
        for _ in range(rounds):
            decisions, inputs = raw(game_id, scripts)
            env = environment(game_id, scripts)
            runs.append((decisions, inputs, env, 100.0 * (decisions / env - 1.0)))
        decisions, inputs, env, overhead = (statistics.median(r[k] for r in runs)
                                            for k in range(4))
        out.append({"game": game_id, "raw_steps": decisions, "raw_inputs": inputs,
                    "env_steps": env, "overhead": overhead})
    return out


def missing() -> str | None:
    """Why the environments cannot run here (a package of the rl extra missing), or None."""
    try:
        import gymnasium  # noqa: F401
        import numpy  # noqa: F401
        import pettingzoo  # noqa: F401
    except ImportError as error:
        return f"bench/rl.py needs the rl extra (pip install -e '.[rl]'): {error}"
    return None


def figures(games: int = 8) -> list[dict[str, Any]]:
    if missing() is not None:
        print(missing(), file=sys.stderr)
        return []
    rows = []
    for r in measure(games):
        rows += [
            {"name": f"rl {r['game']}: raw engine steps/s", "value": r["raw_steps"],
             "unit": "/s", "target": None, "comparison": None},
            {"name": f"rl {r['game']}: environment steps/s", "value": r["env_steps"],
             "unit": "/s", "target": None, "comparison": None},
            {"name": f"rl {r['game']}: environment overhead", "value": r["overhead"],
             "unit": "%", "target": TARGET_OVERHEAD, "comparison": "<="},
        ]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=count, default=8,
                        help="games per game id and round (3 rounds)")
    args = parser.parse_args()
    if missing() is not None:
        print(missing())
        return 2
    print(f"{'game':<12} {'raw steps/s':>12} {'raw inputs/s':>13} {'env steps/s':>12} "
          f"{'overhead':>9}")
    for r in measure(args.games):
        print(f"{r['game']:<12} {r['raw_steps']:>12.0f} {r['raw_inputs']:>13.0f} "
              f"{r['env_steps']:>12.0f} {r['overhead']:>8.0f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
