"""Bernicle balance questions (catalogue "Balance questions") as metrics, the findings
that open the report, and the hand-strength measure of the Players section."""

from __future__ import annotations

import numpy as np
import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.bernicle.rules import DECK, BernicleKnobs, _vector, melds

SECTION = "Bernicle questions"
BID_LEVELS = ((150, 160), (170, 190), (200, 240), (250, 100_000))


def _seat(prefix: str, seat: pl.Expr) -> pl.Expr:
    """Column ``{prefix}_s{seat}`` picked per row by the seat expression."""
    return (pl.when(seat == 0).then(pl.col(f"{prefix}_s0"))
            .when(seat == 1).then(pl.col(f"{prefix}_s1")).otherwise(pl.col(f"{prefix}_s2")))


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: BernicleKnobs | None,
                    level: str) -> list[MetricDef]:
    """Deal level: 1 taker success by contract level and the winning bids; 2 the taker's
    and a defender's score per taken deal, and the taker's margin; 3 niche points and
    petite Bernicles (a run with ``petite_discards=false`` gives the "without deliberate
    discards" figure); 5 the "no trick, no score" rule; 6 the melds' share of the taker's
    total. Match level: 4 match length and the win rate of the first dealer's left."""
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"bernicle.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        taken = pl.col("taker") >= 0
        made = pl.col("made")
        bid = pl.col("contract")
        base = {"taker", "made", "contract"}
        add(base, "q1.success", "taker success (taken deals)", made, taken, headline=True)
        for lo, hi in BID_LEVELS:
            text = f"{lo}+" if hi > 10_000 else f"{lo}-{hi}"
            level_rows = taken & (bid >= lo) & (bid <= hi)
            add(base, f"q1.success.{lo}", f"taker success, contract {text}", made, level_rows)
            add(base, f"q1.share.{lo}", f"winning bid {text} (share of taken deals)",
                (bid >= lo) & (bid <= hi), taken)
        add(base, "q1.bid", "winning bid (taken deals)", bid, taken, kind="mean", unit="points")
        add({"passed_out"}, "q1.passed_out", "deals passed out (the auction ends with no bid)",
            pl.col("passed_out"), headline=True)
        scores = {"taker", "score_s0", "score_s1", "score_s2"}
        taker_score = _seat("score", pl.col("taker"))
        defender_score = (_seat("score", (pl.col("taker") + 1) % 3)
                          + _seat("score", (pl.col("taker") + 2) % 3)) / 2
        add(scores, "q2.taker", "taker's score per taken deal", taker_score, taken,
            kind="mean", unit="points")
        add(scores, "q2.defender", "a defender's score per taken deal (mean of the two)",
            defender_score, taken, kind="mean", unit="points")
        add(scores, "q2.margin", "taker minus a defender, per taken deal",
            taker_score - defender_score, taken, kind="mean", unit="points",
            note="positive: taking pays; a failure pays the bid to both defenders")
        add(scores, "q2.taker_beats_defenders", "the taker outscores each defender (taken "
            "deals)", taker_score > defender_score, taken, headline=True)
        niche = {"taker", "niche_points", "niche_petite"}
        add(niche, "q3.niche", "niche points per taken deal", pl.col("niche_points"), taken,
            kind="mean", unit="points")
        add(niche, "q3.petite", "taken deals whose niche holds a petite Bernicle",
            pl.col("niche_petite") > 0, taken, headline=True)
        add({"taker", "defender_petite"}, "q3.petite.defenders", "taken deals whose "
            "defenders' 4 discards alone hold a petite Bernicle", pl.col("defender_petite"),
            taken)
        add({"taker", "zero_trick_defenders"}, "q5.zero", "taken deals where a defender "
            "takes no trick (and scores 0)", pl.col("zero_trick_defenders") > 0, taken,
            headline=True)
        add({"taker", "zero_trick_loss"}, "q5.swing", "points the 'no trick, no score' rule "
            "removes per taken deal", pl.col("zero_trick_loss"), taken, kind="mean",
            unit="points")
        meld_t = _seat("melds", pl.col("taker")).cast(pl.Float64)
        add({"taker", "taker_total", "melds_s0", "melds_s1", "melds_s2"}, "q6.meld_share",
            "share of the taker's total (tricks + melds) from melds",
            ratio_of_sums(meld_t, pl.col("taker_total").cast(pl.Float64), taken), taken,
            kind="mean", unit="share", headline=True, note="Fieller's interval, its upper end on the log scale")
        add({"taker", "capot_seat"}, "q6.capot", "capot (one player takes all 13 tricks), "
            "per taken deal", pl.col("capot_seat") >= 0, taken)
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q4.length", "deals to reach the target", pl.col("n_deals"),
            done, kind="mean", unit="deals", note="passed-out deals included; capped matches "
                                                  "left out")
        left = (pl.col("first_dealer") + 1) % 3
        add({"winner", "first_dealer"}, "q4.win.first_left", "the first dealer's left (first "
            "to speak) wins the match", pl.col("winner") == left, done, headline=True)
        add({"winner", "first_dealer"}, "q4.win.first_dealer", "the first dealer wins the "
            "match", pl.col("winner") == pl.col("first_dealer"), done)
        finals = {f"final_score_s{i}" for i in range(3)}
        others = (_seat("final_score", pl.col("first_dealer"))
                  + _seat("final_score", (pl.col("first_dealer") + 2) % 3)).cast(pl.Float64)
        add({"winner", "first_dealer"} | finals, "q4.margin.first_left", "the first dealer's "
            "left's final score minus the other two's mean, per match",
            _seat("final_score", left).cast(pl.Float64) - others / 2, done, kind="mean",
            unit="points", note="capped matches left out")
        add({"capped"}, "q4.capped", "matches stopped by the safety cap", pl.col("capped"))
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Taker success",
     "key": "bernicle.q1.success",
     "text": "Takers make {bernicle.q1.success} of their contracts (150-160: "
             "{bernicle.q1.success.150}, 170-190: {bernicle.q1.success.170}, 200-240: "
             "{bernicle.q1.success.200}); {bernicle.q1.passed_out} of deals are passed out"},
    {"question": "2. Is taking profitable?",
     "key": "bernicle.q2.margin", "against": 0.0, "against_text": "no difference",
     "text": "Per taken deal the taker scores {bernicle.q2.taker:bare} and a defender "
             "{bernicle.q2.defender:bare}: a margin of {bernicle.q2.margin}"},
    {"question": "3. The niche",
     "key": "bernicle.q3.petite",
     "text": "The niche brings the defence {bernicle.q3.niche:bare} points per taken deal; "
             "it holds a petite Bernicle in {bernicle.q3.petite} of taken deals "
             "(from the defenders' own 4 discards in {bernicle.q3.petite.defenders})"},
    {"question": "4. Match length and seats",
     "key": "bernicle.q4.win.first_left", "against": 1 / 3, "against_text": "one in three",
     "text": "A match to the target lasts {bernicle.q4.length:bare} deals; the first "
             "dealer's left wins {bernicle.q4.win.first_left} of matches, and his final score "
             "minus the other two's mean is {bernicle.q4.margin.first_left} per match"},
    {"question": "5. No trick, no score",
     "key": "bernicle.q5.zero",
     "text": "A defender takes no trick (and scores nothing) in {bernicle.q5.zero} of taken "
             "deals, removing {bernicle.q5.swing:bare} points per taken deal"},
    {"question": "6. Melds vs tricks",
     "key": "bernicle.q6.meld_share",
     "text": "Melds make {bernicle.q6.meld_share} of the taker's total"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
HAND_STRENGTH_TEXT = ("meld points of the 13 dealt cards with their best trump, plus the "
                      "card points they hold")
_DEFAULT_VECTOR = _vector(BernicleKnobs())


def hand_strength(knobs, hand: list[str]) -> float:
    kv = _vector(knobs) if isinstance(knobs, BernicleKnobs) else _DEFAULT_VECTOR
    mask = np.uint64(0)
    taken: set[int] = set()
    points = 0
    for label in hand:  # a label names two identical cards: take the first not yet used
        c = DECK.index(label)
        c = c + 1 if c in taken else c
        taken.add(c)
        mask |= np.uint64(1) << np.uint64(c)
        points += {"10": 10, "A": 10, "K": 5}.get(label[:-1], 0)
    best = max(int(melds(mask, s, kv)[0]) for s in range(4))
    return float(best + points)
