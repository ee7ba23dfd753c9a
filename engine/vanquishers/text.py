# What a Vanquishers player sees and reads (SPEC Part 10, §10.3): private knowledge, the view,
# the start's words, and the position text of SPEC §3.3 (the narration of each step is
# narration.py's, re-exported here as `narrate`).
#
# How the "no leak" rule is kept: every name this module prints comes from the public state
# (a revealed card's catalogue index) or from the viewer's own knowledge (its own dealt cards);
# a hidden card is only ever "card #h" (its handle, which is public). The view's `useful_actions`
# filter the legal actions with the viewer's knowledge (a card that would fizzle, a decoy trap),
# for people and bots; `legal_actions` are the game's, unfiltered.
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from ..api import (
    POSITION_FORMAT,
    DecisionKind,
    Finished,
    Pending,
    position_object_of,
    position_reader,
)
from ..errors import PositionError
from .bounds import check_position
from .cards import Catalogue, canonical_json, default_catalogue
from .engine import (
    CONDITIONS,
    SIDE_FIELDS,
    Move,
    S,
    State,
    Verb,
    Zone,
    _step_actions,
    _turn_actions,
    _Work,
    decision,
    format_input,
    legal_actions,
)
from .narration import STEP_NAMES, narrate  # noqa: F401  (the game calls text.narrate)
from .rules import Rules

GAME_ID = "vanquishers"
MAX_POSITION_BYTES = 1 << 20


@dataclass
class Knowledge:
    """A player's private knowledge: handle -> card id of the cards dealt to it."""

    player: int
    cards: dict[int, str] = field(default_factory=dict)

    def learn(self, handle: int, card_id: str) -> None:
        self.cards[handle] = card_id


def _name(s: State, h: int, knowledge: Knowledge | None) -> str:
    card = s.public_card(h)
    if card is None and knowledge is not None and h in knowledge.cards:
        known = s.cat.get(knowledge.cards[h])
        return known.name if known else f"card #{h}"
    return card.name if card is not None else f"card #{h}"


def _known_state(s: State, knowledge: Knowledge) -> State:
    """`s` with the viewer's own hidden cards filled in from its knowledge (for its eyes)."""
    w = _Work(s)
    for h, card_id in knowledge.cards.items():
        if 0 <= h < len(w.card) and w.card[h] < 0 and s.cat.get(card_id) is not None:
            w.card[h] = s.cat.index(card_id)
    return w.freeze()


def useful_actions(s: State, player: int, knowledge: Knowledge) -> list[Move]:
    """The legal actions that do what they say with the cards the player knows: no fizzle,
    no decoy trap (§10.1.5.2, §10.1.5.6). Outside a turn: the legal actions."""
    legal = legal_actions(s)
    d = decision(s)
    if isinstance(d, Finished) or d.player != player or d.kind is not DecisionKind.TURN:
        return legal if not isinstance(d, Finished) and d.player == player else []
    known = _Work(_known_state(s, knowledge))
    good = set(_turn_actions(known)) or set(_step_actions(known))
    return [m for m in legal if m in good or m.verb in (Verb.NEXT, Verb.END)]


def _side(s: State, p: int) -> dict[str, Any]:
    w = _Work(s)
    side = s.sides[p]
    board = [{"handle": h, "card": s.public_card(h).id, "on": w.host[h],  # type: ignore[union-attr]
              "counter": w.aux[h]} for h in s.handles(p, Zone.BOARD)]
    return {
        "hero": s.hero(p).id, "life": side[S.LIFE], "max_life": w.max_life(p),
        "shield": side[S.SHIELD], "max_shield": w.max_shield(p), "defense": w.defense(p),
        "storage": side[S.STORAGE], "available": w.available(p), "v_trigger": bool(side[S.VT]),
        "energy_class": None if side[S.ECLASS] < 0 else s.cat.cards[side[S.ECLASS]].id,
        "conditions": {name: side[f] for name, f in CONDITIONS.items() if side[f]},
        "hand": len(s.handles(p, Zone.HAND)), "deck": len(s.handles(p, Zone.DECK)),
        "board": board, "traps": [{"handle": h, "cost": s.aux[h]}
                                  for h in s.handles(p, Zone.TRAP)],
        "discard": [s.public_card(h).id for h in s.handles(p, Zone.DISCARD)],  # type: ignore[union-attr]
        "exile": [s.public_card(h).id if s.card[h] >= 0 else None
                  for h in s.handles(p, Zone.EXILE)],
    }


