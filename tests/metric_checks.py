"""Helpers shared by the balance-question tests."""

from __future__ import annotations

import math

from simlab.analysis.metrics import compute
from simlab.engine import stats
from simlab.games import get_game


def named(game, frame, knobs, level, section) -> dict:
    ms = compute(get_game(game), frame, knobs, level)
    return {m.key: m for m in ms.metrics if m.section == section}


def check_all_finite(ms: dict) -> None:
    assert ms
    for key, m in ms.items():
        # --precision reads headline half-widths as fractions: rates and shares only
        assert not m.headline or m.kind == "rate" or m.unit == "share", key
        e = m.estimate
        assert e.n > 0, key
        assert math.isfinite(e.value), (key, e)
        # no interval only where the report says why: too few qualifying rows for one, or
        # rows that are all equal (never [x, x])
        if e.status == stats.TOO_FEW_ROWS:
            assert e.n < stats.MIN_MEAN_N, (key, e)
            continue
        if e.status == stats.CONSTANT_ROWS:
            continue
        assert all(math.isfinite(x) for x in (e.lo, e.hi)), (key, e)
        assert e.lo - 1e-12 <= e.value <= e.hi + 1e-12, (key, e)


def close(metric, value: float, tol: float = 1e-9) -> None:
    assert abs(metric.estimate.value - value) <= tol, (metric.key, metric.estimate.value, value)
