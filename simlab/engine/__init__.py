"""The engine: what runs any game, knowing none of them.

Knobs (``knobs``, ``seatknobs``), random streams (``rng``), numba compilation and its
cache (``jit``), decks (``decks``), the contract a game fills in (``game``: the ``Game``
value, its columns and kernel entry points; ``questions``: how it states its balance
questions), the interval arithmetic every layer reports with (``stats``), the version (``version``),
and running a game: planning, chunks, workers, progress, Parquet parts and
their manifests (``runner``, ``pool``, ``progress``).

May import: the standard library, numpy, polars, numba and other engine modules only —
never a mechanism, a game, a player kind, the analysis or the command line.
"""
