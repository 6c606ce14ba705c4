"""Comparisons measured where their deals are played: each chunk of deals is played under
both variants in one task and reduced there to exact sums (``compare.compare_reduced``);
the rows never gather, and the result is the whole frames' to the last bit."""

from __future__ import annotations

import dataclasses
import math

import pytest

from simlab.analysis import compare as cmp
from simlab.analysis.metrics import game_defs
from simlab.engine.runner import execute, plan
from simlab.games import game_names, get_game


def _row(r: cmp.CompareRow) -> tuple:
    def clean(x):
        return "nan" if isinstance(x, float) and math.isnan(x) else x
    return (r.key, r.title, *map(clean, dataclasses.astuple(r.a)),
            *map(clean, dataclasses.astuple(r.b)), *map(clean, dataclasses.astuple(r.diff)),
            clean(r.p_holm), r.duplicate_of)


@pytest.mark.parametrize("game,level,n,a,b,chunks", [
    ("belote", "deal", 3_000, {}, {"queen_points": 5}, (3_000, 701)),
    ("sept", "match", 120, {}, {"target": 5}, (120, 37)),
    ("president", "deal", 2_000, {"deal_titles": "random", "players": 6},
     {"deal_titles": "random", "players": 6, "exchange_top": 0}, (2_000, 333)),
    # a manche's two parts are measured together: odd chunk sizes are rounded up
    ("tarot_double_detente", "deal", 1_200, {"opt_modifications": True},
     {"opt_modifications": True, "opt_as_gagnant": True}, (1_200, 301))])
def test_chunks_measured_where_they_run_give_the_whole_frames_rows(game, level, n, a, b, chunks):
    whole = cmp.compare_runs(get_game(game), n, a=a, b=b, seed=3, level=level)
    assert whole.frame_a is not None and len(whole.rows) > 10
    want = [_row(r) for r in whole.rows]
    for jobs in (1, 2):
        for chunk in chunks:
            pa = plan(get_game(game), n, seed=3, params=a, level=level, jobs=jobs, chunk_size=chunk,
                      progress=False)
            pb = plan(get_game(game), n, seed=3, params=b, level=level, jobs=jobs, chunk_size=chunk,
                      progress=False)
            assert [_row(r) for r in cmp.compare_reduced(pa, pb)] == want, (jobs, chunk)
    lean = cmp.compare_runs(get_game(game), n, a=a, b=b, seed=3, level=level, keep_frames=False)
    assert lean.frame_a is None and [_row(r) for r in lean.rows] == want


def test_compare_without_a_report_gathers_no_rows(executed, capsys):
    """``simlab compare`` with no ``--out`` runs nothing bigger than the one-deal schema
    probes in the parent: the deals are measured where they are played."""
    from simlab.cli import commands as cli

    sizes = executed(cmp)
    assert cli.main(["compare", "belote", "-n", "2000", "--b", "queen_points=5", "--jobs", "2",
                     "--no-progress"]) == 0
    assert sizes == [1, 1]
    assert "differ significantly" in capsys.readouterr().out


@pytest.mark.parametrize("game", game_names())
def test_metric_definitions_depend_only_on_the_columns(game):
    """What lets a chunk be measured alone: a game's metric definitions (keys, in order)
    are the same on one row as on many; what the data decide is which of them are shown
    (``MetricDef.min_n``, ``shown_if``), from counts that add up over chunks."""
    g = get_game(game)
    for level, n in (("deal", 600), ("match", 20)):
        p = plan(get_game(game), n, seed=1, level=level, jobs=1, progress=False)
        many = execute(p)
        one = many.head(1)
        keys = [d.key for d in game_defs(g, one, p.knobs, level)]
        assert keys == [d.key for d in game_defs(g, many, p.knobs, level)]
        assert keys == [d.key for d in game_defs(g, many.tail(1), p.knobs, level)]


@pytest.mark.parametrize("game,params", [("president", {"deal_titles": "random", "players": 6}),
                                         ("tarot_double_detente", {"opt_modifications": True}),
                                         ("tarot_double_detente", {"opt_tout_ou_rien": True})])
def test_metric_definitions_with_optional_rules_depend_only_on_the_columns(game, params):
    g = get_game(game)
    for level, n in (("deal", 600), ("match", 20)):
        p = plan(get_game(game), n, seed=1, params=params, level=level, jobs=1, progress=False)
        many = execute(p)
        keys = [d.key for d in game_defs(g, many, p.knobs, level)]
        assert keys == [d.key for d in game_defs(g, many.head(1), p.knobs, level)]


@pytest.mark.parametrize("game,level,n,params,chunk", [
    ("tarot", "deal", 3_000, {}, 701), ("belote", "match", 40, {}, 9),
    ("tarot_double_detente", "deal", 1_200, {"opt_modifications": True}, 301)])
def test_a_run_measured_chunk_by_chunk_is_the_whole_frame(game, level, n, params, chunk):
    """``measure_reduced`` (a sweep point on every core): each chunk's exact sums where it
    ran, added here, are the whole frame's metrics to the last bit, balance included."""
    from simlab.analysis.metrics import compute

    p = plan(get_game(game), n, seed=6, params=params, level=level, jobs=1, progress=False)
    want = [(m.key, dataclasses.astuple(m.estimate)) for m in
            compute(p.game, execute(p), p.knobs, level).metrics]
    assert any(k.startswith("balance.") for k, _ in want)
    for jobs in (1, 2):
        q = plan(get_game(game), n, seed=6, params=params, level=level, jobs=jobs, chunk_size=chunk,
                 progress=False)
        got = [(m.key, dataclasses.astuple(m.estimate)) for m in cmp.measure_reduced(q).metrics]
        assert [(k, tuple("nan" if isinstance(x, float) and math.isnan(x) else x for x in e))
                for k, e in got] == \
            [(k, tuple("nan" if isinstance(x, float) and math.isnan(x) else x for x in e))
             for k, e in want], jobs
