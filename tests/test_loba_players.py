"""Loba players: every decision kind taken sometimes by the heuristic, deal frequencies
against exact combinatorics, the search player never peeks, search against heuristic in
duplicate."""

from __future__ import annotations

from math import comb

import numpy as np
import polars as pl
import pytest

from simlab.engine import rng
from simlab.engine.game import to_frame
from simlab.games.loba import GAME, run_deals
from simlab.games.loba import players as PL
from simlab.games.loba import rules as R
from simlab.games.loba.questions import decisions


def test_every_decision_kind_is_taken_sometimes_by_the_heuristic():
    k = R.LobaKnobs()
    out = run_deals(k, ("heuristic",) * 3, 11, 0, 600)
    frame = to_frame(out, GAME.deal_columns(k), GAME.deck.labels, 3)
    kinds = decisions(k, frame.columns)
    assert len(kinds) == 5
    for title, taken, chance in kinds:
        rows = frame.filter(chance)
        n_taken = rows.filter(taken).height
        assert rows.height > 50 and 0 < n_taken, title
    # and the rounds end: a player goes out in every one at these knobs
    assert frame.filter(pl.col("ended") != "out").height == 0


def test_a_dealt_hand_holds_a_joker_as_often_as_combinatorics_says():
    k = R.LobaKnobs()
    n = 4000
    out = run_deals(k, ("heuristic",) * 3, 3, 0, n, record_hands=True)
    jokers = (out.dealt[:, 0, :] >= 104).sum(axis=1)
    p = 1 - comb(104, 11) / comb(108, 11)  # at least one of the 4 Jokers in 11 of 108
    se = np.sqrt(p * (1 - p) / n)
    assert abs((jokers > 0).mean() - p) < 5 * se
    mean = 11 * 4 / 108  # hypergeometric mean
    sd = np.sqrt(11 * (4 / 108) * (104 / 108) * (97 / 107))
    assert abs(jokers.mean() - mean) < 5 * sd / np.sqrt(n)
    # a card and its twin: P(a given natural twice in seat 0's hand) = C(106,9)/C(108,11)
    twice = (np.sort(out.dealt[:, 0, :] // 2, axis=1)[:, 1:] ==
             np.sort(out.dealt[:, 0, :] // 2, axis=1)[:, :-1])
    pairs = np.where(np.sort(out.dealt[:, 0, :], axis=1)[:, 1:] < 104, twice, False).sum(axis=1)
    exp_pairs = 52 * comb(106, 9) / comb(108, 11)
    sd_pairs = pairs.std(ddof=1)
    assert abs(pairs.mean() - exp_pairs) < 5 * sd_pairs / np.sqrt(n)


def _position(seed: int, d: int, turns: int) -> tuple:
    k = R.LobaKnobs()
    kv = R.knob_vector(k)
    deck = np.arange(108, dtype=np.int64)
    rng.shuffle(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SHUFFLE)), deck, 108)
    S, X = R.new_state(), R.new_scratch()
    R.deal(deck, 108, d % 3, d % 6 + 1, kv, S, np.zeros((3, 11), dtype=np.int64),
           np.uint64(7))
    score = np.zeros(R.N_KINDS)
    for _ in range(turns):
        PL.heuristic_turn(S, kv, kv, X, score)
    return S, X, kv


def _redeal_hidden(S: tuple, p: int, gen: np.random.Generator) -> tuple:
    """A copy of ``S`` with the other hands and the stock (but its top card) dealt again."""
    T = R.new_state()
    R.copy_state(S, T)
    st, cnt, stock = T[0], T[1], T[2]
    cards = []
    sizes = {}
    for q in range(st[R.S_PLAYERS]):
        if q != p:
            sizes[q] = int(cnt[q].sum())
            for c in range(R.N_KINDS):
                cards += [c] * int(cnt[q, c])
    top = st[R.S_STOCK_POS]
    cards += list(stock[top + 1:st[R.S_STOCK_END]])
    gen.shuffle(cards)
    i = 0
    for q, m in sizes.items():
        cnt[q, :] = 0
        for c in cards[i:i + m]:
            cnt[q, c] += 1
        i += m
    stock[top + 1:st[R.S_STOCK_END]] = cards[i:]
    return T


def test_the_search_never_peeks():
    gen = np.random.default_rng(4)
    changed = 0
    for d, turns in ((0, 4), (1, 9), (2, 14), (3, 7), (4, 12), (5, 3)):
        S, X, kv = _position(21, d, turns)
        if S[0][R.S_PHASE] == R.PH_OVER:
            continue
        p = S[0][R.S_SEAT]
        T = _redeal_hidden(S, p, gen)
        assert not (np.array_equal(S[1], T[1]) and np.array_equal(S[2], T[2]))
        results = []
        for U in (S, T):
            PL.search_turn(U, kv, kv, X, PL.new_search_work(), np.uint64(9), d, 0)
            st = U[0]
            results.append((st[R.S_TAKEN], U[1][p].tolist(), U[3][:st[R.S_DISC_N]].tolist(),
                            U[4][:st[R.S_NTABLE]].tolist(), st[R.S_OUT]))
        assert results[0] == results[1]
        changed += 1
    assert changed >= 4


@pytest.mark.xfail(strict=False, reason="measured: the search does not beat the heuristic "
                   "(150 duplicate rounds, seed 1: own penalty +1.2 +- 1.9 with the default "
                   "knobs); see the report")
def test_search_beats_the_heuristic_in_duplicate():
    k = R.LobaKnobs()
    n = 80
    base = run_deals(k, ("heuristic",) * 3, 17, 0, n).rows
    srch = run_deals(k, ("search", "heuristic", "heuristic"), 17, 0, n).rows
    d = srch[:, 3] - base[:, 3]  # seat 0's penalty: search minus heuristic, same deals
    hi = d.mean() + 1.96 * d.std(ddof=1) / np.sqrt(n)
    assert hi < 0
