# The `py:MODULE:CALLABLE` bot kind: a policy written for the research environments (versus.rl)
# plays real matches. The callable takes the seat's observation and action mask, as plain lists
# (the game's encoding, engine/encoding.py: `observation` floats, `mask` 0/1 per action index),
# and returns an action index whose mask entry is 1. numpy is not needed: a policy that wants
# arrays makes them.
#
# MODULE is a module name (imported from sys.path) or a path to a .py file. The bot reads what
# the policy needs from the seat's view alone (the game's `view_parts` member, engine/encoding.py),
# like every bot: the same view and legal inputs a person gets. A policy that raises, or answers
# anything but a legal index, forfeits with one line naming it (BotForfeit).
from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable, Sequence
from typing import Any

from versus.engine import encoding
from versus.engine.registry import get_game

from .base import BotForfeit, UnknownBotError

PREFIX = "py:"
Policy = Callable[[list[float], list[int]], int]


def policy_problem(game: Any) -> str | None:
    """Why a py: policy cannot play `game`, or None."""
    if not encoding.has_encoding(game) or not callable(getattr(game, "view_parts", None)):
        return (f"a py: policy plays a game with an observation/action encoding; "
                f"{game.id} has none")
    return None


def load_policy(spec: str) -> Policy:
    """The callable `py:MODULE:CALLABLE` names; UnknownBotError (one line) when it cannot be
    imported or is not callable."""
    where = spec[len(PREFIX):]
    module_name, colon, attribute = where.rpartition(":")
    if not colon or not module_name or not attribute:
        raise UnknownBotError(f"bot {spec!r}: write py:MODULE:CALLABLE (a module name or a "
                              ".py file, then the policy's name)")
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            loader = importlib.util.spec_from_file_location(
                f"versus_policy_{abs(hash(module_name))}", module_name)
            if loader is None or loader.loader is None:
                raise ImportError(f"no Python file {module_name!r}")
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except (ImportError, OSError, SyntaxError) as error:
        raise UnknownBotError(f"bot {spec!r}: cannot import {module_name!r} "
                              f"({type(error).__name__}: {error})"[:300]) from None
    policy = getattr(module, attribute, None)
    if not callable(policy):
        raise UnknownBotError(f"bot {spec!r}: {module_name!r} has no callable {attribute!r}")
    return policy  # type: ignore[no-any-return]


class PolicyBot:
    """A synchronous bot playing a policy over the game's encoding (see the module note)."""

    cheap = False  # a policy may think: run it in a worker thread in a match

    def __init__(self, spec: str, game_id: str, name: str | None = None) -> None:
        self.spec, self.game = spec, get_game(game_id)
        problem = policy_problem(self.game)
        if problem is not None:
            raise UnknownBotError(problem)
        self.policy = load_policy(spec)
        self.name = name or spec

    def choose(self, view: Any, legal: Sequence[Any]) -> Any:
        game = self.game
        state, seat, knowledge = game.view_parts(view)  # type: ignore[attr-defined]
        observation = encoding.observe(game, view.rules, state, seat, knowledge)
        indices = encoding.legal_indices(game, state)
        mask = [0] * encoding.action_count(game, view.rules)
        for i in indices:
            mask[i] = 1
        try:
            answer = self.policy(observation, mask)
        except Exception as error:  # the policy is the user's code: any failure forfeits
            raise BotForfeit(f"bot {self.name}: the policy raised {type(error).__name__}: "
                             f"{error}"[:300]) from None
        if type(answer) is not int:
            try:
                answer = int(answer)  # a numpy integer
            except (TypeError, ValueError):
                raise BotForfeit(f"bot {self.name}: the policy answered {answer!r:.40}, not "
                                 "an action index") from None
        if answer not in indices:
            raise BotForfeit(f"bot {self.name}: the policy answered action {answer}, which is "
                             f"not legal here ({len(indices)} legal actions)")
        inp = encoding.input_of(game, state, answer)
        return next(x for x in legal if x == inp)

