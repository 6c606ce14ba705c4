"""The ``simlab`` command line: list, params, run, demo, bench.

Errors (bad game, knob, value, variant file, option) print one line
``simlab: error: <message>`` on stderr and exit with status 2, before anything is written.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

from simlab.cli.common import (  # noqa: F401  (the command groups share them)
    MAX_JOBS,
    MAX_WIDTH,
    MIN_TEXT_COLUMN,
    _backend_args,
    _backend_from,
    _count,
    _count_or_zero,
    _fit,
    _fmt,
    _jobs,
    _literal,
    _paragraph,
    _positive,
    _wrap,
    output_width,
    table,
)
from simlab.engine.game import Game
from simlab.engine.knobs import SimlabError, parse_assignments
from simlab.engine.runner import (
    LEVELS,
    Plan,
    RunInterrupted,
    check_backend,
    check_file_output,
    cpu_count,
    execute,
    execute_to_dir,
    execute_to_parquet,
    is_run_dir,
    kernel_clock,
    last_processes,
    load,
    plan,
    read_manifest,
    resolve_dir_plan,
    run_status,
    simulate,
    wilson,
)
from simlab.games import game_names, get_game

DEMO_OUT = Path("out/demo-belote.parquet")


class _UsageError(Exception):
    """argparse usage error, reported like a SimlabError."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


class _FORMATTER(argparse.RawDescriptionHelpFormatter):
    """Help that fits ``output_width()``: prose paragraphs wrap; indented lines (the
    examples) stay as written."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         output_width() - 2 if width is None else width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for line in text.splitlines():
            if line.startswith(" ") or len(indent + line) <= width:
                out.append(indent + line)
            else:
                out += _wrap(line, width - len(indent))
        return "\n".join(out)


def _pct_row(label: str, k: int, n: int) -> list[Any]:
    lo, hi = wilson(k, n)
    share = k / n if n else math.nan
    # enough decimals that Wilson's interval never prints as [x, x] (0 or n of n)
    d = next((d for d in range(2, 7) if math.isnan(lo) or _pct(lo, d) != _pct(hi, d)), 6)
    return [label, _pct(share, d), f"[{_pct(lo, d)}, {_pct(hi, d)}]", n]


def _pct(x: float, d: int = 2) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.{d}f}%"


def _mean_row(label: str, mean: float | None, std: float | None, n: int) -> list[Any]:
    if mean is None:
        return [label, "-", "-", n]
    half = 1.96 * std / math.sqrt(n) if std is not None and n > 1 else math.nan
    ci = "-" if math.isnan(half) else f"[{mean - half:.3f}, {mean + half:.3f}]"
    return [label, f"{mean:.3f}", ci, n]


# --- summaries -------------------------------------------------------------------------
def _collect(lf: pl.LazyFrame) -> pl.DataFrame:
    """Collect with the streaming engine: summaries of runs on disk stay memory-bounded."""
    return lf.collect(engine="streaming")


def _bool_rate(lf: pl.LazyFrame, col: str, where: pl.Expr | None) -> tuple[int, int]:
    """(true count, non-null count) of a boolean column, optionally among ``where`` rows."""
    c = pl.col(col).cast(pl.Boolean)
    if where is not None:
        c = pl.when(where).then(c)
    k, n = _collect(lf.select(c.sum().alias("k"), c.count().alias("n"))).row(0)
    return int(k or 0), int(n or 0)


def run_summary(lf: pl.LazyFrame, level: str, n_players: int, seconds: float,
                teams: tuple[int, ...] | None = None) -> str:
    """Deal level: the demo's rates and per-seat / per-dealer-position mean scores;
    match level: each team's (or seat's) match win rate and the mean match length. Every
    figure carries its sample size and a 95% interval."""
    if level == "deal":
        return deal_summary(lf, n_players, seconds)
    schema = lf.collect_schema()
    rows = _collect(lf.select(pl.len())).item()
    lines = [f"{rows:,} matches in {seconds:.2f} s = {rows / seconds:,.0f} matches/s"]
    rates: list[list[Any]] = []
    if "winner" in schema:
        winners = _collect(lf.group_by("winner").agg(pl.len()))
        for w, k in sorted(winners.iter_rows()):
            label = "no winner (a draw, or the safety cap)" if w < 0 else _winner_label(w, teams)
            rates.append(_pct_row(label, int(k), rows))
        lines += ["", table(["match result", "share", "95% Wilson", "n"], rates,
                            right=[False, True, True, True])]
    if "n_deals" in schema:
        m, sd = _collect(lf.select(pl.col("n_deals").cast(pl.Float64).mean().alias("mean"),
                                   pl.col("n_deals").cast(pl.Float64).std().alias("sd"))).row(0)
        lines += ["", table(["match length", "mean", "95% CI", "n"],
                            [_mean_row("deals per match", m, sd, rows)],
                            right=[False, True, True, True])]
    return "\n".join(lines)


def _winner_label(w: int, teams: tuple[int, ...] | None) -> str:
    """Who the match winner's number is: a team (its seats) or a seat."""
    if teams is not None and len(set(teams)) < len(teams):
        seats = [str(i) for i, t in enumerate(teams) if t == w]
        return f"team {w} wins (seats {' and '.join(seats)})"
    return f"seat {w} wins"


def deal_summary(lf: pl.LazyFrame, n_players: int, seconds: float) -> str:
    schema = lf.collect_schema()
    rows = _collect(lf.select(pl.len())).item()
    lines = [f"{rows:,} deals in {seconds:.2f} s = {rows / seconds:,.0f} deals/s"]
    rates: list[list[Any]] = []
    has_taker = "taker" in schema
    taken = pl.col("taker") >= 0 if has_taker else None
    if has_taker:
        k, n = _collect(lf.select(taken.sum(), pl.len())).row(0)
        rates.append(_pct_row("someone takes (all deals)", int(k), int(n)))
    if "made" in schema:
        k, n = _bool_rate(lf, "made", taken)
        rates.append(_pct_row("taker success (made, of the taken deals with a result)", k, n))
    for name in ("dedans", "litige", "capot"):
        if name in schema:
            k, n = _bool_rate(lf, name, taken)
            label = f"{name} | taken" if has_taker else name
            rates.append(_pct_row(label, k, n))
    if rates:
        lines += ["", table(["rate", "share", "95% Wilson", "n"], rates,
                            right=[False, True, True, True])]
    seats = [f"score_s{p}" for p in range(n_players) if f"score_s{p}" in schema]
    if len(seats) == n_players:
        stats = _collect(lf.select([pl.col(c).cast(pl.Float64).mean().alias(f"m{c}") for c in seats]
                                   + [pl.col(c).cast(pl.Float64).std().alias(f"s{c}") for c in seats]
                                   )).row(0, named=True)
        means = [_mean_row(f"seat {p}", stats[f"m{c}"], stats[f"s{c}"], rows)
                 for p, c in enumerate(seats)]
        if "dealer" in schema:  # a game without a dealer (La batouille) has no column
            dealer = pl.col("dealer")
            rel = []
            for k in range(n_players):
                expr = pl.lit(None, dtype=pl.Float64)
                for p in range(n_players):
                    expr = pl.when((dealer + k) % n_players == p).then(
                        pl.col(seats[p]).cast(pl.Float64)).otherwise(expr)
                rel += [expr.mean().alias(f"m{k}"), expr.std().alias(f"s{k}")]
            rs = _collect(lf.select(rel)).row(0, named=True)
            name = ["dealer"] + [f"dealer+{k}" for k in range(1, n_players)]
            means += [_mean_row(name[k], rs[f"m{k}"], rs[f"s{k}"], rows)
                      for k in range(n_players)]
        lines += ["", table(["mean score per deal", "mean", "95% CI", "n"], means,
                            right=[False, True, True, True])]
    return "\n".join(lines)


