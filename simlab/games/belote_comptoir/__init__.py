"""Belote de comptoir (seed 003, under Belote; catalogue ``belote_comptoir.md``).

Where things are:

* ``rules.py`` — knobs, tables (Belote's card values and orders, Sans-Atout and
  Tout-Atout rows), result columns, the state of a deal (``S_*`` slots) and its moves:
  dealing with the visibility modes, the points auction, the contract, card play,
  scoring: the rulebook;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it, the search player;
* ``exact.py`` — the exact solver at small k (every deal of the hidden cards, each solved
  with full information by minimax) and the judging of the search player against it;
* ``kernels.py`` — the batch kernels and the runner's ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.belote_comptoir import questions as _q
from simlab.games.belote_comptoir.kernels import deals_kernel, matches_kernel, run_deals, run_matches
from simlab.games.belote_comptoir.rules import (
    CONTRACT_KINDS,
    DECK,
    ComptoirKnobs,
    _rules,
    _vector,
    bid_cap,
    contract_points,
    deal_columns,
    kernel_tables,
    match_columns,
    tables,
)

__all__ = ["CONTRACT_KINDS", "DECK", "GAME", "ComptoirKnobs", "_rules", "_vector", "bid_cap",
           "contract_points", "deal_columns", "deals_kernel", "kernel_tables", "match_columns",
           "matches_kernel", "run_deals", "run_matches", "tables"]


def sides(knobs: ComptoirKnobs) -> Sides:
    """Every seat alone over the deals someone bid; a seat's value is its mark, so the
    bidder wins a deal he makes, and a failed bid (every other seat marks 1) is a tie
    among the others."""
    return fixed_sides(tuple(range(knobs.players)), pl.col("taker") >= 0,
                       text="every seat alone; the bidder wins the deal he makes, a failed "
                            "bid gives every other player a point (a tie among them)",
                       unplayed="everybody passes")


GAME = Game(
    slug="belote_comptoir",
    title="Belote de comptoir",
    description="short-hand Belote for 2-6 players each for himself: k cards each (1-5), "
                "an auction in points, the highest bidder names trump (or Sans-Atout / "
                "Tout-Atout) and leads; made: +1 to him, failed: +1 to every other "
                "player; blind / partly blind / partly open deals; match to 5",
    deck=DECK,
    knobs=ComptoirKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2-6",
    teams=None,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": _q.balance_metrics, "hand_strength": _q.hand_strength,
           "hand_strength_text": _q.HAND_STRENGTH_TEXT, "decision_notes": _q.decision_notes},
)
