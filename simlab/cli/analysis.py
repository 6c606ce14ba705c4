"""The analysis commands of the ``simlab`` CLI: how-often, compare, sweep, report,
experiment, duel, tune. ``simlab.cli.commands`` registers them; shared helpers come from ``simlab.cli.common``."""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

from simlab.engine.knobs import SimlabError, load_variant, parse_assignments
from simlab.engine.runner import LEVELS, Plan, check_folder_output, kernel_clock, plan


# --- output helpers -----------------------------------------------------------------------
def _table(headers, rows, right=None) -> str:
    from simlab.cli.common import table

    return table(headers, rows, right=right)


def _paragraph(text: str) -> str:
    from simlab.cli.common import _paragraph as paragraph

    return paragraph(text)


def _fmt_est(e, unit: str = "") -> list[str]:
    """Value, interval and n; rates and shares in %, differences of rates in pp."""
    from simlab.engine.stats import CONSTANT_ROWS, MIN_MEAN_N, POINTS_UNITS, TOO_FEW_ROWS, is_percent

    if e.n == 0 or math.isnan(e.value):
        return ["-", "-", "0"]
    if e.status == TOO_FEW_ROWS:  # as the report says it: no number under MIN_MEAN_N rows
        return ["too few", f"too few rows (under {MIN_MEAN_N})", f"{e.n:,}"]
    if e.status == CONSTANT_ROWS:
        from dataclasses import replace

        return [_fmt_est(replace(e, status=""), unit)[0], "every row equal", f"{e.n:,}"]
    if e.kind != "rate" and unit in POINTS_UNITS:
        ci = "-" if math.isnan(e.lo) else f"[{100 * e.lo:+.2f}, {100 * e.hi:+.2f}] pp"
        return [f"{100 * e.value:+.2f} pp", ci, f"{e.n:,}"]
    if is_percent(e.kind, unit):
        ci = "-" if math.isnan(e.lo) else f"[{100 * e.lo:.2f}%, {100 * e.hi:.2f}%]"
        return [f"{100 * e.value:.2f}%", ci, f"{e.n:,}"]
    ci = "-" if math.isnan(e.lo) else f"[{e.lo:.3f}, {e.hi:.3f}]"
    return [f"{e.value:.3f}", ci, f"{e.n:,}"]


def _fmt_diff(kind: str, x: float, unit: str = "") -> str:
    from simlab.engine.stats import is_percent

    if math.isnan(x):
        return "-"
    return f"{100 * x:+.2f} pp" if is_percent(kind, unit) else f"{x:+.3f}"


def metrics_table(metrics) -> str:
    rows = [[m.title, *_fmt_est(m.estimate, m.unit)] for m in metrics]
    return _table(["metric", "estimate", "95% interval", "n"], rows,
                  right=[False, True, True, True])


def _diff_interval(r) -> str:
    c = r.diff
    if math.isnan(c.lo):
        return c.status or "-"
    kind, unit = r.definition.kind, r.definition.unit
    return f"[{_fmt_diff(kind, c.lo, unit)}, {_fmt_diff(kind, c.hi, unit)}]"


def _holm_cell(r) -> str:
    if r.duplicate_of:  # its original's title is in the report; here a short mark
        return "= above"
    if math.isnan(r.p_holm):
        from simlab.engine.stats import IDENTICAL

        return "identical" if r.diff.status == IDENTICAL else "not tested"
    return "< 1e-300" if r.p_holm == 0 else f"{r.p_holm:.3g}"  # as the report says it


def compare_table(result) -> str:
    """One row per metric: A, B, B - A with its unadjusted interval, the deals of each
    side's base, and the Holm-adjusted p-value (``*``: significant at the result's level)."""
    rows = []
    for r in result.rows:
        kind = r.definition.kind
        c = r.diff
        same_base = c.n_a < 0 or c.n_a == c.n_b == c.n
        n = f"{c.n:,}" if same_base else f"{c.n_a:,} / {c.n_b:,}"
        holm = _holm_cell(r) + (" *" if r.p_holm < 1 - result.conf else "")
        unit = r.definition.unit
        rows.append(["", _fmt_est(r.a, unit)[0], _fmt_est(r.b, unit)[0],
                     _fmt_diff(kind, c.diff, unit),
                     _diff_interval(r), n, holm])
    level = f"{round(100 * (1 - result.conf)):g}%"
    # each metric's title on its own line, whole (a title wrapped in a narrow column is
    # hard to read and to grep), its figures on the next
    numbers = _table(["metric", "A", "B", "B - A", "95% interval", "n (A / B)", "Holm p"], rows,
                     right=[False, True, True, True, True, True, True]).split("\n")
    body = numbers[:2]
    for r, line in zip(result.rows, numbers[2:], strict=True):
        body += [r.title, line]
    legend = f"* = significant at the {level} level after Holm's correction"
    if any(r.duplicate_of for r in result.rows):
        legend += ("; = above: the same per-deal values in A and B as an earlier row (same "
                   "p-value, counted once)")
    return "\n".join(body) + "\n" + _paragraph(legend)


