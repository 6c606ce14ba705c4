"""Exact sums that merge: the sufficient statistics of every metric, computed on any
split of the rows and added up without a rounding that depends on the split.

A metric is a smooth function of the means of a few per-row *components* (a rate: one
0/1 value; a ratio of sums: numerator and denominator; a standard deviation: x and
x^2). Its value and delta-method interval need only, over its rows, the count ``n``,
the sums of the components and the sums of their pairwise products (``Moments``).
Those sums are kept exact (``fractions.Fraction``), so a run split into chunks in any
way, on any number of workers, adds up to the very same figures as the whole frame
measured at once. Integer values, the usual case (points, counts, 0/1), are summed as
int64; other values through their exact binary expansion, and their products exactly
too (Dekker's two-product), so that a constant column has a variance of exactly 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import polars as pl

# below this, n * max|x| fits int64 and an integer sum is exact
_INT_LIMIT = float(2 ** 62)


def exact_sum(x: np.ndarray) -> Fraction | float:
    """The exact sum of float64 values (NaN or an infinity: NaN)."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return Fraction(0)
    if not np.isfinite(x).all():
        return float("nan")
    top = float(np.abs(x).max())
    if top * x.size < _INT_LIMIT and np.array_equal(x, np.trunc(x)):
        return Fraction(int(x.astype(np.int64).sum()))
    # x = m * 2^e with |m| in [0.5, 1): m * 2^53 is an exact integer below 2^53
    m, e = np.frexp(x)
    mant = np.ldexp(m, 53).astype(np.int64)
    order = np.argsort(e, kind="stable")
    e, mant = e[order], mant[order]
    starts = np.flatnonzero(np.r_[True, e[1:] != e[:-1]])
    # split the mantissas into 27 high and 26 low bits, so that the sums cannot overflow
    hi = np.add.reduceat(mant >> 26, starts)
    lo = np.add.reduceat(mant & ((1 << 26) - 1), starts)
    total = Fraction(0)
    for exp, h, low in zip(e[starts].tolist(), hi.tolist(), lo.tolist(), strict=True):
        v = (h << 26) + low
        shift = exp - 53
        total += v << shift if shift >= 0 else Fraction(v, 1 << -shift)
    return total


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split: a = hi + lo exactly, each half with at most 26 significant bits."""
    c = 134217729.0 * a  # 2^27 + 1
    hi = c - (c - a)
    return hi, a - hi


def exact_dot(a: np.ndarray, b: np.ndarray) -> Fraction | float:
    """The exact sum of the products a_i * b_i: each product as the sum of its rounded
    value and its rounding error (Dekker's two-product), both summed exactly."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    p = a * b
    top = float(np.abs(p).max()) if p.size else 0.0
    if top * p.size < _INT_LIMIT and np.array_equal(a, np.trunc(a)) \
            and np.array_equal(b, np.trunc(b)) and top < 2.0 ** 53:
        return exact_sum(p)  # integer products below 2^53 are exact
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return float("nan")
    # Dekker's error term is exact unless a product or a half of it under- or overflows:
    # those few products are multiplied as fractions
    aa, ab = np.abs(a), np.abs(b)
    odd = ((aa > 1e150) | (ab > 1e150) | ((aa < 1e-140) & (aa > 0)) | ((ab < 1e-140) & (ab > 0)))
    rare = sum((Fraction(x) * Fraction(y) for x, y in
                zip(a[odd].tolist(), b[odd].tolist(), strict=True)), Fraction(0))
    a, b, p = a[~odd], b[~odd], p[~odd]
    ah, al = _split(a)
    bh, bl = _split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return exact_sum(p) + exact_sum(err) + rare


@dataclass(frozen=True)
class Moments:
    """Over a metric's rows: ``n``, the sums of its ``k`` components (``s1``) and of their
    pairwise products (``s2``, k x k, symmetric), all exact (or NaN). Moments of
    disjoint row sets add up."""

    n: int
    s1: tuple
    s2: tuple  # tuple of rows
    shown: int = 0  # rows where the metric's ``shown_if`` holds (metrics.MetricDef)

    def __add__(self, other: Moments) -> Moments:
        return Moments(self.n + other.n, add_tables(self.s1, other.s1),
                       add_tables(self.s2, other.s2), self.shown + other.shown)

    @staticmethod
    def zero(k: int) -> Moments:
        z = Fraction(0)
        return Moments(0, (z,) * k, ((z,) * k,) * k)

    def mean(self, j: int) -> Fraction | float:
        return self.s1[j] / self.n

    def centred(self, j: int, i: int) -> Fraction | float:
        """Sum over the rows of (u_j - mean_j)(u_i - mean_i)."""
        return self.s2[j][i] - self.s1[j] * self.s1[i] / self.n


def moments_of(u: np.ndarray) -> Moments:
    """``Moments`` of the rows of ``u`` (n x k float64, every value present)."""
    u = np.asarray(u, dtype=np.float64)
    n, k = u.shape
    s1 = tuple(exact_sum(u[:, j]) for j in range(k))
    rows = [[Fraction(0)] * k for _ in range(k)]
    for j in range(k):
        for i in range(j, k):
            rows[j][i] = rows[i][j] = exact_dot(u[:, j], u[:, i])
    return Moments(n, s1, tuple(tuple(r) for r in rows))


def cross_of(ua: np.ndarray, ub: np.ndarray) -> tuple:
    """Exact sums of the products u_a[:, j] * u_b[:, i] (a k_a x k_b tuple of rows)."""
    return tuple(tuple(exact_dot(ua[:, j], ub[:, i]) for i in range(ub.shape[1]))
                 for j in range(ua.shape[1]))


def add_tables(a: tuple, b: tuple) -> tuple:
    """Element-wise sum of two equal-shaped tuples of tuples (or flat tuples)."""
    return tuple(add_tables(x, y) if isinstance(x, tuple) else x + y
                 for x, y in zip(a, b, strict=True))


@dataclass(frozen=True)
class Counts:
    """A column's distribution: its distinct non-null values, sorted, and their counts."""

    values: np.ndarray  # float64
    counts: np.ndarray  # int64

    @staticmethod
    def of(series: pl.Series) -> Counts:
        vc = series.drop_nulls().cast(pl.Float64).value_counts(sort=False)
        v = vc[:, 0].to_numpy()
        order = np.argsort(v, kind="stable")
        return Counts(v[order].astype(np.float64), vc[:, 1].to_numpy()[order].astype(np.int64))

    def __add__(self, other: Counts) -> Counts:
        v = np.concatenate([self.values, other.values])
        c = np.concatenate([self.counts, other.counts])
        u, inv = np.unique(v, return_inverse=True)
        return Counts(u, np.bincount(inv, weights=c, minlength=u.size).astype(np.int64))

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    def mean(self) -> float:
        return float(self._sum(1) / self.n) if self.n else float("nan")

    def sd(self) -> float:
        n = self.n
        if n < 2:
            return float("nan")
        s1, s2 = self._sum(1), self._sum(2)
        return float(np.sqrt(float((s2 - s1 * s1 / n) / (n - 1))))

    def _sum(self, power: int) -> Fraction:
        return sum((Fraction(float(v)) ** power * int(c)
                    for v, c in zip(self.values, self.counts, strict=True)), Fraction(0))

    def quantile(self, q: float) -> float:
        """As polars' ``quantile(q, "nearest")``: the value at rank q (n - 1), rounded
        half away from zero."""
        n = self.n
        if n == 0:
            return float("nan")
        rank = math.floor(q * (n - 1) + 0.5)
        return float(self.values[np.searchsorted(np.cumsum(self.counts), rank, side="right")])

    def median(self) -> float:
        """As polars' ``median``: the mean of the two middle values when n is even."""
        n = self.n
        if n == 0:
            return float("nan")
        cum = np.cumsum(self.counts)
        lo = self.values[np.searchsorted(cum, (n - 1) // 2, side="right")]
        hi = self.values[np.searchsorted(cum, n // 2, side="right")]
        return float((lo + hi) / 2)
