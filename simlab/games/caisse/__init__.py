"""Caisse, 3 players, 32 cards: a transposition of the Hungarian Alsós (seed 000 "# Caisse";
catalogue ``caisse.md``).

Where things are:

* ``rules.py`` — deck and tables, knobs, columns, the state of a deal (``S_*`` slots) and
  its moves: the deal (6 cards, proposal card, 3 face down, indicator), the three
  declaration rounds, contracts and contres, the trump exchange, melds and belote, the
  défi, trick play, scoring, the moving match bar;
* ``players.py`` — heuristic, random, what a seat sees, worlds, the search player;
* ``kernels.py`` — the batch kernels and ``run_deals`` / ``run_matches``;
* ``questions.py`` — the catalogue's balance questions and findings.

Readings and simplifications (each also at its rule in rules.py):

* melds (§9) are decisions: before his first card a seat announces its longest
  sequence's length and "carré", or stays silent; after the first trick a claimant may
  withdraw; only the claims kept are compared. A tie of announced claims makes its
  claimants disclose their best sequence (length, top card) or four, and the winner shows
  his melds: all of it public, and the search's worlds respect it;
* round 3: the first player to declare Misère plays it (the seed has no outbidding);
* contract round 2 is a series of moves made just before one's first card (announce,
  contre; the card ends the speech); contres only on one's own turn (catalogue #7);
* the défi multiplies the game and any Caisse (the only contract it allows); a
  concession settles both at the stake before the last raise (catalogue #8); after the
  taker's raise both opponents answer, and either one's surcontre stands (§11);
* a Misère may be contred before the first card (§10, catalogue #12; the default), or,
  with ``misere_contre=false``, raised only by the défi (§11 "la seule occasion").

Players: the heuristic announces its melds, except a sequence shorter than one already
announced (the seed's example of silence), and never withdraws; at any seat it announces
each contract kind where measured to pay (``players.heuristic_contract``: a Caisse with
the Belote, Clarté / Cent / Deux Cents from its score, the card contracts when it holds
their cards, Capot with no loser; with 6 cards only the near-certain ones, doubled),
contres games with strong trumps and any contract of the other party it can see failing,
surcontres only with a very strong game, challenges trump games, concedes weak ones; it
never re-challenges. The random player flips a coin before speaking (see players.py).
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, taker_sides
from simlab.games.caisse import questions as _q
from simlab.games.caisse.kernels import deals_kernel, matches_kernel, run_deals, run_matches
from simlab.games.caisse.rules import (
    CONTRACTS,
    DECK,
    GAMES,
    NP,
    CaisseKnobs,
    _rules,
    _vector,
    deal_columns,
    match_columns,
    tables,
)

__all__ = ["CONTRACTS", "DECK", "GAME", "GAMES", "NP", "CaisseKnobs", "_rules", "_vector",
           "deal_columns", "deals_kernel", "match_columns", "matches_kernel", "run_deals",
           "run_matches", "tables"]


def sides(knobs: CaisseKnobs) -> Sides:
    """The taker against both opponents (who score together when he fails, §5.4); the
    game's result decides. Misère Générale (no taker) is left out of the side counts."""
    outcome = pl.when(pl.col("made")).then(1).otherwise(-1)
    value = tuple(pl.when(pl.col("taker") == i).then(outcome).otherwise(-outcome)
                  for i in range(NP))
    return taker_sides(NP, pl.col("taker") >= 0, value=value,
                       text="the taker against both opponents; the game result decides",
                       unplayed="Misère Générale (no taker)")


GAME = Game(
    slug="caisse",
    title="Caisse",
    description="3-player Alsós transposition: 6+3 deal, proposal card and indicator, three "
                "declaration rounds (trump, other trump / Sans-Atout, Misère, Misère "
                "Générale), trump exchange, contracts at 6 or 9 cards, contres to x256, "
                "melds, the défi; match to 20 with a moving bar",
    deck=DECK,
    knobs=CaisseKnobs,
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
    extra={"metrics": _q.balance_metrics, "hand_strength": _q.hand_strength,
           "hand_strength_text": _q.HAND_STRENGTH_TEXT, "decisions": _q.decisions,
           "imposed_labels": _q.IMPOSED_LABELS},
)
