# Narration, the result and a plain-text board for "Against the Multiverse".
#
# How the narration works. `narrate(before, inp, after, viewer)` steps `before` again with an
# event log (engine.step's `log`) and words each event: the input itself and every automatic
# operation it set off (the Multiverse's whole turn runs inside the deal, reveal and d6
# inputs: its draws, the card it activates, its flips, its attack and the d6's aim, or the
# Enhance it replaces and why, the combat's values and the rule that decided it). Replaying is
# cheap and exact: the engine is the only place that knows what happened, and the state holds
# no history.
#
# What it may name. Only revealed identities (`known` of `after`): a face-down card is "a
# face-down card", a dealt card's handle never names it. A solo run's state holds every card
# it has revealed (the run file is public), so the public narration (viewer None) names the
# same cards as the player's, in the third person ("player 1"), never "you".
from __future__ import annotations

from typing import Any

from . import engine as E

COLUMNS = ("left", "centre", "right")
#: the d6 faces that aim at each of your slots (§11.1.14)
AIM_FACES = ("1-2", "3-4", "5-6")


def _name(state: E.State, h: int) -> str:
    cid = state.d["known"].get(str(h))
    if cid is None:
        return "[face-down]"
    try:
        p = state.cat.power(cid)
    except KeyError:
        return state.cat.battleground(cid).name
    return f"{p.name} ({p.type} {p.power}, {p.activation} {p.effect} {p.amount})"


def short(state: E.State, h: int) -> str:
    """A card's name, "a face-down card" when it is not revealed."""
    cid = state.d["known"].get(str(h))
    if cid is None:
        return "a face-down card"
    try:
        return state.cat.power(cid).name
    except KeyError:
        return state.cat.battleground(cid).name


def card_text(state: E.State, h: int) -> str:
    """A revealed card's full rules text ("" when it is face down)."""
    cid = state.d["known"].get(str(h))
    if cid is None:
        return ""
    try:
        return state.cat.power(cid).text
    except KeyError:
        return state.cat.battleground(cid).text


class Words:
    """How the player's side is named to `viewer`: "you" to the player (seat 0), "player 1"
    to the public (None)."""

    def __init__(self, viewer: int | None) -> None:
        self.me = viewer == E.PLAYER

    def who(self, side: int) -> str:
        return "the Multiverse" if side == E.MULTIVERSE else "you" if self.me else "player 1"

    def whose(self, side: int) -> str:
        return "the Multiverse's" if side == E.MULTIVERSE else "your" if self.me else \
            "player 1's"

    def does(self, side: int, verb: str, third: str = "") -> str:
        """`who(side) verb`, the verb agreeing ("you draw", "player 1 draws")."""
        if side == E.PLAYER and self.me:
            return f"you {verb}"
        return f"{self.who(side)} {third or verb + 's'}"


def result(state: E.State, viewer: int | None) -> str | None:
    """The finished game's result in words: victory or defeat, why, the score and how it is
    counted (§11.1.1, §11.1.22); None while the game runs."""
    d = state.d
    if d["outcome"] is None:
        return None
    w, label, score = Words(viewer), d["outcome"][0], E.score(state)
    turns = f"after {d['turn']} turn{'s' if d['turn'] != 1 else ''}"
    if label == "victory":
        kept = sum(h >= 0 for h in d["pdef"])
        left = E.deck_left(d, state.rules, state.cat, 0)
        return (f"Victory {turns}: {w.who(0)} defeated every Multiverse defense card. Score "
                f"{score} (100 + 10 x {kept} defense card{'s' if kept != 1 else ''} kept + "
                f"{left} Power card{'s' if left != 1 else ''} left in the deck).")
    why = {"defenses-eliminated": f"{w.whose(0)} three defense cards were all defeated",
           "deck-exhausted": "a card had to be drawn from the empty Power deck"}.get(
        label, label)
    return (f"Defeat {turns}: {why}. Score {score} (10 x {d['defeated']} Multiverse defense "
            f"card{'s' if d['defeated'] != 1 else ''} defeated).")


