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

from simlab import _moved
from simlab.engine.knobs import SimlabError
from simlab.engine.version import VERSION as __version__

_moved.install()  # old module paths (simlab.runner & co.) for one release

# Loaded on first use (PEP 562): ``import simlab`` stays light (no numpy, polars or numba),
# so ``python -m simlab`` imports its command line under a Ctrl-C guard (__main__.py)
# rather than here, where a Ctrl-C during the imports could only end in a traceback.
_LAZY = {"game_names": "simlab.games", "get_game": "simlab.games", "load": "simlab.engine.runner",
         "read_provenance": "simlab.engine.runner"}


def __getattr__(name: str):
    import importlib
    import importlib.util

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")  # simlab.engine.runner & co.
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def _game(game):
    """The front door resolves a slug once; the layers below take the ``Game`` value."""
    if isinstance(game, str):
        from simlab.games import get_game

        return get_game(game)
    return game


def simulate(game, n: int, **options):
    """Simulate ``n`` deals (or matches, ``level="match"``) of ``game`` (a slug such as
    ``"belote"``, or a ``Game``) into one polars DataFrame; ``options`` as
    ``simlab.engine.runner.simulate`` (seed, params, variant, policies, jobs, level,
    chunk_size, record_hands, progress, backend, scheduler). Rows are identical for any
    jobs, chunk size or backend."""
    from simlab.engine.runner import simulate as _simulate

    return _simulate(_game(game), n, **options)


def run_to_parquet(out, game, n: int, **options):
    """Like ``simulate`` but streams the rows to ``out`` (a ``.parquet`` file, or a
    resumable run directory); returns ``out`` (``simlab.engine.runner.run_to_parquet``)."""
    from simlab.engine.runner import run_to_parquet as _run_to_parquet

    return _run_to_parquet(out, _game(game), n, **options)


def how_often(frame, expr, where=None):
    """Probability that a boolean polars expression (or its text) holds for a row of
    ``frame``, with its 95% Wilson interval and count (``simlab.engine.stats.Estimate``)."""
    from simlab.analysis.queries import how_often as _how_often

    return _how_often(frame, expr, where)


def compute_metrics(game, frame, knobs=None, level: str = "deal", conf: float = 0.95):
    """Every standard metric and the game's balance questions over ``frame``, a
    ``simlab.engine.stats.MetricSet`` (``.metrics``, ``.headline()``, ``.by_section()``).

    ``game``: a slug (``"belote"``) or a ``Game``; ``knobs``: the rules the frame was
    simulated with, as a dict of knob values (``{"queen_points": 5}``; None or ``{}`` = the
    defaults) or a knobs object; ``level``: ``"deal"`` or ``"match"``, as simulated."""
    from simlab.analysis.metrics import compute

    g = _game(game)
    if knobs is None or isinstance(knobs, dict):
        knobs = g.make_knobs(dict(knobs or {}))
    return compute(g, frame, knobs, level, conf)


def to_pandas(frame):
    """``frame`` (a polars DataFrame) as a pandas DataFrame that keeps missing values
    typed: nullable boolean columns (``made`` is null where nobody took) become pandas'
    ``boolean`` dtype and integer columns with nulls ``Int64`` & co., so
    ``pdf.made.mean()`` is the taker success rate. ``frame.to_pandas()`` turns such a
    boolean column into ``object``, where ``astype(bool)`` counts every null as True.
    Needs the pandas extra: ``pip install -e ".[pandas]"`` in a checkout."""
    import polars as pl

    try:
        import pandas as pd
    except ImportError:
        raise SimlabError('simlab.to_pandas needs pandas and pyarrow: pip install "simlab[pandas]" '
                          '(from a checkout: pip install -e ".[pandas]")') from None
    nullable = {pl.Boolean: pd.BooleanDtype(), pl.Int8: pd.Int8Dtype(), pl.Int16: pd.Int16Dtype(),
                pl.Int32: pd.Int32Dtype(), pl.Int64: pd.Int64Dtype(), pl.UInt8: pd.UInt8Dtype(),
                pl.UInt16: pd.UInt16Dtype(), pl.UInt32: pd.UInt32Dtype(),
                pl.UInt64: pd.UInt64Dtype()}
    pdf = frame.to_pandas()
    for name, dtype in frame.schema.items():
        target = nullable.get(dtype)
        if target is not None and (dtype == pl.Boolean or frame[name].null_count() > 0):
            column = frame[name].to_arrow().to_pandas(types_mapper=lambda _, t=target: t)
            pdf[name] = column.set_axis(pdf.index)
    return pdf


__all__ = [
    "compute_metrics",
    "to_pandas",
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
