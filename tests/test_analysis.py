"""how-often, precision-driven runs, comparisons on common random numbers, sweeps and
experiment files."""

from __future__ import annotations

import math

import polars as pl
import pytest

import simlab
from simlab.analysis.compare import compare_runs, parse_grid, sweep
from simlab.analysis.queries import how_often, parse_expr, run_to_precision
from simlab.cli.experiment import load_experiment
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import plan
from simlab.games import get_game


@pytest.fixture(scope="module")
def frame():
    return simlab.simulate("belote", 20_000, seed=3, record_hands=True)


def test_how_often_matches_direct_count(frame):
    est = how_often(frame, "pl.col('capot')")
    assert est.n == frame.height and est.value == frame["capot"].mean()
    est = how_often(frame, pl.col("made"), where="pl.col('contract') == 'round2'")
    sub = frame.filter(pl.col("contract") == "round2")
    assert est.n == sub.height and est.value == pytest.approx(sub["made"].mean())
    held = how_often(frame, "pl.col('dealt_s0').list.contains('J♥')")
    # exact: 5 of 32 cards -> 5/32, tolerance 5 standard errors
    p = 5 / 32
    assert abs(held.value - p) < 5 * math.sqrt(p * (1 - p) / held.n)


@pytest.mark.parametrize("jobs,chunk", [(1, None), (2, 3_000), (2, 7_001)])
def test_how_often_run_counts_chunks_where_they_run(frame, jobs, chunk):
    """how-often adds each chunk's counts (computed in the worker that simulated it) and
    never gathers the rows: the same answer as counting the whole frame, whatever the
    jobs and the chunk size; only two integers per chunk come back."""
    from functools import partial

    from simlab.analysis.queries import how_often_run
    from simlab.engine.runner import execute_reduced
    from simlab.engine.stats import true_and_counted

    p = plan(get_game("belote"), 20_000, seed=3, jobs=jobs, chunk_size=chunk, record_hands=True,
             progress=False)
    for expr, where in (("pl.col('capot')", None),
                        ("pl.col('made')", "pl.col('contract') == 'round2'"),
                        ("pl.col('dealt_s0').list.contains('J♥')", None)):
        assert how_often_run(p, expr, where) == how_often(frame, expr, where)
    counts = execute_reduced(p, partial(true_and_counted, expr=pl.col("capot")))
    assert len(counts) == len(p.chunks) > (1 if chunk else 0)
    assert all(isinstance(k, int) and isinstance(n, int) for k, n in counts)
    assert [n for _, n in counts] == [c for _, c in p.chunks]


@pytest.mark.parametrize("jobs", [1, 2])
def test_how_often_run_error_in_some_rows_is_one_line(jobs):
    """An expression that fails only on some rows' values (a strict cast of taker -1 when
    nobody takes; the first row, which the schema check uses, has a taker) fails in the
    chunk that meets it: one SimlabError naming the columns, as for the whole frame."""
    from simlab.analysis.queries import how_often_run

    p = plan(get_game("belote"), 4000, seed=0, jobs=jobs, chunk_size=1000, progress=False)
    assert simlab.simulate("belote", 1, seed=0)["taker"][0] >= 0
    with pytest.raises(SimlabError, match="cannot evaluate the expression: conversion .*"
                                          "available columns: deal, dealer"):
        how_often_run(p, "pl.col('taker').cast(pl.UInt8) > 0")


def test_how_often_errors(frame):
    with pytest.raises(SimlabError, match="available columns: deal, dealer"):
        how_often(frame, "pl.col('nope')")
    with pytest.raises(SimlabError, match="not a boolean"):
        how_often(frame, "pl.col('score_s0')")
    with pytest.raises(SimlabError, match="cannot read expression"):
        parse_expr("pl.col(")
    with pytest.raises(SimlabError, match="not a polars expression"):
        parse_expr("3 + 4")
    with pytest.raises(SimlabError):
        parse_expr("__import__('os')")


