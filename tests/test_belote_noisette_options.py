"""Belote Noisette rulebook options (issue 31): the belote announced at its holder's
choice (the seed's "il peut choisir d'annoncer", the default) or always, and the two
opponents level for best in a partial win (the seed is silent: nobody takes the better
opponent's share, or each does). Hand-built positions, and whole deals."""

from __future__ import annotations

import numpy as np
import polars as pl

from simlab.engine.game import to_frame
from simlab.games import get_game
from simlab.games.belote_noisette import players as P
from simlab.games.belote_noisette import rules as R

GAME = get_game("belote_noisette")
HEARTS = 1


def card(label: str) -> int:
    return R.DECK.index(label)


def env(**knobs):
    k = R.NoisetteKnobs(**knobs)
    return R._vector(k), R._rules(k), R.tables(k).kernel_args()


# Dealer 0: packets of 2 then 3 from seat 1; upcard J♥; seat 1 takes in round 1 and gets
# 7♦ 8♦ from the stock. Seat 1 then holds K♥ Q♥ (the belote) and leads.
SEAT1 = ["K♥", "Q♥", "A♠", "10♠", "K♠"]
SEAT2 = ["7♠", "8♠", "9♠", "J♠", "Q♠"]
SEAT0 = ["7♥", "8♥", "9♥", "10♥", "A♥"]
STOCK = ["7♦", "8♦", "9♦", "10♦", "J♦", "Q♦", "K♦", "A♦"]


def belote_position(**knobs) -> tuple[np.ndarray, tuple]:
    order = SEAT1[:2] + SEAT2[:2] + SEAT0[:2] + SEAT1[2:] + SEAT2[2:] + SEAT0[2:] + ["J♥"] + STOCK
    deck = np.array([card(c) for c in order], dtype=np.int64)
    kv, rules, tb = env(**knobs)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, deck, 0, np.full(3, 10, dtype=np.int64), 0, kv, np.zeros((3, 5), np.int64))
    R.apply_move(s, R.NAME + HEARTS, kv, tb)  # seat 1 takes the upcard's suit
    assert s[R.S_TAKER] == 1 and s[R.S_BELOTE_SEAT] == 1 and s[R.S_TO_MOVE] == 1
    return s, (kv, rules, tb)


def moves(s: np.ndarray, e: tuple) -> list[int]:
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, e[1], e[2], out)
    return [int(m) for m in out[:n]]


def finish(s: np.ndarray, e: tuple) -> None:
    """Heuristic players to the end of the deal."""
    kv, rules, tb = e
    while s[R.S_PHASE] != R.P_DONE:
        R.apply_move(s, P.heuristic_move(s, kv, rules, tb), kv, tb)


def test_default_belote_is_the_holders_choice():
    assert R.NoisetteKnobs().belote_announce == "choice"
    s, e = belote_position()
    m = moves(s, e)
    k, q = card("K♥"), card("Q♥")
    assert R.ANNOUNCE + k in m and R.ANNOUNCE + q in m and k in m and q in m
    assert len(m) == 10  # 8 cards, K and Q of trump each also with the announcement


def test_announced_belote_counts_and_raises_the_total_to_142():
    s, e = belote_position()
    R.apply_move(s, R.ANNOUNCE + card("K♥"), e[0], e[2])
    assert s[R.S_BELOTE_SHOWN] == 1
    finish(s, e)
    assert s[R.S_TOTAL] == 142
    assert R.seat_points(s, 1, e[0]) == s[R.S_TPTS + 1] + 10


def test_unannounced_belote_is_lost_and_the_total_stays_132():
    s, e = belote_position()
    R.apply_move(s, card("K♥"), e[0], e[2])  # the first of the two, silently
    assert s[R.S_BELOTE_SHOWN] == 2
    finish(s, e)
    assert s[R.S_TOTAL] == 132
    assert R.seat_points(s, 1, e[0]) == s[R.S_TPTS + 1]
    # the second card offers no announcement ("au moment de jouer la première")
    s, e = belote_position()
    R.apply_move(s, card("Q♥"), e[0], e[2])
    while s[R.S_TO_MOVE] != 1:
        R.apply_move(s, moves(s, e)[0], e[0], e[2])
    assert all(m < R.ANNOUNCE for m in moves(s, e))


