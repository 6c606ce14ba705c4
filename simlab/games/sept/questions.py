"""Sept balance questions (catalogue "Balance questions" 1-4): ``balance_metrics`` turns a
frame of deals or matches into metrics, ``FINDINGS`` opens the report with one sentence
per question. Question 5 (the skill gap between a greedy and a card-counting lookahead
bot) is the report's Players section: the duplicate duel of the search player against
the heuristic (``simlab duel sept``)."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums, std_dev
from simlab.games.sept.rules import OUTCOMES, SeptKnobs

SECTION = "Sept questions"
MAX_WILDS_ASKED = 3  # P(win | k sevens) for k = 0..3; four 7s in 4 cards is 1 deal in 1,000


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: SeptKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's balance questions as metrics (section "Sept questions").

    Deal level: 1 the first leader's (non-dealer's) edge — under "the loser deals" the
    last deal's winner leads, so this edge is what could make winners snowball; 2 the
    distribution of deal results (1 / 2 / 3 points); 4 the value of holding 7s, P(win the
    deal | k 7s among the first cards). Match level: 1 snowballing measured directly,
    P(win the next deal | won this one); 3 match length. Only metrics whose columns the
    frame has are returned."""
    k = knobs if isinstance(knobs, SeptKnobs) else SeptKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"sept.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        decided = pl.col("winner") >= 0
        # 1. the first leader's edge
        add({"leader_won"}, "q1.win.leader", "deal win rate, the non-dealer (who leads "
            "first; decided deals)", pl.col("leader_won"), pl.col("leader_won").is_not_null(),
            headline=True, note="50% means no edge; when the loser deals, the non-dealer is "
                                "the last deal's winner")
        leader_pts = pl.when(pl.col("dealer") == 0).then(pl.col("points_s1")) \
            .otherwise(pl.col("points_s0"))
        dealer_pts = pl.when(pl.col("dealer") == 0).then(pl.col("points_s0")) \
            .otherwise(pl.col("points_s1"))
        add({"dealer", "points_s0", "points_s1"}, "q1.margin.points", "points per deal, "
            "the non-dealer minus the dealer", (leader_pts - dealer_pts).cast(pl.Float64),
            kind="mean", unit="points")
        # 2. deal results
        for o, name in enumerate(OUTCOMES):
            slug = name.replace(" ", "_")
            add({"outcome", "winner"}, f"q2.outcome.{slug}", f"deals won with {name} "
                f"(decided deals)", pl.col("outcome").cast(pl.String) == name, decided,
                headline=o == 0)
        add({"winner", "score_s0", "score_s1"}, "q2.mark", "points marked by the deal's "
            "winner (decided deals)", (pl.col("score_s0") + pl.col("score_s1"))
            .cast(pl.Float64), decided, kind="mean", unit="points")
        add({"winner", "last_trick_winner"}, "q2.last_trick", "the deal's winner took the "
            "last trick (decided deals)", pl.col("last_trick_winner") == pl.col("winner"),
            decided)
        # 4. the value of the 7s
        if {"wilds_s0", "wilds_s1", "winner"} <= cols:
            for n7 in range(min(MAX_WILDS_ASKED, k.hand_size) + 1):
                holds = [pl.col(f"wilds_s{i}") == n7 for i in range(2)]
                num = sum((h & (pl.col("winner") == i)).cast(pl.Float64)
                          for i, h in enumerate(holds))
                den = sum(h.cast(pl.Float64) for h in holds)
                add({"wilds_s0", "wilds_s1", "winner"}, f"q4.win.wilds{n7}",
                    f"deal win rate of a player dealt {n7} wild card(s) ({k.wild_rank}s) "
                    f"among its first {k.hand_size} (players so dealt; decided deals)",
                    ratio_of_sums(num, den, decided), decided, kind="mean", unit="share",
                    note="both seats pooled; delta-method interval")
        # how often the stop-or-continue decision goes each way
        add({"answer_chances", "answers"}, "decide.answer_rate", "leaders who take their "
            "captured trick back when able (chances to do so)",
            ratio_of_sums(pl.col("answers"), pl.col("answer_chances"), pl.lit(True)),
            kind="mean", unit="share", choice=True)
        add({"longest_trick"}, "decide.long_trick", "deals with a trick of 3 or more cards "
            "from each player", pl.col("longest_trick") >= 3)
    else:
        done = pl.col("winner") >= 0
        # 1. snowballing, measured directly
        add({"winner", "repeat_wins", "repeat_chances"}, "q1.snowball", "win rate in the "
            "deal after a won deal (deals after a won deal)",
            ratio_of_sums(pl.col("repeat_wins"), pl.col("repeat_chances"), done), done,
            kind="mean", unit="share", note=f"dealer rule: {k.dealer_rule}; 50% means no "
                                            "snowballing; delta-method interval")
        add({"second_deal_repeat"}, "q1.second_repeat", "the first deal's winner also wins "
            "the second (matches of 2+ deals, both decided)", pl.col("second_deal_repeat"),
            pl.col("second_deal_repeat").is_not_null(), headline=True,
            note=f"dealer rule: {k.dealer_rule}")
        add({"winner", "first_deal_winner_won"}, "q1.first_deal", "the first deal's winner "
            "wins the match", pl.col("first_deal_winner_won"), done)
        add({"winner", "n_deals", "n_ties", "leader_wins"}, "q1.leader_share", "deals won "
            "by their first leader (the non-dealer; decided deals)",
            ratio_of_sums(pl.col("leader_wins"), pl.col("n_deals") - pl.col("n_ties"), done),
            done, kind="mean", unit="share")
        # 3. match length
        add({"winner", "n_deals"}, "q3.length", f"deals to reach {k.target}",
            pl.col("n_deals"), done, kind="mean", unit="deals", note="capped matches left out")
        add({"winner", "n_deals"}, "q3.length.sd", "deals per match, standard deviation",
            std_dev(pl.col("n_deals"), done), done, kind="mean", unit="deals",
            note="delta-method interval")
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (the format is documented there).
FINDINGS = (
    {"question": "1. Leader advantage",
     "key": "sept.q1.win.leader", "against": 0.5, "against_text": "an even 50%",
     "text": "The non-dealer, who leads the first trick, wins {sept.q1.win.leader} of "
             "decided deals"},
    {"question": "1. Snowballing",
     "key": "sept.q1.snowball", "against": 0.5, "against_text": "an even 50%",
     "text": "After winning a deal a player wins the next one {sept.q1.snowball} of the "
             "time"},
    {"question": "1. Snowballing, against dealing in turn",
     "key": "sept.q1.second_repeat", "control": {"dealer_rule": "alternate"},
     "paired": lambda n: pl.col("second_deal_repeat"),
     "difference": "the loser deals minus the players dealing in turn, on the same deals",
     "text": "The first deal's winner wins the second in {sept.q1.second_repeat} of "
             "matches"},
    {"question": "2. Deal results",
     "key": "sept.q2.outcome.more_points",
     "text": "Of decided deals, {sept.q2.outcome.more_points} are won on points (1), "
             "{sept.q2.outcome.all_points} with all the points (2) and "
             "{sept.q2.outcome.all_cards} with all the cards (3)"},
    {"question": "3. Match length",
     "key": "sept.q3.length",
     "text": "A match lasts {sept.q3.length:bare} deals on average"},
    {"question": "4. Value of the 7s",
     "key": "sept.q4.win.wilds0",
     "text": "A player dealt no 7 wins {sept.q4.win.wilds0} of decided deals, one 7 "
             "{sept.q4.win.wilds1}, two {sept.q4.win.wilds2}, three {sept.q4.win.wilds3}"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
HAND_STRENGTH_TEXT = "wild cards (7s) count 2, 10s and Aces 1"


def hand_strength(knobs: SeptKnobs, hand: list[str]) -> float:
    wild = knobs.wild_rank if isinstance(knobs, SeptKnobs) else "7"
    return float(sum(2 if c[:-1] == wild else 1 if c[:-1] in ("10", "A") else 0
                     for c in hand))


TAKE_BACK_TITLE = ("a leader takes back a captured trick when able, at least once (deals "
                   "with a chance to)")


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """The stop-or-continue decision, for the report's never / always taken check: a
    leader whose trick the follower just took, holding a card to take it back."""
    if "answers" not in columns:
        return []
    return [(TAKE_BACK_TITLE, pl.col("answers") > 0, pl.col("answer_chances") > 0),
            ("a leader stops a captured trick he could take back, at least once (deals "
             "with a chance to)", pl.col("answers") < pl.col("answer_chances"),
             pl.col("answer_chances") > 0)]


def decision_notes(knobs) -> dict[str, str]:
    """Why the take-back kind is always taken (issue 32), with what was measured
    (``stock_wild_min`` is the alternative the search suggested, measured in duplicate)."""
    return {TAKE_BACK_TITLE: (
        "always: a deal offers 3.5 chances to take a trick back (17,581 in 4,993 deals, "
        "heuristic, seed 5) and taking back is right in most: on 10,525 chances of 3,000 "
        "heuristic deals search (64 worlds x 2 stock orders) values stopping below taking "
        "back by 59 +- 1 (marks x 91 + points), stopping being better on average only for "
        "a pointless trick taken back with a 7 while the stock lasts (+6.0 +- 1.4, 1,170 "
        "chances); a heuristic that stops there (stock_wild_min = 10) loses 0.024 [0.023, "
        "0.025] marks a deal in duplicate (200,000 deals, seed 99) and still takes back in "
        "every deal with a chance (4,993 of 4,993)")}
