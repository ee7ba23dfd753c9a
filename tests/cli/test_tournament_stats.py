# The statistics of `versus tournament` (cli/tournament_stats.py) against known values:
# fastchess's own tests (app/tests/elo_test.cpp, sprt_test.cpp) and small hand-computed cases;
# the --sprt grammar and the bot option grammar (cli/bots/registry.py), one-line errors.
from __future__ import annotations

import math

import pytest

from versus.cli.bots.registry import BotOptionError, make_bot, parse_bot
from versus.cli.tournament_stats import (
    Sprt,
    SprtError,
    estimate,
    parse_sprt,
    pentanomial,
    trinomial,
)


def penta(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> tuple[int, ...]:
    """fastchess's Stats(ll, ld, wl, dd, wd, ww) as our (LL, LD, DD+WL, WD, WW)."""
    return (ll, ld, wl + dd, wd, ww)


@pytest.mark.parametrize(("stats", "elo", "error", "nelo", "nerror"), [
    ((34, 54, 31, 32, 64, 75), 55.58, 27.65, 57.94, 28.28),
    ((332, 433, 457, 41, 333, 334), -8.64, 10.33, -9.17, 10.96),
    ((7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, -19.01, 2.65),
])
def test_pentanomial_elo_matches_fastchess(stats, elo, error, nelo, nerror):
    e = estimate(penta(*stats))
    assert e is not None
    for got, want in ((e.elo, elo), (e.elo_margin, error), (e.nelo, nelo),
                      (e.nelo_margin, nerror)):
        assert got == pytest.approx(want, rel=0.01, abs=0.01)


@pytest.mark.parametrize(("wins", "losses", "draws", "nelo", "nerror", "elo", "error"), [
    (76, 89, 123, -20.76, 40.13, None, None),
    (136, 96, 111, 49.77, 36.77, 40.70, 30.43),
])
def test_trinomial_elo_matches_fastchess(wins, losses, draws, nelo, nerror, elo, error):
    e = estimate((losses, draws, wins))
    assert e is not None
    assert e.nelo == pytest.approx(nelo, rel=0.01) and e.nelo_margin == pytest.approx(nerror,
                                                                                       rel=0.01)
    if elo is not None:
        assert e.elo == pytest.approx(elo, rel=0.01) and e.elo_margin == pytest.approx(error,
                                                                                       rel=0.01)


def test_hand_computed_small_case():
    # 4 pairs: WW, WD, DD, LL -> scores 1, .75, .5, 0: mean .5625, var per pair
    # (.4375² + .1875² + .0625² + .5625²)/4 = .13671875
    e = estimate((1, 0, 1, 1, 1))
    assert e is not None and e.samples == 4
    assert e.score == pytest.approx(0.5625)
    assert e.elo == pytest.approx(-400 * math.log10(1 / 0.5625 - 1))
    half = 1.959964 * math.sqrt(0.13671875 / 4)
    low, high = 0.5625 - half, 0.5625 + half

    def elo(s: float) -> float:
        return -400 * math.log10(1 / s - 1)

    assert e.elo_margin == pytest.approx((elo(high) - elo(low)) / 2)
    assert e.nelo == pytest.approx(0.0625 / math.sqrt(2 * 0.13671875) * 800 / math.log(10))
    assert estimate((0, 0, 0, 0, 0)) is None
    perfect = estimate((0, 0, 0, 0, 3))
    assert perfect is not None and perfect.elo == math.inf and perfect.to_dict()["elo"] is None


def test_counting_pairs_and_games():
    assert pentanomial([(1, 1), (1, 0.5), (1, 0), (0.5, 0.5), (0, 0.5), (0, 0)]) == (
        1, 1, 2, 1, 1)
    assert trinomial([1, 0.5, 0, 0, 1, 1]) == (2, 1, 3)


@pytest.mark.parametrize(("stats", "elo0", "elo1", "model", "llr"), [
    ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
])
def test_pentanomial_llr_matches_fastchess(stats, elo0, elo1, model, llr):
    assert Sprt(elo0, elo1, 0.05, 0.05, model).llr(penta(*stats)) == pytest.approx(llr,
                                                                                     rel=0.01)


@pytest.mark.parametrize(("wins", "losses", "draws", "elo0", "elo1", "model", "llr"), [
    (36433, 36027, 68692, 0, 2, "normalized", 0.92),
    (10871, 10650, 20431, -1.75, 0.25, "normalized", 2.30),
    (21404, 21184, 40708, 0.5, 2.5, "logistic", -1.57),
    (57433, 57030, 106593, 0, 2, "logistic", -2.59),
])
def test_trinomial_llr_matches_fastchess(wins, losses, draws, elo0, elo1, model, llr):
    assert Sprt(elo0, elo1, 0.05, 0.05, model).llr((losses, draws, wins)) == pytest.approx(
        llr, rel=0.01)


def test_sprt_bounds_and_verdicts():
    test = parse_sprt("elo0=0,elo1=10,alpha=0.05,beta=0.05")
    assert test == Sprt(0, 10, 0.05, 0.05, "logistic")
    assert test.lower == pytest.approx(math.log(0.05 / 0.95))
    assert test.upper == pytest.approx(math.log(0.95 / 0.05))
    assert test.verdict(3.0) == "H1" and test.verdict(-3.0) == "H0" and test.verdict(0) is None
    strong = Sprt(0, 200, 0.05, 0.05)
    assert strong.verdict(strong.llr((0, 0, 0, 0, 8))) == "H1"  # 8 double wins decide
    assert strong.verdict(strong.llr((8, 0, 0, 0, 0))) == "H0"
    assert parse_sprt("beta=0.1, alpha=0.1, elo1=5, elo0=-5, model=normalized").model == \
        "normalized"


@pytest.mark.parametrize(("spec", "says"), [
    ("elo0=0,elo1=10,alpha=0.05", "missing beta"),
    ("elo0=0,elo1=10,alpha=0.05,beta=0.05,x=1", "expected elo0=E0"),
    ("elo0=10,elo1=0,alpha=0.05,beta=0.05", "elo0 must be less than elo1"),
    ("elo0=0,elo1=10,alpha=1.5,beta=0.05", "alpha must be between 0 and 1"),
    ("elo0=0,elo1=10,alpha=0.6,beta=0.5", "alpha + beta must be less than 1"),
    ("elo0=zero,elo1=10,alpha=0.05,beta=0.05", "'zero' is not a number"),
    ("elo0=0,elo0=1,elo1=10,alpha=0.05,beta=0.05", "elo0 given twice"),
    ("elo0=0,elo1=10,alpha=0.05,beta=0.05,model=bayesian", "model must be"),
])
def test_bad_sprt_specs_are_one_line(spec, says):
    with pytest.raises(SprtError) as caught:
        parse_sprt(spec)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_bot_options_grammar():
    assert parse_bot("ismcts:time=0.05").time == 0.05
    assert parse_bot("random:seed=7").seed == 7
    spec = parse_bot("cmd:./bot --x:name=Mine,time=0.2")
    assert (spec.bot, spec.command, spec.name, spec.time) == ("cmd:./bot --x", "./bot --x",
                                                              "Mine", 0.2)
    assert parse_bot("cmd:./bot a:b").bot == "cmd:./bot a:b"  # not options: part of the command
    assert parse_bot("cmd:./bot --x:").bot == "cmd:./bot --x"  # a lone colon ends the command
    bot = make_bot("ismcts:time=0.05,iterations=3,seed=4")
    assert (bot.budget.seconds, bot.budget.iterations) == (0.05, 3)  # type: ignore[union-attr]
    a, b = make_bot("random:seed=7"), make_bot("random:seed=7", seed=99)
    assert a.rng.random() == b.rng.random()  # type: ignore[union-attr]  # the option wins


@pytest.mark.parametrize(("text", "says"), [
    ("ismcts:foo=1", "unknown option 'foo'; ismcts takes name, seed, time, iterations"),
    ("random:time=1", "random takes name, seed"),
    ("ismcts:time=-1", "seconds must be in (0, 3600]"),
    ("random:seed=x", "not a whole number"),
    ("random:name=a#b", "a name is 1-40 characters"),
    ("random:seed=1,seed=2", "option 'seed' given twice"),
    ("random:seed", "options must be key=value"),
    ("cmd:./x:foo=1", "cmd: takes name, time"),
])
def test_bad_bot_options_are_one_line(text, says):
    with pytest.raises(BotOptionError) as caught:
        parse_bot(text)
    assert says in str(caught.value) and "\n" not in str(caught.value)
