"""The report of ``simlab balance`` (``simlab.analysis.balance``): the recommended variant
first, as a ready ``--set`` line and TOML; its objective and constraints against the current
defaults, re-measured on fresh deals; the candidates as a figure (the Pareto front with two
objectives); every candidate tried; the deals spent and how the search went.

May import: the engine and ``simlab.analysis`` (balance, plots, report's document)."""

from __future__ import annotations

import math
from pathlib import Path

from simlab.analysis import plots
from simlab.analysis.balance import BalanceResult, Estimate2
from simlab.analysis.report import _Doc
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import check_folder_output


def _pct(conf: float) -> str:
    return f"{100 * conf:.4g}%"


def _figure(r: BalanceResult):
    fig = plots._figure(h=4.4)
    ax = fig.add_subplot(1, 1, 1)
    alive = [c for c in r.candidates if c.estimate and math.isfinite(c.estimate[0].value)]
    rec = {id(c) for c in r.recommended}
    if len(r.objectives) == 2:
        for c in alive:
            x, y = c.estimate[0], c.estimate[1]
            colour = "#c0392b" if id(c) in rec else ("#1f5f99" if c.status == "finalist"
                                                      else plots.MUTED)
            ax.errorbar([x.value], [y.value], xerr=[[x.value - x.lo], [x.hi - x.value]]
                        if math.isfinite(x.lo) else None,
                        yerr=[[y.value - y.lo], [y.hi - y.value]] if math.isfinite(y.lo) else None,
                        fmt="o", color=colour, ms=5, lw=0.8)
            if id(c) in rec or c.is_default:
                ax.annotate(("defaults: " if c.is_default else "") + c.label, (x.value, y.value),
                            fontsize=7, xytext=(4, 4), textcoords="offset points")
        ax.set_xlabel(r.objectives[0].label)
        ax.set_ylabel(r.objectives[1].label)
        ax.set_title("Candidates at their last rung (red: the Pareto front re-measured)")
    else:
        alive.sort(key=lambda c: c.estimate[0].value, reverse=r.objectives[0].maximize)
        ys = list(range(len(alive)))
        for y, c in zip(ys, alive, strict=True):
            e = c.estimate[0]
            colour = "#c0392b" if id(c) in rec else ("#1f5f99" if c.status == "finalist"
                                                      else plots.MUTED)
            ax.errorbar([e.value], [y], xerr=[[e.value - e.lo], [e.hi - e.value]]
                        if math.isfinite(e.lo) else None, fmt="o", color=colour, ms=4, lw=0.8)
        ax.set_yticks(ys, [("defaults: " if c.is_default else "") + c.label for c in alive],
                      fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(r.objectives[0].label + f" ({_pct(r.conf)} racing intervals)")
        ax.set_title("Every candidate at its last rung (red: recommended; blue: finalists)")
    return fig


def _cell(e: Estimate2) -> str:
    return e.text()


def write_balance_report(r: BalanceResult, out_dir: str | Path) -> Path:
    """``report.md``, ``report.html`` and ``figures/`` of a balance search."""
    out = check_folder_output(out_dir)
    fig_dir = out / "figures"
    fig_dir.mkdir(parents=True, exist_ok=True)
    title = f"{r.game.title}: the fairest house rules over {', '.join(a.name for a in r.axes)}"
    doc = _Doc(fig_dir)
    doc.h(1, title)
    doc.h(2, "Recommendation")
    unit = "deals" if r.level == "deal" else "matches"
    fc = _pct(r.final_conf)
    for c in r.recommended:
        row = r.row_of(c)
        d = r.final_default
        parts = []
        for o, e, ed, diff in zip(r.objectives, row.objectives, d.objectives, row.vs_default,
                                  strict=True):
            parts.append(f"**{o.label}**: {_cell(e)} against {_cell(ed)} with the current rules "
                         f"(difference {_cell(diff)}, paired on the same {r.final_n:,} fresh {unit})")
        head = ("Keep the current rules" if c.is_default else
                f"Play `{r.set_line(c)}` (`simlab run {r.game.slug} {r.set_line(c)}`)")
        doc.p(f"{head}: {r.verdict(c)}. " + "; ".join(parts) + ".")
        for k, s in zip(r.constraints, row.slacks, strict=True):
            met = "met" if s.value <= 0 else "NOT met"
            doc.p(f"Constraint `{k.text}`: {met} (slack {_cell(s)}; met when <= 0).")
        if not row.feasible:
            doc.p("No finalist met every constraint at its estimate: this is the closest one.")
        doc.p("As a variant file (`--variant fair.toml`):")
        doc.p("`" + r.toml(c).replace("\n", "` `") + "`")
    doc.p(f"Intervals here are {fc}: the finalists' figures come from fresh deals (seed "
          f"{r.final_seed}), not from the racing that chose them, at a confidence adjusted for "
          f"the {len(r.finals)} finalist(s) (Bonferroni: 1 - 0.05 / {len(r.finals)}), so they "
          "hold together.")
    if r.search is not None:
        s = r.search
        doc.h(2, "Under stronger play (search)")
        rows = []
        for (c, objs, diffs), verdict in zip(s.rows, s.verdicts, strict=True):
            rows.append([("defaults: " if c.is_default else "") + c.label,
                         *[_cell(e) for e in objs], _cell(diffs[0]) if diffs else "-", verdict])
        doc.table(["variant", *[o.label for o in r.objectives], "vs defaults", "verdict"], rows)
        best = min(s.rows[:-1], key=lambda x: (-x[1][0].value if r.objectives[0].maximize
                                               else x[1][0].value), default=None)
        if best is not None:
            same = any(best[0] is c for c in r.recommended)
            doc.p(f"Under search, the best-measured finalist is {best[0].label}"
                  + (" — the recommended variant stays the fairest." if same else
                     " — not the recommended variant: read the recommendation as holding for "
                     "the heuristic players, and see the intervals."))
        doc.p(f"Search at every seat on {s.n:,} other deals, the finalists and the defaults on "
              f"the same deals; {_pct(r.conf)} intervals.")
    doc.h(2, "The finalists, re-measured")
    rows = []
    ordered = sorted(r.finals, key=lambda x: (-x.objectives[0].value if r.objectives[0].maximize
                                              else x.objectives[0].value))
    for row in ordered + [r.final_default]:
        c = row.cand
        rows.append([("defaults: " if c.is_default else "") + c.label,
                     *[_cell(e) for e in row.objectives],
                     *[_cell(e) for e in row.vs_default],
                     *[_cell(s) for s in row.slacks]])
    doc.table(["variant", *[o.label for o in r.objectives],
               *[f"{o.label} vs defaults" for o in r.objectives],
               *[f"slack of {k.text}" for k in r.constraints]], rows)
    doc.h(2, "Every candidate")
    doc.fig("candidates", _figure(r), "candidates at their last racing rung, with their "
                                      f"{_pct(r.conf)} jackknife intervals")
    rows = []
    for c in r.candidates:
        rows.append([("defaults: " if c.is_default else "") + c.label, f"{c.deals:,}",
                     *([_cell(e) for e in c.estimate] if c.estimate else ["-"] * len(r.objectives)),
                     c.status + (f" (rung {c.dropped_at})" if c.dropped_at else "")])
    doc.table(["candidate", f"{unit} raced", *[o.label for o in r.objectives], "outcome"], rows,
              right=[1])
    doc.h(2, "How the search went")
    doc.ul([f"candidates: {r.proposer} ({len(r.candidates)} with the defaults)",
            *r.rungs,
            f"{unit} spent: {r.spent:,} of a budget of {r.budget:,}"
            + (" (the search check's deals apart)" if r.search else ""),
            f"players: {r.policies}; seed {r.seed}"])
    doc.h(2, "Method")
    doc.p("Every candidate of a rung plays the same deals (each deal draws from its own random "
          "stream, keyed by the seed and its number), split into blocks; an objective's interval "
          "and every paired difference between candidates come from the jackknife over those "
          "blocks (leave one block out, Student's t). An objective |g| is measured through g: "
          "its interval is the image of g's, 0 at the bottom when g's straddles zero. A rung "
          "drops the candidates whose paired difference with the leader is clearly worse "
          "(interval above zero) or that clearly break a constraint, then keeps the better half "
          "(successive halving), which plays the next rung's fresh deals. The finalists and the "
          "defaults are then re-measured on deals of another seed; only those figures are "
          "reported, with Bonferroni-adjusted intervals.")
    doc.render()
    try:
        (out / "report.md").write_text(doc.markdown(), encoding="utf-8")
        (out / "report.html").write_text(doc.html(title), encoding="utf-8")
    except OSError as e:
        raise SimlabError(f"cannot write the report into {str(out)!r}: {e.strerror or e}") from None
    return out
