# The greedy bot of the grid game (SPEC Part 7, "Bots of the other games"), registered as the
# grid's `greedy` (Grid.bots, engine/shell.py). It lives in the game's package because it
# simulates with the game's own state; its randomness is the generator the shell gives it.
#
# What it sees: exactly its seat's `GridView` (the public grid, its own hand and face-down
# cards through its knowledge, the graveyards, the modifiers) and the legal inputs. Nothing
# else: the view carries no hidden identity, so the bot cannot read one.
#
# How it plays: one ply. It rebuilds, from the view, a simulation state of the engine
# (engine/grid/state.py) in which the cards it knows (its own hand and face-down cards) carry
# their identities and every card hidden from it carries none; it applies each legal input
# and lets the engine resolve what follows (battles, traps, the win check) up to the next
# decision that is not its own: the opponent's turn, a deal, a coin. A card hidden from it that
# the rules turn face up (an opponent's face-down neighbour of a card placed face up) is
# answered from a sampled world: distinct catalogue cards it has not seen anywhere, as
# the Versus bots do; every input meets the same worlds (common random
# numbers). The opponent's FREE window is assumed passed (its hand is hidden). Choices of its
# own inside the resolution (battle order, item targets) take the best branch.
#
# The evaluation (for the seat `p`): a win or loss is decisive; otherwise cards on the grid
# (characters face up more, since they fight), the progress of each side's cards toward the
# other's home base, and threats: an opponent card one row from `p`'s home base with an empty
# cell of that home base next to it (it can win on its next placement) costs a lot; the same
# threat of `p`'s own counts for less (the opponent moves first). Ties go to a seeded random
# one of the best, so the bot is deterministic given its seed.
#
# When the view cannot be rebuilt (a custom catalogue whose ids the default card data lacks,
# an unexpected decision), the bot falls back on a seeded random legal input: it never answers
# an illegal one.
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..api import DecisionKind, Pending
from ..shell import BotRequest
from .cards import Catalogue, Kind, default_catalogue
from .notation import GridInput, Verb, answer_input, engine_input
from .rules import DeckType, GridRules, Mode
from .state import (
    Dec,
    GridState,
    Task,
    Zone,
    cell_index,
    home_row,
    neighbour_cells,
    placements,
    step,
)
from .views import GridView

WIN = 10_000.0
MODE_OF_SIZE = {4: Mode.FAST, 5: Mode.NORMAL, 6: Mode.VS}
_CATALOGUE: list[Catalogue] = []


def _catalogue() -> Catalogue:
    if not _CATALOGUE:
        _CATALOGUE.append(default_catalogue())
    return _CATALOGUE[0]


class Unbuildable(Exception):
    """The view cannot be turned into a simulation state (the bot then plays at random)."""


# --- the simulation state ------------------------------------------------------------------------


