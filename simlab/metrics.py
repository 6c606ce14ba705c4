"""Balance metrics computed from any game's result frame.

A metric is defined once, as a per-row polars expression (``expr``) averaged over the rows
where ``where`` holds: a rate when ``expr`` is boolean, a mean otherwise. Defining metrics
as row expressions lets the same definition serve a single run (``evaluate``), a variant
comparison on the same deals (``simlab.compare`` pairs the rows) and precision-driven runs.

``standard_defs`` gives what every game gets from the common columns (seats, dealer
position, ties, contracts, match results); a game module adds its own questions (the
catalogue's "Balance questions") through ``Game.extra["metrics"]``, a function
``(frame, knobs, level) -> list[MetricDef]``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from simlab.stats import DEFAULT_CONF, Estimate, mean_of, rate


@dataclass(frozen=True)
class MetricDef:
    key: str  # stable id, e.g. "seat.win.s0", "dealer_pos.score.+1"
    title: str  # what a reader sees
    section: str  # report section
    expr: pl.Expr  # per-row value (boolean -> rate, numeric -> mean)
    where: pl.Expr | None = None  # rows the metric is about (None: all)
    kind: str = "rate"  # "rate" or "mean"
    headline: bool = False  # in the report's headline table; checked by --precision
    unit: str = ""  # for means, e.g. "points", "deals"
    note: str = ""


@dataclass(frozen=True)
class Metric:
    definition: MetricDef
    estimate: Estimate

    def __getattr__(self, name: str):  # key, title, section, ... from the definition
        return getattr(self.definition, name)


SECTIONS = ("Seats", "Dealer position", "Balance", "Contracts", "Match")


def _scores(n: int, prefix: str = "score_s") -> list[pl.Expr]:
    return [pl.col(f"{prefix}{i}").cast(pl.Float64) for i in range(n)]


def _won(i: int, teams: tuple[int, ...], prefix: str = "score_s", lower_wins: bool = False
         ) -> pl.Expr:
    """Seat ``i``'s side scored strictly better than every other side this deal (more
    points, or fewer when scores are penalties)."""
    others = [pl.col(f"{prefix}{j}") for j in range(len(teams)) if teams[j] != teams[i]]
    if not others:
        return pl.lit(False)
    if lower_wins:
        return pl.col(f"{prefix}{i}") < pl.min_horizontal(others)
    return pl.col(f"{prefix}{i}") > pl.max_horizontal(others)


def _by_position(values: list[pl.Expr], k: int, anchor: str, n: int) -> pl.Expr:
    """Value of the seat ``k`` places to the left of the seat in column ``anchor``."""
    expr = pl.lit(None, dtype=pl.Float64)
    for p in range(n):
        expr = pl.when((pl.col(anchor) + k) % n == p).then(values[p]).otherwise(expr)
    return expr


def position_name(k: int) -> str:
    return "dealer" if k == 0 else f"dealer+{k}"


def standard_defs(frame: pl.DataFrame | pl.LazyFrame, n_players: int, teams: tuple[int, ...],
                  level: str, lower_wins: bool = False) -> list[MetricDef]:
    """Metrics every game gets from its common columns."""
    cols = frame.lazy().collect_schema().names()
    defs: list[MetricDef] = []
    n = n_players
    if level == "deal":
        won = [_won(i, teams, lower_wins=lower_wins).cast(pl.Float64) for i in range(n)]
        for i in range(n):
            defs.append(MetricDef(f"seat.score.s{i}", f"mean score per deal, seat {i}", "Seats",
                                  pl.col(f"score_s{i}"), kind="mean", unit="points"))
            defs.append(MetricDef(f"seat.win.s{i}", f"deal win rate, seat {i}", "Seats",
                                  _won(i, teams, lower_wins=lower_wins)))
        if "dealer" in cols:
            for k in range(n):
                pos = position_name(k)
                defs.append(MetricDef(f"dealer_pos.score.{k}", f"mean score per deal, {pos}",
                                      "Dealer position",
                                      _by_position(_scores(n), k, "dealer", n),
                                      kind="mean", unit="points"))
                defs.append(MetricDef(f"dealer_pos.win.{k}", f"deal win rate, {pos}",
                                      "Dealer position",
                                      _by_position(won, k, "dealer", n).cast(pl.Boolean),
                                      headline=True))
            mean_win = sum(_by_position(won, k, "dealer", n) for k in range(n)) / n
            first = _by_position(won, 1 % n, "dealer", n)
            defs.append(MetricDef("balance.first_seat_advantage",
                                  "first-to-play advantage: win rate of dealer+1 minus the "
                                  "mean over positions", "Balance", first - mean_win,
                                  kind="mean", unit="win-rate points"))
        all_equal = pl.all_horizontal([pl.col(f"score_s{i}") == pl.col("score_s0")
                                       for i in range(n)])
        defs.append(MetricDef("balance.ties", "drawishness: deals where every seat marks the "
                              "same", "Balance", all_equal, headline=True))
        if "taker" in cols:
            taken = pl.col("taker") >= 0
            defs.append(MetricDef("contract.nobody_takes", "nobody takes (deal thrown in)",
                                  "Contracts", ~taken, headline=True))
            if "made" in cols:
                defs.append(MetricDef("contract.success", "taker success rate", "Contracts",
                                      pl.col("made"), where=taken, headline=True))
            taker_score = pl.lit(None, dtype=pl.Float64)
            for p in range(n):
                taker_score = pl.when(pl.col("taker") == p).then(
                    pl.col(f"score_s{p}").cast(pl.Float64)).otherwise(taker_score)
            defs.append(MetricDef("contract.taker_score", "taker's mark per deal taken",
                                  "Contracts", taker_score, where=taken, kind="mean",
                                  unit="points"))
            if "dealer" in cols:
                rel = (pl.col("taker") - pl.col("dealer")) % n
                for k in range(n):
                    pos = position_name(k)
                    defs.append(MetricDef(f"contract.taker_pos.{k}", f"taker is {pos}",
                                          "Contracts", rel == k, where=taken))
                    if "made" in cols:
                        defs.append(MetricDef(f"contract.success_pos.{k}",
                                              f"taker success when the taker is {pos}",
                                              "Contracts", pl.col("made"),
                                              where=taken & (rel == k)))
            if "contract" in cols and "made" in cols:
                values = (frame.lazy().select(pl.col("contract").cast(pl.String).unique())
                          .collect().to_series().drop_nulls().sort().to_list())
                for v in values:
                    sel = taken & (pl.col("contract").cast(pl.String) == v)
                    defs.append(MetricDef(f"contract.share.{v}", f"share of takes: {v}",
                                          "Contracts", pl.col("contract").cast(pl.String) == v,
                                          where=taken))
                    defs.append(MetricDef(f"contract.success.{v}", f"taker success, {v}",
                                          "Contracts", pl.col("made"), where=sel))
                    defs.append(MetricDef(f"contract.taker_score.{v}", f"taker's mark, {v}",
                                          "Contracts", taker_score, where=sel, kind="mean",
                                          unit="points"))
    else:
        if "winner" in cols:
            for i in range(n):
                defs.append(MetricDef(f"match.win.s{i}", f"match win rate, seat {i}", "Match",
                                      pl.col("winner") == teams[i], headline=True))
            if "first_dealer" in cols:
                for k in range(n):
                    side = pl.lit(0)
                    for p in range(n):
                        side = pl.when((pl.col("first_dealer") + k) % n == p).then(
                            pl.lit(teams[p])).otherwise(side)
                    defs.append(MetricDef(f"match.win_pos.{k}",
                                          f"match win rate, first {position_name(k)}", "Match",
                                          pl.col("winner") == side))
        if "n_deals" in cols:
            defs.append(MetricDef("match.length", "deals per match", "Match", pl.col("n_deals"),
                                  kind="mean", unit="deals"))
        if "capped" in cols:
            defs.append(MetricDef("match.capped", "matches stopped by the safety cap", "Match",
                                  pl.col("capped")))
    return defs


def evaluate(frame: pl.DataFrame | pl.LazyFrame, defs: list[MetricDef],
             conf: float = DEFAULT_CONF) -> list[Metric]:
    out = []
    for d in defs:
        est = (rate if d.kind == "rate" else mean_of)(frame, d.expr, d.where, conf)
        out.append(Metric(d, est))
    return out


def row_values(frame: pl.DataFrame | pl.LazyFrame, d: MetricDef) -> pl.Series:
    """Per-row value of a metric (null outside ``where``): what a paired comparison pairs."""
    e = d.expr.cast(pl.Float64)
    if d.where is not None:
        e = pl.when(d.where).then(e)
    return frame.lazy().select(e.alias(d.key)).collect().to_series()


def score_distribution(frame: pl.DataFrame | pl.LazyFrame, n_players: int,
                       prefix: str = "score_s") -> pl.DataFrame:
    """Per seat: n, mean, sd and quantiles of its score column."""
    lf = frame.lazy()
    rows = []
    for i in range(n_players):
        c = pl.col(f"{prefix}{i}").cast(pl.Float64)
        rows.append(lf.select(
            pl.lit(i).alias("seat"), c.count().alias("n"), c.mean().alias("mean"),
            c.std().alias("sd"), c.min().alias("min"),
            *[c.quantile(q, "nearest").alias(f"q{int(q * 100):02d}")
              for q in (0.05, 0.25, 0.5, 0.75, 0.95)],
            c.max().alias("max")).collect())
    return pl.concat(rows)


GameMetrics = Callable[[pl.DataFrame | pl.LazyFrame, object, str], list[MetricDef]]


@dataclass
class MetricSet:
    """Everything a report shows about one run."""

    metrics: list[Metric] = field(default_factory=list)

    def headline(self) -> list[Metric]:
        return [m for m in self.metrics if m.headline]

    def by_section(self) -> dict[str, list[Metric]]:
        out: dict[str, list[Metric]] = {}
        for m in self.metrics:
            out.setdefault(m.section, []).append(m)
        return out


def game_defs(game, frame: pl.DataFrame | pl.LazyFrame, knobs, level: str) -> list[MetricDef]:
    """Standard metrics plus the game's own balance questions."""
    n = game.players(knobs)
    teams = tuple(game.teams(knobs)) if game.teams is not None else tuple(range(n))
    defs = standard_defs(frame, n, teams, level, lower_wins=game.lower_score_wins)
    extra = game.extra.get("metrics")
    if extra is not None:
        defs += extra(frame, knobs, level)
    return defs


