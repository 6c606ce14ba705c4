"""Report figures: every function returns a matplotlib ``Figure`` drawn with the Agg
backend (no display, no pyplot global state), readable at a glance: a title, axis labels
with units, interval whiskers on every estimate and labels that do not overlap.

* ``estimates_bar`` — bars with interval whiskers for a list of metrics (rates in %);
* ``estimates_dots`` — dot-and-whisker on an axis fitted to the intervals (close rates);
* ``differences`` — differences from a reference with their intervals, around 0;
* ``score_histograms`` — per-seat (or per-team, when partners share a score) distributions;
* ``match_length`` — distribution of ``n_deals`` in a match-level frame;
* ``compare_forest`` — paired differences B − A with intervals, Holm-significant ones
  highlighted;
* ``sweep_curves`` — one metric against a swept knob, with error bars.

Save a figure with ``fig.savefig(path)``; nothing needs closing.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simlab.engine import stats
from simlab.engine.stats import PERCENT_UNITS, POINTS_UNITS, is_percent  # noqa: F401

if TYPE_CHECKING:
    from simlab.analysis.compare import CompareResult, SweepResult
    from simlab.analysis.metrics import Metric

DPI = 110
ACCENT = "#1f5f99"  # estimates
HIGHLIGHT = "#c0392b"  # significant differences
MUTED = "#8c8c8c"
WIDTH = 7.5  # inches


def _figure(w: float = WIDTH, h: float = 4.2) -> Figure:
    fig = Figure(figsize=(w, h), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def png_of(figure: Figure) -> bytes:
    """The figure drawn as PNG bytes (at ``DPI``), in whichever process runs this."""
    import io

    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def warm_up() -> None:
    """Draw a small figure: loads matplotlib and its fonts in a worker that will draw a
    report's figures (``report._Doc.render``) before they are ready."""
    fig = _figure(2.0, 1.5)
    fig.add_subplot().set_title("warm-up")
    png_of(fig)


def png_of_file(path: str) -> bytes:
    """``png_of`` a figure pickled to ``path`` (how a figure reaches a worker process)."""
    import pickle
    from pathlib import Path

    return png_of(pickle.loads(Path(path).read_bytes()))


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width)) or text


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _unit_label(kind: str, unit: str) -> str:
    if kind == "rate":
        return "rate (%)"
    if unit in PERCENT_UNITS:
        return f"{unit} (%)"
    if unit in POINTS_UNITS:
        return "difference (percentage points)"
    return f"mean ({unit})" if unit else "mean"


def _scale(kind: str, unit: str = "") -> float:
    return 100.0 if is_percent(kind, unit) else 1.0


def _fmt_value(v: float, kind: str, unit: str = "") -> str:
    if math.isnan(v):
        return "n/a"
    if unit in POINTS_UNITS and kind != "rate":
        return f"{100 * v:+.2f} pp"
    if is_percent(kind, unit):
        return f"{100 * v:.1f}%"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def common_prefix(titles: Sequence[str]) -> str:
    """Longest common prefix of ``titles`` cut at a boundary so that every title keeps a
    non-empty rest: after a comma or colon if possible, else after a space; "" if none."""
    if len(titles) < 2:
        return ""
    p = os.path.commonprefix(list(titles))

    def ok(q: str) -> bool:
        return all(len(t) > len(q) and t[len(q):].strip(" ,:") for t in titles)

    for seps in ((",", ":"), (" ",)):
        q = p
        while q:
            cut = max(q.rfind(c) for c in seps)
            if cut < 0:
                break
            q = q[:cut + 1]
            # a comma/colon cut keeps the following space in the prefix
            full = q + " " if seps != (" ",) and p[len(q):len(q) + 1] == " " else q
            if ok(full):
                return full
            q = q[:-1]
    return ""


