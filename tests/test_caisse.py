"""Caisse rules: the seed's worked examples (catalogue "Worked examples" 1-7), hand-built
positions for each phase, exact deal combinatorics, card-point conservation, match ends,
determinism across jobs / chunks and in pure Python."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine.knobs import SimlabError
from simlab.games import caisse as G
from simlab.games.caisse import players as P
from simlab.games.caisse import rules as R

K = G.CaisseKnobs()
KV = R._vector(K)
RULES = R._rules(K)
TB = R.tables(K).kernel_args()


def cid(label: str) -> int:
    return G.DECK.index(label)


def mask(*labels: str) -> int:
    m = 0
    for x in labels:
        m |= 1 << cid(x)
    return m


def labels(m) -> set[str]:
    return {G.DECK.labels[c] for c in range(32) if (int(m) >> c) & 1}


def deck_of(six: list[list[str]], proposal: str, down: list[list[str]], talon: list[str],
            indicator: str, dealer: int = 2) -> np.ndarray:
    """A pack that deals ``six[p]`` (6 cards) and ``down[p]`` (3) to seat p (§4 order:
    3 + 3 from the dealer's left, the proposal card, 3 face down each, the talon, the
    indicator)."""
    order = [(dealer + 1 + k) % 3 for k in range(3)]
    cards = [six[p][i] for p in order for i in range(3)]
    cards += [six[p][i] for p in order for i in range(3, 6)]
    cards += [proposal] + [c for p in order for c in down[p]] + talon + [indicator]
    assert len(set(cards)) == 32
    return np.array([cid(c) for c in cards], dtype=np.int64)


def fresh(deck: np.ndarray, dealer: int = 2) -> np.ndarray:
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, deck, dealer, np.zeros((3, 9), dtype=np.int64))
    return s


def move(s: np.ndarray, m: int) -> None:
    legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert m in legal[:n], (m, legal[:n], s[R.S_PHASE])
    R.apply_move(s, m, KV, TB)


def heuristic_to_end(s: np.ndarray) -> None:
    scratch = np.zeros(R.MAX_MOVES, dtype=np.int64)
    while s[R.S_PHASE] != R.P_DONE:
        R.apply_move(s, P.heuristic_move(s, KV, RULES, TB, scratch), KV, TB)


# A fixed pack: seat 0 is the dealer's left (dealer 2), the proposal card is the 10♥.
SIX = [["J♥", "9♥", "K♥", "Q♥", "A♠", "10♠"],
       ["A♥", "8♣", "9♣", "10♣", "J♣", "Q♣"],
       ["7♠", "8♠", "9♠", "J♠", "Q♠", "K♠"]]
DOWN = [["7♥", "A♣", "K♦"], ["7♦", "8♦", "9♦"], ["10♦", "J♦", "Q♦"]]
PACK = deck_of(SIX, "10♥", DOWN, ["8♥", "K♣", "A♦"], "7♣")


def test_deal_follows_section_4():
    s = fresh(PACK)
    for p in range(3):
        assert labels(s[R.S_HAND + p]) == set(SIX[p])
        assert labels(s[R.S_DOWN + p]) == set(DOWN[p])
    assert G.DECK.labels[s[R.S_PROPOSAL]] == "10♥"
    assert G.DECK.labels[s[R.S_INDICATOR]] == "7♣"
    assert labels(s[R.S_TALON]) == {"8♥", "K♣", "A♦"}
    assert s[R.S_TO_MOVE] == 0  # the dealer's left speaks first


def test_round_1_first_taker_ends_it_and_contract_round_starts_with_him():
    s = fresh(PACK)
    move(s, R.PASS)  # seat 0
    move(s, R.TAKE)  # seat 1 takes hearts
    assert s[R.S_TAKER] == 1 and s[R.S_TRUMP] == R.HEARTS and s[R.S_GAME] == R.G_TRUMP1
    assert s[R.S_PHASE] == R.P_CONTRACT1 and s[R.S_TO_MOVE] == 1
    assert R.count(np.uint64(s[R.S_HAND + 1])) == 6  # still 6 cards (§7.2)


def test_round_2_outbids_and_one_pass_around():
    s = fresh(PACK)
    for _ in range(3):
        move(s, R.PASS)
    assert s[R.S_PHASE] == R.P_DECL2
    legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, KV, RULES, TB, legal)
    # the proposal suit (hearts) may not be named again; SA is open
    assert set(legal[:n]) == {R.PASS, R.NAME + R.SPADES, R.NAME + R.DIAMONDS,
                              R.NAME + R.CLUBS, R.SANS_ATOUT}
    move(s, R.NAME + R.DIAMONDS)  # seat 0: diamonds
    n = R.legal_moves(s, KV, RULES, TB, legal)
    # §5.2 order ♠ < ♦ < ♥ < ♣ < SA: only clubs or SA outbid diamonds
    assert set(legal[:n]) == {R.PASS, R.NAME + R.CLUBS, R.SANS_ATOUT}
    move(s, R.NAME + R.CLUBS)  # seat 1
    move(s, R.PASS)  # seat 2; seat 0 may not speak again
    assert s[R.S_TAKER] == 1 and s[R.S_TRUMP] == R.CLUBS and s[R.S_PHASE] == R.P_CONTRACT1


def test_round_3_misere_and_misere_generale():
    s = fresh(PACK)
    for _ in range(6):
        move(s, R.PASS)
    assert s[R.S_PHASE] == R.P_DECL3
    assert R.count(np.uint64(s[R.S_HAND])) == 9  # §5.3: the face-down cards picked up
    move(s, R.PASS)
    move(s, R.MISERE)
    assert s[R.S_GAME] == R.G_MISERE and s[R.S_TAKER] == 1 and s[R.S_PHASE] == R.P_PLAY
    s = fresh(PACK)
    for _ in range(9):
        move(s, R.PASS)
    assert s[R.S_GAME] == R.G_MG and s[R.S_TAKER] == -1 and s[R.S_PHASE] == R.P_PLAY


def test_first_leader_section_10():
    s = fresh(PACK)  # dealer 2: the dealer's left is seat 0
    for _ in range(3):
        move(s, R.PASS)
    move(s, R.PASS)
    move(s, R.PASS)
    move(s, R.SANS_ATOUT)  # seat 2 takes Sans-Atout
    for _ in range(3):
        move(s, R.PASS)
    assert s[R.S_PHASE] == R.P_PLAY
    assert s[R.S_TO_MOVE] == 1  # the player before the taker
    s = fresh(PACK)
    move(s, R.PASS)
    move(s, R.PASS)
    move(s, R.TAKE)
    for _ in range(3):
        move(s, R.PASS)
    if s[R.S_PHASE] == R.P_EXCHANGE:
        move(s, R.PASS)
    assert s[R.S_TO_MOVE] == 0  # the dealer's left


def played(s: np.ndarray, result: tuple) -> None:
    """Force a finished deal with the given per-seat (tricks, card points)."""
    for p, (t, pts) in enumerate(result):
        s[R.S_TRICKS + p] = t
        s[R.S_TPTS + p] = pts
    s[R.S_PHASE] = R.P_DONE


def taken_state(game: int, taker: int = 0, trump: int = R.HEARTS) -> np.ndarray:
    s = fresh(PACK)
    s[R.S_TAKER] = taker
    s[R.S_GAME] = game
    s[R.S_TRUMP] = trump if game <= R.G_TRUMP2 else -1
    s[R.S_BELOTE_SEAT] = -1
    return s


def test_example_1_trump_game_won_or_lost():
    s = taken_state(R.G_TRUMP1)
    played(s, ((5, 80), (2, 40), (2, 42)))
    assert R.marks(s, KV) == (1, 0, 0)
    played(s, ((5, 60), (2, 61), (2, 41)))  # one opponent beats him: both opponents +1
    assert R.marks(s, KV) == (0, 1, 1)
    played(s, ((5, 61), (2, 61), (2, 40)))  # a tie is not "more points"
    assert R.marks(s, KV) == (0, 1, 1)


def test_example_2_sans_atout_contred_at_the_first_trick():
    s = taken_state(R.G_SA)
    s[R.S_PHASE] = R.P_PLAY
    s[R.S_TO_MOVE] = 1
    R.apply_move(s, R.CONTRE, KV, TB)  # an opponent contres the game (9 cards: x2)
    played(s, ((5, 70), (2, 30), (2, 30)))
    assert R.game_value(s, KV) == 4
    assert R.marks(s, KV) == (4, 0, 0)


def test_example_3_early_cent_failed_and_contred():
    s = taken_state(R.G_TRUMP1)
    s[R.S_PHASE] = R.P_CONTRACT1
    s[R.S_TO_MOVE] = 0
    move(s, R.ANNOUNCE + R.CT_CENT)  # the taker, 6 cards: 2 x 2
    played(s, ((5, 90), (2, 40), (2, 32)))  # game won (+1), Cent failed (90 < 100)
    assert R.contract_value(s, 0, R.CT_CENT, KV) == 4
    assert R.marks(s, KV) == (1, 4, 4)
    s = taken_state(R.G_TRUMP1)
    s[R.S_PHASE] = R.P_CONTRACT1
    s[R.S_TO_MOVE] = 0
    move(s, R.ANNOUNCE + R.CT_CENT)
    move(s, R.CONTRE + 1 + 0 * R.NCT + R.CT_CENT)  # seat 1 contres it with 6 cards: x4
    played(s, ((5, 90), (2, 40), (2, 32)))
    assert R.contract_value(s, 0, R.CT_CENT, KV) == 16
    assert R.marks(s, KV) == (1, 16, 16)


def test_contre_levels_alternate_and_stop_at_four():
    s = taken_state(R.G_TRUMP1)
    s[R.S_PHASE] = R.P_CONTRACT1
    s[R.S_TO_MOVE] = 0
    move(s, R.ANNOUNCE + R.CT_CENT)  # taker's contract
    target = 1 + R.CT_CENT
    assert not R.contre_allowed(s, 0, target, KV)  # his own party cannot contre first
    assert R.contre_allowed(s, 2, target, KV)
    for seat in (1, 0, 2, 0):  # contre, surcontre, sur-surcontre, sur-sur-surcontre
        assert R.contre_allowed(s, seat, target, KV)
        s[R.S_TO_MOVE] = seat
        R.apply_contract_move(s, R.CONTRE + target, KV)
    assert all(not R.contre_allowed(s, q, target, KV) for q in range(3))
    assert R.contract_value(s, 0, R.CT_CENT, KV) == 2 * 2 * 256  # x256 ceiling


def test_contract_round_1_ends_after_two_consecutive_passes_and_everyone_spoke():
    s = fresh(PACK)
    move(s, R.TAKE)  # seat 0 takes hearts; holds K♥ Q♥: may announce a Caisse
    assert s[R.S_PHASE] == R.P_CONTRACT1
    move(s, R.PASS)
    move(s, R.PASS)  # two passes, but seat 2 has not spoken
    assert s[R.S_PHASE] == R.P_CONTRACT1
    move(s, R.PASS)
    assert s[R.S_PHASE] != R.P_CONTRACT1 and s[R.S_PICKED] == 1
    s = fresh(PACK)
    move(s, R.TAKE)
    move(s, R.ANNOUNCE + R.CT_CAISSE)  # seat 0
    move(s, R.PASS)  # 1
    move(s, R.PASS)  # 2: two consecutive passes, all have spoken
    assert s[R.S_PHASE] != R.P_CONTRACT1
    assert s[R.S_CT + R.CT_CAISSE] == 2  # announced with 6 cards


def test_contract_restrictions():
    s = fresh(PACK)
    move(s, R.TAKE)
    assert not R.contract_allowed(s, 0, R.CT_CAPOT)  # no Capot with 6 cards
    assert not R.contract_allowed(s, 1, R.CT_CAISSE)  # seat 1 lacks the Belote
    assert R.contract_allowed(s, 0, R.CT_CAISSE)
    R.apply_contract_move(s, R.ANNOUNCE + R.CT_CENT, KV)
    assert not R.contract_allowed(s, 0, R.CT_CLARTE)  # no Clarté after a Cent
    s = taken_state(R.G_SA)
    for k in range(R.NCT):  # no trump-only contract in Sans-Atout (catalogue #4)
        assert R.contract_allowed(s, 1, k) == (not R.TRUMP_ONLY[k])


def test_example_4_defi_conceded_pays_the_stake_before_the_last_raise():
    s = taken_state(R.G_TRUMP1)
    s[R.S_CT + R.CT_CAISSE] = 1  # the taker's Caisse at 9 cards
    s[R.S_PHASE] = R.P_DEFI
    s[R.S_DEFI_TURN] = 0
    s[R.S_TO_MOVE] = 1
    assert R.defi_open(s, KV)
    move(s, R.DEFI_RAISE)  # an opponent challenges: 4
    assert s[R.S_TO_MOVE] == 0
    move(s, R.DEFI_RAISE)  # the taker re-challenges: 8
    move(s, R.DEFI_CONCEDE)  # the first opponent concedes...
    assert s[R.S_PHASE] == R.P_DEFI  # ...the second must too
    move(s, R.DEFI_CONCEDE)
    assert s[R.S_PHASE] == R.P_DONE
    assert R.marks(s, KV) == (4, 0, 0)  # (1 + 1) x 2


def test_defi_closed_by_a_contract_other_than_caisse():
    s = taken_state(R.G_TRUMP1)
    s[R.S_CT + R.CT_FAMILLE] = 1
    assert not R.defi_open(s, KV)
    s = taken_state(R.G_MG)
    assert not R.defi_open(s, KV)


def test_defi_levels_cap_at_x32_and_taker_concession():
    s = taken_state(R.G_TRUMP1)
    s[R.S_PHASE] = R.P_DEFI
    s[R.S_TO_MOVE] = 1
    move(s, R.DEFI_RAISE)
    for _ in range(2):
        move(s, R.DEFI_RAISE)  # taker
        move(s, R.DEFI_RAISE)  # an opponent
    assert s[R.S_DEFI] == 5
    legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert set(legal[:n]) == {R.DEFI_ACCEPT, R.DEFI_CONCEDE}  # x32 reached
    move(s, R.DEFI_CONCEDE)  # the taker concedes: the opponents get 16 each
    assert R.marks(s, KV) == (0, 16, 16)


@pytest.mark.parametrize("split,expected", [((4, 4, 1), (0, 0, 5)), ((5, 3, 1), (0, 3, 3)),
                                            ((3, 3, 3), (0, 0, 0)), ((1, 2, 6), (3, 3, 0))])
def test_example_5_misere_generale(split, expected):
    s = taken_state(R.G_MG, taker=-1)
    played(s, tuple((t, 0) for t in split))
    assert R.marks(s, KV) == expected


def test_misere_taker_must_take_no_trick():
    s = taken_state(R.G_MISERE, taker=2)
    played(s, ((5, 0), (4, 0), (0, 0)))
    assert R.marks(s, KV) == (0, 0, 5)
    played(s, ((5, 0), (3, 0), (1, 0)))
    assert R.marks(s, KV) == (5, 5, 0)


def claim_all(s: np.ndarray) -> None:
    """Every seat announces all it holds (§9.2) and keeps its claims."""
    for p in range(3):
        s[R.S_ANNOUNCED + p] = R.announcement(np.uint64(s[R.S_START + p]))
        s[R.S_WITHDRAWN + p] = 0
        s[R.S_SEQ_DISCLOSED + p] = -1
        s[R.S_CARRE_DISCLOSED + p] = -1


def test_example_6_and_meld_ranking():
    quarte = np.uint64(mask("7♠", "8♠", "9♠", "10♠"))
    quinte = np.uint64(mask("9♦", "10♦", "J♦", "Q♦", "K♦"))
    assert R.sequences(quarte, R.HEARTS, KV)[0] == 50
    assert R.sequences(quinte, R.HEARTS, KV)[0] == 100
    s = taken_state(R.G_TRUMP1)
    s[R.S_START + 0] = np.int64(quarte | np.uint64(mask("A♣")))
    s[R.S_START + 1] = np.int64(quinte | np.uint64(mask("7♣", "8♣", "9♣")))  # + a tierce
    s[R.S_START + 2] = 0
    claim_all(s)  # A says "quarte", B "quinte"
    assert (s[R.S_ANNOUNCED], s[R.S_ANNOUNCED + 1]) == (40, 50)
    R.validate_melds(s, KV)
    assert (s[R.S_MELD], s[R.S_MELD + 1]) == (0, 120)  # the best holder scores all his
    assert labels(s[R.S_SHOWN + 1]) >= {"9♦", "7♣"}  # and shows them (§9.3)
    assert s[R.S_SHOWN] == 0  # A's beaten quarte is never disclosed
    assert s[R.S_SEQ_DISCLOSED] == -1 and s[R.S_SEQ_DISCLOSED + 1] == -1  # lengths differ
    # no overlap: the 8 cards of one suit are one sequence
    assert R.sequences(np.uint64(0xFF), R.HEARTS, KV)[0] == 100
    # equal plain sequences: nobody scores; a trump one beats an equal plain one
    s[R.S_START + 0] = np.int64(mask("7♠", "8♠", "9♠"))
    s[R.S_START + 1] = np.int64(mask("7♦", "8♦", "9♦"))
    claim_all(s)
    R.validate_melds(s, KV)
    assert s[R.S_MELD] == 0 and s[R.S_MELD + 1] == 0
    s[R.S_START + 1] = np.int64(mask("7♥", "8♥", "9♥"))
    claim_all(s)
    R.validate_melds(s, KV)
    assert s[R.S_MELD + 1] == 20 and s[R.S_MELD] == 0
    # the tie of announced lengths made both disclose length and top card (10 x 3 + 9)
    assert s[R.S_SEQ_DISCLOSED] == 32 and s[R.S_SEQ_DISCLOSED + 1] == 32
    # fours: 80 each, by the trump order (9s beat aces in a trump game, not in SA)
    nines = np.uint64(mask("9♠", "9♥", "9♦", "9♣"))
    aces = np.uint64(mask("A♠", "A♥", "A♦", "A♣"))
    assert R.carres(nines, R.HEARTS, KV)[1] > R.carres(aces, R.HEARTS, KV)[1]
    assert R.carres(nines, -1, KV)[1] < R.carres(aces, -1, KV)[1]
    assert R.carres(aces, -1, KV)[0] == 80
    # §9.2: a player says only his longest sequence's length and "carré"
    assert R.announcement(quarte | aces) == 41
    assert R.announcement(quinte | np.uint64(mask("7♣", "8♣", "9♣"))) == 50
    assert R.announcement(np.uint64(mask("7♣", "8♣", "10♣"))) == 0


def test_silent_or_withdrawn_melds_do_not_score():
    """§9.2 "Il a le droit de ne pas en annoncer du tout même s'il en a", §9.3 "peut
    renoncer à ses prétentions": only the claims kept are compared."""
    s = taken_state(R.G_TRUMP1)
    s[R.S_START + 0] = np.int64(mask("7♠", "8♠", "9♠", "10♠"))  # a quarte
    s[R.S_START + 1] = np.int64(mask("9♦", "10♦", "J♦", "Q♦", "K♦", "9♥", "9♣", "9♠"))
    s[R.S_START + 2] = np.int64(mask("7♥", "8♥", "9♣"))
    claim_all(s)
    s[R.S_ANNOUNCED + 1] = 0  # B holds a quinte but stays silent
    R.validate_melds(s, KV)
    assert (s[R.S_MELD], s[R.S_MELD + 1]) == (50, 0)  # A's quarte scores
    assert s[R.S_SEQ_SEAT] == 0
    claim_all(s)
    s[R.S_WITHDRAWN + 1] = 1  # B announced his quinte, then dropped it (not his four)
    R.validate_melds(s, KV)
    assert (s[R.S_MELD], s[R.S_MELD + 1]) == (50, 80)
    assert labels(s[R.S_SHOWN + 1]) == {"9♠", "9♥", "9♦", "9♣"}  # not the quinte