# --- argument helpers -----------------------------------------------------------------------
def _common(p: argparse.ArgumentParser, *, n_required: bool = True) -> None:
    from simlab.cli.common import _count, _jobs
    from simlab.games import game_names

    p.add_argument("game", help=f"game slug ({', '.join(game_names())})")
    p.add_argument("-n", type=_count, required=n_required, default=None, metavar="N",
                   help="number of deals (or matches with --level match)")
    p.add_argument("--seed", type=_count, default=0, help="run seed (default 0)")
    p.add_argument("--policy", default="heuristic", metavar="POLICY",
                   help="heuristic | random | search, or one per seat comma separated")
    p.add_argument("--level", choices=LEVELS, default="deal", help="deal (default) or match rows")
    p.add_argument("--jobs", type=_jobs, default=-1, metavar="J",
                   help="processes; -1 or 'all' = every core (the default; a run with "
                        "less than about 1.5 s of work stays in one process)")
    p.add_argument("--no-progress", action="store_true", help="never show the progress line")


def _knobs_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", action="extend", nargs="+", metavar="KEY=VALUE", default=[],
                   help="override a knob; repeatable")
    p.add_argument("--variant", metavar="FILE.toml", help="TOML file of knob = value lines")


def _progress(args) -> bool | None:
    return False if args.no_progress else None


def _plan(args, n: int, params: dict[str, Any] | None = None, record_hands: bool = False) -> Plan:
    return plan(args.game, n, seed=args.seed, params=params, variant=getattr(args, "variant", None),
                policies=args.policy, jobs=args.jobs, level=args.level,
                record_hands=record_hands, progress=_progress(args))


# --- how-often --------------------------------------------------------------------------
def cmd_how_often(args) -> int:
    from simlab.analysis.queries import how_often_run, parse_expr

    parse_expr(args.expression)  # bad expressions fail before any simulation
    if args.where:
        parse_expr(args.where)
    from simlab.cli.common import _backend_from

    backend, where = _backend_from(args)
    p = _plan(args, args.n, parse_assignments(args.set), record_hands=args.record_hands)
    # counted chunk by chunk where each is simulated: the rows are never gathered here
    est = how_often_run(p, args.expression, args.where, backend=backend, scheduler=where)
    if est.n == 0:
        raise SimlabError(f"no row of the {p.n:,} {p.unit} has a value for the question"
                          + (f" among rows where {args.where}" if args.where else "")
                          + "; check the condition (simlab run --record-hands shows the columns)")
    k = round(est.value * est.n) if est.n else 0
    cond = f" among rows where {args.where}" if args.where else ""
    print(f"{p.game.slug}: P({args.expression}){cond}")
    print(f"  = {est.format()}  ({k:,} of {est.n:,} {p.unit}; 95% Wilson interval)")
    if not args.where and est.n < p.n:
        print(f"  {p.n - est.n:,} rows had a null value (e.g. no play on thrown-in deals) "
              "and are not counted")
    return 0


# --- duel ---------------------------------------------------------------------------------
def cmd_duel(args) -> int:
    from simlab.players.duel import duplicate

    params = parse_assignments(args.set)
    t0 = time.perf_counter()
    result = duplicate(args.game, args.x, args.y, n=args.n, seed=args.seed, params=params,
                       jobs=args.jobs, progress=_progress(args))
    print(result.format())
    print(f"  arrangements (same deals, seed {args.seed}): " + " | ".join(result.arrangements))
    print(f"  {time.perf_counter() - t0:.1f} s")
    return 0


