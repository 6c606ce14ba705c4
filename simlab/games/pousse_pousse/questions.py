"""Le pousse-pousse: the catalogue's balance questions as metrics of the rows (rules in
``rules.py``, columns in ``rules.deal_columns``).

1. starting roles: the first placer (lot winner; the other seat slides first) wins;
2. build vs slide: the share of the points scored while building;
3. length: sliding turns, the draw rate at the turn cap;
4. gifts: points scored for a seat on the opponent's turn;
5. rule sensitivity: ``simlab compare`` over ``rescore_on_shift`` and
   ``score_increment_only`` (a finding below compares the first placer's edge).

May import: the engine and this game's rules.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import Derived, MetricDef
from simlab.games.pousse_pousse.rules import PoussePousseKnobs

SECTION = "Le pousse-pousse questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: PoussePousseKnobs | None,
                    level: str) -> list[MetricDef]:
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"pousse_pousse.{key}", title, SECTION, expr, where, kind,
                              **kw), need))

    if level == "deal":
        fr = pl.col("first_player_result")
        add({"first_player_result"}, "q1.first_wins", "the first placer (the other seat "
            "slides first) wins (share of decided games)", fr == 1, fr != 0, headline=True,
            note="50% when neither role is worth anything")
        add({"first_player_result"}, "q1.first_wins_all", "the first placer wins (share of "
            "all games)", fr == 1)
        both = pl.col("score_s0") + pl.col("score_s1")
        build = pl.col("build_points_s0") + pl.col("build_points_s1")
        add({"build_points_s0", "build_points_s1"}, "q2.build_points", "points scored while "
            "building (both seats)", build, kind="mean", unit="points", headline=True)
        add({"build_points_s0", "build_points_s1", "score_s0"}, "q2.build_share", "share of "
            "all points scored while building", Derived("ratio", (build, both)),
            kind="mean", unit="ratio")
        add({"length"}, "q3.length", "sliding turns per game", pl.col("length"),
            kind="mean", unit="turns", headline=True)
        add({"draw"}, "q3.draw", "drawn games (stopped by the turn cap)", pl.col("draw"),
            headline=True)
        end = pl.col("end_reason")
        add({"end_reason"}, "q3.end.turn_cap", "games stopped by the turn cap (stall "
            "guard)", end == "turn_cap", headline=True)
        add({"end_reason"}, "q3.end.no_move", "games stopped with no legal turn",
            end == "no_move")
        gifts = pl.col("gift_points_s0") + pl.col("gift_points_s1")
        add({"gift_points_s0", "gift_points_s1"}, "q4.gift_points", "points given to the "
            "opponent per game (scored on the other seat's turn)", gifts, kind="mean",
            unit="points", headline=True)
        add({"gift_points_s0", "gift_points_s1"}, "q4.any_gift", "games with a gift",
            gifts > 0)
        add({"runs_s0", "runs_s1"}, "q3.runs", "runs scored per game",
            pl.col("runs_s0") + pl.col("runs_s1"), kind="mean", unit="runs")
    else:
        decided = pl.col("winner") >= 0
        add({"winner"}, "q1.match.seat0_wins", "seat 0 (♠) wins the two-game match (share "
            "of decided matches)", pl.col("winner") == 0, decided, headline=True)
        add({"drawn"}, "q1.match.drawn", "drawn matches", pl.col("drawn"), headline=True)
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Starting roles",
     "key": "pousse_pousse.q1.first_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "The first placer (the other seat slides first) wins "
             "{pousse_pousse.q1.first_wins} of the decided games"},
    {"question": "2. Build vs slide",
     "key": "pousse_pousse.q2.build_points",
     "text": "Points scored while building: {pousse_pousse.q2.build_points} a game"},
    {"question": "3. Length",
     "key": "pousse_pousse.q3.length",
     "text": "Sliding turns: {pousse_pousse.q3.length}; stopped by the turn cap (draws): "
             "{pousse_pousse.q3.end.turn_cap}"},
    {"question": "4. Gifts",
     "key": "pousse_pousse.q4.gift_points",
     "text": "Points given to the opponent: {pousse_pousse.q4.gift_points} a game; games "
             "with a gift: {pousse_pousse.q4.any_gift}"},
    {"question": "5. Rule sensitivity",
     "key": "pousse_pousse.q3.length",
     "control": {"rescore_on_shift": True},
     "paired": lambda n: pl.col("length").cast(pl.Float64),
     "against_text": "rescoring runs slid intact (same lots, same players)",
     "text": "Sliding turns when a run slid intact does not score again (the catalogue's "
             "reading): {value}"},
)