def first_trick(game: int = R.G_TRUMP1) -> np.ndarray:
    """The first trick of a hearts game taken by seat 0, seat 0 to lead: A holds a
    quarte of spades, B a quinte of diamonds and the four 9s... (``SIX`` + ``DOWN``)."""
    s = taken_state(game)
    hands = [mask("7♠", "8♠", "9♠", "10♠", "J♥", "9♥", "A♣", "K♣", "Q♣"),
             mask("9♦", "10♦", "J♦", "Q♦", "K♦", "8♣", "10♣", "J♣", "A♥"),
             mask("7♦", "8♦", "A♦", "A♠", "K♠", "Q♠", "J♠", "K♥", "Q♥")]
    for p in range(3):
        s[R.S_HAND + p] = hands[p]
        s[R.S_DOWN + p] = 0
    R.start_play(s)
    s[R.S_TO_MOVE] = 0
    s[R.S_LEADER] = 0
    s[R.S_FIRST_LEADER] = 0
    return s


def test_meld_speech_moves_before_the_first_card():
    s = first_trick()
    legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert R.MELD_SEQ in legal[:n] and R.MELD_CARRE not in legal[:n]  # no four held
    move(s, R.MELD_SEQ)
    assert s[R.S_ANNOUNCED] == 40  # "quarte": length only
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert R.MELD_SEQ not in legal[:n]  # once
    move(s, cid("A♣"))
    move(s, R.MELD_SEQ)  # seat 1: "quinte"
    assert s[R.S_ANNOUNCED + 1] == 50
    move(s, cid("8♣"))
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert R.MELD_SEQ in legal[:n]
    move(s, cid("Q♥"))  # seat 2 trumps without a word: silent on its quarte
    assert s[R.S_ANNOUNCED + 2] == 0
    # after the trick, the claimants may withdraw: A's quarte is beaten by the
    # announced quinte (no choice left), so only B (the quinte) is asked
    assert s[R.S_PHASE] == R.P_MELD and s[R.S_TO_MOVE] == 1
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert set(legal[:n]) == {R.PASS, R.WITHDRAW_SEQ}
    move(s, R.WITHDRAW_SEQ)
    # B's claim gone, A's quarte wins; the leader of the second trick plays next
    assert s[R.S_PHASE] in (R.P_PLAY, R.P_DEFI)
    # (his quarte 50 and his tierce Q♣ K♣ A♣ 20), and shows what is still in his hand
    assert s[R.S_MELD] == 70 and s[R.S_MELD + 1] == 0 and s[R.S_MELD + 2] == 0
    assert labels(s[R.S_SHOWN]) == {"7♠", "8♠", "9♠", "10♠", "Q♣", "K♣"}
    assert s[R.S_SEQ_DISCLOSED + 1] == -1 and s[R.S_SEQ_DISCLOSED + 2] == -1


