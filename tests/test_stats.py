"""Statistics against known values."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import polars as pl
import pytest

from simlab.engine import stats
from simlab.engine.stats import holm, mean, mean_of, paired_difference, proportion, rate


def test_wilson_known_value():
    # 9/100 at 95%: the textbook Wilson interval [0.0481, 0.1623]
    e = proportion(9, 100)
    assert e.value == 0.09 and e.n == 100
    assert e.lo == pytest.approx(0.04807, abs=1e-4) and e.hi == pytest.approx(0.16226, abs=1e-4)
    assert "9.00% [4.81%, 16.23%] (n = 100)" == e.format()


def test_jeffreys_and_edges():
    e = proportion(9, 100, method="jeffreys")
    assert e.lo == pytest.approx(0.04547, abs=1e-4) and e.hi == pytest.approx(0.15779, abs=1e-4)
    zero = proportion(0, 50)
    assert zero.lo == 0 and 0 < zero.hi < 0.08
    assert proportion(50, 50).hi == 1
    assert math.isnan(proportion(0, 0).value)
    with pytest.raises(ValueError):
        proportion(3, 2)
    with pytest.raises(ValueError, match="wilson, jeffreys"):
        proportion(1, 2, method="exact")


def test_mean_t_interval():
    e = mean(np.array([1.0, 2.0, 3.0, 4.0]))
    # mean 2.5, sd 1.291, t(0.975, 3) = 3.182 -> half-width 2.054
    assert e.value == 2.5 and e.half_width == pytest.approx(2.0540, abs=1e-3)
    assert math.isnan(mean(np.array([5.0])).lo)


def test_paired_difference_known_answer():
    rng = np.random.default_rng(0)
    a = rng.normal(10, 3, 20000)
    b = a + 0.5 + rng.normal(0, 0.1, 20000)  # B is A shifted by 0.5, nearly noiseless
    c = paired_difference(a, b)
    assert c.diff == pytest.approx(0.5, abs=0.005)
    assert c.lo < 0.5 < c.hi and c.hi - c.lo < 0.01 and c.p_value < 1e-12
    same = paired_difference(a, a)
    assert same.diff == 0 and same.lo == same.hi == 0 and same.p_value == 1.0
    # nulls on either side drop the row; booleans count as 0/1
    x = pl.Series([True, False, None, True])
    y = pl.Series([True, True, True, None])
    d = paired_difference(x, y)
    assert d.n == 2 and d.diff == pytest.approx(0.5)


def test_paired_difference_matches_t_test_on_synthetic_frames():
    from scipy import stats

    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 500).astype(float)
    b = np.where(rng.random(500) < 0.1, 1 - a, a)
    c = paired_difference(a, b)
    ref = stats.ttest_rel(b, a)
    assert c.p_value == pytest.approx(ref.pvalue, rel=1e-9)


def test_holm():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    out = holm([0.5, math.nan, 0.01])
    assert out[0] == pytest.approx(0.5) and math.isnan(out[1]) and out[2] == pytest.approx(0.02)


def test_frame_helpers():
    f = pl.DataFrame({"x": [1, 2, 3, 4, None], "ok": [True, False, True, None, True]})
    r = rate(f, pl.col("ok"))
    assert (r.value, r.n) == (0.75, 4)
    r = rate(f, pl.col("ok"), where=pl.col("x") >= 2)
    assert (r.value, r.n) == (0.5, 2)
    m = mean_of(f, pl.col("x"))
    assert (m.value, m.n) == (2.5, 4)


# --- B's metric minus A's, each over its own base, paired by deal ---------------------------
def test_metric_difference_is_b_minus_a_over_each_base():
    from simlab.engine.stats import metric_difference

    rng = np.random.default_rng(2)
    n = 20_000
    in_a = rng.random(n) < 0.6
    in_b = in_a & (rng.random(n) < 0.5)  # B qualifies on a subset of A's deals
    success = rng.random(n) < np.where(rng.random(n) < 0.5, 0.95, 0.75)
    a = np.where(in_a, success, np.nan)
    b = np.where(in_b, success, np.nan)
    c = metric_difference(a, b, "rate")
    assert c.diff == pytest.approx(np.nanmean(b) - np.nanmean(a))
    assert (c.n_a, c.n_b, c.n) == (in_a.sum(), in_b.sum(), (in_a & in_b).sum())
    assert c.lo < c.diff < c.hi and c.estimable
    # paired: narrower than two independent Wilson intervals combined (Newcombe unpaired)
    pa, pb = proportion(int(np.nansum(a)), c.n_a), proportion(int(np.nansum(b)), c.n_b)
    unpaired = math.hypot(pa.value - pa.lo, pb.hi - pb.value)
    assert c.diff - c.lo < unpaired


def test_metric_difference_reduces_to_the_paired_t_and_newcombe():
    from simlab.engine.stats import metric_difference

    rng = np.random.default_rng(3)
    a = rng.normal(0, 1, 300)
    b = a + 0.2 + rng.normal(0, 0.5, 300)
    mine, paired = metric_difference(a, b, "mean"), paired_difference(a, b)
    assert (mine.diff, mine.lo, mine.hi, mine.p_value) == pytest.approx(
        (paired.diff, paired.lo, paired.hi, paired.p_value), rel=1e-9)
    # Newcombe (1998) paired example (Altman, Statistics with confidence, p. 52): table
    # 1, 1 / 7, 12 gives -0.2857 [-0.5069, -0.0256]
    b01 = np.array([1] * 1 + [1] * 1 + [0] * 7 + [0] * 12, float)
    a01 = np.array([1] * 1 + [0] * 1 + [1] * 7 + [0] * 12, float)
    c = metric_difference(a01, b01, "rate")
    assert (c.diff, c.lo, c.hi) == pytest.approx((-0.2857, -0.5069, -0.0256), abs=1e-4)
    assert c.p_value < 0.05  # dual to the interval: it excludes 0


def test_metric_difference_never_collapses():
    from simlab.engine.stats import IDENTICAL, TOO_FEW, metric_difference

    same = np.array([1.0] * 50 + [0.0] * 10)  # 60 takes, no outcome flips
    c = metric_difference(same, same, "rate")
    assert c.diff == 0 and c.lo < 0 < c.hi and c.p_value == 1 and c.status == IDENTICAL
    assert c.hi > 0.03  # Newcombe's continuity term: about +-5 pp at n = 60, not [0, 0]
    few = metric_difference(same[:8], same[:8][::-1], "rate")
    assert few.status == TOO_FEW and math.isnan(few.lo) and math.isnan(few.p_value)
    shifted = np.arange(30.0)
    const = metric_difference(shifted, shifted + 1, "mean")  # the difference never varies
    assert const.diff == 1 and math.isnan(const.lo) and not const.estimable
    none = metric_difference(np.full(5, np.nan), np.ones(5), "rate")
    assert none.n_a == 0 and math.isnan(none.diff) and "A" in none.status


def test_half_width_is_the_far_side():
    e = proportion(1, 100)
    assert e.half_width == pytest.approx(max(e.value - e.lo, e.hi - e.value))
    assert e.half_width > (e.hi - e.lo) / 2


def test_position_balance_from_sums_equals_the_rows():
    """position_balance_from reads only exact sums (what lets chunks be added): the same
    test as the per-row computation, and the same whatever split of the rows."""
    from simlab.analysis.metrics import position_balance_from
    from simlab.analysis.sums import moments_of

    r = np.random.default_rng(5)
    x = (r.random((3_000, 4)) < [0.24, 0.25, 0.27, 0.24]).astype(float)
    x[:, 3] = x[:, 1]  # partners win together: a rank-reduced test
    contrasts = x[:, 1:] - x[:, :1]
    cov = np.cov(contrasts, rowvar=False) / len(x)
    got = position_balance_from(moments_of(x))
    assert got.df == 2 and got.n == 3_000
    assert got.gap == pytest.approx(float(x.mean(axis=0).max() - x.mean(axis=0).min()), abs=1e-15)
    mean_c = contrasts.mean(axis=0)
    stat = float(mean_c @ np.linalg.pinv(cov, rcond=1e-10, hermitian=True) @ mean_c)
    assert got.p_equal == pytest.approx(stats.chi2_sf(stat, 2), rel=1e-9)
    split = position_balance_from(moments_of(x[:1000]) + moments_of(x[1000:]))
    assert dataclasses.astuple(split) == dataclasses.astuple(got)


def test_position_balance_is_valid_after_choosing_best_and_worst():
    from simlab.analysis.metrics import position_balance

    rng = np.random.default_rng(4)
    x = (rng.random((4000, 4)) < 0.3).astype(float)  # four equal positions
    t = position_balance(x)
    assert t.gap_lo == 0 <= t.gap <= t.gap_hi and t.df == 3 and 0 < t.p_equal <= 1
    partners = np.column_stack([x[:, 0], x[:, 1], x[:, 0], x[:, 1]])  # seats 0 = 2, 1 = 3
    assert position_balance(partners).df == 1
    unequal = x.copy()
    unequal[:, 2] = (rng.random(4000) < 0.4).astype(float)
    u = position_balance(unequal)
    assert u.gap_lo > 0.03 and u.p_equal < 1e-6


def test_distributions_are_scipy_stats_values():
    """stats' quantiles and tails call scipy.special (0.2 s to import rather than 1 s for
    scipy.stats): the same values, at random points over the ranges simlab uses."""
    from scipy import stats as sp

    from simlab.engine import stats as st

    rng = np.random.default_rng(5)
    for _ in range(300):
        df = int(rng.integers(1, 10**6))
        q = float(rng.uniform(0.5, 1 - 1e-9))
        x = float(rng.uniform(0, 40))
        a, b = float(rng.integers(0, 10**6)) + 0.5, float(rng.integers(0, 10**6)) + 0.5
        k = int(rng.integers(1, 30))
        assert st.t_ppf(q, df) == pytest.approx(sp.t.ppf(q, df), rel=1e-12)
        assert st.t_sf(x, df) == pytest.approx(sp.t.sf(x, df), rel=1e-12, abs=1e-300)
        assert st.norm_ppf(q) == pytest.approx(sp.norm.ppf(q), rel=1e-12)
        assert st.norm_sf(x) == pytest.approx(sp.norm.sf(x), rel=1e-12, abs=1e-300)
        assert st.beta_ppf(1 - q, a, b) == pytest.approx(sp.beta.ppf(1 - q, a, b), rel=1e-12)
        assert st.chi2_sf(x, k) == pytest.approx(sp.chi2.sf(x, k), rel=1e-12, abs=1e-300)
    # the 95% two-sided critical values everyone knows
    assert st.norm_ppf(0.975) == pytest.approx(1.959964, abs=1e-6)
    assert st.t_ppf(0.975, 10) == pytest.approx(2.228139, abs=1e-6)


@pytest.mark.parametrize("game,level,n,params,group", [
    ("tarot", "deal", 20_000, {}, 1), ("sept", "match", 300, {}, 1),
    ("president", "deal", 6_000, {"deal_titles": "random", "players": 6}, 1),
    ("tarot_4_saisons", "deal", 6_000, {}, 1),
    # a manche's parts are consecutive rows, measured together: cut between manches
    ("tarot_double_detente", "deal", 6_000, {"opt_modifications": True}, 2)])
def test_metrics_add_up_exactly_over_any_split_of_the_rows(game, level, n, params, group):
    """metrics.evaluate works from exact sums (``metric_moments``): the moments of any
    split of the rows, added, give the whole frame's estimates to the last bit, and the
    same metrics shown (``min_n``, ``shown_if``: what lets workers measure their own
    chunks); and each estimate equals the direct one on its per-row values (a ratio's or a
    deviation's linearisation) to rounding."""
    import simlab
    from simlab.analysis import metrics
    from simlab.engine.stats import mean
    from simlab.games import get_game

    g = get_game(game)
    frame = simlab.simulate(game, n, seed=4, level=level, params=params)
    defs = metrics.game_defs(g, frame, g.make_knobs(params), level)
    assert len(defs) > 10
    if game in ("tarot", "sept"):
        assert any(isinstance(d.expr, metrics.Derived) for d in defs)
    if game != "sept":  # metrics the data decide to show, some shown and some not
        conditional = [d for d in defs if d.min_n or d.shown_if is not None]
        shown_keys = {m.key for m in metrics.evaluate(frame, conditional)}
        assert shown_keys and (game == "tarot_double_detente" or len(shown_keys) < len(conditional))
    whole = [metrics.estimate_of(d, m) for d, m in zip(defs, metrics.metric_moments(frame, defs),
                                                       strict=True)]
    shown = [m.key for m in metrics.evaluate(frame, defs)]
    for cuts in ([n // 3, n // 2], [1, 2, n - 7], [n // 10 * k for k in range(1, 10)]):
        cuts = [c // group * group for c in cuts]
        parts = [frame.slice(a, b - a) for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
        added = metrics.metric_moments(parts[0], defs)
        for p in parts[1:]:
            added = [x + y for x, y in zip(added, metrics.metric_moments(p.lazy(), defs),
                                           strict=True)]
        split = [metrics.estimate_of(d, m) for d, m in zip(defs, added, strict=True)]
        assert [dataclasses.astuple(e) for e in split] == [dataclasses.astuple(e) for e in whole]
        assert [d.key for d, m in zip(defs, added, strict=True) if metrics.shown(d, m)] == shown
    for d, e in zip(defs, whole, strict=True):
        v = metrics.row_values(frame, d).fill_nan(None).drop_nulls()
        ref = (stats.proportion(int(v.sum()), v.len()) if metrics.form_of(d) == "rate"
               else mean(v))
        assert e.n == ref.n, d.key
        pairs = [(e.value, ref.value)]
        form = metrics.form_of(d)
        if form == "rate" or (ref.n >= stats.MIN_MEAN_N and ref.hi > ref.lo and form != "ratio"):
            pairs += [(e.lo, ref.lo), (e.hi, ref.hi)]
        elif 0 < ref.n < stats.MIN_MEAN_N:  # "too few": no interval
            assert e.status == stats.TOO_FEW_ROWS and math.isnan(e.lo), d.key
        elif ref.n and not ref.hi > ref.lo:  # rows all equal: never [x, x]
            assert not e.lo == e.hi, d.key
        elif ref.n:  # a ratio: Fieller's interval, around the estimate
            assert e.lo < e.value < e.hi, d.key
        for x, y in pairs:
            assert x == pytest.approx(y, rel=1e-12, abs=1e-15, nan_ok=True), d.key


def test_exact_sums_are_exact():
    """sums.exact_sum equals the rational sum of the floats, whatever their sizes and
    signs, and whatever order or split they come in."""
    from fractions import Fraction

    from simlab.analysis.sums import exact_dot, exact_sum

    r = np.random.default_rng(3)
    x = np.concatenate([r.normal(size=500) * 10.0 ** r.integers(-300, 300, size=500),
                        r.integers(-10**6, 10**6, size=500).astype(float), [0.0, -0.0, 5e-324, 1 / 3]])
    r.shuffle(x)
    want = sum((Fraction(v) for v in x.tolist()), Fraction(0))
    assert exact_sum(x) == want
    assert exact_sum(x[:700]) + exact_sum(x[700:]) == want
    assert exact_sum(x[::-1]) == want
    ints = r.integers(-2**40, 2**40, size=1000).astype(float)
    assert exact_sum(ints) == sum(int(v) for v in ints.tolist())
    assert math.isnan(exact_sum(np.array([1.0, math.inf])))
    y = r.normal(size=x.size)
    assert exact_dot(x / 1e150, y) == sum((Fraction(u) * Fraction(v) for u, v in
                                           zip((x / 1e150).tolist(), y.tolist(), strict=True)),
                                          Fraction(0))
