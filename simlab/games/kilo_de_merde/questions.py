"""Kilo de merde: the catalogue's balance questions as metrics, and the findings that
open the report. Penalties go to the slowest slapper, so every answer rests on the player
model (``simlab.mechanics.realtime``); ``exact_findings`` says which model first, then
answers from small sweeps of the kernel run here, each with its interval:

1. kilos and penalties by speed rank, and seat 0's share of the penalties as a curve over
   its speed ratio (the model's main parameter);
2. the share of the final-score variance that comes from Aces, over matches of
   ``match_rounds`` rounds, and how often the winner drew no Ace;
3. and 4. deadlock and flush rates for every player count 3..10;
5. passing skill: one random passer among heuristic ones, against all heuristic (the same
   deals and streams, a paired difference).

Metrics of the rows answer the rest per run (deadlocks, flushes, false slaps, length)."""

from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np
import polars as pl

from simlab.engine.questions import MetricDef
from simlab.engine.stats import mean, proportion
from simlab.games.kilo_de_merde.kernels import simulate_rows
from simlab.games.kilo_de_merde.rules import (
    F_DEADLOCK,
    F_DRAWS,
    F_FLUSHES,
    F_WINNER,
    MAX_PLAYERS,
    MIN_PLAYERS,
    KiloKnobs,
    packet_ranks,
)

SECTION = "Kilo de merde questions"
RATIOS = (1.0, 1.25, 1.5, 2.0, 3.0)
SWEEP_ROUNDS = 2_000
SWEEP_MATCHES = 1_000
BY_N_ROUNDS = 1_000
SWEEP_SEED = 40_400


def balance_metrics(frame: pl.DataFrame | pl.LazyFrame, knobs: KiloKnobs | None,
                    level: str) -> list[MetricDef]:
    lf = frame.lazy()
    cols = set(lf.collect_schema().names())
    out: list[tuple[MetricDef, set[str]]] = []

    def add(need: set[str], key: str, title: str, expr: pl.Expr, where: pl.Expr | None = None,
            kind: str = "rate", **kw) -> None:
        out.append((MetricDef(f"kilo.{key}", title, SECTION, expr, where, kind, **kw), need))

    what = "round" if level == "deal" else "match"
    score = "score_s0" if level == "deal" else "final_score_s0"
    add({score}, "q1.seat0_kilos", f"seat 0's kilos at the end of the {what}",
        pl.col(score), kind="mean", unit="kg", headline=True,
        note="equal players: every seat alike")
    add({"penalties_s0"}, "q1.seat0_penalties", f"penalty draws seat 0 takes per {what}",
        pl.col("penalties_s0"), kind="mean", unit="draws")
    add({"aces_s0"}, "q2.seat0_aces", f"Aces in seat 0's stack at the end of the {what}",
        pl.col("aces_s0"), kind="mean", unit="Aces")
    add({"deadlock"}, "q3.deadlock", "rounds ended by a deadlock (per round)",
        pl.col("deadlock") / pl.col("n_deals") if level == "match" else pl.col("deadlock"),
        kind="mean", unit="per round", headline=True)
    add({"capped"}, "q3.capped", "rounds stopped at max_cycles (per round)",
        pl.col("capped") / pl.col("n_deals") if level == "match" else pl.col("capped"),
        kind="mean", unit="per round", headline=True)
    add({"flushes"}, "q4.flushes", f"7s drawn (flushes) per {what}", pl.col("flushes"),
        kind="mean", unit="flushes", headline=True)
    add({"penalty_draws"}, "q4.draws", f"penalty draws per {what}", pl.col("penalty_draws"),
        kind="mean", unit="draws")
    add({"false_slaps"}, "q6.false_slaps", f"false slaps per {what}", pl.col("false_slaps"),
        kind="mean", unit="slaps")
    add({"early_slaps"}, "q6.early_slaps", f"early slaps (someone held 3) per {what}",
        pl.col("early_slaps"), kind="mean", unit="slaps")
    add({"time_ms"}, "length.seconds", f"simulated seconds per {what}",
        pl.col("time_ms") / 1000.0, kind="mean", unit="s", headline=True)
    add({"cycles"}, "length.cycles", f"pass cycles per {what}", pl.col("cycles"),
        kind="mean", unit="cycles")
    return [m for m, need in out if need <= cols]


