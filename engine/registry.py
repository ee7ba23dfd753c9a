# The registry of games: a stable game id (the one HELLO carries and a transcript records) ->
# the one object implementing engine/api.py's `Game` for it. `versus42` is registered when
# this module loads; another game registers itself the same way (a test plugin registers its
# toy game only while the test runs). Model: OpenSpiel's `pyspiel.register_game`.
#
# The registry holds module state, but only a table filled at import time by code, never by
# input: it is as deterministic as the engine. A registered object is checked by shape (every
# member of `Game`), so a game missing a method fails when it registers, not mid-match.
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .api import GAME_ID_RE, Game, RulesOption, protocol_members
from .errors import PositionError, UnknownGameError
from .positions import MAX_POSITION_BYTES, POSITION_FORMAT
from .versus42 import VERSUS42

DEFAULT_GAME = "versus42"

_GAMES: dict[str, Game] = {}


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
    if gid in _GAMES:
        raise ValueError(f"game id {gid!r} is already registered ({_GAMES[gid]!r})")
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
    game = _GAMES.get(game_id) if isinstance(game_id, str) else None
    if game is None:
        raise UnknownGameError(f"unknown game id {game_id!r:.40}; known games: "
                               f"{', '.join(sorted(_GAMES))}")
    return game


def games() -> tuple[GameInfo, ...]:
    """Every registered game, by id, with its rules options."""
    return tuple(GameInfo(g.id, g.title, g.players, tuple(g.rules_options))
                 for _, g in sorted(_GAMES.items()))


def load_position(text: str | bytes, catalogue: Any = None) -> Any:
    """The state of a position text of any registered game: its "game" field picks the game
    (SPEC Part 3, "Positions"); that game's load_position checks the rest."""
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


register_game(VERSUS42)
