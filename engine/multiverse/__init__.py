# "Against the Multiverse" solo mode (seed 003, SPEC Part 11) on the generic Game
# interface (engine/api.py): one seat, the player; the Multiverse automaton is part of the game.
#
# Hidden cards. Two hidden decks, both owned by the player's seat: the Power deck (handles
# 0..deck-1) and the Battleground deck (after it). Their CONTENTS are public (a function of the
# rules and the card data, rules.power_decklist); their ORDER is the secret. A handle is a deal
# position (the k-th card dealt from a deck), never an index into the decklist, so no view, no
# legal input and no narration names a card before its REVEAL. A DEAL takes the next position
# of a deck (`deal H`, forced); a REVEAL follows whenever a card becomes visible (drawn into the
# hand, discarded by the Multiverse, a battleground laid, a defense card flipped) and carries
# the identity, which `step` checks against the deck's unrevealed contents (`unrevealed`).
# Whoever runs the game answers the reveals (a solo run: from the challenge's randomness,
# protocol/solo). Face-down defense cards, the player's own included, stay unrevealed until
# flipped (§11.1.5).
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..api import (
    POSITION_FORMAT,
    DecisionKind,
    Finished,
    HiddenDeck,
    Pending,
    Setup,
    only_version,
    position_object_of,
)
from ..errors import PositionError
from . import engine as E
from . import rules as R
from .bounds import check_position
from .cards import Catalogue, default, load

MAX_POSITION_BYTES = 64 * 1024  # a solo position is a few KiB


class Knowledge:
    """The player's private knowledge: in a solo game everything it learns is in the state."""

    def __init__(self, player: int) -> None:
        self.player, self.cards = player, {}

    def learn(self, handle: int, card_id: str) -> None:
        self.cards[handle] = card_id


