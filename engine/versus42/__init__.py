# Versus (SPEC Parts 1-3), registered as "versus42": the whole game in this package. The rules
# engine (game.py: state, legal actions, step, state hash) on its ruleset (ruleset.py), card
# catalogue (catalogue.py, data/), field (geometry.py), inputs and notation (actions.py) and
# decisions (decisions.py); the player views (views.py), narration (narrate.py), position texts
# (positions.py) and start positions (start.py, describe.py); a full-information referee
# (referee.py); its bots (bots/). This module adapts it to the generic Game interface
# (engine/api.py): it translates Versus decisions and results into `Pending` / `Finished`.
#
# The Versus names a caller needs (State, Action, PlayerView, Referee, ...) are exported here;
# those of the modules `versus verify` does not need (views, positions, narration, referee)
# load on first use (PEP 562 `__getattr__`), so verifying a transcript stays lean.
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, ClassVar

from ..api import DecisionKind, Finished, HiddenDeck, Pending, RulesOption, Setup
from ..errors import RulesetError
from .actions import (
    Action,
    ActionKind,
    Deal,
    Input,
    Reveal,
    format_input,
    parse_action,
    parse_input,
)
from .begin import new_game
from .catalogue import Card, Catalogue, default_catalogue, find_catalogue, load_catalogue
from .decisions import (
    ChoiceDecision,
    ChoiceKind,
    DealDecision,
    DealPurpose,
    Decision,
    GameResult,
    Outcome,
    RevealDecision,
    TurnDecision,
)
from .decks import hidden_decks
from .game import (
    State,
    _step,
    encode_state,
    legal_actions,
    listed_actions,
    state_hash,
    step,
)
from .geometry import STANDARD, Geometry
from .ruleset import RULES_OPTIONS, ActionOrder, Ruleset, Tile, first_player, layout_tiles

if TYPE_CHECKING:  # the views load with the first view (a UI, a bot), not for `versus verify`
    from .views import Knowledge, PlayerView


