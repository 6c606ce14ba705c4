"""Démons balance questions (catalogue "Balance questions" 1-6): ``balance_metrics``
turns a frame of deals or matches into metrics, ``FINDINGS`` opens the report with one
sentence per question; the decision kinds the players' health checks look at.

May import: simlab.engine.*, simlab.games.demons.rules.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums

SECTION = "Démons questions"
SEATS = range(3)


def _at_diable(prefix: str) -> pl.Expr:
    """The Diable's value of column ``prefix_s{i}``."""
    e = pl.lit(None, dtype=pl.Float64)
    for i in SEATS:
        e = pl.when(pl.col("diable") == i).then(pl.col(f"{prefix}_s{i}").cast(pl.Float64)) \
            .otherwise(e)
    return e


def _sum(prefix: str) -> pl.Expr:
    return sum(pl.col(f"{prefix}_s{i}").cast(pl.Float64) for i in SEATS)


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs, level: str
                    ) -> list[MetricDef]:
    """Deal level: 1 the Diable's score and deal wins against the humans'; 3 how often
    bets are made and what they pay; 5 points by source; 6 possession, and whether the
    Démons decide the deal. Match level: 1 the Diable's share among match wins, 4 match
    length and resets. Only metrics whose columns the frame has are returned."""
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"demons.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        played = pl.col("fault") < 0
        score = {f"score_s{i}" for i in SEATS} | {"diable", "fault"}
        diable_score = _at_diable("score")
        human_mean = (_sum("score") - diable_score) / 2.0
        add(score, "q1.margin", "the Diable's deal score minus the humans' mean",
            diable_score - human_mean, played, kind="mean", unit="points", headline=True)
        add({"diable_won", "fault"}, "q1.win", "the Diable has the deal's highest score "
            "(deals without a tie)", pl.col("diable_won"),
            pl.col("diable_won").is_not_null() & played, headline=True,
            note="a third (33.3%) means no edge for the role")
        add({f"card_pts_s{i}" for i in SEATS} | {"diable", "fault"}, "q1.card_pts",
            "the Diable's trick points minus the humans' mean",
            _at_diable("card_pts") - (_sum("card_pts") - _at_diable("card_pts")) / 2.0,
            played, kind="mean", unit="points")
        add({"revealed"}, "q1.revealed", "deals in which the Diable reveals himself "
            "(plays his Démon)", pl.col("revealed"))
        # 3. bets
        add({"partial_bets"}, "q3.partial", "deals with a partial bet",
            pl.col("partial_bets") > 0, headline=True)
        add({"complete_bets"}, "q3.complete", "deals with a complete bet",
            pl.col("complete_bets") > 0)
        engaged = sum(pl.col(f"bet_any_s{i}").cast(pl.Float64) for i in SEATS)
        paid = sum(pl.when(pl.col(f"bet_any_s{i}")).then(pl.col(f"bets_s{i}"))
                   .otherwise(0).cast(pl.Float64) for i in SEATS)
        add({f"bet_any_s{i}" for i in SEATS} | {f"bets_s{i}" for i in SEATS}, "q3.ev",
            "stake won per engaged player (bettors, holders, raisers)",
            ratio_of_sums(paid, engaged, pl.lit(True)), kind="mean", unit="points",
            note="delta-method interval")
        # 5. points by source, per seat and deal
        for name, title in (("card_pts", "trick points"), ("combo", "combination points"),
                            ("bets", "trick stakes"), ("penalty", "failure penalties")):
            add({f"{name}_s{i}" for i in SEATS}, f"q5.{name}", f"{title} per seat and deal",
                _sum(name) / 3.0, played, kind="mean", unit="points")
        add({"best_pareil_owner"}, "q5.pareil", "deals in which somebody scores a Pareil",
            pl.col("best_pareil_owner") >= 0)
        add({"best_suite_owner"}, "q5.suite", "deals in which somebody scores a Suite",
            pl.col("best_suite_owner") >= 0)
        # 6. possession and the Démons
        add({"possessions"}, "q6.possess", "possessions per deal",
            pl.col("possessions").cast(pl.Float64), kind="mean", unit="possessions")
        most = pl.max_horizontal([pl.col(f"demons_s{i}") for i in SEATS])
        unique = sum((pl.col(f"demons_s{i}") == most).cast(pl.Int32) for i in SEATS) == 1
        holder = pl.lit(-1)
        for i in SEATS:
            holder = pl.when(unique & (pl.col(f"demons_s{i}") == most)).then(i) \
                .otherwise(holder)
        dem = {f"demons_s{i}" for i in SEATS} | {"winner"}
        add(dem, "q6.most_demons_wins", "the seat dealt the most Démons has the deal's "
            "highest score (deals with one such seat, no tie)",
            pl.col("winner") == holder, unique & (pl.col("winner") >= 0), headline=True,
            note="a third (33.3%) would mean the Démons do not matter")
        add({f"demons_s{i}" for i in SEATS} | {"most_tricks"}, "q6.most_demons_tricks",
            "the seat dealt the most Démons takes the most tricks (same deals, no tie for "
            "tricks)", pl.col("most_tricks") == holder, unique & (pl.col("most_tricks") >= 0))
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q4.length", "deals per match", pl.col("n_deals")
            .cast(pl.Float64), done, kind="mean", unit="deals", headline=True,
            note="capped matches left out")
        add({"nobet_resets"}, "q4.nobet_resets", "matches with a reset for reaching the "
            "target without a bet", pl.col("nobet_resets") > 0)
        dd = {f"diable_deals_s{i}" for i in SEATS} | {"winner_diable_deals", "n_deals"}
        add(dd, "q1.match_diable", "share of the match winner's deals played as Diable",
            ratio_of_sums(pl.col("winner_diable_deals"), pl.col("n_deals"), done), done,
            kind="mean", unit="share", note="a third means playing Diable more often does "
                                            "not help to win the match")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Is the hidden Diable over-powered?",
     "key": "demons.q1.margin", "against": 0.0, "against_text": "no difference",
     "text": "The Diable (who always holds a Démon, the strongest not turned) marks "
             "{demons.q1.margin} per deal more than the humans' mean, of which "
             "{demons.q1.card_pts} in trick points"},
    {"question": "1. Is the hidden Diable over-powered?",
     "key": "demons.q1.win", "against": 1 / 3, "against_text": "a third",
     "text": "The Diable has the best deal score in {demons.q1.win} of deals"},
    {"question": "2. Position", "key": "balance.first_seat_advantage", "against": 0.0,
     "against_text": "the mean over the positions",
     "text": "The first to play after the dealer (dealer+1) wins {dealer_pos.win.1} of "
             "played deals and marks {balance.first_seat_points} per deal against the mean "
             "over the positions"},
    {"question": "3. Bets",
     "key": "demons.q3.partial",
     "text": "A partial bet is made in {demons.q3.partial} of deals, a complete one in "
             "{demons.q3.complete}; an engaged player wins {demons.q3.ev} per deal on the "
             "stake"},
    {"question": "4. Match length and the must-bet rule",
     "key": "demons.q4.length",
     "text": "A match lasts {demons.q4.length:bare} deals; {demons.q4.nobet_resets} of "
             "matches see a score reset for reaching 333 without a bet; the match winner "
             "played {demons.q1.match_diable} of his deals as Diable (report with --level "
             "match)"},
    {"question": "5. Points by source",
     "key": "demons.q5.card_pts",
     "text": "Per seat and deal: trick points {demons.q5.card_pts}, combinations "
             "{demons.q5.combo}, stakes {demons.q5.bets}, failure penalties "
             "{demons.q5.penalty}"},
    {"question": "6. Is the deal decided by who holds the Démons?",
     "key": "demons.q6.most_demons_wins", "against": 1 / 3, "against_text": "a third",
     "text": "The seat dealt the most Démons has the deal's best score in "
             "{demons.q6.most_demons_wins} of deals and takes the most tricks in "
             "{demons.q6.most_demons_tricks} (possessions per deal: {demons.q6.possess})"},
)

