# The rules of "Against the Multiverse" (SPEC Part 11): a pure state machine.
#
# How it works. A state is a plain JSON-able dict (`State.d`) and the card data; `step` copies
# the dict, applies the input to the operation at the head of the state's queue (`q`), then
# runs the queue's automatic operations until one needs an input (a DEAL, a REVEAL, the d6, a
# TURN or a CHOICE) or the game ends. A turn is a short list of operations pushed onto the
# queue (`_push`); an effect that draws pushes its deals in front.
#
# Hidden cards (§11.3). A card's handle is its DEAL POSITION: the k-th card dealt from the Power
# deck is handle k, the k-th Battleground is handle `rules.deck + k`. A handle never indexes
# the public decklist, so a handle, the state and every view say nothing about a face-down
# card; its identity enters the state only through a REVEAL (`known`), which `step` checks
# against the deck's contents: the decklist (public, §11.1.3) less the cards already revealed from
# it. Whoever answers the reveals (protocol/solo) is what binds identities to positions.
#
# Events. `step(state, text, log)` appends to `log` (when given) one tuple per thing that
# happened, the automatic operations included, in the order they ran: ("dealt", deck, handle,
# destination...), ("shown", handle, purpose...), ("slow", side, effect, n, now), ("turn", n),
# ("aim", roll, aimed slot, slot), ("power", attack parts, defense parts, a, d), ("resolve",
# side, a, d, won, defender), ("replace", row, column, handle), ("end", outcome)... The
# narration (text.py) words them; the state never holds them, so the encoding and the hash do
# not depend on whether anyone listens.
from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from ..errors import GameOverError, IllegalActionError, MalformedActionError
from .cards import SLOW, Catalogue
from .rules import Rules, battleground_decklist, encode, power_decklist

HAND_LIMIT = 6
PLAYER, MULTIVERSE = 0, 1
#: d6 outcome (1..6) -> aimed slot (§11.1.14): 1-2 left, 3-4 centre, 5-6 right
AIM = {1: 0, 2: 0, 3: 1, 4: 1, 5: 2, 6: 2}
INPUT_OPS = ("deal", "reveal", "turn", "instants", "aim", "handlimit")

#: where `step` tells what happened (the module note "Events"); None: nobody listens
Log = list[tuple[Any, ...]] | None


def _say(log: Log, *event: Any) -> None:
    if log is not None:
        log.append(event)


class State:
    """An immutable game state: `d` (never mutated once built), the rules and the card data."""

    __slots__ = ("_enc", "cat", "d", "rules")

    def __init__(self, d: dict[str, Any], rules: Rules, cat: Catalogue) -> None:
        self.d, self.rules, self.cat = d, rules, cat
        self._enc = json.dumps(d, sort_keys=True, separators=(",", ":")).encode()

    def encode(self) -> bytes:
        return self._enc

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other._enc == self._enc and \
            other.rules == self.rules and other.cat.digest == self.cat.digest

    def __hash__(self) -> int:
        return hash(self._enc)


