"""XXL — À moins, the second of the six XXL variants (seed ``002_f79cc30b1abb5c3a.txt``,
Hanneforth & Bücken, Abacus 1996; catalogue ``xxl_a_moins.md``): 2-6 players, 6 cards
each, one turned card; discard a card with a half lower than the top card's number in
the same colour; no card: draw one (play it if it fits); the first out ends the game; the
cards left in hand are the penalty, lowest wins.

Where things are:

* ``simlab/games/xxl/`` (shared) — the deck, its colourings (``deck_colouring``), dealing,
  the colouring-range helper, kernel helpers.
* ``rules.py`` — knobs, the state (hands as bit masks, the top card), legal discards, play,
  draw, pass, end, penalties, result columns.
* ``players.py`` — random, heuristic, search (determinized, sees only its seat).
* ``kernels.py`` — batch kernels and the runner's entry points.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.xxl.deck import DECK
from simlab.games.xxl_a_moins import questions as _q
from simlab.games.xxl_a_moins.kernels import (  # noqa: F401
    deals_kernel,
    kernel_args,
    matches_kernel,
    run_deals,
    run_matches,
)
from simlab.games.xxl_a_moins.players import POLICY_CODES  # noqa: F401
from simlab.games.xxl_a_moins.rules import (  # noqa: F401
    AMoinsKnobs,
    deal_columns,
    match_columns,
)


def sides(knobs: AMoinsKnobs) -> Sides:
    """Each seat alone; the lowest penalty wins, a shared lowest is a tie."""
    return fixed_sides(tuple(range(knobs.players)), pl.lit(True), lower_wins=True,
                       text="every seat alone; the lowest hand total left wins")


def _decisions(knobs: AMoinsKnobs, columns: list[str]) -> list[tuple]:
    out = []
    if knobs.drawn_card == "optional" and {"draw_plays", "kept_drawn"} <= set(columns):
        fits = (pl.col("draw_plays") + pl.col("kept_drawn")) > 0
        out.append(("play a drawn card that fits (games where one fitted)",
                    pl.col("kept_drawn") == 0, fits,
                    "always: the heuristic plays a drawn card that fits (one card fewer to "
                    "pay for); keeping it is the seed's option ('il peut'), taken by random "
                    "and, when it measures better, by search"))
    if knobs.voluntary_draw and "voluntary_draws" in columns:
        out.append(("draw instead of playing (voluntary_draw)", pl.col("voluntary_draws") > 0,
                    None, "never: the heuristic plays when it can (drawing adds a card to "
                          "the penalty)"))
    return out



def _exact_findings(knobs) -> list[tuple[str, str]]:
    """The report's stated paragraphs (``questions.exact_findings``) for this game."""
    return _q.exact_findings(knobs, GAME)


GAME = Game(
    slug="xxl_a_moins",
    title="XXL — À moins",
    description="XXL variant 2, 2-6 players, 6 cards each: discard a card with a half "
                "lower than the top card's number in the same colour; no card: draw; "
                "first out ends it; lowest hand total wins (deck colours: reconstruction v1)",
    deck=DECK,
    knobs=AMoinsKnobs,
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
           "hand_strength": _q.hand_strength, "hand_strength_text": _q.HAND_STRENGTH_TEXT,
           "decisions": _decisions, "decision_columns": (), "score_unit": "points"},
    seat_policy_knobs=True,
)