# --- tune ---------------------------------------------------------------------------------
def cmd_tune(args) -> int:
    import sys

    from simlab.players.tune import format_result, tune, write_variant

    params: dict[str, Any] = {}
    if args.variant:
        params.update(load_variant(args.variant, game=args.game))
    params.update(parse_assignments(args.set))
    names = None
    if args.knobs is not None:
        names = [k.strip() for k in args.knobs.split(",")]
        if not all(names):
            raise SimlabError(f"--knobs has an empty entry in {args.knobs!r}; give policy knobs "
                              "separated by commas, e.g. take_threshold_1,take_threshold_2 "
                              f"(simlab params {args.game.slug} lists them)")
    out = Path(args.out) if args.out else Path(f"tuned-{args.game.slug}.toml")
    if out.is_dir():
        raise SimlabError(f"--out {str(out)!r} is a folder; give a FILE.toml to write")
    if not out.parent.is_dir():
        raise SimlabError(f"--out {str(out)!r}: folder {str(out.parent)!r} does not exist")
    if not os.access(out.parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise SimlabError(f"--out {str(out)!r} cannot be written (permission denied)")
    show = None if args.no_progress else (lambda msg: print(msg, file=sys.stderr, flush=True))
    res = tune(args.game, knobs=names, n=args.n, validate=args.validate, rounds=args.rounds,
               seed=args.seed, params=params, policy=args.policy, jobs=args.jobs, progress=show)
    print(format_result(res))
    if res.never_changed:
        return 0
    path = write_variant(res, out)
    print(f"variant written: {path}  (simlab run {args.game.slug} --variant {path})")
    return 0


# --- compare ------------------------------------------------------------------------------
def variant_side(text: str | None, game: str, flag: str) -> dict[str, Any]:
    """The knobs of one side of ``compare``: whitespace-separated ``key=value`` pairs and
    variant files (``FILE.toml``), files first, then the pairs on top, as ``run`` does with
    ``--variant`` and ``--set``."""
    files: dict[str, Any] = {}
    pairs: list[str] = []
    for token in (text or "").split():
        if "=" in token:
            pairs.append(token)
        elif token.lower().endswith(".toml") or Path(token).is_file():
            files.update(load_variant(token, game=game))
        else:
            raise SimlabError(f"{flag} expects \"key=value ...\" knob settings or a variant "
                              f"FILE.toml, got {token!r}")
    return {**files, **parse_assignments(pairs)}


def cmd_compare(args) -> int:
    from simlab.analysis.compare import compare_runs
    from simlab.cli.common import _backend_from

    a = variant_side(args.a, args.game, "--a")
    b = variant_side(args.b, args.game, "--b")
    backend, where = _backend_from(args)
    if args.out is not None:
        check_folder_output(args.out)  # before the work, not after
    t0, kernels = time.perf_counter(), kernel_clock()
    # measured where the deals are played; a report's rows are written as parts there (from
    # a cluster, they come back as Parquet bytes, written here)
    result = compare_runs(args.game, args.n, a=a, b=b, seed=args.seed, policies_a=args.policy,
                          policies_b=args.policy_b, level=args.level, jobs=args.jobs,
                          progress=_progress(args), keep_frames=args.out is not None,
                          backend=backend, scheduler=where, report_dir=args.out)
    seconds, kernel_seconds = time.perf_counter() - t0, kernels()
    print(f"{result.game.slug}: A = {result.label_a} vs B = {result.label_b}, "
          f"{args.n:,} {result.plan_a.unit} each, the same deals (seed {args.seed})")
    print(compare_table(result))
    sig = result.significant()
    tested = result.tested()
    print("\n" + _paragraph(f"{len(sig)} of {len(tested)} distinct, estimable metrics differ "
                            "significantly at the 5% level after Holm's correction "
                            f"({len(result.rows)} rows shown)."))
    print(_paragraph(f"Note: {result.intervals_note()}; B - A is B's figure minus A's, each "
                     "over its own deals with its own rules, paired by deal."))
    if args.out is not None:
        from simlab.analysis.report import write_report

        out = write_report(args.out, game=result.game, plan=result.plan_b, frame=result.frame_b,
                           seconds=seconds, comparison=result, sums=result.sums_b,
                           title=f"{result.game.title}: {result.label_a} vs {result.label_b}",
                           kernels=kernel_seconds)
        print(f"report: {out / 'report.html'}")
    return 0


def _sweep_cell(e, unit: str = "") -> str:
    from simlab.engine.stats import TOO_FEW_ROWS, is_percent

    if e.status == TOO_FEW_ROWS:
        return "too few"
    if e.n == 0 or math.isnan(e.value):
        return "-"
    pct = is_percent(e.kind, unit)  # rates and shares in %, as the header says
    if math.isnan(e.lo):
        half = ""
    else:
        half = f" ±{100 * e.half_width:.2f}" if pct else f" ±{e.half_width:.3f}"
    return (f"{100 * e.value:.2f}%" if pct else f"{e.value:.3f}") + half


def sweep_table(result, width: int | None = None) -> str:
    """Headline metrics (rows) by grid point (columns); points that do not fit the width
    go to further blocks of the same rows."""
    from simlab.cli.common import output_width

    limit = output_width() if width is None else width
    labels = [" ".join(f"{k}={v}" for k, v in pt.values.items()) for pt in result.points]
    heads = result.points[0].metrics.headline()
    by_point = [{m.key: m for m in pt.metrics.metrics} for pt in result.points]
    cells = [[_sweep_cell(bp[h.key].estimate, h.unit) if h.key in bp else "-" for bp in by_point]
             for h in heads]
    widths = [max([len(lab)] + [len(row[j]) for row in cells]) for j, lab in enumerate(labels)]
    title_width = 24
    blocks: list[list[int]] = [[]]
    used = title_width
    for j, w in enumerate(widths):
        if blocks[-1] and used + 2 + w > limit:
            blocks.append([])
            used = title_width
        blocks[-1].append(j)
        used += 2 + w
    out = []
    for cols in blocks:
        header = ["metric"] + [labels[j] for j in cols]
        rows = [[h.title] + [cells[i][j] for j in cols] for i, h in enumerate(heads)]
        out.append(_table(header, rows, right=[False] + [True] * len(cols)))
    return "\n\n".join(out)


# --- sweep --------------------------------------------------------------------------------
def cmd_sweep(args) -> int:
    from simlab.analysis.compare import parse_grid, sweep

    grid = parse_grid(args.grid)
    base = dict(load_variant(args.variant, game=args.game)) if args.variant else {}
    base.update(parse_assignments(args.set))
    out = args.out or Path("out") / f"sweep-{args.game.slug}-{'-'.join(grid)}"
    check_folder_output(out)
    t0, kernels = time.perf_counter(), kernel_clock()
    result = sweep(args.game, args.n, grid, base=base, seed=args.seed, policies=args.policy,
                   level=args.level, jobs=args.jobs, progress=_progress(args))
    seconds, kernel_seconds = time.perf_counter() - t0, kernels()
    print(_paragraph(f"{result.game.slug}: sweep over {', '.join(grid)}, {args.n:,} "
                     f"{result.points[0].plan.unit} per point, the same deals at every point; "
                     "each cell is the estimate ± the larger distance from it to a bound of its "
                     "95% interval (rates in %, ± in percentage points)"))
    print(sweep_table(result))
    from simlab.analysis.report import write_report

    last = result.points[-1]
    out = write_report(out, game=result.game, plan=last.plan, frame=None, seconds=seconds,
                       sweep=result, title=f"{result.game.title}: sweep over {', '.join(grid)}",
                       kernels=kernel_seconds)
    print(f"report with one curve per headline metric:\n  {out / 'report.html'}")
    return 0


# --- report -----------------------------------------------------------------------------
DEFAULT_PLAYERS_N = 2000
SEARCH_SHARE = 8
def run_for_report(p: Plan, precision: float | None, max_n: int | None, out: Path,
                   log=print, backend: str = "loky", scheduler: str | None = None):
    """(sums, metric set, seconds, notes) for a plan, or until ``precision``: the deals
    are played chunk by chunk where each chunk runs, reduced there to the report's sums
    and written to ``out/results.parquet``; no row comes back here."""
    from simlab.analysis.metrics import compute_from
    from simlab.analysis.queries import report_to_precision
    from simlab.analysis.report_sums import run_report_sums

    t0 = time.perf_counter()
    notes: list[str] = []
    results = Path(out) / "results.parquet"
    if precision is not None:
        cap = max_n if max_n is not None else 100 * p.n
        pr = report_to_precision(p, precision, cap, results, log=log, backend=backend,
                                 scheduler=scheduler)
        sums, ms = pr.sums, pr.metrics
        state = "reached" if pr.reached else f"NOT reached (stopped at the cap of {cap:,})"
        widest = "no interval" if math.isinf(pr.widest) else f"±{pr.widest:.4%}"
        notes.append(f"Precision target ±{precision:.4%} (largest distance from an estimate to "
                     f"either bound) on every headline metric {state} after {pr.n:,} "
                     f"{p.unit}; the widest was {widest} ({pr.limiting}).")
        if pr.not_estimable:
            notes.append("Not estimable (no qualifying row, so no interval): "
                         + "; ".join(pr.not_estimable) + ".")
    else:
        sums = run_report_sums(p, results, backend, scheduler)
        ms = compute_from(sums.metrics)
    return sums, ms, time.perf_counter() - t0, notes


def cmd_report(args) -> int:
    if args.n is None and args.precision is None:
        raise SimlabError("give -n N, or --precision P (with --max-deals M)")
    first = args.n if args.n is not None else 20_000
    p = _plan(args, first, parse_assignments(args.set))
    out = check_folder_output(args.out)  # before the work, not after
    if args.precision is not None and args.max_deals is not None and args.max_deals < first:
        raise SimlabError(f"--max-deals ({args.max_deals:,}) is smaller than -n ({first:,})")
    from simlab.analysis.report_sums import start_report_workers
    from simlab.cli.common import _backend_from

    backend, where = _backend_from(args)
    start_report_workers(p, backend)  # they start while the report's modules load here
    from simlab.analysis.report import write_report

    kernels = kernel_clock()
    sums, ms, seconds, notes = run_for_report(p, args.precision, args.max_deals, out,
                                              backend=backend, scheduler=where)
    kernel_seconds = kernels()
    from dataclasses import replace

    p = replace(p, n=sums.rows)
    players, skill = players_for_report(p, None, sums, ms, args.players_n, args.skill_check,
                                        args.skill_n)
    out = write_report(out, game=p.game, plan=p, frame=None, seconds=seconds,
                       metric_set=ms, notes=notes, players=players, skill=skill, sums=sums,
                       kernels=kernel_seconds)
    print(metrics_table(ms.headline()))
    print(f"\nreport: {out / 'report.md'} and {out / 'report.html'}")
    return 0


def players_for_report(p: Plan, frame, sums, ms, players_n: int, skill_policy: str | None,
                       skill_n: int, log=print):
    """The Players section's checks (the run's own, from its ``sums``; duplicate edges and
    hand strength on ``players_n`` deals) and, with ``skill_policy``, the headline answers
    under that policy (on the run's first deals: ``frame``'s, or played again)."""
    from simlab.analysis.players_check import check_players, skill_check
    from simlab.analysis.report import run_checks

    t0 = time.perf_counter()
    players = check_players(p.game, p, n=min(players_n, p.n) if p.n >= 20 else 0,
                            checks=run_checks(p.game, p, sums))
    skill = None
    if skill_policy is not None:
        skill = skill_check(p.game, p, frame, ms, skill_policy, skill_n)
    if players_n or skill_policy:
        log(f"players checked in {time.perf_counter() - t0:.1f} s")
    return players, skill


# --- experiment --------------------------------------------------------------------------
def run_experiment(path: str | Path, *, jobs: int | None = None, progress: bool | None = None,
                   log=print, n: int | None = None,
                   players_n: int = DEFAULT_PLAYERS_N, out: str | Path | None = None,
                   force: bool = False) -> Path:
    """Run an experiment file and write its report; ``n`` overrides the file's ``n`` (or
    its ``precision``) for a quick look. The report goes to ``out``, else the file's
    ``out``, else a fresh folder under ``out/``; a folder holding an earlier report is
    replaced only with ``force`` (``experiment.report_folder``)."""
    from dataclasses import replace

    from simlab.analysis.compare import compare_runs, sweep
    from simlab.analysis.report_sums import start_report_workers
    from simlab.cli.experiment import load_experiment

    ex = load_experiment(path)
    if n is not None:
        ex = replace(ex, n=n, precision=None, max_deals=None)
    workers = ex.jobs if jobs is None else jobs
    from simlab.engine.runner import cpu_count

    if workers > cpu_count():  # an experiment runs here: more processes than cores only cost memory
        log(f"jobs {workers} is more than this machine's {cpu_count()} cores; using {cpu_count()}")
        workers = cpu_count()
    first = ex.n if ex.n is not None else 20_000
    p = plan(ex.game, first, seed=ex.seed, params=ex.knobs, policies=ex.policies, jobs=workers,
             level=ex.level, progress=progress)
    out = check_folder_output(ex.out_dir(out, force))  # before the work, not after
    start_report_workers(p)  # they start while the report's modules load here
    from simlab.analysis.report import write_report

    kernels = kernel_clock()
    sums, ms, seconds, notes = run_for_report(p, ex.precision, ex.max_deals, out, log=log)
    p = replace(p, n=sums.rows)
    comparison = None
    sweep_result = None
    t0 = time.perf_counter()
    if ex.compare_b is not None:
        # measured where played; B's rows go to results_b.parquet (A's are the run's own)
        comparison = compare_runs(ex.game, p.n, a=ex.knobs, b={**ex.knobs, **ex.compare_b},
                                  seed=ex.seed, policies_a=ex.policies, level=ex.level,
                                  jobs=workers, progress=progress, report_dir=out,
                                  report_b=False)
    if ex.sweep is not None:
        sweep_result = sweep(ex.game, p.n, {k: [str(v) if isinstance(v, str) else v for v in vs]
                                            for k, vs in ex.sweep.items()},
                             base=ex.knobs, seed=ex.seed, policies=ex.policies, level=ex.level,
                             jobs=workers, progress=progress)
    seconds += time.perf_counter() - t0
    kernel_seconds = kernels()
    players, _ = players_for_report(p, None, sums, ms, players_n, None, 0, log=log)
    return write_report(out, game=p.game, plan=p, frame=None, seconds=seconds,
                        metric_set=ms, comparison=comparison, sweep=sweep_result, title=ex.title,
                        notes=[*ex.notes, *notes], players=players, sums=sums,
                        kernels=kernel_seconds)


def cmd_experiment(args) -> int:
    if args.n is not None and args.n < 1:
        raise SimlabError(f"-n must be >= 1, got {args.n}")
    out = run_experiment(args.file, jobs=args.jobs, progress=_progress(args), n=args.n,
                         players_n=args.players_n, out=args.out, force=args.force)
    print(f"report: {out / 'report.md'} and {out / 'report.html'}")
    return 0


# --- registration -------------------------------------------------------------------------
def add_commands(sub, formatter) -> None:
    from simlab.cli.common import _count, _jobs, _positive

    p = sub.add_parser(
        "how-often", help="probability of any event, with its interval and count",
        formatter_class=formatter,
        description="Simulate N deals and print how often a polars expression is true, "
                    "with a 95% Wilson interval and the count. Only `pl` is in scope. A "
                    "row-by-row expression is counted chunk by chunk where it is played; one "
                    "that looks at other rows (mean, sum, shift, over, rank, cum_sum, "
                    "is_duplicated, ...) is evaluated on the whole run's columns, gathered "
                    "here (only the columns it names): the same answer for any --jobs.",
        epilog="examples:\n"
               "  simlab how-often belote \"pl.col('capot')\" -n 200000\n"
               "  simlab how-often belote \"pl.col('made')\" --where \"pl.col('contract') == "
               "'round2'\"\n"
               "  simlab how-often belote \"pl.col('hand_s0').list.contains('J♥')\" "
               "--record-hands -n 50000\n"
               "columns: see the game module's deal_columns, or run with --record-hands for "
               "dealt_s{i} / hand_s{i} card lists.")
    _common(p, n_required=False)
    p.set_defaults(n=100_000)
    _knobs_args(p)
    p.add_argument("expression", help="boolean polars expression, e.g. \"pl.col('capot')\"")
    p.add_argument("--where", metavar="EXPR", help="only count rows where this is true")
    p.add_argument("--record-hands", action="store_true", help="add dealt_s{i} / hand_s{i}")
    from simlab.cli.common import _backend_args

    _backend_args(p)
    p.set_defaults(func=cmd_how_often)

    p = sub.add_parser(
        "duel", help="duplicate play: one policy against another on the same deals",
        formatter_class=formatter,
        description="Play the same deals with policy X on one side and Y on the other, then "
                    "swapped (team games), or X at one seat among Y seats, rotated over every "
                    "seat and compared with Y at that seat, each score relative to its table: "
                    "minus the mean of every seat's that deal (other games); print X's edge "
                    "in points per deal, paired by deal, with its 95% t interval.",
        epilog="examples:\n"
               "  simlab duel belote -n 4000 --seed 1                 # search vs heuristic\n"
               "  simlab duel tarot -n 1000 --set search_worlds=32\n"
               "  simlab duel president --x heuristic --y random -n 20000\n"
               "  simlab duel belote --x heuristic:take_threshold_1=5 --y heuristic -n 20000\n"
               "                      # one policy value against the field's (see simlab tune)")
    p.add_argument("game", help="game slug")
    p.add_argument("-n", type=_count, default=2_000, metavar="N", help="deals (default 2,000)")
    p.add_argument("--seed", type=_count, default=0, help="run seed (default 0)")
    p.add_argument("--x", default="search", metavar="POLICY",
                   help="policy measured (default search); NAME or NAME:knob=value[:...] to "
                        "give that side its own policy-knob values")
    p.add_argument("--y", default="heuristic", metavar="POLICY",
                   help="reference policy (default heuristic)")
    p.add_argument("--set", action="extend", nargs="+", metavar="KEY=VALUE", default=[],
                   help="override a knob (e.g. search_worlds=32); repeatable")
    p.add_argument("--jobs", type=_jobs, default=1, metavar="J",
                   help="worker processes; -1 or 'all' = every core (default 1)")
    p.add_argument("--no-progress", action="store_true", help="never show the progress line")
    p.set_defaults(func=cmd_duel)

    p = sub.add_parser(
        "tune", help="policy-knob values that beat the current ones, by duplicate play",
        formatter_class=formatter,
        description="Find values of the game's policy knobs (how the heuristic plays, never a "
                    "rule) that raise one seat's (team games: one side's) mean result against "
                    "a field playing the current values, on the same deals with the seats "
                    "rotated. Successive halving over one-knob moves (1, 2, 4, 8 steps either "
                    "way; other choices): every candidate plays N deals, the better half "
                    "twice as many fresh deals, and so on; the survivor is measured again on "
                    "fresh deals (--validate) and adopted only when its 95% interval "
                    "excludes 0. --rounds K lets the field adopt the winner and search again "
                    "around it. Writes the values as a variant TOML file.",
        epilog="examples:\n"
               "  simlab tune belote                                   # default budget\n"
               "  simlab tune belote --knobs take_threshold_1,take_threshold_2 --rounds 3\n"
               "  simlab tune president -n 4000 --out president-tuned.toml\n"
               "  simlab run belote --variant tuned-belote.toml        # play the values found")
    p.add_argument("game", help="game slug")
    p.add_argument("-n", type=_count, default=2_000, metavar="N",
                   help="deals per candidate at the first stage, doubled at each stage "
                        "(default 2,000)")
    p.add_argument("--validate", type=_count, default=None, metavar="N",
                   help="fresh deals measuring the survivor's gain (default 16 x N)")
    p.add_argument("--rounds", type=_count, default=1, metavar="K",
                   help="rounds: the field adopts each adopted winner (default 1)")
    p.add_argument("--knobs", default=None, metavar="K1,K2",
                   help="policy knobs to tune (default: every heuristic knob, search_* left out)")
    p.add_argument("--policy", default="heuristic", metavar="NAME",
                   help="the player whose knobs are tuned (default heuristic)")
    p.add_argument("--seed", type=_count, default=0, help="run seed (default 0)")
    p.add_argument("--set", action="extend", nargs="+", metavar="KEY=VALUE", default=[],
                   help="a knob of the game for every seat (the variant tuned for); repeatable")
    p.add_argument("--variant", metavar="FILE.toml", help="TOML file of knob = value lines")
    p.add_argument("--out", metavar="FILE.toml", default=None,
                   help="variant file written (default tuned-GAME.toml)")
    p.add_argument("--jobs", type=_jobs, default=-1, metavar="J",
                   help="worker processes; -1 or 'all' = every core (default all)")
    p.add_argument("--no-progress", action="store_true", help="print no stage lines")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser(
        "compare", help="two variants on the same deals: every metric side by side",
        formatter_class=formatter,
        description="Run variants A and B with the same seed (so on the same shuffles) and "
                    "print every standard metric for both, the paired difference B - A with "
                    "its 95% interval and Holm-adjusted p-value.",
        epilog="examples:\n"
               "  simlab compare belote --b \"queen_points=5\" -n 200000\n"
               "  simlab compare belote --a \"target=501\" --b \"target=501 litige=lost\" "
               "-n 20000 --level match\n"
               "  simlab compare manille --b \"must_overplay_in_suit=false\" -n 200000 "
               "--out reports/manille-overplay\n"
               "  simlab compare belote --b house.toml -n 200000     # a variant file\n"
               "  simlab compare belote --a house.toml --b \"house.toml target=501\" -n 20000")
    _common(p)
    p.add_argument("--a", default="", metavar="\"K=V ...\"|FILE.toml",
                   help="variant A: knob settings in one quoted argument, and/or a variant "
                        "TOML file (knob = value lines; the settings override the file) "
                        "(default: the default rules, see simlab params GAME)")
    p.add_argument("--b", default="", metavar="\"K=V ...\"|FILE.toml",
                   help="variant B, the same way (default: the default rules)")
    p.add_argument("--policy-b", default=None, metavar="POLICY",
                   help="policies of variant B (default: same as --policy)")
    p.add_argument("--out", type=Path, metavar="DIR", help="also write a report there (the "
                   "report needs both runs' rows; without it, each chunk of deals is measured "
                   "where it is played, so memory does not grow with -n)")
    from simlab.cli.common import _backend_args

    _backend_args(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser(
        "sweep", help="metrics over a grid of knob values, with curves",
        formatter_class=formatter,
        description="Run every combination of the --grid values on the same deals, print the "
                    "headline metrics and write a report with one curve per headline metric.",
        epilog="examples:\n"
               "  simlab sweep belote --grid take_threshold_1=5,6,7,8,9 -n 100000\n"
               "  simlab sweep belote --grid queen_points=3,5 --grid target=501,1001 "
               "--level match -n 5000")
    _common(p)
    _knobs_args(p)
    p.add_argument("--grid", action="append", required=True, metavar="KEY=V1,V2,...",
                   help="knob and its values; repeatable")
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="report folder (default out/sweep-GAME-KEYS)")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser(
        "report", help="simulate and write a report (Markdown + HTML + figures + Parquet)",
        formatter_class=formatter,
        description="Simulate GAME and write report.md, a self-contained report.html, the "
                    "PNG figures and the results' Parquet into --out.",
        epilog="examples:\n"
               "  simlab report belote -n 1000000 --out reports/belote\n"
               "  simlab report belote --precision 0.002 --max-deals 5000000 --out reports/b\n"
               "  simlab report belote -n 20000 --level match --set target=501 --out r/")
    _common(p, n_required=False)
    _knobs_args(p)
    p.add_argument("--precision", type=float, metavar="P",
                   help="keep adding deals until every headline rate's interval half-width "
                        "is <= P (e.g. 0.002)")
    p.add_argument("--max-deals", type=_count, metavar="M", help="cap for --precision runs")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="report folder")
    _players_args(p)
    p.add_argument("--skill-check", metavar="POLICY", choices=("search",), default=None,
                   help="re-measure the headline answers with POLICY (search) at every seat "
                        "on the run's first --skill-n deals and mark each one \"holds under "
                        "stronger play\" or \"changes with the players\"")
    p.add_argument("--skill-n", type=_positive, default=1000, metavar="N",
                   help="deals for --skill-check (default 1000)")
    from simlab.cli.common import _backend_args

    _backend_args(p)  # the report's deals; its Players checks run here
    p.set_defaults(func=cmd_report)

    p = sub.add_parser(
        "experiment", help="run an experiment file (TOML) and write its report",
        formatter_class=formatter,
        description="Run the simulation, comparison and sweep an experiment file describes "
                    "and write the report. The file format, every key with its default and a "
                    "complete example: experiments/README.md.",
        epilog="examples:\n  simlab experiment experiments/belote_dealer_advantage.toml\n"
               "  simlab experiment experiments/belote_queen_value.toml -n 20000   # quick look\n"
               "  simlab experiment experiments/belote_queen_value.toml \\\n"
               "      --out reports/belote-queen-value --force   # the committed example again")
    p.add_argument("file", help="experiment TOML file")
    p.add_argument("-n", type=_count, default=None, metavar="N",
                   help="deals (or matches) instead of the file's n or precision, e.g. for a "
                        "quick look (the report says the n it used)")
    p.add_argument("--jobs", type=_jobs, default=None, metavar="J",
                   help="override the file's jobs")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="report folder (default: the file's out, else a fresh folder "
                        "out/NAME/, out/NAME-2/, ...)")
    p.add_argument("--force", action="store_true",
                   help="write into a folder that holds an earlier run's report, replacing it")
    p.add_argument("--no-progress", action="store_true", help="never show the progress line")
    _players_args(p)
    p.set_defaults(func=cmd_experiment)

    add_balance(sub, formatter)


