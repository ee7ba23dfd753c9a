# Playing a whole local game with async players: the full-information Referee answers Deals
# and Reveals, the players answer turn actions and choices. Tests and local matches use it;
# networked play goes through a p2p session instead, which asks the same AsyncPlayer.
from __future__ import annotations

from collections.abc import Sequence

from versus.engine.versus42 import (
    Action,
    ChoiceDecision,
    GameResult,
    Referee,
    TurnDecision,
    legal_actions,
)

from .base import AsyncPlayer, BotForfeit


async def play_match(referee: Referee, players: Sequence[AsyncPlayer]) -> GameResult:
    """Play the referee's game to the end; a player answering an illegal action forfeits."""
    mailbox: list[Action] = []
    referee.choosers = (lambda view, legal: mailbox.pop(),) * 2  # type: ignore[assignment]
    decisions = [0, 0]
    while referee.state.result is None:
        d = referee.state.pending
        if isinstance(d, TurnDecision | ChoiceDecision):
            p = d.player
            legal = legal_actions(referee.state)
            decisions[p] += 1
            action = await players[p].choose(referee.view(p), legal)
            if action not in legal:
                raise BotForfeit(f"bot {players[p].name!r} answered an illegal action "
                                 f"{str(action)!r} on decision {decisions[p]}")
            mailbox.append(action)
        referee.advance()
    return referee.state.result
