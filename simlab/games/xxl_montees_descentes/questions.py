"""XXL — Montées et descentes: the catalogue's balance questions as metrics and findings.

1. Seat / starter advantage: the starter's (highest dealt total) and each seat's wins.
2. How the game ends: a player goes out, or the talon runs out and everybody is blocked.
3. Length: turns, draws, a seat drawing more than 5 cards.
4. Luck vs skill: duplicate play (the report's Players section: heuristic vs random,
   search vs heuristic).
5. Hand quality: the dealt hand total against the final place (``hand_strength``).
6. Deck sensitivity: the headline figures under reconstruction v1 and their range over
   generated colourings (``exact_findings``, ``simlab.games.xxl.sensitivity``).

May import: the engine; ``simlab.games.xxl``; this game's modules.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.xxl.reporting import (
    MetricList,
    cached_ranges,
    colouring_paragraph,
    starter_wins_range,
    went_out_range,
)
from simlab.games.xxl.sensitivity import colouring_range

SECTION = "Montées et descentes questions"
PREFIX = "xxl_md"
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
        add({"starter", "winner"}, "q1.starter_wins_all", "the starter wins (share of all "
            "games)", pl.col("winner") == pl.col("starter"))
        add({"winner"}, "q1.shared_win", "games whose lowest penalty is shared",
            pl.col("winner") < 0)
        add({"end"}, "q2.went_out", "games ended by a player going out (colour-dependent)",
            pl.col("end") == "out", headline=True)
        add({"end"}, "q2.blocked", "games ended blocked (talon empty, a full round of passes)",
            pl.col("end") == "blocked", headline=True)
        add({"capped"}, "q2.capped", "games stopped by the stall guard (should be 0)",
            pl.col("capped"))
        add({"turns"}, "q3.turns", "turns per game", pl.col("turns"), kind="mean",
            unit="turns", headline=True)
        add({"draws"}, "q3.draws", "cards drawn per game", pl.col("draws"), kind="mean",
            unit="cards")
        add({"max_seat_draws"}, "q3.draw_more_than_5", "games where a seat draws more than 5 "
            "cards", pl.col("max_seat_draws") > 5)
        add({"draw_plays", "draws"}, "q3.draw_plays", "drawn cards played at once (share of "
            "draws)", ratio_of_sums(pl.col("draw_plays").cast(pl.Float64),
                                   pl.col("draws").cast(pl.Float64), pl.lit(True)),
            kind="mean")
        add({"restarts", "plays"}, "q3.restarts", "plays that start a new series from a free "
            "half (share of plays)", ratio_of_sums(pl.col("restarts").cast(pl.Float64),
                                                 pl.col("plays").cast(pl.Float64),
                                                 pl.lit(True)), kind="mean")
        add({"score_s0"}, "q5.penalty", "penalty per seat (hand total left)",
            pl.mean_horizontal([pl.col(f"score_s{i}") for i in range(n)]), kind="mean",
            unit="points")
        if {"start_total_s0", "place_s0"} <= cols:
            per_card = 12  # the mean card total is 10
            heavy = pl.col("start_total_s0") >= per_card * (knobs.hand_size if knobs else 6)
            light = pl.col("start_total_s0") <= 8 * (knobs.hand_size if knobs else 6)
            add({"start_total_s0", "place_s0"}, "q5.heavy_first", "seat 0 places first "
                "(alone or shared) with a heavy dealt hand (12 or more per card; the mean "
                "card is 10)", pl.col("place_s0") == 1, heavy)
            add({"start_total_s0", "place_s0"}, "q5.light_first", "seat 0 places first "
                "(alone or shared) with a light dealt hand (8 or less per card)",
                pl.col("place_s0") == 1, light)
    else:
        add({"winner"}, "match.shared", "matches whose lowest total is shared",
            pl.col("drawn"), headline=True)
        add({"blocked_games"}, "match.blocked", "blocked games per match",
            pl.col("blocked_games"), kind="mean", unit="games")
    return metrics.kept(cols)


FINDINGS = (
    {"question": "1. Starter advantage", "key": f"{PREFIX}.q1.starter_wins",
     "text": "The starter (highest dealt total) wins {xxl_md.q1.starter_wins} of the games "
             "with a sole winner"},
    {"question": "2. How the game ends", "key": f"{PREFIX}.q2.went_out",
     "text": "{xxl_md.q2.went_out} of the games end with a player going out, "
             "{xxl_md.q2.blocked} blocked (talon empty, nobody can play); the stall guard "
             "stopped {xxl_md.q2.capped}"},
    {"question": "3. Length", "key": f"{PREFIX}.q3.turns",
     "text": "A game lasts {xxl_md.q3.turns} turns with {xxl_md.q3.draws} draws; a seat "
             "draws more than 5 cards in {xxl_md.q3.draw_more_than_5} of the games"},
)


_RANGES: dict = {}  # knobs -> paragraphs


def _compute_ranges(knobs, game) -> list[tuple[str, str]]:
    out = [went_out_range(game, knobs)]
    r = colouring_range(game, knobs, lambda f: f["turns"].mean(), n=3000)
    out.append(("6. Deck sensitivity", "Turns per game: " + r.text("{:.2f}")))
    out.append(starter_wins_range(game, knobs))
    return out


def exact_findings(knobs, game) -> list[tuple[str, str]]:
    """The colouring paragraph every XXL report opens with, and question 6's ranges."""
    head = [colouring_paragraph(knobs, "the dealing frequencies and the starter's identity "
                                "(hand totals do not read colours); everything about play "
                                "depends on the colours")]
    return head + cached_ranges(_RANGES, knobs, game, _compute_ranges)
