"""Honest numbers: every estimate carries its sample size and a confidence interval.

* ``proportion`` — a rate with a Wilson (default) or Jeffreys interval;
* ``mean`` — a mean with a Student-t interval (normal for large n);
* ``paired_difference`` — two variants run on the same deals (common random numbers):
  the mean of the per-deal differences, its interval and a two-sided p-value (for a
  measure defined on every deal in both variants);
* ``metric_difference`` — B's metric minus A's, each over its own qualifying deals, with
  an interval that uses the pairing of the deals (joint delta method; for rates Newcombe's
  square-and-add of the two Wilson intervals with their correlation), never of zero width;
* ``holm`` — Holm's step-down adjustment when one report tests several hypotheses;
* ``rate`` / ``mean_of`` — the same on a polars frame and expression.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl


def _special():
    """``scipy.special``, imported on first use (about 0.2 s; ``scipy.stats`` took 1 s
    here, and the distributions below are the same special functions it calls, giving
    bit-identical values): a plain run that prints no interval, or a worker process,
    pays nothing."""
    from scipy import special

    return special


def norm_ppf(q: float) -> float:
    """The standard normal quantile (``scipy.stats.norm.ppf``)."""
    return float(_special().ndtri(q))


def norm_sf(x: float) -> float:
    """P(Z > x) for a standard normal Z (``scipy.stats.norm.sf``)."""
    return float(_special().ndtr(-x))


def t_ppf(q: float, df: float) -> float:
    """Student's t quantile with ``df`` degrees of freedom (``scipy.stats.t.ppf``)."""
    return float(_special().stdtrit(df, q))


def t_sf(x: float, df: float) -> float:
    """P(T > x) for Student's t with ``df`` degrees of freedom (``scipy.stats.t.sf``)."""
    return float(_special().stdtr(df, -x))


def beta_ppf(q: float, a: float, b: float) -> float:
    """The Beta(a, b) quantile (``scipy.stats.beta.ppf``)."""
    return float(_special().betaincinv(a, b, q))


def chi2_sf(x: float, k: float) -> float:
    """P(X > x) for a chi-square with ``k`` degrees of freedom (``scipy.stats.chi2.sf``)."""
    return float(_special().chdtrc(k, x))


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
    # why a mean has no interval though it has rows: TOO_FEW_ROWS (fewer than
    # ``MIN_MEAN_N`` qualifying rows: "too few" is printed instead of a number) or
    # CONSTANT_ROWS (every row holds the same value: no spread to estimate, never [x, x])
    status: str = ""

    @property
    def half_width(self) -> float:
        """Largest distance from the estimate to either bound (a Wilson interval is not
        symmetric, so (hi - lo) / 2 would understate the far side)."""
        return max(self.value - self.lo, self.hi - self.value)

    def format(self, digits: int = 2) -> str:
        if self.status == TOO_FEW_ROWS:
            return f"too few (n = {self.n:,})"
        if self.n == 0 or math.isnan(self.value):
            return "n/a (n = 0)"
        if self.kind == "rate":
            f = f"{{:.{digits}f}}%"
            return (f"{f.format(100 * self.value)} [{f.format(100 * self.lo)}, "
                    f"{f.format(100 * self.hi)}] (n = {self.n:,})")
        f = f"{{:.{digits + 1}f}}"
        if self.status == CONSTANT_ROWS:
            return f"{f.format(self.value)} (every row equal, n = {self.n:,})"
        return f"{f.format(self.value)} [{f.format(self.lo)}, {f.format(self.hi)}] (n = {self.n:,})"


# A mean (or ratio, deviation) over fewer qualifying rows than ``MIN_MEAN_N`` is not
# shown as a number: its t interval's coverage is not trusted there, and a handful of
# equal rows would print [x, x].
TOO_FEW_ROWS = "too few"
CONSTANT_ROWS = "constant"


def _z(conf: float) -> float:
    if not 0 < conf < 1:
        raise ValueError(f"confidence level must be in (0, 1), got {conf}")
    return norm_ppf(0.5 + conf / 2)


