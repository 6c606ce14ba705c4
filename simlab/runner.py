"""Run a game's kernels in chunks, optionally in parallel, into polars or Parquet.

``simulate`` returns one DataFrame; ``run_to_parquet`` streams chunks to disk so memory
stays bounded by the chunk size, and stamps the file with its provenance (game, every
knob, policies, seed, ...) under the Parquet key-value metadata key ``"simlab"``.

Every argument is checked before any work starts; a bad one raises ``SimlabError`` with a
one-line message. Deal ``i`` (or match ``i``) always draws from its own random stream
keyed by (seed, i), so a run's rows do not depend on ``jobs`` or ``chunk_size``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from simlab.games import get_game
from simlab.games.base import Game, KernelOutput, parse_policies, to_frame
from simlab.knobs import Knobs, SimlabError, load_variant
from simlab.progress import Progress

LEVELS = ("deal", "match")
DEFAULT_CHUNK = {"deal": 100_000, "match": 5_000}
# With several workers the default chunk shrinks (never below this) so every core gets
# a few chunks; results do not depend on it.
MIN_AUTO_CHUNK = {"deal": 5_000, "match": 250}
PROVENANCE_KEY = "simlab"
SEED_LIMIT = 2**63


@dataclass(frozen=True)
class Plan:
    """A validated run: everything ``simulate`` needs, nothing computed yet."""

    game: Game
    knobs: Knobs
    policies: tuple[str, ...]
    seed: int
    n: int
    level: str
    jobs: int  # effective worker count (>= 1)
    chunk_size: int
    record_hands: bool
    progress: bool | None
    variant: str | None
    start: int = 0  # index of the first deal (or match): runs can be extended later

    @property
    def chunks(self) -> list[tuple[int, int]]:
        return [(self.start + s, min(self.chunk_size, self.n - s))
                for s in range(0, self.n, self.chunk_size)]

    def extended(self, n: int) -> Plan:
        """The next ``n`` deals after this plan's (same seed and knobs)."""
        from dataclasses import replace

        return replace(self, start=self.start + self.n, n=n, chunk_size=min(self.chunk_size, n))

    @property
    def unit(self) -> str:
        return "deals" if self.level == "deal" else "matches"

    def provenance(self) -> dict[str, Any]:
        import simlab

        return {
            "game": self.game.slug,
            "knobs": self.knobs.as_dict(),
            "policies": list(self.policies),
            "seed": self.seed,
            "n": self.n,
            "start": self.start,
            "level": self.level,
            "record_hands": self.record_hands,
            "chunk_size": self.chunk_size,
            "variant": self.variant,
            "simlab_version": simlab.__version__,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        }


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def cpu_count() -> int:
    from joblib import cpu_count as _cpu_count

    return max(1, int(_cpu_count()))


