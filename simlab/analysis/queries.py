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

from simlab.analysis.metrics import MetricSet, compute_from, metric_sums
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import Plan, execute, execute_reduced
from simlab.engine.stats import DEFAULT_CONF, Estimate, proportion, rate, true_and_counted


def parse_expr(text: str) -> pl.Expr:
    """A polars expression from text such as ``"pl.col('capot')"`` (only ``pl`` is in
    scope)."""
    try:
        expr = eval(text, {"__builtins__": {}}, {"pl": pl})  # noqa: S307 - the user's own query
    except NameError as e:  # a bare column name: capot for pl.col('capot')
        name = getattr(e, "name", None) or "NAME"
        raise SimlabError(f"cannot read expression {text!r}: {name!r} is not defined (only pl "
                          f"is); a column is written pl.col({name!r})") from None
    except Exception as e:
        raise SimlabError(f"cannot read expression {text!r}: {type(e).__name__}: {e}") from None
    if not isinstance(expr, pl.Expr):
        raise SimlabError(f"expression {text!r} is a {type(expr).__name__}, not a polars "
                          "expression such as pl.col('capot')")
    return expr


# Expression nodes evaluated row by row: a chunk's values are the whole run's values of
# its rows. Anything else (aggregations, windows, shifts, ranks, cumulative functions,
# duplicates, Python functions, nodes unknown here) is evaluated on the whole columns.
_ROW_NODES = {"Column", "Literal", "BinaryExpr", "Cast", "Ternary", "Alias", "KeepName",
              "Function", "Eval", "Selector"}
_ROW_FUNCTIONS = {
    "Abs", "Negate", "FillNull", "Replace", "ReplaceStrict", "Log", "Log1p", "Exp", "Sign",
    "Floor", "Ceil", "Coalesce", "MaxHorizontal", "MinHorizontal", "SumHorizontal",
    "MeanHorizontal", "Round", "Clip", "Pow", "ListExpr", "StringExpr", "Trigonometry",
    "FillNan"}
_ROW_BOOLEAN = {"IsNull", "IsNotNull", "Not", "IsNan", "IsNotNan", "IsFinite", "IsInfinite",
                "IsBetween", "IsIn", "AnyHorizontal", "AllHorizontal"}
# the string functions that join or gather rows
_ROWS_STRING = {"ConcatVertical", "Join"}


def _first_key(node: Any) -> str:
    return node if isinstance(node, str) else next(iter(node), "") if isinstance(node, dict) else ""


def _walk(node: Any, columns: set[str], found: list[str]) -> bool:
    """Whether the serialized expression ``node`` is evaluated row by row; adds the
    columns it reads to ``columns`` ("*" for a selector) and what is not row by row to
    ``found``."""
    if isinstance(node, str):  # "Len", "Element", ...
        if node == "Element":
            return True
        found.append(node)
        return False
    if isinstance(node, list):
        return all([_walk(x, columns, found) for x in node])
    if not isinstance(node, dict):
        return True
    kind = _first_key(node)
    body = node[kind]
    if kind not in _ROW_NODES:
        found.append(kind)
        _collect_columns(body, columns)
        return False
    if kind == "Column":
        columns.add(body)
        return True
    if kind == "Selector":
        columns.add("*")
        return True
    if kind == "Literal":
        if _first_key(body) in ("Dyn", "Scalar"):
            return True
        found.append("a literal series")
        return False
    if kind == "Eval":  # list.eval: the evaluation runs inside each row's list
        ok = body.get("variant") == "List"
        if not ok:
            found.append("cumulative_eval")
        return _walk(body.get("expr"), columns, found) and ok
    if kind == "Function":
        fn = body.get("function")
        name = _first_key(fn)
        sub = _first_key(fn[name]) if isinstance(fn, dict) else ""
        ok = (name in _ROW_FUNCTIONS and not (name == "StringExpr" and sub in _ROWS_STRING)) \
            or (name == "Boolean" and sub in _ROW_BOOLEAN)
        if not ok:
            found.append(sub if name == "Boolean" else name)
        return _walk(body.get("input", []), columns, found) and ok
    if kind == "Alias":
        return _walk(body[0], columns, found)
    if kind == "KeepName":
        return _walk(body, columns, found)
    parts = {"BinaryExpr": ("left", "right"), "Cast": ("expr",),
             "Ternary": ("predicate", "truthy", "falsy")}[kind]
    return _walk([body.get(k) for k in parts], columns, found)


