"""Le flair, a 2-4 player shedding game of claims and challenges (seed 004 "le flair";
catalogue ``flair.md``): each plays 1 to 5 cards face down and says what they are; any
other may call "j'ai du flair!" and say "vrai" or "faux"; a right caller gives a card to
the player, who takes his cards back; a wrong one takes them and a card from everyone
else. The first with an empty hand wins.

Where things are:

* ``rules.py`` — deck, knobs, claims and their truth (bit masks), the state, the columns.
* ``players.py`` — random, heuristic (ℓ, θ_f, θ_v, card memory) and adaptive.
* ``equilibrium.py`` — the adaptive player's stored mixed strategy, its regeneration by
  regret matching (``solve``) and its exploitability.
* ``kernels.py`` — batch kernels, entry points, ``play_one_turn`` (hand-built positions).
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.flair import questions as _questions
from simlab.games.flair.kernels import play_one_turn, run_deals, run_matches  # noqa: F401
from simlab.games.flair.players import POLICY_CODES
from simlab.games.flair.rules import (  # noqa: F401
    CLAIMS,
    DECK,
    FlairKnobs,
    deal_columns,
    hand_mask,
    match_columns,
)


def sides(knobs: FlairKnobs) -> Sides:
    """Each seat alone; the first empty hand wins (score: minus the cards left)."""
    return fixed_sides(tuple(range(knobs.players)), pl.lit(True),
                       text="each seat alone; the first to empty his hand wins")


GAME = Game(
    slug="flair",
    title="Le flair",
    description="2-4 players, all 52 cards dealt: play 1-5 cards face down and claim what "
                "they are (a suit, paire, brelan/tierce, suite/carré, suite); another may "
                "call 'j'ai du flair!' and say 'vrai' or 'faux'; the first empty hand wins",
    deck=DECK,
    knobs=FlairKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=tuple(POLICY_CODES),
    players_text="2-4",
    sides=sides,
    extra={"metrics": _questions.balance_metrics, "score_unit": "cards (minus those left)",
           "no_hand_strength": "every card may be claimed as anything, so what wins is "
                               "when to lie and when to call, not the cards dealt",
           "decisions": _questions.decisions, "decision_columns": ()},
    seat_policy_knobs=True,
)
