"""Belote balance questions (catalogue "Balance questions"), moved as they were from the
single-module game: ``balance_metrics`` turns a frame of deals or matches into metrics."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums, std_dev, team_value
from simlab.games.belote.rules import BeloteKnobs

# --- balance questions (catalogue "Balance questions") ----------------------------------
SECTION = "Belote questions"
# Headline metrics are rates or shares: --precision reads their half-widths as fractions,
# so means in points or deals (margins, lengths) stay out of the headline table.
COMEBACK_DEFICIT = 300  # question 5: "the comeback probability from -300"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: BeloteKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's six balance questions as metrics (section "Belote questions").

    Deal level: 1 taker success by bidding round and by the turned card's rank; 2 the
    dealer's team against the dealer's left (first to speak and to lead); 3 dedans,
    litige and capot rates; 4 announcements' share of the points and how often they
    change the outcome (made, dedans or litige). Question 6 (the Queen at 3 or 5) is a
    comparison of two runs, ``simlab compare``: no single-run metric. Match level: 5
    match length and the comeback from 300 behind.
    Only metrics whose columns the frame has are returned."""
    k = knobs if isinstance(knobs, BeloteKnobs) else BeloteKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"belote.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        taken = pl.col("taker") >= 0
        made = pl.col("made")
        rnd = pl.col("contract").cast(pl.String)
        turned = pl.col("turned_card").cast(pl.String)
        ranks = {"J": turned.str.starts_with("J"), "9": turned.str.starts_with("9")}
        ranks["other"] = ~(ranks["J"] | ranks["9"])
        rank_text = {"J": "turned card a Jack", "9": "turned card a 9",
                     "other": "turned card neither J nor 9"}
        bid = {"taker", "made", "contract"}
        # 1. taker success by round and by the turned card's rank
        for r in (1, 2):
            add(bid, f"q1.success.round{r}", f"taker success, round {r} takes", made,
                taken & (rnd == f"round{r}"), headline=True)
        for x, text in rank_text.items():
            add(bid | {"turned_card"}, f"q1.success.turned_{x}", f"taker success, {text}",
                made, taken & ranks[x])
        for r in (1, 2):
            for x, text in rank_text.items():
                add(bid | {"turned_card"}, f"q1.success.round{r}.turned_{x}",
                    f"taker success, round {r} takes, {text}", made,
                    taken & (rnd == f"round{r}") & ranks[x],
                    note="round 1: the turned card is trump and goes to the taker; round 2: "
                         "it goes to the taker but is not trump" +
                         (" (unless the same suit is named again)"
                          if k.second_round_any_suit else ""))
        # 2. position: the dealer's team against the dealer's left's team
        team = pl.col("dealer") % 2
        scores = {"score_s0", "score_s1", "dealer"}
        mine = team_value(team, "score_s0", "score_s1")
        theirs = team_value(team, "score_s1", "score_s0")
        add(scores, "q2.margin.dealer_team", "points per deal, dealer's team minus the dealer's "
            "left's team", mine - theirs, kind="mean", unit="points",
            note="over all deals (a thrown-in deal counts 0); positive: the dealer's team "
                 "gains, negative: the dealer's left (first to speak and to lead) gains")
        # who wins a played deal, as the standard metrics' sides count it: the takers when
        # made, the defence when dedans, nobody in a litige (the points wait for the next deal)
        takers_are_dealers = pl.col("taker") % 2 == team
        dealers_win = pl.when(pl.col("made")).then(takers_are_dealers) \
            .when(pl.col("litige")).then(False).otherwise(~takers_are_dealers)
        lefts_win = pl.when(pl.col("made")).then(~takers_are_dealers) \
            .when(pl.col("litige")).then(False).otherwise(takers_are_dealers)
        side_cols = {"taker", "dealer", "made", "litige"}
        add(side_cols, "q2.win.dealer_team", "deal win rate, dealer's team (played deals)",
            dealers_win, taken, headline=True,
            note="a litige is won by neither team; below 50%: the dealer's left's team "
                 "(first to speak and to lead) gains")
        add(side_cols, "q2.win.left_team", "deal win rate, dealer's left's team "
            "(played deals)", lefts_win, taken)
        # the even split a position is tested against leaves the litiges out (neither
        # team wins one): on decided deals it is exactly 50%
        add(side_cols, "q2.win.dealer_team.decided", "deal win rate, dealer's team (decided "
            "deals: played, no litige)", dealers_win, taken & ~pl.col("litige"),
            note="50% means no edge; litige deals (won by neither team) left out")
        left = pl.col("taker") == (pl.col("dealer") + 1) % 4
        add({"taker", "dealer"}, "q2.take.left", "the dealer's left takes (share of played "
            "deals)", left, taken)
        add({"taker", "dealer", "made"}, "q2.success.left", "taker success when the dealer's "
            "left takes", made, taken & left)
        add({"taker", "dealer", "made"}, "q2.success.dealer_team", "taker success when the "
            "dealer's team takes", made, taken & (pl.col("taker") % 2 == team))
        # 3. outcome frequencies among played deals
        add({"taker", "made", "litige"}, "q3.dedans", "dedans (takers fail, no litige), per "
            "played deal", ~made & ~pl.col("litige"), taken, headline=True)
        add({"taker", "litige"}, "q3.litige", "litige (T = D), per played deal",
            pl.col("litige"), taken, headline=True)
        add({"taker", "capot"}, "q3.capot", "capot (one team takes all 8 tricks), per played "
            "deal", pl.col("capot"), taken, headline=True)
        tricks = {f"tricks_s{i}" for i in range(4)}
        taker_tricks = (team_value(pl.col("taker") % 2, "tricks_s0", "tricks_s1")
                        + team_value(pl.col("taker") % 2, "tricks_s2", "tricks_s3"))
        add({"taker", "capot"} | tricks, "q3.capot.takers", "capot by the takers, per played "
            "deal", pl.col("capot") & (taker_tricks == 8), taken)
        add({"taker", "capot"} | tricks, "q3.capot.defence", "capot by the defence, per "
            "played deal", pl.col("capot") & (taker_tricks == 0), taken)
        # 4. announcements
        ann = (pl.col("announce_t0") + pl.col("announce_t1")).cast(pl.Float64)
        total = (pl.col("takers_total") + pl.col("defence_total")).cast(pl.Float64)
        ann_cols = {"taker", "announce_t0", "announce_t1"}
        add(ann_cols | {"takers_total", "defence_total"}, "q4.share", "share of all points "
            "from announcements", ratio_of_sums(ann, total, taken), taken, kind="mean",
            unit="share", headline=True,
            note="sum of valid announcement points over the sum of T + D (cards, "
                 "announcements and belote of both teams) over played deals; "
                 "Fieller's interval, its upper end on the log scale")
        add(ann_cols, "q4.points", "announcement points per played deal", ann, taken,
            kind="mean", unit="points")
        add({"taker", "announce_best_seat"}, "q4.any", "played deals with a valid "
            "announcement", pl.col("announce_best_seat") >= 0, taken)
        # what the cards alone would have given: each team's card points (dix de der
        # included; the final totals cannot say it: a dedans gives the defence every
        # point); an outcome is made (T > D), dedans (T < D) or litige (T = D)
        takers = pl.col("taker") % 2
        team_cards = [pl.col(f"trick_points_s{t}") + pl.col(f"trick_points_s{t + 2}")
                      for t in (0, 1)]
        cards_t = pl.when(takers == 0).then(team_cards[0]).otherwise(team_cards[1])
        cards_d = pl.when(takers == 0).then(team_cards[1]).otherwise(team_cards[0])
        by_cards = (cards_t - cards_d).sign()
        outcome = pl.when(made).then(1).when(pl.col("litige")).then(0).otherwise(-1)
        flip = by_cards != outcome
        flip_cols = {"taker", "made", "litige"} | {f"trick_points_s{i}" for i in range(4)}
        add(flip_cols, "q4.flipped", "announcements or belote change the outcome, per "
            "played deal", flip, taken, headline=True,
            note="outcome: made (T > D), dedans (T < D) or litige (T = D); changed: the "
                 "cards alone (T and D less announcements and belote) give another one")
        add(flip_cols, "q4.flipped.made", "announcements or belote make the contract "
            "(cards alone: dedans or litige), per played deal", flip & made, taken)
        add(flip_cols, "q4.flipped.failed", "announcements or belote sink the contract "
            "(cards alone: made), per played deal", flip & (by_cards > 0), taken)
        add(flip_cols, "q4.flipped.litige", "announcements or belote turn the deal into or "
            "out of a litige, per played deal", flip & ((by_cards == 0) | (outcome == 0)),
            taken)
        # 6. the Queen's value is a comparison of two runs (`simlab compare belote --b
        # queen_points=5`): a single run has no figure for it, so no metric here
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q5.length", "deals to reach the target score",
            pl.col("n_deals"), done, kind="mean", unit="deals",
            note="deals dealt, thrown-in deals included; capped matches left out")
        add({"winner", "n_deals"}, "q5.length.sd", "deals to reach the target, standard "
            "deviation", std_dev(pl.col("n_deals"), done), done, kind="mean", unit="deals",
            note="delta-method interval")
        add({"winner", "n_deals", "n_thrown_in"}, "q5.played", "played deals per match "
            "(thrown-in deals left out)", pl.col("n_deals") - pl.col("n_thrown_in"), done,
            kind="mean", unit="deals")
        d = COMEBACK_DEFICIT
        w, lo = pl.col("min_lead_of_winner"), pl.col("min_lead_of_loser")
        behind = (w <= -d) | (lo <= -d)
        leads = {"winner", "min_lead_of_winner", "min_lead_of_loser"}
        add(leads, "q5.comeback", f"comeback from {d} behind", w <= -d, done & behind,
            headline=True, note=f"among matches where a team was {d} or more points behind "
                                f"at some point: the winner was that far behind")
        add(leads, "q5.behind", f"matches where a team was {d} or more behind", behind, done)
        add({"winner", "min_lead_of_winner"}, "q5.winner_behind", "the winner was behind at "
            "some point", w < 0, done)
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (the format is documented there): ``{key}`` placeholders print
# a metric's estimate and interval; ``against`` is what the sentence tests the answer
# against (Holm-adjusted over the report's findings); a question whose metrics the run has
# not got (match questions in a deal run) is left out.
FINDINGS = (
    {"question": "1. Taker success",
     "key": "belote.q1.success.round2", "against": "belote.q1.success.round1",
     "text": "Takers make {belote.q1.success.round1} of their round-1 takes and "
             "{belote.q1.success.round2} of their round-2 takes",
     "difference": "round 2 minus round 1"},
    {"question": "1. Taker success, by the turned card",
     "key": "belote.q1.success.turned_J",
     "text": "With a Jack turned the takers make {belote.q1.success.turned_J}, with a 9 "
             "{belote.q1.success.turned_9}, with another card "
             "{belote.q1.success.turned_other}"},
    {"question": "2. Position",
     "key": "belote.q2.win.dealer_team.decided", "against": 0.5,
     "against_text": "an even split of the decided deals (litiges, won by neither team, left "
                     "out)",
     "text": "The dealer's team wins {belote.q2.win.dealer_team.decided} of decided deals "
             "({belote.q2.win.dealer_team} of played deals, {belote.q3.litige} of which are "
             "litiges) and marks {belote.q2.margin.dealer_team} per deal more than the "
             "dealer's left's team (the dealer's left speaks and leads first)"},
    {"question": "3. Outcomes",
     "key": "belote.q3.dedans",
     "text": "Of played deals, {belote.q3.dedans} end dedans, {belote.q3.litige} in a "
             "litige and {belote.q3.capot} in a capot"},
    {"question": "4. Announcements",
     "key": "belote.q4.share",
     "text": "Announcements and belote bring {belote.q4.share} of all points of played "
             "deals and change the outcome of {belote.q4.flipped} of them"},
    {"question": "5. Match length",
     "key": "belote.q5.length",
     "text": "A match lasts {belote.q5.length:bare} deals on average"},
    {"question": "5. Comebacks",
     "key": "belote.q5.comeback",
     "text": f"Among matches where a team was {COMEBACK_DEFICIT} or more points behind, "
             "that team won {belote.q5.comeback}"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# Each card at the better of its trump and plain values (J 20, 9 14, A 11, 10 10, K 4,
# Q 3): trump is chosen after the deal, so a hand is judged by what it could make.
CARD_STRENGTH = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
HAND_STRENGTH_TEXT = "card values (each at the better of its trump and plain values)"


def hand_strength(knobs, hand: list[str]) -> float:
    return float(sum(CARD_STRENGTH.get(c[:-1], 0) for c in hand))
