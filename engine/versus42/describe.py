# What a joiner is shown of a Versus start position before it accepts (SPEC §3.3 "What the
# joiner is shown", the game's `start_view` member).
#
# How it works. The position of `ruleset.start` is read as a list of public facts from the
# joiner's seat (the turn, who plays, the Actions used this turn, the tile counts, per side its
# deck, hand and cards left, its field cards with face, Strength, Increase and absorbed cards,
# its eliminated cards by name), with the field drawn as a text board (tile letter and
# `P1:4+1R×2` per area: owner, Strength printed+bonus, R/V, ×k absorbed; row 4 on top), and
# compared with
# the same facts of a new game under the same ruleset at its first turn decision, laid out so
# that the same player plays first. The layout itself is the position's (a new game lays it
# out from the joint seed): it is drawn, and its tile counts are compared with the ruleset's.
#
# Nothing hidden is named: the position never holds a hidden identity; a face-down card is "?".
from __future__ import annotations

from typing import TYPE_CHECKING

from ..api import Fact, Game, StartView, fact_differences, fact_lines, first_turn
from .catalogue import find_catalogue
from .game import DECK, FIELD, HAND, State
from .positions import load_position, position_object
from .ruleset import Tile
from .views import Knowledge, PlayerView, strength_label

if TYPE_CHECKING:
    from .ruleset import Ruleset

CELL = 12  # the text board's cell width
_ELIMINATED = ("discarded", "destroyed", "absorbed")


def start_view(game: Game, ruleset: Ruleset, seat: int) -> StartView:
    """The start of `ruleset` as `seat` sees it, and what differs from the new game (which
    `game`, the Versus Game object that calls this, plays out)."""
    from dataclasses import replace

    from .start import start_plan

    s = load_position(ruleset.start, find_catalogue(start_plan(ruleset.start).catalogue))
    new = first_turn(game, replace(ruleset, start=""), s.cat,
                     lambda state: state.first == s.first)
    facts = _facts(s, seat)
    lines = _board(s, seat) + fact_lines(facts, seat)
    return StartView(tuple(lines), fact_differences(facts, _facts(new, seat)))


def _whose(q: int, seat: int) -> str:
    return "your" if q == seat else "opponent's"


def _card_text(s: State, h: int) -> str:
    """'P1:4+1R×2' as the text board writes a field card (no knowledge: hidden is '?')."""
    cid = s.public_id(h)
    strength = "?" if cid is None else strength_label(s.cat[cid].strength, s.strength(h))
    level = s.level(h)
    return f"P{s.owner(h)}:{strength}{'R' if s.face[h] else 'V'}{f'×{level}' if level else ''}"


def _board(s: State, seat: int) -> list[str]:
    view = PlayerView(s, Knowledge(seat), seat)
    cards = {fc.area: fc.handle for fc in view.field}
    geom = s.geom
    lines = ["    " + "".join(chr(ord("a") + c).ljust(CELL) for c in range(geom.cols)).rstrip()]
    for r in range(geom.rows - 1, -1, -1):
        row = []
        for c in range(geom.cols):
            i = r * geom.cols + c
            h = cards.get(geom.names[i])
            row.append(f"{Tile(s.tiles[i]).letter} "
                       f"{'.' if h is None else _card_text(s, h)}".ljust(CELL))
        lines.append(f"{r + 1}   " + "".join(row).rstrip())
    lines += ["tiles: W White, K Black, G Gray, B Blue.  P1:4+1R×2 = player 1's card,",
              "Strength 4 +1 bonus, recto, 2 cards absorbed; P0:?V = a face-down hidden card"]
    return lines


def _field_card(s: State, h: int) -> str:
    area = s.geom.names[s.pos[h]]
    cid = s.public_id(h)
    if cid is None:
        return f"{area} face down"
    extra = [f"Strength {strength_label(s.cat[cid].strength, s.strength(h))}"]
    if s.temp[h]:
        extra.append(f"Increase {s.temp[h]}")
    if s.level(h):
        extra.append(f"{s.level(h)} absorbed")
    return f"{area} {s.cat[cid].name} ({'recto' if s.face[h] else 'verso'}, {', '.join(extra)})"


def _facts(s: State, seat: int) -> list[Fact]:
    obj = position_object(s)
    counts = [sum(t == tile for t in s.tiles) for tile in Tile]
    facts: list[Fact] = [
        ("turn", str(s.turn)),  # the position's counter, as the offer's line writes it
        ("to play", "you" if s.active == seat else "the opponent"),
        ("plays first", "you" if s.first == seat else "the opponent"),
        ("Actions used this turn", ", ".join(obj["used"]) or "none"),
        ("last Action type", obj["order"]),
        ("Summons this turn", str(obj["summons"])),
        ("tiles", ", ".join(f"{k} {tile.name.lower()}" for k, tile in zip(counts, Tile,
                                                                          strict=True))),
    ]
    for q in (seat, 1 - seat):
        who = _whose(q, seat)
        mine = s.handles(q)
        field = sorted((h for h in mine if s.zone[h] == FIELD), key=lambda h: s.pos[h])
        gone = [f"{s.cat[cid].name} ({s.zone_of(h)})" if (cid := s.public_id(h)) else
                f"a hidden card ({s.zone_of(h)})" for h in mine
                if s.zone_of(h) in _ELIMINATED]
        facts += [
            (f"{who} deck", f"{sum(s.zone[h] == DECK for h in mine)} hidden card(s)"),
            (f"{who} hand", f"{sum(s.zone[h] == HAND for h in mine)} hidden card(s)"),
            (f"{who} cards left", str(s.alive[q])),
            (f"{who} field", ", ".join(_field_card(s, h) for h in field) or "empty"),
            (f"{who} eliminated", ", ".join(gone) or "none"),
        ]
    return facts
