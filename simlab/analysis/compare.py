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
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from simlab.analysis.metrics import (
    MOMENT_BATCH,
    MetricDef,
    MetricSet,
    MetricSums,
    centred_matrix,
    components,
    compute,
    compute_from,
    estimate_of,
    game_defs,
    influence,
    int_sums_exact,
    metric_sums,
    moment_aggs,
    moments_from,
    present,
    shown,
)
from simlab.analysis.sums import Moments, add_tables, cross_of, exact_sum
from simlab.engine import stats
from simlab.engine.game import Game, game_from_ref
from simlab.engine.progress import Progress
from simlab.engine.runner import (
    Plan,
    execute,
    execute_paired_reduced,
    execute_reduced,
    executor,
    game_ref,
    grouped,
    plan,
    run_chunk,
    run_tasks,
)
from simlab.engine.stats import (
    DEFAULT_CONF,
    IDENTICAL,
    Comparison,
    Estimate,
    PairedMoments,
    difference_from,
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
    frame_a: pl.DataFrame | None  # None: measured chunk by chunk (``compare_reduced``)
    frame_b: pl.DataFrame | None
    conf: float = DEFAULT_CONF
    # a report's run (B) reduced chunk by chunk, its rows and A's written to the report
    # folder (``compare_runs(report_dir=...)``), and the files written there
    sums_b: Any = None
    written: tuple[str, ...] = ()

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


ROW_HASH_SEED = 20261127


@dataclass(frozen=True)
class PairedSums:
    """What pairs one metric's A and B values deal by deal, as exact sums that add up
    over any split of the deals: over the deals in both bases (``shared``) the sums of
    A's parts, of B's parts and of their products; the deals where A and B differ (in
    base or in value); and a hash of both, row by row (XOR of the rows' hashes)."""

    shared: int
    s_a: tuple
    s_b: tuple
    s_ab: tuple  # k_a x k_b
    differ: int
    row_hash: int

    def __add__(self, other: PairedSums) -> PairedSums:
        return PairedSums(self.shared + other.shared, add_tables(self.s_a, other.s_a),
                          add_tables(self.s_b, other.s_b), add_tables(self.s_ab, other.s_ab),
                          self.differ + other.differ, self.row_hash ^ other.row_hash)


def _paired_sums(both: pl.DataFrame, shape: list[tuple[int, int]], offset: int
                 ) -> list[tuple[Moments, Moments, PairedSums]]:
    """Each metric's A and B ``Moments`` and ``PairedSums``, from one query over ``both``:
    its parts in columns ``au{i}_{j}`` (A) and ``bu{i}_{j}`` (B), null outside each
    variant's rows (NaN counts as outside); row 0 is deal ``offset`` of the run (the row
    hash numbers deals from the run's start)."""
    schema = both.schema
    aggs = (moment_aggs(schema, [ka for ka, _ in shape], "au")
            + moment_aggs(schema, [kb for _, kb in shape], "bu"))
    row_number = pl.int_range(pl.len(), dtype=pl.Int64) + offset
    for i, (ka, kb) in enumerate(shape):
        names_a = [f"au{i}_{j}" for j in range(ka)]
        names_b = [f"bu{i}_{j}" for j in range(kb)]
        in_a, in_b = present(names_a, schema), present(names_b, schema)
        shared = in_a & in_b
        ints = {c: pl.when(shared).then(pl.col(c)).cast(pl.Int64, strict=False)
                for c in names_a + names_b}
        aggs.append(shared.sum().alias(f"n{i}"))
        aggs += [ints[c].sum().alias(f"sh{c}") for c in names_a + names_b]
        aggs += [(ints[x] * ints[y]).sum().alias(f"p{x}{y}") for x in names_a for y in names_b]
        same = pl.all_horizontal([pl.col(x).eq_missing(pl.col(y))
                                  for x, y in zip(names_a, names_b, strict=False)])
        aggs.append(((in_a != in_b) | (shared & ~same)).sum().alias(f"differ{i}"))
        # rows in either base, hashed with their deal number, XOR-ed: equal per-deal
        # values in A and B give equal hashes (what marks a metric as a duplicate)
        fields = [pl.when(in_a).then(pl.col(c)).alias(c) for c in names_a] \
            + [pl.when(in_b).then(pl.col(c)).alias(c) for c in names_b]
        aggs.append(pl.struct(row_number.alias("row"), *fields).hash(ROW_HASH_SEED)
                    .filter(in_a | in_b).bitwise_xor().alias(f"hash{i}"))
    got = both.lazy().select(aggs).collect(engine="in-memory").row(0, named=True)
    moments_a = moments_from(got, both, [ka for ka, _ in shape], "au")
    moments_b = moments_from(got, both, [kb for _, kb in shape], "bu")
    out = []
    for i, (ka, kb) in enumerate(shape):
        names_a = [f"au{i}_{j}" for j in range(ka)]
        names_b = [f"bu{i}_{j}" for j in range(kb)]
        n = int(got[f"n{i}"] or 0)
        if int_sums_exact(got, names_a + names_b, n) and all(
                schema[c] == pl.Boolean or not schema[c].is_float() or got.get(f"int{c}")
                is not False for c in names_a + names_b):
            s_a = tuple(Fraction(int(got[f"sh{c}"] or 0)) for c in names_a)
            s_b = tuple(Fraction(int(got[f"sh{c}"] or 0)) for c in names_b)
            s_ab = tuple(tuple(Fraction(int(got[f"p{x}{y}"] or 0)) for y in names_b)
                         for x in names_a)
        else:  # values that are not integers: exact sums of the floats
            ua = both.select([pl.col(c).cast(pl.Float64) for c in names_a]).to_numpy()
            ub = both.select([pl.col(c).cast(pl.Float64) for c in names_b]).to_numpy()
            keep = ~(np.isnan(ua).any(axis=1) | np.isnan(ub).any(axis=1))
            ua, ub = ua[keep], ub[keep]
            s_a = tuple(exact_sum(ua[:, j]) for j in range(ka))
            s_b = tuple(exact_sum(ub[:, j]) for j in range(kb))
            s_ab = cross_of(ua, ub)
        out.append((moments_a[i], moments_b[i],
                    PairedSums(n, s_a, s_b, s_ab, int(got[f"differ{i}"] or 0),
                               int(got[f"hash{i}"] or 0))))
    return out


PairedParts = tuple[Moments, Moments, PairedSums]


def paired_parts(frame_a: pl.DataFrame, frame_b: pl.DataFrame,
                 pairs: list[tuple[MetricDef, MetricDef]], offset: int = 0) -> list[PairedParts]:
    """Per (A's metric, B's metric), on the same deals: A's ``Moments`` on ``frame_a``,
    B's on ``frame_b``, and their ``PairedSums``. All exact: parts of any split of the
    deals add up to those of the whole (``offset``: the first row's deal number)."""
    out: list[PairedParts] = []
    for start in range(0, len(pairs), MOMENT_BATCH):
        batch = pairs[start:start + MOMENT_BATCH]
        cols_a: list[pl.Expr] = []
        cols_b: list[pl.Expr] = []
        for i, (da, db) in enumerate(batch):
            for d, cols in ((da, cols_a), (db, cols_b)):
                rows, parts = components(d)
                cols += [pl.when(rows).then(p).alias(f"u{i}_{j}") for j, p in enumerate(parts)]
                if d.shown_if is not None:
                    cols.append(d.shown_if.fill_null(False).sum().alias(f"shown{i}"))
        values_a = stats.collect(frame_a.lazy().select(cols_a), frame_a)
        values_b = stats.collect(frame_b.lazy().select(cols_b), frame_b)
        shown_a = [int(values_a.get_column(f"shown{i}")[0] or 0)
                   if da.shown_if is not None and values_a.height else 0
                   for i, (da, _) in enumerate(batch)]
        shown_b = [int(values_b.get_column(f"shown{i}")[0] or 0)
                   if db.shown_if is not None and values_b.height else 0
                   for i, (_, db) in enumerate(batch)]
        both = pl.concat([values_a.select(pl.col(r"^u.*$")).rename(lambda c: "a" + c),
                          values_b.select(pl.col(r"^u.*$")).rename(lambda c: "b" + c)],
                         how="horizontal")
        shape = [(len(components(da)[1]), len(components(db)[1])) for da, db in batch]
        for i, (ma, mb, ps) in enumerate(_paired_sums(both, shape, offset)):
            out.append((replace(ma, shown=shown_a[i]), replace(mb, shown=shown_b[i]), ps))
    return out


def merge_parts(chunks: list[list[PairedParts]]) -> list[PairedParts]:
    """The parts of the whole from the parts of its chunks (in any order: exact sums)."""
    out = chunks[0]
    for more in chunks[1:]:
        out = [(a + a2, b + b2, p + p2) for (a, b, p), (a2, b2, p2) in zip(out, more, strict=True)]
    return out


def paired_moments_of(da: MetricDef, db: MetricDef, parts: PairedParts, size: int) -> PairedMoments:
    """``stats.PairedMoments`` from exact parts: each side's value and the sums of squares
    and products of its per-deal influence values (gradient . (u - mean u) on its base),
    the same as the per-row linearisations would give."""
    ma, mb, ps = parts
    ia, ib = influence(da, ma), influence(db, mb)
    n_a = ma.n if ia is not None else 0
    n_b = mb.n if ib is not None else 0
    nan = math.nan
    ssq_a = ssq_b = cross = 0.0
    if ia is not None:
        ga = np.array(ia[1])
        ssq_a = float(ga @ centred_matrix(ma) @ ga)
    if ib is not None:
        gb = np.array(ib[1])
        ssq_b = float(gb @ centred_matrix(mb) @ gb)
    shared = ps.shared if ia is not None and ib is not None else 0
    if shared:
        mean_a = [s / ma.n for s in ma.s1]
        mean_b = [s / mb.n for s in mb.s1]
        x = np.array([[float(ps.s_ab[j][h] - mean_a[j] * ps.s_b[h] - mean_b[h] * ps.s_a[j]
                             + shared * mean_a[j] * mean_b[h])
                       for h in range(len(mean_b))] for j in range(len(mean_a))])
        cross = float(np.array(ia[1]) @ x @ np.array(ib[1]))
    return PairedMoments(size, n_a, n_b, shared, ia[0] if ia is not None else nan,
                         ib[0] if ib is not None else nan, max(ssq_a, 0.0), max(ssq_b, 0.0),
                         cross, ps.differ == 0, ps.row_hash)


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
    pairs = candidate_pairs(game, knobs_a, knobs_b, level, keys, frame_a, frame_b)
    return compare_rows(pairs, paired_parts(frame_a, frame_b, pairs), frame_a.height, conf)


def candidate_pairs(game: Game, knobs_a, knobs_b, level: str, keys: Collection[str] | None,
                    frame_a: pl.DataFrame | pl.LazyFrame, frame_b: pl.DataFrame | pl.LazyFrame | None = None
                    ) -> list[tuple[MetricDef, MetricDef]]:
    """(A's metric, B's metric) for every key both variants define (``knobs_b`` None: A's
    knobs), on frames of these columns; ``keys`` keeps only those metrics."""
    frame_b = frame_a if frame_b is None else frame_b
    defs_b = {d.key: d for d in game_defs(game, frame_b, knobs_a if knobs_b is None else knobs_b, level)}
    return [(d, defs_b[d.key]) for d in game_defs(game, frame_a, knobs_a, level)
            if d.key in defs_b and (keys is None or d.key in keys)]


def compare_rows(pairs: list[tuple[MetricDef, MetricDef]], parts: list[PairedParts], size: int,
                 conf: float = DEFAULT_CONF) -> list[CompareRow]:
    """The comparison's rows from each pair's exact parts (``paired_parts``, or the sum of
    its chunks'), over ``size`` deals; a metric either variant does not show (its
    ``min_n`` or ``shown_if``) is left out."""
    kept = [(pair, p) for pair, p in zip(pairs, parts, strict=True)
            if shown(pair[0], p[0]) and shown(pair[1], p[1])]
    pairs = [pair for pair, _ in kept]
    found = [(estimate_of(da, p[0], conf), estimate_of(db, p[1], conf),
              paired_moments_of(da, db, p, size)) for (da, db), p in kept]
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


def _chunk_parts(frame_a: pl.DataFrame, frame_b: pl.DataFrame, start: int, count: int, *,
                 game: Any, knobs_a: Any, knobs_b: Any, level: str
                 ) -> tuple[list[str], list[PairedParts]]:
    """A chunk's reduction, where it ran: its metrics' keys and exact parts (the metric
    definitions depend only on the columns, so every chunk builds the same ones)."""
    g = game_from_ref(game)
    pairs = candidate_pairs(g, knobs_a, knobs_b, level, None, frame_a, frame_b)
    return [d.key for d, _ in pairs], paired_parts(frame_a, frame_b, pairs, offset=start)


def compare_reduced(pa: Plan, pb: Plan, conf: float = DEFAULT_CONF, *, backend: str = "loky",
                    scheduler: str | None = None) -> list[CompareRow]:
    """``compare_frames`` without gathering rows: each chunk of deals is played under A
    and B in the same task and reduced there to its metrics' exact parts; only those
    travel, and their sum gives the same rows, to the last bit, as the whole frames."""
    return _compare_reduced(pa, pb, conf, backend=backend, scheduler=scheduler)[0]


def compare_report_run(pa: Plan, pb: Plan, report_dir: Path, conf: float = DEFAULT_CONF, *,
                       backend: str = "loky", scheduler: str | None = None,
                       report_b: bool = True) -> tuple[list[CompareRow], Any]:
    """``compare_reduced`` for a report. On B (``report_b``): each task also reduces B's
    chunk to its ``ReportSums`` and writes both chunks' rows; they are merged into
    ``report_dir/results.parquet`` (B) and ``results_a.parquet`` (A); returns the rows and
    B's sums. On A (whose own run wrote its rows): B's rows go to ``results_b.parquet``;
    returns the rows and None."""
    return _compare_reduced(pa, pb, conf, backend=backend, scheduler=scheduler,
                            report_dir=report_dir, report_b=report_b)


def _chunk_report_parts(frame_a: pl.DataFrame, frame_b: pl.DataFrame, start: int, count: int,
                        *, parts: Any, report: Any) -> tuple:
    return (parts(frame_a, frame_b, start, count),
            report(frame_b, start, count) if report is not None else None)


def _compare_reduced(pa: Plan, pb: Plan, conf: float, *, backend: str = "loky",
                     scheduler: str | None = None, report_dir: Path | None = None,
                     report_b: bool = True) -> tuple[list[CompareRow], Any]:
    from simlab.analysis.report_sums import report_run, warm_figures
    from simlab.engine.runner import merge_part_files, part_files, scratch_parts

    whole_a, whole_b = pa, pb
    pa, pb = grouped(pa), grouped(pb)
    one = [execute(replace(p, n=1, chunk_size=1, jobs=1, progress=False)) for p in (pa, pb)]
    pairs = candidate_pairs(pa.game, pa.knobs, pb.knobs, pa.level, None, one[0], one[1])
    keys = [d.key for d, _ in pairs]
    reduce = partial(_chunk_parts, game=game_ref(pa.game), knobs_a=pa.knobs, knobs_b=pb.knobs,
                     level=pa.level)
    sums = None
    if report_dir is None:
        chunks = execute_paired_reduced(pa, pb, reduce, backend=backend, scheduler=scheduler)
    else:
        run = report_run(pb) if report_b else None
        both = partial(_chunk_report_parts, parts=reduce,
                       report=run.reduce if run is not None else None)
        try:
            with scratch_parts(Path(report_dir)) as scratch:
                folders = (scratch / "a", scratch / "b")
                for f in folders:
                    f.mkdir()
                got = execute_paired_reduced(pa, pb, both, backend=backend,
                                             scheduler=scheduler, folders=folders)
                warm_figures()
                if run is not None:  # a report on B: B is the run, A the other variant
                    merge_part_files(part_files(folders[1]),
                                     Path(report_dir) / "results.parquet", whole_b)
                    merge_part_files(part_files(folders[0]),
                                     Path(report_dir) / "results_a.parquet", whole_a)
                else:  # a report on A (its own run wrote its rows): B's rows only
                    merge_part_files(part_files(folders[1]),
                                     Path(report_dir) / "results_b.parquet", whole_b)
        except OSError as e:  # a full disk, a folder made read-only meanwhile...
            from simlab.engine.knobs import SimlabError

            raise SimlabError(f"cannot write the results into {str(report_dir)!r}: "
                              f"{e.strerror or e}; free some space or give another --out, "
                              "and run again") from None
        chunks = [c for c, _ in got]
        sums = run.total([s for _, s in got]) if run is not None else None
    for got_keys, _ in chunks:
        if got_keys != keys:  # a game whose metric definitions read the data, not the columns
            raise RuntimeError(f"{pa.game.slug}: a chunk defines other metrics than its "
                               "columns give; metric definitions must not depend on the rows")
    return compare_rows(pairs, merge_parts([parts for _, parts in chunks]), pa.n, conf), sums


def _chunk_sums(frame: pl.DataFrame, *, game: Any, knobs: Any, level: str
                ) -> tuple[list[str], list[Moments], tuple[Moments, ...]]:
    """A chunk's reduction for ``measure_reduced``, where it ran: its metrics' keys and
    exact sums (``metrics.MetricSums`` without the definitions, which stay here)."""
    g = game_from_ref(game)
    sums = metric_sums(g, frame, knobs, level)
    return [d.key for d in sums.defs], sums.moments, sums.joint


def measure_reduced(p: Plan, conf: float = DEFAULT_CONF, *, backend: str = "loky",
                    scheduler: str | None = None) -> MetricSet:
    """``compute(execute(p))`` without gathering rows: each chunk is reduced to its exact
    sums where it ran and the sums are added here (the same figures, to the last bit)."""
    p = grouped(p)
    one = execute(replace(p, n=1, chunk_size=1, jobs=1, progress=False))
    defs = game_defs(p.game, one, p.knobs, p.level)
    keys = [d.key for d in defs]
    reduce = partial(_chunk_sums, game=game_ref(p.game), knobs=p.knobs, level=p.level)
    total = None
    for got, moments, joint in execute_reduced(p, reduce, backend=backend, scheduler=scheduler):
        if got != keys:
            raise RuntimeError(f"{p.game.slug}: a chunk defines other metrics than its "
                               "columns give; metric definitions must not depend on the rows")
        part = MetricSums(defs, moments, joint)
        total = part if total is None else total + part
    assert total is not None
    return compute_from(total, conf)


def compare(game: Game, n: int, *, a: dict[str, Any] | None = None, b: dict[str, Any] | None = None,
            seed: int = 0, policies_a: str = "heuristic", policies_b: str | None = None,
            level: str = "deal", jobs: int = 1, conf: float = DEFAULT_CONF,
            progress: bool | None = None) -> pl.DataFrame:
    """Run variants A and B on the same deals and compare every metric: one row per
    metric (A, B, B - A with intervals, Holm-adjusted p). ``compare_runs`` takes the same
    arguments and also keeps the runs' plans and frames (what a report needs)."""
    return compare_runs(game, n, a=a, b=b, seed=seed, policies_a=policies_a,
                        policies_b=policies_b, level=level, jobs=jobs, conf=conf,
                        progress=progress, keep_frames=False).to_polars()


def compare_runs(game: Game, n: int, *, a: dict[str, Any] | None = None,
                 b: dict[str, Any] | None = None, seed: int = 0, policies_a: str = "heuristic",
                 policies_b: str | None = None, level: str = "deal", jobs: int = 1,
                 conf: float = DEFAULT_CONF, progress: bool | None = None,
                 keep_frames: bool = True, backend: str = "loky",
                 scheduler: str | None = None, report_dir: str | Path | None = None,
                 report_b: bool = True) -> CompareResult:
    """Run variants A and B on the same deals and compare every metric. With
    ``keep_frames`` both runs' rows are gathered and kept; otherwise each chunk is
    measured where it ran (``compare_reduced``), the same rows in memory that does not
    grow with ``n`` (``frame_a``, ``frame_b``: None). With ``report_dir`` (for a report
    on B), the chunks are also reduced to B's report sums (``sums_b``) and both runs'
    rows are written there (``compare_report_run``; ``report_b=False``: a report on A,
    only B's rows are written, to ``results_b.parquet``)."""
    pa = plan(game, n, seed=seed, params=a or {}, policies=policies_a, jobs=jobs, level=level,
              progress=progress)
    pb = plan(game, n, seed=seed, params=b or {}, policies=policies_b or policies_a, jobs=jobs,
              level=level, progress=progress)
    if report_dir is not None:
        rows, sums = compare_report_run(pa, pb, Path(report_dir), conf, backend=backend,
                                        scheduler=scheduler, report_b=report_b)
        written = ("results.parquet", "results_a.parquet") if report_b else ("results_b.parquet",)
        return CompareResult(pa.game, pa, pb, rows, None, None, conf, sums_b=sums,
                             written=written)
    if not keep_frames:
        rows = compare_reduced(pa, pb, conf, backend=backend, scheduler=scheduler)
        return CompareResult(pa.game, pa, pb, rows, None, None, conf)
    fa = execute(pa, backend=backend, scheduler=scheduler)
    fb = execute(pb, backend=backend, scheduler=scheduler)
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
    from simlab.engine.knobs import SimlabError

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
    p = plan(game_from_ref(game), n, seed=seed, params=params, policies=policies, jobs=1,
             level=level, progress=False)
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
        for p in plans:  # each point on every core, measured chunk by chunk where it ran
            yield measure_reduced(p, conf)
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


def sweep(game: Game, n: int, grid: dict[str, list[Any]], *, base: dict[str, Any] | None = None,
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
