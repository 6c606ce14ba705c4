"""Manille balance questions (catalogue "Balance questions" 1-3), moved as they were from
the single-module game: ``balance_metrics`` turns a frame of deals or matches into metrics."""

from __future__ import annotations

import polars as pl

from simlab.games.manille.rules import HAND, ManilleKnobs
from simlab.metrics import MetricDef, std_dev, team_value

# --- balance questions (catalogue "Balance questions" 1-3) --------------------------------
SECTION = "Manille questions"
# Headline metrics are rates: --precision reads their half-widths as fractions, so means
# in points or deals (margins, lengths) stay out of the headline table.
CLOSE, LOPSIDED = 5, 16  # deal margins: winner's points over half the deal


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: ManilleKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's balance questions 1-3 as metrics (section "Manille questions").

    Deal level: 1 the dealer's edge (the dealer's team keeps the turned trump card);
    2 the deal-score distribution and the 34-34 void rate, which ``simlab compare``
    sets against follow-only play. Match level: 3 match length and how often the
    "two consecutive wins" end would have come first. Questions 4-8 concern variants
    that do not exist yet. Only metrics whose columns the frame has are returned."""
    k = knobs if isinstance(knobs, ManilleKnobs) else ManilleKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"manille.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        void = pl.col("void_deal")
        decided = ~void
        # 1. dealer edge
        team = pl.col("dealer") % 2
        won = pl.col("dealer_team_won")
        add({"dealer_team_won", "void_deal"}, "q1.win.dealer_team", "deal win rate, dealer's "
            "team (decided deals)", won, decided, headline=True,
            note="50% means no edge; void (34-34) deals left out")
        add({"dealer_team_won"}, "q1.win.dealer_team.all", "deal win rate, dealer's team "
            "(all deals)", won)
        add({"dealer_team_won", "void_deal"}, "q1.win.other_team.all", "deal win rate, the "
            "other team (all deals)", decided & ~won)
        marks = {"dealer", "score_s0", "score_s1"}
        add(marks, "q1.margin", "points marked per deal, dealer's team minus the other team",
            team_value(team, "score_s0", "score_s1") - team_value(team, "score_s1", "score_s0"),
            kind="mean", unit="points")
        add({"dealer", "team_points_t0", "team_points_t1"}, "q1.margin.deal_points",
            "deal points (cards + tricks) per deal, dealer's team minus the other team",
            team_value(team, "team_points_t0", "team_points_t1")
            - team_value(team, "team_points_t1", "team_points_t0"),
            kind="mean", unit="points")
        # 2. must-overplay: distribution of deal scores and the void rate
        compare_note = ("against follow-only play: `simlab compare manille --a \"\" --b "
                        "\"must_overplay_in_suit=false\"`")
        add({"void_deal"}, "q2.void", "void deals (tie, 34-34 by default)", void,
            headline=True, note=compare_note)
        t0, t1 = pl.col("team_points_t0"), pl.col("team_points_t1")
        pts = {"team_points_t0", "team_points_t1", "void_deal"}
        over = (pl.max_horizontal(t0, t1) - (t0 + t1) / 2).cast(pl.Float64)
        add(pts, "q2.margin", "winner's points over half the deal (decided deals)", over,
            decided, kind="mean", unit="points", note=compare_note)
        add(pts, "q2.margin.sd", "winner's points over half the deal, standard deviation",
            std_dev(over, decided), decided, kind="mean", unit="points",
            note="delta-method interval")
        add(pts, "q2.close", f"close deals: the winner at most {CLOSE} points over half",
            over <= CLOSE, decided)
        add(pts, "q2.lopsided", f"lopsided deals: the winner {LOPSIDED}+ points over half",
            over >= LOPSIDED, decided)
        tricks = {f"tricks_s{i}" for i in range(4)}
        t0_tricks = pl.col("tricks_s0") + pl.col("tricks_s2")
        add(tricks, "q2.all_tricks", "one team takes all 8 tricks",
            (t0_tricks == 0) | (t0_tricks == HAND))
    else:
        done = pl.col("winner") >= 0
        end = f"the target ({k.target})" + (" or two consecutive wins"
                                             if k.two_in_a_row_end else "")
        add({"winner", "n_deals"}, "q3.length", f"deals to reach {end}", pl.col("n_deals"),
            done, kind="mean", unit="deals", note="capped matches left out")
        add({"winner", "n_deals"}, "q3.length.sd", "deals per match, standard deviation",
            std_dev(pl.col("n_deals"), done), done, kind="mean", unit="deals",
            note="delta-method interval")
        two = pl.col("two_in_a_row_first")
        add({"winner", "two_in_a_row_first"}, "q3.two_in_a_row_first", "the two-consecutive-"
            "wins end would have come first", two, done, headline=True,
            note="a team won two deals in a row (a void deal breaks the run) before either "
                 "reached the target; with two_in_a_row_end=true these matches end that way")
        add({"winner", "n_deals", "two_in_a_row_first", "two_in_a_row_deal"},
            "q3.length.two_in_a_row", "deals per match if two consecutive wins also ended it",
            pl.when(two).then(pl.col("two_in_a_row_deal")).otherwise(pl.col("n_deals")), done,
            kind="mean", unit="deals")
    return [m for m, need in out if need <= cols]


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
CARD_STRENGTH = {"10": 5, "A": 4, "K": 3, "Q": 2, "J": 1}  # the card points: manille 5 ..
HAND_STRENGTH_TEXT = "card points (10 = 5, A 4, K 3, Q 2, J 1)"


def hand_strength(knobs, hand: list[str]) -> float:
    return float(sum(CARD_STRENGTH.get(c[:-1], 0) for c in hand))
