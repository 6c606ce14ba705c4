"""A run's report: Markdown, self-contained HTML, PNG figures and the results as Parquet.

``write_report(out_dir, game=..., plan=..., frame=..., seconds=...)`` writes into
``out_dir`` (or ``sums=`` instead of ``frame=``: the run reduced chunk by chunk where it
was played, ``report_sums.run_report_sums``, which wrote ``results.parquet``):

* ``report.md`` — the report, figures linked from ``figures/``;
* ``report.html`` — the same report in one file (figures embedded as base64 PNG, inline
  CSS), to mail or archive;
* ``figures/*.png`` — every figure;
* ``results.parquet`` — the frame, with the plan's provenance under the Parquet metadata
  key ``"simlab"`` (``simlab.read_provenance`` reads it back); with a comparison, the
  other variant's rows go to ``results_a.parquet`` (a report on B) or
  ``results_b.parquet`` (a report on A) the same way.

The report says what was simulated, then answers: the headline metrics, one section per
metric section (standard and game-specific alike), score distributions, match length, and
optionally a paired comparison of two variants and a sweep over knob values. Every estimate
is printed with its interval and its n; statements about significance are derived from
the numbers (Holm-adjusted p-values), never assumed.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from simlab.analysis import plots
from simlab.analysis.compare import CompareResult, SweepResult
from simlab.analysis.metrics import Metric, MetricSet, compute_from
from simlab.analysis.players_check import (
    CHANGES,
    EFFECT_SHARE,
    HOLDS,
    INCONCLUSIVE,
    MEAN_MARGIN_SD,
    NOT_SHOWN,
    RATE_MARGIN,
    PlayersCheck,
    SkillCheck,
    check_players,
    checks_from,
)
from simlab.analysis.report_sums import ReportSums, frame_report_sums, raw_findings, tag_of
from simlab.analysis.sums import Moments
from simlab.engine import stats
from simlab.engine.game import Game, as_game
from simlab.engine.knobs import SEED_CASES, SimlabError
from simlab.engine.runner import PROVENANCE_KEY, Plan, check_folder_output
from simlab.engine.stats import IDENTICAL, MIN_MEAN_N, MIN_RATE_N, TOO_FEW, Estimate, holm
from simlab.engine.stats import mean as mean_estimate

STANDARD_SECTIONS = ("Seats", "Dealer position", "Balance", "Contracts", "Match")
# metric families whose members are symmetric positions: their bar chart shows the mean
SYMMETRIC_FAMILIES = ("seat.", "dealer_pos.", "match.win")


# --- number formatting -------------------------------------------------------------------
def _decimals(half_width: float, default: int) -> int:
    """Enough decimals to show the interval's width with two significant digits."""
    if half_width is None or math.isnan(half_width) or half_width <= 0:
        return default
    return int(min(6, max(0, -math.floor(math.log10(half_width)) + 1)))


def fmt_value(e: Estimate, unit: str = "") -> str:
    """A rate (or a mean of a fraction, unit "share") in %, a difference of fractions in
    percentage points (pp), other means with their unit. A mean over fewer qualifying
    rows than ``stats.MIN_MEAN_N`` is "too few", not a number."""
    if e.status == stats.TOO_FEW_ROWS:
        return "too few"
    if e.n == 0 or math.isnan(e.value):
        return "n/a"
    if e.kind != "rate" and unit in plots.POINTS_UNITS:
        d = _decimals(100 * e.half_width, 2)
        return _signed(100 * e.value, d) + " pp"
    if plots.is_percent(e.kind, unit):
        d = _decimals(100 * e.half_width, 2)
        return f"{100 * e.value:.{d}f}%"
    d = _decimals(e.half_width, 3)
    text = f"{e.value:,.{d}f}"
    if float(text.replace(",", "")) == 0:  # no "-0.0"
        text = text.lstrip("-")
    return text + (f" {unit}" if unit else "")


def fmt_interval(e: Estimate, unit: str = "") -> str:
    if e.status == stats.TOO_FEW_ROWS:
        return f"too few rows (under {stats.MIN_MEAN_N})"
    if e.status == stats.CONSTANT_ROWS:
        return "none: every row equal"
    if e.n == 0 or math.isnan(e.lo) or math.isnan(e.hi):
        return "n/a"
    if e.kind != "rate" and unit in plots.POINTS_UNITS:
        d = _decimals(100 * e.half_width, 2)
        return f"[{_signed(100 * e.lo, d)}, {_signed(100 * e.hi, d)}]"
    if plots.is_percent(e.kind, unit):
        d = _decimals(100 * e.half_width, 2)
        return f"[{100 * e.lo:.{d}f}%, {100 * e.hi:.{d}f}%]"
    d = _decimals(e.half_width, 3)
    return f"[{e.lo:,.{d}f}, {e.hi:,.{d}f}]"


def fmt_estimate(e: Estimate, unit: str = "") -> str:
    """Value and interval in one cell, e.g. ``30.74% [30.10%, 31.38%]``."""
    v = fmt_value(e, unit)
    if e.status == stats.TOO_FEW_ROWS:
        return f"too few (n = {e.n:,})"
    if e.status == stats.CONSTANT_ROWS:
        return f"{v} (every row equal)"
    if v == "n/a" or math.isnan(e.lo):
        return v
    return f"{v} {fmt_interval(e, unit)}"


def _signed(x: float, d: int) -> str:
    s = f"{x:+,.{d}f}"
    return s.replace("-", "−")


def fmt_diff(diff: float, lo: float, hi: float, kind: str, unit: str) -> tuple[str, str]:
    """(difference, interval) of B − A: rates in percentage points."""
    if math.isnan(diff):
        return "n/a", "n/a"
    pct = plots.is_percent(kind, unit)
    s = 100.0 if pct else 1.0
    suffix = " pp" if pct else (f" {unit}" if unit else "")
    hw = (hi - lo) / 2 * s if not math.isnan(lo) else math.nan
    d = _decimals(hw, 2 if pct else 3)
    if hw == 0 or math.isnan(hw):
        d = 2 if pct else 3
    if diff == 0 and lo == 0 and hi == 0:  # identical on every paired row
        return f"0{suffix}", f"[0, 0]{suffix}"
    value = f"0{suffix}" if diff == 0 else _signed(diff * s, d) + suffix
    if math.isnan(lo):
        return value, "n/a"
    return value, f"[{_signed(lo * s, d)}, {_signed(hi * s, d)}]{suffix}"


def fmt_p(p: float) -> str:
    if p is None or math.isnan(p):
        return "n/a"
    if p >= 0.9995:
        return "1"
    if p == 0:
        return "< 1e-300"
    if p < 1e-4:
        return f"{p:.1e}"
    return f"{p:.4f}"


def fmt_n(n: int) -> str:
    return f"{n:,}"


def _seconds(s: float) -> str:
    if s < 120:
        return f"{s:.1f} s"
    return f"{s / 60:.1f} min ({s:,.0f} s)"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "figure"


# --- a tiny document model rendered to Markdown and HTML ---------------------------------
@dataclass
class _Fig:
    name: str  # file name under figures/
    png: bytes
    caption: str
    figure: Figure | None = None  # until rendered (``_Doc.render``)


