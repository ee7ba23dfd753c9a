# The grid game's narration (SPEC Part 9, "Views and narration"): what a player, or the public,
# is told of each applied input, and the result said plainly.
#
# How: `narrate` re-runs the step with the engine's trace (state.traced_step) to learn what the
# rules did on the way (a battle's compared worths and the rule that decided it, a trap fired,
# an item that found nothing to act on, a card wasted), then compares the state before and
# after for the cards that moved (turned face up, to a graveyard, back to a hand, into play as
# a modifier). Why both: the trace says why, the diff says where every card went, and neither
# needs a hidden identity. A card is named "Name (card h)" only when its identity is public
# after the step or the viewer holds it and knows it; otherwise "card h".
#
# Words: a seat (0 or 1) is told in the first person ("You placed ..."), the opponent is "the
# opponent"; any other viewer (None: a spectator or replay) is told in the third person with
# players counted from 1 ("Player 1 placed ..."), the numbering of engine/scene.py.
from __future__ import annotations

from typing import Any

from ..api import Finished
from .cards import SIDE_NAMES, Kind, Op, Use
from .notation import GridInput, Verb
from .state import (
    Dec,
    Ev,
    GridState,
    Outcome,
    Reason,
    Waste,
    Zone,
    cell_name,
    decision,
    home_row,
    traced_step,
)
from .views import GridKnowledge, known_id


def _seat(viewer: Any) -> int | None:
    return viewer if viewer in (0, 1) else None


def who(p: int, viewer: int | None) -> str:
    """"You" / "The opponent" / "Player N" (counted from 1), to start a sentence."""
    if viewer is None:
        return f"Player {p + 1}"
    return "You" if p == viewer else "The opponent"


def whose(p: int, viewer: int | None) -> str:
    """"your" / "the opponent's" / "player N's"."""
    if viewer is None:
        return f"player {p + 1}'s"
    return "your" if p == viewer else "the opponent's"


def _verb(p: int, viewer: int | None, base: str) -> str:
    return base if p == viewer else base + ("es" if base.endswith("s") else "s")


def card_name(s: GridState, h: int, viewer: int | None, knowledge: GridKnowledge | None) -> str:
    """"Name (card h)" when `viewer` may know h in `s`, else "card h"."""
    mine = knowledge if (knowledge is not None and viewer is not None
                         and knowledge.player == viewer and s.holder[h] == viewer) else None
    cid = known_id(s, h, mine)
    return f"card {h}" if cid is None else f"{s.catalogue.card(cid).name} (card {h})"