def plan(game: str | Game, n: int, *, seed: int = 0, params: dict | None = None,
         variant: str | Path | None = None, policies: str = "heuristic", jobs: int = 1,
         level: str = "deal", chunk_size: int | None = None, record_hands: bool = False,
         progress: bool | None = None) -> Plan:
    """Validate every argument of a run (raises ``SimlabError``); does no work."""
    g = game if isinstance(game, Game) else get_game(game)
    if level not in LEVELS:
        raise SimlabError(f"unknown level {level!r}; valid levels: {', '.join(LEVELS)}")
    if not _is_int(n) or n < 1:
        raise SimlabError(f"n (number of {level}s) must be an integer >= 1, got {n!r}")
    if not _is_int(seed) or not 0 <= seed < SEED_LIMIT:
        raise SimlabError(f"seed must be an integer from 0 to 2**63-1, got {seed!r}")
    if not _is_int(jobs) or not (jobs == -1 or jobs >= 1):
        raise SimlabError(f"jobs must be -1 (all cores) or an integer >= 1, got {jobs!r}")
    if chunk_size is not None and (not _is_int(chunk_size) or chunk_size < 1):
        raise SimlabError(f"chunk size must be an integer >= 1, got {chunk_size!r}")
    if not isinstance(record_hands, (bool, np.bool_)):
        raise SimlabError(f"record_hands must be true or false, got {record_hands!r}")
    if record_hands and level != "deal":
        raise SimlabError(f"record_hands is only available at level 'deal', not {level!r}; "
                          "valid levels for record_hands: deal")
    if progress is not None and not isinstance(progress, bool):
        raise SimlabError(f"progress must be true, false or None, got {progress!r}")
    if params is not None and not isinstance(params, dict):
        raise SimlabError(f"params must be a dict of knob values, got {type(params).__name__}")
    values: dict[str, Any] = {}
    if variant is not None:
        values.update(load_variant(variant, game=g.slug))
    values.update(params or {})
    knobs = g.make_knobs(values)
    names = parse_policies(policies, g, g.players(knobs))
    n, seed, jobs = int(n), int(seed), int(jobs)
    workers = cpu_count() if jobs == -1 else jobs
    if chunk_size is None:
        chunk = DEFAULT_CHUNK[level]
        if workers > 1:
            chunk = min(chunk, max(MIN_AUTO_CHUNK[level], math.ceil(n / (4 * workers))))
    else:
        chunk = int(chunk_size)
    chunk = min(chunk, n)
    return Plan(game=g, knobs=knobs, policies=names, seed=seed, n=n, level=level,
                jobs=workers, chunk_size=chunk, record_hands=bool(record_hands),
                progress=progress, variant=None if variant is None else str(variant))


# --- running chunks -------------------------------------------------------------------
def _jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0")


def _game_ref(g: Game) -> str | Game:
    """Registered games travel to workers by slug (cheap; their Game holds lambdas);
    other Game objects (tests, plug-ins) by value through cloudpickle."""
    try:
        if get_game(g.slug) is g:
            return g.slug
    except (SimlabError, ImportError, AttributeError):
        pass
    return g


def run_chunk(game: str | Game, knobs: Knobs, policies: tuple[str, ...], seed: int,
              level: str, record_hands: bool, start: int, count: int,
              part: str | None = None) -> pl.DataFrame | int:
    """Rows ``start .. start+count-1`` as a frame; with ``part``, write them there as
    Parquet and return the row count instead (keeps frames out of inter-process pipes)."""
    g = get_game(game) if isinstance(game, str) else game
    guard = np.errstate(over="ignore") if _jit_disabled() else contextlib.nullcontext()
    with guard:
        if level == "deal":
            out: KernelOutput = g.run_deals(knobs, policies, seed, start, count, record_hands)
            columns = g.deal_columns(knobs)
        else:
            out = g.run_matches(knobs, policies, seed, start, count)
            columns = g.match_columns(knobs)
    frame = to_frame(out, columns, g.deck.labels, g.players(knobs))
    if part is None:
        return frame
    frame.write_parquet(part, compression="lz4", statistics=False)
    return frame.height


def _results(p: Plan, parts: Path | None = None) -> Iterator[pl.DataFrame | int]:
    """Chunk results in order (frames, or row counts when writing ``parts``)."""
    args = (p.knobs, p.policies, p.seed, p.level, p.record_hands)
    chunks = p.chunks

    def part(i: int) -> str | None:
        return None if parts is None else str(parts / f"part-{i:05d}.parquet")

    if p.jobs == 1 or len(chunks) == 1:
        for i, (start, count) in enumerate(chunks):
            yield run_chunk(p.game, *args, start, count, part(i))
        return
    from joblib import Parallel, delayed

    # Warm-up in the parent: numba compiles (cache=True) once, workers load the cache.
    run_chunk(p.game, *args, 0, 1)
    ref = _game_ref(p.game)
    pool = Parallel(n_jobs=min(p.jobs, len(chunks)), backend="loky", return_as="generator")
    yield from pool(delayed(run_chunk)(ref, *args, start, count, part(i))
                    for i, (start, count) in enumerate(chunks))


