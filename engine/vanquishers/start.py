# Vanquishers start positions (SPEC Part 10 "Start positions"): a match that starts
# from a given position instead of the setup dice, e.g. one deal of a tournament's deal suite.
# The design is Versus's (engine/versus42/start.py, SPEC §3.3 "Start positions").
#
# How it works. The rules carry the position's canonical text (`Rules.start`), so the HELLO,
# the match id, the state hash and the verifier all bind it and the protocol needs no new
# message. A position is public: it never names a hidden card. Each player's hidden cards (its
# deck, its hidden hand cards, its traps set face down whose identity is not public) are that
# player's hidden deck (`HiddenDeck(p, hidden_p, p*n)`), which the protocol deals from the
# player's commitments exactly as for a new game: the start state holds them all in the deck
# and plans one deal per hidden hand card (task `draw`) and per hidden trap (task `place` p c,
# a deal that sets the card face down as a trap of declared cost c); after those deals the
# state is the position, whose turn decision follows. Neither player chooses which of its
# cards lands where, as neither chooses its opening hand. Dice, setup rolls, Life, Storage
# Energy, conditions and every public card are the position's, unchanged.
#
# The canonical text numbers each player's hidden cards first (hand, then traps by declared
# cost, then deck), then its public cards in the position's order (so "the first weapon by
# handle", §10.1.5.4, is still the same weapon), so deals that take a deck's handles in order
# rebuild the position card for card, and the text does not depend on how the position
# numbered its hidden cards; `canonical_start` writes it from any position text, and rules
# whose start is not canonical are refused.
from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING

from ..api import (
    StartPlan,
    checked_start_rules,
    checked_start_text,
    position_reader,
    start_object,
)
from ..api import start_problem as generic_start_problem
from ..errors import PositionError
from .cards import Catalogue, _tagged, canonical_json, default_catalogue
from .engine import HAND_LIMIT, D, S, State, T, Zone, _run, _Work, encode_state
from .text import GAME_ID, MAX_POSITION_BYTES, dump_position, load_position

if TYPE_CHECKING:
    from .rules import Rules

_DEALT_ZONES = (Zone.HAND, Zone.TRAP)  # a player's hidden cards, in the order they are dealt


@position_reader
def canonical_start(text: str | bytes) -> str:
    """The canonical start text of a position text (any numbering of its hidden cards, any
    JSON layout; a `start` in its rules is dropped). PositionError names what makes it unusable."""
    s = load_position(_position_text(text), default_catalogue())
    _check_startable(s)
    n = s.n
    order: list[int] = []
    for p in (0, 1):
        mine = range(p * n, p * n + n)
        for zone in (*_DEALT_ZONES, Zone.DECK):  # hidden traps: by declared cost
            order += sorted((h for h in mine if s.card[h] < 0 and s.zone[h] == zone),
                            key=lambda h: s.aux[h])
        order += [h for h in mine if s.card[h] >= 0]
    new_of = {old: new for new, old in enumerate(order)}
    renumbered = replace(
        s, zone=tuple(s.zone[h] for h in order), card=tuple(s.card[h] for h in order),
        host=tuple(-1 if s.host[h] < 0 else new_of[s.host[h]] for h in order),
        aux=tuple(s.aux[h] for h in order))
    out = dump_position(renumbered)
    return checked_start_text(out)


@functools.lru_cache(maxsize=64)
@position_reader
def start_plan(text: str) -> StartPlan:
    """The plan of a canonical start text; PositionError if the text is not one."""
    if canonical_start(text) != text:
        raise PositionError("the start position is not in canonical form (each player's hidden "
                            "cards first: hand, traps, deck; compact JSON, sorted keys)")
    s = load_position(text, default_catalogue())
    hidden: list[int] = []
    tasks: list[tuple[int, ...]] = []
    for p in (0, 1):
        mine = [h for h in range(p * s.n, p * s.n + s.n) if s.card[h] < 0]
        hidden.append(len(mine))
        tasks += [(T.DRAW, p) for h in mine if s.zone[h] == Zone.HAND]
        tasks += [(T.PLACE, p, s.aux[h]) for h in mine if s.zone[h] == Zone.TRAP]
    return StartPlan(s.rules, s.cat.digest, (hidden[0], hidden[1]), tuple(tasks))


