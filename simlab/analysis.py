"""Questions asked of results: "how often ...?" and precision-driven runs.

``how_often`` evaluates a user's polars expression on a result frame; ``run_to_precision``
keeps simulating further deals (the same deals a bigger run would have had: deal ``i``
always gets stream ``i``) until every headline interval is narrow enough.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import polars as pl

from simlab.knobs import SimlabError
from simlab.metrics import MetricSet, compute_from, metric_sums
from simlab.runner import Plan, execute, execute_reduced
from simlab.stats import DEFAULT_CONF, Estimate, proportion, rate, true_and_counted


def parse_expr(text: str) -> pl.Expr:
    """A polars expression from text such as ``"pl.col('capot')"`` (only ``pl`` is in
    scope)."""
    try:
        expr = eval(text, {"__builtins__": {}}, {"pl": pl})  # noqa: S307 - the user's own query
    except Exception as e:
        raise SimlabError(f"cannot read expression {text!r}: {type(e).__name__}: {e}") from None
    if not isinstance(expr, pl.Expr):
        raise SimlabError(f"expression {text!r} is a {type(expr).__name__}, not a polars "
                          "expression such as pl.col('capot')")
    return expr


def check_labels(text: str, schema: pl.Schema) -> None:
    """Refuse a comparison of a labelled (Enum) column with a value it can never hold,
    e.g. ``pl.col('contract') == 'Garde'`` when the labels are lower case: polars would
    quietly answer "never". Looks for ``pl.col('x') == 'v'`` / ``!=`` / ``.is_in([...])``
    in the expression's text."""
    import ast

    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return

    def column(node: ast.AST) -> str | None:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "col" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            return node.args[0].value
        return None

    def check(name: str | None, values: list[ast.AST]) -> None:
        dtype = schema.get(name) if name else None
        if not isinstance(dtype, pl.Enum):
            return
        labels = list(dtype.categories)
        for v in values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value not in labels:
                raise SimlabError(f"column {name!r} never holds {v.value!r}; its values are: "
                                  f"{', '.join(labels)}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            left, right = node.left, node.comparators[0]
            check(column(left), [right])
            check(column(right), [left])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "is_in" and node.args \
                and isinstance(node.args[0], (ast.List, ast.Tuple, ast.Set)):
            check(column(node.func.value), list(node.args[0].elts))


def how_often(frame: pl.DataFrame | pl.LazyFrame, expr: pl.Expr | str,
              where: pl.Expr | str | None = None, conf: float = DEFAULT_CONF) -> Estimate:
    """Probability that boolean ``expr`` holds for a row (among ``where`` rows), with its
    interval and count. Nulls are not counted."""
    e = parse_expr(expr) if isinstance(expr, str) else expr
    w = parse_expr(where) if isinstance(where, str) else where
    lf = frame.lazy()
    schema = lf.collect_schema()
    columns = schema.names()
    for text in (expr, where):
        if isinstance(text, str):
            check_labels(text, schema)
    try:
        dtype = lf.select(e.alias("q")).collect_schema()["q"]
        if dtype != pl.Boolean:
            raise SimlabError(f"expression gives {dtype}, not a boolean; compare it, e.g. "
                              "pl.col('score_s0') > 100")
        return rate(lf, e, w, conf)
    except SimlabError:
        raise
    except Exception as ex:  # polars reports unknown columns and type errors variously
        raise _cannot_evaluate(ex, columns) from None


def _cannot_evaluate(ex: Exception, columns: list[str]) -> SimlabError:
    """One line for an expression polars could not evaluate, with the valid columns."""
    first = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
    first = first.split("; valid columns")[0]
    return SimlabError(f"cannot evaluate the expression: {first}; available columns: "
                       f"{', '.join(columns)}")


def how_often_run(p: Plan, expr: pl.Expr | str, where: pl.Expr | str | None = None,
                  conf: float = DEFAULT_CONF, *, backend: str = "loky",
                  scheduler: str | None = None) -> Estimate:
    """``how_often`` over the run ``p`` without gathering its rows: the expression is
    checked on one row's schema first (columns, types, labels), then each chunk is
    counted where it is simulated (``runner.execute_reduced``) and the counts are added.
    The same estimate as ``how_often(execute(p), ...)``, in memory that does not grow
    with ``p.n``; on a cluster (``backend`` dask or ray) only the counts cross the
    network."""
    from dataclasses import replace
    from functools import partial

    e = parse_expr(expr) if isinstance(expr, str) else expr
    w = parse_expr(where) if isinstance(where, str) else where
    one_row = execute(replace(p, n=1, chunk_size=1, jobs=1, progress=False))
    how_often(one_row, expr, where, conf)
    try:
        counts = execute_reduced(p, partial(true_and_counted, expr=e, where=w), backend=backend,
                                 scheduler=scheduler)
    except pl.exceptions.PolarsError as ex:  # a value of some row only (a strict cast, say)
        raise _cannot_evaluate(ex, one_row.columns) from None
    k = sum(c[0] for c in counts)
    n = sum(c[1] for c in counts)
    return proportion(k, n, conf)


@dataclass
class PrecisionRun:
    frame: pl.DataFrame | None  # None: reduced where played (``report_to_precision``)
    metrics: MetricSet
    target: float
    reached: bool
    limiting: str  # title of the widest headline interval (or of a headline with no interval)
    widest: float  # its half-width: the larger distance from the estimate to a bound (inf: none)
    rounds: int
    not_estimable: list[str] = field(default_factory=list)  # headline titles with no interval
    n: int = 0  # deals (or matches) run
    sums: Any = None  # the report's sums (``report_to_precision``)


def _headline_widths(ms: MetricSet) -> list[tuple[str, float]]:
    """(title, half-width) of every headline metric; a metric with no interval (n = 0, or a
    mean of one row) counts as infinitely wide, so it can never pass for precise."""
    out = []
    for m in ms.headline():
        hw = m.estimate.half_width if m.estimate.n > 0 else math.nan
        out.append((m.title, math.inf if math.isnan(hw) else hw))
    return out


def _check_precision(p: Plan, target: float, max_n: int) -> None:
    if not 0 < target < 1:
        raise SimlabError(f"--precision must be between 0 and 1 (a half-width such as 0.002), "
                          f"got {target}")
    if max_n < p.n:
        raise SimlabError(f"--max-deals ({max_n:,}) is smaller than the first batch ({p.n:,})")


def _rounds(p: Plan, target: float, max_n: int, conf: float, log: Any,
            measure: Callable[[Plan], Any], metric_sums_of: Callable[[Any], Any]
            ) -> tuple[Any, PrecisionRun]:
    """The rounds of a precision run: ``measure(plan)`` of the first batch, then of each
    further batch (``Plan.extended``), added up until every headline interval is narrow
    enough or ``max_n`` is done; ``metric_sums_of(total)``: its ``MetricSums``. Each round
    measures only its new deals. Returns the total and the run's summary (no frame)."""
    _check_precision(p, target, max_n)
    group = p.game.extra.get("row_group")
    k = max(1, int(group(p.knobs, p.level))) if group is not None else 1
    if k > 1 and p.n % k and p.n + k - p.n % k <= max_n:
        # rows measured together (a Double-Détente manche) must not straddle two rounds:
        # each round ends on a whole group
        p = replace(p, n=p.n + k - p.n % k, chunk_size=min(p.chunk_size, p.n + k - p.n % k))
    total = measure(p)
    last = p
    done = p.n
    rounds = 1
    while True:
        ms = compute_from(metric_sums_of(total), conf)
        widths = _headline_widths(ms)
        if not widths:
            raise SimlabError(f"{p.game.slug} has no headline metric at level {p.level!r} to "
                              "drive --precision")
        missing = [t for t, hw in widths if math.isinf(hw)]
        limiting, hw = max(widths, key=lambda x: x[1])
        finite = [w for _, w in widths if not math.isinf(w)]
        widest_finite = max(finite) if finite else math.inf
        if log is not None:
            text = f"{done:,} {p.unit}: widest headline interval ±{widest_finite:.4%}"
            if missing:
                text += f"; no interval yet for {', '.join(missing)}"
            log(text + f" ({limiting})")
        if hw <= target or done >= max_n:
            return total, PrecisionRun(None, ms, target, hw <= target, limiting, hw, rounds,
                                       missing, done)
        # Half-widths shrink like 1/sqrt(n): aim 10% past the estimate; a headline with no
        # interval yet (a rare condition) gets at least doubling.
        need = math.ceil(done * (widest_finite / target) ** 2 * 1.1) if finite else 0
        if missing:
            need = max(need, 2 * done)
        more = min(max(need - done, p.chunk_size), max_n - done)
        if k > 1 and more % k and done + more < max_n:  # rows measured together stay together
            more = min(more + k - more % k, max_n - done)
        last = last.extended(more)
        total = total + measure(last)
        done += more
        rounds += 1


@dataclass
class _Rows:
    """A precision run's rows so far and their metric sums (``run_to_precision``)."""

    frames: list[pl.DataFrame]
    sums: Any

    def __add__(self, other: _Rows) -> _Rows:
        return _Rows(self.frames + other.frames, self.sums + other.sums)


def run_to_precision(p: Plan, target: float, max_n: int, conf: float = DEFAULT_CONF,
                     log=None) -> PrecisionRun:
    """Simulate ``p`` (its ``n`` is the first batch), then further deals, until every
    headline metric's interval half-width (the larger distance from the estimate to a
    bound) is <= ``target`` (rates as fractions, e.g. 0.002 = 0.2 percentage points) or
    ``max_n`` deals are done. A headline metric with no interval (no qualifying row yet)
    keeps the run going and is listed in ``not_estimable`` if the cap stops it. The rows
    are gathered here (``report_to_precision`` keeps them where they are played)."""
    def measure(q: Plan) -> _Rows:
        frame = execute(q)
        return _Rows([frame], metric_sums(q.game, frame, q.knobs, q.level))

    rows, run = _rounds(p, target, max_n, conf, log, measure, lambda t: t.sums)
    run.frame = rows.frames[0] if len(rows.frames) == 1 else pl.concat(rows.frames)
    return run


def report_to_precision(p: Plan, target: float, max_n: int, results: Any,
                        conf: float = DEFAULT_CONF, log=None, *, backend: str = "loky",
                        scheduler: str | None = None) -> PrecisionRun:
    """``run_to_precision`` for a report without gathering rows: each round's chunks are
    played, reduced to the report's sums and written as parts where they run
    (``report_sums.run_report_sums``); the rounds' sums are added, and every part is
    merged into ``results`` at the end (the run's provenance: all its deals). The same
    deals, figures and rows as ``run_to_precision``."""
    from pathlib import Path

    from simlab.report_sums import round_report_sums

    _check_precision(p, target, max_n)
    results = Path(results)
    with round_report_sums(p, results, backend, scheduler) as measure:
        total, run = _rounds(p, target, max_n, conf, log, measure, lambda t: t.metrics)
        measure.finish(replace(p, n=run.n))
    run.sums = total
    return run
