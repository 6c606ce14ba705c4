"""The Belote de comptoir search player: it sees only what its seat sees (its visible
cards, the face-up cards, the play), re-dealing the hidden cards never changes its
choice, its worlds respect the seat's information, it agrees with the exact expectimax
over every hidden deal on small k, it is deterministic whatever the jobs and chunks, and
it beats the heuristic in duplicate play."""

from __future__ import annotations

import numpy as np

import simlab
from simlab.games import belote_comptoir as G
from simlab.games import get_game
from simlab.games.belote_comptoir import exact as X
from simlab.games.belote_comptoir import players as P
from simlab.games.belote_comptoir import rules as R
from simlab.mechanics.tricks import count
from simlab.players.duel import duplicate

VARIANTS = ({}, {"visibility": "blind", "players": 3}, {"visibility": "partly_open",
            "open_cards": 2, "allow_sans_atout": True, "allow_tout_atout": True},
            {"visibility": "partly_blind", "hidden_cards": 2, "players": 5, "k": 4},
            {"players": 2, "k": 5, "auction": "one_round"})


def env_of(**knobs):
    k = G.ComptoirKnobs(search_worlds=6, **knobs)
    return k, G._vector(k), G._rules(k), G.kernel_tables(k)


def dealt_state(env, seed: int) -> np.ndarray:
    k, kv, _, _ = env
    deck = np.random.default_rng(seed).permutation(32).astype(np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, seed % k.players, kv, np.zeros((k.players, k.k), dtype=np.int64))
    return state


def advance(env, state: np.ndarray, plies: int) -> np.ndarray:
    _, kv, rules, tb = env
    s = state.copy()
    for _ in range(plies):
        if s[R.S_PHASE] == R.P_DONE:
            break
        R.apply_move(s, P.heuristic_move(s, kv, rules, tb), kv, tb)
    return s


def hands(state: np.ndarray, n: int) -> list[int]:
    return [int(state[R.S_HAND + p]) for p in range(n)]


def information(env, state: np.ndarray, seat: int) -> tuple[int, np.ndarray]:
    _, _, rules, tb = env
    excluded = np.zeros(R.MAX_PLAYERS, dtype=np.uint64)
    played_by = np.zeros(R.MAX_PLAYERS, dtype=np.uint64)
    hidden = P.seat_information(state, seat, rules, tb, excluded, played_by)
    return int(hidden), excluded


def redeal(env, state: np.ndarray, seat: int, key: int) -> np.ndarray:
    """``state`` with the cards hidden from ``seat`` dealt again consistently with its
    information (another possible real deal)."""
    _, _, rules, tb = env
    out = np.zeros(R.N_STATE, dtype=np.int64)
    with np.errstate(over="ignore"):
        P.build_world(state, seat, np.uint64(key * 7919 + 1), rules, tb, out, P.search_work())
    return out


def decide(env, state: np.ndarray) -> int:
    _, kv, rules, tb = env
    world = np.zeros(R.N_STATE, dtype=np.int64)
    return int(P.search_move(state, kv, rules, tb, np.uint64(5), 3, 0, world, P.search_work()))


def n_choices(env, state: np.ndarray) -> int:
    _, kv, rules, tb = env
    return R.legal_moves(state, kv, rules, tb, np.zeros(R.MAX_MOVES, dtype=np.int64))


def positions(env, n_deals: int = 10) -> list[np.ndarray]:
    """First bids, later auction turns, contract choices and card plays reached by
    heuristic play."""
    k = env[0]
    out = []
    for seed in range(n_deals):
        s = dealt_state(env, seed)
        out.append(s)
        for plies in (k.players + 1, 2 * k.players + 3):
            t = advance(env, s, plies)
            if t[R.S_PHASE] != R.P_DONE:
                out.append(t)
        t = s.copy()
        while t[R.S_PHASE] == R.P_AUCTION:
            t = advance(env, t, 1)
        for _ in range(k.players * k.k - 1):  # the contract, then the plays
            if t[R.S_PHASE] in (R.P_CONTRACT, R.P_PLAY):
                out.append(t.copy())
            t = advance(env, t, 1)
    return out


