"""Manille: the classic 4-player game in two teams and the catalogue's six variants
(seed 003 "Manille"; catalogue ``manille.md``).

Where things are:

* ``rules.py`` — deck and tables, knobs, result columns, the state of a deal (``S_*``
  slots) and its moves, deal and trump, card play, scoring: the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``); the trick-game
  information itself is Belote's ``simlab/games/belote/trickinfo.py``, shared;
* ``kernels.py`` — the batch kernels (deals, matches) and ``run_deals`` / ``run_matches``;
* ``variants.py`` — the variants' rulebook (knob ``variant``: belge, coinchee, encheres,
  folle, trois, deux) on top of ``rules.py``; ``variant_players.py`` their players and
  ``variant_kernels.py`` their kernels (the classic game never goes through them);
* ``questions.py`` — the catalogue's balance questions 1-8 as metrics and findings.

This module registers the game (``GAME``) and re-exports the names other code imports.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides, taker_sides
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
    rules_for,
    score_deal,
    tables,
)
from simlab.games.manille.variants import deal_columns, match_columns

__all__ = [
    "CLOSE", "DECK", "GAME", "HAND", "LOPSIDED", "N_CARDS", "PACKET", "POINTS", "R7", "R8", "R9",
    "R10", "RA", "RJ", "RK", "RQ", "SECTION", "STRENGTH", "TEAM_OF", "VARIANTS", "ManilleKnobs",
    "_vector", "balance_metrics", "choose_trump", "deal_columns", "deals_kernel",
    "lead_heuristic", "match_columns", "matches_kernel", "rules_for", "run_deals", "run_matches",
    "score_deal", "search_move", "tables",
]

INDIVIDUAL = ("encheres", "folle")  # every seat for itself; the others are team games


def teams(knobs: ManilleKnobs) -> tuple[int, ...]:
    """Seats 0 and 2 against 1 and 3 (a trois or deux dummy sits across from its player,
    so the dummy's team is its player's); enchères and folle: every seat alone (the
    enchères defence is a side of one deal only, see ``sides``)."""
    return (0, 1, 2, 3) if knobs.variant in INDIVIDUAL else (0, 1, 0, 1)


def sides(knobs: ManilleKnobs) -> Sides:
    """Team variants: fixed teams (seats 0 and 2 against 1 and 3); the team with more
    card-and-trick points (``team_points_t*``) wins. A tied deal (34-34, belge 30-30:
    ``void_deal``, the seed's "le tour est annulé", also flagged ``annulled``: nobody
    marks) was played to the end and its sides tie, so it counts as a played deal and a
    tie; any other annulment is void. Enchères: the taker against the other three (an
    all-pass deal is thrown in); folle: every seat alone, compared on what it marks
    (minus the points it took)."""
    if knobs.variant == "encheres":
        return taker_sides(4, ~pl.col("annulled"), text="the taker alone against the other "
                           "three; all-pass deals are thrown in", unplayed="all passed")
    if knobs.variant == "folle":
        return fixed_sides((0, 1, 2, 3), pl.lit(True), text="every seat alone; fewer points "
                           "taken (a higher score_s, minus the points) wins")
    return fixed_sides((0, 1, 0, 1), ~pl.col("annulled") | pl.col("void_deal"),
                       value=tuple(pl.col(f"team_points_t{i % 2}") for i in range(4)),
                       text="fixed teams, seats 0 and 2 against 1 and 3; more points wins, "
                            "a tied deal is a tie")


GAME = Game(
    slug="manille",
    title="Manille",
    description="classic Manille, 4 players in 2 teams: 8 cards each in packets of 2, "
                "trump = the dealer's last card, must follow / overplay / trump / "
                "overtrump, 68-point deals (34-34 void), match to 100; variants (knob "
                "variant): belge, coinchee, encheres, folle, trois, deux",
    deck=DECK,
    knobs=ManilleKnobs,
    players=lambda k: 4,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2-4",  # 4 seats; trois: 3 + a dummy, deux: 2 + 2 dummies
    teams=teams,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "decisions": _strength.decisions,
           "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT},
)