@dataclass
class _Doc:
    fig_dir: Path
    blocks: list[tuple[str, Any]] = field(default_factory=list)
    figures: list[_Fig] = field(default_factory=list)
    _names: set[str] = field(default_factory=set)
    _titles: set[str] = field(default_factory=set)

    def h(self, level: int, text: str) -> None:
        self.blocks.append(("h", (level, text)))

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: Iterable[str]) -> None:
        items = list(items)
        if items:
            self.blocks.append(("ul", items))

    def table(self, headers: Sequence[str], rows: Sequence[Sequence[str]],
              right: Sequence[int] = ()) -> None:
        self.blocks.append(("table", (list(headers), [list(r) for r in rows], set(right))))

    def unique_title(self, title: str, hint: str) -> str:
        """``title``, or with ``hint`` (e.g. the metrics' key prefix) when an earlier
        figure of this report has that title already."""
        if title in self._titles:
            title = f"{title} ({hint})"
        self._titles.add(title)
        return title

    def fig(self, name: str, figure: Figure, caption: str) -> str:
        base = _slug(name)
        stem, k = base, 2
        while stem in self._names:
            stem, k = f"{base}-{k}", k + 1
        self._names.add(stem)
        f = _Fig(f"{stem}.png", b"", caption, figure)
        self.figures.append(f)
        self.blocks.append(("fig", f))
        return f.name

    def render(self) -> None:
        """Draw every figure not drawn yet to PNG and write it under ``fig_dir``. Drawing
        is most of a report's own time: the run's worker processes, still up, draw
        some of the figures while this process draws the others."""
        from simlab.engine import pool

        todo = [f for f in self.figures if f.figure is not None]
        workers = pool.current()
        if workers is None or len(todo) < 2:
            done = ((i, plots.png_of(f.figure)) for i, f in enumerate(todo))
            for i, png in done:
                self._drawn(todo[i], png)
            return
        # a figure travels as a file: pickled, it is larger than a pipe holds, and writing
        # it to a busy worker's pipe would keep this process from drawing meanwhile
        import pickle
        import tempfile

        with tempfile.TemporaryDirectory(prefix="simlab-figures-") as tmp:
            tasks = []
            for i, f in enumerate(todo):
                path = Path(tmp) / f"{i}.pickle"
                path.write_bytes(pickle.dumps(f.figure))
                tasks.append((i, plots.png_of_file, (str(path),), {}))
            try:
                for i, png in workers.run(tasks, local=lambda i, fn, args, kwargs:
                                          plots.png_of(todo[i].figure)):
                    self._drawn(todo[i], png)
            except pool.WorkerDied:  # a worker gone (killed, out of memory): draw them here
                for f in todo:
                    if f.figure is not None:
                        self._drawn(f, plots.png_of(f.figure))

    def _drawn(self, f: _Fig, png: bytes) -> None:
        f.png, f.figure = png, None
        (self.fig_dir / f.name).write_bytes(png)

    # rendering
    def markdown(self) -> str:
        out: list[str] = []
        for kind, b in self.blocks:
            if kind == "h":
                out.append(f"{'#' * b[0]} {b[1]}\n")
            elif kind == "p":
                out.append(f"{b}\n")
            elif kind == "ul":
                out.append("\n".join(f"- {x}" for x in b) + "\n")
            elif kind == "table":
                headers, rows, right = b
                cell = _md_cell
                out.append("| " + " | ".join(cell(h) for h in headers) + " |")
                out.append("|" + "|".join("---:" if i in right else "---"
                                          for i in range(len(headers))) + "|")
                for r in rows:
                    out.append("| " + " | ".join(cell(c) for c in r) + " |")
                out.append("")
            elif kind == "fig":
                out.append(f"![{_md_cell(b.caption)}](figures/{b.name})\n")
                out.append(f"*{b.caption}*\n")
        return "\n".join(out).rstrip() + "\n"

    def html(self, title: str) -> str:
        body: list[str] = []
        for kind, b in self.blocks:
            if kind == "h":
                body.append(f"<h{b[0]}>{_inline(b[1])}</h{b[0]}>")
            elif kind == "p":
                body.append(f"<p>{_inline(b)}</p>")
            elif kind == "ul":
                body.append("<ul>" + "".join(f"<li>{_inline(x)}</li>" for x in b) + "</ul>")
            elif kind == "table":
                headers, rows, right = b
                th = "".join(f'<th{" class=r" if i in right else ""}>{_inline(h)}</th>'
                             for i, h in enumerate(headers))
                trs = "".join("<tr>" + "".join(f"<td class=r>{_number_cell(c)}</td>" if i in right
                                               else f"<td>{_inline(c)}</td>"
                                               for i, c in enumerate(r)) + "</tr>" for r in rows)
                body.append(f"<table><thead><tr>{th}</tr></thead><tbody>{trs}</tbody></table>")
            elif kind == "fig":
                data = base64.b64encode(b.png).decode("ascii")
                body.append(f'<figure><img src="data:image/png;base64,{data}" '
                            f'alt="{html.escape(b.caption)}"><figcaption>{_inline(b.caption)}'
                            f"</figcaption></figure>")
        return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
                + "\n".join(body) + "\n</body>\n</html>\n")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:76rem;
