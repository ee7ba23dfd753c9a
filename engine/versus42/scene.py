# What one seat (None: the public) sees of a game of Versus, as the plain-data scene every shell
# draws (engine/scene.py): the field as a board, the hands, decks and eliminated cards as zones,
# status lines, the legal inputs and what each card and area takes. The wording is the one the
# terminal UI used for Versus (cli/ui/render.py), moved here so any UI draws it the same way.
#
# How it works. Everything comes from the seat's `PlayerView` (views.py), so a card is named
# only if the view knows it; the public scene uses a view with an empty knowledge (public
# identities only) and third-person words (engine.scene.player_name). The viewer's own side is
# at the bottom: player 0 (and the public) sees row 4 on top, player 1 row 1.
#
# Words. Cell shades are the tile names: "white", "black", "gray", "blue"; a cell's label says
# the tile in words ("White tile"). A card on a cell is labelled in at most 12 characters:
# the owner's mark (▲ the seat's card, ▼ the opponent's; "1:"/"2:" for the public), its name
# (cut to fit, "?" when hidden), its Strength as printed+bonus ("4+1"), R recto or V verso,
# and ×k when it absorbed k cards: "▲Moth 4+1R×2". A card's ref is its handle (what `summon`
# and `pick` name); a cell's ref is its area (what `flip`, `move` and `activate` name).
#
# Notes. A legal Activate whose effect changes nothing (an empty deck to draw from, an opponent
# with nothing to discard, ...) is found by stepping it (`no_effect`, narrate.py) and noted, and
# so is a Summon or Move onto one's own card (the battle destroys an ally), so a UI asks once
# before it is played.
from __future__ import annotations

from collections.abc import Sequence

from ..scene import Board, Card, Cell, Face, Scene, Zone, fit_label, player_name, possessive
from .actions import Action, ActionKind, format_input
from .catalogue import Catalogue
from .decisions import (
    ChoiceDecision,
    ChoiceKind,
    DealDecision,
    GameResult,
    Outcome,
    RevealDecision,
    TurnDecision,
)
from .game import (
    _ACTIVATE,
    _FLIP,
    _MOVE,
    _SUMMON,
    ABSORBED,
    DESTROYED,
    DISCARDED,
    State,
    _allowed,
    _blue_active,
    legal_actions,
    step,
)
from .narrate import no_effect
from .ruleset import ActionOrder, Tile
from .views import FieldCard, Knowledge, PlayerView, strength_label

LABEL_MAX = 12  # characters of a card's label on a cell (engine/scene.py)
TILE_WORDS = {Tile.WHITE: "white", Tile.BLACK: "black", Tile.GRAY: "gray", Tile.BLUE: "blue"}
OWNER_MARKS = ("▲", "▼")  # the seat's cards, the opponent's
_KIND_WORDS = ((_SUMMON, "summon"), (_FLIP, "flip"), (_ACTIVATE, "activate"), (_MOVE, "move"))
_ELIMINATED = {DISCARDED: "discarded", DESTROYED: "destroyed", ABSORBED: "absorbed"}


def scene(state: State, seat: int | None, knowledge: Knowledge | None) -> Scene:
    """What `seat` (None: the public) sees of `state`."""
    if seat is not None and knowledge is not None and knowledge.player != seat:
        raise ValueError(f"knowledge of player {knowledge.player} given for seat {seat}")
    view = PlayerView(state, Knowledge(0) if seat is None else (knowledge or Knowledge(seat)),
                      0 if seat is None else seat)
    deciding = _decides(state, seat)
    actions = list(legal_actions(state)) if deciding else []
    lines = tuple(format_input(a) for a in actions)
    return Scene(
        title=f"Versus · turn {state.turn + 1}" + (" · game over" if state.result else ""),
        seat=seat, status=_status(view, seat), board=_board(view, seat, actions),
        zones=_zones(view, seat, actions), prompt=_prompt(view, seat) if deciding else "",
        inputs=lines, notes=_notes(state, actions) if deciding else (),
        result=None if state.result is None else result_text(state, seat))


def _decides(state: State, seat: int | None) -> bool:
    d = state.decision
    return seat is not None and isinstance(d, TurnDecision | ChoiceDecision) and d.player == seat


# --- the board --------------------------------------------------------------------------------


