"""Run a game's kernels in chunks, optionally in parallel, into polars or Parquet.

``simulate`` returns one DataFrame; ``run_to_parquet`` streams chunks to disk so memory
stays bounded by the chunk size. Its output is either one Parquet file stamped with its
provenance (game, every knob, policies, seed, ...) under the Parquet key-value metadata key
``"simlab"``, or a run directory: one ``part-NNNNN.parquet`` per finished chunk plus a
``manifest.json`` (the provenance, and each done chunk's rows and sha256). Parts and the
manifest are replaced atomically, so an interrupted run leaves only whole parts behind and
re-running the same run resumes it. ``load`` scans either kind lazily.

Chunks run in this process, in local worker processes (joblib ``loky``) or on a cluster
(joblib's ``dask`` or ``ray`` backends; optional extras ``simlab[dask]`` / ``simlab[ray]``).

Every argument is checked before any work starts; a bad one raises ``SimlabError`` with a
one-line message. Deal ``i`` (or match ``i``) always draws from its own random stream
keyed by (seed, i), so a run's rows do not depend on ``jobs`` or ``chunk_size``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import math
import os
import re
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from simlab.engine.game import (
    Game,
    KernelOutput,
    as_game,
    game_from_ref,
    parse_policies,
    registered_package,
    to_frame,
)
from simlab.engine.knobs import Knobs, SimlabError, load_variant
from simlab.engine.progress import Progress
from simlab.engine.seatknobs import policy_name, seat_knobs
from simlab.engine.version import VERSION

LEVELS = ("deal", "match")
DEFAULT_CHUNK = {"deal": 100_000, "match": 5_000}
# With several workers the default chunk shrinks (never below this) so every core gets
# a few chunks; results do not depend on it.
MIN_AUTO_CHUNK = {"deal": 5_000, "match": 250}
PROVENANCE_KEY = "simlab"
SEED_LIMIT = 2**63
MAX_N = 10**11  # deals per run: keeps the chunk list (one entry per chunk) small


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
    auto_chunk: bool = False  # chunk_size was chosen by ``plan`` (a resumed run may adopt another)

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
            "simlab_version": VERSION,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
        }


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def cpu_count() -> int:
    """Cores this process may use (its CPU affinity where the OS says; joblib's import
    alone would cost a tenth of a second)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def plan(game: Game, n: int, *, seed: int = 0, params: dict | None = None,
         variant: str | Path | None = None, policies: str = "heuristic", jobs: int = 1,
         level: str = "deal", chunk_size: int | None = None, record_hands: bool = False,
         progress: bool | None = None) -> Plan:
    """Validate every argument of a run (raises ``SimlabError``); does no work."""
    g = as_game(game)
    if level not in LEVELS:
        raise SimlabError(f"unknown level {level!r}; valid levels: {', '.join(LEVELS)}")
    if not _is_int(n) or n < 1:
        raise SimlabError(f"n (number of {level}s) must be an integer >= 1, got {n!r}")
    if n > MAX_N:
        raise SimlabError(f"n (number of {level}s) is at most {MAX_N:.0e} per run, got {n:.3e}; "
                          "split the work into runs with different seeds")
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
        values.update(load_variant(variant, game=g))
    values.update(params or {})
    knobs = g.make_knobs(values)
    names = parse_policies(policies, g, g.players(knobs))
    seat_knobs(knobs, names)  # a seat's policy values are checked before any work
    searching = any(policy_name(s) == "search" for s in names)
    n, seed, jobs = int(n), int(seed), int(jobs)
    workers = cpu_count() if jobs == -1 else jobs
    if chunk_size is None:
        chunk = DEFAULT_CHUNK[level]
        # one default chunk of heuristic or random play is at most about a second of work
        # (the slowest game): splitting it would only add part files and a worker start
        if workers > 1 and (n > chunk or searching):
            # a search seat makes a deal ~1000x slower: small chunks still pay for their overhead
            least = MIN_AUTO_CHUNK[level] // (100 if searching else 1)
            chunk = min(chunk, max(least, math.ceil(n / (4 * workers))))
    else:
        chunk = int(chunk_size)
    chunk = min(chunk, n)
    return Plan(game=g, knobs=knobs, policies=names, seed=seed, n=n, level=level,
                jobs=workers, chunk_size=chunk, record_hands=bool(record_hands),
                progress=progress, variant=None if variant is None else str(variant),
                auto_chunk=chunk_size is None)


# --- backends -------------------------------------------------------------------------
BACKENDS = ("loky", "dask", "ray")
# backend -> (module that must import, extra to install)
_BACKEND_NEEDS = {"dask": ("distributed", "simlab[dask]"), "ray": ("ray", "simlab[ray]")}
DASK_CONNECT_TIMEOUT = "15s"


def check_backend(backend: str, scheduler: str | None = None) -> None:
    """Raise ``SimlabError`` unless ``backend`` is known, installed and ``scheduler`` fits."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise SimlabError(f"unknown backend {backend!r}; valid backends: {', '.join(BACKENDS)}")
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise SimlabError(f"scheduler must be an address such as tcp://host:8786, got "
                              f"{scheduler!r}")
        if backend == "loky":
            raise SimlabError("a scheduler address needs backend dask (--backend dask "
                              "--scheduler ADDRESS) or ray (--backend ray --address ADDRESS); "
                              "backend loky runs on this machine")
    if backend in _BACKEND_NEEDS:
        module, extra = _BACKEND_NEEDS[backend]
        if importlib.util.find_spec(module) is None:
            raise SimlabError(f"backend {backend!r} needs the optional extra {extra}: "
                              f"pip install '{extra}'")


@dataclass
class _Executor:
    """Where chunks run: ``remote`` executors cannot write into this machine's files."""

    backend: str
    n_jobs: int
    remote: bool
    workers: int  # cluster worker threads (loky: local workers)
    config: dict[str, Any]  # joblib.parallel_config arguments
    # local runs: processes the last run used (1 when it was too short to pay for workers)
    used: int | None = None
    choice: str = ""  # why, in a few words, when it differs from the jobs asked for
    tick: Any = None  # progress callback for chunks this process runs (Progress.in_flight)


@contextlib.contextmanager
def executor(backend: str = "loky", scheduler: str | None = None, jobs: int = 1
             ) -> Iterator[_Executor]:
    """Connect to (or start) the backend's workers for the duration of a run.

    dask: ``scheduler`` is the address of a running ``dask.distributed`` scheduler; without
    it a local cluster of ``jobs`` worker processes is started and closed afterwards.
    ray: ``scheduler`` is the Ray cluster address (``ray.init(address=...)``).
    Cluster backends use every worker thread of the cluster.
    """
    check_backend(backend, scheduler)
    if backend == "loky":
        # local runs use simlab.engine.pool's worker processes (started on demand, reused)
        yield _Executor("loky", jobs, remote=False, workers=jobs, config={})
        return
    if backend == "dask":
        import logging

        from distributed import Client, LocalCluster

        cluster = None
        try:
            if scheduler is not None:
                client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT, set_as_default=False)
            else:
                logging.getLogger("distributed").setLevel(logging.WARNING)
                cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1,
                                       processes=True, dashboard_address=":0")
                client = Client(cluster, set_as_default=False)
        except (OSError, TimeoutError) as e:
            if cluster is not None:
                cluster.close()
            what = (f"connect to the dask scheduler at {scheduler!r}" if scheduler is not None
                    else "start a local dask cluster")
            raise SimlabError(f"cannot {what}: {_first_line(e)}") from None
        try:
            threads = sum(client.nthreads().values())
            if threads == 0:
                client.wait_for_workers(1, timeout=30)
                threads = sum(client.nthreads().values())
            yield _Executor("dask", -1, remote=True, workers=threads,
                            config={"backend": "dask", "client": client})
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
        return
    import ray  # backend == "ray"
    from ray.util.joblib import register_ray

    register_ray()
    started = not ray.is_initialized()
    if started:
        try:
            ray.init(address=scheduler, ignore_reinit_error=True, log_to_driver=False)
        except (ConnectionError, OSError, RuntimeError) as e:
            raise SimlabError(f"cannot connect to the ray cluster at {scheduler!r}: "
                              f"{_first_line(e)}") from None
    try:
        threads = int(ray.cluster_resources().get("CPU", 1))
        yield _Executor("ray", -1, remote=True, workers=threads, config={"backend": "ray"})
    finally:
        if started:
            ray.shutdown()


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


# --- running chunks -------------------------------------------------------------------
def _jit_disabled() -> bool:
    return os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0")


# --- compiling or loading the kernels ----------------------------------------------------
# CPU seconds to compile a game's kernels cold, before this machine has measured its own
# (load_kernels records each compile it times in the cache folder): a fixed part (numba
# and LLVM start-up, the shared modules) and a part per compiled function of the game's
# packages. Fitted on cold one-deal runs on the development machine: Belote (34
# functions) 23 s, Président (30) 25 s, Manille (92) 34 s.
COMPILE_BASE_CPU = 17.0
COMPILE_CPU_PER_FUNCTION = 0.18
_JITTED = re.compile(r"^@(?:jit\.)?(?:batch|hot|hot_inline|cached_njit)\b", re.MULTILINE)
_LOADED: set[tuple[str, str]] = set()  # (game, level) whose kernels this process has loaded
_KERNEL_SECONDS = [0.0, 0.0]  # this process's seconds compiling, loading kernels
COMPILE_TIMES = "compile-seconds.json"  # measured compiles, in the cache base folder


def kernel_folder(g: Game) -> Path | None:
    """The folder of a registered game's compiled kernels (``jit.cache_dir_for``); None for
    a game simlab does not compile itself (a test's) or with ``NUMBA_DISABLE_JIT``."""
    from simlab.engine.jit import cache_dir_for

    package = registered_package(g)
    if _jit_disabled() or package is None:
        return None
    return Path(cache_dir_for(f"{package}.kernels"))


