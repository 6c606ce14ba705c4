"""Manille balance questions (catalogue "Balance questions" 1-8): ``balance_metrics`` turns
a frame of deals or matches into metrics, ``FINDINGS`` opens the report with one sentence
per question. Questions 1-3 are about the classic game (1-2 also read in the team
variants), 4-8 each about one variant: a classic report answers them from companion runs
of the same deals with ``variant`` set (see ``FINDINGS``)."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums, std_dev, team_value
from simlab.games.manille.rules import HAND, ManilleKnobs

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
    "two consecutive wins" end would have come first. Questions 4-8 are the variants'
    (``variant_metrics``); questions 1-2 read in every team variant. Only metrics whose
    columns the frame has are returned."""
    k = knobs if isinstance(knobs, ManilleKnobs) else ManilleKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"manille.{key}", title, SECTION, expr, where, kind, **kw), need))

    if k.variant in ("encheres", "folle") and level == "deal":
        return variant_metrics(frame, k, level)
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
    return [m for m, need in out if need <= cols] + variant_metrics(frame, k, level)


# Bid levels of question 4 (enchères): [lo, hi) in points.
BID_LEVELS = ((20, 25), (25, 30), (30, 69))


def variant_metrics(frame: pl.DataFrame | pl.LazyFrame, k: ManilleKnobs,
                    level: str) -> list[MetricDef]:
    """The catalogue's questions 4-8, each for its variant's runs."""
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"manille.{key}", title, SECTION, expr, where, kind, **kw), need))

    v = k.variant
    scores = [pl.col(f"score_s{i}").cast(pl.Float64) for i in range(4)]
    if v == "encheres" and level == "deal":
        taker = pl.col("taker")
        taken = taker >= 0
        need = {"taker", "bid", "made"}
        taker_mark = pl.coalesce([pl.when(taker == i).then(scores[i]) for i in range(4)])
        others = (pl.sum_horizontal(scores) - taker_mark) / 3
        add({"taker"}, "q4.all_pass", "deals where all four pass (thrown in)", ~taken,
            headline=True, choice=True)
        add(need, "q4.made", "bids made (taken deals)", pl.col("made"), taken, headline=True,
            choice=True, note=f"fail_mode={k.fail_mode}; the heuristic bids up to "
                              f"{k.bid_percent}% of its estimate")
        add(need | {f"score_s{i}" for i in range(4)}, "q4.taker_edge",
            "the taker's marks minus a defender's, per taken deal", taker_mark - others,
            taken, kind="mean", unit="points",
            note="positive: bidding alone against three paid on average")
        for lo, hi in BID_LEVELS:
            band = taken & (pl.col("bid") >= lo) & (pl.col("bid") < hi)
            name = f"{lo}-{hi - 1}" if hi < 69 else f"{lo}+"
            add(need, f"q4.made.{name}", f"bids of {name} made (taken deals at that level)",
                pl.col("made"), band, choice=True)
            add(need | {f"score_s{i}" for i in range(4)}, f"q4.taker_edge.{name}",
                f"the taker's marks minus a defender's, bids of {name}", taker_mark - others,
                band, kind="mean", unit="points")
            add(need, f"q4.share.{name}", f"taken deals bid at {name}", band, taken,
                choice=True)
    if v == "folle" and level == "deal":
        dealer = pl.col("dealer")
        dealer_pts = pl.coalesce([pl.when(dealer == i).then(pl.col(f"points_s{i}"))
                                  for i in range(4)]).cast(pl.Float64)
        total = pl.sum_horizontal([pl.col(f"points_s{i}") for i in range(4)]).cast(pl.Float64)
        pts = {"dealer"} | {f"points_s{i}" for i in range(4)}
        add(pts, "q5.dealer_fewest", "the dealer takes the fewest points (alone)",
            pl.col("dealer_team_won"), headline=True,
            note="25% means no edge; a shared minimum counts for nobody")
        add(pts, "q5.dealer_minus_others", "points the dealer takes minus the mean of the "
            "other three (negative: the dealer is advantaged)",
            dealer_pts - (total - dealer_pts) / 3, kind="mean", unit="points")
        add(pts, "q5.dealer_points", "points the dealer takes", dealer_pts, kind="mean",
            unit="points")
        add({"sans_atout"}, "q5.sans_atout", "the dealer names no trump", pl.col("sans_atout"),
            choice=True)
    if v == "deux" and level == "deal":
        decided = ~pl.col("void_deal")
        leader_team = (pl.col("dealer") + 1) % 2  # the dealer's left leads the first trick
        add({"winning_team", "void_deal", "dealer"}, "q6.first_player", "deal win rate of the "
            "first to play (the player or dummy on the dealer's left), decided deals",
            pl.col("winning_team") == leader_team, decided, headline=True,
            note="50% means no edge")
        if k.oracle_team == 0:
            add({"score_s0", "score_s1"}, "q6.oracle_margin", "marks per deal of seats 0 and "
                "2 (their search players see every card) minus seats 1 and 3's",
                scores[0] - scores[1], kind="mean", unit="points",
                note="run with --policy search --set oracle_team=0: the findings pair it "
                     "with the same deals where nobody sees every card")
    if v in ("belge", "coinchee") and level == "deal":
        contre = pl.col("contre") >= 1
        decided = ~pl.col("void_deal")
        need = {"contre", "announcer_won", "void_deal", "sans_atout"}
        ann = pl.col("dealer") % 2
        margin = (team_value(ann, "score_s0", "score_s1")
                  - team_value(ann, "score_s1", "score_s0"))
        q = "q7" if v == "belge" else "q7c"
        add(need, f"{q}.sans_atout", "the announcers choose Sans-Atout", pl.col("sans_atout"),
            headline=v == "belge", choice=True)
        add(need | {"dealer", "score_s0", "score_s1"}, f"{q}.margin.sans_atout",
            "the announcing team's marks minus the opponents', Sans-Atout deals", margin,
            pl.col("sans_atout"), kind="mean", unit="points")
        add(need | {"dealer", "score_s0", "score_s1"}, f"{q}.margin.trump",
            "the announcing team's marks minus the opponents', trump deals", margin,
            ~pl.col("sans_atout"), kind="mean", unit="points")
        add(need, f"{q}.contre", "deals contred", contre, headline=True, choice=True)
        add(need, f"{q}.contre_right", "contres that were right: the announcers lost "
            "(decided contred deals)", ~pl.col("announcer_won"), contre & decided,
            headline=True, choice=True)
        add(need, f"{q}.announcer_won", "the announcing team wins (decided deals)",
            pl.col("announcer_won"), decided)
    if v == "belge" and level == "match":
        for t in (0, 1):
            forced = pl.col(f"sa_forced_t{t}") >= 1
            add({f"sa_forced_t{t}"}, f"q7.forced.t{t}", f"matches where team {t} had to "
                f"announce a compulsory Sans-Atout", forced)
        n_forced = pl.col("sa_forced_t0") + pl.col("sa_forced_t1")
        margin = pl.col("sa_forced_margin_t0") + pl.col("sa_forced_margin_t1")
        add({"sa_forced_t0", "sa_forced_t1", "sa_forced_margin_t0", "sa_forced_margin_t1"},
            "q7.forced_margin", "the announcing team's marks minus the opponents' on a "
            "compulsory Sans-Atout deal", ratio_of_sums(margin.cast(pl.Float64),
                                                        n_forced.cast(pl.Float64),
                                                        n_forced >= 1),
            n_forced >= 1, kind="mean", unit="points",
            note="per forced deal; compare manille.q7.margin.trump of a belge deal run")
    if v == "trois" and level == "deal":
        decided = ~pl.col("void_deal")
        dummy_team = pl.col("dummy_seat") % 2
        add({"dummy_seat", "winning_team", "void_deal"}, "q8.dummy_team", "deal win rate of "
            "the player with the dummy, against the pair (decided deals)",
            pl.col("winning_team") == dummy_team, decided, headline=True,
            note="50% means no edge")
        add({"dummy_seat", "score_s0", "score_s1"}, "q8.dummy_margin", "marks per deal of "
            "the player with the dummy minus the pair's",
            team_value(dummy_team, "score_s0", "score_s1")
            - team_value(dummy_team, "score_s1", "score_s0"), kind="mean", unit="points")
    if level == "match" and v != "classic":
        done = pl.col("winner") >= 0
        add({"winner", "n_deals", "capped"}, f"{v}.length", "deals per match",
            pl.col("n_deals"), ~pl.col("capped"), kind="mean", unit="deals")
        if v in ("encheres", "folle"):
            add({"winner"}, f"{v}.first_dealer_wins", "the first dealer wins the match",
                pl.col("winner") == pl.col("first_dealer"), done,
                note="25% means no edge")
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (format documented there). Questions 4-8 are about variants:
# in a run of another variant the report answers them from a companion run of the same
# deals with ``variant`` set (deal level only).
def _team0_margin(n_players: int) -> pl.Expr:
    """Seats 0 and 2's marks minus seats 1 and 3's, per deal (question 6's pairing)."""
    return (pl.col("score_s0") - pl.col("score_s1")).cast(pl.Float64)