def balance_def(metrics: list[Metric], prefix: str, what: str) -> MetricDef | None:
    """Ludii-style balance, 1 - (largest gap between positions' win rates), as a mean of
    per-row values on the best and the worst position. Both are chosen after seeing the
    data, so the mean of these rows is biased low and its t interval too narrow:
    ``balance_metric`` gives the figure with a valid interval; this definition is kept for
    code that evaluates the per-row expression itself."""
    wins = [m for m in metrics if m.key.startswith(prefix) and m.estimate.n > 0]
    if len(wins) < 2:
        return None
    best = max(wins, key=lambda m: m.estimate.value)
    worst = min(wins, key=lambda m: m.estimate.value)
    gap = best.definition.expr.cast(pl.Float64) - worst.definition.expr.cast(pl.Float64)
    return MetricDef("balance." + re.sub(r"[^a-z0-9]+", "_", what), f"balance between {what}: 1 - (win rate of "
                     f"{best.title.split(', ')[-1]} - win rate of {worst.title.split(', ')[-1]})",
                     "Balance", 1 - gap, where=best.definition.where, kind="mean",
                     unit="win-rate fraction")


@dataclass(frozen=True)
class BalanceTest:
    """Spread between positions' win rates (same rows for every position)."""

    gap: float  # largest win rate minus smallest, as estimated
    gap_lo: float  # simultaneous bounds on the true largest gap
    gap_hi: float
    p_equal: float  # Wald test of "all positions have the same win rate"
    df: int
    n: int


