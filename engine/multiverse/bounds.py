# What a Multiverse position may hold (SPEC §11.3 "Positions: what a position may hold"): the
# checks `Multiverse.load_position` runs on a state it read from untrusted text.
#
# Why: the engine trusts its state. An unknown queue operation leaves a TURN with no input, a
# handle dealt twice or never dealt breaks `unrevealed`, a face-up card whose identity is not
# known raises at the next combat, three empty defense slots while the game goes on make the
# d6's aim loop forever. So the reader accepts only what the rules reach. A position before the
# first turn (turn 0: the setup deals) is checked by replaying the setup with the position's
# own revealed cards: it must be one of the states the setup passes through. Later positions
# are checked field by field: the types and ranges, where each dealt handle lies (exactly one
# place) and which handles are known (exactly the visible ones), and the queue, which must be
# one the turn structure builds (`_QUEUE`, a pattern over its operations, each with its
# arguments matching the board). Every bound is an invariant of `step`, so every position a game
# reaches passes, and one that passes plays on like one reached by play. Each refusal is a
# PositionError naming the field and its value.
from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..errors import IllegalActionError, MalformedActionError, PositionError
from .cards import Catalogue
from .engine import (
    AIM,
    HAND_LIMIT,
    State,
    deck_handles,
    decklists,
    instant_cards,
    nearest_row,
    new_game,
    next_handle,
    step,
)
from .rules import Rules

OUTCOMES = {"victory": 0, "defenses-eliminated": None, "deck-exhausted": None}
#: a deal's destination: (deck, number of arguments); pbg/pdef/mbg/mdef only in the setup
DEALS = {"pbg": (1, 0), "pdef": (0, 1), "mbg": (1, 1), "mdef": (0, 2), "hand": (0, 0),
         "mill": (0, 0), "mdraw": (0, 0), "replace": (0, 2)}
#: a reveal's purpose: (number of arguments, token)
REVEALS = {"show": (0, "s"), "mill": (0, "l"), "mdraw": (0, "L"), "mflip": (2, "f"),
           "dflip-m": (2, "a"), "dflip-p": (1, "b")}
#: the operations without arguments and their tokens
PLAIN = {"aim": "A", "power": "w", "instants": "i", "resolve": "r", "turn": "t", "pend": "p",
         "handlimit": "H", "mturn": "T", "mflip": "F", "mattack": "K", "mend": "E",
         "pturn": "N"}
_DEAL_TOKENS = {"hand": "h", "mill": "m", "mdraw": "M", "replace": "x"}
#: the queues of a game past its setup, one token per operation. Your turn: draws (slow `draw`)
#: or your combat (its flip, the Multiverse's draws it triggers, power, instants, resolve)
#: before `turn pend` (§11.1.6–11.1.13); your phase 3: delayed draws before `handlimit mturn`
#: (§11.1.8); the
#: Multiverse's turn: its discard and draw, the flips of its nearest row, its attack (aim,
#: your flip and the draws it triggers, power, instants, resolve) or a replacement, before
#: `mend` (§11.1.14–11.1.17); its phase 3: delayed draws before `pturn` (§11.1.18).
_QUEUE = re.compile(
    r"(?P<pt>(?:s?h*|(?P<cp>(?:a|l?m*)?w?ir))tp)"
    r"|(?P<pd>[sl]?[hm]*HT)"
    r"|(?P<mt>(?:(?:l?m?M|L|l?m*)FK|f*K|(?P<cm>A|(?:b|s?h*)?w?ir)|x)?E)"
    r"|(?P<pe>[sl]?[hm]*N)")
#: the tokens of operations that wait for an input (the others run by themselves)
_INPUT_TOKENS = frozenset("hmMxslLfabtiAH")


def _bad(field: str, value: object, why: str) -> PositionError:
    return PositionError(f"multiverse state.{field}: {value!r:.80} {why}")


def _is_int(v: object) -> bool:
    return type(v) is int


def _ints(v: object, n: int | None = None) -> bool:
    return isinstance(v, list) and (n is None or len(v) == n) and all(map(_is_int, v))


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def _bools(v: object, n: int) -> bool:
    return isinstance(v, list) and len(v) == n and all(type(x) is bool for x in v)


def check_position(s: State) -> None:
    """Raise PositionError unless `s` is a state the rules reach."""
    _check_types(s.d, s.rules)
    if s.d["turn"] == 0:
        _check_setup(s)
        return
    _check_deals(s)
    _check_known(s)
    tokens = _check_queue(s)
    _check_combat(s, tokens)
    _check_counters(s, tokens)
    _check_outcome(s, tokens)


