"""Old module paths, kept importable for one release after issue 35 moved the flat modules
into subpackages: ``import simlab.runner`` gives the module ``simlab.engine.runner`` itself
(the same object, so patching it patches the real one), with a ``DeprecationWarning``
naming the new path."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    "simlab.knobs": "simlab.engine.knobs", "simlab.seatknobs": "simlab.engine.seatknobs",
    "simlab.rng": "simlab.engine.rng", "simlab.jit": "simlab.engine.jit",
    "simlab.decks": "simlab.engine.decks", "simlab.runner": "simlab.engine.runner",
    "simlab.pool": "simlab.engine.pool", "simlab.progress": "simlab.engine.progress",
    "simlab.games.base": "simlab.engine.game",
    "simlab.tricks": "simlab.mechanics.tricks", "simlab.trickinfo": "simlab.mechanics.trickinfo",
    "simlab.shedding": "simlab.mechanics.shedding", "simlab.melds": "simlab.mechanics.melds",
    "simlab.poker": "simlab.mechanics.poker", "simlab.search": "simlab.mechanics.search",
    "simlab.duel": "simlab.players.duel", "simlab.tune": "simlab.players.tune",
    "simlab.stats": "simlab.engine.stats", "simlab.sums": "simlab.analysis.sums",
    "simlab.metrics": "simlab.analysis.metrics", "simlab.compare": "simlab.analysis.compare",
    "simlab.plots": "simlab.analysis.plots", "simlab.report": "simlab.analysis.report",
    "simlab.report_sums": "simlab.analysis.report_sums",
    "simlab.players_check": "simlab.analysis.players_check",
    "simlab.cli_analysis": "simlab.cli.analysis", "simlab.experiment": "simlab.cli.experiment",
}


class _OldPath(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; the old path goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module) -> None:
        pass  # the new module ran already


def install() -> None:
    if not any(isinstance(f, _OldPath) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPath())
