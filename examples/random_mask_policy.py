# A policy for the `py:` bot kind and the research environments (versus.rl): it picks one of the
# legal actions, uniformly, from a generator seeded by the observation itself, so the same
# position always gets the same answer (a match replays, a test is repeatable) and no state is
# kept between calls. Plain lists in, an int out: no numpy needed.
#
#   versus play --game grid --bot "py:examples/random_mask_policy.py:policy"
#   versus tournament --game grid "py:examples/random_mask_policy.py:policy:name=A" ...
#
# With the PettingZoo environment (needs the `rl` extra):
#
#   import versus.rl
#   env = versus.rl.env("grid", seed=1)
#   env.reset()
#   for agent in env.agent_iter():
#       obs, reward, terminated, truncated, info = env.last()
#       env.step(None if terminated or truncated else
#                policy(list(obs["observation"]), list(obs["action_mask"])))
from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence


def policy(observation: Sequence[float], mask: Sequence[int]) -> int:
    """A legal action index (mask[i] == 1), chosen by a hash of the observation."""
    legal = [i for i, allowed in enumerate(mask) if allowed]
    if not legal:
        raise ValueError("no legal action in the mask")
    digest = hashlib.sha256(struct.pack(f"<{len(observation)}f", *observation)).digest()
    return legal[int.from_bytes(digest[:8], "big") % len(legal)]


if __name__ == "__main__":  # a whole game of each two-player game, one policy for both seats
    from versus.engine import encoding
    from versus.engine.registry import games, get_game
    from versus.rl.table import Table

    for info in games():
        game = get_game(info.id)
        if info.players != 2 or not encoding.has_encoding(game):
            continue
        table = Table.open(game, game.default_rules(), 1)
        while not table.finished:
            seat = table.to_move
            assert seat is not None
            mask = [0] * table.action_count()
            for i in table.legal(seat):
                mask[i] = 1
            table.act(policy(table.observe(seat), mask))
        print(f"{info.id}: {table.decision}, {table.play.inputs} inputs")
