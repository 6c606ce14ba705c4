"""Le pousse-pousse, a two-player sliding-tile game with cards (seed 004 "le
pousse-pousse"; catalogue ``pousse_pousse.md``): each player holds the 12 cards of a suit
(♠ against ♥, no 2s); they build a 5 x 5 grid card by card (one cell stays empty), then
slide cards toward the empty cell, one slide along each axis a turn, to make runs of
their suit in lines (3, 8 or 15 points); first to 50. Perfect information.

Where things are:

* ``simlab/mechanics/minimax.py``, ``simlab/mechanics/mcts.py`` (shared) — alpha-beta and
  UCT over a small protocol any perfect-information game supplies.
* ``rules.py`` — deck, knobs, the grid, building, sliding, the no-undo rule, the runs
  and their scoring, the end.
* ``players.py`` — move generation, random, heuristic, the evaluation, the playouts, the
  minimax and mcts players' protocol object (``PoussePousseSearch``).
* ``kernels.py`` — batch kernels (random / heuristic), the searching players' game loop,
  the runner's entry points, ``trace_game``.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.

May import: the engine, the mechanics.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.pousse_pousse import questions as _questions
from simlab.games.pousse_pousse.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_game,
    run_deals,
    run_matches,
    trace_game,
)
from simlab.games.pousse_pousse.players import POLICY_CODES, PoussePousseSearch  # noqa: F401
from simlab.games.pousse_pousse.rules import (  # noqa: F401
    DECK,
    PoussePousseKnobs,
    apply_move,
    deal_columns,
    knob_vector,
    match_columns,
    new_game,
    set_grid,
)


def sides(knobs: PoussePousseKnobs) -> Sides:
    """Each seat alone; the first to the target wins (a stopped game is drawn)."""
    return fixed_sides((0, 1), pl.lit(True), text="each seat alone; first to the target wins")


GAME = Game(
    slug="pousse_pousse",
    title="Le pousse-pousse",
    description="2 players, 12 cards each (♠ against ♥, no 2s): build a 5 x 5 grid with "
                "one empty cell, then slide cards toward it (one slide per axis a turn) "
                "to make runs of your suit in lines; first to 50 points",
    deck=DECK,
    knobs=PoussePousseKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=tuple(POLICY_CODES),
    players_text="2",
    sides=sides,
    extra={"metrics": _questions.balance_metrics, "score_unit": "points",
           "no_hand_strength": "no deal: both seats always hold the same twelve ranks, "
                               "and everything is face up; only the lot (who places "
                               "first) differs between games"},
    seat_policy_knobs=True,
)
