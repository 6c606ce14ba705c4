"""The two ways simlab compiles code with numba.

* ``batch``: a kernel over a batch of deals; it may allocate arrays.
* ``hot``: per-deal and per-card functions. They never allocate (the batch kernel hands
  them preallocated work arrays) and are compiled without numba's reference counting
  (``_nrt=False``): on this machine class every array argument otherwise costs atomic
  incref/decref pairs that numba cannot always prune, which measured 3x slower card play.

Both cache their machine code (``cache=True``) so a fresh process pays compilation once
per machine and version of their sources (:func:`cache_dir_for`), and both run as plain Python
under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numba
from numba import njit

_ROOT = Path(__file__).resolve().parent.parent  # the simlab package
# Kernels read only the engine's and the mechanics' modules (and their game's package):
# the players, analysis and command-line layers above never reach a kernel.
_KERNEL_LAYERS = ("engine", "mechanics")
# Modules of those layers (and of a game's package) that no kernel reads: editing them
# keeps the compiled kernels. Any other module counts, a new one included: a wrong guess
# here costs a recompilation, never a stale kernel.
_NOT_KERNEL_SOURCE = {
    "__init__.py", "pool.py", "progress.py", "runner.py", "questions.py", "stats.py",
    "version.py",
}
_GAME_IMPORT = re.compile(r"simlab\.games\.([a-z0-9_]+)")


def _digest_files(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(str(path.relative_to(_ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@cache
def _shared_digest() -> str:
    return _digest_files([p for layer in _KERNEL_LAYERS for p in (_ROOT / layer).glob("*.py")
                          if p.name not in _NOT_KERNEL_SOURCE])


@cache
def _game_packages(slug: str) -> frozenset[str]:
    """The game's package and every game package it imports, transitively (Belote
    Noisette plays with Belote's tables, Tarot 4 saisons with Tarot's)."""
    seen: set[str] = set()
    todo = [slug]
    while todo:
        g = todo.pop()
        folder = _ROOT / "games" / g
        if g in seen or not folder.is_dir():
            continue
        seen.add(g)
        for path in folder.glob("*.py"):
            todo.extend(_GAME_IMPORT.findall(path.read_text(encoding="utf-8")))
    return frozenset(seen)


@cache
def cache_dir_for(module: str) -> str:
    """Where the compiled code of ``module``'s kernels is cached: a folder per version of
    the sources they can read.

    numba keys a cached function on its own file's timestamp only: a kernel in
    ``kernels.py`` that inlines a rule from ``rules.py`` would keep running the former
    rule after ``rules.py`` changed (an upgrade, a ``git pull``, an edit), silently. The
    folder's name digests the shared kernel modules and, for a game, its package and the
    game packages it imports, so any such change compiles afresh and nothing else does.
    The base is ``NUMBA_CACHE_DIR`` if set, else the user's cache folder."""
    parts = module.split(".")
    files = [_shared_digest()]
    if len(parts) >= 3 and parts[:2] == ["simlab", "games"]:
        for g in sorted(_game_packages(parts[2])):
            folder = _ROOT / "games" / g
            files.append(_digest_files([p for p in folder.glob("*.py")
                                        if p.name not in _NOT_KERNEL_SOURCE]))
    key = hashlib.sha256("".join(files).encode()).hexdigest()[:16]
    return str(_CACHE_BASE / f"simlab-{key}")


_CACHE_BASE = Path(os.environ.get("NUMBA_CACHE_DIR")
                   or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                   / "simlab" / "numba")


def cached_njit(*args: Any, **options: Any) -> Callable:
    """``numba.njit(*args, cache=True, **options)`` whose cache lives in the folder of the
    decorated function's sources (:func:`cache_dir_for`)."""
    def decorate(func: Callable) -> Callable:
        before = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = cache_dir_for(func.__module__)
        try:  # numba picks the cache folder when it wraps the function
            return njit(*args, cache=True, **options)(func)
        finally:
            numba.config.CACHE_DIR = before
    return decorate


def _load_numba_math_without_blas_probe() -> None:
    """Import numba's array maths now, with ``scipy.linalg.cython_blas`` marked missing.

    The first kernel a process loads makes numba import ``numba.np.arraymath``, whose
    import probes for BLAS by importing ``scipy.linalg`` (0.25 s measured here: a quarter
    of ``simlab run -n 1000`` and of every worker's start). Without BLAS numba only computes
    ``np.dot`` of two floating vectors with its own loop; simlab's kernels use no BLAS. The
    mark is removed at once, so scipy.linalg imports normally afterwards."""
    name = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or name in sys.modules:
        return
    sys.modules[name] = None  # import fails with ImportError: numba's "no BLAS" path
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules[name]


_load_numba_math_without_blas_probe()

batch = cached_njit()
hot = cached_njit(_nrt=False)
# small per-card helpers: also inlined into their callers at numba IR level.
hot_inline = cached_njit(_nrt=False, inline="always")
