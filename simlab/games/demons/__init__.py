"""Démons, the 3-player trick game with a hidden Diable, possession of turned cards,
combinations built from the cards played and trick bets (seed 000 "Démons", lines
1581-1796, inspired by Perlaggen; catalogue ``demons.md``).

Where things are:

* ``rules.py`` — deck and tables, knobs, result columns, the state of a deal (``S_*``
  slots) and its moves, the deal and the Diable, the six-swap, the betting windows and
  answers, following and the trick's winner, possession, the reveal-swap, Pareil and
  Suite, scoring: the rulebook;
* ``players.py`` — the heuristic and random players, the swaps' choices, what a seat
  sees (not who the Diable is), the worlds consistent with it and the search player;
* ``kernels.py`` — the batch kernels (deals, matches to 333, the deal-only statistics
  kernel) and ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.

``simlab.games.heritiers`` reuses all of it (its seed section is a copy of this one).

May import: simlab.engine.*, simlab.mechanics.*, simlab.games.demons.*.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.demons import questions as _questions
from simlab.games.demons.kernels import (
    deal_stats_kernel,
    deals_kernel,
    matches_kernel,
    run_deals,
    run_matches,
)
from simlab.games.demons.rules import (
    DECK,
    DemonsKnobs,
    _vector,
    apply_move,
    deal,
    deal_columns,
    legal_moves,
    match_columns,
)

__all__ = [
    "DECK", "GAME", "DemonsKnobs", "_vector", "apply_move", "deal", "deal_columns",
    "deal_stats_kernel", "deals_kernel", "legal_moves", "make_game", "match_columns",
    "matches_kernel", "run_deals", "run_matches", "sides",
]


def sides(knobs: DemonsKnobs) -> Sides:
    """Each player alone (the Diable too); the deal's highest score wins it. A fault
    annuls the deal (never committed by the players: legal moves exclude it)."""
    return fixed_sides((0, 1, 2), pl.col("fault") < 0,
                       text="three players, each alone; the highest deal score wins",
                       unplayed="deals annulled by a pure-Démon fault")


DESCRIPTION = ("3 players, 33 cards from two Tarot packs (K and C twice, Q, J, 6, trumps 1-5 "
               "as Démons): 9 cards each and 6 turned, a hidden Diable scoring on his own "
               "scale, Démons possessing turned cards, Pareil and Suite built from the cards "
               "played, partial and complete trick bets, match to 333 won only in a deal "
               "with a bet")


def make_game(slug: str, title: str, description: str, extra: dict | None = None) -> Game:
    """The Démons engine under a slug (``heritiers`` is the same engine)."""
    return Game(
        slug=slug,
        title=title,
        description=description,
        deck=DECK,
        knobs=DemonsKnobs,
        players=lambda k: 3,
        deal_columns=deal_columns,
        match_columns=match_columns,
        run_deals=run_deals,
        run_matches=run_matches,
        policies=("random", "heuristic", "search"),
        players_text="3",
        sides=sides,
        seat_policy_knobs=True,
        extra={"metrics": _questions.balance_metrics,
               "hand_strength": _questions.hand_strength,
               "hand_strength_text": _questions.HAND_STRENGTH_TEXT,
               "decisions": _questions.decisions, "decision_columns": (),
               "decision_notes": _questions.decision_notes,
               "score_unit": "points", **(extra or {})},
    )


GAME = make_game("demons", "Démons", DESCRIPTION)
