# The greedy bot of Vanquishers (SPEC Part 7, "Bots of the other games"), registered as the
# game's `greedy` (Vanquishers.bots, engine/shell.py). It lives in the game's package because
# it simulates with the engine's own working state; the shell gives its seeded generator.
#
# What it sees: exactly its seat's `View` (text.py): the public state (no
# hidden identity is ever in it) and its own knowledge (the cards dealt to it). It chooses among
# the view's `useful_actions` (the legal inputs that do what they say with the cards it knows:
# no fizzle, no decoy trap), falling back on the legal ones.
#
# How it plays: one ply. It fills its own cards' identities into a copy of the public state
# (the opponent's hand, deck and face-down traps stay unknown), applies each candidate input
# and lets the engine resolve what follows up to the next decision that is not a die: its own
# next step, the opponent's turn, a deal, or a reveal of a card hidden from it. Dice are
# public chance: every outcome is weighed (the two targeting dice: all 36 pairs), so the score
# of an attack is its expected value. The opponent's trap window is assumed passed (its traps
# are face down: only their public cost is known); a choice of its own inside the resolution
# (replacing a weapon, springing one of its traps) takes the best branch.
#
# The evaluation (for the seat `p`), in Life points: a win or loss is decisive; otherwise Life
# (the opponent's weighs more: 5 against 3 for its own), Shield (worth less: it regenerates
# and only delays), the damage potential of
# each side's equipped weapons and hero items per turn (hit probability of 2d6 + target value
# against the enemy's defense, times the damage, halved while ammunition is missing), the
# attacks still unused this turn, Storage Energy (concave: the first points matter most), the
# hand (concave) and set traps. Each side's Life counts minus the draws it is projected to fail
# (`draw_fails`: an empty deck or a full hand costs 1 Life per draw, §10.1.3.3; two draws a turn
# with the V-Trigger), every upcoming draw counted, so that ending the turn (which runs the
# opponent's draw) and attacking first are judged on the same horizon. Ties go to a seeded
# random one of the best: the bot is deterministic given its seed.
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..api import Finished
from ..shell import BotRequest
from .cards import CardType, HeroAbility
from .engine import (
    HAND_LIMIT,
    D,
    Move,
    S,
    State,
    T,
    Verb,
    Zone,
    _Work,
    step,
)

WIN = 10_000.0
#: P(2d6 >= k) for k = 0..13
_AT_LEAST = [1.0] * 3 + [sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= k) / 36
                         for k in range(3, 13)] + [0.0]


def hit_chance(need: int) -> float:
    """P(black + red >= need)."""
    return 1.0 if need <= 2 else 0.0 if need > 12 else _AT_LEAST[need]


def known_state(s: State, cards: dict[int, str]) -> State:
    """`s` with the identities of `cards` (the bot's own dealt cards) filled in."""
    filled = list(s.card)
    for h, cid in cards.items():
        if 0 <= h < len(filled) and filled[h] < 0 and s.cat.get(cid) is not None:
            filled[h] = s.cat.index(cid)
    return dataclasses.replace(s, card=tuple(filled))


def potential(w: _Work, p: int, unused_only: bool = False) -> float:
    """Expected damage per turn of p's weapons and hero items against the enemy's defense
    (only the uses left this turn with `unused_only`)."""
    enemy = 1 - p
    defense = w.defense(enemy)
    bonus = w.target_bonus(p)
    strike = w.hero_ability(p, HeroAbility.STRIKE)
    total = 0.0
    for h in w.board(p, CardType.WEAPON, CardType.HERO_ITEM):
        card = w.c(h)
        if card is None:
            continue
        mods = [w.c(m) for m in w.attached(h, CardType.MOD)]
        target = card.target + bonus + sum(m.target for m in mods if m)
        damage = card.kinetic + card.energy + 0.7 * card.shield_damage + strike + sum(
            m.kinetic + m.energy + 0.7 * m.shield_damage for m in mods if m)
        if w.sides[p][S.VT]:
            damage += card.vt_kinetic
        if card.red and card.ability is not None:
            damage += card.ability_amount * (7 - card.red) / 6
        uses = w.uses(h)
        if unused_only:
            uses = max(0, uses - w.aux[h])
        if w.ammo_ok(h):
            ready = 1.0
        elif unused_only:
            ready = 0.0
        else:  # the ammunition still missing: each round attached brings it closer
            ready = 0.2 + 0.6 * len(w.attached(h, CardType.AMMO)) / max(1, card.ammo)
        total += ready * uses * hit_chance(defense - target) * max(0.0, damage)
    return total


def _concave(x: float, knee: float, low: float, high: float) -> float:
    return low * min(x, knee) + high * max(0.0, x - knee)


#: own turns ahead over which failed draws (empty deck, full hand: 1 Life each) are projected
DRAW_HORIZON = 30
#: Life points per projected failed draw
DRAW_WEIGHT = 1.0