# --- types --------------------------------------------------------------------------------


def _check_types(d: dict[str, Any], rules: Rules) -> None:
    def need(ok: bool, field: str, why: str) -> None:
        if not ok:
            raise _bad(field, d[field.split("[")[0].split(".")[0]], why)

    need(isinstance(d["known"], dict) and all(
        isinstance(k, str) and k.isascii() and k.isdigit() and str(int(k)) == k
        and isinstance(v, str) for k, v in d["known"].items()), "known",
        "maps handles (decimal strings) to card ids")
    need(isinstance(d["dealt"], list) and len(d["dealt"]) == 2 and all(
        _ints(x) for x in d["dealt"]), "dealt", "is two lists of handles")
    for f in ("hand", "discard"):
        need(_ints(d[f]), f, "is a list of handles")
    need(_is_int(d["pbg"]), "pbg", "is a handle or -1")
    need(_ints(d["pdef"], 3), "pdef", "is three handles or -1")
    need(_bools(d["pup"], 3), "pup", "is three booleans")
    need(isinstance(d["rows"], list) and len(d["rows"]) == rules.rows and all(
        isinstance(r, dict) and set(r) == {"bg", "cards", "up"} and _is_int(r["bg"])
        and _ints(r["cards"], 3) and _bools(r["up"], 3) for r in d["rows"]), "rows",
        f"is {rules.rows} row(s) (difficulty {rules.difficulty}, §11.1.4) of bg, three cards and "
        "three face-up flags")
    for f in ("turn", "defeated", "last_roll"):
        need(_is_int(d[f]) and d[f] >= 0, f, "is a count (an integer >= 0)")
    need(d["last_roll"] <= 6, "last_roll", "is the last d6 (1..6) or 0 (§11.1.14)")
    need(d["side"] in (0, 1) and _is_int(d["side"]), "side", "is 0 (you) or 1 (the Multiverse)")
    for f in ("slow_used", "main_used"):
        need(type(d[f]) is bool, f, "is a boolean")
    for f in ("shield", "rally"):
        need(_ints(d[f], 2) and min(d[f]) >= 0, f, "is two counts (you, the Multiverse)")
    need(isinstance(d["delayed"], list) and all(
        isinstance(e, list) and len(e) == 3 and e[0] in (0, 1) and _is_int(e[0])
        and isinstance(e[1], str) and _is_int(e[2]) for e in d["delayed"]), "delayed",
        "is a list of [side, effect, amount]")
    o = d["outcome"]
    need(o is None or (isinstance(o, list) and len(o) == 2 and isinstance(o[0], str)
                       and o[0] in OUTCOMES and _same(o[1], OUTCOMES[o[0]])), "outcome",
        "is null or [\"victory\", 0], [\"defenses-eliminated\", null], "
        "[\"deck-exhausted\", null] (§11.1.1)")
    cb = d["combat"]
    need(cb is None or (isinstance(cb, dict) and set(cb) == {
        "side", "attackers", "target", "a", "d", "instants"} and cb["side"] in (0, 1)
        and _is_int(cb["side"]) and _ints(cb["attackers"]) and _ints(cb["instants"])
        and _is_int(cb["a"]) and _is_int(cb["d"])
        and (cb["target"] is None or _ints(cb["target"]))), "combat",
        "is null or a combat: side, attackers, target, a, d, instants")
    need(isinstance(d["q"], list) and all(isinstance(op, list) and op and isinstance(op[0], str)
                                          for op in d["q"]), "q", "is a list of operations")


# --- the setup ------------------------------------------------------------------------------


def _check_setup(s: State) -> None:
    """Turn 0: the state is one the setup deals pass through, with the position's own reveals
    (§11.1.5). Replayed from the new game, one deal or reveal at a time."""
    d, want = s.d, s.encode()
    r = new_game(s.rules, s.cat)
    for _ in range(4 * (s.rules.deck + len(s.cat.battlegrounds)) + 8):
        if r.encode() == want:
            return
        rd = r.d
        if rd["turn"] != 0 or rd["outcome"] is not None or not rd["q"]:
            break
        op = rd["q"][0]
        try:
            if op[0] == "deal" and len(rd["dealt"][op[1]]) < len(d["dealt"][op[1]]):
                r = step(r, f"deal {next_handle(rd, s.rules, s.cat, op[1])}")
            elif op[0] == "reveal" and str(op[1]) in d["known"]:
                r = step(r, f"reveal {op[1]} {d['known'][str(op[1])]}")
            else:
                break
        except (IllegalActionError, MalformedActionError) as e:
            raise _bad("known", d["known"], f"is not revealed by the setup deals: {e}") from None
    raise _bad("turn", 0, "(the setup, §11.1.5): the state is not one the setup deals reach with "
               "its revealed cards")


