"""Belote Noisette rules pinned by hand-built positions, the seed's and the catalogue's
worked examples, invariants over many deals (card points, the 30 hazelnuts and the pot),
exact deal combinatorics, match runs, determinism and the players' strength."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.analysis import players_check
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import plan
from simlab.games import get_game
from simlab.games.belote_noisette import players as P
from simlab.games.belote_noisette import rules as R
from simlab.mechanics.tricks import legal_cards, partner_winning, update_trick
from simlab.players.duel import duplicate

GAME = get_game("belote_noisette")
KNOBS = R.NoisetteKnobs()
KV = R._vector(KNOBS)
RULES = R._rules(KNOBS)
TABLES = R.tables(KNOBS)
TB = TABLES.kernel_args()
SPADES, HEARTS, DIAMONDS = range(3)
HEUR = ("heuristic",) * 3


def card(label: str) -> int:
    return R.DECK.index(label)


def mask(labels) -> np.uint64:
    m = np.uint64(0)
    for c in labels:
        m |= np.uint64(1) << np.uint64(card(c))
    return m


def deal_frame(n: int, seed: int = 7, policies=HEUR, record: bool = False, **knobs) -> pl.DataFrame:
    k = R.NoisetteKnobs(**knobs)
    return to_frame(GAME.run_deals(k, policies, seed, 0, n, record), R.deal_columns(k),
                    R.DECK.labels, 3)


# --- §1, §3: the pack and its points ------------------------------------------------------
def test_pack_is_24_cards_of_three_suits_and_132_points():
    assert R.N_CARDS == 24 and len(set(R.DECK.suit.tolist())) == 3
    for trump in range(3):
        pts = sum(int(TABLES.points[trump + 1][c]) for c in range(24))
        assert pts + KNOBS.dix_de_der == 132  # §3.3 "132 points dans le jeu"
    assert R.CARD_POINTS + KNOBS.dix_de_der + KNOBS.belote_value == 142  # "ou bien 142"


def test_card_order_is_belotes():
    t = TABLES.strength[HEARTS + 1]
    order = ["7♥", "8♥", "Q♥", "K♥", "10♥", "A♥", "9♥", "J♥"]
    assert [int(t[card(c)]) for c in order] == sorted(int(t[card(c)]) for c in order)
    p = TABLES.strength[SPADES + 1]  # hearts plain when spades are trump
    plain = ["7♥", "8♥", "9♥", "J♥", "Q♥", "K♥", "10♥", "A♥"]
    assert [int(p[card(c)]) for c in plain] == sorted(int(p[card(c)]) for c in plain)
    # "une carte de plus haute valeur qu'une autre est aussi de plus haut rang"
    for row in (TABLES.strength[HEARTS + 1],):
        for a in range(8, 16):
            for b in range(8, 16):
                if TABLES.points[HEARTS + 1][a] > TABLES.points[HEARTS + 1][b]:
                    assert row[a] > row[b]


# --- §7.1: settling the pot; the catalogue's worked examples --------------------------------
def test_more_than_half_takes_the_pot_67_of_132_and_72_of_142():
    # seed §7.1: "au moins 67 ou 72 points, en fonction de la présence d'une belote"
    assert R.pot_payout(67, 40, 25, 132, 4, KV)[0] == R.FULL
    assert R.pot_payout(66, 40, 26, 132, 4, KV)[0] == R.PARTIAL
    assert R.pot_payout(72, 40, 30, 142, 4, KV)[0] == R.FULL
    assert R.pot_payout(71, 41, 30, 142, 4, KV)[0] == R.PARTIAL


def test_example_1_round1_take_full_pot():
    assert R.pot_payout(70, 40, 22, 132, 4, KV) == (R.FULL, 4, 0, 0)


def test_example_2_partial_win_pays_3_and_1():
    assert R.pot_payout(50, 45, 37, 132, 4, KV) == (R.PARTIAL, 3, 1, 0)
    assert R.pot_payout(50, 37, 45, 132, 4, KV) == (R.PARTIAL, 3, 0, 1)


def test_example_3_loss_pays_each_opponent_2():
    assert R.pot_payout(40, 52, 40, 132, 4, KV) == (R.LOST, 0, 2, 2)  # a tie loses too


def test_example_4_round2_loss_leaves_one_nut():
    outcome, t, a, b = R.pot_payout(40, 52, 40, 132, 5, KV)
    assert (outcome, t, a, b) == (R.LOST, 0, 2, 2) and 5 - a - b == 1


def test_example_5_forced_taker_low_pot():
    assert R.pot_payout(50, 45, 37, 132, 3, KV) == (R.PARTIAL, 2, 1, 0)
    outcome, t, a, b = R.pot_payout(30, 52, 50, 132, 3, KV)
    assert (outcome, a, b) == (R.LOST, 1, 1) and 3 - a - b == 1


def test_opponents_tied_in_a_partial_win_take_nothing():
    assert R.pot_payout(60, 36, 36, 132, 4, KV) == (R.PARTIAL, 3, 0, 0)


def settle_state(points, taker, pot, belote_seat=-1, belote_value=10):
    kv = R._vector(R.NoisetteKnobs(belote_value=belote_value))
    s = np.zeros(R.N_STATE, dtype=np.int64)
    s[R.S_TAKER] = taker
    s[R.S_POT] = pot
    s[R.S_BELOTE_SEAT] = belote_seat
    s[R.S_BELOTE_SHOWN] = belote_seat >= 0  # announced
    for p in range(3):
        s[R.S_TPTS + p] = points[p]
        s[R.S_NUTS + p] = 9
        s[R.S_NUTS0 + p] = 10
    R.settle(s, kv)
    return s, kv


def test_example_6_defenders_belote_raises_the_bar_to_72():
    # the taker (seat 0) makes 70 of the cards' 132; a defender's belote makes it 142
    s, kv = settle_state([70, 40, 22], 0, 4, belote_seat=1)
    assert s[R.S_TOTAL] == 142 and R.seat_points(s, 1, kv) == 50
    assert s[R.S_OUTCOME] == R.PARTIAL  # 70 < 72: not the whole pot
    s, _ = settle_state([70, 40, 22], 0, 4)
    assert s[R.S_OUTCOME] == R.FULL and s[R.S_POT] == 0 and R.net_nuts(s, 0) == 3
    # the taker's own belote: 62 + 10 = 72 of 142, more than half
    s, _ = settle_state([62, 40, 30], 0, 4, belote_seat=0)
    assert s[R.S_OUTCOME] == R.FULL


def test_example_7_two_players_at_the_target_push_it_by_2():
    mp = np.array([6, 6, 1], dtype=np.int64)  # A 4 + 2, B 5 + 1
    assert R.match_winner(mp, 6, 2) == (-1, 8)
    assert R.match_winner(np.array([6, 7, 0], dtype=np.int64), 6, 2) == (1, 6)
    assert R.match_winner(np.array([8, 7, 3], dtype=np.int64), 8, 2) == (0, 8)
    assert R.match_winner(np.array([5, 4, 3], dtype=np.int64), 6, 2) == (-1, 6)


# --- §7.2: the end of a manche ----------------------------------------------------------------
def manche(nuts, **knobs):
    won = np.zeros(3, dtype=np.int64)
    kind = R.manche_end(np.array(nuts, dtype=np.int64), R._vector(R.NoisetteKnobs(**knobs)), won)
    return kind, won.tolist()


def test_manche_ends_complete_at_21_and_partial_at_0():
    assert manche([21, 5, 4]) == (R.MANCHE_COMPLETE, [3, 0, 0])
    assert manche([20, 10, 0]) == (R.MANCHE_PARTIAL, [2, 1, 0])
    assert manche([20, 9, 1]) == (R.MANCHE_ON, [0, 0, 0])
    assert manche([22, 8, 0]) == (R.MANCHE_COMPLETE, [3, 0, 0])  # both: the complete one


def test_partial_manche_ties_share_rounded_down():
    assert manche([15, 15, 0]) == (R.MANCHE_PARTIAL, [1, 1, 0])  # 2 + 1 shared: 1 each
    assert manche([18, 0, 0]) == (R.MANCHE_PARTIAL, [2, 0, 0])  # 1 + 0 shared: 0 each
    assert manche([15, 15, 0], partial_tie="each_full") == (R.MANCHE_PARTIAL, [2, 2, 0])


# --- §4, §5: ante, the two rounds of taking, the forced taker -------------------------------------
def start(deck_seed: int, dealer: int = 0, nuts=(10, 10, 10), carry: int = 0, **knobs):
    kv = R._vector(R.NoisetteKnobs(**knobs))
    deck = np.random.default_rng(deck_seed).permutation(24).astype(np.int64)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, deck, dealer, np.array(nuts, dtype=np.int64), carry, kv,
           np.full((3, 5), -1, dtype=np.int64))
    return s, kv, deck


def sizes(s) -> list[int]:
    return [bin(int(s[R.S_HAND + p])).count("1") for p in range(3)]


def test_deal_antes_and_gives_5_cards_then_an_upcard():
    s, _, deck = start(1, dealer=2, carry=2)
    assert s[R.S_POT] == 2 + 3 and [s[R.S_NUTS + p] for p in range(3)] == [9, 9, 9]
    assert sizes(s) == [5, 5, 5] and s[R.S_UP1] == deck[15]
    assert s[R.S_TO_MOVE] == 0  # the dealer's left speaks first
    assert s[R.S_STOCK_N] == 8


def test_round1_take_costs_one_and_completes_hands():
    s, kv, _ = start(2, dealer=0)
    up = s[R.S_UP1]
    R.apply_bid(s, R.PASS, kv)  # seat 1 passes
    R.apply_bid(s, R.NAME + up // 8, kv)  # seat 2 takes
    assert s[R.S_TAKER] == 2 and s[R.S_TRUMP] == up // 8 and s[R.S_ROUND] == 1
    assert s[R.S_NUTS + 2] == 8 and s[R.S_POT] == 4 and s[R.S_PAID] == 1
    assert sizes(s) == [8, 8, 8] and int(s[R.S_HAND + 2]) >> up & 1
    assert s[R.S_STOCK_POS] == s[R.S_STOCK_N]  # the stock is used up
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 2  # the taker leads


def test_round2_offers_both_upcards_and_costs_two():
    s, kv, deck = start(3, dealer=1)
    for _ in range(3):
        R.apply_bid(s, R.PASS, kv)
    assert s[R.S_PHASE] == R.P_BID2 and sizes(s) == [6, 6, 6]
    assert s[R.S_UP2] == deck[19] and s[R.S_STOCK_N] - s[R.S_STOCK_POS] == 4
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.bid_moves(s, moves)
    suits = {s[R.S_UP1] // 8, s[R.S_UP2] // 8}
    assert sorted(moves[:n].tolist()) == sorted([R.PASS] + [R.NAME + x for x in suits])
    R.apply_bid(s, R.NAME + s[R.S_UP2] // 8, kv)  # seat 2 takes the second upcard's suit
    assert s[R.S_ROUND] == 2 and s[R.S_PAID] == 2 and s[R.S_POT] == 5
    taker_hand = int(s[R.S_HAND + 2])
    assert taker_hand >> s[R.S_UP1] & 1 and taker_hand >> s[R.S_UP2] & 1
    assert sizes(s) == [8, 8, 8]


def test_taker_pays_what_he_has():
    s, kv, _ = start(4, dealer=0, nuts=(10, 1, 10))  # seat 1 antes his last nut
    R.apply_bid(s, R.NAME + s[R.S_UP1] // 8, kv)
    assert s[R.S_PAID] == 0 and s[R.S_NUTS + 1] == 0  # "il se contente de dire qu'il prend"
    s, kv, _ = start(4, dealer=0, nuts=(10, 2, 10))
    for _ in range(3):
        R.apply_bid(s, R.PASS, kv)
    R.apply_bid(s, R.NAME + s[R.S_UP1] // 8, kv)
    assert s[R.S_PAID] == 1 and s[R.S_NUTS + 1] == 0  # "s'il n'en a qu'une, il la met au pot"


def test_all_pass_twice_forces_the_dealers_left_at_no_cost():
    s, kv, _ = start(5, dealer=2)
    for _ in range(6):
        R.apply_bid(s, R.PASS, kv)
    assert s[R.S_PHASE] == R.P_FORCED and s[R.S_TO_MOVE] == 0
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.bid_moves(s, moves)
    assert R.PASS not in moves[:n].tolist() and n >= 1
    R.apply_bid(s, moves[n - 1], kv)
    assert s[R.S_TAKER] == 0 and s[R.S_ROUND] == 3 and s[R.S_PAID] == 0 and s[R.S_POT] == 3
    assert sizes(s) == [8, 8, 8]


@pytest.mark.parametrize("initial", [3, 4])
def test_other_initial_deals_still_complete_8_card_hands(initial):
    for rounds in (0, 1, 2):
        s, kv, _ = start(6, dealer=0, initial_deal=initial)
        for _ in range(3 * rounds):
            R.apply_bid(s, R.PASS, kv)
        moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
        n = R.bid_moves(s, moves)
        R.apply_bid(s, moves[n - 1], kv)
        assert sizes(s) == [8, 8, 8] and s[R.S_STOCK_POS] == s[R.S_STOCK_N]


# --- §6: obligations of play (the defenders are partners) -------------------------------------------
def legal(hand, trick, seats, seat, trump, taker, **knobs) -> set[str]:
    k = R.NoisetteKnobs(**knobs)
    rules = R._rules(k)
    led, win, win_seat = -1, -1, -1
    for c, p in zip(trick, seats, strict=True):
        led, win, win_seat = update_trick(card(c), p, led, win, win_seat, trump, TABLES.suit_of,
                                          TABLES.above[trump + 1])
    pw = partner_winning(win, win_seat, seats[0], seat, R.TEAMS_BY_TAKER[taker], rules[1])
    got = legal_cards(mask(hand), led, win, pw, trump, TABLES.suit_of, TABLES.suit_mask,
                      TABLES.excuse_mask, TABLES.above[trump + 1], rules)
    return {c for c in hand if int(got) >> card(c) & 1}


def test_must_follow_suit():
    assert legal(["7♥", "K♥", "A♦"], ["10♥"], [1], 2, SPADES, 1) == {"7♥", "K♥"}


def test_taker_void_must_trump_defender_master_frees_the_other():
    # trump ♠; taker seat 0. Defender 1 leads A♦ and is master: defender 2 may discard.
    assert legal(["8♠", "7♥", "K♥"], ["A♦"], [1], 2, SPADES, 0) == {"8♠", "7♥", "K♥"}
    # the taker has no partner: void in ♦ he must trump
    assert legal(["8♠", "7♥", "K♥"], ["A♦"], [1], 0, SPADES, 0) == {"8♠"}
    # knob: no partners at all -> the defender must trump too
    assert legal(["8♠", "7♥", "K♥"], ["A♦"], [1], 2, SPADES, 0,
                 defenders_partners=False) == {"8♠"}


def test_must_overtrump_the_takers_trump():
    # defender 0 led A♦, the taker (seat 1) trumped with 9♠: defender 2 must beat it
    assert legal(["J♠", "7♠", "K♥"], ["A♦", "9♠"], [0, 1], 2, SPADES, 1) == {"J♠"}
    # unable to overtrump: still a trump ("il doit couper"), or anything with the knob
    assert legal(["8♠", "7♠", "K♥"], ["A♦", "J♠"], [0, 1], 2, SPADES, 1) == {"8♠", "7♠"}
    assert legal(["8♠", "7♠", "K♥"], ["A♦", "J♠"], [0, 1], 2, SPADES, 1,
                 must_undertrump=False) == {"8♠", "7♠", "K♥"}


def test_trump_lead_must_go_higher_and_trumping_over_a_partner_must_go_higher():
    assert legal(["A♥", "8♥", "7♦"], ["10♥"], [0], 1, HEARTS, 0) == {"A♥"}
    # defender 1 trumped with 10♠ and wins; defender 2, void in ♦, may discard, but a
    # trump must beat the 10♠ ("il doit s'efforcer de monter")
    assert legal(["A♠", "8♠", "K♥"], ["A♦", "10♠"], [0, 1], 2, SPADES, 0) == {"A♠", "K♥"}


# --- whole deals: conservation, belote, play ---------------------------------------------------------
def test_deal_frame_invariants():
    f = deal_frame(3000, record=True)
    pts = pl.sum_horizontal([pl.col(f"points_s{p}") for p in range(3)])
    with_belote = pl.col("belote_announced")
    assert f.filter(pts != pl.when(with_belote).then(142).otherwise(132)).height == 0
    # the heuristic announces every belote it holds (it always pays: players.announce_pays)
    assert f.filter(pl.col("belote_announced") != (pl.col("belote_seat") >= 0)).height == 0
    assert f.filter(pts != pl.col("total_points")).height == 0
    # the 30 hazelnuts and the pot: what the seats net is what the pot keeps, with a sign
    nets = pl.sum_horizontal([pl.col(f"score_s{p}") for p in range(3)])
    assert f.filter(nets + pl.col("pot_left") != 0).height == 0
    assert f.filter(pl.sum_horizontal([pl.col(f"tricks_s{p}") for p in range(3)]) != 8).height == 0
    assert f["taker"].min() >= 0  # a forced taker: no deal is thrown in
    # outcomes agree with the points
    taker_pts = pl.lit(0)
    best_opp = pl.lit(0)
    for p in range(3):
        others = [q for q in range(3) if q != p]
        taker_pts = pl.when(pl.col("taker") == p).then(pl.col(f"points_s{p}")).otherwise(taker_pts)
        best_opp = pl.when(pl.col("taker") == p).then(
            pl.max_horizontal([pl.col(f"points_s{q}") for q in others])).otherwise(best_opp)
    expected = pl.when(2 * taker_pts > pl.col("total_points")).then(pl.lit("full")) \
        .when(taker_pts > best_opp).then(pl.lit("partial")).otherwise(pl.lit("lost"))
    assert f.filter(pl.col("outcome").cast(pl.String) != expected).height == 0
    # round-2 and forced takers hold both upcards, round-1 takers the one
    for row in f.head(300).iter_rows(named=True):
        hand = row[f"hand_s{row['taker']}"]
        assert row["upcard1"] in hand
        assert (row["upcard2"] in hand) == (row["contract"] != "round1")
        assert (row["upcard2"] is None) == (row["contract"] == "round1")
        assert len(set(sum((row[f"hand_s{p}"] for p in range(3)), []))) == 24
    # every contract and outcome happens
    assert set(f["contract"].cast(pl.String).unique()) == {"round1", "round2", "forced"}
    assert set(f["outcome"].cast(pl.String).unique()) == {"full", "partial", "lost"}


def test_belote_is_announced_with_the_first_of_k_and_q():
    f = deal_frame(600)
    assert 0.2 < (f["belote_seat"] >= 0).mean() < 0.5
    announced = 0
    for seed in range(40):
        s, kv, _ = start(seed, dealer=seed % 3)
        while s[R.S_PHASE] != R.P_DONE:
            before = s[R.S_BELOTE_SHOWN]
            p = s[R.S_TO_MOVE]
            m = P.heuristic_move(s, kv, RULES, TB)
            R.apply_move(s, m, kv, TB)
            if s[R.S_BELOTE_SHOWN] != before:
                t = s[R.S_TRUMP]
                assert p == s[R.S_BELOTE_SEAT]
                assert m in (R.ANNOUNCE + t * 8 + 5, R.ANNOUNCE + t * 8 + 6)
        assert s[R.S_BELOTE_SHOWN] == (s[R.S_BELOTE_SEAT] >= 0)
        announced += s[R.S_BELOTE_SHOWN]
    assert announced >= 5


def test_exact_combinatorics_of_the_deal():
    """P(a seat's first 5 cards hold a Jack) = 1 - C(21,5)/C(24,5); P(upcard is a Jack) =
    1/8; P(the first speaker holds none of the upcard's suit) = C(16,5)/C(23,5)."""
    f = deal_frame(6000, seed=3, record=True, round1_counterfactual=False)
    n = f.height
    p_jack = 1 - math.comb(21, 5) / math.comb(24, 5)
    hits = sum(f[f"dealt_s{p}"].list.eval(pl.element().str.starts_with("J")).list.any().sum()
               for p in range(3))
    assert abs(hits / (3 * n) - p_jack) < 5 * math.sqrt(p_jack * (1 - p_jack) / n)
    up_j = f["upcard1"].cast(pl.String).str.starts_with("J").mean()
    assert abs(up_j - 1 / 8) < 5 * math.sqrt(1 / 8 * 7 / 8 / n)
    # the dealer's left's 5 cards hold no card of the upcard's suit: C(16,5) / C(23,5)
    p_void = math.comb(16, 5) / math.comb(23, 5)
    first = (f["dealer"] + 1) % 3
    suit = f["upcard1"].cast(pl.String).str.slice(-1)
    hands = [f[f"dealt_s{p}"] for p in range(3)]
    void = [not any(c.endswith(s) for c in hands[q][i]) for i, (q, s) in
            enumerate(zip(first.to_list(), suit.to_list(), strict=True))]
    assert abs(np.mean(void) - p_void) < 5 * math.sqrt(p_void * (1 - p_void) / n)


# --- a manche in Python, deal by deal: hazelnuts conserved -----------------------------------------
def test_a_manche_conserves_the_30_hazelnuts_and_carries_the_pot():
    nuts = np.full(3, 10, dtype=np.int64)
    pot = 0
    carried = 0
    won = np.zeros(3, dtype=np.int64)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    rng = np.random.default_rng(5)
    for d in range(400):
        deck = rng.permutation(24).astype(np.int64)
        R.deal(s, deck, d % 3, nuts, pot, KV, np.zeros((3, 5), dtype=np.int64))
        assert s[R.S_POT] + sum(s[R.S_NUTS + p] for p in range(3)) == 30
        while s[R.S_PHASE] != R.P_DONE:
            R.apply_move(s, P.heuristic_move(s, KV, RULES, TB), KV, TB)
        nuts = np.array([s[R.S_NUTS + p] for p in range(3)], dtype=np.int64)
        pot = int(s[R.S_POT])
        carried += pot > 0
        assert nuts.sum() + pot == 30 and nuts.min() >= 0
        if R.manche_end(nuts, KV, won) != R.MANCHE_ON:
            nuts[:] = 10
            pot = 0
    assert carried > 20


# --- match level ----------------------------------------------------------------------------------
def test_matches_end_at_the_target_without_the_cap():
    k = R.NoisetteKnobs()
    m = to_frame(GAME.run_matches(k, HEUR, 2, 0, 60), R.match_columns(k), R.DECK.labels, 3)
    assert not m["capped"].any() and (m["winner"] >= 0).all()
    mp = np.column_stack([m[f"match_points_s{p}"].to_numpy() for p in range(3)])
    for row, w, target in zip(mp, m["winner"].to_numpy(), m["final_target"].to_numpy(), strict=True):
        assert row[w] >= target and (row[w] > np.delete(row, w)).all()
    assert (m["n_manches"] == m["n_complete"] + m["n_partial"]).all()
    wins = sum(m[f"manche_wins_pos{k}"] for k in range(3))
    assert (wins <= m["n_manches"]).all() and (m["n_deals"] >= m["n_manches"]).all()
    assert (m["final_target"] >= 6).all() and ((m["final_target"] - 6) % 2 == 0).all()


# --- knobs -----------------------------------------------------------------------------------------
def test_bad_knobs_give_one_line_errors():
    with pytest.raises(SimlabError, match="ante"):
        R.NoisetteKnobs(ante=-1)
    with pytest.raises(SimlabError, match="manche_target_nuts"):
        R.NoisetteKnobs(manche_target_nuts=10)
    with pytest.raises(SimlabError, match="partial_tie"):
        GAME.make_knobs({"partial_tie": "coin"})


# --- determinism, compiled vs pure Python ------------------------------------------------------------
def test_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=4, policies="heuristic,random,search", params={"search_worlds": 2})
    a = simlab.simulate("belote_noisette", 30, jobs=1, chunk_size=30, **kw)
    b = simlab.simulate("belote_noisette", 30, jobs=2, chunk_size=7, **kw)
    c = simlab.simulate("belote_noisette", 30, jobs=1, chunk_size=11, **kw)
    assert a.equals(b) and a.equals(c)
    m1 = simlab.simulate("belote_noisette", 6, seed=4, level="match", jobs=1, chunk_size=6)
    m2 = simlab.simulate("belote_noisette", 6, seed=4, level="match", jobs=1, chunk_size=4)
    assert m1.equals(m2)


def test_pure_python_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games.belote_noisette import rules as R, run_deals, run_matches\n"
        "k = R.NoisetteKnobs(search_worlds=2, match_target=1, manche_target_nuts=16)\n"
        "with np.errstate(over='ignore'):\n"
        "    o = run_deals(k, ('search', 'heuristic', 'random'), 9, 0, 3, False)\n"
        "    m = run_matches(k, ('heuristic', 'random', 'heuristic'), 9, 0, 1)\n"
        "print(o.rows.tolist(), m.rows.tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True,
                         text=True)
    k = R.NoisetteKnobs(search_worlds=2, match_target=1, manche_target_nuts=16)
    fast = GAME.run_deals(k, ("search", "heuristic", "random"), 9, 0, 3, False)
    match = GAME.run_matches(k, ("heuristic", "random", "heuristic"), 9, 0, 1)
    assert res.stdout.strip() == f"{fast.rows.tolist()} {match.rows.tolist()}"


