"""Frappe, the two-player fishing game from Porrazo (seed 000 "# Frappe"; catalogue
``frappe.md``): 8 rounds of 3 cards, captures by pairing and runs (the Ace after the
King), en place, frappes, contre-frappes and the pénitence, sweeps, the dealer's
extension and its timing, announcements, match to 61.

Where things are:

* ``rules.py`` — deck, knobs, the state of a deal and its steps (deal, extension,
  announcements, legal moves, a card's effect, end of round and of deal): the rulebook.
* ``players.py`` — the heuristic and random players, worlds, the search player.
* ``kernels.py`` — result columns, batch kernels (deals, matches), the runner's entry
  points, and ``trace_deal`` to read a deal play by play.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.frappe import questions as _questions
from simlab.games.frappe.kernels import (
    begin,
    card_text,
    deal_columns,
    deals_kernel,
    deck_of,
    match_columns,
    matches_kernel,
    run_deals,
    run_matches,
    trace_deal,
)
from simlab.games.frappe.players import (
    heuristic_move,
    heuristic_work,
    random_move,
    sample_world,
    search_move,
    search_work,
)
from simlab.games.frappe.questions import FINDINGS, SECTION, balance_metrics
from simlab.games.frappe.rules import (
    DECK,
    RANK_OF,
    FrappeKnobs,
    apply_move,
    capture_set,
    extension_score,
    knob_vector,
    legal_moves,
    policy_vector,
    to_move,
)


def sides(knobs: FrappeKnobs) -> Sides:
    """Each seat alone; the seat that marks more points in the deal wins it, and a
    pénitence (which wins the match) wins it whatever the points."""
    value = tuple(pl.col(f"score_s{i}").cast(pl.Float64)
                  + pl.when(pl.col("penitence") == i).then(1e6).otherwise(0.0)
                  for i in range(2))
    return fixed_sides((0, 1), pl.lit(True), value=value,
                       text="each seat alone; more points in the deal wins (a pénitence "
                            "always)")


GAME = Game(
    slug="frappe",
    title="Frappe",
    description="2-player fishing game (Porrazo), 52 cards: 8 rounds of 3 cards, capture by "
                "pairing plus the run above it (Ace after King), en place, frappe / "
                "contre-frappe / pénitence, sweeps, the dealer's extension, announcements, "
                "game to 61",
    deck=DECK,
    knobs=FrappeKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2",
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _questions.hand_strength,
           "hand_strength_text": _questions.HAND_STRENGTH_TEXT},
)

__all__ = [
    "DECK", "FINDINGS", "GAME", "RANK_OF", "SECTION", "FrappeKnobs", "apply_move",
    "balance_metrics", "begin", "capture_set", "card_text", "deal_columns", "deals_kernel",
    "deck_of", "extension_score", "heuristic_move", "heuristic_work", "knob_vector",
    "legal_moves", "match_columns", "matches_kernel", "policy_vector", "random_move",
    "run_deals", "run_matches", "sample_world", "search_move", "search_work", "sides",
    "to_move", "trace_deal",
]
