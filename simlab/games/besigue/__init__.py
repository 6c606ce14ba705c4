"""Bésigue rubicon, japonais (128 cards) and chinois (192 cards), 2 players (seed 000
"Bésigues rubicon : Chinois et Japonais"; catalogue ``besigue.md``).

Where things are:

* ``rules.py`` — cards, knobs, the state of a deal and its moves: the cut guess, the
  draw phase with declarations (the Bésigue ladder, marriages, fours, sequences, trump
  fixing, the clean-table rule), the strict end phase, brisques and the request, the
  Rubicon: the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``);
* ``kernels.py`` — result columns, the batch kernels and ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, fixed_sides
from simlab.games.besigue import questions
from simlab.games.besigue.kernels import (
    deal_columns,
    deals_kernel,
    match_columns,
    matches_kernel,
    run_deals,
    run_matches,
)
from simlab.games.besigue.rules import DECK, BesigueKnobs

__all__ = ["DECK", "GAME", "BesigueKnobs", "deal_columns", "deals_kernel", "match_columns",
           "matches_kernel", "run_deals", "run_matches"]


GAME = Game(
    slug="besigue",
    title="Bésigue rubicon (japonais / chinois)",
    description="2 players, 4 packs (japonais, 128 cards) or 6 (chinois, 192): cut guess, "
                "draw phase with melds (Bésigue ladder to the quadruple, marriages, fours, "
                "sequences, trump fixed by the first marriage), strict end phase, brisques, "
                "Rubicon; match to 5000 / 10000",
    deck=DECK,
    knobs=BesigueKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2",
    teams=lambda k: (0, 1),
    sides=lambda k: fixed_sides((0, 1), pl.lit(True), text="each player alone; the deal's "
                                "winner is the one who marks"),
    seat_policy_knobs=True,
    extra={"metrics": questions.balance_metrics, "hand_strength": questions.hand_strength,
           "hand_strength_text": questions.HAND_STRENGTH_TEXT},
)
