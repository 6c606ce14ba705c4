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

from numba import njit

batch = njit(cache=True)
hot = njit(cache=True, _nrt=False)
# small per-card helpers: also inlined into their callers at numba IR level.
hot_inline = njit(cache=True, _nrt=False, inline="always")
