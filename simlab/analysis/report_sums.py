"""What a report reads of a run's rows, as exact sums that add up over any split of them.

A report shows the run's metrics, its health checks (``players_check``), the findings'
paired controls (this run's deals replayed under a control's rules) and companion runs,
and the distributions of the scores and of the match length. Every one of them is a
function of a ``ReportSums``: built where a chunk of deals was played
(``runner.execute_reduced`` with ``parts``: the worker also writes the chunk's rows to
disk) and added in the parent, or built from a whole frame in one go. The two give the
same report, to the last bit, whatever the jobs or chunk size: counts are integers, and
the sums come from ``simlab.analysis.sums`` (exact).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import polars as pl

from simlab.analysis.metrics import MetricDef, MetricSums, game_defs, metric_moments, metric_sums
from simlab.analysis.sums import Counts, Moments, moments_of  # noqa: F401  (Counts: read from here too)

# --- the game's findings that need other runs of the same deals ---------------------------


def raw_findings(game) -> list[dict[str, Any]] | None:
    """The game's own ``FINDINGS`` (dicts, see ``report.FindingSpec``), or None."""
    fn = game.extra.get("metrics")
    module = sys.modules.get(getattr(fn, "__module__", "") or "")
    return getattr(module, "FINDINGS", None)


def control_run(knobs, policies: tuple[str, ...], control: dict[str, Any]
                ) -> tuple[Any, tuple[str, ...]]:
    """(knobs, policies) of a control or companion run: ``control``'s knob values, and its
    ``seat_values`` (per-seat player options) appended to those seats' policies."""
    values = dict(control)
    out = list(policies)
    for seat, over in values.pop("seat_values", {}).items():
        out[seat] = ":".join([out[seat]] + [f"{k}={str(v).lower()}" for k, v in over.items()])
    return replace(knobs, **values), tuple(out)


def tag_of(values: dict[str, Any]) -> str:
    return repr(sorted(values.items()))


@dataclass(frozen=True)
class OtherRuns:
    """The runs of this run's deals under other rules that its findings read: per paired
    control, (tag, knobs, policies, paired expression); per companion, (tag, knobs,
    policies). A control is run when the run defines its metric; a companion when the run
    may not show its metric (undefined, or shown only when the data say so): which metrics
    are shown is known once every chunk's sums are added."""

    controls: tuple[tuple[str, Any, tuple[str, ...], pl.Expr], ...] = ()
    companions: tuple[tuple[str, Any, tuple[str, ...]], ...] = ()


def other_runs(game, knobs, policies: tuple[str, ...], level: str, defs: list[MetricDef]
               ) -> OtherRuns:
    keys = {d.key for d in defs}
    sure = {d.key for d in defs if d.min_n <= 0 and d.shown_if is None}
    raw = raw_findings(game) or []
    n = game.players(knobs)
    controls, companions, seen = [], [], set()
    for spec in raw:
        if spec.get("control") is not None and spec.get("paired") is not None \
                and spec["key"] in keys:
            tag = f"{spec['key']}|{tag_of(spec['control'])}"
            if tag not in seen:
                seen.add(tag)
                controls.append((tag, *control_run(knobs, policies, spec["control"]),
                                 spec["paired"](n).cast(pl.Float64)))
        elif spec.get("companion") is not None and spec["key"] not in sure and level == "deal":
            tag = tag_of(spec["companion"])
            if tag not in seen:
                seen.add(tag)
                companions.append((tag, *control_run(knobs, policies, spec["companion"])))
    return OtherRuns(tuple(controls), tuple(companions))


# --- the health checks --------------------------------------------------------------------
def check_defs(game, knobs, level: str, columns: list[str]) -> list[MetricDef]:
    """The rates behind the run's own health checks (``players_check.checks_from``), keyed
    ``check.capped``, ``check.nobody_takes`` and ``check.decision.<i>`` (each decision
    kind, ``players_check.decision_kinds``, in order)."""
    out = []
    if "capped" in columns:
        out.append(MetricDef("check.capped", "capped", "checks", pl.col("capped")))
    if level == "deal" and "taker" in columns:
        out.append(MetricDef("check.nobody_takes", "nobody takes", "checks",
                             ~(pl.col("taker") >= 0)))
    if level == "deal":
        from simlab.analysis.decisions import decision_kinds

        for i, (title, expr, where, _) in enumerate(decision_kinds(game, knobs, columns)):
            out.append(MetricDef(f"check.decision.{i}", title, "checks", expr, where))
    return out


def check_sums(game, knobs, level: str, frame: pl.DataFrame
               ) -> tuple[list[Moments], dict[str, tuple[int, int, int]]]:
    """What ``players_check.checks_from`` reads of ``frame``."""
    return metric_moments(frame, check_defs(game, knobs, level, frame.columns)), \
        bid_counts(frame, level)