def test_precision_run_is_the_same_deals_as_one_run():
    p = plan(get_game("belote"), 5_000, seed=2)
    r = run_to_precision(p, 0.01, 200_000)
    assert r.reached and r.widest <= 0.01 and r.frame.height > 5_000 and r.rounds >= 2
    assert r.frame.equals(simlab.simulate("belote", r.frame.height, seed=2))
    # each round adds its new deals' exact sums: the figures of the whole frame, bit for bit
    from simlab.analysis.metrics import compute

    whole = compute(p.game, r.frame, p.knobs, p.level)
    assert [(m.key, m.estimate) for m in r.metrics.metrics] == \
        [(m.key, m.estimate) for m in whole.metrics]
    assert any(m.key.startswith("balance.dealer") for m in whole.metrics)
    capped = run_to_precision(p, 0.0005, 8_000)
    assert not capped.reached and capped.frame.height == 8_000 and capped.limiting
    with pytest.raises(SimlabError, match="precision"):
        run_to_precision(p, 2.0, 10_000)
    with pytest.raises(SimlabError, match="max-deals"):
        run_to_precision(p, 0.01, 100)


def test_compare_identical_variants_shows_nothing():
    r = compare_runs(get_game("belote"), 5_000, a={}, b={"litige": "carry_over"}, seed=4)
    assert r.rows and not r.significant()
    assert all(row.diff.diff == 0 for row in r.rows if not math.isnan(row.diff.diff))


def test_compare_detects_a_real_change():
    # Q = 5 adds 8 card points per deal: mean scores must rise, significantly.
    r = compare_runs(get_game("belote"), 5_000, b={"queen_points": 5}, seed=4)
    by_key = {row.key: row for row in r.rows}
    row = by_key["seat.score.s0"]
    assert row.diff.diff > 0 and row.p_holm < 0.05 and row.diff.lo > 0
    assert r.frame_a["turned_card"].equals(r.frame_b["turned_card"])  # same deals


def test_sweep_points_and_grid_parsing():
    assert parse_grid(["a=1,2", "b=x"]) == {"a": ["1", "2"], "b": ["x"]}
    with pytest.raises(SimlabError):
        parse_grid(["a"])
    with pytest.raises(SimlabError, match="take_threshold_1"):
        sweep(get_game("belote"), 100, {"take_threshold_1": ["6", "x"]})  # validated before running
    s = sweep(get_game("belote"), 3_000, {"take_threshold_1": ["5", "9"]}, seed=1)
    assert [p.values["take_threshold_1"] for p in s.points] == [5, 9]
    taken = [next(m for m in p.metrics.metrics if m.key == "contract.nobody_takes").estimate.value
             for p in s.points]
    assert taken[0] < taken[1]  # a higher threshold throws in more deals


def test_experiment_files(tmp_path):
    f = tmp_path / "e.toml"
    f.write_text('game = "belote"\nn = 100\n[knobs]\nqueen_points = 5\n[compare]\nb = {target = 501}\n')
    ex = load_experiment(f)
    assert ex.name == "e" and ex.knobs == {"queen_points": 5} and ex.compare_b == {"target": 501}
    for text, msg in [('game = "belote"\n', "exactly one of"),
                      ('game = "belote"\nn = 1\nbogus = 2\n', "unknown key 'bogus'; valid keys: [^;]*$"),
                      # a variant file (game + knob lines) given as an experiment: say so
                      ('game = "belote"\nqueen_points = 5\n',
                       "unknown key 'queen_points'.*reads like a variant file: give it to "
                       "`simlab run belote --variant "),
                      ('n = 1\n', "missing key 'game'"),
                      ('game = "belote"\nn = 1\n[sweep]\nx = []\n', "non-empty list"),
                      ('game = "belote"\nn = [\n', "not valid TOML")]:
        f.write_text(text)
        with pytest.raises(SimlabError, match=msg):
            load_experiment(f)