class Versus42:
    """The Versus game of the versus42 guide (EN and FR variants as rules options)."""

    id = "versus42"  # positions.GAME_ID (that module loads on first use: start-up)
    title = "Versus (versus42 guide, EN/FR rules)"
    players = 2
    rules_options: tuple[RulesOption, ...] = RULES_OPTIONS
    chance = False  # Versus has no public randomness after setup (the layout uses the seed)
    full_screen_ui = True  # the terminal UI's board (api.full_screen_ui)
    tournament_deal = "decklist"  # a tournament's default deal (api.tournament_deal)
    #: its bots by name: "module:factory" (engine/shell.py), in bots/
    bots: ClassVar[Mapping[str, str]] = {
        "greedy": "versus.engine.versus42.bots.greedy:greedy_bot",
        "ismcts": "versus.engine.versus42.bots.ismcts:paired_bot",
        "ismcts-tree": "versus.engine.versus42.bots.ismcts:tree_bot"}

    def check_positions(self) -> dict[str, tuple[Any, int, Any]]:
        """The two choice kinds, built (`versus bot-check`; random games rarely reach them)."""
        from .check_positions import check_positions

        return check_positions()

    # --- rules -----------------------------------------------------------------------------
    def default_rules(self) -> Ruleset:
        return Ruleset()

    def rules_from_options(self, options: Mapping[str, Any]) -> Ruleset:
        if not isinstance(options, Mapping):
            raise RulesetError(f"ruleset options must be a mapping, not {type(options).__name__}")
        return _checked(Ruleset.from_options(**options))

    def rules_to_options(self, rules: Ruleset) -> dict[str, Any]:
        return rules.to_options()

    def encode_rules(self, rules: Ruleset) -> bytes:
        return rules.encode()

    def decode_rules(self, data: bytes) -> Ruleset:
        return _checked(Ruleset.decode(data))

    def rules_digest(self, rules: Ruleset) -> bytes:
        return rules.digest()

    def describe_rules(self, rules: Ruleset) -> str:
        text = (f"deck {rules.deck_size}, hand {rules.hand_size}, {rules.action_order.value} "
                f"actions, {rules.cols}x{rules.rows} field, {rules.max_turns} turns max")
        if rules.start:
            from .start import describe_start

            text += f", {describe_start(rules)}"
        return text

    def offer_notes(self, rules: Ruleset) -> list[str]:
        """The tile counts, when they differ from the standard ones (api.offer_notes)."""
        standard = Ruleset()
        tiles = ("white_tiles", "black_tiles", "gray_tiles", "blue_tiles")
        if all(getattr(rules, name) == getattr(standard, name) for name in tiles):
            return []
        return ["tiles " + ", ".join(f"{getattr(rules, name)} {name.split('_')[0]}"
                                     for name in tiles)]

    def rules_for_position(self, text: str | bytes) -> Ruleset:
        """The rules of a match that starts from this position (its own rules, the position
        as their `start`, SPEC Part 3 "Start positions"); PositionError says why it cannot."""
        from .start import canonical_start

        start = canonical_start(text)
        options = json.loads(start)["rules"]
        return _checked(Ruleset.from_options(**{**options, "start": start}))

    def start_view(self, rules: Ruleset, seat: int) -> Any:
        """The start of `rules` as `seat` sees it before accepting (SPEC §3.3)."""
        from .describe import start_view

        return start_view(self, rules, seat)

    # --- card data -------------------------------------------------------------------------
    def default_catalogue(self) -> Catalogue:
        return default_catalogue()

    def load_catalogue(self, data: str | bytes) -> Catalogue:
        return load_catalogue(data)

    def catalogue_digest(self, catalogue: Catalogue) -> bytes:
        return catalogue.digest

    def catalogue_for_digest(self, digest: bytes) -> Catalogue | None:
        """The shipped catalogue version a HELLO's digest names (SPEC Part 2, "Versions"):
        how a verifier replays a match made with an older card pool."""
        return find_catalogue(digest)

    def card_ids(self, catalogue: Catalogue) -> tuple[str, ...]:
        return tuple(card.id for card in catalogue.cards)

    # --- hidden decks ----------------------------------------------------------------------
    def decks(self, rules: Ruleset) -> tuple[HiddenDeck, ...]:
        """One deck per player, player p's cards holding handles p*n .. p*n + n - 1."""
        return hidden_decks(rules)

    def deal_input(self, handle: int) -> Deal:
        inp = _INPUTS.get(handle)
        if inp is None:
            inp = _INPUTS[handle] = Deal(handle)  # validated once (the referee deals per step)
        return inp  # type: ignore[return-value]

    def reveal_input(self, handle: int, card_id: str) -> Reveal:
        key = (handle, card_id)
        inp = _INPUTS.get(key)
        if inp is None:
            if len(_INPUTS) >= 65536:  # a bound, whatever catalogues a long process meets
                _INPUTS.clear()
            inp = _INPUTS[key] = Reveal(handle, card_id)
        return inp  # type: ignore[return-value]

    # --- play ------------------------------------------------------------------------------
    def new_game(self, setup: Setup) -> State:
        return new_game(setup.rules, setup.catalogue, setup.seed)

    def decision(self, state: State) -> Pending | Finished:
        d = state.result if state.result is not None else state.pending
        if type(d) is TurnDecision:  # most decisions: no hash of a dataclass to find it
            return _TURNS[d.player]
        # by identity first: the engine's deals and reveals are a few objects built once,
        # and a frozen dataclass hashes in Python (the pair keeps `d` alive: its id stays its)
        pair = _BY_ID.get(id(d))
        if pair is not None and pair[0] is d:
            return pair[1]
        known = _DECIDED.get(d)
        if known is None:
            known = self._decision(d)
            if not isinstance(d, ChoiceDecision):  # (a choice's options: too many to keep)
                _DECIDED[d] = known
        if not isinstance(d, ChoiceDecision):
            if len(_BY_ID) >= 4096:
                _BY_ID.clear()
            _BY_ID[id(d)] = (d, known)
        return known

    @staticmethod
    def _decision(d: Decision | GameResult) -> Pending | Finished:
        if isinstance(d, TurnDecision):
            return Pending(DecisionKind.TURN, d.player)
        if isinstance(d, ChoiceDecision):
            return Pending(DecisionKind.CHOICE, d.player, d.kind.value, d.options)
        if isinstance(d, DealDecision):
            return Pending(DecisionKind.DEAL, d.player, d.purpose.value, deck=d.player)
        if isinstance(d, RevealDecision):
            return Pending(DecisionKind.REVEAL, d.player, handle=d.handle)
        return Finished(d.outcome.value, d.winner)

    # the engine's functions themselves, not methods that call them: a loop asks for these
    # once per input, and a method's extra call is a few percent of a step
    #: the state's own tuple of legal inputs (the local loop copies it anyway)
    legal_actions = staticmethod(listed_actions)
    step = staticmethod(_step)

    def new_knowledge(self, player: int) -> Knowledge:
        from .views import Knowledge

        return Knowledge(player)

    def view(self, state: State, player: int, knowledge: Knowledge) -> PlayerView:
        return _views().PlayerView(state, knowledge, player)

    def encode_state(self, state: State) -> bytes:
        return encode_state(state)

    def state_hash(self, state: State) -> bytes:
        return state_hash(state)

    # --- notation and narration ------------------------------------------------------------
    def parse_input(self, text: str) -> Input:
        return parse_input(text)

    def format_input(self, inp: Input) -> str:
        return format_input(inp)

    def narrate(self, before: State, inp: Input, after: State, viewer: int | None,
                knowledge: Knowledge | None) -> list[str]:
        from .narrate import narrate  # the UI's module: `import versus.engine` stays lean

        return narrate(before, inp, after, viewer, knowledge)

    def narrate_start(self, state: State, viewer: int | None) -> list[str]:
        if viewer is None:
            if state.rules.start:
                return [f"the match starts from a position at turn {state.turn}: player "
                        f"{state.active + 1} to play"]
            return [f"player {state.first + 1} plays first (the Blue tile is on player "
                    f"{2 - state.first}'s side)"]
        if state.rules.start:  # a match from a start position (SPEC Part 3 "Start positions")
            who = "you are" if state.active == viewer else "the opponent is"
            return [f"the match starts from a position at turn {state.turn}: {who} to play"]
        return ["you play first" if state.first == viewer else "the opponent plays first"]

    def scene(self, state: State, seat: int | None, knowledge: Knowledge | None) -> Any:
        """What `seat` (None: the public) sees of `state`, as an engine/scene.py Scene."""
        from .scene import scene

        return scene(state, seat, knowledge)

    def rules_text(self, rules: Ruleset) -> str:
        """The short rules and the input notation for a player at the table (F1, `?`)."""
        from .scene import rules_text

        return rules_text(rules)

    # --- as a research environment (encode.py, engine/encoding.py) ------------------------
    def observation_size(self, rules: Ruleset) -> int:
        from .encode import observation_size

        return observation_size(rules)

    def observe(self, state: State, seat: int, knowledge: Knowledge) -> dict[int, float]:
        from .encode import observe

        return observe(state, seat, knowledge)

    def observe_changes(self, state: State, seat: int, knowledge: Knowledge, memo: Any
                        ) -> tuple[dict[int, float], Any]:
        from .encode import observe_changes

        return observe_changes(state, seat, knowledge, memo)

    def action_count(self, rules: Ruleset) -> int:
        from .encode import action_count

        return action_count(rules)

    def action_index(self, state: State, inp: Action) -> int:
        from .encode import action_index

        return action_index(state, inp)

    def input_of(self, state: State, index: int) -> Action:
        from .encode import input_of

        return input_of(state, index)

    def legal_indices(self, state: State, legal: Sequence[Action]) -> list[int]:
        from .encode import legal_indices

        return legal_indices(state, legal)

    def view_parts(self, view: PlayerView) -> tuple[State, int, Knowledge]:
        """(public state, seat, knowledge) of a view, for a `py:` policy's encoding."""
        return view.public_state, view.player, view._know

    # --- positions -------------------------------------------------------------------------
    def dump_position(self, state: State) -> str:
        from .positions import dump_position

        return dump_position(state)

    def load_position(self, text: str | bytes, catalogue: Catalogue | None = None) -> State:
        from .positions import load_position

        state = load_position(text, catalogue)
        _checked(state.rules)  # a position written during a match from a start carries it
        return state


