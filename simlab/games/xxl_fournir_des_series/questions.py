"""XXL — Fournir des séries: the catalogue's balance questions as metrics and findings.

1. Seat advantage: the starter's and each seat's wins.
2. Runs: runs per player, points per run, cards left unused.
3. Value vs speed: duplicate play of heuristic thresholds (``simlab duel`` with
   ``--set heuristic_threshold=...``), and the Players section.
4. Display denial: how often feeding and swapping are used.
5. Stalls: reveals after a full round of passes, game length, stall-guard ends.
6. Player count: answered by runs at other ``players`` values (the metrics are the same).
7. Deck sensitivity: headline figures under reconstruction v1 and their range over
   generated colourings (``exact_findings``, ``simlab.games.xxl.sensitivity``).

May import: the engine; ``simlab.games.xxl``; this game's modules.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.xxl.reporting import MetricList, cached_ranges, colouring_paragraph
from simlab.games.xxl.sensitivity import colouring_range

SECTION = "Fournir des séries questions"
PREFIX = "xxl_fs"
HAND_STRENGTH_TEXT = ("dealt hand total / 10 + its run prospects (pairs of one colour within "
                      "two numbers)")


def hand_strength(knobs, hand: list[str]) -> float:
    """The dealt hand's total / 10 plus its run prospects under the run's colouring (pairs
    of halves of one colour one or two numbers apart, three in a row counted three times):
    the dealt cards are often laid, so their total counts (measured on 3,000 heuristic
    deals: decile means rise monotonically, 97 to 130 points)."""
    from simlab.games.xxl.colouring import parse_colouring

    colour = parse_colouring(knobs.deck_colouring if knobs is not None else "v1")
    bits = [0, 0, 0, 0]
    for c in hand:
        a, b = (int(x) for x in c.split("-"))
        bits[colour[a, b]] |= 1 << a
        bits[colour[b, a]] |= 1 << b
    s = 0.0
    for c in hand:
        s += sum(int(x) for x in c.split("-")) / 10
    for x in bits:
        s += bin(x & (x >> 1)).count("1") + bin(x & (x >> 2)).count("1")
        s += 3 * bin(x & (x >> 1) & (x >> 2)).count("1")
    return float(s)


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs, level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    metrics = MetricList(PREFIX, SECTION)
    add = metrics.add

    if level == "deal":
        n = knobs.players if knobs is not None else 4
        add({"starter", "winner"}, "q1.starter_wins", "the starter (highest dealt total) "
            "wins (share of games with a sole winner)", pl.col("winner") == pl.col("starter"),
            pl.col("winner") >= 0, headline=True,
            note=f"{1 / n:.1%} if starting neither helps nor hurts")
        add({"winner"}, "q1.shared_win", "games whose highest score is shared",
            pl.col("winner") < 0)
        add({"runs"}, "q2.runs_per_player", "runs laid per player",
            pl.col("runs") / n, kind="mean", unit="runs", headline=True)
        add({"runs", "score_s0"}, "q2.points_per_run", "points per run",
            ratio_of_sums(pl.sum_horizontal([pl.col(f"score_s{i}") for i in range(n)])
                          .cast(pl.Float64), pl.col("runs").cast(pl.Float64), pl.lit(True)),
            kind="mean")
        add({"unused_cards"}, "q2.unused", "cards left in hands at the end",
            pl.col("unused_cards"), kind="mean", unit="cards")
        add({"display_run_cards", "runs"}, "q2.display_share", "display cards per run",
            ratio_of_sums(pl.col("display_run_cards").cast(pl.Float64),
                          pl.col("runs").cast(pl.Float64), pl.lit(True)), kind="mean")
        add({"feeds"}, "q4.feeds", "cards fed to the display per game", pl.col("feeds"),
            kind="mean", unit="cards")
        add({"swaps"}, "q4.swaps", "swaps with the display per game", pl.col("swaps"),
            kind="mean", unit="swaps")
        add({"reveals"}, "q5.reveals", "talon cards turned after a full round of passes",
            pl.col("reveals"), kind="mean", unit="cards")
        add({"turns"}, "q5.turns", "turns per game", pl.col("turns"), kind="mean",
            unit="turns", headline=True)
        add({"end"}, "q5.all_passed", "games ended by a full round of passes with the talon "
            "empty (the stall guard of the all-pass rule)", pl.col("end") == "all_passed",
            headline=True)
        add({"capped"}, "q5.capped", "games stopped by the turn cap", pl.col("capped"))
        add({"score_s0"}, "q6.spread", "spread of the scores (best minus worst)",
            pl.max_horizontal([pl.col(f"score_s{i}") for i in range(n)])
            - pl.min_horizontal([pl.col(f"score_s{i}") for i in range(n)]),
            kind="mean", unit="points")
    else:
        add({"drawn"}, "match.shared", "matches whose highest total is shared",
            pl.col("drawn"), headline=True)
    return metrics.kept(cols)


FINDINGS = (
    {"question": "1. Seat advantage", "key": f"{PREFIX}.q1.starter_wins",
     "text": "The starter (highest dealt total) wins {xxl_fs.q1.starter_wins} of the games "
             "with a sole winner"},
    {"question": "2. Runs", "key": f"{PREFIX}.q2.runs_per_player",
     "text": "A player lays {xxl_fs.q2.runs_per_player} runs per game, worth "
             "{xxl_fs.q2.points_per_run} points each; {xxl_fs.q2.unused} cards stay unused"},
    {"question": "4. Display denial", "key": f"{PREFIX}.q4.feeds",
     "text": "Per game, {xxl_fs.q4.feeds} cards are fed to the display and "
             "{xxl_fs.q4.swaps} swaps are made (heuristic players)"},
    {"question": "5. Stalls", "key": f"{PREFIX}.q5.turns",
     "text": "A game lasts {xxl_fs.q5.turns} turns, with {xxl_fs.q5.reveals} all-pass "
             "reveals; {xxl_fs.q5.all_passed} end by a full round of passes with the talon "
             "empty and {xxl_fs.q5.capped} by the turn cap"},
)


_RANGES: dict = {}  # knobs -> paragraphs


def _compute_ranges(knobs, game) -> list[tuple[str, str]]:
    n = knobs.players
    out = []
    r = colouring_range(game, knobs, lambda f: f["runs"].mean() / n, n=2000)
    out.append(("7. Deck sensitivity", "Runs per player: " + r.text("{:.2f}")
                + " (2,000 heuristic games each, the same deals)"))
    r = colouring_range(game, knobs, lambda f: sum(f[f"score_s{i}"].sum() for i in range(n))
                        / max(1, f["runs"].sum()), n=2000)
    out.append(("7. Deck sensitivity", "Points per run: " + r.text("{:.2f}")))
    return out


def exact_findings(knobs, game) -> list[tuple[str, str]]:
    """The colouring paragraph every XXL report opens with, and the colouring ranges."""
    head = [colouring_paragraph(knobs, "the dealing frequencies and the starter's identity; "
                                "runs are one colour, so everything about play depends on "
                                "the colours")]
    return head + cached_ranges(_RANGES, knobs, game, _compute_ranges)
