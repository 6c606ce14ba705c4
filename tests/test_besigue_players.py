"""The Bésigue players: the search player sees only what its seat sees, its worlds respect
that, runs do not depend on jobs or chunks, the pure-Python path gives the compiled one's
rows, heuristic > random and search > heuristic in duplicate play, strong hands win."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

import simlab
from simlab.games import besigue as B
from simlab.games import get_game
from simlab.games.besigue import players as P
from simlab.games.besigue import rules as R
from simlab.games.besigue.questions import hand_strength
from simlab.players.duel import duplicate

KNOBS = R.BesigueKnobs(search_worlds=3, search_stock=192)  # search every decision
KV = R._vector(KNOBS)
MOVES = np.zeros(R.MAX_MOVES, dtype=np.int64)


def dealt(seed: int, variant: str = "japonais") -> tuple[np.ndarray, np.ndarray]:
    kv = R._vector(R.BesigueKnobs(variant=variant, search_worlds=3, search_stock=192))
    c = kv[R.K_COPIES]
    deck = (np.random.default_rng(seed).permutation(32 * c) // c).astype(np.int64)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, deck, seed % 2, 18, kv)
    return s, kv


def advance(s: np.ndarray, kv: np.ndarray, plies: int) -> np.ndarray:
    s = s.copy()
    for _ in range(plies):
        if s[R.S_PHASE] == R.P_DONE:
            break
        R.apply_move(s, P.heuristic_move(s, kv, MOVES, s.copy()), kv)
    return s


def positions() -> list[tuple[np.ndarray, np.ndarray]]:
    """Decisions reached by heuristic play: early and late draw phase (with melds on the
    table), the end phase, in both sizes; plus hand-built ones."""
    out = []
    for seed in range(8):
        variant = "chinois" if seed % 3 == 0 else "japonais"
        s, kv = dealt(seed, variant)
        for plies in (0, 41 + seed, 100 + 3 * seed, 150 + 2 * seed):
            x = advance(s, kv, plies)
            if x[R.S_PHASE] in (R.P_LEAD, R.P_FOLLOW, R.P_DECLARE):
                out.append((x, kv))
    for seed in range(3):  # hand-built: a declaration choice, a reply with melds waiting
        out.append(hand_built(seed, [QS, JD, KH, QH, KS, QS, JD], R.P_DECLARE))
        out.append(hand_built(seed, [QS, JD, KH, QH, AH, KS], R.P_FOLLOW))
    return out


def hand_built(seed: int, seat_cards: list[int], phase: int) -> tuple[np.ndarray, np.ndarray]:
    """A fresh deal where the seat to move (the non-dealer) is given ``seat_cards`` (card
    types swapped in from the stock, so the pack stays whole), at ``phase``."""
    s, kv = dealt(seed)
    p = s[R.S_TO_MOVE]
    for i, want in enumerate(seat_cards):
        for pos in range(s[R.S_STOCK_POS], s[R.S_N_CARDS]):
            if s[R.S_DECK + pos] == want:
                s[R.S_DECK + pos] = s[R.S_TY + p * R.HMAX + i]
                s[R.S_TY + p * R.HMAX + i] = want
                break
    s[R.S_PHASE] = phase
    if phase == R.P_FOLLOW:  # the opponent led its first card
        q = 1 - p
        s[R.S_LED] = s[R.S_TY + q * R.HMAX]
        R.remove_card(s, q, 0)
        s[R.S_GONE + s[R.S_LED]] += 1
    return s, kv


QS, JD, KH, QH, KS, AH = 5, 20, 14, 13, 6, 15


def decide(s: np.ndarray, kv: np.ndarray) -> int:
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(s, kv, np.uint64(5), 3, 0, world, P.search_work()))


def redeal(s: np.ndarray, kv: np.ndarray, key: int) -> np.ndarray:
    """Another possible real position for the seat to move: the cards hidden from it
    (the opponent's hand, the stock) dealt again."""
    w = np.zeros(R.N_STATE, dtype=np.int64)
    with np.errstate(over="ignore"):
        P.sample_world(s, s[R.S_TO_MOVE], np.uint64(key * 7919 + 1), kv, w,
                       np.zeros(192, dtype=np.int64), np.zeros(R.N_TYPES, dtype=np.int64))
    return w


def own_and_public(s: np.ndarray) -> np.ndarray:
    """Everything but the opponent's hidden cards and the stock."""
    seat = s[R.S_TO_MOVE]
    keep = s.copy()
    q = 1 - seat
    for i in range(R.HMAX):
        if not s[R.S_TAB + q * R.HMAX + i] and s[R.S_TY + q * R.HMAX + i] >= 0:
            keep[R.S_TY + q * R.HMAX + i] = 99
    keep[R.S_DECK + s[R.S_STOCK_POS]:] = 99
    return keep


def test_search_never_peeks():
    real = 0
    moved = 0
    for s, kv in positions():
        choice = decide(s, kv)
        real += R.legal_moves(s, kv, MOVES) > 1
        for key in range(5):
            other = redeal(s, kv, key)
            assert np.array_equal(own_and_public(other), own_and_public(s))
            moved += not np.array_equal(other, s)
            assert decide(other, kv) == choice
    assert real >= 20  # real choices, so the test can fail
    assert moved >= 100  # and the re-deals did move hidden cards


def test_worlds_respect_what_the_seat_knows():
    for s, kv in positions()[:20]:
        seat = s[R.S_TO_MOVE]
        q = 1 - seat
        unseen = np.zeros(R.N_TYPES, dtype=np.int64)
        n = P.unseen_counts(s, seat, kv, unseen)
        hidden_slots = [i for i in range(R.HMAX) if s[R.S_TY + q * R.HMAX + i] >= 0
                        and not s[R.S_TAB + q * R.HMAX + i]]
        assert n == len(hidden_slots) + R.stock_left(s)  # the counts are public
        for key in range(10):
            w = redeal(s, kv, 100 + key)
            got = np.zeros(R.N_TYPES, dtype=np.int64)
            for i in hidden_slots:
                got[w[R.S_TY + q * R.HMAX + i]] += 1
            for pos in range(s[R.S_STOCK_POS], s[R.S_N_CARDS]):
                got[w[R.S_DECK + pos]] += 1
            assert np.array_equal(got, unseen)  # exactly the unseen cards, each once
            # the whole pack is still there, copy counts intact
            total = np.zeros(R.N_TYPES, dtype=np.int64)
            for p in range(2):
                for i in range(R.HMAX):
                    if w[R.S_TY + p * R.HMAX + i] >= 0:
                        total[w[R.S_TY + p * R.HMAX + i]] += 1
            for pos in range(s[R.S_STOCK_POS], s[R.S_N_CARDS]):
                total[w[R.S_DECK + pos]] += 1
            total += w[R.S_GONE:R.S_GONE + R.N_TYPES]
            assert (total == kv[R.K_COPIES]).all()


def test_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=3, policies="search,heuristic", params={"search_worlds": 2})
    a = simlab.simulate("besigue", 16, jobs=1, chunk_size=16, **kw)
    b = simlab.simulate("besigue", 16, jobs=2, chunk_size=5, **kw)
    c = simlab.simulate("besigue", 16, jobs=1, chunk_size=7, **kw)
    assert a.equals(b) and a.equals(c)
    h = simlab.simulate("besigue", 16, seed=3)
    assert not a.equals(h)  # the search seat did play differently
    m1 = simlab.simulate("besigue", 6, seed=2, level="match", jobs=1, chunk_size=6,
                         params={"variant": "chinois"})
    m2 = simlab.simulate("besigue", 6, seed=2, level="match", jobs=2, chunk_size=2,
                         params={"variant": "chinois"})
    assert m1.equals(m2)