def _board(view: PlayerView, seat: int | None, actions: Sequence[Action]) -> Board:
    geom, cat = view.geometry, view.catalogue
    rows = list(range(geom.rows))
    if seat != 1:  # the viewer's side at the bottom (row 1 is player 0's Backline)
        rows.reverse()
    on_area: dict[str, list[FieldCard]] = {}
    for fc in view.field:
        on_area.setdefault(fc.area, []).append(fc)
    cells = []
    for r in rows:
        for c in range(geom.cols):
            i = r * geom.cols + c
            area, tile = geom.names[i], Tile(view.tiles[i])
            cards = tuple(_field_card(view, cat, seat, fc, actions)
                          for fc in on_area.get(area, ()))
            cells.append(Cell(area, TILE_WORDS[tile], f"{tile.name.capitalize()} tile", cards,
                              tuple(format_input(a) for a in actions if _names_area(a, area))))
    return Board(tuple(chr(ord("a") + c) for c in range(geom.cols)),
                 tuple(str(r + 1) for r in rows), tuple(cells), _legend(seat))


def _legend(seat: int | None) -> str:
    owners = ("▲ yours, ▼ the opponent's" if seat is not None
              else "1: player 1's, 2: player 2's")
    return (f"Cards: {owners}; Strength printed+bonus; R recto, V verso; ×k absorbed; ? "
            "hidden. Tiles: White/Black +1 to a recto Light/Dark card; Gray: no Flip by the "
            "opponent; Blue: as above.")


def _names_area(a: Action, area: str) -> bool:
    return a.area == area or a.to == area or area in a.targets


def owner_prefix(owner: int, seat: int | None) -> str:
    if seat is None:
        return f"{owner + 1}:"
    return OWNER_MARKS[0] if owner == seat else OWNER_MARKS[1]


def card_label(prefix: str, name: str | None, stats: str) -> str:
    """'▲Moth 4+1R×2': at most LABEL_MAX characters, the name cut first."""
    room = LABEL_MAX - len(prefix) - len(stats) - 1
    word = name or "?"
    if len(word) > room:
        word = fit_label(word, room) if room > 1 else word[:max(room, 0)]
    return f"{prefix}{word} {stats}" if word else f"{prefix}{stats}"[:LABEL_MAX]


def _field_card(view: PlayerView, cat: Catalogue, seat: int | None, fc: FieldCard,
                actions: Sequence[Action]) -> Card:
    name = cat[fc.card_id].name if fc.card_id else None
    strength = ("?" if fc.card_id is None or fc.strength is None
                else strength_label(cat[fc.card_id].strength, fc.strength))
    stats = f"{strength}{'R' if fc.recto else 'V'}" + (f"×{fc.level}" if fc.level else "")
    state = view.public_state
    status = ["recto" if fc.recto else "verso", f"on {fc.area}"]
    if fc.card_id is not None:
        status.append(f"Strength {strength}{_bonus_words(state, cat, fc)}")
    if fc.level:
        absorbed = ", ".join(cat[state.public_id(x)].name if state.public_id(x) else "?"
                             for x in state.stack[fc.handle])
        status.append(f"absorbed {fc.level}: {absorbed}")
    mine = [format_input(a) for a in actions
            if (a.area == fc.area and a.kind in (ActionKind.FLIP, ActionKind.ACTIVATE,
                                                 ActionKind.MOVE))
            or (a.kind is ActionKind.PICK and a.handle == fc.handle)]
    return Card(str(fc.handle), card_label(owner_prefix(fc.owner, seat), name, stats),
                _face(cat, fc.card_id), fc.owner, tuple(status), tuple(mine))


def _bonus_words(state: State, cat: Catalogue, fc: FieldCard) -> str:
    """Where the "+1" of a Strength written "4+1" comes from, said beside it (the focus line
    of the cursor's cell shows a card's marks): the tile (§1.9: +1 to a recto Light card on
    White, a recto Dark card on Black), an Increase, the Passives; "" without a bonus."""
    assert fc.card_id is not None and fc.strength is not None
    card = cat[fc.card_id]
    if fc.strength == card.strength:
        return ""
    tile = Tile(state.tiles[state.geom.names.index(fc.area)])
    energy = card.energy_name.lower()
    on_tile = fc.recto and (tile, energy) in ((Tile.WHITE, "light"), (Tile.BLACK, "dark"))
    increase = state.temp[fc.handle]
    rest = fc.strength - card.strength - int(on_tile) - increase
    parts = ([f"+1 {TILE_WORDS[tile].capitalize()} tile (recto {energy.capitalize()} card)"]
             if on_tile else [])
    parts += [f"{increase:+d} Increase"] if increase else []
    parts += [f"{rest:+d} Passive"] if rest else []
    return f" = printed {card.strength} " + ", ".join(parts)


def _face(cat: Catalogue, card_id: str | None) -> Face | None:
    if card_id is None:
        return None
    card = cat[card_id]
    energy = card.energy_name.capitalize()
    return Face(card.name, f"{energy} card",
                (("Energy", energy), ("Strength", str(card.strength))), card.text)


