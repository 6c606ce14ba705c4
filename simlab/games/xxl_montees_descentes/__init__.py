"""XXL — Montées et descentes, the first of the six XXL variants (seed
``002_f79cc30b1abb5c3a.txt``, Hanneforth & Bücken, Abacus 1996; catalogue
``xxl_montees_descentes.md``): 2-6 players, 6 cards each, two turned cards start two
piles; play a card that continues a pile's same-colour series by one in its direction or
starts a new series from the top card's other half; no card: draw one (play it if it
fits); the first out ends the game; the cards left in hand are the penalty, lowest wins.

Where things are:

* ``simlab/games/xxl/`` (shared) — the deck, its colourings (``deck_colouring``), dealing,
  the colouring-range helper, kernel helpers.
* ``rules.py`` — knobs, the state (hands as bit masks, the piles), legal moves, play, draw,
  pass, end, penalties, result columns.
* ``players.py`` — random, heuristic, search (determinized, sees only its seat).
* ``kernels.py`` — batch kernels and the runner's entry points.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.xxl.deck import DECK
from simlab.games.xxl_montees_descentes import questions as _q
from simlab.games.xxl_montees_descentes.kernels import (  # noqa: F401
    deals_kernel,
    kernel_args,
    matches_kernel,
    run_deals,
    run_matches,
)
from simlab.games.xxl_montees_descentes.players import POLICY_CODES  # noqa: F401
from simlab.games.xxl_montees_descentes.rules import (  # noqa: F401
    MonteesKnobs,
    deal_columns,
    match_columns,
)


def sides(knobs: MonteesKnobs) -> Sides:
    """Each seat alone; the lowest penalty wins, a shared lowest is a tie."""
    n = knobs.players
    return fixed_sides(tuple(range(n)), pl.lit(True), lower_wins=True,
                       text="every seat alone; the lowest hand total left wins")


def _decisions(knobs: MonteesKnobs, columns: list[str]) -> list[tuple]:
    out = []
    if {"draw_plays", "kept_drawn"} <= set(columns):
        fits = (pl.col("draw_plays") + pl.col("kept_drawn")) > 0
        note = ("always: the heuristic plays a drawn card that fits (one card fewer to pay "
                "for); keeping it is the seed's option ('il peut'), taken by random and, "
                "when it measures better, by search")
        if knobs.drawn_card == "optional":
            out.append(("play a drawn card that fits (games where one fitted)",
                        pl.col("kept_drawn") == 0, fits, note))
    if knobs.voluntary_draw and "voluntary_draws" in columns:
        out.append(("draw instead of playing (voluntary_draw)", pl.col("voluntary_draws") > 0,
                    None, "never: the heuristic plays when it can (drawing adds a card to "
                          "the penalty)"))
    return out



def _exact_findings(knobs) -> list[tuple[str, str]]:
    """The report's stated paragraphs (``questions.exact_findings``) for this game."""
    return _q.exact_findings(knobs, GAME)


GAME = Game(
    slug="xxl_montees_descentes",
    title="XXL — Montées et descentes",
    description="XXL variant 1, 2-6 players, 6 cards each: continue a pile's same-colour "
                "series by one in its direction, or start a new one from the top card's "
                "other half; no card: draw; first out ends it; lowest hand total wins "
                "(deck colours: reconstruction v1)",
    deck=DECK,
    knobs=MonteesKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2-6",
    lower_score_wins=True,
    sides=sides,
    extra={"metrics": _q.balance_metrics, "exact_findings": _exact_findings,
           # measured with the hand total of _q.hand_strength (1,500 deals, seed 11): the
           # heuristic's decile means go from -23.6 to -20.6 penalty points but not in order
           # (rank correlation 0.61): a dealt hand barely predicts a race of climbs and falls
           "no_hand_strength": "the dealt hand barely predicts the result: with the hand's "
                               "total as the measure, the ten deciles' mean results go from "
                               "-23.6 to -20.6 penalty points, out of order (rank correlation "
                               "0.61, 1,500 deals), so no measure is offered",
           "decisions": _decisions, "decision_columns": (), "score_unit": "points"},
    seat_policy_knobs=True,
)
