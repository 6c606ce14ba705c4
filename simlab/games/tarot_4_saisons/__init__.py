"""Tarot 4 saisons, 3 players, 50 cards (seed 000 "Tarot 4 saisons"; catalogue
``tarot_4_saisons.md``): the ``GAME`` registration.

* ``rules.py``: deck, knobs, result columns, the state of a deal and its moves (bids,
  option, refusals, discards, contracts, contres, suites, play), scoring, the match bar;
* ``players.py``: heuristic and random policies, what a seat sees, the world sampler and
  the search player (``--policy search``);
* ``kernels.py``: the batch kernels and ``run_deals`` / ``run_matches``;
* ``questions.py``: the catalogue's balance questions as metrics.

The names the rest of simlab and the tests use are re-exported here.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, taker_sides
from simlab.games.tarot import questions as _strength
from simlab.games.tarot_4_saisons import questions as _questions_t4s
from simlab.games.tarot_4_saisons.kernels import (  # noqa: F401
    _args,
    _tables,
    deal_faults,
    deals_kernel,
    matches_kernel,
    play_deal,
    run_deals,
    run_matches,
)
from simlab.games.tarot_4_saisons.players import (  # noqa: F401
    announces_capot,
    capot_odds,
    follow_card,
    hand_value,
    heuristic_bid,
    heuristic_discard,
    heuristic_move,
    hidden_cards,
    hidden_places,
    lead_card,
    playout,
    random_move,
    revealed_exclusions,
    sample_world,
    search_move,
    search_totals,
    search_work,
)
from simlab.games.tarot_4_saisons.questions import SECTION, balance_metrics  # noqa: F401
from simlab.games.tarot_4_saisons.rules import *  # noqa: F403
from simlab.games.tarot_4_saisons.rules import (  # noqa: F401
    DECK,
    NP,
    Tarot4SaisonsKnobs,
    _ints,
    _rules,
    _vector,
    deal_columns,
    legal_cards,
    match_columns,
)


def sides(knobs: Tarot4SaisonsKnobs) -> Sides:
    """The taker against both opponents, over the deals someone took and that were not
    annulled. The game result decides, as the rulebook's "winner(s) of the next played
    deal" (the all-pass carry) does: ``game_s`` is the stake for the taker when he makes
    his criterion, for each opponent when he fails, 0 otherwise; the seats' own bonuses,
    suites and penalties in score_s do not decide it."""
    return taker_sides(NP, (pl.col("taker") >= 0) & ~pl.col("annulled"),
                       value=tuple(pl.col(f"game_s{i}") for i in range(NP)),
                       text="the taker against both opponents; the game result decides",
                       unplayed="all pass, or an annulment: no trump, a fault, a redeal")


GAME = Game(
    slug="tarot_4_saisons",
    title="Tarot 4 saisons",
    description="3-player Tarot on 50 cards (no 3s, no 5-10s): no-trump redeal, misère, "
                "seven-rung simple/clear bidding ladder with chien options, contracts and "
                "automatic bonuses, contres, suites, the Excuse's capture rule and "
                "last-two-tricks penalty; matches to a moving 50-point bar",
    deck=DECK,
    knobs=Tarot4SaisonsKnobs,
    players=lambda k: NP,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="3",
    teams=None,
    sides=sides,
    seat_policy_knobs=True,
    extra={"metrics": balance_metrics, "hand_strength": _strength.hand_strength,
           "hand_strength_text": _strength.HAND_STRENGTH_TEXT,
           "decisions": _questions_t4s.decisions,
           "decision_notes": _questions_t4s.decision_notes},
)
