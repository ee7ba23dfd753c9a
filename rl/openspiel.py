# OpenSpiel Python games: importing this module registers every registered two-player game that
# has an encoding (engine/encoding.py) under its game id, so `pyspiel.load_game("grid")` or
# `pyspiel.load_game("grid", {"mode": "normal"})` plays it (each rules option is a game
# parameter). Model: open_spiel/python/games/kuhn_poker.py.
#
# Chance. A hidden deck's cards are fixed by the game parameter `deal_seed` (the game's local
# deal, engine/referee_loop.py); which of them a DEAL gives is a chance node whose outcomes are
# the card ids still in that deck (outcome = the card's index in `card_ids`, probability its
# remaining count over the deck's remaining cards). A game's CHANCE decision (a coin, a die) is
# a chance node of its `outcomes` equally likely outcomes. A REVEAL is answered at once (the
# true card: nobody chooses it). The setup seed (Versus's tile layout) derives from
# `deal_seed` too and is public.
#
# What a player knows. The information state string is the seat's whole history: every input
# in the game's notation, a deal to the seat with its card id, a deal to the other seat with
# the handle only; so it is perfect recall. The observation (string: the seat's scene; tensor:
# the game's observation vector) is what the seat sees now. The information state tensor is
# that observation vector as well (not the full history: the vector already holds every public
# card and the seat's own cards; OpenSpiel's algorithms that key on information sets use the
# string).
#
# Why a `_Kept` wrapper: a Python state's clone deep-copies its attributes; engine states and
# card data are immutable values, so the wrapper hands the same object to the clone.
from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from versus.engine import encoding
from versus.engine.api import MAX_CHANCE_OUTCOMES, DecisionKind, Finished, Game, Setup
from versus.engine.referee_loop import local_deal
from versus.engine.registry import games, get_game

from .arrays import vector
from .table import TableError, rules_of

#: the game parameter fixing the decks' contents and the setup seed
DEAL_SEED = "deal_seed"
#: the most inputs of one game (OpenSpiel's max_game_length; rl/table.py MAX_INPUTS)
MAX_GAME_LENGTH = 100_000


