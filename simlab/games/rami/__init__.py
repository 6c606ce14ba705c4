"""Rami, the French rummy for 2 to 7 players (seed 003 "Rami"; catalogue ``rami.md``).

The package:

* ``rules.py``: deck and values, knobs, the state of a deal and its moves (draw, lay-down,
  discard), the lay-down every policy makes, scoring — the rulebook;
* ``players.py``: heuristic, random and search players, what a seat sees, worlds;
* ``kernels.py``: result columns, batch kernels (deals, matches), the runner's entry points;
* ``questions.py``: the balance metrics.

The meld machinery (exact best partition of a hand, lay-offs) is ``simlab.mechanics.melds``. This
module registers the game and re-exports the names tests and tools use.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.rami import questions as _strength
from simlab.games.rami.kernels import (
    C_SCORE,
    X_TURNS,
    _cols,
    deal_columns,
    deals_kernel,
    match_columns,
    matches_kernel,
    new_work,
    play_deal,
    run_deals,
    run_deals_detail,
    run_matches,
    trace_deal,
)
from simlab.games.rami.players import (
    choose_discard,
    heuristic_move,
    hidden_cards,
    playout,
    random_move,
    sample_world,
    search_move,
    wants_discard,
)
from simlab.games.rami.questions import SECTION, balance_metrics
from simlab.games.rami.rules import (
    CW,
    DECK,
    MODE_LAYOFF,
    MODE_NONE,
    MODE_NORMAL,
    MODE_PLAN,
    VAL,
    RamiKnobs,
    apply_move,
    deal_size,
    hand_value,
    knob_vector,
    legal_moves,
    must_mode,
    to_move,
    try_open,
)

_vector = knob_vector  # the name older tests use

def sides(knobs: RamiKnobs) -> Sides:
    """Every seat alone; the seat that went out wins the deal (``went_out``, not the
    penalties in score_s, whose order a knob such as joker_penalty = 0 could tie). A deal
    nobody went out of (turn cap, or nobody can draw) is void."""
    n = knobs.players
    return fixed_sides(tuple(range(n)), (pl.col("went_out") >= 0) & ~pl.col("annulled"),
                       value=tuple((pl.col("went_out") == i).cast(pl.Int8) for i in range(n)),
                       text="every seat alone; the seat that goes out wins",
                       unplayed="nobody went out: the turn cap, or nobody can draw")


GAME = Game(
    slug="rami",
    title="Rami",
    description="French rummy, 2-7 players: draw from talon or discard, brelans/carrés/"
                "sequences with jokers, 51-point opening, lay-offs, Rami doubles the "
                "penalties, match to 1000 (lowest total wins)",
    deck=DECK,
    knobs=RamiKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2-7",
    lower_score_wins=True,  # score_s{i} is the penalty paid: the lowest wins
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT},
)

__all__ = [
    "CW", "C_SCORE", "DECK", "GAME", "MODE_LAYOFF", "MODE_NONE", "MODE_NORMAL", "MODE_PLAN",
    "SECTION", "VAL", "X_TURNS", "RamiKnobs", "_cols", "_vector", "apply_move", "balance_metrics",
    "choose_discard", "deal_columns", "deal_size", "deals_kernel", "hand_value", "heuristic_move",
    "hidden_cards", "knob_vector", "legal_moves", "match_columns", "matches_kernel", "must_mode",
    "new_work", "play_deal", "playout", "random_move", "run_deals", "run_deals_detail",
    "run_matches", "sample_world", "search_move", "to_move", "trace_deal", "try_open",
    "wants_discard",
]