# --- subcommands -----------------------------------------------------------------------
def _load(slug: str) -> Game | str:
    """The game, or a one-line reason it cannot be loaded (module not written yet...)."""
    try:
        return get_game(slug)
    except SimlabError as e:
        from simlab.games import origin

        if origin(slug).startswith("plug-in"):  # a broken plug-in is listed, not fatal
            return f"unavailable: {e}"
        raise
    except (ImportError, AttributeError) as e:
        return f"unavailable ({type(e).__name__}: {e})"


def cmd_list(args: argparse.Namespace) -> int:
    from simlab.games import origin

    rows = []
    for slug in game_names():
        g = _load(slug)
        if isinstance(g, str):
            rows.append([slug, "?", origin(slug), g])
        else:
            rows.append([g.slug, g.players_text or "?", origin(slug), g.description])
    # only the description wraps: a game's name and origin stay on one line each
    print(table(["game", "players", "from", "description"], rows,
                right=[False, False, False, False], wrap=[False, False, False, True]))
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    g = args.game
    rows, meanings = [], []
    for d in g.knobs.describe():
        meaning = d["help"]
        if d["seed_value"] is not None and d["seed_value"] != d["default"]:
            meaning += f" [seed text: {_literal(d['seed_value'])}]"
        rows.append([d["name"], "policy" if d["policy"] else "rule", _literal(d["default"]),
                     d["allowed"]])
        meanings.append(meaning)
    print(_paragraph(f"{g.title} ({g.slug}): {len(rows)} knobs; set with --set name=value or "
                     "a TOML variant file. Kind 'policy' = knob of the heuristic players, not "
                     "of the rules; [seed text: ...] = the value that reproduces the "
                     "rulebook's printed text, where the default differs from it (listed "
                     "with its reason at the end). Each knob's meaning is under it.") + "\n")
    print(table(["knob", "kind", "default", "allowed"], rows,
                right=[False, False, False, False], wrap=[False, False, False, True],
                details=meanings))
    print(f"\npolicies: {', '.join(g.policies)}")
    print("\n" + _departures_text(g))
    return 0


def _departures_text(g: Game) -> str:
    """The defaults that differ from the rulebook's printed text, each with its reason:
    what every answer with the defaults relies on."""
    from simlab.engine.knobs import SEED_CASES

    deps = g.knobs.departures()
    if not deps:
        return _paragraph(f"Every default of {g.slug} follows the rulebook's printed text "
                          "where it is clear and playable; the other defaults resolve what "
                          "the book leaves silent (their meanings say so).")
    lines = [_paragraph(f"Defaults that differ from the rulebook's printed text ({len(deps)}; "
                        "a default does so only where the book contradicts itself, is silent "
                        "or cannot be played):")]
    for d in deps:
        why = (f"{SEED_CASES[d['seed_case']]} — {d['seed_why']}"
               if d["seed_case"] in SEED_CASES else "reason not recorded")
        lines.append(_paragraph(f"- {d['name']} = {_literal(d['default'])} (printed: "
                                f"{_literal(d['seed_value'])}): {why}"))
    return "\n".join(lines)


def cmd_columns(args: argparse.Namespace) -> int:
    from simlab.engine.game import BOOL, INT, OPT_BOOL, WIDE_COLUMNS

    g = args.game
    knobs = g.make_knobs(parse_assignments(args.set))
    players = g.players(knobs)
    kinds = {INT: "int", BOOL: "bool", OPT_BOOL: "bool or null"}

    def kind_of(c: Any) -> str:
        if isinstance(c.kind, tuple):
            labels = ", ".join(c.kind)
            return f"label: {labels if len(labels) <= 40 else labels[:37] + '...'}"
        return "int64" if c.name in WIDE_COLUMNS else kinds.get(c.kind, str(c.kind))

    standard = {"deal": "deal index in the run (its random stream)", "dealer": "seat that dealt",
                "annulled": "deal annulled by a rule (redeal), nothing marked",
                "taker": "seat that took the contract, -1 if nobody did",
                "contract": "contract taken (null if nobody took)",
                "made": "the takers made their contract (null if nobody took)",
                "match": "match index in the run", "first_dealer": "seat that dealt first",
                "winner": "winning seat or team, -1 if capped", "n_deals": "deals dealt in the match"}
    prefixes = {"score_s": "what seat {i} marks this deal", "tricks_s": "tricks won by seat {i}",
                "trick_points_s": "card points captured by seat {i} (last-trick bonus included)",
                "final_score_s": "seat {i}'s total at the end of the match"}

    def meaning(c: Any) -> str:
        if c.help:
            return c.help
        for prefix, text in prefixes.items():
            rest = c.name.removeprefix(prefix)
            if rest != c.name and rest.isdigit():
                return text.format(i=rest)
        return standard.get(c.name, "")

    for level, cols in (("deal", g.deal_columns(knobs)), ("match", g.match_columns(knobs))):
        if level != args.level and args.level != "all":
            continue
        print(f"{g.title}: one row per {level} (--level {level}), {len(cols)} columns"
              + (f" at {players} players" if "players" in knobs.names() else ""))
        print(table(["column", "type", "meaning"], [[c.name, kind_of(c), meaning(c)] for c in cols],
                    right=[False, False, False], wrap=[False, True, True]))
        if level == "deal":
            print(_paragraph(f"with --record-hands: dealt_s0 .. dealt_s{players - 1} (cards first "
                             f"dealt) and hand_s0 .. hand_s{players - 1} (hands when play starts), "
                             "lists of card labels"))
        print()
    return 0


