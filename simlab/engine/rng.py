"""Counter-based random streams for the kernels.

Every deal (or match) draws from its own stream, keyed by (run seed, index, sub-index,
purpose). Results therefore do not depend on how deals are split into chunks or jobs,
and two variants run with the same seed see the same shuffles (common random numbers):
shuffles and policy decisions use different ``purpose`` keys, so a variant that makes
different decisions never shifts the next shuffle.

The generator is splitmix64 (Steele, Lea & Flood 2014): a 64-bit counter stepped by the
golden-ratio increment, passed through a bijective finaliser. All arithmetic is on
``np.uint64`` so the same code runs compiled and with ``NUMBA_DISABLE_JIT=1``
(callers wrap the latter in ``np.errstate(over="ignore")``).
"""

from __future__ import annotations

import numpy as np

from simlab.engine.jit import hot

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)

# Purposes: separate streams per use, so decisions never shift shuffles.
SHUFFLE = 0
POLICY = 1
SETUP = 2  # e.g. who deals first in a match
# 3: Tarot double détente's fault draws (its own constant, kept for its existing runs)
SEARCH = 4  # the search player's sampled worlds and playouts (simlab/mechanics/search.py)


@hot
def mix64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@hot
def stream(seed: np.uint64, index: np.int64, sub: np.int64, purpose: np.int64) -> np.uint64:
    """Initial state of the stream for (seed, index, sub, purpose)."""
    h = mix64(seed + GOLDEN)
    h = mix64(h ^ np.uint64(index))
    h = mix64(h ^ (np.uint64(sub) * GOLDEN))
    return mix64(h ^ np.uint64(purpose + 1))


@hot
def next_u64(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """Advance ``state``; return (new state, 64 random bits)."""
    state = state + GOLDEN
    return state, mix64(state)


@hot
def below(state: np.uint64, n: np.int64) -> tuple[np.uint64, np.int64]:
    """Uniform integer in [0, n) (n < 2**32), unbiased (Lemire's multiply + rejection)."""
    un = np.uint64(n)
    threshold = (_TWO32 - un) % un
    while True:
        state, x = next_u64(state)
        m = (x >> _S32) * un
        if (m & _LOW32) >= threshold:
            return state, np.int64(m >> _S32)


@hot
def shuffle(state: np.uint64, cards: np.ndarray, n: np.int64) -> np.uint64:
    """Fisher-Yates shuffle of ``cards[:n]`` in place; returns the advanced state."""
    for i in range(n - 1, 0, -1):
        state, j = below(state, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    return state
