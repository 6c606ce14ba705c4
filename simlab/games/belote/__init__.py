"""Belote, classic 4-player game in two teams (seed 003 "Belote"; catalogue ``belote.md``).

Where things are:

* ``rules.py`` — deck and tables, knobs, result columns, the state of a deal (``S_*``
  slots) and its moves, dealing, the auction, completion of hands, announcements,
  Belote-Rebelote, card play, scoring: the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``);
* ``simlab/mechanics/trickinfo.py`` (shared with Manille) — what a play reveals (voids and other
  certain absences) and world sampling;
* ``kernels.py`` — the batch kernels and the runner's ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics.

This module registers the game (``GAME``) and re-exports the names other code imports.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.belote import questions as _strength
from simlab.games.belote.kernels import deals_kernel, matches_kernel, run_deals, run_matches
from simlab.games.belote.players import lead_heuristic, search_move, trump_strength_score
from simlab.games.belote.questions import COMEBACK_DEFICIT, SECTION, balance_metrics
from simlab.games.belote.rules import (
    ANNOUNCE_KINDS,
    CONTRACTS,
    DECK,
    N_CARDS,
    R7,
    R8,
    R9,
    R10,
    RA,
    RJ,
    RK,
    RQ,
    TEAM_OF,
    BeloteKnobs,
    _rules,
    _vector,
    announcement,
    deal_columns,
    deal_result,
    match_columns,
    point_tables,
    tables,
)

__all__ = [
    "ANNOUNCE_KINDS", "COMEBACK_DEFICIT", "CONTRACTS", "DECK", "GAME", "N_CARDS", "R7", "R8",
    "R9", "R10", "RA", "RJ", "RK", "RQ", "SECTION", "TEAM_OF", "BeloteKnobs", "_rules",
    "_vector", "announcement", "balance_metrics", "deal_columns", "deal_result", "deals_kernel",
    "lead_heuristic", "match_columns", "matches_kernel", "point_tables", "run_deals",
    "run_matches", "search_move", "tables", "trump_strength_score",
]


TEAM_OF_SEAT = tuple(int(t) for t in TEAM_OF)  # seats 0, 2 against 1, 3


def sides(knobs: BeloteKnobs) -> Sides:
    """Fixed teams (seats 0 and 2 against 1 and 3) over the deals someone took. The
    contract decides, as the rules do: the takers' team wins when it makes it, the defence
    when the takers are "dedans"; a litige (T = D: the takers' points held in reserve) is
    a tie. With the default comparison (announcements included) this is also the team
    that marks more."""
    outcome = pl.when(pl.col("made")).then(1).when(pl.col("litige")).then(0).otherwise(-1)
    value = tuple(pl.when((pl.col("taker") % 2) == (i % 2)).then(outcome).otherwise(-outcome)
                  for i in range(4))
    return fixed_sides(TEAM_OF_SEAT, (pl.col("taker") >= 0) & ~pl.col("annulled"),
                       value=value, text="fixed teams, seats 0 and 2 against 1 and 3; the "
                       "takers' team wins when it makes its contract, a litige is a tie",
                       unplayed="nobody takes")


GAME = Game(
    slug="belote",
    title="Belote",
    description="classic Belote, 4 players in 2 teams: 3+2 deal, turned card, two bidding "
                "rounds, announcements, belote-rebelote, litige, match to 1001",
    deck=DECK,
    knobs=BeloteKnobs,
    players=lambda k: 4,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="4",
    teams=lambda k: TEAM_OF_SEAT,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT},
)
