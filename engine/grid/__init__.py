# The "[versus]" grid game (seed 002, SPEC Part 9) on the generic Game interface
# (engine/api.py), registry id "grid": two players place character cards on a 4x4, 5x5 or 6x6
# grid, battle by touching sides, trigger face-down traps, use TURN/FREE/MODIFIER items, and
# win by a character surviving on the opponent's home base (or by the card count once both
# are out of cards).
#
# How: this module is the thin adapter the registry holds; the rules live beside it
# (rules.py options, cards.py card data, state.py the engine, notation.py inputs, views.py
# views, narrate.py narration, scene.py the scene every shell draws and the rules text,
# positions.py positions, start.py start positions). Nothing here imports Versus: only the
# generic interface (api.py, scene.py, options.py, errors.py) and the generic tagged hash
# (hashing.py).
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..api import Finished, HiddenDeck, Pending, Setup, only_version
from ..errors import RulesetError
from ..options import RulesOption
from ..scene import Scene
from .begin import new_game
from .cards import Catalogue, default_catalogue, load_catalogue
from .decks import hidden_decks, random_deal
from .narrate import narrate, narrate_start
from .notation import GridInput, Verb, answer_input, format_input, parse_input
from .rules import RULES_OPTIONS, GridRules
from .scene import rules_text, scene
from .state import (
    GridState,
    decision,
    encode_state,
    legal_actions,
    state_hash,
    step,
)
from .views import GridKnowledge, GridView, view

__all__ = ["GRID", "Grid", "GridInput", "GridKnowledge", "GridRules", "GridState", "GridView"]


