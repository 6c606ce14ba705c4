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
    "heritiers": "simlab.games.heritiers",
    "demons_punisseurs": "simlab.games.demons_punisseurs",
    "loba": "simlab.games.loba",
    "xxl_montees_descentes": "simlab.games.xxl_montees_descentes",
    "xxl_a_moins": "simlab.games.xxl_a_moins",
    "xxl_fournir_des_series": "simlab.games.xxl_fournir_des_series",
    "cartawel": "simlab.games.cartawel",
    "pousse_pousse": "simlab.games.pousse_pousse",
    "progression": "simlab.games.progression",
    "adrenaline": "simlab.games.adrenaline",
    "flair": "simlab.games.flair",
    "speed": "simlab.games.speed",
    "kilo_de_merde": "simlab.games.kilo_de_merde",
}


def game_names() -> list[str]:
    """Every game: simlab's own, then the plug-ins' (entry-point group ``simlab.games``)."""
    return list(_MODULES) + [s for s in _plugins() if s not in _MODULES]


# A game (or a house rule of one) living outside simlab registers itself in its package's
# metadata:  [project.entry-points."simlab.games"]  my_game = "my_package.my_game"
# (a module whose ``GAME`` is the Game, or "module:NAME"). Nothing else changes in simlab.
PLUGIN_GROUP = "simlab.games"


def _plugins() -> dict[str, tuple[str, str]]:
    """slug -> (module path, where it comes from) for every installed plug-in game."""
    global _PLUGINS
    if _PLUGINS is None:
        from importlib.metadata import entry_points

        found: dict[str, tuple[str, str]] = {}
        for ep in entry_points(group=PLUGIN_GROUP):
            dist = getattr(ep, "dist", None)
            origin = f"plug-in {dist.name} {dist.version}" if dist is not None else "plug-in"
            found.setdefault(ep.name, (ep.value, origin))
        _PLUGINS = found
    return _PLUGINS


_PLUGINS: dict[str, tuple[str, str]] | None = None


def origin(slug: str) -> str:
    """"simlab" for a game of simlab's own, "plug-in DIST VERSION" for an installed one,
    "" for a name that is neither."""
    if slug in _MODULES:
        return "simlab"
    return _plugins().get(slug, ("", ""))[1]


def _seat_knob_games() -> list[str]:
    return [n for n in game_names() if get_game(n).seat_policy_knobs]


_contract.seat_knob_games = _seat_knob_games


def get_game(slug: str | Game) -> Game:
    """The game of a catalogue slug (a ``Game`` is returned as it is)."""
    if isinstance(slug, Game):
        return slug
    if slug in _MODULES:
        return importlib.import_module(_MODULES[slug]).GAME
    plugins = _plugins()
    if slug not in plugins:
        names = game_names()
        raise SimlabError(f"unknown game {slug!r}{did_you_mean(slug, names)}; "
                          f"valid games: {', '.join(names)}")
    target, where = plugins[slug]
    module, _, attr = target.partition(":")
    try:
        game = getattr(importlib.import_module(module), attr or "GAME")
    except (ImportError, AttributeError) as e:
        raise SimlabError(f"game {slug!r} ({where}) cannot be loaded from {target!r}: "
                          f"{type(e).__name__}: {e}") from None
    if not isinstance(game, Game) or game.slug != slug:
        raise SimlabError(f"game {slug!r} ({where}): {target!r} is not a simlab Game with "
                          f"slug {slug!r}")
    return game