def _size(r: pl.DataFrame | int) -> int:
    return r.height if isinstance(r, pl.DataFrame) else int(r)


def simulate(game: str | Game, n: int, *, seed: int = 0, params: dict | None = None,
             variant: str | Path | None = None, policies: str = "heuristic", jobs: int = 1,
             level: str = "deal", chunk_size: int | None = None, record_hands: bool = False,
             progress: bool | None = None) -> pl.DataFrame:
    """Simulate ``n`` deals (``level="deal"``) or matches of ``game`` into one DataFrame.

    ``params`` overrides knobs (values or ``--set``-style strings) on top of the TOML
    ``variant`` file; ``policies`` is one name for every seat or one per seat, comma
    separated; ``jobs=-1`` uses every core. Rows are identical for any jobs/chunk_size.
    """
    p = plan(game, n, seed=seed, params=params, variant=variant, policies=policies, jobs=jobs,
             level=level, chunk_size=chunk_size, record_hands=record_hands, progress=progress)
    return execute(p)


def execute(p: Plan) -> pl.DataFrame:
    frames: list[pl.DataFrame] = []
    with Progress(p.n, p.unit, enabled=p.progress) as bar:
        for r in _results(p):
            assert isinstance(r, pl.DataFrame)
            frames.append(r)
            bar.update(r.height)
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical", rechunk=True)


def run_to_parquet(out: str | Path, game: str | Game, n: int, *, seed: int = 0,
                   params: dict | None = None, variant: str | Path | None = None,
                   policies: str = "heuristic", jobs: int = 1, level: str = "deal",
                   chunk_size: int | None = None, record_hands: bool = False,
                   progress: bool | None = None) -> Path:
    """Like ``simulate`` but stream the rows to the Parquet file ``out`` (memory bounded by
    the chunk size) with provenance metadata; returns ``out``."""
    p = plan(game, n, seed=seed, params=params, variant=variant, policies=policies, jobs=jobs,
             level=level, chunk_size=chunk_size, record_hands=record_hands, progress=progress)
    return execute_to_parquet(p, out)


def execute_to_parquet(p: Plan, out: str | Path) -> Path:
    out = Path(out)
    if out.exists() and out.is_dir():
        raise SimlabError(f"output {str(out)!r} is a directory; give a .parquet file path")
    out.parent.mkdir(parents=True, exist_ok=True)
    parts = Path(f"{out}.parts")
    tmp = Path(f"{out}.tmp")
    if parts.exists():
        shutil.rmtree(parts)
    parts.mkdir()
    try:
        with Progress(p.n, p.unit, enabled=p.progress) as bar:
            for r in _results(p, parts):
                bar.update(_size(r))
        files = [parts / f"part-{i:05d}.parquet" for i in range(len(p.chunks))]
        meta = {PROVENANCE_KEY: json.dumps(p.provenance(), default=str)}
        pl.scan_parquet(files).sink_parquet(tmp, metadata=meta)
        os.replace(tmp, out)
    finally:
        shutil.rmtree(parts, ignore_errors=True)
        tmp.unlink(missing_ok=True)
    return out


def read_provenance(path: str | Path) -> dict[str, Any]:
    """The provenance dict stored by ``run_to_parquet`` in a Parquet file."""
    p = Path(path)
    if not p.is_file():
        raise SimlabError(f"no such Parquet file {str(p)!r}")
    try:
        meta = pl.read_parquet_metadata(p)
    except Exception as e:  # polars raises several types
        raise SimlabError(f"{str(p)!r} is not a readable Parquet file: {e}") from None
    if PROVENANCE_KEY not in meta:
        raise SimlabError(f"{str(p)!r} has no simlab provenance metadata")
    return json.loads(meta[PROVENANCE_KEY])


# --- small statistics helper (simlab.stats will grow from here) ------------------------
def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion ``k / n`` (default 95%)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def timed(fn, *args, **kwargs) -> tuple[Any, float]:
    t0 = time.perf_counter()
    r = fn(*args, **kwargs)
    return r, time.perf_counter() - t0