# --- the players ------------------------------------------------------------------------------------
def test_strong_hands_win_and_heuristic_beats_random():
    p = plan(get_game("belote_noisette"), 1500, seed=11)
    st = players_check.hand_strength(p.game, p, 1500)
    means = np.array([d.value for d in st.deciles])
    rank_corr = np.corrcoef(np.arange(len(means)), np.argsort(np.argsort(means)))[0, 1]
    assert rank_corr >= 0.7, means.round(2)
    assert st.top_minus_bottom.lo > 0 and st.spearman > 0
    r = duplicate(get_game("belote_noisette"), "heuristic", "random", n=600, seed=3)
    assert r.lo > 0, r.format()


def test_heuristic_takes_are_made_and_passing_happens():
    f = deal_frame(3000, seed=2, round1_counterfactual=False)
    for c in ("round1", "round2"):
        made = f.filter(pl.col("contract") == c)["made"].mean()
        assert made > 0.6, (c, made)
    assert 0.05 < (f["contract"] == "forced").mean() < 0.5  # everybody passes sometimes


def test_round1_counterfactual_replays_the_real_deal():
    """With heuristic players everywhere, the branch the dealer's left really chose in
    round 1 is the deal itself: one code path for the deal and its counterfactual."""
    f = deal_frame(2000, seed=6).with_columns(first=(pl.col("dealer") + 1) % 3)
    first_score = pl.lit(0)
    for p in range(3):
        first_score = pl.when(pl.col("first") == p).then(pl.col(f"score_s{p}")).otherwise(first_score)
    took = f.filter(pl.col("first_took_round1"))
    passed = f.filter(~pl.col("first_took_round1"))
    assert took.height > 200 and passed.height > 200
    assert (took.select(first_score.alias("v"))["v"] == took["cf_take_nuts"]).all()
    assert (passed.select(first_score.alias("v"))["v"] == passed["cf_pass_nuts"]).all()
    # the heuristic takes exactly from its threshold
    assert (f["first_took_round1"] == (f["first_strength"] >= KNOBS.take_threshold_1)).all()


