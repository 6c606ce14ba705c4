"""Duel à Las Vegas: the catalogue's balance questions as metrics, and the findings that
open the report (the rules are in ``rules.py``, the result columns in ``kernels.py``).

One deal is one partie (both packs shuffled once, to 6 rounds or both packs exhausted),
so the deal and match levels hold the same games; the deal level has the detail."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.duel_las_vegas.rules import DuelLasVegasKnobs

SECTION = "Duel à Las Vegas questions"


def seat0_score(n: int = 2) -> pl.Expr:
    """Per partie, seat 0's result (+1 / 0 / -1): the paired expression of question 5."""
    return pl.col("score_s0").cast(pl.Float64)


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: DuelLasVegasKnobs | None,
                    level: str) -> list[MetricDef]:
    """Catalogue questions. 1 symmetry: seat 0's share of the decided parties, of the
    first rounds; 3 cards per round, rounds per partie; 4 parties ended by exhaustion,
    drawn parties; 6 snowball: the first round's winner, and the leader after 3 rounds,
    win the partie; the players' habits (concessions per decision, largest hands).
    Question 2 (skill ceiling) is a finding with a control run on the same deals where
    seat 1 always draws (knob ``naive_seat``), and the report's Players section (search
    vs heuristic vs random in duplicate play) and ``simlab duel``; question 5 (Jokers and
    skill) is a finding with control runs at 0 and 4 Jokers on the same deals."""
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"duel_las_vegas.{key}", title, SECTION, expr, where, kind,
                              **kw), need))

    decided = pl.col("winner") >= 0
    add({"winner"}, "q1.seat0_wins", "seat 0 wins the partie (share of decided parties)",
        pl.col("winner") == 0, decided, headline=True,
        note="50% if the seats are symmetric; both flip at once, so only the tie and "
             "exhaustion rules could favour one")
    add({"winner"}, "q4.drawn", "drawn parties (equal rounds, both packs exhausted)",
        ~decided, headline=True)
    if level == "deal":
        add({"first_round_winner"}, "q1.seat0_first_round", "seat 0 wins the first round "
            "(share of parties)", pl.col("first_round_winner") == 0)
        cards = pl.col("cards_s0") + pl.col("cards_s1")
        add({"cards_s0", "cards_s1", "n_rounds"}, "q3.cards_per_round", "cards drawn per "
            "round, both players (pooled over parties)",
            ratio_of_sums(cards, pl.col("n_rounds"), pl.lit(True)), kind="mean", unit="cards",
            note="flips, tie draws and draws; Fieller's interval, its upper end on the log scale")
        add({"n_rounds"}, "q3.rounds", "rounds per partie", pl.col("n_rounds"),
            kind="mean", unit="rounds")
        target = knobs.rounds_to_win if isinstance(knobs, DuelLasVegasKnobs) else 6
        add({"n_rounds", "exhausted"}, "q3.sweep", f"parties won {target}-0",
            (pl.col("n_rounds") == target) & ~pl.col("exhausted"))
        add({"tie_draws"}, "q3.tie_draws", "exact ties (both draw) per partie",
            pl.col("tie_draws"), kind="mean", unit="ties")
        add({"exhausted"}, "q4.exhausted", "parties ended by both packs' exhaustion rather "
            "than 6 rounds won", pl.col("exhausted"), headline=True)
        add({"auto_concedes_s0", "auto_concedes_s1"}, "q4.empty_pack", "parties in which a "
            "pack ran out (a round conceded for want of a card)",
            (pl.col("auto_concedes_s0") + pl.col("auto_concedes_s1")) > 0)
        first = pl.col("first_round_winner")
        add({"first_round_winner", "winner"}, "q6.first_round_wins", "the first round's "
            "winner wins the partie", pl.col("winner") == first, (first >= 0) & decided,
            headline=True, note="50% if an early round carried nothing beyond itself")
        lead = pl.col("leader_after_3")
        add({"leader_after_3", "winner"}, "q6.lead3_wins", "the player ahead after 3 "
            "rounds wins the partie", pl.col("winner") == lead, (lead >= 0) & decided,
            headline=True)
        for s in range(2):
            asked = pl.col(f"decisions_s{s}") > 0
            add({f"concedes_s{s}", f"decisions_s{s}"}, f"habit.concede.s{s}",
                f"decisions that concede, seat {s}",
                ratio_of_sums(pl.col(f"concedes_s{s}"), pl.col(f"decisions_s{s}"), asked),
                asked, kind="mean", unit="share", choice=True, note="pooled over parties")
        add({"max_hand_s0", "max_hand_s1"}, "habit.max_hand", "largest hand of a partie "
            "(cards, either seat)", pl.max_horizontal("max_hand_s0", "max_hand_s1"),
            kind="mean", unit="cards")
    else:
        add({"exhausted"}, "q4.match.exhausted", "parties ended by both packs' exhaustion",
            pl.col("exhausted"), headline=True)
        add({"n_deals"}, "q3.match.rounds", "rounds per partie", pl.col("n_deals"),
            kind="mean", unit="rounds")
        cards = pl.col("cards_s0") + pl.col("cards_s1")
        add({"cards_s0", "cards_s1", "n_deals"}, "q3.match.cards_per_round", "cards drawn "
            "per round, both players (pooled)", ratio_of_sums(cards, pl.col("n_deals"), pl.lit(True)),
            kind="mean", unit="cards")
    return [m for m, need in out if need <= cols]


