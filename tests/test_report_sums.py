"""A report measured where its deals are played (``report_sums.run_report_sums``): each
chunk is played with its control and companion runs, written to a part and reduced to
exact sums in the process that played it; the parts are merged on disk. The sums, the
results file and the report itself are the whole frame's, to the last bit."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from simlab.analysis import report_sums as RS
from simlab.analysis.metrics import compute_from
from simlab.analysis.report import write_report
from simlab.engine.runner import execute, plan
from simlab.games import get_game


def _flat(x):
    """Comparable form of sums (NaN equal to NaN; Fractions and floats as they are)."""
    if isinstance(x, RS.Counts):
        return ("counts", x.values.tolist(), x.counts.tolist())
    if isinstance(x, dict):
        return {k: _flat(v) for k, v in sorted(x.items(), key=lambda kv: str(kv[0]))}
    if isinstance(x, (list, tuple)):
        return [_flat(v) for v in x]
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    if hasattr(x, "s1"):  # Moments
        return (x.n, _flat(x.s1), _flat(x.s2), x.shown)
    if hasattr(x, "moments"):  # MetricSums
        return ([d.key for d in x.defs], _flat(x.moments), _flat(x.joint))
    return x


def _sums(s: RS.ReportSums) -> tuple:
    return (s.rows, _flat(s.metrics), _flat(s.checks), _flat(s.bids), _flat(s.distributions),
            _flat(s.same), _flat(s.controls), _flat(s.companions), dict(s.schema))


@pytest.mark.parametrize("game,level,n,params,chunks", [
    ("belote", "deal", 2_500, {}, (2_500, 601)),
    ("belote", "match", 60, {"target": 301}, (60, 17)),
    # paired controls: the same deals under other rules, played in the same task
    ("duel_las_vegas", "deal", 120, {}, (120, 41)),
    ("president", "deal", 1_500, {"players": 5}, (1_500, 333)),
    # a manche's two parts stay in one chunk
    ("tarot_double_detente", "deal", 600, {"opt_modifications": True}, (600, 151)),
    ("mille", "deal", 800, {}, (800, 199))])
def test_chunks_reduced_where_they_run_give_the_whole_frames_sums(tmp_path, game, level, n,
                                                                  params, chunks):
    whole_plan = plan(get_game(game), n, seed=5, params=params, level=level, progress=False)
    frame = execute(whole_plan)
    want = _sums(RS.frame_report_sums(whole_plan, frame))
    if game == "duel_las_vegas":
        assert want[6], "the Duel's findings have paired controls"
    for jobs in (1, 2):
        for chunk in chunks:
            p = plan(get_game(game), n, seed=5, params=params, level=level, jobs=jobs, chunk_size=chunk,
                     progress=False)
            out = tmp_path / f"{jobs}-{chunk}" / "results.parquet"
            got = RS.run_report_sums(p, out)
            assert _sums(got) == want, (jobs, chunk)
            back = pl.read_parquet(out)
            assert back.equals(frame), (jobs, chunk)
            assert not list(out.parent.glob(".parts-*")), "the parts are removed once merged"


def test_companion_runs_are_reduced_with_the_chunks(tmp_path):
    """Manille answers its variant questions from companion runs of the same deals."""
    p = plan(get_game("manille"), 400, seed=2, progress=False)
    frame = execute(p)
    whole = RS.frame_report_sums(p, frame)
    assert len(whole.companions) >= 3
    got = RS.run_report_sums(replace(p, chunk_size=97), tmp_path / "results.parquet")
    assert _sums(got) == _sums(whole)
    for tag, sums in got.companions.items():
        assert compute_from(sums).metrics, tag


def _report_text(out) -> str:
    text = (out / "report.md").read_text()
    text = re.sub(r"\| run time \|.*\|", "", text)
    return re.sub(r"\| report date \|.*\|", "", text)


@pytest.mark.parametrize("game,level,n", [("belote", "match", 40), ("duel_las_vegas", "deal", 80),
                                          ("tarot", "deal", 800)])
def test_the_report_from_sums_is_the_report_from_the_frame(tmp_path, game, level, n):
    p = plan(get_game(game), n, seed=1, level=level, jobs=2, chunk_size=max(1, n // 3), progress=False)
    frame = execute(p)
    a = write_report(tmp_path / "frame", game=p.game, plan=p, frame=frame, seconds=1.0)
    sums = RS.run_report_sums(p, tmp_path / "sums" / "results.parquet")
    b = write_report(tmp_path / "sums", game=p.game, plan=p, frame=None, sums=sums, seconds=1.0)
    assert _report_text(a) == _report_text(b)
    assert "Score distributions" in _report_text(a)
    assert sorted(f.name for f in (a / "figures").iterdir()) == \
        sorted(f.name for f in (b / "figures").iterdir())
    assert pl.read_parquet(a / "results.parquet").equals(pl.read_parquet(b / "results.parquet"))


def test_counts_give_polars_quantiles_median_mean_and_sd():
    rng = np.random.default_rng(7)
    for _ in range(300):
        v = pl.Series(rng.integers(-6, 7, size=int(rng.integers(1, 200))).astype(float))
        halves = RS.Counts.of(v[: v.len() // 2]) + RS.Counts.of(v[v.len() // 2:])
        for c in (RS.Counts.of(v), halves):
            for q in (0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0):
                assert c.quantile(q) == v.quantile(q, "nearest"), q
            assert c.median() == v.median()
            assert c.mean() == pytest.approx(v.mean(), abs=1e-12)
            if v.len() > 1:
                assert c.sd() == pytest.approx(v.std(), rel=1e-12, abs=1e-12)


def test_a_comparison_report_is_reduced_where_its_deals_are_played(tmp_path):
    """``compare --out``: each chunk under A and B in one task, reduced there to the
    comparison's parts and B's report sums, both chunks' rows written as parts."""
    from simlab.analysis import compare as cmp

    kept = cmp.compare_runs(get_game("belote"), 1_500, b={"queen_points": 5}, seed=4)
    lean = cmp.compare_runs(get_game("belote"), 1_500, b={"queen_points": 5}, seed=4, jobs=2,
                            report_dir=tmp_path)
    assert lean.frame_a is None and lean.frame_b is None
    assert [(r.key, r.a, r.b, r.diff) for r in lean.rows] == \
        [(r.key, r.a, r.b, r.diff) for r in kept.rows]
    assert _sums(lean.sums_b) == _sums(RS.frame_report_sums(kept.plan_b, kept.frame_b))
    assert pl.read_parquet(tmp_path / "results.parquet").equals(kept.frame_b)
    assert pl.read_parquet(tmp_path / "results_a.parquet").equals(kept.frame_a)


