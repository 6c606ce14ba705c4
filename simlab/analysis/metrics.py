"""Balance metrics computed from any game's result frame.

A metric is defined once, as a per-row polars expression (``expr``) averaged over the rows
where ``where`` holds: a rate when ``expr`` is boolean, a mean otherwise; or as a ratio of
sums, a standard deviation or a root mean square of per-row parts (``Derived``). Every
metric is computed from exact sums over its rows (``metric_moments``, ``simlab.analysis.sums``),
which add up over any split of the rows: the same definition serves a single run
(``evaluate``), chunks measured where they were played (``simlab.analysis.compare``), a variant
comparison on the same deals and precision-driven runs, with the same figures to the last
bit. Which metrics exist depends only on the frame's columns; what the data decide is
whether one is shown (``MetricDef.min_n``, ``shown_if``: counts, which add up too).

``standard_defs`` gives what every game gets from the common columns (seats, dealer
position, ties, contracts, match results); a game module adds its own questions (the
catalogue's "Balance questions") through ``Game.extra["metrics"]``, a function
``(frame, knobs, level) -> list[MetricDef]``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import polars as pl

from simlab.analysis.sums import Moments, moments_of
from simlab.engine import stats
from simlab.engine.game import Sides, as_game, fixed_sides
from simlab.engine.questions import (  # noqa: F401  (where games state their questions)
    Derived,
    MetricDef,
    ratio_of_sums,
    root_mean,
    std_dev,
    team_value,
)
from simlab.engine.stats import DEFAULT_CONF, Estimate


@dataclass(frozen=True)
class Metric:
    definition: MetricDef
    estimate: Estimate

    def __getattr__(self, name: str):  # key, title, section, ... from the definition
        if name.startswith("__") or name == "definition":  # unpickling: not set yet
            raise AttributeError(name)
        return getattr(self.definition, name)


SECTIONS = ("Seats", "Dealer position", "Balance", "Contracts", "Match")


def _scores(n: int, prefix: str = "score_s") -> list[pl.Expr]:
    return [pl.col(f"{prefix}{i}").cast(pl.Float64) for i in range(n)]


def default_sides(teams: tuple[int, ...], lower_wins: bool = False) -> Sides:
    """Sides of a game that declares none: its fixed ``teams`` compared on score_s{i},
    every deal played."""
    alone = len(set(teams)) == len(teams)
    return fixed_sides(teams, pl.lit(True), lower_wins=lower_wins,
                       text="every seat alone" if alone else "fixed teams")


def side_results(sides: Sides, n: int) -> tuple[list[pl.Expr], pl.Expr]:
    """(per seat: its side won the deal; the deal is a tie), both null outside played deals.

    A side's value is the mean of its seats' values (partners who each mark the team's
    points count once; a taker's side is not favoured by its size); a side wins when its
    value is strictly better than every other side's; a played deal that no side wins is
    a tie."""
    values = list(sides.value) if sides.value is not None else _scores(n)
    values = [v.cast(pl.Float64) for v in values]

    def better(a: pl.Expr, b: pl.Expr) -> pl.Expr:
        return a < b if sides.lower_wins else a > b

    won: list[pl.Expr] = []
    if sides.fixed:  # known groups: plain column arithmetic
        groups: dict[int, list[int]] = {}
        for i, t in enumerate(sides.side):
            groups.setdefault(int(t), []).append(i)
        side_value = {t: sum(values[j] for j in seats) / len(seats)
                      for t, seats in groups.items()}
        for t in sides.side:
            others = [v for u, v in side_value.items() if u != t]
            won.append(pl.all_horizontal([better(side_value[t], v) for v in others])
                       if others else pl.lit(False))
    else:  # per-row sides: each possible side's value, then which one beats the others
        ids = sides.ids or tuple(range(n))
        side = [s if isinstance(s, pl.Expr) else pl.lit(s) for s in sides.side]
        member = {t: [side[j] == t for j in range(n)] for t in ids}
        count = {t: sum(m.cast(pl.Float64) for m in member[t]) for t in ids}
        present = {t: count[t] > 0 for t in ids}
        value = {t: sum(pl.when(member[t][j]).then(values[j]).otherwise(0.0) for j in range(n))
                 / count[t] for t in ids}  # NaN for an absent side, never compared
        side_wins = {t: present[t]
                     & pl.any_horizontal([present[u] for u in ids if u != t])
                     & pl.all_horizontal([~present[u] | better(value[t], value[u])
                                          for u in ids if u != t]) for t in ids}
        for i in range(n):
            won.append(pl.any_horizontal([member[t][i] & side_wins[t] for t in ids]))
    tie = pl.when(sides.played).then(~pl.any_horizontal(won))
    return [pl.when(sides.played).then(w) for w in won], tie


def _by_position(values: list[pl.Expr], k: int, anchor: str, n: int) -> pl.Expr:
    """Value of the seat ``k`` places to the left of the seat in column ``anchor``."""
    expr = pl.lit(None, dtype=pl.Float64)
    for p in range(n):
        expr = pl.when((pl.col(anchor) + k) % n == p).then(values[p]).otherwise(expr)
    return expr


def position_name(k: int) -> str:
    return "dealer" if k == 0 else f"dealer+{k}"


# Base of the standard win metrics, in their titles: a seat wins a deal when its side does
WIN_BASE = "its side wins; played deals"
# Why positions are compared in points in a game whose sides change from deal to deal
POSITION_POINTS_NOTE = ("sides change from deal to deal, so a position's side win rate would "
                        "mostly count how often it takes: positions are compared by what the "
                        "seat earns, its mean score per deal (all deals)")


def standard_defs(frame: pl.DataFrame | pl.LazyFrame, n_players: int, teams: tuple[int, ...],
                  level: str, lower_wins: bool = False, sides: Sides | None = None
                  ) -> list[MetricDef]:
    """Metrics every game gets from its common columns. At deal level the win metrics
    count the winning side (``sides``; default: ``teams`` on score_s{i}, every deal
    played) over played deals; thrown-in / void deals are a rate of their own."""
    cols = frame.lazy().collect_schema().names()
    defs: list[MetricDef] = []
    n = n_players
    if level == "deal":
        if sides is None:
            sides = default_sides(teams, lower_wins)
        played = sides.played
        won, tie = side_results(sides, n)
        parts = [f"sides: {sides.text}" if sides.text else "",
                 f"not played (left out): {sides.unplayed}" if sides.unplayed else ""]
        note = "; ".join(p for p in parts if p)
        win_note = note
        if not (sides.fixed and len(set(sides.side)) == n):  # partners win together
            win_note += ("; " if note else "") + ("a seat wins with its side, so the seats' "
                                                  "rates add up to the mean size of the "
                                                  "winning side, not to 100%")
        won_f = [w.cast(pl.Float64) for w in won]
        for i in range(n):
            defs.append(MetricDef(f"seat.score.s{i}", f"mean score per deal, seat {i}", "Seats",
                                  pl.col(f"score_s{i}"), kind="mean", unit="points"))
            defs.append(MetricDef(f"seat.win.s{i}", f"deal win rate ({WIN_BASE}), seat {i}",
                                  "Seats", won[i], where=played, note=win_note))
        if not sides.fixed:
            # Sides change from deal to deal (a taker against the rest): the seats' win
            # rates add up to more than 100 %. Each win split among the winning side's
            # seats gives shares that add up to 100 % of played deals, less the ties.
            winners = sum(won_f)
            for i in range(n):
                defs.append(MetricDef(
                    f"seat.win_share.s{i}", f"share of the played deals' wins, seat {i}",
                    "Seats", pl.when(winners > 0).then(won_f[i] / winners).otherwise(0.0),
                    where=played, kind="mean", unit="share",
                    note="each played deal's win split equally among the winning side's "
                         "seats: the seats' shares add up to 100% less the ties"))
        if "dealer" in cols:
            # Sides that change from deal to deal (a taker against the rest): a position's
            # side win rate mostly counts how often that position takes, so positions are
            # compared by what the seat earns, its mean score; side win rates only where
            # the sides are fixed teams (or every seat alone)
            moving = not sides.fixed
            pos_note = (POSITION_POINTS_NOTE + (f"; {note}" if note else "")) if moving else ""
            lower = " (lower is better)" if sides.lower_wins else ""
            for k in range(n):
                pos = position_name(k)
                defs.append(MetricDef(f"dealer_pos.score.{k}",
                                      f"mean score per deal{lower}, {pos}", "Dealer position",
                                      _by_position(_scores(n), k, "dealer", n),
                                      kind="mean", unit="points", headline=moving,
                                      note=pos_note))
                if not moving:
                    defs.append(MetricDef(f"dealer_pos.win.{k}",
                                          f"deal win rate ({WIN_BASE}), {pos}",
                                          "Dealer position",
                                          _by_position(won_f, k, "dealer", n).cast(pl.Boolean),
                                          where=played, headline=True, note=win_note))
            # positions are the seats in another order: their mean is the seats' mean
            mean_score = sum(_scores(n)) / n
            defs.append(MetricDef("balance.first_seat_points",
                                  f"first-to-play advantage in points{lower}: mean score per "
                                  "deal of dealer+1 minus the mean over positions (all deals)",
                                  "Balance", _by_position(_scores(n), 1 % n, "dealer", n)
                                  - mean_score, kind="mean", unit="points", note=pos_note))
            if not moving:
                mean_win = sum(won_f) / n
                first = _by_position(won_f, 1 % n, "dealer", n)
                defs.append(MetricDef("balance.first_seat_advantage",
                                      "first-to-play advantage (side wins; played deals): win "
                                      "rate of dealer+1 minus the mean over positions",
                                      "Balance", first - mean_win, where=played, kind="mean",
                                      unit="win-rate points", note=note))
        defs.append(MetricDef("balance.ties", "ties (drawishness): played deals whose sides "
                              "tie", "Balance", tie, where=played, headline=True, note=note))
        if sides.unplayed:
            # not "thrown in": some games leave played deals out of the side counts
            # (Caisse's Misère Générale has no taker but is played)
            defs.append(MetricDef("balance.thrown_in", f"deals left out of the side win rates "
                                  f"(all deals): {sides.unplayed}", "Balance", ~played))
        if "taker" in cols:
            taken = pl.col("taker") >= 0
            defs.append(MetricDef("contract.nobody_takes", "no taker (all deals)",
                                  "Contracts", ~taken, headline=True, choice=True,
                                  note=f"deals left out of the side win rates: {sides.unplayed}"
                                  if sides.unplayed else ""))
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
                                          "Contracts", rel == k, where=taken, choice=True))
                    if "made" in cols:
                        defs.append(MetricDef(f"contract.success_pos.{k}",
                                              f"taker success when the taker is {pos}",
                                              "Contracts", pl.col("made"),
                                              where=taken & (rel == k)))
            labels = frame.lazy().collect_schema().get("contract")
            if isinstance(labels, pl.Enum) and "made" in cols:
                # one family per labelled contract, shown when some deal with a taker
                # holds it (a game played without a taker, Caisse's Misère Générale, is
                # no take; a numeric contract, a bid value, has its levels in the game's
                # questions)
                for v in sorted(labels.categories):
                    held = pl.col("contract").cast(pl.String) == v
                    sel = taken & held
                    defs.append(MetricDef(f"contract.share.{v}", f"share of takes: {v}",
                                          "Contracts", held, where=taken, choice=True,
                                          shown_if=sel))
                    defs.append(MetricDef(f"contract.success.{v}", f"taker success, {v}",
                                          "Contracts", pl.col("made"), where=sel, shown_if=sel))
                    defs.append(MetricDef(f"contract.taker_score.{v}", f"taker's mark, {v}",
                                          "Contracts", taker_score, where=sel, kind="mean",
                                          unit="points", shown_if=sel))
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
    """Every metric's estimate on ``frame``, from exact sums (``metric_moments``): the
    same figures as adding up the moments of any split of its rows."""
    found = metric_moments(frame, defs)
    return [Metric(d, estimate_of(d, m, conf)) for d, m in zip(defs, found, strict=True)
            if shown(d, m)]


def shown(d: MetricDef, m: Moments) -> bool:
    """Whether the data let the metric be shown (its ``min_n`` and ``shown_if``)."""
    return m.n >= d.min_n and (d.shown_if is None or m.shown > 0)


def row_values(frame: pl.DataFrame | pl.LazyFrame, d: MetricDef) -> pl.Series:
    """Per-row value of a metric (null outside its rows): a ``Derived`` metric's
    linearisation with the frame's own aggregates. A reference for tests: the metrics
    themselves come from ``metric_moments``."""
    return frame.lazy().select(on_rows(d).alias(d.key)).collect().to_series()


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


def sides_of(game, knobs) -> Sides:
    """The game's sides for these rules (``Game.sides``), or its fixed teams by default."""
    if getattr(game, "sides", None) is not None:
        return game.sides(knobs)
    n = game.players(knobs)
    teams = tuple(game.teams(knobs)) if game.teams is not None else tuple(range(n))
    return default_sides(teams, game.lower_score_wins)


def sides_method(sides: Sides) -> str:
    """One sentence for a report's method section: what the deal win metrics count."""
    out = ("Deal win rates count the side that wins each played deal"
           + (f" ({sides.text})" if sides.text else "") + "; a seat wins when its side does, "
           "and a played deal no side wins is a tie")
    if sides.unplayed:
        out += (f". Deals without sides ({sides.unplayed}) are left out of these rates and "
                "counted in \"deals left out of the side win rates\", over all deals")
    if not sides.fixed:
        out += (". Sides change from deal to deal, so positions relative to the dealer are "
                "compared by the seat's mean score per deal (what it earns), not by its side's "
                "win rate (which mostly counts how often that position takes)")
    return out + "."


def game_defs(game, frame: pl.DataFrame | pl.LazyFrame, knobs, level: str) -> list[MetricDef]:
    """Standard metrics plus the game's own balance questions."""
    n = game.players(knobs)
    teams = tuple(game.teams(knobs)) if game.teams is not None else tuple(range(n))
    defs = standard_defs(frame, n, teams, level, lower_wins=game.lower_score_wins,
                         sides=sides_of(game, knobs))
    if game.extra.get("forced_taker"):
        # the rules always make somebody take (Mille's forced opening, Noisette's forced
        # taker): "no taker" is 0 by construction, not a player's choice nor a headline
        defs = [replace(d, choice=False, headline=False,
                        note="0 by construction: the rules always make somebody take")
                if d.key == "contract.nobody_takes" else d for d in defs]
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
    # the gap less its estimated small-sample bias (``gap`` is the largest of K noisy
    # estimates minus the smallest, so it overstates the true gap, most when positions
    # are close and n small), kept within [gap_lo, gap_hi]
    gap_corrected: float = math.nan


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
    x = np.asarray(wins, dtype=np.float64)
    return position_balance_from(moments_of(x), conf)


# draws of the positions' estimates that measure the largest gap's bias: a fixed seed, so
# the same sums always give the same figure
BIAS_DRAWS = 4000
BIAS_SEED = 20240917


def gap_bias(p: np.ndarray, cov: np.ndarray) -> float:
    """Expected (max - min) of estimates drawn around ``p`` with covariance ``cov`` (of
    the means), minus max(p) - min(p): the bias of the observed largest gap, by a
    parametric bootstrap from the same sums."""
    rng = np.random.default_rng(BIAS_SEED)
    draws = rng.multivariate_normal(p, cov, size=BIAS_DRAWS, method="eigh")
    return float((draws.max(axis=1) - draws.min(axis=1)).mean() - (p.max() - p.min()))


def position_balance_from(m: Moments, conf: float = DEFAULT_CONF, bounded: bool = True
                          ) -> BalanceTest:
    """``position_balance`` from the ``Moments`` of the positions' 0/1 wins over the rows
    where every position has one (exact sums: the same test whatever split of the rows
    they were added from). ``bounded``: the values are rates (a gap is at most 1); False
    for mean scores."""
    n, k = m.n, len(m.s1)
    p = np.array([float(v / n) for v in m.s1])
    c = centred_matrix(m)  # sums of products of deviations from the means
    gap = float(p.max() - p.min())
    pairs = [(j, i) for j in range(k) for i in range(k) if j != i]
    # Student t rather than normal: at match level a replicate may hold a few dozen rows
    crit = stats.t_ppf(1 - (1 - conf) / (2 * (k * (k - 1) // 2)), max(n - 1, 1))
    lows, highs = [], []
    for j, i in pairs:
        mean_d = float((m.s1[j] - m.s1[i]) / n)
        # Wilson-like floor on the spread: a pair never seen to differ still gets the width
        # of one discordant row in n, so a small sample cannot give [x, x].
        ss = float(m.centred(j, j) + m.centred(i, i) - 2 * m.centred(j, i))
        var = max(ss / (n - 1) if n > 1 else 0.0, 1.0 / n)
        half = crit * math.sqrt(var / n)
        lows.append(mean_d - half)
        highs.append(mean_d + half)
    # contrasts with the first position: their covariance from the same sums
    cov = np.atleast_2d(np.array([[c[j, i] - c[j, 0] - c[0, i] + c[0, 0]
                                   for i in range(1, k)] for j in range(1, k)])) / max(n - 1, 1) / n
    mean_c = p[1:] - p[0]
    rank = int(np.linalg.matrix_rank(cov, tol=1e-12 * max(float(np.abs(cov).max()), 1e-300)))
    if rank == 0:
        stat, p_equal = 0.0, 1.0
    else:
        stat = float(mean_c @ np.linalg.pinv(cov, rcond=1e-10, hermitian=True) @ mean_c)
        p_equal = stats.chi2_sf(stat, rank)
    gap_lo = max(0.0, max(lows))
    gap_hi = min(1.0, max(highs)) if bounded else max(highs)
    cov_means = c / max(n - 1, 1) / n
    # max - min is convex, so its bias is never negative (Jensen): draws' noise is not
    corrected = min(max(gap - max(gap_bias(p, cov_means), 0.0), gap_lo), gap_hi)
    return BalanceTest(gap, gap_lo, gap_hi, p_equal, rank, n, corrected)


def on_rows(d: MetricDef) -> pl.Expr:
    """A metric's per-row value as Float64, null outside its rows (a ``Derived``
    metric: its linearisation, see ``Derived.linearised``)."""
    if isinstance(d.expr, Derived):
        rows, _ = components(d)  # a ratio's rows: those its denominator counts
        e = replace(d.expr, where=rows).linearised().cast(pl.Float64)
        return pl.when(rows).then(e)
    e = d.expr.cast(pl.Float64)
    return e if d.where is None else pl.when(d.where).then(e)


# (prefix of the positions' metrics, what they are, their base); mean scores only where
# a game has no position win rates (sides that change from deal to deal)
SCORE_POSITIONS = "dealer_pos.score."
BALANCES = (("dealer_pos.win.", "dealer positions", "side wins; played deals"),
            ("match.win_pos.", "first-dealer positions", ""),
            (SCORE_POSITIONS, "dealer positions", "mean score per deal, all deals"))


def balanced_positions(prefix: str, keys: list[str]) -> bool:
    """Whether the balance over ``prefix`` positions is measured, given the metric keys:
    by mean scores only when there are no position win rates."""
    return prefix != SCORE_POSITIONS or not any(k.startswith("dealer_pos.win.") for k in keys)


def balance_metric(frame: pl.DataFrame | pl.LazyFrame, metrics: list[Metric], prefix: str, what: str,
                   conf: float = DEFAULT_CONF, base: str = "") -> Metric | None:
    """Balance between positions, 1 - (largest gap between their win rates), with an
    interval valid after picking the best and the worst (``position_balance``) and the
    p-value of "all positions equal" in the note. The rows are those every position's
    rate is about (its ``where``: played deals at deal level); ``base`` says so in the
    title."""
    wins = [m for m in metrics if m.key.startswith(prefix) and m.estimate.n > 0]
    return balance_from(wins, joint_moments(frame, [m.definition for m in wins]), what, conf, base)


def joint_moments(frame: pl.DataFrame | pl.LazyFrame, defs: list[MetricDef]) -> Moments:
    """``Moments`` of the per-row values of ``defs`` together, over the rows where every
    one has a value (what ``position_balance_from`` reads)."""
    cols = [on_rows(d).alias(f"u0_{j}") for j, d in enumerate(defs)]
    if not cols:
        return Moments.zero(0)
    values = stats.collect(frame.lazy().select(cols), frame)
    values = values.filter(pl.all_horizontal([pl.col(c).is_not_null() for c in values.columns]))
    return moments_of_values(values, [len(cols)])[0]


def balance_from(wins: list[Metric], joint: Moments, what: str, conf: float = DEFAULT_CONF,
                 base: str = "") -> Metric | None:
    """The balance metric of ``balance_metric`` from the positions' metrics and the
    ``Moments`` of their values together: over win rates, 1 - (largest gap), key
    ``balance.<what>``; over mean scores, the largest gap in points, key
    ``balance.<what>_points``. The figure is the gap less its small-sample bias
    (``BalanceTest.gap_corrected``); the gap as measured is in the note."""
    if len(wins) < 2 or joint.n < 2:
        return None
    points = wins[0].estimate.kind != "rate"
    t = position_balance_from(joint, conf, bounded=not points)
    best = max(wins, key=lambda m: m.estimate.value)
    worst = min(wins, key=lambda m: m.estimate.value)
    here = f"{best.title.split(', ')[-1]} - {worst.title.split(', ')[-1]}"
    key = "balance." + re.sub(r"[^a-z0-9]+", "_", what)
    based = f" ({base})" if base else ""
    note = (f"interval from simultaneous intervals of every pairwise gap, valid whichever "
            f"positions are best and worst; all {len(wins)} positions equal: p = {t.p_equal:.3g} "
            f"(Wald chi-square, {t.df} df); the estimate is bias-corrected (the largest of "
            f"{len(wins)} noisy figures minus the smallest overstates the true gap at small n; "
            "bias from a parametric bootstrap of the same sums)")
    if points:
        d = MetricDef(key + "_points", f"spread between {what}{based}: largest gap between "
                      f"their mean scores, bias-corrected; here {here}", "Balance",
                      pl.lit(None, dtype=pl.Float64), kind="mean", unit="points",
                      note=note + f"; as measured: {t.gap:,.4g} points")
        return Metric(d, Estimate(t.gap_corrected, t.gap_lo, t.gap_hi, t.n, "mean", conf))
    d = MetricDef(key, f"balance between {what}{based}: 1 - (largest gap between their win "
                  f"rates, bias-corrected; here {here})", "Balance",
                  pl.lit(None, dtype=pl.Float64), kind="mean", unit="win-rate fraction",
                  note=note + f"; as measured: 1 - gap = {100 * (1 - t.gap):.2f}%")
    return Metric(d, Estimate(1 - t.gap_corrected, 1 - t.gap_hi, 1 - t.gap_lo, t.n, "mean", conf))


@dataclass(frozen=True)
class MetricSums:
    """Everything ``compute`` reads of a frame, as exact sums that add up over any split
    of its rows: each metric's ``Moments`` and, per balance of positions, the
    ``Moments`` of the positions' wins together."""

    defs: list[MetricDef]
    moments: list[Moments]
    joint: tuple[Moments, ...]

    def __add__(self, other: MetricSums) -> MetricSums:
        if [d.key for d in self.defs] != [d.key for d in other.defs]:
            raise ValueError("metric sums of different metric definitions cannot be added")
        return MetricSums(self.defs, [a + b for a, b in zip(self.moments, other.moments, strict=True)],
                          tuple(a + b for a, b in zip(self.joint, other.joint, strict=True)))


def metric_sums(game, frame: pl.DataFrame | pl.LazyFrame, knobs, level: str) -> MetricSums:
    """``MetricSums`` of ``frame`` (``game``: a ``Game``; ``knobs``: its knobs)."""
    defs = game_defs(game, frame, knobs, level)
    keys = [d.key for d in defs]
    positions = [[d for d in defs if d.key.startswith(prefix)]
                 if balanced_positions(prefix, keys) else [] for prefix, _, _ in BALANCES]
    return MetricSums(defs, metric_moments(frame, defs),
                      tuple(joint_moments(frame, ds) for ds in positions))


def compute_from(sums: MetricSums, conf: float = DEFAULT_CONF) -> MetricSet:
    """The ``MetricSet`` of ``compute`` from ``MetricSums``."""
    metrics = [Metric(d, estimate_of(d, m, conf)) for d, m in zip(sums.defs, sums.moments, strict=True)
               if shown(d, m)]
    extra = []
    keys = [d.key for d in sums.defs]
    for (prefix, what, base), joint in zip(BALANCES, sums.joint, strict=True):
        wins = [m for m in metrics if m.key.startswith(prefix)]
        if wins and all(m.estimate.n > 0 for m in wins) and balanced_positions(prefix, keys):
            b = balance_from(wins, joint, what, conf, base)
            if b is not None:
                extra.append(b)
    return MetricSet(metrics + extra)


def compute(game, frame: pl.DataFrame | pl.LazyFrame, knobs, level: str,
            conf: float = DEFAULT_CONF) -> MetricSet:
    """Every metric of ``game`` (a ``Game``) on ``frame``; ``knobs``: the game's knobs, or
    a dict of knob values (``{}``: the defaults)."""
    game = as_game(game)
    if isinstance(knobs, dict):
        knobs = game.make_knobs(knobs)
    return compute_from(metric_sums(game, frame, knobs, level), conf)


# --- derived statistics ----------------------------------------------------------------
# A ratio of sums, a standard deviation or a root mean square is not the mean of one
# per-row value: it is a smooth function of the means of a few per-row components, and
# its interval comes from the delta method. Defined by their components (``Derived``),
# they are computed from sums that add up over any split of the rows (``simlab.analysis.sums``).


def form_of(d: MetricDef) -> str:
    """"rate", "mean", or a ``Derived`` form."""
    return d.expr.form if isinstance(d.expr, Derived) else d.kind


def components(d: MetricDef) -> tuple[pl.Expr, list[pl.Expr]]:
    """(rows, parts): a Boolean expression true on the rows the metric is about (its
    ``where``, with every part present) and its per-row parts in their own types (a
    rate's Boolean value; a mean's value; a ``Derived``'s parts). A NaN part also puts a
    row out (``metric_moments``)."""
    if isinstance(d.expr, Derived):
        parts = list(d.expr.parts)
        wheres = [w for w in (d.where, d.expr.where) if w is not None]
        if d.expr.form == "ratio":
            # a ratio's qualifying rows are those its denominator counts (a deal with no
            # qualifying player adds nothing to either sum): its n counts them, not the
            # rows around them
            wheres.append(parts[1] != 0)
    else:
        parts = [d.expr.cast(pl.Boolean) if d.kind == "rate" else d.expr]
        wheres = [d.where] if d.where is not None else []
    rows = pl.all_horizontal([p.is_not_null() for p in parts]
                             + [w.fill_null(False) for w in wheres])
    return rows, parts


def _nan_estimate(n: int, conf: float) -> Estimate:
    return Estimate(math.nan, math.nan, math.nan, n, "mean", conf)


def _bad(*xs) -> bool:
    return any(isinstance(x, float) and not math.isfinite(x) for x in xs)


def influence(d: MetricDef, m: Moments) -> tuple[float, list[float]] | None:
    """(value, gradient): the metric's value from its ``Moments`` and the gradient of
    that value with respect to the means of its parts, so that a row's influence value
    (its linearisation minus the value) is gradient . (u - mean u). None when the value
    is undefined (no row; a ratio over a zero denominator; a deviation of one row)."""
    n = m.n
    form = form_of(d)
    if n == 0 or _bad(*m.s1) or _bad(*(x for r in m.s2 for x in r)):
        return None
    if form in ("rate", "mean"):
        return float(m.s1[0] / n), [1.0]
    if form == "ratio":
        if m.s1[1] == 0:
            return None
        r = m.s1[0] / m.s1[1]
        b = m.s1[1] / n
        return float(r), [float(1 / b), float(-r / b)]
    if form == "sd":
        if n < 2:
            return None
        mean_x = m.s1[0] / n
        var = m.centred(0, 0) / (n - 1)
        s = math.sqrt(float(var))
        if s == 0:
            return 0.0, [0.0, 0.0]
        c = n / (n - 1) / (2 * s)
        return s, [float(-2 * mean_x) * c, c]
    if form == "root":
        q = float(m.s1[0] / n)
        if q < 0:
            return None
        r = math.sqrt(q)
        return r, [0.0 if r == 0 else 1 / (2 * r)]
    raise ValueError(f"unknown metric form {form!r}")


def centred_matrix(m: Moments) -> np.ndarray:
    """Sums over the rows of (u_j - mean_j)(u_i - mean_i), exact then rounded."""
    k = len(m.s1)
    return np.array([[float(m.centred(j, i)) for i in range(k)] for j in range(k)])


def estimate_of(d: MetricDef, m: Moments, conf: float = DEFAULT_CONF) -> Estimate:
    """The metric's estimate from its ``Moments``: a rate's Wilson interval, a mean's
    Student t interval, a ``Derived`` value's t interval on its linearisation (delta
    method; a ratio's, Fieller's when it is bounded, its upper end raised to the log
    scale's when the ratio is positive: ``log_scale_upper``). The same figures whatever
    split of the rows the moments were added from.

    Never [x, x]: below ``stats.MIN_MEAN_N`` qualifying rows a mean, ratio or deviation
    has no interval and says "too few" (``stats.TOO_FEW_ROWS``); rows that all hold 0 (or
    all 1) get Wilson's interval of 0 (or n) in n; other rows that are all equal have no
    interval and say so (``stats.CONSTANT_ROWS``)."""
    form = form_of(d)
    if form == "rate":
        return stats.proportion(int(m.s1[0]), m.n, conf)
    got = influence(d, m)
    if got is None:
        # as the mean of per-row linearisations gave: no value, and no row at all when
        # the frame-wide part (a zero denominator) is undefined
        n = 0 if m.n == 0 or (form == "ratio" and m.s1[1] == 0) else m.n
        return _nan_estimate(n, conf)
    value, grad = got
    if m.n < stats.MIN_MEAN_N:
        return Estimate(value, math.nan, math.nan, m.n, "mean", conf, stats.TOO_FEW_ROWS)
    g = np.array(grad)
    ss = float(g @ centred_matrix(m) @ g)
    if ss <= 0:
        return _constant_estimate(form, value, m, conf)
    e = stats.mean(m=value, sd=math.sqrt(ss / (m.n - 1)), n=m.n, conf=conf)
    if form == "ratio":
        bounds = fieller(m, conf)
        lo, hi = (e.lo, e.hi) if bounds is None else (min(bounds[0], value), max(bounds[1], value))
        if value > 0:
            hi = max(hi, log_scale_upper(value, e.hi - value))
        return replace(e, lo=lo, hi=hi)
    return e


def _constant_estimate(form: str, value: float, m: Moments, conf: float) -> Estimate:
    """A mean or ratio whose rows show no spread: Wilson's interval when every row holds 0
    or 1 (a ratio: its units, the denominator's sum, when that is a count), else no
    interval (``stats.CONSTANT_ROWS``)."""
    if value in (0.0, 1.0) and form in ("mean", "ratio"):
        units = m.s1[1] if form == "ratio" else m.n
        if isinstance(units, int | Fraction) and Fraction(units).denominator == 1 and units > 0:
            w = stats.proportion(int(round(value * int(units))), int(units), conf)
            return Estimate(value, w.lo, w.hi, m.n, "mean", conf)
    return Estimate(value, math.nan, math.nan, m.n, "mean", conf, stats.CONSTANT_ROWS)


def log_scale_upper(value: float, half_width: float) -> float:
    """The upper end of the delta-method interval of log(ratio), value * exp(h / value),
    where ``half_width`` h is the ratio's own delta-method half-width (t x its standard
    error). A positive ratio's interval reaches at least this high: a small-sample ratio
    of sums is skewed like its numerator (mostly 0 with rare large values, such as
    Belote's announcements' share of points), its estimate and its spread low together,
    so that the symmetric and Fieller intervals miss mostly with the truth above them
    (Belote's q4.share at 50 deals: 92-95 % coverage, nearly every miss above; with this
    upper end 95-96.5 %, tests/test_coverage.py). The lower end stays Fieller's: the
    log scale's own lower end, higher, moved the misses below instead. At most value +
    2 h (reached from h > 1.26 value): a ratio whose rows can be negative may be just
    above 0, where the log scale's end would run off to infinity."""
    k = half_width / value
    return value + 2 * half_width if k > 2 else min(value * math.exp(k), value + 2 * half_width)


def fieller(m: Moments, conf: float = DEFAULT_CONF) -> tuple[float, float] | None:
    """Fieller's interval of sum(num) / sum(den) from the ``Moments`` of (num, den) over
    the rows: the R with (mean num - R mean den)^2 <= t^2 var(mean num - R mean den).
    Unlike the delta method it follows the ratio's curvature (a small or noisy
    denominator); None when the set is not a bounded interval (the denominator's mean not
    clearly away from 0), where the delta method is used."""
    n = m.n
    if n < 2 or m.s1[1] == 0:
        return None
    a, b = float(m.s1[0] / n), float(m.s1[1] / n)
    c = centred_matrix(m) / ((n - 1) * n)  # covariance of the two means
    t2 = stats.t_ppf(0.5 + conf / 2, n - 1) ** 2
    qa = b * b - t2 * c[1, 1]
    qb = a * b - t2 * c[0, 1]
    qc = a * a - t2 * c[0, 0]
    disc = qb * qb - qa * qc
    if qa <= 0 or disc < 0:
        return None
    root = math.sqrt(disc)
    return (qb - root) / qa, (qb + root) / qa


# Integer parts are summed as int64 when no sum can overflow (values and products below
# this, times the rows); other parts go through ``sums.exact_sum``.
_INT_SAFE = 2.0 ** 62
# metrics per query: their parts for 10^6 rows take about 120 MB
MOMENT_BATCH = 64


def metric_moments(frame: pl.DataFrame | pl.LazyFrame, defs: list[MetricDef]) -> list[Moments]:
    """Each metric's ``Moments`` on ``frame``, exact. Per batch of metrics, one polars
    query materialises their parts on their rows (in their own types: a Boolean or an
    integer costs little), a second sums them and their products as int64 where every
    value is an integer (points, counts, 0/1: nearly always); a metric with other values
    is summed exactly from its materialised parts (``sums.exact_sum``)."""
    lf = frame.lazy()
    out: list[Moments] = []
    for start in range(0, len(defs), MOMENT_BATCH):
        batch = defs[start:start + MOMENT_BATCH]
        cols: list[pl.Expr] = []
        shape: list[int] = []
        for i, d in enumerate(batch):
            rows, parts = components(d)
            cols += [pl.when(rows).then(p).alias(f"u{i}_{j}") for j, p in enumerate(parts)]
            if d.shown_if is not None:
                cols.append(d.shown_if.fill_null(False).sum().alias(f"shown{i}"))
            shape.append(len(parts))
        values = stats.collect(lf.select(cols), frame)
        out += with_shown(moments_of_values(values, shape), values, batch)
    return out


def with_shown(found: list[Moments], values: pl.DataFrame, defs: list[MetricDef]) -> list[Moments]:
    """``found`` with each metric's ``shown_if`` count (column ``shown{i}`` of ``values``)."""
    return [replace(m, shown=int(values.get_column(f"shown{i}")[0] or 0) if values.height else 0)
            if d.shown_if is not None else m for i, (d, m) in enumerate(zip(defs, found, strict=True))]


def moments_of_values(values: pl.DataFrame, shape: list[int]) -> list[Moments]:
    """``Moments`` of each metric whose parts are the columns ``u{i}_{j}`` of ``values``
    (null outside the metric's rows; NaN also counts as outside)."""
    aggs = moment_aggs(values.schema, shape, "u")
    row = values.lazy().select(aggs).collect(engine="in-memory").row(0, named=True)
    return moments_from(row, values, shape, "u")


def moment_aggs(schema: pl.Schema, shape: list[int], prefix: str) -> list[pl.Expr]:
    """The aggregates ``moments_from`` reads, for metric parts in columns
    ``{prefix}{i}_{j}`` (metric ``i`` has ``shape[i]`` parts): rows, int64 sums of the
    parts and of their products, and for floats whether every value is an integer."""
    aggs: list[pl.Expr] = []
    for i, k in enumerate(shape):
        names = [f"{prefix}{i}_{j}" for j in range(k)]
        if k == 1 and schema[names[0]] == pl.Boolean:  # a rate: 0/1, x^2 = x
            aggs += [pl.col(names[0]).sum().alias(f"s{names[0]}"),
                     pl.col(names[0]).count().alias(f"n{prefix}{i}")]
            continue
        floats = [c for c in names if schema[c].is_float()]
        ok = present(names, schema)
        ints = {}
        for c in names:
            col = pl.col(c) if not floats else pl.when(ok).then(pl.col(c))
            ints[c] = col.cast(pl.Int64, strict=False)
            aggs += [ints[c].sum().alias(f"s{c}"), col.cast(pl.Float64).abs().max().alias(f"top{c}")]
            if c in floats:
                aggs.append((col == col.round()).all().alias(f"int{c}"))
        aggs.append(ok.sum().alias(f"n{prefix}{i}"))
        aggs += [(ints[names[j]] * ints[names[h]]).sum().alias(f"p{names[j]}{names[h]}")
                 for j in range(k) for h in range(j, k)]
    return aggs


def present(names: list[str], schema: pl.Schema) -> pl.Expr:
    """Rows where every one of the part columns ``names`` holds a value (not NaN)."""
    return pl.all_horizontal([pl.col(c).is_not_null() for c in names]
                             + [pl.col(c).is_not_nan() for c in names if schema[c].is_float()])


def int_sums_exact(row: dict, names: list[str], n: int) -> bool:
    """Whether the int64 sums of these parts (and of their products) are exact: every
    value an integer, and no sum near 2^63."""
    tops = [float(row.get(f"top{c}") or 0.0) for c in names]
    return all(row.get(f"int{c}") is not False for c in names) and \
        n * max(max(tops, default=1.0), 1.0) ** 2 < _INT_SAFE


def moments_from(row: dict, values: pl.DataFrame, shape: list[int], prefix: str) -> list[Moments]:
    """``Moments`` from the aggregates of ``moment_aggs`` (``row``); a metric whose int64
    sums would not be exact is summed exactly from its columns in ``values``."""
    out: list[Moments] = []
    for i, k in enumerate(shape):
        names = [f"{prefix}{i}_{j}" for j in range(k)]
        n = int(row[f"n{prefix}{i}"] or 0)
        if k == 1 and values.schema[names[0]] == pl.Boolean:
            ones = Fraction(int(row[f"s{names[0]}"] or 0))
            out.append(Moments(n, (ones,), ((ones,),)))
            continue
        if int_sums_exact(row, names, n):
            s2 = [[Fraction(0)] * k for _ in range(k)]
            for j in range(k):
                for h in range(j, k):
                    s2[j][h] = s2[h][j] = Fraction(int(row[f"p{names[j]}{names[h]}"] or 0))
            out.append(Moments(n, tuple(Fraction(int(row[f"s{c}"] or 0)) for c in names),
                               tuple(tuple(r) for r in s2)))
            continue
        # rare: values that are not integers (or too large): exact sums of the floats
        u = values.select([pl.col(c).cast(pl.Float64) for c in names]).to_numpy()
        keep = ~np.isnan(u).any(axis=1)
        out.append(moments_of(u[keep]))
    return out


