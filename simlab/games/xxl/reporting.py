"""Report helpers every XXL game's ``questions.py`` shares: the metric list (a metric is
kept only where the frame has the columns it needs), the colouring paragraph each report
opens with, and the colouring ranges (cached per knobs: they replay thousands of games).

May import: the engine; ``simlab.games.xxl``.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.xxl.sensitivity import DEFAULT_K, colouring_range, range_text


class MetricList:
    """Metrics of one game's section, each with the columns it needs."""

    def __init__(self, prefix: str, section: str) -> None:
        self.prefix = prefix
        self.section = section
        self._rows: list[tuple[MetricDef, set[str]]] = []

    def add(self, need: set[str], key: str, title: str, expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        self._rows.append((MetricDef(f"{self.prefix}.{key}", title, self.section, expr, where,
                                     kind, **kw), need))

    def kept(self, cols: set[str]) -> list[MetricDef]:
        """The metrics whose columns are all in ``cols``, in the order they were added."""
        return [m for m, need in self._rows if need <= cols]


def cached_ranges(cache: dict, knobs, game,
                  compute: Callable[[object, object], list[tuple[str, str]]]
                  ) -> list[tuple[str, str]]:
    """``compute(knobs, game)`` once per knobs (a Game holds dicts: it cannot key a cache)."""
    if knobs not in cache:
        cache[knobs] = compute(knobs, game)
    return cache[knobs]


def colouring_paragraph(knobs, colour_free: str) -> tuple[str, str]:
    """The paragraph every XXL report opens with: the colouring used and what does not
    depend on it (``colour_free``)."""
    return ("0. Deck colouring", range_text(DEFAULT_K, knobs.deck_colouring)
            + " Colour-free here: " + colour_free)


def went_out_range(game, knobs) -> tuple[str, str]:
    """Question 6 (À moins, Montées et descentes): games ended by a player going out."""
    r = colouring_range(game, knobs, lambda f: (f["end"] == "out").mean(), n=3000)
    return ("6. Deck sensitivity", "Games ended by a player going out: " + r.text("{:.1%}")
            + " (3,000 heuristic games each, the same deals)")


def starter_wins_range(game, knobs) -> tuple[str, str]:
    """Question 6 (À moins, Montées et descentes): the starter wins (sole winners)."""
    r = colouring_range(game, knobs, lambda f: (f["winner"] == f["starter"]).sum()
                        / max(1, (f["winner"] >= 0).sum()), n=3000)
    return ("6. Deck sensitivity", "The starter wins (games with a sole winner): "
            + r.text("{:.1%}"))
