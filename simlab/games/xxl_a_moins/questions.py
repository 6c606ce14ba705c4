"""XXL — À moins: the catalogue's balance questions as metrics and findings.

1. Starter advantage: the starter's (highest dealt total) and each seat's wins.
2. How the game ends (a player goes out, or blocked with the talon empty); forced draws.
3. Tempo: the longest run of turns ending in a draw, and whole-table draw cycles.
4. Skill: duplicate play (the report's Players section: heuristic vs random, search vs
   heuristic).
5. Hand quality: hands rich in low halves (0-2) against the final place.
6. Deck sensitivity: headline figures under reconstruction v1 and their range over
   generated colourings (``exact_findings``, ``simlab.games.xxl.sensitivity``).

May import: the engine; ``simlab.games.xxl``; this game's modules.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.xxl.reporting import (
    MetricList,
    cached_ranges,
    colouring_paragraph,
    starter_wins_range,
    went_out_range,
)
from simlab.games.xxl.sensitivity import colouring_range

SECTION = "À moins questions"
PREFIX = "xxl_am"
HAND_STRENGTH_TEXT = "minus the dealt hand total (light hands are strong)"


def hand_strength(knobs, hand: list[str]) -> float:
    """Minus the dealt hand's total: the penalty is the total left in hand."""
    return -float(sum(int(a) + int(b) for a, b in (c.split("-") for c in hand)))


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs, level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    metrics = MetricList(PREFIX, SECTION)
    add = metrics.add

    if level == "deal":
        n = knobs.players if knobs is not None else 4
        decided = pl.col("winner") >= 0
        add({"starter", "winner"}, "q1.starter_wins", "the starter (highest dealt total) "
            "wins (share of games with a sole winner)", pl.col("winner") == pl.col("starter"),
            decided, headline=True, note=f"{1 / n:.1%} if starting neither helps nor hurts")
        add({"winner"}, "q1.shared_win", "games whose lowest penalty is shared",
            pl.col("winner") < 0)
        add({"end"}, "q2.went_out", "games ended by a player going out",
            pl.col("end") == "out", headline=True)
        add({"end"}, "q2.blocked", "games ended blocked (talon empty, a full round of passes)",
            pl.col("end") == "blocked", headline=True)
        add({"capped"}, "q2.capped", "games stopped by the stall guard (should be 0)",
            pl.col("capped"))
        add({"draws"}, "q2.draws", "forced draws per game", pl.col("draws"), kind="mean",
            unit="cards", headline=True)
        add({"turns"}, "q3.turns", "turns per game", pl.col("turns"), kind="mean",
            unit="turns")
        add({"max_draw_run"}, "q3.max_draw_run", "longest run of consecutive turns ending "
            "in a draw", pl.col("max_draw_run"), kind="mean", unit="turns")
        add({"max_draw_run"}, "q3.table_cycle", f"games with a whole-table draw cycle ({n} "
            "or more turns in a row ending in a draw)", pl.col("max_draw_run") >= n)
        add({"max_seat_draws"}, "q3.draw_more_than_5", "games where a seat draws more than 5 "
            "cards", pl.col("max_seat_draws") > 5)
        add({"score_s0"}, "q5.penalty", "penalty per seat (hand total left)",
            pl.mean_horizontal([pl.col(f"score_s{i}") for i in range(n)]), kind="mean",
            unit="points")
        if {"low_halves_s0", "place_s0"} <= cols:
            add({"low_halves_s0", "place_s0"}, "q5.rich_low_first", "seat 0 places first "
                "(alone or shared) holding 5 or more halves numbered 0-2",
                pl.col("place_s0") == 1, pl.col("low_halves_s0") >= 5)
            add({"low_halves_s0", "place_s0"}, "q5.poor_low_first", "seat 0 places first "
                "(alone or shared) holding 1 or no half numbered 0-2",
                pl.col("place_s0") == 1, pl.col("low_halves_s0") <= 1)
    else:
        add({"drawn"}, "match.shared", "matches whose lowest total is shared",
            pl.col("drawn"), headline=True)
        add({"blocked_games"}, "match.blocked", "blocked games per match",
            pl.col("blocked_games"), kind="mean", unit="games")
    return metrics.kept(cols)


FINDINGS = (
    {"question": "1. Starter advantage", "key": f"{PREFIX}.q1.starter_wins",
     "text": "The starter (highest dealt total) wins {xxl_am.q1.starter_wins} of the games "
             "with a sole winner"},
    {"question": "2. How the game ends", "key": f"{PREFIX}.q2.went_out",
     "text": "{xxl_am.q2.went_out} of the games end with a player going out, "
             "{xxl_am.q2.blocked} blocked (talon empty, nobody can play), with "
             "{xxl_am.q2.draws} forced draws per game; the stall guard stopped "
             "{xxl_am.q2.capped}"},
    {"question": "3. Tempo", "key": f"{PREFIX}.q3.max_draw_run",
     "text": "The longest run of turns ending in a draw is {xxl_am.q3.max_draw_run} turns; "
             "{xxl_am.q3.table_cycle} of the games see a whole-table draw cycle"},
    {"question": "5. Hand quality", "key": f"{PREFIX}.q5.rich_low_first",
     "against": f"{PREFIX}.q5.poor_low_first",
     "against_text": "seat 0 holding 1 or no low half",
     "text": "Seat 0 places first in {xxl_am.q5.rich_low_first} of the games when dealt 5 "
             "or more halves numbered 0-2, against {xxl_am.q5.poor_low_first} with 1 or "
             "none"},
)


_RANGES: dict = {}  # knobs -> paragraphs


def _compute_ranges(knobs, game) -> list[tuple[str, str]]:
    out = [went_out_range(game, knobs)]
    r = colouring_range(game, knobs, lambda f: f["draws"].mean(), n=3000)
    out.append(("6. Deck sensitivity", "Forced draws per game: " + r.text("{:.2f}")))
    out.append(starter_wins_range(game, knobs))
    return out


def exact_findings(knobs, game) -> list[tuple[str, str]]:
    """The colouring paragraph every XXL report opens with, and question 6's ranges."""
    head = [colouring_paragraph(knobs, "the dealing frequencies, the starter's identity "
                                "and the low-halves counts of question 5 (numbers, not "
                                "colours); everything about play depends on the colours")]
    return head + cached_ranges(_RANGES, knobs, game, _compute_ranges)