#: each (rules, card data)'s decklists, kept: a pure function of both that every step asks for
#: (a deck's handles, what a reveal may name), and building the Power deck walks the catalogue
#: round by round (it was a third of a run's time). Keyed by the catalogue's canonical bytes
#: (their hash is computed once per object); a few entries at most, cleared past a bound.
_DECKLISTS: dict[tuple[Rules, bytes], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def decklists(rules: Rules, cat: Catalogue) -> tuple[tuple[str, ...], tuple[str, ...]]:
    key = (rules, cat.canonical)
    lists = _DECKLISTS.get(key)
    if lists is None:
        if len(_DECKLISTS) >= 64:
            _DECKLISTS.clear()
        lists = _DECKLISTS[key] = (power_decklist(rules, cat), battleground_decklist(cat))
    return lists


def deck_handles(rules: Rules, cat: Catalogue, deck: int) -> range:
    """The handles of `deck` (0 Power, 1 Battleground): its deal positions."""
    powers, bgs = decklists(rules, cat)
    return range(0, len(powers)) if deck == 0 else range(len(powers), len(powers) + len(bgs))


def deck_of(rules: Rules, cat: Catalogue, handle: int) -> int:
    for deck in (0, 1):
        if handle in deck_handles(rules, cat, deck):
            return deck
    raise IllegalActionError(f"no card has handle {handle}")


def unrevealed(d: dict[str, Any], rules: Rules, cat: Catalogue, deck: int) -> list[str]:
    """The cards of `deck` not revealed yet (in the deck or face down), in decklist order: the
    public decklist less one copy of each card of the deck revealed so far. What a REVEAL
    from the deck may name."""
    handles = deck_handles(rules, cat, deck)
    gone = Counter(cid for h, cid in d["known"].items() if int(h) in handles)
    out = []
    for cid in decklists(rules, cat)[deck]:
        if gone[cid]:
            gone[cid] -= 1
        else:
            out.append(cid)
    return out


def new_game(rules: Rules, cat: Catalogue) -> State:
    d: dict[str, Any] = {
        "known": {}, "dealt": [[], []], "hand": [], "pbg": -1, "pdef": [-1, -1, -1],
        "pup": [False, False, False],
        "rows": [{"bg": -1, "cards": [-1, -1, -1], "up": [False, False, False]}
                 for _ in range(rules.rows)],
        "discard": [], "turn": 0, "side": PLAYER, "slow_used": False, "main_used": False,
        "shield": [0, 0], "rally": [0, 0], "delayed": [], "combat": None, "defeated": 0,
        "outcome": None, "last_roll": 0, "q": [],
    }
    q: list[list[Any]] = [["deal", 1, "pbg"]]
    q += [["deal", 0, "pdef", i] for i in range(3)]
    for r in range(rules.rows):
        q += [["deal", 1, "mbg", r]] + [["deal", 0, "mdef", r, c] for c in range(3)]
    q += [["deal", 0, "hand"] for _ in range(HAND_LIMIT)]
    q.append(["pturn"])
    d["q"] = q
    return State(_advance(d, rules, cat), rules, cat)


# --- helpers ------------------------------------------------------------------------------


def nearest_row(d: dict[str, Any]) -> int:
    """The Multiverse row nearest to the player: the first with a card left, or -1."""
    for r, row in enumerate(d["rows"]):
        if any(h >= 0 for h in row["cards"]):
            return r
    return -1


def _card(d: dict[str, Any], cat: Catalogue, h: int) -> Any:
    return cat.power(d["known"][str(h)])


def _bg_bonus(d: dict[str, Any], cat: Catalogue, bg: int, kind: str) -> int:
    if bg < 0 or str(bg) not in d["known"]:
        return 0
    b = cat.battleground(d["known"][str(bg)])
    return b.amount if b.effect == kind else 0


def deck_left(d: dict[str, Any], rules: Rules, cat: Catalogue, deck: int) -> int:
    """How many cards of `deck` (0 Power, 1 Battleground) are not dealt yet."""
    return len(deck_handles(rules, cat, deck)) - len(d["dealt"][deck])


def next_handle(d: dict[str, Any], rules: Rules, cat: Catalogue, deck: int) -> int:
    """The handle the next DEAL from `deck` gives: its next deal position."""
    return deck_handles(rules, cat, deck).start + len(d["dealt"][deck])


def _finish(d: dict[str, Any], label: str, winner: int | None, log: Log) -> None:
    if d["outcome"] is None:
        d["outcome"] = [label, winner]
        _say(log, "end", label)


def _check_end(d: dict[str, Any], log: Log) -> None:
    if d["rows"] and all(h < 0 for row in d["rows"] for h in row["cards"]) and \
            d["turn"] > 0:
        _finish(d, "victory", PLAYER, log)
    elif d["turn"] > 0 and all(h < 0 for h in d["pdef"]):
        _finish(d, "defenses-eliminated", None, log)


def multiverse_choice(d: dict[str, Any], fits: Any) -> tuple[int, int] | None:
    """The Multiverse's defense card a rule or an effect makes it choose (§11.1.20): the
    leftmost card of its nearest row for which `fits(handle)` holds, as (row, column); None
    when no card there fits. The Multiverse has no will: it always begins at the left."""
    r = nearest_row(d)
    if r < 0:
        return None
    return next(((r, c) for c, h in enumerate(d["rows"][r]["cards"]) if h >= 0 and fits(h)),
                None)


def _push(d: dict[str, Any], *ops: list[Any]) -> None:
    d["q"][0:0] = [list(op) for op in ops]


def _slow(d: dict[str, Any], side: int, effect: str, n: int, log: Log) -> None:
    """A slow (trigger or delayed) effect of `side` (§11.1.9)."""
    _say(log, "slow", side, effect, n)
    if effect == "draw":
        dest = "hand" if side == PLAYER else "mill"
        _push(d, *[["deal", 0, dest] for _ in range(n)])
    elif effect == "shield":
        d["shield"][side] += n
    elif effect == "rally":
        d["rally"][side] += n


def _activate_flip(d: dict[str, Any], cat: Catalogue, side: int, h: int, log: Log) -> None:
    """A defense card flipped face-up by an attack: its trigger now, its delayed at the end of
    the turn (§11.1.12, §11.1.20)."""
    p = _card(d, cat, h)
    if p.activation == "trigger":
        _slow(d, side, p.effect, p.amount, log)
    elif p.activation == "delayed":
        _delay(d, side, p.effect, p.amount, log)


def _delay(d: dict[str, Any], side: int, effect: str, n: int, log: Log) -> None:
    """A delayed effect of `side`, kept for the end of this turn (its phase 3)."""
    _say(log, "delay", side, effect, n)
    d["delayed"].append([side, effect, n])


def _combat_power(d: dict[str, Any], cat: Catalogue, log: Log) -> None:
    """Compute both sides' power (§11.1.11, §11.1.15): base powers and battlegrounds, rally and
    shield, then the defender's defense skill, then the attackers' offensive abilities left to
    right. The log gets each side's parts as (what, handle or -1, amount)."""
    cb = d["combat"]
    att, dfd = cb["side"], 1 - cb["side"]
    ap: list[tuple[str, int, int]] = [("power", h, _card(d, cat, h).power)
                                      for h in cb["attackers"]]
    if att == PLAYER:
        abg = d["pbg"]
        r, c = cb["target"]
        dh = d["rows"][r]["cards"][c]
        dbg = d["rows"][r]["bg"]
    else:
        abg = d["rows"][nearest_row(d)]["bg"]
        dh = d["pdef"][cb["target"][0]]
        dbg = d["pbg"]
    dp_: list[tuple[str, int, int]] = [("power", dh, _card(d, cat, dh).power)]
    ap.append(("surge", abg, _bg_bonus(d, cat, abg, "surge")))
    dp_.append(("fortify", dbg, _bg_bonus(d, cat, dbg, "fortify")))
    ap += [("rally", -1, d["rally"][att]), ("shield", -1, -d["shield"][dfd])]
    d["rally"][att] = d["shield"][dfd] = 0
    dp = _card(d, cat, dh)
    if dp.activation == "defense":
        if dp.effect == "boost":
            dp_.append(("defense boost", dh, dp.amount))
        else:
            ap.append(("defense weaken", dh, -dp.amount))
    for h in cb["attackers"]:
        p = _card(d, cat, h)
        if p.activation == "offensive":
            if p.effect == "boost":
                ap.append(("offensive boost", h, p.amount))
            else:
                dp_.append(("offensive weaken", h, -p.amount))
    cb["a"], cb["d"] = sum(x[2] for x in ap), sum(x[2] for x in dp_)
    _say(log, "power", att, tuple(x for x in ap if x[2] or x[0] == "power"),
         tuple(x for x in dp_ if x[2] or x[0] == "power"), cb["a"], cb["d"])


def instant_cards(d: dict[str, Any], cat: Catalogue) -> list[int]:
    return [h for h in d["hand"] if _card(d, cat, h).activation == "instant"]


def _resolve(d: dict[str, Any], log: Log) -> None:
    """Settle a combat (§11.1.13, §11.1.16): attack power > defense power defeats the defender."""
    cb = d["combat"]
    won = cb["a"] > cb["d"]
    if cb["side"] == PLAYER:
        r, c = cb["target"]
        _say(log, "resolve", PLAYER, cb["a"], cb["d"], won, d["rows"][r]["cards"][c])
        d["discard"] += cb["attackers"] + cb["instants"]
        if won:
            d["discard"].append(d["rows"][r]["cards"][c])
            d["rows"][r]["cards"][c] = -1
            d["rows"][r]["up"][c] = False
            d["defeated"] += 1
    else:
        _say(log, "resolve", MULTIVERSE, cb["a"], cb["d"], won, d["pdef"][cb["target"][0]])
        d["discard"] += cb["instants"]
        if won:
            slot = cb["target"][0]
            d["discard"].append(d["pdef"][slot])
            d["pdef"][slot] = -1
            d["pup"][slot] = False
    d["combat"] = None
    _check_end(d, log)


# --- the queue ------------------------------------------------------------------------------


def _advance(d: dict[str, Any], rules: Rules, cat: Catalogue, log: Log = None
             ) -> dict[str, Any]:
    """Run automatic operations until one needs an input or the game is over."""
    while d["outcome"] is None and d["q"]:
        op = d["q"][0]
        kind = op[0]
        if kind == "deal":
            if not deck_left(d, rules, cat, op[1]):
                _finish(d, "deck-exhausted", None, log)
            return d
        if kind == "turn":
            if d["slow_used"] and d["main_used"]:
                _say(log, "actions-done")
                d["q"].pop(0)
                continue
            return d
        if kind == "instants":
            if not instant_cards(d, cat):
                _say(log, "no-instants")
                d["q"].pop(0)
                continue
            return d
        if kind == "handlimit":
            if len(d["hand"]) <= HAND_LIMIT:
                d["q"].pop(0)
                continue
            _say(log, "hand-limit", len(d["hand"]))
            return d
        if kind in ("reveal", "aim"):
            return d
        d["q"].pop(0)
        _auto(d, cat, op, log)
    return d


def _auto(d: dict[str, Any], cat: Catalogue, op: list[Any], log: Log) -> None:
    kind = op[0]
    if kind == "pturn":  # §11.1.6: player phase 1 draw, phase 2 actions, phase 3 end
        d.update(turn=d["turn"] + 1, side=PLAYER, slow_used=False, main_used=False)
        _say(log, "turn", d["turn"])
        _check_end(d, log)
        _push(d, ["deal", 0, "hand"], ["turn"], ["pend"])
    elif kind == "pend":  # §11.1.8
        _phase3(d, PLAYER, ["handlimit"], ["mturn"], log=log)
    elif kind == "mturn":  # §11.1.14
        _say(log, "mturn")
        d["side"] = MULTIVERSE
        _push(d, ["deal", 0, "mill"], ["deal", 0, "mdraw"], ["mflip"], ["mattack"], ["mend"])
    elif kind == "mflip":
        r = nearest_row(d)
        row = d["rows"][r]
        _push(d, *[["reveal", row["cards"][c], "mflip", r, c] for c in range(3)
                   if row["cards"][c] >= 0 and not row["up"][c]])
    elif kind == "mattack":
        r = nearest_row(d)
        row = d["rows"][r]
        attackers = [row["cards"][c] for c in range(3)
                     if row["cards"][c] >= 0 and _card(d, cat, row["cards"][c]).type == "super"]
        if attackers:
            _say(log, "mattack", r, tuple(attackers))
            d["combat"] = {"side": MULTIVERSE, "attackers": attackers, "target": None,
                           "a": 0, "d": 0, "instants": []}
            _push(d, ["aim"])
        else:  # §11.1.17: the Enhance replacement rule, its choice by §11.1.20 (leftmost)
            chosen = multiverse_choice(d, lambda h: _card(d, cat, h).type == "enhance")
            assert chosen is not None  # the nearest row has a card and no Super
            r, c = chosen
            _say(log, "replace", r, c, row["cards"][c])
            d["discard"].append(row["cards"][c])
            row["cards"][c], row["up"][c] = -1, False
            _push(d, ["deal", 0, "replace", r, c])
    elif kind == "mend":  # §11.1.18
        _phase3(d, MULTIVERSE, ["pturn"], log=log)
    elif kind == "power":
        _combat_power(d, cat, log)
    elif kind == "resolve":
        _resolve(d, log)
    else:  # pragma: no cover - a bug
        raise AssertionError(f"unknown operation {op!r}")


def _phase3(d: dict[str, Any], side: int, *then: list[Any], log: Log) -> None:
    """The end of `side`'s turn (§11.1.8, §11.1.18): the delayed effects kept this turn
    resolve in the order they were kept, then the operations `then` run."""
    delayed, d["delayed"] = d["delayed"], []
    _say(log, "phase3", side, len(delayed))
    _push(d, *then)
    for who, effect, n in delayed:  # told in the order they were kept
        _say(log, "slow", who, effect, n)
    # each `_slow` pushes its deals in front: the last is applied first, so the first effect's
    # deals come first
    for who, effect, n in reversed(delayed):
        _slow(d, who, effect, n, None)


# --- inputs ---------------------------------------------------------------------------------


def parse(text: str) -> tuple[Any, ...]:
    """An input from its canonical line (SPEC M-notation); MalformedActionError otherwise."""
    if not isinstance(text, str):
        raise MalformedActionError(f"malformed multiverse input {text!r:.60}")
    words = text.split(" ")

    def num(w: str) -> int:
        if not w.isdigit() or str(int(w)) != w or not w.isascii():
            raise MalformedActionError(f"malformed multiverse input {text!r:.60}")
        return int(w)

    shapes = {"draw": 0, "end": 0, "done": 0, "slow": 1, "instant": 1, "discard": 1, "deal": 1,
              "roll": 1, "attack": 2}
    if words[0] == "reveal" and len(words) == 3 and words[2] and len(words[2]) <= 32:
        return ("reveal", num(words[1]), words[2])
    if words[0] not in shapes or len(words) != shapes[words[0]] + 1:
        raise MalformedActionError(f"malformed multiverse input {text!r:.60}")
    return (words[0], *[num(w) for w in words[1:]])


def fmt(inp: tuple[Any, ...]) -> str:
    return " ".join(str(x) for x in inp)


def legal(state: State) -> list[str]:
    d, cat = state.d, state.cat
    if d["outcome"] is not None or not d["q"]:
        return []
    op = d["q"][0]
    if op[0] == "aim":
        return [f"roll {k}" for k in range(1, 7)]
    if op[0] == "instants":
        return [f"instant {h}" for h in instant_cards(d, cat)] + ["done"]
    if op[0] == "handlimit":
        return [f"discard {h}" for h in d["hand"]]
    if op[0] != "turn":
        return []
    out = []
    if not d["slow_used"]:
        out += [f"slow {h}" for h in d["hand"] if _card(d, cat, h).activation in SLOW]
    if not d["main_used"]:
        r = nearest_row(d)
        cols = [c for c in range(3) if r >= 0 and d["rows"][r]["cards"][c] >= 0]
        out += [f"attack {h} {c}" for h in d["hand"] if _card(d, cat, h).type == "super"
                for c in cols]
        out.append("draw")
    else:
        out.append("end")
    return out


def step(state: State, text: str, log: Log = None) -> State:
    """The state after the input `text`, resolved up to the next input; `log` (when given)
    gets what happened, as events (the module note)."""
    inp = parse(text)
    d, rules, cat = state.d, state.rules, state.cat
    if d["outcome"] is not None:
        raise GameOverError(f"input {text!r} after the end of the game")
    op = d["q"][0]
    d = json.loads(state.encode())
    kind = inp[0]
    if op[0] == "deal":
        if kind != "deal":
            raise IllegalActionError(f"illegal input {text!r}: this input does not answer the "
                                     "pending decision (a deal)")
        h = inp[1]
        if h != next_handle(d, rules, cat, op[1]):
            raise IllegalActionError(f"illegal input {text!r}: the next card of deck {op[1]} "
                                     f"is {next_handle(d, rules, cat, op[1])}")
        d["q"].pop(0)
        d["dealt"][op[1]].append(h)
        _say(log, "dealt", *op[1:])
        _place(d, op, h)
    elif op[0] == "reveal":
        if kind != "reveal" or inp[1] != op[1]:
            raise IllegalActionError(f"illegal input {text!r}: this input does not answer the "
                                     f"pending decision (reveal of card {op[1]})")
        deck = deck_of(rules, cat, op[1])
        if inp[2] not in unrevealed(d, rules, cat, deck):
            raise IllegalActionError(f"illegal input {text!r}: deck {deck} has no unrevealed "
                                     f"{inp[2]!r:.40} left")
        d["q"].pop(0)
        d["known"][str(op[1])] = inp[2]
        _say(log, "shown", *op[1:])
        _revealed(d, cat, op, log)
    else:
        if text not in legal(state):
            raise IllegalActionError(f"illegal input {text!r} (legal: "
                                     f"{', '.join(legal(state)[:12])})")
        _act(d, cat, op, inp, log)
    return State(_advance(d, rules, cat, log), rules, cat)


def _place(d: dict[str, Any], op: list[Any], h: int) -> None:
    dest = op[2]
    if dest == "pbg":
        d["pbg"] = h
        _push(d, ["reveal", h, "show"])
    elif dest == "mbg":
        d["rows"][op[3]]["bg"] = h
        _push(d, ["reveal", h, "show"])
    elif dest == "pdef":
        d["pdef"][op[3]] = h
    elif dest in ("mdef", "replace"):
        d["rows"][op[3]]["cards"][op[4]] = h
    elif dest == "hand":
        d["hand"].append(h)
        _push(d, ["reveal", h, "show"])
    elif dest in ("mill", "mdraw"):
        _push(d, ["reveal", h, dest])


def _revealed(d: dict[str, Any], cat: Catalogue, op: list[Any], log: Log) -> None:
    h, purpose = op[1], op[2]
    if purpose == "mill":  # §11.1.14, §11.1.19: the Multiverse's draws are discards
        d["discard"].append(h)
    elif purpose == "mdraw":  # §11.1.14: a slow Super drawn in phase 2 activates
        d["discard"].append(h)
        p = _card(d, cat, h)
        if p.type == "super" and p.activation == "trigger":
            _slow(d, MULTIVERSE, p.effect, p.amount, log)
        elif p.type == "super" and p.activation == "delayed":
            _delay(d, MULTIVERSE, p.effect, p.amount, log)
    elif purpose == "mflip":  # §11.1.14, §11.1.20: no ability activates
        d["rows"][op[3]]["up"][op[4]] = True
    elif purpose == "dflip-m":  # the player's attack flips a Multiverse card (§11.1.12)
        d["rows"][op[3]]["up"][op[4]] = True
        _activate_flip(d, cat, MULTIVERSE, h, log)
    elif purpose == "dflip-p":  # the Multiverse's attack flips a player's card (§11.1.15)
        d["pup"][op[3]] = True
        _activate_flip(d, cat, PLAYER, h, log)


def _act(d: dict[str, Any], cat: Catalogue, op: list[Any], inp: tuple[Any, ...], log: Log
         ) -> None:
    kind = inp[0]
    if op[0] == "aim":  # §11.1.14: the d6 aims the Multiverse's attack
        roll = inp[1]
        d["last_roll"] = roll
        d["q"].pop(0)
        slot = AIM[roll]
        while d["pdef"][slot] < 0:  # §11.1.14: an empty slot passes the aim rightwards, wrapping
            slot = (slot + 1) % 3
        d["combat"]["target"] = [slot]
        _say(log, "aim", roll, AIM[roll], slot)
        ops: list[list[Any]] = []
        if not d["pup"][slot]:
            ops.append(["reveal", d["pdef"][slot], "dflip-p", slot])
        _push(d, *ops, ["power"], ["instants"], ["resolve"])
    elif op[0] == "instants":  # §11.1.13: instant cards from the hand
        if kind == "done":
            _say(log, "done")
            d["q"].pop(0)
            return
        h = inp[1]
        p = _card(d, cat, h)
        d["hand"].remove(h)
        cb = d["combat"]
        cb["instants"].append(h)
        mine_attacks = cb["side"] == PLAYER
        if p.effect == "boost":
            cb["a" if mine_attacks else "d"] += p.amount
        else:
            cb["d" if mine_attacks else "a"] -= p.amount
        _say(log, "instant", h, cb["a"], cb["d"])
    elif op[0] == "handlimit":  # §11.1.8
        _say(log, "discard", inp[1])
        d["hand"].remove(inp[1])
        d["discard"].append(inp[1])
    elif kind == "slow":  # §11.1.9
        h = inp[1]
        p = _card(d, cat, h)
        d["hand"].remove(h)
        d["discard"].append(h)
        d["slow_used"] = True
        _say(log, "activate", h)
        if p.activation == "trigger":
            _slow(d, PLAYER, p.effect, p.amount, log)
        else:
            _delay(d, PLAYER, p.effect, p.amount, log)
    elif kind == "draw":  # §11.1.7: not attacking draws a card
        _say(log, "draw")
        d["main_used"] = True
        _push(d, ["deal", 0, "hand"])
    elif kind == "end":
        _say(log, "end-turn")
        d["q"].pop(0)
    elif kind == "attack":  # §11.1.10–11.1.13
        h, c = inp[1], inp[2]
        r = nearest_row(d)
        d["main_used"] = True
        d["hand"].remove(h)
        d["combat"] = {"side": PLAYER, "attackers": [h], "target": [r, c], "a": 0, "d": 0,
                       "instants": []}
        _say(log, "attack", h, r, c)
        ops = []
        if not d["rows"][r]["up"][c]:
            ops.append(["reveal", d["rows"][r]["cards"][c], "dflip-m", r, c])
        _push(d, *ops, ["power"], ["instants"], ["resolve"])


def attack_preview(state: State, h: int, c: int) -> tuple[int, int] | None:
    """(attack, defense) of your attack on column `c` of the nearest row with card `h`, before
    instants, when that card is face up; None when it is face down (its flip may change
    both) or the slot is empty."""
    d = json.loads(state.encode())
    r = nearest_row(d)
    if r < 0 or d["rows"][r]["cards"][c] < 0 or not d["rows"][r]["up"][c]:
        return None
    d["combat"] = {"side": PLAYER, "attackers": [h], "target": [r, c], "a": 0, "d": 0,
                   "instants": []}
    _combat_power(d, state.cat, None)
    return d["combat"]["a"], d["combat"]["d"]


def score(state: State) -> int:
    """The run's score (§11.1.22): a victory scores 100 + 10 per player defense card left + the
    Power cards left in the deck; otherwise 10 per Multiverse defense card defeated."""
    d = state.d
    if d["outcome"] is not None and d["outcome"][0] == "victory":
        left = deck_left(d, state.rules, state.cat, 0)
        return 100 + 10 * sum(h >= 0 for h in d["pdef"]) + left
    return 10 * d["defeated"]


def state_hash(state: State) -> bytes:
    return hashlib.sha256(b"versus/v1/multiverse/state\x00" + hashlib.sha256(
        encode(state.rules)).digest() + state.cat.digest + state.encode()).digest()
