# The engine: the generic game interface (api.py), the registry of games (registry.py), and
# the Versus rules engine (pure, deterministic, no I/O; SPEC.md Parts 1-3), registered as
# "versus42" (its adapter: versus42/).
#
# Every name below loads on first use (PEP 562 `__getattr__`): `import versus.engine.api` (what
# the protocol needs to run any game) loads no Versus module, and `versus verify` loads only the
# modules of the game it replays (start-up, bench/startup.py).
from __future__ import annotations

from importlib import import_module
from typing import Any

#: exported name -> the module (of this package) defining it
_LAZY: dict[str, str] = {
    **dict.fromkeys((
        "Action", "ActionKind", "Deal", "Input", "Reveal", "format_input", "parse_action",
        "parse_input",
    ), "actions"),
    **dict.fromkeys((
        "DecisionKind", "Finished", "Game", "HiddenDeck", "Pending", "RulesOption", "Setup",
        "only_version",
    ), "api"),
    **dict.fromkeys(("Card", "Catalogue", "default_catalogue", "load_catalogue"), "catalogue"),
    **dict.fromkeys((
        "ChoiceDecision", "ChoiceKind", "DealDecision", "DealPurpose", "Decision", "GameResult",
        "Outcome", "RevealDecision", "TurnDecision",
    ), "decisions"),
    **dict.fromkeys((
        "CatalogueError", "EngineError", "GameOverError", "IllegalActionError",
        "MalformedActionError", "PositionError", "RulesetError", "UnknownGameError",
    ), "errors"),
    **dict.fromkeys((
        "State", "encode_state", "legal_actions", "new_game", "state_hash", "step",
    ), "game"),
    **dict.fromkeys(("Geometry", "STANDARD"), "geometry"),
    **dict.fromkeys(("HashRng", "HashStream"), "hashing"),
    **dict.fromkeys(("PositionBuilder", "dump_position"), "positions"),
    **dict.fromkeys(("Referee", "random_chooser", "random_deal"), "referee"),
    **dict.fromkeys((
        "GameInfo", "games", "get_game", "load_position", "register_game", "unregister_game",
    ), "registry"),
    **dict.fromkeys(("ActionOrder", "Ruleset", "Tile", "first_player", "layout_tiles"), "ruleset"),
    **dict.fromkeys(("FieldCard", "Knowledge", "PlayerView"), "views"),
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
