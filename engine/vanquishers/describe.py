# What a joiner is shown of a Vanquishers start position before it accepts (SPEC §3.3 "What the
# joiner is shown", the game's `start_view` member).
#
# How it works. The position of `rules.start` is read as a list of public facts from the
# joiner's seat (whose turn and step; per side its hero, Life, Shield, Defense, Storage Energy,
# V-Trigger, energy class, each condition with its turns, hand and deck counts, the cards on its
# board, its traps by declared cost, its discard pile and exile), drawn as the text UI draws a
# side (render.py: a hero line, then one line per board card), and compared
# with the same facts of a new game under the same rules at its first turn decision, played
# with the same player first. Why facts and not the position text: the one-line offer a joiner
# saw before named Life and hidden counts only, so a start could make the joiner's hero an armor
# card, freeze it for 99 turns and give the host 99 Shield behind a fair-looking line.
#
# Nothing hidden is named: the position never holds a hidden identity (a face-down trap is its
# declared cost, a hand or deck card a count).
from __future__ import annotations

from ..api import Fact, Game, StartView, fact_differences, fact_lines, first_turn
from .cards import Card, CardType
from .engine import CONDITIONS, S, State, Zone, _Work
from .rules import Rules
from .text import STEP_NAMES, load_position


def start_view(game: Game, rules: Rules, seat: int) -> StartView:
    """The start of `rules` as `seat` sees it, and what differs from the new game (which
    `game`, the Vanquishers Game object that calls this, plays out)."""
    from dataclasses import replace

    s = load_position(rules.start, None)
    first = s.first if s.first >= 0 else s.active
    new = first_turn(game, replace(rules, start=""), s.cat,
                     lambda state: state.active == first)
    return StartView(tuple(_lines(s, seat)),
                     fact_differences(_facts(s, seat), _facts(new, seat)))


def _whose(q: int, seat: int) -> str:
    return "your" if q == seat else "opponent's"


def _hero(card: Card) -> str:
    name, kind = card.name, card.type
    article = "an" if kind.value[0] in "aeiou" else "a"
    return name if kind is CardType.HERO else f"{name} ({article} {kind.value} card, not a hero)"


def _board_card(w: _Work, h: int) -> str:
    """A board card as the text UI writes it: name, type and its counters."""
    card = w.c(h)
    assert card is not None  # a board card is public
    t = card.type.value
    extra = ""
    if card.is_weapon_like:
        on = [w.c(x) for x in range(2 * w.n) if w.host[x] == h and w.zone[x] == Zone.BOARD]
        rounds = [a.name for a in on if a is not None and a.type is CardType.AMMO]
        mods = [a.name for a in on if a is not None and a.type is CardType.MOD]
        extra = (f" target {card.target} dmg {card.kinetic}"
                 + (f" ammo {len(rounds)}/{card.ammo}" if card.type is CardType.WEAPON
                    and card.ammo else "")
                 + (f" [{', '.join(rounds)}]" if rounds else "")
                 + (f" mods: {', '.join(mods)}" if mods else "")
                 + f" used {w.aux[h]}x this turn")
    elif card.type is CardType.ARMOR:
        extra = f" durability {w.aux[h]}"
    elif w.aux[h]:
        extra = f" (counter {w.aux[h]})"
    return f"{card.name} ({t}){extra}"


def _side_facts(s: State, q: int, seat: int) -> list[Fact]:
    w = _Work(s)
    side = s.sides[q]
    who = _whose(q, seat)
    eclass = w.eclass(q)
    facts: list[Fact] = [
        (f"{who} hero", _hero(s.hero(q))),
        (f"{who} Life", f"{side[S.LIFE]} of {w.max_life(q)}"),
        (f"{who} Shield", f"{side[S.SHIELD]} of {w.max_shield(q)}"),
        (f"{who} Defense", str(w.defense(q))),
        (f"{who} Storage Energy", f"{side[S.STORAGE]} ({side[S.SPENT]} spent this turn)"),
        (f"{who} V-Trigger", "active" if side[S.VT] else "not active"),
        (f"{who} energy class", "none" if eclass is None else eclass.name),
    ]
    facts += [(f"{who} condition {name}", f"{side[f]} turn(s)")
              for name, f in CONDITIONS.items() if side[f]]
    board = [h for h in s.handles(q, Zone.BOARD) if s.host[h] < 0]
    facts += [
        (f"{who} board", ", ".join(_board_card(w, h) for h in board) or "empty"),
        (f"{who} traps set", ", ".join(f"face down (cost {s.aux[h]})"
                                       for h in s.handles(q, Zone.TRAP)) or "none"),
        (f"{who} hand", f"{len(s.handles(q, Zone.HAND))} hidden card(s)"),
        (f"{who} deck", f"{len(s.handles(q, Zone.DECK))} hidden card(s)"),
        (f"{who} discard pile", ", ".join(s.public_card(h).name  # type: ignore[union-attr]
                                          for h in s.handles(q, Zone.DISCARD)) or "empty"),
        (f"{who} exile", ", ".join(c.name if c is not None else "a hidden card" for c in
                                   map(s.public_card, s.handles(q, Zone.EXILE))) or "empty"),
    ]
    return facts


def _facts(s: State, seat: int) -> list[Fact]:
    facts: list[Fact] = [
        ("turn", str(s.turn + 1)),
        ("to play", "you" if s.active == seat else "the opponent"),
        ("step", f"{s.phase} ({STEP_NAMES[s.phase]})"),
        ("exiles this turn", str(s.exiles)),
    ]
    if s.dice:
        facts.append(("dice", " ".join(map(str, s.dice))))
    for q in (seat, 1 - seat):
        facts += _side_facts(s, q, seat)
    return facts


def _lines(s: State, seat: int) -> list[str]:
    """Every fact: the turn, then each side as the text UI gives it (its hero's values, its
    board, its zones)."""
    return fact_lines(_facts(s, seat), seat)