def short_labels(titles: Sequence[str]) -> tuple[str, list[str]]:
    """(shared part, distinct rests) of metric titles, e.g. ``"deal win rate"`` and
    ``["seat 0", "seat 1", ...]`` for ``"deal win rate, seat 0"`` ..."""
    p = common_prefix(titles)
    if not p:
        return "", list(titles)
    return p.rstrip(" ,:"), [t[len(p):].strip(" ,:") for t in titles]


# --- bars -------------------------------------------------------------------------------
def estimates_bar(metrics: Sequence[Metric], title: str, ylabel: str | None = None, *,
                  labels: Sequence[str] | None = None, reference: float | None = None,
                  reference_label: str = "mean") -> Figure:
    """Bars with interval whiskers, one per metric (all rates, or all means of one unit).
    Rates are drawn in %. ``labels`` default to the distinct part of the metric titles;
    ``reference`` (in the metrics' own scale: a fraction for rates) draws a dashed line."""
    if not metrics:
        raise ValueError("estimates_bar needs at least one metric")
    kinds = {m.estimate.kind for m in metrics}
    if len(kinds) > 1:
        raise ValueError("estimates_bar cannot mix rates and means on one axis")
    kind = kinds.pop()
    units = {m.unit for m in metrics}
    unit = units.pop() if len(units) == 1 else ""
    s = _scale(kind, unit)
    if labels is None:
        _, labels = short_labels([m.title for m in metrics])
    labels = [str(x) for x in labels]
    if ylabel is None:
        ylabel = _unit_label(kind, unit)
    est = [m.estimate for m in metrics]
    v = np.array([e.value for e in est], dtype=float) * s
    lo = np.array([e.lo for e in est], dtype=float) * s
    hi = np.array([e.hi for e in est], dtype=float) * s
    err = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
    ns = [e.n for e in est]
    conf = est[0].conf
    horizontal = len(metrics) > 6 or max(len(x) for x in labels) > 14
    pos = np.arange(len(metrics))
    pct = int(round(conf * 100))
    has_ref = reference is not None and not math.isnan(reference)
    one_n = len(set(ns)) == 1
    notes = [f"whiskers: {pct}% intervals"]
    if one_n:
        notes.insert(0, f"n = {ns[0]:,} each")
    if has_ref:
        notes.append(f"dashed line: {reference_label}")
    note = "; ".join(notes)
    if horizontal:
        wrapped = [f"{_wrap(x, 40)}\n{_fmt_value(e.value, kind, unit)}" + ("" if one_n else f", n={e.n:,}")
                   for x, e in zip(labels, est, strict=True)]
        lines = sum(x.count("\n") + 1 for x in wrapped)
        fig = _figure(WIDTH, max(2.8, 1.2 + 0.22 * lines + 0.15 * len(metrics)))
        ax = fig.add_subplot()
        ax.barh(pos, np.nan_to_num(v), xerr=err, color=ACCENT, alpha=0.85, height=0.6,
                error_kw={"ecolor": "black", "capsize": 4, "lw": 1.2})
        ax.set_yticks(pos, wrapped, fontsize=8.5)
        ax.set_ylim(len(metrics) - 0.5, -0.5)
        ax.set_xlabel(f"{ylabel}\n({note})")
        ax.grid(axis="x", alpha=0.3)
        ax.margins(x=0.04)
        ref_line = ax.axvline
    else:
        fig = _figure(max(4.5, min(WIDTH, 1.6 + 1.0 * len(metrics))), 4.0)
        ax = fig.add_subplot()
        ax.bar(pos, np.nan_to_num(v), yerr=err, color=ACCENT, alpha=0.85, width=0.6,
               error_kw={"ecolor": "black", "capsize": 5, "lw": 1.2})
        ticks = [_wrap(x, 14) if one_n else f"{_wrap(x, 14)}\nn={e.n:,}"
                 for x, e in zip(labels, est, strict=True)]
        ax.set_xticks(pos, ticks)
        ax.set_ylabel(ylabel)
        ax.set_xlabel(note, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ref_line = ax.axhline
        for p, val, h, e in zip(pos, v, hi, est, strict=True):
            y = h if not math.isnan(h) else val
            ax.annotate(_fmt_value(e.value, kind, unit), (p, y), xytext=(0, 3),
                        textcoords="offset points", ha="center", va="bottom", fontsize=8)
        ax.margins(y=0.12)
    if has_ref:
        ref_line(reference * s, color=MUTED, ls="--", lw=1)
    ax.set_title(_wrap(_cap(title), 70), fontsize=11)
    return fig


def estimates_dots(metrics: Sequence[Metric], title: str, xlabel: str | None = None, *,
                   labels: Sequence[str] | None = None, reference: float | None = None,
                   reference_label: str = "mean") -> Figure:
    """Dot-and-whisker chart, one row per metric (all rates, or all means of one unit),
    on an axis fitted to the intervals: close rates stay apart instead of sitting on bars
    that start at zero. Rates (and fractions) are drawn in %; ``reference`` (in the
    metrics' own scale) draws a dashed line."""
    if not metrics:
        raise ValueError("estimates_dots needs at least one metric")
    kinds = {m.estimate.kind for m in metrics}
    if len(kinds) > 1:
        raise ValueError("estimates_dots cannot mix rates and means on one axis")
    kind = kinds.pop()
    units = {m.unit for m in metrics}
    unit = units.pop() if len(units) == 1 else ""
    s = _scale(kind, unit)
    if labels is None:
        _, labels = short_labels([m.title for m in metrics])
    est = [m.estimate for m in metrics]
    ns = [e.n for e in est]
    one_n = len(set(ns)) == 1
    rows = [_wrap(str(x), 38) + ("" if one_n else f" (n={e.n:,})")
            for x, e in zip(labels, est, strict=True)]
    lines = sum(r.count("\n") + 1 for r in rows)
    fig = _figure(WIDTH, max(2.4, 1.3 + 0.24 * lines + 0.12 * len(rows)))
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    v = np.array([e.value for e in est], dtype=float) * s
    lo = np.array([e.lo for e in est], dtype=float) * s
    hi = np.array([e.hi for e in est], dtype=float) * s
    # a mean of too few rows has no number worth a dot; one whose rows are all equal has
    # no whisker, and its label says why
    few = [e.status == stats.TOO_FEW_ROWS for e in est]
    v[few] = np.nan
    for yi, val, a, b in zip(y, v, lo, hi, strict=True):
        if not (math.isnan(a) or math.isnan(b)):
            ax.plot([a, b], [yi, yi], color=ACCENT, lw=2, solid_capstyle="butt")
        if not math.isnan(val):
            ax.plot([val], [yi], "o", color=ACCENT, ms=6)
    has_ref = reference is not None and not math.isnan(reference)
    if has_ref:
        ax.axvline(reference * s, color=MUTED, ls="--", lw=1)
    finite = [x for x in (*lo, *hi, *v) if not math.isnan(x)]
    if has_ref:
        finite.append(reference * s)
    if finite:
        a, b = min(finite), max(finite)
        pad = (b - a) * 0.08 or max(abs(a) * 0.05, 0.5)
        # room on the right for the value labels
        ax.set_xlim(a - pad, b + 4.5 * pad)
    for yi, val, b, e in zip(y, v, hi, est, strict=True):
        x = b if not math.isnan(b) else val
        if not math.isnan(x):
            text = _fmt_value(e.value, kind, unit)
            ax.annotate(text + (" (every row equal)" if e.status == stats.CONSTANT_ROWS else ""),
                        (x, yi), xytext=(5, 0), textcoords="offset points", va="center",
                        fontsize=8)
        elif e.status == stats.TOO_FEW_ROWS and finite:
            ax.annotate(f"too few rows (n = {e.n:,})", (min(finite), yi), xytext=(0, 0),
                        textcoords="offset points", va="center", fontsize=8, color=MUTED)
    ax.set_yticks(y, rows, fontsize=8.5)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    pct = int(round(est[0].conf * 100))
    notes = ([f"n = {ns[0]:,} each"] if one_n else []) + [f"whiskers: {pct}% intervals"]
    if has_ref:
        notes.append(f"dashed line: {reference_label}")
    ax.set_xlabel(f"{xlabel or _unit_label(kind, unit)}\n({'; '.join(notes)})", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(_wrap(_cap(title), 80), fontsize=11)
    return fig


def differences(rows: Sequence[tuple[str, float, float, float, str, bool]], title: str,
                *, note: str = "") -> Figure:
    """Differences with their intervals around 0, one row each: ``(label, difference,
    low, high, unit, clear)`` already in display units (percentage points for rates);
    one panel per unit; clear differences in red (filled), the others grey (open)."""
    if not rows:
        raise ValueError("differences needs at least one row")
    panels: dict[str, list] = {}
    for r in rows:
        panels.setdefault(r[4], []).append(r)
    label_lines = [[_wrap(r[0], 46) for r in v] for v in panels.values()]
    heights = [sum(x.count("\n") + 1 for x in ls) * 0.26 + 0.8 for ls in label_lines]
    fig = _figure(WIDTH + 0.8, 1.0 + sum(heights))
    axes = fig.subplots(len(panels), 1, squeeze=False,
                        gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, (unit, rs), labels in zip(axes, panels.items(), label_lines, strict=True):
        y = np.arange(len(rs))
        for yi, (_, d, lo, hi, _, clear) in zip(y, rs, strict=True):
            color = HIGHLIGHT if clear else MUTED
            if not (math.isnan(lo) or math.isnan(hi)):
                ax.plot([lo, hi], [yi, yi], color=color, lw=2.2 if clear else 1.5,
                        solid_capstyle="butt")
            ax.plot([d], [yi], "o", color=color, ms=6, markeredgewidth=1.4,
                    markerfacecolor=color if clear else "white")
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_ylim(len(rs) - 0.5, -0.5)
        ax.set_xlabel(unit, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        lim = max((max(abs(r[2]), abs(r[3]), abs(r[1])) for r in rs
                   if not math.isnan(r[2])), default=0.0) or 1.0
        ax.set_xlim(-1.1 * lim, 1.1 * lim)
    fig.suptitle(_wrap(title, 80) + (f"\n{note}" if note else ""), fontsize=10)
    return fig


# --- distributions ----------------------------------------------------------------------
def score_groups(frame: pl.DataFrame, n_players: int, prefix: str = "score_s",
                 teams: Sequence[int] | None = None) -> list[list[int]]:
    """Seats grouped by identical score columns (partners who share a score), in seat
    order; with ``teams``, only seats of the same side are merged."""
    same = {(j, i): bool(frame.select((pl.col(f"{prefix}{i}") == pl.col(f"{prefix}{j}")).all())
                         .item())
            for i in range(n_players) for j in range(i)}
    return groups_of(same, n_players, teams)


def groups_of(same: dict[tuple[int, int], bool], n_players: int,
              teams: Sequence[int] | None = None) -> list[list[int]]:
    """``score_groups`` from ``same[(j, i)]`` (j < i): whether seats j and i have equal
    scores on every row."""
    groups: list[list[int]] = []
    for i in range(n_players):
        for g in groups:
            j = g[0]
            if teams is not None and teams[i] != teams[j]:
                continue
            if same[(j, i)]:
                g.append(i)
                break
        else:
            groups.append([i])
    return groups


def group_label(seats: Sequence[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "team of seats " + ", ".join(str(s) for s in seats)


def _int_bins(values: np.ndarray, max_bins: int = 60) -> np.ndarray:
    lo, hi = float(np.min(values)), float(np.max(values))
    integral = np.all(np.mod(values, 1) == 0)
    if integral:
        width = max(1, math.ceil((hi - lo + 1) / max_bins))
        return np.arange(lo - 0.5, hi + width + 0.5, width)
    return np.linspace(lo, hi if hi > lo else lo + 1, max_bins + 1)


def score_histograms(frame: pl.DataFrame, n_players: int, prefix: str = "score_s", *,
                     teams: Sequence[int] | None = None, xlabel: str | None = None,
                     title: str | None = None) -> Figure:
    """One histogram per seat, or per team when partners' score columns are identical;
    shared axes, the mean marked. Bars give the share of rows (%)."""
    from simlab.analysis.sums import Counts

    groups = score_groups(frame, n_players, prefix, teams)
    dists = [Counts.of(frame.get_column(f"{prefix}{g[0]}")) for g in groups]
    unit = xlabel or ("final score (points)" if prefix.startswith("final")
                      else "score per deal (points)")
    return score_histograms_of(groups, dists, xlabel=unit, title=title)


def score_histograms_of(groups: list[list[int]], dists: Sequence[Any], *, xlabel: str,
                        title: str | None = None) -> Figure:
    """``score_histograms`` from each group's score distribution (``report_sums.Counts``)."""
    k = len(groups)
    ncols = min(k, 4 if k != 3 else 3)
    nrows = math.ceil(k / ncols)
    fig = _figure(WIDTH if ncols > 1 else 5.0, 1.0 + 2.4 * nrows)
    axes = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    allv = np.concatenate([d.values for d in dists]) if dists else np.zeros(1)
    bins = _int_bins(allv if allv.size else np.zeros(1))
    for ax, g, d in zip(axes.flat, groups, dists, strict=False):
        if d.n:
            ax.hist(d.values, bins=bins, weights=d.counts * (100.0 / d.n), color=ACCENT,
                    alpha=0.85)
            m = d.mean()
            ax.axvline(m, color=HIGHLIGHT, lw=1.2, ls="--")
            ax.set_title(_wrap(f"{group_label(g)}: mean {m:.1f} (n={d.n:,})", 34), fontsize=9)
        else:
            ax.set_title(f"{group_label(g)}: no rows", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    fig.supxlabel(xlabel, fontsize=10)
    fig.supylabel("share of rows (%)", fontsize=10)
    what = "team" if any(len(g) > 1 for g in groups) else "seat"
    fig.suptitle(title or f"Score distribution per {what} (dashed line: mean)", fontsize=11)
    return fig


def match_length(frame: pl.DataFrame, column: str = "n_deals", *, title: str | None = None) -> Figure:
    """Distribution of deals per match (share of matches, %), with the mean marked."""
    from simlab.analysis.sums import Counts

    if column not in frame.columns:
        raise ValueError(f"frame has no {column!r} column (match-level runs have it)")
    d = Counts.of(frame.get_column(column))
    if d.n == 0:
        raise ValueError(f"column {column!r} holds no values")
    return match_length_of(d, title=title)


def match_length_of(d: Any, *, title: str | None = None) -> Figure:
    """``match_length`` from the distribution of deals per match (``report_sums.Counts``)."""
    fig = _figure(6.5, 4.0)
    ax = fig.add_subplot()
    ax.hist(d.values, bins=_int_bins(d.values, 50), weights=d.counts * (100.0 / d.n),
            color=ACCENT, alpha=0.85)
    m = d.mean()
    ax.axvline(m, color=HIGHLIGHT, lw=1.2, ls="--", label=f"mean {m:.1f}")
    med = d.median()
    ax.axvline(med, color=MUTED, lw=1.2, ls=":", label=f"median {med:g}")
    ax.legend(fontsize=8)
    ax.set_xlabel("deals per match")
    ax.set_ylabel("share of matches (%)")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(title or f"Match length (n = {d.n:,} matches)", fontsize=11)
    return fig


# --- comparisons ------------------------------------------------------------------------
def _diff_unit(kind: str, unit: str) -> str:
    if is_percent(kind, unit):
        return "B − A (percentage points)"
    return f"B − A ({unit})" if unit else "B − A"


def forest_rows(result: CompareResult, max_rows: int = 30) -> list:
    """Rows a forest plot shows: Holm-significant first (smallest adjusted p), then the
    largest standardized differences; rows without an estimate are left out."""
    rows = [r for r in result.rows if r.diff.n > 0 and not math.isnan(r.diff.diff) and not r.duplicate_of]

    def z(r) -> float:
        hw = (r.diff.hi - r.diff.lo) / 2
        if math.isnan(hw):
            return 0.0
        return abs(r.diff.diff) / hw if hw > 0 else (math.inf if r.diff.diff != 0 else 0.0)

    alpha = 1 - result.conf
    order = sorted(range(len(rows)), key=lambda i: (not rows[i].p_holm < alpha,
                                                     rows[i].p_holm if rows[i].p_holm < alpha else 0,
                                                     -z(rows[i]), i))
    keep = sorted(order[:max_rows])  # back to report order within the kept set
    return [rows[i] for i in keep]


def compare_forest(result: CompareResult, max_rows: int = 30, *, title: str | None = None) -> Figure:
    """Paired differences B − A with their intervals, one panel per unit (rates in
    percentage points); Holm-significant differences in red, the others grey."""
    shown = forest_rows(result, max_rows)
    total = sum(1 for r in result.rows if r.diff.n > 0 and not r.duplicate_of)
    alpha = 1 - result.conf
    groups: dict[tuple[str, str], list] = {}
    for r in shown:
        unit = r.definition.unit if r.a.kind == "mean" else ""
        key = ("rate", "") if is_percent(r.a.kind, unit) else (r.a.kind, unit)
        groups.setdefault(key, []).append(r)
    if not groups:
        fig = _figure(6, 2.5)
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no paired metric to compare", ha="center", va="center")
        ax.set_xlabel("B − A")
        ax.set_ylabel("metric")
        ax.set_title(title or "Paired differences B − A")
        return fig
    sizes = [len(v) for v in groups.values()]
    label_lines = [[_wrap(r.title, 42) for r in v] for v in groups.values()]
    heights = [sum(x.count("\n") + 1 for x in ls) * 0.26 + 0.75 for ls in label_lines]
    fig = _figure(WIDTH + 0.8, 1.1 + sum(heights))
    axes = fig.subplots(len(groups), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, ((kind, unit), rows), labels, k in zip(axes, groups.items(), label_lines, sizes, strict=True):
        s = _scale(kind, unit)
        y = np.arange(k)
        for yi, r in zip(y, rows, strict=True):
            sig = r.p_holm < alpha
            d, lo, hi = r.diff.diff * s, r.diff.lo * s, r.diff.hi * s
            color = HIGHLIGHT if sig else MUTED
            if not math.isnan(lo):
                ax.plot([lo, hi], [yi, yi], color=color, lw=2.2 if sig else 1.5, solid_capstyle="butt")
            ax.plot([d], [yi], "o", color=color, ms=6 if sig else 5,
                    markerfacecolor=color if sig else "white", markeredgewidth=1.4)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(y, labels, fontsize=8)
        ax.set_ylim(k - 0.5, -0.5)
        ax.set_xlabel(_diff_unit(kind, unit), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        lim = max((max(abs(r.diff.lo * s), abs(r.diff.hi * s), abs(r.diff.diff * s))
                   for r in rows if not math.isnan(r.diff.lo)), default=0.0)
        lim = lim or max((abs(r.diff.diff * s) for r in rows), default=0.0) or 1.0
        ax.set_xlim(-1.1 * lim, 1.1 * lim)
    more = f"; {len(shown)} of {total} metrics shown" if len(shown) < total else ""
    head = title or f"Paired differences B − A: {result.label_b} vs {result.label_a}"
    pct = int(round(result.conf * 100))
    fig.suptitle(_wrap(head, 80) + f"\n{pct}% intervals; red = significant after Holm's correction "
                 f"(α = {alpha:g}){more}", fontsize=10)
    return fig


# --- sweeps -----------------------------------------------------------------------------
def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
               for v in values)


def sweep_curves(result: SweepResult, metric_key: str, *, x: str | None = None,
                 title: str | None = None) -> Figure:
    """One metric against the swept knob ``x`` (default: the first grid knob) with interval
    error bars; with several swept knobs, one line per combination of the others."""
    keys = list(result.grid)
    if not keys:
        raise ValueError("the sweep has no grid knob")
    x = x or keys[0]
    if x not in keys:
        raise ValueError(f"{x!r} is not a swept knob; swept: {', '.join(keys)}")
    others = [k for k in keys if k != x]
    found = None
    series: dict[tuple, list[tuple[Any, Any]]] = {}
    for p in result.points:
        m = next((m for m in p.metrics.metrics if m.key == metric_key), None)
        if m is None:
            continue
        found = found or m
        series.setdefault(tuple(p.values[k] for k in others), []).append((p.values[x], m.estimate))
    if found is None:
        raise ValueError(f"no sweep point has metric {metric_key!r}")
    kind = found.estimate.kind
    s = _scale(kind, found.unit)
    xs_all = list(dict.fromkeys(v for pts in series.values() for v, _ in pts))
    numeric = _numeric(xs_all)
    if numeric:
        xs_all = sorted(xs_all)
    pos = {v: (float(v) if numeric else i) for i, v in enumerate(xs_all)}
    fig = _figure(6.8, 4.2)
    ax = fig.add_subplot()
    n_lines = len(series)
    if numeric and len(xs_all) > 1:
        step = float(np.min(np.diff([float(v) for v in xs_all])))
    else:
        step = 1.0
    dodge = 0.08 * step
    offsets = np.linspace(-dodge, dodge, n_lines) if n_lines > 1 else np.zeros(n_lines)
    ns: list[int] = []
    for (other, pts), off in zip(series.items(), offsets, strict=True):
        pts = sorted(pts, key=lambda t: pos[t[0]])
        xv = np.array([pos[v] for v, _ in pts]) + off
        yv = np.array([e.value for _, e in pts], dtype=float) * s
        lo = np.array([e.lo for _, e in pts], dtype=float) * s
        hi = np.array([e.hi for _, e in pts], dtype=float) * s
        ns += [e.n for _, e in pts]
        label = ", ".join(f"{k}={v}" for k, v in zip(others, other, strict=True)) or None
        ax.errorbar(xv, yv, yerr=np.vstack([np.nan_to_num(yv - lo), np.nan_to_num(hi - yv)]),
                    marker="o", capsize=4, lw=1.5, label=label)
    if not numeric:
        ax.set_xticks(list(pos.values()), [_wrap(str(v), 12) for v in xs_all])
    elif len(xs_all) <= 12:
        ax.set_xticks([pos[v] for v in xs_all], [f"{v:g}" for v in xs_all])
    if n_lines > 1:
        ax.legend(fontsize=8, title=None, loc="best")
    ax.set_xlabel(f"{x} (knob value" + ("; lines offset sideways slightly for legibility)"
                                        if n_lines > 1 else ")"))
    ax.set_ylabel(_unit_label(kind, found.unit))
    ax.grid(alpha=0.3)
    nmin, nmax = min(ns), max(ns)
    ntext = f"n = {nmin:,}" if nmin == nmax else f"n = {nmin:,} to {nmax:,}"
    pct = int(round(found.estimate.conf * 100))
    ax.set_title(_wrap(title or _cap(found.title), 60) + f"\n{pct}% intervals, {ntext} per point", fontsize=10)
    ax.margins(x=0.08, y=0.15)
    return fig
