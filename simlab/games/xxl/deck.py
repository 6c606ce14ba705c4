"""The XXL deck as data: 55 cards, one per pair {a, b} of different numbers 0..10, each
half coloured by a colouring table (``simlab.games.xxl.colouring``).

Card ids (fixed, the same under every colouring, so a deal never depends on the colours):
``card_id(a, b)`` for a < b numbers the pairs in order (0,1), (0,2), ..., (0,10), (1,2),
..., (9,10) -> 0 .. 54, as in the catalogue's card list. A half is (colour, number).

Tables for the kernels (:func:`tables`, one colouring at a time), all int64 / uint64:

* ``num[card, 2]`` — the two numbers, lower first; ``col[card, 2]`` — their colours;
* ``total[card]`` — the printed middle figure, ``num[card, 0] + num[card, 1]``;
* ``holders[colour * 11 + number]`` — uint64 bit mask of the cards showing that half
  (bit ``card``), so "does this hand hold a yellow 6?" is ``hand & holders[...]``;
* ``colour_num[card, colour]`` — the card's number in that colour, -1 if it has none.

Hands in the XXL kernels are uint64 bit masks over the 55 card ids.

``DECK`` is the ``simlab.engine.decks.Deck`` the runner labels cards with; its labels
(``"0-1"``) name the numbers only, because they must not change with the colouring.
``labels(colour)`` gives the coloured names (``"R0/G1"``) for reports and tests.

May import: the engine; ``simlab.games.xxl.colouring``.
"""

from __future__ import annotations

import numpy as np

from simlab.engine.decks import SPECIAL_SUIT, CardKind, Deck
from simlab.games.xxl.colouring import COLOURS, NUMBERS, parse_colouring

N_CARDS = 55
PAIRS = tuple((a, b) for a in range(NUMBERS) for b in range(a + 1, NUMBERS))
_ID = {p: i for i, p in enumerate(PAIRS)}
FULL_MASK = (1 << N_CARDS) - 1


def card_id(a: int, b: int) -> int:
    """The id of the card {a, b} (either order)."""
    return _ID[(min(a, b), max(a, b))]


# The suit field of a CardKind holds nothing meaningful here: an XXL card has two colours.
DECK = Deck("55_xxl", "XXL: 55 cards, one per pair of different numbers 0..10, two "
            "coloured halves each (colours: deck_colouring)",
            tuple(CardKind(SPECIAL_SUIT, f"{a}-{b}", f"{a}-{b}") for a, b in PAIRS))


def tables(colour: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          np.ndarray]:
    """(num, col, total, holders, colour_num) for one colouring (see the module doc)."""
    num = np.array(PAIRS, dtype=np.int64)
    col = np.array([[colour[a, b], colour[b, a]] for a, b in PAIRS], dtype=np.int64)
    total = num.sum(axis=1)
    holders = np.zeros(4 * NUMBERS, dtype=np.uint64)
    colour_num = np.full((N_CARDS, 4), -1, dtype=np.int64)
    for i in range(N_CARDS):
        for h in range(2):
            holders[col[i, h] * NUMBERS + num[i, h]] |= np.uint64(1 << i)
            colour_num[i, col[i, h]] = num[i, h]
    return num, col, total, holders, colour_num


def tables_for(value: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                    np.ndarray]:
    """:func:`tables` of the colouring a ``deck_colouring`` knob value names."""
    return tables(parse_colouring(value))


def labels(colour: np.ndarray) -> tuple[str, ...]:
    """Coloured card names, lower number first: ``("R0/G1", "G0/R2", ...)``."""
    return tuple(f"{COLOURS[colour[a, b]]}{a}/{COLOURS[colour[b, a]]}{b}" for a, b in PAIRS)


def parse_card(text: str, colour: np.ndarray) -> int:
    """The id of a card written ``"Y7/R0"`` (either order), checked against the colouring."""
    h1, h2 = text.strip().split("/")
    c1, n1 = COLOURS.index(h1[0]), int(h1[1:])
    c2, n2 = COLOURS.index(h2[0]), int(h2[1:])
    if colour[n1, n2] != c1 or colour[n2, n1] != c2:
        raise KeyError(f"no card {text!r} in this colouring")
    return card_id(n1, n2)


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    """The bit mask of card ids."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m
