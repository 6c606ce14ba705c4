"""The games: one package per game (``simlab/games/<slug>/``) holding its rules
(``rules.py``: deck, knobs, deal, legal moves, scoring), its kernels (``kernels.py``), its
players (``players.py``: random, heuristic and its search loop) and its balance questions
(``questions.py``), and this registry, which turns a catalogue slug into the game's
``Game`` value (the command line and ``simlab``'s front door call it once).

May import: the mechanics and the engine, and another game's package (Belote Noisette
plays with Belote's tables) — never a player kind, the analysis or the command line."""

from __future__ import annotations

import importlib

from simlab.engine import game as _contract
from simlab.engine.game import Game
from simlab.engine.knobs import SimlabError, did_you_mean

# slug -> module path; modules are imported on first use (numba kernels load lazily).
_MODULES = {
    "belote": "simlab.games.belote",
    "manille": "simlab.games.manille",
    "tarot": "simlab.games.tarot",
    "tarot_4_saisons": "simlab.games.tarot_4_saisons",
    "tarot_double_detente": "simlab.games.tarot_double_detente",
    "rami": "simlab.games.rami",
    "president": "simlab.games.president",
    "besigue": "simlab.games.besigue",
    "bridgette": "simlab.games.bridgette",
    "sept": "simlab.games.sept",
    "frappe": "simlab.games.frappe",
    "duel_las_vegas": "simlab.games.duel_las_vegas",
    "belote_comptoir": "simlab.games.belote_comptoir",
    "belote_noisette": "simlab.games.belote_noisette",
    "mille": "simlab.games.mille",
    "bernicle": "simlab.games.bernicle",
    "caisse": "simlab.games.caisse",
    "batouille": "simlab.games.batouille",
    "demons": "simlab.games.demons",
    "demons_punisseurs": "simlab.games.demons_punisseurs",
    "progression": "simlab.games.progression",
    "heritiers": "simlab.games.heritiers",
    "speed": "simlab.games.speed",
    "adrenaline": "simlab.games.adrenaline",
    "xxl_montees_descentes": "simlab.games.xxl_montees_descentes",
    "xxl_a_moins": "simlab.games.xxl_a_moins",
}


def game_names() -> list[str]:
    return list(_MODULES)


def _seat_knob_games() -> list[str]:
    return [n for n in game_names() if get_game(n).seat_policy_knobs]


_contract.seat_knob_games = _seat_knob_games


def get_game(slug: str | Game) -> Game:
    """The game of a catalogue slug (a ``Game`` is returned as it is)."""
    if isinstance(slug, Game):
        return slug
    if slug not in _MODULES:
        raise SimlabError(f"unknown game {slug!r}{did_you_mean(slug, list(_MODULES))}; "
                          f"valid games: {', '.join(_MODULES)}")
    return importlib.import_module(_MODULES[slug]).GAME
