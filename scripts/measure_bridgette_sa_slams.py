"""Bridgette (issue 32): the Sans-Atout slams. At the end of each heuristic auction whose
declarer may bid Sans-Atout (a card of every suit), the same deal is played out again
(heuristic players, same hands) in Sans-Atout, undoubled; per threshold T of the
declarer's Sans-Atout strength points (``players.hand_points``), how often 6SA / 7SA
would have been made and what it would have scored minus what the contract played
scored (the declarer's points minus the defender's), mean +- its standard error.

    python scripts/measure_bridgette_sa_slams.py DEALS [KNOB=VALUE ...]
        (the super slam note: 30000; the sa_slam_points comment: 30000
        sa_slam_points=100 sa_eleven_points=100)
"""

from __future__ import annotations

import sys

import numpy as np

from simlab.games import bridgette as B
from simlab.games.bridgette import players as P
from simlab.games.bridgette import rules as R


def main(n_deals: int, knobs: dict[str, int]) -> None:
    kv = R._vector(B.BridgetteKnobs(**knobs))
    dealt = np.zeros((2, R.MAX_HELD), dtype=np.int64)
    sa = 4
    rows = []
    for seed in range(n_deals):
        deck = np.random.default_rng(seed).permutation(55).astype(np.int64)
        s = np.zeros(R.N_STATE, dtype=np.int64)
        R.deal(s, deck, seed % 2, kv, dealt)
        while s[R.S_PHASE] not in (R.P_DONE, R.P_PLAY):
            R.apply_move(s, P.heuristic_move(s, kv), kv)
        if s[R.S_PHASE] != R.P_PLAY:
            continue
        d = int(s[R.S_DECLARER])
        hand = P.hand_of(s, d)
        if not all(R.suit_count(hand, x) >= 1 for x in range(4)):
            continue
        played = s.copy()
        P.playout(played, kv)
        a0, a1 = R.seat_scores(played, kv)
        got = (a0 - a1) if d == 0 else (a1 - a0)
        nt = s.copy()
        nt[R.S_BID] = 6 * 5 + sa
        nt[R.S_DOUBLED] = 0
        nt[R.S_TRUMP] = R.STRAIN_SUIT[sa]
        P.playout(nt, kv)
        t = int(nt[R.S_TRICKS + d])
        v6, v7 = R.contract_score(6 * 5 + sa, 0, t, kv), R.contract_score(7 * 5 + sa, 0, t, kv)
        v5 = R.contract_score(5 * 5 + sa, 0, t, kv)
        rows.append((P.hand_points(hand, sa), t, got, v6[0] - v6[1], v7[0] - v7[1],
                     v5[0] - v5[1]))
    a = np.array(rows)
    print(f"{len(a)} of {n_deals} deals with a declarer who may bid Sans-Atout; his Sans-Atout "
          f"points reach {a[:, 0].max()}; 12+ Sans-Atout tricks in {(a[:, 1] >= 12).sum()}, "
          f"13 in {(a[:, 1] == 13).sum()}")
    for lo in range(24, int(a[:, 0].max()) + 1):
        m = a[:, 0] >= lo
        if m.sum() < 2:
            continue
        se = np.sqrt(m.sum())
        g5, g6, g7 = a[m, 5] - a[m, 2], a[m, 3] - a[m, 2], a[m, 4] - a[m, 2]
        print(f"  T={lo}: n={m.sum()}; 5SA made {(a[m, 1] >= 11).sum()}, "
              f"{g5.mean():+.0f} +- {g5.std(ddof=1) / se:.0f}; 6SA made {(a[m, 1] >= 12).sum()}, "
              f"{g6.mean():+.0f} +- {g6.std(ddof=1) / se:.0f}; 7SA made {(a[m, 1] == 13).sum()}, "
              f"{g7.mean():+.0f} +- {g7.std(ddof=1) / se:.0f}")


if __name__ == "__main__":
    main(int(sys.argv[1]), {k: int(v) for k, v in (a.split("=") for a in sys.argv[2:])})
