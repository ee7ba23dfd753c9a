# One engine step told in words, for one viewer: the log lines of the terminal UI, and for the
# public (viewer None: a spectator, `versus replay`) in the third person ("Player 2 drew a
# card"), public identities only.
#
# How it works. `narrate(before, inp, after, viewer, knowledge)` says what the input was (for
# turn actions) and then diffs the two public states handle by handle (zone, area, face,
# revealed identity, absorbed stack), so it works for any input, including the deals and reveals
# the protocol feeds and whatever Passives resolved inside the step. A card is named only if the
# viewer may know it: its identity is public in `after`, or the viewer owns it and `knowledge`
# (the viewer's private knowledge after the step) holds it. Everything else is "a card" / "a
# verso card". Tests replay many random games and check that no line ever contains the name of
# a card hidden from the viewer.
#
# What the two states cannot tell, the engine's step reports (`game.step_with_report`, the
# resolution `step` runs, watched as it goes): the Strength of both participants at each
# Absorption (§1.7.4), the battles a Passive ended before that (§1.7.5: "destroyed by a Passive,
# during its battle with ..."), and the turns that ended by themselves (§1.4.5). Both ends of a
# step mislead about a battle: a survivor that absorbed has its new level's bonus, a destroyed
# card lost its Increase, an Increase "until the end of the turn" expired when the turn ended by
# itself after the Move. So a battle line gives the Strengths the battle was decided with,
# written as the board writes them ("4+1": printed Strength and bonus), and a turn that ended by
# itself is said, with the Increases that expired with it. `resolve` gets that report by
# stepping `before` with `inp` again, and keeps it only if the step ends in `after` exactly
# (compared by `encode_state`); otherwise (the caller passed states of another step) the lines
# fall back to the Strengths of the cards after the step. A battle line also says the
# comparison that decided it ("4 beats 3"). Every input is told: a step whose two states show
# nothing yet (a deal waiting for its reveal, a recto Summon waiting for its card's reveal)
# says what was dealt or summoned, and an Activate that changed nothing says why (`no_effect`).
from __future__ import annotations

from ..errors import EngineError
from .actions import Action, ActionKind, Deal, Input, Reveal
from .decisions import GameResult, Outcome, RevealDecision, TurnDecision
from .game import (
    ABSORBED,
    DECK,
    DESTROYED,
    DISCARDED,
    FIELD,
    HAND,
    T_LAND,
    State,
    StepReport,
    _strength,
    encode_state,
    step_with_report,
)
from .views import Knowledge, strength_label

_GONE = (DESTROYED, ABSORBED)


def resolve(before: State, inp: Input, after: State) -> StepReport | None:
    """What the engine's step `before --inp-->` reports it resolved; None unless that step
    ends in `after` (then `after` is not this step's result)."""
    try:
        s, report = step_with_report(before, inp)
    except (EngineError, TypeError, AttributeError, KeyError, IndexError):
        return None
    return report if encode_state(s) == encode_state(after) else None


def narrate(before: State, inp: Input, after: State, viewer: int | None,
            knowledge: Knowledge | None) -> list[str]:
    """What `viewer` (None: the public, in the third person) may learn from the step
    `before --inp--> after`, as short sentences."""
    if viewer is None:
        knowledge = Knowledge(-1)  # the public knows public identities only
    elif knowledge is None:
        knowledge = Knowledge(viewer)
    elif knowledge.player != viewer:
        raise ValueError(f"knowledge of player {knowledge.player} given for viewer {viewer}")
    t = _Teller(before, after, viewer, knowledge, resolve(before, inp, after))
    lines: list[str] = []
    if isinstance(inp, Action):
        lines += t.action_line(inp)
        if inp.kind is ActionKind.ACTIVATE:
            why = no_effect(before, inp, after)
            if why is not None:
                lines.append(f"It had no effect: {why}")
    lines += t.zone_lines(inp)
    if not lines:
        lines += t.quiet_line(inp)
    lines += t.ended_lines()
    if after.turn != before.turn and after.result is None:
        lines.append(f"Turn {after.turn + 1}: {t.whose_player(after.active)} turn")
    if after.result is not None and before.result is None:
        lines.append(t.result_line(after.result))
    return lines


