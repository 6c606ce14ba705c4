"""Every deck the rulebooks use, with its size and composition."""

from __future__ import annotations

from collections import Counter

import pytest

from simlab.engine.decks import DECKS, EXCUSE_SUIT, JOKER_SUIT, TRUMP_SUIT, get_deck

SIZES = {
    "32": 32, "24": 24, "24_noisette": 24, "52": 52, "54": 54, "55_bridgette": 55,
    "78_tarot": 78, "50_tarot_4_saisons": 50, "33_demons": 33, "33_demons_punisseurs": 33,
    "48_bernicle": 48, "128": 128, "192": 192, "108": 108, "104": 104,
}


@pytest.mark.parametrize("name,size", SIZES.items())
def test_sizes(name, size):
    d = get_deck(name)
    assert d.size == size == len(d.labels) == len(d.suit) == len(d.ranks)


def test_every_deck_is_listed():
    assert set(DECKS) == set(SIZES)


def test_compositions():
    tarot = get_deck("78_tarot")
    assert Counter(tarot.suit.tolist())[TRUMP_SUIT] == 21
    assert tarot.labels.count("Excuse") == 1 and "T21" in tarot.labels and "C♥" in tarot.labels
    t4 = get_deck("50_tarot_4_saisons")
    assert not {"3♠", "5♠", "10♠"} & set(t4.labels) and "2♠" in t4.labels
    assert get_deck("54").labels.count("Joker") == 2
    assert get_deck("108").labels.count("Joker") == 4
    assert Counter(get_deck("108").labels)["K♠"] == 2
    assert Counter(get_deck("128").labels)["A♦"] == 4 and Counter(get_deck("192").labels)["A♦"] == 6
    bern = get_deck("48_bernicle")
    assert not {"8♠", "9♠"} & set(bern.labels) and Counter(bern.labels)["10♣"] == 2
    bridgette = get_deck("55_bridgette")
    assert {"T1", "Cavalier", "Excuse"} <= set(bridgette.labels)
    assert Counter(bridgette.suit.tolist())[EXCUSE_SUIT] == 1
    demons = get_deck("33_demons")
    c = Counter(demons.labels)
    assert c["K♠"] == 2 and c["C♠"] == 2 and c["Q♠"] == 1 and c["6♠"] == 1 and c["T5"] == 1
    assert "6♦" in get_deck("33_demons_punisseurs").labels
    assert "♣" not in "".join(get_deck("24_noisette").labels)
    assert Counter(get_deck("54").suit.tolist())[JOKER_SUIT] == 2


def test_suit_major_and_tables():
    d = get_deck("32")
    assert list(d.suit) == sorted(d.suit)  # suit-major: the trick module relies on it
    assert d.index("J♥") == 12
    assert d.table({"7": 0, "8": 0, "9": 0, "10": 10, "J": 2, "Q": 3, "K": 4, "A": 11}).sum() == 120
    with pytest.raises(KeyError, match="valid decks"):
        get_deck("31")
    with pytest.raises(KeyError):
        d.table({"7": 0})
