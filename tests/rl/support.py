# Shared by the research-environment tests: skip with the reason when an optional package of
# the `rl` / `openspiel` extras is missing, and the rules modes each environment is held to.
from __future__ import annotations

from typing import Any

import pytest

from tests.engine.test_encoding import rules_modes
from versus.engine import encoding
from versus.engine.registry import games, get_game


def need(*modules: str) -> None:
    """Skip the calling test module unless every one of `modules` imports."""
    for name in modules:
        pytest.importorskip(name, reason=f"{name} is not installed (pip install -e '.[rl]' or "
                           "'.[openspiel]')")


def encoded_games(players: int) -> tuple[str, ...]:
    return tuple(g.id for g in games()
                 if g.players == players and encoding.has_encoding(get_game(g.id)))


def game_modes(players: int) -> list[tuple[str, dict[str, Any]]]:
    """(game id, rules options) for every encoded game of `players` seats and rules mode."""
    return [(gid, mode) for gid in encoded_games(players) for mode in rules_modes(get_game(gid))]


def mode_id(value: Any) -> str:
    """A test id: the game id, or the rules options as name=value."""
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "default"
    return str(value)