def no_effect(before: State, action: Action, after: State) -> str | None:
    """Why the Activate `before --action--> after` changed nothing on the field, in the hands,
    decks or Strengths, and asked nothing of anyone (None: it did something). The turn's
    Activate Action is spent all the same; the scene notes it before it is played."""
    if action.kind is not ActionKind.ACTIVATE or after.result is not None:
        return None
    if not isinstance(after.pending, TurnDecision):
        return None  # a deal, reveal or choice follows: something happens
    same = (before.zone == after.zone and before.pos == after.pos and before.face == after.face
            and before.ident == after.ident and before.stack == after.stack
            and before.board == after.board)
    if not same or (after.turn == before.turn and before.temp != after.temp):
        return None
    h = before.card_at(action.area)
    spec = None
    if h is not None and before.ident[h] >= 0:
        sources = [before.cat.actives[before.ident[h]],
                   *(before.cat.actives[before.ident[x]] for x in before.stack[h])]
        spec = sources[action.source] if action.source < len(sources) else None
    op = "" if spec is None else spec.op
    if op == "draw":
        return "the deck is empty, there is nothing to draw"
    if op == "discard":
        return "the opponent has no card left to discard"
    if op == "increase" and after.turn != before.turn:
        return "the Increase expired at once, with the turn that ended by itself"
    return "nothing on the field, in the hands or in the decks changes"


