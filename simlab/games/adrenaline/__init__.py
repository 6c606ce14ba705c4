"""Adrénaline, a two-player game of hidden objectives (seed 004 "adrénaline"; catalogue
``adrenaline.md``): each player secretly writes a five-card objective from an agreed
list, both draw in turn from a face-up talon and discard face up; the first to hold his
objective scores 30 − t, a player who shouts "stop" and names the opponent's objective
scores +(20 + t), or −(20 + t) when wrong (t: cards left in the talon).

Where things are:

* ``rules.py`` — deck, knobs, the 12 objectives (progress and completion estimate as bit
  masks), the state, the result columns.
* ``players.py`` — random, heuristic (bluff rate b, stop threshold τ) and bayes (a
  posterior over the opponent's objective from his keeps and discards; the likelihood
  model is in its docstring).
* ``kernels.py`` — batch kernels, the runner's entry points, ``play_position``.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.adrenaline import questions as _questions
from simlab.games.adrenaline.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_position,
    run_deals,
    run_matches,
)
from simlab.games.adrenaline.players import POLICY_CODES
from simlab.games.adrenaline.rules import (  # noqa: F401
    DECK,
    OBJECTIVES,
    AdrenalineKnobs,
    deal_columns,
    hand_mask,
    match_columns,
)


def sides(knobs: AdrenalineKnobs) -> Sides:
    """Each seat alone; the higher score wins the deal, equal scores are a tie."""
    return fixed_sides((0, 1), pl.lit(True), text="each seat alone; the higher score wins")


GAME = Game(
    slug="adrenaline",
    title="Adrénaline",
    description="2 players, 5 open cards each and a face-up talon: each writes a secret "
                "five-card objective from an agreed list of 12, both draw and discard in "
                "turn; finishing scores 30 − t, a right 'stop' naming the opponent's "
                "objective +(20 + t), a wrong one −(20 + t)",
    deck=DECK,
    knobs=AdrenalineKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=tuple(POLICY_CODES),
    players_text="2",
    sides=sides,
    extra={"metrics": _questions.balance_metrics, "score_unit": "points",
           # measured with _questions.hand_strength (1,500 deals, seed 11): the ten deciles'
           # mean results fall rather than rise (4.6 to 3.4 points, rank correlation -0.6):
           # the first five cards say little once both players draw from an open stock
           "no_hand_strength": "the dealt cards barely predict the result: with the completion "
                               "estimate of the best entry as the measure, the ten deciles' mean "
                               "results go from 4.6 to 3.4 points, out of order (rank "
                               "correlation -0.6, 1,500 deals); both players draw from an "
                               "open stock",
           "decisions": _questions.decisions, "decision_columns": ()},
    seat_policy_knobs=True,
)