@pytest.mark.parametrize("argv", [
    ["report", "belote", "-n", "3000", "--players-n", "0"],
    ["report", "belote", "-n", "60", "--level", "match", "--players-n", "0"],
    ["compare", "belote", "-n", "3000", "--b", "queen_points=5"],
    ["report", "belote", "-n", "2000", "--precision", "0.02", "--max-deals", "40000",
     "--players-n", "0"]])
def test_report_commands_gather_no_rows(executed, tmp_path, argv):
    """``report`` and ``compare --out`` play nothing bigger than one-row schema probes in
    this process's own frames: the deals are reduced where they are played and their
    rows reach the report folder as files."""
    import simlab
    from simlab.analysis import compare as cmp
    from simlab.cli import commands as cli
    from simlab.engine import runner

    sizes = executed(runner, cmp)
    out = tmp_path / "rep"
    assert cli.main([*argv, "--jobs", "2", "--no-progress", "--out", str(out)]) == 0
    assert sizes and set(sizes) == {1}, sizes
    n = simlab.read_provenance(out / "results.parquet")["n"]
    assert pl.read_parquet(out / "results.parquet").height == n
    if "--precision" in argv:
        assert n > 2000 and "Precision target" in (out / "report.md").read_text()
    else:
        assert n == int(argv[argv.index("-n") + 1])
    md = (out / "report.md").read_text()
    assert "## Findings" in md and "## Score distributions" in md
    if argv[0] == "compare":
        assert pl.read_parquet(out / "results_a.parquet").height == n
        assert "`results_a.parquet`" in md