# --- handles ----------------------------------------------------------------------------------


def _limbo(d: dict[str, Any]) -> list[int]:
    """A card the Multiverse drew, dealt and not yet revealed (its reveal is the head)."""
    q = d["q"]
    return [q[0][1]] if q and len(q[0]) == 3 and q[0][0] == "reveal" and \
        q[0][2] in ("mill", "mdraw") and _is_int(q[0][1]) else []


def _places(d: dict[str, Any]) -> list[tuple[str, int]]:
    """Every handle the state holds, with where: each dealt card lies in exactly one place."""
    out = [("pbg", d["pbg"])] + [(f"rows[{r}].bg", row["bg"]) for r, row in enumerate(d["rows"])]
    out += [(f"pdef[{i}]", h) for i, h in enumerate(d["pdef"])]
    out += [(f"rows[{r}].cards[{c}]", h) for r, row in enumerate(d["rows"])
            for c, h in enumerate(row["cards"])]
    out += [(f"hand[{i}]", h) for i, h in enumerate(d["hand"])]
    out += [(f"discard[{i}]", h) for i, h in enumerate(d["discard"])]
    out += [("q[0]", h) for h in _limbo(d)]
    cb = d["combat"]
    if cb is not None:
        out += [(f"combat.instants[{i}]", h) for i, h in enumerate(cb["instants"])]
        if cb["side"] == 0:  # your attacker left the hand; the Multiverse's stay in their row
            out += [(f"combat.attackers[{i}]", h) for i, h in enumerate(cb["attackers"])]
    return [(w, h) for w, h in out if h != -1]


def _setup_powers(rules: Rules) -> int:
    """The Power cards the setup deals (§11.1.5): your defense, the rows, your hand."""
    return 3 + 3 * rules.rows + HAND_LIMIT


def _check_deals(s: State) -> None:
    d, rules, cat = s.d, s.rules, s.cat
    for deck in (0, 1):
        handles = deck_handles(rules, cat, deck)
        k = len(d["dealt"][deck])
        if k > len(handles) or d["dealt"][deck] != list(handles[:k]):
            raise _bad(f"dealt[{deck}]", d["dealt"][deck], f"is not the first deal positions "
                       f"of deck {deck} ({handles.start}..{handles.stop - 1}), in order (§11.3)")
    if len(d["dealt"][1]) != 1 + rules.rows or len(d["dealt"][0]) < _setup_powers(rules):
        raise _bad("dealt", [len(x) for x in d["dealt"]], "are fewer than the setup deals "
                   "after turn 0 (§11.1.5)")
    bgs = deck_handles(rules, cat, 1)
    seen: dict[int, str] = {}
    dealt = set(d["dealt"][0]) | set(d["dealt"][1])
    for where, h in _places(d):
        if h not in dealt:
            raise _bad(where, h, "is not a dealt handle (§11.3)")
        if h in seen:
            raise _bad(where, h, f"is also at {seen[h]}: a card lies in one place")
        if (h in bgs) != (where == "pbg" or where.endswith(".bg")):
            raise _bad(where, h, "is a card of the wrong deck here (battlegrounds are laid, "
                       "Power cards are played, §11.1.3)")
        seen[h] = where
    lost = sorted(dealt - set(seen))
    if lost:
        raise _bad("dealt", lost[:8], "are dealt but lie nowhere")


