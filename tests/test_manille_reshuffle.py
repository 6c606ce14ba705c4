"""Manille knob ``reshuffle_each_deal`` (seed 003 "Manille", Mise en place: "Dans les manches
suivantes, selon les accords entre les joueurs, il donne seulement les cartes à couper par
le joueur situé à sa droite").

Default true: every deal of a match is shuffled, as before the knob existed. With false,
deal 1 is shuffled and each later deal's pack is the previous deal's tricks in the order
they were won (each in play order, the first trick on top), cut uniformly at 1..31 cards."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import polars as pl

from simlab.engine import rng
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import simulate
from simlab.games import get_game
from simlab.games import manille as M
from simlab.games.manille import kernels as MK
from simlab.games.manille import rules as MR

HEUR = ("heuristic",) * 4
MIXED = ("heuristic", "random", "heuristic", "random")
NO_RESHUFFLE = M.ManilleKnobs(reshuffle_each_deal=False)


def _matches(knobs: M.ManilleKnobs, policies, seed: int, count: int) -> pl.DataFrame:
    out = M.run_matches(knobs, policies, seed, 0, count)
    return to_frame(out, M.match_columns(knobs), M.DECK.labels, 4)


# --- the knob -------------------------------------------------------------------------------
def test_knob_default_seed_value_and_validation():
    f = next(f for f in fields(M.ManilleKnobs) if f.name == "reshuffle_each_deal")
    assert f.default is True and f.metadata["seed_value"] is False
    assert M.ManilleKnobs.from_mapping({"reshuffle_each_deal": "false"}) == NO_RESHUFFLE
    try:
        M.ManilleKnobs.from_mapping({"reshuffle_each_deal": "sometimes"})
    except SimlabError as e:
        assert "reshuffle_each_deal" in str(e) and "\n" not in str(e)
    else:
        raise AssertionError("a bad value was accepted")


def test_default_match_frame_unchanged_and_deals_unaffected():
    default = _matches(M.ManilleKnobs(), MIXED, 4, 200)
    assert default.equals(_matches(M.ManilleKnobs(reshuffle_each_deal=True), MIXED, 4, 200))
    # false changes the matches (so the comparison above could fail) ...
    assert not default.equals(_matches(NO_RESHUFFLE, MIXED, 4, 200))
    # ... and not the deal level, whose every row is a freshly shuffled (first) deal
    a = M.run_deals(M.ManilleKnobs(), HEUR, 4, 0, 300, record_hands=True)
    b = M.run_deals(NO_RESHUFFLE, HEUR, 4, 0, 300, record_hands=True)
    assert (a.rows == b.rows).all() and (a.dealt == b.dealt).all()


# --- rebuild + cut + deal on a known trick order ---------------------------------------------
def test_gathered_tricks_cut_and_dealt_by_hand():
    played = np.arange(32, dtype=np.int64)  # trick t held cards 4t..4t+3, played in that order
    deck = np.empty(32, dtype=np.int64)
    MR.cut_gathered_tricks(played, 5, deck)  # the top 5 cards (0..4) go under the rest
    assert deck.tolist() == list(range(5, 32)) + [0, 1, 2, 3, 4]
    state = np.zeros(MR.N_STATE, dtype=np.int64)
    dealt = np.full((4, 8), -1, dtype=np.int64)
    MR.deal(state, deck, 1, dealt)  # dealer 1: packets of 2 from seat 2, clockwise
    assert dealt[2].tolist() == [5, 6, 13, 14, 21, 22, 29, 30]
    assert dealt[3].tolist() == [7, 8, 15, 16, 23, 24, 31, 0]
    assert dealt[0].tolist() == [9, 10, 17, 18, 25, 26, 1, 2]
    assert dealt[1].tolist() == [11, 12, 19, 20, 27, 28, 3, 4]
    assert state[MR.S_TURNED] == 4 and state[MR.S_TRUMP] == 0  # J♠, the dealer's last card
    # an even cut keeps every packet inside one trick: each hand holds 2 cards of 4 tricks
    MR.cut_gathered_tricks(played[::-1].copy(), 30, deck)
    assert deck.tolist() == [1, 0] + list(range(31, 1, -1))
    MR.deal(state, deck, 3, dealt)
    assert dealt[0].tolist() == [1, 0, 25, 24, 17, 16, 9, 8]
    position = 31 - dealt[0]  # where each card was played in the reversed order
    assert sorted(position // 4) == [1, 1, 3, 3, 5, 5, 7, 7]


def test_cut_is_uniform_over_proper_cuts():
    n = 31 * 200
    cuts = np.array([MR.draw_cut(np.uint64(rng.stream(np.uint64(2), i, 1, rng.SHUFFLE)))[1]
                     for i in range(n)])
    counts = np.bincount(cuts, minlength=32)
    assert counts[0] == 0 and (counts[1:] > 0).all() and cuts.max() == 31
    # chi-square over the 31 proper cuts, 30 degrees of freedom: mean 30, sd sqrt(60)
    chi2 = ((counts[1:] - n / 31) ** 2 / (n / 31)).sum()
    assert chi2 < 30 + 5 * np.sqrt(60)


# --- the match kernel carries the pack: an independent reference ---------------------------
def _reference_match(knobs: M.ManilleKnobs, seed: int, m: int) -> tuple[int, int, int, int]:
    """(winner, n_deals, final score of team 0, of team 1) of match ``m``, its packs built
    here with numpy from the rulebook (shuffle, or the last deal's play order rolled by the
    cut), each deal played by the kernels' ``play_deal``."""
    kv, rules, tb = M._vector(knobs), M.rules_for(knobs), M.tables(knobs).kernel_args()
    s = np.uint64(seed)
    first = rng.below(np.uint64(rng.stream(s, m, 0, rng.SETUP)), 4)[1]
    state = np.zeros(MR.N_STATE, dtype=np.int64)
    row = np.zeros(MR.N_DEAL_COLS, dtype=np.int64)
    dealt = np.empty((4, 8), dtype=np.int64)
    hands = np.empty((4, 8), dtype=np.int64)
    dealer, score, n, played = first, [0, 0], 0, None
    while max(score) < knobs.target:
        st = np.uint64(rng.stream(s, m, n + 1, rng.SHUFFLE))
        if played is None or knobs.reshuffle_each_deal:
            deck = np.arange(32, dtype=np.int64)
            rng.shuffle(st, deck, 32)
        else:
            cut = 1 + rng.below(st, 31)[1]
            deck = np.roll(played, -cut)  # deck[j] = played[(cut + j) % 32]
        MK.play_deal(state, deck, dealer, kv, rules, tb, row, dealt, hands)
        played = state[MR.S_HIST:MR.S_HIST + 32].copy()
        score[0] += row[MR.C_SCORE]
        score[1] += row[MR.C_SCORE + 1]
        dealer = (dealer + 1) % 4
        n += 1
    return (0 if score[0] >= knobs.target else 1), n, score[0], score[1]


