"""What every command group shares: argument types (counts, jobs), the output width,
tables and wrapped prose, and the cluster options (``--backend``, ``--scheduler``,
``--address``)."""

from __future__ import annotations

import argparse
import math
import re
import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

from simlab.engine.knobs import SimlabError
from simlab.engine.runner import BACKENDS, check_backend

# --- argument types --------------------------------------------------------------------
MAX_JOBS = 4096


def _count(text: str) -> int:
    """Integers, also written 1_000_000, 1,000,000 or 1e6 (a comma only between groups
    of three digits: 1,5 is refused rather than read as 15)."""
    t = text.strip()
    if "," in t and not re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+", t):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r} (commas only "
                                         "between groups of three digits, e.g. 1,000,000)")
    t = t.replace("_", "").replace(",", "")
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


def _count_or_zero(text: str) -> int:
    """A count that may be 0 (0 = skip), never negative."""
    n = _count(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return n


def _positive(text: str) -> int:
    n = _count(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return n


def _jobs(text: str) -> int:
    if text.strip().lower() in ("all", "-1"):
        return -1
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an integer >= 1, or -1/all for all cores, got {text!r}") from None
    if jobs > MAX_JOBS:
        raise argparse.ArgumentTypeError(f"at most {MAX_JOBS} jobs, got {text!r} (all = every core)")
    return jobs


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


MAX_WIDTH = 100  # columns every printed line fits in (a terminal may be narrower)
MIN_TEXT_COLUMN = 12  # a wrapped text column is never narrower than this


def output_width() -> int:
    """Columns to fit: the terminal's (``COLUMNS`` when set), at most ``MAX_WIDTH``, at
    least 60; 100 when the output is not a terminal, so logs and files look the same."""

    return max(60, min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns))


def _fit(widths: list[int], wrappable: list[bool], limit: int) -> list[int]:
    """Column widths whose table fits ``limit`` columns, narrowing the widest wrappable
    (text) column one character at a time; numbers are never narrowed."""
    widths = list(widths)
    gaps = 2 * (len(widths) - 1)
    while sum(widths) + gaps > limit:
        cand = [j for j, w in enumerate(widths) if wrappable[j] and w > MIN_TEXT_COLUMN]
        if not cand:
            break
        j = max(cand, key=lambda j: widths[j])
        widths[j] -= 1
    return widths


def _wrap(text: str, width: int) -> list[str]:

    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]],
          right: Sequence[bool] | None = None, width: int | None = None,
          wrap: Sequence[bool] | None = None, details: Sequence[str] | None = None) -> str:
    """Plain aligned text table; numbers right-aligned unless ``right`` says otherwise.
    Columns that may ``wrap`` (default: the left-aligned ones) wrap onto several lines so
    every line fits ``width`` columns (default ``output_width()``). ``details``: a text
    per row, printed under it, indented and wrapped to the full width."""
    limit = output_width() if width is None else width
    cells = [[_fmt(v) for v in r] for r in rows]
    if right is None:
        right = [bool(rows) and all(isinstance(r[j], (int, float)) and not isinstance(r[j], bool)
                                    for r in rows if r[j] is not None)
                 for j in range(len(headers))]
    widths = [max([len(h)] + [len(c[j]) for c in cells]) for j, h in enumerate(headers)]
    widths = _fit(widths, [not r for r in right] if wrap is None else list(wrap), limit)

    def lines(vals: Sequence[str]) -> list[str]:
        parts = [_wrap(v, w) if len(v) > w else [v] for v, w in zip(vals, widths, strict=True)]
        out = []
        for k in range(max(len(p) for p in parts)):
            row = [(p[k] if k < len(p) else "") for p in parts]
            out.append("  ".join(v.rjust(w) if r else v.ljust(w)
                                 for v, w, r in zip(row, widths, right, strict=True)).rstrip())
        return out

    sep = "  ".join("-" * w for w in widths)
    body = []
    for i, c in enumerate(cells):
        body += lines(c)
        if details is not None and details[i]:
            body += ["    " + x for x in _wrap(details[i], limit - 4)]
    return "\n".join(lines(headers) + [sep] + body)


def _paragraph(text: str) -> str:
    """Prose wrapped to the output width."""
    return "\n".join(_wrap(text, output_width()))


def _backend_from(args: argparse.Namespace) -> tuple[str, str | None]:
    """(backend, scheduler address) of run/bench options, checked (extra installed...)."""
    backend = getattr(args, "backend", "loky")
    scheduler = getattr(args, "scheduler", None)
    address = getattr(args, "address", None)
    if scheduler is not None and backend != "dask":
        raise SimlabError(f"--scheduler is the address of a dask scheduler; it needs --backend "
                          f"dask, not {backend}" + (" (ray takes --address)" if backend == "ray"
                                                    else ""))
    if address is not None and backend != "ray":
        raise SimlabError(f"--address is the address of a ray cluster; it needs --backend ray, "
                          f"not {backend}" + (" (dask takes --scheduler)" if backend == "dask"
                                              else ""))
    where = scheduler if backend == "dask" else address
    check_backend(backend, where)
    return backend, where


# --- parser ----------------------------------------------------------------------------
def _backend_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=BACKENDS, default="loky",
                   help="where chunks run: loky = local processes (default); dask = a "
                        "dask.distributed cluster (extra simlab[dask]); ray = a Ray cluster "
                        "(extra simlab[ray])")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="dask scheduler to connect to, e.g. tcp://10.0.0.5:8786 (default with "
                        "--backend dask: start a local cluster)")
    p.add_argument("--address", metavar="ADDRESS", default=None,
                   help="ray cluster address for --backend ray (default: ray's own default)")