def rebuild(view: GridView, legal: Sequence[GridInput],
            catalogue: Catalogue | None = None) -> GridState:
    """A GridState with what `view` shows, the identities its player knows, and no other
    (hidden handles have ident -1), waiting for the view's pending decision."""
    cat = catalogue or _catalogue()
    mode = MODE_OF_SIZE.get(view.size)
    if mode is None:
        raise Unbuildable(f"grid size {view.size}")
    rules = GridRules(mode=mode, deck=DeckType.SHARED if len(view.decks) == 1
                      else DeckType.INDIVIDUAL)
    n = rules.cards
    size = rules.size
    zone = [int(Zone.DECK)] * n
    holder, ctrl, cell = [-1] * n, [-1] * n, [-1] * n
    up, ident, weaken, boost, shield = [0] * n, [-1] * n, [0] * n, [0] * n, [0] * n

    def idx(cid: str | None) -> int:
        if cid is None:
            return -1
        i = cat.index.get(cid)
        if i is None:
            raise Unbuildable(f"card {cid!r} is not in the default card data")
        return int(i)

    def handle(h: int) -> int:
        if not 0 <= h < n:
            raise Unbuildable(f"handle {h} out of range")
        return h

    p = view.player
    for c in view.grid:
        h = handle(c.handle)
        zone[h], holder[h], ctrl[h] = Zone.GRID, c.controller, c.controller
        cell[h], up[h], ident[h] = cell_index(c.cell, size), int(c.up), idx(c.card)
        weaken[h], boost[h], shield[h] = c.weaken, c.boost, int(c.shield)
    for who, hand in ((p, view.hand), (1 - p, view.opponent_hand)):
        for h, cid in hand:
            h = handle(h)
            zone[h], holder[h], ctrl[h], ident[h] = Zone.HAND, who, who, idx(cid)
    graves = []
    for g in view.graveyards:
        for h, cid in g:
            zone[handle(h)], ident[h] = Zone.GRAVEYARD, idx(cid)
        graves.append(tuple(h for h, _ in g))
    for h, cid in view.modifiers:
        zone[handle(h)], ident[h], ctrl[h] = Zone.MODIFIER, idx(cid), 0
    d = view.decision
    if not isinstance(d, Pending) or d.player != p:
        raise Unbuildable("not this player's decision")
    active = view.active
    tasks: tuple[tuple[int, ...], ...]
    acted, places, airdrop = 1, 0, 0
    verbs = {a.verb for a in legal}
    if d.kind is DecisionKind.TURN:
        decision: tuple[int, ...] = (Dec.TURN, p)
        tasks = ()
        acted = int(Verb.END in verbs)
        places = int(Verb.PLACE in verbs)
    elif d.label == "battle-order":
        h = _pending_fighter(view, d.options)
        decision = (Dec.ORDER, p, h, *d.options)
        tasks = ((Task.PLAY, active), (Task.CHECK_WIN, h))
    elif d.label == "item-target":
        if active != p:
            raise Unbuildable("an item target outside the own turn")
        decision = (Dec.TARGET, p, _last_buried(view), *d.options)
        tasks = ((Task.PLAY, active),)
    else:
        raise Unbuildable(f"decision {d.label!r}")
    s = GridState(rules=rules, catalogue=cat, first=view.first, active=active, turn=view.turn,
                  acted=acted, placements=places, airdrop=airdrop, zone=tuple(zone),
                  holder=tuple(holder), ctrl=tuple(ctrl), cell=tuple(cell), up=tuple(up),
                  ident=tuple(ident), weaken=tuple(weaken), boost=tuple(boost),
                  shield=tuple(shield), graves=tuple(graves),
                  modifiers=tuple(h for h, _ in view.modifiers), tasks=tasks,
                  decision=decision, result=(-1, -1))
    if d.kind is DecisionKind.TURN and places:
        wanted = {a.cell for a in legal if a.verb is Verb.PLACE}
        normal = {c for c, _ in placements(s, p)}
        if not {cell_index(x, size) for x in wanted} <= normal:
            s = dataclasses.replace(s, airdrop=1, _cache={})
    return s


def _pending_fighter(view: GridView, enemies: Sequence[int]) -> int:
    """The own face-up card next to every enemy of a battle-order choice."""
    p = view.player
    cells = {c.handle: cell_index(c.cell, view.size) for c in view.grid}
    for c in view.grid:
        if c.controller == p and c.up and all(
                cells.get(e, -9) in neighbour_cells(cells[c.handle], view.size)
                for e in enemies):
            return c.handle
    raise Unbuildable("no fighter for the battle order")


def _last_buried(view: GridView) -> int:
    """The item whose target is chosen: the last card buried in its user's graveyard."""
    graves = view.graveyards
    g = graves[0] if len(graves) == 1 else graves[view.player]
    if not g:
        raise Unbuildable("no item in the graveyard")
    return g[-1][0]


# --- resolution and evaluation -------------------------------------------------------------------


