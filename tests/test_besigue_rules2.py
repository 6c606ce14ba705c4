"""Bésigue rules of issue 31 (items 5-8 and the knob ``card_from_hand``), pinned by
hand-built positions: a fifth card of any suit joins a chinois four; a hand King marries
the Queen a broken sequence left; two marriages laid at once never pair a sequence's own
King and Queen; trump is fixed when the first marriage or sequence is laid, the
suspended half of a crossed declaration included; the strict reading of "l'utilisation
de toutes les cartes déjà déposées" as a knob."""

from __future__ import annotations

import numpy as np

from simlab.games.besigue import rules as R
from tests.test_besigue import (
    DMAR,
    FOUR,
    MAR,
    SEQ,
    can,
    claim_move,
    cross,
    declare,
    kv,
    play,
    position,
)


def slots_of(s: np.ndarray, mask: int, p: int = 0) -> list[tuple[str, bool]]:
    """(card type, tabled before) of the slots in ``mask``, as labels."""
    from tests.test_besigue import RANKS, SUITS
    out = []
    for i in range(R.HMAX):
        if mask >> i & 1:
            x = int(s[R.S_TY + p * R.HMAX + i])
            out.append((RANKS[x % 8] + SUITS[x // 8], bool(s[R.S_TAB + p * R.HMAX + i])))
    return sorted(out)


def marriages(s: np.ndarray, suit: int, p: int = 0) -> list[int]:
    return [int(s[R.S_MM + p * R.MAXM + j]) for j in range(R.MAXM)
            if s[R.S_MK + p * R.MAXM + j] == R.KIND_MAR + suit]


# --- item 5: "un Carré peut être rejoint par une 5e carte du même rang" (seed 10.2) ----------
def test_a_fifth_card_of_another_suit_joins_a_chinois_four():
    k = kv(variant="chinois")
    s = position(["A♥", "A♦", "A♥", "A♦", "A♣", "7♣"], k=k)
    assert declare(s, FOUR["A"], k) == 100  # A♥ A♦ A♥ A♦ on the table, A♣ in hand
    cards = R.meld_cards(s, 0, FOUR["A"], k)
    assert cards >= 0  # before: only a hand copy of a tabled card's own type was tried
    assert ("A♣", False) in slots_of(s, cards) and len(slots_of(s, cards)) == 4
    assert declare(s, FOUR["A"], k) == 100  # a new four: three tabled Aces + A♣
    assert s[R.S_TAB:R.S_TAB + 5].sum() == 5 and R.count_kind(s, 0, R.KIND_CAR + 4) == 2
    assert not can(s, FOUR["A"], k)  # no sixth Ace: nothing joins any more
    # the japonais: a four is re-formed only after a member is played away
    s = position(["A♥", "A♦", "A♥", "A♦", "A♣", "7♣"])
    declare(s, FOUR["A"])
    assert not can(s, FOUR["A"])


def test_a_chinois_four_never_scores_again_without_a_fifth_card():
    # card_from_hand off (the seed's silence read literally): the four's own cards do not
    # make the same four again; a fifth Ace, even a tabled one of a sequence, joins
    k = kv(variant="chinois", card_from_hand=False)
    s = position(["A♥", "A♦", "A♥", "A♦", "7♣"], trump=R.SPADES, k=k)
    declare(s, FOUR["A"], k)
    assert not can(s, FOUR["A"], k)  # before: re-scored 100 on every trick won
    s = position(["A♥", "A♦", "A♥", "A♦", "J♠", "Q♠", "K♠", "10♠", "A♠", "7♣"],
                 trump=R.SPADES, k=k)
    declare(s, FOUR["A"], k)
    declare(s, SEQ["♠"], k)
    cards = R.meld_cards(s, 0, FOUR["A"], k)
    assert cards >= 0 and ("A♠", True) in slots_of(s, cards)


# --- item 6: the King and Queen a broken sequence leaves (seed 10.2) ------------------------------
def test_a_hand_king_marries_the_queen_of_a_broken_sequence():
    s = position(["J♠", "Q♠", "K♠", "10♠", "A♠", "K♠", "7♣"])
    assert declare(s, SEQ["♠"]) == 250
    for card in ("A♠", "J♠", "10♠"):
        play(s, 0, card, tabled=True)  # K♠ Q♠ stay: the remnant
    s[R.S_PHASE] = R.P_DECLARE
    cards = R.meld_cards(s, 0, MAR["♠"], kv())
    assert cards >= 0  # before: refused (the tabled K♠ was taken, then no other Q♠)
    assert slots_of(s, cards) == [("K♠", False), ("Q♠", True)]
    assert declare(s, MAR["♠"]) == 40  # royal: the sequence fixed ♠
    # the remnant's own K and Q stay barred from marrying each other
    s = position(["J♠", "Q♠", "K♠", "10♠", "A♠", "7♣"])
    declare(s, SEQ["♠"])
    for card in ("A♠", "J♠", "10♠"):
        play(s, 0, card, tabled=True)
    s[R.S_PHASE] = R.P_DECLARE
    assert not can(s, MAR["♠"])


def test_two_marriages_at_once_never_pair_the_remnants_king_and_queen():
    # hand K♠ Q♠ in slots 0-1, the remnant K♠ Q♠ of a broken sequence in slots 2-3
    s = position(["K♠", "Q♠", "K♠*", "Q♠*", "7♣"], trump=R.SPADES)
    R.add_meld(s, 0, R.KIND_REM + R.SPADES, np.int64(0b1100))
    assert declare(s, DMAR["♠"]) == 160
    pairs = marriages(s, R.SPADES)
    assert len(pairs) == 2 and 0b1100 not in pairs  # before: (slot 2, slot 3) was one
    assert sorted(pairs) == sorted([0b1001, 0b0110])


# --- item 7: trump is fixed by the first marriage or sequence laid (seed 5.1) ----------------------
def test_the_suspended_half_of_a_crossed_declaration_fixes_trump():
    s = position(["K♠", "Q♠", "J♦", "K♥", "Q♥", "7♣"])
    assert declare(s, cross(R.M_BES, MAR["♠"])) == 40  # the Bésigue now, K♠ Q♠ suspended
    assert s[R.S_TRUMP] == R.SPADES and s[R.S_TRUMP_BY] == 0
    assert declare(s, MAR["♥"]) == 20  # ♥ is not trump: a plain marriage (before: 40)
    assert s[R.S_TRUMP] == R.SPADES
    assert declare(s, claim_move(s)) == 40  # the royal marriage (before: 20)
    assert s[R.S_MELD_PTS] == 100


def test_a_sequence_laid_suspended_fixes_trump_for_the_opponent_too():
    s = position(["Q♠", "J♦", "Q♦", "K♦", "10♦", "A♦", "7♣"],
                 ["K♥", "Q♥", "7♣", "7♣", "7♣", "7♣", "7♣", "7♣", "7♣"])
    assert declare(s, cross(R.M_BES, SEQ["♦"])) == 40  # shares J♦
    assert s[R.S_TRUMP] == R.DIAMONDS
    s[R.S_TO_MOVE] = 1  # the opponent wins a trick and marries ♥: no longer trump
    assert declare(s, MAR["♥"]) == 20
    s[R.S_TO_MOVE] = 0
    assert declare(s, claim_move(s)) == 250  # the royal sequence


def test_searching_a_crossed_pair_leaves_trump_open():
    # cross_cards lays the pair on the state to check it, and takes it back
    s = position(["K♠", "Q♠", "J♦", "7♣"])
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    assert cross(R.M_BES, MAR["♠"]) in moves[:R.legal_moves(s, kv(), moves)]
    assert s[R.S_TRUMP] == -1 and s[R.S_TRUMP_BY] == -1 and s[R.S_TAB:R.S_TAB + 4].sum() == 0


# --- item 8: knob reuse_all_tabled, the strict reading of seed 5.1 --------------------------------
def test_strict_reuse_uses_all_the_tabled_cards_or_none():
    strict = kv(reuse_all_tabled=True)
    # catalogue example 4 on two turns: the marriage reuses the tabled Q♠ but not J♦
    s = position(["K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    declare(s, R.M_BES)
    assert can(s, MAR["♠"]) and not can(s, MAR["♠"], strict)
    # with a Q♠ in hand the marriage is laid from the hand alone
    s = position(["K♠", "Q♠", "J♦", "Q♠", "7♣"], trump=R.HEARTS)
    declare(s, R.M_BES, strict)
    cards = R.meld_cards(s, 0, MAR["♠"], strict)
    assert slots_of(s, cards) == [("K♠", False), ("Q♠", False)]
    assert slots_of(s, R.meld_cards(s, 0, MAR["♠"], kv())) == [("K♠", False), ("Q♠", True)]
    # a sequence that takes every tabled card (a marriage's K and Q) is fine
    s = position(["K♠", "Q♠", "J♠", "10♠", "A♠", "J♦", "7♣"], trump=R.HEARTS)
    declare(s, MAR["♠"], strict)
    assert can(s, SEQ["♠"], strict)
    assert can(s, R.M_BES) and not can(s, R.M_BES, strict)  # Q♠ reused, K♠ left out
    # a chinois four joined by a fifth card leaves a tabled Ace out of the new four
    k = kv(variant="chinois", reuse_all_tabled=True)
    s = position(["A♥", "A♦", "A♥", "A♦", "A♣", "7♣"], k=k)
    declare(s, FOUR["A"], k)
    assert not can(s, FOUR["A"], k)


def test_strict_reuse_judges_a_crossed_pair_as_one_declaration():
    strict = kv(reuse_all_tabled=True)
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    # nothing on the table is reused: the pair is legal
    s = position(["K♥", "Q♥", "K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    declare(s, MAR["♥"], strict)
    assert cross(R.M_BES, MAR["♠"]) in moves[:R.legal_moves(s, strict, moves)]
    # the four of Kings from the hand crossed with K♠ + the Bésigue's tabled Q♠: the pair
    # reuses Q♠ and leaves J♦ out
    s = position(["Q♠", "J♦", "K♠", "K♥", "K♦", "K♣", "7♣"], trump=R.HEARTS)
    declare(s, R.M_BES, strict)
    pair = cross(FOUR["K"], MAR["♠"])
    assert pair in moves[:R.legal_moves(s, kv(), moves)]
    assert can(s, FOUR["K"], strict) and pair not in moves[:R.legal_moves(s, strict, moves)]
    # with a second Q♠ in hand the pair is laid from the hand alone
    s = position(["Q♠", "J♦", "K♠", "K♥", "K♦", "K♣", "Q♠", "7♣"], trump=R.HEARTS)
    declare(s, R.M_BES, strict)
    assert pair in moves[:R.legal_moves(s, strict, moves)]
    assert ("Q♠", False) in slots_of(s, R.cross_cards(s, 0, FOUR["K"], MAR["♠"], strict))
    assert ("Q♠", True) in slots_of(s, R.cross_cards(s, 0, FOUR["K"], MAR["♠"], kv()))


# --- the knobs' reasons (common brief: a default off the printed text says why) -------------------
def test_departures_from_the_printed_text_say_why():
    rows = {d["name"]: d for d in R.BesigueKnobs.departures()}
    assert rows["card_from_hand"]["seed_case"] == "silent"
    assert rows["reuse_all_tabled"]["seed_case"] == "contradicts"
    assert rows["reuse_all_tabled"]["seed_value"] is True
    assert "toutes les" in rows["reuse_all_tabled"]["seed_why"]
    assert all(d["seed_why"] for d in rows.values())

