# Grid game positions (SPEC Part 9, "Positions"): the public state as canonical JSON text,
# format "versus-position/1", game "grid", and its checked reader.
#
# How: `dump_position` writes every field the state hash covers (§9.4) with names instead of
# codes (zones, cells, task and decision names) as sorted, whitespace-free ASCII JSON.
# `load_position` treats the text as untrusted: at most 64 KiB, every field checked, and a
# PositionError naming the field (`cards[3].cell`, `tasks[0]`). A loaded position dumps back
# to the same text, and hashes as the state it was written from. It accepts only what the rules
# can reach (SPEC §9.5 "Reachable"): turn counters as a turn keeps them, controllers as cards
# are dealt, weakening, boosts and shields no larger than the spent cards give, a pending
# decision the rules would ask and tasks that find the identities they read.
from __future__ import annotations

import json
from typing import Any

from ..api import POSITION_FORMAT, position_object_of, position_reader
from ..errors import CatalogueError, PositionError, RulesetError
from .cards import Catalogue, Kind, Op, Use, default_catalogue
from .rules import GridRules, Tie
from .state import (
    OUTCOME_LABELS,
    TASK_ARITY,
    Dec,
    GridState,
    Outcome,
    Task,
    Zone,
    _Work,
    cell_index,
    cell_name,
    deck_range,
    duel_pairs,
    item_targets,
)

#: the item effects that pick a target (§9.1.11)
_TARGETED = (Op.DESTROY, Op.SCOUT, Op.SHIELD, Op.BOOST)
GAME_ID = "grid"
MAX_POSITION_BYTES = 64 * 1024
ZONE_NAMES = {z: z.name.lower() for z in Zone}
TASK_NAMES = {t: t.name.lower().replace("_", "-") for t in Task}
DEC_NAMES = {d: d.name.lower() for d in Dec}
#: decision -> number of fixed fields (None: a player, a handle, then a list)
DEC_ARITY = {Dec.COIN: 0, Dec.DEAL: 2, Dec.REVEAL: 2, Dec.TURN: 1, Dec.WINDOW: 2,
             Dec.ORDER: None, Dec.TARGET: None, Dec.DUEL: 0, Dec.PLACE: 3}


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def dump_position(s: GridState) -> str:
    cards = []
    for h in range(len(s.zone)):
        c: dict[str, Any] = {"zone": ZONE_NAMES[Zone(s.zone[h])]}
        if s.holder[h] >= 0:
            c["holder"] = s.holder[h]
        if s.ctrl[h] >= 0:
            c["controller"] = s.ctrl[h]
        if s.cell[h] >= 0:
            c["cell"] = cell_name(s.cell[h], s.size)
        if s.up[h]:
            c["up"] = True
        if s.ident[h] >= 0:
            c["card"] = s.catalogue.cards[s.ident[h]].id
        for name in ("weaken", "boost"):
            if getattr(s, name)[h]:
                c[name] = getattr(s, name)[h]
        if s.shield[h]:
            c["shield"] = True
        cards.append(c)
    obj = {
        "format": POSITION_FORMAT, "game": GAME_ID, "rules": s.rules.to_options(),
        "catalogue": s.catalogue.digest.hex(), "first": s.first, "active": s.active,
        "turn": s.turn, "acted": bool(s.acted), "placements": s.placements,
        "airdrop": bool(s.airdrop), "cards": cards,
        "graveyards": [list(g) for g in s.graves], "modifiers": list(s.modifiers),
        "tasks": [[TASK_NAMES[Task(t[0])], *t[1:]] for t in reversed(s.tasks)],
        "decision": ({"kind": DEC_NAMES[Dec(s.decision[0])], "fields": list(s.decision[1:])}
                     if s.decision else None),
        "result": ({"outcome": OUTCOME_LABELS[Outcome(s.result[0])],
                    "winner": None if s.result[1] < 0 else s.result[1]}
                   if s.result[0] >= 0 else None),
    }
    return _canonical(obj)


@position_reader
def load_position(text: str | bytes, catalogue: Catalogue | None = None) -> GridState:
    obj = position_object_of(text, MAX_POSITION_BYTES)
    return _Reader(obj, catalogue or default_catalogue()).state()