def _plan_from(args: argparse.Namespace) -> Plan:
    jobs = args.jobs
    if jobs is None:  # every core (short local runs stay in one process by themselves)
        jobs = -1
    return plan(args.game, args.n, seed=args.seed, params=parse_assignments(args.set),
                variant=args.variant, policies=args.policy, jobs=jobs, level=args.level,
                chunk_size=args.chunk_size, record_hands=args.record_hands,
                progress=False if args.no_progress else None)


def cmd_run(args: argparse.Namespace) -> int:
    p = _plan_from(args)
    backend, where = _backend_from(args)
    to_dir = args.out is not None and is_run_dir(args.out)
    before = None
    if to_dir:
        p = resolve_dir_plan(p, args.out)  # refuses another run's directory before any work
    elif args.out is not None:
        check_file_output(args.out)
    t0, kernels = time.perf_counter(), kernel_clock()
    if args.out is None:
        frame = execute(p, backend=backend, scheduler=where)
        seconds = time.perf_counter() - t0
        lf = frame.lazy()
    elif to_dir:
        try:
            out = execute_to_dir(p, args.out, backend=backend, scheduler=where)
        except RunInterrupted as e:
            print(f"simlab: error: {_one_line(str(e))}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            st = run_status(args.out)
            print(f"simlab: interrupted; {st['chunks_done']} of {st['n_chunks']} chunks are kept "
                  f"in {args.out}, run the same command again to resume", file=sys.stderr)
            return 130
        seconds = time.perf_counter() - t0
        before = read_manifest(out).get("resumed")
        lf = load(out)
    else:
        try:
            out = execute_to_parquet(p, args.out, backend=backend, scheduler=where)
        except RunInterrupted as e:
            print(f"simlab: error: {_one_line(str(e))}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print(f"simlab: interrupted; finished chunks are kept in {args.out}.parts/, run the "
                  "same command again to resume", file=sys.stderr)
            return 130
        seconds = time.perf_counter() - t0
        lf = load(out)
    changed = p.knobs.changed()
    if backend == "loky":
        used, why = last_processes()
        where_text = f"jobs {p.jobs}" + (f" ({why})" if why and used != p.jobs else "")
    elif where is None:
        where_text = f"backend {backend} (local cluster of {p.jobs} workers)"
    else:
        where_text = f"backend {backend} at {where}"
    print(f"{p.game.slug}: {p.n:,} {p.unit}, seed {p.seed}, policies {','.join(p.policies)}, "
          f"{where_text}, chunk {p.chunk_size:,}"
          + (f", knobs {changed}" if changed else ""))
    if before and before["kept"]:
        print(f"resumed {args.out}: {before['kept']} of {before['kept'] + before['to_run']} "
              "chunks were already done (the rate below counts every row)")
    compiling, loading = kernels()
    if compiling:  # the rate below leaves it out
        print(f"compiled the kernels in {compiling:.1f} s (once per machine and version of "
              "their sources), not counted below")
    print(run_summary(lf, p.level, p.game.players(p.knobs),
                      max(seconds - compiling - loading, 1e-9),
                      tuple(p.game.teams(p.knobs)) if p.game.teams is not None else None))
    if args.out is not None:
        print(f"wrote {args.out}" + (" (load it with simlab.load)" if to_dir else ""))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    import shutil

    from simlab.analysis.report_sums import run_report_sums, start_report_workers
    from simlab.engine.runner import check_file_output, check_folder_output

    p = plan(get_game("belote"), args.n, seed=0, policies="heuristic", jobs=-1, level="deal",
             progress=False if args.no_progress else None)
    out = check_file_output(args.out)
    report_dir = check_folder_output(out.parent / "demo-report")
    start_report_workers(p)  # they start while the report's modules load here
    from simlab.analysis.report import write_report

    print(f"demo: Belote, {p.n:,} deals, seed 0, heuristic players, {p.jobs} cores "
          f"-> {out}")
    t0, kernels = time.perf_counter(), kernel_clock()
    # each chunk is measured where it is played; its rows go to the report's results
    sums = run_report_sums(p, report_dir / "results.parquet")
    seconds, kernel_seconds = time.perf_counter() - t0, kernels()
    try:
        tmp = out.with_name(out.name + ".tmp")
        shutil.copyfile(report_dir / "results.parquet", tmp)
        tmp.replace(out)
    except OSError as e:
        raise SimlabError(f"cannot write {str(out)!r}: {e.strerror or e}; the deals are in "
                          f"{str(report_dir / 'results.parquet')!r}") from None
    if kernel_seconds[0]:  # the deals/s below leave it out
        print(f"compiled the kernels in {kernel_seconds[0]:.1f} s (once per machine and "
              "version of their sources), not counted below")
    print(deal_summary(pl.scan_parquet(out), p.game.players(p.knobs),
                       max(seconds - sum(kernel_seconds), 1e-9)))
    print(f"\nwrote {out}; explore it (each read checks its bytes): simlab.load({str(out)!r}).collect()")
    write_report(report_dir, game=p.game, plan=p, frame=None, sums=sums, seconds=seconds,
                 title="simlab demo: classic Belote, seed rules, heuristic players",
                 kernels=kernel_seconds)
    print(f"report: {report_dir / 'report.html'} (and report.md, figures/)")
    return 0


def cmd_repair(args: argparse.Namespace) -> int:
    from simlab.engine.runner import rebuild_manifest, set_aside_note

    folder = Path(args.dir)
    if not folder.is_dir():
        raise SimlabError(f"{str(folder)!r} is not a directory; give a run directory (DIR/)")
    m = rebuild_manifest(folder)
    prov = m["provenance"]
    state = "complete" if m["complete"] else "incomplete: run the same command again to finish it"
    print(f"rebuilt {str(folder / 'manifest.json')!r} from {len(m['chunks'])} of {m['n_chunks']} "
          f"chunks ({m['rows_done']:,} of {prov['n']:,} rows; {prov['game']}, seed {prov['seed']}); "
          f"{state}{set_aside_note(folder, m)}")
    return 0


MAX_REPEAT = 20


def cmd_bench(args: argparse.Namespace) -> int:
    if args.repeat > MAX_REPEAT:
        raise SimlabError(f"--repeat must be between 1 and {MAX_REPEAT}, got {args.repeat:,}")
    if args.scaling:
        return bench_scaling(args)
    if args.repeat != 1:
        raise SimlabError("--repeat needs --scaling (simlab bench --scaling --repeat K)")
    if args.scheduler is not None:
        raise SimlabError("--scheduler needs --scaling (simlab bench --scaling --scheduler ADDRESS)")
    if args.search_n < 0:
        raise SimlabError(f"--search-n must be >= 0 (0 skips the search rows), got {args.search_n}")
    n = 500_000 if args.n is None else args.n
    slugs = [s.strip() for s in args.games.split(",")] if args.games else game_names()
    for s in slugs:
        _load(s)  # unknown names fail before any work (unwritten modules are skipped)
    try:
        jobs_list = [_jobs(j) for j in args.jobs_list.split(",")]
    except argparse.ArgumentTypeError as e:
        raise SimlabError(f"--jobs-list: {e}") from None
    for j in jobs_list:
        if not (j == -1 or j >= 1):
            raise SimlabError(f"--jobs-list: each entry must be >= 1 or all, got {j}")
    cores = cpu_count()
    params = parse_assignments(args.set)
    if params:
        for s in slugs:  # every benched game must accept the settings, before any work
            g = _load(s)
            if not isinstance(g, str):
                g.make_knobs(params)
    label = " ".join(f"{k}={v}" for k, v in params.items())
    rows = []
    for s in slugs:
        g = _load(s)
        if isinstance(g, str):
            rows.append([s, "-", "-", "-", "-", g])
            continue
        simulate(get_game(s), 2_000, jobs=1, params=params, progress=False)  # compile / load the cache
        base = None
        for j in jobs_list:
            if j != 1:  # start the worker pool before timing
                simulate(get_game(s), 2_000 * cores, jobs=j, chunk_size=2_000, params=params,
                         progress=False)
            t0 = time.perf_counter()
            simulate(get_game(s), n, jobs=j, params=params, progress=False)
            rate = n / (time.perf_counter() - t0)
            base = rate if base is None else base
            workers = cores if j == -1 else j
            rows.append([s, workers, n, round(rate), f"x{rate / base:.2f}", label])
        if "search" in g.policies and args.search_n > 0:
            rows += _bench_search(s, g, args.search_n, jobs_list, cores, params, label)
    print(table(["game", "jobs", "deals", "deals/s", "speedup", "note"], rows,
                right=[False, True, True, True, True, False]))
    return 0


def _bench_search(slug: str, g: Any, n: int, jobs_list: list[int], cores: int,
                  params: dict | None = None, note: str = "") -> list[list]:
    """Rows timing one search seat (seat 0) among heuristic seats at the default budget."""
    params = params or {}
    players = g.players(g.make_knobs(params))
    spec = ",".join(["search"] + ["heuristic"] * (players - 1))
    label = f"{slug} (1 search seat)"
    simulate(get_game(slug), 20, jobs=1, policies=spec, params=params, progress=False)  # compile
    rows, base = [], None
    for j in jobs_list:
        if j != 1:
            simulate(get_game(slug), 20 * cores, jobs=j, chunk_size=20, policies=spec, params=params,
                     progress=False)
        t0 = time.perf_counter()
        simulate(get_game(slug), n, jobs=j, policies=spec, params=params, progress=False)
        rate = n / (time.perf_counter() - t0)
        base = rate if base is None else base
        rows.append([label, cores if j == -1 else j, n, round(rate), f"x{rate / base:.2f}",
                     ("default search budget " + note).strip()])
    return rows


SCALING_N = 10_000_000  # deals of the run whose peak memory bench --scaling measures
SCALING_TIMING_N = 500_000  # deals per throughput timing (at most -n)
MEMORY_TARGET = 1 << 30


def peak_memory_of(argv: list[str], interval: float = 0.2) -> dict[str, Any]:
    """Run ``argv`` to completion; its exit code, wall time and peak memory:

    * ``largest_process``: the largest RSS of any one process of its tree
      (``getrusage(RUSAGE_CHILDREN)``; Linux/macOS, no dependency);
    * ``tree_rss`` / ``tree_pss``: with psutil installed, the peak over samples taken every
      ``interval`` s of the whole tree's (parent + worker processes) summed RSS, and summed
      PSS (Linux: shared library pages split between the processes that map them, so the
      sum is the tree's real footprint; RSS sums count numba/LLVM/polars once per process).
    """
    import resource
    import subprocess
    import threading

    try:
        import psutil
    except ImportError:
        psutil = None
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peaks = {"rss": 0, "pss": 0}
    done = threading.Event()

    def sample() -> None:
        root = psutil.Process(proc.pid)
        while not done.is_set():
            rss = pss = 0
            try:
                for p in [root, *root.children(recursive=True)]:
                    with contextlib.suppress(psutil.Error):
                        rss += p.memory_info().rss
                        with contextlib.suppress(psutil.Error, AttributeError):
                            pss += getattr(p.memory_full_info(), "pss", 0)
            except psutil.Error:
                pass
            peaks["rss"] = max(peaks["rss"], rss)
            peaks["pss"] = max(peaks["pss"], pss)
            done.wait(interval)

    sampler = None
    if psutil is not None:
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
    stdout, stderr = proc.communicate()
    done.set()
    if sampler is not None:
        sampler.join()
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    largest = after * scale if after > before else None  # None: not above an earlier child's
    return {"returncode": proc.returncode, "seconds": seconds, "largest_process": largest,
            "tree_rss": peaks["rss"] or None, "tree_pss": peaks["pss"] or None,
            "stdout": stdout, "stderr": stderr}


def _mib(b: int | None) -> str:
    return "-" if b is None else f"{b / 2**20:,.0f} MiB"


def _wall(argv: list[str]) -> tuple[float, str]:
    """(wall seconds, stdout) of a command that must succeed."""
    seconds, out, _ = _timed(argv)
    return seconds, out


def _timed(argv: list[str]) -> tuple[float, str, float]:
    """(wall seconds, stdout, CPU seconds) of a command that must succeed. The CPU time
    (user + system) is its whole process tree's: a worker's is counted once the command
    has waited for it, which simlab does before it exits."""
    import resource
    import subprocess

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    c0, t0 = cpu(), time.perf_counter()
    r = subprocess.run(argv, capture_output=True, text=True)
    seconds, used = time.perf_counter() - t0, cpu() - c0
    if r.returncode != 0:
        raise SimlabError(f"{' '.join(argv[2:])} failed (exit {r.returncode}): "
                          f"{_one_line(r.stderr)[:300]}")
    return seconds, r.stdout, used


STARTUP_TARGET = 1.0  # seconds of wall time for `simlab run belote -n 1000`, compiled


def startup_times(slug: str, runs: int = 7) -> list[float]:
    """Wall times of ``simlab run SLUG -n 1000`` as a user types it (a new process each:
    interpreter, imports, the kernels' cache, 1,000 deals, the summary, exit), after one
    untimed run that fills the numba cache; sorted."""
    argv = [sys.executable, "-m", "simlab", "run", slug, "-n", "1000", "--no-progress"]
    _wall(argv)
    return sorted(_wall(argv)[0] for _ in range(runs))


def _startup(slug: str) -> None:
    times = startup_times(slug)
    median = times[len(times) // 2]
    verdict = "OK" if median < STARTUP_TARGET else "OVER"
    print(f"\nstart-up: `simlab run {slug} -n 1000`, {len(times)} runs: median {median:.2f} s "
          f"(fastest {times[0]:.2f} s, slowest {times[-1]:.2f} s); target under "
          f"{STARTUP_TARGET:.0f} s: {verdict}", flush=True)


def _bench_knob(slug: str) -> tuple[str, list[int]]:
    """A rule knob to vary in the timed compare and sweep: the game's first integer rule
    knob that takes the three values above its default."""
    from dataclasses import fields

    g = _load(slug)
    for f in fields(g.knobs):
        m = f.metadata
        if m["policy"] or m["choices"] is not None or f.type not in ("int", int):
            continue
        values = [f.default + k for k in range(4)]
        try:
            for v in values:
                g.make_knobs({f.name: v})
        except SimlabError:  # out of range, or against another knob
            continue
        return f.name, values
    raise SimlabError(f"{slug} has no integer rule knob to vary in bench --scaling")


def _command_scaling(slug: str, n_max: int, cores: int, repeat: int = 1) -> None:
    """Whole commands as a user runs them (wall time, start-up included): a run to a run
    directory for n = 10^4 .. n_max; a report and a comparison of min(n_max, 10^6) deals;
    a sweep of 4 points sharing as many deals; each with --jobs 1 and --jobs all, in
    ``repeat`` alternating pairs (medians shown; with several pairs, the range of the
    pairs' speedups too). Targets: --jobs all never slower (within noise), and on 2 cores
    at least 1.8x faster for the 10^7-deal run."""
    import shutil
    import statistics
    import tempfile

    ns = [n for n in (10**4, 10**5, 10**6, 10**7) if n < n_max] + [n_max]
    report_n = min(n_max, 10**6)
    knob, values = _bench_knob(slug)
    extra = {"compare": ["--b", f"{knob}={values[1]}"],
             "sweep": ["--grid", f"{knob}={','.join(map(str, values))}"]}
    pairs = f"{repeat} alternating pairs, medians" if repeat > 1 else "one pair"
    print(f"\nwhole commands `simlab COMMAND {slug} -n N --out DIR` (wall time, start-up "
          f"included), --jobs 1 vs --jobs all ({cores} cores; {pairs}) ...", flush=True)
    rows, details = [], []
    base = [sys.executable, "-m", "simlab"]
    med = statistics.median
    with tempfile.TemporaryDirectory(prefix="simlab-bench-") as tmp:
        for what, n in [("run", m) for m in ns] + [("report", report_n), ("compare", report_n),
                                                    ("sweep", report_n // 4)]:
            times: dict[str, list[float]] = {"1": [], "all": []}
            runs: dict[str, list[float]] = {"1": [], "all": []}
            cpu: dict[str, list[float]] = {"1": [], "all": []}
            for k in range(repeat):
                for j in ("1", "all"):
                    out = str(Path(tmp) / f"{what}-{n}-{j}-{k}") + ("/" if what == "run" else "")
                    argv = [*base, what, slug, "-n", str(n), *extra.get(what, []), "--jobs", j,
                            "--out", out, "--no-progress"]
                    wall, text, used = _timed(argv)
                    times[j].append(wall)
                    cpu[j].append(used)
                    # `run` prints "N deals in S s": the simulation alone, without start-up
                    # (imports, the numba cache) and the summary read back from disk
                    found = re.search(r" deals in ([0-9.]+) s", text)
                    if what == "run" and found:
                        runs[j].append(float(found[1]))
                    shutil.rmtree(out, ignore_errors=True)  # a 10^7-deal run: 200 MB
            one, every = med(times["1"]), med(times["all"])
            sim = f"x{med(runs['1']) / med(runs['all']):.2f}" if runs["1"] and runs["all"] else "-"
            speedup = f"x{one / every:.2f}"
            if repeat > 1:
                each = sorted(a / b for a, b in zip(times["1"], times["all"], strict=True))
                details.append("the pairs' speedups: " + ", ".join(f"x{x:.2f}" for x in each))
            label = f"{what} {n:.3g}".replace("e+0", "e") + {
                "compare": " (A vs B)", "sweep": " (x 4 points)"}.get(what, "")
            rows.append([label, f"{one:.2f}", f"{every:.2f}", speedup, sim,
                         f"{med(cpu['1']) / one:.2f} / {med(cpu['all']) / every:.2f}",
                         f"x{scaling_ceiling(one, med(cpu['all']), cores):.2f}"])
    print(table(["command", "jobs 1 (s)", "jobs all (s)", "speedup", "simulation only",
                 "cores busy", "ceiling"], rows,
                right=[False, True, True, True, True, True, True], details=details or None))
    print("\n".join(textwrap.wrap(
        f"simulation only: `run`'s own time, without start-up and the summary read back. "
        f"cores busy (jobs 1 / jobs all): the command's CPU time (user + system, its "
        f"workers' included) over its wall time. ceiling: the most --jobs all could gain, "
        f"its measured CPU work spread evenly over the {cores} cores from start to end "
        f"(= {cores} x wall time with --jobs 1 / CPU time with --jobs all).",
        output_width())))


def scaling_ceiling(wall_one: float, cpu_all: float, cores: int) -> float:
    """The largest speedup a run on ``cores`` cores can show over a run that took
    ``wall_one`` seconds, when it needs ``cpu_all`` CPU seconds: its wall time is at least
    ``cpu_all / cores``, whatever the scheduling."""
    return cores * wall_one / cpu_all if cpu_all > 0 else float("inf")


def bench_scaling(args: argparse.Namespace) -> int:
    import tempfile

    n = SCALING_N if args.n is None else args.n
    slugs = [s.strip() for s in args.games.split(",")] if args.games else ["belote"]
    for s in slugs:
        g = _load(s)
        if isinstance(g, str):
            raise SimlabError(f"game {s!r} is {g}")
    scheduler = args.scheduler
    if scheduler is not None:
        check_backend("dask", scheduler)
    cores = cpu_count()
    timing_n = min(n, SCALING_TIMING_N)
    # 1. peak memory of a run of n deals to disk (first: no earlier child skews getrusage)
    mem_game = slugs[0]
    with tempfile.TemporaryDirectory(prefix="simlab-bench-") as tmp:
        out = str(Path(tmp) / "run") + "/"
        argv = [sys.executable, "-m", "simlab", "run", mem_game, "-n", str(n), "--out", out,
                "--jobs", "all", "--no-progress"]
        print(f"memory: {mem_game}, {n:,} deals to disk on {cores} cores "
              f"(simlab run {mem_game} -n {n} --out DIR/ --jobs all) ...", flush=True)
        mem = peak_memory_of(argv)
        disk = sum(f.stat().st_size for f in Path(out).glob("part-*.parquet"))
    if mem["returncode"] != 0:
        raise SimlabError(f"the memory run failed (exit {mem['returncode']}): "
                          f"{_one_line(mem['stderr'])[:300]}")
    # 2. throughput: 1 core, all local cores, and the cluster
    rows = []
    for s in slugs:
        simulate(get_game(s), 2_000, jobs=1, progress=False)  # compile / load the numba cache
        simulate(get_game(s), 2_000 * cores, jobs=-1, chunk_size=2_000, progress=False)  # start workers
        rates = {}
        for label, j in (("local, 1 core", 1), (f"local, {cores} cores", -1)):
            t0 = time.perf_counter()
            simulate(get_game(s), timing_n, jobs=j, progress=False)
            rate = timing_n / (time.perf_counter() - t0)
            workers = 1 if j == 1 else cores
            rates[label] = rate
            rows.append([s, label, workers, timing_n, round(rate), round(rate / workers),
                         f"x{rate / rates['local, 1 core']:.2f}"])
        if scheduler is not None:
            from simlab.engine.runner import executor

            with executor("dask", scheduler) as ex:
                workers = ex.workers
            simulate(get_game(s), 2_000 * workers, chunk_size=2_000, backend="dask", scheduler=scheduler,
                     progress=False)  # warm the workers up
            cluster_n = max(timing_n, 50_000 * workers)
            chunk = max(1_000, cluster_n // (4 * workers))
            t0 = time.perf_counter()
            simulate(get_game(s), cluster_n, chunk_size=chunk, backend="dask", scheduler=scheduler,
                     progress=False)
            rate = cluster_n / (time.perf_counter() - t0)
            rows.append([s, f"dask at {scheduler}", workers, cluster_n, round(rate),
                         round(rate / workers), f"x{rate / rates['local, 1 core']:.2f}"])
    print(table(["game", "where", "workers", "deals", "deals/s", "deals/s per worker",
                 "speedup"], rows, right=[False, False, True, True, True, True, True]))
    _startup(mem_game)
    if cores > 1:
        _command_scaling(mem_game, n, cores, args.repeat)
    peak = mem["tree_pss"] or mem["largest_process"]
    verdict = ("-" if peak is None else
               ("OK, under 1 GiB" if peak < MEMORY_TARGET else "OVER the 1 GiB target"))
    print(f"\npeak memory of a {n:,}-deal run to disk ({mem_game}, {cores} cores, "
          f"{mem['seconds']:.1f} s = {n / mem['seconds']:,.0f} deals/s including start-up, "
          f"{disk / 2**20:,.0f} MiB of Parquet):")
    print(f"  largest single process, RSS (getrusage RUSAGE_CHILDREN): {_mib(mem['largest_process'])}")
    no_psutil = "- (install psutil to measure)"
    print("  whole process tree, summed PSS (psutil, sampled every 0.2 s): "
          + (_mib(mem["tree_pss"]) if mem["tree_pss"] else no_psutil))
    print("  whole process tree, summed RSS (counts shared libraries once per process): "
          + (_mib(mem["tree_rss"]) if mem["tree_rss"] else no_psutil))
    print(f"  target: under 1 GiB whatever n -> {verdict} "
          f"({'tree PSS' if mem['tree_pss'] else 'largest process'})")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="simlab", formatter_class=_FORMATTER,
        description="Monte Carlo balance analysis for card games.",
        epilog="examples:\n"
               "  simlab list\n"
               "  simlab params belote\n"
               "  simlab run belote -n 1e6 --seed 0 --jobs all --out belote.parquet\n"
               "  simlab demo\n"
               "  simlab how-often belote \"pl.col('capot')\"\n"
               "  simlab compare belote --b \"queen_points=5\" -n 200000\n"
               "  simlab report belote -n 1e6 --out reports/belote\n"
               "run 'simlab COMMAND --help' for each command's options.")
    from simlab import __version__

    parser.add_argument("--version", action="version", version=f"simlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("list", help="games with their players and a one-line description",
                       formatter_class=_FORMATTER, description="List the games.",
                       epilog="example:\n  simlab list")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("params", help="every knob of a game: default, allowed values, meaning",
                       formatter_class=_FORMATTER,
                       description="Show a game's knobs (variant parameters) as a table.",
                       epilog="examples:\n  simlab params belote\n"
                              "then e.g.: simlab run belote -n 1e5 --set queen_points=5")
    p.add_argument("game", help=f"game slug ({', '.join(game_names())})")
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("columns", help="every result column of a game: type and meaning",
                       formatter_class=_FORMATTER,
                       description="List the columns of a game's result rows (what polars "
                                   "expressions in how-often, --where and your own analysis "
                                   "can use), at deal and match level.",
                       epilog="examples:\n  simlab columns belote\n  simlab columns tarot --set "
                              "players=5 --level deal")
    p.add_argument("game", help=f"game slug ({', '.join(game_names())})")
    p.add_argument("--level", choices=("deal", "match", "all"), default="all",
                   help="which rows (default all)")
    p.add_argument("--set", action="extend", nargs="+", metavar="KEY=VALUE", default=[],
                   help="knobs that change the columns (e.g. players=5)")
    p.set_defaults(func=cmd_columns)

    p = sub.add_parser(
        "run", help="simulate deals or matches; summary, optionally Parquet output",
        formatter_class=_FORMATTER,
        description="Simulate N deals (or matches) of GAME and print a summary; with --out, "
                    "also write every row to Parquet with provenance metadata: --out FILE.parquet "
                    "writes one file; --out DIR/ writes a resumable run directory (one "
                    "part-NNNNN.parquet per finished chunk and a manifest.json). Running the "
                    "same command again resumes an interrupted DIR/ run; a different run is "
                    "refused. Load either with simlab.load(PATH). Rows are identical for any "
                    "--jobs / --chunk-size / --backend.",
        epilog="examples:\n"
               "  simlab run belote -n 100000 --seed 1\n"
               "  simlab run belote -n 1e6 --jobs all --out out/belote.parquet\n"
               "  simlab run belote -n 1e5 --set queen_points=5 --set litige=lost\n"
               "  simlab run belote -n 1e5 --variant my-variant.toml --policy random\n"
               "  simlab run belote -n 1e5 --policy heuristic,random,heuristic,random\n"
               "  simlab run belote -n 10000 --level match --out matches.parquet\n"
               "  simlab run belote -n 1000 --record-hands --out hands.parquet\n"
               "  simlab run belote -n 1e8 --jobs all --out out/belote-1e8/   # resumable\n"
               "  simlab run belote -n 1e8 --backend dask --scheduler tcp://10.0.0.5:8786 "
               "--out out/b/\n"
               "knobs: simlab params GAME. A variant file holds knob = value lines "
               "(optionally game = \"...\"); --set overrides it.")
    p.add_argument("game", help=f"game slug ({', '.join(game_names())})")
    p.add_argument("-n", type=_count, required=True, metavar="N",
                   help="number of deals (or matches with --level match); 1e6 and "
                        "1_000_000 are accepted")
    p.add_argument("--seed", type=_count, default=0, help="run seed, 0 .. 2**63-1 (default 0)")
    p.add_argument("--set", action="extend", nargs="+", metavar="KEY=VALUE", default=[],
                   help="override a knob; repeatable")
    p.add_argument("--variant", metavar="FILE.toml", help="TOML file of knob = value lines")
    p.add_argument("--policy", default="heuristic", metavar="POLICY",
                   help="heuristic | random | search, or one per seat comma separated, "
                        "e.g. search,heuristic,heuristic,heuristic (default heuristic; "
                        "search budget: --set search_worlds=W)")
    p.add_argument("--jobs", type=_jobs, default=None, metavar="J",
                   help="processes; -1 or 'all' = every core (the default). A run with "
                        "less than about 1.5 s of work stays in one process, and says so. With "
                        "--backend dask and no --scheduler: the size of the local cluster; a "
                        "running cluster uses all its workers")
    p.add_argument("--chunk-size", type=_count, default=None, metavar="C",
                   help="deals (matches) per chunk and per part file; bounds memory "
                        "(default 100000 deals / 5000 matches, smaller with several jobs)")
    p.add_argument("--level", choices=LEVELS, default="deal",
                   help="one row per deal (default) or per match")
    p.add_argument("--out", metavar="FILE.parquet|DIR/",
                   help="write the rows to one Parquet file, or to a resumable run directory "
                        "(a path ending in / or not in .parquet) (default: summary only)")
    _backend_args(p)
    p.add_argument("--record-hands", action="store_true",
                   help="add the dealt cards and final hands of every seat (deal level)")
    p.add_argument("--no-progress", action="store_true", help="never show the progress line")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "repair", help="rebuild a run directory's manifest from its parts",
        formatter_class=_FORMATTER,
        description="Rebuild DIR/manifest.json from the metadata every part file carries (its "
                    "chunk and the run's provenance). Intact parts are listed, others are left "
                    "untouched for a resume to redo; nothing is deleted. A resume does this by "
                    "itself when the manifest is missing or damaged.",
        epilog="example:\n  simlab repair out/belote-1e9/")
    p.add_argument("dir", metavar="DIR", help="the run directory")
    p.set_defaults(func=cmd_repair)

    p = sub.add_parser(
        "demo", help="quick start: 1,000,000 Belote deals on all cores, with a summary",
        formatter_class=_FORMATTER,
        description="Simulate 1,000,000 Belote deals (seed 0, heuristic players, all "
                    f"cores), write {DEMO_OUT} and print rates with 95% Wilson intervals "
                    "and mean scores per seat and relative to the dealer.",
        epilog="examples:\n  simlab demo\n  simlab demo -n 100000 --out /tmp/demo.parquet")
    p.add_argument("-n", type=_count, default=1_000_000, metavar="N",
                   help="number of deals (default 1,000,000)")
    p.add_argument("--out", type=Path, default=DEMO_OUT, metavar="FILE.parquet",
                   help=f"output file (default {DEMO_OUT})")
    p.add_argument("--no-progress", action="store_true", help="never show the progress line")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "bench", help="deals/s per game on 1 core and on all cores; --scaling: and memory",
        formatter_class=_FORMATTER,
        description="After a warm-up, time full runs (kernel + polars frame) of each game "
                    "for each --jobs-list entry and print deals/s.",
        epilog="examples:\n  simlab bench\n  simlab bench --games belote -n 500000 "
               "--jobs-list 1,2,all\n"
               "  simlab bench --games manille --set variant=belge -n 200000\n"
               "  simlab bench --scaling                  # 10^7-deal memory run: a few minutes\n"
               "  simlab bench --scaling -n 1e6           # quick check\n"
               "  simlab bench --scaling --scheduler tcp://10.0.0.5:8786")
    p.add_argument("--games", metavar="G1,G2", default=None,
                   help="comma-separated games (default: all)")
    p.add_argument("-n", type=_count, default=None, metavar="N",
                   help="deals per timing (default 500,000); with --scaling: deals of the "
                        "run whose peak memory is measured (default 10,000,000; timings use "
                        "min(N, 500,000))")
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="a knob for every benched game, e.g. --set variant=belge (repeatable)")
    p.add_argument("--jobs-list", default="1,all", metavar="J1,J2",
                   help="worker counts to time; 'all' = every core (default 1,all)")
    p.add_argument("--search-n", type=int, default=2_000, metavar="N",
                   help="deals per timing of one search seat among heuristic seats "
                        "(default 2,000; 0 skips the search rows)")
    p.add_argument("--scaling", action="store_true",
                   help="deals/s on 1 and all local cores (and per worker of --scheduler's "
                        "dask cluster), the start-up time of a 1,000-deal run (target under "
                        "1 s), whole commands with --jobs 1 and all, then the peak memory of "
                        "an N-deal run to disk")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="with --scaling: also time this dask cluster")
    p.add_argument("--repeat", type=_positive, default=1, metavar="K",
                   help="with --scaling: time each whole command in K alternating pairs "
                        "(--jobs 1, --jobs all) and show medians and the pairs' range "
                        "(default 1; a machine whose speed varies needs 3 or more)")
    p.set_defaults(func=cmd_bench)

    from simlab.cli.analysis import add_commands

    add_commands(sub, _FORMATTER)
    from simlab.cli.newgame import add_command as add_new_game

    add_new_game(sub, _FORMATTER)
    return parser