def draw_fails(s: State, w: _Work, q: int) -> float:
    """The draws q is projected to fail (1 Life each, §10.1.3.3): the draws pending now, then one
    draw step (two with the V-Trigger) per own turn ahead, within the turn limit and
    `DRAW_HORIZON`, against the cards left in q's deck; plus the pending draws a full hand
    refuses. Counting every upcoming draw keeps the horizon consistent: a state just before
    a draw and the state just after it score the same."""
    deck = len(w.mine(q, Zone.DECK))
    hand = len(w.mine(q, Zone.HAND))
    k = 2 if s.sides[q][S.VT] else 1
    pending = sum(1 for t in s.tasks if len(t) >= 2 and t[0] == T.DRAW and t[1] == q)
    limit = 2 * s.rules.max_turns
    # q's first draw step still to come (this turn's while q has not drawn yet)
    first = (s.turn if s.phase < 2 else s.turn + 2) if s.active == q else s.turn + 1
    steps = min(DRAW_HORIZON, max(0, (limit - first + 1) // 2))
    batch = pending or k
    full = max(0, min(batch, deck) - max(0, HAND_LIMIT - hand))
    return max(0, pending + k * steps - deck) + full


def evaluate(s: State, p: int) -> float:
    """The bot's score of `s` for `p` (see the module note)."""
    if s.result != (-1, -1):
        winner = s.result[1]
        return 0.0 if winner < 0 else (WIN if winner == p else -WIN)
    w = _Work.reader(s)  # evaluation only reads
    score = 0.0
    for q, sign in ((p, 1.0), (1 - p, -1.0)):
        side = s.sides[q]
        life, shield = side[S.LIFE], side[S.SHIELD]
        life -= DRAW_WEIGHT * draw_fails(s, w, q)
        side_score = (3.0 if sign > 0 else 5.0) * life + 1.0 * shield
        side_score += 4.0 * potential(w, q)
        side_score += _concave(side[S.STORAGE], 9, 2.2, 0.5)
        hand = len(w.mine(q, Zone.HAND))
        side_score += _concave(hand, 3, 1.6, 0.6) - (3.0 if hand >= HAND_LIMIT else 0.0)
        side_score += 1.5 * len(w.mine(q, Zone.TRAP))
        side_score += 0.5 * w.max_shield(q) + 0.5 * w.max_life(q)
        if s.active == q and s.phase <= 6:
            side_score += 0.6 * potential(w, q, unused_only=True)
        score += sign * side_score
    return score


class _Sim:
    """Resolves a state up to the next decision that is not a die (see the module note)."""

    def __init__(self, player: int, dice: int = 2) -> None:
        self.player, self.dice = player, dice

    def value(self, s: State, dice_left: int, depth: int = 0) -> float:
        while True:
            if s.result != (-1, -1):
                return evaluate(s, self.player)
            code = s.dec[0]
            if code == D.CHANCE and dice_left > 0:
                return sum(self.value(step(s, Move(Verb.ROLL, value=k)), dice_left - 1, depth)
                           for k in range(1, 7)) / 6
            if code == D.CHOICE:
                chooser = s.dec[1]
                if chooser != self.player:
                    s = step(s, Move(Verb.PASS))
                    continue
                if depth >= 2:
                    return evaluate(s, self.player)
                options = [Move(Verb.PICK, h) for h in s.dec[4:]] + [Move(Verb.PASS)]
                return max(self.value(step(s, m), dice_left, depth + 1) for m in options)
            return evaluate(s, self.player)


class VanquishersGreedyBot:
    """One-ply greedy for Vanquishers (see the module note)."""

    cheap = False

    def __init__(self, rng: Any, name: str = "greedy") -> None:
        self.name = name
        self.rng = rng
        self._played: tuple[int, set[int]] = (-1, set())

    def choose(self, view: Any, legal: Sequence[Move]) -> Move:
        if not legal:
            raise ValueError("greedy: no legal input to choose from")
        legal = list(legal)
        if len(legal) == 1:
            return legal[0]
        # a card played this turn and still in the hand went back (a weapon not swapped in):
        # playing it again would loop, so it waits for the next turn
        candidates = self.candidates(view, legal)
        d = view.decision
        if isinstance(d, Finished):
            raise ValueError("greedy: the game is over")
        best: list[Move] = []
        best_score = float("-inf")
        for move, score in zip(candidates, self.scores(view, candidates), strict=True):
            if score > best_score + 1e-9:
                best, best_score = [move], score
            elif score > best_score - 1e-9:
                best.append(move)
        if not best:
            best = candidates
        move = best[self.rng.randrange(len(best))]
        self.played(view, move)
        return move

    def candidates(self, view: Any, legal: list[Move]) -> list[Move]:
        """The inputs greedy weighs: the useful ones (else the legal ones), but a card played
        this turn that went back to the hand."""
        useful = [m for m in getattr(view, "useful_actions", ()) if m in legal]
        candidates = useful or legal
        turn = view.state.turn
        if self._played[0] != turn:
            self._played = (turn, set())
        again = self._played[1]
        return [m for m in candidates if not (m.verb is Verb.PLAY and m.handle in again)] \
            or candidates

    def played(self, view: Any, move: Move) -> None:
        """Remember a card played this turn (`candidates` leaves it out while it is back)."""
        if move.verb is Verb.PLAY:
            if self._played[0] != view.state.turn:
                self._played = (view.state.turn, set())
            self._played[1].add(move.handle)

    def scores(self, view: Any, candidates: Sequence[Move]) -> list[float]:
        """Greedy's one-ply score of each candidate for the view's player."""
        s = known_state(view.state, dict(view.knowledge.cards))
        sim = _Sim(view.player)
        out = []
        for move in candidates:
            try:
                score = sim.value(step(s, move), 2)
            except Exception:  # the filled-in state refuses it: judge it by the public state
                try:
                    score = sim.value(step(view.state, move), 2) - 0.5
                except Exception:
                    score = float("-inf") if len(candidates) > 1 else 0.0
            out.append(score)
        return out


def greedy_bot(request: BotRequest) -> VanquishersGreedyBot:
    """The game's `greedy` (Vanquishers.bots)."""
    return VanquishersGreedyBot(request.rng, name=request.name)


__all__ = ["VanquishersGreedyBot", "evaluate", "greedy_bot", "known_state", "potential"]
