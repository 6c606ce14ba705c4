"""The analysis commands end to end on small runs, and their errors."""

from __future__ import annotations

import polars as pl
import pytest

import simlab
from simlab.cli.commands import main


def run(capsys, *argv):
    code = main([*argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_how_often(capsys):
    code, out, _ = run(capsys, "how-often", "belote", "pl.col('capot')", "-n", "2000",
                       "--jobs", "1", "--no-progress")
    assert code == 0 and "P(pl.col('capot'))" in out and "(n = 2,000)" in out and "Wilson" in out


def test_compare_and_report(capsys, tmp_path):
    code, out, _ = run(capsys, "compare", "belote", "--b", "queen_points=5", "-n", "2000",
                       "--jobs", "1", "--no-progress", "--out", str(tmp_path / "cmp"))
    assert code == 0 and "Holm p" in out and "mean score per deal, seat 0" in out
    assert "Note: intervals are unadjusted 95% intervals" in out and "distinct, estimable metrics" in out
    assert (tmp_path / "cmp" / "report.html").is_file()


def test_sweep_writes_curves(capsys, tmp_path):
    code, out, _ = run(capsys, "sweep", "belote", "--grid", "take_threshold_1=6,8", "-n", "2000",
                       "--jobs", "1", "--no-progress", "--out", str(tmp_path / "sw"))
    assert code == 0 and "take_threshold_1=6" in out and "take_threshold_1=8" in out
    assert list((tmp_path / "sw" / "figures").glob("*.png"))


def test_report_with_precision(capsys, tmp_path):
    code, out, _ = run(capsys, "report", "belote", "-n", "3000", "--precision", "0.02",
                       "--max-deals", "50000", "--jobs", "1", "--no-progress",
                       "--out", str(tmp_path / "rep"))
    assert code == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "Precision target" in text and "Headline answers" in text


def test_experiment(capsys, tmp_path, executed):
    """An experiment's run and its comparison are measured where their deals are played:
    A's rows are the run's ``results.parquet``, B's go to ``results_b.parquet``."""
    from simlab.analysis import compare
    from simlab.engine import runner

    f = tmp_path / "e.toml"
    f.write_text(f'game = "belote"\nn = 2000\nseed = 3\njobs = 2\nout = "{tmp_path / "ex"}"\n'
                 '[compare]\nb = {queen_points = 5}\n')
    sizes = executed(runner, compare)
    code, out, _ = run(capsys, "experiment", str(f), "--no-progress", "--players-n", "0")
    assert code == 0 and (tmp_path / "ex" / "report.md").is_file()
    text = (tmp_path / "ex" / "report.md").read_text()
    assert "Comparison" in text and "`results_b.parquet`: variant B's results" in text
    assert set(sizes) == {1}, sizes  # one-row probes only
    ex = tmp_path / "ex"
    assert pl.read_parquet(ex / "results.parquet").equals(simlab.simulate("belote", 2000, seed=3))
    assert pl.read_parquet(ex / "results_b.parquet").equals(
        simlab.simulate("belote", 2000, seed=3, params={"queen_points": 5}))


@pytest.mark.parametrize("argv,needle", [
    (["how-often", "belote", "pl.col('nope')", "-n", "10"], "available columns"),
    (["how-often", "belote", "pl.col(", "-n", "10"], "cannot read expression"),
    (["how-often", "chess", "pl.col('x')"], "valid games"),
    (["compare", "belote", "--b", "queen=5", "-n", "10"], "unknown knob 'queen'"),
    (["compare", "belote", "--b", "queen_points=x", "-n", "10"], "expects int"),
    (["sweep", "belote", "--grid", "take_threshold_1", "-n", "10"], "--grid expects"),
    (["sweep", "belote", "--grid", "litige=carry_over,maybe", "-n", "10"], "allowed: carry_over, lost"),
    (["report", "belote", "--out", "x"], "give -n N, or --precision"),
    (["report", "belote", "-n", "100", "--precision", "0.01", "--max-deals", "10", "--out", "x"],
     "smaller than"),
    (["experiment", "/nonexistent.toml"], "not found"),
])
def test_errors_are_one_line_exit_2(capsys, tmp_path, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert err.startswith("simlab: error:") and needle in err and err.count("\n") == 1
