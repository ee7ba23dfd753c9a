# Start positions (SPEC Part 3 "Start positions"): a Versus match that starts from a
# given position instead of the new game, e.g. one deal of a tournament's deal suite.
#
# How it works. The ruleset carries the position's canonical text (`Ruleset.start`), so the
# HELLO, the match id, the state hash and the verifier all bind it and the protocol needs no
# new message. A position is public: it never names a hidden card. Each seat's hidden cards
# (its deck, its hand, its face-down field cards whose identity is not public) are that seat's
# hidden deck, which the protocol deals from the seat's commitments exactly as for a new game:
# the start state holds them all in the deck and plans one deal per hand card (`draw`) and per
# face-down field card (`place`); after those deals the state is the position. Neither seat
# chooses which of its cards lands where, as neither chooses its opening hand.
#
# The canonical text numbers each seat's hidden cards first (hand, then field cards by area,
# then deck), so the deals, which take a shared pool's handles in order, rebuild the position
# card for card; `canonical_start` writes it from any position text, and a ruleset whose start
# is not canonical is refused. The hidden cards' numbering given makes no difference (they
# carry no facts but their places); the public cards keep the position's own order.
#
# A start is offered by one seat and accepted by the other on what it shows, so it may state
# only what a turn decision of a real game can show (`check_turn_facts`): whose turn it is,
# the ruleset's tiles, recto public field cards, the Summons and Increases this turn's Actions
# can give. The position reader already refuses what no moment of a game holds.
from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any

from ..api import (
    StartPlan,
    checked_start_rules,
    checked_start_text,
    position_reader,
    start_object,
)
from ..api import start_problem as generic_start_problem
from ..errors import PositionError
from .catalogue import Catalogue, find_catalogue
from .decisions import TurnDecision
from .game import DECK, FIELD, HAND, T_DRAW, T_PLACE, State, _has_turn_action, _run
from .positions import (
    GAME_ID,
    MAX_POSITION_BYTES,
    load_position,
    position_from_object,
    position_object,
    position_text,
)
from .ruleset import Tile

if TYPE_CHECKING:
    from .ruleset import Ruleset

_HIDDEN_ZONES = (HAND, FIELD, DECK)  # the order a seat's hidden cards are numbered in


@position_reader
def canonical_start(text: str | bytes) -> str:
    """The canonical start text of a position text (any numbering of its hidden cards; the
    public cards keep theirs; a `start` in its rules is dropped). PositionError names what
    makes it unusable as a start."""
    obj, catalogue = start_object(text, GAME_ID, MAX_POSITION_BYTES, find_catalogue)
    s = position_from_object(obj, catalogue)
    _check_startable(s)
    n = s.n
    order: list[int] = []
    for p in (0, 1):
        mine = range(p * n, p * n + n)
        for zone in _HIDDEN_ZONES:  # face-down field cards by area: their only fact
            order += sorted((h for h in mine if s.ident[h] < 0 and s.zone[h] == zone),
                            key=lambda h: s.pos[h])
        order += [h for h in mine if s.ident[h] >= 0]
    new_of = {old: new for new, old in enumerate(order)}
    written = position_object(s)
    cards = written["cards"]
    renumbered: list[dict[str, Any]] = [{} for _ in cards]
    for old, card in enumerate(cards):
        if "absorbed" in card:
            card = {**card, "absorbed": [new_of[x] for x in card["absorbed"]]}
        renumbered[new_of[old]] = card
    written["cards"] = renumbered
    return checked_start_text(position_text(written))


@functools.lru_cache(maxsize=64)
@position_reader
def start_plan(text: str) -> StartPlan:
    """The plan of a canonical start text; PositionError if the text is not one."""
    if canonical_start(text) != text:
        raise PositionError("the start position is not in canonical form (each seat's hidden "
                            "cards first: hand, field, deck; compact JSON, sorted keys)")
    obj = json.loads(text)
    s = position_from_object(obj, find_catalogue(bytes.fromhex(obj["catalogue"])))
    hidden: list[int] = []
    tasks: list[tuple[int, ...]] = []
    for p in (0, 1):
        mine = [h for h in range(p * s.n, p * s.n + s.n) if s.ident[h] < 0]
        hidden.append(len(mine))
        tasks += [(T_DRAW, p) for h in mine if s.zone[h] == HAND]
        tasks += [(T_PLACE, p, s.pos[h]) for h in mine if s.zone[h] == FIELD]
    return StartPlan(s.rules, s.cat.digest, (hidden[0], hidden[1]), tuple(tasks))


def start_problem(ruleset: Ruleset) -> str | None:
    """Why `ruleset.start` cannot start a match under `ruleset`, or None."""
    return generic_start_problem(ruleset, lambda text: start_plan(text).rules)


def checked_rules(ruleset: Ruleset) -> Ruleset:
    """`ruleset`, its start checked (api.checked_start_rules): RulesetError says why not."""
    return checked_start_rules(ruleset, "ruleset option", start_problem)