def test_heuristic_is_silent_on_a_sequence_already_outbid():
    s = first_trick()
    scratch = np.zeros(R.MAX_MOVES, dtype=np.int64)
    assert P.heuristic_move(s, KV, RULES, TB, scratch) == R.MELD_SEQ  # nothing heard yet
    move(s, R.MELD_SEQ)
    move(s, P.heuristic_move(s, KV, RULES, TB, scratch))  # its card
    s[R.S_ANNOUNCED] = 50  # as if seat 0 had said "quinte"
    s2 = s.copy()
    assert P.heuristic_move(s, KV, RULES, TB, scratch) == R.MELD_SEQ  # an equal length
    s2[R.S_ANNOUNCED] = 60  # "sixième": seat 1's quinte cannot win
    m = P.heuristic_move(s2, KV, RULES, TB, scratch)
    assert m < R.N_CARDS  # it plays its card without a word


def test_misere_has_no_meld_speech():
    s = first_trick(R.G_MISERE)
    legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert R.MELD_SEQ not in legal[:n]


def test_example_7_trump_exchange():
    six = [["J♠", "9♠", "K♣", "Q♣", "J♣", "10♣"],
           ["7♥", "9♥", "J♥", "A♠", "10♠", "Q♠"],
           ["7♠", "8♠", "7♣", "8♣", "9♣", "7♦"]]
    # proposal 10♥, indicator A♣, talon 8♥ K♠ A♦ (catalogue example 7)
    rest = [c for c in G.DECK.labels if c not in {x for h in six for x in h}
            | {"10♥", "A♣", "8♥", "K♠", "A♦"}]
    down = [rest[0:3], rest[3:6], rest[6:9]]
    pack = deck_of(six, "10♥", down, ["8♥", "K♠", "A♦"], "A♣")
    s = fresh(pack)
    move(s, R.TAKE)  # seat 0 takes hearts
    for _ in range(3):
        move(s, R.PASS)
    assert s[R.S_PHASE] == R.P_EXCHANGE and s[R.S_TO_MOVE] == 1  # the holder of 7♥
    move(s, R.SWAP)
    assert "10♥" in labels(s[R.S_HAND + 1]) and "7♥" not in labels(s[R.S_HAND + 1])
    assert s[R.S_PHASE] == R.P_EXCH_IND  # A♣ is an Ace: he may take it
    move(s, R.TAKE_IND)
    h = labels(s[R.S_HAND + 1])
    assert {"A♣", "8♥", "A♦"} <= h and "K♠" not in h and len(h) == 12
    assert s[R.S_PHASE] == R.P_DISCARD
    legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, KV, RULES, TB, legal)
    assert not any(G.DECK.labels[c].endswith("♥") for c in legal[:n])  # never a trump
    for c in ("A♠", "Q♠", rest[3]):
        move(s, cid(c))
    assert R.count(np.uint64(s[R.S_HAND + 1])) == 9 and s[R.S_PHASE] == R.P_PLAY
    assert R.count(np.uint64(s[R.S_TALON])) == 3  # 3 discards face down + ...
    assert labels(s[R.S_OUT_UP]) == {"7♥", "K♠"}  # ... the turned K♠ and the swapped 7