def test_search_never_peeks():
    real = 0
    moved = 0
    for knobs in VARIANTS:
        env = env_of(**knobs)
        n = env[0].players
        for state in positions(env)[::3]:
            seat = int(state[R.S_TO_MOVE])
            choice = decide(env, state)
            real += n_choices(env, state) > 1
            for key in range(5):
                other = redeal(env, state, seat, key)
                mine = int(state[R.S_HAND + seat]) & ~int(state[R.S_FACE_DOWN])
                assert int(other[R.S_HAND + seat]) & mine == mine
                moved += hands(other, n) != hands(state, n)
                assert decide(env, other) == choice
    assert real >= 40  # most positions are real choices, so the test can fail
    assert moved >= 150  # and the re-deals did move hidden cards


def test_exclusions_are_sound_on_real_deals():
    """What a seat infers from the play never contradicts the real hands (random play)."""
    rng = np.random.default_rng(1)
    checked = 0
    for knobs in ({}, {"players": 3, "k": 5, "allow_tout_atout": True, "allow_sans_atout": True}):
        env = env_of(**knobs)
        k, kv, rules, tb = env
        for seed in range(150):
            s = dealt_state(env, seed)
            moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
            while s[R.S_PHASE] != R.P_DONE:
                n = R.legal_moves(s, kv, rules, tb, moves)
                # random cards, but a low bid so that deals reach the play
                m = moves[rng.integers(n)] if s[R.S_PHASE] != R.P_AUCTION else \
                    moves[1] if s[R.S_BID] == 0 else R.PASS
                R.apply_move(s, int(m), kv, tb)
                if s[R.S_PHASE] == R.P_PLAY:
                    _, excluded = information(env, s, int(s[R.S_TO_MOVE]))
                    for q in range(k.players):
                        assert int(excluded[q]) & hands(s, k.players)[q] == 0
                        checked += int(excluded[q]) != 0
    assert checked > 500


def test_worlds_respect_the_seats_information():
    for knobs in VARIANTS:
        env = env_of(**knobs)
        n = env[0].players
        for state in positions(env, 6)[::2]:
            seat = int(state[R.S_TO_MOVE])
            hidden, excluded = information(env, state, seat)
            up = int(state[R.S_FACE_UP])
            down = int(state[R.S_FACE_DOWN])
            for key in range(15):
                w = redeal(env, state, seat, 100 + key)
                hs = hands(w, n)
                assert w[R.S_GONE] == state[R.S_GONE]
                placed = int(w[R.S_REST])  # the undealt rest, the hidden hands' cards
                for q in range(n):
                    real = int(state[R.S_HAND + q])
                    assert count(np.uint64(hs[q])) == count(np.uint64(real))  # hand sizes
                    assert hs[q] & int(excluded[q]) == 0  # voids and other certain absences
                    assert hs[q] & up == real & up  # face-up cards stay where they are
                    seen = real & ~down if q == seat else real & up
                    assert hs[q] & seen == seen  # what the seat sees never moves
                    part = hs[q] & ~seen
                    assert part & placed == 0
                    placed |= part
                assert placed == hidden  # every hidden card somewhere, once


def test_search_agrees_with_exact_expectimax_on_small_k():
    """At the first lead (2 players, k = 3: 3654 deals of the hidden cards) and at the
    contract choice (3 players, k = 1: 930 deals), the exact expectation of each move
    over every consistent deal (heuristic play afterwards) ranks the moves; the search
    with many sampled worlds picks a move whose exact value is within the sampling error
    of the best, and picks the best itself where the gap is clear."""
    checked = clear = 0
    for knobs, stop in (({"players": 2, "k": 3}, R.P_PLAY), ({"players": 3, "k": 1}, R.P_CONTRACT)):
        k = G.ComptoirKnobs(search_worlds=300, **knobs)
        env = (k, G._vector(k), G._rules(k), G.kernel_tables(k))
        _, kv, rules, tb = env
        for seed in range(12):
            s = dealt_state(env, seed)
            while s[R.S_PHASE] not in (stop, R.P_DONE):
                s = advance(env, s, 1)
            if s[R.S_PHASE] != stop or n_choices(env, s) < 2:
                continue
            moves, values, worlds = X.heuristic_values(s, kv, rules, tb)
            assert worlds == (3654 if k.players == 2 else 930)
            choice = decide(env, s)
            best = max(values)
            spread = 2000 * (k.players - 1)  # outcome range: the error of a mean of 300
            tol = 3 * spread / 2 / np.sqrt(k.search_worlds)
            assert values[moves.index(choice)] >= best - tol, (seed, moves, values, choice)
            ranked = sorted(values, reverse=True)
            if ranked[0] - ranked[1] > 2 * tol:
                clear += 1
                assert moves[values.index(best)] == choice
            checked += 1
    assert checked >= 12 and clear >= 3


