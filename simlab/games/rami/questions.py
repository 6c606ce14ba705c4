"""Rami balance questions (catalogue "Balance questions"), read from the result columns
of ``kernels.py``."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.rami.rules import RamiKnobs

SECTION = "Rami questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: RamiKnobs | None,
                    level: str) -> list[MetricDef]:
    """Catalogue questions 1 (who goes out, by position from the dealer), 2 (deal length,
    first opening), 3 (Rami rate) and 6 (match length, last-3-deals lead changes).
    Scores are penalties here: lower is better (the standard "win rate" metrics, which
    read the highest score as the winner, do not apply to Rami; use these)."""
    k = knobs if isinstance(knobs, RamiKnobs) else RamiKnobs()
    P = k.players
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"rami.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        done = pl.col("went_out") >= 0
        for j in range(1, P + 1):
            name = "dealer" if j == P else f"dealer+{j}"
            add({"went_out", "dealer"}, f"q1.out_pos.{j % P}", f"{name} goes out (share of "
                "deals that end)", pl.col("went_out") == (pl.col("dealer") + j) % P, done,
                headline=j == 1)
        add({"turns"}, "q2.turns", "turns per deal (all players)", pl.col("turns"),
            kind="mean", unit="turns")
        opens = [pl.when(pl.col(f"open_turn_s{i}") >= 0).then(pl.col(f"open_turn_s{i}"))
                 for i in range(P)]
        first = pl.min_horizontal(opens)
        add({f"open_turn_s{i}" for i in range(P)}, "q2.first_open_turn", "deal turn of the "
            "first opening", first, first.is_not_null(), kind="mean", unit="turns")
        add({"rami"}, "q3.rami", "deals ended by a Rami", pl.col("rami"), headline=True)
        add({"capped"}, "capped", "deals stopped by the turn cap", pl.col("capped"),
            headline=True)
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q6.length", "deals to reach the target", pl.col("n_deals"),
            done, kind="mean", unit="deals")
        known = done & (pl.col("leader_3_before") >= 0)
        add({"winner", "leader_3_before"}, "q6.late_change", "the winner was not the leader "
            "3 deals before the end", pl.col("winner") != pl.col("leader_3_before"), known,
            headline=True)
    return [m for m, need in out if need <= cols]


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# Meld material: a Joker 3, each pair of equal ranks 1, each pair of suit neighbours 1.
HAND_STRENGTH_TEXT = "meld material (Joker 3, each equal-rank pair 1, each suit neighbour 1)"
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def hand_strength(knobs, hand: list[str]) -> float:
    from collections import Counter

    jokers = sum(c == "Joker" for c in hand)
    cards = [(c[:-1], c[-1]) for c in hand if c != "Joker"]
    by_rank = Counter(r for r, _ in cards)
    pairs = sum(k * (k - 1) // 2 for k in by_rank.values())
    held = set(cards)
    neighbours = sum(1 for r, s in held
                     if _RANKS.index(r) + 1 < len(_RANKS) and (_RANKS[_RANKS.index(r) + 1], s) in held)
    return float(3 * jokers + pairs + neighbours)