class _Kept:
    """An immutable value a clone shares (see the module note)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Kept:
        return self


def _parameters(game: Game) -> dict[str, Any]:
    defaults = game.rules_to_options(game.default_rules())
    params = {o.name: defaults[o.name] for o in game.rules_options if o.name in defaults}
    params[DEAL_SEED] = 0
    return params


def _game_type(game: Game) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=game.id, long_name=game.title,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_parameters(game))


class Facts(NamedTuple):
    """Everything a state holds, immutable: the engine state and its decision; per deck the
    card ids not dealt yet (with counts) and how many were dealt; per seat the cards dealt to
    it; every dealt card by handle (for reveals); per seat its history (see the module note)."""

    state: Any
    decision: Any
    left: tuple[tuple[tuple[str, int], ...], ...]
    dealt: tuple[int, ...]
    cards: tuple[tuple[tuple[int, str], ...], ...]
    public: tuple[tuple[int, str], ...]
    history: tuple[tuple[str, ...], ...]
    revealed: frozenset[int] = frozenset()


class VersusSpielGame(pyspiel.Game):
    """A registered two-player game with an encoding, as an OpenSpiel game."""

    versus_game: Game  # set on each game's subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        game = self.versus_game
        full = {**_parameters(game), **(params or {})}
        options = {k: v for k, v in full.items() if k != DEAL_SEED}
        self.rules = rules_of(game, options)
        self.catalogue = game.default_catalogue()
        self.ids = tuple(game.card_ids(self.catalogue))
        self.deal_seed = b"versus-rl/openspiel/%d" % int(full[DEAL_SEED])
        self.identity, self.orders = local_deal(game, self.rules, self.catalogue,
                                                self.deal_seed)
        info = pyspiel.GameInfo(
            num_distinct_actions=encoding.action_count(game, self.rules),
            max_chance_outcomes=max(len(self.ids), MAX_CHANCE_OUTCOMES),
            num_players=2, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(_game_type(game), info, full)
        self.size = encoding.observation_size(game, self.rules)
        setup = Setup(self.rules, self.catalogue,
                      hashlib.sha256(b"versus-rl/setup|" + self.deal_seed).digest())
        state = game.new_game(setup)  # the same for every game of these parameters
        left = tuple(tuple(sorted(Counter(self.identity[h] for h in order).items()))
                     for order in self.orders)
        self.initial = Facts(state, game.decision(state), left, (0,) * len(self.orders),
                             ((), ()), (), ((), ()))

    def new_initial_state(self) -> VersusSpielState:
        return VersusSpielState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if params:
            raise ValueError(f"observation parameters are not supported: {params!r}")
        return Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class VersusSpielState(pyspiel.State):
    """One game: the engine state, what each seat knows, and each deck's remaining cards."""

    def __init__(self, spiel_game: VersusSpielGame) -> None:
        super().__init__(spiel_game)
        self._game = _Kept(spiel_game)
        self._facts = _Kept(spiel_game.initial)
        self._settle()

    # --- helpers ------------------------------------------------------------------------------
    @property
    def _versus(self) -> Game:
        return self._game.value.versus_game

    @property
    def engine_state(self) -> Any:
        return self._facts.value.state

    def _decision(self) -> Any:
        return self._facts.value.decision

    def _apply(self, inp: Any, seen: tuple[str, str], **changes: Any) -> None:
        facts = self._facts.value
        state = self._versus.step(facts.state, inp)
        history = (facts.history[0] + (seen[0],), facts.history[1] + (seen[1],))
        self._facts = _Kept(facts._replace(state=state, decision=self._versus.decision(state),
                                           history=history, **changes))

    def _settle(self) -> None:
        """Answer each REVEAL with the card dealt to that handle (nobody chooses it)."""
        game = self._versus
        while True:
            d = self._decision()
            if isinstance(d, Finished) or d.kind is not DecisionKind.REVEAL:
                return
            facts = self._facts.value
            inp = game.reveal_input(d.handle, dict(facts.public)[d.handle])
            text = game.format_input(inp)
            self._apply(inp, (text, text), revealed=facts.revealed | {d.handle})

    def knowledge(self, seat: int) -> Any:
        k = self._versus.new_knowledge(seat)
        for h, cid in self._facts.value.cards[seat]:
            k.learn(h, cid)
        return k

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state `player_id` cannot tell from this one: the cards dealt to the other seat
        and never revealed, with that seat's undealt cards, shuffled among themselves (with
        `probability_sampler()` floats in [0, 1)). The engine state is the same: it holds no
        hidden card (ARCHITECTURE "Hidden information"). For ISMCTS."""
        facts, spiel = self._facts.value, self._game.value
        other = 1 - player_id
        hidden = [h for h, _ in facts.cards[other] if h not in facts.revealed]
        owner_deck = {h: k for k, order in enumerate(spiel.orders) for h in order}
        state = self.clone()
        public = dict(facts.public)
        left = [list(deck) for deck in facts.left]
        for k in sorted({owner_deck[h] for h in hidden}):
            mine = [h for h in hidden if owner_deck[h] == k]
            pool = [public[h] for h in mine] + [c for c, n in left[k] for _ in range(n)]
            for i in range(len(pool) - 1, 0, -1):  # Fisher-Yates with the sampler's floats
                j = min(int(probability_sampler() * (i + 1)), i)
                pool[i], pool[j] = pool[j], pool[i]
            public.update(zip(mine, pool, strict=False))
            left[k] = sorted(Counter(pool[len(mine):]).items())
        cards = tuple(tuple((h, public[h]) for h, _ in seat_cards)
                      for seat_cards in facts.cards)
        history = list(facts.history)
        dealt_texts = {self._versus.format_input(self._versus.deal_input(h)): h
                       for h in hidden}
        history[other] = tuple(
            f"{line.rsplit(' ', 1)[0]} {public[dealt_texts[line.rsplit(' ', 1)[0]]]}"
            if line.rsplit(" ", 1)[0] in dealt_texts else line for line in facts.history[other])
        state._facts = _Kept(facts._replace(
            public=tuple(public.items()), cards=cards, left=tuple(tuple(x) for x in left),
            history=tuple(history)))
        return state

    # --- the OpenSpiel API ------------------------------------------------------------------
    def current_player(self) -> int:
        d = self._decision()
        if isinstance(d, Finished):
            return pyspiel.PlayerId.TERMINAL
        if d.kind in (DecisionKind.DEAL, DecisionKind.CHANCE):
            return pyspiel.PlayerId.CHANCE
        return int(d.player)

    def is_terminal(self) -> bool:
        return isinstance(self._decision(), Finished)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(encoding.legal_indices(self._versus, self.engine_state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        d = self._decision()
        if d.kind is DecisionKind.CHANCE:
            return [(k, 1.0 / d.outcomes) for k in range(d.outcomes)]
        left = self._facts.value.left[d.deck]
        total = sum(n for _, n in left)
        ids = self._game.value.ids
        return sorted((ids.index(cid), n / total) for cid, n in left)

    def _apply_action(self, action: int) -> None:
        game, d = self._versus, self._decision()
        if isinstance(d, Finished):
            raise pyspiel.SpielError(f"{game.id}: the game is over")
        if d.kind is DecisionKind.CHANCE:
            inp = game.legal_actions(self.engine_state)[action]
            text = game.format_input(inp)
            self._apply(inp, (text, text))
        elif d.kind is DecisionKind.DEAL:
            self._deal(d, action)
        else:
            inp = encoding.input_of(game, self.engine_state, action)
            text = game.format_input(inp)
            self._apply(inp, (text, text))
        self._settle()

    def _deal(self, d: Any, action: int) -> None:
        game, spiel, facts = self._versus, self._game.value, self._facts.value
        cid = spiel.ids[action]
        k = d.deck
        handle = spiel.orders[k][facts.dealt[k]]
        if cid not in dict(facts.left[k]):
            raise TableError(f"{game.id}: card {cid!r} is not left in deck {k}")
        deck = tuple((c, n - (c == cid)) for c, n in facts.left[k])
        left = tuple(tuple(x for x in deck if x[1]) if j == k else x
                     for j, x in enumerate(facts.left))
        owner = d.player
        cards = tuple((*mine, (handle, cid)) if seat == owner else mine
                      for seat, mine in enumerate(facts.cards))
        inp = game.deal_input(handle)
        text = game.format_input(inp)
        self._apply(inp, tuple(f"{text} {cid}" if seat == owner else text for seat in (0, 1)),
                    left=left, dealt=tuple(n + (j == k) for j, n in enumerate(facts.dealt)),
                    cards=cards, public=(*facts.public, (handle, cid)))

    def _action_to_string(self, player: int, action: int) -> str:
        game = self._versus
        if player == pyspiel.PlayerId.CHANCE:
            d = self._decision()
            if not isinstance(d, Finished) and d.kind is DecisionKind.DEAL:
                return f"deal {self._game.value.ids[action]}"
            return f"outcome {action}"
        try:
            return game.format_input(encoding.input_of(game, self.engine_state, action))
        except encoding.EncodingError:
            return f"action {action}"

    def returns(self) -> list[float]:
        d = self._decision()
        if not isinstance(d, Finished) or d.winner is None:
            return [0.0, 0.0]
        return [1.0 if p == d.winner else -1.0 for p in (0, 1)]

    def __str__(self) -> str:
        from versus.engine.api import text_board

        return text_board(self._versus, self.engine_state)


class Observer:
    """OpenSpiel's PyObserver: `tensor` (the game's observation vector) and a string, of one
    seat's private view (or, with private info NONE, of the public view only)."""

    def __init__(self, spiel_game: VersusSpielGame, iig_obs_type: Any) -> None:
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.tensor = np.zeros(spiel_game.size, np.float32)
        self.dict = {"observation": self.tensor}

    def _knowledge(self, state: VersusSpielState, player: int) -> Any:
        return state.knowledge(player) if self.private else \
            state._versus.new_knowledge(player)

    def set_from(self, state: VersusSpielState, player: int) -> None:
        self.tensor[:] = vector(encoding.observe_entries(
            state._versus, state.engine_state, player, self._knowledge(state, player)),
            len(self.tensor))

    def string_from(self, state: VersusSpielState, player: int) -> str:
        if self.perfect_recall:
            history = state._facts.value.history[player]
            if not self.private:  # the other seat's view of its own deals hides the card
                history = tuple(" ".join(h.split(" ")[:2]) if h.startswith("deal ") else h
                                for h in history)
            return f"p{player}|" + "|".join(history)
        from versus.engine.api import scene_of
        from versus.engine.scene import scene_lines

        scene = scene_of(state._versus, state.engine_state, player,
                         self._knowledge(state, player))
        return "\n".join(scene_lines(scene))


def register() -> tuple[str, ...]:
    """Register every two-player game with an encoding not registered yet; their ids."""
    done = []
    known = set(pyspiel.registered_names())
    for info in games():
        game = get_game(info.id)
        if info.players != 2 or not encoding.has_encoding(game) or info.id in known:
            continue
        cls = type(f"SpielGame_{info.id.replace('-', '_')}", (VersusSpielGame,),
                   {"versus_game": game})
        pyspiel.register_game(_game_type(game), cls)
        done.append(info.id)
    return tuple(done)


register()
