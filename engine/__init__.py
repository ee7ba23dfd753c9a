# The Versus rules engine: pure, deterministic, no I/O. See SPEC.md Parts 1-3.
# The generic game interface (api.py) and the registry of games (registry.py) are here too;
# Versus is registered as "versus42" (its adapter: versus42/). Those names load on first use
# (PEP 562 `__getattr__` below): the Versus engine alone is what `versus verify` needs at start.
from typing import Any

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
from .catalogue import Card, Catalogue, default_catalogue, load_catalogue
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
from .errors import (
    CatalogueError,
    EngineError,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    PositionError,
    RulesetError,
    UnknownGameError,
)
from .game import State, encode_state, legal_actions, new_game, state_hash, step
from .geometry import STANDARD, Geometry
from .hashing import HashRng, HashStream
from .referee import Referee, random_chooser, random_deal
from .ruleset import ActionOrder, Ruleset, Tile, first_player, layout_tiles
from .views import FieldCard, Knowledge, PlayerView

__all__ = [
    "STANDARD",
    "Action",
    "ActionKind",
    "ActionOrder",
    "Card",
    "Catalogue",
    "CatalogueError",
    "ChoiceDecision",
    "ChoiceKind",
    "Deal",
    "DealDecision",
    "DealPurpose",
    "Decision",
    "DecisionKind",
    "EngineError",
    "FieldCard",
    "Finished",
    "Game",
    "GameInfo",
    "GameOverError",
    "GameResult",
    "Geometry",
    "HashRng",
    "HashStream",
    "HiddenDeck",
    "IllegalActionError",
    "Input",
    "Knowledge",
    "MalformedActionError",
    "Outcome",
    "Pending",
    "PlayerView",
    "PositionBuilder",
    "PositionError",
    "Referee",
    "Reveal",
    "RevealDecision",
    "RulesOption",
    "Ruleset",
    "RulesetError",
    "Setup",
    "State",
    "Tile",
    "TurnDecision",
    "UnknownGameError",
    "default_catalogue",
    "dump_position",
    "encode_state",
    "first_player",
    "format_input",
    "games",
    "get_game",
    "layout_tiles",
    "legal_actions",
    "load_catalogue",
    "load_position",
    "new_game",
    "parse_action",
    "parse_input",
    "random_chooser",
    "random_deal",
    "register_game",
    "state_hash",
    "step",
    "unregister_game",
]

#: generic-interface names -> their module, imported on first access
_LAZY = {
    **dict.fromkeys(("DecisionKind", "Finished", "Game", "HiddenDeck", "Pending", "RulesOption",
                     "Setup"), "api"),
    **dict.fromkeys(("PositionBuilder", "dump_position"), "positions"),
    **dict.fromkeys(("GameInfo", "games", "get_game", "load_position", "register_game",
                     "unregister_game"), "registry"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
