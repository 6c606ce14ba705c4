"""Président / Trou du cul, climbing game for 4 to 6 players (seed 003 "Trou du Cul";
catalogue ``president.md``).

Where things are:

* ``rules.py`` — deck and rank order, knobs, titles, the state of a deal and its steps
  (deal, exchanges, legal moves, apply a move, score): the rulebook.
* ``players.py`` — the heuristic and random players, what a seat sees, the world sampler
  and the search player (``--policy search``).
* ``kernels.py`` — result columns, the batch kernels (which step the rules with the
  players) and the runner's entry points.
* ``questions.py`` — the catalogue's balance questions as metrics.

This module registers the game and re-exports the names other modules and tests use.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.president import questions as _strength
from simlab.games.president.kernels import (  # noqa: F401
    B_CARDS,
    B_PLACE,
    B_PREV,
    B_TITLE,
    C_ANNULLED,
    C_DEAL,
    C_DEALER,
    C_SCORE,
    F_CAPPED,
    F_CARDS_PLAYED,
    F_EQUALS,
    F_EXCHANGED,
    F_LEADER,
    F_LEFT,
    F_PASSES,
    F_PLAYS,
    F_PRESIDENT,
    F_REVOLUTIONS,
    F_SERIES,
    F_SKIPS,
    F_TROU,
    F_TURNS,
    N_BLOCKS,
    N_FIXED,
    _setup,
    deal_columns,
    deals_kernel,
    exchange,
    match_columns,
    matches_kernel,
    n_deal_cols,
    n_match_cols,
    play_deal,
    run_deals,
    run_matches,
    trace_deal,
)
from simlab.games.president.players import _policy, search_work  # noqa: F401
from simlab.games.president.questions import (  # noqa: F401
    SECTION,
    TITLE_KEY,
    TITLE_TEXT,
    balance_metrics,
    titles_for,
)
from simlab.games.president.rules import (  # noqa: F401
    DECK,
    G_PLACE,
    MAX_HAND,
    N_CARDS,
    N_RANKS,
    NEUTRE,
    PRESIDENT,
    RANK_LABELS_2_HIGH,
    RANK_LABELS_A_HIGH,
    TITLES,
    TITLES_THIRD_PAIR,
    TROU,
    VICE_PRESIDENT,
    VICE_TROU,
    VV_PRESIDENT,
    VV_TROU,
    PresidentKnobs,
    _rules,
    _vector,
    new_state,
    rank_table,
    third_pair,
    title_of,
    titles_of,
)


def sides(knobs: PresidentKnobs) -> Sides:
    """Every seat alone; the first out (place 1, the Président) wins the deal, so there are
    no ties. A deal stopped by the turn cap still has its finishing order (the seats
    still in finish by fewest cards) and counts as played."""
    n = knobs.players
    return fixed_sides(tuple(range(n)), ~pl.col("annulled"),
                       value=tuple(-pl.col(f"place_s{i}") for i in range(n)),
                       text="every seat alone; the first out wins")


GAME = Game(
    slug="president",
    title="Président / Trou du cul",
    description="climbing game for 4-6 players, 52 cards (2 highest): lead 1-4 cards of "
                "one rank, follow with as many of a higher rank or pass, an equal rank "
                "skips the next player; finishing order gives the titles, which exchange "
                "cards at the next deal; match = 20 deals of role points",
    deck=DECK,
    knobs=PresidentKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="4-6",
    teams=None,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT},
)