def kernels_cached(g: Game, level: str) -> bool:
    """Whether this machine holds the game's compiled kernels for ``level`` and the current
    sources: their entry kernel's index file is in the game's kernel folder (numba writes a
    caller's index after its callees', so it marks a whole compile). True for a game simlab
    does not compile itself."""
    folder = kernel_folder(g)
    if folder is None:
        return True
    entry = "deals_kernel" if level == "deal" else "matches_kernel"
    return folder.is_dir() and any(folder.glob(f"*/kernels.{entry}-*.nbi"))


def _compile_times(folder: Path) -> dict[str, float]:
    try:
        data = json.loads((folder.parent / COMPILE_TIMES).read_text(encoding="utf-8"))
        return {k: float(v) for k, v in data.items()} if isinstance(data, dict) else {}
    except (OSError, ValueError, TypeError):
        return {}


def compile_estimate(g: Game) -> float:
    """Wall seconds a cold compile of the game's kernels should take here now: this
    machine's last measured compile of the game (CPU seconds) if any, else the fitted
    estimate from its count of compiled functions; times the square root of the machine's
    load (runnable processes per core, when above 1): a compile gets a share of a core,
    and on the development machine, loaded 5.75 to 7 per core, wall time was 2.5 to 4.5
    times the CPU time (2.4 to 2.6 in three runs of four), not the 6 to 7 the load says."""
    from simlab.engine.jit import _game_packages

    folder = kernel_folder(g)
    cpu = _compile_times(folder).get(g.slug) if folder is not None else None
    if cpu is None:
        games = Path(__file__).resolve().parent.parent / "games"
        functions = sum(len(_JITTED.findall(path.read_text(encoding="utf-8")))
                        for pkg in _game_packages(g.slug)
                        for path in (games / pkg).glob("*.py"))
        cpu = COMPILE_BASE_CPU + COMPILE_CPU_PER_FUNCTION * functions
    try:
        load = os.getloadavg()[0] / cpu_count()
    except OSError:
        load = 1.0
    return cpu * max(1.0, load) ** 0.5


def _record_compile(g: Game, cpu: float) -> None:
    folder = kernel_folder(g)
    if folder is None:
        return
    times = {**_compile_times(folder), g.slug: round(cpu, 1)}
    path = folder.parent / COMPILE_TIMES
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):  # an estimate only: never worth failing a run
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(times, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)


def load_kernels(p: Plan, timed_next: bool = False) -> None:
    """Load the plan's kernels in this process (a one-deal run), or compile them if this
    machine has none for the current sources, saying so first on stderr ("compiling kernels
    for GAME (first run on this machine, about N s)..."). The time is spent in a
    ``progress.paused`` block: progress lines and reports keep it apart from the run's.
    Once per game and level in a process; for a game simlab does not compile itself (a
    test's, a plug-in's) only if ``timed_next`` (the caller times work next), and then every
    time; not at all with ``NUMBA_DISABLE_JIT``."""
    from simlab.engine.progress import notice, paused

    if _jit_disabled():
        return
    key = (p.game.slug, p.level) if kernel_folder(p.game) is not None else None
    if key in _LOADED or (key is None and not timed_next):
        return
    cold = not kernels_cached(p.game, p.level)
    if cold:
        notice(f"compiling kernels for {p.game.slug} (first run on this machine, about "
               f"{_about(compile_estimate(p.game))})...")
    c0, t0 = time.process_time(), time.perf_counter()
    with paused(f"compiling kernels for {p.game.slug}" if cold else "loading kernels"):
        run_chunk(p.game, p.knobs, p.policies, p.seed, p.level, p.record_hands, 0, 1)
    _KERNEL_SECONDS[0 if cold else 1] += time.perf_counter() - t0
    if cold:
        _record_compile(p.game, time.process_time() - c0)
    if key is not None:
        _LOADED.add(key)


def kernel_clock() -> Callable[[], tuple[float, float]]:
    """A clock of the time this process spends on kernels from now on: calling it gives
    (seconds compiling, seconds loading them), for a command to show apart from its run's
    own time (``load_kernels`` spends them)."""
    start = tuple(_KERNEL_SECONDS)

    def spent() -> tuple[float, float]:
        return _KERNEL_SECONDS[0] - start[0], _KERNEL_SECONDS[1] - start[1]
    return spent


def _about(seconds: float) -> str:
    if seconds < 90:
        return f"{max(5, round(seconds / 5) * 5):.0f} s"
    return f"{round(seconds / 60):.0f} min"


def game_ref(g: Game) -> str | Game:
    """simlab's own games travel to workers by package name (cheap; their Game holds
    lambdas; the worker imports the package); other Game objects (tests, plug-ins) by value
    through cloudpickle (a fresh worker could not import a test's module)."""
    return registered_package(g) or g


# Set by the command line's Ctrl-C handler when the key press arrived while numba's code
# was running (where raising is unsafe): the runner raises KeyboardInterrupt as soon as
# the kernel has returned.
INTERRUPT_PENDING = [False]


def _raise_if_interrupted() -> None:
    if INTERRUPT_PENDING[0]:
        INTERRUPT_PENDING[0] = False
        raise KeyboardInterrupt


FIRST_SLICE = 64  # rows of the first slice of a chunk run with a progress ``tick``
SLICE_SECONDS = 0.3  # then slices of about this long


