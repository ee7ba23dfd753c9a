# The scene of "Against the Multiverse" (engine/scene.py): what the player (seat 0) or the
# public (seat None) sees, as plain data every shell draws, and the rules text of F1 / `?`.
#
# How it is laid out. The board is the part of the table the notation names: two rows of
# three columns, the Multiverse's nearest row (the only one you may attack, §11.1.10) above
# yours. Its columns are "0", "1", "2", the C of `attack H C`; the nearest row's cells have
# exactly those refs, your slots "y0", "y1", "y2" (the notation never names them: the d6 does).
# Every other card group is a zone: your hand, the battlegrounds, the rows behind the nearest
# one (whole and face down, §11.3), the cards of a combat in progress, the discard pile, the
# decks (counted). A card's ref is its handle, as `slow H`, `attack H C`, `instant H` and
# `discard H` name it. Shade words: "multiverse" for the Multiverse's row, "player" for yours.
#
# What it may show. It is built from the game's view (the public state: a solo run reveals
# every card it shows into the state, so the player and the public see the same cards):
# a card gets a face only once revealed (`known`); a face-down card, the player's own
# included (§11.1.5), is "?" with no face.
from __future__ import annotations

from typing import Any

from ..scene import Board, Card, Cell, Face, Scene, Zone, fit_label
from . import engine as E
from .cards import Catalogue
from .rules import Rules
from .text import COLUMNS, Words, result, short

LABEL = 12  # a board label's width (engine/scene.py)


def _face(cat: Catalogue, cid: str) -> Face:
    try:
        p = cat.power(cid)
    except KeyError:
        b = cat.battleground(cid)
        numbers = ((b.effect, str(b.amount)),) if b.effect != "calm" else ()
        return Face(b.name, "battleground", numbers, b.text)
    return Face(p.name, "Super" if p.type == "super" else "Enhance",
                (("power", str(p.power)), (p.activation, f"{p.effect} {p.amount}")), p.text)