def test_compare_difference_is_b_minus_a_over_each_variants_takes():
    # B takes far less often: B - A must be B's success over B's takes minus A's over A's
    r = compare_runs(get_game("belote"), 6_000, b={"take_threshold_1": 9}, seed=11)
    row = {x.key: x for x in r.rows}["contract.success"]
    taken_a = r.frame_a.filter(pl.col("taker") >= 0)["made"].mean()
    taken_b = r.frame_b.filter(pl.col("taker") >= 0)["made"].mean()
    assert row.a.value == pytest.approx(taken_a) and row.b.value == pytest.approx(taken_b)
    assert row.diff.diff == pytest.approx(taken_b - taken_a)
    assert row.diff.n_a > row.diff.n_b and row.diff.lo < row.diff.diff < row.diff.hi


def test_compare_holm_runs_over_distinct_estimable_metrics():
    r = compare_runs(get_game("belote"), 4_000, b={"queen_points": 5}, seed=4)
    by_key = {x.key: x for x in r.rows}
    # partners' seats carry the same per-deal values: counted once, same adjusted p
    assert by_key["seat.score.s2"].duplicate_of == by_key["seat.score.s0"].title
    assert by_key["seat.score.s2"].p_holm == by_key["seat.score.s0"].p_holm
    tested = r.tested()
    assert all(not x.duplicate_of and x.diff.estimable for x in tested)
    assert len(tested) < len(r.rows)
    assert "unadjusted" in r.intervals_note() and f"{len(tested)} distinct" in r.intervals_note()


def test_compare_uses_each_variants_knobs():
    # Tarot's Petit au bout swing is petit_au_bout x multiplier: doubling the bonus doubles
    # B's swing on the same deals
    r = compare_runs(get_game("tarot"), 2_000, b={"petit_au_bout": 20}, seed=1)
    row = {x.key: x for x in r.rows}["tarot.q5.swing.prise"]
    assert row.a.n > 0 and row.b.value == pytest.approx(2 * row.a.value)
    assert row.diff.diff == pytest.approx(row.a.value)


def test_precision_counts_headlines_without_an_interval():
    from simlab.analysis.metrics import Metric, MetricDef, MetricSet
    from simlab.analysis.queries import _headline_widths
    from simlab.engine.stats import proportion

    rare = MetricDef("x.rare", "rare contract success", "S", pl.col("x"), headline=True)
    common = MetricDef("x.common", "common", "S", pl.col("x"), headline=True)
    ms = MetricSet([Metric(rare, proportion(0, 0)), Metric(common, proportion(500, 1000))])
    widths = dict(_headline_widths(ms))
    assert math.isinf(widths["rare contract success"]) and widths["common"] < 0.04


@pytest.mark.parametrize("game,level,n,b", [("belote", "deal", 3_000, {"queen_points": 5}),
                                            ("tarot_4_saisons", "deal", 1_500, {"suite_value": 5}),
                                            ("sept", "match", 300, {"target": 5})])