# --- findings: one sentence per balance question, opening the report ----------------------
# Read by ``simlab.analysis.report`` (the format is documented there).
FINDINGS = (
    {"question": "1. Symmetry",
     "key": "duel_las_vegas.q1.seat0_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "Seat 0 wins {duel_las_vegas.q1.seat0_wins} of the decided parties"},
    {"question": "2. Skill ceiling (vs always draw)",
     "key": "seat.score.s0", "control": {"naive_seat": 1}, "paired": seat0_score,
     "difference": "this run minus the control where seat 1 always draws",
     "text": "Seat 0's mean result per partie (+1 won, -1 lost) is {value} against this "
             "run's seat 1 and {control} against the naive 'always draw' player on the "
             "same parties (the Players section gives search over the tuned 'concede if "
             "behind by a category' heuristic in duplicate play)"},
    {"question": "3. Cards per round and length",
     "key": "duel_las_vegas.q3.cards_per_round",
     "text": "A round uses {duel_las_vegas.q3.cards_per_round} from the two packs; a partie "
             "lasts {duel_las_vegas.q3.rounds}"},
    {"question": "4. Exhaustion and draws",
     "key": "duel_las_vegas.q4.exhausted",
     "text": "Both packs run out before anybody wins 6 rounds in "
             "{duel_las_vegas.q4.exhausted} of parties; {duel_las_vegas.q4.drawn} are drawn"},
    {"question": "5. Jokers and skill (vs no Jokers)",
     "key": "seat.score.s0", "control": {"jokers_per_pack": 0}, "paired": seat0_score,
     "difference": "this run's Jokers minus none",
     "text": "Seat 0's mean result per partie (+1 won, -1 lost; with mixed policies such "
             "as --policy search,heuristic it is the skill gap) is {value} with this "
             "run's Jokers and {control} without Jokers"},
    {"question": "5. Jokers and skill (vs 4 Jokers)",
     "key": "seat.score.s0", "control": {"jokers_per_pack": 4}, "paired": seat0_score,
     "difference": "this run's Jokers minus 4",
     "text": "Seat 0's mean result per partie is {value} with this run's Jokers and "
             "{control} with 4 Jokers per pack"},
    {"question": "6. Snowball",
     "key": "duel_las_vegas.q6.first_round_wins", "against": 0.5,
     "against_text": "an even 50%",
     "text": "The first round's winner wins the partie in "
             "{duel_las_vegas.q6.first_round_wins} of decided parties; the player ahead "
             "after 3 rounds in {duel_las_vegas.q6.lead3_wins}"},
)


# --- a simple hand-strength measure (the report's "strong hands win" check) -------------
# Every pack holds the same cards and a partie draws nearly all of them (about 51 of 54
# with the heuristic), so a "strong hand" is a pack whose *order* makes hands cheaply:
# the measure counts the pairs among cards at most 3 apart in the draw order (the
# recorded "dealt" cards are the whole pack), a Joker pairing anything. Measured on
# 6,000 heuristic parties, its Spearman correlation with the partie result is 0.23;
# the categories of successive 5-card blocks give 0.17, the rank sum and the Jokers
# among the first 20 cards nothing or less (a Joker drawn late, in the deciding rounds,
# is worth as much).
HAND_STRENGTH_TEXT = ("pairs among cards at most 3 apart in the seat's pack order (a Joker "
                      "pairs anything)")
NEAR = 3


def hand_strength(knobs: DuelLasVegasKnobs | None, hand: list[str]) -> float:
    ranks = [c if c == "Joker" else c[:-1] for c in hand]
    pairs = 0
    for i, a in enumerate(ranks):
        for b in ranks[i + 1:i + 1 + NEAR]:
            pairs += a == b or "Joker" in (a, b)
    return float(pairs)