class _Build:
    """One scene's parts, from the state as `seat` sees it."""

    def __init__(self, game: Any, state: E.State, seat: int | None) -> None:
        self.state, self.seat, self.w = state, seat, Words(seat)
        view = game.view(state, 0, None)  # the public state: all there is to see
        self.d: dict[str, Any] = view["state"]
        self.cat = state.cat
        self.faces: dict[str, Face] = {}  # by card id: a scene shows many copies of a card
        deciding = seat == E.PLAYER and bool(view["legal_actions"])
        self.inputs: tuple[str, ...] = tuple(view["legal_actions"]) if deciding else ()

    def naming(self, h: int) -> tuple[str, ...]:
        """The legal inputs that name card `h` by its handle."""
        return tuple(i for i in self.inputs if i.split(" ")[1:2] == [str(h)])

    def card(self, h: int, owner: int | None, up: bool = True,
             inputs: tuple[str, ...] = ()) -> Card:
        cid = self.d["known"].get(str(h)) if up else None
        if cid is None:
            return Card(str(h), "?", None, owner, ("face down",), inputs)
        face = self.faces.get(cid)
        if face is None:
            face = self.faces[cid] = _face(self.cat, cid)
        power = dict(face.numbers).get("power", "")
        if owner is None:  # a shared pile (the discard): nobody's mark
            mark = ""
        elif self.seat is None:
            mark = "1:" if owner == E.PLAYER else "M:"
        else:
            mark = "▲" if owner == E.PLAYER else "▼"
        room = LABEL - len(mark) - (len(power) + 1 if power else 0)
        name = fit_label(face.name, room)
        label = mark + name + (f" {power}" if power else "")
        return Card(str(h), label, face, owner, (), inputs or self.naming(h))

    # --- the board
    def board(self) -> Board:
        d = self.d
        near = E.nearest_row(d)
        r = near if near >= 0 else len(d["rows"]) - 1
        row = d["rows"][r]
        bg = short(self.state, row["bg"])
        cells = []
        for c in range(3):
            lines = tuple(i for i in self.inputs if i.startswith("attack ") and
                          i.endswith(f" {c}"))
            h = row["cards"][c]
            cards = (self.card(h, None, row["up"][c], lines),) if h >= 0 else ()
            cells.append(Cell(str(c), "multiverse", f"the Multiverse's row {r + 1} (nearest), "
                              f"{COLUMNS[c]}, on {bg}", cards, lines))
        mine = short(self.state, d["pbg"])
        for c in range(3):
            h = d["pdef"][c]
            cards = (self.card(h, E.PLAYER, d["pup"][c]),) if h >= 0 else ()
            cells.append(Cell(f"y{c}", "player", f"{self.w.whose(0)} {COLUMNS[c]} defense "
                              f"slot, on {mine}", cards))
        legend = ("Columns 0 left, 1 centre, 2 right: `attack H C` attacks column C of the "
                  "Multiverse's nearest row. " + ("▼ the Multiverse's cards, ▲ yours"
                                                   if self.seat is not None else
                                                   "M: the Multiverse's cards, 1: player 1's")
                  + "; ? face down; M/P: the Multiverse's row, the player's.")
        return Board(("0", "1", "2"), (f"M{r + 1}", "you" if self.w.me else "P1"),
                     tuple(cells), legend)

    # --- zones
    def zones(self) -> tuple[Zone, ...]:
        d, w = self.d, self.w
        hand = tuple(self.card(h, E.PLAYER) for h in d["hand"])
        zones = [Zone(f"{w.whose(0).capitalize()} hand", E.PLAYER, hand, hand=w.me)]
        combat = d["combat"]
        if combat is not None:
            held = [h for h in combat["attackers"] if combat["side"] == E.PLAYER]
            cards = tuple(self.card(h, E.PLAYER) for h in held + combat["instants"])
            if cards:
                zones.append(Zone("In combat", E.PLAYER, cards))
        bgs = [self.card(d["pbg"], E.PLAYER)] if d["pbg"] >= 0 else []
        bgs += [self.card(row["bg"], None) for row in d["rows"] if row["bg"] >= 0]
        zones.append(Zone("Battlegrounds", None, tuple(bgs)))
        near = E.nearest_row(d)
        for r, row in enumerate(d["rows"]):
            if r > near >= 0:
                cards = tuple(self.card(h, None, row["up"][c])
                              for c, h in enumerate(row["cards"]) if h >= 0)
                zones.append(Zone(f"Multiverse row {r + 1} (behind, on "
                                  f"{short(self.state, row['bg'])})", None, cards))
        rules, cat = self.state.rules, self.cat
        zones.append(Zone("Power deck", None, (), E.deck_left(d, rules, cat, 0)))
        zones.append(Zone("Battleground deck", None, (), E.deck_left(d, rules, cat, 1)))
        zones.append(Zone("Discard pile", None, tuple(self.card(h, None) for h in d["discard"])))
        return tuple(zones)

    # --- words
    def status(self) -> tuple[str, ...]:
        d, w, rules = self.d, self.w, self.state.rules
        whose = w.whose(d["side"])
        lines = [f"Turn {d['turn']}: {whose} turn · {rules.difficulty}, {rules.rows} row"
                 f"{'s' if rules.rows != 1 else ''} · Power deck "
                 f"{E.deck_left(d, rules, self.cat, 0)}",
                 f"Multiverse cards defeated {d['defeated']} of {3 * rules.rows} · score "
                 f"{E.score(self.state)}",
                 f"Shield: {w.who(0)} {d['shield'][0]}, the Multiverse {d['shield'][1]} · "
                 f"Rally: {w.who(0)} {d['rally'][0]}, the Multiverse {d['rally'][1]}"]
        if d["delayed"]:
            lines.append("At the end of this turn: " + "; ".join(
                f"{w.whose(s)} {effect} {n}" for s, effect, n in d["delayed"]))
        combat = d["combat"]
        if combat is not None and combat["target"] is not None and \
                all(op[0] != "power" for op in d["q"]):
            lines.append(f"Combat: {w.whose(combat['side'])} attack {combat['a']} vs defense "
                         f"{combat['d']} (attack > defense wins; a tie defends)")
        return tuple(lines)

    def prompt(self) -> str:
        if not self.inputs:
            return ""
        d, op = self.d, self.d["q"][0][0]
        if op == "instants":
            cb = d["combat"]
            wins = cb["a"] > cb["d"]
            if cb["side"] == E.PLAYER:
                who, stands = "Your attack", "you win" if wins else "the defense holds"
            else:
                who = f"The Multiverse attacks your {COLUMNS[cb['target'][0]]} card"
                stands = "your card is defeated" if wins else "your card holds"
            return (f"{who}: attack {cb['a']} vs defense {cb['d']} ({stands} as it stands; a "
                    "tie defends). Add an instant card from your hand (instant H), or stop "
                    "adding (done).")
        if op == "handlimit":
            return (f"You hold {len(d['hand'])} cards: discard one (discard H) to get down to "
                    "six.")
        slow = " You may also activate one slow card (slow H)." if any(
            i.startswith("slow ") for i in self.inputs) else ""
        if not d["main_used"]:
            return (f"Your turn {d['turn']}, phase 2: attack a card of the Multiverse's nearest "
                    "row with a Super from your hand (attack H C: card H at column C), or "
                    "draw a card instead (draw); one of them is needed before the turn can "
                    "end." + slow)
        if slow:
            return ("Activate one slow card (slow H), or end your turn's actions (end).")
        return "End your turn's actions (end): you have no slow card to activate."

    def notes(self) -> tuple[tuple[str, str], ...]:
        out = []
        for line in self.inputs:
            why = _note(self.state, line)
            if why:
                out.append((line, why))
        return tuple(out)


