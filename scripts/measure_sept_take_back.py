"""Sept (issue 32): at every take-back chance reached by heuristic play (3,000 deals in the
note), search's value of stopping minus the heuristic's take-back (paired worlds), by class.

    python scripts/measure_sept_take_back.py WORLDS DEALS   (the note: 64 3000)
"""
import sys

import numpy as np

from simlab.games.sept import players as P
from simlab.games.sept import rules as R

worlds, deals = int(sys.argv[1]), int(sys.argv[2])
k = R.SeptKnobs(search_worlds=worlds, search_rollouts=2)
kv = R._vector(k)
work, world = P.search_work(), np.zeros(R.N_STATE, dtype=np.int64)
weight = R.deal_total(kv) + 1
groups = {}
stops_search = {}
for d in range(deals):
    s = np.zeros(R.N_STATE, dtype=np.int64)
    deck = np.random.default_rng(5000 + d).permutation(32).astype(np.int64)
    R.deal(s, deck, d % 2, kv, np.zeros((2, 4), dtype=np.int64))
    while s[R.S_PHASE] != R.P_DONE:
        h = P.heuristic_move(s, kv)
        if s[R.S_PHASE] == R.P_DECIDE and s[R.S_HOLDER] != s[R.S_LEADER]:
            p = int(s[R.S_TO_MOVE])
            match = int(R.hand_of(s, p) & R.matching(s, kv))
            if match:
                n = P.search_values(s, kv, np.uint64(11), d, 3, world, work)
                mv, tot, sq = list(work[0][:n]), list(work[1][:n]), list(work[2][:n])
                samples = worlds * 2
                if h != R.STOP and R.STOP in mv:
                    i = mv.index(R.STOP)
                    gain = (tot[i] - tot[0]) / samples
                    wild_only = (match & ~int(R.wild_mask(kv))) == 0
                    key = ("7 only" if wild_only else "target card",
                           "stock" if R.stock_left(s) > 0 else "no stock",
                           int(s[R.S_TABLE_PTS]) > 0)
                    groups.setdefault(key, []).append(gain)
                    sm = P.search_move(s, kv, np.uint64(11), d, 3, world, work)
                    stops_search.setdefault(key, []).append(sm == R.STOP)
        R.apply_move(s, h, kv)
allg = []
for key in sorted(groups):
    g = np.array(groups[key])
    allg += list(g)
    se = g.std(ddof=1) / np.sqrt(g.size) if g.size > 1 else 0.0
    print(key, f"n={g.size}", f"stop - takeback = {g.mean():+.3f} +- {se:.3f} (value: marks x "
          f"{weight} + points)", f"search stops {sum(stops_search[key])}",
          f"stop better in {100 * (g > 0).mean():.1f}%")
g = np.array(allg)
print(f"all n={g.size} mean {g.mean():+.3f} +- {g.std(ddof=1) / np.sqrt(g.size):.3f}; "
      f"search stops {sum(sum(v) for v in stops_search.values())}")
