"""French Tarot, 3, 4 or 5 players (seed 001 "Tarot", Ducale booklet; catalogue ``tarot.md``).

Where things are:

* ``rules.py`` — the rulebook: deck and tables, knobs, the deal's state (``S_*``), deal
  and petit sec, auction, call, chien and écart, poignées and chelem, play and the
  Excuse, scoring; the moves (``legal_moves``, ``apply_move``, ``seat_outcome``);
* ``players.py`` — the heuristic and random players, a seat's information, the world
  sampler and the search player (``--policy search``);
* ``kernels.py`` — result columns, one dealing driven by the seats' policies, the batch
  kernels and the runner's entry points;
* ``questions.py`` — the balance questions.

This module registers the game (``GAME``) and re-exports the names other code uses.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, policy_codes, taker_sides  # noqa: F401 (re-exported)
from simlab.games.tarot import questions as _strength

from .kernels import *  # noqa: F403
from .kernels import _args, _layout, deal_columns, match_columns, run_deals, run_matches  # noqa: F401
from .players import *  # noqa: F403
from .questions import *  # noqa: F403
from .questions import _n_seats, _value_buckets, balance_metrics  # noqa: F401
from .rules import *  # noqa: F403
from .rules import DECK, TarotKnobs, _rules, _vector  # noqa: F401


def sides(knobs: TarotKnobs) -> Sides:
    """The taker's side (with the called partner at 5 players) against the defence, over
    the deals someone took (not all passes, not petit sec). score_s already encodes the
    result: the attack marks a multiple of A and each defender -A, so the side with the
    higher mean mark is the one whose A is positive (contract made)."""
    five = knobs.players == 5
    return taker_sides(knobs.players, pl.col("taker") >= 0, "partner" if five else None,
                       text="the taker" + (" and the called partner" if five else "")
                            + " against the defence",
                       unplayed="nobody takes, or a petit sec annuls the dealing")


GAME = Game(
    slug="tarot",
    title="French Tarot",
    description="official French Tarot at 3, 4 or 5 players: packets and chien, petit sec, "
                "Prise/Garde/Garde sans/Garde contre, écart, called King at 5, Excuse, "
                "poignées, petit au bout, chelem; matches of a fixed number of dealings "
                "or of played deals",
    deck=DECK,
    knobs=TarotKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="3-5",
    teams=None,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT, "decisions": _strength.decisions},
)
