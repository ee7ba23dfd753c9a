# The first state of a Vanquishers match: the setup dice pending (engine.deal_new_state, §10.1.1.1)
# or, for rules with a start position, the position's first state (start.start_state, SPEC Part
# V "Start positions"). Its own module above both: the start module reads positions with the
# rules engine, so the rules engine cannot call it back.
from __future__ import annotations

from .cards import Catalogue
from .engine import State, deal_new_state
from .rules import Rules


def new_state(rules: Rules, cat: Catalogue) -> State:
    """The first state of a match under `rules`: the setup, or the start position it carries."""
    if rules.start:
        from .start import start_state  # the position reader loads only for a start (start-up)

        return start_state(rules, cat)
    return deal_new_state(rules, cat)