def narrate(before: E.State, inp: str, after: E.State, viewer: int | None = 0) -> list[str]:
    """What happened from `before` by `inp` to `after`, as sentences (see the module note)."""
    log: list[tuple[Any, ...]] = []
    E.step(before, inp, log)
    told = _Teller(before, after, Words(viewer))
    out = [line for event in log for line in told.event(event)]
    return out or [f"{inp}"]


def _signed(parts: tuple[tuple[str, int, int], ...], state: E.State) -> str:
    """A side's power as its sum: "Ember Knight 4 + Ash Plains surge 1 - shield 1"."""
    words = []
    for what, h, v in parts:
        if what == "power":
            label = short(state, h)
        elif what in ("surge", "fortify"):
            label = f"{short(state, h)} {what}"
        elif what in ("rally", "shield"):
            label = what
        else:  # a card's skill
            label = f"{short(state, h)}'s {what}"
        sign = "-" if v < 0 else "+"
        words.append(f"{sign} {label} {abs(v)}" if words else f"{label} {v}")
    return " ".join(words)


class _Teller:
    def __init__(self, before: E.State, after: E.State, w: Words) -> None:
        self.before, self.after, self.w = before, after, w

    def name(self, h: int) -> str:
        return short(self.after, h)

    def full(self, h: int) -> str:
        """A card with its numbers and ability: "Ember Knight (super 4, offensive boost 1)"."""
        return _name(self.after, h) if str(h) in self.after.d["known"] else "a face-down card"

    def event(self, e: tuple[Any, ...]) -> list[str]:
        handler = getattr(self, "_" + e[0].replace("-", "_"))
        return handler(*e[1:])

    # --- deals and reveals
    def _dealt(self, deck: int, dest: str, *args: int) -> list[str]:
        w, after = self.w, self.after
        left = E.deck_left(after.d, after.rules, after.cat, 0)
        said = {
            "pbg": f"a battleground is dealt face up to {w.who(0)}",
            "mbg": f"a battleground is dealt face up to the Multiverse's row {args[0] + 1}"
            if args else "",
            "pdef": f"a defense card is dealt face down to {w.whose(0)} "
                    f"{COLUMNS[args[0]] if args else ''} slot (unknown until it flips)",
            "mdef": f"a defense card is dealt face down to the Multiverse's row "
                    f"{args[0] + 1}, {COLUMNS[args[1]]}" if len(args) > 1 else "",
            "hand": f"{w.does(0, 'draw')} a card from the Power deck ({left} left)",
            "mill": f"the Multiverse draws a card ({left} left in the Power deck): it has no "
                    "hand, so the card is discarded",
            "mdraw": f"the Multiverse draws a second card ({left} left): if it is a Super with "
                     "a slow ability, it activates for the Multiverse; then it is discarded",
            "replace": f"a card is dealt face down into the Multiverse's row "
                       f"{args[0] + 1}, {COLUMNS[args[1]]}, in place of the discarded Enhance; "
                       "it does not attack this turn" if len(args) > 1 else "",
        }
        return [said.get(dest, f"a card is dealt ({dest})")]

    def _shown(self, h: int, purpose: str, *args: int) -> list[str]:
        w, d = self.w, self.after.d
        if purpose == "show":
            text = card_text(self.after, h).rstrip(".")
            if h == d["pbg"]:
                return [f"{w.whose(0)} battleground: {text}"]
            rows = [r for r, row in enumerate(d["rows"]) if row["bg"] == h]
            if rows:
                return [f"the Multiverse's row {rows[0] + 1} battleground: {text}"]
            return [f"{w.does(0, 'draw')} {self.full(h)}"]
        if purpose == "mill":
            return [f"the Multiverse discards {self.full(h)}"]
        if purpose == "mdraw":
            p = self.after.cat.power(d["known"][str(h)])
            why = ("a Super with a slow ability: it activates for the Multiverse, then it is "
                   "discarded") if p.type == "super" and p.activation in ("trigger", "delayed") \
                else ("not a Super with a slow ability, so it does nothing and is discarded")
            return [f"the Multiverse draws {self.full(h)}: {why}"]
        if purpose == "mflip":
            return [f"the Multiverse flips its row {args[0] + 1} {COLUMNS[args[1]]} card face "
                    f"up: {self.full(h)} (abilities do not activate when it flips its own cards)"]
        if purpose == "dflip-m":
            return [f"{w.whose(0)} attack flips the Multiverse's {COLUMNS[args[1]]} card: "
                    f"{self.full(h)}"]
        if purpose == "dflip-p":
            return [f"the Multiverse's attack flips {w.whose(0)} {COLUMNS[args[0]]} defense "
                    f"card: {self.full(h)}"]
        return [f"revealed: {self.full(h)}"]

    # --- effects
    def _slow(self, side: int, effect: str, n: int) -> list[str]:
        w, other = self.w, 1 - side
        cards = f"{n} card{'s' if n != 1 else ''}"
        if effect == "draw":
            if side == E.MULTIVERSE:
                return [f"the Multiverse's effect: it draws {cards} and discards "
                        f"{'them' if n != 1 else 'it'} (it has no hand)"]
            return [f"{w.whose(side)} effect: {w.does(side, 'draw')} {cards}"]
        if effect == "shield":
            return [f"{w.whose(side)} shield {n}: {w.whose(other)} next attack has -{n} power"]
        return [f"{w.whose(side)} rally {n}: {w.whose(side)} next attack has +{n} power"]

    def _delay(self, side: int, effect: str, n: int) -> list[str]:
        return [f"{self.w.whose(side)} delayed {effect} {n} waits for the end of this turn"]

    # --- your turn
    def _turn(self, n: int) -> list[str]:
        return [f"turn {n}: {self.w.whose(0)} turn begins (phase 1: draw a card)"]

    def _activate(self, h: int) -> list[str]:
        return [f"{self.w.does(0, 'activate')} {self.full(h)}"]

    def _draw(self) -> list[str]:
        return [f"{self.w.does(0, 'do', 'does')} not attack, so "
                f"{'you draw' if self.w.me else 'draws'} a card instead (phase 2)"]

    def _end_turn(self) -> list[str]:
        return [f"{self.w.does(0, 'end')} phase 2 without a slow activation"]

    def _actions_done(self) -> list[str]:
        return [f"{self.w.whose(0)} phase 2 is over (a slow card used, and an attack or a "
                "draw)"]

    def _attack(self, h: int, r: int, c: int) -> list[str]:
        target = self.before.d["rows"][r]["cards"][c]
        return [f"{self.w.does(0, 'attack')} the Multiverse's {COLUMNS[c]} card "
                f"({short(self.before, target)}) with {self.full(h)}"]

    def _hand_limit(self, n: int) -> list[str]:
        return [f"{self.w.does(0, 'hold')} {n} cards at the end of the turn: discard down "
                "to six"]

    def _discard(self, h: int) -> list[str]:
        return [f"{self.w.does(0, 'discard')} {self.name(h)} (hand limit six)"]

    def _phase3(self, side: int, n: int) -> list[str]:
        what = f"{n} delayed effect{'s' if n != 1 else ''} resolve{'s' if n == 1 else ''}" \
            if n else "no delayed effect to resolve"
        return [f"end of {self.w.whose(side)} turn (phase 3): {what}"]

    # --- the Multiverse's turn
    def _mturn(self) -> list[str]:
        return ["the Multiverse's turn begins"]

    def _mattack(self, r: int, attackers: tuple[int, ...]) -> list[str]:
        names = ", ".join(self.name(h) for h in attackers)
        return [f"the Multiverse attacks with every Super of its row {r + 1}: {names} "
                "(Enhance cards never attack); a d6 picks the target"]

    def _replace(self, r: int, c: int, h: int) -> list[str]:
        return [f"no Super in the Multiverse's row {r + 1}, so it does not attack: it discards "
                f"its leftmost Enhance, {self.name(h)} ({COLUMNS[c]}), as it always begins "
                "with the leftmost card of its nearest row when it must choose one"]

    def _aim(self, roll: int, aimed: int, slot: int) -> list[str]:
        w, d = self.w, self.after.d
        line = (f"the Multiverse rolls {roll} ({AIM_FACES[aimed]} aims {COLUMNS[aimed]}): it "
                f"attacks {w.whose(0)} {COLUMNS[aimed]} defense card")
        if slot != aimed:
            line += (f", an empty slot, so the aim passes rightwards to {w.whose(0)} "
                     f"{COLUMNS[slot]} card")
        target = d["pdef"][slot]
        if str(target) in self.before.d["known"]:
            line += f" ({self.name(target)})"
        return [line]

    # --- combat
    def _power(self, side: int, attack: tuple[Any, ...], defense: tuple[Any, ...], a: int,
               dp: int) -> list[str]:
        return [f"combat: {self.w.whose(side)} attack {a} = {_signed(attack, self.after)} "
                f"vs defense {dp} = {_signed(defense, self.after)} (defense skill first, then "
                "offensive abilities)"]

    def _instant(self, h: int, a: int, dp: int) -> list[str]:
        return [f"{self.w.does(0, 'add')} the instant {self.full(h)}: attack {a} vs "
                f"defense {dp} now"]

    def _done(self) -> list[str]:
        return [f"{self.w.does(0, 'add')} no more instants"]

    def _no_instants(self) -> list[str]:
        return [f"{self.w.does(0, 'hold')} no instant card: the combat settles"]

    def _resolve(self, side: int, a: int, dp: int, won: bool, defender: int) -> list[str]:
        w, name = self.w, self.name(defender)
        if side == E.PLAYER:
            if won:
                return [f"attack {a} > defense {dp}: {w.whose(0)} attack defeats the "
                        f"Multiverse's {name}; it and {w.whose(0)} attacking cards go to the "
                        "discard pile"]
            why = "a tie defends" if a == dp else f"{a} < {dp}"
            return [f"attack {a} vs defense {dp} ({why}): the Multiverse's {name} holds; "
                    f"{w.whose(0)} attacking cards go to the discard pile"]
        if won:
            return [f"attack {a} > defense {dp}: the Multiverse defeats {w.whose(0)} {name} "
                    "(discarded)"]
        why = "a tie defends" if a == dp else f"{a} < {dp}"
        return [f"attack {a} vs defense {dp} ({why}): {w.whose(0)} {name} holds; the "
                "Multiverse's attackers stay in their row"]

    def _end(self, label: str) -> list[str]:
        said = result(self.after, 0 if self.w.me else None)
        return [said or f"game over: {label}"]


