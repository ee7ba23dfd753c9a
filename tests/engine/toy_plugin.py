# A game plugin for tests (`VERSUS_GAMES=tests.engine.toy_plugin`): importing it registers the
# toy game (tests/engine/toy_game.py), as any game plugin registers its games (engine/registry.py).
from __future__ import annotations

from tests.engine.toy_game import TOY
from versus.engine.registry import register_game

register_game(TOY)