class Grid:
    """The grid game of seed 002 ("[versus]")."""

    id = "grid"
    title = "[versus] grid game (4x4 / 5x5 / 6x6, seed 002)"
    players = 2
    rules_options: tuple[RulesOption, ...] = RULES_OPTIONS
    chance = True  # the first-player coin flip and sudden death

    # --- rules -----------------------------------------------------------------------------
    def default_rules(self) -> GridRules:
        return GridRules()

    def rules_from_options(self, options: Mapping[str, Any]) -> GridRules:
        return _checked(GridRules.from_options(options))

    def rules_to_options(self, rules: GridRules) -> dict[str, Any]:
        return _rules(rules).to_options()

    def encode_rules(self, rules: GridRules) -> bytes:
        return _rules(rules).encode()

    def decode_rules(self, data: bytes) -> GridRules:
        return _checked(GridRules.decode(data))

    def rules_digest(self, rules: GridRules) -> bytes:
        return _rules(rules).digest()

    def describe_rules(self, rules: GridRules) -> str:
        text = _rules(rules).describe()
        if rules.start:
            from .start import describe_start

            text += f", {describe_start(rules)}"
        return text

    def start_view(self, rules: GridRules, seat: int) -> Any:
        """The start of `rules` as `seat` sees it before accepting (SPEC §3.3)."""
        from .describe import start_view

        return start_view(self, rules, seat)

    def rules_for_position(self, text: str | bytes) -> GridRules:
        """The rules of a match that starts from this position (its own rules, the position
        as their `start`, SPEC Part 9 "Start positions"); PositionError says why it cannot."""
        from .start import canonical_start

        start = canonical_start(text)
        return _checked(GridRules.from_options({**json.loads(start)["rules"], "start": start}))

    # --- card data -------------------------------------------------------------------------
    def default_catalogue(self) -> Catalogue:
        return default_catalogue()

    def load_catalogue(self, data: str | bytes) -> Catalogue:
        return load_catalogue(data)

    def catalogue_digest(self, catalogue: Catalogue) -> bytes:
        return catalogue.digest

    def catalogue_for_digest(self, digest: bytes) -> Catalogue | None:
        return only_version(self, digest)

    def card_ids(self, catalogue: Catalogue) -> tuple[str, ...]:
        return tuple(card.id for card in catalogue.cards)

    # --- hidden decks ----------------------------------------------------------------------
    def decks(self, rules: GridRules) -> tuple[HiddenDeck, ...]:
        """Individual: player p's deck holds handles p*n .. p*n+n-1; shared: one deck of 2n.
        From a start position: the position's hidden cards, numbered first (decks.py)."""
        return hidden_decks(_rules(rules))

    def local_deal(self, rules: GridRules, catalogue: Catalogue, seed: bytes
                   ) -> tuple[dict[int, str], list[list[int]]]:
        """A deal for local play (engine/referee_loop.py): the recommended decks of the mode
        built from `seed` (decks.py `random_deal`)."""
        ids, orders = random_deal(catalogue, _rules(rules), seed)
        return dict(enumerate(ids)), [list(o) for o in orders]

    def deal_input(self, handle: int) -> GridInput:
        return answer_input(handle)

    def reveal_input(self, handle: int, card_id: str) -> GridInput:
        if not card_id:  # answer_input reads "" as a deal
            return GridInput(Verb.REVEAL, handle, card=card_id)  # raises: no card id
        return answer_input(handle, card_id)

    # --- play ------------------------------------------------------------------------------
    def new_game(self, setup: Setup) -> GridState:
        return new_game(_rules(setup.rules), setup.catalogue)

    def decision(self, state: GridState) -> Pending | Finished:
        return decision(state)

    def legal_actions(self, state: GridState) -> Sequence[GridInput]:
        return legal_actions(state)

    def step(self, state: GridState, inp: GridInput) -> GridState:
        return step(state, inp)

    def new_knowledge(self, player: int) -> GridKnowledge:
        return GridKnowledge(player)

    def view(self, state: GridState, player: int, knowledge: GridKnowledge) -> GridView:
        return view(state, player, knowledge)

    def encode_state(self, state: GridState) -> bytes:
        return encode_state(state)

    def state_hash(self, state: GridState) -> bytes:
        return state_hash(state)

    # --- notation and narration ------------------------------------------------------------
    def parse_input(self, text: str) -> GridInput:
        return parse_input(text)

    def format_input(self, inp: GridInput) -> str:
        return format_input(inp)

    def narrate(self, before: GridState, inp: GridInput, after: GridState, viewer: int | None,
                knowledge: GridKnowledge | None) -> list[str]:
        return narrate(before, inp, after, viewer, knowledge)

    def narrate_start(self, state: GridState, viewer: int | None) -> list[str]:
        return narrate_start(state, viewer)

    def scene(self, state: GridState, seat: int | None,
              knowledge: GridKnowledge | None) -> Scene:
        """What `seat` (None: the public) sees of `state`, drawn by every shell (scene.py)."""
        return scene(state, seat, knowledge)

    def rules_text(self, rules: GridRules) -> str:
        """The short rules and notation for a player at the table (scene.py)."""
        return rules_text(_rules(rules))

    # --- what the game adds to the shell (engine/shell.py) --------------------------------
    #: its bots by name: "module:factory" (engine/shell.py `BotRequest`)
    bots: ClassVar[Mapping[str, str]] = {
        "greedy": "versus.engine.grid.bots:greedy_bot",
        "ismcts": "versus.engine.grid.bot_search:ismcts_bot"}

    def describe_view(self, view: GridView) -> str:
        """The view as text for the line terminal (render.py)."""
        from .render import render_view

        return render_view(view)

    # --- as a research environment (encode.py, engine/encoding.py) ------------------------
    def observation_size(self, rules: GridRules) -> int:
        from .encode import observation_size

        return observation_size(_rules(rules))

    def observe(self, state: GridState, seat: int, knowledge: GridKnowledge) -> dict[int, float]:
        from .encode import observe

        return observe(state, seat, knowledge)

    def observe_changes(self, state: GridState, seat: int, knowledge: GridKnowledge, memo: Any
                        ) -> tuple[dict[int, float], Any]:
        from .encode import observe_changes

        return observe_changes(state, seat, knowledge, memo)

    def action_count(self, rules: GridRules) -> int:
        from .encode import action_count

        return action_count(_rules(rules))

    def action_index(self, state: GridState, inp: GridInput) -> int:
        from .encode import action_index

        return action_index(state, inp)

    def input_of(self, state: GridState, index: int) -> GridInput:
        from .encode import input_of

        return input_of(state, index)

    def legal_indices(self, state: GridState, legal: Sequence[GridInput]) -> list[int]:
        from .encode import legal_indices

        return legal_indices(state, legal)

    def view_parts(self, view: GridView) -> tuple[GridState, int, GridKnowledge]:
        """(public state, seat, knowledge) of a view, for a `py:` policy's encoding."""
        from .encode import view_parts

        return view_parts(view)

    # --- positions -------------------------------------------------------------------------
    def dump_position(self, state: GridState) -> str:
        from .positions import dump_position

        return dump_position(state)

    def load_position(self, text: str | bytes, catalogue: Catalogue | None = None) -> GridState:
        from .positions import load_position

        state = load_position(text, catalogue)
        _checked(state.rules)  # a position written during a match from a start carries it
        return state


def _checked(rules: GridRules) -> GridRules:
    """`rules`, its start (if any) checked (start.checked_rules)."""
    if not rules.start:
        return rules
    from .start import checked_rules  # the position reader loads only for a start (start-up)

    return checked_rules(rules)


def _rules(rules: object) -> GridRules:
    if not isinstance(rules, GridRules):
        raise RulesetError(f"not grid rules: {rules!r:.60}")
    return rules


#: the one instance the registry holds
GRID = Grid()