def bid_counts(frame: pl.DataFrame, level: str) -> dict[str, tuple[int, int, int]]:
    """Per contract label among taken deals: (deals, deals with ``made`` known, made)."""
    cols = frame.columns
    if level != "deal" or not {"taker", "contract", "made"} <= set(cols):
        return {}
    got = (frame.lazy().filter(pl.col("taker") >= 0)
           .group_by(pl.col("contract").cast(pl.String))
           .agg(pl.len().alias("n"), pl.col("made").count().alias("known"),
                pl.col("made").cast(pl.Int64).sum().alias("made"))
           .collect(engine="in-memory"))
    return {r["contract"]: (int(r["n"]), int(r["known"]), int(r["made"] or 0))
            for r in got.iter_rows(named=True)}


# --- distributions -----------------------------------------------------------------------
def score_prefix(columns: list[str], level: str) -> str | None:
    """The score columns a report's distributions show: per deal, else the final ones."""
    cands = ("score_s", "final_score_s") if level == "deal" else ("final_score_s", "score_s")
    for c in cands:
        if f"{c}0" in columns:
            return c
    return None


def distribution_columns(columns: list[str], level: str, n_players: int) -> list[str]:
    prefix = score_prefix(columns, level)
    out = [f"{prefix}{i}" for i in range(n_players)] if prefix is not None else []
    if level == "match" and "n_deals" in columns:
        out.append("n_deals")
    return out


# --- the sums ------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportSums:
    """Everything a report reads of a run's rows. ``metrics`` and each companion's sums
    travel without their definitions (``keys``, moments, joint) and get them back from
    ``with_defs``; every other field is plain counts and exact sums."""

    rows: int
    metrics: MetricSums | tuple
    checks: list[Moments]
    bids: dict[str, tuple[int, int, int]]
    distributions: dict[str, Counts]
    same: dict[tuple[int, int], bool]  # score columns equal on every row
    controls: dict[str, Moments] = field(default_factory=dict)  # (this run, control) per row
    companions: dict[str, MetricSums | tuple] = field(default_factory=dict)
    schema: pl.Schema | None = None  # of the rows

    def __add__(self, other: ReportSums) -> ReportSums:
        def add_bids(a: dict, b: dict) -> dict:
            out = dict(a)
            for k, v in b.items():
                out[k] = tuple(x + y for x, y in zip(out.get(k, (0, 0, 0)), v, strict=True))
            return out

        return ReportSums(
            self.rows + other.rows, _add_metric(self.metrics, other.metrics),
            [a + b for a, b in zip(self.checks, other.checks, strict=True)],
            add_bids(self.bids, other.bids),
            {k: self.distributions[k] + other.distributions[k] for k in self.distributions},
            {k: self.same[k] and other.same[k] for k in self.same},
            {k: self.controls[k] + other.controls[k] for k in self.controls},
            {k: _add_metric(self.companions[k], other.companions[k]) for k in self.companions},
            self.schema)

    def capped(self, game, knobs, level: str) -> int | None:
        """Rows stopped by a safety cap (None: the game has no cap column)."""
        for d, m in zip(check_defs(game, knobs, level, list(self.schema.names())), self.checks,
                        strict=True):
            if d.key == "check.capped":
                return int(m.s1[0])
        return None

    def with_defs(self, defs: list[MetricDef], companion_defs: dict[str, list[MetricDef]]
                  ) -> ReportSums:
        return replace(self, metrics=_attach(self.metrics, defs),
                       companions={k: _attach(v, companion_defs[k])
                                   for k, v in self.companions.items()})

    def stripped(self) -> ReportSums:
        """The same sums without metric definitions (polars expressions stay where they
        were built: every process builds the same ones from the columns)."""
        return replace(self, metrics=_strip(self.metrics),
                       companions={k: _strip(v) for k, v in self.companions.items()})


def _strip(s: MetricSums | tuple) -> tuple:
    return s if isinstance(s, tuple) else ([d.key for d in s.defs], s.moments, s.joint)


def _attach(s: MetricSums | tuple, defs: list[MetricDef]) -> MetricSums:
    if isinstance(s, MetricSums):
        return s
    keys, moments, joint = s
    if keys != [d.key for d in defs]:  # a game whose metric definitions read the rows
        raise RuntimeError("a chunk defines other metrics than its columns give; metric "
                           "definitions must not depend on the rows")
    return MetricSums(defs, moments, joint)


