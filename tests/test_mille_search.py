"""The Mille search player sees only what its seat sees: re-dealing the hidden cards
(consistently with the seat's information: the chien once public, the cards given away,
the voids, the declared marriages) never changes its choice, the worlds it samples respect
that information, its frames do not depend on jobs or chunks, and it beats the heuristic
in duplicate play."""

from __future__ import annotations

import numpy as np

import simlab
from simlab.games import get_game
from simlab.games import mille as M
from simlab.games.mille import players as P
from simlab.games.mille import rules as R
from simlab.mechanics.tricks import count

KNOBS = M.MilleKnobs(search_worlds=6)
KV = M._vector(KNOBS)
RULES = M._rules(KNOBS)
TB = M.tables(KNOBS).kernel_args()


def dealt_state(seed: int, dealer: int = 0) -> np.ndarray:
    deck = np.random.default_rng(seed).permutation(24).astype(np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, dealer, 7, np.zeros((3, 7), dtype=np.int64))
    return state


def advance(state: np.ndarray, plies: int) -> np.ndarray:
    s = state.copy()
    for _ in range(plies):
        if s[R.S_PHASE] == R.P_DONE:
            break
        R.apply_move(s, P.heuristic_move(s, KV, RULES, TB), KV, TB)
    return s


def hands(state: np.ndarray) -> list[int]:
    return [int(state[R.S_HAND + p]) for p in range(3)]


def information(state: np.ndarray, seat: int) -> tuple[int, np.ndarray, np.ndarray]:
    excluded = np.zeros(3, dtype=np.uint64)
    played_by = np.zeros(3, dtype=np.uint64)
    hidden = P.seat_information(state, seat, TB, excluded, played_by)
    return int(hidden), excluded, played_by


def redeal(state: np.ndarray, seat: int, key: int) -> np.ndarray:
    """Another possible real deal as ``seat`` sees it: the hidden cards dealt again, and
    the card the taker gave the other defender re-chosen to fit the new hands (a
    defender does not know it)."""
    out = np.zeros(R.N_STATE, dtype=np.int64)
    with np.errstate(over="ignore"):
        P.build_world(state, seat, np.uint64(key * 7919 + 1), TB, out, P.search_work())
    taker = int(state[R.S_TAKER])
    if state[R.S_PHASE] >= R.P_PLAY and seat != taker:
        _, _, played_by = information(state, seat)
        j = 1 if (taker + 1) % 3 == seat else 0  # the other defender is taker + 1 + j
        other = (taker + 1 + j) % 3
        held = int(out[R.S_HAND + other]) | int(played_by[other])
        from_chien = held & int(state[R.S_CHIEN])
        pick = from_chien if from_chien else held
        out[R.S_GIVEN + j] = (pick & -pick).bit_length() - 1
    return out


def decide(state: np.ndarray) -> int:
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(state, KV, RULES, TB, np.uint64(5), 3, 0, world, P.search_work()))


def n_candidates(state: np.ndarray) -> int:
    return P.candidate_moves(state, KV, RULES, TB, np.zeros(R.MAX_MOVES, dtype=np.int64))


def positions() -> list[np.ndarray]:
    """The opening bid, later bids, the bomb and give-away decisions, and decisions
    reached mid-deal by heuristic play (marriages declared, trump changed)."""
    out = []
    for seed in range(24):
        s = dealt_state(seed, seed % 3)
        out.append(s)
        for plies in (1, 3, 4, 5, 8, 11, 15, 19, 24):
            t = advance(s, plies)
            if t[R.S_PHASE] != R.P_DONE:
                out.append(t)
    return out


def test_search_never_peeks():
    real_choices = 0
    moved = 0
    phases = set()
    for state in positions()[::3]:
        seat = int(state[R.S_TO_MOVE])
        choice = decide(state)
        if n_candidates(state) > 1:
            real_choices += 1
            phases.add(int(state[R.S_PHASE]))
        for key in range(5):
            other = redeal(state, seat, key)
            assert hands(other)[seat] == hands(state)[seat]
            moved += not np.array_equal(other, state)
            assert decide(other) == choice
    assert real_choices >= 40  # most positions are real choices, so the test can fail
    assert {R.P_BID, R.P_GIVE, R.P_PLAY} <= phases
    assert moved >= 200


def test_exclusions_are_sound_on_real_deals():
    """What a seat infers never contradicts the real hands (random play explores every
    obligation: follow, trump when void; and marriages declared at random)."""
    rng = np.random.default_rng(1)
    checked = 0
    for seed in range(200):
        s = dealt_state(seed, seed % 3)
        while s[R.S_PHASE] != R.P_DONE:
            moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
            n = R.legal_moves(s, KV, RULES, TB, moves)
            R.apply_move(s, int(moves[rng.integers(n)]), KV, TB)
            if s[R.S_PHASE] == R.P_PLAY:
                for seat in range(3):
                    _, excluded, _ = information(s, seat)
                    for q in range(3):
                        if q != seat:
                            assert int(excluded[q]) & hands(s)[q] == 0
                            checked += int(excluded[q]) != 0
    assert checked > 1000


