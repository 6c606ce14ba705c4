"""Progression, a two-player route-building race with pawns (seed 004 "progression";
catalogue ``progression.md``): players lay cards edge to edge, in line with a card of the
same suit and next rank or at right angles to one of the same rank, to build a road from
the start card to a face-down arrival card; the first pawn on the arrival wins.

Where things are:

* ``rules.py`` — deck and tables, knobs, result columns, the field as a grid of cells, the
  state of a game and its steps (draw, placement, pawn, discard, the talon turned over):
  the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``);
* ``kernels.py`` — the batch kernels (games, matches of ``match_games`` games) and
  ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings, the hand
  strength's absence (with what was measured) and the pawn decision kinds.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.progression import questions as _questions
from simlab.games.progression.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_game,
    run_deals,
    run_matches,
)
from simlab.games.progression.players import (  # noqa: F401
    heuristic_move,
    player_work,
    random_move,
    sample_world,
    search_move,
)
from simlab.games.progression.rules import (  # noqa: F401
    DECK,
    ProgressionKnobs,
    apply_move,
    deal_columns,
    knob_vector,
    legal_moves,
    match_columns,
    new_state,
    put_card,
    start_game,
)


def sides(knobs: ProgressionKnobs) -> Sides:
    """Each seat alone; the pawn that reaches the arrival wins, a frozen game is drawn."""
    return fixed_sides((0, 1), pl.lit(True), text="each seat alone; the first pawn on the "
                       "arrival wins")


GAME = Game(
    slug="progression",
    title="Progression",
    description="2 players, 52 cards and two pawns: 18 cards each, lay cards edge to edge "
                "(in line: same suit, next rank; at right angles: same rank) to build a "
                "road from the start card to a face-down arrival card 6 cells away; the "
                "first pawn on the arrival wins (one deal = one game)",
    deck=DECK,
    knobs=ProgressionKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2",
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": _questions.balance_metrics, "score_unit": "games won",
           "no_hand_strength": _questions.NO_HAND_STRENGTH,
           "decisions": _questions.decisions, "decision_notes": _questions.decision_notes},
)