def _views() -> Any:
    """views.py, loaded with the first view (an import statement per view costs the local
    loop a tenth of its speed)."""
    module = _LOADED.get("views")
    if module is None:
        module = _LOADED["views"] = import_module(".views", __name__)
    return module


_LOADED: dict[str, Any] = {}

#: the generic decision of each Versus decision met (but choices), built once: a few dozen
#: values (two turns, the deals and reveals of every handle, the results), and the local loop
#: and the protocol ask for one per input
_DECIDED: dict[Decision | GameResult, Pending | Finished] = {}
#: id(decision) -> (that decision, its generic decision), for the objects met
_BY_ID: dict[int, tuple[Decision | GameResult, Pending | Finished]] = {}


#: the deal and reveal inputs built (immutable, validated when built): the local referee asks
#: for one per deal or reveal, a few thousand distinct values at most (handles x card ids)
_INPUTS: dict[int | tuple[int, str], Deal | Reveal] = {}


_TURNS = (Pending(DecisionKind.TURN, 0), Pending(DecisionKind.TURN, 1))


def _checked(rules: Ruleset) -> Ruleset:
    """`rules`, its start (if any) checked (start.checked_rules)."""
    if not rules.start:
        return rules
    from .start import checked_rules  # the position reader loads only for a start (start-up)

    return checked_rules(rules)


#: the one instance the registry holds
VERSUS42 = Versus42()


#: the exported names of the modules that load on first use -> their module (of this package)
_LAZY: dict[str, str] = {
    **dict.fromkeys(("PositionBuilder", "dump_position"), "positions"),
    **dict.fromkeys(("Referee", "random_chooser", "random_deal"), "referee"),
    **dict.fromkeys(("FieldCard", "Knowledge", "PlayerView"), "views"),
}
__all__ = [  # the eager names and those of _LAZY
    "RULES_OPTIONS",
    "STANDARD",
    "VERSUS42",
    "Action",
    "ActionKind",
    "ActionOrder",
    "Card",
    "Catalogue",
    "ChoiceDecision",
    "ChoiceKind",
    "Deal",
    "DealDecision",
    "DealPurpose",
    "Decision",
    "FieldCard",
    "GameResult",
    "Geometry",
    "Input",
    "Knowledge",
    "Outcome",
    "PlayerView",
    "PositionBuilder",
    "Referee",
    "Reveal",
    "RevealDecision",
    "Ruleset",
    "State",
    "Tile",
    "TurnDecision",
    "Versus42",
    "default_catalogue",
    "dump_position",
    "encode_state",
    "find_catalogue",
    "first_player",
    "format_input",
    "layout_tiles",
    "legal_actions",
    "load_catalogue",
    "new_game",
    "parse_action",
    "parse_input",
    "random_chooser",
    "random_deal",
    "state_hash",
    "step",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
