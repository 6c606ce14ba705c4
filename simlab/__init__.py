"""simlab: Monte Carlo balance analysis for card games.

Quick start::

    import simlab
    df = simlab.simulate("belote", 100_000, seed=0, jobs=-1)
    simlab.run_to_parquet("out/belote.parquet", "belote", 1_000_000, jobs=-1)
    simlab.read_provenance("out/belote.parquet")["knobs"]
"""

from __future__ import annotations

__version__ = "0.1.0"

from simlab.games import game_names, get_game
from simlab.knobs import SimlabError
from simlab.runner import read_provenance, run_to_parquet, simulate

__all__ = [
    "SimlabError",
    "__version__",
    "game_names",
    "get_game",
    "read_provenance",
    "run_to_parquet",
    "simulate",
]