def test_always_knob_announces_with_the_first_card():
    s, e = belote_position(belote_announce="always")
    m = moves(s, e)
    assert len(m) == 8 and all(x < R.N_CARDS for x in m)
    R.apply_move(s, card("Q♥"), e[0], e[2])
    assert s[R.S_BELOTE_SHOWN] == 1
    finish(s, e)
    assert s[R.S_TOTAL] == 142


def test_heuristic_announces_its_belote():
    s, e = belote_position()
    kv, rules, tb = e
    while s[R.S_BELOTE_SHOWN] == 0:
        m = P.heuristic_move(s, kv, rules, tb)
        if s[R.S_TO_MOVE] == 1 and m in (card("K♥"), card("Q♥")):
            raise AssertionError("the heuristic played its belote's first card silently")
        R.apply_move(s, m, kv, tb)
    assert s[R.S_BELOTE_SHOWN] == 1


def test_silent_trump_king_says_nothing_at_the_holders_choice():
    """After seat 1 plays K♥ without announcing, seat 2 cannot tell whether seat 1 holds
    Q♥ (it may have declined): Q♥ is not excluded from seat 1's hand, and the worlds
    that put it there have a declined belote. When the belote is always announced, the
    same K♥ is announced, which places Q♥ in seat 1's hand in every world."""
    for knob in ("choice", "always"):
        s, e = belote_position(belote_announce=knob)
        kv, rules, tb = e
        R.apply_move(s, card("K♥"), kv, tb)
        excluded = np.zeros(3, dtype=np.uint64)
        played_by = np.zeros(3, dtype=np.uint64)
        P.seat_information(s, 2, kv, rules, tb, excluded, played_by)
        assert not int(excluded[1]) >> card("Q♥") & 1
        assert bool(int(excluded[0]) >> card("Q♥") & 1) == (knob == "always")
        seen = set()
        for key in range(40):
            world = np.zeros(R.N_STATE, dtype=np.int64)
            with np.errstate(over="ignore"):
                P.build_world(s, 2, np.uint64(key * 7919 + 1), kv, rules, tb, world,
                              P.search_work())
            in_seat1 = bool(int(world[R.S_HAND + 1]) >> card("Q♥") & 1)
            seen.add(in_seat1)
            if in_seat1:
                assert world[R.S_BELOTE_SEAT] == 1
                assert world[R.S_BELOTE_SHOWN] == (2 if knob == "choice" else 1)
            else:
                assert world[R.S_BELOTE_SEAT] == -1 and world[R.S_BELOTE_SHOWN] == 0
        assert seen == ({True, False} if knob == "choice" else {True})


def test_random_players_sometimes_decline_and_the_points_agree():
    k = R.NoisetteKnobs()
    f = to_frame(GAME.run_deals(k, ("random",) * 3, 5, 0, 1500, False), R.deal_columns(k),
                 R.DECK.labels, 3)
    held = f.filter(pl.col("belote_seat") >= 0)
    declined = held.filter(~pl.col("belote_announced"))
    assert 0 < declined.height < held.height
    pts = pl.sum_horizontal([pl.col(f"points_s{p}") for p in range(3)])
    assert f.filter(pts != pl.when(pl.col("belote_announced")).then(142).otherwise(132)
                    ).height == 0


def test_tied_opponents_default_none_and_each_knob():
    kv = env()[0]
    assert R.NoisetteKnobs().tied_opponents == "none"
    assert R.pot_payout(60, 36, 36, 132, 6, kv) == (R.PARTIAL, 3, 0, 0)
    kv_each = env(tied_opponents="each")[0]
    assert R.pot_payout(60, 36, 36, 132, 6, kv_each) == (R.PARTIAL, 3, 1, 1)
    # as far as the pot holds: 4 - 3 leaves one, to the opponent on the taker's left
    assert R.pot_payout(60, 36, 36, 132, 4, kv_each) == (R.PARTIAL, 3, 1, 0)
    # not level: only the better one, either way
    assert R.pot_payout(60, 40, 32, 132, 6, kv_each) == (R.PARTIAL, 3, 1, 0)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    s[R.S_TAKER] = 0
    s[R.S_POT] = 6
    s[R.S_BELOTE_SEAT] = -1
    for p, pts in enumerate((60, 36, 36)):
        s[R.S_TPTS + p] = pts
    R.settle(s, kv_each)
    assert s[R.S_BEST_OPP] == R.BOTH_OPPONENTS and s[R.S_POT] == 1
    assert [s[R.S_NUTS + p] for p in range(3)] == [3, 1, 1]
