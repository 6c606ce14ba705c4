"""Zero-sum matrix games, the stage games of simultaneous-move card games.

``solve(A)`` returns the value of the game whose payoff to the row player is ``A[i, j]``
when the row player plays ``i`` and the column player ``j``, with an optimal mixed
strategy for each player. The row player's strategy is the solution of the linear
programme

    maximise v  subject to  sum_i x_i A[i, j] >= v for every column j,  sum_i x_i = 1,  x >= 0

solved by HiGHS (``scipy.optimize.linprog(method="highs")``); the column player's strategy
is the programme's dual (the marginals of the column constraints), so one solve gives
both. A game with a pure saddle point (max-min = min-max) is answered without the
programme: the saddle's pure strategies are optimal, and the value is exact.

Plain Python and numpy (it runs before the kernels, to build a game's strategy tables,
never inside one).

May import: the engine and other mechanics modules only (here: neither).
"""

from __future__ import annotations

import numpy as np

PURE_TOL = 1e-12


def solve(a: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(value, row strategy x, column strategy y) of the zero-sum game ``a`` (payoffs to
    the row player). ``x`` and ``y`` are probability vectors (non-negative, summing to 1)."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise ValueError(f"a matrix game needs a non-empty 2-D payoff matrix, got shape {a.shape}")
    m, n = a.shape
    row_min = a.min(axis=1)
    col_max = a.max(axis=0)
    i, j = int(np.argmax(row_min)), int(np.argmin(col_max))
    if col_max[j] - row_min[i] <= PURE_TOL:  # a saddle point: pure strategies are optimal
        x = np.zeros(m)
        y = np.zeros(n)
        x[i] = 1.0
        y[j] = 1.0
        return float(a[i, j]), x, y
    return _lp(a)


def _lp(a: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    from scipy.optimize import linprog

    m, n = a.shape
    # variables (x_0 .. x_{m-1}, v); minimise -v
    c = np.zeros(m + 1)
    c[-1] = -1.0
    # v - sum_i x_i a[i, j] <= 0 for each column j
    a_ub = np.hstack([-a.T, np.ones((n, 1))])
    b_ub = np.zeros(n)
    a_eq = np.ones((1, m + 1))
    a_eq[0, -1] = 0.0
    bounds = [(0.0, None)] * m + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.ones(1), bounds=bounds,
                  method="highs")
    if res.status != 0:  # a finite matrix game always has a solution
        raise RuntimeError(f"matrix game LP failed: {res.message}")
    x = _normalised(res.x[:m])
    y = _normalised(-np.asarray(res.ineqlin.marginals))
    return float(res.x[-1]), x, y


def _normalised(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), 0.0, None)
    s = p.sum()
    if s <= 0:
        raise RuntimeError("matrix game LP returned an empty strategy")
    return p / s


def guaranteed(a: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(what ``x`` guarantees the row player, what ``y`` concedes at most): both equal the
    value when the strategies are optimal (a check for tests)."""
    a = np.asarray(a, dtype=np.float64)
    return float((x @ a).min()), float((a @ y).max())