def test_match_kernel_matches_the_reference_both_ways():
    for knobs in (M.ManilleKnobs(), NO_RESHUFFLE):
        frame = _matches(knobs, HEUR, 6, 25)
        got = frame.select("winner", "n_deals", "final_score_s0", "final_score_s1").rows()
        assert got == [_reference_match(knobs, 6, m) for m in range(25)]


def test_rows_do_not_depend_on_chunks():
    ref = simulate(get_game("manille"), 40, seed=3, level="match", policies="heuristic,random,heuristic,"
                   "random", params={"reshuffle_each_deal": False})
    assert ref.equals(simulate(get_game("manille"), 40, seed=3, level="match", chunk_size=7,
                               policies="heuristic,random,heuristic,random",
                               params={"reshuffle_each_deal": False}))


SCRIPT = """
import sys
from simlab.engine.runner import simulate
from simlab.games import get_game
simulate(get_game("manille"), 3, seed=8, level="match", policies="heuristic,random,heuristic,random",
         params={"target": 40, "reshuffle_each_deal": False}).write_parquet(sys.argv[1])
"""


def test_numba_disabled_gives_the_same_matches(tmp_path: Path):
    out = tmp_path / "m.parquet"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", SCRIPT, str(out)], env=env, check=True, timeout=300)
    ref = simulate(get_game("manille"), 3, seed=8, level="match", policies="heuristic,random,heuristic,"
                   "random", params={"target": 40, "reshuffle_each_deal": False})
    assert pl.read_parquet(out).equals(ref)


