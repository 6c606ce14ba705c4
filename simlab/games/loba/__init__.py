"""Loba, contract rummy in six rounds for 3 to 5 players with two packs and four Jokers
(seed 000 "Loba"; catalogue ``loba.md``).

May import: simlab.engine.*, simlab.mechanics.*, its own modules.

The package:

* ``rules.py``: the 108-card pack and penalties, knobs, the rounds' first melds, the state
  of a round and its moves (draw, first meld, new melds, lay-offs and the Joker shift,
  discard), stock exhaustion, scoring — the rulebook;
* ``players.py``: random, heuristic and search players, what a seat sees, worlds;
* ``kernels.py``: result columns, the round and match kernels, the runner's entry points;
* ``questions.py``: the balance metrics, decision kinds, a hand-strength measure.

The multi-pack meld machinery (count-vector hands, the exact first-meld cover, lay-offs
with Joker shifts) is in ``simlab.mechanics.melds``. This module registers the game.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.loba import questions as _q
from simlab.games.loba.kernels import (
    deal_columns,
    deals_kernel,
    match_columns,
    matches_kernel,
    new_work,
    play_round,
    run_deals,
    run_matches,
)
from simlab.games.loba.rules import DECK, LobaKnobs, knob_vector


def sides(knobs: LobaKnobs) -> Sides:
    """Every seat alone; the seat that went out wins the round. A round nobody went out of
    (exhausted stock, turn cap) is left out."""
    n = knobs.players
    return fixed_sides(tuple(range(n)), pl.col("went_out") >= 0,
                       value=tuple((pl.col("went_out") == i).cast(pl.Int8) for i in range(n)),
                       text="every seat alone; the seat that goes out wins the round",
                       unplayed="nobody went out: the stock ran out or the turn cap")


GAME = Game(
    slug="loba",
    title="Loba",
    description="contract rummy, 3-5 players, 108 cards (two packs, 4 Jokers): six rounds "
                "each with its first meld (sets of three, runs of four), one Joker a meld, "
                "Joker shifts, lay-offs, penalties (Joker 25), lowest total after six rounds",
    deck=DECK,
    knobs=LobaKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="3-5",
    lower_score_wins=True,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": _q.balance_metrics, "hand_strength": _q.hand_strength,
           "hand_strength_text": _q.HAND_STRENGTH_TEXT, "decisions": _q.decisions},
)

__all__ = ["DECK", "GAME", "LobaKnobs", "deal_columns", "deals_kernel", "knob_vector",
           "match_columns", "matches_kernel", "new_work", "play_round", "run_deals",
           "run_matches"]
