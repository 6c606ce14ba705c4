"""The Bernicle search player sees only what its seat sees (re-dealing the hidden cards
never changes its choice; its worlds respect the seat's information: its own cards and
discards, the cards played, revealed absences, the cards shown in melds), runs the same
whatever the jobs, chunks or JIT, and beats the heuristic in duplicate play."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

import simlab
from simlab.games import get_game
from simlab.games.bernicle import kernels as K
from simlab.games.bernicle import players as P
from simlab.games.bernicle import rules as R
from simlab.mechanics.tricks import count
from simlab.players.duel import duplicate

KNOBS = R.BernicleKnobs(search_worlds=4)
KV = R._vector(KNOBS)
RULES = R._rules(KNOBS)
TB = R.tables(KNOBS).kernel_args()
PLACES = [R.S_HAND, R.S_HAND + 1, R.S_HAND + 2, R.S_DISC, R.S_DISC + 1, R.S_DISC + 2,
          R.S_CHIEN, R.S_CHIOT, R.S_CHIOT + 1]


def dealt_state(seed: int, dealer: int) -> np.ndarray:
    deck = np.random.default_rng(seed).permutation(48).astype(np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, dealer, np.zeros((4, 13), dtype=np.int64))
    return state


def advance(state: np.ndarray, plies: int) -> np.ndarray:
    s = state.copy()
    for _ in range(plies):
        if s[R.S_PHASE] == R.P_DONE:
            break
        R.apply_move(s, P.heuristic_move(s, KV, RULES, TB), KV, TB)
    return s


def n_legal(state: np.ndarray) -> int:
    return R.legal_moves(state, KV, RULES, TB, np.zeros(R.MAX_MOVES, dtype=np.int64))


def positions() -> list[np.ndarray]:
    """Trump choices and card decisions (the phases the search decides) reached by
    heuristic play, every third ply of 30 deals."""
    out = []
    for seed in range(30):
        s = dealt_state(seed, seed % 3)
        for plies in range(0, 80, 3):
            t = advance(s, plies)
            if t[R.S_PHASE] in (R.P_TRUMP, R.P_PLAY):
                out.append(t)
        if len(out) >= 60:
            break
    return out


def information(state: np.ndarray, seat: int) -> tuple[int, np.ndarray]:
    excluded = np.zeros(3, dtype=np.uint64)
    played_by = np.zeros(3, dtype=np.uint64)
    hidden = P.seat_information(state, seat, RULES, TB, excluded, played_by)
    return int(hidden), excluded


def redeal(state: np.ndarray, seat: int, key: int) -> np.ndarray:
    out = np.zeros(R.N_STATE, dtype=np.int64)
    with np.errstate(over="ignore"):
        P.build_world(state, seat, np.uint64(key * 7919 + 1), RULES, TB, out, P.search_work())
    return out


def decide(state: np.ndarray) -> int:
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(state, KV, RULES, TB, np.uint64(5), 3, 0, world, P.search_work()))


def test_search_never_peeks():
    real = 0
    moved = 0
    for state in positions()[:40]:
        seat = int(state[R.S_TO_MOVE])
        choice = decide(state)
        real += n_legal(state) > 1
        for key in range(5):
            other = redeal(state, seat, key)
            assert other[R.S_HAND + seat] == state[R.S_HAND + seat]
            moved += not np.array_equal(other, state)
            assert decide(other) == choice
    assert real >= 15  # enough real choices for the test to be able to fail
    assert moved >= 150


def test_worlds_respect_the_seats_information():
    checked_shown = 0
    for state in positions()[:40]:
        seat = int(state[R.S_TO_MOVE])
        hidden, excluded = information(state, seat)
        gone = int(state[R.S_GONE])
        for key in range(20):
            w = redeal(state, seat, 100 + key)
            assert w[R.S_HAND + seat] == state[R.S_HAND + seat]
            assert w[R.S_DISC + seat] == state[R.S_DISC + seat]
            assert w[R.S_GONE] == state[R.S_GONE]
            placed = 0
            for k in PLACES:
                assert count(np.uint64(w[k])) == count(np.uint64(state[k]))  # sizes
                if k not in (R.S_HAND + seat, R.S_DISC + seat):
                    assert int(w[k]) & ~hidden == 0
                    assert placed & int(w[k]) == 0
                    placed |= int(w[k])
            assert placed == hidden  # every hidden card somewhere, once
            for q in range(3):
                if q == seat:
                    continue
                assert int(w[R.S_HAND + q]) & int(excluded[q]) == 0
                shown = int(state[R.S_SHOWN + q]) & ~gone
                assert int(w[R.S_HAND + q]) & shown == shown  # shown melds stay put
                checked_shown += shown != 0
    assert checked_shown > 50


def test_exclusions_are_sound_on_random_deals():
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(60):
        s = dealt_state(seed, seed % 3)
        while s[R.S_PHASE] != R.P_DONE:
            moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
            n = R.legal_moves(s, KV, RULES, TB, moves)
            R.apply_move(s, int(moves[rng.integers(n)]), KV, TB)
            if s[R.S_PHASE] == R.P_PLAY:
                _, excluded = information(s, int(s[R.S_TO_MOVE]))
                for q in range(3):
                    assert int(excluded[q]) & int(s[R.S_HAND + q]) == 0
                    checked += int(excluded[q]) != 0
    assert checked > 300


def test_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=3, policies="search,heuristic,random", params={"search_worlds": 2})
    a = simlab.simulate("bernicle", 18, jobs=1, chunk_size=18, **kw)
    b = simlab.simulate("bernicle", 18, jobs=2, chunk_size=5, **kw)
    c = simlab.simulate("bernicle", 18, jobs=1, chunk_size=7, **kw)
    assert a.equals(b) and a.equals(c)
    h = simlab.simulate("bernicle", 18, seed=3, policies="heuristic,heuristic,random")
    assert not a.equals(h)


def test_search_matches_run():
    k = R.BernicleKnobs(search_worlds=2, target=600)
    m = K.run_matches(k, ("search", "heuristic", "heuristic"), 1, 0, 2)
    assert (m.rows[:, 2] >= 0).all()


def test_pure_python_matches_compiled():
    # few worlds at the cards and the bids: the same code paths, a pure-Python run that
    # takes seconds rather than a minute
    knobs = "search_worlds=1, search_bid_worlds=2"
    code = (
        "import numpy as np\n"
        "from simlab.games.bernicle import kernels as K, rules as R\n"
        "with np.errstate(over='ignore'):\n"
        f"    o = K.run_deals(R.BernicleKnobs({knobs}), ('search', 'heuristic', 'random'), "
        "9, 0, 2, False)\n"
        "print(o.rows.tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         check=True, text=True)
    fast = K.run_deals(R.BernicleKnobs(search_worlds=1, search_bid_worlds=2),
                       ("search", "heuristic", "random"), 9, 0, 2, False)
    assert eval(res.stdout) == fast.rows.tolist()


def test_search_beats_heuristic():
    r = duplicate(get_game("bernicle"), "search", "heuristic", n=300, seed=0)
    assert r.lo > 0, r.format()


BID_KNOBS = R.BernicleKnobs(search_worlds=4, search_bid_worlds=8, search_bid_z=0.0)
BID_KV = R._vector(BID_KNOBS)


def bid_or_discard_positions() -> list[np.ndarray]:
    """Bids and discards (chien, chiots, the niche) reached by heuristic play."""
    out = []
    for seed in range(40):
        s = dealt_state(seed, seed % 3)
        for plies in range(0, 30):
            t = advance(s, plies)
            if t[R.S_PHASE] in (R.P_BID, R.P_DISCARD) and n_legal(t) > 1:
                out.append(t)
        if len(out) >= 40:
            break
    return out


def decide_bid(state: np.ndarray, kv: np.ndarray = BID_KV) -> int:
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(state, kv, RULES, TB, np.uint64(5), 3, 0, world, P.search_work()))


def test_searched_bids_and_discards_never_peek():
    """With search_bid_z = 0 the choice follows the worlds' means alone (the most
    sensitive setting): re-dealing the hidden cards never changes it."""
    states = bid_or_discard_positions()[:24]
    phases = {int(s[R.S_PHASE]) for s in states}
    assert phases == {R.P_BID, R.P_DISCARD}  # both kinds are judged
    for state in states:
        seat = int(state[R.S_TO_MOVE])
        choice = decide_bid(state)
        for key in range(5):
            assert decide_bid(redeal(state, seat, key)) == choice


def test_searched_bids_depart_from_the_heuristic_only_on_a_clear_gain():
    """A large z keeps every heuristic bid and discard; z = 0 departs from some (so the
    search really decides them)."""
    keep = R._vector(R.BernicleKnobs(search_worlds=4, search_bid_worlds=8, search_bid_z=1000.0))
    states = bid_or_discard_positions()[:24]
    own = [int(P.heuristic_move(s, keep, RULES, TB)) for s in states]
    assert [decide_bid(s, keep) for s in states] == own
    assert sum(decide_bid(s) != h for s, h in zip(states, own, strict=True)) >= 1
