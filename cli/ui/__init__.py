# The full-screen terminal UI (prompt-toolkit) of a match of any game, drawing the scene the
# game describes (engine/scene.py); see app.py and bridge.py.
# The names below are imported on first use, so that importing a light submodule (theme.py,
# to choose the colours before the UI starts) does not import prompt-toolkit and trio.
from __future__ import annotations

from typing import Any

__all__ = ["MatchUI", "run_ui", "run_ui_async"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
