"""Sept, the 2-player rank-matching trick game with a stock (seed 000 "Sept", a
translation of the Czech Sedma; catalogue ``sept.md``).

Where things are:

* ``rules.py`` — deck and tables, knobs, result columns, the state of a deal (``S_*``
  slots) and its moves, the deal, the variable-length trick (stop or continue), the
  refill from the stock, scoring: the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``);
* ``kernels.py`` — the batch kernels (deals, matches: the loser deals, first to 10) and
  ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.

This module registers the game (``GAME``) and re-exports the names other code imports.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.sept import questions as _questions
from simlab.games.sept.kernels import deals_kernel, matches_kernel, run_deals, run_matches
from simlab.games.sept.players import heuristic_move, search_move
from simlab.games.sept.rules import (
    DECK,
    OUTCOMES,
    STOP,
    SeptKnobs,
    _vector,
    apply_move,
    deal,
    deal_columns,
    legal_moves,
    match_columns,
    score_deal,
)

__all__ = [
    "DECK", "GAME", "OUTCOMES", "STOP", "SeptKnobs", "_vector", "apply_move", "deal",
    "deal_columns", "deals_kernel", "heuristic_move", "legal_moves", "match_columns",
    "matches_kernel", "run_deals", "run_matches", "score_deal", "search_move", "sides",
]


def sides(knobs: SeptKnobs) -> Sides:
    """Each player alone; the one who marks wins the deal. A tie (only possible with an
    even deal total) is a played deal that nobody wins."""
    return fixed_sides((0, 1), pl.lit(True), text="two players; the one who marks wins")


GAME = Game(
    slug="sept",
    title="Sept",
    description="Sept (Sedma), 2 players, 32 cards: rank-matching tricks without suits, 7s "
                "wild, the leader stops or continues each trick, 4-card hands refilled from "
                "the stock, 10s and Aces 10 each + 10 for the last trick, the loser deals, "
                "match to 10",
    deck=DECK,
    knobs=SeptKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2",
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": _questions.balance_metrics, "hand_strength": _questions.hand_strength,
           "hand_strength_text": _questions.HAND_STRENGTH_TEXT,
           "decisions": _questions.decisions, "decision_notes": _questions.decision_notes},
)
