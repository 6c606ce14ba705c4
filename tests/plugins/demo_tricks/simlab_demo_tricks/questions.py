"""Demo tricks balance questions as metrics (``Game.extra["metrics"]``), the hand-strength
measure behind the report's "strong hands win" check, and the decision the report checks
is sometimes taken.

May import: simlab.engine.*, polars, this package's rules.
"""

from __future__ import annotations

import polars as pl
from simlab.engine.questions import MetricDef

from simlab_demo_tricks.rules import GameKnobs

SECTION = "Demo tricks questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: GameKnobs | None,
                    level: str) -> list[MetricDef]:
    """Q1: does leading the first trick pay?  Q2: how often does the last trick decide?"""
    if level != "deal" or knobs is None:
        return []
    n = knobs.players
    scores = [pl.col(f"score_s{i}") for i in range(n)]
    leader_score = pl.lit(0)
    for i in range(n):
        leader_score = pl.when(pl.col("leader") == i).then(scores[i]).otherwise(leader_score)
    mean = pl.sum_horizontal(scores).cast(pl.Float64) / n
    top = pl.max_horizontal(scores)
    return [
        MetricDef("demo_tricks.q1.leader_edge", "first leader's points minus the table's mean",
                  SECTION, leader_score.cast(pl.Float64) - mean, kind="mean", unit="points",
                  headline=True, note="0 when leading first is neither an edge nor a burden"),
        MetricDef("demo_tricks.q1.leader_tops", "the first leader has the most points alone",
                  SECTION, (leader_score == top)
                  & (pl.sum_horizontal([(s == top).cast(pl.Int64) for s in scores]) == 1)),
        MetricDef("demo_tricks.q2.last_trick_winner_tops",
                  "the last trick's winner has the most points (alone or shared)", SECTION,
                  pl.fold(pl.lit(False), lambda acc, x: acc | x,
                          [(pl.col("last_trick") == i) & (scores[i] == top)
                           for i in range(n)])),
    ]


def hand_strength(knobs: GameKnobs, hand: list[str]) -> float:
    """Aces count 2, Kings 1: a seat's dealt hand (card labels), for the report."""
    return float(sum(2 if c.startswith("A") else 1 if c.startswith("K") else 0 for c in hand))


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """The first lead: a trump or a side suit (deals with a trump suit)."""
    if "trump_lead" not in columns:
        return []
    return [("the first leader leads a trump", pl.col("trump_lead"), pl.col("trump").is_not_null())]