z_value = _z  # the normal quantile of a two-sided ``conf`` interval


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
        lo = 0.0 if k == 0 else beta_ppf(a, k + 0.5, n - k + 0.5)
        hi = 1.0 if k == n else beta_ppf(1 - a, k + 0.5, n - k + 0.5)
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
    t = t_ppf(0.5 + conf / 2, n - 1)
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
    n: int  # deals in both variants' base (the paired deals)
    conf: float = DEFAULT_CONF
    n_a: int = -1  # deals in A's base (-1: same as n)
    n_b: int = -1
    status: str = ""  # why there is no interval, or "identical" (A and B equal on every deal)

    def significant(self, alpha: float | None = None) -> bool:
        return self.p_value < (1 - self.conf if alpha is None else alpha)

    @property
    def estimable(self) -> bool:
        """An interval and a p-value exist."""
        return not (math.isnan(self.lo) or math.isnan(self.p_value))


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
        t = t_ppf(0.5 + conf / 2, n - 1)
        lo, hi = md - t * se, md + t * se
        p = 2 * t_sf(abs(md / se), n - 1)
    return Comparison(float(fa.mean()), float(fb.mean()), md, lo, hi, p, n, conf)


# Below these sizes a side's interval is not trusted: "too few deals" instead of a number.
MIN_RATE_N = 10
MIN_MEAN_N = 20
TOO_FEW = "too few deals"
IDENTICAL = "identical"
CONSTANT = "constant difference"


def _floats(x: np.ndarray | pl.Series) -> np.ndarray:
    """Per-row values as float64, nulls as NaN, booleans as 0/1."""
    if isinstance(x, np.ndarray) and x.dtype == np.float64:
        return x
    return np.asarray(pl.Series(x).cast(pl.Float64).fill_null(math.nan).to_numpy(), dtype=np.float64)


def _wilson_bounds(p: float, n: int, z: float) -> tuple[float, float]:
    if z == 0:
        return p, p
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _square_and_add(pa: float, na: int, pb: float, nb: int, phi: float, z: float) -> tuple[float, float]:
    """Newcombe's square-and-add interval of pb - pa from the two Wilson intervals and the
    correlation ``phi`` of the two estimates (Newcombe 1998, method 10, for paired data)."""
    la, ua = _wilson_bounds(pa, na, z)
    lb, ub = _wilson_bounds(pb, nb, z)
    d = pb - pa
    lo = d - math.sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2))
    hi = d + math.sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2))
    return max(-1.0, lo), min(1.0, hi)


def _square_and_add_p(pa: float, na: int, pb: float, nb: int, phi: float) -> float:
    """Two-sided p-value dual to the square-and-add interval: 1 - the largest level whose
    interval still excludes 0 (bisection on z), so "significant" and "interval excludes 0"
    always agree."""
    if pb == pa:
        return 1.0
    lo_z, hi_z = 0.0, 40.0

    def excludes(z: float) -> bool:
        lo, hi = _square_and_add(pa, na, pb, nb, phi, z)
        return lo > 0 or hi < 0

    if excludes(hi_z):
        return 0.0
    for _ in range(60):
        mid = (lo_z + hi_z) / 2
        if excludes(mid):
            lo_z = mid
        else:
            hi_z = mid
    return 2 * norm_sf((lo_z + hi_z) / 2)


@dataclass(frozen=True)
class PairedMoments:
    """What ``metric_difference`` needs of two per-deal value arrays (row *i* the same deal
    in both; a value outside a variant's base is missing): sums that one query computes
    for many metrics at once (``simlab.analysis.compare.paired_moments``)."""

    size: int  # deals (rows) in both frames
    n_a: int  # deals in A's base
    n_b: int
    shared: int  # deals in both bases
    mean_a: float  # A's metric: the mean over its base (NaN when n_a is 0)
    mean_b: float
    ssq_a: float  # sum over A's base of (y_a - mean_a)^2
    ssq_b: float
    cross: float  # sum over the shared deals of (y_a - mean_a)(y_b - mean_b)
    identical: bool  # A and B hold the same value (or both none) on every deal
    # a hash of both arrays row by row (0: not computed): with the sums above, what tells
    # two metrics with the same per-deal values apart from others (``simlab.analysis.compare``)
    row_hash: int = 0


def paired_moments(a: np.ndarray | pl.Series, b: np.ndarray | pl.Series) -> PairedMoments:
    """``PairedMoments`` of two per-deal value arrays (null or NaN: outside the base)."""
    ya, yb = _floats(a), _floats(b)
    if ya.shape != yb.shape:
        raise ValueError(f"paired samples differ in length: {ya.size} vs {yb.size}")
    in_a, in_b = ~np.isnan(ya), ~np.isnan(yb)
    na, nb = int(in_a.sum()), int(in_b.sum())
    ta = float(ya[in_a].mean()) if na else math.nan
    tb = float(yb[in_b].mean()) if nb else math.nan
    da = np.where(in_a, ya - ta, 0.0) if na else np.zeros_like(ya)
    db = np.where(in_b, yb - tb, 0.0) if nb else np.zeros_like(yb)
    return PairedMoments(ya.size, na, nb, int((in_a & in_b).sum()), ta, tb, float(da @ da),
                         float(db @ db), float(da @ db),
                         bool(np.array_equal(ya, yb, equal_nan=True)))


