# Grid start positions (SPEC Part 9, "Start positions"): a grid match that starts
# from a given position instead of the coin flip, e.g. one deal of a tournament's deal suite.
# The design is Versus's (engine/versus42/start.py, SPEC §3.3 "Start positions").
#
# How it works. The rules carry the position's canonical text (`GridRules.start`), so the
# HELLO, the match id, the state hash and the verifier all bind it and the protocol needs no
# new message. A position is public: it never names a hidden card. The hidden cards (a deck's,
# a hand's and the face-down grid cards whose identity is not public) form the hidden decks the
# protocol deals from exactly as for a new game: individual decks, each player's own hidden
# cards (`HiddenDeck(p, hidden_p, p*n)`); the shared deck, every hidden card of both players and
# the deck as one shared hidden deck (`HiddenDeck(None, hidden, 0)`). The start state holds them
# all in the deck and plans one deal per hidden hand card (task `draw`) and per face-down grid
# card (task `place`, a deal that puts the card face down on its cell), player 0's first, then
# the active player's `play` task, which gives it the position's turn decision; after those
# deals the state is the position. Neither player chooses which of its cards lands where, as
# neither chooses its opening hand.
#
# The canonical text numbers the hidden cards first (individual: within each player's handles,
# hand, then grid cards by cell, then deck; shared: player 0's hand and grid cards, player 1's,
# then the deck), then the public cards in the position's order, so deals that take a deck's
# handles in order rebuild the position card for card; `canonical_start` writes it from any
# position text (the hidden cards' numbering given makes no difference), and rules whose start
# is not canonical are refused.
#
# A start is offered by one seat and accepted by the other on what it shows, so it may state
# only what a turn decision of a real game can show (`check_turn_facts`): whose turn it is, no
# card in an opponent's home base, no face-down card next to an opponent's, public cards in a
# hand or face down only characters, hands no bigger than the fill and the spent cards allow.
from __future__ import annotations

import functools
import json
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
from .cards import Catalogue, Kind, Op, default_catalogue
from .positions import GAME_ID, MAX_POSITION_BYTES, _canonical, dump_position, load_position
from .rules import HAND_SIZE
from .state import (
    Dec,
    GridState,
    Task,
    Zone,
    _run,
    _Work,
    cell_name,
    home_row,
    neighbour_cells,
    shape_of,
)

if TYPE_CHECKING:
    from .rules import GridRules

_DEALT_ZONES = (Zone.HAND, Zone.GRID)  # a player's hidden cards, in the order they are dealt


@position_reader
def canonical_start(text: str | bytes) -> str:
    """The canonical start text of a position text (any numbering of its hidden cards; the
    public cards keep theirs; a `start` in
    its rules is dropped). PositionError names what makes it unusable as a start."""
    s = load_position(_position_text(text), default_catalogue())
    _check_startable(s)
    n = s.rules.deck_size
    order: list[int] = []
    if s.rules.shared:
        everything = range(2 * n)
        for p in (0, 1):
            for zone in _DEALT_ZONES:
                order += sorted((h for h in everything if _hidden(s, h) and s.zone[h] == zone
                                 and s.holder[h] == p), key=lambda h: s.cell[h])
        order += [h for h in everything if s.zone[h] == Zone.DECK]
        order += [h for h in everything if not _hidden(s, h)]
    else:
        for p in (0, 1):
            mine = range(p * n, p * n + n)
            for zone in (*_DEALT_ZONES, Zone.DECK):  # face-down cards by cell: their only fact
                order += sorted((h for h in mine if _hidden(s, h) and s.zone[h] == zone),
                                key=lambda h: s.cell[h])
            order += [h for h in mine if not _hidden(s, h)]
    new_of = {old: new for new, old in enumerate(order)}
    written = json.loads(dump_position(s))
    cards = written["cards"]
    written["cards"] = [cards[old] for old in order]
    written["graveyards"] = [[new_of[h] for h in g] for g in written["graveyards"]]
    written["modifiers"] = [new_of[h] for h in written["modifiers"]]
    return checked_start_text(_canonical(written))


