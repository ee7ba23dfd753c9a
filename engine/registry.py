# The registry of games: a stable game id (the one HELLO carries and a transcript records) ->
# the one object implementing engine/api.py's `Game` for it. The games shipped with the
# platform (BUILTIN_GAMES) are registered by id when this module loads and imported on first
# use, so verifying a Versus transcript loads no other game's modules (start-up); another game
# registers itself with `register_game` (a test plugin registers its toy game only while the
# test runs). Model: OpenSpiel's `pyspiel.register_game`.
#
# Game plugins. When this module loads it imports every module named in the environment
# variable VERSUS_GAMES (comma-separated module names, e.g. `VERSUS_GAMES=mygames.poker`); each
# registers its games with `register_game` when imported. A plugin that fails to import or to
# register never breaks the import of the registry: the failure is kept as one line
# (`plugin_error()`, "game plugin 'x': <reason>"), the `versus` command reports it and exits 2,
# and asking for a game id the registry does not know names it too.
#
# The registry holds module state, but only a table filled at import time by code, never by
# input: it is as deterministic as the engine. A registered object is checked by shape (every
# member of `Game`), so a game missing a method fails when it registers, not mid-match.
from __future__ import annotations

import importlib
import json
import os
from dataclasses import dataclass
from typing import Any

from .api import GAME_ID_RE, Game, RulesOption, protocol_members
from .errors import PositionError, UnknownGameError

DEFAULT_GAME = "versus42"
#: the one-player game `versus solo` and `versus challenge` play when no --game is given
DEFAULT_SOLO_GAME = "multiverse"
#: the games shipped with the platform: id -> "module:attribute" of the object implementing
#: it, imported the first time the id is asked for
BUILTIN_GAMES = {
    "grid": "versus.engine.grid:GRID",
    "multiverse": "versus.engine.multiverse:MULTIVERSE",
    "vanquishers": "versus.engine.vanquishers:VANQUISHERS",
    "versus42": "versus.engine.versus42:VERSUS42",
}
#: the environment variable naming the game plugins (module names, comma-separated)
PLUGINS_VARIABLE = "VERSUS_GAMES"

_GAMES: dict[str, Game] = {}
_NOT_IMPORTED: set[str] = set(BUILTIN_GAMES)  # built-in ids whose module is not loaded yet
_PLUGINS_LOADED: set[str] = set()
_PLUGIN_ERROR: list[str] = []  # the first plugin failure of the load at import, if any


class GamePluginError(Exception):
    """A game plugin failed to import or to register its games: one line,
    `game plugin 'x': <reason>`."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """One line of `versus games`: a registered game's id, title and rules options."""

    id: str
    title: str
    players: int
    options: tuple[RulesOption, ...]


def register_game(game: Any) -> Game:
    """Register `game` under its `id`; an id already taken or a missing member fails."""
    missing = [name for name in protocol_members() if not hasattr(game, name)]
    if missing:
        raise TypeError(f"{game!r} does not implement the Game interface: it lacks "
                        f"{', '.join(missing)}")
    gid = game.id
    if not isinstance(gid, str) or not GAME_ID_RE.fullmatch(gid):
        raise ValueError(f"game id {gid!r:.40} must match {GAME_ID_RE.pattern}")
    if gid in _GAMES or gid in _NOT_IMPORTED:
        taken = _GAMES[gid] if gid in _GAMES else BUILTIN_GAMES[gid]
        raise ValueError(f"game id {gid!r} is already registered ({taken!r})")
    if not all(isinstance(o, RulesOption) for o in game.rules_options):
        raise TypeError(f"game {gid!r}: rules_options must be RulesOption values")
    _GAMES[gid] = game
    return game  # type: ignore[no-any-return]


def unregister_game(game_id: str) -> None:
    """Remove a game (a test plugin's, when its test ends); the default game stays."""
    if game_id == DEFAULT_GAME:
        raise ValueError(f"the default game {DEFAULT_GAME!r} cannot be unregistered")
    get_game(game_id)
    del _GAMES[game_id]


def get_game(game_id: str) -> Game:
    """The game registered under `game_id`; UnknownGameError names it and the known ids."""
    if isinstance(game_id, str) and game_id in _NOT_IMPORTED:
        _import_builtin(game_id)
    game = _GAMES.get(game_id) if isinstance(game_id, str) else None
    if game is None:
        failed = f" ({_PLUGIN_ERROR[0]})" if _PLUGIN_ERROR else ""
        raise UnknownGameError(f"unknown game id {game_id!r:.40}; known games: "
                               f"{', '.join(sorted({*_GAMES, *_NOT_IMPORTED}))}{failed}")
    return game


def _import_builtin(game_id: str) -> None:
    module, _, attribute = BUILTIN_GAMES[game_id].partition(":")
    game = getattr(importlib.import_module(module), attribute)
    _NOT_IMPORTED.discard(game_id)
    register_game(game)


def games() -> tuple[GameInfo, ...]:
    """Every registered game, by id, with its rules options."""
    for game_id in sorted(_NOT_IMPORTED):
        _import_builtin(game_id)
    return tuple(GameInfo(g.id, g.title, g.players, tuple(g.rules_options))
                 for _, g in sorted(_GAMES.items()))


def load_position(text: str | bytes, catalogue: Any = None) -> Any:
    """The state of a position text of any registered game: its "game" field picks the game
    (SPEC Part 3, "Positions"); that game's load_position checks the rest."""
    from .api import MAX_POSITION_TEXT as MAX_POSITION_BYTES
    from .api import POSITION_FORMAT

    if isinstance(text, str):
        text = text.encode("utf-8", "surrogatepass")
    if not isinstance(text, bytes | bytearray) or len(text) > MAX_POSITION_BYTES:
        raise PositionError(f"a position is text of at most {MAX_POSITION_BYTES} bytes")
    try:
        obj = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise PositionError(f"position is not JSON: {e}") from None
    if not isinstance(obj, dict) or obj.get("format") != POSITION_FORMAT:
        raise PositionError(f"position lacks format {POSITION_FORMAT!r}")
    return get_game(obj.get("game")).load_position(text, catalogue)


def plugin_names(text: str | None = None) -> tuple[str, ...]:
    """The module names of a VERSUS_GAMES value (default: the environment's), in order."""
    if text is None:
        text = os.environ.get(PLUGINS_VARIABLE, "")
    return tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))


def load_plugins(text: str | None = None) -> tuple[str, ...]:
    """Import the game plugins named in `text` (default: $VERSUS_GAMES) that are not loaded
    yet; each registers its games on import. GamePluginError names the first that fails (to
    import, or to register: `register_game` raised while it was imported). The names loaded."""
    loaded = []
    for name in plugin_names(text):
        if name in _PLUGINS_LOADED:
            continue
        try:
            importlib.import_module(name)
        except Exception as error:  # a plugin's import error or its register_game refused
            reason = " ".join(str(error).split()) or "(no message)"
            raise GamePluginError(f"game plugin {name!r}: {type(error).__name__}: "
                                  f"{reason}"[:300]) from None
        _PLUGINS_LOADED.add(name)
        loaded.append(name)
    return tuple(loaded)


def plugin_error() -> str | None:
    """The one-line failure of the plugins loaded with this module, or None."""
    return _PLUGIN_ERROR[0] if _PLUGIN_ERROR else None


try:
    load_plugins()
except GamePluginError as _error:
    _PLUGIN_ERROR.append(str(_error))