def start_state(ruleset: Ruleset, catalogue: Catalogue) -> State:
    """The first state of a match from `ruleset.start`: the position with every hidden hand and
    face-down field card back in its owner's deck, and the deals that put them back pending."""
    plan = start_plan(checked_rules(ruleset).start)
    plan.check_catalogue(catalogue.digest)
    s = load_position(ruleset.start, catalogue)
    s.rules, s.rules_digest = ruleset, ruleset.digest()
    for h in range(2 * s.n):
        if s.ident[h] < 0 and s.zone[h] != DECK:
            if s.zone[h] == FIELD:
                s.board[s.pos[h]] = -1
            s.zone[h], s.pos[h], s.face[h] = DECK, -1, 0
    for p in (0, 1):
        mine = range(p * s.n, p * s.n + s.n)
        s.deck_n[p] = sum(s.zone[h] == DECK for h in mine)
        s.hand_n[p] = sum(s.zone[h] == HAND for h in mine)
    s.pending, s._legal = None, None
    s.tasks = list(reversed(plan.tasks))
    _run(s)
    return s


def describe_start(ruleset: Ruleset) -> str:
    """The start in a few words, for the rules a joiner accepts and `versus verify` prints: a
    short hash of the text and what a player must know before accepting to play from it."""
    from ..hashing import tagged_hash

    plan = start_plan(ruleset.start)
    s = load_position(ruleset.start, find_catalogue(plan.catalogue))
    short = tagged_hash("start-position", ruleset.start.encode()).hex()[:8]
    return (f"from start position {short} (turn {s.turn}, player {s.active + 1} to play, cards "
            f"left {s.alive[0]} and {s.alive[1]}, hidden {plan.hidden[0]} and {plan.hidden[1]})")


# --- checks -----------------------------------------------------------------------------------

def _check_startable(s: State) -> None:
    """A start position waits for a turn action, with nothing else pending, and its hidden
    cards are ones the protocol can deal: in a deck, a hand, or face down on the field."""
    if s.result is not None:
        raise PositionError(f"a start position is not finished, this one is ({s.result})")
    if s.battle is not None or s.tasks or not isinstance(s.pending, TurnDecision) \
            or not _has_turn_action(s):
        raise PositionError("a start position waits for the active player's turn action, "
                            "with no battle and no task pending")
    check_turn_facts(s)
    for h in range(2 * s.n):
        if s.ident[h] >= 0:
            continue
        where = f"position field 'cards[{h}]'"
        if s.zone[h] not in _HIDDEN_ZONES:
            raise PositionError(f"{where}: a start position's hidden cards are in a deck, a "
                                "hand or face down on the field (a card eliminated or "
                                "absorbed is named)")
        if s.zone[h] == FIELD and (s.temp[h] or s.stack[h]):
            raise PositionError(f"{where}: a face-down field card of a start position has no "
                                "increase and no absorbed cards unless its identity is public")
    for p in (0, 1):
        if not any(s.ident[h] < 0 for h in range(p * s.n, p * s.n + s.n)):
            raise PositionError(f"player {p} has no hidden card: a start position leaves each "
                                "player at least one (the protocol deals from a deck of at "
                                "least one card)")


def check_turn_facts(s: State) -> None:
    """What the rules make true of every position that waits for a turn action, and a hand-set
    position may contradict (SPEC §3.3 "What can start"): whose turn it is, the tiles the
    ruleset lays out, a public field card is recto, the turn's Summons and Increases."""
    def fail(field: str, why: str) -> PositionError:
        return PositionError(f"position field {field!r}: {why}")

    due = s.first ^ (s.turn & 1)
    if s.active != due:
        raise fail("active", f"turn {s.turn} is player {due}'s (the first player, {s.first}, "
                   f"plays the even turns: §1.3.3, §1.4.1), got player {s.active}")
    rules = s.rules
    for tile, want in ((Tile.GRAY, rules.gray_tiles), (Tile.WHITE, rules.white_tiles),
                       (Tile.BLACK, rules.black_tiles)):
        got = s.tiles.count(tile)
        if got != want:
            raise fail("tiles", f"{got} {tile.name.title()} tile(s), but the rules lay out "
                       f"{rules.gray_tiles} Gray, {rules.white_tiles} White and "
                       f"{rules.black_tiles} Black (§1.3.2)")
    out = sum(s.zone[h] != DECK for h in s.handles(s.active))
    if s.summons > out:
        raise fail("summons", f"{s.summons} Summon Actions this turn, but player {s.active} "
                   f"has only {out} card(s) out of its deck")
    limit = max_increase(s)
    for h in range(2 * s.n):
        if s.zone[h] == FIELD and s.ident[h] >= 0 and not s.face[h]:
            raise fail(f"cards[{h}].face", "a field card whose identity is public is recto "
                       "once its turn-up has run (§1.5.2, §1.7.3): got 'verso'")
        if s.temp[h] > limit:
            raise fail(f"cards[{h}].increase", f"{s.temp[h]} is more than this turn's Actions "
                       f"can have added ({limit}: Increases expire at the end of every turn, "
                       "§1.9.3)")


def max_increase(s: State) -> int:
    """The largest temporary Increase a card can hold this turn (SPEC §3.3): none before the
    turn's first Action; else one Active Increase (one Activate Action, §1.4.2) and one
    triggered Passive Increase per battle this turn (a Summon, the Move, a teleport) and one
    more (its Summon or its turning recto), each at most the catalogue's largest amount."""
    if not s.used:
        return 0
    active = max((a.amount for a in s.cat.actives if a.op == "increase"), default=0)
    passive = max((p.amount for p in s.cat.passives if p.op == "increase" and not p.continuous),
                  default=0)
    activated, moved = s.used >> 2 & 1, s.used >> 3 & 1
    return active * activated + passive * (s.summons + moved + activated + 1)
