# Positions: a public text for any position of a Versus game, and a builder to set one up.
#
# A position is the public state only, the same facts the state hash covers (SPEC Part 3,
# "Positions", defines every field), as canonical JSON:
#   {"format": "versus-position/1", "game": "versus42", "rules": {...}, "catalogue": "<hex>",
#    "tiles": "WKGWB ...", "turn": 0, "active": 1, "used": [], "order": "summon",
#    "summons": 0, "cards": [{"zone": "hand"}, {"zone": "field", "area": "b2", "face": "recto",
#    "card": "dawn-moth"}, ...], "battle": null, "tasks": [], "decision": {...}, "result": null}
# A hidden identity never appears (a position can be pasted in a bug report mid-game); the
# counters the state keeps for speed (deck/hand/alive counts, the board, the first player)
# are derived, never written, so a position cannot contradict itself there.
#
# `load_position` treats its text as untrusted (size limit, every field checked, a
# PositionError naming the field) and rebuilds the state through `blank_state`, the same
# start as `new_game`. `PositionBuilder` writes the same fields card by card and builds through
# the same checks, so tests, bug reports and bot suites set up positions without touching the
# engine's private fields. A position without a "decision" is resolved as `step` would from
# there: its pending tasks run, or the active player gets a turn decision (or its turn ends by
# itself, §1.4.5). The reader accepts only what the rules can reach at some moment (SPEC Part 3,
# "Reachable"): faces, absorbed stacks and turn counters as the rules keep them.
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..api import POSITION_FORMAT, position_object_of, position_reader
from ..errors import PositionError, RulesetError
from .actions import KIND_WORDS
from .catalogue import Catalogue, default_catalogue
from .decisions import (
    ChoiceDecision,
    ChoiceKind,
    DealDecision,
    DealPurpose,
    GameResult,
    Outcome,
    RevealDecision,
    TurnDecision,
)
from .game import (
    ABSORBED,
    DECK,
    FIELD,
    HAND,
    T_ABSORB,
    T_LAND,
    T_PASSIVE,
    T_REVEAL,
    T_TURN_UP,
    T_TURNED,
    TASKS,
    ZONE_NAMES,
    State,
    _check_end,
    _run,
    blank_state,
)
from .geometry import Geometry
from .ruleset import ActionOrder, Ruleset, Tile, layout_tiles

GAME_ID = "versus42"
MAX_POSITION_BYTES = 1 << 16
MAX_TASKS = 1024
MAX_INCREASE = 99
MAX_ABSORBED = 4  # §1.8.5: the fourth absorption ends the game
FACES = ("verso", "recto")
ACTION_WORDS = KIND_WORDS[:4]  # the turn actions' types, in §1.4.3 order (bit k of `used`)
_TASK_BY_NAME = {t.name: t for t in TASKS}
_FIELDS = ("format", "game", "rules", "catalogue", "tiles", "turn", "active", "used", "order",
           "summons", "cards", "battle", "tasks", "decision", "result")
_REQUIRED = ("format", "game", "tiles", "cards")
_CARD_KEYS = {  # which keys a card may have in each zone (§1.1.2: eliminated cards stay known)
    "deck": {"zone"},
    "hand": {"zone"},
    "field": {"zone", "area", "face", "card", "increase", "absorbed"},
    "discarded": {"zone", "face", "card", "absorbed"},
    "destroyed": {"zone", "face", "card", "absorbed"},
    "absorbed": {"zone", "face", "card", "absorbed"},
}


# --- writing ----------------------------------------------------------------------------------

def tiles_text(tiles: tuple[int, ...], geom: Geometry) -> str:
    """Tile letters W K G B by row (row 1 first), rows separated by one space."""
    letters = "".join(Tile(t).letter for t in tiles)
    return " ".join(letters[r * geom.cols:(r + 1) * geom.cols] for r in range(geom.rows))