@functools.lru_cache(maxsize=64)
@position_reader
def start_plan(text: str) -> StartPlan:
    """The plan of a canonical start text; PositionError if the text is not one."""
    if canonical_start(text) != text:
        raise PositionError("the start position is not in canonical form (the hidden cards "
                            "first: hand, grid, deck; compact JSON, sorted keys)")
    s = load_position(text, default_catalogue())
    n = s.rules.deck_size
    tasks: list[tuple[int, ...]] = []
    for p in (0, 1):
        mine = [h for h in range(2 * n) if _hidden(s, h) and s.holder[h] == p]
        tasks += [(Task.DRAW, p) for h in mine if s.zone[h] == Zone.HAND]
        tasks += [(Task.PLACE, p, s.cell[h]) for h in mine if s.zone[h] == Zone.GRID]
    if s.rules.shared:
        hidden: tuple[int, ...] = (sum(_hidden(s, h) for h in range(2 * n)),)
    else:
        hidden = tuple(sum(_hidden(s, h) for h in range(p * n, p * n + n)) for p in (0, 1))
    return StartPlan(s.rules, s.catalogue.digest, hidden, tuple(tasks))


def start_problem(rules: GridRules) -> str | None:
    """Why `rules.start` cannot start a match under `rules`, or None."""
    return generic_start_problem(rules, lambda text: start_plan(text).rules)


def checked_rules(rules: GridRules) -> GridRules:
    """`rules`, its start checked (api.checked_start_rules): RulesetError says why not."""
    return checked_start_rules(rules, "grid option", start_problem)


def start_state(rules: GridRules, catalogue: Catalogue) -> GridState:
    """The first state of a match from `rules.start`: the position with every hidden hand and
    face-down grid card back in the deck, the deals that put them back pending, then the
    active player's turn."""
    plan = start_plan(checked_rules(rules).start)
    plan.check_catalogue(catalogue.digest)
    w = _Work(load_position(rules.start, catalogue))
    w.rules, w.shape = rules, shape_of(rules)
    w.writable()
    for h in range(len(w.zone)):
        if w.ident[h] < 0 and w.zone[h] != Zone.DECK:
            w.zone[h], w.holder[h], w.ctrl[h], w.cell[h], w.up[h] = Zone.DECK, -1, -1, -1, 0
    w.decision = ()
    w.tasks = [(Task.PLAY, w.active)]
    w.push(*plan.tasks)
    _run(w)
    return w.freeze()


def describe_start(rules: GridRules) -> str:
    """The start in a few words, for the rules a joiner accepts and `versus verify` prints: a
    short hash of the text and what a player must know before accepting to play from it."""
    from ..hashing import tagged_hash

    plan = start_plan(rules.start)
    s = load_position(rules.start, default_catalogue())
    short = tagged_hash("grid/start-position", rules.start.encode()).hex()[:8]
    on_grid = [s.grid_count(p) for p in (0, 1)]
    hidden = " and ".join(str(k) for k in plan.hidden)
    return (f"from start position {short} (turn {s.turn + 1}, player {s.active + 1} to play, cards "
            f"on the grid {on_grid[0]} and {on_grid[1]}, hidden {hidden})")


# --- checks -----------------------------------------------------------------------------------

def _hidden(s: GridState, h: int) -> bool:
    return s.ident[h] < 0


def _position_text(text: str | bytes) -> str:
    """The position text of a start-to-be: `start_object`'s checks (its game, the shipped
    card data), any `start` in its rules dropped."""
    obj, _ = start_object(text, GAME_ID, MAX_POSITION_BYTES, _shipped)
    return json.dumps(obj)


def _shipped(digest: bytes) -> Catalogue | None:
    catalogue = default_catalogue()
    return catalogue if catalogue.digest == digest else None