class _Teller:
    """Phrases for one viewer; every card name goes through `card()`, the one gatekeeper."""

    def __init__(self, before: State, after: State, viewer: int | None, knowledge: Knowledge,
                 resolution: StepReport | None) -> None:
        self.b, self.a, self.me, self.know = before, after, viewer, knowledge
        self.res = resolution

    # --- naming -----------------------------------------------------------------------------
    def known_id(self, h: int) -> str | None:
        public = self.a.public_id(h)
        if public is not None:
            return public
        if h // self.a.n == self.me:
            return self.know.cards.get(h)
        return None

    def known_before(self, h: int) -> bool:
        if self.b.public_id(h) is not None:
            return True
        return h // self.b.n == self.me and h in self.know.cards and self.b.zone[h] != DECK

    def card(self, h: int, *, face_hint: bool = False) -> str:
        cid = self.known_id(h)
        if cid is not None:
            return self.a.cat[cid].name
        return "a verso card" if face_hint else "a card"

    def who(self, p: int) -> str:
        if self.me is None:
            return f"Player {p + 1}"
        return "You" if p == self.me else "Opponent"

    def whose_player(self, p: int) -> str:
        """'your', "the opponent's", "player 2's"."""
        if self.me is None:
            return f"player {p + 1}'s"
        return "your" if p == self.me else "the opponent's"

    def whose(self, h: int) -> str:
        return self.whose_player(h // self.a.n)

    def owned(self, h: int, *, face_hint: bool = False) -> str:
        """'your Dawn Moth', "the opponent's verso card"."""
        cid = self.known_id(h)
        what = self.a.cat[cid].name if cid is not None else (
            "verso card" if face_hint else "card")
        return f"{self.whose(h)} {what}"

    def name(self, area: int) -> str:
        return self.a.geom.names[area]

    # --- the input itself -------------------------------------------------------------------
    def action_line(self, x: Action) -> list[str]:
        p = self.b.active
        if x.kind == ActionKind.END:
            return [f"{self.who(p)} ended the turn"]
        if x.kind == ActionKind.FLIP:
            return [f"{self.who(p)} flipped the card on {x.area}"]
        if x.kind == ActionKind.MOVE:
            h = self.b.card_at(x.area)
            what = self.card(h, face_hint=True) if h is not None else "a card"
            return [f"{self.who(p)} moved {what} from {x.area} to {x.to}"]
        if x.kind == ActionKind.ACTIVATE:
            h = self.b.card_at(x.area)
            what = self.card(h) if h is not None else "a card"
            src = f" (the Active of its absorbed card {x.source})" if x.source else ""
            on = f" targeting {' '.join(x.targets)}" if x.targets else ""
            return [f"{self.who(p)} activated {what} ({x.area}){src}{on}"]
        return []  # summon and pick: told by their effect below (landing, discard)

    # --- what changed -----------------------------------------------------------------------
    def zone_lines(self, inp: Input) -> list[str]:
        b, a = self.b, self.a
        lines: list[str] = []
        battles: list[str] = []
        told_gone: set[int] = set()
        for h in range(2 * a.n):
            zb, za = b.zone[h], a.zone[h]
            owner = h // a.n
            if zb == DECK and za == HAND:
                lines.append(f"{self.who(owner)} drew {self.card(h)}"
                             if owner == self.me else f"{self.who(owner)} drew a card")
            elif zb == DECK and za == FIELD:  # a start position's face-down card (SPEC §3.3)
                where = self.name(a.pos[h])
                lines.append(f"{self.who(owner)} placed {self.card(h)} face down on {where}"
                             if owner == self.me else
                             f"{self.who(owner)} placed a card face down on {where}")
            elif zb == HAND and za in (FIELD, *_GONE):
                area, recto = (a.pos[h], a.face[h]) if za == FIELD else self.landing(h)
                face = "recto" if recto else "verso"
                where = f" on {self.name(area)}" if area is not None and area >= 0 else ""
                if face == "verso" and self.known_id(h) is None:
                    lines.append(f"{self.who(owner)} summoned a verso card{where}")
                else:
                    lines.append(f"{self.who(owner)} summoned {self.card(h)} ({face}){where}")
            elif za == DISCARDED and zb != DISCARDED:
                top = " (top of the deck)" if zb == DECK else ""
                if self.known_id(h) is not None:
                    lines.append(f"{self.who(owner)} discarded {self.card(h)}{top}")
                elif not self.reveal_pending(h):
                    lines.append(f"{self.who(owner)} discarded a card")
            elif zb == za == DISCARDED and not self.known_before(h) and self.known_id(h):
                lines.append(f"{self.who(owner)} discarded {self.card(h)} (top of the deck)")
            elif zb == za == FIELD:
                if b.pos[h] != a.pos[h] and not self.moved_by_input(inp, h):
                    lines.append(_cap(f"{self.owned(h, face_hint=not a.face[h])} went from "
                                      f"{self.name(b.pos[h])} to {self.name(a.pos[h])}"))
                if not b.face[h] and a.face[h]:
                    lines.append(_cap(f"{self.owned(h)} turned recto on "
                                      f"{self.name(a.pos[h])}"))
            if za in _GONE and zb not in _GONE and h not in told_gone:
                battles += self.gone_lines(h, told_gone, inp)
        return lines + battles

    def reveal_pending(self, h: int) -> bool:
        d = self.a.pending
        return isinstance(d, RevealDecision) and d.handle == h

    def moved_by_input(self, inp: Input, h: int) -> bool:
        return (isinstance(inp, Action) and inp.kind == ActionKind.MOVE
                and self.b.card_at(inp.area) == h)

    def landing(self, h: int) -> tuple[int | None, int]:
        """(area, recto) of a summoned card that is gone already, from its pending land task."""
        for task in self.b.tasks:
            if task[0] == T_LAND and task[1] == h:
                return task[2], task[3]
        return None, 0

    def last_area(self, h: int, inp: Input) -> int | None:
        """The area a card left the field from, as far as the two states and input show it."""
        if self.b.battle is not None and h in self.b.battle[1:]:
            return self.b.battle[0]
        moved = _moved_to(self.b, inp)
        if moved is not None and moved[0] == h:
            return moved[1]
        for x in range(2 * self.a.n):  # its absorber stands where the battle was
            if h in self.a.stack[x] and self.a.zone[x] == FIELD:
                return self.a.pos[x]
        if self.b.zone[h] == HAND:
            return self.landing(h)[0]
        return self.b.pos[h] if self.b.pos[h] >= 0 else None

    def gone_lines(self, h: int, told: set[int], inp: Input) -> list[str]:
        """A card destroyed or absorbed: as a battle when it fell in one."""
        a = self.a
        area = self.last_area(h, inp)
        told.add(h)
        absorber = next((x for x in range(2 * a.n) if h in a.stack[x]
                         and h not in self.b.stack[x]), None)
        if absorber is not None:
            return [f"Battle on {self.name(area) if area is not None else '?'}: "
                    f"{self.fighter(absorber, h, area)} vs {self.fighter(h, absorber, area)}: "
                    f"{self.beats(absorber, h, area)}{self.card(h)} destroyed and absorbed by "
                    f"{self.card(absorber)}"
                    f"{self.level_note(absorber)}"]
        other = self.battled_with(h, told, inp, area)
        if other is not None and area is not None:
            where, fight = self.name(area), (f"{self.fighter(h, other, area)} vs "
                                             f"{self.fighter(other, h, area)}")
            if a.zone[other] in _GONE and self.b.zone[other] not in _GONE:
                told.add(other)
                pair = self.res.battle(h, other) if self.res is not None else None
                equal = pair is None or pair[0] == pair[1]
                each = f" ({pair[0]} each)" if pair is not None and equal else ""
                return [f"Battle on {where}: {fight}: "
                        f"{f'equal Strength{each}, both destroyed' if equal else 'both destroyed'}"]
            return [f"Battle on {where}: {self.fighter(other, h, area)} vs "
                    f"{self.fighter(h, other, area)}: {self.beats(other, h, area)}"
                    f"{self.owned(h)} destroyed"]
        where = f" on {self.name(area)}" if area is not None else ""
        foe = self.res.opponent(h) if self.res is not None else None
        if foe is not None:  # §1.7.5: a Passive destroyed it before the battle was decided
            where += f" by a Passive, during its battle with {self.owned(foe, face_hint=True)}"
        return [_cap(f"{self.owned(h, face_hint=True)} was destroyed{where}")]

    def battled_with(self, h: int, told: set[int], inp: Input, area: int | None) -> int | None:
        """The card `h` fought when it was destroyed (None: it fell to an effect). From the
        re-run when there is one; otherwise guessed from the two states: a card gone from the
        same area, else the card standing there now."""
        a = self.a
        if self.res is not None:
            foes = [x for x in self.res.fought(h) if x not in told]
            return foes[0] if foes else None
        if area is None:
            return None
        partner = next((x for x in range(2 * a.n) if x != h and x not in told
                        and a.zone[x] in _GONE and self.b.zone[x] not in _GONE
                        and self.last_area(x, inp) == area), None)
        if partner is not None:
            return partner
        survivor = a.card_at(area)
        return survivor if survivor is not None and self.in_battle(h, survivor) else None

    def in_battle(self, h: int, other: int) -> bool:
        bt = self.b.battle
        return bt is None or (h in bt[1:] and other in bt[1:])

    def fighter(self, h: int, other: int, area: int | None) -> str:
        """'Dawn Moth (3+1)': a participant and the Strength its battle with `other` was
        decided with, written as the board writes Strengths."""
        cid = self.known_id(h)
        if cid is None:
            return "a card"
        pair = self.res.battle(h, other) if self.res is not None else None
        value = pair[0] if pair is not None else self.strength_on(h, area)
        return f"{self.a.cat[cid].name} ({strength_label(self.a.cat[cid].strength, value)})"

    def beats(self, winner: int, loser: int, area: int | None) -> str:
        """'4 beats 3, ': the comparison that decided a battle (§1.7.4: the weaker card is
        destroyed), when both Strengths are known to the viewer and the first is higher."""
        if self.known_id(winner) is None or self.known_id(loser) is None:
            return ""
        pair = self.res.battle(winner, loser) if self.res is not None else None
        high, low = pair if pair is not None else (self.strength_on(winner, area),
                                                   self.strength_on(loser, area))
        return f"{high} beats {low}, " if high > low else ""

    def strength_on(self, h: int, area: int | None) -> int:
        """Without a re-run: the Strength `h` has after the step, or would have on `area`."""
        a = self.a
        if a.zone[h] == FIELD and a.face[h]:
            return _strength(a, h)
        probe = a.clone()
        cid = self.known_id(h)
        assert cid is not None
        probe.ident[h] = a.cat[cid].index
        if area is None:
            return a.cat[cid].strength
        probe.face[h], probe.pos[h], probe.zone[h] = 1, area, FIELD
        return _strength(probe, h)

    def ended_lines(self) -> list[str]:
        """The turns that ended by themselves in this step (§1.4.5)."""
        out = []
        for ended in self.res.ended if self.res is not None else ():
            whose = _cap(self.whose_player(ended.player))
            expired = ("; Increases until the end of the turn expired"
                       if ended.increases_expired else "")
            out.append(f"{whose} turn {ended.turn + 1} ended by itself (no action but 'end' "
                       f"was left){expired}")
        return out

    def level_note(self, h: int) -> str:
        lvl = self.a.level(h)
        return f" (level {lvl})" if lvl else ""

    def quiet_line(self, inp: Input) -> list[str]:
        """A deal or reveal whose effect the two states do not show yet (a discarded top card
        waiting for its reveal, a card revealed for a rule that resolves later)."""
        if isinstance(inp, Deal):
            owner = inp.handle // self.a.n
            return [f"{self.who(owner)} dealt the top card of {self.whose_player(owner)} deck "
                    f"(card {inp.handle})"]
        if isinstance(inp, Reveal):
            owner = inp.handle // self.a.n
            return [f"{self.who(owner)} revealed {self.card(inp.handle)} (card {inp.handle})"]
        if isinstance(inp, Action) and inp.kind is ActionKind.SUMMON:
            face = "recto" if inp.recto else "verso"
            who = self.who(self.b.active)
            verb = "are" if who == "You" else "is"
            return [f"{who} {verb} summoning card {inp.handle} ({face}) onto "
                    f"{inp.area}: its identity is revealed first"]
        if isinstance(inp, Action) and inp.kind is ActionKind.PICK:
            return [f"{self.who(inp.handle // self.a.n)} picked card {inp.handle} to discard"]
        return []

    def result_line(self, r: GameResult) -> str:
        """'Game over: you win (elimination: the opponent has no card left ...)'."""
        why = {
            Outcome.ELIMINATION: "{loser} no card left in deck, hand or field",
            Outcome.ABSORPTION: "{winner_s} card absorbed its fourth card",
            Outcome.MUTUAL_ELIMINATION: "both players lost their last card in the same step",
            Outcome.TURN_LIMIT: "the turn limit was reached with {counts}",
        }[r.outcome]
        alive = self.a.alive
        if r.winner is None:
            counts = f"{alive[0]} cards left each"
            return f"Game over: a draw ({r.outcome.value}: {why.format(counts=counts)})"
        counts = f"{alive[r.winner]} cards left against {alive[1 - r.winner]}"
        if self.me is None:
            head = f"player {r.winner + 1} wins"
            loser = f"player {2 - r.winner} has"
        else:
            head = "you win" if r.winner == self.me else "the opponent wins"
            loser = "the opponent has" if r.winner == self.me else "you have"
        text = why.format(loser=loser, winner_s=self.whose_player(r.winner), counts=counts)
        return f"Game over: {head} ({r.outcome.value}: {text})"


def _moved_to(s: State, inp: Input) -> tuple[int, int] | None:
    """(handle, destination area) of the card a Move or a teleport Active sends somewhere."""
    if not isinstance(inp, Action):
        return None
    geom = s.geom
    if inp.kind == ActionKind.MOVE:
        h = s.card_at(inp.area) if inp.area in geom.index else None
        return None if h is None or inp.to not in geom.index else (h, geom.index[inp.to])
    if inp.kind != ActionKind.ACTIVATE or inp.area not in geom.index:
        return None
    h = s.card_at(inp.area)
    if h is None or s.ident[h] < 0:
        return None
    sources = [s.cat.actives[s.ident[h]], *(s.cat.actives[s.ident[x]] for x in s.stack[h])]
    if inp.source >= len(sources):
        return None
    spec, targets = sources[inp.source], inp.targets
    if spec.op == "copy" and targets and s.card_at(targets[0]) is not None:
        copied = s.card_at(targets[0])
        spec, targets = s.cat.actives[s.ident[copied]], targets[1:]  # type: ignore[index]
    if spec.op != "teleport" or not targets or not all(t in geom.index for t in targets):
        return None
    mover = h if spec.target == "self" else s.card_at(targets[0])
    return None if mover is None else (mover, geom.index[targets[-1]])


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