# --- the zones ----------------------------------------------------------------------------------


def _zones(view: PlayerView, seat: int | None, actions: Sequence[Action]) -> tuple[Zone, ...]:
    order = (0, 1) if seat is None else (1 - seat, seat)
    zones: list[Zone] = []
    for p in order:
        zones += [_eliminated(view, p, seat), _deck(view, p, seat), _hand(view, p, seat, actions)]
    return tuple(zones)


def _hand(view: PlayerView, p: int, seat: int | None, actions: Sequence[Action]) -> Zone:
    cat, cards = view.catalogue, []
    for h in view.hand_handles(p):
        cid = view.identity(h)
        lines = tuple(format_input(a) for a in actions
                      if a.handle == h and a.kind in (ActionKind.SUMMON, ActionKind.PICK))
        label = "?" if cid is None else cat[cid].name
        cards.append(Card(str(h), label, _face(cat, cid), p, (), lines))
    return Zone(f"{possessive(p, seat)} hand", p, tuple(cards), hand=p == seat)


def _deck(view: PlayerView, p: int, seat: int | None) -> Zone:
    return Zone(f"{possessive(p, seat)} deck", p, (), view.deck_count(p))


def _eliminated(view: PlayerView, p: int, seat: int | None) -> Zone:
    state, cat, cards = view.public_state, view.catalogue, []
    for h in state.handles(p):
        how = _ELIMINATED.get(state.zone[h])
        if how is None:
            continue
        cid = view.identity(h)
        cards.append(Card(str(h), "?" if cid is None else cat[cid].name, _face(cat, cid), p,
                          (how,)))
    return Zone(f"{possessive(p, seat)} eliminated cards", p, tuple(cards))


# --- words --------------------------------------------------------------------------------------


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _status(view: PlayerView, seat: int | None) -> tuple[str, ...]:
    state = view.public_state
    limit = 2 * state.rules.max_turns
    lines = [f"Turn {state.turn + 1} of {limit}: {_waiting(state, seat)}."]
    for p in (0, 1) if seat is None else (seat, 1 - seat):
        field = sum(1 for fc in view.field if fc.owner == p)
        lines.append(f"{_cap(player_name(p, seat))}: deck {view.deck_count(p)}, hand "
                     f"{len(view.hand_handles(p))}, field {field}, cards left {view.alive(p)}.")
    blue = state.geom.names[state.blue]
    now = "on: a recto card stands there" if _blue_active(state) else "off"
    lines.append(f"Blue tile {blue}: Summons unlimited while a recto card stands there ({now}).")
    return tuple(lines)


def _waiting(state: State, seat: int | None) -> str:
    """What the game waits for, in words for `seat`."""
    d = state.decision
    if isinstance(d, GameResult):
        return "the game is over"
    if isinstance(d, TurnDecision):
        return f"{possessive(d.player, seat)} turn"
    who = player_name(d.player, seat)
    if isinstance(d, ChoiceDecision):
        return f"{who} must choose a card to discard"
    if isinstance(d, DealDecision):
        return f"a card is dealt from {possessive(d.player, seat)} deck ({d.purpose.value})"
    assert isinstance(d, RevealDecision)
    return f"{who} must reveal card {d.handle}"


def _prompt(view: PlayerView, seat: int | None) -> str:
    state, d = view.public_state, view.decision
    if isinstance(d, ChoiceDecision):
        if d.kind is ChoiceKind.DISCARD_FROM_HAND:
            return ("Your deck is empty: choose a card of your hand to discard "
                    "(pick <handle>).")
        return ("Your deck and hand are empty: choose a card of yours on the field to "
                "discard (pick <handle>).")
    left = [word for kind, word in _KIND_WORDS if _allowed(state, kind)]
    order = " (in this order)" if state.rules.action_order is ActionOrder.ORDERED else ""
    actions = f"{', '.join(left)}{order}, or end" if left else "only end"
    return (f"Turn {state.turn + 1}: your move. Actions left: {actions}. "
            "Example: summon 7 b2 recto, move b2 b3, end.")


def _notes(state: State, actions: Sequence[Action]) -> tuple[tuple[str, str], ...]:
    """The legal inputs that waste a card (a battle with one's own card: §1.7.4, the weaker
    ally is destroyed, never absorbed) or do nothing (an Activate without effect)."""
    notes = []
    for a in actions:
        why = None
        if a.kind is ActionKind.ACTIVATE:
            why = no_effect(state, a, step(state, a))
        elif a.kind in (ActionKind.SUMMON, ActionKind.MOVE):
            where = a.to if a.kind is ActionKind.MOVE else a.area
            there = state.card_at(where)
            if there is not None and state.owner(there) == state.active:
                why = (f"starts a battle with your own card on {where}: the weaker of the two "
                       "is destroyed, and an ally is never absorbed")
        if why is not None:
            notes.append((format_input(a), why))
    return tuple(notes)


