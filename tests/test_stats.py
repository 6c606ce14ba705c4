"""Statistics against known values."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from simlab.stats import holm, mean, mean_of, paired_difference, proportion, rate


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