def metric_difference(a: np.ndarray | pl.Series, b: np.ndarray | pl.Series, kind: str = "mean",
                      conf: float = DEFAULT_CONF) -> Comparison:
    """B's metric minus A's on the same deals, each variant over its own base.

    ``a`` and ``b`` hold one value per deal (row *i* is the same deal in both), null or NaN
    where the deal is outside that variant's base (e.g. nobody took). Each side's value is
    the mean over its own base, so B - A is exactly the difference of the two figures a
    report shows. See ``difference_from`` for the interval."""
    return difference_from(paired_moments(a, b), kind, conf)


def difference_from(m: PairedMoments, kind: str = "mean", conf: float = DEFAULT_CONF) -> Comparison:
    """B - A from the two value arrays' ``PairedMoments``. The interval accounts for the
    pairing through each side's per-deal influence values ((y - mean) N / n on its base, 0
    elsewhere), whose covariance over the shared deals is the estimates' covariance (joint
    delta method):

    * means: Student t with the delta-method variance, df = min(n_a, n_b) - 1 (the paired t
      interval when both bases are the same deals);
    * rates: Newcombe's square-and-add of the two Wilson intervals with the estimates'
      correlation, shrunk by Newcombe's continuity term as in his paired method, so that a
      small sample with no discordant deal still gets an interval of honest width.

    Below ``MIN_RATE_N`` / ``MIN_MEAN_N`` deals on either side the status says "too few
    deals" and the interval and p-value are NaN; so they are when a mean's per-deal
    difference never varies (no spread to estimate)."""
    na, nb, shared, size = m.n_a, m.n_b, m.shared, m.size
    nan = math.nan
    if na == 0 or nb == 0:
        return Comparison(m.mean_a if na else nan, m.mean_b if nb else nan,
                          nan, nan, nan, nan, shared, conf, na, nb,
                          "no deal in A's base" if na == 0 else "no deal in B's base")
    ta, tb = m.mean_a, m.mean_b
    diff = tb - ta
    if min(na, nb) < (MIN_RATE_N if kind == "rate" else MIN_MEAN_N):
        return Comparison(ta, tb, diff, nan, nan, nan, shared, conf, na, nb, TOO_FEW)
    # sums of squares and products of the influence values (y - mean) size / n
    ss_a = m.ssq_a * (size / na) ** 2
    ss_b = m.ssq_b * (size / nb) ** 2
    ss_ab = m.cross * (size / na) * (size / nb)
    status = IDENTICAL if m.identical else ""
    if kind == "rate":
        # Newcombe's phi, (AD - BC - n/2) / sqrt(margins) on a paired 2x2 table, written with
        # influence values so that it also serves bases that differ; n = the shared deals.
        phi = 0.0
        if ss_a > 0 and ss_b > 0:
            shrink = size * size / (2 * shared * shared) if shared else 0.0
            if ss_ab > shrink:
                phi = (ss_ab - shrink) / math.sqrt(ss_a * ss_b)
            elif ss_ab < 0:
                phi = ss_ab / math.sqrt(ss_a * ss_b)
            phi = min(1.0, max(-1.0, phi))
        lo, hi = _square_and_add(ta, na, tb, nb, phi, _z(conf))
        p = _square_and_add_p(ta, na, tb, nb, phi)
        return Comparison(ta, tb, diff, lo, hi, p, shared, conf, na, nb, status)
    # ddof 1 on each side, so that equal bases give exactly the paired t interval
    ca, cb = na / (na - 1), nb / (nb - 1)
    var = (ss_a * ca + ss_b * cb - 2 * ss_ab * math.sqrt(ca * cb)) / (size * size)
    if var <= 1e-15 * max(ss_a * ca, ss_b * cb, 1e-300) / (size * size):
        return Comparison(ta, tb, diff, nan, nan, nan, shared, conf, na, nb, status or CONSTANT)
    se = math.sqrt(var)
    df = min(na, nb) - 1
    t = t_ppf(0.5 + conf / 2, df)
    p = 2 * t_sf(abs(diff / se), df)
    return Comparison(ta, tb, diff, diff - t * se, diff + t * se, p, shared, conf, na, nb, status)


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


