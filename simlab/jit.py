"""The two ways simlab compiles code with numba.

* ``batch``: a kernel over a batch of deals; it may allocate arrays.
* ``hot``: per-deal and per-card functions. They never allocate (the batch kernel hands
  them preallocated work arrays) and are compiled without numba's reference counting
  (``_nrt=False``): on this machine class every array argument otherwise costs atomic
  incref/decref pairs that numba cannot always prune, which measured 3x slower card play.

Both cache their machine code (``cache=True``) so a fresh process pays compilation once
per machine, and both run as plain Python under ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import sys

from numba import njit


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

batch = njit(cache=True)
hot = njit(cache=True, _nrt=False)
# small per-card helpers: also inlined into their callers at numba IR level.
hot_inline = njit(cache=True, _nrt=False, inline="always")
