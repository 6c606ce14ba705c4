"""Démons punisseurs, the 3-player trick and betting game with wild Démons (seed 000
"Démons punisseurs", an adaptation of the Tyrolean Strafferlaggen to a French pack;
catalogue ``demons_punisseurs.md``): 32 cards plus the 6♦, 8 or 9 Démons that take the
name of any card, three objectives (Pareil, Suite, Jeu) worth a point each, raised by
bets to 2 and 3, an exposition once the Jeu is settled.

Where things are:

* ``rules.py`` — deck and Démon tables, knobs, result columns, the state of a deal and
  its moves (bets, answers, cards with their names), the deal and the dealer's swaps,
  the trick, the bet rounds, the exposition, scoring: the rulebook;
* ``tables.py`` — the heuristic's table of chances (a random seat's best Pareil and
  Suite), with the code that measured it;
* ``players.py`` — the heuristic and random players, what a seat sees, the worlds
  consistent with it and the search player (``--policy search``);
* ``kernels.py`` — the batch kernels (deals; matches to ``target_points``) and
  ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions as metrics and findings.

May import: ``simlab.engine.*``, ``simlab.mechanics.*``.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.demons_punisseurs import questions as _questions
from simlab.games.demons_punisseurs.kernels import (  # noqa: F401
    deals_kernel,
    matches_kernel,
    play_deal,
    run_deals,
    run_matches,
)
from simlab.games.demons_punisseurs.players import (  # noqa: F401
    heuristic_move,
    search_move,
)
from simlab.games.demons_punisseurs.rules import (  # noqa: F401
    DECK,
    DemonsPunisseursKnobs,
    _vector,
    apply_move,
    deal,
    deal_columns,
    legal_moves,
    match_columns,
)


def sides(knobs: DemonsPunisseursKnobs) -> Sides:
    """Each player alone; the highest deal score wins the deal (a tie at the top: nobody)."""
    return fixed_sides((0, 1, 2), pl.lit(True), text="three players, each alone; the "
                       "highest deal score wins")


GAME = Game(
    slug="demons_punisseurs",
    title="Démons punisseurs",
    description="Démons punisseurs, 3 players, 32 cards + 6♦: 8-9 wild Démons named at "
                "play, trumps from a turned card (never ♣), three objectives (Pareil, "
                "Suite, Jeu = 4 tricks) worth 1 each, bets held and pushed to 3, an "
                "exposition once the Jeu is settled; match to 12 (not in the seed)",
    deck=DECK,
    knobs=DemonsPunisseursKnobs,
    players=lambda k: 3,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="3",
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": _questions.balance_metrics, "hand_strength": _questions.hand_strength,
           "hand_strength_text": _questions.HAND_STRENGTH_TEXT,
           "decisions": _questions.decisions, "decision_notes": _questions.decision_notes,
           "decision_columns": ()},
)
