"""The ``simlab`` command line: list, params, run, demo, bench.

Errors (bad game, knob, value, variant file, option) print one line
``simlab: error: <message>`` on stderr and exit with status 2, before anything is written.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import polars as pl

from simlab.games import game_names, get_game
from simlab.games.base import Game
from simlab.knobs import SimlabError, parse_assignments
from simlab.runner import (
    LEVELS,
    Plan,
    cpu_count,
    execute,
    execute_to_parquet,
    plan,
    simulate,
    wilson,
)

DEMO_OUT = Path("out/demo-belote.parquet")


class _UsageError(Exception):
    """argparse usage error, reported like a SimlabError."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


_FORMATTER = argparse.RawDescriptionHelpFormatter


# --- argument types --------------------------------------------------------------------
def _count(text: str) -> int:
    """Integers, also written 1_000_000, 1,000,000 or 1e6."""
    t = text.strip().replace("_", "").replace(",", "")
    try:
        return int(t)
    except ValueError:
        pass
    try:
        f = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not math.isfinite(f) or not f.is_integer():
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(f)


def _jobs(text: str) -> int:
    if text.strip().lower() in ("all", "-1"):
        return -1
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer >= 1, or -1/all for all cores, got {text!r}") from None


# --- tables ----------------------------------------------------------------------------
def _literal(v: Any) -> str:
    """A knob value as the user would type it (``true``, ``1001``, ``carry_over``)."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:,.4f}" if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
          right: Sequence[bool] | None = None) -> str:
    """Plain aligned text table; numbers right-aligned unless ``right`` says otherwise."""
    cells = [[_fmt(v) for v in r] for r in rows]
    if right is None:
        right = [bool(rows) and all(isinstance(r[j], (int, float)) and not isinstance(r[j], bool)
                                    for r in rows if r[j] is not None)
                 for j in range(len(headers))]
    widths = [max([len(h)] + [len(c[j]) for c in cells]) for j, h in enumerate(headers)]

    def line(vals: Sequence[str]) -> str:
        out = [v.rjust(w) if r else v.ljust(w) for v, w, r in zip(vals, widths, right,
                                                                  strict=True)]
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep] + [line(c) for c in cells])


def _pct_row(label: str, k: int, n: int) -> list[Any]:
    lo, hi = wilson(k, n)
    share = k / n if n else math.nan
    return [label, _pct(share), f"[{_pct(lo)}, {_pct(hi)}]", n]


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{100 * x:.2f}%"


def _mean_row(label: str, mean: float | None, std: float | None, n: int) -> list[Any]:
    if mean is None:
        return [label, "-", "-", n]
    half = 1.96 * std / math.sqrt(n) if std is not None and n > 1 else math.nan
    ci = "-" if math.isnan(half) else f"[{mean - half:.3f}, {mean + half:.3f}]"
    return [label, f"{mean:.3f}", ci, n]


# --- summaries -------------------------------------------------------------------------
def _bool_rate(lf: pl.LazyFrame, col: str, where: pl.Expr | None) -> tuple[int, int]:
    """(true count, non-null count) of a boolean column, optionally among ``where`` rows."""
    c = pl.col(col).cast(pl.Boolean)
    if where is not None:
        c = pl.when(where).then(c)
    k, n = lf.select(c.sum().alias("k"), c.count().alias("n")).collect().row(0)
    return int(k or 0), int(n or 0)


def run_summary(lf: pl.LazyFrame, level: str, n_players: int, seconds: float) -> str:
    """Deal level: the demo's rates and per-seat / per-dealer-position mean scores;
    match level: each team's (or seat's) match win rate and the mean match length. Every
    figure carries its sample size and a 95% interval."""
    if level == "deal":
        return deal_summary(lf, n_players, seconds)
    schema = lf.collect_schema()
    rows = lf.select(pl.len()).collect().item()
    lines = [f"{rows:,} matches in {seconds:.2f} s = {rows / seconds:,.0f} matches/s"]
    rates: list[list[Any]] = []
    if "winner" in schema:
        winners = lf.select(pl.col("winner").value_counts(sort=True)).collect().unnest("winner")
        for w, k in sorted(winners.iter_rows()):
            label = "no winner (capped)" if w < 0 else f"winner = {w}"
            rates.append(_pct_row(label, int(k), rows))
        lines += ["", table(["match result", "share", "95% Wilson", "n"], rates,
                            right=[False, True, True, True])]
    if "n_deals" in schema:
        m, sd = lf.select(pl.col("n_deals").cast(pl.Float64).mean().alias("mean"),
                          pl.col("n_deals").cast(pl.Float64).std().alias("sd")).collect().row(0)
        lines += ["", table(["match length", "mean", "95% CI", "n"],
                            [_mean_row("deals per match", m, sd, rows)],
                            right=[False, True, True, True])]
    return "\n".join(lines)


def deal_summary(lf: pl.LazyFrame, n_players: int, seconds: float) -> str:
    schema = lf.collect_schema()
    rows = lf.select(pl.len()).collect().item()
    lines = [f"{rows:,} deals in {seconds:.2f} s = {rows / seconds:,.0f} deals/s"]
    rates: list[list[Any]] = []
    has_taker = "taker" in schema
    taken = pl.col("taker") >= 0 if has_taker else None
    if has_taker:
        k, n = lf.select(taken.sum(), pl.len()).collect().row(0)
        rates.append(_pct_row("taker (someone takes)", int(k), int(n)))
    if "made" in schema:
        k, n = _bool_rate(lf, "made", taken)
        rates.append(_pct_row("taker success (made | taken)", k, n))
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
        stats = lf.select([pl.col(c).cast(pl.Float64).mean().alias(f"m{c}") for c in seats]
                          + [pl.col(c).cast(pl.Float64).std().alias(f"s{c}") for c in seats]
                          ).collect().row(0, named=True)
        means = [_mean_row(f"seat {p}", stats[f"m{c}"], stats[f"s{c}"], rows)
                 for p, c in enumerate(seats)]
        if "dealer" in schema:
            dealer = pl.col("dealer")
        else:  # deal i is dealt by seat i mod players
            dealer = pl.int_range(pl.len()) % n_players
        rel = []
        for k in range(n_players):
            expr = pl.lit(None, dtype=pl.Float64)
            for p in range(n_players):
                expr = pl.when((dealer + k) % n_players == p).then(
                    pl.col(seats[p]).cast(pl.Float64)).otherwise(expr)
            rel += [expr.mean().alias(f"m{k}"), expr.std().alias(f"s{k}")]
        rs = lf.select(rel).collect().row(0, named=True)
        name = ["dealer"] + [f"dealer+{k}" for k in range(1, n_players)]
        means += [_mean_row(name[k], rs[f"m{k}"], rs[f"s{k}"], rows) for k in range(n_players)]
        lines += ["", table(["mean score per deal", "mean", "95% CI", "n"], means,
                            right=[False, True, True, True])]
    return "\n".join(lines)


# --- subcommands -----------------------------------------------------------------------
def _load(slug: str) -> Game | str:
    """The game, or a one-line reason it cannot be loaded (module not written yet...)."""
    try:
        return get_game(slug)
    except SimlabError:
        raise
    except (ImportError, AttributeError) as e:
        return f"unavailable ({type(e).__name__}: {e})"


def cmd_list(args: argparse.Namespace) -> int:
    rows = []
    for slug in game_names():
        g = _load(slug)
        if isinstance(g, str):
            rows.append([slug, "?", g])
        else:
            rows.append([g.slug, g.players_text or "?", g.description])
    print(table(["game", "players", "description"], rows, right=[False, False, False]))
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    g = get_game(args.game)
    rows = []
    for d in g.knobs.describe():
        meaning = d["help"]
        if d["seed_value"] is not None:
            meaning += f" [seed text: {_literal(d['seed_value'])}]"
        rows.append([d["name"], "policy" if d["policy"] else "rule", _literal(d["default"]),
                     d["allowed"], meaning])
    print(f"{g.title} ({g.slug}): {len(rows)} knobs; set with --set name=value or a TOML "
          "variant file.")
    print("kind 'policy' = knob of the heuristic players, not of the rules; [seed text: ...] "
          "= the seed's literal value where the default resolves it.\n")
    print(table(["knob", "kind", "default", "allowed", "meaning"], rows,
                right=[False, False, True, False, False]))
    print(f"\npolicies: {', '.join(g.policies)}")
    return 0


def _plan_from(args: argparse.Namespace) -> Plan:
    return plan(args.game, args.n, seed=args.seed, params=parse_assignments(args.set),
                variant=args.variant, policies=args.policy, jobs=args.jobs, level=args.level,
                chunk_size=args.chunk_size, record_hands=args.record_hands,
                progress=False if args.no_progress else None)


def cmd_run(args: argparse.Namespace) -> int:
    p = _plan_from(args)
    t0 = time.perf_counter()
    if args.out is not None:
        out = execute_to_parquet(p, args.out)
        seconds = time.perf_counter() - t0
        lf = pl.scan_parquet(out)
    else:
        frame = execute(p)
        seconds = time.perf_counter() - t0
        lf = frame.lazy()
    changed = p.knobs.changed()
    print(f"{p.game.slug}: {p.n:,} {p.unit}, seed {p.seed}, policies {','.join(p.policies)}, "
          f"jobs {p.jobs}, chunk {p.chunk_size:,}"
          + (f", knobs {changed}" if changed else ""))
    print(run_summary(lf, p.level, p.game.players(p.knobs), seconds))
    if args.out is not None:
        print(f"wrote {args.out}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from simlab.report import write_report

    p = plan("belote", args.n, seed=0, policies="heuristic", jobs=-1, level="deal",
             progress=False if args.no_progress else None)
    out = Path(args.out)
    print(f"demo: Belote, {p.n:,} deals, seed 0, heuristic players, {p.jobs} cores "
          f"-> {out}")
    t0 = time.perf_counter()
    execute_to_parquet(p, out)
    seconds = time.perf_counter() - t0
    print(deal_summary(pl.scan_parquet(out), p.game.players(p.knobs), seconds))
    print(f"\nwrote {out}; explore it with polars: pl.read_parquet({str(out)!r})")
    report_dir = out.parent / "demo-report"
    write_report(report_dir, game=p.game, plan=p, frame=pl.read_parquet(out), seconds=seconds,
                 title="simlab demo: classic Belote, seed rules, heuristic players")
    print(f"report: {report_dir / 'report.html'} (and report.md, figures/)")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
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
    rows = []
    for s in slugs:
        g = _load(s)
        if isinstance(g, str):
            rows.append([s, "-", "-", "-", "-", g])
            continue
        simulate(s, 2_000, jobs=1, progress=False)  # compile / load numba cache
        base = None
        for j in jobs_list:
            if j != 1:  # start the worker pool (loky reuses it) before timing
                simulate(s, 2_000 * cores, jobs=j, chunk_size=2_000, progress=False)
            t0 = time.perf_counter()
            simulate(s, args.n, jobs=j, progress=False)
            rate = args.n / (time.perf_counter() - t0)
            base = rate if base is None else base
            workers = cores if j == -1 else j
            rows.append([s, workers, args.n, round(rate), f"x{rate / base:.2f}", ""])
    print(table(["game", "jobs", "deals", "deals/s", "speedup", "note"], rows,
                right=[False, True, True, True, True, False]))
    return 0


# --- parser ----------------------------------------------------------------------------
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

    p = sub.add_parser(
        "run", help="simulate deals or matches; summary, optionally Parquet output",
        formatter_class=_FORMATTER,
        description="Simulate N deals (or matches) of GAME and print a summary; with --out, "
                    "also write every row to Parquet with provenance metadata. Rows are "
                    "identical for any --jobs / --chunk-size.",
        epilog="examples:\n"
               "  simlab run belote -n 100000 --seed 1\n"
               "  simlab run belote -n 1e6 --jobs all --out out/belote.parquet\n"
               "  simlab run belote -n 1e5 --set queen_points=5 --set litige=lost\n"
               "  simlab run belote -n 1e5 --variant my-variant.toml --policy random\n"
               "  simlab run belote -n 1e5 --policy heuristic,random,heuristic,random\n"
               "  simlab run belote -n 10000 --level match --out matches.parquet\n"
               "  simlab run belote -n 1000 --record-hands --out hands.parquet\n"
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
                   help="heuristic | random, or one per seat comma separated "
                        "(default heuristic)")
    p.add_argument("--jobs", type=_jobs, default=1, metavar="J",
                   help="worker processes; -1 or 'all' = every core (default 1)")
    p.add_argument("--chunk-size", type=_count, default=None, metavar="C",
                   help="deals (matches) per chunk; bounds memory (default 100000 deals / "
                        "5000 matches, smaller with several jobs)")
    p.add_argument("--level", choices=LEVELS, default="deal",
                   help="one row per deal (default) or per match")
    p.add_argument("--out", type=Path, metavar="FILE.parquet",
                   help="write the rows here (default: summary only)")
    p.add_argument("--record-hands", action="store_true",
                   help="add the dealt cards and final hands of every seat (deal level)")
    p.add_argument("--no-progress", action="store_true", help="never show the progress line")
    p.set_defaults(func=cmd_run)

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
        "bench", help="deals/s per game on 1 core and on all cores",
        formatter_class=_FORMATTER,
        description="After a warm-up, time full runs (kernel + polars frame) of each game "
                    "for each --jobs-list entry and print deals/s.",
        epilog="examples:\n  simlab bench\n  simlab bench --games belote -n 500000 "
               "--jobs-list 1,2,all")
    p.add_argument("--games", metavar="G1,G2", default=None,
                   help="comma-separated games (default: all)")
    p.add_argument("-n", type=_count, default=500_000, metavar="N",
                   help="deals per timing (default 500,000)")
    p.add_argument("--jobs-list", default="1,all", metavar="J1,J2",
                   help="worker counts to time; 'all' = every core (default 1,all)")
    p.set_defaults(func=cmd_bench)

    from simlab.cli_analysis import add_commands

    add_commands(sub, _FORMATTER)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command is None:
            parser.print_help()
            return 2
        if args.command in ("run", "demo", "bench") and getattr(args, "n", 1) < 1:
            raise SimlabError(f"-n must be >= 1, got {args.n}")
        return int(args.func(args) or 0)
    except SystemExit as e:  # --help, --version
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    except (SimlabError, _UsageError) as e:
        print(f"simlab: error: {_one_line(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("simlab: interrupted", file=sys.stderr)
        return 130


def _one_line(text: str) -> str:
    return " ".join(text.split())
