"""Game registry: one module per game, registered here by its catalogue slug."""

from __future__ import annotations

import importlib

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
}


def game_names() -> list[str]:
    return list(_MODULES)


def get_game(slug: str) -> Game:
    if slug not in _MODULES:
        raise SimlabError(f"unknown game {slug!r}{did_you_mean(slug, list(_MODULES))}; "
                          f"valid games: {', '.join(_MODULES)}")
    return importlib.import_module(_MODULES[slug]).GAME
