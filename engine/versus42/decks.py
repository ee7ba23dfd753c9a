# Each seat's hidden deck (SPEC §3.3): the handles the protocol deals to it from its commitments.
# For a new game every card of the seat; for a start position its hidden cards, which the start
# numbers first. Shared by the Game adapter and the referee.
from __future__ import annotations

from ..api import HiddenDeck
from .ruleset import Ruleset


def hidden_decks(rules: Ruleset) -> tuple[HiddenDeck, HiddenDeck]:
    """One deck per player, player p's cards holding handles p*n .. p*n + n - 1."""
    n = rules.deck_size
    if rules.start:  # each seat's hidden cards of the position, numbered first
        from .start import start_plan  # the position reader loads only for a start (start-up)

        hidden = start_plan(rules.start).hidden
        return (HiddenDeck(0, hidden[0], 0), HiddenDeck(1, hidden[1], n))
    return (HiddenDeck(0, n, 0), HiddenDeck(1, n, n))
