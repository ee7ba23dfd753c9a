# bench/run_all.py's --compare: each figure of the new run against the same figure of a saved
# run, its ratio and whether it got better by the figure's own comparison; and quick mode's
# arguments, which every script's figures() must take (a name it does not take crashed the
# whole table once, after the benchmarks before it had run).
from __future__ import annotations

import inspect
import json

import pytest

from tests.bench.support import load_bench_script


@pytest.fixture(scope="module")
def run_all():
    return load_bench_script("run_all")


def _row(name, value, comparison, unit="ms"):
    return {"name": name, "value": value, "unit": unit, "target": 1,
            "comparison": comparison, "met": None}


def test_compare_gives_the_ratio_and_the_verdict_by_the_figures_direction(run_all):
    old = {"figures": [_row("latency", 2.0, "<="), _row("rate", 100.0, ">="),
                       _row("size", 50.0, None), _row("flat", 10.0, "<="),
                       _row("gone", 1.0, "<=")]}
    rows = [_row("latency", 1.0, "<="), _row("rate", 80.0, ">="), _row("size", 100.0, None),
            _row("flat", 10.1, "<="), _row("new", 3.0, "<=")]
    out = {r["name"]: r for r in run_all.compare(rows, old)}
    assert set(out) == {"latency", "rate", "size", "flat"}  # only figures in both runs
    assert out["latency"]["ratio"] == 0.5 and out["latency"]["verdict"] == "better"
    assert out["rate"]["ratio"] == 0.8 and out["rate"]["verdict"] == "worse"
    assert out["size"]["ratio"] == 2.0 and out["size"]["verdict"] == "-"
    assert out["flat"]["verdict"] == "same"
    assert out["latency"]["old"] == 2.0


def test_a_zero_old_value_has_no_ratio(run_all):
    out = run_all.compare([_row("x", 1.0, "<=")], {"figures": [_row("x", 0, "<=")]})
    assert out[0]["ratio"] is None and out[0]["verdict"] == "-"


def test_a_file_that_is_not_a_saved_run_is_a_one_line_error(run_all, tmp_path):
    bad = tmp_path / "old.json"
    bad.write_text(json.dumps([1, 2]))
    with pytest.raises(SystemExit, match=r"not a run_all\.py --json file"):
        run_all.load_old(str(bad))
    with pytest.raises(SystemExit, match="cannot read --compare"):
        run_all.load_old(str(tmp_path / "missing.json"))


def test_the_comparison_table_prints_each_ratio(run_all, capsys):
    run_all.print_comparison(run_all.compare([_row("latency", 1.0, "<=")],
                                             {"figures": [_row("latency", 2.0, "<=")]}),
                             "old.json")
    out = capsys.readouterr().out
    assert "compared with old.json" in out and "0.50" in out and "better" in out


def test_quick_mode_passes_each_script_only_arguments_its_figures_takes(run_all):
    for name in run_all.NAMES:
        module = run_all.load(name)
        taken = inspect.signature(module.figures).parameters
        for full in (False, True):
            given = set(run_all.arguments(name, module, full))
            assert given <= set(taken), (name, sorted(given - set(taken)))