def _check_known(s: State) -> None:
    """Known are exactly the visible cards: not a face-down defense card, not the card whose
    reveal is the head of the queue (§11.1.5, §11.3); each of its deck, within the decklist."""
    d, rules, cat = s.d, s.rules, s.cat
    hidden = {h for h, up in zip(d["pdef"], d["pup"], strict=True) if h >= 0 and not up}
    hidden |= {h for row in d["rows"] for h, up in zip(row["cards"], row["up"], strict=True)
               if h >= 0 and not up}
    for where, up in [(f"pup[{i}]", u) for i, u in enumerate(d["pup"]) if d["pdef"][i] < 0] + \
            [(f"rows[{r}].up[{c}]", u) for r, row in enumerate(d["rows"])
             for c, u in enumerate(row["up"]) if row["cards"][c] < 0]:
        if up:
            raise _bad(where, up, "is set for an empty slot")
    q = d["q"]
    if q and q[0][0] == "reveal" and len(q[0]) > 1 and _is_int(q[0][1]):
        hidden.add(q[0][1])
    visible = {h for h in set(d["dealt"][0]) | set(d["dealt"][1]) if h not in hidden}
    keys = {int(k) for k in d["known"]}
    if keys != visible:
        odd = sorted(keys ^ visible)
        raise _bad("known", odd[:8], "are not exactly the revealed cards: a card is known "
                   "once visible, never face down (§11.1.5, §11.3)")
    powers, bgs = decklists(rules, cat)
    for deck, decklist in ((0, powers), (1, bgs)):
        handles = deck_handles(rules, cat, deck)
        have = Counter(cid for k, cid in d["known"].items() if int(k) in handles)
        room = Counter(decklist)
        for cid, n in sorted(have.items()):
            if n > room[cid]:
                raise _bad("known", cid, f"is revealed {n} times from deck {deck}, which holds "
                           f"{room[cid]} (§11.1.3)")


def _power(s: State, h: int) -> Any:
    return s.cat.power(s.d["known"][str(h)])


# --- the queue -----------------------------------------------------------------------------


def _token(s: State, i: int, op: list[Any]) -> str:
    d, rules = s.d, s.rules
    kind, args = op[0], op[1:]
    bad = _bad(f"q[{i}]", op, "is not an operation of the rules with its arguments (§11.3)")
    if kind in PLAIN:
        if args:
            raise bad
        return PLAIN[kind]
    if not all(map(_is_int, [a for a in args if not isinstance(a, str)])):
        raise bad
    if kind == "deal" and len(args) >= 2 and isinstance(args[1], str) and \
            args[1] in _DEAL_TOKENS:
        deck, n = DEALS[args[1]]
        more = args[2:]
        if args[0] != deck or len(more) != n or not all(map(_is_int, more)):
            raise bad
        if more and not (0 <= more[0] < rules.rows and 0 <= more[1] <= 2):
            raise bad
        if args[1] == "replace" and (d["rows"][more[0]]["cards"][more[1]] != -1 or any(
                h >= 0 for row in d["rows"][:more[0]] for h in row["cards"])):
            raise _bad(f"q[{i}]", op, "replaces a card not removed from the nearest row (§11.1.17)")
        return _DEAL_TOKENS[args[1]]
    if kind == "reveal" and len(args) >= 2 and isinstance(args[1], str) and \
            args[1] in REVEALS:
        n, token = REVEALS[args[1]]
        if len(args) != 2 + n or not all(map(_is_int, [args[0], *args[2:]])):
            raise bad
        _check_reveal(s, i, op)
        return token
    raise bad


def _check_reveal(s: State, i: int, op: list[Any]) -> None:
    d = s.d
    h, purpose, more = op[1], op[2], op[3:]
    cb = d["combat"] or {}
    # past the setup a card shown is one drawn into your hand; a Multiverse draw lies nowhere
    # until revealed; a flip is of a face-down card of the board
    if purpose in ("show", "mill", "mdraw"):
        ok = i == 0 and d["dealt"][0][-1:] == [h] and (purpose != "show" or h in d["hand"])
    elif purpose == "mflip":
        r, c = more
        ok = 0 <= r == nearest_row(d) and 0 <= c <= 2 and d["rows"][r]["cards"][c] == h and \
            not d["rows"][r]["up"][c]
    elif purpose == "dflip-m":
        r, c = more
        ok = i == 0 and cb.get("side") == 0 and cb.get("target") == [r, c] and 0 <= r < len(
            d["rows"]) and 0 <= c <= 2 and d["rows"][r]["cards"][c] == h and \
            not d["rows"][r]["up"][c]
    else:
        slot = more[0]
        ok = i == 0 and cb.get("side") == 1 and cb.get("target") == [slot] and \
            0 <= slot <= 2 and d["pdef"][slot] == h and not d["pup"][slot]
    if not ok:
        raise _bad(f"q[{i}]", op, "is not a reveal an input leaves: the card just dealt, or a "
                   "face-down card of the board flipped (§11.1.5, §11.1.12, §11.1.14, §11.1.15)")


