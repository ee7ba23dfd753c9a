# The first state of a Versus match: the new game (game.deal_new_game, §1.2–1.3 from the layout
# seed) or, for a ruleset with a start position, the position's first state (start.start_state,
# SPEC Part 3 "Start positions"). Its own module above both: the start module reads positions
# with the rules engine, so the rules engine cannot call it back.
from __future__ import annotations

from .catalogue import Catalogue
from .game import State, deal_new_game
from .ruleset import Ruleset


def new_game(ruleset: Ruleset, catalogue: Catalogue, layout_seed: bytes) -> State:
    """The first state of a match under `ruleset`: a new deal from `layout_seed`, or the start
    position the ruleset carries (which needs no seed: its tiles are the position's)."""
    if ruleset.start:
        from .start import start_state  # the position reader loads only for a start (start-up)

        return start_state(ruleset, catalogue)
    return deal_new_game(ruleset, catalogue, layout_seed)
