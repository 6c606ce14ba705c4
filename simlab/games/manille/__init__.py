"""Manille, classic 4-player game in two teams (seed 003 "Manille"; catalogue ``manille.md``).

Where things are:

* ``rules.py`` — deck and tables, knobs, result columns, the state of a deal (``S_*``
  slots) and its moves, deal and trump, card play, scoring: the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``); the trick-game
  information itself is Belote's ``simlab/games/belote/trickinfo.py``, shared;
* ``kernels.py`` — the batch kernels (deals, matches) and ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions 1-3 as metrics.

This module registers the game (``GAME``) and re-exports the names other code imports.
"""

from __future__ import annotations

import polars as pl

from simlab.games.base import Game, Sides, fixed_sides
from simlab.games.manille import questions as _strength
from simlab.games.manille.kernels import deals_kernel, matches_kernel, run_deals, run_matches
from simlab.games.manille.players import lead_heuristic, search_move
from simlab.games.manille.questions import CLOSE, LOPSIDED, SECTION, balance_metrics
from simlab.games.manille.rules import (
    DECK,
    HAND,
    N_CARDS,
    PACKET,
    POINTS,
    R7,
    R8,
    R9,
    R10,
    RA,
    RJ,
    RK,
    RQ,
    STRENGTH,
    TEAM_OF,
    VARIANTS,
    ManilleKnobs,
    _vector,
    choose_trump,
    deal_columns,
    match_columns,
    rules_for,
    score_deal,
    tables,
)

__all__ = [
    "CLOSE", "DECK", "GAME", "HAND", "LOPSIDED", "N_CARDS", "PACKET", "POINTS", "R7", "R8", "R9",
    "R10", "RA", "RJ", "RK", "RQ", "SECTION", "STRENGTH", "TEAM_OF", "VARIANTS", "ManilleKnobs",
    "_vector", "balance_metrics", "choose_trump", "deal_columns", "deals_kernel",
    "lead_heuristic", "match_columns", "matches_kernel", "rules_for", "run_deals", "run_matches",
    "score_deal", "search_move", "tables",
]

def sides(knobs: ManilleKnobs) -> Sides:
    """Fixed teams (seats 0 and 2 against 1 and 3); the team with more card-and-trick
    points (``team_points_t*``) wins. A 34-34 deal (``void_deal``; the seed's "le tour
    est annulé", also flagged ``annulled``: nobody marks) was played to the end and its
    sides tie, so it counts as a played deal and a tie; any other annulment is void."""
    return fixed_sides((0, 1, 0, 1), ~pl.col("annulled") | pl.col("void_deal"),
                       value=tuple(pl.col(f"team_points_t{i % 2}") for i in range(4)),
                       text="fixed teams, seats 0 and 2 against 1 and 3; more points wins, "
                            "34-34 is a tie")


GAME = Game(
    slug="manille",
    title="Manille",
    description="classic Manille, 4 players in 2 teams: 8 cards each in packets of 2, "
                "trump = the dealer's last card, must follow / overplay / trump / "
                "overtrump, 68-point deals (34-34 void), match to 100",
    deck=DECK,
    knobs=ManilleKnobs,
    players=lambda k: 4,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="4",
    teams=lambda k: (0, 1, 0, 1),
    sides=sides,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT},
)
