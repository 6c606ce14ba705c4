"""Frappe: the catalogue's balance questions as metrics, and the findings that open the
report (the rules are in ``rules.py``, the result columns in ``kernels.py``)."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.frappe.rules import SOURCES, FrappeKnobs

SECTION = "Frappe questions"
SOURCE_TEXT = {"cards": "the card difference", "announce": "announcements",
               "strike": "frappes and contre-frappes", "sweep": "nettoyages (sweeps)",
               "en_place": "cards en place", "extension": "the extension"}


def by_dealer(name: str, dealer: bool) -> pl.Expr:
    """The dealer's (or the non-dealer's) value of the per-seat column ``name``."""
    d = pl.col("dealer")
    seat0 = (d == 0) if dealer else (d == 1)
    return pl.when(seat0).then(pl.col(f"{name}_s0")).otherwise(pl.col(f"{name}_s1"))


def dealer_edge(n: int = 2) -> pl.Expr:
    """Per deal, the dealer's points minus the non-dealer's (question 1; the paired
    expression of question 5's findings)."""
    return (by_dealer("score", True) - by_dealer("score", False)).cast(pl.Float64)


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: FrappeKnobs | None,
                    level: str) -> list[MetricDef]:
    """Catalogue questions. Deal level: 1 the dealer's points minus the non-dealer's, and
    each one's points; 3 points by source (mean per deal and share of all points); 4
    contre-frappes and pénitences per deal; 5 the extension (round turned, its points).
    Match level: 2 deals to reach the target, the target reached during play rather than
    by the card count, matches ended by a pénitence. Question 6 (greedy vs lookahead) is
    the report's Players section (search vs heuristic in duplicate play)."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"frappe.{key}", title, SECTION, expr, where, kind, **kw), need))

    seat = {"score_s0", "score_s1", "dealer"}
    if level == "deal":
        add(seat, "q1.dealer_edge", "dealer's points minus the non-dealer's, per deal",
            dealer_edge(), kind="mean", unit="points",
            note="the dealer has the extension and plays second; the non-dealer plays first "
                 "and wins tied announcements")
        add(seat, "q1.dealer_points", "dealer's points per deal",
            by_dealer("score", True), kind="mean", unit="points")
        add(seat, "q1.nondealer_points", "non-dealer's points per deal",
            by_dealer("score", False), kind="mean", unit="points")
        add(seat, "q1.dealer_wins", "the dealer marks more points than the non-dealer "
            "(share of deals)", dealer_edge() > 0, headline=True)
        total = sum(pl.col(f"pts_{s}_s0") + pl.col(f"pts_{s}_s1") for s in SOURCES)
        need_all = {f"pts_{s}_s{i}" for s in SOURCES for i in range(2)}
        for s in SOURCES:
            both = pl.col(f"pts_{s}_s0") + pl.col(f"pts_{s}_s1")
            need = {f"pts_{s}_s0", f"pts_{s}_s1"}
            add(need, f"q3.points.{s}", f"points per deal from {SOURCE_TEXT[s]} (both seats)",
                both, kind="mean", unit="points")
            add(need_all, f"q3.share.{s}", f"share of all points from {SOURCE_TEXT[s]}",
                ratio_of_sums(both.cast(pl.Float64), total.cast(pl.Float64), pl.lit(True)),
                kind="mean", unit="share", headline=s in ("cards", "strike"),
                note="pooled over deals, Fieller's interval, its upper end on the log scale")
        counters = pl.col("counter_strikes_s0") + pl.col("counter_strikes_s1")
        need = {"counter_strikes_s0", "counter_strikes_s1"}
        add(need, "q4.counter_any", "deals with a contre-frappe", counters > 0, headline=True)
        add(need, "q4.counters", "contre-frappes per deal", counters, kind="mean",
            unit="contre-frappes")
        strikes = pl.col("strikes_s0") + pl.col("strikes_s1")
        add({"strikes_s0", "strikes_s1"}, "q4.strikes", "frappes that stood, per deal",
            strikes, kind="mean", unit="frappes")
        add({"penitence"}, "q4.penitence", "deals ended by a pénitence (a match won at once)",
            pl.col("penitence") >= 0, headline=True)
        sweeps = pl.col("sweeps_s0") + pl.col("sweeps_s1")
        add({"sweeps_s0", "sweeps_s1"}, "q3.sweeps", "nettoyages per deal", sweeps,
            kind="mean", unit="sweeps")
        turned = pl.col("ext_round") > 0
        add({"ext_round"}, "q5.ext_round", "round the extension is turned in (1-8)",
            pl.col("ext_round"), turned, kind="mean", unit="round", choice=True)
        add({"ext_round"}, "q5.ext_first", "the extension is turned in round 1",
            pl.col("ext_round") == 1, turned, choice=True)
        add({"ext_round"}, "q5.ext_last", "the extension is turned in round 8",
            pl.col("ext_round") == 8, turned, choice=True)
        add({"ext_position_points", "ext_multiple_points", "ext_round"}, "q5.ext_points",
            "extension points per deal (positions + multiples)",
            pl.col("ext_position_points") + pl.col("ext_multiple_points"), turned,
            kind="mean", unit="points")
        add({"ext_multiple_points", "ext_round"}, "q5.ext_multiples",
            "extension points for multiples with the table", pl.col("ext_multiple_points"),
            turned, kind="mean", unit="points")
        add({"declined_s0", "declined_s1"}, "decline", "deals with a capture declined to "
            "play en place", (pl.col("declined_s0") + pl.col("declined_s1")) > 0, choice=True)
    else:
        won = pl.col("winner") >= 0
        add({"n_deals", "winner"}, "q2.deals", "deals (manches) to reach the target",
            pl.col("n_deals"), won, kind="mean", unit="deals")
        for k in (2, 3, 4):
            add({"n_deals", "winner"}, f"q2.within.{k}", f"matches over within {k} deals",
                pl.col("n_deals") <= k, won)
        add({"mid_deal"}, "q2.mid_deal", "the target is reached during play, before the "
            "last deal's card count (share of matches won on points)", pl.col("mid_deal"),
            pl.col("mid_deal").is_not_null(), headline=True)
        add({"by_penitence"}, "q4.match_penitence", "matches ended by a pénitence",
            pl.col("by_penitence"), headline=True)
        if "reach_source" in cols:
            for s in SOURCES:
                add({"reach_source"}, f"q2.reach.{s}", f"the target is reached by "
                    f"{SOURCE_TEXT[s]} (share of matches won on points)",
                    pl.col("reach_source").cast(pl.String) == s,
                    pl.col("reach_source").is_not_null())
        # 1 over a match: the first dealer's points margin beside his match win rate
        first = pl.col("first_dealer") == 0
        margin = pl.col("final_score_s0") - pl.col("final_score_s1")
        add({"first_dealer", "winner", "final_score_s0", "final_score_s1"}, "q1.match_margin",
            "first dealer's final score minus the other's, per match",
            pl.when(first).then(margin).otherwise(-margin), won, kind="mean", unit="points",
            note="finished matches; a pénitence ends a match at once, with the scores "
                 "reached then")
        add({"capped"}, "capped", "matches stopped by the safety cap", pl.col("capped"))
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
FINDINGS = (
    {"question": "1. Dealer vs non-dealer",
     "key": "frappe.q1.dealer_edge", "against": 0.0, "against_text": "no edge",
     "text": "The dealer marks {frappe.q1.dealer_points} per deal and the non-dealer "
             "{frappe.q1.nondealer_points}: the dealer's edge is {frappe.q1.dealer_edge}"},
    {"question": "1. Dealer vs non-dealer, over a match",
     "key": "match.win_pos.0", "against": 0.5, "against_text": "an even 50%",
     "text": "The seat that deals first wins {match.win_pos.0} of matches (dealers "
             "alternate); its final score minus the other's is {frappe.q1.match_margin} "
             "per match"},
    {"question": "2. Length of a match",
     "key": "frappe.q2.deals",
     "text": "A match to the target takes {frappe.q2.deals}; {frappe.q2.within.3} of "
             "matches are over within 3 deals"},
    {"question": "2. Reaching the target mid-deal",
     "key": "frappe.q2.mid_deal",
     "text": "The target is reached during play, before the last deal's card count, in "
             "{frappe.q2.mid_deal} of matches won on points"},
    {"question": "3. Where the points come from",
     "key": "frappe.q3.share.cards",
     "text": "Shares of all points: card difference {frappe.q3.share.cards}, frappes and "
             "contre-frappes {frappe.q3.share.strike}, announcements "
             "{frappe.q3.share.announce}, sweeps {frappe.q3.share.sweep}, en place "
             "{frappe.q3.share.en_place}, extension {frappe.q3.share.extension}"},
    {"question": "4. Contre-frappes and pénitences",
     "key": "frappe.q4.counter_any",
     "text": "A contre-frappe happens in {frappe.q4.counter_any} of deals "
             "({frappe.q4.counters}); a pénitence ends {frappe.q4.penitence} of deals"},
    {"question": "5. Extension timing (vs always round 1)",
     "key": "frappe.q1.dealer_edge", "control": {"extension_timing": "first"},
     "paired": dealer_edge, "difference": "this run's timing minus always round 1",
     "text": "With this run's extension timing the dealer's edge is {value}; turning it "
             "always in round 1 gives {control}"},
    {"question": "5. Extension timing (vs a random round)",
     "key": "frappe.q1.dealer_edge", "control": {"extension_timing": "random"},
     "paired": dealer_edge, "difference": "this run's timing minus a random round",
     "text": "With this run's extension timing the dealer's edge is {value}; a uniformly "
             "random round gives {control}"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
HAND_STRENGTH_TEXT = ("announcement value of the 8 dealt 3-card hands (pair K 4, Q 3, J 2, "
                      "other 1; brelan x3) plus 1/4 per A, 2, 3 or 4")
_PAIR_VALUE = {"K": 4, "Q": 3, "J": 2}
_LOW = {"A", "2", "3", "4"}


def hand_strength(knobs, hand: list[str]) -> float:
    """Over the dealt cards in dealing order (rounds of 3): each round's announcement
    value (points marked directly), plus a quarter point per card that may score en place
    (a least-squares fit of a seat's points on these, 8,000 heuristic deals, gave 1.5 per
    announcement point and 0.37 per low card; face cards, exposed to frappes, gave
    nothing)."""
    from collections import Counter

    total = 0.0
    for i in range(0, len(hand), 3):
        for r, k in Counter(c[:-1] for c in hand[i:i + 3]).items():
            if k >= 2:
                total += _PAIR_VALUE.get(r, 1) * (3 if k == 3 else 1)
    return total + 0.25 * sum(1 for c in hand if c[:-1] in _LOW)
