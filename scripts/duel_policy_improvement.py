"""Duel à Las Vegas: how close is the search player to the optimum in mid-partie?

The exact solver covers endgames of at most ``search_exact_cards`` cards; before that
the search player is one step of policy improvement over the heuristic (Monte Carlo
lookahead; its playouts are heuristic until ``search_tail_cards`` cards are left, exact
after). This script measures what a *second* step would add:
on mid-partie positions (one decision drawn at random per partie, among those the
exact solver does not cover, parties played by search players), each move is valued by
playing the partie out with *search* players in ``--worlds`` re-shuffles of the packs
(``players.lookahead_outcomes``). The two-step policy picks its move on half the worlds
and is scored on the other half (then the halves swap), so the gain is not inflated by
picking the luckier move. Printed: the mean gain per decision (points of partie, +1 /
-1 for the partie won / lost) of the two-step policy over the search player, and, on
the same values, of the search player over the heuristic, each with its 95 % interval
over the positions.

It also prints an *upper bound* on what any one-decision deviation from the search
player could gain (the one-shot deviation principle: in a finite game, a strategy that
no single-decision deviation improves, with play continuing by the strategy, is
optimal; so this is the player's local distance to the optimum). At each position the
other move's advantage over search's, A = Q(other) - Q(search) with search players
continuing, is estimated without bias by its mean over all the worlds, d; the best
deviation gains max(0, A), and since max(0, .) is convex, E[max(0, d)] >= max(0, A)
(Jensen). The mean of max(0, d) over the positions therefore estimates an upper bound
on the mean gain of the best one-decision deviation, biased upwards by at most about
0.4 standard errors of d (the bias when A = 0), which more worlds shrink.

    python scripts/duel_policy_improvement.py --positions 60 --worlds 96
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time

import numpy as np

from simlab.games.duel_las_vegas import kernels as KN
from simlab.games.duel_las_vegas import players as P
from simlab.games.duel_las_vegas import rules as R
from simlab.mechanics import poker


def positions(n: int, seed: int, kv: np.ndarray, pp: np.ndarray, worlds: int
              ) -> list[np.ndarray]:
    """One mid-partie decision per partie of search players (deals 0..n-1 of ``seed``)."""
    size = int(kv[R.KV_SIZE])
    work = poker.work_array()
    sw = P.search_work()
    pick = np.random.default_rng(seed)
    out = []
    for d in range(n):
        packs = KN.packs_of(np.uint64(seed), d, size)
        st = R.new_state()
        R.new_partie(st, kv, packs[0], packs[1], work)
        seen = []
        while st[R.S_PHASE] != R.PH_OVER:
            left = R.cards_left(st, kv, 0) + R.cards_left(st, kv, 1)
            if left > pp[R.PP_EXACT_CARDS]:
                seen.append(st.copy())
            R.apply_move(st, kv, P.search_move(np.uint64(seed), d, 0, st, kv, pp, worlds,
                                               sw, work), work)
        if seen:
            out.append(seen[pick.integers(len(seen))])
    return out


def position_gains(args: tuple) -> tuple[float, float, int, float, float]:
    """(two-step gain over search, search's gain over the heuristic, picks that differ,
    the other move's mean advantage over search's over all worlds and its standard
    error) at one position, valued with search continuations (see the module
    docstring)."""
    i, st, seed, worlds = args
    k = R.DuelLasVegasKnobs()
    kv, pp = R.knob_vector(k), R.policy_vector(k)
    s = P.search_move(np.uint64(seed + 1), i, 0, st, kv, pp, k.search_worlds,
                      P.search_work(), poker.work_array())
    h = P.heuristic_move(st, kv, pp)
    v = P.lookahead_outcomes(np.uint64(seed + 2 + i), st, kv, pp, worlds,
                             k.search_worlds).astype(float)
    halves = (v[0::2], v[1::2])
    gain, changed = 0.0, 0
    for pick_on, score_on in ((0, 1), (1, 0)):
        choice = int(np.argmax(halves[pick_on].mean(axis=0)))
        changed += choice != s
        gain += (halves[score_on][:, choice] - halves[score_on][:, s]).mean() / 2
    other = v[:, 1 - s] - v[:, s]
    return (gain, (v[:, s] - v[:, h]).mean(), changed, other.mean(),
            other.std(ddof=1) / np.sqrt(len(other)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=96, help="worlds per position (even)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", help="also write one line per position (CSV) to this file")
    ap.add_argument("--close", type=float, default=0.0, metavar="Z",
                    help="keep only close decisions: the moves' paired difference with "
                         "heuristic continuations (192 worlds) within Z standard errors of "
                         "0 (default 0: keep every position)")
    a = ap.parse_args()
    k = R.DuelLasVegasKnobs()
    t0 = time.perf_counter()
    pos = positions(a.positions, a.seed, R.knob_vector(k), R.policy_vector(k),
                    k.search_worlds)
    if a.close > 0:
        kv, pp = R.knob_vector(k), R.policy_vector(k)
        kept = []
        for i, st in enumerate(pos):
            v = P.lookahead_outcomes(np.uint64(a.seed + 10_000 + i), st, kv, pp, 192, 0)
            d = (v[:, 1] - v[:, 0]).astype(float)
            se = d.std(ddof=1) / np.sqrt(len(d))
            if abs(d.mean()) < a.close * max(se, 1e-9):
                kept.append(st)
        print(f"close decisions (within {a.close} SE): {len(kept)} of {len(pos)} positions")
        pos = kept
    tasks = [(i, st, a.seed, a.worlds) for i, st in enumerate(pos)]
    with multiprocessing.get_context("spawn").Pool(a.jobs) as pool:
        rows = []
        for r in pool.imap(position_gains, tasks):
            rows.append(r)
            print(f"\r{len(rows)}/{len(pos)} positions, {time.perf_counter() - t0:.0f} s",
                  end="", flush=True)
    print()
    if a.out:
        with open(a.out, "w") as f:
            f.write("two_step_gain,search_over_heuristic,picks_changed,other_advantage,"
                    "other_advantage_se\n")
            f.writelines(",".join(map(str, r)) + "\n" for r in rows)
    for label, x in (("two-step over search", [r[0] for r in rows]),
                     ("search over heuristic", [r[1] for r in rows])):
        x = np.array(x)
        se = x.std(ddof=1) / np.sqrt(len(x))
        print(f"{label}: {x.mean():+.4f} [{x.mean() - 1.96 * se:+.4f}, "
              f"{x.mean() + 1.96 * se:+.4f}] points per decision (n = {len(x)} positions)")
    best = np.maximum(0.0, np.array([r[3] for r in rows]))
    se = best.std(ddof=1) / np.sqrt(len(best))
    print(f"best one-decision deviation over search, upper bound: mean max(0, advantage) "
          f"{best.mean():.4f}, 95 % upper limit {best.mean() + 1.645 * se:.4f} points per "
          f"decision (bias up to 0.4 x the mean SE of an advantage, "
          f"{0.4 * np.mean([r[4] for r in rows]):.4f})")
    print(f"the two-step choice differs from search's in {sum(r[2] for r in rows)} of "
          f"{2 * len(rows)} half-world picks; {a.worlds} worlds per position, continuation "
          f"by search players with {k.search_worlds} worlds; seed {a.seed}; "
          f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
