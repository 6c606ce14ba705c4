"""Duel à Las Vegas: how far the exact solver reaches, and how close the search player's
Monte Carlo lookahead is to the exact optimum at the edge of that reach.

``reach``: for each CARDS given, the first decision of a heuristic partie once both
packs together hold at most CARDS cards, with the rounds won set to 2-2 (the partie then
runs to the packs' end: the hardest endgames); printed: the exact solver's moves played
(median, max) and its time per position.

``gap``: unforced decisions of heuristic parties with exactly CARDS cards left, each
solved exactly; the search player with its exact root switched off (the lookahead alone,
``--tail`` its playouts' exact tail, ``--worlds`` its worlds, ``--z`` its bar) and the heuristic are
scored against the optimum: the share of optimal moves and the loss per decision
(points of partie: +1 / -1 for the partie won / lost), with its 95 % interval.

    python scripts/duel_exact_reach.py reach 10 12 14
    python scripts/duel_exact_reach.py gap 13 --positions 150 --seed 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simlab.games import duel_las_vegas as D
from simlab.games.duel_las_vegas import kernels as KN
from simlab.games.duel_las_vegas import players as P
from simlab.games.duel_las_vegas import rules as R
from simlab.mechanics import poker

BIG = D.DuelLasVegasKnobs(search_exact_nodes=10**8)
KV = R.knob_vector(BIG)
PP = R.policy_vector(BIG)
SIZE = int(KV[R.KV_SIZE])
WORK = poker.work_array()


def left(st: np.ndarray) -> int:
    return int(R.cards_left(st, KV, 0) + R.cards_left(st, KV, 1))


def unforced(st: np.ndarray) -> bool:
    seat = R.to_move(st)
    return seat >= 0 and KV[R.KV_TARGET] - st[R.S_WINS + 1 - seat] > 1


def reach(cards: list[int], n: int, seed: int) -> None:
    sw = P.search_work()
    values = np.zeros(2)
    for total in cards:
        nodes, seconds = [], []
        for d in range(n):
            packs = KN.packs_of(np.uint64(seed), d, SIZE)
            st = R.new_state()
            R.new_partie(st, KV, packs[0], packs[1], WORK)
            while st[R.S_PHASE] != R.PH_OVER and left(st) > total:
                R.apply_move(st, KV, P.heuristic_move(st, KV, PP), WORK)
            if R.to_move(st) < 0:
                continue
            st[R.S_WINS:R.S_WINS + 2] = (2, 2)
            t = time.perf_counter()
            P.exact_move_values(st, KV, PP, sw, WORK, values)
            seconds.append(time.perf_counter() - t)
            nodes.append(int(sw[4][0]))
        print(f"{total} cards, {len(nodes)} positions: moves played median "
              f"{int(np.median(nodes)):,}, max {max(nodes):,}; "
              f"{np.mean(seconds):.3f} s per position", flush=True)


def interval(x: np.ndarray) -> str:
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    return f"{x.mean():.4f} [{x.mean() - half:+.4f}, {x.mean() + half:+.4f}]"


def gap(total: int, n_positions: int, seed: int, tail: int, worlds: int, z: float
        ) -> None:
    lookahead = R.policy_vector(D.DuelLasVegasKnobs(search_exact_cards=0,
                                                    search_tail_cards=tail, search_z=z))
    sw, sw_search = P.search_work(), P.search_work()
    values = np.zeros(2)
    loss_search, loss_heuristic, gaps = [], [], []
    d = 0
    t0 = time.perf_counter()
    while len(loss_search) < n_positions:
        packs = KN.packs_of(np.uint64(seed), d, SIZE)
        d += 1
        st = R.new_state()
        R.new_partie(st, KV, packs[0], packs[1], WORK)
        while st[R.S_PHASE] != R.PH_OVER and left(st) > total:
            R.apply_move(st, KV, P.heuristic_move(st, KV, PP), WORK)
        if left(st) != total or not unforced(st):
            continue
        if not P.exact_move_values(st, KV, PP, sw, WORK, values):
            continue  # beyond 10^8 moves: not counted (none at 13 cards)
        move = P.search_move(np.uint64(seed), d, 0, st, KV, lookahead, worlds, sw_search,
                             WORK)
        best = values.max()
        loss_search.append(best - values[move])
        loss_heuristic.append(best - values[P.heuristic_move(st, KV, PP)])
        gaps.append(abs(values[0] - values[1]))
    ls, lh, g = np.array(loss_search), np.array(loss_heuristic), np.array(gaps)
    print(f"{total} cards, {len(ls)} decisions (seed {seed}, "
          f"{time.perf_counter() - t0:.0f} s); {int((g > 0.02).sum())} worth more than "
          f"0.02 between the moves")
    print(f"  lookahead ({worlds} worlds, exact tail {tail}, z {z}): optimal "
          f"{np.mean(ls < 1e-9):.1%}, loss per decision {interval(ls)}")
    print(f"  heuristic: optimal {np.mean(lh < 1e-9):.1%}, loss per decision "
          f"{interval(lh)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("reach", help="the exact solver's work by cards left")
    r.add_argument("cards", type=int, nargs="+")
    r.add_argument("--positions", type=int, default=10)
    r.add_argument("--seed", type=int, default=5)
    g = sub.add_parser("gap", help="lookahead and heuristic against the exact optimum")
    g.add_argument("cards", type=int)
    g.add_argument("--positions", type=int, default=150)
    g.add_argument("--seed", type=int, default=3)
    g.add_argument("--tail", type=int, default=BIG.search_tail_cards)
    g.add_argument("--worlds", type=int, default=BIG.search_worlds)
    g.add_argument("--z", type=float, default=BIG.search_z)
    a = ap.parse_args()
    if a.what == "reach":
        reach(a.cards, a.positions, a.seed)
    else:
        gap(a.cards, a.positions, a.seed, a.tail, a.worlds, a.z)


if __name__ == "__main__":
    main()
