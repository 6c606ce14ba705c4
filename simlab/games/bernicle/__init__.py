"""Bernicle, 3 players with two 24-card packs (seed 000 "# Bernicle"; catalogue
``bernicle.md``): the 150/160 auction raised by 10 or 20, trump choice, chien and chiots,
the meld table, 13 tricks with forced heading, the niche and its petite Bernicles, "no
trick, no score", a failure paying the bid to both defenders; match to 2000.

Where things are:

* ``rules.py`` — deck, knobs, result columns, the deal's state and moves, the auction,
  exchanges, melds, the niche, card play, scoring: the rulebook;
* ``players.py`` — heuristic and random players, what a seat sees, worlds, search;
* ``kernels.py`` — batch kernels and the runner's ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, taker_sides
from simlab.games.bernicle import questions
from simlab.games.bernicle.kernels import run_deals, run_matches
from simlab.games.bernicle.rules import DECK, BernicleKnobs, deal_columns, match_columns

__all__ = ["GAME", "BernicleKnobs"]


def sides(_: BernicleKnobs):
    """The taker against the two defenders (who score the same common total, or 0 with no
    trick) over the deals somebody took; a side's value is the mean of its seats."""
    return taker_sides(3, pl.col("taker") >= 0,
                       text="the taker against the two defenders; a side's value is the "
                            "mean score of its seats", unplayed="passed out (redealt)")


GAME = Game(
    slug="bernicle",
    title="Bernicle",
    description="Bernicle, 3 players, 48 cards (2 x 24): auction from 150/160, trump, chien "
                "and chiots, melds, 13 tricks, niche for the defence, match to 2000",
    deck=DECK,
    knobs=BernicleKnobs,
    players=lambda k: 3,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="3",
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": questions.balance_metrics, "hand_strength": questions.hand_strength,
           "hand_strength_text": questions.HAND_STRENGTH_TEXT},
)