class View:
    """Everything `player` may see: the public state and its own cards, nothing more."""

    def __init__(self, s: State, player: int, knowledge: Knowledge) -> None:
        self.state, self.player, self.knowledge = s, player, knowledge

    # computed when first read: a loop that hands every player a view (the referee loop, a
    # random player) need not pay for filtering actions it never looks at
    @functools.cached_property
    def decision(self) -> Pending | Finished:
        return decision(self.state)

    @functools.cached_property
    def _mine(self) -> bool:
        d = self.decision
        return not isinstance(d, Finished) and d.player == self.player

    @functools.cached_property
    def legal_actions(self) -> list[Move]:
        return list(legal_actions(self.state)) if self._mine else []

    @functools.cached_property
    def useful_actions(self) -> list[Move]:
        return useful_actions(self.state, self.player, self.knowledge) if self._mine else []

    @property
    def rules(self) -> Rules:
        """The match's rules (the external bot driver's hello carries them)."""
        return self.state.rules

    @property
    def catalogue(self) -> Catalogue:
        """The match's card data."""
        return self.state.cat

    @property
    def hand(self) -> list[tuple[int, str | None]]:
        """(handle, card id or None) of the player's hand: its own knowledge and public ids."""
        out = []
        for h in self.state.handles(self.player, Zone.HAND):
            card = self.state.public_card(h)
            out.append((h, card.id if card else self.knowledge.cards.get(h)))
        return out

    def to_dict(self) -> dict[str, Any]:
        s = self.state
        d = self.decision
        return {
            "player": self.player, "turn": s.turn, "active": s.active, "step": s.phase,
            "step_name": STEP_NAMES[s.phase], "dice": list(s.dice),
            "you": _side(s, self.player), "opponent": _side(s, 1 - self.player),
            "hand": [{"handle": h, "card": c} for h, c in self.hand],
            "my_traps": {h: self.knowledge.cards.get(h) for h in
                         s.handles(self.player, Zone.TRAP)},
            "decision": (f"finished {d.outcome}" if isinstance(d, Finished)
                         else f"{d.kind.value} {d.player}"),
            "legal_actions": [format_input(m) for m in self.legal_actions],
        }


def narrate_start(s: State, viewer: int | None) -> list[str]:
    if viewer is None:  # the public (a replay, a spectator)
        line = f"player 1 plays {s.hero(0).name}, player 2 {s.hero(1).name}"
        return [line, "the match starts from a position" if s.rules.start else
                "each player rolls a die: the highest plays first (ties roll again)"]
    if s.rules.start:  # a match from a start position (SPEC Part 10 "Start positions")
        who = "you are" if s.active == viewer else "the opponent is"
        return [f"the match starts from a position at turn {s.turn + 1}: {who} to play",
                f"you are player {viewer + 1} with {s.hero(viewer).name}, against "
                f"{s.hero(1 - viewer).name}"]
    return [f"you are player {viewer + 1} with {s.hero(viewer).name}, against "
            f"{s.hero(1 - viewer).name}",
            "each player rolls a die: the highest plays first (ties roll again)"]


# --- positions (SPEC §3.3) ---------------------------------------------------------------------


def dump_position(s: State) -> str:
    obj = {
        "format": POSITION_FORMAT, "game": GAME_ID, "rules": s.rules.to_options(),
        "catalogue": s.cat.digest.hex(),
        "state": {"turn": s.turn, "active": s.active, "first": s.first, "step": s.phase,
                  "exiles": s.exiles, "sides": [list(x) for x in s.sides],
                  "zone": list(s.zone),
                  "card": [None if i < 0 else s.cat.cards[i].id for i in s.card],
                  "host": list(s.host), "aux": list(s.aux), "dice": list(s.dice),
                  "attack": list(s.attack), "tasks": [list(t) for t in s.tasks],
                  "decision": list(s.dec), "result": list(s.result)},
    }
    return canonical_json(obj).decode()


