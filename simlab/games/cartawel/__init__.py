"""Le cartawel, a two-player awélé played with cards (seed 004 "le cartawel"; catalogue
``cartawel.md``): each player holds a whole suit (♦ against ♣), lays it card by card on
twelve "hours" of a clock (alone first, then piles of at most three), then sows piles
clockwise, choosing which card goes where, and captures the last pile (and the ones
before it) when it holds 2 or 3 cards topped by his own card. Perfect information.

Where things are:

* ``simlab/mechanics/minimax.py``, ``simlab/mechanics/mcts.py`` (shared) — alpha-beta and
  UCT over a small protocol any perfect-information game supplies.
* ``rules.py`` — deck, knobs, the state (piles as card masks), laying, sowing, captures,
  the end and the score.
* ``players.py`` — move generation (candidate sowing orders), random, heuristic, the
  minimax and mcts players' protocol object (``CartawelSearch``), the evaluation.
* ``kernels.py`` — batch kernels (random / heuristic), the game loop of the searching
  players, the runner's entry points, ``trace_game``.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.

May import: the engine, the mechanics.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.cartawel import questions as _questions
from simlab.games.cartawel.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_game,
    run_deals,
    run_matches,
    trace_game,
)
from simlab.games.cartawel.players import POLICY_CODES, CartawelSearch  # noqa: F401
from simlab.games.cartawel.rules import (  # noqa: F401
    DECK,
    CartawelKnobs,
    apply_move,
    deal_columns,
    knob_vector,
    match_columns,
    new_game,
    set_board,
)


def sides(knobs: CartawelKnobs) -> Sides:
    """Each seat alone; more points wins the game, equal points is a draw."""
    return fixed_sides((0, 1), pl.lit(True), text="each seat alone; more points wins")


GAME = Game(
    slug="cartawel",
    title="Le cartawel",
    description="2 players, one whole suit each (♦ against ♣): lay the 26 cards on a "
                "12-hour circle, then sow piles clockwise and capture piles of 2-3 cards "
                "topped by your card (awélé with cards; one deal = one game)",
    deck=DECK,
    knobs=CartawelKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=tuple(POLICY_CODES),
    players_text="2",
    sides=sides,
    extra={"metrics": _questions.balance_metrics, "score_unit": "points",
           "no_hand_strength": "no deal: both seats always hold a whole suit, the same "
                               "ranks, and everything is face up; only the lot (who "
                               "lays first) differs between games"},
    seat_policy_knobs=True,
)