margin:2rem auto;padding:0 1rem;color:#1d1d1f;line-height:1.45}
h1{font-size:1.7rem;border-bottom:2px solid #1f5f99;padding-bottom:.3rem}
h2{font-size:1.3rem;margin-top:2.2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem}
h3{font-size:1.05rem;margin-top:1.4rem}
table{border-collapse:collapse;margin:.6rem 0 1rem;font-size:.84rem}
th,td{border:1px solid #d0d0d0;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#eef3f8}td.r,th.r{text-align:right;font-variant-numeric:tabular-nums}
table{display:block;overflow-x:auto;max-width:100%}.nw{white-space:nowrap}
p.finding{margin:.35rem 0}
tr:nth-child(even) td{background:#fafafa}
code{background:#f2f2f2;padding:0 .2rem;border-radius:3px;font-size:.9em}
figure{margin:1rem 0}img{max-width:100%;height:auto;border:1px solid #e2e2e2}
figcaption{font-size:.85rem;color:#555;font-style:italic}
"""


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _inline(text: str) -> str:
    """HTML-escape, then `code` spans, **bold** and *italics* (outside code spans)."""
    parts = str(text).split("`")
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else _bold(html.escape(p))
                   for i, p in enumerate(parts))


def _number_cell(text: str) -> str:
    """A numeric cell that never wraps inside a number or an interval: the only break
    allowed is between a value and its bracketed interval."""
    if re.match(r"[=A-Za-z]", str(text)):  # words ("= metric", "identical: ..."): may wrap
        return _inline(text)
    parts = str(text).split(" [")
    return " ".join(f"<span class=nw>{_inline(x if i == 0 else '[' + x)}</span>"
                    for i, x in enumerate(parts))


def _bold(escaped: str) -> str:
    """**bold** and *italics* (a single star between non-space characters)."""
    out = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
    return re.sub(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])", r"<em>\1</em>", out)


# --- content helpers ---------------------------------------------------------------------
def _conf_label(metrics: Sequence[Metric] | None = None, conf: float | None = None) -> str:
    if conf is None:
        conf = metrics[0].estimate.conf if metrics else 0.95
    return f"{round(conf * 100):g}% interval"


def _metric_rows(metrics: Sequence[Metric], with_section: bool = False,
                 with_key: bool = True) -> list[list[str]]:
    rows = []
    for m in metrics:
        row = [m.title + (" *(a player's choice)*" if m.definition.choice else "")]
        if with_section:
            row.append(m.section)
        if with_key:
            row.append(f"`{m.key}`")
        row += [fmt_value(m.estimate, m.unit), fmt_interval(m.estimate, m.unit),
                fmt_n(m.estimate.n)]
        rows.append(row)
    return rows


def _metric_table(doc: _Doc, metrics: Sequence[Metric], with_section: bool = False,
                  with_key: bool = True) -> None:
    headers = ["metric"] + (["section"] if with_section else []) + (["key"] if with_key else [])
    first = len(headers)
    headers += ["estimate", _conf_label(metrics), "n"]
    doc.table(headers, _metric_rows(metrics, with_section, with_key),
              right=(first, first + 1, first + 2))
    doc.ul(_notes(metrics))


def _notes(metrics: Sequence[Metric]) -> list[str]:
    """One line per distinct metric note, naming the metrics it applies to."""
    by_note: dict[str, list[str]] = {}
    for m in metrics:
        if m.note:
            by_note.setdefault(m.note, []).append(m.title)
    out = []
    for note, titles in by_note.items():
        names = "; ".join(titles[:3]) + (f" (and {len(titles) - 3} more)" if len(titles) > 3 else "")
        out.append(f"{names}: {note}")
    return out


def _families(metrics: Sequence[Metric]) -> tuple[list[tuple[str, list[Metric]]], list[Metric]]:
    """Groups of comparable metrics: keys ``a.b.<member>`` of one kind and unit (a family
    needs two members or more), and the rest."""
    fam: dict[tuple[str, str, str], list[Metric]] = {}
    for m in metrics:
        parts = m.key.split(".")
        if len(parts) >= 3:
            fam.setdefault((".".join(parts[:-1]), m.kind, m.unit if m.kind == "mean" else ""), []).append(m)
    groups = [(k[0], v) for k, v in fam.items() if len(v) >= 2]
    grouped = {id(m) for _, v in groups for m in v}
    return groups, [m for m in metrics if id(m) not in grouped]


def _what_kind(kind: str, unit: str) -> str:
    return "rates" if kind == "rate" else (f"means ({unit})" if unit else "means")


def _question_hint(prefix: str) -> str:
    """"question 4" for a key prefix such as ``belote.q4``, else the prefix itself."""
    m = re.search(r"\.q(\d+)(?:\.|$)", prefix)
    return f"question {m.group(1)}" if m else prefix


def _bar_title(section: str, metrics: Sequence[Metric], kind: str, unit: str) -> str:
    p = plots.common_prefix([m.title for m in metrics])
    shared = p.rstrip(" ,:")
    if not shared:
        prefix = ".".join(metrics[0].key.split(".")[:-1])
        hint = _question_hint(prefix)
        return f"{section}: {_what_kind(kind, unit)}" + (f", {hint}" if hint != prefix
                                                           else "")
    if p.rstrip().endswith((",", ":")):
        return f"{section}: {shared}"
    return f"{section}: {shared} …"


def _section_figures(doc: _Doc, section: str, metrics: Sequence[Metric]) -> None:
    """One dot-and-whisker chart per family of comparable metrics (same measure, one key
    prefix, one kind and unit), on an axis fitted to the intervals. Metrics outside a
    family stay in the table: a chart of unrelated metrics would put different bases
    side by side."""
    groups, _ = _families(metrics)
    seen: dict[str, int] = {}
    for prefix, _ in groups:
        seen[prefix] = seen.get(prefix, 0) + 1
    for prefix, family in groups:
        # a handful of rows gives a whisker that would flatten every other row: such
        # members stay in the table only
        least = MIN_RATE_N if family[0].kind == "rate" else MIN_MEAN_N
        ms = [m for m in family if m.estimate.n >= least]
        left_out = [m for m in family if m not in ms]
        if len(ms) < 2:
            continue
        kind = ms[0].kind
        name = prefix if seen[prefix] == 1 else f"{prefix}-{kind}-{ms[0].unit}"
        ref = None
        if prefix.startswith(SYMMETRIC_FAMILIES):
            vals = [m.estimate.value for m in ms if not math.isnan(m.estimate.value)]
            ref = float(np.mean(vals)) if vals else None
        title = doc.unique_title(_bar_title(section, ms, kind, ms[0].unit),
                                 _question_hint(prefix))
        fig = plots.estimates_dots(ms, title, reference=ref, reference_label="mean of the rows")
        caption = f"{title}: estimates with {_conf_label(ms)}s" + (
            "; dashed line: mean of the rows" if ref is not None else "")
        if left_out:
            caption += (f"; left out (fewer than {least} rows, see the table): "
                        + "; ".join(m.title for m in left_out))
        doc.fig(name, fig, caption + ".")


def _policies_text(policies: Sequence[str]) -> str:
    if len(set(policies)) == 1:
        return f"{policies[0]} at every seat"
    return ", ".join(f"seat {i}: {p}" for i, p in enumerate(policies))


def _knobs_text(changed: dict[str, Any]) -> str:
    if not changed:
        return "none: the defaults (the rulebook as printed where it is clear and playable)"
    return ", ".join(f"`{k} = {v}`" for k, v in changed.items())


def _literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _rulebook_rows(knobs: Any) -> list[list[str]]:
    """Readings of the rulebook this run relies on: every knob whose value in this run
    differs from the printed text (``seed_value``), by default or by choice: name, value in
    this run, default, the rulebook's value, and why (``SEED_CASES``) or "set for this run"."""
    rows = []
    for d in type(knobs).describe():
        book = d["seed_value"]
        value = getattr(knobs, d["name"])
        if book is None or (value == book and d["default"] == book):
            continue
        if value == d["default"] and d["seed_case"]:
            why = f"{SEED_CASES[d['seed_case']]}: {d['seed_why']}"
        elif value == book:
            why = "the printed text, set for this run"
        else:
            why = "set for this run"
        rows.append([f"`{d['name']}`", f"`{_literal(value)}`",
                     f"`{_literal(d['default'])}`", _literal(book), why])
    return rows


def _same_deals(plans: Sequence[Plan]) -> bool:
    return len({(p.seed, p.n, p.level) for p in plans}) == 1


def _write_parquet(path: Path, frame: pl.DataFrame, plan: Plan) -> None:
    from simlab.engine.runner import write_checked_parquet  # with the check simlab.load reads

    write_checked_parquet(frame, path, {PROVENANCE_KEY: json.dumps(plan.provenance(), default=str)})


# --- findings: one plain sentence per balance question -----------------------------------
# A game's ``questions`` module (the one of its ``extra["metrics"]`` function) may hold
# ``FINDINGS``, a sequence of dicts, one per sentence:
#
# * ``question`` — the catalogue's balance question, e.g. "2. Position";
# * ``key`` — the metric the sentence answers (the sentence is left out when the run has
#   no such metric, or no row for it);
# * ``text`` — the sentence, without its final full stop; ``{metric.key}`` prints that
#   metric's estimate with its interval (a metric the run has not got prints "n/a");
#   ``{value}`` is the answer's, ``{control}`` the control run's;
# * ``against`` (optional) — what the answer is tested against: a number, a function of
#   the number of players giving one, or another metric's key (its rows must be other
#   rows: the two are tested as independent samples); ``against_text`` names it, e.g.
#   "an even 50%"; ``above`` / ``below`` word the direction (default "above"/"below");
#   ``difference`` names a difference of two metrics, e.g. "round 2 minus round 1";
# * ``control`` and ``paired`` (optional) — knob values of a control run on the same
#   deals (and, under the key ``seat_values``, {seat: {policy knob: value}} given to
#   those seats' players only, ``simlab.engine.seatknobs``), and a function of the number of
#   players giving the per-row expression both runs are measured with; the answer is
#   then the paired difference, this run − control;
# * ``companion`` and ``companion_text`` (optional) — when this run has not got the
#   metric (e.g. Président's role chain needs deals that start from titles), the report
#   runs the same deals with these knob values and answers from that run, saying so.
#
# A sentence without ``against`` or ``control`` states the answer. The tested ones carry a
# two-sided p-value, adjusted by Holm's method over the report's findings: "clear" means
# an adjusted p below 1 − the interval's confidence level.
# A game may also give ``Game.extra["exact_findings"]``, a function of the run's knobs
# returning (question, text) pairs: answers computed exactly rather than read from the
# rows (La batouille's best responses), stated as paragraphs among the findings in the
# order of their questions' numbers.
# Games without ``FINDINGS`` get the standard ones below.
# A position's win rate is tested only where sides are fixed (against the mean over the
# positions, which splits the decided deals evenly: ties are left out of every position's
# wins alike) and always with its points margin; where sides change from deal to deal
# the position is tested in points (``metrics.POSITION_POINTS_NOTE``).
STANDARD_FINDINGS: tuple[dict[str, Any], ...] = (
    {"question": "Position", "key": "balance.first_seat_advantage", "against": 0.0,
     "against_text": "the mean over the positions (an even split of the decided deals; "
                     "ties count for no position)",
     "text": "The first to play after the dealer (dealer+1) wins {dealer_pos.win.1} of played "
             "deals and marks {balance.first_seat_points} per deal against the mean over "
             "the positions"},
    {"question": "Position", "key": "balance.first_seat_points", "against": 0.0,
     "against_text": "the mean over the positions",
     "when_missing": "balance.first_seat_advantage",
     "text": "The first to play after the dealer (dealer+1) marks {dealer_pos.score.1} per "
             "deal (sides change from deal to deal, so positions are compared by what the "
             "seat earns)"},
)
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.+\-]+)(:bare)?\}")


@dataclass(frozen=True)
class FindingSpec:
    question: str
    key: str
    text: str
    against: float | str | Any = None
    against_text: str = ""
    above: str = "above"
    below: str = "below"
    difference: str = ""
    control: dict[str, Any] | None = None
    paired: Any = None  # (n_players) -> pl.Expr
    companion: dict[str, Any] | None = None  # knobs of a run that has the metric
    companion_text: str = ""
    when_missing: str = ""  # a metric key: the sentence is left out when the run has it


@dataclass
class Finding:
    """One sentence of the Findings section, with its test when it has one."""

    question: str
    text: str  # the stated part, placeholders filled
    diff: float = math.nan  # answer − reference, in display units
    lo: float = math.nan  # interval of the difference, display units
    hi: float = math.nan
    unit: str = ""  # of the difference: "points" (percentage points), "places", ...
    decimals: int = 2
    p: float = math.nan
    p_holm: float = math.nan
    against_text: str = ""
    above: str = "above"
    below: str = "below"
    difference: str = ""
    key: str = ""  # the metric it answers

    @property
    def tested(self) -> bool:
        return not math.isnan(self.p)

    def clear(self, alpha: float) -> bool:
        return self.tested and self.p_holm < alpha

    def sentence(self, alpha: float) -> str:
        if not self.tested:
            return f"{self.text}."
        d = self.decimals
        size = f"{abs(self.diff):,.{d}f} {self.unit}".rstrip()
        interval = f"[{_signed(self.lo, d)}, {_signed(self.hi, d)}]"
        if self.difference:
            what = f"a difference of {_signed(self.diff, d)} {self.unit} {interval} " \
                   f"({self.difference})"
        else:
            side = self.above if self.diff > 0 else self.below
            what = (f"{size} {side} {self.against_text} (difference {interval})"
                    if self.diff != 0 else f"equal to {self.against_text}")
        p = fmt_p(self.p_holm)
        p = f"p {p}" if p.startswith("<") else f"p = {p}"
        verdict = (f"{'a' if self.clear(alpha) else 'not a'} clear difference at the "
                   f"{100 * alpha:g}% level after Holm's correction ({p})")
        return f"{self.text}: {what}; {verdict}."


def against_label(against_text: str) -> str:
    """A finding's reference as a figure label: "against the others' mark"; a control
    run's text ("on the same deals without bombs") loses its preposition."""
    bare = re.sub(r"^(on|in) (?=the same )", "", against_text)
    return f"against {bare}"


def finding_specs(game: Game, ms: MetricSet | None = None) -> list[FindingSpec]:
    """The game's ``FINDINGS`` (see above); else the standard ones and, given the run's
    metrics, one stated sentence per headline metric of the game's own sections."""
    raw = raw_findings(game)
    if raw is not None:
        return [FindingSpec(**d) for d in raw]
    specs = [FindingSpec(**d) for d in STANDARD_FINDINGS]
    for m in ms.headline() if ms is not None else []:
        if m.section not in STANDARD_SECTIONS:
            specs.append(FindingSpec(m.section, m.key, f"{_cap(m.title)}: {{{m.key}}}"))
    return specs


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fill(text: str, by_key: dict[str, Metric], extra: dict[str, str]) -> str:
    def one(m: re.Match) -> str:
        name, bare = m.group(1), m.group(2)
        if name in extra:
            return extra[name + (bare or "")] if bare else extra[name]
        metric = by_key.get(name)
        if metric is None:
            return "n/a"
        unit = metric.unit if not bare or metric.unit in plots.PERCENT_UNITS else ""
        return fmt_estimate(metric.estimate, unit)

    return _PLACEHOLDER.sub(one, text)


def _diff_units(kind: str, unit: str) -> tuple[float, str]:
    """(scale, unit) of a difference: rates and fractions in percentage points."""
    if plots.is_percent(kind, unit):
        return 100.0, "percentage points"
    return 1.0, unit


def _p_two_sided(z: float, df: int | None = None) -> float:
    if math.isnan(z):
        return math.nan
    if df is not None and df < 200:
        return 2 * stats.t_sf(abs(z), max(df, 1))
    return 2 * stats.norm_sf(abs(z))


def _crit(conf: float, df: int | None = None) -> float:
    if df is not None and df < 200:
        return stats.t_ppf(0.5 + conf / 2, max(df, 1))
    return stats.norm_ppf(0.5 + conf / 2)


def _se(e: Estimate) -> float:
    """Standard error behind an estimate's interval (Wilson: the binomial one at p̂)."""
    if e.kind == "rate":
        return math.sqrt(max(e.value * (1 - e.value), 0.0) / e.n) if e.n else math.nan
    return (e.hi - e.lo) / (2 * _crit(e.conf, e.n - 1)) if e.n > 1 else math.nan


def _against_value(spec: FindingSpec, n_players: int) -> float | None:
    a = spec.against
    if a is None or isinstance(a, str):
        return None
    return float(a(n_players)) if callable(a) else float(a)


def _moment_mean(m: Moments, j: int | None, conf: float) -> Estimate:
    """Mean and t interval of component ``j`` of ``m`` (None: component 0 minus 1)."""
    w = (1, 0) if j == 0 else (0, 1) if j == 1 else (1, -1)
    s1 = w[0] * m.s1[0] + w[1] * m.s1[1]
    ss = sum(w[a] * w[b] * m.centred(a, b) for a in range(2) for b in range(2))
    sd = math.sqrt(max(float(ss), 0.0) / (m.n - 1)) if m.n > 1 else math.nan
    return mean_estimate(m=float(s1 / m.n), sd=sd, n=m.n, conf=conf)


def _finding(spec: FindingSpec, by_key: dict[str, Metric], n_players: int,
             control: Moments | None) -> Finding | None:
    m = by_key.get(spec.key)
    if m is None or m.estimate.n == 0 or math.isnan(m.estimate.value):
        return None
    e = m.estimate
    scale, unit = _diff_units(e.kind, m.unit)
    if unit and " " not in unit and not unit.endswith("s"):
        unit += "s"  # a difference of 0.15 places
    extra = {"value": fmt_estimate(e, m.unit), "value:bare": fmt_estimate(e)}
    f = Finding(spec.question, "", unit=unit, against_text=spec.against_text,
                above=spec.above, below=spec.below, difference=spec.difference, key=spec.key)
    ref = _against_value(spec, n_players)

    def few_rows(est: Estimate) -> bool:
        return est.n < (MIN_RATE_N if est.kind == "rate" else MIN_MEAN_N)

    # the metric tested against counts too: 64% against 1 of 1 taker would test nothing
    other_few = [o.estimate.n for o in [by_key.get(spec.against)]
                 if isinstance(spec.against, str) and o is not None and o.estimate.n > 0
                 and few_rows(o.estimate)]
    if (few_rows(e) and (spec.against is not None or spec.control is not None)) or other_few:
        counts = f"n = {e.n:,}" + (f" and {other_few[0]:,}" if other_few else "")
        f.text = _fill(spec.text, by_key, extra) + f" (too few rows to test: {counts})"
        return f
    if spec.control is not None and spec.paired is not None and control is not None:
        # ``control``: Moments of (this run's value, the control's) on the same rows
        if control.n < 3:
            return None
        ma, mb = _moment_mean(control, 0, e.conf), _moment_mean(control, 1, e.conf)
        if e.kind == "rate":  # means of 0/1 values: printed as rates (%), like the metric
            ma, mb = replace(ma, kind="rate"), replace(mb, kind="rate")
        extra.update({"value": fmt_estimate(ma, m.unit), "value:bare": fmt_estimate(ma),
                      "control": fmt_estimate(mb, m.unit), "control:bare": fmt_estimate(mb)})
        de = _moment_mean(control, None, e.conf)
        f.diff, f.lo, f.hi = de.value * scale, de.lo * scale, de.hi * scale
        se = _se(de)
        f.p = 1.0 if se == 0 and de.value == 0 else _p_two_sided(de.value / se, de.n - 1)
    elif isinstance(spec.against, str):
        other = by_key.get(spec.against)
        if other is None or other.estimate.n == 0 or other.estimate.kind != e.kind:
            return None
        o = other.estimate
        diff = e.value - o.value
        se = math.hypot(_se(e), _se(o))
        if e.kind == "rate":  # pooled under "no difference"
            pool = (e.value * e.n + o.value * o.n) / (e.n + o.n)
            se0 = math.sqrt(pool * (1 - pool) * (1 / e.n + 1 / o.n))
        else:
            se0 = se
        z = _crit(e.conf)
        f.diff, f.lo, f.hi = diff * scale, (diff - z * se) * scale, (diff + z * se) * scale
        f.p = 1.0 if se0 == 0 and diff == 0 else _p_two_sided(diff / se0)
    elif ref is not None:
        diff = e.value - ref
        if e.kind == "rate":
            se0 = math.sqrt(ref * (1 - ref) / e.n)  # the score test behind Wilson's interval
            df = None
        else:
            se0, df = _se(e), e.n - 1
        f.diff, f.lo, f.hi = diff * scale, (e.lo - ref) * scale, (e.hi - ref) * scale
        f.p = 1.0 if se0 == 0 and diff == 0 else _p_two_sided(diff / se0, df)
        if "{ref}" in spec.against_text:
            f.against_text = spec.against_text.replace(
                "{ref}", fmt_value(Estimate(ref, ref, ref, 1, e.kind, e.conf), m.unit))
    if f.tested:
        f.decimals = _decimals((f.hi - f.lo) / 2, 2)
    f.text = _fill(spec.text, by_key, extra)
    f.against_text = _fill(f.against_text, by_key, extra)
    return f


def findings(game: Game, plan: Plan, frame: pl.DataFrame, ms: MetricSet,
             conf: float) -> list[Finding]:
    """The report's findings on a run's whole ``frame`` (``findings_from`` its sums)."""
    return findings_from(game, plan, frame_report_sums(plan, frame), ms, conf)


def findings_from(game: Game, plan: Plan, sums: ReportSums, ms: MetricSet,
                  conf: float) -> list[Finding]:
    """The report's findings, Holm-adjusted over their tests. A spec with a ``control``
    reads the run's deals replayed under the control (``sums.controls``); one with a
    ``companion`` reads a companion run's metrics (``sums.companions``)."""
    by_key = {m.key: m for m in ms.metrics}
    n = game.players(plan.knobs)
    out: list[Finding] = []
    for spec in finding_specs(game, ms):
        if spec.companion is not None and spec.key not in by_key and plan.level == "deal":
            got = sums.companions.get(tag_of(spec.companion))
            if got is None:
                continue
            companion = {m.key: m for m in compute_from(got, conf).metrics}
            f = _finding(spec, companion, n, None)
            if f is not None:
                f.text += f" ({spec.companion_text})"
                out.append(f)
            continue
        if spec.when_missing and spec.when_missing in by_key:
            continue
        control = None
        if spec.control is not None:
            if spec.key not in by_key or by_key[spec.key].estimate.n == 0:
                continue
            control = sums.controls.get(f"{spec.key}|{tag_of(spec.control)}")
        f = _finding(spec, by_key, n, control)
        if f is not None:
            out.append(f)
    exact = game.extra.get("exact_findings")
    if exact is not None:  # stated paragraphs, placed by their question's number
        out += [Finding(q, text) for q, text in exact(plan.knobs)]
        out.sort(key=_question_number)
    tested = [f for f in out if f.tested]
    for f, ph in zip(tested, holm([f.p for f in tested]), strict=True):
        f.p_holm = ph
    return out


def _question_number(f: Finding) -> float:
    m = _NUMBERED.match(f.question)
    return int(m[1]) if m else math.inf


def run_checks(game: Game, plan: Plan, sums: ReportSums) -> list:
    """The run's own health checks (``players_check.checks_from``) from its sums."""
    return checks_from(game, plan, sums.rows, sums.schema, sums.checks, sums.bids)


def _findings_section(doc: _Doc, found: list[Finding], conf: float,
                      comparison: CompareResult | None, players: PlayersCheck | None = None,
                      skill: SkillCheck | None = None) -> None:
    alpha = 1 - conf
    doc.h(2, "Findings")
    if not found and comparison is None:
        doc.p("No balance question of this game can be answered from this run's metrics.")
    if any(_NUMBERED.match(f.question) for f in found):
        # one question may have several sentences: its number repeats, so say what it is
        text = ("Each paragraph answers one of the game's balance questions, numbered as in "
                "its catalogue entry; a question may take several paragraphs.")
        # a metric of another question may answer one (Frappe's 5 reads q1 metrics): name
        # the keys from a finding whose metric is its own question's
        keyed = [m for f in found if (m := re.match(r"(.+)\.q(\d+)\.", f.key))
                 and (q := _NUMBERED.match(f.question)) and q[1] == m[2]]
        if keyed:
            text += (f" In the tables below, the metrics keyed `{keyed[0][1]}.q{keyed[0][2]}…` "
                     f"are question {keyed[0][2]}'s.")
        doc.p(text)
    for f in found:
        q = question_label(f.question)
        stop = "" if q.endswith(("?", "!", ".")) else "."
        doc.p(f"**{q}{stop}** {f.sentence(alpha)}")
    tested = [f for f in found if f.tested]
    if tested:
        clear = sum(f.clear(alpha) for f in tested)
        doc.p(f"{len(tested)} of these sentences test their answer against a reference "
              f"({clear} clear); Holm's correction adjusts their p-values together. "
              "Intervals are unadjusted 95% intervals, as in the tables below."
              .replace("95%", f"{round(conf * 100):g}%"))
        rows = [(f"{question_label(f.question, short=True)}: "
                 + (f.difference or against_label(f.against_text)), f.diff,
                 f.lo, f.hi, f"difference ({f.unit})", f.clear(alpha)) for f in tested]
        pct = round(conf * 100)
        doc.fig("findings", plots.differences(
            rows, "Findings: each tested answer minus its reference",
            note=f"{pct:g}% intervals; red = clear after Holm's correction"),
            f"Findings: each tested answer minus what it is tested against, with "
            f"{pct:g}% intervals; red: clear after Holm's correction.")
    if comparison is not None:
        sig = comparison.significant(1 - comparison.conf)
        tested_c = comparison.tested()
        doc.p(f"**Comparison.** Variant B ({comparison.label_b}) against variant A "
              f"({comparison.label_a}) on the same deals: {len(sig)} of {len(tested_c)} "
              "tested metrics differ clearly after Holm's correction"
              + (": " + "; ".join(r.title for r in sig[:6]) + ("; …" if len(sig) > 6 else "")
                 if sig else "") + ".")
    if players is not None:
        doc.p(_players_sentence(players, skill))


_NUMBERED = re.compile(r"(\d+)\.\s+(.*)", re.DOTALL)


def question_label(question: str, short: bool = False) -> str:
    """A finding's heading: "Question 2: Position" for the catalogue's "2. Position"
    ("Q2 Position" with ``short``, a figure's row label); an unnumbered one as it is."""
    m = _NUMBERED.match(question)
    if m is None:
        return question
    return f"Q{m[1]} {m[2]}" if short else f"Question {m[1]}: {m[2]}"


def _players_sentence(players: PlayersCheck, skill: SkillCheck | None) -> str:
    """One findings line on how far the answers depend on the players."""
    bad = players.warnings
    checked = [c for c in players.checks if c.ok is not None]
    if not checked:  # "0 of 0 pass" says nothing: say that nothing was checked
        text = "**Players.** No health check of these players could be decided at this sample."
    else:
        text = (f"**Players.** {len(checked) - len(bad)} of {len(checked)} health checks of "
                "the players pass" + (": " + "; ".join(f"**warning**: {c.name} ({c.warning})"
                                                  for c in bad) if bad else "") + ".")
    if skill is not None:
        text += f" Under {skill.policy} players at every seat ({skill.n:,} of the same deals): "
        if not skill.shown_stronger:
            text += f"{skill.gate_text()}."
        else:
            verdict = {r.key: skill.verdict(r) for r in skill.rows}
            holds = [r.title for r in skill.rows if verdict[r.key] == HOLDS]
            changed = [r.title for r in skill.rows if verdict[r.key].startswith(CHANGES)]
            unsettled = [r.title for r in skill.rows if verdict[r.key] == INCONCLUSIVE]
            text += (f"{len(holds)} of {len(skill.rows)} headline answers shown to hold within "
                     "their margins"
                     + ("; these change: " + "; ".join(changed) if changed else "")
                     + ("; inconclusive at this sample: " + "; ".join(unsettled)
                        if unsettled else "") + ".")
    return text + " See the Players section."


def _players(doc: _Doc, players: PlayersCheck | None, skill: SkillCheck | None) -> None:
    if players is None:
        return
    doc.h(2, "Players")
    doc.p(f"Who played: {_policies_text(players.policies)}. The answers above are those of "
          "these players; the checks below say how far they can be trusted.")
    if players.duels:
        doc.p("Duplicate play (the same deals with the seats swapped, difference per deal; "
              "a smaller sample than the run):")
        doc.table(["players", "edge per deal", "95% interval", "deals"],
                  [[label, f"{r.edge:+,.2f}", f"[{r.lo:+,.2f}, {r.hi:+,.2f}]", fmt_n(r.n)]
                   for label, r, _ in players.duels if r is not None], right=(1, 2, 3))
    doc.table(["health check", "value", "status"],
              [[c.name, c.value, (f"ok ({c.note})" if c.note else "ok") if c.ok
                else ("—" if c.ok is None else f"**warning**: {c.warning}")]
               for c in players.checks])
    st = players.strength
    if st is not None:
        doc.p(f"Strong hands win? Mean result per deal of a seat by decile of its dealt "
              f"hand's strength, measured as {st.measure} (1 = weakest), over {st.n:,} hands:")
        doc.table(["decile", *[str(i + 1) for i in range(len(st.deciles))]],
                  [["mean result", *[fmt_value(d) for d in st.deciles]]],
                  right=tuple(range(1, len(st.deciles) + 1)))
    if not players.duels and st is None:
        doc.p("The duplicate edges and the hand-strength check were not run "
              "(`simlab report --players-n N` runs them on N deals).")
    if skill is not None:
        doc.h(3, "Answers under stronger play")
        pct = f"{round(skill.conf * 100):g}%"
        tost = f"{round((1 - 2 * (1 - skill.conf)) * 100):g}%"
        doc.p(f"Each headline answer measured again with {skill.policy} players at every "
              f"seat on the run's first {skill.n:,} deals (the same deals): the run's players' "
              f"estimate and {skill.policy}'s, each with its {pct} interval, and their paired "
              f"difference ({skill.policy} minus the run's players) with its {pct} interval. "
              f"\"{HOLDS}\" only when an equivalence test (two one-sided tests: the "
              f"difference's {tost} interval) puts the difference within the margin shown; "
              f"\"{CHANGES}\" when the difference's {pct} interval excludes 0 (unadjusted; "
              f"Holm's correction over the headline answers is noted); \"{INCONCLUSIVE}\" "
              "otherwise, with the deals that would bring the equivalence interval's "
              f"half-width under the margin. The margin is {EFFECT_SHARE:g} × the answer's "
              "effect (its distance from what the findings test it against), never under "
              f"{100 * RATE_MARGIN:g} pp for a rate or {MEAN_MARGIN_SD:g} × a deal's standard "
              "deviation for a mean. A metric marked *a player's choice* records what the "
              "players chose, not the game.")
        doc.p(("Labels earned: " if skill.shown_stronger else "No label: ")
              + skill.gate_text() + ".")
        rows = []
        for r in skill.rows:
            diff, iv = fmt_diff(r.diff, r.lo, r.hi, r.run.kind, r.unit)
            if iv == "n/a":  # too few qualifying deals on a side: no difference to speak of
                diff, iv = "too few deals", ""
            _, tiv = fmt_diff(r.diff, r.tost_lo, r.tost_hi, r.run.kind, r.unit)
            margin, _ = fmt_diff(r.margin, -r.margin, r.margin, r.run.kind, r.unit)
            label = skill.verdict(r) or "—"
            need = skill.to_settle(r)
            if label == INCONCLUSIVE and need is not None:
                label += f" (about {need:,} deals would settle it)"
            rows.append([r.title + (" *(a player's choice)*" if r.choice else ""),
                         fmt_estimate(r.base, r.unit), fmt_estimate(r.strong, r.unit),
                         f"{diff} {iv}".strip(), tiv if iv else "",
                         f"±{margin.lstrip('+')} ({r.margin_why})", label])
        doc.table(["headline answer", f"the run's players, first {skill.n:,} deals",
                   f"{skill.policy}, same deals", f"difference ({pct})",
                   f"equivalence interval ({tost})", "margin", "label"], rows)


# --- sections ----------------------------------------------------------------------------
def _kernel_rows(kernels: tuple[float, float]) -> list[list[str]]:
    """The row of the time spent on kernels, which the run time leaves out: compiling them
    (this machine's first run of these sources) and loading them (compiled earlier)."""
    compiling, loading = kernels
    parts = ([f"{_seconds(compiling)} compiling them (this machine's first run of these "
              "sources)"] if compiling else []) \
        + ([f"{_seconds(loading)} loading them (compiled earlier)"] if loading else [])
    return [["kernels (not in the run time)", "; ".join(parts)]] if parts else []


def _what(doc: _Doc, game: Game, plan: Plan, n_rows: int | None, seconds: float,
          notes: Sequence[str], kernels: tuple[float, float] = (0.0, 0.0)) -> None:
    """``n_rows``: the run's rows (None: a sweep's report, one run per grid point);
    ``kernels``: of ``seconds``, those spent compiling and loading kernels (shown apart)."""
    import simlab

    doc.h(2, "What was simulated")
    simulating = max(0.0, seconds - sum(kernels))
    rows = [
        ["game", f"{game.title} (`{game.slug}`)"],
        ["rules changed from the defaults", _knobs_text(plan.knobs.changed()) if n_rows is not None
         else "one variant per grid point: see the sweep section"],
    ]
    if plan.variant:
        rows.append(["variant file", f"`{plan.variant}`"])
    rows += [
        ["policies", _policies_text(plan.policies)],
        ["level", "deal (independent deals)" if plan.level == "deal" else "match (whole matches)"],
        ["sample", f"{plan.n:,} {plan.unit}"
         + (f" ({n_rows:,} rows)" if n_rows is not None and n_rows != plan.n else "")
         + (" per grid point" if n_rows is None else "")],
        ["seed", str(plan.seed)],
        ["simlab version", simlab.__version__],
        ["run time", _seconds(simulating)
         + (f" ({plan.n / simulating:,.0f} {plan.unit}/s)" if simulating > 0
            and n_rows is not None else "")],
        *_kernel_rows(kernels),
        ["report date", datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")],
    ]
    doc.table(["item", "value"], rows)
    if n_rows is not None:
        book = _rulebook_rows(plan.knobs)
        if book:
            doc.p("Readings that differ from the rulebook's printed text (a default does "
                  "only where the book contradicts itself, is silent or cannot be played; "
                  f"`simlab params {game.slug}` lists every knob):")
            doc.table(["knob", "this run", "default", "rulebook (seed)", "why"], book)
    if game.description:
        doc.p(f"{game.title}: {game.description}.".replace("..", "."))
    if notes:
        doc.h(3, "Notes")
        doc.ul(notes)


def _headline(doc: _Doc, ms: MetricSet, skill: SkillCheck | None = None) -> None:
    doc.h(2, "Headline answers")
    head = ms.headline()
    if not head:
        doc.p("This run has no headline metric.")
        return
    _metric_table(doc, head, with_section=True, with_key=False)
    if skill is not None:
        verdicts = {r.key: skill.verdict(r) for r in skill.rows}
        changed = [m.title for m in head if verdicts.get(m.key, "").startswith(CHANGES)]
        holds = sum(verdicts.get(m.key) == HOLDS for m in head)
        doc.p(f"Under stronger play ({skill.policy} at every seat): "
              + ((f"{holds} of {len(head)} answers shown to hold within their margins"
                  + (f"; {len(changed)} change with the players: " + "; ".join(changed)
                     if changed else "") + "; the others are inconclusive at this sample")
                 if skill.shown_stronger else NOT_SHOWN.replace("search", skill.policy))
              + " (see Players).")


def _sections(doc: _Doc, ms: MetricSet) -> None:
    for section, metrics in ms.by_section().items():
        doc.h(2, section)
        _metric_table(doc, metrics)
        _section_figures(doc, section, metrics)


def _scores(doc: _Doc, game: Game, plan: Plan, sums: ReportSums, conf: float) -> None:
    columns = [c for c in sums.distributions if c != "n_deals"]
    if not columns:
        return
    prefix = columns[0][:-1]
    n = game.players(plan.knobs)
    teams = tuple(game.teams(plan.knobs)) if game.teams is not None else None
    groups = plots.groups_of(sums.same, n, teams)
    dists = [sums.distributions[f"{prefix}{g[0]}"] for g in groups]
    what = "final scores per match" if prefix.startswith("final") else "points per deal"
    doc.h(2, "Score distributions")
    merged = [g for g in groups if len(g) > 1]
    text = f"Distribution of {what} (column `{prefix}<seat>`)."
    if merged:
        text += (" Partners' score columns are identical on every row, so each team is shown "
                 "once: " + "; ".join(plots.group_label(g) for g in merged) + ".")
    doc.p(text)
    rows = []
    for g, d in zip(groups, dists, strict=True):
        e = mean_estimate(m=d.mean(), sd=d.sd(), n=d.n, conf=conf)
        rows.append([plots.group_label(g), fmt_n(d.n), fmt_value(e), fmt_interval(e),
                     f"{d.sd():.1f}" if d.n > 1 else "n/a",
                     *(f"{x:g}" if d.n else "n/a"
                       for x in (d.quantile(0.0), d.quantile(0.05), d.quantile(0.25),
                                 d.quantile(0.5), d.quantile(0.75), d.quantile(0.95),
                                 d.quantile(1.0)))])
    doc.table(["seats", "n", "mean", f"mean: {_conf_label(conf=conf)}", "sd", "min", "5%", "25%",
               "median", "75%", "95%", "max"], rows, right=range(1, 12))
    xlabel = "final score (points)" if prefix.startswith("final") else "score per deal (points)"
    fig = plots.score_histograms_of(groups, dists, xlabel=xlabel)
    doc.fig("scores", fig, f"Distribution of {what}; dashed line: mean.")


def _match_length(doc: _Doc, sums: ReportSums, capped: int | None, conf: float) -> None:
    d = sums.distributions.get("n_deals")
    if d is None or d.n == 0:
        return
    e = mean_estimate(m=d.mean(), sd=d.sd(), n=d.n, conf=conf)
    doc.h(2, "Match length")
    rows = [["deals per match", fmt_n(e.n), fmt_value(e), fmt_interval(e),
             f"{d.median():g}", f"{d.quantile(0.0):g}", f"{d.quantile(1.0):g}"]]
    doc.table(["", "matches", "mean", _conf_label(conf=e.conf), "median", "min", "max"], rows,
              right=range(1, 7))
    if capped is not None:
        if capped:
            doc.p(f"{capped:,} of {sums.rows:,} matches were stopped by the safety cap on the "
                  "number of deals; they are included above.")
        else:
            doc.p(f"None of the {sums.rows:,} matches was stopped by the safety cap on the "
                  "number of deals.")
    doc.fig("match-length", plots.match_length_of(d), "Distribution of deals per match.")


def _diff_cells(r) -> tuple[str, str]:
    """(B − A, its interval) cells; a missing interval says why."""
    c = r.diff
    d, iv = fmt_diff(c.diff, c.lo, c.hi, r.a.kind, r.definition.unit)
    if iv == "n/a" and c.status:
        iv = c.status
    return d, iv


def _holm_text(r) -> str:
    if r.duplicate_of:
        return f"= {r.duplicate_of}"
    if math.isnan(r.p_holm):
        return "identical: not tested" if r.diff.status == IDENTICAL else "not tested"
    return fmt_p(r.p_holm)


def _comparison(doc: _Doc, c: CompareResult) -> None:
    alpha = 1 - c.conf
    pct = f"{round(c.conf * 100):g}%"
    doc.h(2, "Comparison: variant B − variant A")
    doc.table(["variant", "rules changed from the defaults", "policies"], [
        ["A", _knobs_text(c.plan_a.knobs.changed()), _policies_text(c.plan_a.policies)],
        ["B", _knobs_text(c.plan_b.knobs.changed()), _policies_text(c.plan_b.policies)],
    ])
    tested = c.tested()
    if _same_deals([c.plan_a, c.plan_b]):
        doc.p(f"Both variants ran on the same {c.plan_a.n:,} {c.plan_a.unit} (seed {c.plan_a.seed}): "
              f"{c.plan_a.level} i has the same shuffle in A and B. Each variant's metric is computed "
              "with its own rules over its own qualifying rows (a conditional rate over the rows that "
              "meet its condition in that variant), so B − A is the difference of the two figures "
              "shown; its interval uses the pairing of the rows (joint delta method: Student t for "
              "means; for rates Newcombe's square-and-add of the two Wilson intervals with their "
              "correlation). Holm's correction adjusts the p-values over the "
              f"{len(tested)} distinct, estimable metrics.")
    else:
        doc.p("Warning: the two variants did not run on the same deals (different seed, size or "
              "level); the paired differences below are not meaningful.")
    doc.p(f"**Intervals:** {c.intervals_note()}.")
    sig = c.significant(alpha)
    identical = [r for r in c.rows if r.diff.status == IDENTICAL]
    if not tested and identical:
        doc.p(f"No significant difference at the {100 * alpha:g}% level after Holm's correction: "
              "no metric differs between A and B on any row, so none was tested.")
    elif not tested:
        doc.p("No metric could be tested (no metric has an interval).")
    elif not sig:
        doc.p(f"No significant difference at the {100 * alpha:g}% level after Holm's correction "
              f"({len(tested)} metrics tested).")
    else:
        doc.p(f"{len(sig)} of {len(tested)} metrics differ significantly at the {100 * alpha:g}% "
              f"level after Holm's correction: " + "; ".join(r.title for r in sig[:12])
              + ("; …" if len(sig) > 12 else "") + ".")
    if identical:
        doc.p(f"{len(identical)} of {len(c.rows)} metrics are identical in A and B on every row "
              "(difference 0); they are shown with their interval but not tested.")
    dups = [r for r in c.rows if r.duplicate_of]
    if dups:
        doc.p(f"{len(dups)} metrics have the same per-row values in A and B as an earlier metric (the "
              "same hypothesis: \"= …\" in the Holm column) and are counted once.")
    few = [r for r in c.rows if r.diff.status == TOO_FEW]
    if few:
        doc.p(f"{len(few)} metrics have too few rows in A or B for an interval (fewer than "
              f"{MIN_RATE_N} for a rate, {MIN_MEAN_N} for a mean).")
    rows = []
    for r in c.rows:
        unit = r.definition.unit
        d, iv = _diff_cells(r)
        yes = ("no" if r.diff.status == IDENTICAL else "n/a") if math.isnan(r.p_holm) else (
            "yes" if r.p_holm < alpha else "no")
        same_base = r.diff.n_a < 0 or r.diff.n_a == r.diff.n_b == r.diff.n
        n = fmt_n(r.diff.n) if same_base else f"{fmt_n(r.diff.n_a)} / {fmt_n(r.diff.n_b)}"
        rows.append([r.title, r.section, fmt_estimate(r.a, unit), fmt_estimate(r.b, unit), d, iv,
                     n, fmt_p(r.diff.p_value), _holm_text(r), yes])
    doc.table(["metric", "section", f"A [{pct} interval]", f"B [{pct} interval]", "B − A",
               f"{pct} interval of B − A (unadjusted)", "n (A / B)", "p", "Holm p", "significant"], rows,
              right=range(2, 9))
    doc.fig("compare-forest", plots.compare_forest(c),
            f"Differences B − A (each variant over its own rows, paired by row) with unadjusted {pct} "
            "intervals; red: significant after Holm's correction. Rates in percentage points.")


def _sweep_findings(doc: _Doc, s: SweepResult) -> None:
    """Findings first for a sweep: each headline metric's lowest and highest grid point.
    Disjoint intervals at the two ends say the metric moves across the grid; as the points
    share their deals, a paired test would be sharper still, so this reading is cautious
    (and not adjusted for the several metrics)."""
    doc.h(2, "Findings")
    keys = list(s.grid)

    def at(p) -> str:
        return ", ".join(f"{k}={p.values[k]}" for k in keys)

    heads: dict[str, list[tuple[Metric, object]]] = {}
    for p in s.points:
        for m in p.metrics.headline():
            if m.estimate.n > 0 and not math.isnan(m.estimate.value):
                heads.setdefault(m.key, []).append((m, p))
    if not heads:
        doc.p("The sweep has no headline metric with a value at any grid point.")
        return
    moved = 0
    lines: list[str] = []
    for found in heads.values():
        low_m, low_p = min(found, key=lambda x: x[0].estimate.value)
        high_m, high_p = max(found, key=lambda x: x[0].estimate.value)
        apart = low_m.estimate.hi < high_m.estimate.lo
        moved += apart
        if low_m.estimate.value == high_m.estimate.value:
            lines.append(f"**{_cap(low_m.title)}.** The same at every grid point: "
                         f"{fmt_value(low_m.estimate, low_m.unit)} "
                         f"{fmt_interval(low_m.estimate, low_m.unit)}.")
            continue
        lines.append(f"**{_cap(low_m.title)}.** Lowest {fmt_value(low_m.estimate, low_m.unit)} "
                     f"{fmt_interval(low_m.estimate, low_m.unit)} at {at(low_p)}, highest "
                     f"{fmt_value(high_m.estimate, high_m.unit)} "
                     f"{fmt_interval(high_m.estimate, high_m.unit)} at {at(high_p)}: "
                     + ("the two intervals do not overlap, a clear change across the grid."
                        if apart else "the intervals overlap, so no clear change by this "
                        "cautious reading (`simlab compare` tests two points deal by deal)."))
    doc.p(f"{moved} of {len(heads)} headline metrics clearly move across the grid (the "
          "intervals at the lowest and the highest point do not overlap; unadjusted "
          f"{_conf_label([next(iter(heads.values()))[0][0]])}s, cautious since every point "
          "ran on the same deals).")
    for line in lines:
        doc.p(line)


def _sweep(doc: _Doc, s: SweepResult) -> None:
    keys = list(s.grid)
    doc.h(2, "Sweep")
    grid_text = "; ".join(f"`{k}` ∈ {{{', '.join(str(v) for v in vals)}}}" for k, vals in s.grid.items())
    base = _knobs_text(s.base) if s.base else "none"
    doc.p(f"Grid: {grid_text} ({len(s.points)} points). Other knobs set for every point: {base}.")
    plans = [p.plan for p in s.points]
    if plans:
        if _same_deals(plans):
            doc.p(f"Every grid point ran on the same {plans[0].n:,} {plans[0].unit} "
                  f"(seed {plans[0].seed}).")
        else:
            doc.p("The grid points did not all run with the same seed and size.")
    head_keys: list[str] = []
    titles: dict[str, Metric] = {}
    for p in s.points:
        for m in p.metrics.headline():
            if m.key not in titles:
                head_keys.append(m.key)
                titles[m.key] = m
    if not head_keys:
        doc.p("The sweep has no headline metric to show.")
        return
    rows = []
    for k in head_keys:
        for p in s.points:
            m = next((m for m in p.metrics.metrics if m.key == k), None)
            if m is None:
                continue
            rows.append([m.title, *(str(p.values[x]) for x in keys), fmt_value(m.estimate, m.unit),
                         fmt_interval(m.estimate, m.unit), fmt_n(m.estimate.n)])
    first = titles[head_keys[0]]
    doc.table(["metric", *keys, "estimate", _conf_label([first]), "n"], rows,
              right=range(1 + len(keys), 4 + len(keys)))
    for k in head_keys:
        fig = plots.sweep_curves(s, k)
        doc.fig(f"sweep-{k}", fig, f"{titles[k].title} against `{keys[0]}`, with "
                f"{_conf_label([titles[k]])}s" + ("; one line per value of the other swept knobs."
                                                  if len(keys) > 1 else "."))


def _method(doc: _Doc, conf: float, level: str, sides_text: str = "",
            n_findings: int = 0) -> None:
    doc.h(2, "Method")
    items = [
        f"Rates carry a {round(conf * 100):g}% Wilson score interval, means a Student t interval "
        "(unless a metric's note says otherwise); n is the number of rows a metric is computed "
        "on (for conditional rates, the rows where the condition holds).",
        "Intervals are unadjusted: each covers its own metric with the stated probability, not all "
        "of the report's metrics at once.",
    ]
    if level == "deal" and sides_text:
        items.append(sides_text)
    if n_findings:
        items.append(f"Findings: {n_findings} sentences test their answer against a reference "
                     "(a fixed value such as an even 50% or a fair share; another metric on "
                     "other rows, as two independent samples; or a control run of the same "
                     "deals under other rules, as a paired difference): a two-sided score test "
                     "for a rate against a value, a z or t test otherwise. Holm's correction "
                     "adjusts these p-values together; \"clear\" means an adjusted p below "
                     f"{100 * (1 - conf):g}%. A comparison section adjusts its own metrics "
                     "separately. The intervals printed beside them are unadjusted.")
    items.append("Percentages: rates, and means of fractions (unit \"share\"), are printed "
                 "in %; their differences in percentage points (pp).")
    items.append("Each row draws from its own random stream keyed by (seed, row index), so the "
                 "results do not depend on the number of workers or chunks.")
    doc.ul(items)


# --- entry point -------------------------------------------------------------------------
def write_report(out_dir: str | Path, *, game: Game, plan: Plan,
                 frame: pl.DataFrame | None, seconds: float, metric_set: MetricSet | None = None,
                 comparison: CompareResult | None = None, sweep: SweepResult | None = None,
                 title: str | None = None, notes: Sequence[str] = (),
                 players: PlayersCheck | None = None, skill: SkillCheck | None = None,
                 sums: ReportSums | None = None,
                 kernels: tuple[float, float] = (0.0, 0.0)) -> Path:
    """Write ``report.md``, ``report.html``, ``figures/*.png`` and ``results.parquet`` into
    ``out_dir`` (created if needed) and return it. The run is its whole ``frame``, or its
    ``sums`` (``report_sums.run_report_sums``, which wrote ``results.parquet`` already).
    ``metric_set`` defaults to every metric of the game on the run. With neither (a
    sweep's report: every grid point was its own run) only the comparison / sweep
    sections are written. ``players``
    (``simlab.analysis.players_check.check_players``) and ``skill`` (``skill_check``) fill the
    Players section; without them it lists the policies and the run's own health checks.
    ``kernels``: (compiling, loading) seconds of ``seconds`` spent on the kernels
    (``runner.kernel_clock``), shown apart from the run time."""
    out = check_folder_output(out_dir)
    try:
        return _write_report(out, game, plan, frame, seconds, metric_set, comparison, sweep,
                             title, notes, players, skill, sums, kernels)
    except OSError as e:  # a full disk, a folder made read-only meanwhile...
        raise SimlabError(f"cannot write the report into {str(out)!r}: "
                          f"{e.strerror or e}{' (' + str(e.filename) + ')' if e.filename else ''}"
                          "; free some space or give another --out, and run again") from None


def _write_report(out: Path, game: Game, plan: Plan, frame: pl.DataFrame | None,
                  seconds: float, metric_set: MetricSet | None, comparison: CompareResult | None,
                  sweep: SweepResult | None, title: str | None, notes: Sequence[str],
                  players: PlayersCheck | None = None, skill: SkillCheck | None = None,
                  sums: ReportSums | None = None,
                  kernels: tuple[float, float] = (0.0, 0.0)) -> Path:
    game = as_game(game)
    fig_dir = out / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    if sums is None and frame is not None:
        sums = frame_report_sums(replace(plan, game=game), frame)
    if sums is None and metric_set is None:
        ms = MetricSet()
    else:
        ms = metric_set if metric_set is not None else compute_from(sums.metrics)
    conf = ms.metrics[0].estimate.conf if ms.metrics else 0.95
    title = title or f"{game.title}: balance report"

    doc = _Doc(fig_dir)
    doc.h(1, title)
    found = findings_from(game, plan, sums, ms, conf) if sums is not None else []
    if sums is not None and players is None:
        players = check_players(game, plan, n=0, checks=run_checks(game, plan, sums))
    if skill is not None:  # its labels rest on this report's duplicate edge
        skill = skill.gated_by(players)
    if sums is not None or comparison is not None:
        _findings_section(doc, found, conf, comparison, players, skill)
    elif sweep is not None:
        _sweep_findings(doc, sweep)
    _what(doc, game, plan, sums.rows if sums is not None else None, seconds, list(notes),
          kernels)
    if sums is not None:
        _headline(doc, ms, skill)
        _players(doc, players, skill)
        _sections(doc, ms)
        _scores(doc, game, plan, sums, conf)
        if plan.level == "match":
            _match_length(doc, sums, sums.capped(game, plan.knobs, plan.level), conf)
    if comparison is not None:
        _comparison(doc, comparison)
    if sweep is not None:
        _sweep(doc, sweep)
    from simlab.analysis.metrics import sides_method, sides_of

    _method(doc, conf, plan.level, sides_method(sides_of(game, plan.knobs)),
            sum(f.tested for f in found))

    files = []
    if frame is not None:
        _write_parquet(out / "results.parquet", frame, plan)
    if sums is not None:
        files.append("`results.parquet`: the results, one row per "
                     f"{plan.level}, with the run's provenance (Parquet metadata key `simlab`)")
    if comparison is not None:
        # the other variant's rows (the report's own run is in results.parquet)
        side = "a" if plan is comparison.plan_b else "b"
        other = comparison.frame_a if side == "a" else comparison.frame_b
        if other is not None:
            _write_parquet(out / f"results_{side}.parquet", other,
                           comparison.plan_a if side == "a" else comparison.plan_b)
        if other is not None or f"results_{side}.parquet" in comparison.written:
            files.append(f"`results_{side}.parquet`: variant {side.upper()}'s results, with "
                         "its provenance")
    files.append(f"`figures/`: {len(doc.figures)} PNG figures")
    doc.render()
    doc.h(2, "Files")
    doc.ul(files)

    current = {f.name for f in doc.figures}
    for stale in fig_dir.glob("*.png"):  # figures of an earlier report in this directory
        if stale.name not in current:
            stale.unlink()
    (out / "report.md").write_text(doc.markdown(), encoding="utf-8")
    (out / "report.html").write_text(doc.html(title), encoding="utf-8")
    return out