def position_object(s: State) -> dict[str, Any]:
    """The position of `s` as the JSON object SPEC defines (every field written)."""
    names = s.geom.names
    cards = []
    for h in range(2 * s.n):
        card: dict[str, Any] = {"zone": ZONE_NAMES[s.zone[h]]}
        if s.pos[h] >= 0:
            card["area"] = names[s.pos[h]]
        if s.face[h]:
            card["face"] = "recto"
        if s.ident[h] >= 0:
            card["card"] = s.cat.cards[s.ident[h]].id
        if s.temp[h]:
            card["increase"] = s.temp[h]
        if s.stack[h]:
            card["absorbed"] = list(s.stack[h])
        cards.append(card)
    battle = None
    if s.battle is not None:
        battle = {"area": names[s.battle[0]], "cards": [s.battle[1], s.battle[2]]}
    r = s.result
    return {
        "format": POSITION_FORMAT, "game": GAME_ID, "rules": s.rules.to_options(),
        "catalogue": s.cat.digest.hex(), "tiles": tiles_text(s.tiles, s.geom),
        "turn": s.turn, "active": s.active,
        "used": [w for k, w in enumerate(ACTION_WORDS) if s.used >> k & 1],
        "order": ACTION_WORDS[s.order_pos], "summons": s.summons, "cards": cards,
        "battle": battle, "tasks": [_task_object(s, t) for t in reversed(s.tasks)],
        "decision": _decision_object(s.pending, names),
        "result": None if r is None else {"outcome": r.outcome.value, "winner": r.winner},
    }


def dump_position(s: State) -> str:
    """The canonical position text: compact JSON with sorted keys, ASCII only."""
    return position_text(position_object(s))


