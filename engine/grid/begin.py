# The first state of a grid match: the new game (state.deal_new_game) or, for rules with a start
# position, the position's first state (start.start_state, SPEC Part 9 "Start positions"). Its
# own module above both: the start module reads positions with the rules engine, so the rules
# engine cannot call it back.
from __future__ import annotations

from .cards import Catalogue
from .rules import GridRules
from .state import GridState, deal_new_game


def new_game(rules: GridRules, catalogue: Catalogue) -> GridState:
    """The first state of a match under `rules`: the new game, or the start position it
    carries."""
    if rules.start:
        from .start import start_state  # the position reader loads only for a start (start-up)

        return start_state(rules, catalogue)
    return deal_new_game(rules, catalogue)
