"""Mille, 3 players, 24 cards (seed 000 "# Mille"; catalogue ``mille.md``): the ``GAME``
registration. The Russo-Polish marriage game (Tysiacha / Tysiąc, "1000").

* ``rules.py``: deck, knobs, result columns, the state of a deal and its moves (forced
  opening and bids by 5, the chien and the bomb, the two give-away cards, marriages that
  set trump mid-deal, card play), scoring, and the match sheet (barrel, zero bars);
* ``players.py``: heuristic and random policies, what a seat sees, the world sampler and
  the search player (``--policy search``);
* ``kernels.py``: the batch kernels and ``run_deals`` / ``run_matches``;
* ``questions.py``: the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, taker_sides
from simlab.games.mille import questions as _questions
from simlab.games.mille.kernels import deals_kernel, matches_kernel, run_deals, run_matches
from simlab.games.mille.players import heuristic_move, search_move
from simlab.games.mille.rules import (
    DECK,
    NP,
    MilleKnobs,
    _rules,
    _vector,
    deal_columns,
    match_columns,
    tables,
)

__all__ = ["DECK", "GAME", "NP", "MilleKnobs", "_rules", "_vector", "deal_columns",
           "deals_kernel", "heuristic_move", "match_columns", "matches_kernel", "run_deals",
           "run_matches", "search_move", "tables"]


def sides(knobs: MilleKnobs) -> Sides:
    """The taker against both defenders, over the deals played (a bombed deal is not
    played, seed 6.1). Each seat's deal mark decides: the taker's ±bid against the
    defenders' mean mark (the defenders score individually)."""
    return taker_sides(NP, ~pl.col("bomb"), text="the taker against both defenders; "
                       "marks compared (taker's ±bid against the defenders' mean mark)",
                       unplayed="the taker used his bomb")


GAME = Game(
    slug="mille",
    title="Mille",
    description="Mille (Tysiacha), 3 players, 24 cards: forced 100 opening, bids by 5, "
                "the chien and the bomb, two give-away cards, marriages that set trump "
                "mid-deal, match to 1000 with the barrel and zero bars",
    deck=DECK,
    knobs=MilleKnobs,
    players=lambda k: NP,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="3",
    teams=None,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": _questions.balance_metrics, "hand_strength": _questions.hand_strength,
           "hand_strength_text": _questions.HAND_STRENGTH_TEXT,
           "decisions": _questions.decisions, "forced_taker": True},  # the forced opening
)
