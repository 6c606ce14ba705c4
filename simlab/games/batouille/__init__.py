"""La batouille, a two-player simultaneous-move "war" with choice (seed 004 "la
batouille", d'après François Pingaud; catalogue ``batouille.md``): each player holds a
whole suit (♠ against ♥), both choose a card at once, the higher rank takes the trick,
equal ranks are replayed; more tricks wins.

Where things are:

* ``simlab/mechanics/matrix_game.py`` (shared) — zero-sum matrix games by linear programming.
* ``rules.py`` — deck, knobs, the state (both hands as bit masks, tricks, ties), a round.
* ``players.py`` — random, heuristic ("sacrifice"), highest, lowest, mixed_high and the
  equilibrium player, each a probability over its cards.
* ``equilibrium.py`` — the exact equilibrium by dynamic programming over stage games
  (ranks <= 8), best responses to a fixed player.
* ``kernels.py`` — batch kernels and the runner's entry points, ``trace_game``.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.batouille import questions as _questions
from simlab.games.batouille.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_out,
    run_deals,
    run_matches,
    trace_game,
)
from simlab.games.batouille.players import POLICY_CODES, policy_dist  # noqa: F401
from simlab.games.batouille.rules import (  # noqa: F401
    DECK,
    BatouilleKnobs,
    apply_round,
    deal_columns,
    match_columns,
    new_game,
    set_position,
)


def sides(knobs: BatouilleKnobs) -> Sides:
    """Each seat alone; more tricks wins the game, equal tricks is a tie."""
    return fixed_sides((0, 1), pl.lit(True), text="each seat alone; more tricks wins")


GAME = Game(
    slug="batouille",
    title="La batouille",
    description="2 players, one whole suit each (♠ against ♥, 13 cards): both choose a card "
                "at once, the higher rank takes the trick, equal ranks are replayed; more "
                "tricks wins (one deal = one game)",
    deck=DECK,
    knobs=BatouilleKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=tuple(POLICY_CODES),
    players_text="2",
    sides=sides,
    extra={"metrics": _questions.balance_metrics, "score_unit": "tricks",
           "exact_findings": _questions.exact_findings,
           "no_hand_strength": "both seats always hold the same cards (a whole suit "
                               "each), so no hand is stronger than another"},
    seat_policy_knobs=True,
)