def test_exchange_with_the_8_when_the_proposal_is_the_7():
    s = fresh(PACK)
    s[R.S_TRUMP] = R.HEARTS
    assert R.exchange_card(s) == cid("7♥")  # proposal 10♥: the 7 swaps
    pack = deck_of(SIX, "7♥", [["10♥", "A♣", "K♦"], DOWN[1], DOWN[2]], ["8♥", "K♣", "A♦"],
                   "7♣")
    s = fresh(pack)
    s[R.S_TRUMP] = R.HEARTS
    assert R.exchange_card(s) == cid("8♥")


def test_play_rules_no_overtrump_duty_and_ultime_keeps_the_seven():
    s = taken_state(R.G_TRUMP1)
    s[R.S_PHASE] = R.P_PLAY
    s[R.S_TRICK] = 1  # past the first trick's speeches
    for p in range(3):
        s[R.S_HAND + p] = 0
    s[R.S_HAND + 0] = mask("J♥", "7♠")
    s[R.S_HAND + 1] = mask("7♥", "Q♥", "8♦")
    s[R.S_HAND + 2] = mask("8♠", "9♠")
    s[R.S_TO_MOVE] = 0
    s[R.S_LEADER] = 0
    R.apply_move(s, cid("J♥"), KV, TB)  # trump lead
    tb = TB
    legal = R.legal_cards_now(s, RULES, tb[0], tb[1], tb[2], tb[5][R.HEARTS + 1])
    assert labels(legal) == {"7♥", "Q♥"}  # follow trump, no need to beat the J
    s[R.S_CT + 1 * R.NCT + R.CT_ULTIME] = 1  # seat 1 announced an Ultime
    legal = R.legal_cards_now(s, RULES, tb[0], tb[1], tb[2], tb[5][R.HEARTS + 1])
    assert labels(legal) == {"Q♥"}  # the 7 is kept for the last trick
    s[R.S_HAND + 1] = mask("7♥", "8♦")
    legal = R.legal_cards_now(s, RULES, tb[0], tb[1], tb[2], tb[5][R.HEARTS + 1])
    assert labels(legal) == {"7♥"}  # forced out: the rules win


