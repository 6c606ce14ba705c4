"""XXL — Fournir des séries, the fourth of the six XXL variants (seed
``002_f79cc30b1abb5c3a.txt``, Hanneforth & Bücken, Abacus 1996; catalogue
``xxl_fournir_des_series.md``): 2-6 players, 4 cards each, two turned cards form a display;
on his turn a player lays a run of three same-colour consecutive halves (from his hand and
at most two display cards), swaps a card with the display, feeds one to it, or passes;
the laid cards' totals score, highest wins.

Where things are:

* ``simlab/games/xxl/`` (shared) — the deck, its colourings (``deck_colouring``), dealing,
  the colouring-range helper, kernel helpers.
* ``rules.py`` — knobs, the state (hands, display, runs as bit masks), actions, the end.
* ``players.py`` — random, heuristic, search (determinized over the heuristic's best
  candidates, sees only its seat).
* ``kernels.py`` — batch kernels and the runner's entry points.
* ``questions.py`` — the catalogue's balance questions as metrics and findings.
"""

from __future__ import annotations

import polars as pl

from simlab.engine.game import Game, Sides, fixed_sides
from simlab.games.xxl.deck import DECK
from simlab.games.xxl_fournir_des_series import questions as _q
from simlab.games.xxl_fournir_des_series.kernels import (  # noqa: F401
    deals_kernel,
    kernel_args,
    matches_kernel,
    run_deals,
    run_matches,
)
from simlab.games.xxl_fournir_des_series.players import POLICY_CODES  # noqa: F401
from simlab.games.xxl_fournir_des_series.rules import (  # noqa: F401
    SeriesKnobs,
    deal_columns,
    match_columns,
)


def sides(knobs: SeriesKnobs) -> Sides:
    return fixed_sides(tuple(range(knobs.players)), pl.lit(True),
                       text="every seat alone; the most points in laid runs wins")


def _decisions(knobs: SeriesKnobs, columns: list[str]) -> list[tuple]:
    out = []
    notes = {"swaps": "always: a game lasts about 54 turns, and some turn always offers a "
                      "swap that raises the hand's run prospects (the heuristic swaps only "
                      "then: 14 swaps per game at 4 players)"}
    for name, col in (("swap a card with the display", "swaps"),
                      ("feed a card to the display", "feeds"),
                      ("pass", "passes")):
        if col in columns:
            out.append((f"{name} (games where it happened)", pl.col(col) > 0, None,
                        notes.get(col, "")))
    return out



def _exact_findings(knobs) -> list[tuple[str, str]]:
    """The report's stated paragraphs (``questions.exact_findings``) for this game."""
    return _q.exact_findings(knobs, GAME)


GAME = Game(
    slug="xxl_fournir_des_series",
    title="XXL — Fournir des séries",
    description="XXL variant 4, 2-6 players, 4 cards each and a display of turned cards: "
                "lay three-card same-colour runs (hand plus up to two display cards), swap "
                "or feed the display, or pass; laid cards' totals score, highest wins "
                "(deck colours: reconstruction v1)",
    deck=DECK,
    knobs=SeriesKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=("random", "heuristic", "search"),
    players_text="2-6",
    sides=sides,
    extra={"metrics": _q.balance_metrics, "exact_findings": _exact_findings,
           "hand_strength": _q.hand_strength, "hand_strength_text": _q.HAND_STRENGTH_TEXT,
           "decisions": _decisions, "decision_columns": (), "score_unit": "points"},
    seat_policy_knobs=True,
)