def _collect_columns(node: Any, columns: set[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "Column" and isinstance(v, str):
                columns.add(v)
            elif k == "Selector":
                columns.add("*")
            else:
                _collect_columns(v, columns)
    elif isinstance(node, list):
        for x in node:
            _collect_columns(x, columns)


def rows_needed(expr: pl.Expr) -> tuple[list[str], set[str]]:
    """(what makes ``expr``'s value on a row depend on other rows, the columns it reads):
    an empty first list means row by row, so counting chunk by chunk gives the whole
    run's answer. Read from the expression's serialized tree; an expression that cannot
    be serialized (a Python function) depends on other rows."""
    import json

    try:
        tree = json.loads(expr.meta.serialize(format="json"))
    except Exception:  # noqa: BLE001 - map_elements & co.: polars cannot serialize them
        return ["a Python function"], {"*"}
    columns: set[str] = set()
    found: list[str] = []
    _walk(tree, columns, found)
    return list(dict.fromkeys(found)), columns


def _select_columns(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """A chunk's ``columns`` (``execute_reduced``'s reduction for an expression over whole
    columns)."""
    return frame.select(columns)


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
    for x, flag in ((e, "the expression"), (w, "--where")):
        _refuse_scalar(x, flag)
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


def _refuse_scalar(x: pl.Expr | None, flag: str) -> None:
    """A question is asked of every row: an expression with one value for the whole run
    (``pl.col('deal').sum() > 0``) has no rate."""
    if x is None:
        return
    try:
        scalar = x.meta.is_scalar()
    except Exception:  # noqa: BLE001 - polars cannot tell without a schema
        return
    if scalar:
        raise SimlabError(f"{flag} gives one value for the whole run, not one per row; "
                          "compare each row with it, e.g. pl.col('score_s0') > "
                          "pl.col('score_s0').mean()")


def _cannot_evaluate(ex: Exception, columns: list[str]) -> SimlabError:
    """One line for an expression polars could not evaluate, with the valid columns."""
    first = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
    first = first.split("; valid columns")[0]
    import re

    from simlab.engine.knobs import did_you_mean

    missing = re.search(r'unable to find column "([^"]*)"', first)
    if missing:
        first += did_you_mean(missing[1], columns)
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
    probe = pl.concat([one_row] * 3)  # an expression that drops or adds rows has no rate
    for x, flag in ((e, "the expression"), (w, "--where")):
        if x is not None:
            try:
                height = probe.select(x).height
            except Exception:  # noqa: BLE001 - reported by the evaluation itself
                continue
            if height != probe.height:
                raise SimlabError(f"{flag} gives {height} values for {probe.height} rows (a "
                                  "filter, slice or gather?); a question needs one value per "
                                  "row: select rows with --where instead")
    needs: list[str] = []
    columns: set[str] = set()
    for x in (e, w):
        if x is not None:
            found, cols = rows_needed(x)
            needs += found
            columns |= cols
    if needs:
        # the answer on a row depends on other rows: evaluated on the whole run's columns,
        # gathered here (only the columns it reads), in deal order
        names = one_row.columns if "*" in columns else \
            [c for c in one_row.columns if c in columns] or one_row.columns[:1]
        parts = execute_reduced(p, partial(_select_columns, columns=names), backend=backend,
                                scheduler=scheduler)
        return how_often(pl.concat(parts), e, w, conf)
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

    from simlab.analysis.report_sums import round_report_sums

    _check_precision(p, target, max_n)
    results = Path(results)
    with round_report_sums(p, results, backend, scheduler) as measure:
        total, run = _rounds(p, target, max_n, conf, log, measure, lambda t: t.metrics)
        measure.finish(replace(p, n=run.n))
    run.sums = total
    return run
