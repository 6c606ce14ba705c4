"""Tarot double détente (3 players, two half-manches) and the 2-player Triple-Détente.

Where things are:

* ``rules.py`` — the rulebook: deck and tables, knobs, the pile and turned cards,
  scoring, the hook, the state of a part and its moves (``new_part``, ``to_move``,
  ``legal_moves``, ``apply_move``, ``outcome``);
* ``players.py`` — the heuristic and random players, what a seat sees
  (``hidden_places``), the world builder and the search player (``search_move``);
* ``kernels.py`` — result columns, one part as the kernels run it, the batch kernels
  and ``run_deals`` / ``run_matches``;
* ``questions.py`` — the balance metrics;
* here — the ``GAME`` registration; the names other modules and tests use are
  re-exported.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.tarot import questions as _strength
from simlab.games.tarot_double_detente.kernels import (
    deal_columns,
    deals_kernel,
    match_columns,
    matches_kernel,
    play_part,
    play_part_search,
    run_deals,
    run_matches,
)
from simlab.games.tarot_double_detente.players import (
    choose_bid,
    expected_tricks,
    follow_card,
    heuristic_move,
    lead_card,
    random_move,
    search_move,
)
from simlab.games.tarot_double_detente.questions import SECTION, balance_metrics
from simlab.games.tarot_double_detente.rules import (
    DECK,
    ID_OF_SLOT,
    MOD_DOUBLE,
    MOD_EXACT,
    MOD_NONE,
    MOD_REVERSE,
    MODIFIERS,
    N_CARDS,
    SLOT_OF_ID,
    DetenteKnobs,
    _rules,
    _vector,
    apply_move,
    contract_bonus,
    forbidden_bid,
    legal_moves,
    modifier_of,
    part_scores,
    tables,
    to_move,
)


def sides(knobs: DetenteKnobs) -> Sides:
    """Every seat alone; the highest mark of the part wins it, a shared highest mark is a
    tie. A part stopped by a fault (``fault_seat``, only with ``fault_per_mille`` > 0)
    is void: only its penalty is marked."""
    n = knobs.players
    return fixed_sides(tuple(range(n)), ~pl.col("annulled") & (pl.col("fault_seat") < 0),
                       text="every seat alone; the highest mark of the part wins",
                       unplayed="a fault stopped the part")


GAME = Game(
    slug="tarot_double_detente",
    title="Tarot double détente",
    description="exact-contract trick game on the 78-card Tarot pack: 3 players, two "
                "half-manches of 13 cards (2 players: Triple-Détente, three thirds), "
                "rising score tables, Petit and Excuse, match to 200; optional "
                "Cavalerie, Modifications, As gagnant, Tout ou rien",
    deck=DECK,
    knobs=DetenteKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2-3",
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT,
           # a manche's parts are consecutive rows, and its metrics add them up
           # (``.over("manche")``): whoever measures rows in chunks keeps them together
           "row_group": lambda k, level: 5 - k.players if level == "deal" else 1},
)

__all__ = [
    "DECK", "GAME", "ID_OF_SLOT", "MODIFIERS", "MOD_DOUBLE", "MOD_EXACT", "MOD_NONE",
    "MOD_REVERSE", "N_CARDS", "SECTION", "SLOT_OF_ID", "DetenteKnobs", "_rules", "_vector",
    "apply_move", "balance_metrics", "choose_bid", "contract_bonus", "deal_columns",
    "deals_kernel", "expected_tricks", "follow_card", "forbidden_bid", "heuristic_move",
    "lead_card", "legal_moves", "match_columns", "matches_kernel", "modifier_of",
    "part_scores", "play_part", "play_part_search", "random_move", "run_deals", "run_matches", "search_move",
    "tables", "to_move",
]
