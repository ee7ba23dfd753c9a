# The two-player games as OpenSpiel Python games (rl/openspiel.py): registered by id, they pass
# OpenSpiel's own consistency checks on random play (`pyspiel.random_sim_test`); a resampled
# state is one the seat cannot tell from the real one; and OpenSpiel's ISMCTS bot (a small
# budget, no rollouts) plays a whole game of each against random play.
from __future__ import annotations

import pytest

from tests.rl.support import encoded_games, need

need("numpy", "pyspiel")

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import versus.rl.openspiel  # noqa: E402, F401  (registers the games)

GAMES = encoded_games(2)


class Flat(mcts.Evaluator):
    """No rollouts (keeps the test fast): a terminal state's returns, else 0; uniform priors."""

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        return np.array(state.returns() if state.is_terminal() else [0.0, 0.0])

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()  # type: ignore[no-any-return]
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def _chance(state: pyspiel.State, rng: np.random.RandomState) -> int:
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choice(outcomes, p=probs))


@pytest.mark.parametrize("game_id", GAMES)
def test_random_sim_test(game_id: str) -> None:
    game = pyspiel.load_game(game_id)
    assert game.get_type().short_name == game_id
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("game_id", GAMES)
def test_ismcts_plays_a_whole_game(game_id: str) -> None:
    game = pyspiel.load_game(game_id)
    bot = ismcts.ISMCTSBot(game, Flat(), uct_c=2.0, max_simulations=4,
                           random_state=np.random.RandomState(1))
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(_chance(state, rng))
            continue
        seat = state.current_player()
        if seat == 0:
            resampled = state.resample_from_infostate(seat, rng.uniform)
            assert resampled.information_state_string(seat) == \
                state.information_state_string(seat)
            assert np.array_equal(resampled.information_state_tensor(seat),
                                  state.information_state_tensor(seat))
            action = bot.step(state)
            moves += 1
        else:
            action = int(rng.choice(state.legal_actions()))
        assert action in state.legal_actions()
        state.apply_action(action)
    assert moves > 0 and sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_rules_options_are_game_parameters() -> None:
    game_id = GAMES[0]
    default = pyspiel.load_game(game_id)
    params = default.get_parameters()
    assert "deal_seed" in params
    other = pyspiel.load_game(game_id, {"deal_seed": 3})
    assert other.get_parameters()["deal_seed"] == 3