def result_text(s: GridState, viewer: int | None) -> str:
    """The finished game's result and why, in one or two sentences."""
    d = decision(s)
    assert isinstance(d, Finished), "result_text of a game going on"
    outcome, winner = Outcome(s.result[0]), s.result[1]
    counts = [s.grid_count(0), s.grid_count(1)]
    if winner < 0:
        head = "A draw"
    elif viewer is None:
        head = f"Player {winner + 1} wins"
    else:
        head = "You win" if winner == viewer else "You lose"
    if outcome is Outcome.HOME_BASE:
        h = next((h for c, h in sorted(s.board().items()) if s.ctrl[h] == winner and s.up[h]
                  and c // s.size == home_row(1 - winner, s.size)), None)
        what = "a character" if h is None else card_name(s, h, viewer, None)
        where = "" if h is None else f" on {cell_name(s.cell[h], s.size)}"
        why = (f"{whose(winner, viewer)} {what} reached {whose(1 - winner, viewer)} home base"
               f"{where} and survived its battles")
    elif outcome is Outcome.MOST_CARDS:
        why = (f"both players are out of cards and {who(winner, viewer).lower()} "
               f"{'control' if winner == viewer else 'controls'} more cards on the grid "
               f"({counts[winner]} against {counts[1 - winner]})")
    elif outcome is Outcome.EQUAL_CARDS:
        why = (f"both players are out of cards and control {counts[0]} cards each on the "
               "grid")
    elif outcome is Outcome.SUDDEN_DEATH:
        why = (f"equal cards on the grid ({counts[0]} each) went to sudden death, and "
               f"{whose(winner, viewer)} drawn character had the higher top value")
    else:
        why = (f"equal cards on the grid ({counts[0]} each), and no two public characters "
               "with different top values to draw for sudden death")
    return f"{head}: {why}."


def narrate(before: GridState, inp: GridInput, after: GridState, viewer: Any,
            knowledge: GridKnowledge | None) -> list[str]:
    """What `viewer` (0, 1; None or any other value: the public, third person) may learn from
    the step before --inp--> after (see the module note)."""
    seat = _seat(viewer)
    _, events = traced_step(before, inp)

    def name(h: int) -> str:
        return card_name(after, h, seat, knowledge)

    def where(h: int) -> str:
        c = before.cell[h] if before.cell[h] >= 0 else after.cell[h]
        return cell_name(c, before.size) if c >= 0 else "the grid"

    out = _input_line(before, inp, after, seat, knowledge, name)
    for event in events:
        out += _event_lines(event, before, after, seat, name, where)
    out += _moves(before, inp, after, seat, name)
    if after.turn != before.turn and not after.finished:
        out.append(f"{who(after.active, seat)} {'are' if after.active == seat else 'is'} to "
                   f"play (turn {after.turn + 1})")
    if after.finished:
        out.append(result_text(after, seat))
    return out


def _input_line(before: GridState, inp: GridInput, after: GridState, seat: int | None,
                knowledge: GridKnowledge | None, name: Any) -> list[str]:
    d = before.decision
    actor = d[1] if len(d) > 1 and d[0] not in (Dec.COIN, Dec.DUEL) else -1
    v, w = inp.verb, who(actor, seat)
    if v is Verb.FIRST:
        return [f"{who(inp.player, seat)} {_verb(inp.player, seat, 'play')} first (coin "
                "flip)"]
    if v is Verb.DEAL and d[0] == Dec.PLACE:  # a start position's placing deal
        return [f"{w} placed {name(inp.handle)} face down on {cell_name(d[3], before.size)} "
                "(start position)"]
    if v is Verb.DEAL:
        return [f"{w} drew {name(inp.handle)}"]
    if v is Verb.REVEAL:
        return [f"{name(inp.handle)} is revealed"]
    if v is Verb.PLACE:
        face = "face up" if inp.up else "face down"
        return [f"{w} placed {name(inp.handle)} {face} on {inp.cell}"]
    if v is Verb.USE:
        return [f"{w} used {name(inp.handle)} from the hand as an item"]
    if v is Verb.FREE:
        return [f"{w} played {name(inp.handle)} as a FREE item before the battle"]
    if v is Verb.PASS:
        return [f"{w} played no FREE item (pass)"]
    if v is Verb.END:
        return [f"{w} ended the turn"]
    if v is Verb.PICK and d[0] == Dec.ORDER:
        return [f"{w} chose {name(inp.handle)} to battle {name(d[2])} next"]
    if v is Verb.PICK:
        return [f"{w} picked {name(inp.handle)} as the target of {name(d[2])}"]
    if v is Verb.DUEL:
        return []  # the duel event tells it
    return [f"{w}: {inp}"]


_ITEM_DOES = {
    Op.DRAW: "draws {n}", Op.DOUBLE: "may place up to two cards this turn",
    Op.AIRDROP: "may place one card on any empty cell outside the opponent's home base",
    Op.RECALL: "takes back the most recent character of the graveyard",
    Op.DESTROY: "picks an opponent card to send to the graveyard",
    Op.SCOUT: "picks a face-down opponent card to turn face up",
    Op.SHIELD: "picks a card to shield until the end of the turn",
    Op.BOOST: "picks a face-up character to boost until the end of the turn",
}
FIZZLES = {
    Op.DRAW: "the deck is empty",
    Op.RECALL: "there is no character in the graveyard",
    Op.DESTROY: "there is no unshielded opponent card on the grid",
    Op.SCOUT: "there is no face-down opponent card on the grid",
    Op.SHIELD: "its player has no unshielded card on the grid",
    Op.BOOST: "its player has no face-up character on the grid",
}
_WASTES = {  # why a card had no effect (where it went is told by the move that follows)
    Waste.FACE_UP: "{a_kind} placed face up has no effect",
    Waste.NOT_ITEM: "{a_kind} is not an item, so used as one it has no effect",
    Waste.NOT_FREE: "only a FREE item may be played in the FREE window, and this is a {use} "
                    "item",
    Waste.ACTIVATED: "an item turned face up on the grid has no effect",
    Waste.SCOUTED: "a scouted {kind} has no effect",
}


def _event_lines(ev: tuple[int, ...], before: GridState, after: GridState, seat: int | None,
                 name: Any, where: Any) -> list[str]:
    code, f = Ev(ev[0]), ev[1:]
    if code is Ev.BATTLE:
        h, e, a, b, sa, sb, reason, loser, saved, rev = f
        head = (f"Battle: {name(h)} on {where(h)}, its {SIDE_NAMES[sa]} side worth {a}, "
                f"against {name(e)} on {where(e)}, its {SIDE_NAMES[sb]} side worth {b}: ")
        if reason == Reason.WORTH:
            why = f"{max(a, b)} beats {min(a, b)}, so {name(loser)} loses"
        elif reason == Reason.ELEMENT:
            win = e if loser == h else h
            ew = after.card(win).element.value.capitalize()  # type: ignore[union-attr]
            el = after.card(loser).element.value.capitalize()  # type: ignore[union-attr]
            cycle = " (the element cycle is reversed)" if rev else ""
            why = (f"equal worths, and {ew} beats {el}{cycle}, so {name(loser)} loses")
        else:
            el = after.card(h).element.value.capitalize()  # type: ignore[union-attr]
            return [head + f"equal worths and the same element ({el}): both stay"]
        if saved:
            why += ", but it is shielded and stays on the grid"
        return [head + why]
    if code is Ev.TRAP:
        t, h, acts = f
        effect = after.card(t).effect
        assert effect is not None
        if not acts:
            gone = "is shielded" if after.zone[h] == Zone.GRID else "has left the grid"
            return [f"Trap {name(t)} fires on {name(h)} but does nothing: {name(h)} {gone}"]
        does = {Op.DESTROY: f"{name(h)} goes to the graveyard",
                Op.WEAKEN: f"every side of {name(h)} is worth {effect.amount} less while it "
                           "stays on the grid",
                Op.BOUNCE: f"{name(h)} returns to its player's hand",
                Op.BLAST: "every card next to the trap, of either player, goes to the "
                          "graveyard"}[effect.op]
        return [f"Trap {name(t)} fires on {name(h)}: {does}"]
    if code is Ev.WASTED:
        h, why = f
        card = after.card(h)
        assert card is not None
        use = card.use.value.upper() if card.use else ""
        return [f"{name(h)} is wasted: " + _WASTES[Waste(why)].format(
            kind=card.kind.value, a_kind=("an " if card.kind is Kind.ITEM else "a ")
            + card.kind.value, use=use)]
    if code in (Ev.ITEM, Ev.FIZZLE):
        item, p = f
        card = after.card(item)
        assert card is not None and card.effect is not None
        if code is Ev.FIZZLE:
            return [f"{name(item)} has no effect: {FIZZLES[card.effect.op]}"]
        if card.use is Use.MODIFIER:
            return [f"{name(item)} stays in play as a modifier: "
                    f"{card.text.split(': ', 1)[1]}"]
        n = card.effect.amount
        does = _ITEM_DOES[card.effect.op].format(n=f"{n} card{'s' if n != 1 else ''}")
        return [f"{name(item)} takes effect: {who(p, seat).lower()} "
                f"{does if p != seat else _first_person(does)}"]
    if code is Ev.NO_DRAW:
        return [f"{who(f[0], seat)} cannot draw: the deck is empty"]
    if code is Ev.SKIP:
        return [f"{who(f[0], seat)} {'hold' if f[0] == seat else 'holds'} no card and the "
                "deck is empty: the turn passes"]
    if code is Ev.FINAL:
        return [f"Both players are out of cards: {who(0, seat).lower()} "
                f"{'control' if seat == 0 else 'controls'} {f[0]} cards on the grid, "
                f"{who(1, seat).lower()} {f[1]}"]
    if code is Ev.TARGET:
        item, t = f
        effect = after.card(item).effect  # type: ignore[union-attr]
        assert effect is not None
        does = {Op.DESTROY: f"{name(t)} goes to the graveyard unless shielded",
                Op.SCOUT: f"{name(t)} is turned face up",
                Op.SHIELD: f"{name(t)} cannot go to the graveyard until the end of the turn",
                Op.BOOST: f"{name(t)} gets +{effect.amount} on every side until the end of "
                          "the turn"}.get(effect.op, "")
        return [f"{name(item)}: {does}"] if does else []
    if code is Ev.DUEL:
        a, b, ta, tb = f  # both public: drawn among the public characters
        return [f"Sudden death: {name(a)[:-1]}, top {ta}) is drawn for "
                f"{who(0, seat).lower()}, {name(b)[:-1]}, top {tb}) for "
                f"{who(1, seat).lower()}; the higher top value wins"]
    return []


def _first_person(does: str) -> str:
    return does.replace("draws", "draw").replace("takes", "take").replace("picks", "pick")


def _moves(before: GridState, inp: GridInput, after: GridState, seat: int | None,
           name: Any) -> list[str]:
    """The cards the step moved: turned face up, to a graveyard, back to a hand, in play."""
    out = []
    for h in range(len(after.zone)):
        zb, za = before.zone[h], after.zone[h]
        if zb == Zone.GRID and za == Zone.GRID and not before.up[h] and after.up[h] and \
                not (inp.verb is Verb.PLACE and inp.handle == h):
            out.append(f"{name(h)} on {cell_name(after.cell[h], after.size)} turned face up")
        if za == Zone.GRAVEYARD and zb != Zone.GRAVEYARD:
            src = (f" from {cell_name(before.cell[h], before.size)}" if zb == Zone.GRID
                   else " from the hand" if zb == Zone.HAND else "")
            out.append(f"{name(h)} went to the graveyard{src}")
        if za == Zone.HAND and zb in (Zone.GRID, Zone.GRAVEYARD):
            out.append(f"{name(h)} returned to {whose(after.ctrl[h], seat)} hand")
    return out


def narrate_start(s: GridState, viewer: Any) -> list[str]:
    seat = _seat(viewer)
    if s.rules.start:  # a match from a start position (SPEC Part 9)
        to_play = f"{who(s.active, seat).lower()} {'are' if s.active == seat else 'is'}"
        return [f"the match starts from a position at turn {s.turn + 1}: {to_play} to play"]
    if s.first < 0:
        return ["a coin flip decides who plays first"]
    if seat is None:
        return [f"player {s.first + 1} plays first"]
    return ["you play first" if s.first == seat else "the opponent plays first"]


__all__ = ["FIZZLES", "card_name", "narrate", "narrate_start", "result_text", "who", "whose"]
