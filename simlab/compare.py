"""Variant comparison on the same deals, and sweeps over knob grids.

Both variants of a comparison are run with the same seed, so deal *i* has the same shuffle
in both (the engine's common random numbers). Every metric is computed for each variant
with that variant's own knobs and over its own base (a conditional rate over the deals
that meet its condition in that variant), so B − A is the difference of the two figures
shown; its interval uses the pairing of the deals (``stats.metric_difference``), which
makes it far narrower than two independent runs would. Holm's adjustment covers the
distinct, estimable metrics of one comparison; the intervals shown are unadjusted.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from simlab.games.base import Game
from simlab.metrics import MetricDef, MetricSet, compute, game_defs, on_rows
from simlab.progress import Progress
from simlab.runner import Plan, execute, executor, game_ref, plan, run_chunk, run_tasks
from simlab.stats import (
    DEFAULT_CONF,
    IDENTICAL,
    Comparison,
    Estimate,
    PairedMoments,
    aggregates,
    difference_from,
    estimate_from,
    holm,
)

INTERVALS_NOTE = ("intervals are unadjusted {pct} intervals, one metric at a time; only the Holm p-values "
                  "are adjusted (over the {m} distinct, estimable metrics), so an interval may exclude 0 "
                  "while its Holm p-value is not significant")


@dataclass(frozen=True)
class CompareRow:
    definition: MetricDef
    a: Estimate
    b: Estimate
    diff: Comparison
    p_holm: float  # NaN: not tested (no interval, A and B identical on every deal)
    duplicate_of: str = ""  # title of an earlier metric with the same per-deal values in A and B

    @property
    def key(self) -> str:
        return self.definition.key

    @property
    def title(self) -> str:
        return self.definition.title

    @property
    def section(self) -> str:
        return self.definition.section


@dataclass
class CompareResult:
    game: Game
    plan_a: Plan
    plan_b: Plan
    rows: list[CompareRow]
    frame_a: pl.DataFrame
    frame_b: pl.DataFrame
    conf: float = DEFAULT_CONF

    @property
    def label_a(self) -> str:
        return _label(self.plan_a)

    @property
    def label_b(self) -> str:
        return _label(self.plan_b)

    def significant(self, alpha: float | None = None) -> list[CompareRow]:
        """Distinct metrics whose Holm-adjusted p-value is below ``alpha`` (a duplicate row
        shares its original's p-value and is not counted again)."""
        a = 1 - self.conf if alpha is None else alpha
        return [r for r in self.rows if r.p_holm < a and not r.duplicate_of]

    def tested(self) -> list[CompareRow]:
        """The rows Holm's correction runs over: distinct, estimable, not identical."""
        return [r for r in self.rows if _tested(r.diff) and not r.duplicate_of]

    def intervals_note(self) -> str:
        return intervals_note(self.rows, self.conf)

    def to_polars(self) -> pl.DataFrame:
        """One row per metric: its key, title, section and kind (``rate`` or ``mean``); A's
        and B's estimates with their intervals and deal counts; B - A with its unadjusted
        interval, raw and Holm-adjusted p-values; ``significant`` (Holm p below 1 - conf);
        ``duplicate_of``: the title of an earlier metric with the same per-deal values (its
        Holm p is that one's). Rates are shares (0.4912), not percentages."""
        return compare_frame(self.rows, self.conf)


COMPARE_SCHEMA = {
    "key": pl.String, "metric": pl.String, "section": pl.String, "kind": pl.String,
    "a": pl.Float64, "a_lo": pl.Float64, "a_hi": pl.Float64, "n_a": pl.Int64,
    "b": pl.Float64, "b_lo": pl.Float64, "b_hi": pl.Float64, "n_b": pl.Int64,
    "diff": pl.Float64, "diff_lo": pl.Float64, "diff_hi": pl.Float64, "n_paired": pl.Int64,
    "p": pl.Float64, "p_holm": pl.Float64, "significant": pl.Boolean, "status": pl.String,
    "duplicate_of": pl.String,
}


def compare_frame(rows: list[CompareRow], conf: float = DEFAULT_CONF) -> pl.DataFrame:
    """``rows`` as a polars DataFrame (see ``CompareResult.to_polars``); NaN (no value)
    becomes null."""
    def num(x: float) -> float | None:
        return None if x is None or math.isnan(x) else float(x)

    data = [{"key": r.key, "metric": r.title, "section": r.section, "kind": r.definition.kind,
             "a": num(r.a.value), "a_lo": num(r.a.lo), "a_hi": num(r.a.hi), "n_a": r.a.n,
             "b": num(r.b.value), "b_lo": num(r.b.lo), "b_hi": num(r.b.hi), "n_b": r.b.n,
             "diff": num(r.diff.diff), "diff_lo": num(r.diff.lo), "diff_hi": num(r.diff.hi),
             "n_paired": r.diff.n, "p": num(r.diff.p_value), "p_holm": num(r.p_holm),
             "significant": bool(r.p_holm < 1 - conf), "status": r.diff.status,
             "duplicate_of": r.duplicate_of} for r in rows]
    return pl.DataFrame(data, schema=COMPARE_SCHEMA)


def _tested(c: Comparison) -> bool:
    return c.estimable and c.status != IDENTICAL


def intervals_note(rows: list[CompareRow], conf: float) -> str:
    """One line saying what the intervals beside the Holm p-values are."""
    m = sum(1 for r in rows if _tested(r.diff) and not r.duplicate_of)
    return INTERVALS_NOTE.format(pct=f"{round(conf * 100):g}%", m=m)


def _label(p: Plan) -> str:
    changed = p.knobs.changed()
    text = " ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"
    if len(set(p.policies)) > 1 or p.policies[0] != "heuristic":
        text += f" [policies {','.join(p.policies)}]"
    return text


# metrics per query: 2 x 12 value columns of 10^6 rows hold 190 MB
PAIRED_BATCH = 12
ROW_HASH_SEED = 20261127


def _paired_aggregates(a: pl.Expr, b: pl.Expr, name: str) -> list[pl.Expr]:
    """``stats.PairedMoments`` of value columns ``a`` and ``b`` as aggregates (NaN counts as
    outside the base, as in ``stats.metric_difference``)."""
    a, b = a.fill_nan(None), b.fill_nan(None)
    da, db = a - a.mean(), b - b.mean()
    return [a.count().alias(f"{name}na"), b.count().alias(f"{name}nb"),
            (a.is_not_null() & b.is_not_null()).sum().alias(f"{name}shared"),
            a.mean().alias(f"{name}ta"), b.mean().alias(f"{name}tb"),
            (da * da).sum().alias(f"{name}ssa"), (db * db).sum().alias(f"{name}ssb"),
            (da * db).sum().alias(f"{name}cross"),
            (~a.eq_missing(b)).sum().alias(f"{name}differ"),
            # row by row (the row number in the hash): equal arrays, equal hash
            pl.struct(pl.int_range(pl.len()).alias("row"), a.alias("a"), b.alias("b"))
            .hash(ROW_HASH_SEED).bitwise_xor().alias(f"{name}hash")]


def _moments_from(row: dict, name: str, size: int) -> PairedMoments:
    def num(x) -> float:
        return math.nan if x is None else float(x)

    return PairedMoments(size, int(row[f"{name}na"]), int(row[f"{name}nb"]),
                         int(row[f"{name}shared"]), num(row[f"{name}ta"]), num(row[f"{name}tb"]),
                         num(row[f"{name}ssa"]) if row[f"{name}na"] else 0.0,
                         num(row[f"{name}ssb"]) if row[f"{name}nb"] else 0.0,
                         num(row[f"{name}cross"]) if row[f"{name}shared"] else 0.0,
                         int(row[f"{name}differ"]) == 0, int(row[f"{name}hash"]))


def paired_stats(frame_a: pl.DataFrame, frame_b: pl.DataFrame,
                 pairs: list[tuple[MetricDef, MetricDef]], conf: float = DEFAULT_CONF
                 ) -> list[tuple[Estimate, Estimate, PairedMoments]]:
    """Per (A's metric, B's metric): A's estimate on ``frame_a``, B's on ``frame_b`` (as
    ``metrics.evaluate`` gives them) and their ``PairedMoments``, from one polars query per
    ``PAIRED_BATCH`` metrics. Each metric's per-row values are computed on its own frame, so
    a ratio's or a deviation's frame-wide parts are each variant's own."""
    size = frame_a.height
    out: list[tuple[Estimate, Estimate, PairedMoments]] = []
    for start in range(0, len(pairs), PAIRED_BATCH):
        batch = pairs[start:start + PAIRED_BATCH]
        values_a = frame_a.lazy().select([on_rows(da).alias(f"a{i}")
                                          for i, (da, _) in enumerate(batch)])
        values_b = frame_b.lazy().select([on_rows(db).alias(f"b{i}")
                                          for i, (_, db) in enumerate(batch)])
        aggs: list[pl.Expr] = []
        for i, (da, db) in enumerate(batch):
            aggs += aggregates(da.kind, pl.col(f"a{i}"), None, f"ea{i}_")
            aggs += aggregates(db.kind, pl.col(f"b{i}"), None, f"eb{i}_")
            aggs += _paired_aggregates(pl.col(f"a{i}"), pl.col(f"b{i}"), f"p{i}_")
        row = (pl.concat([values_a, values_b], how="horizontal").select(aggs)
               .collect(engine="in-memory").row(0, named=True))
        out += [(estimate_from(da.kind, row, f"ea{i}_", conf),
                 estimate_from(db.kind, row, f"eb{i}_", conf), _moments_from(row, f"p{i}_", size))
                for i, (da, db) in enumerate(batch)]
    return out


def _signature(m: PairedMoments) -> tuple:
    """``m`` as a hashable tuple in which NaN equals NaN."""
    return tuple("nan" if isinstance(x, float) and math.isnan(x) else x
                 for x in dataclasses.astuple(m))


def compare_frames(game: Game, knobs_a, frame_a: pl.DataFrame, frame_b: pl.DataFrame, level: str,
                   conf: float = DEFAULT_CONF, knobs_b=None, keys: Collection[str] | None = None
                   ) -> list[CompareRow]:
    """Every metric both variants define (same key), each variant's computed with its own
    knobs (``knobs_b`` defaults to ``knobs_a``) on its own frame, compared deal by deal.

    Holm's correction runs over the distinct, estimable metrics: a metric whose per-deal
    values equal an earlier one's in both variants (Belote seat 2 = seat 0) is the same
    hypothesis and shares that one's adjusted p-value; metrics without an interval, or
    identical in A and B on every deal, are not tested. ``keys`` keeps only those metrics."""
    if frame_a.height != frame_b.height:
        raise ValueError("compared frames must hold the same deals")
    defs_b = {d.key: d for d in game_defs(game, frame_b, knobs_a if knobs_b is None else knobs_b, level)}
    pairs = [(d, defs_b[d.key]) for d in game_defs(game, frame_a, knobs_a, level)
             if d.key in defs_b and (keys is None or d.key in keys)]
    found = paired_stats(frame_a, frame_b, pairs, conf)
    diffs = [difference_from(m, da.kind, conf) for (da, _), (_, _, m) in zip(pairs, found, strict=True)]
    # Metrics with the same per-deal values in A and B have the same moments and row hash:
    # the earliest is the original.
    first_of: dict[tuple, int] = {}
    duplicate: list[int | None] = []
    for i, (_, _, m) in enumerate(found):
        sig = _signature(m)
        duplicate.append(first_of.get(sig))
        first_of.setdefault(sig, i)
    tested = [_tested(c) and dup is None for c, dup in zip(diffs, duplicate, strict=True)]
    adjusted = holm([c.p_value if t else math.nan for c, t in zip(diffs, tested, strict=True)])
    rows = []
    for i, ((da, _), (ea, eb, _), c) in enumerate(zip(pairs, found, diffs, strict=True)):
        dup = duplicate[i]
        p = adjusted[dup] if dup is not None else adjusted[i]
        rows.append(CompareRow(da, ea, eb, c, p, pairs[dup][0].title if dup is not None else ""))
    return rows


def compare(game: str, n: int, *, a: dict[str, Any] | None = None, b: dict[str, Any] | None = None,
            seed: int = 0, policies_a: str = "heuristic", policies_b: str | None = None,
            level: str = "deal", jobs: int = 1, conf: float = DEFAULT_CONF,
            progress: bool | None = None) -> pl.DataFrame:
    """Run variants A and B on the same deals and compare every metric: one row per
    metric (A, B, B - A with intervals, Holm-adjusted p). ``compare_runs`` takes the same
    arguments and also keeps the runs' plans and frames (what a report needs)."""
    return compare_runs(game, n, a=a, b=b, seed=seed, policies_a=policies_a,
                        policies_b=policies_b, level=level, jobs=jobs, conf=conf,
                        progress=progress).to_polars()


def compare_runs(game: str, n: int, *, a: dict[str, Any] | None = None,
                 b: dict[str, Any] | None = None, seed: int = 0, policies_a: str = "heuristic",
                 policies_b: str | None = None, level: str = "deal", jobs: int = 1,
                 conf: float = DEFAULT_CONF, progress: bool | None = None) -> CompareResult:
    """Run variants A and B on the same deals and compare every metric."""
    pa = plan(game, n, seed=seed, params=a or {}, policies=policies_a, jobs=jobs, level=level,
              progress=progress)
    pb = plan(game, n, seed=seed, params=b or {}, policies=policies_b or policies_a, jobs=jobs,
              level=level, progress=progress)
    fa, fb = execute(pa), execute(pb)
    rows = compare_frames(pa.game, pa.knobs, fa, fb, level, conf, knobs_b=pb.knobs)
    return CompareResult(pa.game, pa, pb, rows, fa, fb, conf)


@dataclass
class SweepPoint:
    values: dict[str, Any]
    plan: Plan
    metrics: MetricSet


@dataclass
class SweepResult:
    game: Game
    grid: dict[str, list[Any]]
    points: list[SweepPoint] = field(default_factory=list)
    base: dict[str, Any] = field(default_factory=dict)


def parse_grid(items: list[str]) -> dict[str, list[str]]:
    """``["key=v1,v2,v3", ...]`` -> {key: [v1, v2, v3]} (values still strings)."""
    from simlab.knobs import SimlabError

    grid: dict[str, list[str]] = {}
    for item in items:
        if "=" not in item:
            raise SimlabError(f"--grid expects key=v1,v2,..., got {item!r}")
        k, v = item.split("=", 1)
        values = [x.strip() for x in v.split(",") if x.strip()]
        if not k.strip() or not values:
            raise SimlabError(f"--grid expects key=v1,v2,..., got {item!r}")
        grid[k.strip()] = values
    return grid


def _point_metrics(game: Any, n: int, seed: int, params: dict[str, Any], policies: str,
                   level: str, conf: float, tick: Any = None) -> MetricSet:
    """One sweep point, whole, where it runs (a worker): its deals on one core, then its
    metrics; only the metrics travel back. With ``tick`` (this process's progress line),
    the deals run in timed slices that report as they go (the same rows)."""
    p = plan(game, n, seed=seed, params=params, policies=policies, jobs=1, level=level,
             progress=False)
    if tick is None:
        frame = execute(p)
    else:
        frame = run_chunk(p.game, p.knobs, p.policies, p.seed, level, False, 0, n, tick=tick)
    return compute(p.game, frame, p.knobs, level, conf)


def _sweep_metrics(plans: list[Plan], params: list[dict[str, Any]], policies: str, level: str,
                   conf: float) -> Iterator[MetricSet]:
    """Each grid point's metrics, in order. With at least as many points as jobs, each
    point is one task, simulated and measured in the process that runs it (a worker or
    this one): the metrics come back, not the rows, and the points' measuring runs in
    parallel too. Otherwise the points run one after the other, each on every core."""
    first = plans[0]
    if first.jobs == 1 or len(plans) < first.jobs:
        for p in plans:
            yield compute(p.game, execute(p), p.knobs, level, conf)
        return
    ref = game_ref(first.game)
    tasks = [(k, _point_metrics, (ref, p.n, p.seed, params[k], policies, level, conf), {})
             for k, p in enumerate(plans)]
    done: dict[int, MetricSet] = {}
    nxt = 0
    total = replace(first, n=first.n * len(plans))
    with executor("loky", None, first.jobs) as ex, \
            Progress(total.n, first.unit, enabled=first.progress) as bar:
        ex.tick = bar.in_flight if bar.visible else None  # points run here report as they go
        for k, ms in run_tasks(total, ex, tasks, sizes=[p.n for p in plans], big=True):
            bar.update(plans[k].n)
            done[k] = ms
            while nxt in done:
                yield done.pop(nxt)
                nxt += 1


def sweep(game: str, n: int, grid: dict[str, list[Any]], *, base: dict[str, Any] | None = None,
          seed: int = 0, policies: str = "heuristic", level: str = "deal", jobs: int = 1,
          conf: float = DEFAULT_CONF, progress: bool | None = None) -> SweepResult:
    """The metrics at every point of the grid (all points on the same deals). Every point is
    validated before the first one runs."""
    keys = list(grid)
    combos = list(itertools.product(*(grid[k] for k in keys)))
    params = [{**(base or {}), **dict(zip(keys, c, strict=True))} for c in combos]
    plans = [plan(game, n, seed=seed, params=q, policies=policies, jobs=jobs, level=level,
                  progress=progress) for q in params]
    result = SweepResult(plans[0].game, grid, base=dict(base or {}))
    for p, ms in zip(plans, _sweep_metrics(plans, params, policies, level, conf), strict=True):
        values = {k: getattr(p.knobs, k) for k in keys}
        result.points.append(SweepPoint(values, p, ms))
    return result
