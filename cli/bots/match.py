# Playing a whole local game of any game with async players: the one full-information loop
# (engine/referee_loop.py `LocalPlay.play_async`) answers deals, reveals and chance, the
# players answer turn actions and choices from their seat's view. Tests and local matches use
# it; networked play goes through a p2p session instead, which asks the same AsyncPlayer.
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from versus.engine.api import Finished
from versus.engine.referee_loop import LocalPlay

from .base import AsyncPlayer, BotForfeit


async def play_match(play: LocalPlay, players: Sequence[AsyncPlayer]) -> Finished:
    """Play `play`'s game to the end; a player answering an illegal action forfeits."""
    decisions = [0] * len(players)

    async def choose(view: Any, legal: list[Any], seat: int) -> Any:
        decisions[seat] += 1
        action = await players[seat].choose(view, legal)
        if action not in legal:
            raise BotForfeit(f"bot {players[seat].name!r} answered an illegal action "
                             f"{str(action)!r} on decision {decisions[seat]}")
        return action

    return await play.play_async(choose)
