"""Bridgette balance questions (catalogue "Balance questions"): ``balance_metrics`` turns
a frame of deals or matches into metrics, ``FINDINGS`` opens the report with one sentence
per question."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.bridgette.rules import CLASSES, UPCARD_CLASSES, BridgetteKnobs

SECTION = "Bridgette questions"
CLASS_TEXT = {"2-10": "up-card 2-10 or Petit Colon (dealer draws 4)",
              "figure": "up-card J/Q/K or Colon Royal (dealer draws 8)",
              "ace": "up-card Ace or Grand Colon (dealer draws 12)"}
CLASS_KEY = {"2-10": "low", "figure": "face", "ace": "ace"}


def _seat_value(seat: pl.Expr, name: str) -> pl.Expr:
    """Column ``name_s{seat}`` of the seat in expression ``seat`` (0 or 1)."""
    return pl.when(seat == 0).then(pl.col(f"{name}_s0")).otherwise(pl.col(f"{name}_s1")) \
        .cast(pl.Float64)


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: BridgetteKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's six questions as metrics (section "Bridgette questions").

    Deal level: 1 the dealer's edge (score difference and deal win rate) by the up-card's
    class; 2 who declares and the contract level by the dealer's draw; 3 make rate and
    the declarer's net score by contract class; 4 doubles, redoubles and their profit;
    5 the Colons' tricks and the Grand Colon lead. Match level: 6 ties after the regular
    deals and the winning margin. Only metrics whose columns the frame has are returned."""
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"bridgette.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        taken = pl.col("taker") >= 0
        dealer = pl.col("dealer")
        scores = {"dealer", "score_s0", "score_s1"}
        edge = _seat_value(dealer, "score") - _seat_value(1 - dealer, "score")
        dealer_wins = _seat_value(dealer, "score") > _seat_value(1 - dealer, "score")
        upc = pl.col("upcard_class").cast(pl.String)
        # 1. the dealer's edge, by the up-card's class
        add(scores, "q1.edge", "dealer's score minus the non-dealer's, per deal", edge,
            kind="mean", unit="points", note="over all deals (a passed-out deal counts 0)")
        add(scores | {"taker"}, "q1.win", "dealer wins the deal (played deals)", dealer_wins,
            taken, headline=True, note="the seat that scores wins: the declarer who makes "
                                       "his contract, else the defender")
        for c in UPCARD_CLASSES:
            k = CLASS_KEY[c]
            need = scores | {"upcard_class"}
            add(need, f"q1.edge.{k}", f"dealer's score minus the non-dealer's, {CLASS_TEXT[c]}",
                edge, upc == c, kind="mean", unit="points")
            add(need | {"taker"}, f"q1.win.{k}", f"dealer wins the deal, {CLASS_TEXT[c]} "
                "(played deals)", dealer_wins, taken & (upc == c), headline=c == "ace")
        # 2. who declares, and how high, by the dealer's draw
        dealer_declares = pl.col("taker") == dealer
        add({"taker", "dealer"}, "q2.dealer_declares", "the dealer declares (played deals)",
            dealer_declares, taken, headline=True)
        for c in UPCARD_CLASSES:
            k = CLASS_KEY[c]
            add({"taker", "dealer", "upcard_class"}, f"q2.dealer_declares.{k}",
                f"the dealer declares, {CLASS_TEXT[c]} (played deals)", dealer_declares,
                taken & (upc == c))
            add({"taker", "dealer", "upcard_class", "level"}, f"q2.level.dealer.{k}",
                f"contract level when the dealer declares, {CLASS_TEXT[c]}",
                pl.col("level"), taken & dealer_declares & (upc == c), kind="mean",
                unit="levels")
        add({"taker", "dealer", "level"}, "q2.level.nondealer", "contract level when the "
            "non-dealer declares", pl.col("level"), taken & ~dealer_declares, kind="mean",
            unit="levels")
        # 3. make rate and the declarer's net score by contract class
        taker = pl.col("taker")
        net = _seat_value(taker, "score") - _seat_value(1 - taker, "score")
        contract = pl.col("contract").cast(pl.String)
        for c in CLASSES:
            sel = taken & (contract == c)
            add({"taker", "contract", "made"}, f"q3.made.{c}", f"contract made, {c} contracts",
                pl.col("made"), sel, headline=c in ("partiel", "complet"))
            add({"taker", "contract", "score_s0", "score_s1"}, f"q3.net.{c}",
                f"declarer's score minus the defender's, {c} contracts", net, sel,
                kind="mean", unit="points")
        # 4. doubles and redoubles
        dbl = pl.col("doubled").cast(pl.String)
        doubled = dbl != "undoubled"
        add({"taker", "doubled"}, "q4.doubled", "contracts doubled (redoubled included; "
            "played deals)", doubled, taken, headline=True)
        add({"taker", "doubled"}, "q4.redoubled", "contracts redoubled (played deals)",
            dbl == "redoubled", taken)
        add({"taker", "doubled", "made"}, "q4.made.doubled", "doubled contracts made "
            "(not redoubled)", pl.col("made"), taken & (dbl == "doubled"))
        add({"taker", "doubled", "score_s0", "score_s1"}, "q4.profit.doubler",
            "doubler's profit per doubled contract (defender's score minus the declarer's; "
            "redoubled included)", -net, taken & doubled, kind="mean", unit="points")
        add({"taker", "doubled", "score_s0", "score_s1"}, "q4.profit.redoubler",
            "redoubler's profit per redoubled contract (declarer's score minus the "
            "defender's)", net, taken & (dbl == "redoubled"), kind="mean", unit="points")
        # 5. the Colons
        colon = {"taker", "colon_leads", "colon_replies"}
        add(colon, "q5.colon_tricks", "tricks decided by a Colon per played deal (a Colon "
            "led, or played on a suit lead)", pl.col("colon_leads") + pl.col("colon_replies"),
            taken, kind="mean", unit="tricks",
            note="a count of tricks with a Colon in them, not a counterfactual: a Colon reply "
                 "always loses the trick, a Colon lead wins unless beaten by its group or a "
                 "trump")
        add({"taker", "colon_lead_wins"}, "q5.colon_lead_wins", "tricks won by a Colon lead "
            "per played deal", pl.col("colon_lead_wins"), taken, kind="mean", unit="tricks")
        add({"taker", "bans"}, "q5.bans", "suit bans (matching Colon replies) per played "
            "deal", pl.col("bans"), taken, kind="mean", unit="bans")
        add({"grand_colon_led_won"}, "q5.grand_colon", "the Grand Colon wins its trick when "
            "led", pl.col("grand_colon_led_won"), pl.col("grand_colon_led_won").is_not_null(),
            headline=True)
        add({"grand_colon_led_won", "taker"}, "q5.grand_colon_led", "the Grand Colon is led "
            "(played deals)", pl.col("grand_colon_led_won").is_not_null(), taken)
    else:
        done = pl.col("winner") >= 0
        add({"winner", "tied_after_regular"}, "q6.tie", "tied after the regular deals (a 7th "
            "deal or more needed)", pl.col("tied_after_regular"), done, headline=True)
        add({"winner", "margin"}, "q6.margin", "winning margin", pl.col("margin"), done,
            kind="mean", unit="points")
        for x in (500, 2000):
            add({"winner", "margin"}, f"q6.margin_below_{x}", f"winning margin below {x} "
                "points", pl.col("margin") < x, done)
        add({"winner", "n_extra_deals"}, "q6.extra_deals", "deals after the regular ones",
            pl.col("n_extra_deals"), done, kind="mean", unit="deals")
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (the format is documented there).
FINDINGS = (
    {"question": "1. Dealer's edge, up-card an Ace",
     "key": "bridgette.q1.win.ace", "against": 0.5, "against_text": "an even 50%",
     "text": "With an Ace or the Grand Colon turned up (the dealer draws 12), the dealer wins "
             "{bridgette.q1.win.ace} of played deals and scores {bridgette.q1.edge.ace} more "
             "points per deal than the non-dealer"},
    {"question": "1. Dealer's edge, by up-card",
     "key": "bridgette.q1.win.low", "against": 0.5, "against_text": "an even 50%",
     "text": "The dealer wins {bridgette.q1.win.low} of played deals when he draws 4 and "
             "{bridgette.q1.win.face} when he draws 8; over all deals he scores "
             "{bridgette.q1.edge} more per deal"},
    {"question": "2. Who declares",
     "key": "bridgette.q2.dealer_declares", "against": 0.5, "against_text": "an even 50%",
     "text": "The dealer declares {bridgette.q2.dealer_declares} of played deals "
             "({bridgette.q2.dealer_declares.low} drawing 4, {bridgette.q2.dealer_declares.ace} "
             "drawing 12), at level {bridgette.q2.level.dealer.ace:bare} on average when he "
             "drew 12 against {bridgette.q2.level.dealer.low:bare} when he drew 4"},
    {"question": "3. Partial against game",
     "key": "bridgette.q3.made.complet", "against": "bridgette.q3.made.partiel",
     "difference": "complet minus partiel",
     "text": "Complete contracts (700) are made {bridgette.q3.made.complet} of the time, "
             "partials (200) {bridgette.q3.made.partiel}; the declarer nets "
             "{bridgette.q3.net.complet} per complete and {bridgette.q3.net.partiel} per "
             "partial contract"},
    {"question": "4. Doubles",
     "key": "bridgette.q4.doubled",
     "text": "{bridgette.q4.doubled} of contracts are doubled and {bridgette.q4.redoubled} "
             "redoubled; a double earns the doubler {bridgette.q4.profit.doubler} per "
             "doubled contract"},
    {"question": "5. Colons",
     "key": "bridgette.q5.grand_colon",
     "text": "Colons decide {bridgette.q5.colon_tricks} per played deal; the Grand "
             "Colon, when led, wins {bridgette.q5.grand_colon} of its tricks"},
    {"question": "6. Match ties",
     "key": "bridgette.q6.tie",
     "text": "{bridgette.q6.tie} of matches are tied after the regular deals; the winning "
             "margin averages {bridgette.q6.margin}"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# Bridge's 4-3-2-1 honour count, and 3 for each Colon (the three Tarot cards).
HAND_STRENGTH_TEXT = "honour points (A 4, K 3, Q 2, J 1) and 3 per Colon"
_HONOURS = {"A": 4, "K": 3, "Q": 2, "J": 1}
_COLONS = frozenset({"T1", "Cavalier", "Excuse"})


def hand_strength(knobs, hand: list[str]) -> float:
    return float(sum(3 if c in _COLONS else _HONOURS.get(c[:-1], 0) for c in hand))


SUPER_SLAM_TITLE = "contract super_chelem (rows with a contract)"


def decision_notes(knobs) -> dict[str, str]:
    """Why the super slam (7SA) is never bid (issue 32), with what was measured
    (scripts/measure_bridgette_sa_slams.py): the same deals played out again in
    Sans-Atout by the heuristic players."""
    return {SUPER_SLAM_TITLE: (
        "13 tricks in Sans-Atout are rarely there to bid: of 16,605 declarers who could "
        "bid Sans-Atout (30,000 heuristic deals, seeds 0-29,999) those of 29+ Sans-Atout "
        "points (137) would have taken all 13 tricks there in 56, and 7SA, undoubled, "
        "would have scored 207 +- 85 points less than the contract they played; 31+ "
        "points (29 hands): -17 +- 182; only from 32 points (10 hands in 30,000 deals) "
        "does it gain (+390 +- 256, short of significance), too rare to tune in duplicate; "
        "the heuristic expects 13 tricks only from grand_slam_points (38) strength points, "
        "which no such declarer held (36 at most); measured with the default policy "
        "(sa_eleven_points 26, sa_slam_points 31)")}