def _players_args(p) -> None:
    from simlab.cli.common import _count_or_zero

    p.add_argument("--players-n", type=_count_or_zero, default=DEFAULT_PLAYERS_N, metavar="N",
                   help="deals for the Players section's duplicate edges (heuristic vs "
                        f"random; search vs heuristic on N/{SEARCH_SHARE}) and hand-strength "
                        f"check (default {DEFAULT_PLAYERS_N:,}; 0 skips them)")


# --- balance ------------------------------------------------------------------------------
def cmd_balance(args) -> int:
    from simlab.analysis.balance import (
        balance,
        metric_keys,
        parse_constraint,
        parse_objective,
        parse_vary,
    )
    from simlab.analysis.balance_report import write_balance_report
    from simlab.engine.runner import cpu_count

    base = dict(load_variant(args.variant, game=args.game)) if args.variant else {}
    base.update(parse_assignments(args.set))
    args.game.make_knobs(base)  # a bad --set fails here, before any work
    axes = parse_vary(args.game, args.vary, base)
    keys = metric_keys(args.game, base, args.policy, args.level, args.seed)
    objectives = [parse_objective(t, keys) for t in args.objective]
    constraints = [parse_constraint(t, keys) for t in args.constraint]
    out = args.out or Path("out") / f"balance-{args.game.slug}-{'-'.join(a.name for a in axes)}"
    check_folder_output(out)
    jobs = cpu_count() if args.jobs == -1 else args.jobs
    r = balance(args.game, axes, objectives, constraints, budget=args.budget, seed=args.seed,
                base=base, policies=args.policy, level=args.level, jobs=jobs,
                finalists=args.finalists, max_candidates=args.max_candidates,
                search_n=args.search_n, progress=_progress(args),
                log=(lambda s: None) if args.no_progress else (lambda s: print(s, file=sys.stderr)))
    for c in r.recommended:
        row = r.row_of(c)
        print(f"recommended: {'the current rules' if c.is_default else r.set_line(c)} — "
              f"{r.verdict(c)}")
        for o, e, ed in zip(r.objectives, row.objectives, r.final_default.objectives, strict=True):
            print(f"  {o.label}: {e.text()} (current rules: {ed.text()}); "
                  f"{100 * r.final_conf:.4g}% intervals on {r.final_n:,} fresh deals")
        for k, s in zip(r.constraints, row.slacks, strict=True):
            print(f"  constraint {k.text}: {'met' if s.value <= 0 else 'NOT met'} "
                  f"(slack {s.text()}, met when <= 0)")
    if r.search is not None:
        for (c, _, _), v in zip(r.search.rows, r.search.verdicts, strict=True):
            if not c.is_default:
                mark = " (recommended)" if any(c is x for x in r.recommended) else ""
                print(f"  under search ({r.search.n:,} deals): {c.label}{mark} {v}")
    print(f"{len(r.candidates)} candidates, {r.spent:,} of {r.budget:,} deals spent")
    path = write_balance_report(r, out)
    print(f"report: {path / 'report.html'}")
    return 0