class _Sim:
    """Resolves a state up to the next decision that is not the bot's own, from a world."""

    def __init__(self, player: int, world: dict[int, str]) -> None:
        self.player = player
        self.world = world
        self.used_world = False

    def value(self, s: GridState, depth: int = 0) -> float:
        for _ in range(200):
            if s.finished:
                return evaluate(s, self.player)
            d = s.decision
            code = d[0]
            if code == Dec.REVEAL:
                h = d[2]
                cid = self.world.get(h)
                if cid is None:
                    return evaluate(s, self.player)
                self.used_world = True
                s = step(s, answer_input(h, cid))  # built once per value
            elif code == Dec.WINDOW and d[1] != self.player:
                s = step(s, engine_input(Verb.PASS))
            elif code in (Dec.ORDER, Dec.TARGET) and d[1] == self.player and depth < 3:
                return max(self.value(step(s, engine_input(Verb.PICK, h)), depth + 1)
                           for h in d[3:])
            elif code == Dec.WINDOW and d[1] == self.player:
                s = step(s, engine_input(Verb.PASS))
            else:
                return evaluate(s, self.player)
        return evaluate(s, self.player)


def progress(s: GridState, h: int, player: int) -> int:
    """How many rows the card h of `player` lies from that player's home row."""
    row = s.cell[h] // s.size
    return row if player == 0 else s.size - 1 - row


_NEIGHBOURS: dict[int, tuple[tuple[int, ...], ...]] = {}
_GRID, _HAND = int(Zone.GRID), int(Zone.HAND)


def _neighbour_table(size: int) -> tuple[tuple[int, ...], ...]:
    """neighbour_cells of every cell of a size x size grid (the evaluation's hot loop)."""
    table = _NEIGHBOURS.get(size)
    if table is None:
        table = _NEIGHBOURS[size] = tuple(tuple(neighbour_cells(c, size))
                                          for c in range(size * size))
    return table


_FIGHTER: dict[int, tuple[tuple[bool, float], Catalogue]] = {}


def _fighter_table(cat: Catalogue) -> tuple[tuple[bool, float], ...]:
    """Per catalogue index: (a character, 0.4 x its mean side value), read once per catalogue
    (the evaluation's hot loop would look both up for every card of every position)."""
    entry = _FIGHTER.get(id(cat))
    if entry is None or entry[1] is not cat:
        table = tuple((c.kind is Kind.CHARACTER, 0.4 * sum(c.sides) / 4) for c in cat.cards)
        entry = _FIGHTER[id(cat)] = (table, cat)  # type: ignore[assignment]
    return entry[0]  # type: ignore[return-value]


def evaluate(s: GridState, player: int) -> float:
    """The bot's score of `s` for `player` (see the module note)."""
    if s.finished:
        winner = s.result[1]
        return 0.0 if winner < 0 else (WIN if winner == player else -WIN)
    size = s.size
    zone, ctrl, cell, up, ident = s.zone, s.ctrl, s.cell, s.up, s.ident
    fighters = _fighter_table(s.catalogue)
    board: dict[int, int] = {}
    score = 0.0
    hand = 0
    for h, z in enumerate(zone):
        if z != _GRID:
            if z == _HAND and ctrl[h] == player:
                hand += 1
            continue
        c = cell[h]
        board[c] = h
        q = ctrl[h]
        i = ident[h]
        fighter = up[h] and i >= 0 and fighters[i][0]
        worth = 10.0 + 4.0 + fighters[i][1] if fighter else 10.0
        row = c // size
        k = row if q == 0 else size - 1 - row  # progress(s, h, q)
        worth += 3.0 * k + (6.0 if k == size - 2 else 0.0)
        score += worth if q == player else -worth
    mine, theirs = threats(s, board, player)
    score += 25.0 * min(mine, 2) - 90.0 * min(theirs, 2)
    score += 1.0 * min(hand, 5)
    return score