PATH_OPTIONS = {"out": "--out", "variant": "--variant", "file": "experiment file",
                "dir": "run directory"}


def check_inputs(args: argparse.Namespace) -> None:
    """Checks every command shares, before any work: paths the file system can take
    (length, UTF-8), ``--max-deals`` only with a valid ``--precision``, no empty entry in a
    comma-separated list, and ``--jobs`` at most the machine's cores for a local run
    (capped, and said so on stderr)."""
    from simlab.engine.knobs import check_path

    for attr, label in PATH_OPTIONS.items():
        value = getattr(args, attr, None)
        if value is not None:
            check_path(value, label)
    if getattr(args, "max_deals", None) is not None:
        if args.max_deals < 1:
            raise SimlabError(f"--max-deals must be >= 1, got {args.max_deals:,}")
        if getattr(args, "precision", None) is None:
            raise SimlabError("--max-deals caps a --precision run; give --precision P too, or "
                              "leave --max-deals out and give -n N")
    precision = getattr(args, "precision", None)
    if precision is not None and not (math.isfinite(precision) and 0 < precision < 1):
        raise SimlabError(f"--precision must be between 0 and 1 (a half-width such as 0.002), "
                          f"got {precision}")
    for attr in ("games", "jobs_list"):
        value = getattr(args, attr, None)
        if value is not None and not all(x.strip() for x in value.split(",")):
            flag = "--" + attr.replace("_", "-")
            what = ("game slugs, e.g. belote,tarot (simlab list)" if attr == "games"
                    else "worker counts, e.g. 1,2,all")
            raise SimlabError(f"{flag} has an empty entry in {value!r}; give {what} separated "
                              "by commas")
    jobs = getattr(args, "jobs", None)
    local = getattr(args, "backend", "loky") == "loky"
    if isinstance(jobs, int) and local and jobs > cpu_count():
        print(f"simlab: --jobs {jobs} is more than this machine's {cpu_count()} cores; "
              f"using {cpu_count()}", file=sys.stderr)
        args.jobs = cpu_count()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        with deferred_interrupts():
            args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
            if args.command is None:
                parser.print_help()
                return 2
            if args.command in ("run", "demo", "bench") and getattr(args, "n", None) is not None \
                    and args.n < 1:
                raise SimlabError(f"-n must be >= 1, got {args.n}")
            check_inputs(args)
            if isinstance(getattr(args, "game", None), str):
                args.game = get_game(args.game)  # the one place a slug becomes a Game
            return int(args.func(args) or 0)
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except (SimlabError, _UsageError) as e:
        print(f"simlab: error: {_one_line(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("simlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head & co.: stop quietly
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the exit-time flush
        return 0
    except Exception as e:  # a Ctrl-C that surfaced wrapped (e.g. in a SystemError)
        if interrupted_by_user(e):
            print("simlab: interrupted", file=sys.stderr)
            return 130
        raise


def entry() -> None:
    """The ``simlab`` command (and ``python -m simlab``): ``main``, then a prompt exit.

    By then every file the command wrote is closed and its output flushed; the exit
    handlers still run (loky's and multiprocessing's clean-up, logging). What is skipped is
    the interpreter's teardown of numba's, LLVM's and polars' module state: a quarter of
    a second of a short run's wall time, measured here. With other threads still running
    (none of simlab's) the exit is the normal one."""
    import atexit
    import threading

    code = main()
    atexit._run_exitfuncs()
    if threading.active_count() > 1:
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: output gone anyway
            stream.flush()
    os._exit(code)


# --- Ctrl-C ------------------------------------------------------------------------------
# A SIGINT only sets a flag; Python raises KeyboardInterrupt at the next bytecode. Inside a
# numba kernel that bytecode may belong to a callback numba makes into Python
# (numba.core.serialize._numba_unpickle): the KeyboardInterrupt raised there comes out as
# "SystemError: CPUDispatcher(...) returned a result with an exception set", or crashes
# the process (measured here: a segmentation fault). So the handler below raises only
# outside numba's code; inside, it re-checks every REARM_SECONDS until the kernel returns.
REARM_SECONDS = 0.05
REPEAT_IGNORED_SECONDS = 1.0  # one key press can be reported twice (polars re-raises it)


# Python that compiled code calls, and llvmlite's ctypes callbacks (the object cache,
# while numba compiles or loads a kernel), where an exception is printed and dropped
NUMBA_CALLBACKS = ("/numba/core/serialize.py", "/llvmlite/binding/executionengine.py")


def _inside_numba(frame: Any) -> bool:
    """Whether Python is running a callback of numba-compiled code (not numba's compiler:
    a Ctrl-C during a long compilation must stop it)."""
    depth = 0
    while frame is not None and depth < 8:
        name = frame.f_code.co_filename.replace(os.sep, "/")
        if name.endswith(NUMBA_CALLBACKS):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


class _InterruptHandler:
    def __init__(self) -> None:
        self.pending = False
        self.raised_at: float | None = None

    def __call__(self, signum: int, frame: Any) -> None:
        import signal

        now = time.monotonic()
        if signum == signal.SIGINT:
            if self.raised_at is not None and now - self.raised_at < REPEAT_IGNORED_SECONDS:
                return
            self.pending = True
        if not self.pending:
            return
        from simlab.engine import runner

        if signum != signal.SIGINT and not runner.INTERRUPT_PENDING[0]:
            self.pending = False  # the runner raised it already
            return
        if _inside_numba(frame):
            # the runner raises it once the kernel has returned; the timer looks again
            # for other numba code (its callbacks run at a kernel's entry and exit, where
            # a timer alone could land again and again)
            runner.INTERRUPT_PENDING[0] = True
            if hasattr(signal, "setitimer"):
                signal.setitimer(signal.ITIMER_REAL, REARM_SECONDS)
            return
        self.pending = False
        runner.INTERRUPT_PENDING[0] = False
        self.raised_at = now
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred_interrupts():
    """Ctrl-C raises KeyboardInterrupt as usual, but never inside numba's own Python code
    (see above); outside the main thread this does nothing."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = _InterruptHandler()
    old_int = signal.signal(signal.SIGINT, handler)
    old_alarm = signal.signal(signal.SIGALRM, handler) if hasattr(signal, "SIGALRM") else None
    try:
        yield
    finally:
        if hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGINT, old_int)
        if old_alarm is not None:
            signal.signal(signal.SIGALRM, old_alarm)


def interrupted_by_user(e: BaseException) -> bool:
    """Whether ``e`` is, or was caused by, a KeyboardInterrupt (numba wraps one in a
    SystemError, itself sometimes wrapped again)."""
    seen: set[int] = set()
    cur: BaseException | None = e
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _one_line(text: str) -> str:
    return " ".join(text.split())
