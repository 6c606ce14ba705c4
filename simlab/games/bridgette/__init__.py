"""Bridgette, a two-player bridge on a 55-card pack (seed 000 "Bridgette", lines 259-410;
catalogue ``bridgette.md``).

Where things are:

* ``rules.py`` — the rulebook: deck and the Colons' groups, knobs, the deal's state
  (``S_*``), the deal, up-card and improvement draw, the discard, the auction with doubles
  and redoubles, card play with the Colons, scoring; the moves (``legal_moves``,
  ``apply_move``, ``seat_scores``) and the result columns;
* ``players.py`` — the heuristic and random players, what a seat sees, the world sampler
  and the search player (``--policy search``);
* ``kernels.py`` — one deal driven by the seats' policies, the batch kernels and the
  runner's entry points;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.

This module registers the game (``GAME``).
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.bridgette import questions as _strength
from simlab.games.bridgette.kernels import deals_kernel, matches_kernel, run_deals, run_matches
from simlab.games.bridgette.questions import balance_metrics
from simlab.games.bridgette.rules import DECK, BridgetteKnobs, deal_columns, match_columns

__all__ = ["GAME", "BridgetteKnobs", "deals_kernel", "matches_kernel", "run_deals",
           "run_matches"]


def sides(_: BridgetteKnobs) -> Sides:
    """Each seat alone, over the deals someone declared; only one seat scores per deal, so
    the seat that scores wins it."""
    return fixed_sides((0, 1), pl.col("taker") >= 0, text="each seat alone; the seat that "
                       "scores (declarer made, or defender set it) wins the deal",
                       unplayed="both pass (passed out)")


GAME = Game(
    slug="bridgette",
    title="Bridgette",
    description="two-player bridge on 52 cards + 3 Colons: 13 each, up-card, the dealer's "
                "4/8/12-card improvement draw and discard, auction with doubles and "
                "redoubles, Colons in play, bridge-style scoring, matches of 6 deals",
    deck=DECK,
    knobs=BridgetteKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2",
    teams=None,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT,
           "decision_notes": _strength.decision_notes},
)
