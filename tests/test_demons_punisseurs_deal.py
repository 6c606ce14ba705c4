"""Démons punisseurs deal frequencies against exact combinatorics (within 5 standard
errors): the trump suit, the number of cards turned, and the number of Démons a seat
holds; and the command line's one-line errors."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from simlab.cli.commands import main
from simlab.games import get_game
from simlab.games.demons_punisseurs import rules as R

N = 60_000
CLUBS, NON_CLUBS = 8, 25  # ♣ in the 33 cards; the others (the 6♦ is a diamond)


@pytest.fixture(scope="module")
def rows() -> np.ndarray:
    g = get_game("demons_punisseurs")
    k = g.make_knobs({"dealer_swaps": False})
    return g.run_deals(k, ("heuristic",) * 3, 17, 0, N).rows


def p_turned(j: int) -> Fraction:
    """P(j clubs turned before the first non-club): the cards from the 10th on are,
    unconditionally, a uniform sequence of the 33."""
    p = Fraction(1)
    for i in range(j):
        p *= Fraction(CLUBS - i, 33 - i)
    return p * Fraction(NON_CLUBS, 33 - j)


def p_demons(k: int) -> Fraction:
    """P(a seat's 7 cards hold k Démons). Given that j clubs then a card T were turned,
    the j clubs are a uniform j-subset of the 8 and every seat's 7 cards a uniform
    7-subset of the 32 - j cards left. Démons: 3 ♣ ones (7♣ J♣ Q♣, i of them turned), K♥
    6♦ 7♦, and the trump's J, Q (and 7 unless ♦); T itself may be one."""
    total = Fraction(0)
    non_club_demons = {R.SPADES: 6, R.HEARTS: 6, R.DIAMONDS: 5}  # K♥ 6♦ 7♦ + temporaries
    suit_size = {R.SPADES: 8, R.HEARTS: 8, R.DIAMONDS: 9}
    for j in range(CLUBS + 1):
        pj = p_turned(j)
        for t, size in suit_size.items():
            for t_demon in (True, False):
                n_t = non_club_demons[t]
                # Démons of the trump suit itself: T is one of them or not
                demons_in_suit = {R.SPADES: 3, R.HEARTS: 4, R.DIAMONDS: 4}[t]
                count_t = demons_in_suit if t_demon else size - demons_in_suit
                p_t = Fraction(count_t, NON_CLUBS)
                for i in range(min(3, j) + 1):
                    if j - i > 5:
                        continue
                    p_i = Fraction(comb(3, i) * comb(5, j - i), comb(8, j))
                    pool = 32 - j
                    d = (3 - i) + n_t - (1 if t_demon else 0)
                    if k > d or 7 - k > pool - d:
                        continue
                    total += pj * p_t * p_i * Fraction(comb(d, k) * comb(pool - d, 7 - k),
                                                       comb(pool, 7))
    return total


def within(count: int, n: int, p: Fraction) -> None:
    pf = float(p)
    se = max((pf * (1 - pf) / n) ** 0.5, 1e-9)
    assert abs(count / n - pf) <= 5 * se, (count / n, pf, se)


def test_exact_probabilities_sum_to_one():
    assert sum(p_turned(j) for j in range(CLUBS + 1)) == 1
    assert sum(p_demons(k) for k in range(8)) == 1


def test_trump_suit_frequencies(rows):
    # the trump card is a uniform non-club card: ♦ 9/25, ♠ and ♥ 8/25 each
    for t, p in ((R.SPADES, Fraction(8, 25)), (R.HEARTS, Fraction(8, 25)),
                 (R.DIAMONDS, Fraction(9, 25))):
        within(int((rows[:, R.C_TRUMP] == t).sum()), N, p)
    assert (rows[:, R.C_TRUMP] != R.CLUBS).all()


def test_turned_cards_frequencies(rows):
    for j in range(4):  # within() asserts the count is within 5 SE of the exact rate
        within(int((rows[:, R.C_N_TURNED] == j + 1).sum()), N, p_turned(j))
    assert int(rows[:, R.C_N_TURNED].min()) >= 1


@pytest.mark.parametrize("k", range(6))
def test_demons_held_by_a_seat(rows, k):
    # every seat (no swaps here), pooled over the three seats
    held = rows[:, R.C_DEMONS:R.C_DEMONS + 3].reshape(-1)
    assert held.size == 3 * N
    within(int((held == k).sum()), held.size, p_demons(k))  # asserts: within 5 SE


@pytest.mark.parametrize("argv,words", [
    (["run", "demons_punisseurs", "-n", "10", "--set", "jeu_tricks=9"], "jeu_tricks"),
    (["run", "demons_punisseurs", "-n", "10", "--set", "club_demon_order=KQ"],
     "club_demon_order"),
    (["run", "demons_punisseurs", "-n", "10", "--set", "stake_cap=x"], "stake_cap"),
    (["run", "demons_punisseurs", "-n", "10", "--set", "hold_pct=90"], "push_pct"),
    (["run", "demons_punisseurs", "-n", "10", "--policy", "heuristic,random"], "3"),
])
def test_bad_values_are_one_line_exit_2(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err and words in err, err