_STATE_FIELDS = ("active", "aux", "attack", "card", "decision", "dice", "exiles", "first",
                 "host", "result", "sides", "step", "tasks", "turn", "zone")


@position_reader
def load_position(text: str | bytes, catalogue: Catalogue | None = None) -> State:
    """The state of a position text; PositionError names the bad field."""
    cat = catalogue if catalogue is not None else default_catalogue()
    obj = position_object_of(text, MAX_POSITION_BYTES)  # (a deeply nested text too)
    if obj.get("format") != POSITION_FORMAT:
        raise PositionError(f"format: must be {POSITION_FORMAT!r}")
    if obj.get("game") != GAME_ID:
        raise PositionError(f"game: must be {GAME_ID!r}")
    if set(obj) != {"format", "game", "rules", "catalogue", "state"}:
        raise PositionError(f"position fields must be catalogue, format, game, rules, state; "
                            f"got {sorted(obj)}")
    try:
        rules = Rules.from_options(obj["rules"])
    except Exception as e:
        raise PositionError(f"rules: {e}") from None
    if obj["catalogue"] != cat.digest.hex():
        raise PositionError("catalogue: the position was made with other card data")
    st = obj["state"]
    if not isinstance(st, dict) or set(st) != set(_STATE_FIELDS):
        raise PositionError(f"state: fields must be {', '.join(_STATE_FIELDS)}")

    def ints(name: str, value: Any, length: int | None = None) -> tuple[int, ...]:
        if not isinstance(value, list) or not all(type(x) is int and -32768 <= x < 32768
                                                  for x in value):
            raise PositionError(f"state.{name}: must be a list of 16-bit integers")
        if length is not None and len(value) != length:
            raise PositionError(f"state.{name}: must hold {length} values, got {len(value)}")
        return tuple(value)

    def one(name: str, lo: int, hi: int) -> int:
        value = st[name]
        if type(value) is not int or not lo <= value <= hi:
            raise PositionError(f"state.{name}: must be an integer {lo}..{hi}, got {value!r:.20}")
        return value

    handles = 2 * rules.deck_size
    if not isinstance(st["sides"], list) or len(st["sides"]) != 2:
        raise PositionError("state.sides: must be two lists of counters")
    sides = tuple(ints(f"sides[{p}]", st["sides"][p], SIDE_FIELDS) for p in (0, 1))
    zone = ints("zone", st["zone"], handles)
    for i, z in enumerate(zone):
        if z not in tuple(Zone):
            raise PositionError(f"state.zone[{i}]: {z} is not a zone code")
    cards = st["card"]
    if not isinstance(cards, list) or len(cards) != handles:
        raise PositionError(f"state.card: must hold {handles} card ids or nulls")
    card_index = []
    for i, cid in enumerate(cards):
        if cid is None:
            card_index.append(-1)
        elif isinstance(cid, str) and cat.get(cid) is not None:
            card_index.append(cat.index(cid))
        else:
            raise PositionError(f"state.card[{i}]: {cid!r:.40} is not a catalogue card")
    if not isinstance(st["tasks"], list):
        raise PositionError("state.tasks: must be a list of tasks")
    tasks = tuple(ints(f"tasks[{i}]", t) for i, t in enumerate(st["tasks"]))
    attack = ints("attack", st["attack"], 3)
    result = ints("result", st["result"], 2)
    try:
        s = State(rules, cat, one("turn", 0, 10000), one("active", -1, 1), one("first", -1, 1),
                  one("step", 0, 7), one("exiles", 0, 2), (sides[0], sides[1]), zone,
                  tuple(card_index), ints("host", st["host"], handles),
                  ints("aux", st["aux"], handles), ints("dice", st["dice"]),
                  (attack[0], attack[1], attack[2]), tasks, ints("decision", st["decision"]),
                  (result[0], result[1]))
        decision(s)
    except PositionError:
        raise
    except Exception as e:
        raise PositionError(f"state.decision: not a valid decision ({e})") from None
    check_position(s)  # every field within what the rules reach (bounds.py)
    if dump_position(s) != text:
        raise PositionError("position: not in canonical form (sorted keys, no spaces)")
    return s
