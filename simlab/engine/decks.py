"""Decks as data.

A deck spec lists card kinds (suit, rank, printable label, copies). ``Deck.build``
expands it into physical cards numbered 0..n-1, suit-major, so kernels work on
small integer arrays (``suit``, ``rank``) and look everything else up in tables.

Card points and rank order are *not* here: they belong to each game (trump vs
plain tables), see e.g. ``simlab.games.belote``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

# Suit codes shared by every deck. Tarot trumps, the Excuse and jokers are suits of
# their own so that "follow suit" logic needs no special case beyond the Excuse.
SUITS = ("♠", "♥", "♦", "♣")
SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3
TRUMP_SUIT = 4  # Tarot atouts (T1..T21)
EXCUSE_SUIT = 5  # the Tarot Excuse: never wins, may always be played
JOKER_SUIT = 6
SPECIAL_SUIT = 7  # cards with a role of their own (e.g. Bridgette's Colon Royal)
SUIT_NAMES = ("♠", "♥", "♦", "♣", "trump", "excuse", "joker", "special")


@dataclass(frozen=True)
class CardKind:
    suit: int
    rank: str  # "7", "10", "J", "C" (Cavalier), "Q", "K", "A", "T21", "Excuse", ...
    label: str
    copies: int = 1


@dataclass(frozen=True)
class Deck:
    name: str
    description: str
    kinds: tuple[CardKind, ...]

    @cached_property
    def _expanded(self) -> list[CardKind]:
        return [k for k in self.kinds for _ in range(k.copies)]

    @property
    def size(self) -> int:
        return len(self._expanded)

    @cached_property
    def suit(self) -> np.ndarray:
        """Suit code of each physical card (int64, indexable in kernels)."""
        return np.array([k.suit for k in self._expanded], dtype=np.int64)

    @cached_property
    def ranks(self) -> tuple[str, ...]:
        return tuple(k.rank for k in self._expanded)

    @cached_property
    def labels(self) -> tuple[str, ...]:
        return tuple(k.label for k in self._expanded)

    def index(self, label: str) -> int:
        """Card id of the first physical card with this label (e.g. ``"J♥"``)."""
        try:
            return self.labels.index(label)
        except ValueError:
            raise KeyError(f"no card {label!r} in deck {self.name}") from None

    def table(self, values: dict[str, int], default: int | None = None) -> np.ndarray:
        """Per-card int64 table from a rank -> value mapping (a game's points or order)."""
        out = np.empty(self.size, dtype=np.int64)
        for i, r in enumerate(self.ranks):
            if r not in values and default is None:
                raise KeyError(f"rank {r!r} missing from table for deck {self.name}")
            out[i] = values.get(r, default)
        return out


def _suited(ranks: list[str], copies: int = 1, suits: tuple[int, ...] = (0, 1, 2, 3)) -> list[CardKind]:
    return [CardKind(s, r, f"{r}{SUITS[s]}", copies) for s in suits for r in ranks]


def _tarot_trumps(numbers: range) -> list[CardKind]:
    return [CardKind(TRUMP_SUIT, f"T{i}", f"T{i}") for i in numbers]


RANKS_32 = ["7", "8", "9", "10", "J", "Q", "K", "A"]
RANKS_24 = ["9", "10", "J", "Q", "K", "A"]
RANKS_52 = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
RANKS_TAROT = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "C", "Q", "K"]
RANKS_TAROT_4_SAISONS = ["1", "2", "4", "J", "C", "Q", "K"]
EXCUSE = CardKind(EXCUSE_SUIT, "Excuse", "Excuse")
JOKER = CardKind(JOKER_SUIT, "Joker", "Joker")


def _deck(name: str, description: str, kinds: list[CardKind]) -> Deck:
    return Deck(name, description, tuple(kinds))


DECKS: dict[str, Deck] = {
    d.name: d
    for d in [
        _deck("32", "piquet pack: 4 suits x 7..A (Belote, Manille, Sept, Caisse)", _suited(RANKS_32)),
        _deck("24", "4 suits x 9..A (Mille)", _suited(RANKS_24)),
        _deck("24_noisette", "3 suits x 7..A, clubs removed (Belote Noisette)",
              _suited(RANKS_32, suits=(0, 1, 2))),
        _deck("52", "standard pack: 4 suits x 2..A", _suited(RANKS_52)),
        _deck("54", "standard pack + 2 jokers (Rami)", _suited(RANKS_52) + [CardKind(JOKER_SUIT, "Joker", "Joker", 2)]),
        _deck("55_bridgette", "52 + Petit (T1) + a Cavalier + Excuse, the three Colons (Bridgette)",
              _suited(RANKS_52) + [CardKind(TRUMP_SUIT, "T1", "T1"),
                                   CardKind(SPECIAL_SUIT, "C", "Cavalier"), EXCUSE]),
        _deck("78_tarot", "French Tarot: 4 suits x 1..K with Cavalier, 21 trumps, Excuse",
              _suited(RANKS_TAROT) + _tarot_trumps(range(1, 22)) + [EXCUSE]),
        _deck("50_tarot_4_saisons", "Tarot without 3s and 5..10s: 4 x 7 suit cards, 21 trumps, Excuse",
              _suited(RANKS_TAROT_4_SAISONS) + _tarot_trumps(range(1, 22)) + [EXCUSE]),
        _deck("33_demons", "from two Tarot packs: K and C x2, Q, J, 6 x1 per suit, trumps 1..5 (Démons)",
              _suited(["6", "J", "Q"]) + _suited(["C", "K"], copies=2) + _tarot_trumps(range(1, 6))),
        _deck("33_demons_punisseurs", "32-card pack + 6♦ (Démons punisseurs)",
              _suited(RANKS_32) + [CardKind(DIAMONDS, "6", "6♦")]),
        _deck("48_bernicle", "2 x 32 without 8s and 9s (Bernicle)",
              _suited(["7", "10", "J", "Q", "K", "A"], copies=2)),
        _deck("128", "4 x 32 (Bésigue japonais)", _suited(RANKS_32, copies=4)),
        _deck("192", "6 x 32 (Bésigue chinois)", _suited(RANKS_32, copies=6)),
        _deck("108", "2 x 54: 104 cards + 4 jokers (Loba)",
              _suited(RANKS_52, copies=2) + [CardKind(JOKER_SUIT, "Joker", "Joker", 4)]),
        _deck("104", "2 x 52 (Duel à Las Vegas: one pack each)", _suited(RANKS_52, copies=2)),
    ]
}
# The XXL games' 55-card dual-value deck (two numbers in two colours per card) will be
# added with those games: a CardKind then needs a second (colour, value) pair.


def get_deck(name: str) -> Deck:
    try:
        return DECKS[name]
    except KeyError:
        raise KeyError(f"unknown deck {name!r}; valid decks: {', '.join(DECKS)}") from None
