"""Le cartawel: the catalogue's balance questions as metrics of the rows (rules in
``rules.py``, columns in ``rules.deal_columns``).

1. first player (the lot winner lays first and sows first): his share of decided games,
   under whatever players the run has (minimax vs minimax, mcts vs mcts: ``--policy``);
3. captures: piles and cards taken, the largest single capture, points left on the circle;
4. how games end: no move, the no-capture limit, a repetition, the move cap (a stall
   guard, counted a draw), and draws;
2 and 5 (laying vs sowing, rule sensitivity) are runs of their own: mixed policies, and
``simlab compare`` over ``chain_scope`` / ``ace_high``.

May import: the engine and this game's rules.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef
from simlab.games.cartawel.rules import CartawelKnobs

SECTION = "Le cartawel questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: CartawelKnobs | None,
                    level: str) -> list[MetricDef]:
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"cartawel.{key}", title, SECTION, expr, where, kind, **kw),
                    need))

    if level == "deal":
        fr = pl.col("first_player_result")
        add({"first_player_result"}, "q1.first_wins", "the first player (lot winner: lays "
            "and sows first) wins (share of decided games)", fr == 1, fr != 0,
            headline=True, note="50% when moving first is worth nothing")
        add({"first_player_result"}, "q1.first_wins_all", "the first player wins (share of "
            "all games)", fr == 1)
        add({"draw"}, "q4.draw", "drawn games (equal points, or stopped by the move cap)",
            pl.col("draw"), headline=True)
        add({"length"}, "q3.length", "sowing moves per game", pl.col("length"), kind="mean",
            unit="moves", headline=True)
        add({"captures_s0", "captures_s1"}, "q3.captures", "piles captured per game (both "
            "seats)", pl.col("captures_s0") + pl.col("captures_s1"), kind="mean",
            unit="piles", headline=True)
        add({"cards_taken_s0", "cards_taken_s1"}, "q3.cards_taken", "cards captured per "
            "game (of 26)", pl.col("cards_taken_s0") + pl.col("cards_taken_s1"),
            kind="mean", unit="cards")
        add({"score_s0", "score_s1"}, "q3.points_taken", "points captured per game (of 268)",
            pl.col("score_s0") + pl.col("score_s1"), kind="mean", unit="points")
        add({"points_left"}, "q3.points_left", "points left on the circle at the end",
            pl.col("points_left"), kind="mean", unit="points", headline=True)
        add({"best_capture"}, "q3.best_capture", "the largest single capture of the game",
            pl.col("best_capture"), kind="mean", unit="points")
        end = pl.col("end_reason")
        for label, text in (("no_move", "the player to move has no pile of his suit"),
                            ("no_capture_limit", "the no-capture limit"),
                            ("repetition", "a repeated position"),
                            ("move_cap", "the move cap (stall guard, a draw)")):
            add({"end_reason"}, f"q4.end.{label}", f"games ended by {text}",
                end == label, headline=label == "move_cap")
            add({"end_reason", "draw"}, f"q4.draw.{label}", f"drawn games among those "
                f"ended by {text}", pl.col("draw"), end == label, min_n=1)
    else:
        decided = pl.col("winner") >= 0
        add({"winner"}, "q1.match.seat0_wins", "seat 0 (♦) wins the two-game match (share "
            "of decided matches)", pl.col("winner") == 0, decided, headline=True)
        add({"drawn"}, "q1.match.drawn", "drawn matches", pl.col("drawn"), headline=True)
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. First player",
     "key": "cartawel.q1.first_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "The first player wins {cartawel.q1.first_wins} of the decided games; "
             "{cartawel.q4.draw} are drawn"},
    {"question": "3. Captures",
     "key": "cartawel.q3.captures",
     "text": "Piles captured per game: {cartawel.q3.captures}; points left on the circle: "
             "{cartawel.q3.points_left}; sowing moves: {cartawel.q3.length}"},
    {"question": "4. Draws",
     "key": "cartawel.q4.end.move_cap",
     "text": "Games stopped by the move cap (draws): {cartawel.q4.end.move_cap}; by the "
             "no-capture limit: {cartawel.q4.end.no_capture_limit}; by a repetition: "
             "{cartawel.q4.end.repetition}"},
)

FINDINGS = FINDINGS + (
    {"question": "5. Rule sensitivity",
     "key": "cartawel.q1.first_wins_all",
     "control": {"chain_scope": "any"},
     "paired": lambda n: (pl.col("first_player_result") == 1).cast(pl.Float64),
     "against_text": "a chain over any pile (same lots, same players)",
     "text": "The first player wins {value} of all games with the chain over the sown "
             "piles"},
)