# --- hands correlate with the previous deal's tricks -------------------------------------------
def _same_trick_pairs(played: np.ndarray, dealt: np.ndarray) -> int:
    """Pairs of cards in one deal-2 hand that were in the same trick of deal 1, all seats."""
    trick_of = np.empty(32, dtype=np.int64)
    trick_of[played] = np.arange(32) // 4
    t = trick_of[dealt]  # [4, 8]
    return int(((t[:, :, None] == t[:, None, :]).sum() - 32) // 2)


def test_deal_two_hands_hold_tricks_of_deal_one():
    """Reshuffled, a pair of cards in a hand shared a deal-1 trick with probability 3/31:
    4 hands x 28 pairs -> 336/31 = 10.84 per deal. Not reshuffled, a hand is 4 packets of 2
    cards adjacent in deal 1's play order: with an even cut every packet lies in one trick
    (16 pairs); with an odd cut the packets of two seats straddle two tricks (8 pairs).
    15 even cuts of 31 -> (15*16 + 16*8)/31 = 368/31 = 11.87. Tolerance: 5 standard errors."""
    knobs = M.ManilleKnobs()
    kv, rules, tb = M._vector(knobs), M.rules_for(knobs), M.tables(knobs).kernel_args()
    state = np.zeros(MR.N_STATE, dtype=np.int64)
    row = np.zeros(MR.N_DEAL_COLS, dtype=np.int64)
    dealt = np.empty((4, 8), dtype=np.int64)
    hands = np.empty((4, 8), dtype=np.int64)
    deck = np.empty(32, dtype=np.int64)
    seed = np.uint64(12)
    n = 2000
    pairs = {False: np.empty(n), True: np.empty(n)}
    for m in range(n):
        MK.match_pack(state, seed, m, 1, False, deck)
        MK.play_deal(state, deck, m % 4, kv, rules, tb, row, dealt, hands)
        played = state[MR.S_HIST:MR.S_HIST + 32].copy()
        assert sorted(played) == list(range(32))
        for reshuffle in (False, True):
            MK.match_pack(state, seed, m, 2, reshuffle, deck)
            MR.deal(state.copy(), deck, (m + 1) % 4, dealt)
            pairs[reshuffle][m] = _same_trick_pairs(played, dealt)
            if not reshuffle:
                # every packet of 2 dealt is 2 cards adjacent in deal 1's play order
                pos = np.empty(32, dtype=np.int64)
                pos[played] = np.arange(32)
                p = pos[dealt]
                assert ((p[:, 1::2] - p[:, 0::2]) % 32 == 1).all()
                assert pairs[False][m] in (8, 16)
    for reshuffle, expected in ((False, 368 / 31), (True, 336 / 31)):
        x = pairs[reshuffle]
        assert abs(x.mean() - expected) < 5 * x.std(ddof=1) / np.sqrt(n), (reshuffle, x.mean())
    diff = pairs[False].mean() - pairs[True].mean()
    se = np.sqrt(pairs[False].var(ddof=1) / n + pairs[True].var(ddof=1) / n)
    assert diff > 5 * se