def _check_startable(s: GridState) -> None:
    """A start position waits for the active player's turn decision, with nothing pending, and
    its hidden cards are ones the protocol can deal: in a deck, a hand, or face down on the
    grid, held by the player who controls them."""
    if s.finished:
        raise PositionError("a start position is not finished, this one is")
    if s.tasks or s.decision != (Dec.TURN, s.active) or (s.acted and not s.placements):
        raise PositionError("a start position waits for the active player's turn decision, "
                            "with no task pending (and a placement left once it has acted)")
    check_turn_facts(s)
    for h in range(len(s.zone)):
        where = f"position field 'cards[{h}]'"
        if not _hidden(s, h):
            if s.zone[h] == Zone.DECK:
                raise PositionError(f"{where}: a deck card of a start position is hidden")
            continue
        if s.zone[h] not in (Zone.DECK, *_DEALT_ZONES) or s.up[h]:
            raise PositionError(f"{where}: a start position's hidden cards are in a deck, a "
                                "hand or face down on the grid")
        if s.zone[h] != Zone.DECK and s.holder[h] != s.ctrl[h]:
            raise PositionError(f"{where}: a hidden card of a start position is held by the "
                                "player who controls it")
        if s.zone[h] == Zone.GRID and (s.weaken[h] or s.boost[h] or s.shield[h]):
            raise PositionError(f"{where}: a face-down grid card of a start position is not "
                                "weakened, boosted or shielded unless its identity is public")
    n = s.rules.deck_size
    if s.rules.shared:
        if not any(_hidden(s, h) for h in range(2 * n)):
            raise PositionError("a start position of the shared deck has a hidden card (the "
                                "protocol deals from a deck of at least one card)")
        return
    for p in (0, 1):
        if not any(_hidden(s, h) for h in range(p * n, p * n + n)):
            raise PositionError(f"player {p} has no hidden card: a start position leaves each "
                                "player at least one (the protocol deals from a deck of at "
                                "least one card)")


def check_turn_facts(s: GridState) -> None:
    """What the rules make true of every position that waits for a turn decision with nothing
    pending, and a hand-set position may contradict (SPEC §9.5 "What can start")."""
    def fail(field: str, why: str) -> PositionError:
        return PositionError(f"position field {field!r}: {why}")

    due = s.first ^ (s.turn & 1)
    if s.active != due:
        raise fail("active", f"turn {s.turn} is player {due}'s (the first player, {s.first}, "
                   f"plays the even turns: §9.1.4, §9.1.15), got player {s.active}")
    size, board = s.size, s.board()
    for h in range(len(s.zone)):
        card = s.card(h)
        if card is not None and card.kind is not Kind.CHARACTER and (
                s.zone[h] == Zone.HAND or (s.zone[h] == Zone.GRID and not s.up[h])):
            where = "in a hand" if s.zone[h] == Zone.HAND else "face down on the grid"
            article = "an" if card.kind is Kind.ITEM else "a"
            raise fail(f"cards[{h}].card", f"{card.id!r} is {article} {card.kind.value}, but "
                       f"a public card {where} is one a bounce or a recall took back to a "
                       "hand: a character (§9.1.9, §9.1.11)")
        if s.zone[h] != Zone.GRID:
            continue
        p = s.ctrl[h]
        if s.cell[h] // size == home_row(1 - p, size):
            raise fail(f"cards[{h}].cell", f"{cell_name(s.cell[h], size)} is in player "
                       f"{1 - p}'s home base: a card placed there is face up and wins once "
                       "its battles are over, or leaves the grid (§9.1.6, §9.1.13)")
        if not s.up[h]:
            for c in neighbour_cells(s.cell[h], size):
                if c in board and s.ctrl[board[c]] == 1 - p:
                    raise fail(f"cards[{h}].up", f"a face-down card on "
                               f"{cell_name(s.cell[h], size)} next to player {1 - p}'s card on "
                               f"{cell_name(c, size)}: a card placed next to an opponent's is "
                               "face up, and a face-up character placed next to a face-down "
                               "card turns it up (§9.1.6, §9.1.8)")
    extra = _extra_cards(s)
    for p in (0, 1):
        held = len(s.hand(p))
        if held > HAND_SIZE + extra:
            raise fail("cards", f"player {p} holds {held} cards: the hands are filled up to "
                       f"{HAND_SIZE} (§9.1.4), and the spent draw, recall and bounce cards add at "
                       f"most {extra}")
    if s.rules.shared:
        seen: dict[int, int] = {}
        for h, i in enumerate(s.ident):
            if i >= 0 and seen.setdefault(i, h) != h:
                raise fail(f"cards[{h}].card", f"{s.catalogue.cards[i].id!r} is card "
                           f"{seen[i]} too: the shared deck holds distinct cards (§9.6)")


def _extra_cards(s: GridState) -> int:
    """The most cards the spent cards (every one public in a graveyard) can have added to the
    hands beyond the fill up to the hand size: a draw item's amount, one per recall item and
    bounce trap (§9.1.9, §9.1.11)."""
    extra = 0
    for grave in s.graves:
        for h in grave:
            effect = s.catalogue.cards[s.ident[h]].effect
            if effect is not None and effect.op is Op.DRAW:
                extra += effect.amount
            elif effect is not None and effect.op in (Op.RECALL, Op.BOUNCE):
                extra += 1
    return extra