def _instant_room(state: E.State, but: int) -> int:
    """How much every instant card in the hand (but `but`) could move a combat."""
    d = state.d
    return sum(state.cat.power(d["known"][str(h)]).amount for h in E.instant_cards(d, state.cat)
               if h != but)


def _note(state: E.State, line: str) -> str:
    """Why the legal input `line` wastes a card or does nothing, "" when it does not."""
    d, cat = state.d, state.cat
    words = line.split(" ")
    left = E.deck_left(d, state.rules, cat, 0)
    if words[0] == "draw" and left == 0:
        return "the Power deck is empty: drawing a card loses the game (deck exhausted)"
    if words[0] == "slow":
        p = cat.power(d["known"][words[1]])
        if p.effect == "draw" and p.amount > left:
            return (f"{p.name} draws {p.amount} but the Power deck holds {left}: a draw from "
                    "the empty deck loses the game")
    if words[0] == "attack":
        preview = E.attack_preview(state, int(words[1]), int(words[2]))
        if preview is not None:
            a, dp = preview
            if a + _instant_room(state, int(words[1])) <= dp:
                name = cat.power(d["known"][words[1]]).name
                return (f"cannot win: attack {a} vs defense {dp} even with every instant in "
                        f"your hand (a tie defends); {name} is discarded")
    if words[0] == "instant":
        cb = d["combat"]
        name = cat.power(d["known"][words[1]]).name
        mine = cb["side"] == E.PLAYER
        if (cb["a"] > cb["d"]) if mine else (cb["a"] <= cb["d"]):
            return (f"this combat is already yours (attack {cb['a']} vs defense {cb['d']}): "
                    f"{name} is spent for nothing")
        room = _instant_room(state, -1)
        if (cb["a"] + room <= cb["d"]) if mine else (cb["a"] - room > cb["d"]):
            return (f"even every instant in your hand cannot turn this combat (attack "
                    f"{cb['a']} vs defense {cb['d']}): {name} is spent for nothing")
    return ""


def scene(game: Any, state: E.State, seat: int | None, knowledge: Any = None) -> Scene:
    """What `seat` (0, the player; None, the public) sees of `state` (the module note)."""
    b = _Build(game, state, seat)
    title = f"Against the Multiverse · turn {b.d['turn']}"
    return Scene(title, seat, b.status(), b.board(), b.zones(), b.prompt(), b.inputs,
                 b.notes(), result(state, seat))


def rules_text(rules: Rules) -> str:
    """The short rules and notation a player reads at the table (F1, `?`)."""
    rows = f"{rules.rows} row{'s' if rules.rows != 1 else ''}"
    return RULES_TEXT.format(difficulty=rules.difficulty, rows=rows, deck=rules.deck).strip()


RULES_TEXT = """
AGAINST THE MULTIVERSE (solo) - {difficulty}: {rows} of three Multiverse cards,
a {deck}-card Power deck.
Goal: defeat every Multiverse defense card before your three defense cards are
defeated or a card must be drawn from the empty Power deck (both are defeats).
Score: a victory 100 + 10 per defense card you kept + Power cards left in the
deck; a defeat 10 per Multiverse card defeated.

Cards. A Super attacks and defends with its power; an Enhance never attacks.
Abilities: trigger (when played or flipped), delayed (at the end of that
turn), offensive (when it attacks), defense (when it defends face up),
instant (added from the hand in a combat). Battlegrounds: surge +n to Supers
attacking from it, fortify +n to defense cards on it. Shield n: the other
side's next attack -n; rally n: your next attack +n.

Your turn. 1: draw a card. 2: in any order, activate at most one slow card
(trigger or delayed) AND either attack with one Super or draw a card - you
must attack or draw before the turn can end. 3: delayed effects resolve; keep
at most six cards. You attack one card of the Multiverse's nearest row; a
face-down card you attack flips (its trigger or delayed effect activates).
Attack > defense defeats the defender; a tie defends. Your attacking cards
are discarded either way.

The Multiverse's turn (automatic). It draws and discards a card; it draws a
second one, which activates if it is a Super with a slow ability; its nearest
row flips face up (no ability activates); all its Supers attack together at
one of your defense cards, aimed by a d6: 1-2 left, 3-4 centre, 5-6 right (an
empty slot passes the aim rightwards). With no Super in the row it discards
its leftmost Enhance and deals a face-down card in its place. When it must
choose one of its cards, it takes the leftmost of its nearest row.

Inputs (H is a card's number, C a column 0 left, 1 centre, 2 right):
  attack 12 1    attack the nearest row's centre card with your card 12
  draw           do not attack: draw a card instead
  slow 7         activate the slow card 7 from your hand
  end            end your turn's actions (after an attack or a draw)
  instant 9      add the instant card 9 to the combat; done  stop adding
  discard 4      discard card 4 (over six cards at the end of your turn)
"""
