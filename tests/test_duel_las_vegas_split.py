"""Duel à Las Vegas, the second hand (issue 31, item 9): "on la divise en deux mains, la
première étant complète et la plus forte possible, la seconde n'intervenant que si les
joueurs ont deux premières mains strictement identiques" — where several equally strong
first hands leave different cards, the split is the one best for its owner (catalogue
#4), not a fixed choice of suits. Checked on a hand-built position and against a brute
force over every split."""

from __future__ import annotations

import functools
import itertools
import random

import numpy as np

from simlab.games.duel_las_vegas import rules as R
from simlab.mechanics import poker as pk

W = pk.work_array()
JOKER_IDS = (52, 53, 54, 55)


def cards_of(text: str) -> tuple[int, ...]:
    """Card ids of labels; each Joker gets an id of its own (52, 53, ...)."""
    jokers = iter(JOKER_IDS)
    return tuple(next(jokers) if pk.card_id(c) == 52 else pk.card_id(c) for c in text.split())


def key(cards: tuple[int, ...]) -> int:
    nat, jokers = pk.mask_of(list(cards))
    return int(pk.evaluate(nat, jokers, True, W))


def split(cards: tuple[int, ...]) -> tuple[int, ...]:
    nat, jokers = pk.mask_of(list(cards))
    out = np.zeros(R.MAX_CHUNKS, dtype=np.int64)
    m = pk.chunk_keys(nat, jokers, True, out, W)
    assert (out[m:] == 0).all()
    return tuple(int(k) for k in out[:m])


def fixed_split(cards: tuple[int, ...]) -> tuple[int, ...]:
    """The former split: ``best5``'s own choice (lowest suits) at every chunk."""
    nat, jokers = pk.mask_of(list(cards))
    scratch = [np.zeros(n, dtype=np.int64) for n in (5, 13, 13, 4)]
    keys = []
    while nat or jokers:
        k, used, j_used = pk.best5(nat, jokers, True, *scratch)
        keys.append(int(k))
        nat &= ~used
        jokers -= j_used
    return tuple(keys)


@functools.cache
def brute_split(cards: tuple[int, ...]) -> tuple[int, ...]:
    """Every way to take a strongest possible first hand of 5, then the rest split the
    same way: the largest sequence of keys (chunk by chunk; a missing chunk is lowest)."""
    if not cards:
        return ()
    best = key(cards)
    found: tuple[int, ...] | None = None
    for first in itertools.combinations(cards, min(5, len(cards))):
        if key(first) == best:
            rest = tuple(c for c in cards if c not in first)
            keys = (best,) + brute_split(rest)
            found = keys if found is None or keys > found else found
    assert found is not None
    return found


def names(keys: tuple[int, ...]) -> list[str]:
    return [pk.describe(k) for k in keys]


# Quads of Kings with an Ace kicker for both; A holds two Aces, and only the A♥ as the
# kicker leaves A♠ 2♠ 3♠ 4♠ 6♠, a flush. B's second hand is a 6-high straight.
HAND_A = "K♠ K♥ K♦ K♣ A♠ A♥ 2♠ 3♠ 4♠ 6♠"
HAND_B = "K♠ K♥ K♦ K♣ A♣ 2♥ 3♦ 4♣ 5♥ 6♦"


def test_the_second_hand_is_the_split_best_for_its_owner():
    assert names(split(cards_of(HAND_A))) == ["quads K, A", "flush A, 6, 4, 3, 2"]
    # the fixed split (the lowest suit, A♠, as the kicker) left a mere Ace high
    assert names(fixed_split(cards_of(HAND_A))) == ["quads K, A", "high_card A, 6, 4, 3, 2"]
    assert names(split(cards_of(HAND_B))) == ["quads K, A", "straight 6"]


def test_identical_first_hands_are_decided_by_the_best_second_hands():
    """A hand-built position of the game where the fixed split and the best split give
    different winners: seat 0's flush beats seat 1's straight (the fixed split made seat
    0's second hand Ace high, and seat 1 won)."""
    kv = R.knob_vector(R.DuelLasVegasKnobs())
    st = R.new_state()
    for seat, text in enumerate((HAND_A, HAND_B)):
        st[R.S_NAT + seat], st[R.S_JOK + seat] = pk.mask_of(list(cards_of(text)))
        R.revalue(st, kv, seat, W)
    chunks = st[R.K_OFF:R.K_OFF + 2 * R.MAX_CHUNKS].reshape(2, R.MAX_CHUNKS)
    assert chunks[0, 0] == chunks[1, 0]  # strictly identical first hands
    assert R.compare_hands(st) == 1
    old = [fixed_split(cards_of(t)) for t in (HAND_A, HAND_B)]
    assert old[0] < old[1]  # the former winner was seat 1


# Hands where the fixed split is not the best (found by the brute force below): the
# suits of a straight flush made with Jokers, a full house's pair or kickers whose suits
# decide the flush left over.
DIFFERENT = (
    "7♠ 8♠ J♠ Q♠ 8♥ 9♥ J♥ A♥ 4♦ 2♣ A♣ Joker Joker",
    "2♠ 4♠ 6♠ 2♥ 3♥ 6♥ 7♥ J♥ A♥ 2♦ 6♦ 8♦ Q♦",
    "3♠ 4♠ 7♠ 9♠ J♠ A♠ 5♥ 9♦ 2♣ 9♣ A♣ Joker",
    "5♠ 6♠ 7♠ 9♠ 10♠ Q♠ K♠ A♠ 10♥ Q♥ A♥ Q♦ A♣",
    "4♠ 9♠ 10♠ Q♠ K♠ 5♥ 10♥ J♥ K♥ 9♣ J♣ Joker Joker",
    HAND_A,
)


def test_the_split_is_the_brute_force_best_where_the_fixed_one_is_not():
    for text in DIFFERENT:
        hand = cards_of(text)
        assert split(hand) == brute_split(hand), (text, names(split(hand)))
        assert split(hand) > fixed_split(hand), text


def test_the_split_matches_the_brute_force_on_random_long_hands():
    """300 hands of 6 to 12 cards from a pack with 4 Jokers, two suits drawn three times
    as often (flushes left over are what a split's suits can change)."""
    rng = random.Random(7)
    pool = list(range(52)) + list(JOKER_IDS)
    weights = [3 if c < 52 and c // 13 < 2 else 1 for c in pool]
    for _ in range(300):
        size = rng.randint(6, 12)
        hand: list[int] = []
        while len(hand) < size:
            c = rng.choices(pool, weights)[0]
            if c not in hand:
                hand.append(c)
        cards = tuple(sorted(hand))
        assert split(cards) == brute_split(cards), cards


def test_a_whole_pack_splits_into_its_straight_flushes():
    """52 cards and 4 Jokers (the largest hand, and the widest search: every straight
    flush can be taken in several suits): four royal flushes, a K-high straight flush of
    a 9 and the 4 Jokers, three 9-high straight flushes, then the fourth suit's 8-high
    one; the 3s and the 2s make quads with a 4 kicker, and a 4 is left."""
    keys = names(split(tuple(range(52)) + JOKER_IDS))
    assert keys == (["straight_flush A"] * 4 + ["straight_flush K"] + ["straight_flush 9"] * 3
                    + ["straight_flush 8", "quads 3, 4", "quads 2, 4", "high_card 4"])
