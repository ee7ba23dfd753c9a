# A text rendering of a Vanquishers view for the line terminal (cli/line_ui.py), the game's
# `describe_view`.
#
# What it shows: the turn and step, the last dice; per side the hero's stats (Life, Shield,
# Defense, Storage Energy and what is left this turn, V-Trigger, conditions), the equipped
# weapons and hero items with their ammunition and uses this turn, armor with durability,
# active abilities, face-down traps, hand and deck sizes, discard pile; then the viewer's hand
# with each card's rules text.
#
# Why it never leaks: a card is named only when its identity is public in the view's state
# (this game: the state never holds a hidden one) or the viewer's own knowledge says it
# (its hand and its own face-down traps); the opponent's hand and traps are counts and handles.
from __future__ import annotations

from typing import Any

from ..api import Finished
from .narration import STEP_NAMES


def _known(view: Any, h: int) -> Any:
    """The card of handle h if the viewer may know it (public, or its own), else None."""
    s = view.state
    card = s.public_card(h)
    if card is not None:
        return card
    if s.owner(h) == view.player:
        cid = view.knowledge.cards.get(h)
        return s.cat.get(cid) if cid is not None else None
    return None


def _rules(card: Any) -> str:
    from .cards import rules_text

    try:
        return rules_text(card)
    except Exception:  # a custom card the text generator does not know: its name is enough
        return card.type.value


def _side_lines(view: Any, q: int) -> list[str]:
    from .engine import CONDITIONS, S, Zone, _Work

    s = view.state
    w = _Work(s)
    side = s.sides[q]
    hero = s.hero(q)
    who = "you" if q == view.player else "opponent"
    vt = "V-Trigger ACTIVE" if side[S.VT] else f"V-Trigger costs {hero.vt_cost}"
    conditions = [f"{name} {side[f]}" for name, f in CONDITIONS.items() if side[f]]
    out = [f"{who}: {hero.name}  Life {side[S.LIFE]}/{w.max_life(q)}  "
           f"Shield {side[S.SHIELD]}/{w.max_shield(q)}  Defense {w.defense(q)}  "
           f"Energy {w.available(q)} of {side[S.STORAGE]}  {vt}"
           + (f"  conditions: {', '.join(conditions)}" if conditions else "")]
    board = s.handles(q, Zone.BOARD)
    hosted = {h: [x for x in board if s.host[x] == h] for h in board}
    for h in board:
        if s.host[h] >= 0:
            continue
        card = s.public_card(h)
        if card is None:
            continue
        t = card.type.value
        extra = ""
        if card.is_weapon_like:
            ammo = [s.public_card(x) for x in hosted[h]]
            rounds = [a.name for a in ammo if a is not None and a.type.value == "ammo"]
            mods = [a.name for a in ammo if a is not None and a.type.value == "mod"]
            need = card.ammo if t == "weapon" else 0
            extra = (f" target {card.target} dmg {card.kinetic}"
                     + (f" ammo {len(rounds)}/{need}" if need else "")
                     + (f" [{', '.join(rounds)}]" if rounds else "")
                     + (f" mods: {', '.join(mods)}" if mods else "")
                     + f" used {s.aux[h]}x this turn")
        elif t == "armor":
            extra = f" durability {s.aux[h]}"
        elif card.subtype is not None and s.aux[h]:
            extra = f" ({s.aux[h]} turn(s) left)" if card.subtype.value == "support" else \
                " (used this turn)"
        out.append(f"  #{h} {card.name} ({t}){extra}")
    traps = s.handles(q, Zone.TRAP)
    if traps:
        shown = []
        for h in traps:
            card = _known(view, h)
            shown.append(f"#{h} {card.name if card is not None else 'face down'} "
                         f"(cost {s.aux[h]})")
        out.append("  traps set: " + ", ".join(shown))
    discard = [s.public_card(h) for h in s.handles(q, Zone.DISCARD)]
    names = [c.name for c in discard if c is not None]
    out.append(f"  hand {len(s.handles(q, Zone.HAND))}, deck {len(s.handles(q, Zone.DECK))}, "
               f"discard {len(names)}" + (f" (last: {names[-1]})" if names else "")
               + f", exiled {len(s.handles(q, Zone.EXILE))}")
    return out


def render_view(view: Any) -> str:
    """The view as text lines (see the module note)."""
    s = view.state
    p = view.player
    d = view.decision
    lines: list[str] = []
    if isinstance(d, Finished):
        status = "game over: " + ("a draw" if d.winner is None else "you win" if d.winner == p
                                  else "you lose") + f" ({d.outcome})"
    elif s.active < 0:
        status = "setup: the dice decide who plays first"
    else:
        whose = "your" if s.active == p else "the opponent's"
        status = f"turn {s.turn + 1}, {whose} turn, step {s.phase} " \
                 f"({STEP_NAMES.get(s.phase, '?')})"
        if d.kind.value == "choice":
            status += f"; {'you choose' if d.player == p else 'the opponent chooses'}: {d.label}"
    lines.append(status)
    if s.dice:
        lines.append("dice: " + " ".join(str(x) for x in s.dice))
    for q in (1 - p, p):
        lines.extend(_side_lines(view, q))
    hand = s.handles(p, 1)
    lines.append("your hand:" if hand else "your hand: empty")
    for h in hand:
        card = _known(view, h)
        if card is None:
            lines.append(f"  #{h} ?")
        else:
            lines.append(f"  #{h} {card.name} (cost {card.cost}): {_rules(card)}")
    return "\n".join(lines)


__all__ = ["render_view"]
