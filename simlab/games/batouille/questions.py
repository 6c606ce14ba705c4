"""La batouille: the catalogue's balance questions as metrics, and the findings that open
the report (rules in ``rules.py``, columns in ``rules.deal_columns``).

Question 1 (symmetry: seat 0's wins, draws), 3 (variance: replays per game, void tricks,
forced-tie draws) are metrics of the rows; question 2 (exploitability of the simple
players) and 5 (hand size) are exact computations (``equilibrium.py``: the game's value,
a best response's value against a fixed player) for up to 8 ranks, and duplicate play
(``simlab duel batouille --x equilibrium --y heuristic --set ranks=6``) in the runs."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.batouille.rules import BatouilleKnobs

SECTION = "La batouille questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: BatouilleKnobs | None,
                    level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"batouille.{key}", title, SECTION, expr, where, kind, **kw),
                    need))

    decided = pl.col("winner") >= 0
    if level == "deal":
        add({"winner"}, "q1.seat0_wins", "seat 0 (♠) wins the game (share of decided games)",
            pl.col("winner") == 0, decided, headline=True,
            note="50% for identical players: the game is symmetric")
        add({"winner"}, "q1.seat0_wins_all", "seat 0 (♠) wins the game (share of all games)",
            pl.col("winner") == 0)
        add({"winner"}, "q1.seat1_wins_all", "seat 1 (♥) wins the game (share of all games)",
            pl.col("winner") == 1)
        add({"draw"}, "q1.draw", "drawn games (equal tricks: with an odd number of ranks, only after a void trick)",
            pl.col("draw"), headline=True)
        add({"replays"}, "q3.replays", "tied rounds per game (replays)", pl.col("replays"),
            kind="mean", unit="ties", headline=True)
        add({"replays"}, "q3.any_tie", "games with at least one tie", pl.col("replays") > 0)
        add({"voids"}, "q3.voids", "void tricks per game", pl.col("voids"), kind="mean",
            unit="tricks")
        add({"forced_void"}, "q3.forced_void", "games ended by a forced void trick (both "
            "holding the same last card)", pl.col("forced_void"), headline=True)
        add({"forced_void", "draw"}, "q3.forced_void_draw", "forced-tie draws (a forced "
            "void trick and equal tricks)", pl.col("forced_void") & pl.col("draw"))
        add({"rounds"}, "q3.rounds", "rounds per game, ties included", pl.col("rounds"),
            kind="mean", unit="rounds")
        first = pl.col("first_trick_winner")
        add({"first_trick_winner", "winner"}, "q1.first_trick_wins", "the first trick's "
            "winner wins the game (share of decided games)", pl.col("winner") == first,
            (first >= 0) & decided)
    else:
        add({"winner"}, "q1.match.seat0_wins", "seat 0 (♠) wins the match (share of "
            "decided matches)", pl.col("winner") == 0, decided, headline=True)
        add({"drawn"}, "q1.match.drawn", "drawn matches", pl.col("drawn"), headline=True)
        add({"replays", "n_deals"}, "q3.match.replays", "tied rounds per match",
            pl.col("replays"), kind="mean", unit="ties")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Symmetry",
     "key": "batouille.q1.seat0_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "Seat 0 (♠) wins {batouille.q1.seat0_wins} of the decided games; "
             "{batouille.q1.draw} are drawn"},
    {"question": "3. Variance",
     "key": "batouille.q3.replays",
     "text": "Tied (replayed) rounds per game: {batouille.q3.replays}; "
             "{batouille.q3.forced_void} end with both players holding the same last card "
             "(a forced void trick), and {batouille.q3.forced_void_draw} are forced-tie draws"},
)