def aggregates(kind: str, expr: pl.Expr, where: pl.Expr | None, name: str) -> list[pl.Expr]:
    """The aggregates an estimate of ``kind`` needs (a rate: rows true and rows with a
    value; a mean: mean, sd and count), named ``name`` + suffix, over the ``where`` rows;
    nulls are not counted. Many estimates' aggregates go into one query (``estimates``)."""
    e = expr.cast(pl.Boolean if kind == "rate" else pl.Float64)
    if where is not None:
        e = pl.when(where).then(e)
    if kind == "rate":
        return [e.sum().alias(f"{name}k"), e.count().alias(f"{name}n")]
    return [e.mean().alias(f"{name}m"), e.std().alias(f"{name}sd"), e.count().alias(f"{name}n")]


def estimate_from(kind: str, row: dict, name: str, conf: float = DEFAULT_CONF) -> Estimate:
    """The estimate from ``aggregates``' values (``row``: column name -> value)."""
    n = int(row[f"{name}n"] or 0)
    if kind == "rate":
        return proportion(int(row[f"{name}k"] or 0), n, conf)
    m, sd = row[f"{name}m"], row[f"{name}sd"]
    return mean(m=math.nan if m is None else m, sd=math.nan if sd is None else sd, n=n, conf=conf)


def collect(lf: pl.LazyFrame, frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    # A frame in memory: polars' in-memory engine (its default "auto" engine took 2.5 s
    # rather than 1.0 s for a report's metrics over 10^6 rows, same values); a query of
    # files keeps the default, which can stream.
    return lf.collect(engine="in-memory") if isinstance(frame, pl.DataFrame) else lf.collect()


def estimates(frame: pl.DataFrame | pl.LazyFrame,
              specs: Sequence[tuple[str, pl.Expr, pl.Expr | None]],
              conf: float = DEFAULT_CONF) -> list[Estimate]:
    """One estimate per (kind, expr, where) of ``specs``, all from a single query (polars
    computes the expressions in parallel and shares their common parts)."""
    if not specs:
        return []
    cols = [c for i, (kind, expr, where) in enumerate(specs)
            for c in aggregates(kind, expr, where, f"e{i}_")]
    row = collect(frame.lazy().select(cols), frame).row(0, named=True)
    return [estimate_from(kind, row, f"e{i}_", conf) for i, (kind, _, _) in enumerate(specs)]


def true_and_counted(frame: pl.DataFrame | pl.LazyFrame, expr: pl.Expr,
                     where: pl.Expr | None = None) -> tuple[int, int]:
    """(rows where boolean ``expr`` holds, rows with a value), among ``where`` rows: a
    rate's sufficient statistics, which add up exactly over chunks of rows."""
    row = collect(frame.lazy().select(aggregates("rate", expr, where, "")), frame).row(0, named=True)
    return int(row["k"] or 0), int(row["n"] or 0)


def rate(frame: pl.DataFrame | pl.LazyFrame, expr: pl.Expr, where: pl.Expr | None = None,
         conf: float = DEFAULT_CONF) -> Estimate:
    """Share of rows (optionally among ``where`` rows) for which boolean ``expr`` holds;
    null values are not counted in n."""
    return estimates(frame, [("rate", expr, where)], conf)[0]


def mean_of(frame: pl.DataFrame | pl.LazyFrame, expr: pl.Expr, where: pl.Expr | None = None,
            conf: float = DEFAULT_CONF) -> Estimate:
    """Mean of numeric ``expr`` (optionally among ``where`` rows) with its t interval."""
    return estimates(frame, [("mean", expr, where)], conf)[0]


# Means whose unit is a fraction are read as percentages, and differences of fractions
# as percentage points, like rates: "13.9%", not "0.139 share".
PERCENT_UNITS = frozenset({"share", "fraction", "win-rate fraction"})
POINTS_UNITS = frozenset({"win-rate points", "percentage points", "rate points"})


def is_percent(kind: str, unit: str = "") -> bool:
    """Whether values of this kind and unit are fractions shown in % (or in percentage
    points, for a difference of fractions)."""
    return kind == "rate" or unit in PERCENT_UNITS or unit in POINTS_UNITS