def _kernel_frame(g: Game, knobs: Knobs, policies: tuple[str, ...], seed: int, level: str,
                  record_hands: bool, start: int, count: int) -> pl.DataFrame:
    guard = np.errstate(over="ignore") if _jit_disabled() else contextlib.nullcontext()
    try:
        with guard:
            if level == "deal":
                out: KernelOutput = g.run_deals(knobs, policies, seed, start, count, record_hands)
                columns = g.deal_columns(knobs)
            else:
                out = g.run_matches(knobs, policies, seed, start, count)
                columns = g.match_columns(knobs)
    except SystemError as e:  # Ctrl-C inside a numba kernel surfaces wrapped like this
        if isinstance(e.__cause__ or e.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise
    _raise_if_interrupted()
    return to_frame(out, columns, g.deck.labels, g.players(knobs))


def run_chunk(game: str | Game, knobs: Knobs, policies: tuple[str, ...], seed: int,
              level: str, record_hands: bool, start: int, count: int,
              part: str | None = None, tick: Any = None) -> pl.DataFrame | int:
    """Rows ``start .. start+count-1`` as a frame; with ``part``, write them there as
    Parquet and return the row count instead (keeps frames out of inter-process pipes).
    With ``tick`` (a progress callback), the chunk runs in slices of about
    ``SLICE_SECONDS`` and ``tick(rows done)`` follows each: the same rows, since every
    deal or match draws from its own stream."""
    g = game_from_ref(game)
    args = (g, knobs, policies, seed, level, record_hands)
    if tick is None or count <= FIRST_SLICE:
        frame = _kernel_frame(*args, start, count)
    else:
        frames = []
        done, size = 0, FIRST_SLICE
        while done < count:
            n = min(size, count - done)
            t0 = time.perf_counter()
            frames.append(_kernel_frame(*args, start + done, n))
            took = time.perf_counter() - t0
            done += n
            tick(done)
            size = max(1, int(n * SLICE_SECONDS / max(took, 1e-6)))
        frame = pl.concat(frames, how="vertical", rechunk=True)
    if part is None:
        return frame
    frame.write_parquet(part, compression="lz4", statistics=False)
    return frame.height


PART_KEY = "simlab.part"  # a part's own metadata: its chunk and the run's provenance
# A part's own sha256, of its bytes with this value blanked (written as BLANK_SEAL, then
# overwritten in place: same length, so the footer stays valid). A part thus proves its
# integrity without the manifest, which is what repairing a lost manifest needs.
SEAL_KEY = "simlab.sha256"
BLANK_SEAL = "~" * 64


def _parquet_bytes(frame: pl.DataFrame, meta: dict[str, str] | None = None) -> bytes:
    """The frame as Parquet; a run directory's part (``meta`` with ``PART_KEY``) sealed."""
    sealed = meta is not None and PART_KEY in meta
    if sealed:
        meta = {**meta, SEAL_KEY: BLANK_SEAL}
    buf = io.BytesIO()
    frame.write_parquet(buf, compression="lz4", statistics=False, metadata=meta)
    data = buf.getvalue()
    return _seal(data) if sealed else data


def _seal(data: bytes) -> bytes:
    blank = BLANK_SEAL.encode()
    if data.count(blank) != 1:  # only in the footer's key-value metadata, once
        raise RuntimeError("simlab: a part's seal placeholder is not unique")
    at = data.find(blank)
    return data[:at] + hashlib.sha256(data).hexdigest().encode() + data[at + len(blank):]


def _seal_intact(data: bytes, claimed: Any) -> bool:
    """Whether ``data`` (a whole part file) is exactly as sealed, ``claimed`` being the seal
    its footer reads. A changed bit anywhere, the seal included, makes this False."""
    if not isinstance(claimed, str) or len(claimed) != len(BLANK_SEAL):
        return False
    mark = claimed.encode()
    if data.count(mark) != 1:
        return False
    at = data.find(mark)
    blanked = data[:at] + BLANK_SEAL.encode() + data[at + len(mark):]
    return hashlib.sha256(blanked).hexdigest() == claimed


def _sum64(buf: Any) -> str:
    """The sum, modulo 2**64, of ``buf``'s little-endian 64-bit words (the tail padded with
    zeros), in hex. A flipped bit changes one word by a power of two below 2**64, so it
    always changes the sum; summing runs at memory speed (a sha256 is 30 times slower),
    which makes it cheap enough to check on every ``load``."""
    view = memoryview(buf).cast("B")
    whole = len(view) // 8
    words = np.frombuffer(view, dtype="<u8", count=whole)
    total = int(words.sum(dtype=np.uint64))
    del words
    total += int.from_bytes(bytes(view[whole * 8:]).ljust(8, b"\0"), "little")
    return f"{total % 2**64:016x}"


def _file_sum64(path: Path) -> str:
    import mmap

    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return _sum64(b"")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            view = memoryview(m)
            try:
                return _sum64(view)
            finally:
                view.release()


def _part_meta(p: Plan, index: int) -> dict[str, str]:
    """Metadata every part carries, so a lost manifest can be rebuilt from the parts."""
    start, count = p.chunks[index]
    return {PART_KEY: json.dumps({"index": index, "start": start, "count": count,
                                  "provenance": _jsonable(p.provenance())}, default=str)}


def _write_durable(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` and flush it to disk (the caller renames it into place)."""
    try:
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def _chunk_bytes(game: str | Game, *args: Any, meta: dict[str, str] | None = None
                 ) -> tuple[int, bytes]:
    """Cluster task: the chunk as Parquet bytes (workers need not share our disk)."""
    frame = run_chunk(game, *args)
    assert isinstance(frame, pl.DataFrame)
    return frame.height, _parquet_bytes(frame, meta)


def _orphaned(owner: int | None) -> bool:
    """In a local worker: whether the process that asked for the chunk is gone (the
    worker was re-parented). A kernel holds the GIL, so the watch thread of
    ``_watch_parent`` cannot notice while a chunk runs; this check between steps can."""
    return owner is not None and os.getpid() != owner and os.getppid() != owner


def _chunk_file(game: str | Game, *args: Any, tmp: str, owner: int | None = None,
                meta: dict[str, str] | None = None, tick: Any = None
                ) -> tuple[int, str, int, str]:
    """Local task: write the chunk to ``tmp``; (rows, sha256, bytes, sum64). The caller renames.
    An orphaned worker (its parent ``owner`` was killed) writes nothing and leaves no
    temporary file behind for a resumed run to trip on."""
    frame = run_chunk(game, *args, tick=tick)
    assert isinstance(frame, pl.DataFrame)
    data = _parquet_bytes(frame, meta)
    if _orphaned(owner):
        os._exit(1)
    _write_durable(Path(tmp), data)
    if _orphaned(owner):  # the parent died while we wrote: nobody will rename it
        Path(tmp).unlink(missing_ok=True)
        os._exit(1)
    return frame.height, hashlib.sha256(data).hexdigest(), len(data), _sum64(data)


def _tagged(i: int, fn: Any, *args: Any, **kwargs: Any) -> tuple[int, Any]:
    return i, fn(*args, **kwargs)


# A local run whose remaining work would take less than this on one core stays in one
# process: starting a worker (interpreter, imports, numba cache) costs about 0.7 s, and
# measured on 2 cores a run of 1 s of work gained nothing from one.
MIN_PARALLEL_SECONDS = 1.5


def _min_parallel_seconds() -> float:
    text = os.environ.get("SIMLAB_MIN_PARALLEL_SECONDS")
    try:
        return MIN_PARALLEL_SECONDS if text is None else max(0.0, float(text))
    except ValueError:
        return MIN_PARALLEL_SECONDS


# Runs at least this long on one core in every game (the fastest, Belote, plays about
# 750,000 deals or 75,000 matches a second; a search seat is ~1000x slower).
SURELY_LONG = {"deal": 2_000_000, "match": 200_000}


def _surely_long(p: Plan, cost: float = 1.0) -> bool:
    """``cost``: each deal's work in plain runs of it (a report reduces its chunks and plays
    its controls: several)."""
    searching = any(policy_name(s) == "search" for s in p.policies)
    return p.n * cost >= SURELY_LONG[p.level] // (1000 if searching else 1)


def start_workers(p: Plan, cost: float = 1.0, backend: str = "loky") -> bool:
    """Start now the local worker processes that ``run_tasks`` would start for a surely
    long run of ``p`` (``cost``: as there), and say whether it did. Their start, about a
    second of CPU (interpreter, imports, the kernels' cache), then overlaps what this
    process does before the run (a report's imports and probes) rather than its first
    chunks; ``run_tasks`` takes the same workers."""
    if backend != "loky" or p.jobs == 1 or len(p.chunks) < 2 or not _surely_long(p, cost):
        return False
    if not kernels_cached(p.game, p.level):  # the run compiles here first, workers then load
        return False
    from simlab.engine import pool

    pool.get(min(p.jobs, len(p.chunks)) - 1,
             warm=(run_chunk, _chunk_args(p, game_ref(p.game), 0, 1)))
    return True


_LAST: list[_Executor] = []


def last_processes() -> tuple[int | None, str]:
    """(processes, why) of this process's latest local run: how many processes it used
    and, when it used one although more jobs were allowed, the reason."""
    return (_LAST[0].used, _LAST[0].choice) if _LAST else (None, "")


def _run_local(i: int, fn: Any, args: tuple, kwargs: dict) -> Any:
    return fn(*args, **kwargs)


def _ticking(ex: _Executor, local: Any) -> Any:
    """``local`` with the run's progress callback (chunks run here report as they go)."""
    if ex.tick is None:
        return local

    def run(i: int, fn: Any, args: tuple, kwargs: dict) -> Any:
        return local(i, fn, args, {**kwargs, "tick": ex.tick})
    return run


def run_tasks(p: Plan, ex: _Executor, tasks: list[tuple[int, Any, tuple, dict]],
              local: Any = _run_local, sizes: list[int] | None = None, big: bool = False,
              cost: float = 1.0) -> Iterator[tuple[int, Any]]:
    """Run ``(i, fn, args, kwargs)`` tasks; yield ``(i, result)`` as each one finishes.

    Local runs with several jobs first run one task here, timed (``big`` tasks: a sample of
    the first one's deals): if the rest would take less than ``MIN_PARALLEL_SECONDS`` on
    one core, it stays here (``ex.used`` = 1);
    otherwise ``jobs - 1`` worker processes share the rest with this process, which runs
    a task (through ``local``) whenever no worker result is waiting. ``sizes``: each
    task's deals (default: the chunk count, a chunk task's last argument); ``p`` is the
    whole work (its game's kernels warm the workers up); ``big``: few long tasks (see
    ``pool.Pool.run``); ``cost``: each deal's work in plain runs of it (workers start at
    once when that is surely long)."""
    if not tasks:
        return
    if sizes is None:
        sizes = [args[-1] for _, _, args, _ in tasks]
    if ex.backend == "loky":
        ex.used = 1
        _LAST[:] = [ex]
        inner = _ticking(ex, local)

        def local(i: int, fn: Any, args: tuple, kwargs: dict) -> Any:
            try:
                return inner(i, fn, args, kwargs)
            finally:  # a task that runs a run of its own (a sweep point) is not this run
                _LAST[:] = [ex]
        if ex.n_jobs == 1 or len(tasks) == 1:
            load_kernels(p)  # said if it compiles, and timed apart from the run
            for i, fn, args, kwargs in tasks:
                yield i, local(i, fn, args, kwargs)
            return
        from simlab.engine import pool

        workers = min(ex.n_jobs, len(tasks)) - 1
        warm = (run_chunk, _chunk_args(p, game_ref(p.game), 0, 1))
        # A run that is long whatever the game starts its workers at once: their start
        # (about a second: imports, the kernels' cache) then overlaps this process's own.
        # Kernels not compiled yet are compiled here first, once: workers started now would
        # each compile them too, on cores this compile needs.
        early = _surely_long(p, cost)
        cached = kernels_cached(p.game, p.level)
        workers_pool = pool.get(workers, warm=warm) if early and cached else None
        # numba loads (or compiles) the kernels here, outside the timing below
        load_kernels(p, timed_next=True)
        if early and not cached:
            workers_pool = pool.get(workers, warm=warm)
        if workers_pool is None and big:
            # Long tasks are timed on a sample of the first one's deals (a twentieth, at
            # most 2,000) rather than whole: a whole sweep point run here first would keep
            # the workers from starting for all that time.
            m = max(1, min(sizes[0] // 20, 2000))
            t0 = time.perf_counter()
            run_chunk(p.game, p.knobs, p.policies, p.seed, p.level, p.record_hands, 0, m)
            work = (time.perf_counter() - t0) * sum(sizes) / m
            if work < _min_parallel_seconds():
                ex.choice = f"1 process: about {work:.1f} s of work"
                for i, fn, args, kwargs in tasks:
                    yield i, local(i, fn, args, kwargs)
                return
            workers_pool = pool.get(workers, warm=warm)
        if workers_pool is not None:  # nothing (more) to time: every task is shared at once
            ex.used = workers + 1
            yield from workers_pool.run(tasks, local=local, big=big)
            return
        i, fn, args, kwargs = tasks[0]
        t0 = time.perf_counter()
        yield i, local(i, fn, args, kwargs)
        took = time.perf_counter() - t0
        rest = tasks[1:]
        left = took * sum(sizes[1:]) / max(1, sizes[0])
        if left < _min_parallel_seconds():
            ex.choice = f"1 process: about {took + left:.1f} s of work"
            for i, fn, args, kwargs in rest:
                yield i, local(i, fn, args, kwargs)
            return
        # Otherwise workers start now (and load the kernels with a one-deal chunk) while
        # this process goes on with the chunks; each takes chunks once warm. A short run
        # above never starts one: a starting worker competes for the machine for most of
        # a second.
        ex.used = workers + 1
        yield from pool.get(workers, warm=warm).run(rest, local=local, big=big)
        return
    from joblib import Parallel, delayed, parallel_config

    with parallel_config(**ex.config):
        pool_ = Parallel(n_jobs=-1, return_as="generator_unordered", batch_size=1)
        yield from pool_(delayed(_tagged)(i, fn, *args, **kwargs) for i, fn, args, kwargs in tasks)


def _chunk_args(p: Plan, ref: str | Game, start: int, count: int) -> tuple:
    return (ref, p.knobs, p.policies, p.seed, p.level, p.record_hands, start, count)


def _chunk_ipc(game: str | Game, *args: Any, path: str, owner: int | None = None) -> str:
    """Local worker task: write the chunk's frame to ``path`` (Arrow IPC: the fastest
    format to write and read back) and return the path; pipes carry only names."""
    frame = run_chunk(game, *args)
    assert isinstance(frame, pl.DataFrame)
    if _orphaned(owner):
        os._exit(1)
    frame.write_ipc(path)
    return path


def _scratch_dir() -> Path:
    """A private folder for chunk files on their way to the parent; folders left by
    killed runs (their process is gone) are removed first."""
    import tempfile

    base = Path(tempfile.gettempdir())
    for old in base.glob("simlab-chunks-*"):
        try:
            pid = int(old.name.split("-")[2])
            os.kill(pid, 0)
        except (ValueError, IndexError):
            continue
        except ProcessLookupError:
            shutil.rmtree(old, ignore_errors=True)
        except OSError:
            continue
    return Path(tempfile.mkdtemp(prefix=f"simlab-chunks-{os.getpid()}-", dir=base))


def _frames(p: Plan, ex: _Executor) -> Iterator[pl.DataFrame]:
    """The plan's chunks as frames, in order."""
    remote = ex.remote
    ref = game_ref(p.game) if ex.n_jobs != 1 or remote else p.game
    scratch = None if remote or ex.n_jobs == 1 or len(p.chunks) == 1 else _scratch_dir()
    tasks = []
    for i, (s, c) in enumerate(p.chunks):
        args = _chunk_args(p, ref, s, c)
        if scratch is None:
            tasks.append((i, run_chunk, args, {}))
        else:
            tasks.append((i, _chunk_ipc, args, {"path": str(scratch / f"chunk-{i}.arrow"),
                                                "owner": os.getpid()}))

    def here(i: int, fn: Any, args: tuple, kwargs: dict) -> pl.DataFrame:
        return run_chunk(*args, tick=kwargs.get("tick"))  # in this process: no file

    def frame_of(result: Any) -> pl.DataFrame:
        if isinstance(result, pl.DataFrame):
            return result
        path = Path(result)
        frame = pl.read_ipc(io.BytesIO(path.read_bytes()))  # in memory: no map of a file
        path.unlink()
        return frame

    try:
        pending: dict[int, pl.DataFrame] = {}
        nxt = 0
        for i, result in run_tasks(p, ex, tasks, local=here):
            pending[i] = frame_of(result)
            while nxt in pending:
                yield pending.pop(nxt)
                nxt += 1
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


@dataclass(frozen=True)
class PartInfo:
    index: int
    start: int
    count: int
    file: str
    rows: int
    sha256: str
    bytes: int
    sum64: str  # checked on every load (sha256 with verify=True)


def _part_name(i: int) -> str:
    return f"part-{i:05d}.parquet"


def _tmp_name(final: Path) -> Path:
    return final.with_name(f"{final.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp")


def _write_parts(p: Plan, ex: _Executor, folder: Path, todo: list[int]) -> Iterator[PartInfo]:
    """Run chunks ``todo`` of ``p``; each lands in ``folder`` as a whole part file (written
    to a temporary name, then renamed) before it is yielded, in completion order."""
    chunks = p.chunks
    ref = game_ref(p.game) if ex.n_jobs != 1 or ex.remote else p.game
    tmps = {i: _tmp_name(folder / _part_name(i)) for i in todo}
    tasks = []
    for i in todo:
        args = _chunk_args(p, ref, *chunks[i])
        meta = _part_meta(p, i)
        if ex.remote:
            tasks.append((i, _chunk_bytes, args, {"meta": meta}))
        else:
            tasks.append((i, _chunk_file, args, {"tmp": str(tmps[i]), "owner": os.getpid(),
                                                 "meta": meta}))
    try:
        for i, result in run_tasks(p, ex, tasks):
            if ex.remote:
                rows, data = result
                _write_durable(tmps[i], data)
                sha, size, total = hashlib.sha256(data).hexdigest(), len(data), _sum64(data)
                del data, result
            else:
                rows, sha, size, total = result
            final = folder / _part_name(i)
            os.replace(tmps[i], final)
            yield PartInfo(i, chunks[i][0], chunks[i][1], final.name, int(rows), sha, int(size),
                           total)
    finally:
        for t in tmps.values():  # parts of chunks that did not finish
            with contextlib.suppress(OSError):
                t.unlink(missing_ok=True)


def simulate(game: Game, n: int, *, seed: int = 0, params: dict | None = None,
             variant: str | Path | None = None, policies: str = "heuristic", jobs: int = 1,
             level: str = "deal", chunk_size: int | None = None, record_hands: bool = False,
             progress: bool | None = None, backend: str = "loky",
             scheduler: str | None = None) -> pl.DataFrame:
    """Simulate ``n`` deals (``level="deal"``) or matches of ``game`` into one DataFrame.

    ``params`` overrides knobs (values or ``--set``-style strings) on top of the TOML
    ``variant`` file; ``policies`` is one name for every seat or one per seat, comma
    separated; ``jobs=-1`` uses every core. ``backend="dask"`` runs the chunks on the
    dask.distributed cluster whose scheduler is at ``scheduler`` (a local one of ``jobs``
    workers if None); ``backend="ray"`` on the Ray cluster at ``scheduler``. Rows are
    identical for any jobs/chunk_size/backend.
    """
    check_backend(backend, scheduler)
    p = plan(game, n, seed=seed, params=params, variant=variant, policies=policies, jobs=jobs,
             level=level, chunk_size=chunk_size, record_hands=record_hands, progress=progress)
    return execute(p, backend=backend, scheduler=scheduler)


def _chunk_reduced(game: str | Game, *args: Any, reduce: Any, owner: int | None = None) -> Any:
    """Worker task: a chunk's rows reduced where they were simulated (``execute_reduced``)."""
    frame = run_chunk(game, *args)
    if _orphaned(owner):
        os._exit(1)
    return reduce(frame)


def execute_reduced(p: Plan, reduce: Any, *, backend: str = "loky",
                    scheduler: str | None = None) -> list[Any]:
    """``reduce(chunk frame)`` of every chunk of ``p``, in chunk order, each computed where
    its chunk ran (a worker, a cluster node or this process): only the reductions (counts,
    sums) travel and the rows are never gathered, so memory does not grow with ``n``.
    ``reduce`` must pickle (a module-level function, or a ``functools.partial`` of one);
    merging the results is the caller's, and with exact ones (integer counts) the answer is
    the same whatever the jobs, chunk size or backend."""
    results: list[Any] = [None] * len(p.chunks)
    with executor(backend, scheduler, p.jobs) as ex, \
            Progress(p.n, p.unit, enabled=p.progress) as bar:
        ex.tick = bar.in_flight if bar.visible else None
        ref = game_ref(p.game) if ex.n_jobs != 1 or ex.remote else p.game
        owner = None if ex.remote else os.getpid()
        tasks = [(i, _chunk_reduced, _chunk_args(p, ref, s, c),
                  {"reduce": reduce, "owner": owner}) for i, (s, c) in enumerate(p.chunks)]

        def here(i: int, fn: Any, args: tuple, kwargs: dict) -> Any:
            return reduce(run_chunk(*args, tick=kwargs.get("tick")))

        for i, result in run_tasks(p, ex, tasks, local=here):
            results[i] = result
            bar.update(p.chunks[i][1])
    return results


def _chunk_part_reduced(game: str | Game, *args: Any, reduce: Any, part: str,
                        owner: int | None = None, tick: Any = None) -> Any:
    """Worker task: a chunk played, written to ``part`` (Parquet) and reduced there
    (``execute_parts_reduced``); only the reduction comes back."""
    frame = run_chunk(game, *args, tick=tick)
    assert isinstance(frame, pl.DataFrame)
    reduced = reduce(frame, args[-2], args[-1])
    _write_part(frame, part, owner)
    return reduced


def _chunk_bytes_reduced(game: str | Game, *args: Any, reduce: Any) -> tuple[Any, bytes]:
    """Cluster task: a chunk reduced where it ran, and its rows as Parquet bytes (a cluster
    node need not share this machine's disk)."""
    frame = run_chunk(game, *args)
    assert isinstance(frame, pl.DataFrame)
    return reduce(frame, args[-2], args[-1]), _parquet_bytes(frame)


def _save_part(part: Path, data: bytes) -> None:
    tmp = _tmp_name(part)
    _write_durable(tmp, data)
    os.replace(tmp, part)


def execute_parts_reduced(p: Plan, folder: Path, reduce: Any, cost: float = 2.0,
                          offset: int = 0, *, backend: str = "loky",
                          scheduler: str | None = None) -> list[Any]:
    """Every chunk of ``p`` played where a worker (or this process) takes it, written there
    to ``folder/part-NNNNN.parquet`` and reduced there by ``reduce(frame, first deal,
    deals)``; the reductions, in chunk order. The rows reach neither a pipe nor this
    process: the caller reads the parts from disk if it needs them (``report`` merges them
    into one file). On a cluster (``backend`` dask or ray) each chunk comes back as its
    reduction and its Parquet bytes, which this process writes. ``cost``: each deal's
    work in plain runs of it (playing and reducing: about 2); ``offset``: the index of the
    first chunk's part (a run in rounds numbers its parts on)."""
    results: list[Any] = [None] * len(p.chunks)
    with executor(backend, scheduler, p.jobs) as ex, \
            Progress(p.n, p.unit, enabled=p.progress) as bar:
        ex.tick = bar.in_flight if bar.visible else None
        ref = game_ref(p.game) if ex.n_jobs != 1 or ex.remote else p.game
        if ex.remote:
            tasks = [(i, _chunk_bytes_reduced, _chunk_args(p, ref, s, c), {"reduce": reduce})
                     for i, (s, c) in enumerate(p.chunks)]
        else:
            tasks = [(i, _chunk_part_reduced, _chunk_args(p, ref, s, c),
                      {"reduce": reduce, "part": str(folder / _part_name(offset + i)),
                       "owner": os.getpid()})
                     for i, (s, c) in enumerate(p.chunks)]

        def here(i: int, fn: Any, args: tuple, kwargs: dict) -> Any:
            return _chunk_part_reduced(*args, reduce=reduce, part=kwargs["part"],
                                       tick=kwargs.get("tick"))

        for i, result in run_tasks(p, ex, tasks, local=here, cost=cost):
            if ex.remote:
                result, data = result
                _save_part(folder / _part_name(offset + i), data)
            results[i] = result
            bar.update(p.chunks[i][1])
    return results


@contextlib.contextmanager
def scratch_parts(folder: Path) -> Iterator[Path]:
    """A private folder ``folder/.parts-PID`` for the part files of a run whose rows are
    merged at the end (a report's results), removed afterwards; folders left by killed
    runs (their process is gone) are removed first."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob(".parts-*"):
        try:
            os.kill(int(old.name.split("-")[1]), 0)
            continue  # its process is alive
        except ProcessLookupError:
            pass
        except (ValueError, IndexError, OSError):
            continue
        shutil.rmtree(old, ignore_errors=True)
    scratch = folder / f".parts-{os.getpid()}"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    keep = False
    try:
        yield scratch
    except MergeFailed:  # the finished parts are the rows: kept for the user
        keep = True
        raise
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)


def part_files(folder: Path) -> list[Path]:
    """The part files in ``folder``, in chunk order."""
    return sorted(folder.glob("part-*.parquet"), key=lambda f: int(f.name[5:-8]))


class MergeFailed(SimlabError):
    """Part files could not be merged into one file (a full disk, say); they are kept."""


# --- a single Parquet file checks itself --------------------------------------------------
# A single file simlab writes (``run --out FILE.parquet``, a report's results) holds in its
# footer's key-value metadata, under CHECK_KEY, "simlab-check/1 SIZE SHA256 SUM64": its
# size; the sha256 of the file with the whole value after the prefix blanked; the sum of
# its 64-bit words (``_sum64``) with only SUM64 blanked, so the sum covers every other byte,
# the size and sha256 included. The value is written blank, then overwritten in place (same
# length: the footer stays valid). In the footer rather than a sidecar file, the check
# travels with every copy of the file, and a rewrite by another tool (which does not carry
# it over) cannot leave a stale sidecar that would refuse a good file.
CHECK_KEY = "simlab.check"
CHECK_PREFIX = "simlab-check/1 "
_SIZE_HEX, _SUM_HEX, _SHA_HEX = 16, 16, 64
_CHECK_BODY = _SIZE_HEX + 1 + _SHA_HEX + 1 + _SUM_HEX
_SUM_AT = _CHECK_BODY - _SUM_HEX  # the sum's offset within the value after the prefix
BLANK_CHECK = CHECK_PREFIX + "~" * _CHECK_BODY


def _footer_start(m: Any) -> int:
    """Where a Parquet file's footer starts by its own length field, or 0 (search the whole
    file) when that field or the closing magic is implausible (a damaged tail)."""
    size = len(m)
    if size < 12 or m[size - 4:] != b"PAR1":
        return 0
    length = int.from_bytes(m[size - 8:size - 4], "little")
    return size - 8 - length if length + 12 <= size else 0


def _find_once(m: Any, needle: bytes, start: int) -> int:
    """Offset of ``needle``'s only occurrence in ``m`` from ``start``; -1 when absent, -2
    when repeated."""
    at = m.find(needle, start)
    if at < 0:
        return -1
    return at if m.find(needle, at + 1) < 0 else -2


def _sum64_at(data: bytes, offset: int) -> int:
    """What ``data`` lying at byte ``offset`` of a file adds to the file's ``_sum64``."""
    return int(_sum64(b"\0" * (offset % 8) + data), 16)


def _stamp_check(path: Path) -> None:
    """Fill in the check of a Parquet file just written with ``BLANK_CHECK`` under
    ``CHECK_KEY`` (see above), and flush it to disk."""
    import mmap

    with open(path, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        with mmap.mmap(f.fileno(), 0) as m:
            start = _footer_start(m)
            at = _find_once(m, BLANK_CHECK.encode(), start)
            if at < 0 or _find_once(m, CHECK_KEY.encode(), start) < 0:
                raise RuntimeError(f"simlab: the check placeholder of {str(path)!r} is "
                                   "missing or not unique")
            body = at + len(CHECK_PREFIX)
            sha = hashlib.sha256(m).hexdigest()  # the whole value blank
            m[body:body + _SUM_AT] = f"{size:0{_SIZE_HEX}x} {sha} ".encode()
            with memoryview(m) as view:
                total = _sum64(view)  # the sum's own field still blank
            m[body + _SUM_AT:body + _CHECK_BODY] = total.encode()
            m.flush()
        os.fsync(f.fileno())


def _file_check(path: Path, sha: bool = False) -> str:
    """``"ok"``, ``"unchecked"`` (no simlab check: written by another tool or an older
    simlab) or ``"damaged"`` for the single Parquet file ``path``. Reads every byte once
    (the sum of its 64-bit words, at memory speed); ``sha`` also checks its sha256. One
    flipped bit anywhere makes it ``"damaged"``: in the data or footer the sum changes, in
    the check's key or prefix the other one still marks the file as checked."""
    import mmap

    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return "unchecked"
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            start = _footer_start(m)
            at = _find_once(m, CHECK_PREFIX.encode(), start)
            key = _find_once(m, CHECK_KEY.encode(), start)
            if at == -1 and key == -1:
                return "unchecked"
            if at < 0 or key < 0:
                return "damaged"
            body = at + len(CHECK_PREFIX)
            value = m[body:body + _CHECK_BODY]
            claimed_sum = value[_SUM_AT:]
            if len(value) != _CHECK_BODY or value[:_SIZE_HEX + 1] != f"{size:0{_SIZE_HEX}x} ".encode():
                return "damaged"
            blank_sum = b"~" * _SUM_HEX
            with memoryview(m) as view:
                total = int(_sum64(view), 16)
            total = (total - _sum64_at(claimed_sum, body + _SUM_AT)
                     + _sum64_at(blank_sum, body + _SUM_AT)) % 2**64
            if claimed_sum != f"{total:0{_SUM_HEX}x}".encode():
                return "damaged"
            if sha:
                view = memoryview(m)
                try:
                    h = hashlib.sha256(view[:body])
                    h.update(b"~" * _CHECK_BODY)
                    h.update(view[body + _CHECK_BODY:])
                finally:
                    view.release()
                if value[_SIZE_HEX + 1:_SIZE_HEX + 1 + _SHA_HEX] != h.hexdigest().encode():
                    return "damaged"
    return "ok"


def _checked(path: Path, verify: bool = False) -> None:
    """Raise ``SimlabError`` (one line naming ``path``) unless the single Parquet file
    ``path`` matches its simlab check, or carries none and ``verify`` is False."""
    try:
        status = _file_check(path, sha=verify)
    except OSError as e:
        raise SimlabError(f"cannot read {str(path)!r}: {e.strerror or e}") from None
    if status == "damaged":
        raise SimlabError(f"{str(path)!r} is damaged: its bytes do not match the check simlab "
                          f"wrote into it (Parquet metadata key {CHECK_KEY!r}); write it again "
                          "with the command that made it")
    if status == "unchecked" and verify:
        raise SimlabError(f"{str(path)!r} cannot be verified: it carries no simlab check "
                          "(written by another tool or an older simlab); load it without "
                          "verify=True")


def _sink_checked(frame: pl.LazyFrame, path: Path, meta: dict[str, str]) -> None:
    """Write ``frame`` (streaming) to ``path`` with ``meta`` and simlab's check."""
    frame.sink_parquet(path, metadata={**meta, CHECK_KEY: BLANK_CHECK})
    _stamp_check(path)


def write_checked_parquet(frame: pl.DataFrame, path: str | Path, meta: dict[str, str]) -> None:
    """Write ``frame`` to the single Parquet file ``path`` with the key-value metadata
    ``meta`` and simlab's check (``load`` refuses any later change to its bytes), through a
    temporary name so ``path`` is replaced whole or not at all."""
    path = Path(path)
    tmp = _tmp_name(path)
    try:
        frame.write_parquet(tmp, metadata={**meta, CHECK_KEY: BLANK_CHECK})
        _stamp_check(tmp)
        tmp.replace(path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def merge_part_files(parts: list[Path], out: Path, p: Plan) -> None:
    """Concatenate part files into one Parquet file ``out`` carrying ``p``'s provenance and
    simlab's check (``CHECK_KEY``). polars' streaming engine copies them on disk: the rows
    never sit in this process whole. A failure (polars reports a full disk as a ComputeError) raises
    ``MergeFailed``, one line; ``out`` is untouched and the parts stay."""
    tmp = _tmp_name(out)
    try:
        _sink_checked(pl.scan_parquet(parts), tmp,
                      {PROVENANCE_KEY: json.dumps(p.provenance(), default=str)})
        tmp.replace(out)
    except (OSError, pl.exceptions.PolarsError) as e:
        where = str(parts[0].parent) if parts else str(out.parent)
        raise MergeFailed(f"cannot write {str(out)!r} ({type(e).__name__}: {_first_line(e)}); "
                          f"its {len(parts)} finished parts are kept in {where!r} (read them "
                          f"with pl.scan_parquet('{where}/part-*.parquet')); free some space "
                          "and run again") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _write_part(frame: pl.DataFrame, part: str, owner: int | None) -> None:
    """Write a chunk's rows to ``part`` (through a temporary name), unless orphaned."""
    data = _parquet_bytes(frame)
    if _orphaned(owner):
        os._exit(1)
    final = Path(part)
    tmp = _tmp_name(final)
    _write_durable(tmp, data)
    if _orphaned(owner):  # the parent died while we wrote: nobody will read it
        tmp.unlink(missing_ok=True)
        os._exit(1)
    os.replace(tmp, final)


def _paired_chunk_reduced(game: str | Game, knobs_a: Knobs, knobs_b: Knobs,
                          policies_a: tuple[str, ...], policies_b: tuple[str, ...], seed: int,
                          level: str, record_hands: bool, start: int, count: int, *,
                          reduce: Any, owner: int | None = None,
                          parts: tuple[str, str] | None = None, rows_back: bool = False
                          ) -> Any:
    """Task: one chunk of deals played under variants A and B, reduced together where
    both ran (``execute_paired_reduced``); with ``parts``, both chunks' rows are written
    there too; with ``rows_back`` (a cluster node, which need not share this machine's
    disk), they come back as Parquet bytes with the reduction."""
    frame_a = run_chunk(game, knobs_a, policies_a, seed, level, record_hands, start, count)
    frame_b = run_chunk(game, knobs_b, policies_b, seed, level, record_hands, start, count)
    if _orphaned(owner):
        os._exit(1)
    reduced = reduce(frame_a, frame_b, start, count)
    if rows_back:
        return reduced, _parquet_bytes(frame_a), _parquet_bytes(frame_b)
    if parts is not None:
        _write_part(frame_a, parts[0], owner)
        _write_part(frame_b, parts[1], owner)
    return reduced


def execute_paired_reduced(pa: Plan, pb: Plan, reduce: Any, *, backend: str = "loky",
                           scheduler: str | None = None,
                           folders: tuple[Path, Path] | None = None) -> list[Any]:
    """``reduce(frame_a, frame_b, first deal, deals)`` of every chunk of deals, played
    under ``pa`` and ``pb`` (the same game, seed and chunks: variants compared on the same
    deals) in the same task, in chunk order: as ``execute_reduced``, only the reductions
    travel, and the rows of neither variant are gathered. With ``folders``, each chunk's
    rows of A and B are also written there as part files (by the local process that
    played them; from a cluster node they come back as Parquet bytes)."""
    if pa.chunks != pb.chunks or pa.seed != pb.seed or pa.level != pb.level:
        raise ValueError("paired plans must cover the same deals in the same chunks")
    results: list[Any] = [None] * len(pa.chunks)
    with executor(backend, scheduler, pa.jobs) as ex, \
            Progress(pa.n, pa.unit, enabled=pa.progress) as bar:
        ref = game_ref(pa.game) if ex.n_jobs != 1 or ex.remote else pa.game
        owner = None if ex.remote else os.getpid()

        def parts(i: int) -> dict:
            if folders is None:
                return {}
            if ex.remote:
                return {"rows_back": True}
            return {"parts": (str(folders[0] / _part_name(i)), str(folders[1] / _part_name(i)))}
        tasks = [(i, _paired_chunk_reduced,
                  (ref, pa.knobs, pb.knobs, pa.policies, pb.policies, pa.seed, pa.level,
                   pa.record_hands, s, c), {"reduce": reduce, "owner": owner, **parts(i)})
                 for i, (s, c) in enumerate(pa.chunks)]

        def here(i: int, fn: Any, args: tuple, kwargs: dict) -> Any:
            return fn(*args, reduce=reduce, **parts(i))

        for i, result in run_tasks(pa, ex, tasks, local=here):
            if folders is not None and ex.remote:
                result, data_a, data_b = result
                _save_part(folders[0] / _part_name(i), data_a)
                _save_part(folders[1] / _part_name(i), data_b)
            results[i] = result
            bar.update(pa.chunks[i][1])
    return results


def execute(p: Plan, *, backend: str = "loky", scheduler: str | None = None) -> pl.DataFrame:
    frames: list[pl.DataFrame] = []
    with executor(backend, scheduler, p.jobs) as ex, \
            Progress(p.n, p.unit, enabled=p.progress) as bar:
        ex.tick = bar.in_flight if bar.visible else None  # slices cost a little: only if shown
        for frame in _frames(p, ex):
            frames.append(frame)
            bar.update(frame.height)
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical", rechunk=True)


def is_run_dir(out: str | Path) -> bool:
    """Whether ``out`` names a run directory (trailing slash, an existing directory, or a
    new path not ending in .parquet) rather than a single Parquet file."""
    text = os.fspath(out)
    path = Path(text)
    if text.endswith(("/", os.sep)) or path.is_dir():
        return True
    if path.exists():
        return False
    return path.suffix.lower() not in (".parquet", ".pq")


def run_to_parquet(out: str | Path, game: Game, n: int, *, seed: int = 0,
                   params: dict | None = None, variant: str | Path | None = None,
                   policies: str = "heuristic", jobs: int = 1, level: str = "deal",
                   chunk_size: int | None = None, record_hands: bool = False,
                   progress: bool | None = None, backend: str = "loky",
                   scheduler: str | None = None) -> Path:
    """Like ``simulate`` but stream the rows to disk (memory bounded by the chunk size);
    returns ``out``. ``out`` ending in ``.parquet``: one file with provenance metadata;
    otherwise (or ending in ``/``) a resumable run directory (see ``execute_to_dir``)."""
    check_backend(backend, scheduler)
    p = plan(game, n, seed=seed, params=params, variant=variant, policies=policies, jobs=jobs,
             level=level, chunk_size=chunk_size, record_hands=record_hands, progress=progress)
    if is_run_dir(out):
        return execute_to_dir(p, out, backend=backend, scheduler=scheduler)
    return execute_to_parquet(p, out, backend=backend, scheduler=scheduler)


def _check_writable(out: Path) -> None:
    """The nearest existing folder of ``out`` must be writable (read-only media and
    permissions are refused before any work, in one line)."""
    for parent in [out, *out.parents]:
        if parent.exists():
            if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK):
                raise SimlabError(f"cannot write {str(out)!r}: {str(parent)!r} is not writable "
                                  "(read-only or no permission); give another output path")
            return


def check_folder_output(out: str | Path) -> Path:
    """A folder a command will write into (a report): not a file, under a folder, and
    writable. Raises ``SimlabError`` in one line before any work."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SimlabError(f"output {str(out)!r} is a file; give a folder for the report")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise SimlabError(f"cannot create {str(out)!r}: {str(parent)!r} is a file")
            break
    _check_writable(out)
    return out


def check_file_output(out: str | Path) -> Path:
    out = Path(out)
    if out.is_dir():
        raise SimlabError(f"output {str(out)!r} is a directory; give a .parquet file path")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise SimlabError(f"cannot write {str(out)!r}: {str(parent)!r} is a file")
            break
    _check_writable(out.parent)
    return out


def execute_to_parquet(p: Plan, out: str | Path, *, backend: str = "loky",
                       scheduler: str | None = None) -> Path:
    """Write the plan's rows to the single Parquet file ``out`` (replaced atomically).

    The chunks first go to the resumable run directory ``OUT.parts/`` beside it, merged
    into ``out`` at the end (with simlab's check, ``CHECK_KEY``, which every ``load``
    reads) and then removed. If the run stops part-way (a full disk, a dead worker,
    Ctrl-C) the finished chunks stay there and ``RunInterrupted`` says so; running the
    same command again resumes from them."""
    out = check_file_output(out)
    parts = Path(f"{out}.parts")
    tmp = Path(f"{out}.tmp")
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        execute_to_dir(p, parts, backend=backend, scheduler=scheduler)
    except RunInterrupted as e:
        raise RunInterrupted(f"{e} (the chunks of {str(out)!r} are kept in {str(parts)!r}/)") from e
    m = read_manifest(parts)
    files = [parts / e["file"] for e in m["chunks"]]
    try:
        meta = {PROVENANCE_KEY: json.dumps(m["provenance"], default=str)}
        _sink_checked(pl.scan_parquet(files), tmp, meta)
        os.replace(tmp, out)
    except (OSError, pl.exceptions.ComputeError) as e:
        tmp.unlink(missing_ok=True)
        raise RunInterrupted(f"could not write {str(out)!r} ({type(e).__name__}: {_first_line(e)}); "
                             f"every chunk is kept in {str(parts)!r}/ (load it with simlab.load), "
                             "run the same command again to retry the merge") from e
    shutil.rmtree(parts, ignore_errors=True)
    return out


# --- resumable run directories --------------------------------------------------------
MANIFEST = "manifest.json"
MANIFEST_FORMAT = "simlab-run/1"
MANIFEST_EVERY = 1.0  # seconds between manifest writes while a run goes on
# provenance keys that must match for a run to resume into a directory; the CLI spelling
IDENTITY = {"game": "game", "level": "--level", "n": "-n", "start": "start", "seed": "--seed",
            "policies": "--policy", "knobs": "knob", "record_hands": "--record-hands",
            "chunk_size": "--chunk-size", "simlab_version": "simlab version"}


class RunInterrupted(RuntimeError):
    """A run directory's run stopped part-way (disk full, a worker died, ...). Every chunk
    finished before is kept; running the same run again resumes it."""


def _jsonable(obj: Any) -> Any:
    return json.loads(json.dumps(obj, default=str))


def read_manifest(folder: str | Path) -> dict[str, Any]:
    """The ``manifest.json`` of a run directory (raises ``SimlabError``)."""
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SimlabError(f"{str(folder)!r} is not a simlab run directory (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SimlabError(f"{str(path)!r} is not a readable manifest: {_first_line(e)}") from None
    if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
        raise SimlabError(f"{str(path)!r} is not a simlab run manifest "
                          f"(format {data.get('format') if isinstance(data, dict) else None!r})")
    return data


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, list):
        return ",".join(map(str, v))
    return str(v)


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """One phrase naming the first identity argument that differs, or None."""
    for key, name in IDENTITY.items():
        a, b = old.get(key), new.get(key)
        if key == "knobs" and isinstance(a, dict) and isinstance(b, dict):
            for k in list(b) + [k for k in a if k not in b]:
                if a.get(k) != b.get(k):
                    return f"knob {k} is {_fmt_value(a.get(k))} there, {_fmt_value(b.get(k))} here"
        elif a != b:
            return f"{name} is {_fmt_value(a)} there, {_fmt_value(b)} here"
    return None


def _prepare_dir(p: Plan, out: Path) -> tuple[Plan, dict[str, Any] | None]:
    """Check ``out`` can take plan ``p`` (writes nothing): the plan to run (a plan whose
    chunk size was automatic adopts the manifest's) and the existing manifest, if any."""
    if out.exists() and not out.is_dir():
        raise SimlabError(f"output {str(out)!r} is a file; give a directory (DIR/) for a "
                          "resumable run, or FILE.parquet for one file")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise SimlabError(f"cannot create {str(out)!r}: {str(parent)!r} is a file")
            break
    _check_writable(out)
    if not out.exists():
        return p, None
    _check_manifest_path(out)
    try:
        manifest = read_manifest(out)
    except SimlabError:  # missing, truncated or not ours: rebuild it from the parts if any
        if not any(out.glob("part-*.parquet")):
            stray = [c.name for c in out.iterdir() if c.name not in (".lock", MANIFEST, SET_ASIDE)]
            if stray or (out / MANIFEST).exists():
                raise SimlabError(f"output directory {str(out)!r} is not empty and holds no simlab "
                                  f"run (found {(stray or [MANIFEST])[0]!r}); give a new or empty "
                                  "directory") from None
            return p, None
        # the command line says which run this is: parts of another are set aside
        manifest = rebuild_manifest(out, run=_jsonable(p.provenance()),
                                    any_chunk_size=p.auto_chunk)
        print(f"simlab: the manifest of {str(out)!r} was missing or damaged; rebuilt it from "
              f"{len(manifest['chunks'])} intact parts{set_aside_note(out, manifest)}",
              file=sys.stderr)
    old = manifest.get("provenance", {})
    if p.auto_chunk and isinstance(old.get("chunk_size"), int) and old.get("n") == p.n:
        p = replace(p, chunk_size=old["chunk_size"])
    diff = _difference(old, _jsonable(p.provenance()))
    if diff is not None:
        raise SimlabError(f"output directory {str(out)!r} holds another run: {diff}; re-run with "
                          "the same arguments to resume it, or give another --out")
    return p, manifest


def resolve_dir_plan(p: Plan, out: str | Path) -> Plan:
    """The plan a run into directory ``out`` will execute (an automatic chunk size adopts
    the manifest's); raises ``SimlabError`` if ``out`` cannot take it. Writes nothing."""
    return _prepare_dir(p, Path(out))[0]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _verified(folder: Path, p: Plan, manifest: dict[str, Any] | None) -> dict[int, dict]:
    """Done chunks of ``manifest`` whose part file is present and intact. Any other part
    file (damaged, of another run, misplaced) is set aside, never overwritten."""
    if manifest is None:
        return {}
    chunks = p.chunks
    good: dict[int, dict] = {}
    for entry in manifest.get("chunks", []):
        try:
            i = int(entry["index"])
            ok = (0 <= i < len(chunks) and entry["file"] == _part_name(i)
                  and (entry["start"], entry["count"]) == chunks[i]
                  and entry["rows"] == entry["count"] and i not in good)
            path = folder / entry["file"]
            ok = (ok and path.is_file() and path.stat().st_size == entry["bytes"]
                  and _sha256(path) == entry["sha256"])
        except (KeyError, TypeError, ValueError, OSError):
            ok = False
        if ok:
            good[i] = entry
    # Parts finished after the manifest's last write (it is written at most every
    # MANIFEST_EVERY seconds): adopted when sealed intact and their own metadata names
    # this run and their chunk.
    provenance = manifest.get("provenance", {})
    kept = {good[i]["file"] for i in good}
    moved = []
    for f in sorted(folder.glob("part-*.parquet")):
        if f.name in kept:
            continue
        status, entry, _ = _inspect_part(f, provenance)
        if status == "ok" and entry is not None and entry["index"] not in good \
                and entry["index"] < len(chunks) \
                and (entry["start"], entry["count"]) == chunks[entry["index"]]:
            good[entry["index"]] = entry
        else:  # listed yet not intact, or not this run's: redone, the file kept aside
            _set_aside(folder, f)
            moved.append(f.name)
    if moved:
        print(f"simlab: set aside {len(moved)} damaged or foreign part(s) of {str(folder)!r} in "
              f"{str(folder / SET_ASIDE)!r} ({', '.join(moved[:3])}{', ...' if len(moved) > 3 else ''}"
              "); their chunks are redone", file=sys.stderr)
    return good


SET_ASIDE = "set-aside"  # where damaged parts and parts of another run are moved


def _set_aside(folder: Path, f: Path) -> Path:
    """Move part ``f`` into ``folder/set-aside/`` (never delete: it may be evidence, or
    the only copy of another run's rows)."""
    dest_dir = folder / SET_ASIDE
    dest_dir.mkdir(exist_ok=True)
    dest, k = dest_dir / f.name, 1
    while dest.exists():
        dest, k = dest_dir / f"{f.name}.{k}", k + 1
    os.replace(f, dest)
    return dest


def set_aside_note(folder: Path, manifest: dict[str, Any]) -> str:
    """"; set aside N damaged and M foreign part(s) in '...'" for a rebuilt manifest
    that set parts aside, else ""."""
    moved = manifest.get("set_aside") or {}
    words = [f"{len(v)} {k}" for k, v in moved.items() if v]
    if not words:
        return ""
    return f"; set aside {' and '.join(words)} part(s) in {str(folder / SET_ASIDE)!r}"


def _check_manifest_path(folder: Path) -> None:
    path = folder / MANIFEST
    if path.is_dir():
        raise SimlabError(f"{str(path)!r} is a directory, not a run manifest; move it out of "
                          f"{str(folder)!r} and run again")


def _inspect_part(f: Path, run: dict[str, Any] | None, any_chunk_size: bool = False
                  ) -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
    """(status, the manifest entry of part ``f`` from its own metadata, the provenance
    of the run it records). Status ``"ok"``: sealed intact (every byte as written), its
    chunk where its name and run put it, and of run ``run`` (None: any run;
    ``any_chunk_size``: whatever its chunk size); ``"other"``: intact but of another run
    or misplaced; ``"damaged"``: unreadable, unsealed (written before parts were sealed,
    so unprovable) or changed since written."""
    try:
        data = f.read_bytes()
        meta = pl.read_parquet_metadata(io.BytesIO(data))
        if not _seal_intact(data, meta.get(SEAL_KEY)):
            return "damaged", None, None
        part = json.loads(meta[PART_KEY])
        prov = part["provenance"]
        index, start, count = int(part["index"]), int(part["start"]), int(part["count"])
        size, n, first = int(prov["chunk_size"]), int(prov["n"]), int(prov["start"])
        rows = pl.scan_parquet(io.BytesIO(data)).select(pl.len()).collect().item()
    except Exception:  # polars raises several types for a broken file
        return "damaged", None, None
    entry = {"index": index, "start": start, "count": count, "file": f.name, "rows": rows,
             "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
             "sum64": _sum64(data)}
    placed = (f.name == _part_name(index) and 0 <= index * size < n
              and (start, count) == (first + index * size, min(size, n - index * size))
              and rows == count)
    if not placed:
        return "other", entry, prov
    if run is not None:
        want = {**run, "chunk_size": prov.get("chunk_size")} if any_chunk_size else run
        if _difference(want, prov) is not None:
            return "other", entry, prov
    return "ok", entry, prov


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    manifest["updated"] = datetime.now(UTC).isoformat(timespec="seconds")
    final = folder / MANIFEST
    tmp = folder / f"{MANIFEST}.tmp"
    _write_durable(tmp, (json.dumps(manifest, indent=1, default=str) + "\n").encode())
    os.replace(tmp, final)
    with contextlib.suppress(OSError):  # make the rename itself durable
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One writer per run directory (the lock dies with its process)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    fd = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise SimlabError(f"another simlab run is writing into {str(folder)!r}; wait for it "
                              "or give another --out") from None
        yield
    finally:
        os.close(fd)


def execute_to_dir(p: Plan, out: str | Path, *, backend: str = "loky",
                   scheduler: str | None = None) -> Path:
    """Run plan ``p`` into the run directory ``out``, resuming what is there.

    One ``part-NNNNN.parquet`` per chunk and a ``manifest.json`` (provenance, and each done
    chunk's start, count, rows, bytes and sha256); both are replaced atomically after each
    finished chunk. Chunks already listed with an intact part are skipped, others (re)done.
    A directory holding a different run raises ``SimlabError`` before anything is written;
    a failure part-way raises ``RunInterrupted`` with every finished chunk kept.
    """
    check_backend(backend, scheduler)
    out = Path(out)
    p, manifest = _prepare_dir(p, out)
    with executor(backend, scheduler, p.jobs) as ex:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SimlabError(f"cannot create {str(out)!r}: {e.strerror or e}") from None
        with _locked(out):
            for stale in out.glob("*.tmp"):  # left by a killed run
                stale.unlink(missing_ok=True)
            good = _verified(out, p, manifest)
            chunks = p.chunks
            manifest = {"format": MANIFEST_FORMAT,
                        "provenance": _jsonable(p.provenance()) if manifest is None
                        else manifest["provenance"],
                        "n_chunks": len(chunks), "complete": False,
                        "rows_done": sum(e["rows"] for e in good.values()),
                        # this (latest) invocation: chunks found done and intact, and to run
                        "resumed": {"kept": len(good), "to_run": len(chunks) - len(good)},
                        "chunks": [good[i] for i in sorted(good)]}
            try:
                _write_manifest(out, manifest)
            except OSError as e:  # e.g. a full disk: the old manifest and every part stay
                raise RunInterrupted(f"cannot write the manifest of {str(out)!r} ({e.strerror or e}); "
                                     f"its {len(good)} finished chunks are kept, free some space "
                                     "and run the same command again") from e
            todo = [i for i in range(len(chunks)) if i not in good]
            written = time.monotonic()
            stale = False  # finished parts the manifest does not list yet

            def record() -> None:
                nonlocal written, stale
                manifest["chunks"] = [good[i] for i in sorted(good)]
                manifest["complete"] = len(good) == len(chunks)
                _write_manifest(out, manifest)
                written, stale = time.monotonic(), False

            try:
                with Progress(p.n, p.unit, enabled=p.progress,
                              initial=manifest["rows_done"]) as bar:
                    ex.tick = bar.in_flight if bar.visible else None
                    for info in _write_parts(p, ex, out, todo):
                        good[info.index] = asdict(info)
                        manifest["rows_done"] += info.rows
                        stale = True
                        # each write is fsynced (~10 ms): at most one a second, and the
                        # last; a part finished since is adopted by a resume from its
                        # own metadata, so nothing is lost between writes
                        if len(good) == len(chunks) or \
                                time.monotonic() - written >= MANIFEST_EVERY:
                            record()
                        bar.update(info.rows)
            except (SimlabError, KeyboardInterrupt):
                if stale:
                    with contextlib.suppress(OSError):
                        record()
                raise
            except Exception as e:
                if stale:
                    with contextlib.suppress(OSError):
                        record()
                raise RunInterrupted(
                    f"run into {str(out)!r} stopped after {len(good)} of {len(chunks)} chunks "
                    f"({type(e).__name__}: {_first_line(e)}); finished chunks are kept, run the "
                    "same command again to resume") from e
            if not manifest["complete"]:  # nothing left to do (all chunks were done)
                manifest["complete"] = True
                _write_manifest(out, manifest)
    return out


def _identity(prov: dict[str, Any]) -> str:
    return json.dumps({k: prov.get(k) for k in IDENTITY}, sort_keys=True, default=str)


def rebuild_manifest(folder: str | Path, run: dict[str, Any] | None = None,
                     any_chunk_size: bool = False) -> dict[str, Any]:
    """Write a new ``manifest.json`` for ``folder`` from the parts alone and return it.

    A part is listed only if its seal proves every byte as written and its own metadata
    (chunk index, start and count, the run's provenance: seed, knobs, ...) agrees with
    the run and its file name. The run is ``run`` (a resume's command line; with
    ``any_chunk_size``, whatever chunk size its parts have) or else the one most intact
    parts belong to; a tie raises ``SimlabError``. Damaged parts and parts of another run
    are moved to ``folder/set-aside/`` (never deleted) and their chunks redone by the next
    resume. Raises ``SimlabError`` when no part names a run and ``run`` is None."""
    folder = Path(folder)
    _check_manifest_path(folder)
    inspected = [(f, *_inspect_part(f, None)) for f in sorted(folder.glob("part-*.parquet"))]
    intact = [(f, entry, prov) for f, status, entry, prov in inspected if status == "ok"]
    if run is None:
        votes: dict[str, int] = {}
        for _, _, prov in intact:
            votes[_identity(prov)] = votes.get(_identity(prov), 0) + 1
        if not votes:
            raise SimlabError(f"{str(folder)!r} holds no intact simlab part with run metadata; "
                              "nothing to rebuild a manifest from (run the run's own command "
                              "to redo it)")
        ranked = sorted(votes.values(), reverse=True)
        if len(ranked) > 1 and ranked[0] == ranked[1]:
            raise SimlabError(f"{str(folder)!r} holds as many intact parts of one run as of "
                              "another; run the run's own command to say which run it is "
                              "(parts of the other are set aside)")
        best = max(votes, key=votes.__getitem__)
        provenance = next(prov for _, _, prov in intact if _identity(prov) == best)
    else:
        mine = [prov for _, status, _, prov in inspected if status == "ok"
                and _difference({**run, "chunk_size": prov.get("chunk_size")}
                                if any_chunk_size else run, prov) is None]
        sizes: dict[Any, int] = {}
        for prov in mine:
            sizes[prov.get("chunk_size")] = sizes.get(prov.get("chunk_size"), 0) + 1
        provenance = run
        if any_chunk_size and sizes:  # the parts' chunk size (most of them) is the run's
            provenance = {**run, "chunk_size": max(sizes, key=sizes.__getitem__)}
    good: dict[int, dict] = {}
    moved: dict[str, list[str]] = {"damaged": [], "foreign": []}
    for f, status, entry, prov in inspected:
        if status == "ok" and entry is not None and prov is not None \
                and _difference(provenance, prov) is None and entry["index"] not in good:
            good[entry["index"]] = entry
        else:
            _set_aside(folder, f)
            moved["damaged" if status == "damaged" else "foreign"].append(f.name)
    n, size = int(provenance["n"]), int(provenance["chunk_size"])
    manifest = {"format": MANIFEST_FORMAT, "provenance": provenance, "n_chunks": -(-n // size),
                "complete": len(good) == -(-n // size),
                "rows_done": sum(e["rows"] for e in good.values()), "rebuilt": True,
                "set_aside": moved, "chunks": [good[i] for i in sorted(good)]}
    _write_manifest(folder, manifest)
    return manifest


def run_status(folder: str | Path) -> dict[str, Any]:
    """``{"complete", "chunks_done", "n_chunks", "rows_done", "n"}`` of a run directory."""
    m = read_manifest(folder)
    return {"complete": bool(m.get("complete")), "chunks_done": len(m.get("chunks", [])),
            "n_chunks": m.get("n_chunks"), "rows_done": m.get("rows_done"),
            "n": m.get("provenance", {}).get("n")}


def load(path: str | Path, *, allow_partial: bool = False, verify: bool = False) -> pl.LazyFrame:
    """Lazily scan a run's rows: a single Parquet file, or a run directory's done parts in
    chunk order. An incomplete run directory raises ``SimlabError`` unless
    ``allow_partial=True`` (then only the done chunks are scanned; they need not be a
    prefix of the run). Every part's bytes are checked against the manifest (the sum of
    their 64-bit words, which any flipped bit changes) so a damaged part is refused in one
    line, never read as other rows; ``verify=True`` checks every part's sha256 as well.
    A single file written by simlab is checked the same way against the check in its own
    metadata (``CHECK_KEY``); one without it (another tool's, an older simlab's) loads
    unchecked, and with ``verify=True`` is refused as one that cannot be verified."""
    p = Path(path)
    if not p.exists():
        raise SimlabError(f"no such run {str(p)!r} (a .parquet file or a run directory)")
    if p.is_file():
        _checked(p, verify)
        try:
            pl.read_parquet_schema(p)
        except Exception as e:  # polars raises several types
            raise SimlabError(f"{str(p)!r} is not a readable Parquet file: {_first_line(e)}") from None
        return pl.scan_parquet(p)
    m = read_manifest(p)
    entries = sorted(m.get("chunks", []), key=lambda e: e["index"])
    _check_chunk_list(p, m, entries)
    if not m.get("complete") and not allow_partial:
        raise SimlabError(f"run {str(p)!r} is incomplete: {len(entries)} of {m.get('n_chunks')} "
                          f"chunks done; re-run the same command to finish it, or load it with "
                          "allow_partial=True")
    files = []
    for e in entries:
        f = p / e["file"]
        try:
            damaged = not f.is_file() or f.stat().st_size != e["bytes"]
            # every byte, on every load: the sum of its 64-bit words (any flipped bit
            # changes it; about 1 ms per 20 MB), or the sha256 in manifests older than sums
            if not damaged and (verify or "sum64" not in e):
                damaged = _sha256(f) != e["sha256"]
            if not damaged and "sum64" in e:
                damaged = _file_sum64(f) != e["sum64"]
        except (OSError, KeyError, TypeError, ValueError):
            damaged = True
        if damaged:
            raise SimlabError(f"part {str(f)!r} of run {str(p)!r} is missing or damaged; re-run "
                              "the same command to redo it")
        files.append(f)
    if not files:
        return pl.LazyFrame()
    return pl.scan_parquet(files)


def _check_chunk_list(folder: Path, m: dict, entries: list[dict]) -> None:
    """The manifest's chunk list must describe the run exactly: distinct indices within
    0..n_chunks-1, each with its own part file and ``rows == count``, and, once complete,
    every chunk present with rows summing to n. Anything else is an edited or corrupted
    manifest, which would otherwise read back with rows lost or duplicated."""
    where = f"the manifest of run {str(folder)!r}"
    n_chunks = m.get("n_chunks")
    indices = [e.get("index") for e in entries]
    files = [e.get("file") for e in entries]
    if not isinstance(n_chunks, int) or len(set(indices)) != len(indices) \
            or len(set(files)) != len(files) \
            or any(not isinstance(i, int) or not 0 <= i < n_chunks for i in indices):
        raise SimlabError(f"{where} lists chunks that do not belong to one run (repeated or "
                          f"out-of-range chunk indices or files); re-run the same command to repair it")
    for e in entries:
        if e.get("rows") != e.get("count") or e.get("file") != _part_name(e["index"]):
            raise SimlabError(f"{where}: chunk {e['index']} does not match its part "
                              f"{e.get('file')!r}; re-run the same command to repair it")
    rows = sum(e["rows"] for e in entries)
    n = m.get("provenance", {}).get("n")
    if m.get("complete") and (indices != list(range(n_chunks)) or rows != n):
        raise SimlabError(f"{where} says complete but lists {len(entries)} of {n_chunks} chunks "
                          f"({rows:,} of {n} rows); re-run the same command to repair it")


def read_provenance(path: str | Path) -> dict[str, Any]:
    """The provenance dict stored by ``run_to_parquet`` in a Parquet file or in a run
    directory's manifest. A single file's bytes are checked first, as ``load`` does."""
    p = Path(path)
    if p.is_dir():
        return read_manifest(p)["provenance"]
    if not p.is_file():
        raise SimlabError(f"no such Parquet file {str(p)!r}")
    _checked(p)
    try:
        meta = pl.read_parquet_metadata(p)
    except Exception as e:  # polars raises several types
        raise SimlabError(f"{str(p)!r} is not a readable Parquet file: {e}") from None
    if PROVENANCE_KEY not in meta:
        raise SimlabError(f"{str(p)!r} has no simlab provenance metadata")
    try:
        return json.loads(meta[PROVENANCE_KEY])
    except ValueError as e:  # another tool's (unchecked) file with a garbled key
        raise SimlabError(f"{str(p)!r} has unreadable simlab provenance metadata: "
                          f"{_first_line(e)}") from None


# --- small statistics helper (simlab.engine.stats will grow from here) ------------------------
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


def grouped(p: Plan) -> Plan:
    """``p`` with chunks that keep together the rows measured together (a Double-Détente
    manche's parts: the game's ``row_group``), so that each chunk measures whole groups."""
    group = p.game.extra.get("row_group")
    k = int(group(p.knobs, p.level)) if group is not None else 1
    if k <= 1 or p.chunk_size % k == 0:
        return p
    return replace(p, chunk_size=min(p.n, -(-p.chunk_size // k) * k))
