"""A house rule of one of simlab's games, as a plug-in: Belote with every deal's points
rounded to the nearest ten (a 5 rounds up), as many tables score it.

The pattern: take simlab's Game and replace what the house rule changes. Here only the
deal's scoring changes, so ``run_deals`` wraps Belote's and rescores the rows it returns
(the play is the same: the same deals, the same cards). Match rows cannot be rescored
from outside (a match's end depends on every deal's score), so this game has deal rows
only and refuses ``--level match`` in one line.

Registered beside the game in ``pyproject.toml``:
``demo_tricks_belote_house = "simlab_demo_tricks.house"``.

May import: simlab.engine.*, simlab.games.
"""

from __future__ import annotations

from dataclasses import replace

from simlab.engine.game import KernelOutput
from simlab.engine.knobs import SimlabError
from simlab.games import get_game

BELOTE = get_game("belote")


def round_to_ten(points):
    """Nearest ten, a 5 rounding up (85 -> 90, 84 -> 80); works on numpy arrays."""
    return (points + 5) // 10 * 10


def house_deals(knobs, policies, seed, start, count, record_hands=False) -> KernelOutput:
    out = BELOTE.run_deals(knobs, policies, seed, start, count, record_hands)
    names = [c.name for c in BELOTE.deal_columns(knobs)]
    for i, name in enumerate(names):
        if name.startswith("score_s"):
            out.rows[:, i] = round_to_ten(out.rows[:, i])
    return out


def no_matches(knobs, policies, seed, start, count) -> KernelOutput:
    raise SimlabError("demo_tricks_belote_house rescores deals only; use --level deal (match "
                      "rows need the match rules to use the rounded scores)")


GAME = replace(BELOTE, slug="demo_tricks_belote_house",
               title="Belote, scores rounded to ten (house rule)",
               description="Belote with every deal's points rounded to the nearest ten "
                           "(a house rule plug-in)",
               run_deals=house_deals, run_matches=no_matches)