def test_compare_frames_one_query_equals_metric_by_metric(game, level, n, b):
    """compare_frames computes every metric's estimates and paired sums in a few polars
    queries; metric by metric on the row values (each variant's estimate alone, then
    ``stats.metric_difference`` on the two value arrays, duplicates by equal arrays) gives
    the same rows: estimates to the last bit, differences to rounding."""
    import numpy as np

    from simlab.analysis.compare import compare_frames
    from simlab.analysis.metrics import evaluate, game_defs, row_values
    from simlab.engine.stats import metric_difference

    r = compare_runs(get_game(game), n, b=b, seed=2, level=level)
    rows = compare_frames(r.game, r.plan_a.knobs, r.frame_a, r.frame_b, level, knobs_b=r.plan_b.knobs)
    # the metrics both variants show (a metric that never happens in one is left out)
    defs_b = {m.key: m.definition for m in evaluate(
        r.frame_b, game_defs(r.game, r.frame_b, r.plan_b.knobs, level))}
    pairs = [(m.definition, defs_b[m.key]) for m in evaluate(
        r.frame_a, game_defs(r.game, r.frame_a, r.plan_a.knobs, level)) if m.key in defs_b]
    assert [row.key for row in rows] == [d.key for d, _ in pairs] and len(rows) > 10
    seen: list[tuple[np.ndarray, np.ndarray, str]] = []
    derived = 0
    for row, (da, db) in zip(rows, pairs, strict=True):
        assert row.a == evaluate(r.frame_a, [da])[0].estimate
        assert row.b == evaluate(r.frame_b, [db])[0].estimate
        va = row_values(r.frame_a, da).fill_null(math.nan).to_numpy().astype(float)
        vb = row_values(r.frame_b, db).fill_null(math.nan).to_numpy().astype(float)
        want = metric_difference(va, vb, da.kind)
        got = row.diff
        assert (got.n, got.n_a, got.n_b, got.status) == (want.n, want.n_a, want.n_b, want.status)
        for x, y in [(got.a, want.a), (got.b, want.b), (got.diff, want.diff), (got.lo, want.lo),
                     (got.hi, want.hi), (got.p_value, want.p_value)]:
            assert x == pytest.approx(y, rel=1e-9, abs=1e-12, nan_ok=True), row.key
        first = next((t for sa, sb, t in seen if np.array_equal(sa, va, equal_nan=True)
                      and np.array_equal(sb, vb, equal_nan=True)), "")
        assert row.duplicate_of == first, row.key
        if not first:
            seen.append((va, vb, row.title))
        derived += not row.key.startswith(("seat.", "dealer_pos.", "balance.", "contract.", "match."))
    assert derived > 0  # the game's own questions (ratios, deviations) are in the check


def test_sweep_points_are_measured_where_they_run(monkeypatch, executed):
    """With at least as many grid points as jobs, each point is simulated and measured in
    the process that runs it: a worker sends back its metrics, not its rows, and the
    metrics are those of a one-process sweep to the last bit."""
    from simlab.analysis import compare as cmp
    from simlab.engine import runner

    grid = {"take_threshold_1": ["5", "7", "9"]}
    one = sweep(get_game("belote"), 2_000, grid, seed=2, jobs=1)
    here = executed(cmp)
    two = sweep(get_game("belote"), 2_000, grid, seed=2, jobs=2)
    assert runner.last_processes()[0] == 2
    assert 1 <= len(here) < 3  # the others' rows stayed in the worker
    for a, b in zip(one.points, two.points, strict=True):
        assert a.values == b.values
        # repr: exact for floats, and NaN (no deal in the base) equals NaN
        assert [(m.key, repr(m.estimate)) for m in a.metrics.metrics] == \
            [(m.key, repr(m.estimate)) for m in b.metrics.metrics]
    # timed on a sample of the first point: too little work for a worker, all points here
    monkeypatch.setenv("SIMLAB_MIN_PARALLEL_SECONDS", "1000")
    here.clear()
    small = sweep(get_game("belote"), 2_000, grid, seed=2, jobs=2)
    used, why = runner.last_processes()
    assert used == 1 and why.startswith("1 process: about") and len(here) == 3
    assert [repr(m.estimate) for m in small.points[2].metrics.metrics] == \
        [repr(m.estimate) for m in one.points[2].metrics.metrics]


def test_a_sweep_point_run_here_reports_progress_as_it_goes():
    """A sweep point run by this process with a progress line ticks during its deals and
    measures the same rows as without one."""
    from simlab.analysis.compare import _point_metrics

    ticks: list[int] = []
    args = (get_game("belote"), 3_000, 5, {"queen_points": 4}, "heuristic", "deal", 0.95)
    quiet = _point_metrics(*args)
    shown = _point_metrics(*args, tick=ticks.append)
    assert len(ticks) >= 2 and ticks == sorted(ticks) and ticks[-1] == 3_000
    assert [repr(m.estimate) for m in shown.metrics] == [repr(m.estimate) for m in quiet.metrics]