class _Reader:
    def __init__(self, obj: Any, cat: Catalogue) -> None:
        if not isinstance(obj, dict):
            raise PositionError("a position is a JSON object")
        self.obj, self.cat = obj, cat

    def bad(self, fld: str, why: str) -> PositionError:
        return PositionError(f"position field {fld!r}: {why}")

    def get(self, fld: str, default: Any = ...) -> Any:
        if fld not in self.obj:
            if default is ...:
                raise self.bad(fld, "missing")
            return default
        return self.obj[fld]

    def int_(self, fld: str, value: Any, lo: int, hi: int) -> int:
        if type(value) is not int or not lo <= value <= hi:
            raise self.bad(fld, f"must be an integer {lo}..{hi}, got {value!r:.40}")
        return value

    def state(self) -> GridState:
        o = self.obj
        known = {"format", "game", "rules", "catalogue", "first", "active", "turn", "acted",
                 "placements", "airdrop", "cards", "graveyards", "modifiers", "tasks",
                 "decision", "result"}
        extra = sorted(set(o) - known)
        if extra:
            raise self.bad(extra[0], "unknown field")
        if o.get("format") != POSITION_FORMAT:
            raise self.bad("format", f"must be {POSITION_FORMAT!r}")
        if o.get("game") != GAME_ID:
            raise self.bad("game", f"must be {GAME_ID!r}")
        try:
            rules = GridRules.from_options(self.get("rules", {}))
        except (RulesetError, CatalogueError) as e:
            raise self.bad("rules", str(e)) from None
        digest = self.get("catalogue", None)
        if digest is not None and digest != self.cat.digest.hex():
            raise self.bad("catalogue", "is not the digest of the card data given")
        n, size = rules.cards, rules.size
        first = self.int_("first", self.get("first", -1), -1, 1)
        active = self.int_("active", self.get("active", -1), -1, 1)
        turn = self.int_("turn", self.get("turn", 0), 0, 30000)
        acted = self.get("acted", False)
        airdrop = self.get("airdrop", False)
        for fld, val in (("acted", acted), ("airdrop", airdrop)):
            if type(val) is not bool:
                raise self.bad(fld, "must be true or false")
        place = self.int_("placements", self.get("placements", 1), 0, 2)
        raw_cards = self.get("cards")
        if not isinstance(raw_cards, list) or len(raw_cards) != n:
            raise self.bad("cards", f"must be a list of {n} cards (one per handle)")
        zone, holder, ctrl, cell, up, ident = ([0] * n, [-1] * n, [-1] * n, [-1] * n,
                                               [0] * n, [-1] * n)
        weaken, boost, shield = [0] * n, [0] * n, [0] * n
        taken: dict[int, int] = {}
        for h, c in enumerate(raw_cards):
            f = f"cards[{h}]"
            if not isinstance(c, dict):
                raise self.bad(f, "must be an object")
            extra = sorted(set(c) - {"zone", "holder", "controller", "cell", "up", "card",
                                     "weaken", "boost", "shield"})
            if extra:
                raise self.bad(f"{f}.{extra[0]}", "unknown field")
            names = {v: k for k, v in ZONE_NAMES.items()}
            if c.get("zone") not in names:
                raise self.bad(f"{f}.zone", f"must be one of {', '.join(names)}")
            z = zone[h] = names[c["zone"]]
            if "holder" in c:
                holder[h] = self.int_(f"{f}.holder", c["holder"], 0, 1)
            if (z == Zone.DECK) != (holder[h] < 0):
                raise self.bad(f"{f}.holder", "a dealt card has a holder, a deck card none")
            if not rules.shared and holder[h] >= 0 and holder[h] != h // rules.deck_size:
                raise self.bad(f"{f}.holder", f"card {h} belongs to player "
                                              f"{h // rules.deck_size}'s deck")
            if "controller" in c:
                ctrl[h] = self.int_(f"{f}.controller", c["controller"], 0, 1)
            if (z in (Zone.HAND, Zone.GRID, Zone.MODIFIER)) != (ctrl[h] >= 0):
                raise self.bad(f"{f}.controller", "hand, grid and modifier cards (only) have "
                                                  "a controller")
            if "cell" in c:
                name = c["cell"]
                idx = cell_index(name, size) if isinstance(name, str) and len(name) == 2 \
                    and name[1].isdigit() else -1
                if idx < 0:
                    raise self.bad(f"{f}.cell", f"{name!r:.10} is not a cell of the "
                                                f"{size}x{size} grid")
                if idx in taken:
                    raise self.bad(f"{f}.cell", f"card {taken[idx]} already lies on {name}")
                taken[idx] = h
                cell[h] = idx
            if (z == Zone.GRID) != (cell[h] >= 0):
                raise self.bad(f"{f}.cell", "a grid card (only) has a cell")
            if c.get("up", False) is not False:
                if c["up"] is not True or z != Zone.GRID:
                    raise self.bad(f"{f}.up", "only a grid card is face up (true)")
                up[h] = 1
            if "card" in c:
                if c["card"] not in self.cat.index:
                    raise self.bad(f"{f}.card", f"{c['card']!r:.40} is not in the catalogue")
                ident[h] = self.cat.index[c["card"]]
            if z in (Zone.GRAVEYARD, Zone.MODIFIER) and ident[h] < 0:
                raise self.bad(f"{f}.card", "a graveyard or modifier card is public")
            if z == Zone.MODIFIER and self.cat.cards[ident[h]].use is not Use.MODIFIER:
                raise self.bad(f"{f}.card", "only a MODIFIER item stays in play")
            # a revealed trap or item is face up on the grid only while the tasks that
            # resolve it (fire the trap, discard the item) are still pending
            if z == Zone.GRID and up[h] and ident[h] >= 0 and not self.get("tasks", []) and \
                    self.cat.cards[ident[h]].kind is not Kind.CHARACTER:
                raise self.bad(f"{f}.card", "only a character stays face up on the grid")
            for k, arr in (("weaken", weaken), ("boost", boost)):
                if k in c:
                    if z != Zone.GRID:
                        raise self.bad(f"{f}.{k}", "only a grid card has one")
                    arr[h] = self.int_(f"{f}.{k}", c[k], 1, 99)
            if c.get("shield", False) is not False:
                if c["shield"] is not True or z != Zone.GRID:
                    raise self.bad(f"{f}.shield", "only a grid card is shielded (true)")
                shield[h] = 1
        graves = self._handle_lists("graveyards", 1 if rules.shared else 2, n)
        for g, lst in enumerate(graves):
            for k, h in enumerate(lst):
                if zone[h] != Zone.GRAVEYARD or (not rules.shared and h // rules.deck_size != g):
                    raise self.bad(f"graveyards[{g}][{k}]", f"card {h} is not in this graveyard")
        mods = self._handle_lists("modifiers", None, n)[0]
        for k, h in enumerate(mods):
            if zone[h] != Zone.MODIFIER:
                raise self.bad(f"modifiers[{k}]", f"card {h} is not a modifier in play")
        listed = [h for lst in graves for h in lst] + mods
        if len(set(listed)) != len(listed) or set(listed) != {
                h for h in range(n) if zone[h] in (Zone.GRAVEYARD, Zone.MODIFIER)}:
            raise self.bad("graveyards", "must list each graveyard card, and modifiers each "
                                         "modifier, exactly once")
        tasks = self._tasks(n, size)
        dec = self._decision(n, rules, zone, holder, ident, taken)
        result = self._result()
        if (result[0] >= 0) == bool(dec):
            raise self.bad("decision", "a finished game has none, a game going on has one")
        if first < 0 and (active >= 0 or any(z != Zone.DECK for z in zone)):
            raise self.bad("first", "the coin flip comes before anything else")
        for h in range(n):
            if up[h] and ident[h] < 0 and not (dec and dec[0] == Dec.REVEAL and dec[2] == h):
                raise self.bad(f"cards[{h}].card", "a face-up card is public unless its "
                                                   "reveal is the pending decision")
        state = GridState(rules, self.cat, first, active, turn, int(acted), place,
                          int(airdrop), tuple(zone), tuple(holder), tuple(ctrl), tuple(cell),
                          tuple(up), tuple(ident), tuple(weaken), tuple(boost), tuple(shield),
                          tuple(tuple(g) for g in graves), tuple(mods), tasks, dec, result)
        self._turn_counters(state)
        self._controllers(state)
        self._effects(state)
        self._pending(state)
        return state

    def _pending(self, s: GridState) -> None:
        """A pending decision is the one the rules would ask here, and every pending task
        that reads a card's identity finds it public, by the pending reveal or by a `reveal`
        task that runs first (as the engine pushes them, §9.4)."""
        known = {h for h in range(len(s.zone)) if s.ident[h] >= 0}
        d = s.decision
        if d and d[0] == Dec.REVEAL:
            known.add(d[2])
        reads = (Task.USE, Task.TRAP, Task.TURN_UP, Task.BURY)
        for i, task in enumerate(reversed(s.tasks)):  # in the order they run
            code, fields = task[0], task[1:]
            if code == Task.REVEAL:
                known.add(fields[0])
            elif (code in reads or (code == Task.ARRIVE and s.up[fields[0]])) and \
                    fields[0] not in known:
                raise self.bad(f"tasks[{i}]", f"{TASK_NAMES[Task(code)]!r} reads card "
                                              f"{fields[0]}'s identity, which is not public "
                                              "and no reveal of it runs first")
        if not d or d[0] not in (Dec.WINDOW, Dec.ORDER, Dec.TARGET, Dec.DUEL, Dec.COIN):
            return
        w = _Work(s)
        if d[0] == Dec.COIN:
            if s.first >= 0:
                raise self.bad("decision", f"the coin flip is over: player {s.first} is first")
            return
        if d[0] == Dec.DUEL:
            if s.rules.tie is not Tie.SUDDEN_DEATH or not duel_pairs(s.ident, s.zone, self.cat):
                raise self.bad("decision", "a sudden-death draw needs the rules option tie "
                                           "sudden-death and two public characters of "
                                           "different top values (§9.1.14)")
            return
        p, h, options = d[1], d[2], list(d[3:])
        if not ((s.zone[h] == Zone.GRID and s.up[h]) or d[0] == Dec.TARGET):
            raise self.bad("decision.fields[1]", f"card {h} is not face up on the grid")
        if d[0] == Dec.WINDOW:
            if s.ctrl[h] != 1 - p or not w.enemies(h) or not w.hand(p):
                raise self.bad("decision", f"no FREE window of player {p} opens before card "
                                           f"{h}'s battles (§9.1.12)")
            return
        if d[0] == Dec.ORDER:
            enemies = w.enemies(h)
            if s.ctrl[h] != p or len(options) < 2 or len(set(options)) != len(options) or \
                    not set(options) <= set(enemies):
                raise self.bad("decision.fields", f"a battle order of player {p}'s card {h} "
                                                  f"picks among two or more of its face-up "
                                                  f"opponent characters next to it {enemies}, "
                                                  f"got {options}")
            return
        card = s.card(h)
        op = card.effect.op if card is not None and card.effect is not None else None
        if card is None or card.kind is not Kind.ITEM or op not in _TARGETED:
            raise self.bad("decision.fields[1]", f"card {h} is not a public item that picks a "
                                                 "target (§9.1.11)")
        want = item_targets(w, p, op)
        if options != want:
            raise self.bad("decision.fields", f"the targets of card {h} are {want}, got "
                                              f"{options}")

    def _turn_counters(self, s: GridState) -> None:
        """The turn's counters as the rules keep them (SPEC §9.5 "Reachable"): a turn starts with
        one placement, no airdrop and nothing done (§9.1.15), so a second placement or an airdrop
        comes from an item used as the turn's action (§9.1.11); a turn decision is the active
        player's, who holds a card and, once it has acted, has a placement left (§9.4 `play`);
        every turn consumes a hand card or passes, so the turns are at most 4 per handle.
        A placement left after acting, or an airdrop, comes from a spent double or airdrop
        item, public in a graveyard (§9.1.11)."""
        limit = 4 * len(s.zone)
        if s.turn > limit:
            raise self.bad("turn", f"{s.turn} turns: every turn uses a card, or passes with an "
                                   f"empty hand (§9.1.16), so a game has at most {limit}")
        if not s.acted and (s.placements != 1 or s.airdrop):
            raise self.bad("placements", f"{s.placements} placement(s) left"
                                         f"{' and an airdrop' if s.airdrop else ''} before the "
                                         "player has acted: a turn starts with one (§9.1.15)")
        if s.acted and (s.placements or s.airdrop):
            cards = [self.cat.cards[s.ident[h]] for g in s.graves for h in g]
            spent = {c.effect.op for c in cards if c.kind is Kind.ITEM and c.effect is not None}
            if (s.airdrop and Op.AIRDROP not in spent) or not spent & {Op.DOUBLE, Op.AIRDROP}:
                raise self.bad("placements", f"{s.placements} placement(s) left"
                                             f"{' and an airdrop' if s.airdrop else ''} after "
                                             "the player has acted, but no double or airdrop "
                                             "item is spent (§9.1.11)")
        if s.decision and s.decision[0] == Dec.TURN:
            p = s.decision[1]
            if p != s.active:
                raise self.bad("decision", f"a turn decision is the active player's "
                                           f"({s.active}), got player {p}")
            if not s.hand(p):
                raise self.bad("decision", f"player {p} holds no card: its turn ends by itself "
                                           "(§9.1.14), there is no turn decision")
            if s.acted and not s.placements:
                raise self.bad("decision", f"player {p} has acted and has no placement left: "
                                           "its turn ends (§9.1.15), there is no turn decision")

    def _controllers(self, s: GridState) -> None:
        """Who controls a card: the player it was dealt to, except a character recalled from
        the shared graveyard (§9.1.11 recall), which is public."""
        for h in range(len(s.zone)):
            if s.ctrl[h] < 0 or s.ctrl[h] == s.holder[h]:
                continue
            if not s.rules.shared:
                raise self.bad(f"cards[{h}].controller", f"player {s.ctrl[h]}, but card {h} "
                                                         f"was dealt to player {s.holder[h]}: "
                                                         "with individual decks a player "
                                                         "controls only its own cards")
            card = s.card(h)
            if card is None or card.kind is not Kind.CHARACTER or s.zone[h] == Zone.MODIFIER:
                raise self.bad(f"cards[{h}].controller", f"player {s.ctrl[h]}, but card {h} "
                                                         f"was dealt to player {s.holder[h]}: "
                                                         "only a character recalled from the "
                                                         "shared graveyard changes hands, and "
                                                         "it is public")

    def _effects(self, s: GridState) -> None:
        """Weakening, boosts and shields each come from a spent card, which stays public in a
        graveyard (a trap still face up on the grid while it resolves): the totals are at most
        what those cards give (§9.1.9, §9.1.11). A weakened or boosted card is a face-up character
        (the card that triggered the trap, a boost's target); before the active player has
        acted, no FREE window has opened this turn, so the other player boosted and shielded
        nothing (boosts and shields expire at the end of every turn, §9.1.12, §9.1.15)."""
        spent = [h for g in s.graves for h in g] + [
            h for h in range(len(s.zone)) if s.zone[h] == Zone.GRID and s.up[h]
            and s.ident[h] >= 0 and self.cat.cards[s.ident[h]].kind is Kind.TRAP]
        given = {Op.WEAKEN: 0, Op.BOOST: 0, Op.SHIELD: 0}
        for h in spent:
            card = self.cat.cards[s.ident[h]]
            effect = card.effect
            if effect is not None and effect.op in given and (
                    card.kind is Kind.TRAP) == (effect.op is Op.WEAKEN):
                given[effect.op] += 1 if effect.op is Op.SHIELD else effect.amount
        for name, op, values in (("weaken", Op.WEAKEN, s.weaken), ("boost", Op.BOOST, s.boost),
                                 ("shield", Op.SHIELD, s.shield)):
            total = 0
            for h in range(len(s.zone)):
                if not values[h]:
                    continue
                card = s.card(h)
                if op is not Op.SHIELD and not (s.up[h] and card is not None
                                                and card.kind is Kind.CHARACTER):
                    raise self.bad(f"cards[{h}].{name}", f"{values[h]} on a card that is not a "
                                                          "face-up character")
                if not s.acted and op is not Op.WEAKEN and s.ctrl[h] != s.active:
                    raise self.bad(f"cards[{h}].{name}", f"{values[h]}, but player {s.ctrl[h]} "
                                                          "had no FREE window this turn: the "
                                                          "active player has not acted yet")
                total += values[h]
                if total > given[op]:
                    raise self.bad(f"cards[{h}].{name}", f"{values[h]}, but the spent cards "
                                                          f"give at most {given[op]} in all "
                                                          f"({total} so far; §9.1.9, §9.1.11)")

    def _handle_lists(self, fld: str, count: int | None, n: int) -> list[list[int]]:
        raw = self.get(fld, [[]] * count if count else [])
        lists = raw if count else [raw]
        if not isinstance(raw, list) or (count and len(raw) != count):
            raise self.bad(fld, f"must be a list of {count or ''} handle lists".replace("  ", " "))
        out = []
        for g, lst in enumerate(lists):
            if not isinstance(lst, list):
                raise self.bad(f"{fld}[{g}]", "must be a list of handles")
            out.append([self.int_(f"{fld}[{g}][{k}]", h, 0, n - 1) for k, h in enumerate(lst)])
        return out

    def _tasks(self, n: int, size: int) -> tuple[tuple[int, ...], ...]:
        raw = self.get("tasks", [])
        if not isinstance(raw, list) or len(raw) > 4096:
            raise self.bad("tasks", "must be a list of tasks")
        names = {v: k for k, v in TASK_NAMES.items()}
        out = []
        for i, t in enumerate(raw):
            f = f"tasks[{i}]"
            if not isinstance(t, list) or not t or t[0] not in names:
                raise self.bad(f, "must be [name, fields...] with a known task name")
            code = names[t[0]]
            arity = TASK_ARITY[code]
            fields = t[1:]
            if arity is None:  # fight: h, k, then k handles (k = -1: none listed)
                ok = len(fields) >= 2 and type(fields[1]) is int and (
                    (fields[1] == -1 and len(fields) == 2) or fields[1] == len(fields) - 2)
            else:
                ok = len(fields) == arity
            if not ok:
                raise self.bad(f, f"wrong number of fields for {t[0]!r}")
            for k, v in enumerate(fields):
                lo = -1 if (code in (Task.TURN_UP,) and k == 1) or (code == Task.FIGHT and
                                                                    k == 1) else 0
                hi = 1 if (code in (Task.FILL, Task.DRAW, Task.PLAY) or
                           (code == Task.PLACE and k == 0) or
                           (code == Task.USE and k >= 1)) else n - 1
                if code == Task.PLACE and k == 1:  # a cell
                    hi = size * size - 1
                self.int_(f"{f}[{k + 1}]", v, lo, hi)
            out.append((int(code), *fields))
        return tuple(reversed(out))

    def _decision(self, n: int, rules: GridRules, zone: list[int], holder: list[int],
                  ident: list[int], taken: dict[int, int]) -> tuple[int, ...]:
        raw = self.get("decision", None)
        if raw is None:
            return ()
        names = {v: k for k, v in DEC_NAMES.items()}
        if not isinstance(raw, dict) or set(raw) != {"kind", "fields"} or \
                not isinstance(raw["kind"], str) or raw["kind"] not in names or \
                not isinstance(raw["fields"], list):
            raise self.bad("decision", "must be {\"kind\": name, \"fields\": [...]}")
        code, fields = names[raw["kind"]], raw["fields"]
        arity = DEC_ARITY[code]
        if (arity is not None and len(fields) != arity) or (arity is None and len(fields) < 3):
            raise self.bad("decision.fields", f"wrong number of fields for {raw['kind']!r}")
        for k, v in enumerate(fields):
            self.int_(f"decision.fields[{k}]", v, 0, 1 if k == 0 else n - 1)
        # a start position's placing deal: onto a free cell
        if code == Dec.PLACE and (fields[2] >= rules.size ** 2 or fields[2] in taken):
            raise self.bad("decision", "a placing deal puts its card on a free cell")
        if code in (Dec.DEAL, Dec.PLACE):
            lo, hi = deck_range(rules, fields[1])
            if fields[1] != (0 if rules.shared else fields[0]) or \
                    not any(zone[h] == Zone.DECK for h in range(lo, hi)):
                raise self.bad("decision", "a deal draws from the player's non-empty deck")
        if code == Dec.REVEAL:
            h = fields[1]
            if holder[h] != fields[0] or ident[h] >= 0:
                raise self.bad("decision", f"card {h} is not a hidden card of player "
                                           f"{fields[0]}")
        return (int(code), *fields)

    def _result(self) -> tuple[int, int]:
        raw = self.get("result", None)
        if raw is None:
            return (-1, -1)
        labels = {v: k for k, v in OUTCOME_LABELS.items()}
        if not isinstance(raw, dict) or set(raw) != {"outcome", "winner"} or \
                raw["outcome"] not in labels or raw["winner"] not in (None, 0, 1):
            raise self.bad("result", "must be {\"outcome\": label, \"winner\": 0, 1 or null}")
        return (int(labels[raw["outcome"]]), -1 if raw["winner"] is None else raw["winner"])