FINDINGS = (
    {"question": "3. Deadlocks",
     "key": "kilo.q3.deadlock",
     "text": "At this run's player count, rounds end by a deadlock {kilo.q3.deadlock}; "
             "{kilo.q3.capped} stop at the cycle cap"},
    {"question": "4. Flushes",
     "key": "kilo.q4.flushes",
     "text": "7s drawn: {kilo.q4.flushes}, out of {kilo.q4.draws}"},
    {"question": "6. Slap timing",
     "key": "kilo.q6.false_slaps",
     "text": "False slaps {kilo.q6.false_slaps} and early slaps {kilo.q6.early_slaps}; "
             "a round lasts {kilo.length.seconds}"},
)


def model_text(k: KiloKnobs) -> str:
    return (f"Player model (simlab.mechanics.realtime): every reaction (a pass, a slap, "
            f"following a slap) takes a lognormal delay (median {k.rt_median:g} s, sigma "
            f"{k.rt_sigma:g}), a pass {k.rt_scan:g} s more per card looked over; a holder "
            f"slaps one delay after everyone holds 4 and holds back when a pass comes "
            f"first; each seat slaps falsely with probability {k.error_rate:g} per window "
            f"and slaps at once on completing, while someone holds 3, with the same "
            f"probability; passing is sequential from the Q♥'s first holder")


def _per_seat(rows: np.ndarray, n: int, block: int) -> np.ndarray:
    return rows[:, 1 + block * n: 1 + (block + 1) * n].astype(np.float64)


@functools.lru_cache(maxsize=8)
def speed_ranks(k: KiloKnobs) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """Seat s slower by 15 % per rank: (median, kilos per round, penalties per round)."""
    n = k.players
    specs = tuple(f"heuristic:rt_median={k.rt_median * (1 + 0.15 * s):.6g}" for s in range(n))
    rows = simulate_rows(k, specs, SWEEP_SEED, SWEEP_ROUNDS)
    kg = _per_seat(rows, n, 0)
    pen = _per_seat(rows, n, 2)
    return [(k.rt_median * (1 + 0.15 * s), kg[:, s], pen[:, s]) for s in range(n)]


@functools.lru_cache(maxsize=8)
def speed_curve(k: KiloKnobs) -> list[tuple[float, int, int]]:
    """Seat 0 slower by each ratio, the others at the run's median: (ratio, seat 0's
    penalty draws, all penalty draws)."""
    n = k.players
    out = []
    for i, r in enumerate(RATIOS):
        specs = (f"heuristic:rt_median={k.rt_median * r:.6g}",) + ("heuristic",) * (n - 1)
        rows = simulate_rows(k, specs, SWEEP_SEED + 1 + i, SWEEP_ROUNDS)
        pen = _per_seat(rows, n, 2)
        out.append((r, int(pen[:, 0].sum()), int(pen.sum())))
    return out


@functools.lru_cache(maxsize=8)
def ace_share(k: KiloKnobs) -> tuple[float, float, int, int, int]:
    """Over matches: (share of the final-score variance from Ace kilos, its bootstrap-free
    standard error by the delta method over matches, winners without an Ace, decided
    matches, matches)."""
    n = k.players
    rows = simulate_rows(k, ("heuristic",) * n, SWEEP_SEED + 50, SWEEP_MATCHES, "match")
    score = _per_seat(rows, n, 0)
    aces = _per_seat(rows, n, 1) * k.ace_weight
    s = score.ravel()
    a = aces.ravel()
    var = s.var()
    share = float(np.cov(a, s, ddof=0)[0, 1] / var) if var > 0 else math.nan
    # per-match contributions for an interval: a ratio of means over matches
    da = a - a.mean()
    ds = s - s.mean()
    num = (da * ds).reshape(score.shape).sum(axis=1)
    den = (ds * ds).reshape(score.shape).sum(axis=1)
    r = num.sum() / den.sum() if den.sum() > 0 else math.nan
    resid = num - r * den
    se = float(math.sqrt(resid.var(ddof=1) / len(num)) / den.mean()) if den.sum() > 0 \
        else math.nan
    w = rows[:, 1 + 3 * n + F_WINNER]
    decided = w >= 0
    no_ace = int(sum(1 for i in np.flatnonzero(decided) if aces[i, w[i]] == 0))
    return share, se, no_ace, int(decided.sum()), len(rows)