def position_balance(wins: np.ndarray, conf: float = DEFAULT_CONF) -> BalanceTest:
    """``wins``: one row per deal (or match), one 0/1 column per position, no NaN.

    The largest gap is max over pairs (j, k) of p_j - p_k. Student t intervals for every
    pairwise difference, paired by row and Bonferroni-adjusted over the K(K-1)/2 pairs, hold all at
    once with probability >= ``conf``; when they do, the true largest gap lies between
    max(0, the largest lower bound) and the largest upper bound, whichever positions turn
    out best and worst. So the interval stays valid after choosing them from the data,
    where a plain interval on the chosen pair does not. The test of equality is a Wald
    chi-square on the K - 1 contrasts with the first position (rank-reduced when positions
    always win together, as partners do)."""
    from scipy import stats as sp

    x = np.asarray(wins, dtype=np.float64)
    n, k = x.shape
    p = x.mean(axis=0)
    gap = float(p.max() - p.min())
    pairs = [(j, i) for j in range(k) for i in range(k) if j != i]
    # Student t rather than normal: at match level a replicate may hold a few dozen rows
    crit = float(sp.t.ppf(1 - (1 - conf) / (2 * (k * (k - 1) // 2)), max(n - 1, 1)))
    lows, highs = [], []
    for j, i in pairs:
        d = x[:, j] - x[:, i]
        m = float(d.mean())
        # Wilson-like floor on the spread: a pair never seen to differ still gets the width
        # of one discordant row in n, so a small sample cannot give [x, x].
        var = max(float(d.var(ddof=1)) if n > 1 else 0.0, 1.0 / n)
        half = crit * math.sqrt(var / n)
        lows.append(m - half)
        highs.append(m + half)
    contrasts = x[:, 1:] - x[:, :1]
    cov = np.atleast_2d(np.cov(contrasts, rowvar=False)) / n
    mean_c = contrasts.mean(axis=0)
    rank = int(np.linalg.matrix_rank(cov, tol=1e-12 * max(float(np.abs(cov).max()), 1e-300)))
    if rank == 0:
        stat, p_equal = 0.0, 1.0
    else:
        stat = float(mean_c @ np.linalg.pinv(cov, rcond=1e-10, hermitian=True) @ mean_c)
        p_equal = float(sp.chi2.sf(stat, rank))
    return BalanceTest(gap, max(0.0, max(lows)), min(1.0, max(highs)), p_equal, rank, n)


def balance_metric(frame: pl.DataFrame | pl.LazyFrame, metrics: list[Metric], prefix: str, what: str,
                   conf: float = DEFAULT_CONF) -> Metric | None:
    """Balance between positions, 1 - (largest gap between their win rates), with an
    interval valid after picking the best and the worst (``position_balance``) and the
    p-value of "all positions equal" in the note."""
    wins = [m for m in metrics if m.key.startswith(prefix) and m.estimate.n > 0]
    if len(wins) < 2:
        return None
    cols = frame.lazy().select([m.definition.expr.cast(pl.Float64).alias(f"w{i}")
                                for i, m in enumerate(wins)]).collect()
    x = cols.drop_nulls().to_numpy()
    if x.shape[0] < 2:
        return None
    t = position_balance(x, conf)
    best = max(wins, key=lambda m: m.estimate.value)
    worst = min(wins, key=lambda m: m.estimate.value)
    key = "balance." + re.sub(r"[^a-z0-9]+", "_", what)
    d = MetricDef(key, f"balance between {what}: 1 - (largest gap between their win rates; here "
                  f"{best.title.split(', ')[-1]} - {worst.title.split(', ')[-1]})", "Balance",
                  pl.lit(None, dtype=pl.Float64), kind="mean", unit="win-rate fraction",
                  note=f"interval from simultaneous intervals of every pairwise gap, valid whichever "
                       f"positions are best and worst; all {len(wins)} positions equal: p = {t.p_equal:.3g} "
                       f"(Wald chi-square, {t.df} df)")
    return Metric(d, Estimate(1 - t.gap, 1 - t.gap_hi, 1 - t.gap_lo, t.n, "mean", conf))


def compute(game, frame: pl.DataFrame | pl.LazyFrame, knobs, level: str,
            conf: float = DEFAULT_CONF) -> MetricSet:
    metrics = evaluate(frame, game_defs(game, frame, knobs, level), conf)
    extra = [m for m in (balance_metric(frame, metrics, "dealer_pos.win.", "dealer positions", conf),
                         balance_metric(frame, metrics, "match.win_pos.", "first-dealer positions", conf))
             if m is not None]
    return MetricSet(metrics + extra)


# --- per-row helpers for derived statistics ------------------------------------------------
# A metric is the mean of per-row values; these build per-row values whose mean is a ratio,
# a standard deviation or a root mean square, with delta-method intervals.
def ratio_of_sums(num: pl.Expr, den: pl.Expr, where: pl.Expr) -> pl.Expr:
    """Per-row values whose mean over the ``where`` rows is sum(num) / sum(den) over them,
    and whose spread gives the delta-method interval of that ratio (its linearisation
    R + (num - R den) / mean(den)). The aggregates are computed on whichever frame the
    expression runs on, so a paired comparison gets each variant's own ratio."""
    r = num.filter(where).sum() / den.filter(where).sum()
    m = den.filter(where).mean()
    return pl.when(m != 0).then(r + (num - r * den) / m)


def std_dev(x: pl.Expr, where: pl.Expr) -> pl.Expr:
    """Per-row values whose mean over the ``where`` rows is the sample standard deviation
    of ``x`` there (ddof 1), with the delta-method interval (linearisation
    s + ((x - mean)^2 n / (n - 1) - s^2) / (2 s)); computed per frame like the ratio."""
    x = x.cast(pl.Float64)
    n = x.filter(where).count()
    m = x.filter(where).mean()
    dev2 = (x - m) ** 2 * n / (n - 1)
    var = dev2.filter(where).mean()
    sd = var.sqrt()
    return pl.when(sd > 0).then(sd + (dev2 - var) / (2 * sd)).otherwise(sd)


def root_mean(q: pl.Expr, where: pl.Expr) -> pl.Expr:
    """Per-row values whose mean over the ``where`` rows is sqrt(mean(q)), with the
    delta-method interval (linearisation r + (q - r^2) / (2 r))."""
    q = q.cast(pl.Float64)
    r = q.filter(where).mean().sqrt()
    return pl.when(r > 0).then(r + (q - r * r) / (2 * r)).otherwise(r)


def team_value(team: pl.Expr, t0: str, t1: str) -> pl.Expr:
    """Column ``t0`` when ``team`` is 0, ``t1`` when it is 1."""
    return pl.when(team == 0).then(pl.col(t0)).otherwise(pl.col(t1)).cast(pl.Float64)