def test_worlds_respect_the_seats_information():
    for state in positions()[:120]:
        seat = int(state[R.S_TO_MOVE])
        taker = int(state[R.S_TAKER])
        hidden, excluded, played_by = information(state, seat)
        auction = state[R.S_PHASE] == R.P_BID
        chien = int(state[R.S_CHIEN])
        for key in range(15):
            w = redeal(state, seat, 100 + key)
            hs = hands(w)
            assert hs[seat] == hands(state)[seat]  # own cards never move
            assert w[R.S_GONE] == state[R.S_GONE]
            placed = 0
            for q in range(3):
                assert count(np.uint64(hs[q])) == count(np.uint64(hands(state)[q]))
                assert hs[q] & int(excluded[q]) == 0
                if q != seat:
                    assert hs[q] & ~hidden == 0
                    placed |= hs[q]
            if auction:
                assert bin(int(w[R.S_CHIEN])).count("1") == 3
                placed |= int(w[R.S_CHIEN])
            else:
                assert w[R.S_CHIEN] == chien  # public once turned up
                if seat != taker and state[R.S_N_GIVEN] == 2:
                    other = 3 - seat - taker
                    assert bin((hs[other] | int(played_by[other])) & chien).count("1") <= 1
                for s_ in range(4):  # a declared marriage's other card stays with its owner
                    d = int(state[R.S_MAR_SEAT + s_])
                    for c in (R.queen(s_), R.king(s_)):
                        if d >= 0 and not int(state[R.S_GONE]) >> c & 1:
                            assert hs[d] >> c & 1
            assert placed == hidden


def test_search_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=3, policies="search,heuristic,random", params={"search_worlds": 2})
    a = simlab.simulate("mille", 24, jobs=1, chunk_size=24, **kw)
    b = simlab.simulate("mille", 24, jobs=2, chunk_size=5, **kw)
    assert a.equals(b)
    h = simlab.simulate("mille", 24, seed=3, policies="heuristic,heuristic,random",
                        params={"search_worlds": 2})
    assert not a.equals(h)  # the search seat did play differently somewhere


def test_search_matches_run():
    k = M.MilleKnobs(search_worlds=2, target=300, barrel_floor=250)
    m = M.run_matches(k, ("search", "heuristic", "heuristic"), 1, 0, 3)
    assert (m.rows[:, 2] >= 0).all()


DUEL_N = 2000  # +1.14 [+0.31, +1.97] (seed 1) since the heuristic bids its estimate at once


def test_search_beats_heuristic_in_duplicate_play():
    from simlab.players.duel import duplicate

    r = duplicate(get_game("mille"), "search", "heuristic", n=DUEL_N, seed=1)
    assert r.lo > 0, r.format()


def test_heuristic_and_search_moves_are_always_legal():
    """Every move the heuristic makes (and the search's candidates) is legal, including
    near the target and on the barrel, where the heuristic jumps or holds back."""
    checked = 0
    for seed in range(60):
        s = dealt_state(seed, seed % 3)
        for p in range(3):  # match scores: one on the barrel, one close below it
            s[R.S_SCORE + p] = (880, 800, 0)[(p + seed) % 3]
        while s[R.S_PHASE] != R.P_DONE:
            legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
            n = R.legal_moves(s, KV, RULES, TB, legal)
            m = P.heuristic_move(s, KV, RULES, TB)
            assert m in legal[:n]
            cand = np.zeros(R.MAX_MOVES, dtype=np.int64)
            k = P.candidate_moves(s, KV, RULES, TB, cand)
            assert set(cand[:k]) <= set(legal[:n]) and k >= 1
            R.apply_move(s, m, KV, TB)
            checked += 1
    assert checked > 1000


def test_search_wins_matches_against_two_heuristics():
    """At match level the search values a deal by its match sheet (barrel, zero bars,
    winning): one search seat against two heuristic seats wins clearly more than a third
    of the matches (70 % of 600 matches, seed 0)."""
    f = simlab.simulate("mille", 120, seed=2, level="match", policies="search,heuristic,heuristic")
    wins = (f["winner"] == 0).sum()
    p = 1 / 3
    assert wins / f.height > p + 5 * np.sqrt(p * (1 - p) / f.height), wins


def test_the_heuristic_bombs_no_more_often_than_search_on_the_same_positions():
    """Issue 32 asked whether the bomb, used in 36 % of single deals, is a blind spot:
    on the same bomb decisions (reached by heuristic bidding) the search, which weighs
    bombing against playing the deal out, bombs more often than the heuristic (52.5 %
    against 43.5 % of 600 positions; here 54.5 % against 47.0 % of 200): in single deals,
    where every seat holds a bomb, the rate is the game's, not the heuristic's. A guard
    (no bug fixed): the heuristic may not bomb more than the search by 5 standard errors
    of the paired difference."""
    k = M.MilleKnobs()
    kv, rules, tb = M._vector(k), M._rules(k), M.tables(k).kernel_args()
    work = P.search_work()
    world = np.zeros(R.N_STATE, dtype=np.int64)
    diffs = []
    for seed in range(200):
        deck = np.random.default_rng(10_000 + seed).permutation(24).astype(np.int64)
        s = np.zeros(R.N_STATE, dtype=np.int64)
        R.deal(s, deck, seed % 3, 7, np.zeros((3, 7), dtype=np.int64))
        while s[R.S_PHASE] == R.P_BID:
            R.apply_move(s, P.heuristic_move(s, kv, rules, tb), kv, tb)
        if s[R.S_PHASE] != R.P_BOMB:
            continue
        h = P.heuristic_move(s, kv, rules, tb) == R.BOMB
        found = P.search_move(s, kv, rules, tb, np.uint64(5), seed, 0, world, work) == R.BOMB
        diffs.append(int(h) - int(found))
    d = np.array(diffs)
    assert len(d) >= 150
    assert d.mean() <= 5 * d.std(ddof=1) / np.sqrt(len(d)), (d.mean(), len(d))
