# The engine's root: what every game uses. The generic game interface (api.py: decisions as
# `Pending` / `Finished`, setups, hidden decks), the registry of games by id (registry.py), the
# error classes (errors.py), deterministic hashing (hashing.py) and rules options (options.py).
# Each game lives whole in its own sub-package (versus42/, grid/, vanquishers/, multiverse/);
# code that needs a game's own names imports them from that package.
#
# Every name below loads on first use (PEP 562 `__getattr__`): `import versus.engine` loads
# nothing, and `versus verify` loads only the modules of the game it replays (start-up,
# bench/startup.py).
from __future__ import annotations

from importlib import import_module
from typing import Any

#: exported name -> the module (of this package) defining it
_LAZY: dict[str, str] = {
    **dict.fromkeys((
        "DecisionKind", "Finished", "Game", "HiddenDeck", "Pending", "Setup", "only_version",
    ), "api"),
    **dict.fromkeys((
        "CatalogueError", "EngineError", "GameOverError", "IllegalActionError",
        "MalformedActionError", "PositionError", "RulesetError", "UnknownGameError",
    ), "errors"),
    **dict.fromkeys(("HashRng", "HashStream"), "hashing"),
    **dict.fromkeys(("RulesOption",), "options"),
    **dict.fromkeys((
        "GameInfo", "games", "get_game", "load_position", "register_game", "unregister_game",
    ), "registry"),
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
