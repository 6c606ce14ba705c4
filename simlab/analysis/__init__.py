"""Analysis: from rows to figures a reader can trust.

Exact sums that add up over any split of the rows
(``sums``), the metrics every game gets and its balance questions evaluated (``metrics``),
variant comparisons and sweeps on the same deals (``compare``), players' health and skill
checks (``decisions``, ``players_check``), the report's sums, figures and pages
(``report_sums``, ``plots``, ``report``), and questions asked of a run's rows
(``queries``: how often an expression holds, runs to a target precision).

May import: players, games, mechanics and the engine — never the command line.
"""

from __future__ import annotations

# ``simlab.analysis`` was one module until issue 35: its names stay importable from here
# for one release (``from simlab.analysis import how_often``).
_MOVED = ("parse_expr", "rows_needed", "check_labels", "how_often", "how_often_run",
          "PrecisionRun", "run_to_precision", "report_to_precision")


def __getattr__(name: str):
    if name in _MOVED:
        from simlab.analysis import queries

        return getattr(queries, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