def narrate_start(state: E.State, viewer: int | None) -> list[str]:
    w = Words(viewer)
    rows = state.rules.rows
    return [f"{w.who(0)} face{'' if w.me else 's'} the Multiverse: {rows} row"
            f"{'s' if rows != 1 else ''} of three face-down defense cards",
            f"{w.who(0)} play{'' if w.me else 's'} first; defeat every Multiverse defense card "
            "before your three are defeated or the Power deck runs out"
            if w.me else "player 1 plays first"]


def board(state: E.State) -> str:
    """A few lines for the terminal: the Multiverse's rows, yours, your hand."""
    d: dict[str, Any] = state.d
    lines = [f"turn {d['turn']}  deck {E.deck_left(d, state.rules, state.cat, 0)}  "
             f"defeated {d['defeated']}  shield you/mv {d['shield']}  rally {d['rally']}"]
    for r in reversed(range(len(d["rows"]))):
        row = d["rows"][r]
        cells = [("-" if h < 0 else _name(state, h) if row["up"][c] else "[face-down]")
                 for c, h in enumerate(row["cards"])]
        near = " <- nearest" if r == E.nearest_row(d) else ""
        lines.append(f"row {r} on {_name(state, row['bg'])}: {' | '.join(cells)}{near}")
    mine = [("-" if h < 0 else _name(state, h) if d["pup"][c] else "[face-down]")
            for c, h in enumerate(d["pdef"])]
    lines.append(f"you on {_name(state, d['pbg'])}: {' | '.join(mine)}")
    lines.append("hand: " + "; ".join(f"{h}={_name(state, h)}" for h in d["hand"]))
    if d["combat"]:
        cb = d["combat"]
        lines.append(f"combat: attack {cb['a']} vs defense {cb['d']}")
    return "\n".join(lines)