def start_problem(rules: Rules) -> str | None:
    """Why `rules.start` cannot start a match under `rules`, or None."""
    return generic_start_problem(rules, lambda text: start_plan(text).rules)


def checked_rules(rules: Rules) -> Rules:
    """`rules`, its start checked (api.checked_start_rules): RulesetError says why not."""
    return checked_start_rules(rules, "vanquishers option", start_problem)


def start_state(rules: Rules, catalogue: Catalogue) -> State:
    """The first state of a match from `rules.start`: the position with every hidden hand card
    and hidden trap back in its owner's deck, and the deals that put them back pending."""
    plan = start_plan(checked_rules(rules).start)
    plan.check_catalogue(catalogue.digest)
    w = _Work(load_position(rules.start, catalogue))
    w.rules = rules
    for h in range(2 * w.n):
        if w.card[h] < 0 and w.zone[h] != Zone.DECK:
            w.zone[h], w.host[h], w.aux[h] = Zone.DECK, -1, 0
    w.tasks = []
    w.push(*plan.tasks)
    _run(w)
    return w.freeze()


def describe_start(rules: Rules) -> str:
    """The start in a few words, for the rules a joiner accepts and `versus verify` prints: a
    short hash of the text and what a player must know before accepting to play from it."""
    plan = start_plan(rules.start)
    s = load_position(rules.start, default_catalogue())
    short = _tagged("start-position", rules.start.encode()).hex()[:8]
    life = [s.sides[p][S.LIFE] for p in (0, 1)]
    return (f"from start position {short} (turn {s.turn + 1}, player {s.active + 1} to play, "
            f"Life {life[0]} and {life[1]}, hidden {plan.hidden[0]} and {plan.hidden[1]})")


# --- checks -----------------------------------------------------------------------------------

def _position_text(text: str | bytes) -> str:
    """The position text of a start-to-be: `start_object`'s checks (its game, the shipped
    card data), any `start` in its rules dropped."""
    obj, _ = start_object(text, GAME_ID, MAX_POSITION_BYTES, _shipped)
    return canonical_json(obj).decode()


def _shipped(digest: bytes) -> Catalogue | None:
    catalogue = default_catalogue()
    return catalogue if catalogue.digest == digest else None


def _check_startable(s: State) -> None:
    """A start position waits for the active player's turn action with nothing pending (no
    task, attack or roll: nothing that reads a hidden identity or a die), and its hidden cards
    are ones the protocol can deal: in a deck, a hand, or set face down as a trap."""
    if s.result != (-1, -1):
        raise PositionError("a start position is not finished, this one is")
    # the cheap checks first: running a pending task could read a hidden card's identity
    waiting = not s.tasks and s.dec == (D.TURN, s.active) and s.attack == (-1, 0, 0) and \
        not s.dice
    if waiting:
        quiet = _Work(s)
        _run(quiet)
        waiting = encode_state(quiet.freeze()) == encode_state(s)
    if not waiting:
        raise PositionError("a start position waits for the active player's turn action (a "
                            "step with an action), with no task, attack or roll pending")
    for h in range(2 * s.n):
        where = f"state.card[{h}]"
        if s.card[h] >= 0:
            if s.zone[h] == Zone.DECK:
                raise PositionError(f"{where}: a deck card of a start position is hidden")
            continue
        if s.zone[h] not in (*_DEALT_ZONES, Zone.DECK):
            raise PositionError(f"{where}: a start position's hidden cards are in a deck, a "
                                "hand or set face down as a trap (a card on the board, "
                                "discarded or exiled is named)")
        if s.host[h] != -1 or (s.zone[h] != Zone.TRAP and s.aux[h] != 0):
            raise PositionError(f"{where}: a hidden card of a start position is attached to "
                                "nothing and has no counter (a set trap: its declared cost)")
    for p in (0, 1):
        mine = range(p * s.n, p * s.n + s.n)
        if sum(s.zone[h] == Zone.HAND for h in mine) > HAND_LIMIT:
            raise PositionError(f"player {p} holds more than {HAND_LIMIT} cards (§10.1.3.3)")
        if not any(s.card[h] < 0 for h in mine):
            raise PositionError(f"player {p} has no hidden card: a start position leaves each "
                                "player at least one (the protocol deals from a deck of at "
                                "least one card)")
