"""The Démons punisseurs search player: it sees only what its seat sees (re-dealing the
hidden cards — the other hands and the undealt cards — consistently with the seat's view
never changes its choice; the worlds respect the voids shown and the dealer's known
Démons), results do not depend on jobs or chunks, and it beats the heuristic in
duplicate play."""

from __future__ import annotations

import numpy as np

import simlab
from simlab.games import get_game
from simlab.games.demons_punisseurs import players as P
from simlab.games.demons_punisseurs import rules as R
from simlab.mechanics.tricks import popcount

KNOBS = R.DemonsPunisseursKnobs(search_worlds=4)
KV = R._vector(KNOBS)


def dealt_state(seed: int, dealer: int) -> np.ndarray:
    deck = np.random.default_rng(seed).permutation(R.N_CARDS).astype(np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, dealer, KV, np.zeros((3, 7), dtype=np.int64))
    P.swap_heuristic(state, KV)
    R.start_play(state)
    return state


def advance(state: np.ndarray, plies: int) -> np.ndarray:
    s = state.copy()
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    for _ in range(plies):
        if s[R.S_PHASE] == R.P_DONE:
            break
        R.apply_move(s, P.heuristic_move(s, KV, moves), KV)
    return s


def redeal(state: np.ndarray, seat: int, key: int) -> np.ndarray:
    out = np.zeros(R.N_STATE, dtype=np.int64)
    with np.errstate(over="ignore"):
        P.sample_world(state, seat, np.uint64(key * 7919 + 1), out,
                       np.zeros(R.N_CARDS, dtype=np.int64), np.zeros(R.N_CARDS, dtype=np.int64),
                       np.zeros(3, dtype=np.int64), np.zeros(R.N_CARDS, dtype=np.int64),
                       np.zeros(P.SAMPLER_WORK, dtype=np.int64))
    return out


def decide(state: np.ndarray) -> int:
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(state, KV, np.uint64(5), 3, 0, world, P.search_work()))


def n_legal(state: np.ndarray) -> int:
    return R.legal_moves(state, KV, np.zeros(R.MAX_MOVES, dtype=np.int64))


def positions() -> list[np.ndarray]:
    out = []
    for seed in range(12):
        s = dealt_state(seed, seed % 3)
        for plies in (0, 2, 5, 9, 14):
            t = advance(s, plies)
            if t[R.S_PHASE] != R.P_DONE:
                out.append(t)
    return out


def test_search_never_peeks():
    choices = 0
    changed = 0
    phases = set()
    for state in positions():
        seat = int(state[R.S_TO_MOVE])
        choice = decide(state)
        if n_legal(state) > 1:
            choices += 1
            phases.add(int(state[R.S_PHASE]))
        for key in range(4):
            other = redeal(state, seat, key)
            assert other[R.S_HAND + seat] == state[R.S_HAND + seat]
            changed += any(other[R.S_HAND + q] != state[R.S_HAND + q] for q in range(3))
            assert decide(other) == choice
    assert choices >= 30
    assert phases >= {R.P_BET, R.P_CARD}
    assert changed >= 150


def test_a_peeking_decision_would_be_caught():
    """The test above can fail: a choice that reads another seat's hand (here: the
    strongest Pareil among the others) changes under re-dealing."""
    moved = 0
    for state in positions():
        seat = int(state[R.S_TO_MOVE])
        peek = max(R.pareil_value(state, q) for q in range(3) if q != seat)
        for key in range(4):
            other = redeal(state, seat, key)
            moved += max(R.pareil_value(other, q) for q in range(3) if q != seat) != peek
    assert moved > 0


def test_worlds_respect_the_seats_information():
    for state in positions():
        seat = int(state[R.S_TO_MOVE])
        hidden = int(P.seat_hidden(state, seat))
        dm = int(state[R.S_DEMONS])
        for key in range(20):
            w = redeal(state, seat, 100 + key)
            placed = 0
            for q in range(3):
                h = int(w[R.S_HAND + q])
                assert popcount(np.uint64(h)) == popcount(np.uint64(state[R.S_HAND + q]))
                known = int(state[R.S_KNOWN + q]) & ~int(state[R.S_GONE])
                assert h & known == known  # the dealer's swapped Démons stay his
                if q != seat:
                    placed |= h & ~known
                    for s in range(4):
                        if state[R.S_VOID + q] >> s & 1:
                            assert h & ~dm & int(R.SUIT_MASK[s]) == 0
            assert placed & ~hidden == 0
            for slot in (R.S_GONE, R.S_TURNED, R.S_PHASE, R.S_TRICK, R.S_LED, R.S_STAKE):
                assert w[slot] == state[slot]


def test_search_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=3, policies="search,heuristic,heuristic", params={"search_worlds": 2})
    a = simlab.simulate("demons_punisseurs", 18, jobs=1, chunk_size=18, **kw)
    b = simlab.simulate("demons_punisseurs", 18, jobs=1, chunk_size=5, **kw)
    assert a.equals(b)


def test_search_matches_run():
    k = R.DemonsPunisseursKnobs(search_worlds=2, target_points=4)
    m = get_game("demons_punisseurs").run_matches(k, ("search", "heuristic", "random"), 1, 0, 3)
    assert (m.rows[:, R.M_WINNER] >= 0).all()


def test_search_beats_heuristic_in_duplicate_play():
    from simlab.players.duel import duplicate

    r = duplicate(get_game("demons_punisseurs"), "search", "heuristic", n=300, seed=1,
                  params={"search_worlds": 8})
    assert r.lo > 0, r.format()