def test_figures_drawn_by_workers_are_the_figures_drawn_here(tmp_path):
    """A report's figures are drawn partly by the run's live worker processes: the same
    PNG bytes as drawn in this process."""
    from simlab.analysis.metrics import compute
    from simlab.engine import pool

    p = plan(get_game("belote"), 3_000, seed=2, progress=False)
    frame = execute(p)
    ms = compute(p.game, frame, p.knobs, "deal")
    pool.shutdown()
    here = write_report(tmp_path / "here", game=p.game, plan=p, frame=frame, seconds=1.0,
                        metric_set=ms)
    workers = pool.get(1)
    RS.warm_figures()
    there = write_report(tmp_path / "there", game=p.game, plan=p, frame=frame, seconds=1.0,
                         metric_set=ms)
    assert pool.current() is workers, "the worker took figures and is still up"
    names = sorted(f.name for f in (here / "figures").iterdir())
    assert len(names) > 10 and names == sorted(f.name for f in (there / "figures").iterdir())
    for name in names:
        assert (here / "figures" / name).read_bytes() == (there / "figures" / name).read_bytes()
    assert _report_text(here) == _report_text(there)


@pytest.mark.parametrize("game,params,first,target,cap", [
    ("belote", {}, 3_000, 0.012, 60_000),
    # a manche's two rows stay in one round and one chunk
    ("tarot_double_detente", {"opt_modifications": True}, 301, 0.05, 3_000)])
def test_a_precision_report_is_reduced_round_by_round(tmp_path, game, params, first, target,
                                                      cap):
    """``report --precision``: each round's chunks are reduced where they are played and
    their parts merged at the end; the same deals, figures and rows as the run that
    gathers its rows."""
    from simlab.analysis.queries import report_to_precision, run_to_precision

    p = plan(get_game(game), first, seed=6, params=params, jobs=2, progress=False)
    rows = run_to_precision(p, target, cap)
    lean = report_to_precision(p, target, cap, tmp_path / "results.parquet")
    assert lean.rounds == rows.rounds >= 2 and lean.n == rows.frame.height
    assert (lean.reached, lean.limiting, lean.widest) == (rows.reached, rows.limiting, rows.widest)
    assert [(m.key, repr(m.estimate)) for m in lean.metrics.metrics] == \
        [(m.key, repr(m.estimate)) for m in rows.metrics.metrics]
    assert pl.read_parquet(tmp_path / "results.parquet").equals(rows.frame)
    from simlab.analysis.metrics import compute

    assert [(m.key, repr(m.estimate)) for m in lean.metrics.metrics] == \
        [(m.key, repr(m.estimate)) for m in compute(p.game, rows.frame, p.knobs, p.level).metrics]
    whole = replace(p, n=lean.n)
    assert _sums(lean.sums) == _sums(RS.frame_report_sums(whole, rows.frame))
    import simlab

    assert simlab.read_provenance(tmp_path / "results.parquet")["n"] == lean.n


def test_a_worker_lost_while_drawing_leaves_the_figures_to_this_process(tmp_path, monkeypatch):
    from simlab.analysis.metrics import compute
    from simlab.engine import pool

    p = plan(get_game("belote"), 1_000, seed=2, progress=False)
    frame = execute(p)
    ms = compute(p.game, frame, p.knobs, "deal")
    here = write_report(tmp_path / "here", game=p.game, plan=p, frame=frame, seconds=1.0,
                        metric_set=ms)
    pool.get(1)

    def dies(self, tasks, local=None, big=False):
        i, fn, args, kwargs = tasks[0]
        yield i, local(i, fn, args, kwargs)
        raise pool.WorkerDied("a worker process died (exit code -9; chunks 1 unfinished)")
    monkeypatch.setattr(pool.Pool, "run", dies)
    lost = write_report(tmp_path / "lost", game=p.game, plan=p, frame=frame, seconds=1.0,
                        metric_set=ms)
    names = sorted(f.name for f in (here / "figures").iterdir())
    assert names == sorted(f.name for f in (lost / "figures").iterdir())
    for name in names:
        assert (here / "figures" / name).read_bytes() == (lost / "figures" / name).read_bytes()
    assert "data:image/png;base64," in (lost / "report.html").read_text()
