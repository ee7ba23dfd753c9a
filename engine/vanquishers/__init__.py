# Vanquishers TCG (seed document 004; SPEC Part 10) on the generic Game interface
# (engine/api.py), registry id "vanquishers".
#
# How: this class only wires the interface to the modules beside it: cards.py (catalogue,
# rules text, deck validator), rules.py (the rules value and options), engine.py (state, step,
# decisions, encoding, hash), text.py (knowledge, views, positions), narration.py (what each
# input did, and why), scene.py (the scene a shell draws, the short rules). It imports
# nothing of Versus (engine/versus42/game.py and the rest) or of another game: only engine/api.py,
# engine/options.py and engine/errors.py.
#
# Hidden information: one hidden deck per player, `HiddenDeck(p, n, p*n)` (decklist mode: each
# player brings a constructed deck of the agreed size); a card's identity enters the public
# state only through a REVEAL; every die is a CHANCE decision of 6 outcomes. From a start
# position (start.py, SPEC Part 10 "Start positions"): `HiddenDeck(p, hidden_p, p*n)`, each
# player's hidden cards of the position.
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..api import Finished, HiddenDeck, Pending, RulesOption, Setup, only_version
from ..errors import RulesetError
from . import engine as _engine
from . import text as _text
from .begin import new_state
from .cards import (
    Catalogue,
    DeckError,
    default_catalogue,
    load_catalogue,
    more_copies,
    starter_deck,
    validate_deck,
)
from .engine import Move, State, Verb
from .rules import RULES_OPTIONS, Rules

__all__ = ["VANQUISHERS", "DeckError", "Move", "Rules", "State", "Vanquishers", "Verb",
           "starter_deck", "validate_deck"]


#: reveal inputs already built (an input is an immutable value): Move's checks (a regular
#: expression on the card id) cost more than the rest of a reveal's trip through the referee
_REVEALS: dict[tuple[int, str], Move] = {}
_REVEALS_KEPT = 8192