def threats(s: GridState, board: dict[int, int], player: int) -> tuple[int, int]:
    """How many empty cells of the opponent's home base `player` may place on next (cells next
    to a card of its own), and the same for the opponent against `player`'s home base."""
    size = s.size
    table = _neighbour_table(size)
    ctrl = s.ctrl
    target = (home_row(1 - player, size), home_row(player, size))
    cells: tuple[set[int], set[int]] = (set(), set())
    for c, h in board.items():
        q = ctrl[h]
        if q != player and q != 1 - player:
            continue
        side = 0 if q == player else 1
        row, found = target[side], cells[side]
        for nb in table[c]:
            if nb // size == row and nb not in board:
                found.add(nb)
    return len(cells[0]), len(cells[1])


# --- the bot -------------------------------------------------------------------------------------


class GridGreedyBot:
    """One-ply greedy for the grid game (see the module note)."""

    cheap = False

    def __init__(self, rng: Any, worlds: int = 4, name: str = "greedy") -> None:
        if worlds < 1:
            raise ValueError(f"greedy needs at least one world, got {worlds}")
        self.name = name
        self.worlds = worlds
        self.rng = rng

    def choose(self, view: GridView, legal: Sequence[GridInput]) -> GridInput:
        if not legal:
            raise ValueError("greedy: no legal input to choose from")
        legal = list(legal)
        if len(legal) == 1:
            return legal[0]
        try:
            best = self.best(view, legal)
        except Unbuildable:
            best = self.fallback(view, legal)
        return best[self.rng.randrange(len(best))]

    def fallback(self, view: GridView, legal: list[GridInput]) -> list[GridInput]:
        """Without a simulation: pass a FREE window, else any legal input."""
        passes = [a for a in legal if a.verb is Verb.PASS]
        return passes or legal

    def sample_worlds(self, s: GridState, view: GridView) -> list[dict[int, str]]:
        hidden = [h for h in range(len(s.zone)) if s.ident[h] < 0
                  and not (s.zone[h] == Zone.HAND and s.ctrl[h] == view.player)]
        seen = set(view.card_ids())
        pool = [c.id for c in s.catalogue.cards if c.id not in seen]
        every = [c.id for c in s.catalogue.cards]
        worlds = []
        for _ in range(self.worlds):
            picked = self.rng.sample(pool, min(len(hidden), len(pool)))
            worlds.append({h: picked[i] if i < len(picked) else self.rng.choice(every)
                           for i, h in enumerate(hidden)})
        return worlds

    def best(self, view: GridView, legal: list[GridInput]) -> list[GridInput]:
        s = rebuild(view, legal)
        worlds = self.sample_worlds(s, view)
        best: list[GridInput] = []
        best_score = float("-inf")
        for action in legal:
            if action.verb is Verb.PLACE and action.up and _known_kind(s, action.handle) \
                    not in (None, Kind.CHARACTER):
                score = -WIN / 2  # a trap or item placed face up is wasted
            else:
                score = self.score(s, action, worlds)
            if score > best_score + 1e-9:
                best, best_score = [action], score
            elif score > best_score - 1e-9:
                best.append(action)
        return best

    def score(self, s: GridState, action: GridInput, worlds: list[dict[int, str]]) -> float:
        try:
            after = step(s, action)
        except Exception as error:  # the rebuilt state missed something: an unbuildable view
            raise Unbuildable(f"simulating {action}: {error}") from None
        first = _Sim(s.decision[1], worlds[0])
        total = first.value(after)
        if not first.used_world:
            return total
        for world in worlds[1:]:
            total += _Sim(s.decision[1], world).value(after)
        return total / len(worlds)


def _known_kind(s: GridState, h: int) -> Kind | None:
    card = s.card(h)
    return None if card is None else card.kind


def greedy_bot(request: BotRequest) -> GridGreedyBot:
    """The grid's `greedy` (Grid.bots)."""
    return GridGreedyBot(request.rng, name=request.name)


__all__ = ["GridGreedyBot", "evaluate", "greedy_bot", "rebuild"]
