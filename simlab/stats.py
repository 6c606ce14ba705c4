"""Honest numbers: every estimate carries its sample size and a confidence interval.

* ``proportion`` — a rate with a Wilson (default) or Jeffreys interval;
* ``mean`` — a mean with a Student-t interval (normal for large n);
* ``paired_difference`` — two variants run on the same deals (common random numbers):
  the mean of the per-deal differences, its interval and a two-sided p-value;
* ``holm`` — Holm's step-down adjustment when one report tests several hypotheses;
* ``rate`` / ``mean_of`` — the same on a polars frame and expression.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats as _sp

DEFAULT_CONF = 0.95


@dataclass(frozen=True)
class Estimate:
    """A rate or a mean with its interval. ``value`` is NaN when ``n`` is 0."""

    value: float
    lo: float
    hi: float
    n: int
    kind: str  # "rate" or "mean"
    conf: float = DEFAULT_CONF

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def format(self, digits: int = 2) -> str:
        if self.n == 0 or math.isnan(self.value):
            return "n/a (n = 0)"
        if self.kind == "rate":
            f = f"{{:.{digits}f}}%"
            return (f"{f.format(100 * self.value)} [{f.format(100 * self.lo)}, "
                    f"{f.format(100 * self.hi)}] (n = {self.n:,})")
        f = f"{{:.{digits + 1}f}}"
        return f"{f.format(self.value)} [{f.format(self.lo)}, {f.format(self.hi)}] (n = {self.n:,})"


def _z(conf: float) -> float:
    if not 0 < conf < 1:
        raise ValueError(f"confidence level must be in (0, 1), got {conf}")
    return float(_sp.norm.ppf(0.5 + conf / 2))


def proportion(k: int, n: int, conf: float = DEFAULT_CONF, method: str = "wilson") -> Estimate:
    """Rate ``k / n`` with a Wilson score (default) or Jeffreys interval."""
    k, n = int(k), int(n)
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "rate", conf)
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    if method == "wilson":
        z = _z(conf)
        z2 = z * z
        denom = 1 + z2 / n
        centre = (p + z2 / (2 * n)) / denom
        half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
        lo = 0.0 if k == 0 else max(0.0, centre - half)  # exact ends, no rounding residue
        hi = 1.0 if k == n else min(1.0, centre + half)
    elif method == "jeffreys":
        a = (1 - conf) / 2
        lo = 0.0 if k == 0 else float(_sp.beta.ppf(a, k + 0.5, n - k + 0.5))
        hi = 1.0 if k == n else float(_sp.beta.ppf(1 - a, k + 0.5, n - k + 0.5))
    else:
        raise ValueError(f"unknown interval method {method!r}; valid: wilson, jeffreys")
    return Estimate(p, lo, hi, n, "rate", conf)


def mean(values: np.ndarray | pl.Series | None = None, *, m: float | None = None,
         sd: float | None = None, n: int | None = None, conf: float = DEFAULT_CONF) -> Estimate:
    """Mean with a Student-t interval, from values or from (m, sd, n)."""
    if values is not None:
        arr = np.asarray(values.drop_nulls() if isinstance(values, pl.Series) else values,
                         dtype=np.float64)
        n = arr.size
        m = float(arr.mean()) if n else math.nan
        sd = float(arr.std(ddof=1)) if n > 1 else math.nan
    assert m is not None and n is not None
    if n == 0:
        return Estimate(math.nan, math.nan, math.nan, 0, "mean", conf)
    if n == 1 or sd is None or math.isnan(sd):
        return Estimate(m, math.nan, math.nan, n, "mean", conf)
    t = float(_sp.t.ppf(0.5 + conf / 2, n - 1))
    half = t * sd / math.sqrt(n)
    return Estimate(m, m - half, m + half, n, "mean", conf)


@dataclass(frozen=True)
class Comparison:
    """Variant B minus variant A on the same deals."""

    a: float
    b: float
    diff: float
    lo: float
    hi: float
    p_value: float
    n: int
    conf: float = DEFAULT_CONF

    def significant(self, alpha: float | None = None) -> bool:
        return self.p_value < (1 - self.conf if alpha is None else alpha)


def paired_difference(a: np.ndarray | pl.Series, b: np.ndarray | pl.Series,
                      conf: float = DEFAULT_CONF) -> Comparison:
    """Paired comparison of two per-deal measures (bools count as 0/1): mean difference
    b - a, t interval and two-sided p-value of the paired t-test (normal for large n).
    Rows where either side is null are dropped."""
    fa = np.asarray(pl.Series(a).cast(pl.Float64).to_numpy(), dtype=np.float64)
    fb = np.asarray(pl.Series(b).cast(pl.Float64).to_numpy(), dtype=np.float64)
    if fa.shape != fb.shape:
        raise ValueError(f"paired samples differ in length: {fa.size} vs {fb.size}")
    ok = ~(np.isnan(fa) | np.isnan(fb))
    fa, fb = fa[ok], fb[ok]
    n = fa.size
    if n == 0:
        return Comparison(math.nan, math.nan, math.nan, math.nan, math.nan, math.nan, 0, conf)
    d = fb - fa
    md = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else math.nan
    if n < 2 or math.isnan(sd):
        lo = hi = p = math.nan
    elif sd == 0:
        lo = hi = md
        p = 1.0 if md == 0 else 0.0
    else:
        se = sd / math.sqrt(n)
        t = float(_sp.t.ppf(0.5 + conf / 2, n - 1))
        lo, hi = md - t * se, md + t * se
        p = float(2 * _sp.t.sf(abs(md / se), n - 1))
    return Comparison(float(fa.mean()), float(fb.mean()), md, lo, hi, p, n, conf)


def holm(p_values: list[float]) -> list[float]:
    """Holm step-down adjusted p-values (same order as given; NaNs stay NaN)."""
    idx = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    order = sorted(idx, key=lambda i: p_values[i])
    m = len(order)
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def rate(frame: pl.DataFrame | pl.LazyFrame, expr: pl.Expr, where: pl.Expr | None = None,
         conf: float = DEFAULT_CONF) -> Estimate:
    """Share of rows (optionally among ``where`` rows) for which boolean ``expr`` holds;
    null values are not counted in n."""
    e = expr.cast(pl.Boolean)
    if where is not None:
        e = pl.when(where).then(e)
    k, n = frame.lazy().select(e.sum().alias("k"), e.count().alias("n")).collect().row(0)
    return proportion(int(k or 0), int(n or 0), conf)


def mean_of(frame: pl.DataFrame | pl.LazyFrame, expr: pl.Expr, where: pl.Expr | None = None,
            conf: float = DEFAULT_CONF) -> Estimate:
    """Mean of numeric ``expr`` (optionally among ``where`` rows) with its t interval."""
    e = expr.cast(pl.Float64)
    if where is not None:
        e = pl.when(where).then(e)
    m, sd, n = frame.lazy().select(e.mean().alias("m"), e.std().alias("sd"),
                                   e.count().alias("n")).collect().row(0)
    return mean(m=math.nan if m is None else m, sd=math.nan if sd is None else sd,
                n=int(n or 0), conf=conf)
