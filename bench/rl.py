# The research environments' cost (versus.rl): for every game with an encoding, seeded random
# games played three ways on one core, timed per player decision (a step: one TURN or CHOICE,
# with the deals, reveals and chance up to the next one):
#   - the raw engine: LocalPlay (engine/referee_loop.py) with a random pick among the game's
#     legal inputs, no encoding (its inputs/s, every input counted, are shown beside);
#   - the environment: the PettingZoo AEC environment (rl/pettingzoo.py; a solo game: the
#     Gymnasium one, rl/gymnasium.py), a random action among the mask's at each step, the
#     agent's observation (numpy) and mask read every step, as a training loop reads them
#     (the int8 mask's legal indices through a bool view of it: numpy's nonzero walks an int8
#     array element by element, ~30 µs for Versus's 11,645 actions, a bool one in ~2 µs);
# and the overhead, env time per step over raw time per step, minus 1 (target <= 30 %): the
# median of 3 rounds, each timing both on the same games one after the other.
#
#   .venv/bin/python bench/rl.py [--games N]
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]

from versus.cli.argtypes import count  # noqa: E402
from versus.engine import encoding  # noqa: E402
from versus.engine.api import Finished, Setup  # noqa: E402
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal  # noqa: E402
from versus.engine.registry import games, get_game  # noqa: E402

#: the environment layer's overhead per step over the raw engine's (SPEC Part 3, "Observation
#: and action encoding")
TARGET_OVERHEAD = 30.0
QUICK = {"games": 3}


def encoded() -> tuple[str, ...]:
    return tuple(g.id for g in games() if encoding.has_encoding(get_game(g.id)))


def raw(game_id: str, games_: int) -> tuple[float, float]:
    """(player decisions per second, inputs per second) of the raw engine's random play."""
    game = get_game(game_id)
    rules, catalogue = game.default_rules(), game.default_catalogue()
    steps = inputs = 0
    start = time.perf_counter()
    for g in range(games_):
        seed = b"bench-rl/%d" % g
        identity, orders = local_deal(game, rules, catalogue, seed)
        play = LocalPlay.start(game, Setup(rules, catalogue, seed), identity, orders,
                               HashBelow(seed + b"/chance", 8).below)
        pick = HashBelow(seed + b"/pick", 8)
        while True:
            d = play.to_player()
            if isinstance(d, Finished):
                break
            legal = game.legal_actions(play.state)
            play.apply(legal[pick.below(len(legal))])
            steps += 1
        inputs += play.inputs
    seconds = time.perf_counter() - start
    return steps / seconds, inputs / seconds


def environment(game_id: str, games_: int) -> float:
    """Steps per second of the game's environment under a random masked policy (its imports
    and construction are not timed)."""
    import numpy as np

    from versus.rl.gymnasium import SoloEnv
    from versus.rl.pettingzoo import raw_env

    steps = 0
    if get_game(game_id).players == 1:
        solo = SoloEnv(game_id)
        start = time.perf_counter()
        for g in range(games_):
            _, info = solo.reset(seed=g)
            pick = HashBelow(b"bench-rl/pick/%d" % g, 8)
            while True:
                legal = np.flatnonzero(info["action_mask"].view(np.bool_))
                action = int(legal[pick.below(len(legal))])
                _, _, terminated, truncated, info = solo.step(action)
                steps += 1
                if terminated or truncated:
                    break
        return steps / (time.perf_counter() - start)
    env = raw_env(game_id)
    start = time.perf_counter()
    for g in range(games_):
        env.reset(seed=g)
        pick = HashBelow(b"bench-rl/pick/%d" % g, 8)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
            env.step(int(legal[pick.below(len(legal))]))
            steps += 1
    return steps / (time.perf_counter() - start)


def measure(games_: int, rounds: int = 3) -> list[dict[str, Any]]:
    """Per game: medians over `rounds` rounds, each timing the raw engine then the environment
    on `games_` games (alternating, so a load that comes and goes on a shared machine hits
    both sides of one round alike); the overhead is the median of the rounds' overheads."""
    out = []
    for game_id in encoded():
        raw(game_id, 1)  # warm up: the game's modules and card data load outside the timing
        environment(game_id, 1)
        runs = []
        for _ in range(rounds):
            decisions, inputs = raw(game_id, games_)
            env = environment(game_id, games_)
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
