# The tournament's pure parts: the schedule (pairings, seat swaps, gauntlet) and the maximum
# likelihood Elo ratings (cli/tournament_elo.py) against values computed by hand.
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from versus.cli.tournament_elo import ELO_PER_NAT, Z95, ratings
from versus.cli.tournament_schedule import Settings, make_schedule


def test_round_robin_meets_everyone_with_seats_swapped():
    games = make_schedule(["a", "b", "c"], Settings(games=3))
    assert len(games) == 9 and len({g.id for g in games}) == 9
    assert {g.pairing for g in games} == {(0, 1), (0, 2), (1, 2)}
    for pair in ((0, 1), (0, 2), (1, 2)):
        seats = [g.seats for g in games if g.pairing == pair]
        assert seats == [pair, pair[::-1], pair]  # odd rounds one way, even the other
    assert [g.round for g in games] == [1, 1, 1, 2, 2, 2, 3, 3, 3]  # round by round


def test_gauntlet_plays_the_champion_against_everyone():
    games = make_schedule(["a", "b", "c", "d"], Settings("gauntlet", 2, champion="c"))
    assert {g.pairing for g in games} == {(2, 0), (2, 1), (2, 3)}
    assert len(games) == 6


def test_two_players_match_the_logistic_of_the_score_with_one_virtual_draw():
    # 3 wins of 4, plus one virtual draw: score 3.5 / 5 = 0.7
    a, b = ratings(2, [(0, 1)], [(0, 1, 1.0)] * 3 + [(0, 1, 0.0)])
    diff = 400 * math.log10(0.7 / 0.3)
    assert a.elo - b.elo == pytest.approx(diff)
    assert a.elo == pytest.approx(-b.elo)
    # Fisher information of the difference: n p (1 - p) = 5 * 0.21; each rating carries half
    sigma = math.sqrt(1 / (5 * 0.21)) / 2
    assert a.margin == pytest.approx(Z95 * ELO_PER_NAT * sigma)
    assert b.margin == pytest.approx(a.margin)


def test_a_perfect_score_stays_finite():
    a, b = ratings(2, [(0, 1)], [(0, 1, 1.0)] * 20)
    assert 400 < a.elo - b.elo < 1000 and math.isfinite(a.margin)


def test_ratings_recover_the_order_and_are_centred():
    games = [(0, 1, 1.0)] * 8 + [(0, 1, 0.0)] * 2 + [(1, 2, 1.0)] * 8 + [(1, 2, 0.0)] * 2 \
        + [(0, 2, 1.0)] * 9 + [(0, 2, 0.0)]
    r = ratings(3, [(0, 1), (1, 2), (0, 2)], games)
    assert r[0].elo > r[1].elo > r[2].elo
    assert sum(x.elo for x in r) == pytest.approx(0, abs=1e-9)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3),
                          st.sampled_from([0.0, 0.5, 1.0])), max_size=40))
def test_the_likelihood_is_maximal(raw):
    games = [(i, j, s) for i, j, s in raw if i != j]
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    r = [x.elo / ELO_PER_NAT for x in ratings(4, pairs, games)]
    # at the maximum each player's expected score equals its actual score (prior included)
    for p in range(4):
        actual = sum(s if i == p else 1 - s for i, j, s in games if p in (i, j))
        actual += sum(0.5 for pair in pairs if p in pair)
        expected = sum(1 / (1 + math.exp(r[j if i == p else i] - r[p]))
                       for i, j, _ in games if p in (i, j))
        expected += sum(1 / (1 + math.exp(r[q] - r[p])) for pair in pairs if p in pair
                        for q in pair if q != p)
        assert expected == pytest.approx(actual, abs=1e-6)


def test_duplicate_participants_are_numbered():
    from versus.cli.tournament_schedule import number_duplicates
    from versus.cli.tournament_worker import bot_of

    names = number_duplicates(["random", "random", "greedy", "random"])
    assert names == ["random", "random#2", "greedy", "random#3"]
    assert [bot_of(n) for n in names] == ["random", "random", "greedy", "random"]
