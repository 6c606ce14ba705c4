"""Progression: the catalogue's balance questions as metrics, the findings that open the
report, why no hand-strength measure, and the decision kinds (rules in ``rules.py``, columns
in ``rules.deal_columns``).

1 reachability (games reaching the arrival, linked, frozen); 2 the first player's edge;
3 blocking and 4 pawn timing are duplicate duels of policy knobs (``simlab duel
progression --x heuristic:block_weight=0 --y heuristic``, ``--x heuristic:pawn_wait=true``),
also measured by the report's findings as paired runs on the same deals; 5 length and
draws; 6 rule sensitivity is ``--set arrival_distance=4|8``, ``--set wrap=true``."""

from __future__ import annotations

import polars as pl

from simlab.engine.questions import MetricDef, ratio_of_sums
from simlab.games.progression.rules import ProgressionKnobs

SECTION = "Progression questions"


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: ProgressionKnobs | None,
                    level: str) -> list[MetricDef]:
    k = knobs if isinstance(knobs, ProgressionKnobs) else ProgressionKnobs()
    cols = set(frame.lazy().collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"progression.{key}", title, SECTION, expr, where, kind, **kw),
                    need))

    if level == "deal":
        end = pl.col("end").cast(pl.String)
        add({"end"}, "q1.arrival", f"games won on the arrival (D = {k.arrival_distance})",
            end == "arrival", headline=True)
        add({"linked"}, "q1.linked", "games whose road reached the arrival card (a card "
            "beside or over it)", pl.col("linked"))
        add({"end"}, "q1.frozen", "games frozen: no card in play fits the field (a draw "
            "under draw_rule)", end == "frozen", headline=True)
        add({"linked", "link_turn"}, "q1.link_turn", "turn at which the road reached the "
            "arrival (linked games)", pl.col("link_turn").cast(pl.Float64), pl.col("linked"),
            kind="mean", unit="turns")
        add({"first_won"}, "q2.first_wins", "the first player (dealer's opponent) wins "
            "(decided games)", pl.col("first_won"), pl.col("first_won").is_not_null(),
            headline=True, note="50% means no first-move edge")
        add({"turns"}, "q5.turns", "turns per game (both players)",
            pl.col("turns").cast(pl.Float64), kind="mean", unit="turns", headline=True)
        add({"placements"}, "q5.placements", "cards placed per game",
            pl.col("placements").cast(pl.Float64), kind="mean", unit="cards")
        add({"passes", "turns"}, "q5.pass_share", "turns without a placement",
            ratio_of_sums(pl.col("passes"), pl.col("turns"), pl.lit(True)), kind="mean",
            unit="share")
        add({"draw"}, "q5.draw", "drawn games", pl.col("draw"))
        add({"capped"}, "q5.capped", "games stopped by the turn cap", pl.col("capped"),
            note="a stall guard, counted: should be 0")
        add({"recycles"}, "q5.recycles", "times the discards became the talon",
            pl.col("recycles").cast(pl.Float64), kind="mean", unit="recycles")
        add({"waits_s0", "waits_s1", "chances_s0", "chances_s1"}, "q4.wait_share",
            "pawn turns spent waiting though a move was possible",
            ratio_of_sums(pl.col("waits_s0") + pl.col("waits_s1"),
                          pl.col("chances_s0") + pl.col("chances_s1"), pl.lit(True)),
            kind="mean", unit="share", choice=True)
        add({"covered"}, "q1.covered", "games with a card laid over the arrival card",
            pl.col("covered"))
    else:
        done = pl.col("winner") >= 0
        add({"winner"}, "match.seat0_wins", "seat 0 wins the match (decided matches)",
            pl.col("winner") == 0, done, headline=True)
        add({"drawn"}, "match.drawn", "drawn matches", pl.col("drawn"), headline=True)
        add({"capped_games"}, "match.capped", "games stopped by the turn cap per match",
            pl.col("capped_games").cast(pl.Float64), kind="mean", unit="games")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "1. Reachability",
     "key": "progression.q1.arrival",
     "text": "A pawn reaches the arrival in {progression.q1.arrival} of games; the road "
             "reaches the arrival card in {progression.q1.linked}, and "
             "{progression.q1.frozen} freeze with no card in play fitting the field"},
    {"question": "2. First move",
     "key": "progression.q2.first_wins", "against": 0.5, "against_text": "an even 50%",
     "text": "The dealer's opponent, who moves first, wins {progression.q2.first_wins} of "
             "decided games"},
    {"question": "5. Length",
     "key": "progression.q5.turns",
     "text": "A game lasts {progression.q5.turns:bare} turns, {progression.q5.placements:bare} "
             "placements; {progression.q5.draw} are drawn"},
)


WAIT_TITLE = "a pawn stays though it could move, at least once (games with a chance to)"
MOVE_TITLE = "a pawn moves when it can, at least once (games with a chance to)"


def decisions(knobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr]]:
    """The pawn decision (step 3: move or wait), per game."""
    if "waits_s0" not in columns:
        return []
    chances = pl.col("chances_s0") + pl.col("chances_s1")
    waits = pl.col("waits_s0") + pl.col("waits_s1")
    return [(WAIT_TITLE, waits > 0, chances > 0), (MOVE_TITLE, waits < chances, chances > 0)]


def decision_notes(knobs) -> dict[str, str]:
    """Why moving is always taken: a pawn that never moves cannot win, and waiting loses
    (measured in duplicate play)."""
    return {MOVE_TITLE: (
        "always: a pawn that never moves cannot reach the arrival; the heuristic steps "
        "toward the nearest live end of the road, and the alternative of Figure 5's red "
        "pawn, waiting at junctions until the arrival is linked (pawn_wait = true), loses "
        "0.221 [0.218, 0.224] games per deal in duplicate play against it (20,000 deals, "
        "seed 42)")}


NO_HAND_STRENGTH = (
    "the road is shared and every card not placed comes back through the talon, so no "
    "dealt-hand measure tried separates winners: with heuristic players (20,000 games, "
    "seed 4) a seat whose longest same-suit run is 2, 3, 4 or 5 cards wins 49.8%, 49.5%, "
    "50.4%, 52.6% of decided games, by its longest suit (5 to 9 cards) 50.5% to 49.2%, and "
    "the first player wins 53.6% with no card fitting the start card and 47.0% with 4")