def _companion(variant: str) -> dict:
    return {"companion": {"variant": variant},
            "companion_text": f"from a companion run of the same deals with variant={variant}"}


FINDINGS = (
    {"question": "1. Dealer edge", "key": "manille.q1.win.dealer_team", "against": 0.5,
     "against_text": "an even 50%",
     "text": "The dealer's team wins {manille.q1.win.dealer_team} of decided deals, "
             "{manille.q1.margin} per deal more than the other team"},
    {"question": "2. Must-overplay", "key": "manille.q2.void",
     "text": "{manille.q2.void} of deals end 34-34 (void); the winner's margin over half the "
             "deal is {manille.q2.margin} (sd {manille.q2.margin.sd}); compare follow-only "
             "play with `simlab compare manille --b must_overplay_in_suit=false`"},
    {"question": "3. Length", "key": "manille.q3.length",
     "text": "A match to the target lasts {manille.q3.length:bare} deals (sd "
             "{manille.q3.length.sd:bare}); the two-consecutive-wins end would have come "
             "first in {manille.q3.two_in_a_row_first} of matches"},
    {"question": "4. Enchères", "key": "manille.q4.taker_edge", "against": 0.0,
     "against_text": "zero (no gain from bidding alone)",
     "text": "Takers make {manille.q4.made} of their bids (20-24: {manille.q4.made.20-24}, "
             "25-29: {manille.q4.made.25-29}, 30+: {manille.q4.made.30+}); the taker marks "
             "{manille.q4.taker_edge} per taken deal more than a defender; "
             "{manille.q4.all_pass} of deals are thrown in", **_companion("encheres")},
    {"question": "5. Folle", "key": "manille.q5.dealer_fewest", "against": 0.25,
     "against_text": "an even 25%",
     "text": "The folle dealer (trump chooser and first leader) takes the fewest points in "
             "{manille.q5.dealer_fewest} of deals, {manille.q5.dealer_minus_others} compared "
             "with the mean of the others", **_companion("folle")},
    {"question": "6. À deux", "key": "manille.q6.first_player", "against": 0.5,
     "against_text": "an even 50%",
     "text": "À deux, the side that plays first wins {manille.q6.first_player} of decided "
             "deals", **_companion("deux")},
    {"question": "6. À deux, perfect information", "key": "manille.q6.oracle_margin",
     "control": {"oracle_team": -1}, "paired": _team0_margin,
     "difference": "seeing every card minus sampled worlds",
     "text": "Seeing every card, A and his dummy (seats 0 and 2) mark {value} per deal more "
             "than B's side, against {control} when they search sampled worlds like B (the "
             "same deals)"},
    {"question": "7. Belge, contre", "key": "manille.q7.contre_right", "against": 0.5,
     "against_text": "an even 50%",
     "text": "Belge: {manille.q7.contre} of deals are contred and the contre is right in "
             "{manille.q7.contre_right} of them; the announcers choose Sans-Atout in "
             "{manille.q7.sans_atout} of deals, with a margin of "
             "{manille.q7.margin.sans_atout} there against {manille.q7.margin.trump} with a "
             "trump", **_companion("belge")},
    {"question": "7. Belge, compulsory Sans-Atout", "key": "manille.q7.forced_margin",
     "text": "On a compulsory Sans-Atout deal the announcers mark "
             "{manille.q7.forced_margin} more than the opponents"},
    {"question": "8. À trois", "key": "manille.q8.dummy_team", "against": 0.5,
     "against_text": "an even 50%",
     "text": "À trois, the player with the dummy wins {manille.q8.dummy_team} of decided "
             "deals against the pair, {manille.q8.dummy_margin} per deal",
     **_companion("trois")},
)