def position_text(obj: dict[str, Any]) -> str:
    """A position object as its canonical text (dump_position's form)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def _task_object(s: State, task: tuple[int, ...]) -> list[Any]:
    spec = TASKS[task[0]]
    out: list[Any] = [spec.name]
    for kind, value in zip(spec.fields, task[1:], strict=True):
        if kind == "area":
            out.append(s.geom.names[value])
        elif kind == "face":
            out.append(FACES[value])
        elif kind == "other":
            out.append(None if value < 0 else value)
        else:
            out.append(value)
    return out


def _decision_object(d: object, area_names: tuple[str, ...]) -> dict[str, Any] | None:
    if isinstance(d, TurnDecision):
        return {"kind": "turn", "player": d.player}
    if isinstance(d, ChoiceDecision):
        return {"kind": "choice", "player": d.player, "choice": d.kind.value,
                "options": list(d.options)}
    if isinstance(d, DealDecision):
        deal = {"kind": "deal", "player": d.player, "purpose": d.purpose.value}
        if d.purpose is DealPurpose.FIELD:
            deal["area"] = area_names[d.area]
        return deal
    if isinstance(d, RevealDecision):
        return {"kind": "reveal", "player": d.player, "handle": d.handle}
    return None


# --- reading ----------------------------------------------------------------------------------

@position_reader
def load_position(text: str | bytes, catalogue: Catalogue | None = None) -> State:
    """The state a position text describes; PositionError names what is wrong."""
    return position_from_object(position_object_of(text, MAX_POSITION_BYTES), catalogue)


@position_reader
def position_from_object(obj: Any, catalogue: Catalogue | None = None) -> State:
    """The state a position object (parsed JSON) describes; see load_position."""
    return _Reader(obj, default_catalogue() if catalogue is None else catalogue).state()


class _Reader:
    """Checks one position object field by field while it builds the state."""

    def __init__(self, obj: Any, catalogue: Catalogue) -> None:
        if not isinstance(obj, dict):
            raise PositionError("a position is a JSON object")
        unknown = sorted(set(obj) - set(_FIELDS), key=str)
        if unknown:
            raise PositionError(f"position has unknown field(s) {unknown}")
        for name in _REQUIRED:
            if name not in obj:
                raise PositionError(f"position lacks field {name!r}")
        self.obj, self.cat = obj, catalogue

    def fail(self, where: str, why: str) -> PositionError:
        return PositionError(f"position field {where!r}: {why}")

    def need(self, ok: bool, where: str, why: str) -> None:
        if not ok:
            raise self.fail(where, why)

    def integer(self, value: Any, where: str, lo: int, hi: int) -> int:
        self.need(type(value) is int and lo <= value <= hi, where,
                  f"must be an integer {lo}..{hi}, got {value!r:.40}")
        return value  # type: ignore[no-any-return]

    def word(self, value: Any, where: str, allowed: tuple[str, ...]) -> str:
        self.need(isinstance(value, str) and value in allowed, where,
                  f"must be one of {', '.join(allowed)}, got {value!r:.40}")
        return value  # type: ignore[no-any-return]

    def handle(self, value: Any, where: str) -> int:
        return self.integer(value, where, 0, 2 * self.s.n - 1)

    def area(self, value: Any, where: str) -> int:
        index = self.s.geom.index.get(value) if isinstance(value, str) else None
        if index is None:
            names = self.s.geom.names
            raise self.fail(where, f"{value!r:.40} is not an area of the field "
                            f"({names[0]}–{names[-1]})")
        return index

    def state(self) -> State:
        obj = self.obj
        self.word(obj["format"], "format", (POSITION_FORMAT,))
        self.word(obj["game"], "game", (GAME_ID,))
        rules = self.rules(obj.get("rules", {}))
        if "catalogue" in obj:
            self.need(obj["catalogue"] == self.cat.digest.hex(), "catalogue",
                      f"the position was made with catalogue {obj['catalogue']!r:.70}, this "
                      f"one is {self.cat.digest.hex()}")
        self.s = s = blank_state(rules, self.cat, self.tiles(obj["tiles"], rules.geometry))
        s.turn = self.integer(obj.get("turn", 0), "turn", 0, 2 * rules.max_turns)
        default_active = s.first if s.turn % 2 == 0 else 1 - s.first
        s.active = self.integer(obj.get("active", default_active), "active", 0, 1)
        used = obj.get("used", [])
        self.need(isinstance(used, list) and len(set(map(str, used))) == len(used), "used",
                  "must be a list of distinct action types")
        for i, w in enumerate(used):
            s.used |= 1 << ACTION_WORDS.index(self.word(w, f"used[{i}]", ACTION_WORDS))
        s.order_pos = ACTION_WORDS.index(self.word(obj.get("order", "summon"), "order",
                                                   ACTION_WORDS))
        s.summons = self.integer(obj.get("summons", 0), "summons", 0, s.n)
        self.cards(obj["cards"])
        self.turn_counters(obj.get("result") is not None)
        self.battle(obj.get("battle"))
        self.tasks(obj.get("tasks", []))
        result = obj.get("result")
        decision = obj.get("decision")
        if result is not None:
            self.need(decision is None, "decision", "a finished game has no decision")
            s.result = self.result(result)
        elif decision is not None:
            for p in (0, 1):
                self.need(s.alive[p] > 0, "result", f"player {p} has no card left: the game "
                          "is over (§1.10.1), so the position needs its result")
            s.pending = self.decision(decision)
        self.task_identities()
        if result is None and decision is None:  # resolve from here, as `step` does
            _check_end(s)
            _run(s)
        return s

    def turn_counters(self, finished: bool) -> None:
        """The turn's counters as the rules keep them (SPEC §3.3 "Reachable"): a game goes on
        only below the turn limit (§1.10.3); `order` is the type of the last Action of the turn,
        so it is among `used`, and with `ordered` Actions the highest of them (§1.4.3), or
        `summon` when none is used yet; `summons` counts Summon Actions, so it is 0 exactly
        when no Summon is used."""
        s = self.s
        limit = 2 * s.rules.max_turns
        self.need(finished or s.turn < limit, "turn", f"turn {s.turn} is past the last turn "
                  f"({limit - 1}, max_turns {s.rules.max_turns}): the game is over (§1.10.3), "
                  "so the position needs its result")
        used = [k for k in range(len(ACTION_WORDS)) if s.used >> k & 1]
        last = ACTION_WORDS[s.order_pos]
        if not used:
            self.need(s.order_pos == 0, "order", f"no Action is used this turn, so the order "
                      f"is 'summon', got {last!r}")
        elif s.rules.action_order is ActionOrder.ORDERED:
            self.need(s.order_pos == used[-1], "order", f"with ordered Actions (§1.4.3) the last "
                      f"Action of the turn is the latest type used ({ACTION_WORDS[used[-1]]!r})"
                      f", got {last!r}")
        else:
            self.need(s.order_pos in used, "order", f"the last Action of the turn is one of "
                      f"the types used, got {last!r}")
        summoned = bool(s.used & 1)
        self.need(summoned == (s.summons > 0), "summons", f"{s.summons} Summon Actions this "
                  f"turn, but 'summon' is {'' if summoned else 'not '}among the types used")

    def rules(self, options: Any) -> Ruleset:
        self.need(isinstance(options, dict), "rules", "must be an object of ruleset options")
        try:
            return Ruleset.from_options(**options)
        except RulesetError as e:
            raise self.fail("rules", str(e)) from None

    def tiles(self, text: Any, geom: Geometry) -> tuple[int, ...]:
        rows = text.split(" ") if isinstance(text, str) else []
        self.need(len(rows) == geom.rows and all(len(r) == geom.cols for r in rows), "tiles",
                  f"must be {geom.rows} rows of {geom.cols} letters W K G B separated by "
                  f"spaces, row 1 first, got {text!r:.60}")
        letters = "".join(rows)
        bad = sorted(set(letters) - set("WKGB"))
        self.need(not bad, "tiles", f"unknown tile letter(s) {bad} (W K G B)")
        self.need(letters.count("B") == 1, "tiles", "exactly one area is Blue (§1.3.2)")
        return tuple("WKGB".index(ch) for ch in letters)

    def cards(self, cards: Any) -> None:
        s = self.s
        self.need(isinstance(cards, list) and len(cards) == 2 * s.n, "cards",
                  f"must list the {2 * s.n} handles' cards, handle 0 first")
        under: dict[int, int] = {}  # absorbed handle -> the card it is under
        for h, card in enumerate(cards):
            self.card(h, card, under)
        for h in range(2 * s.n):
            where = f"cards[{h}]"
            if h in under:
                self.need(s.zone[h] == ABSORBED, f"{where}.zone",
                          f"card {h} is under card {under[h]}, so its zone is 'absorbed'")
            elif s.zone[h] == ABSORBED:
                self.need(False, where, "an absorbed card is in one card's 'absorbed' list")
            if s.zone[h] == ABSORBED or (s.zone[h] == FIELD and s.face[h]):
                self.need(s.ident[h] >= 0, f"{where}.card", f"a {ZONE_NAMES[s.zone[h]]} "
                          f"{'card' if s.zone[h] == ABSORBED else 'recto card'}'s identity "
                          "is public (the rules read it)")
            self.reachable_card(h, where)
        for p in (0, 1):
            hs = range(p * s.n, p * s.n + s.n)
            s.deck_n[p] = sum(s.zone[h] == DECK for h in hs)
            s.hand_n[p] = sum(s.zone[h] == HAND for h in hs)
            s.alive[p] = s.deck_n[p] + s.hand_n[p] + sum(s.zone[h] == FIELD for h in hs)

    def reachable_card(self, h: int, where: str) -> None:
        """What every card of a reachable state is (SPEC §3.3 "Reachable"): a card turns recto
        only once revealed (§1.5.1, §1.5.2, §1.7.3), so a recto card's identity is public; an
        absorbed card was turned recto by its battle's Revelation (§1.7.3), and so was the card
        that absorbed it; the fourth absorption ends the game (§1.8.5)."""
        s = self.s
        if s.face[h]:
            self.need(s.ident[h] >= 0, f"{where}.card", "a card that was recto on the field "
                      "was revealed first: its identity is public")
        if s.zone[h] == ABSORBED:
            self.need(s.face[h] == 1, f"{where}.face", "an absorbed card was turned recto in "
                      "its battle (§1.7.3): its face is 'recto', got 'verso'")
        if s.stack[h]:
            self.need(s.face[h] == 1 and s.ident[h] >= 0, f"{where}.absorbed",
                      f"card {h} absorbed {list(s.stack[h])} in battles that turned it recto "
                      "(§1.7.3): it is recto and public")
            self.need(len(s.stack[h]) < MAX_ABSORBED or self.obj.get("result") is not None,
                      f"{where}.absorbed", f"{len(s.stack[h])} absorbed cards: the fourth "
                      "absorption ends the game (§1.8.5), so the position needs its result")

    def card(self, h: int, card: Any, under: dict[int, int]) -> None:
        s, where = self.s, f"cards[{h}]"
        self.need(isinstance(card, dict), where, "must be an object with a 'zone'")
        zone = self.word(card.get("zone"), f"{where}.zone", ZONE_NAMES)
        extra = sorted(set(card) - _CARD_KEYS[zone], key=str)
        self.need(not extra, where, f"a {zone} card has no field(s) {extra}")
        s.zone[h] = ZONE_NAMES.index(zone)
        if zone == "field":
            self.need("area" in card, f"{where}.area", "a field card stands on an area")
            s.pos[h] = self.area(card["area"], f"{where}.area")
        s.face[h] = FACES.index(self.word(card.get("face", "verso"), f"{where}.face", FACES))
        if "card" in card:
            cid = card["card"]
            self.need(isinstance(cid, str) and cid in self.cat, f"{where}.card",
                      f"unknown card id {cid!r:.50}")
            s.ident[h] = self.cat[cid].index
        s.temp[h] = self.integer(card.get("increase", 0), f"{where}.increase", 0, MAX_INCREASE)
        if "absorbed" not in card:
            return
        stack = card["absorbed"]
        self.need(isinstance(stack, list) and 1 <= len(stack) <= MAX_ABSORBED,
                  f"{where}.absorbed", f"must list 1..{MAX_ABSORBED} handles, in absorption "
                  "order")
        for i, x in enumerate(stack):
            at = f"{where}.absorbed[{i}]"
            self.handle(x, at)
            self.need(x // s.n != h // s.n, at, f"card {x} is an ally: only enemy cards are "
                      "absorbed (§1.7.4)")
            self.need(x not in under, at, f"card {x} is already under card {under.get(x)}")
            under[x] = h
        s.stack[h] = tuple(stack)

    def battle(self, battle: Any) -> None:
        s, names = self.s, self.s.geom.names
        at: dict[int, list[int]] = {}
        for h in range(2 * s.n):
            if s.zone[h] == FIELD:
                at.setdefault(s.pos[h], []).append(h)
        if battle is not None:
            self.need(isinstance(battle, dict) and set(battle) == {"area", "cards"}, "battle",
                      "must be null or {\"area\": ..., \"cards\": [resident, arriving]}")
            area = self.area(battle["area"], "battle.area")
            pair = battle["cards"]
            self.need(isinstance(pair, list) and len(pair) == 2, "battle.cards",
                      "must be [the card already there, the arriving card]")
            a, b = (self.handle(x, f"battle.cards[{i}]") for i, x in enumerate(pair))
            self.need(sorted(at.get(area, [])) == sorted({a, b}) and a != b, "battle.cards",
                      f"the two cards on {names[area]} are {at.get(area, [])}")
            s.battle = (area, a, b)
        for area, hs in sorted(at.items()):
            if len(hs) > 1:
                self.need(s.battle is not None and s.battle[0] == area, "cards",
                          f"cards {hs} all stand on {names[area]}, but no battle is there")
            s.board[area] = hs[0] if len(hs) == 1 else s.battle[1]  # type: ignore[index]

    def tasks(self, tasks: Any) -> None:
        self.need(isinstance(tasks, list) and len(tasks) <= MAX_TASKS, "tasks",
                  f"must be a list of at most {MAX_TASKS} tasks, the next to run first")
        out = []
        for i, task in enumerate(tasks):
            where = f"tasks[{i}]"
            self.need(isinstance(task, list) and len(task) > 0, where,
                      "a task is [name, field...]")
            spec = _TASK_BY_NAME.get(task[0]) if isinstance(task[0], str) else None
            self.need(spec is not None, where, f"unknown task {task[0]!r:.40} "
                      f"(one of {', '.join(_TASK_BY_NAME)})")
            assert spec is not None
            self.need(len(task) == 1 + len(spec.fields), where,
                      f"'{spec.name}' has the fields {list(spec.fields)}")
            values = [spec.code]
            for j, (kind, value) in enumerate(zip(spec.fields, task[1:], strict=True)):
                values.append(self.task_field(kind, value, f"{where}[{j + 1}]"))
            out.append(tuple(values))
        self.s.tasks = out[::-1]

    def task_field(self, kind: str, value: Any, where: str) -> int:
        readers: dict[str, Callable[[Any, str], int]] = {
            "player": lambda v, w: self.integer(v, w, 0, 1),
            "handle": self.handle,
            "area": self.area,
            "face": lambda v, w: FACES.index(self.word(v, w, FACES)),
            "other": lambda v, w: -1 if v is None else self.handle(v, w),
        }
        return readers[kind](value, where)

    def task_identities(self) -> None:
        """Each task that reads a card's identity when it runs finds it public: already, by
        the pending reveal, or by a reveal task that runs before it (as the engine pushes
        them: a recto land, a turn-up, a battle's turned and absorb steps, a Passive)."""
        s = self.s
        known = {h for h in range(2 * s.n) if s.ident[h] >= 0}
        if isinstance(s.pending, RevealDecision):
            known.add(s.pending.handle)
        for i, task in enumerate(reversed(s.tasks)):  # in the order they run
            code = task[0]
            reads: tuple[int, ...] = ()
            if code == T_REVEAL:
                known.add(task[1])
            elif code == T_LAND:
                self.need(s.zone[task[1]] == HAND, f"tasks[{i}]",
                          f"card {task[1]} lands from its owner's hand, it is not there")
                reads = task[1:2] if task[3] else ()
            elif code in (T_TURN_UP, T_PASSIVE):
                reads = task[1:2]
            elif code in (T_TURNED, T_ABSORB) and s.battle == task[1:]:
                reads = task[2:]
            for x in reads:
                self.need(x in known, f"tasks[{i}]", f"'{TASKS[code].name}' reads card {x}'s "
                          "identity, which is not public and no reveal of it runs first")

    def decision(self, d: Any) -> TurnDecision | ChoiceDecision | DealDecision | RevealDecision:
        s = self.s
        self.need(isinstance(d, dict), "decision", "must be an object with a 'kind'")
        kind = self.word(d.get("kind"), "decision.kind", ("turn", "choice", "deal", "reveal"))
        keys = {"turn": {"player"}, "choice": {"player", "choice", "options"},
                "deal": {"player", "purpose"}, "reveal": {"player", "handle"}}[kind]
        if kind == "deal" and d.get("purpose") == DealPurpose.FIELD.value:
            keys = keys | {"area"}
        self.need(set(d) == keys | {"kind"}, "decision",
                  f"a {kind} decision has exactly the fields {sorted(keys | {'kind'})}")
        p = self.integer(d["player"], "decision.player", 0, 1)
        mine = range(p * s.n, p * s.n + s.n)
        if kind == "turn":
            self.need(p == s.active, "decision.player", f"player {s.active} is active")
            self.need(not s.tasks and s.battle is None, "decision",
                      "a turn decision waits for no task and no battle")
            return TurnDecision(p)
        if kind == "choice":
            choice = ChoiceKind(self.word(d["choice"], "decision.choice",
                                          tuple(c.value for c in ChoiceKind)))
            zone = HAND if choice is ChoiceKind.DISCARD_FROM_HAND else FIELD
            self.need(s.deck_n[p] == 0 and (zone == HAND or s.hand_n[p] == 0), "decision",
                      f"player {p} discards from its {'deck' if s.deck_n[p] else 'hand'} "
                      "first (§1.6.1)")
            want = [h for h in mine if s.zone[h] == zone]
            self.need(d["options"] == want and bool(want), "decision.options",
                      f"must be player {p}'s {ZONE_NAMES[zone]} cards, ascending: {want}")
            return ChoiceDecision(p, choice, tuple(want))
        if kind == "deal":
            purpose = DealPurpose(self.word(d["purpose"], "decision.purpose",
                                            tuple(x.value for x in DealPurpose)))
            self.need(s.deck_n[p] > 0, "decision", f"player {p}'s deck is empty")
            if purpose is DealPurpose.FIELD:
                area = self.area(d["area"], "decision.area")
                self.need(s.board[area] < 0, "decision.area", f"{s.geom.names[area]} is "
                          "occupied: a placed card goes to an empty area")
                return DealDecision(p, purpose, area)
            return DealDecision(p, purpose)
        h = self.handle(d["handle"], "decision.handle")
        self.need(h in mine, "decision.handle", f"card {h} is not player {p}'s")
        self.need(s.ident[h] < 0, "decision.handle", f"card {h} is already public")
        self.need(s.zone[h] != DECK, "decision.handle", f"card {h} is in the deck")
        return RevealDecision(p, h)

    def result(self, r: Any) -> GameResult:
        self.need(isinstance(r, dict) and set(r) == {"outcome", "winner"}, "result",
                  "must be null or {\"outcome\": ..., \"winner\": 0, 1 or null}")
        outcome = Outcome(self.word(r["outcome"], "result.outcome",
                                    tuple(o.value for o in Outcome)))
        winner = r["winner"]
        if outcome is Outcome.MUTUAL_ELIMINATION:
            self.need(winner is None, "result.winner", "a mutual elimination is a draw")
        elif outcome is not Outcome.TURN_LIMIT or winner is not None:
            self.integer(winner, "result.winner", 0, 1)
        return GameResult(outcome, winner)


# --- the builder ------------------------------------------------------------------------------

class PositionBuilder:
    """Lays out a position card by card in the terms of the position format; `build()` checks
    it and returns the state. Each placing method takes the lowest handle of that player not
    placed yet (or the `handle` given) and returns it; every handle never placed stays in its
    owner's deck. The attributes `turn`, `active`, `used`, `order`, `summons`, `tasks`,
    `decision` and `result` are the format's fields, to set directly for unusual positions.

        b = PositionBuilder(tiles="GGGGG GGGGG GGGGG GGGGB", active=0)
        dragon = b.field(0, "c2", "zenith-dragon")
        b.field(1, "c3", recto=False)        # a verso card: its identity stays hidden
        b.hand(1)
        state = b.build()                      # player 0 to play
    """

    def __init__(self, rules: Ruleset | None = None, catalogue: Catalogue | None = None, *,
                 tiles: str | None = None, layout_seed: bytes = b"position", turn: int = 0,
                 active: int | None = None) -> None:
        self.rules = rules if rules is not None else Ruleset()
        self.catalogue = catalogue if catalogue is not None else default_catalogue()
        geom = self.rules.geometry
        self.tiles = tiles if tiles is not None else tiles_text(
            layout_tiles(self.rules, layout_seed), geom)
        self.turn, self.active = turn, active
        self.used: list[str] = []
        self.order, self.summons = "summon", 0
        self.tasks: list[list[Any]] = []
        self.decision: dict[str, Any] | None = None
        self.result: dict[str, Any] | None = None
        self.n = self.rules.deck_size
        self.cards: list[dict[str, Any]] = [{"zone": "deck"} for _ in range(2 * self.n)]
        self._placed: set[int] = set()

    def unplaced(self, player: int) -> list[int]:
        """Player's handles not placed (nor kept in the deck by `deck`) yet, ascending."""
        if player not in (0, 1):
            raise PositionError(f"player must be 0 or 1, got {player!r}")
        return [h for h in range(player * self.n, player * self.n + self.n)
                if h not in self._placed]

    def _take(self, player: int, handle: int | None) -> int:
        free = self.unplaced(player)
        if handle is None:
            if not free:
                raise PositionError(f"player {player} has no unplaced card left "
                                    f"(deck_size {self.n})")
            handle = free[0]
        elif handle not in free:
            raise PositionError(f"handle {handle!r} is not an unplaced card of player {player}")
        self._placed.add(handle)
        return handle

    def deck(self, player: int, *, handle: int | None = None) -> int:
        """Keep a card in the deck (so later placements skip it)."""
        return self._take(player, handle)

    def hand(self, player: int, *, handle: int | None = None) -> int:
        h = self._take(player, handle)
        self.cards[h] = {"zone": "hand"}
        return h

    def field(self, player: int, area: str, card: str | None = None, *, recto: bool = True,
              increase: int = 0, handle: int | None = None) -> int:
        """A field card; a recto one needs its `card` id (it is public), a verso one is hidden
        unless `card` is given."""
        if recto and card is None:
            raise PositionError(f"a recto card on {area} needs its card id (it is public)")
        h = self._take(player, handle)
        self.cards[h] = _compact({"zone": "field", "area": area, "card": card,
                                  "face": "recto" if recto else None, "increase": increase})
        return h

    def eliminated(self, player: int, zone: str = "discarded", card: str | None = None, *,
                   recto: bool = False, handle: int | None = None) -> int:
        """A discarded or destroyed card (identity hidden unless `card` is given)."""
        if zone not in ("discarded", "destroyed"):
            raise PositionError(f"an eliminated card is discarded or destroyed, not {zone!r}")
        h = self._take(player, handle)
        self.cards[h] = _compact({"zone": zone, "card": card,
                                  "face": "recto" if recto else None})
        return h

    def absorbed(self, into: int, card: str, *, handle: int | None = None) -> int:
        """An enemy card absorbed by card `into` (after those it absorbed before, §1.8.1)."""
        if not (type(into) is int and 0 <= into < 2 * self.n):
            raise PositionError(f"no card {into!r} to absorb into")
        h = self._take(1 - into // self.n, handle)
        self.cards[h] = {"zone": "absorbed", "face": "recto", "card": card}
        self.cards[into]["absorbed"] = [*self.cards[into].get("absorbed", []), h]
        return h

    def position(self) -> dict[str, Any]:
        """The position object these fields describe (`decision` None: `build` resolves it)."""
        obj: dict[str, Any] = {
            "format": POSITION_FORMAT, "game": GAME_ID, "rules": self.rules.to_options(),
            "tiles": self.tiles, "turn": self.turn, "used": self.used, "order": self.order,
            "summons": self.summons, "cards": self.cards, "tasks": self.tasks,
            "decision": self.decision, "result": self.result,
        }
        if self.active is not None:
            obj["active"] = self.active
        return obj

    def build(self) -> State:
        return position_from_object(self.position(), self.catalogue)


def _compact(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v not in (None, 0)}