def test_pure_python_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games import besigue as B\n"
        "with np.errstate(over='ignore'):\n"
        "    o = B.run_deals(B.BesigueKnobs(search_worlds=1, search_stock=2), "
        "('search', 'random'), 9, 0, 2, False)\n"
        "print(o.rows.tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         check=True, text=True)
    fast = B.run_deals(B.BesigueKnobs(search_worlds=1, search_stock=2), ("search", "random"),
                       9, 0, 2, False)
    assert res.stdout.strip() == str(fast.rows.tolist())


# --- strength -----------------------------------------------------------------------------
# Measured: heuristic vs random +1406 [+1364, +1448] points per deal (n = 2000, seed 0);
# search vs heuristic (defaults) +612 [+525, +699] (n = 500, seed 0); after issue 31's
# rules, +265 [+171, +359] (n = 300, seed 0). Searching the early draw phase too loses:
# see players.py (knob search_draw_worlds; tests/test_besigue_search.py).
def test_heuristic_beats_random():
    r = duplicate(get_game("besigue"), "heuristic", "random", n=300, seed=1)
    assert r.lo > 500, r.format()


def test_search_beats_heuristic():
    r = duplicate(get_game("besigue"), "search", "heuristic", n=200, seed=1)
    assert r.lo > 0, r.format()


def test_strong_hands_win():
    """Mean marks by quintile of the dealt hand's meld material rise (heuristic play)."""
    f = simlab.simulate("besigue", 3000, seed=4, record_hands=True)
    x = np.concatenate([[hand_strength(None, h) for h in f[f"dealt_s{p}"].to_list()]
                        for p in (0, 1)])
    y = np.concatenate([f[f"score_s{p}"].to_numpy() for p in (0, 1)]).astype(float)
    order = np.argsort(x, kind="stable")
    groups = np.array_split(order, 5)
    means = [y[g].mean() for g in groups]
    se = [y[g].std() / np.sqrt(len(g)) for g in groups]
    assert means[-1] - means[0] > 4 * np.hypot(se[-1], se[0]), means


def test_hand_built_positions_are_real_choices():
    s, kv = hand_built(0, [QS, JD, KH, QH, KS, QS, JD], R.P_DECLARE)
    n = R.legal_moves(s, kv, MOVES)
    assert set(MOVES[:n].tolist()) >= {R.M_PASS, R.M_BES, R.M_BES + 1, R.M_MAR + 2}