def test_contract_conditions():
    s = taken_state(R.G_TRUMP1)
    played(s, ((9, 150), (0, 0), (0, 0)))
    s[R.S_WON] = np.int64(R.ALL_CARDS)
    for k in range(R.NCT):
        s[R.S_CT + k] = 1
    s[R.S_LAST_SEAT] = 0
    s[R.S_LAST_CARD] = cid("7♥")
    for k in range(R.NCT):
        expected = k != R.CT_DEUX_CENTS  # 150 < 200 without melds
        assert R.contract_made(s, 0, k, KV) == expected, R.CONTRACTS[k]
    s[R.S_MELD] = 50
    assert R.contract_made(s, 0, R.CT_DEUX_CENTS, KV)
    s[R.S_WON] = np.int64(R.ALL_CARDS & ~np.uint64(mask("A♦")))  # an Ace in the talon
    assert not R.contract_made(s, 0, R.CT_44, KV)
    s[R.S_LAST_CARD] = cid("J♥")
    assert not R.contract_made(s, 0, R.CT_ULTIME, KV)


def test_opponent_contract_points_go_by_party():
    s = taken_state(R.G_TRUMP1)
    s[R.S_CT + 1 * R.NCT + R.CT_CLARTE] = 1  # seat 1 announces a Clarté
    played(s, ((5, 90), (2, 85), (2, 0)))
    assert R.marks(s, KV) == (1, 1, 1)  # game to the taker, the Clarté to both opponents
    played(s, ((5, 90), (2, 60), (2, 25)))
    assert R.marks(s, KV) == (2, 0, 0)  # failed: the taker scores it


