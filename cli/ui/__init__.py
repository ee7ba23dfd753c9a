# The full-screen terminal UI (prompt-toolkit) of a Versus match; see app.py and bridge.py.
from .app import MatchUI, run_ui, run_ui_async

__all__ = ["MatchUI", "run_ui", "run_ui_async"]
