"""Bésigue balance questions (catalogue "Balance questions") as metrics, the report's
findings, and the hand-strength measure of the "strong hands win" check."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.besigue.rules import BesigueKnobs

SECTION = "Bésigue questions"


def _seat(name: str, seat: pl.Expr) -> pl.Expr:
    """Column ``name_s0`` or ``name_s1`` per row, as ``seat`` says."""
    return pl.when(seat == 0).then(pl.col(f"{name}_s0")).otherwise(pl.col(f"{name}_s1"))


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: BesigueKnobs | None,
                    level: str) -> list[MetricDef]:
    """Deal level: 1 the dealer's win rate, with and without a cut bonus; 2 the Rubicon
    and the brisques request; 4 the Bésigue ladder's share and the triple / quadruple;
    5 meld points per deal (compare runs with ``clean_table_rule=false``); 7 ties and the
    last-trick tiebreak. Match level: 3 match length and single-deal decisions; 4 the
    quadruple's effect on matches. Question 6 (meld-greedy vs trick-aware play) is a
    duel (``simlab duel besigue --x heuristic --y heuristic:chase_melds=false``), not
    expressible per row; see the module's FINDINGS note."""
    k = knobs if isinstance(knobs, BesigueKnobs) else BesigueKnobs()
    rubicon = k.values()[5]
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"besigue.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        dealer = pl.col("dealer")
        winner = pl.col("winner")
        no_cut = (pl.col("cut_bonus_s0") == 0) & (pl.col("cut_bonus_s1") == 0)
        base = {"winner", "dealer"}
        # 1. dealer vs non-dealer, and the cut bonuses
        add(base, "q1.dealer_wins", "deal win rate of the dealer (all deals)", winner == dealer,
            headline=True, note="the non-dealer leads first; the dealer may earn the 250 "
                                "cut bonus, the non-dealer the 150 guess bonus")
        marks = {"dealer", "score_s0", "score_s1"}
        add(marks, "q1.margin", "points per deal, dealer minus non-dealer",
            _seat("score", dealer) - _seat("score", 1 - dealer), kind="mean", unit="points",
            note="positive: the dealer gains")
        add(base | {"cut_bonus_s0", "cut_bonus_s1"}, "q1.dealer_wins.no_cut",
            "deal win rate of the dealer, deals without a cut bonus", winner == dealer, no_cut,
            note="the first-lead effect alone")
        add(base | {"cut_bonus_s0"}, "q1.dealer_cut_bonus", "dealer's pile exactly the "
            "target (dealer +250), per deal", _seat("cut_bonus", dealer) > 0)
        add(base | {"cut_bonus_s0"}, "q1.dealer_wins.cut", "deal win rate of the dealer, "
            "deals where his pile was exact", winner == dealer, _seat("cut_bonus", dealer) > 0)
        # 2. the Rubicon and the brisques request
        add({"rubicon_missed"}, "q2.rubicon_missed", "the deal's loser is below the Rubicon "
            "(1000 + sum scored), per deal", pl.col("rubicon_missed"), headline=True)
        req = pl.col("requested_by")
        add({"requested_by"}, "q2.requested", "brisques requested, per deal", req >= 0)
        asked = req >= 0
        req_total = _seat("total", req) + _seat("brisques", req) * k.brisque_value
        add({"requested_by", "total_s0", "brisques_s0"}, "q2.request_reaches_rubicon",
            "the requester reaches the Rubicon with his brisques, per request",
            req_total >= rubicon, asked)
        add({"requested_by", "winner"}, "q2.request_wins", "the requester wins the deal, per "
            "request", winner == req, asked,
            note="a player below the Rubicon may ask; the heuristic asks exactly when "
                 "counting raises its own result (it knows both players' brisques: the "
                 "opponent has the rest of them)")
        behind = _seat("total", req) < _seat("total", 1 - req)
        rescue = {"requested_by", "winner", "rubicon_missed", "total_s0"}
        add(rescue, "q2.rescued", "the request rescues a player who was behind: he wins, or "
            "loses above the Rubicon (500 + difference instead of 1000 + sum), per deal",
            asked & behind & ((winner == req) | ~pl.col("rubicon_missed")))
        add(rescue, "q2.rescued_per_request", "the request rescues a player who was behind, "
            "per request", behind & ((winner == req) | ~pl.col("rubicon_missed")), asked)
        add(rescue, "q2.leader_asks", "the player ahead asks (counting raises the sum he "
            "scores when the loser stays below the Rubicon), per request", ~behind, asked)
        # 4. the Bésigue ladder
        meld = pl.col("meld_s0") + pl.col("meld_s1")
        bes = pl.col("besigue_s0") + pl.col("besigue_s1")
        add({"meld_s0", "besigue_s0"}, "q4.besigue_share", "share of meld points from the "
            "Bésigue ladder", ratio_of_sums(bes, meld, pl.lit(True)), kind="mean",
            unit="fraction", headline=True)
        lvl0, lvl1 = pl.col("besigue_level_s0"), pl.col("besigue_level_s1")
        add({"besigue_level_s0"}, "q4.triple", "a player reaches a triple Bésigue (or more), "
            "per deal", (lvl0 >= 3) | (lvl1 >= 3))
        add({"besigue_level_s0"}, "q4.quadruple", "a player lays a quadruple Bésigue, per deal",
            (lvl0 >= 4) | (lvl1 >= 4), headline=True)
        quad_seat = pl.when(lvl0 >= 4).then(0).when(lvl1 >= 4).then(1).otherwise(-1)
        one_quad = (lvl0 >= 4) != (lvl1 >= 4)
        add({"besigue_level_s0", "winner"}, "q4.quadruple_wins", "the player with a "
            "quadruple Bésigue wins the deal, per deal with one", winner == quad_seat, one_quad)
        trip_seat = pl.when(lvl0 >= 3).then(0).when(lvl1 >= 3).then(1).otherwise(-1)
        one_trip = (lvl0 >= 3) != (lvl1 >= 3)
        add({"besigue_level_s0", "winner"}, "q4.triple_wins", "the player with a triple "
            "Bésigue (or more) wins the deal, per deal with one", winner == trip_seat, one_trip)
        # 5. meld scoring (the clean-table rule is a comparison of two runs)
        add({"meld_s0"}, "q5.meld_points", "meld points per deal, both players",
            meld.cast(pl.Float64), kind="mean", unit="points")
        # crossed and suspended melds (seed 5.1, 10.2): how much the rule adds
        susp = pl.col("suspended_s0") + pl.col("suspended_s1")
        add({"meld_s0", "suspended_s0"}, "q5.suspended_share", "share of meld points scored "
            "from suspended melds (crossed pairs, Bésigue rungs laid at once)",
            ratio_of_sums(susp, meld, pl.lit(True)), kind="mean", unit="fraction")
        add({"n_suspended_s0"}, "q5.suspended_laid", "a player lays a suspended meld, per "
            "deal", (pl.col("n_suspended_s0") + pl.col("n_suspended_s1")) > 0)
        # 7. ties and the last trick
        add({"tie"}, "q7.tie", "equal totals before the brisques, per deal", pl.col("tie"))
        add({"tie", "brisques_s0", "last_trick"}, "q7.last_trick_decides", "equal totals and "
            "equal brisques: the last trick decides, per deal",
            pl.col("tie") & (pl.col("brisques_s0") == pl.col("brisques_s1")))
        add({"last_trick", "winner"}, "q7.last_trick_winner_wins", "the last trick's winner "
            "wins the deal", pl.col("last_trick") == winner)
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q3.length", "deals to reach the target",
            pl.col("n_deals").cast(pl.Float64), done, kind="mean", unit="deals")
        add({"winner", "n_deals"}, "q3.one_deal", "matches over in one deal",
            pl.col("n_deals") == 1, done, headline=True)
        add({"winner", "one_deal_target"}, "q3.one_deal_target", "matches with a single deal "
            "worth the whole target", pl.col("one_deal_target"), done)
        add({"winner", "winner_behind_before_last"}, "q3.last_deal_swing", "the winner was "
            "behind or level before the last deal", pl.col("winner_behind_before_last"), done,
            headline=True, note="the last deal decided a match the other player was leading")
        q0, q1 = pl.col("quad_s0") > 0, pl.col("quad_s1") > 0
        quad_seat = pl.when(q0).then(0).otherwise(1)
        add({"winner", "quad_s0"}, "q4.match_quadruple", "matches with a quadruple Bésigue",
            q0 | q1, done)
        add({"winner", "quad_s0"}, "q4.match_quadruple_wins", "the only player with a "
            "quadruple Bésigue wins the match", pl.col("winner") == quad_seat, done & (q0 != q1),
            headline=True)
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Dealer vs non-dealer",
     "key": "besigue.q1.dealer_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "The dealer wins {besigue.q1.dealer_wins} of deals (a tie goes to one player, "
             "so every deal is decided) and marks {besigue.q1.margin} per deal more than the "
             "non-dealer ({besigue.q1.dealer_wins.no_cut} of deals without a cut bonus; his pile is "
             "exact in {besigue.q1.dealer_cut_bonus} of deals)"},
    {"question": "2. Rubicon",
     "key": "besigue.q2.rubicon_missed",
     "text": "The deal's loser misses the Rubicon in {besigue.q2.rubicon_missed} of deals; "
             "brisques are asked for in {besigue.q2.requested} of deals, by the player ahead "
             "in {besigue.q2.leader_asks} of requests; the request rescues a player who was "
             "behind (he wins, or escapes the Rubicon) in {besigue.q2.rescued} of deals"},
    {"question": "3. Match length",
     "key": "besigue.q3.length",
     "text": "A match lasts {besigue.q3.length:bare} deals; {besigue.q3.one_deal} of matches "
             "end in one deal and in {besigue.q3.last_deal_swing} the winner was not ahead "
             "before the last deal"},
    {"question": "4. Bésigue ladder",
     "key": "besigue.q4.besigue_share",
     "text": "The Bésigue ladder brings {besigue.q4.besigue_share} of meld points; a "
             "quadruple is laid in {besigue.q4.quadruple} of deals and its layer wins "
             "{besigue.q4.quadruple_wins} of those deals"},
    {"question": "4. Quadruple and the match",
     "key": "besigue.q4.match_quadruple_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "In matches where only one player lays a quadruple Bésigue, he wins "
             "{besigue.q4.match_quadruple_wins} of them"},
    {"question": "5. Clean-table rule",
     "key": "besigue.q5.meld_points", "control": {"clean_table_rule": False},
     "paired": lambda n: (pl.col("meld_s0") + pl.col("meld_s1")).cast(pl.Float64),
     "difference": "with the rule minus without, same deals",
     "text": "Meld points per deal with the clean-table rule: {value}; without it: {control}"},
    {"question": "5. Crossed and suspended melds",
     "key": "besigue.q5.suspended_share",
     "text": "A suspended meld (the second of a crossed pair, or a Bésigue rung laid with "
             "the one below) is laid in {besigue.q5.suspended_laid} of deals; scored on "
             "later turns, suspended melds bring {besigue.q5.suspended_share} of meld points"},
    {"question": "6. Chasing melds (skill)",
     "key": "seat.score.s0", "control": {"seat_values": {1: {"chase_melds": False}}},
     "paired": lambda n: (pl.col("score_s0") - pl.col("score_s1")).cast(pl.Float64),
     "difference": "both chasing minus seat 1 meld-blind",
     "text": "Seat 0's margin over seat 1 per deal when both chase declarations: {value}; "
             "when seat 1 only sheds its least useful card: {control}"},
    {"question": "7. Ties",
     "key": "besigue.q7.tie",
     "text": "Totals are level in {besigue.q7.tie} of deals; the last trick decides "
             "{besigue.q7.last_trick_decides} of deals"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) ---------------
# The dealt hand's meld material: Bésigue cards, K/Q of a suit, J Q K A, 10s and Aces.
HAND_STRENGTH_TEXT = "meld material of the dealt hand (Q♠/J♦ 3, K and Q 2, J, A, 10 1)"
CARD_STRENGTH = {"K": 2, "Q": 2, "J": 1, "A": 1, "10": 1}


def hand_strength(knobs, hand: list[str]) -> float:
    return float(sum(CARD_STRENGTH.get(c[:-1], 0) + (1 if c in ("Q♠", "J♦") else 0)
                     for c in hand))
