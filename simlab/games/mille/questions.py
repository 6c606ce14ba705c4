"""Mille balance questions (catalogue ``mille.md`` "Balance questions"): ``balance_metrics``
turns a frame of deals or matches into metrics, ``FINDINGS`` opens the report with one
sentence per question, ``hand_strength`` is the Players section's measure."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.mille.rules import CONTRACTS, NP, MilleKnobs

SECTION = "Mille questions"
KEY_OF = {">120": "over120"}  # metric keys hold no ">" (report placeholders)


def _seat_value(prefix: str, seat: pl.Expr) -> pl.Expr:
    """Value of column ``{prefix}_s{p}`` for the seat given per row by ``seat``."""
    out = pl.lit(None, dtype=pl.Float64)
    for p in range(NP):
        out = pl.when(seat == p).then(pl.col(f"{prefix}_s{p}").cast(pl.Float64)).otherwise(out)
    return out


def taker_mark(_: int = NP) -> pl.Expr:
    """The taker's mark per deal (the paired expression of the bomb's control run)."""
    return _seat_value("score", pl.col("taker"))


def match_length(_: int = NP) -> pl.Expr:
    """Deals per match (the paired expression of the zero-bar control run)."""
    return pl.col("n_deals").cast(pl.Float64)


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: MilleKnobs | None,
                    level: str) -> list[MetricDef]:
    """The catalogue's six balance questions as metrics (keys ``mille.qN...``).

    Deal level: 1 taker success by bid level; 2 the forced opener against the others;
    4 how often the bomb is used (every seat holds one in a single-deal run); 5 the
    marriages' share of the taker's points and the >120 bids; 6 zero bars. Match level:
    2 (the standard "match win rate, first ..." metrics), 3 length and the barrel, 4 bombs
    per match, 6 zero-bar penalties. Only metrics whose columns the frame has are
    returned."""
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"mille.{key}", title, SECTION, expr, where, kind, **kw), need))

    if level == "deal":
        played = ~pl.col("bomb")
        made = pl.col("made")
        contract = pl.col("contract").cast(pl.String)
        bid = {"made", "contract", "bomb"}
        # 1. taker success by bid level
        add(bid, "q1.success", "taker success (played deals)", made, played, headline=True)
        for c in CONTRACTS:
            name = KEY_OF.get(c, c)
            add(bid, f"q1.success.{name}", f"taker success, bid {c} (played deals at that bid)",
                made, played & (contract == c), headline=c in ("100", ">120"))
            add(bid, f"q1.share.{name}", f"share of deals won at bid {c}", contract == c,
                choice=True)
        # 2. the forced opener (dealer + 1) against the other seats
        opener = (pl.col("dealer") + 1) % NP
        scores = {f"score_s{i}" for i in range(NP)} | {"dealer", "taker"}
        opener_mark = _seat_value("score", opener)
        others = (sum(pl.col(f"score_s{i}").cast(pl.Float64) for i in range(NP))
                  - opener_mark) / (NP - 1)
        add(scores, "q2.opener_minus_others", "forced opener's mark per deal minus the "
            "others' mean", opener_mark - others, kind="mean", unit="points",
            note="all deals; positive: the forced opening is an advantage")
        add(scores | {"raised"}, "q2.opener_stuck", "the forced opener takes at 100 (nobody "
            "raised)", ~pl.col("raised"), headline=True, choice=True)
        add(scores | {"made", "bomb"}, "q2.opener_success", "taker success when the taker "
            "is the forced opener (played deals)", made, played & (pl.col("taker") == opener))
        # 4. the bomb
        add({"bomb"}, "q4.bomb", "the taker uses his bomb (all deals; every seat holds one "
            "in a single-deal run)", pl.col("bomb"), headline=True, choice=True)
        add({"bomb", "raised"}, "q4.bomb.stuck", "bomb rate when the forced opener takes "
            "unraised", pl.col("bomb"), ~pl.col("raised"), choice=True)
        add(scores | {"bomb"}, "q4.taker_mark", "taker's mark per deal", taker_mark(),
            kind="mean", unit="points", note="bombed deals count 0")
        # 5. marriages
        tk = {"taker_total", "taker_marriages", "bomb"}
        add(tk, "q5.marriage_share", "share of the taker's points from marriages (played "
            "deals)", ratio_of_sums(pl.col("taker_marriages").cast(pl.Float64),
                                    pl.col("taker_total").cast(pl.Float64), played),
            played, kind="mean", unit="share", headline=True,
            note="taker's marriage points over his tricks + marriages, summed over played "
                 "deals; delta-method interval")
        add(tk, "q5.taker_declares", "the taker declares a marriage (played deals)",
            pl.col("taker_marriages") > 0, played)
        add({"n_marriages", "bomb"}, "q5.marriages", "marriages declared per played deal",
            pl.col("n_marriages"), played, kind="mean", unit="marriages")
        add({"contract"}, "q5.over_120", "bids above 120 (share of deals)",
            contract == ">120", choice=True)
        # 6. zero bars
        zero = {f"zero_s{i}" for i in range(NP)}
        bars = sum(pl.col(f"zero_s{i}").cast(pl.Float64) for i in range(NP))
        add(zero | {"bomb"}, "q6.zero_bar", "a defender's tricks are worth 0: zero bars per "
            "defender and played deal", bars / (NP - 1), played, kind="mean", unit="share",
            headline=True)
    else:
        done = pl.col("winner") >= 0
        length = {"winner", "n_deals"}
        add(length, "q3.length", "deals per match", pl.col("n_deals"), done, kind="mean",
            unit="deals", note="capped matches left out")
        add(length | {"n_barrel_deals"}, "q3.barrel_deals", "share of deals that begin with "
            "someone on the barrel", ratio_of_sums(pl.col("n_barrel_deals").cast(pl.Float64),
                                                 pl.col("n_deals").cast(pl.Float64), done),
            done, kind="mean", unit="share", headline=True, note="delta-method interval")
        add({"winner", "winner_from_barrel"}, "q3.won_from_barrel", "the winner took the "
            "last deal from the barrel", pl.col("winner_from_barrel"), done, headline=True)
        add({"winner", "n_barrel_falls"}, "q3.falls", "barrel falls per match",
            pl.col("n_barrel_falls"), done, kind="mean", unit="falls")
        add({"winner", "n_barrel_falls"}, "q3.any_fall", "matches with a barrel fall",
            pl.col("n_barrel_falls") > 0, done)
        add({"winner", "n_bombs"}, "q4.bombs", "bombs used per match", pl.col("n_bombs"), done,
            kind="mean", unit="bombs")
        add({"winner", "n_zero_penalties"}, "q6.penalties", "zero-bar penalties per match",
            pl.col("n_zero_penalties"), done, kind="mean", unit="penalties")
        add({"winner", "n_zero_penalties"}, "q6.any_penalty", "matches with a zero-bar "
            "penalty", pl.col("n_zero_penalties") > 0, done, headline=True)
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
FINDINGS = (
    {"question": "1. Taker success by bid",
     "key": "mille.q1.success.100", "against": "mille.q1.success.over120",
     "text": "Takers make {mille.q1.success} of played contracts: {mille.q1.success.100} at "
             "100, {mille.q1.success.105} at 105, {mille.q1.success.110} at 110, "
             "{mille.q1.success.115} at 115, {mille.q1.success.120} at 120 and "
             "{mille.q1.success.over120} above 120",
     "difference": "bid 100 minus above 120"},
    {"question": "2. Seat effect",
     "key": "mille.q2.opener_minus_others", "against": 0.0, "against_text": "the others' mark",
     "text": "The forced opener marks {mille.q2.opener_minus_others} per deal against the "
             "others' mean and is left to take at 100 in {mille.q2.opener_stuck} of deals"},
    {"question": "2. Seat effect in a match",
     "key": "match.win_pos.1", "against": lambda n: 1 / n, "against_text": "an even third",
     "text": "The first forced opener (the first dealer's left) wins {match.win_pos.1} of "
             "matches, the first dealer {match.win_pos.0} and the third seat "
             "{match.win_pos.2}"},
    {"question": "3. Match length and the barrel",
     "key": "mille.q3.length",
     "text": "A match lasts {mille.q3.length:bare} deals; {mille.q3.barrel_deals} of deals "
             "begin with someone on the barrel, {mille.q3.won_from_barrel} of matches are "
             "won from it, and there are {mille.q3.falls:bare} barrel falls per match"},
    {"question": "4. The bomb",
     "key": "mille.q4.taker_mark",
     "control": {"bombs_per_match": 0}, "paired": taker_mark,
     "against_text": "on the same deals without bombs (bombs_per_match = 0)",
     "text": "With a bomb in every hand the taker bombs {mille.q4.bomb} of deals, and his "
             "mark per deal is {value}"},
    {"question": "4. Bombs in a match",
     "key": "mille.q4.bombs",
     "text": "Players use {mille.q4.bombs:bare} bombs per match"},
    {"question": "5. Marriages",
     "key": "mille.q5.marriage_share",
     "text": "Marriages bring {mille.q5.marriage_share} of the taker's points; bids above "
             "120 win {mille.q5.over_120} of auctions and are made {mille.q1.success.over120}"},
    {"question": "6. Zero bars",
     "key": "mille.q6.zero_bar",
     "text": "A defender ends a played deal with 0 trick points {mille.q6.zero_bar} of the "
             "time"},
    {"question": "6. Zero-bar penalties",
     "key": "mille.q6.any_penalty",
     "text": "{mille.q6.any_penalty} of matches see a zero-bar penalty "
             "({mille.q6.penalties:bare} per match)"},
    {"question": "6. Do zero-bar penalties swing matches",
     "key": "mille.q3.length", "control": {"zero_penalty": 0}, "paired": match_length,
     "against_text": "in the same matches without zero-bar penalties (zero_penalty = 0)",
     "text": "With zero-bar penalties a match lasts {value}"},
)


def decisions(_: MilleKnobs | None, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr | None]]:
    """The players' own choices, for the Players section's "never or always taken" checks
    (nobody ever passing the whole auction is the forced opening's rule, not a habit)."""
    if not {"bomb", "raised", "contract", "taker_held_marriage"} <= set(columns):
        return []
    return [("the taker uses his bomb", pl.col("bomb"), None),
            ("someone raises the forced opening", pl.col("raised"), None),
            ("a taker holding a marriage bids above 120", pl.col("contract") == ">120",
             pl.col("taker_held_marriage"))]


# --- a simple hand-strength measure (the Players section's "strong hands win") -----------
HAND_STRENGTH_TEXT = "card points of the 7 dealt cards + the marriages they hold"
CARD_POINTS = {"9": 0, "J": 2, "Q": 3, "K": 4, "10": 10, "A": 11}


def hand_strength(knobs: MilleKnobs | None, hand: list[str]) -> float:
    k = knobs if isinstance(knobs, MilleKnobs) else MilleKnobs()
    values = {"♠": k.marriage_spades, "♣": k.marriage_clubs, "♦": k.marriage_diamonds,
              "♥": k.marriage_hearts}
    total = float(sum(CARD_POINTS[c[:-1]] for c in hand))
    for suit, v in values.items():
        if f"Q{suit}" in hand and f"K{suit}" in hand:
            total += v
    return total