class Vanquishers:
    """The Vanquishers TCG: Standard Mode, Advanced Mode as the `mode` rules option."""

    id = "vanquishers"
    title = "Vanquishers TCG (seed 004: heroes, item weapons, dice targeting)"
    players = 2
    rules_options: tuple[RulesOption, ...] = RULES_OPTIONS
    chance = True

    # --- rules -----------------------------------------------------------------------------
    def default_rules(self) -> Rules:
        return Rules()

    def rules_from_options(self, options: Mapping[str, Any]) -> Rules:
        return _checked(Rules.from_options(options))

    def rules_to_options(self, rules: Rules) -> dict[str, Any]:
        return rules.to_options()

    def encode_rules(self, rules: Rules) -> bytes:
        if not isinstance(rules, Rules):
            raise RulesetError(f"not vanquishers rules: {rules!r:.60}")
        return rules.encode()

    def decode_rules(self, data: bytes) -> Rules:
        return _checked(Rules.decode(data))

    def rules_digest(self, rules: Rules) -> bytes:
        return rules.digest()

    def describe_rules(self, rules: Rules) -> str:
        text = rules.describe()
        if rules.start:
            from .start import describe_start

            text += f", {describe_start(rules)}"
        return text

    def rules_for_position(self, text: str | bytes) -> Rules:
        """The rules of a match that starts from this position (its own rules, the position
        as their `start`, SPEC Part 10 "Start positions"); PositionError says why it cannot."""
        from .start import canonical_start

        start = canonical_start(text)
        return _checked(Rules.from_options({**json.loads(start)["rules"], "start": start}))

    def start_view(self, rules: Rules, seat: int) -> Any:
        """The start of `rules` as `seat` sees it before accepting (SPEC §3.3)."""
        from .describe import start_view

        return start_view(self, rules, seat)

    # --- card data -------------------------------------------------------------------------
    def default_catalogue(self) -> Catalogue:
        return default_catalogue()

    def load_catalogue(self, data: str | bytes) -> Catalogue:
        return load_catalogue(data)

    def catalogue_digest(self, catalogue: Catalogue) -> bytes:
        return catalogue.digest

    def catalogue_for_digest(self, digest: bytes) -> Catalogue | None:
        return only_version(self, digest)

    def card_ids(self, catalogue: Catalogue) -> tuple[str, ...]:
        return catalogue.deck_ids  # heroes are not deck cards (§10.2.2.1)

    def default_deck(self, rules: Rules, catalogue: Catalogue, player: int) -> list[str]:
        """The deck of a player who brings none: its hero's starter deck in the match's mode
        (§10.2.3). A random pick of the whole catalogue held other heroes' cards and, in
        Standard Mode, Advanced ones: a hand of cards that only fizzle. Empty when the
        catalogue cannot fill one (the protocol then draws a random deck)."""
        try:
            deck = starter_deck(catalogue, rules.heroes[player], rules.deck_size,
                                advanced=rules.advanced)
        except DeckError:
            return []
        # within the copies a random deck may hold too (starter decks fill with ammunition)
        allowed = Counter(catalogue.deck_ids) + Counter(more_copies(catalogue))
        return [] if any(n > allowed[c] for c, n in Counter(deck).items()) else list(deck)

    def more_copies(self, catalogue: Catalogue) -> tuple[str, ...]:
        """The further copies a deck may hold beyond one of each card (§10.2.3.2): where a
        random deck of more cards than `card_ids` holds takes the rest (SPEC §3.1)."""
        return more_copies(catalogue)

    # --- hidden decks ----------------------------------------------------------------------
    def decks(self, rules: Rules) -> tuple[HiddenDeck, ...]:
        n = rules.deck_size
        if rules.start:  # each player's hidden cards of the position, numbered first
            from .start import start_plan

            hidden = start_plan(rules.start).hidden
            return (HiddenDeck(0, hidden[0], 0), HiddenDeck(1, hidden[1], n))
        return (HiddenDeck(0, n, 0), HiddenDeck(1, n, n))

    def local_deal(self, rules: Rules, catalogue: Catalogue, seed: bytes
                   ) -> tuple[dict[int, str], list[list[int]]]:
        """A deal for local play (engine/referee_loop.py): each player's starter deck of its
        hero, each deck's order shuffled by a stream of `seed`."""
        from ..referee_loop import HashBelow

        n = rules.deck_size
        stream = HashBelow(seed + b"/deal", 8)
        identity: dict[int, str] = {}
        orders = []
        for p in (0, 1):
            deck = starter_deck(catalogue, rules.heroes[p], n, advanced=rules.advanced)
            identity.update({p * n + i: c for i, c in enumerate(deck)})
            orders.append(stream.shuffle(range(p * n, p * n + n)))
        return identity, orders

    def deal_input(self, handle: int) -> Move:
        if type(handle) is int and 0 <= handle < 10000:  # Move's own check, then the shared one
            return _engine._move(Verb.DEAL, handle)
        return Move(Verb.DEAL, handle)  # raises MalformedActionError naming the handle

    def reveal_input(self, handle: int, card_id: str) -> Move:
        key = (handle, card_id) if type(handle) is int and type(card_id) is str else None
        m = _REVEALS.get(key) if key is not None else None
        if m is None:
            m = Move(Verb.REVEAL, handle, card=card_id)  # the checks, once per key
            if key is not None:
                if len(_REVEALS) >= _REVEALS_KEPT:  # ids from a peer: the memory stays bounded
                    _REVEALS.clear()
                _REVEALS[key] = m
        return m

    # --- play ------------------------------------------------------------------------------
    def new_game(self, setup: Setup) -> State:
        return new_state(setup.rules, setup.catalogue)

    # the engine's functions themselves, not methods calling them: the referee loop and the
    # protocol call these at every input, and a call is a twentieth of a step
    decision: Callable[[State], Pending | Finished] = staticmethod(_engine.decision)
    legal_actions: Callable[[State], Sequence[Move]] = staticmethod(_engine.legal_actions)
    step: Callable[[State, Move], State] = staticmethod(_engine.step)

    def new_knowledge(self, player: int) -> _text.Knowledge:
        return _text.Knowledge(player)

    def view(self, state: State, player: int, knowledge: _text.Knowledge) -> _text.View:
        return _text.View(state, player, knowledge)

    def encode_state(self, state: State) -> bytes:
        return _engine.encode_state(state)

    def state_hash(self, state: State) -> bytes:
        return _engine.state_hash(state)

    # --- notation and narration ------------------------------------------------------------
    def parse_input(self, text: str) -> Move:
        return _engine.parse_input(text)

    def format_input(self, inp: Move) -> str:
        return _engine.format_input(inp)

    def narrate(self, before: State, inp: Move, after: State, viewer: int | None,
                knowledge: _text.Knowledge | None) -> list[str]:
        """What `viewer` (None: the public, third person) learns from one step."""
        return _text.narrate(before, inp, after, viewer, knowledge)

    def narrate_start(self, state: State, viewer: int | None) -> list[str]:
        return _text.narrate_start(state, viewer)

    # --- what the game adds to the shell (engine/shell.py) --------------------------------
    #: its bots by name: "module:factory" (engine/shell.py `BotRequest`)
    bots: ClassVar[Mapping[str, str]] = {
        "greedy": "versus.engine.vanquishers.bots:greedy_bot",
        "ismcts": "versus.engine.vanquishers.bot_search:ismcts_bot",
    }

    def scene(self, state: State, seat: int | None, knowledge: _text.Knowledge | None) -> Any:
        """What `seat` (None: the public) sees now, as plain data (scene.py)."""
        from .scene import scene

        return scene(state, seat, knowledge)

    def rules_text(self, rules: Rules) -> str:
        """The short rules and input notation for a player at the table (scene.py)."""
        from .scene import rules_text

        return rules_text(rules)

    def describe_view(self, view: _text.View) -> str:
        """The view as text for the line terminal (render.py)."""
        from .render import render_view

        return render_view(view)

    # --- as a research environment (encode.py, engine/encoding.py) ------------------------
    def observation_size(self, rules: Rules) -> int:
        from .encode import observation_size

        return observation_size(rules)

    def observe(self, state: State, seat: int, knowledge: _text.Knowledge) -> dict[int, float]:
        from .encode import observe

        return observe(state, seat, knowledge)

    def observe_changes(self, state: State, seat: int, knowledge: _text.Knowledge, memo: Any
                        ) -> tuple[dict[int, float], Any]:
        from .encode import observe_changes

        return observe_changes(state, seat, knowledge, memo)

    def legal_indices(self, state: State, legal: Sequence[Move]) -> list[int]:
        from .encode import legal_indices

        return legal_indices(state, legal)

    def action_count(self, rules: Rules) -> int:
        from .encode import action_count

        return action_count(rules)

    def action_index(self, state: State, inp: Move) -> int:
        from .encode import action_index

        return action_index(state, inp)

    def input_of(self, state: State, index: int) -> Move:
        from .encode import input_of

        return input_of(state, index)

    def view_parts(self, view: _text.View) -> tuple[State, int, _text.Knowledge]:
        """(public state, seat, knowledge) of a view, for a `py:` policy's encoding."""
        return view.state, view.player, view.knowledge

    # --- positions -------------------------------------------------------------------------
    def dump_position(self, state: State) -> str:
        return _text.dump_position(state)

    def load_position(self, text: str | bytes, catalogue: Catalogue | None = None) -> State:
        state = _text.load_position(text, catalogue)
        _checked(state.rules)  # a position written during a match from a start carries it
        return state


def _checked(rules: Rules) -> Rules:
    """`rules`, its start (if any) checked (start.checked_rules)."""
    if not rules.start:
        return rules
    from .start import checked_rules  # the position reader loads only for a start (start-up)

    return checked_rules(rules)


#: the one instance the registry holds
VANQUISHERS = Vanquishers()