def _check_queue(s: State) -> str:
    """The queue's operations as tokens, matched against the turn structure (`_QUEUE`)."""
    d = s.d
    tokens = "".join(_token(s, i, op) for i, op in enumerate(d["q"]))
    m = _QUEUE.fullmatch(tokens)
    if m is None:
        raise _bad("q", [op[0] for op in d["q"]][:12], "is not a queue the turns build "
                   "(§11.1.6–11.1.18)")
    side = 0 if m["pt"] is not None or m["pd"] is not None else 1
    if d["side"] != side:
        raise _bad("side", d["side"], f"is not the side whose turn the queue holds ({side})")
    flips = [(op[1], op[3], op[4]) for op in d["q"] if op[0] == "reveal" and op[2] == "mflip"]
    r = nearest_row(d)
    down = [(h, r, c) for c, h in enumerate(d["rows"][r]["cards"]) if h >= 0 and
            not d["rows"][r]["up"][c]] if r >= 0 else []
    if "K" in tokens and "F" not in tokens and flips != down:
        raise _bad("q", flips, f"are not the flips of the nearest row's face-down cards {down} "
                   "(§11.1.14)")
    if d["outcome"] is None:
        _check_head(s, tokens)
    return tokens


def _check_head(s: State, tokens: str) -> None:
    """A game in progress waits for an input: the head is one that `step` stops at."""
    d, head = s.d, tokens[:1]
    why = ""
    if head not in _INPUT_TOKENS:
        why = "runs by itself, so a game never waits at it"
    elif head == "t" and d["slow_used"] and d["main_used"]:
        why = "(your actions) ends by itself once you used both (§11.1.7)"
    elif head == "i" and not instant_cards(d, s.cat):
        why = "(instants) passes by itself when your hand holds none (§11.1.13)"
    elif head == "H" and len(d["hand"]) <= HAND_LIMIT:
        why = f"(hand limit) passes by itself with {HAND_LIMIT} cards or fewer (§11.1.8)"
    elif head in "hmMx":
        deck = d["q"][0][1]
        if len(d["dealt"][deck]) >= len(deck_handles(s.rules, s.cat, deck)):
            why = "deals from an empty deck: the game is over (deck-exhausted, §11.1.1)"
    if why:
        raise _bad("q[0]", d["q"][0] if d["q"] else None, why)


# --- combat, counters, outcome ------------------------------------------------------------


def _combat_bound(rules: Rules, cat: Catalogue) -> int:
    """The largest power a combat side reaches: every card's power and amount, a battleground
    bonus, every shield and rally."""
    powers = [cat.power(cid) for cid in decklists(rules, cat)[0]]
    return sum(p.power + p.amount for p in powers) + max(b.amount for b in cat.battlegrounds)


def _slow_bound(rules: Rules, cat: Catalogue, effect: str) -> int:
    """The most `effect` (shield, rally) a side holds: every card with it, each once (§11.1.9)."""
    return sum(p.amount for cid in decklists(rules, cat)[0]
               if (p := cat.power(cid)).effect == effect)


def _check_combat(s: State, tokens: str) -> None:
    d, cb = s.d, s.d["combat"]
    m = _QUEUE.fullmatch(tokens)
    assert m is not None
    fighting = m["cp"] is not None or m["cm"] is not None
    if (cb is not None) != fighting:
        raise _bad("combat", cb, "is set exactly while a combat is in the queue (§11.1.10–11.1.16)")
    if cb is None:
        return
    r = nearest_row(d)
    bound = _combat_bound(s.rules, s.cat)
    powered = "w" not in tokens
    bad = _bad("combat", cb, "is not a combat the rules start (§11.1.10, §11.1.14, §11.1.15)")
    if cb["side"] != (0 if m["cp"] is not None else 1) or r < 0:
        raise bad
    if cb["side"] == 0:
        h = cb["attackers"][0] if len(cb["attackers"]) == 1 else -1
        t = cb["target"]
        if h < 0 or _power(s, h).type != "super" or not d["main_used"] or \
                not (isinstance(t, list) and len(t) == 2 and t[0] == r and 0 <= t[1] <= 2
                     and d["rows"][r]["cards"][t[1]] >= 0):
            raise bad
    else:
        row = d["rows"][r]
        supers = [h for c, h in enumerate(row["cards"]) if h >= 0 and row["up"][c]
                  and _power(s, h).type == "super"]
        if not all(row["up"][c] for c in range(3) if row["cards"][c] >= 0) or \
                cb["attackers"] != supers or not supers:
            raise bad
        if tokens[0] == "A":
            if cb["target"] is not None:
                raise bad
        else:
            slot = AIM.get(d["last_roll"], -1)  # §11.1.14: the aim passes rightwards, wrapping
            while slot >= 0 and d["pdef"][slot] < 0 and any(h >= 0 for h in d["pdef"]):
                slot = (slot + 1) % 3
            if slot < 0 or cb["target"] != [slot] or d["pdef"][slot] < 0:
                raise bad
    # the power reads the defender's card: face up, or its flip is the head
    t = cb["target"]
    if "w" in tokens and t is not None and tokens[0] not in "ab":
        up = d["rows"][t[0]]["up"][t[1]] if cb["side"] == 0 else d["pup"][t[0]]
        if not up:
            raise bad
    for i, h in enumerate(cb["instants"]):
        if _power(s, h).activation != "instant" or not powered:
            raise _bad(f"combat.instants[{i}]", h, "is not an instant added after the combat "
                       "power (§11.1.13)")
    if not (-bound <= cb["a"] <= bound and -bound <= cb["d"] <= bound) or \
            (not powered and (cb["a"], cb["d"]) != (0, 0)):
        raise _bad("combat", [cb["a"], cb["d"]], f"(attack, defense) is outside -{bound}.."
                   f"{bound}, or not 0 0 before the power is computed (§11.1.11)")


