"""Loba balance questions (catalogue "Balance questions"), read from the result columns of
``kernels.py``; the decision kinds of the players' health checks; a hand-strength measure.

May import: simlab.engine.*, simlab.games.loba.rules."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.loba.rules import LobaKnobs, parse_requirements

SECTION = "Loba questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: LobaKnobs | None,
                    level: str) -> list[MetricDef]:
    """Questions 1 (who goes out, by position from the dealer; penalty by position), 2
    (round length by requirement: which round is hardest), 3 (penalty per round; rounds
    that decide a match), 4 (discard-pile draws), 6 (stock exhaustion per round).
    Question 5 (Joker limit, multicolour runs) is a comparison of runs with those knobs."""
    k = knobs if isinstance(knobs, LobaKnobs) else LobaKnobs()
    P = k.players
    R = len(parse_requirements(k.requirements))
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"loba.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        done = pl.col("went_out") >= 0
        for j in range(1, P + 1):
            name = "dealer" if j == P else f"dealer+{j}"
            add({"went_out", "dealer"}, f"q1.out_pos.{j % P}", f"{name} goes out (share of "
                "rounds someone goes out)", pl.col("went_out") == (pl.col("dealer") + j) % P,
                done, headline=j == 1)
        reqs = parse_requirements(k.requirements)
        for r in range(1, R + 1):
            s, q = reqs[r - 1]
            label = f"round {r} ({s} set{'s' if s != 1 else ''} + {q} run{'s' if q != 1 else ''})"
            at = pl.col("round") == r
            add({"turns", "round"}, f"q2.turns.r{r}", f"turns, {label}", pl.col("turns"), at,
                kind="mean", unit="turns", headline=True)
            pen = pl.sum_horizontal([pl.col(f"score_s{i}") for i in range(P)])
            add({"round"} | {f"score_s{i}" for i in range(P)}, f"q3.penalty.r{r}",
                f"total penalty of the round, {label}", pen, at, kind="mean", unit="points")
            add({"ended", "round"}, f"q6.stock.r{r}", f"stock exhausted and not refilled, "
                f"{label}", pl.col("ended") == "stock", at)
            add({"reshuffles", "round"}, f"q6.reshuffle.r{r}", f"the discard pile became the "
                f"stock, {label}", pl.col("reshuffles") > 0, at)
        add({"discard_draws", "turns"}, "q4.discard_share", "share of draws from the discard "
            "pile", pl.col("discard_draws") / pl.col("turns").clip(1, None), kind="mean",
            choice=True)
        add({"ended"}, "capped", "rounds stopped by the turn cap", pl.col("ended") == "cap",
            headline=True)
    else:
        add({"n_winners"}, "shared_win", "matches with a shared win", pl.col("n_winners") > 1)
        add({"deciding_rounds"}, "q3.one_round", "a single round's penalties decide the "
            "winner (removing one round changes who has the lowest total), in at least one "
            "round", pl.col("deciding_rounds") > 0, headline=True)
        add({"deciding_rounds"}, "q3.deciding", "rounds whose removal changes the winner",
            pl.col("deciding_rounds"), kind="mean", unit="rounds")
        for r in range(1, R + 1):
            add({f"turns_r{r}"}, f"q2.match_turns.r{r}", f"turns of round {r} in a match",
                pl.col(f"turns_r{r}"), kind="mean", unit="turns")
    return [m for m, need in out if need <= cols]


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """The decision kinds: the draw (discard pile or stock), the lay-offs on another
    player's meld, the Joker shift, new melds after the first, the Joker lay-off."""
    if "discard_draws" not in columns:
        return []
    return [("draws the discard pile's top card, at least once a round",
             pl.col("discard_draws") > 0, pl.col("turns") > 0),
            ("draws from the stock, at least once a round",
             pl.col("discard_draws") < pl.col("turns"), pl.col("turns") > 0),
            ("lays off on a meld another player laid (rounds with lay-offs)",
             pl.col("others_layoffs") > 0, pl.col("layoffs") > 0),
            ("shifts a Joker along a run (rounds with lay-offs)",
             pl.col("joker_shifts") > 0, pl.col("layoffs") > 0),
            ("lays a new set or run after the first meld (rounds with lay-offs)",
             pl.col("new_melds") > 0, pl.col("layoffs") > 0)]


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------------
HAND_STRENGTH_TEXT = "meld material (Joker 3, each equal-rank pair 1, each suit neighbour 1)"
_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def hand_strength(knobs, hand: list[str]) -> float:
    from collections import Counter

    jokers = sum(c == "Joker" for c in hand)
    cards = [(c[:-1], c[-1]) for c in hand if c != "Joker"]
    by_rank = Counter(r for r, _ in cards)
    pairs = sum(n * (n - 1) // 2 for n in by_rank.values())
    held = set(cards)
    neighbours = sum(1 for r, s in held
                     if _RANKS.index(r) + 1 < len(_RANKS)
                     and (_RANKS[_RANKS.index(r) + 1], s) in held)
    return float(3 * jokers + pairs + neighbours)
