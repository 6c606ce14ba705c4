"""Belote Noisette, 3 players with 24 cards and 30 hazelnuts (seed 000 "# Belote
Noisette"; catalogue ``belote_noisette.md``).

Where things are:

* ``rules.py`` — deck and tables (Belote's), knobs, result columns, the state of a deal
  (``S_*`` slots) and its moves: ante, the two rounds of taking and the forced taker,
  the belote, card play, the pot's payout, the manche's end and the match's: the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``);
* ``kernels.py`` — the batch kernels and the runner's ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.

This module registers the game (``GAME``).
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, taker_sides
from simlab.games.belote_noisette import questions
from simlab.games.belote_noisette.kernels import run_deals, run_matches
from simlab.games.belote_noisette.rules import DECK, NoisetteKnobs, deal_columns, match_columns

__all__ = ["DECK", "GAME", "NoisetteKnobs", "deal_columns", "match_columns", "run_deals",
           "run_matches"]


def sides(_: NoisetteKnobs) -> Sides:
    """The taker alone against the two defenders, every deal played (a forced taker means
    nobody passes the deal out): the taker's side wins when he ends ahead of each opponent
    (full or partial win), the defence when he loses."""
    return taker_sides(3, pl.lit(True), text="the taker against the two defenders; the "
                       "taker wins when ahead of each opponent (whole pot or partial win)",
                       value=tuple(pl.when(pl.col("taker") == i).then(
                           pl.when(pl.col("made")).then(1).otherwise(-1)).otherwise(
                           pl.when(pl.col("made")).then(-1).otherwise(1)) for i in range(3)))


def decisions(_: NoisetteKnobs, columns: list[str]) -> list[tuple[str, pl.Expr, pl.Expr | None]]:
    """The players' take-or-pass choices, for the Players section's "never or always
    taken" checks (the forced take is the rule's, not a choice)."""
    if "first_took_round1" not in columns:
        return []
    reached_round2 = pl.col("contract") != "round1"
    return [("the dealer's left takes in round 1", pl.col("first_took_round1"), None),
            ("somebody takes in round 2 (deals that reach it)", pl.col("contract") == "round2",
             reached_round2)]


GAME = Game(
    slug="belote_noisette",
    title="Belote Noisette",
    description="3-player Belote with 24 cards (three suits): two rounds of taking and a "
                "forced taker, 30 hazelnuts and a pot that carries over, manches and match "
                "points",
    deck=DECK,
    knobs=NoisetteKnobs,
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
           "hand_strength_text": questions.HAND_STRENGTH_TEXT, "decisions": decisions,
           "forced_taker": True, "score_unit": "hazelnuts"},
)
