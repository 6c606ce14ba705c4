"""Demo tricks: a small trick-taking game as a simlab plug-in (made by ``simlab new-game``).

Where things are:

* ``rules.py`` — deck, knobs, the state and the step (deal, legal moves, apply, outcome,
  what a seat sees, a hidden-card sampler for the search player), result columns.
* ``players.py`` — random, heuristic and search players, each deciding from its seat's view.
* ``runs.py`` — deals and matches into rows (``run_deals``, ``run_matches``), one random
  stream per deal.
* ``questions.py`` — balance questions as metrics, the hand-strength measure, the decision.
* ``house.py`` — a house rule of one of simlab's games (Belote scored to the nearest ten),
  a second plug-in game of this package.

simlab finds this game through the entry point in ``pyproject.toml``
(``[project.entry-points."simlab.games"]``): ``pip install .`` and ``simlab list`` shows it.

May import: simlab.engine.*, this package's modules.
"""

from __future__ import annotations

from simlab.engine.game import Game

from simlab_demo_tricks import questions
from simlab_demo_tricks.players import POLICIES
from simlab_demo_tricks.rules import DECK, GameKnobs, deal_columns, match_columns
from simlab_demo_tricks.runs import run_deals, run_matches

GAME = Game(
    slug="demo_tricks",
    title="Demo tricks",
    description="2-4 players, 32 cards: follow suit, the highest trump or card of the suit "
                "led takes the trick; a point a trick, a bonus for the last (a plug-in)",
    deck=DECK,
    knobs=GameKnobs,
    players=lambda k: k.players,
    deal_columns=deal_columns,
    match_columns=match_columns,
    run_deals=run_deals,
    run_matches=run_matches,
    policies=POLICIES,
    players_text="2-4",
    extra={"metrics": questions.balance_metrics, "score_unit": "points",
           "hand_strength": questions.hand_strength,
           "hand_strength_text": "Aces count 2, Kings 1",
           "decisions": questions.decisions},
)