# --- the players' decisions (the report's health checks: never or always taken) -----------
def decisions(knobs: ManilleKnobs, columns: list[str]) -> list[tuple]:
    """The variants' decisions before the play, each as (title, taken, among which deals)."""
    cols = set(columns)
    out = []
    if {"chooser", "dealer"} <= cols and knobs.variant in ("belge", "coinchee"):
        out.append(("the dealer passes the trump choice to his partner",
                    pl.col("chooser") != pl.col("dealer"), None))
    if "sans_atout" in cols and knobs.variant != "folle":  # folle: see variant_players
        out.append(("Sans-Atout announced", pl.col("sans_atout"), None))
    if "contre" in cols:
        out.append(("contre", pl.col("contre") >= 1, None))
        # a surcontre the rules forbid is never taken, and that is the rules'
        barred = (knobs.variant == "coinchee" and not knobs.coinchee_surcoinche) or \
            (knobs.variant == "belge" and not knobs.surcontre)
        why = ("not allowed under these rules (coinchee_surcoinche = false: the seed's "
               "coinchée, a coinche that doubles and nothing more)"
               if knobs.variant == "coinchee" else
               "not allowed under these rules (surcontre = false)")
        out.append(("surcontre after a contre", pl.col("contre") == 2, pl.col("contre") >= 1,
                    *((why,) if barred else ())))
    if "taker" in cols:
        out.append(("a bid above the minimum", pl.col("bid") > knobs.min_bid, pl.col("taker") >= 0))
    return out


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
CARD_STRENGTH = {"10": 5, "A": 4, "K": 3, "Q": 2, "J": 1}  # the card points: manille 5 ..
HAND_STRENGTH_TEXT = ("card points (10 = 5, A 4, K 3, Q 2, J 1); in folle, where points "
                      "taken are a penalty, minus them")


def hand_strength(knobs, hand: list[str]) -> float:
    points = float(sum(CARD_STRENGTH.get(c[:-1], 0) for c in hand))
    if isinstance(knobs, ManilleKnobs) and knobs.variant == "folle":
        return -points  # high cards win tricks, and tricks are what a folle player avoids
    return points
