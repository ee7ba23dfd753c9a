# Versus (SPEC Parts 1-3) behind the generic Game interface (engine/api.py), registered as
# "versus42". A thin adapter: the rules, views, notation, narration, positions and hashes stay
# in the engine modules beside this package (engine/game.py and the rest), which it delegates
# to, so Versus plays and hashes exactly as before; what it adds is the translation of Versus
# decisions and results into the generic `Pending` / `Finished` values. The engine modules
# move in here once no import outside engine/ names them directly (issue 16).
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..actions import Deal, Input, Reveal, format_input, parse_input
from ..api import DecisionKind, Finished, HiddenDeck, Pending, RulesOption, Setup
from ..catalogue import Catalogue, default_catalogue, find_catalogue, load_catalogue
from ..decisions import ChoiceDecision, DealDecision, RevealDecision, TurnDecision
from ..errors import RulesetError
from ..game import State, encode_state, legal_actions, new_game, state_hash, step
from ..ruleset import RULES_OPTIONS, Ruleset

if TYPE_CHECKING:  # the views load with the first view (a UI, a bot), not for `versus verify`
    from ..views import Knowledge, PlayerView


class Versus42:
    """The Versus game of the versus42 guide (EN and FR variants as rules options)."""

    id = "versus42"  # positions.GAME_ID (that module loads on first use: start-up)
    title = "Versus (versus42 guide, EN/FR rules)"
    players = 2
    rules_options: tuple[RulesOption, ...] = RULES_OPTIONS
    chance = False  # Versus has no public randomness after setup (the layout uses the seed)
    #: its bots by name: "module:factory" (engine/shell.py); they still live in cli/bots/
    bots: ClassVar[Mapping[str, str]] = {
        "greedy": "versus.cli.bots.simple:versus_greedy",
        "ismcts": "versus.cli.bots.ismcts:paired_bot",
        "ismcts-tree": "versus.cli.bots.ismcts:tree_bot"}

    def check_positions(self) -> dict[str, tuple[Any, int, Any]]:
        """The two choice kinds, built (`versus bot-check`; random games rarely reach them)."""
        from .check_positions import check_positions

        return check_positions()

    # --- rules -----------------------------------------------------------------------------
    def default_rules(self) -> Ruleset:
        return Ruleset()

    def rules_from_options(self, options: Mapping[str, Any]) -> Ruleset:
        if not isinstance(options, Mapping):
            raise RulesetError(f"ruleset options must be a mapping, not {type(options).__name__}")
        return Ruleset.from_options(**options)

    def rules_to_options(self, rules: Ruleset) -> dict[str, Any]:
        return rules.to_options()

    def encode_rules(self, rules: Ruleset) -> bytes:
        return rules.encode()

    def decode_rules(self, data: bytes) -> Ruleset:
        return Ruleset.decode(data)

    def rules_digest(self, rules: Ruleset) -> bytes:
        return rules.digest()

    def describe_rules(self, rules: Ruleset) -> str:
        text = (f"deck {rules.deck_size}, hand {rules.hand_size}, {rules.action_order.value} "
                f"actions, {rules.cols}x{rules.rows} field, {rules.max_turns} turns max")
        if rules.start:
            from .start import describe_start

            text += f", {describe_start(rules)}"
        return text

    def rules_for_position(self, text: str | bytes) -> Ruleset:
        """The rules of a match that starts from this position (its own rules, the position
        as their `start`, SPEC Part 3 "Start positions"); PositionError says why it cannot."""
        from .start import canonical_start

        start = canonical_start(text)
        options = json.loads(start)["rules"]
        return Ruleset.from_options(**{**options, "start": start})

    def start_view(self, rules: Ruleset, seat: int) -> Any:
        """The start of `rules` as `seat` sees it before accepting (SPEC 3.C)."""
        from .describe import start_view

        return start_view(rules, seat)

    # --- card data -------------------------------------------------------------------------
    def default_catalogue(self) -> Catalogue:
        return default_catalogue()

    def load_catalogue(self, data: str | bytes) -> Catalogue:
        return load_catalogue(data)

    def catalogue_digest(self, catalogue: Catalogue) -> bytes:
        return catalogue.digest

    def catalogue_for_digest(self, digest: bytes) -> Catalogue | None:
        """The shipped catalogue version a HELLO's digest names (SPEC Part 2, "Versions"):
        how a verifier replays a match made with an older card pool."""
        return find_catalogue(digest)

    def card_ids(self, catalogue: Catalogue) -> tuple[str, ...]:
        return tuple(card.id for card in catalogue.cards)

    # --- hidden decks ----------------------------------------------------------------------
    def decks(self, rules: Ruleset) -> tuple[HiddenDeck, ...]:
        """One deck per player, player p's cards holding handles p*n .. p*n + n - 1."""
        n = rules.deck_size
        if rules.start:  # each seat's hidden cards of the position, numbered first
            from .start import start_plan

            hidden = start_plan(rules.start).hidden
            return (HiddenDeck(0, hidden[0], 0), HiddenDeck(1, hidden[1], n))
        return (HiddenDeck(0, n, 0), HiddenDeck(1, n, n))

    def deal_input(self, handle: int) -> Deal:
        return Deal(handle)

    def reveal_input(self, handle: int, card_id: str) -> Reveal:
        return Reveal(handle, card_id)

    # --- play ------------------------------------------------------------------------------
    def new_game(self, setup: Setup) -> State:
        return new_game(setup.rules, setup.catalogue, setup.seed)

    def decision(self, state: State) -> Pending | Finished:
        d = state.decision
        if isinstance(d, TurnDecision):
            return Pending(DecisionKind.TURN, d.player)
        if isinstance(d, ChoiceDecision):
            return Pending(DecisionKind.CHOICE, d.player, d.kind.value, d.options)
        if isinstance(d, DealDecision):
            return Pending(DecisionKind.DEAL, d.player, d.purpose.value, deck=d.player)
        if isinstance(d, RevealDecision):
            return Pending(DecisionKind.REVEAL, d.player, handle=d.handle)
        return Finished(d.outcome.value, d.winner)

    def legal_actions(self, state: State) -> Sequence[Input]:
        return legal_actions(state)

    def step(self, state: State, inp: Input) -> State:
        return step(state, inp)

    def new_knowledge(self, player: int) -> Knowledge:
        from ..views import Knowledge

        return Knowledge(player)

    def view(self, state: State, player: int, knowledge: Knowledge) -> PlayerView:
        from ..views import PlayerView

        return PlayerView(state, knowledge, player)

    def encode_state(self, state: State) -> bytes:
        return encode_state(state)

    def state_hash(self, state: State) -> bytes:
        return state_hash(state)

    # --- notation and narration ------------------------------------------------------------
    def parse_input(self, text: str) -> Input:
        return parse_input(text)

    def format_input(self, inp: Input) -> str:
        return format_input(inp)

    def narrate(self, before: State, inp: Input, after: State, viewer: int,
                knowledge: Knowledge) -> list[str]:
        from ..narrate import narrate  # the UI's module: `import versus.engine` stays lean

        return narrate(before, inp, after, viewer, knowledge)

    def narrate_start(self, state: State, viewer: int) -> list[str]:
        if state.rules.start:  # a match from a start position (SPEC Part 3 "Start positions")
            who = "you are" if state.active == viewer else "the opponent is"
            return [f"the match starts from a position at turn {state.turn}: {who} to play"]
        return ["you play first" if state.first == viewer else "the opponent plays first"]

    # --- positions -------------------------------------------------------------------------
    def dump_position(self, state: State) -> str:
        from ..positions import dump_position

        return dump_position(state)

    def load_position(self, text: str | bytes, catalogue: Catalogue | None = None) -> State:
        from ..positions import load_position

        return load_position(text, catalogue)


#: the one instance the registry holds
VERSUS42 = Versus42()