def add_balance(sub, formatter) -> None:
    from simlab.cli.common import _count, _count_or_zero, _jobs, _positive

    p = sub.add_parser(
        "balance", help="search knob values for the fairest variant, with honest intervals",
        formatter_class=formatter,
        description="Search the values of the --vary knobs (rules or policy knobs) that make "
                    "the --objective best, under --constraint: every candidate on the same "
                    "deals, raced by successive halving with paired jackknife intervals (a "
                    "large or continuous space: Optuna proposes the candidates), the "
                    "finalists re-measured on fresh deals with Bonferroni-adjusted intervals "
                    "and checked under the search player. Writes a report (recommendation "
                    "first). Objectives and constraints are expressions of the game's metric "
                    "keys (simlab metrics GAME lists them).",
        epilog="examples:\n"
               "  simlab balance belote --vary queen_points=0..10 "
               "--objective \"|belote.q2.margin.dealer_team|\"\n"
               "  simlab balance belote --vary take_threshold_1=5..9 "
               "--objective \"contract.success -> 0.8\"\n"
               "  simlab balance manille --vary variant=classic,belge \\\n"
               "      --objective \"|balance.first_seat_advantage|\" --budget 400000\n"
               "objective: EXPR (minimised), 'max: EXPR', or 'EXPR -> VALUE'; |x| or abs(x), "
               "+ - * /, min(), max(), baseline(x) (x with the current rules).\n"
               "constraint: EXPR <= EXPR or >=; a bare 'baseline' on the right is the left "
               "side with the current rules, e.g. 'balance.ties <= 1.1 * baseline'.")
    p.add_argument("game", help="game slug")
    p.add_argument("--vary", action="append", required=True, metavar="KNOB=RANGE",
                   help="a..b (integers, inclusive), a..b:step, a..b for a float (continuous), "
                        "or v1,v2,...; repeatable")
    p.add_argument("--objective", action="append", required=True, metavar="EXPR",
                   help="what to make best; give it twice for a Pareto front of two")
    p.add_argument("--constraint", action="append", default=[], metavar="EXPR",
                   help="a condition the variant must meet; repeatable")
    p.add_argument("--budget", type=_count, default=200_000, metavar="DEALS",
                   help="deals for the racing and the re-measurement together (default "
                        "200,000; the search check's deals apart)")
    p.add_argument("--finalists", type=_positive, default=3, metavar="K",
                   help="candidates re-measured on fresh deals (default 3)")
    p.add_argument("--max-candidates", type=_positive, default=24, metavar="C",
                   help="a grid with more points (or a continuous range) has Optuna propose "
                        "C candidates (default 24)")
    p.add_argument("--search-n", type=_count_or_zero, default=200, metavar="N",
                   help="deals of the check under the search player (default 200; 0 skips it)")
    p.add_argument("--seed", type=_count, default=0, help="seed (default 0)")
    p.add_argument("--policy", default="heuristic", metavar="POLICY",
                   help="players of the search (default heuristic)")
    p.add_argument("--level", choices=LEVELS, default="deal", help="deal (default) or match rows")
    p.add_argument("--jobs", type=_jobs, default=-1, metavar="J",
                   help="processes; -1 or 'all' = every core (default all)")
    _knobs_args(p)
    p.add_argument("--out", type=Path, metavar="DIR",
                   help="report folder (default out/balance-GAME-KNOBS)")
    p.add_argument("--no-progress", action="store_true", help="no progress line, no rung lines")
    p.set_defaults(func=cmd_balance)
