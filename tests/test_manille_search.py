"""The Manille search player: it sees only what its seat sees (re-dealing the hidden cards
never changes its choice; the worlds it samples respect the seat's information), it is
deterministic whatever the jobs and chunks, and it beats the heuristic in duplicate play."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

import simlab
from simlab.games import get_game
from simlab.games import manille as M
from simlab.games.manille import players as P
from simlab.games.manille import rules as R
from simlab.mechanics.tricks import count

KNOBS = M.ManilleKnobs(search_worlds=6)
KV = M._vector(KNOBS)
TB = M.tables(KNOBS).kernel_args()
RULES = M.rules_for(KNOBS)
# the seed's literal partner exception (leader's partner only) and follow-only play
OTHER_RULES = M.rules_for(M.ManilleKnobs(partner_exception="leader_only", must_overplay_in_suit=False))


def dealt_state(seed: int, dealer: int = 0) -> np.ndarray:
    deck = np.random.default_rng(seed).permutation(32).astype(np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, dealer, np.zeros((4, 8), dtype=np.int64))
    return state


def advance(state: np.ndarray, plies: int) -> np.ndarray:
    s = state.copy()
    for _ in range(plies):
        if s[R.S_PHASE] == R.P_DONE:
            break
        R.apply_move(s, P.heuristic_move(s, KV, RULES, TB), TB)
    return s


def hands(state: np.ndarray) -> list[int]:
    return [int(state[R.S_HAND + p]) for p in range(4)]


def information(state: np.ndarray, seat: int, rules: np.ndarray = RULES) -> tuple[int, np.ndarray]:
    excluded = np.zeros(4, dtype=np.uint64)
    played_by = np.zeros(4, dtype=np.uint64)
    hidden = P.seat_information(state, seat, rules, TB, excluded, played_by)
    return int(hidden), excluded


def redeal(state: np.ndarray, seat: int, key: int) -> np.ndarray:
    out = np.zeros(R.N_STATE, dtype=np.int64)
    with np.errstate(over="ignore"):
        P.build_world(state, seat, np.uint64(key * 7919 + 1), RULES, TB, out, P.search_work())
    return out


def decide(state: np.ndarray) -> int:
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(state, KV, RULES, TB, np.uint64(5), 3, 0, world, P.search_work()))


def n_legal(state: np.ndarray) -> int:
    return R.legal_moves(state, RULES, TB, np.zeros(R.MAX_MOVES, dtype=np.int64))


def positions() -> list[np.ndarray]:
    out = []
    for seed in range(30):
        s = dealt_state(seed, seed % 4)
        out.append(s)
        for plies in (5, 10, 14, 19, 26):
            t = advance(s, plies)
            if t[R.S_PHASE] == R.P_PLAY:
                out.append(t)
    return out


def test_search_never_peeks():
    forced_free = 0
    moved = 0
    for state in positions()[:60]:
        seat = state[R.S_TO_MOVE]
        choice = decide(state)
        forced_free += n_legal(state) > 1
        for key in range(5):
            other = redeal(state, seat, key)
            assert hands(other)[seat] == hands(state)[seat]
            moved += not np.array_equal(other, state)
            assert decide(other) == choice
    assert forced_free >= 20
    assert moved >= 200


def test_exclusions_are_sound_on_real_deals():
    rng = np.random.default_rng(2)
    checked = 0
    for rules in (RULES, OTHER_RULES):
        for seed in range(200):
            s = dealt_state(seed, seed % 4)
            while s[R.S_PHASE] != R.P_DONE:
                moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
                n = R.legal_moves(s, rules, TB, moves)
                R.apply_move(s, int(moves[rng.integers(n)]), TB)
                if s[R.S_PHASE] != R.P_DONE:
                    _, excluded = information(s, int(s[R.S_TO_MOVE]), rules)
                    for q in range(4):
                        assert int(excluded[q]) & hands(s)[q] == 0
                        checked += int(excluded[q]) != 0
    assert checked > 1000


def test_worlds_respect_the_seats_information():
    for state in positions()[:50]:
        seat = int(state[R.S_TO_MOVE])
        hidden, excluded = information(state, seat)
        for key in range(40):
            w = redeal(state, seat, 100 + key)
            hs = hands(w)
            assert hs[seat] == hands(state)[seat]
            assert w[R.S_GONE] == state[R.S_GONE]
            placed = 0
            for q in range(4):
                assert count(np.uint64(hs[q])) == count(np.uint64(hands(state)[q]))
                assert hs[q] & int(excluded[q]) == 0
                if q != seat:
                    assert hs[q] & ~hidden == 0
                    placed |= hs[q]
            assert placed == hidden
            turned = int(state[R.S_TURNED])
            if not int(state[R.S_GONE]) >> turned & 1:
                assert hs[state[R.S_DEALER]] >> turned & 1  # the dealer keeps the turned card


def test_search_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=3, policies="search,heuristic,heuristic,heuristic",
              params={"search_worlds": 2})
    a = simlab.simulate("manille", 24, jobs=1, chunk_size=24, **kw)
    b = simlab.simulate("manille", 24, jobs=2, chunk_size=5, **kw)
    c = simlab.simulate("manille", 24, jobs=1, chunk_size=7, **kw)
    assert a.equals(b) and a.equals(c)
    h = simlab.simulate("manille", 24, seed=3, params={"search_worlds": 2})
    assert not a.equals(h)


def test_search_matches_run():
    k = M.ManilleKnobs(search_worlds=2, target=40)
    m = M.run_matches(k, ("search", "heuristic", "heuristic", "heuristic"), 1, 0, 3)
    assert (m.rows[:, 2] >= 0).all()


def test_pure_python_search_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games import manille as M\n"
        "with np.errstate(over='ignore'):\n"
        "    o = M.run_deals(M.ManilleKnobs(search_worlds=2), ('search', 'heuristic', 'random', "
        "'heuristic'), 9, 0, 3, False)\n"
        "print(o.rows.tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True,
                         text=True)
    fast = M.run_deals(M.ManilleKnobs(search_worlds=2), ("search", "heuristic", "random", "heuristic"),
                       9, 0, 3, False)
    assert res.stdout.strip() == str(fast.rows.tolist())


DUEL_N = 1000


def test_search_beats_heuristic_in_duplicate_play():
    from simlab.players.duel import duplicate

    r = duplicate(get_game("manille"), "search", "heuristic", n=DUEL_N, seed=1, params={"search_worlds": 16})
    assert r.lo > 0, r.format()
