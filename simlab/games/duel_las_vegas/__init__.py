"""Duel à Las Vegas, a two-player push-your-luck poker duel (seed 000 "# Duel à Las
Vegas"; catalogue ``duel_las_vegas.md``): one 54-card pack per player, face-up hands
built card by card, the weaker hand concedes or draws, poker categories with wild
Jokers, first to 6 rounds or both packs exhausted.

Where things are:

* ``simlab/mechanics/poker.py`` (shared) — poker hand ranking with wild Jokers and short hands.
* ``rules.py`` — packs, knobs, the state of a partie and its steps (flip, compare,
  concede or draw, tie, empty pack, end): the rulebook.
* ``players.py`` — the heuristic and random players, worlds, the search player.
* ``kernels.py`` — result columns, batch kernels, the runner's entry points,
  ``trace_deal``.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.duel_las_vegas import questions as _questions
from simlab.games.duel_las_vegas.kernels import (  # noqa: F401
    deal_columns,
    deals_kernel,
    hand_text,
    match_columns,
    matches_kernel,
    play_partie,
    run_deals,
    run_matches,
    trace_deal,
)
from simlab.games.duel_las_vegas.players import (  # noqa: F401
    heuristic_move,
    playout,
    random_move,
    sample_world,
    search_move,
    search_work,
)
from simlab.games.duel_las_vegas.questions import FINDINGS, SECTION, balance_metrics  # noqa: F401
from simlab.games.duel_las_vegas.rules import (  # noqa: F401
    CONCEDE,
    DECK,
    DRAW,
    DuelLasVegasKnobs,
    apply_move,
    compare_hands,
    copy_state,
    knob_vector,
    new_partie,
    new_state,
    outcome,
    policy_vector,
    to_move,
)


def sides(knobs: DuelLasVegasKnobs) -> Sides:
    """Each seat alone; the partie's winner (score +1) wins the deal, a drawn partie is
    a tie."""
    return fixed_sides((0, 1), pl.lit(True), text="each seat alone; the partie's winner")


GAME = Game(
    slug="duel_las_vegas",
    title="Duel à Las Vegas",
    description="2-player poker duel, one 54-card pack each (2 wild Jokers): face-up hands "
                "built card by card, the weaker hand concedes the round or draws, ties "
                "make both draw; first to 6 rounds, or more rounds when both packs are "
                "exhausted (one deal = one partie)",
    deck=DECK,
    knobs=DuelLasVegasKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2",
    teams=None,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _questions.hand_strength,
           "hand_strength_text": _questions.HAND_STRENGTH_TEXT},
)
