# One game at the table for an environment: the game-agnostic driver under the PettingZoo,
# Gymnasium and OpenSpiel wrappers and the `py:` bot kind. It plays a local full-information
# game (engine/referee_loop.py `LocalPlay`): deals, reveals and chance are answered inside from
# the seed (the game's `local_deal` and a SHA-256 stream), and a player's decision waits for an
# action index of the game's encoding (engine/encoding.py).
#
# Why lists here and arrays in the wrappers: the table is shared with the `py:` bot, which
# runs without numpy; the wrappers turn a list into an array once, where they need one.
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from versus.engine import encoding
from versus.engine.api import Finished, Game, Pending, Setup
from versus.engine.referee_loop import HashBelow, LocalPlay, local_deal
from versus.engine.registry import get_game

#: the most inputs one game may take before the table calls it truncated
MAX_INPUTS = 100_000


class TableError(ValueError):
    """A game without an encoding, bad rules, or an action index that is not legal now."""


def rules_of(game: Game, rules: Mapping[str, Any] | None) -> Any:
    """The game's rules from plain option values (None: the defaults); TableError naming the
    bad option."""
    from versus.engine.errors import RulesetError

    try:
        return game.rules_from_options(dict(rules or {}))
    except RulesetError as error:
        raise TableError(f"game {game.id!r}: {error}") from None


def seed_bytes(seed: int | bytes) -> bytes:
    """The bytes a table's deal and chance derive from (an int seed: its decimal digits)."""
    if isinstance(seed, bytes):
        return seed
    return b"versus-rl/%d" % int(seed)


def start_play(game: Game, rules: Any, seed: int | bytes) -> LocalPlay:
    """The local game a table of `seed` plays (its deal, setup seed and chance stream), at its
    first decision: bench/rl.py plays the same games with no environment around them."""
    catalogue = game.default_catalogue()
    raw = seed_bytes(seed)
    identity, orders = local_deal(game, rules, catalogue, raw)
    setup_seed = hashlib.sha256(b"versus-rl/setup|" + raw).digest()
    return LocalPlay.start(game, Setup(rules, catalogue, setup_seed), identity, orders,
                           HashBelow(raw + b"/chance", 8).below)


@dataclass
class Table:
    """One game of `game` under `rules`, played from `seed` (see the module note)."""

    game: Game
    rules: Any
    play: LocalPlay
    decision: Pending | Finished
    #: the legal action indices of the current state and their inputs, in the game's order
    _legal: tuple[list[int], list[Any]] | None = None

    @classmethod
    def open(cls, game: Game | str, rules: Any, seed: int | bytes) -> Table:
        game = get_game(game) if isinstance(game, str) else game
        if not encoding.has_encoding(game):
            raise TableError(f"game {game.id!r} has no observation/action encoding")
        play = start_play(game, rules, seed)
        return cls(game, rules, play, play.to_player())

    # --- what a seat sees -----------------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.play.state

    @property
    def finished(self) -> bool:
        return isinstance(self.decision, Finished)

    @property
    def to_move(self) -> int | None:
        """The seat whose decision it is (None once the game is over)."""
        return None if isinstance(self.decision, Finished) else self.decision.player

    def observation_size(self) -> int:
        return encoding.observation_size(self.game, self.rules)

    def action_count(self) -> int:
        return encoding.action_count(self.game, self.rules)

    def observe(self, seat: int) -> list[float]:
        """`seat`'s observation vector (the game's encoding)."""
        return encoding.observe(self.game, self.rules, self.play.state, seat,
                                self.play.knowledge[seat])

    def observe_entries(self, seat: int) -> dict[int, float]:
        """`seat`'s observation as its nonzero entries (index -> value)."""
        return encoding.observe_entries(self.game, self.play.state, seat,
                                        self.play.knowledge[seat])

    def observe_changes(self, seat: int, memo: Any) -> tuple[dict[int, float], Any]:
        """`seat`'s observation as the entries that changed since the one `memo` describes,
        and this one's memo (engine/encoding.py `observe_changes`)."""
        return encoding.observe_changes(self.game, self.play.state, seat,
                                        self.play.knowledge[seat], memo)

    def legal(self, seat: int) -> list[int]:
        """The legal action indices of `seat` ([] when it is not to move)."""
        if self.to_move != seat:
            return []
        return list(self._legal_inputs()[0])

    def _legal_inputs(self) -> tuple[list[int], list[Any]]:
        """The legal indices and their inputs, computed once per state (the game's order)."""
        if self._legal is None:
            state = self.play.state
            legal = self.game.legal_actions(state)
            self._legal = (encoding.legal_indices(self.game, state, legal), legal)
        return self._legal

    def returns(self) -> list[float]:
        """Each seat's result: +1 a win, -1 a loss, 0 a draw or an unfinished game (a solo
        game's run without a winner is lost)."""
        d = self.decision
        players = self.game.players
        if not isinstance(d, Finished):
            return [0.0] * players
        if players == 1:  # a solo game has no draw: a run without a winner is lost
            return [1.0 if d.winner == 0 else -1.0]
        if d.winner is None:
            return [0.0] * players
        return [1.0 if p == d.winner else -1.0 for p in range(players)]

    def scene_lines(self, seat: int | None) -> list[str]:
        """The scene `seat` sees (None: the public one), as the line UI draws it."""
        from versus.engine.api import scene_of
        from versus.engine.scene import scene_lines

        knowledge = None if seat is None else self.play.knowledge[seat]
        return scene_lines(scene_of(self.game, self.play.state, seat, knowledge))

    # --- acting -----------------------------------------------------------------------------
    def act(self, index: int) -> Any:
        """Apply the mover's action `index`, then the automatic decisions up to the next
        player decision; the input applied. TableError when `index` is not legal now."""
        if self.to_move is None:
            raise TableError(f"game {self.game.id!r} is over: no action {index!r} applies")
        indices, legal = self._legal_inputs()
        try:  # (a list's index, in C: a dict of the indices cost more to build than it saves)
            inp = legal[indices.index(index)]
        except ValueError:
            raise TableError(f"{self.game.id}: action {index!r} is not a legal input here") \
                from None
        self.play.apply(inp)
        self._legal = None
        self.decision = self.play.to_player()
        return inp

    @property
    def truncated(self) -> bool:
        return not self.finished and self.play.inputs >= MAX_INPUTS