HAND_STRENGTH_TEXT = "Démons count 3 (T1 4), Kings 1"


def hand_strength(knobs, hand: list[str]) -> float:
    return float(sum(4 if c == "T1" else 3 if c.startswith("T") else 1 if c.startswith("K")
                     else 0 for c in hand))


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """Every decision kind: opening each bet, each answer, possession, each announcement,
    the pure-Démon lead, the six-swap and the reveal-swap."""
    need = {"partial_bets", "complete_bets", "holds", "raises", "concedes", "responses",
            "possessions", "pareil_announces", "suite_announces", "pure_leads",
            "six_swaps", "six_chances", "reveal_swap", "revealed"}
    if not need <= set(columns):
        return []
    every = pl.lit(True)
    answered = pl.col("responses") > 0
    return [
        ("opens a partial bet (deals)", pl.col("partial_bets") > 0, every),
        ("opens a complete bet (deals)", pl.col("complete_bets") > 0, every),
        ("holds a bet (deals with an answer)", pl.col("holds") > 0, answered),
        ("raises a bet (deals with an answer)", pl.col("raises") > 0, answered),
        ("concedes a bet (deals with an answer)", pl.col("concedes") > 0, answered),
        ("a Démon possesses a turned card (deals)", pl.col("possessions") > 0, every),
        ("announces a card for a Pareil (deals)", pl.col("pareil_announces") > 0, every),
        ("announces a card for a Suite (deals)", pl.col("suite_announces") > 0, every),
        ("leads a pure Démon (deals)", pl.col("pure_leads") > 0, every),
        ("uses the six-swap (deals with a seat dealt two 6s or more)",
         pl.col("six_swaps") > 0, pl.col("six_chances") > 0),
        ("the Diable uses the reveal-swap (deals where he revealed himself)",
         pl.col("reveal_swap"), pl.col("revealed")),
    ]


PAREIL_TITLE = "announces a card for a Pareil (deals)"
REVEAL_SWAP_TITLE = "the Diable uses the reveal-swap (deals where he revealed himself)"


def decision_notes(knobs) -> dict[str, str]:
    """Why two kinds are taken in (nearly) every deal they can be."""
    return {PAREIL_TITLE: (
        "always: the heuristic announces a card when its hand keeps another of the same "
        "rank, and with 8 Kings and 8 Cavaliers among 33 cards some seat of three holds "
        "such a pair in practically every deal (4,000 of 4,000 heuristic deals, seed 21); "
        "a seat declines it whenever it holds no follow-up"),
        REVEAL_SWAP_TITLE: (
        "always: the Diable swaps whenever a turned card is more useful than his worst "
        "card, which is usual; a deal where he declines needs every turned card weaker")}
