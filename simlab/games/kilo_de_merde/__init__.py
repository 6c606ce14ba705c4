"""Kilo de merde, a real-time passing and slapping game for 3 to 10 players (seed 003
"Kilo de Merde", from www.regles.com; catalogue ``kilo_de_merde.md``): each holds 4 cards
of a packet of n whole ranks and passes one left in turn; whoever holds four of a rank or
of a suit slaps the pile, everyone slaps, the last takes the pile's top card as kilos
(Aces 100 kg); a 7 flushes the drawer's kilos back; the lowest total wins.

Where things are:

* ``simlab/mechanics/realtime.py`` (shared) — the discrete-event clock and the player
  model (lognormal reaction delays, scan cost, error rate, per seat).
* ``rules.py`` — deck, packet, knobs, combinations, the deadlock test, result columns.
* ``players.py`` — random and heuristic passing.
* ``kernels.py`` — the round's event loop (passes, slaps, races, penalty draws, flushes),
  batch kernels and the runner's entry points.
* ``questions.py`` — the catalogue's balance questions; the report's findings state the
  player model and sweep the speed ratio and the player count.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.kilo_de_merde import questions as _questions
from simlab.games.kilo_de_merde.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_round,
    run_deals,
    run_matches,
    simulate_rows,
)
from simlab.games.kilo_de_merde.rules import (  # noqa: F401
    DECK,
    KiloKnobs,
    can_all_complete,
    deal_columns,
    has_combo,
    match_columns,
)


def sides(knobs: KiloKnobs) -> Sides:
    """Each seat alone; the fewest kilos wins."""
    return fixed_sides(tuple(range(knobs.players)), pl.lit(True), lower_wins=True,
                       text="each seat alone; the fewest kilos wins")


GAME = Game(
    slug="kilo_de_merde",
    title="Kilo de merde",
    description="3-10 players in real time: pass a card left until four of a rank or a "
                "suit, slap the pile, the last to slap draws its top card as kilos (Aces "
                "100 kg), a 7 flushes them back; the fewest kilos wins",
    deck=DECK,
    knobs=KiloKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic"),
    players_text="3-10 (knob players)",
    lower_score_wins=True,
    sides=sides,
    extra={"metrics": _questions.balance_metrics, "score_unit": "kilos",
           "exact_findings": _questions.exact_findings,
           "no_hand_strength": "penalties go to the slowest slapper and to false slaps; "
                               "the 4 dealt cards only decide who completes first, and "
                               "a player who completes first still races in every later "
                               "slap"},
    seat_policy_knobs=True,
)