def _check_counters(s: State, tokens: str) -> None:
    d, rules, cat = s.d, s.rules, s.cat
    powers, _ = decklists(rules, cat)
    setup = _setup_powers(rules)
    # each turn before this one dealt at least 3 Power cards: your draw, its discard and draw
    most = (len(d["dealt"][0]) - setup) // 3 + 1
    if d["turn"] > most:
        raise _bad("turn", d["turn"], f"is past turn {most}, the last the "
                   f"{len(d['dealt'][0])} cards dealt allow (§11.1.6, §11.1.14)")
    for f in ("shield", "rally"):
        top = _slow_bound(rules, cat, f)
        for i, v in enumerate(d[f]):
            if v > top:
                raise _bad(f"{f}[{i}]", v,
                           f"is above {top}, every {f} of the deck (§11.1.2, §11.1.9)")
    delayed = {(p.effect, p.amount) for cid in set(powers) if (p := cat.power(cid)).activation
               == "delayed"}
    for i, (_side, effect, n) in enumerate(d["delayed"]):
        if (effect, n) not in delayed:
            raise _bad(f"delayed[{i}]", [_side, effect, n], "is not the effect of a delayed "
                       "card of the deck (§11.1.2)")
    m = _QUEUE.fullmatch(tokens)
    if d["delayed"] and m is not None and (m["pd"] or m["pe"]):
        raise _bad("delayed", d["delayed"], "is empty once the turn's phase 3 resolved them "
                   "(§11.1.8, §11.1.18)")
    empty = sum(h < 0 for row in d["rows"] for h in row["cards"])
    replacing = "x" in tokens
    if empty != d["defeated"] + replacing:
        raise _bad("defeated", d["defeated"], f"is not the {empty} empty Multiverse slot(s)"
                   f"{' less the one being replaced' if replacing else ''} (§11.1.16, §11.1.17)")
    r = nearest_row(d)
    for k, row in enumerate(d["rows"]):
        if k > r >= 0 and (min(row["cards"]) < 0 or any(row["up"])):
            raise _bad(f"rows[{k}]", row, "lies behind the nearest row, so it is whole and "
                       "face down (§11.1.10, §11.1.14)")


def _check_outcome(s: State, tokens: str) -> None:
    d = s.d
    rows_empty = all(h < 0 for row in d["rows"] for h in row["cards"])
    mine_empty = all(h < 0 for h in d["pdef"])
    label = d["outcome"][0] if d["outcome"] else None
    if label is None:
        ok = not mine_empty and (not rows_empty or tokens[:1] == "x")
    elif label == "victory":
        ok = rows_empty
    elif label == "defenses-eliminated":
        ok = mine_empty and not rows_empty
    else:
        deck = d["q"][0][1] if tokens[:1] in ("h", "m", "M", "x") else -1
        ok = deck >= 0 and len(d["dealt"][deck]) == len(deck_handles(s.rules, s.cat, deck))
    if not ok:
        raise _bad("outcome", d["outcome"], "does not follow the board: the game ends when "
                   "every Multiverse card or every defense card of yours is gone, or at a deal "
                   "from an empty deck (§11.1.1, §11.1.21)")
