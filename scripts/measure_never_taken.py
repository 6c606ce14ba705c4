"""The measurements behind the Players section's notes on decision kinds never taken
(issue 32): Caisse's contracts announced with 6 cards and Tarot's chelem announcement.
Each decision is valued by the game's search (worlds of the hidden cards, heuristic
playouts) on positions reached by heuristic play from fixed seeds.

    python scripts/measure_never_taken.py caisse CONTRACT WORLDS DEALS
        CONTRACT: ultime, tous_les_trois, cent or deux_cents. Per hand class, the value of
        announcing it at the 6-card decision minus the heuristic's own move (marks: the
        seat's edge over the others' mean), mean +- its standard error.
    python scripts/measure_never_taken.py tarot PLAYERS WORLDS DEALS
        The taker's slam odds (``slam_odds``) at the chelem decision, and search's value
        of announcing minus not for every hand whose odds reach 10 %.
"""

from __future__ import annotations

import sys

import numpy as np


def caisse(contract: str, worlds: int, deals: int) -> None:
    from simlab.games.caisse import players as CP
    from simlab.games.caisse import rules as CR

    ct = CR.CONTRACTS.index(contract)
    k = CR.CaisseKnobs(search_worlds=worlds)
    kv, ru, tb = CR._vector(k), CR._rules(k), CR.tables(k).kernel_args()
    work, world = CP.search_work(), np.zeros(CR.N_STATE, dtype=np.int64)
    scratch, moves = np.zeros(CR.MAX_MOVES, dtype=np.int64), np.zeros(CR.MAX_MOVES, dtype=np.int64)
    groups: dict[tuple, list[float]] = {}
    for seed in range(deals):
        s = np.zeros(CR.N_STATE, dtype=np.int64)
        deck = np.random.default_rng(1000 + seed).permutation(32).astype(np.int64)
        CR.deal(s, deck, seed % 3, np.zeros((3, 9), dtype=np.int64))
        seen: set[int] = set()
        with np.errstate(over="ignore"):
            while s[CR.S_PHASE] != CR.P_DONE and s[CR.S_PHASE] <= CR.P_CONTRACT1:
                h = CP.heuristic_move(s, kv, ru, tb, scratch)
                p = int(s[CR.S_TO_MOVE])
                if s[CR.S_PHASE] == CR.P_CONTRACT1 and p not in seen and \
                        CR.ANNOUNCE + ct in moves[:CR.legal_moves(s, kv, ru, tb, moves)]:
                    hand, t = CR.hand_of(s, p), s[CR.S_TRUMP]
                    sa = s[CR.S_GAME] == CR.G_SA
                    nt = 0 if sa else int(CP.count(hand & CR.suit_cards(t)))
                    if ct == CR.CT_ULTIME:
                        key = (nt, CP.has(hand, t * 8 + CR.R7) and nt >= 3)
                    elif ct == CR.CT_TROIS:
                        key = (nt, CP.holds_all(hand, t, CR.RJ, CR.R9, CR.R7))
                    else:
                        key = (nt, CP.suit_score(hand, t) >= 60)
                    if key[1]:
                        seen.add(p)
                        n = CP.search_values(s, kv, ru, tb, np.uint64(11), seed, 2, world, work)
                        mv, tot = list(work[0][:n]), list(work[1][:n])
                        gain = (tot[mv.index(CR.ANNOUNCE + ct)] - tot[mv.index(h)]) / worlds / 2
                        groups.setdefault((p == s[CR.S_TAKER], min(nt, 5)), []).append(gain)
                CR.apply_move(s, h, kv, tb)
    for (taker, nt), g in sorted(groups.items()):
        a = np.array(g)
        se = a.std(ddof=1) / np.sqrt(a.size) if a.size > 1 else float("nan")
        print(f"{contract} with 6 cards, {'taker' if taker else 'opponent'}, {nt} trumps "
              f"(5: 5+): {a.size} hands, announcing minus the heuristic's move "
              f"{a.mean():+.3f} +- {se:.3f} marks, search prefers it in {(a > 0).mean():.0%}")


def tarot(players: int, worlds: int, deals: int) -> None:
    from simlab.engine import rng
    from simlab.games import tarot as T
    from simlab.games.tarot import players as TP

    knobs = T.TarotKnobs(players=players, search_bid_worlds=worlds)
    kv, ru, tb, order, _, _ = T._args(knobs)
    sw = T.new_search_work()
    odds_count = np.zeros(101, dtype=np.int64)
    taken, values = 0, []
    moves = np.zeros(64, dtype=np.int64)
    for d in range(deals):
        deck = np.array(T.SLOT_OF_ID[:78])
        rng.shuffle(np.uint64(rng.stream(np.uint64(77), d, 0, rng.SHUFFLE)), deck, 78)
        S = np.zeros(T.N_S, dtype=np.int64)
        T.new_deal(S, deck, d % players, order, kv, np.zeros((players, 24), dtype=np.int64),
                   np.zeros(32, dtype=np.int64), True)
        while not T.is_over(S) and S[T.S_PHASE] < T.PH_CHELEM:
            T.apply_move(S, T.heuristic_move(S, kv, ru, tb), kv, tb)
        if T.is_over(S) or S[T.S_PHASE] != T.PH_CHELEM:
            continue
        taken += 1
        h0, h1 = T.hand_of(S, S[T.S_TURN])
        pile = 0 if S[T.S_CONTRACT] <= T.GARDE else kv[T.K_CHIEN]
        odds = TP.slam_odds(h0, h1, T.word(S, T.S_EC0), T.word(S, T.S_EC1), S[T.S_N] - 1,
                            kv[T.K_HAND], pile, kv, 0)
        odds_count[odds] += 1
        if odds >= 10:
            T.search_move(S, kv, ru, tb, np.uint64(5), d, 0, sw)
            mv = list(moves[:T.legal_moves(S, kv, ru, tb, moves)])
            values.append((int(odds), (sw[2][mv.index(1)] - sw[2][mv.index(0)]) / worlds))
    print(f"tarot, {players} players: {deals} deals, {taken} takes; slam odds >= 50 %: "
          f"{odds_count[50:].sum()}, >= 20 %: {odds_count[20:].sum()}, >= 10 %: "
          f"{odds_count[10:].sum()}")
    for odds, v in sorted(values):
        print(f"  odds {odds} %: announcing minus not {v:+.1f} (search, {worlds} worlds)")


if __name__ == "__main__":
    game, *args = sys.argv[1:]
    if game == "caisse":
        caisse(args[0], int(args[1]), int(args[2]))
    else:
        tarot(int(args[0]), int(args[1]), int(args[2]))