def _add_metric(a: MetricSums | tuple, b: MetricSums | tuple) -> MetricSums | tuple:
    if isinstance(a, MetricSums) and isinstance(b, MetricSums):
        return a + b
    ka, ma, ja = _strip(a)
    kb, mb, jb = _strip(b)
    if ka != kb:
        raise ValueError("report sums of different metric definitions cannot be added")
    return (ka, [x + y for x, y in zip(ma, mb, strict=True)],
            tuple(x + y for x, y in zip(ja, jb, strict=True)))


def paired_moments(frame: pl.DataFrame, control: pl.DataFrame, expr: pl.Expr) -> Moments:
    """Moments of (this run's value, the control's) over the rows where both exist."""
    a = frame.select(expr.alias("v")).to_series()
    b = control.select(expr.alias("v")).to_series()
    both = pl.DataFrame({"a": a, "b": b}).drop_nulls()
    return moments_of(both.to_numpy().astype(np.float64).reshape(-1, 2))


def report_sums(game, knobs, level: str, frame: pl.DataFrame, *,
                controls: dict[str, pl.DataFrame] | None = None,
                companions: dict[str, pl.DataFrame] | None = None,
                other: OtherRuns | None = None) -> ReportSums:
    """``ReportSums`` of ``frame``; ``controls``/``companions``: the same rows played under
    the ``other`` runs' rules (by tag)."""
    cols = frame.columns
    n = game.players(knobs)
    other = other or OtherRuns()
    prefix = score_prefix(cols, level)
    same = {}
    if prefix is not None:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        if pairs:
            row = frame.select([(pl.col(f"{prefix}{i}") == pl.col(f"{prefix}{j}")).all()
                                .alias(f"{i}_{j}") for i, j in pairs]).row(0)
            same = {p: bool(v) if v is not None else True for p, v in zip(pairs, row, strict=True)}
    comp = {}
    for tag, knobs_c, _ in other.companions:
        comp[tag] = metric_sums(game, companions[tag], knobs_c, level)
    return ReportSums(
        frame.height, metric_sums(game, frame, knobs, level),
        *check_sums(game, knobs, level, frame),
        {c: Counts.of(frame.get_column(c)) for c in distribution_columns(cols, level, n)},
        same,
        {tag: paired_moments(frame, controls[tag], expr) for tag, _, _, expr in other.controls},
        comp, frame.schema)


def chunk_report_sums(frame: pl.DataFrame, start: int, count: int, *, game: Any, knobs: Any,
                      policies: tuple[str, ...], seed: int, level: str, record_hands: bool,
                      other: OtherRuns) -> ReportSums:
    """A chunk's ``ReportSums`` where it was played: its control and companion runs are
    played here too, on the same deals, and only the sums leave (no definitions)."""
    from simlab.engine.game import game_from_ref
    from simlab.engine.runner import run_chunk

    g = game_from_ref(game)

    def play(k: Any, pol: tuple[str, ...]) -> pl.DataFrame:
        return run_chunk(g, k, pol, seed, level, record_hands, start, count)

    controls = {tag: play(k, pol) for tag, k, pol, _ in other.controls}
    companions = {tag: play(k, pol) for tag, k, pol in other.companions}
    return report_sums(g, knobs, level, frame, controls=controls, companions=companions,
                       other=other).stripped()


# --- a run's sums: from a frame in hand, or played chunk by chunk where it runs ------------
def frame_report_sums(plan, frame: pl.DataFrame) -> ReportSums:
    """``ReportSums`` of a run's whole ``frame`` (``plan``: the run); the findings' control
    and companion runs of the same deals are played here (on ``plan.jobs`` cores)."""
    from simlab.engine.runner import execute

    g = plan.game
    other = other_runs(g, plan.knobs, plan.policies, plan.level,
                       game_defs(g, frame.head(1), plan.knobs, plan.level))

    def play(k: Any, pol: tuple[str, ...]) -> pl.DataFrame:
        return execute(replace(plan, knobs=k, policies=pol, variant=None))

    return report_sums(g, plan.knobs, plan.level, frame,
                       controls={t: play(k, pol) for t, k, pol, _ in other.controls},
                       companions={t: play(k, pol) for t, k, pol in other.companions},
                       other=other)


@dataclass(frozen=True)
class ReportRun:
    """What the workers need to reduce a run's chunks for a report, and what the parent
    needs to add their sums: built once from one-row probes of the columns."""

    defs: list[MetricDef]
    companion_defs: dict[str, list[MetricDef]]
    reduce: Any  # chunk_report_sums with this run's settings (picklable)
    # each deal's work in plain runs of it: played and reduced, with its other runs
    cost: float = 2.0

    def total(self, chunks: list[ReportSums]) -> ReportSums:
        out = chunks[0]
        for c in chunks[1:]:
            out = out + c
        return out.with_defs(self.defs, self.companion_defs)