def test_match_bar_moves_when_several_cross():
    bar = K.target
    assert R.match_winner(np.array([21, 5, 0]), bar, 20) == (0, 20)
    assert R.match_winner(np.array([25, 22, 0]), bar, 20) == (-1, 40)
    assert R.match_winner(np.array([45, 22, 0]), bar, 20) == (0, 40)
    assert R.match_winner(np.array([65, 61, 40]), bar, 20) == (-1, 80)


def test_knobs_refuse_bad_values():
    with pytest.raises(SimlabError):
        G.GAME.make_knobs({"max_contre_levels": "9"})
    with pytest.raises(SimlabError):
        G.GAME.make_knobs({"stake_misere": "-1"})


# --- whole deals ----------------------------------------------------------------------------
N = 3000


@pytest.fixture(scope="module")
def frame():
    return simlab.simulate("caisse", N, seed=7, record_hands=True)


def test_proposal_card_and_known_hands_exact(frame):
    # the proposal card is a Jack with probability 4/32
    jacks = frame["proposal_card"].cast(pl.String).str.starts_with("J").to_numpy()
    p = 4 / 32
    assert abs(jacks.mean() - p) < 5 * math.sqrt(p * (1 - p) / N)
    # the 6 cards a seat sees hold at least one Jack: 1 - C(28,6)/C(32,6)
    p = 1 - math.comb(28, 6) / math.comb(32, 6)
    six = [h[:6] for h in frame["dealt_s0"].to_list()]
    hit = np.array([any(c.startswith("J") for c in h) for h in six])
    assert abs(hit.mean() - p) < 5 * math.sqrt(p * (1 - p) / N)


