"""Speed, a two-player real-time shedding race (seed 003 "Speed", from
fr.wikihow.com/jouer-au-Speed; catalogue ``speed.md``): both play at once onto two
centre piles a card one rank above or below the top (2 .. A circular), refill to 5 from
their own pile, flip spare cards when nobody can play; the first out of cards wins.

Where things are:

* ``simlab/mechanics/realtime.py`` (shared) — the discrete-event clock and the player
  model (lognormal reaction delays, scan cost, error rate, per seat).
* ``rules.py`` — deck, knobs, the board (piles), a play, the stall flip and recycling.
* ``players.py`` — random, and the heuristic that keeps follow-ups.
* ``kernels.py`` — the event loop, batch kernels and the runner's entry points.
* ``questions.py`` — the catalogue's balance questions; the report's findings state the
  player model and sweep the speed ratio.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.decks import RANKS_52
from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.speed import questions as _questions
from simlab.games.speed.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_out,
    run_deals,
    run_matches,
    simulate_rows,
)
from simlab.games.speed.rules import DECK, SpeedKnobs, deal_columns, match_columns


def sides(knobs: SpeedKnobs) -> Sides:
    """Each seat alone; the first out of cards wins (at the recycle cap: fewer left)."""
    return fixed_sides((0, 1), pl.lit(True), text="each seat alone; the first out of "
                       "cards wins")


def hand_strength(knobs: SpeedKnobs, hand: list[str]) -> float:
    """The first hand's spread: how many of the 13 possible tops it can play on."""
    ranks = [RANKS_52.index(c[:-1]) for c in hand]
    return float(len({(r + d) % 13 for r in ranks for d in (1, 12)}))


GAME = Game(
    slug="speed",
    title="Speed",
    description="2 players in real time: a card one rank above or below a centre pile's "
                "top (circular), hands refilled to 5 from a 20-card pile, spare cards "
                "flipped when nobody can play; first out of cards wins",
    deck=DECK,
    knobs=SpeedKnobs,
    players=lambda k: 2,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic"),
    players_text="2",
    sides=sides,
    extra={"metrics": _questions.balance_metrics, "score_unit": "cards shed",
           "exact_findings": _questions.exact_findings,
           "hand_strength": hand_strength,
           "hand_strength_text": "tops (of 13) the first 5 cards can play on"},
    seat_policy_knobs=True,
)
