"""The shared real-time engine (simlab.mechanics.realtime): its draws (lognormal median,
scan cost, error rate, fair ties), and through the games that use it: identical rows
whatever the jobs and chunks, a strictly faster seat wins more (monotone over a grid of
speed ratios), equal seats are symmetric."""

from __future__ import annotations

import math

import numpy as np
import pytest

import simlab
from simlab.mechanics import realtime as rt


def _row(median: float, sigma: float, scan: float = 0.0, err: float = 0.0) -> np.ndarray:
    return np.array(rt.reaction_block(median, sigma, scan, err), dtype=np.int64)


def test_reaction_delay_median_spread_and_scan_cost() -> None:
    n = 20_000
    row = _row(0.8, 0.4, scan=0.1)
    d = rt.sample_delays(np.uint64(3), row, 2, n)
    base = d - 0.2  # two options scanned at 0.1 s each
    below = (base < 0.8).mean()
    assert abs(below - 0.5) < 5 * math.sqrt(0.25 / n), below
    logs = np.log(base)
    assert abs(logs.std() - 0.4) < 5 * 0.4 / math.sqrt(2 * n)
    # no spread: every delay is the median plus the scan cost
    x = rt.sample_delays(np.uint64(3), _row(0.5, 0.0, scan=0.25), 3, 10)
    assert x == pytest.approx(np.full(10, 1.25))


def test_error_rate_and_schedule() -> None:
    n = 50_000
    k = rt.sample_errors(np.uint64(4), _row(1.0, 0.3, err=0.1), n)
    assert abs(k / n - 0.1) < 5 * math.sqrt(0.09 / n)
    clock = np.zeros(3)
    rt.clear(clock, 3)
    wins, _ = rt.sample_earliest(np.uint64(1), clock, 5)
    assert list(wins) == [0, 0, 0, 5]  # nobody has anything to do: a stall
    state = np.uint64(1)
    rt.schedule(state, clock, 1, 2.0, _row(0.5, 0.0), 1)
    rt.schedule(state, clock, 2, 2.0, _row(0.5, 0.0), 0)  # nothing to do
    assert clock[1] == pytest.approx(2.5) and clock[2] == rt.NEVER
    wins, _ = rt.sample_earliest(np.uint64(1), clock, 5)
    assert list(wins) == [0, 5, 0, 0]
    clock[:] = [1.0, 3.0, 2.0]
    assert rt.latest(clock, 3, 1) == 2  # the slowest but the instigator


def test_ties_go_to_a_fair_draw_never_to_the_lower_seat() -> None:
    clock = np.array([1.0, 1.0, 2.0, 1.0])
    n = 9_000
    counts, ev = rt.sample_earliest(np.uint64(5), clock, n)
    assert counts[2] == 0 and ev[rt.EV_TIES] == n
    for s in (0, 1, 3):
        assert abs(counts[s] / n - 1 / 3) < 5 * math.sqrt(2 / 9 / n)


@pytest.mark.parametrize("game, params", [("speed", {}), ("speed", {"error_rate": 0.05}),
                                          ("kilo_de_merde", {"players": 5})])
def test_rows_do_not_depend_on_jobs_or_chunks(game: str, params: dict) -> None:
    kw = {"seed": 11, "params": params, "progress": False}
    one = simlab.simulate(game, 2_000, jobs=1, chunk_size=2_000, **kw)
    two = simlab.simulate(game, 2_000, jobs=2, chunk_size=333, **kw)
    assert one.equals(two)
    assert (one["time_ms"] > 0).all()


def _win_rate(game: str, policies: str, params: dict, n: int, seed: int) -> float:
    f = simlab.simulate(game, n, seed=seed, policies=policies, params=params, progress=False)
    w = f["winner"].to_numpy()
    return float((w == 0).sum() / (w >= 0).sum())


def test_speed_a_strictly_faster_seat_wins_more_monotone() -> None:
    n = 3_000
    rates = [_win_rate("speed", f"heuristic,heuristic:rt_median={0.9 * r:g}", {}, n, 7)
             for r in (1.0, 1.15, 1.4, 2.0)]
    se = math.sqrt(0.25 / n)
    assert abs(rates[0] - 0.5) < 5 * se, rates
    for a, b in zip(rates, rates[1:], strict=False):
        assert b > a - 3 * se * math.sqrt(2), rates
    assert rates[-1] > rates[0] + 10 * se, rates


@pytest.mark.parametrize("params", [{}, {"rt_sigma": 0.0, "rt_scan": 0.0}])
def test_speed_equal_seats_are_symmetric(params: dict) -> None:
    """With equal parameters (and with sigma 0, where every action is a tie) seat 0 wins
    half the games within 5 standard errors."""
    n = 4_000
    p = _win_rate("speed", "heuristic", params, n, 9)
    assert abs(p - 0.5) < 5 * math.sqrt(0.25 / n), p


def test_kilo_the_faster_seat_carries_fewer_kilos() -> None:
    """Seat 0 slower than the other three: more kilos (a monotone grid)."""
    n = 2_000
    means = []
    for r in (1.0, 1.5, 2.5):
        f = simlab.simulate("kilo_de_merde", n, seed=3, progress=False,
                            policies=f"heuristic:rt_median={0.6 * r:g},heuristic,heuristic,"
                                     "heuristic")
        means.append(f["penalties_s0"].mean() - f["penalties_s1"].mean())
    assert means[0] < means[1] < means[2], means


def test_kilo_equal_seats_are_symmetric() -> None:
    """Equal players: every seat takes the same share of the penalty draws, within 5
    standard errors of a fair share."""
    n = 3_000
    f = simlab.simulate("kilo_de_merde", n, seed=12, progress=False, params={"players": 5})
    pens = np.stack([f[f"penalties_s{s}"].to_numpy() for s in range(5)], axis=1)
    total = pens.sum(axis=1)
    for s in range(5):
        d = pens[:, s] - total / 5
        assert abs(d.mean()) < 5 * d.std(ddof=1) / math.sqrt(n), s