def test_seed_printed_plain_order_is_a_knob():
    k = R.NoisetteKnobs(plain_ten="below_jack")
    t = R.tables(k).strength[SPADES + 1]  # hearts plain
    order = ["7♥", "8♥", "9♥", "10♥", "J♥", "Q♥", "K♥", "A♥"]
    assert [int(t[card(c)]) for c in order] == list(range(8))
    f = deal_frame(300, plain_ten="below_jack")
    assert f.filter(pl.sum_horizontal([pl.col(f"points_s{p}") for p in range(3)])
                    != pl.col("total_points")).height == 0


def test_every_finding_has_its_metric():
    from simlab.analysis.metrics import compute
    from simlab.games.belote_noisette.questions import FINDINGS

    deals = deal_frame(400)
    matches = to_frame(GAME.run_matches(KNOBS, HEUR, 1, 0, 20), R.match_columns(), R.DECK.labels, 3)
    keys = {m.key for m in compute(get_game(GAME), deals, KNOBS, "deal").metrics}
    keys |= {m.key for m in compute(get_game(GAME), matches, KNOBS, "match").metrics}
    for spec in FINDINGS:
        assert spec["key"] in keys, spec["key"]
        for name in re.findall(r"\{([a-z0-9_.]+)(?::bare)?\}", spec["text"]):
            assert name in keys, name
