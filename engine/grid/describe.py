# What a joiner is shown of a grid start position before it accepts (SPEC §3.3 "What the joiner
# is shown", the game's `start_view` member).
#
# How it works. The position of `rules.start` is read as a list of public facts from the
# joiner's seat (the turn, who plays and who played first, the turn's counters, per player its
# hand and deck counts and the cards it controls on the grid with face, name, weakening, boost
# and shield, the graveyards, the modifiers in play), with the grid drawn as the text UI draws
# it (render.py: Y/O for yours/the opponent's, ^ face up, v face down, the handle,
# your home base marked), and compared with the same facts of a new game under the same rules
# at its first turn decision, with the coin giving the same first player.
#
# Nothing hidden is named: the position never holds a hidden identity (the joiner's own
# face-down cards are dealt to it later; here they are "face down" like the opponent's).
from __future__ import annotations

from ..api import Fact, Game, StartView, fact_differences, fact_lines, first_turn
from .cards import Kind
from .positions import load_position
from .rules import GridRules
from .state import COLUMNS, GridState, Zone, cell_name

WIDTH = 7  # the text UI's cell width


def start_view(game: Game, rules: GridRules, seat: int) -> StartView:
    """The start of `rules` as `seat` sees it, and what differs from the new game (which
    `game`, the grid Game object that calls this, plays out)."""
    from dataclasses import replace

    s = load_position(rules.start, None)
    new = first_turn(game, replace(rules, start=""), s.catalogue,
                     lambda state: state.first == s.first)
    facts = _facts(s, seat)
    lines = _grid(s, seat) + fact_lines(facts, seat)
    return StartView(tuple(lines), fact_differences(facts, _facts(new, seat)))


def _card(s: GridState, h: int) -> str:
    """A public card's name and values (a character: element and sides)."""
    card = s.catalogue.cards[s.ident[h]]
    if card.kind is Kind.CHARACTER:
        sides = "/".join(map(str, card.sides))
        return f"{card.name} [{card.element.value} {sides}]"  # type: ignore[union-attr]
    return f"{card.name} ({card.kind.value})"


def _grid(s: GridState, seat: int) -> list[str]:
    size = s.size
    home = 1 if seat == 0 else size
    lines = [f"grid {size}x{size}: you are player {seat + 1} (your home base: row {home})",
             "    " + "".join(f"{COLUMNS[i]:^{WIDTH}}" for i in range(size)).rstrip()]
    rule = "   +" + ("-" * (WIDTH - 1) + "+") * size
    board = s.board()
    lines.append(rule)
    for row in range(size, 0, -1):
        tokens = []
        for col in range(size):
            h = board.get((row - 1) * size + col)
            tokens.append(" " * (WIDTH - 1) if h is None else
                          f"{'Y' if s.ctrl[h] == seat else 'O'}{'^' if s.up[h] else 'v'}"
                          f"{h}".center(WIDTH - 1))
        note = ("  your home base" if row == home else
                "  opponent's home base" if row == (size if seat == 0 else 1) else "")
        lines += [f"{row:>2} |" + "|".join(tokens) + "|" + note, rule]
    lines.append("  Y: yours, O: the opponent's; ^ face up, v face down; the number is the "
                 "card's handle")
    return lines


def _on_grid(s: GridState, h: int) -> str:
    extra = [f"-{s.weaken[h]}"] if s.weaken[h] else []
    extra += [f"+{s.boost[h]}"] if s.boost[h] else []
    extra += ["shielded"] if s.shield[h] else []
    what = f" {_card(s, h)}" if s.ident[h] >= 0 else ""
    face = "face up" if s.up[h] else "face down"
    more = f", {', '.join(extra)}" if extra else ""
    return f"{cell_name(s.cell[h], s.size)} {face}{what}{more}"


def _facts(s: GridState, seat: int) -> list[Fact]:
    facts: list[Fact] = [
        ("turn", str(s.turn + 1)),
        ("to play", "you" if s.active == seat else "the opponent"),
        ("plays first", "you" if s.first == seat else "the opponent"),
        ("acted this turn", "yes" if s.acted else "no"),
        ("placements left this turn", str(s.placements)),
        ("airdrop pending", "yes" if s.airdrop else "no"),
    ]
    if s.rules.shared:
        facts.append(("shared deck", f"{s.deck_count(0)} hidden card(s)"))
    for q in (seat, 1 - seat):
        who = "your" if q == seat else "opponent's"
        mine = sorted((h for h in range(len(s.zone)) if s.zone[h] == Zone.GRID
                       and s.ctrl[h] == q), key=lambda h: s.cell[h])
        public = [_card(s, h) for h in s.hand(q) if s.ident[h] >= 0]
        facts.append((f"{who} hand", f"{len(s.hand(q)) - len(public)} hidden card(s)"
                      + (f", known: {', '.join(public)}" if public else "")))
        if not s.rules.shared:
            facts.append((f"{who} deck", f"{s.deck_count(q)} hidden card(s)"))
        facts.append((f"{who} cards on the grid",
                      ", ".join(_on_grid(s, h) for h in mine) or "none"))
    for i, grave in enumerate(s.graves):
        owner = "shared" if len(s.graves) == 1 else ("your" if i == seat else "opponent's")
        facts.append((f"{owner} graveyard", ", ".join(_card(s, h) for h in grave) or "empty"))
    facts.append(("modifiers in play", ", ".join(_card(s, h) for h in s.modifiers) or "none"))
    return facts