def result_text(state: State, seat: int | None) -> str:
    """The result said plainly, and why."""
    r = state.result
    assert r is not None
    rules = state.rules
    if r.winner is None:
        if r.outcome is Outcome.MUTUAL_ELIMINATION:
            return "A draw: both players lost their last card in the same step."
        return (f"A draw: the turn limit ({rules.max_turns} turns each) was reached with "
                f"{state.alive[0]} cards left each.")
    w, lost = r.winner, 1 - r.winner
    head = "You win" if w == seat else f"{_cap(player_name(w, seat))} wins"
    if r.outcome is Outcome.ELIMINATION:
        loser = player_name(lost, seat)
        has = "have" if lost == seat else "has"
        return f"{head}: {loser} {has} no card left in deck, hand or field."
    if r.outcome is Outcome.ABSORPTION:
        return (f"{head}: {possessive(w, seat)} card absorbed its fourth card (level 4 "
                f"eliminates all {possessive(lost, seat)} cards).")
    return (f"{head}: the turn limit ({rules.max_turns} turns each) was reached with "
            f"{state.alive[w]} cards left against {state.alive[lost]}.")


# --- the rules at the table -----------------------------------------------------------------


_RULES = """\
Versus: two players, {deck} cards each (a hand of {hand} to start), on a field of {rows} rows
x {cols} columns, areas a1..{last}. Player 1 owns rows 1-{half} (its Backline: row 1), player 2
rows {half1}-{rows} (its Backline: row {rows}). Goal: eliminate all the opponent's cards: deck,
hand and field.

Turn: up to one Summon, Flip, Activate and Move, {order}, then end. The turn
also ends by itself when nothing but 'end' is left. Nobody draws at the start of a turn.
  Summon    a hand card onto an area of your side, recto (face up) or verso.
  Flip      turn a verso card recto (not the opponent's on a Gray tile).
  Activate  the Active of one of your recto cards (or of a card it absorbed).
  Move      one of your cards to an adjacent area (diagonals too).

Battle: two cards on one area (after a Summon, a Move or a Teleport). Verso participants
are turned recto; the weaker current Strength is destroyed and, if an enemy, absorbed
under the stronger; equal Strengths destroy both. A destroyed card's owner draws.

Strength: printed, +1 for a recto Light card on White or a recto Dark card on Black,
plus Increases and Passives. The board writes 4+1: printed 4, bonus +1 (the cursor's
cell says where the bonus comes from). Only recto cards' abilities work.
Absorbed cards: level 1 uses their Actives (activate b2/1), level 2 resists Passives,
level 3 resists Actives, level 4 wins the game at once.

Backline: a Move into the opponent's Backline makes it discard its top deck card.
Blue: while a recto card stands on the Blue tile, Summons are unlimited.
End: a player with no card left loses; after {turns} turns each, more cards left wins.

Inputs (a card by its handle, the number shown with it; an area as a1..{last}):
  summon 7 b2 recto        card 7 onto b2 face up (verso: face down)
  flip c3                  turn the verso card on c3 recto
  activate b2 c3           b2's Active on the card on c3 (as its text says)
  activate c3/2 d4 b1      the Active of c3's second absorbed card
  move c3 c4               the card on c3 to c4 (a battle if c4 is occupied)
  end                      end the turn
  pick 5                   discard card 5 when a rule asks you to choose one"""


def rules_text(rules: object) -> str:
    """The short rules and notation (SPEC Part 1 and §3.2's notation), wrapped at 78
    columns: the paragraphs rewrapped, the indented table lines kept."""
    import textwrap

    from .ruleset import Ruleset

    assert isinstance(rules, Ruleset)
    order = ("in this order" if rules.action_order is ActionOrder.ORDERED
             else "in any order")
    text = _RULES.format(deck=rules.deck_size, hand=rules.hand_size, rows=rules.rows,
                         cols=rules.cols, last=rules.geometry.names[-1], order=order,
                         turns=rules.max_turns, half=rules.rows // 2,
                         half1=rules.rows // 2 + 1)
    out: list[str] = []
    for block in text.split("\n\n"):  # a paragraph, then its indented table lines kept
        lines = block.splitlines()
        out += [""] if out else []
        words = [line for line in lines if not line.startswith("  ")]
        out += textwrap.wrap(" ".join(words), 78) if words else []
        out += [line for line in lines if line.startswith("  ")]
    return "\n".join(out)
