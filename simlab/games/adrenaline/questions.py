"""Adrénaline: the catalogue's balance questions as metrics, and the findings that open
the report (rules in ``rules.py``, columns in ``rules.deal_columns``).

Question 1 (objectives: completion rate per entry), 2 (the stop: its accuracy and the
stopper's confidence), 3 (bluffs), 4 (the first player), 5 (stop-dominance: how deals end)
are metrics of the rows; the sweeps (best τ, the value of b against the Bayesian player,
the list size) are measured in the task report with ``simlab duel`` / ``simlab tune``."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.adrenaline.rules import OBJECTIVES, AdrenalineKnobs

SECTION = "Adrénaline questions"
HAND_STRENGTH_TEXT = ("the completion estimate of the best entry from the dealt hand "
                      "(each talon card reaching the player with probability 1/2)")


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: AdrenalineKnobs | None,
                    level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"adrenaline.{key}", title, SECTION, expr, where, kind, **kw),
                    need))

    if level == "deal":
        end = pl.col("end").cast(pl.String)
        stop = end.is_in(["stop_right", "stop_wrong"])
        add({"end"}, "q5.finish", "deals ended by a finish", end == "finish", headline=True)
        add({"end"}, "q5.stop", "deals ended by a stop", stop, headline=True)
        add({"end"}, "q5.exhausted", "deals ended with the talon exhausted (0 to both)",
            end == "exhausted")
        add({"end"}, "q2.stop_right", "stops that named the right objective (share of stops)",
            end == "stop_right", stop, headline=True)
        add({"end", "talon_left"}, "q2.stop_t", "cards left in the talon at a stop",
            pl.col("talon_left"), stop, kind="mean", unit="cards")
        add({"end", "talon_left"}, "q1.finish_t", "cards left in the talon at a finish",
            pl.col("talon_left"), end == "finish", kind="mean", unit="cards")
        add({"end", "stop_confidence"}, "q2.confidence", "the stopper's posterior on its "
            "guess (per million)", pl.col("stop_confidence"), stop, kind="mean",
            unit="ppm")
        add({"winner", "first_player"}, "q4.first_wins", "the first player wins the deal "
            "(share of decided deals)", pl.col("winner") == pl.col("first_player"),
            pl.col("winner") >= 0, headline=True)
        add({"bluffs_s0", "draws"}, "q3.bluffs", "bluff discards per deal, seat 0",
            pl.col("bluffs_s0"), kind="mean", unit="discards")
        for s in (0, 1):
            mine = (end == "finish") & (pl.col("ender") == s)
            for name in OBJECTIVES:
                add({"end", "ender", f"objective_s{s}"}, f"q1.finish.{name}.s{s}",
                    f"seat {s} finishes, objective {name} (deals with it)", mine,
                    pl.col(f"objective_s{s}").cast(pl.String) == name)
                add({"end", "ender", f"objective_s{s}"}, f"q1.found.{name}.s{s}",
                    f"seat {s}'s objective {name} is found by a stop (deals with it)",
                    (end == "stop_right") & (pl.col("ender") == 1 - s),
                    pl.col(f"objective_s{s}").cast(pl.String) == name)
    else:
        decided = pl.col("winner") >= 0
        add({"winner"}, "q4.match.seat0_wins", "seat 0 wins the match (share of decided "
            "matches)", pl.col("winner") == 0, decided, headline=True)
        add({"stops", "n_deals"}, "q5.match.stops", "deals ended by a stop per match",
            pl.col("stops"), kind="mean", unit="deals")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "5. Payoff balance", "key": "adrenaline.q5.stop",
     "text": "{adrenaline.q5.stop} of the deals end with a stop, {adrenaline.q5.finish} with "
             "a finish and {adrenaline.q5.exhausted} with the talon exhausted"},
    {"question": "2. Stop threshold", "key": "adrenaline.q2.stop_right",
     "text": "{adrenaline.q2.stop_right} of the stops name the right objective, with "
             "{adrenaline.q2.stop_t} cards left in the talon on average"},
    {"question": "4. First player", "key": "adrenaline.q4.first_wins", "against": 0.5,
     "against_text": "an even 50%",
     "text": "The first player wins {adrenaline.q4.first_wins} of the decided deals"},
)


def hand_strength(knobs: AdrenalineKnobs, hand: list[str]) -> float:
    from simlab.games.adrenaline.rules import (
        N_CARDS,
        completion_estimate,
        hand_mask,
        objectives_in_play,
    )

    mine = hand_mask(hand)
    talon = ((1 << N_CARDS) - 1) & ~mine
    return max(float(completion_estimate(o, mine, talon)) for o in objectives_in_play(knobs))


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    if "end" not in columns:
        return []
    end = pl.col("end").cast(pl.String)
    return [("a player stops (deals)", end.is_in(["stop_right", "stop_wrong"]), pl.lit(True)),
            ("a deal goes on to a finish (deals)", end == "finish", pl.lit(True))]