@functools.lru_cache(maxsize=4)
def by_players(k: KiloKnobs) -> list[tuple[int, int, int, int, int]]:
    """For every player count: (n, deadlock rounds, rounds, flushes, penalty draws)."""
    out = []
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        flush = k.flush_rank
        if flush > 0 and flush - 2 in packet_ranks(n):
            continue
        kn = replace(k, players=n)
        rows = simulate_rows(kn, ("heuristic",) * n, SWEEP_SEED + 100 + n, BY_N_ROUNDS)
        base = 1 + 3 * n
        out.append((n, int(rows[:, base + F_DEADLOCK].sum()), len(rows),
                    int(rows[:, base + F_FLUSHES].sum()), int(rows[:, base + F_DRAWS].sum())))
    return out


@functools.lru_cache(maxsize=8)
def passing_skill(k: KiloKnobs) -> tuple[np.ndarray, np.ndarray]:
    """Seat 0's penalty draws per round passing at random among heuristic passers, and
    passing with the heuristic, on the same rounds."""
    n = k.players
    a = simulate_rows(k, ("random",) + ("heuristic",) * (n - 1), SWEEP_SEED + 200,
                      SWEEP_ROUNDS)
    b = simulate_rows(k, ("heuristic",) * n, SWEEP_SEED + 200, SWEEP_ROUNDS)
    return _per_seat(a, n, 2)[:, 0], _per_seat(b, n, 2)[:, 0]


def _pm(e) -> str:
    return f"{e.value:.3f} [{e.lo:.3f}, {e.hi:.3f}]"


def exact_findings(knobs: KiloKnobs) -> list[tuple[str, str]]:
    """The model first, then questions 1-5 from sweeps of the kernel (read by
    ``simlab.analysis.report``)."""
    k = knobs
    q0 = (f"{model_text(k)}. Every answer below assumes this model; question 1 shows how "
          f"the penalties move with its main parameter, the speed ratio")
    ranks = speed_ranks(k)
    by_rank = "; ".join(f"{med:.2f} s: {_pm(mean(kg))} kg, {_pm(mean(pen))} draws"
                        for med, kg, pen in ranks)
    curve = speed_curve(k)
    fair = 1 / k.players
    pts = "; ".join(f"{r:g}x {proportion(w, t).format(1)}" for r, w, t in curve)
    q1 = (f"Kilos and penalty draws per round by speed rank ({k.players} players, seat s "
          f"with median delay {k.rt_median:g} s x (1 + 0.15 s), {SWEEP_ROUNDS:,} rounds): "
          f"{by_rank}. Seat 0's share of all penalty draws when it is slower than the "
          f"others by a ratio (a fair share is {100 * fair:.1f}%): {pts}")
    share, se, no_ace, decided, matches = ace_share(k)
    q2 = (f"Over {matches:,} matches of {k.match_rounds} rounds ({k.players} heuristic "
          f"players of equal speed), Aces ({k.ace_weight} kg) account for "
          f"{100 * share:.1f}% (± {196 * se:.1f} points, 95%) of the variance of a "
          f"player's final kilos; the winner holds no Ace in "
          f"{proportion(no_ace, decided).format(1)} of decided matches")
    rates = by_players(k)
    dl = "; ".join(f"n = {n}: {proportion(d, r).format(1)}" for n, d, r, _, _ in rates)
    fl = "; ".join(f"n = {n}: {proportion(f, t).format(1)}" for n, _, _, f, t in rates)
    q3 = (f"Rounds ended by a deadlock, by player count ({BY_N_ROUNDS:,} rounds each): {dl} "
          f"(none is possible with 4 players or fewer)")
    q4 = f"Flushes (a 7) per penalty draw, by player count: {fl}"
    a, b = passing_skill(k)
    diff = mean(a - b)
    q5 = (f"Passing skill: seat 0 passing at random among heuristic passers takes "
          f"{_pm(mean(a))} penalty draws per round, passing with the heuristic "
          f"{_pm(mean(b))}; the paired difference is {_pm(diff)} ({SWEEP_ROUNDS:,} same "
          f"rounds)")
    return [("0. Player model", q0), ("1. Speed", q1), ("2. Luck from aces", q2),
            ("3. Deadlocks by player count", q3), ("4. Flushes by player count", q4),
            ("5. Passing skill", q5)]