def report_run(p) -> ReportRun:
    """``ReportRun`` of plan ``p`` (chunked as ``compare.grouped`` keeps it)."""
    from functools import partial

    from simlab.engine.runner import execute, game_ref

    g = p.game

    def one_row(k: Any, pol: tuple[str, ...]) -> pl.DataFrame:
        return execute(replace(p, knobs=k, policies=pol, n=1, chunk_size=1, jobs=1,
                               progress=False, variant=None))

    defs = game_defs(g, one_row(p.knobs, p.policies), p.knobs, p.level)
    other = other_runs(g, p.knobs, p.policies, p.level, defs)
    companion_defs = {t: game_defs(g, one_row(k, pol), k, p.level)
                      for t, k, pol in other.companions}
    return ReportRun(defs, companion_defs,
                     partial(chunk_report_sums, game=game_ref(g), knobs=p.knobs,
                             policies=p.policies, seed=p.seed, level=p.level,
                             record_hands=p.record_hands, other=other),
                     2.0 * (1 + len(other.controls) + len(other.companions)))


def start_report_workers(plan, backend: str = "loky") -> bool:
    """Start the worker processes of a surely long report run of ``plan`` now, before this
    process's own preparation (``runner.start_workers``); whether it did."""
    from simlab.engine.runner import grouped, start_workers

    return start_workers(grouped(plan), ReportRun.cost, backend)


def warm_figures() -> None:
    """Have the run's live workers, if any, load matplotlib now: they draw some of the
    report's figures, while this process merges the parts and builds the report."""
    from simlab.analysis import plots
    from simlab.engine import pool

    workers = pool.current()
    if workers is not None:
        workers.warm(plots.warm_up, ())


class _Rounds:
    """``round_report_sums``'s measure: each call plays a plan's chunks where they run
    (parts numbered on from the earlier rounds') and returns their ``ReportSums``."""

    def __init__(self, run: ReportRun, scratch, results, backend: str = "loky",
                 scheduler: str | None = None) -> None:
        self.run, self.scratch, self.results, self.offset = run, scratch, results, 0
        self.backend, self.scheduler = backend, scheduler

    def __call__(self, q) -> ReportSums:
        from simlab.engine.runner import execute_parts_reduced, grouped

        q = grouped(q)
        chunks = execute_parts_reduced(q, self.scratch, self.run.reduce, self.run.cost,
                                       self.offset, backend=self.backend,
                                       scheduler=self.scheduler)
        self.offset += len(q.chunks)
        return self.run.total(chunks)

    def finish(self, whole) -> None:
        """Merge every round's parts into the results file (``whole``: the run)."""
        from simlab.engine.runner import merge_part_files, part_files

        warm_figures()
        merge_part_files(part_files(self.scratch), self.results, whole)


@contextlib.contextmanager
def round_report_sums(plan, results, backend: str = "loky", scheduler: str | None = None
                      ) -> Iterator[_Rounds]:
    """A measure for runs of ``plan``'s deals in one or more rounds (``plan``, then
    ``plan.extended(...)``), each reduced to its ``ReportSums`` where it is played (here,
    in local workers, or on a dask or ray cluster) and written as parts; ``finish`` merges
    them into ``results``. An error writing them is one line (``SimlabError``), and the
    parts are removed either way."""
    from pathlib import Path

    from simlab.engine.knobs import SimlabError
    from simlab.engine.runner import grouped, scratch_parts

    results = Path(results)
    run = report_run(grouped(plan))
    try:
        with scratch_parts(results.parent) as scratch:
            yield _Rounds(run, scratch, results, backend, scheduler)
    except OSError as e:  # a full disk, a folder made read-only meanwhile...
        raise SimlabError(f"cannot write the results into {str(results.parent)!r}: "
                          f"{e.strerror or e}; free some space or give another --out, and run "
                          "again") from None


def run_report_sums(plan, results, backend: str = "loky", scheduler: str | None = None
                    ) -> ReportSums:
    """Play ``plan`` for a report without gathering its rows: each chunk is played where a
    worker (or this process) takes it, with its control and companion runs, written to a
    part file and reduced to its ``ReportSums`` there; the parts are then merged on disk
    into ``results`` (Parquet with the run's provenance) and the sums added here."""
    with round_report_sums(plan, results, backend, scheduler) as measure:
        total = measure(plan)
        measure.finish(plan)
    return total


__all__ = ["Counts", "OtherRuns", "ReportRun", "ReportSums", "bid_counts", "check_defs",
           "check_sums", "chunk_report_sums", "control_run", "frame_report_sums",
           "other_runs", "paired_moments", "raw_findings", "report_run", "report_sums",
           "round_report_sums", "run_report_sums", "score_prefix", "start_report_workers",
           "warm_figures"]
