"""The shared poker ranking (simlab/mechanics/poker.py): exact category counts of 5-card hands from
52 cards and from 54 cards with two wild Jokers, a brute-force check of the Joker rule,
best 5 of more cards, short hands and the Duel à Las Vegas worked examples on hands."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simlab.mechanics import poker as pk

W = pk.work_array()


def hand(text: str) -> tuple[int, int]:
    return pk.mask_of([pk.card_id(c) for c in text.split()])


def key(text: str, wheel: bool = True) -> int:
    nat, jokers = hand(text)
    return pk.evaluate(nat, jokers, wheel, W)


def chunks(text: str) -> list[str]:
    nat, jokers = hand(text)
    out = np.zeros(12, dtype=np.int64)
    m = pk.chunk_keys(nat, jokers, True, out, W)
    return [pk.describe(int(k)) for k in out[:m]]


STANDARD_52 = {"high_card": 1_302_540, "pair": 1_098_240, "two_pair": 123_552,
               "trips": 54_912, "straight": 10_200, "flush": 5_108, "full_house": 3_744,
               "quads": 624, "straight_flush": 40}
# 54 cards with two wild Jokers (a Joker: any card not in the hand, so no five of a
# kind): counted by enumerating the 3,162,510 hands with the evaluator; the evaluator's
# value of every hand holding a Joker (541,450 with one, 22,100 with two) was checked
# once against the brute force below over all of them, and the test re-checks a sample.
JOKERS_2 = {"high_card": 1_302_540, "pair": 1_437_936, "two_pair": 123_552,
            "trips": 232_968, "straight": 34_704, "flush": 11_388, "full_house": 9_360,
            "quads": 9_438, "straight_flush": 624}


@pytest.mark.parametrize("jokers, expected", [(0, STANDARD_52), (2, JOKERS_2)])
def test_exact_category_counts(jokers, expected):
    out = np.zeros(9, dtype=np.int64)
    pk.category_counts(jokers, True, out, W)
    assert dict(zip(pk.CATEGORIES, out.tolist(), strict=True)) == expected
    assert out.sum() == (2_598_960 if jokers == 0 else 3_162_510)


def test_royal_flushes_are_four_of_the_forty():
    royal = [key(f"10{s} J{s} Q{s} K{s} A{s}") for s in "♠♥♦♣"]
    assert len(set(royal)) == 1 and pk.describe(royal[0]) == "straight_flush A"


def brute(nat: int, jokers: int) -> int:
    """Best value with every Joker replaced by every card not in the hand (distinct)."""
    free = [c for c in range(52) if not nat >> c & 1]
    best = -1
    for sub in itertools.combinations(free, jokers):
        m = nat
        for c in sub:
            m |= 1 << c
        best = max(best, best5_brute(m))
    return best


def best5_brute(nat: int) -> int:
    """Best natural hand of at most 5 cards by trying every 5-subset."""
    cards = [c for c in range(52) if nat >> c & 1]
    if len(cards) <= 5:
        return pk.evaluate(nat, 0, True, W)
    return max(pk.evaluate(sum(1 << c for c in sub), 0, True, W)
               for sub in itertools.combinations(cards, 5))


def test_jokers_match_brute_force_substitution():
    rng = np.random.default_rng(5)
    for n_cards, jokers, trials in ((5, 1, 300), (5, 2, 40), (4, 1, 200), (3, 2, 40),
                                    (7, 1, 60), (6, 2, 6)):
        for _ in range(trials):
            cards = rng.choice(52, n_cards - jokers, replace=False)
            nat = int(sum(1 << int(c) for c in cards))
            assert pk.evaluate(nat, jokers, True, W) == brute(nat, jokers), (cards, jokers)


def test_best_five_of_seven_matches_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(400):
        cards = rng.choice(52, 7, replace=False)
        nat = int(sum(1 << int(c) for c in cards))
        assert pk.evaluate(nat, 0, True, W) == best5_brute(nat)


def test_no_five_of_a_kind_and_joker_restriction():
    # catalogue example 5: the second Joker cannot be a fifth King: it plays as an Ace
    assert pk.describe(key("K♠ K♥ K♦ Joker Joker")) == "quads K, A"
    assert pk.describe(key("A♠ A♥ A♦ Joker Joker")) == "quads A, K"


def test_worked_example_4_jokers():
    assert pk.describe(key("Q♠ Joker")) == "pair Q"
    assert pk.describe(key("9♠ 10♠ J♠ Q♠ Joker")) == "straight_flush K"


def test_worked_example_5_lone_joker_is_an_ace():
    assert key("Joker") == key("A♠")  # catalogue #5: a tie, both draw
    assert key("Joker Joker") == key("A♠ A♥")


def test_worked_example_3_short_hand():
    # A = {A♠, 9♦}, B = {A♥, 9♣, 3♦}: A = A, 9 = 9, then "missing" < 3: B is stronger
    assert key("A♥ 9♣ 3♦") > key("A♠ 9♦")
    assert key("2♣") > 0  # any card beats an empty hand


def test_worked_example_6_split():
    # {K♠ K♥ K♦ 7♣ 7♦ 2♠ 3♥}: first hand K-K-K-7-7, second {3♥, 2♠}
    assert chunks("K♠ K♥ K♦ 7♣ 7♦ 2♠ 3♥") == ["full_house K, 7", "high_card 3, 2"]


def test_seed_comparisons():
    # §4: straights by their top card; full houses by the triple, then the pair
    assert key("9♠ 10♥ J♦ Q♣ K♠") > key("8♠ 9♥ 10♦ J♣ Q♠")
    assert key("5♠ 5♥ 5♦ 2♣ 2♠") > key("4♠ 4♥ 4♦ A♣ A♠")
    assert key("K♠ 9♥ 7♦ 4♣ 3♠") > key("K♥ 9♦ 7♣ 4♦ 2♠")
    # categories in order, from the seed's list
    order = ["A♠ K♥ 7♦ 4♣ 2♠", "2♠ 2♥ 7♦ 4♣ 3♠", "2♠ 2♥ 3♦ 3♣ 5♠", "2♠ 2♥ 2♦ 4♣ 5♠",
             "2♠ 3♥ 4♦ 5♣ 6♠", "2♠ 4♠ 6♠ 8♠ 10♠", "2♠ 2♥ 2♦ 3♣ 3♠", "2♠ 2♥ 2♦ 2♣ 3♠",
             "2♠ 3♠ 4♠ 5♠ 6♠"]
    keys = [key(h) for h in order]
    assert [pk.category(k) for k in keys] == list(range(9))
    assert keys == sorted(keys)


def test_wheel_knob():
    assert pk.describe(key("A♠ 2♥ 3♦ 4♣ 5♠")) == "straight 5"
    assert key("A♠ 2♥ 3♦ 4♣ 5♠") < key("2♠ 3♥ 4♦ 5♣ 6♠")
    assert pk.describe(key("A♠ 2♥ 3♦ 4♣ 5♠", wheel=False)) == "high_card A, 5, 4, 3, 2"
    assert pk.describe(key("A♠ 2♠ 3♠ 4♠ 5♠", wheel=False)) == "flush A, 5, 4, 3, 2"


def test_long_hands_split_recursively_and_keep_jokers_for_the_leftover():
    # a natural Ace serves as the quads' kicker, so the Joker stays for the second hand
    assert chunks("K♠ K♥ K♦ K♣ A♠ Joker 7♦") == ["quads K, A", "pair 7"]
    assert chunks("2♠ 3♥ 4♦ 5♣ 6♠ 7♥ 8♦ 9♣ 10♠ J♥ Q♦") == [
        "straight Q", "straight 7", "high_card 2"]