def test_search_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=3, policies="search,heuristic,heuristic", params={"search_worlds": 2,
                                                                       "players": 3})
    a = simlab.simulate("belote_comptoir", 30, jobs=1, chunk_size=30, **kw)
    b = simlab.simulate("belote_comptoir", 30, jobs=2, chunk_size=7, **kw)
    assert a.equals(b)
    h = simlab.simulate("belote_comptoir", 30, seed=3, params={"search_worlds": 2, "players": 3})
    assert not a.equals(h)  # the search seat did play differently somewhere


def test_search_matches_run():
    k = G.ComptoirKnobs(search_worlds=4, players=3)
    m = G.run_matches(k, ("search", "heuristic", "heuristic"), 1, 0, 4)
    assert (m.rows[:, 2] >= 0).all()


DUEL_N = 300  # +0.191 [+0.163, +0.219] points per deal at n = 300, seed 1, 24 worlds


def test_search_beats_heuristic_in_duplicate_play():
    """In the default one-round auction. When the search bid its 50 % ceiling at once it
    lost to the retuned heuristic (-0.020 [-0.056, +0.015] here, issue 31: at that level
    a bid taken is worth nothing on average, since it scores 1 made or -1 failed whatever
    its level); it now weighs passing and the levels made in 50 ... 100 % of its worlds
    against the later speakers' heuristic bids. (Open auction, whose bidding this did not
    touch, seed 1 now: +0.074 [+0.054, +0.094].)"""
    r = duplicate(get_game("belote_comptoir"), "search", "heuristic", n=DUEL_N, seed=1)
    assert r.lo > 0, r.format()


def test_search_ceiling_agrees_with_exact_make_chances_at_k1():
    """At k = 1 the play is forced, so the chance to make each level as bidder is exact
    over every deal of the hidden cards (3 players: 930 deals, blind: its own card too,
    the contract named once it is seen: ``exact.exact_make_chances``);
    the level the search bids up to is made half the time or more, within the sampling
    error of its 300 worlds, and the next level up is not made clearly more than half."""
    checked = 0
    for knobs in ({"players": 3, "k": 1}, {"players": 3, "k": 1, "visibility": "blind"}):
        k = G.ComptoirKnobs(search_worlds=300, **knobs)
        env = (k, G._vector(k), G._rules(k), G.kernel_tables(k))
        _, kv, rules, tb = env
        for seed in range(8 if k.visibility == "normal" else 2):
            s = dealt_state(env, seed)
            # the last row: the bidder names the contract once he sees his card (blind)
            chances = X.exact_make_chances(s, kv, rules, tb, int(kv[R.K_BID_CAP]) + 1)[-1]
            world = np.zeros(R.N_STATE, dtype=np.int64)
            ceiling = P.search_ceiling(s, kv, rules, tb, np.uint64(5), 3, 0, world,
                                       P.search_work())
            tol = 3 * 0.5 / np.sqrt(k.search_worlds)
            assert chances[ceiling] >= 0.5 - tol, (seed, ceiling, chances[ceiling])
            assert chances[ceiling + 1] <= 0.5 + tol, (seed, ceiling, chances[ceiling + 1])
            checked += ceiling > 0
    assert checked >= 6


def test_heuristic_names_tout_atout_about_as_often_as_search_and_makes_it():
    """Issue 32, Sans-Atout and Tout-Atout allowed: the heuristic's points estimate
    overrated Tout-Atout hands, so it named Tout-Atout in 62 % of its contracts and made
    62 % of them (20,000 deals, seed 5), where the search names it in 35 % and makes 87 %
    (600 deals; 90 % in the open auction). With ``tout_atout_factor`` 80: 33 % and 74 %
    (n = 6,604, standard error 0.5 %); pinned 5 standard errors from the rates measured,
    far from the former ones."""
    f = simlab.simulate("belote_comptoir", 20_000, seed=5,
                        params={"allow_sans_atout": True, "allow_tout_atout": True})
    ta = f.filter(f["contract"] == "tout_atout")
    taken = (f["taker"] >= 0).sum()
    share = ta.height / taken
    assert share <= 0.33 + 5 * 0.0033, share  # formerly 0.617
    assert ta["made"].mean() >= 0.74 - 5 * 0.0054, ta["made"].mean()  # formerly 0.623
