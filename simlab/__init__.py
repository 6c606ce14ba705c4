"""simlab: Monte Carlo balance analysis for card games.

Quick start::

    import simlab
    df = simlab.simulate("belote", 100_000, seed=0, jobs=-1)
    simlab.run_to_parquet("out/belote.parquet", "belote", 1_000_000, jobs=-1)
    simlab.read_provenance("out/belote.parquet")["knobs"]
    simlab.run_to_parquet("out/belote-1e8/", "belote", 10**8, jobs=-1)  # resumable directory
    simlab.load("out/belote-1e8/").select(pl.col("made").mean()).collect()
"""

from __future__ import annotations

__version__ = "0.1.0"

from simlab.games import game_names, get_game
from simlab.knobs import SimlabError
from simlab.runner import load, read_provenance, run_to_parquet, simulate


def how_often(frame, expr, where=None):
    """Probability that a boolean polars expression (or its text) holds for a row of
    ``frame``, with its 95% Wilson interval and count (``simlab.stats.Estimate``)."""
    from simlab.analysis import how_often as _how_often

    return _how_often(frame, expr, where)


__all__ = [
    "SimlabError",
    "__version__",
    "game_names",
    "get_game",
    "how_often",
    "load",
    "read_provenance",
    "run_to_parquet",
    "simulate",
]
