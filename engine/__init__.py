# The Versus rules engine: pure, deterministic, no I/O. See SPEC.md Parts 1-3.
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
    RulesetError,
)
from .game import State, encode_state, legal_actions, new_game, state_hash, step
from .geometry import STANDARD, Geometry
from .hashing import HashRng, HashStream
from .referee import Referee, random_chooser, random_deal
from .ruleset import ActionOrder, Ruleset, Tile, first_player, layout_tiles
from .views import FieldCard, Knowledge, PlayerView

__all__ = [
    "STANDARD", "Action", "ActionKind", "ActionOrder", "Card", "Catalogue", "CatalogueError",
    "ChoiceDecision", "ChoiceKind", "Deal", "DealDecision", "DealPurpose", "Decision",
    "EngineError", "FieldCard", "GameOverError", "GameResult", "Geometry", "HashRng",
    "HashStream", "IllegalActionError", "Input", "Knowledge", "MalformedActionError", "Outcome",
    "PlayerView", "Referee", "Reveal", "RevealDecision", "Ruleset", "RulesetError", "State",
    "Tile", "TurnDecision", "default_catalogue", "encode_state", "first_player",
    "format_input", "layout_tiles", "legal_actions", "load_catalogue", "new_game",
    "parse_action", "parse_input", "random_chooser", "random_deal", "state_hash", "step",
]
