"""How a game states its balance questions: each a ``MetricDef``, a per-row polars
expression averaged over the rows where ``where`` holds (a rate when boolean, a mean
otherwise), or a ratio of sums, a standard deviation or a root mean square of per-row
parts (``Derived``). A game's ``questions.py`` builds them; ``simlab.analysis.metrics``
evaluates them from exact sums, with their intervals."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class MetricDef:
    key: str  # stable id, e.g. "seat.win.s0", "dealer_pos.score.+1"
    title: str  # what a reader sees
    section: str  # report section
    expr: pl.Expr | Derived  # per-row value (boolean -> rate, numeric -> mean), or a Derived
    where: pl.Expr | None = None  # rows the metric is about (None: all)
    kind: str = "rate"  # "rate" or "mean"
    headline: bool = False  # in the report's headline table; checked by --precision
    unit: str = ""  # for means, e.g. "points", "deals"
    note: str = ""
    # the metric records a player's choice (a bid, a call) rather than the game: its value
    # is the players' habit, and a report says so
    choice: bool = False
    # shown only with at least ``min_n`` rows in its base (1: "when it happens") and when
    # ``shown_if`` holds on some row: conditions on counts, which add up over chunks, so
    # that the metrics a run shows never depend on how its rows were split
    min_n: int = 0
    shown_if: pl.Expr | None = None


@dataclass(frozen=True)
class Derived:
    """A metric's value as a function of the means of per-row ``parts`` over the
    ``where`` rows: ``form`` "ratio" (sum(num) / sum(den); parts num, den), "sd" (sample
    standard deviation, ddof 1; parts x, x^2) or "root" (sqrt(mean(q)); part q)."""

    form: str
    parts: tuple[pl.Expr, ...]
    where: pl.Expr | None = None

    def linearised(self) -> pl.Expr:
        """Per-row values whose mean over the rows is the metric and whose spread gives
        its delta-method interval, using aggregates of the whole frame the expression runs
        on: a reference for tests and for per-row pairing, not for merging chunks."""
        w = pl.lit(True) if self.where is None else self.where
        if self.form == "ratio":
            num, den = self.parts
            r = num.filter(w).sum() / den.filter(w).sum()
            m = den.filter(w).mean()
            return pl.when(m != 0).then(r + (num - r * den) / m)
        x = self.parts[0].cast(pl.Float64)
        if self.form == "sd":
            n = x.filter(w).count()
            dev2 = (x - x.filter(w).mean()) ** 2 * n / (n - 1)
            var = dev2.filter(w).mean()
            sd = var.sqrt()
            return pl.when(sd > 0).then(sd + (dev2 - var) / (2 * sd)).otherwise(sd)
        r = x.filter(w).mean().sqrt()
        return pl.when(r > 0).then(r + (x - r * r) / (2 * r)).otherwise(r)



def ratio_of_sums(num: pl.Expr, den: pl.Expr, where: pl.Expr) -> Derived:
    """sum(num) / sum(den) over the ``where`` rows, with the delta-method interval of
    that ratio (its linearisation R + (num - R den) / mean(den))."""
    return Derived("ratio", (num, den), where)



def std_dev(x: pl.Expr, where: pl.Expr) -> Derived:
    """Sample standard deviation (ddof 1) of ``x`` over the ``where`` rows, with the
    delta-method interval (linearisation s + ((x - mean)^2 n / (n - 1) - s^2) / (2 s))."""
    x = x.cast(pl.Float64)
    return Derived("sd", (x, x * x), where)



def root_mean(q: pl.Expr, where: pl.Expr) -> Derived:
    """sqrt(mean(q)) over the ``where`` rows, with the delta-method interval
    (linearisation r + (q - r^2) / (2 r))."""
    return Derived("root", (q,), where)



def team_value(team: pl.Expr, t0: str, t1: str) -> pl.Expr:
    """Column ``t0`` when ``team`` is 0, ``t1`` when it is 1."""
    return pl.when(team == 0).then(pl.col(t0)).otherwise(pl.col(t1)).cast(pl.Float64)
