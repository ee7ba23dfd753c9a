# A game's rules option, for listings (`versus games`) and command lines. Its own small module:
# engine/versus42/ruleset.py validates Versus's rules against these at import, and the rest of the
# game interface (api.py) need not load with it (start-up of `versus verify`).
from __future__ import annotations

import re
from dataclasses import dataclass

_OPTION_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _is_int(x: object) -> bool:
    return type(x) is int


@dataclass(frozen=True, slots=True)
class RulesOption:
    """One rules option a game accepts, for listings (`versus games`) and command lines: an
    integer in minimum..maximum, or one of `choices` (a string)."""

    name: str
    default: int | str
    help: str
    minimum: int = 0
    maximum: int = 0
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _OPTION_RE.fullmatch(self.name):
            raise ValueError(f"rules option name must match {_OPTION_RE.pattern}, "
                             f"got {self.name!r}")
        if self.choices:
            if not all(isinstance(c, str) and c for c in self.choices) or \
                    self.default not in self.choices:
                raise ValueError(f"rules option {self.name}: default {self.default!r} must be "
                                 f"one of the choices {self.choices!r}")
        elif not (_is_int(self.default) and _is_int(self.minimum) and _is_int(self.maximum)
                  and self.minimum <= self.default <= self.maximum):  # type: ignore[operator]
            raise ValueError(f"rules option {self.name}: default {self.default!r} must be an "
                             f"int in {self.minimum!r}..{self.maximum!r}")

    def describe(self) -> str:
        """`name=default (range): help`, one line for a listing."""
        domain = ("|".join(self.choices) if self.choices else
                  str(self.minimum) if self.minimum == self.maximum else
                  f"{self.minimum}..{self.maximum}")
        return f"{self.name}={self.default} ({domain}): {self.help}"
