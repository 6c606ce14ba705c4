"""Belote de comptoir balance questions (catalogue "Balance questions"):
``balance_metrics`` turns a frame of deals or matches into metrics, ``FINDINGS`` opens the
report with one sentence per question.

Questions that compare variants (k, the player count, blind against normal, SA/TA
allowed or not) are answered per run: each run measures its own knobs, and ``simlab
compare belote_comptoir --b visibility=blind`` (or ``k=1``, ``players=6``...) sets two
runs side by side on the same deals.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.belote_comptoir.rules import ComptoirKnobs

SECTION = "Belote de comptoir questions"
# Bands of the bidder's hand value (the heuristic's point estimate of his whole hand for
# the contract he named): question 1's "make rate for a given hand value".
VALUE_BANDS = ((0, 30), (30, 50), (50, 80), (80, 10_000))


def _of_taker(n: int, prefix: str) -> pl.Expr:
    """Per row, the ``{prefix}{taker}`` column (null when nobody bid)."""
    out = pl.lit(None, dtype=pl.Int64)
    for i in range(n):
        out = pl.when(pl.col("taker") == i).then(pl.col(f"{prefix}{i}").cast(pl.Int64)) \
            .otherwise(out)
    return out


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: ComptoirKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's six questions as metrics (section "Belote de comptoir questions").

    Deal level: 1 bid calibration (make rate, bid, points, the cushion points - bid, and
    the make rate by band of hand value); 2 scoring asymmetry (a bid's worth against each
    opponent, 2 p - 1, and the points marked per deal); 3 the bidder's share of the
    deal's points against a fair 1/n (leading and naming trump); 4 the make rate under
    this run's visibility; 5 Sans-Atout / Tout-Atout: how often named and made. Match
    level: 6 deals to reach the target. Only metrics whose columns the frame has."""
    k = knobs if isinstance(knobs, ComptoirKnobs) else ComptoirKnobs()
    n = k.players
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"comptoir.{key}", title, SECTION, expr, where, kind, **kw),
                    need))

    setting = (f"{n} players, k = {k.k}, visibility {k.visibility}, auction {k.auction}"
               + (", Sans-Atout allowed" if k.allow_sans_atout else "")
               + (", Tout-Atout allowed" if k.allow_tout_atout else ""))
    if level == "deal":
        bid = pl.col("taker") >= 0
        made = pl.col("made")
        base = {"taker", "made"}
        # 1. bid calibration
        add(base, "q1.made", "bids made (per deal someone bid)", made, bid, headline=True,
            note=setting)
        add({"taker", "bid"}, "q1.bid", "winning bid (points)", pl.col("bid"), bid,
            kind="mean", unit="points", choice=True)
        add({"taker", "taker_points"}, "q1.points", "the bidder's points (cards, dix de der, "
            "belote)", pl.col("taker_points"), bid, kind="mean", unit="points")
        add({"taker", "taker_points", "bid"}, "q1.cushion", "the bidder's points minus his "
            "bid", pl.col("taker_points") - pl.col("bid"), bid, kind="mean", unit="points",
            note="positive: bidders settle below what they take (the open auction stops "
                 "one point above the second-best bidder's limit)")
        for lo, hi in VALUE_BANDS:
            band = (pl.col("taker_estimate") >= lo) & (pl.col("taker_estimate") < hi)
            text = f"{lo}-{hi}" if hi < 10_000 else f"{lo}+"
            add(base | {"taker_estimate"}, f"q1.made.value_{text}",
                f"bids made, bidder's hand value {text} points", made, bid & band,
                note="hand value: the heuristic's point estimate of the bidder's whole hand "
                     "for the contract he named")
            add({"taker", "taker_estimate", "bid"}, f"q1.bid.value_{text}",
                f"winning bid, bidder's hand value {text} points", pl.col("bid"), bid & band,
                kind="mean", unit="points", choice=True)
        # 2. scoring asymmetry: made +1 to the bidder, failed +1 to each of the n - 1 others
        add(base, "q2.edge", "a bid's worth against each opponent (+1 made, -1 failed)",
            pl.when(made).then(1.0).otherwise(-1.0), bid, kind="mean", unit="points",
            note="2 p - 1: a bid made puts the bidder 1 point up on every opponent, a bid "
                 "failed 1 point down on every one, whatever n; break-even p = 50%")
        scores = {f"score_s{i}" for i in range(n)}
        add(scores | {"taker"}, "q2.marked", "points marked per played deal, all players",
            pl.sum_horizontal([pl.col(f"score_s{i}") for i in range(n)]), bid, kind="mean",
            unit="points", note=f"1 when the bid is made, {n - 1} when it fails")
        # 3. leading and naming trump: the bidder's share of the deal's points
        tp = {f"trick_points_s{i}" for i in range(n)}
        share = ratio_of_sums(_of_taker(n, "trick_points_s").cast(pl.Float64),
                              pl.col("deal_points").cast(pl.Float64), bid)
        add(tp | {"taker", "deal_points"}, "q3.share", "the bidder's share of the deal's "
            "points", share, bid, kind="mean", unit="share", headline=True,
            note=f"card points and dix de der he takes over all those of the deal (belote "
                 f"left out); a player without advantage takes 1/{n}; Fieller's interval, its upper end on "
                 "the log scale")
        tricks = {f"tricks_s{i}" for i in range(n)}
        add(tricks | {"taker"}, "q3.tricks", "the bidder's share of the tricks",
            _of_taker(n, "tricks_s").cast(pl.Float64) / k.k, bid, kind="mean", unit="share")
        add({"taker", "last_trick_seat"}, "q3.last_trick", "the bidder takes the last trick",
            pl.col("last_trick_seat") == pl.col("taker"), bid)
        # 4. visibility: how the bids fare when hands are (partly) unseen
        add({"taker", "n_bids"}, "q4.nobody", "everybody passes (deal thrown in)", ~bid,
            note=setting, choice=True)
        add({"taker", "taker_position", "made"}, "q4.made.first_speaker", "bids made by the "
            "first to speak (dealer's left)", made, bid & (pl.col("taker_position") == 0))
        # 5. Sans-Atout / Tout-Atout
        kind = pl.col("contract").cast(pl.String)
        for name, text, on in (("sans_atout", "Sans-Atout", k.allow_sans_atout),
                               ("tout_atout", "Tout-Atout", k.allow_tout_atout),
                               ("trump", "a trump suit", True)):
            if not on:
                continue
            add({"taker", "contract"}, f"q5.named.{name}", f"contract {text} (share of bids)",
                kind == name, bid, choice=True)
            add({"taker", "contract", "made"}, f"q5.made.{name}", f"bids made at {text}",
                made, bid & (kind == name))
    else:
        done = pl.col("winner") >= 0
        add({"winner", "n_deals"}, "q6.length", "deals to reach the target",
            pl.col("n_deals"), done, kind="mean", unit="deals", note=setting)
        add({"winner", "n_deals", "n_thrown_in"}, "q6.played", "played deals per match",
            pl.col("n_deals") - pl.col("n_thrown_in"), done, kind="mean", unit="deals")
        add({"winner", "first_dealer"}, "q6.first_speaker_wins", "the first deal's first "
            "speaker (dealer's left) wins the match",
            pl.col("winner") == (pl.col("first_dealer") + 1) % n, done, headline=True,
            note=f"fair: 1/{n}")
        add({"capped"}, "q6.capped", "matches stopped by the safety cap", pl.col("capped"))
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
FINDINGS = (
    {"question": "1. Bid calibration",
     "key": "comptoir.q1.made", "against": 0.5, "against_text": "a coin flip",
     "text": "Bids are made {comptoir.q1.made} of the time; the bidder takes "
             "{comptoir.q1.points} for a bid of {comptoir.q1.bid}, a cushion of "
             "{comptoir.q1.cushion}"},
    {"question": "1. Bid calibration, by hand value",
     "key": "comptoir.q1.made.value_30-50",
     "text": "By the bidder's hand value: under 30 points {comptoir.q1.made.value_0-30} made "
             "(bid {comptoir.q1.bid.value_0-30}), 30-50 {comptoir.q1.made.value_30-50} "
             "(bid {comptoir.q1.bid.value_30-50}), 50-80 {comptoir.q1.made.value_50-80} "
             "(bid {comptoir.q1.bid.value_50-80}), 80+ {comptoir.q1.made.value_80+} "
             "(bid {comptoir.q1.bid.value_80+})"},
    {"question": "2. Scoring asymmetry",
     "key": "comptoir.q2.edge", "against": 0.0, "against_text": "break-even",
     "text": "A bid is worth {comptoir.q2.edge} against each opponent (made +1, failed -1: "
             "break-even at 50% made whatever the player count); a played deal hands out "
             "{comptoir.q2.marked} in all"},
    {"question": "3. Lead advantage",
     "key": "comptoir.q3.share", "against": lambda n: 1.0 / n,
     "against_text": "a fair 1/n share",
     "text": "Leading and naming trump, the bidder takes {comptoir.q3.share} of the deal's "
             "points and {comptoir.q3.tricks} of the tricks"},
    {"question": "4. Visibility",
     "key": "comptoir.q4.nobody",
     "text": "Under this run's visibility, everybody passes in {comptoir.q4.nobody} of deals "
             "and the first speaker makes {comptoir.q4.made.first_speaker} of his bids "
             "(compare runs with --set visibility=blind)"},
    {"question": "5. Sans-Atout / Tout-Atout",
     "key": "comptoir.q5.made.trump",
     "text": "Trump contracts are made {comptoir.q5.made.trump}; Sans-Atout is named in "
             "{comptoir.q5.named.sans_atout} of bids and made {comptoir.q5.made.sans_atout}, "
             "Tout-Atout named in {comptoir.q5.named.tout_atout} and made "
             "{comptoir.q5.made.tout_atout} (n/a: not allowed in this run)"},
    {"question": "6. Game length",
     "key": "comptoir.q6.length",
     "text": "A match lasts {comptoir.q6.length:bare} deals; the first speaker of its first "
             "deal wins {comptoir.q6.first_speaker_wins}"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# Each card at the better of its trump and plain values (J 20, 9 14, A 11, 10 10, K 4,
# Q 3): trump is named after the auction, so a hand is judged by what it could make.
CARD_STRENGTH = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
HAND_STRENGTH_TEXT = "card values (each at the better of its trump and plain values)"


def hand_strength(knobs: ComptoirKnobs, hand: list[str]) -> float:
    return float(sum(CARD_STRENGTH.get(c[:-1], 0) for c in hand))


def decision_notes(knobs: ComptoirKnobs) -> dict[str, str]:
    """Why a contract kind is never (or always) named under these rules, for the Players
    section's per-kind checks: Sans-Atout and Tout-Atout off leave the trump contract the
    only one a bidder can name."""
    out = {}
    off = [name for name, allowed in (("sans_atout", knobs.allow_sans_atout),
                                      ("tout_atout", knobs.allow_tout_atout)) if not allowed]
    for name in off:
        out[f"contract {name} (rows with a contract)"] = (
            f"not allowed under these rules (allow_{name} = false)")
    if len(off) == 2:
        out["contract trump (rows with a contract)"] = (
            "always: the only contract these rules allow (allow_sans_atout and allow_tout_atout "
            "false)")
    return out