class Multiverse:
    id = "multiverse"
    title = "Against the Multiverse (solo)"
    players = 1
    rules_options = R.OPTIONS
    chance = True

    # --- rules
    def default_rules(self) -> R.Rules:
        return R.Rules()

    def rules_from_options(self, options: Mapping[str, Any]) -> R.Rules:
        return R.from_options(options)

    def rules_to_options(self, rules: R.Rules) -> dict[str, Any]:
        return {"difficulty": rules.difficulty, "deck": rules.deck}

    def encode_rules(self, rules: R.Rules) -> bytes:
        return R.encode(rules)

    def decode_rules(self, data: bytes) -> R.Rules:
        return R.decode(data)

    def rules_digest(self, rules: R.Rules) -> bytes:
        import hashlib

        return hashlib.sha256(b"versus/v1/multiverse/rules\x00" + R.encode(rules)).digest()

    def describe_rules(self, rules: R.Rules) -> str:
        return (f"Against the Multiverse, {rules.difficulty} ({rules.rows} row"
                f"{'s' if rules.rows > 1 else ''}), {rules.deck}-card Power deck")

    # --- card data
    def default_catalogue(self) -> Catalogue:
        return default()

    def load_catalogue(self, data: str | bytes) -> Catalogue:
        return load(data)

    def catalogue_digest(self, catalogue: Catalogue) -> bytes:
        return catalogue.digest

    def catalogue_for_digest(self, digest: bytes) -> Catalogue | None:
        return only_version(self, digest)

    def card_ids(self, catalogue: Catalogue) -> tuple[str, ...]:
        return tuple(p.id for p in catalogue.powers) + tuple(b.id for b in
                                                             catalogue.battlegrounds)

    # --- hidden decks
    def decks(self, rules: R.Rules) -> tuple[HiddenDeck, ...]:
        bgs = len(default().battlegrounds)
        return (HiddenDeck(0, rules.deck, 0), HiddenDeck(0, bgs, rules.deck))

    def deal_input(self, handle: int) -> str:
        return f"deal {handle}"

    def reveal_input(self, handle: int, card_id: str) -> str:
        return f"reveal {handle} {card_id}"

    def unrevealed(self, state: E.State, deck: int) -> tuple[str, ...]:
        """The cards a REVEAL from `deck` may name: the deck's decklist (§11.1.3 order) less one
        copy of each of its cards revealed so far (the solo protocol draws a reveal's card from
        these, protocol/solo/run.py)."""
        return tuple(E.unrevealed(state.d, state.rules, state.cat, deck))

    def score(self, state: E.State) -> int:
        return E.score(state)

    # --- play
    def new_game(self, setup: Setup) -> E.State:
        return E.new_game(setup.rules, setup.catalogue)

    def decision(self, state: E.State) -> Pending | Finished:
        d = state.d
        if d["outcome"] is not None:
            return Finished(d["outcome"][0], d["outcome"][1])
        op = d["q"][0]
        if op[0] == "deal":
            return Pending(DecisionKind.DEAL, 0, op[2], deck=op[1])
        if op[0] == "reveal":
            return Pending(DecisionKind.REVEAL, 0, op[2], handle=op[1])
        if op[0] == "aim":
            return Pending(DecisionKind.CHANCE, None, "d6", outcomes=6)
        if op[0] == "instants":
            return Pending(DecisionKind.CHOICE, 0, "instant",
                           options=tuple(E.instant_cards(d, state.cat)))
        if op[0] == "handlimit":
            return Pending(DecisionKind.CHOICE, 0, "hand-limit", options=tuple(d["hand"]))
        return Pending(DecisionKind.TURN, 0)

    def legal_actions(self, state: E.State) -> Sequence[str]:
        return E.legal(state)

    def step(self, state: E.State, inp: str) -> E.State:
        return E.step(state, inp)

    def new_knowledge(self, player: int) -> Knowledge:
        return Knowledge(player)

    def view(self, state: E.State, player: int, knowledge: Any) -> dict[str, Any]:
        """The public state (it holds no hidden identity: handles are deal positions) and the
        inputs the player decides: none while a deal, a reveal or the die is pending (the die
        is the run's randomness, never the player's choice)."""
        d = state.d
        pending = self.decision(state)
        mine = player == 0 and isinstance(pending, Pending) and pending.kind in (
            DecisionKind.TURN, DecisionKind.CHOICE)
        return {"state": json.loads(state.encode()), "hand": list(d["hand"]),
                "known": dict(d["known"]), "legal_actions": E.legal(state) if mine else []}

    def encode_state(self, state: E.State) -> bytes:
        return state.encode()

    def state_hash(self, state: E.State) -> bytes:
        return E.state_hash(state)

    # --- notation
    def parse_input(self, text: str) -> str:
        return E.fmt(E.parse(text)) if E.fmt(E.parse(text)) == text else self._bad(text)

    def _bad(self, text: str) -> str:
        from ..errors import MalformedActionError

        raise MalformedActionError(f"malformed multiverse input {text!r:.60}")

    def format_input(self, inp: str) -> str:
        return inp

    def narrate(self, before: E.State, inp: str, after: E.State, viewer: int | None,
                knowledge: Any = None) -> list[str]:
        """Every step `inp` set off, the Multiverse's automatic ones included (text.py);
        viewer None: the public, in the third person."""
        from .text import narrate

        return narrate(before, inp, after, viewer)

    def narrate_start(self, state: E.State, viewer: int | None) -> list[str]:
        from .text import narrate_start

        return narrate_start(state, viewer)

    # --- what the shell draws (engine/scene.py)
    def scene(self, state: E.State, seat: int | None, knowledge: Any = None) -> Any:
        from .scene import scene

        return scene(self, state, seat, knowledge)

    def rules_text(self, rules: R.Rules) -> str:
        from .scene import rules_text

        return rules_text(rules)

    def local_deal(self, rules: R.Rules, catalogue: Catalogue, seed: bytes
                   ) -> tuple[dict[int, str], list[list[int]]]:
        """A deal for local play (engine/referee_loop.py): each deck's decklist (§11.1.3)
        shuffled by a stream of `seed` over its deal positions, dealt in position order."""
        from ..referee_loop import HashBelow

        stream = HashBelow(seed + b"/deal", 8)
        identity: dict[int, str] = {}
        orders = []
        for deck, cards in zip(self.decks(rules), E.decklists(rules, catalogue), strict=True):
            identity.update(zip(deck.handles, stream.shuffle(cards), strict=True))
            orders.append(list(deck.handles))
        return identity, orders

    # --- as a research environment (encode.py, engine/encoding.py)
    def observation_size(self, rules: R.Rules) -> int:
        from .encode import observation_size

        return observation_size(rules)

    def observe(self, state: E.State, seat: int, knowledge: Any) -> dict[int, float]:
        from .encode import observe

        return observe(state, seat, knowledge)

    def action_count(self, rules: R.Rules) -> int:
        from .encode import action_count

        return action_count(rules)

    def action_index(self, state: E.State, inp: str) -> int:
        from .encode import action_index

        return action_index(state, inp)

    def input_of(self, state: E.State, index: int) -> str:
        from .encode import input_of

        return input_of(state, index)

    # --- positions
    def text_board(self, state: E.State) -> str:
        """The board at a terminal (api.text_board)."""
        from .text import board

        return board(state)

    def dump_position(self, state: E.State) -> str:
        return json.dumps({"format": POSITION_FORMAT, "game": self.id,
                           "rules": self.rules_to_options(state.rules),
                           "state": json.loads(state.encode())},
                          sort_keys=True, separators=(",", ":"))

    def load_position(self, text: str | bytes, catalogue: Catalogue | None = None) -> E.State:
        obj = position_object_of(text, MAX_POSITION_BYTES)  # untrusted: size, depth, shape
        try:
            rules = R.from_options(obj["rules"])
            d = obj["state"]
            if not isinstance(d, dict) or set(d) != set(E.new_game(rules, default()).d):
                raise PositionError("multiverse position: state fields")
        except (ValueError, KeyError, TypeError) as e:
            raise PositionError(f"not a multiverse position: {e}") from None
        state = E.State(d, rules, catalogue or default())
        text_s = text if isinstance(text, str) else bytes(text).decode()
        if self.dump_position(state) != text_s:
            raise PositionError("multiverse position is not canonical")
        check_position(state)  # only what the rules reach (bounds.py, SPEC §11.3)
        return state


MULTIVERSE = Multiverse()