def test_card_points_are_conserved(frame):
    pts = {c: (R.POINTS_PLAIN[i], R.POINTS_TRUMP[i]) for i, c in enumerate(G.DECK.labels)}
    played_ = frame.filter(pl.col("conceded").is_null())
    assert played_.height > N * 0.9
    trick_pts = sum(played_[f"trick_points_s{i}"].to_numpy() for i in range(3))
    trumps = played_["trump"].cast(pl.String).to_list()
    hands = [played_[f"hand_s{i}"].to_list() for i in range(3)]
    for r in range(played_.height):
        t = trumps[r]
        cards = [c for i in range(3) for c in hands[i][r]]
        assert len(cards) == 27
        expected = 10 + sum(pts[c][1] if t is not None and c.endswith(t) else pts[c][0]
                            for c in cards)
        assert trick_pts[r] == expected
    tricks = sum(played_[f"tricks_s{i}"].to_numpy() for i in range(3))
    assert (tricks == 9).all()
    assert (trick_pts <= 162).all()


def test_every_game_type_occurs_and_scores_are_non_negative(frame):
    games = set(frame["contract"].cast(pl.String).to_list())
    assert games == set(R.GAMES)
    assert (frame.select(pl.min_horizontal(f"score_s{i}" for i in range(3))).to_series() >= 0).all()


def test_matches_end_at_the_bar():
    f = simlab.simulate("caisse", 200, seed=3, level="match")
    assert not f["capped"].any()
    scores = np.stack([f[f"final_score_s{i}"].to_numpy() for i in range(3)], axis=1)
    w = f["winner"].to_numpy()
    bar = f["final_bar"].to_numpy()
    assert (scores[np.arange(len(w)), w] >= bar).all()
    others = scores.copy()
    others[np.arange(len(w)), w] = -1
    assert (others.max(axis=1) < bar).all()


def test_same_frame_for_jobs_and_chunks():
    a = simlab.simulate("caisse", 240, seed=2, chunk_size=240)
    b = simlab.simulate("caisse", 240, seed=2, chunk_size=70, jobs=2)
    assert a.equals(b)


def test_pure_python_matches_compiled():
    code = ("import simlab; f = simlab.simulate('caisse', 12, seed=4, policies="
            "'heuristic,random,heuristic'); print(f.write_csv())")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env,
                         capture_output=True, text=True, check=True).stdout
    f = simlab.simulate("caisse", 12, seed=4, policies="heuristic,random,heuristic")
    assert out == f.write_csv() + "\n"
