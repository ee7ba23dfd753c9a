# Engine error classes, python-chess style: each names the offending input and, where there is
# one, the position (turn number and decision) so a log line alone explains what went wrong.
# Callers catch `EngineError` for "the input was bad"; anything else is a bug in the engine.
from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises about its inputs."""


class CatalogueError(EngineError):
    """A card catalogue file is malformed; the message names the card and the field."""


class RulesetError(EngineError):
    """A ruleset option is out of range or inconsistent; the message names the option."""


class MalformedActionError(EngineError):
    """A text action does not parse (or an Action/Deal/Reveal was built with bad fields)."""


class IllegalActionError(EngineError):
    """A well-formed input that the rules do not allow in this position."""


class GameOverError(IllegalActionError):
    """An input was fed to a finished game."""


class UnknownGameError(EngineError):
    """A game id that no registered game has; the message names it and the known ids."""


class PositionError(EngineError):
    """A position text is malformed or describes an impossible position; the message names
    the offending field (`cards[3].area`, `tasks[0]`, ...)."""
