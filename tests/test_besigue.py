"""Bésigue rules pinned by hand-built positions and by every worked example of the seed
and the catalogue; deal-level invariants and exact combinatorics; matches."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.games import besigue as B
from simlab.games import get_game
from simlab.games.besigue import players as P
from simlab.games.besigue import rules as R

RANKS = ["7", "8", "9", "10", "J", "Q", "K", "A"]
SUITS = "♠♥♦♣"


def t(label: str) -> int:
    """Card type of a label such as "Q♠" or "10♦"."""
    return SUITS.index(label[-1]) * 8 + RANKS.index(label[:-1])


def kv(**knobs) -> np.ndarray:
    return R._vector(R.BesigueKnobs(**knobs))


def position(hand0: list[str], hand1: list[str] | None = None, trump: int = -1,
             to_move: int = 0, phase: int = R.P_DECLARE, k: np.ndarray | None = None
             ) -> np.ndarray:
    """A draw-phase state: seat 0 holds ``hand0`` (a trailing "*" lays the card on the
    table, unmelded), seat 1 ``hand1``; the stock holds only 8♣ (draws change nothing)."""
    k = kv() if k is None else k
    c = k[R.K_COPIES]
    deck = (np.random.default_rng(0).permutation(32 * c) // c).astype(np.int64)
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, deck, 1, 0, k)
    s[R.S_TOTAL:R.S_TOTAL + 2] = 0
    s[R.S_CUT:R.S_CUT + 2] = 0
    s[R.S_BLANCHES:R.S_BLANCHES + 2] = 0
    for p, hand in enumerate((hand0, hand1 or ["7♣"] * 9)):
        for i in range(R.HMAX):
            s[R.S_TY + p * R.HMAX + i] = -1
        for i, lab in enumerate(hand):
            s[R.S_TY + p * R.HMAX + i] = t(lab.rstrip("*"))
            s[R.S_TAB + p * R.HMAX + i] = lab.endswith("*")
    s[R.S_DECK + s[R.S_STOCK_POS]:R.S_DECK + s[R.S_N_CARDS]] = t("8♣")  # harmless draws
    s[R.S_TRUMP] = trump
    s[R.S_TO_MOVE] = to_move
    s[R.S_LEADER] = to_move
    s[R.S_PHASE] = phase
    return s


def declare(s: np.ndarray, code: int, k: np.ndarray | None = None) -> int:
    """Declare ``code`` for the seat to move (asserting it is legal) and give it the
    next declaration turn; returns the points it scored."""
    k = kv() if k is None else k
    p = s[R.S_TO_MOVE]
    if code < R.N_DECLARE:
        assert R.meld_cards(s, p, code, k) >= 0, f"declaration {code} refused"
    else:  # a suspended meld's claim or a crossed pair
        moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
        assert code in moves[:R.legal_moves(s, k, moves)], f"move {code} refused"
    before = s[R.S_MELD_PTS + p]
    R.apply_move(s, code, k)  # (the turn's draws may add cartes blanches to the total)
    s[R.S_PHASE] = R.P_DECLARE
    s[R.S_TO_MOVE] = p
    return int(s[R.S_MELD_PTS + p] - before)


def can(s: np.ndarray, code: int, k: np.ndarray | None = None) -> bool:
    return R.meld_cards(s, s[R.S_TO_MOVE], code, kv() if k is None else k) >= 0


def play(s: np.ndarray, p: int, label: str, tabled: bool | None = None) -> None:
    """Remove one copy of ``label`` from seat p's cards (a tabled one if ``tabled``)."""
    for i in range(R.HMAX):
        if s[R.S_TY + p * R.HMAX + i] == t(label) and (
                tabled is None or bool(s[R.S_TAB + p * R.HMAX + i]) == tabled):
            R.remove_card(s, p, i)
            return
    raise AssertionError(f"seat {p} has no {label}")


MAR = {s: R.M_MAR + 2 * i for i, s in enumerate(SUITS)}
DMAR = {s: R.M_MAR + 2 * i + 1 for i, s in enumerate(SUITS)}
SEQ = {s: R.M_SEQ + i for i, s in enumerate(SUITS)}
FOUR = {"J": R.M_CAR, "Q": R.M_CAR + 1, "K": R.M_CAR + 2, "A": R.M_CAR + 3}


# --- the cut (seed 3; catalogue worked example 1) -------------------------------------------
def test_cut_bonuses():
    k = kv()
    s = np.zeros(R.N_STATE, dtype=np.int64)
    deck = np.arange(128, dtype=np.int64) // 4
    R.deal(s, deck, 0, 18, k)  # exact pile: dealer +250; the guess (18) is right: +150
    assert (s[R.S_CUT], s[R.S_CUT + 1]) == (250, 150)
    R.deal(s, deck, 1, 16, k)  # pile of 16, guessed 18: nobody
    assert (s[R.S_CUT], s[R.S_CUT + 1]) == (0, 0)
    assert s[R.S_TO_MOVE] == 0  # the dealer's opponent leads
    assert R.n_held(s, 0) == R.n_held(s, 1) == 9 and R.stock_left(s) == 110


def test_exact_lift_without_noise():
    assert R.cut_lift(np.uint64(1), kv(cut_noise_sd=0.0))[1] == 18
    assert R.cut_lift(np.uint64(1), kv(variant="chinois", cut_noise_sd=0.0))[1] == 24


# --- cartes blanches (seed 3.1) -----------------------------------------------------------
def test_cartes_blanches_at_the_deal():
    k = kv()
    deck = np.full(128, t("8♣"), dtype=np.int64)
    deck[:18] = [t("7♠"), t("A♥"), t("10♦"), t("K♠"), t("Q♥"), t("J♦"),
                 t("9♠"), t("8♥"), t("7♦"), t("7♣"), t("J♥"), t("8♦"),
                 t("A♠"), t("A♥"), t("10♠"), t("9♣"), t("9♦"), t("9♥")]
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, deck, 1, 0, k)  # seat 0 (non-dealer) gets packets 1, 3, 5: no J Q K
    assert s[R.S_BLANCHES] == 50 and s[R.S_BLANCHES + 1] == 0
    s = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(s, deck, 1, 0, kv(variant="chinois"))
    assert s[R.S_BLANCHES] in (0, 250)


# --- card play (seed 5.1, 5.2; catalogue worked example 9) -------------------------------------
def test_trick_winner():
    assert not R.beats(t("10♣"), t("10♣"), -1)  # identical: the first played wins
    assert R.beats(t("A♣"), t("10♣"), -1)
    assert not R.beats(t("K♣"), t("10♣"), -1)  # 10 ranks between K and A
    assert not R.beats(t("A♥"), t("7♣"), -1)  # another suit, no trump
    assert R.beats(t("7♥"), t("A♣"), R.HEARTS)  # a trump wins
    assert not R.beats(t("7♥"), t("8♥"), R.HEARTS)


def legal_labels(s: np.ndarray, k: np.ndarray | None = None) -> set[str]:
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, kv() if k is None else k, out)
    p = s[R.S_TO_MOVE]
    return {RANKS[s[R.S_TY + p * R.HMAX + i] % 8] + SUITS[s[R.S_TY + p * R.HMAX + i] // 8]
            for i in out[:n]}


def test_end_phase_obligations():
    s = position(["A♣", "7♣", "8♥"], ["7♠"], trump=R.SPADES, to_move=0, phase=R.P_FOLLOW)
    s[R.S_END_PHASE] = 1
    s[R.S_LED] = t("10♣")
    assert legal_labels(s) == {"A♣"}  # follow and beat
    s = position(["K♣", "7♣", "8♥"], trump=R.SPADES, phase=R.P_FOLLOW)
    s[R.S_END_PHASE] = 1
    s[R.S_LED] = t("10♣")
    assert legal_labels(s) == {"K♣", "7♣"}  # cannot beat: any club
    s = position(["7♠", "8♥"], trump=R.SPADES, phase=R.P_FOLLOW)
    s[R.S_END_PHASE] = 1
    s[R.S_LED] = t("10♣")
    assert legal_labels(s) == {"7♠"}  # void: must trump
    s[R.S_TRUMP] = -1
    assert legal_labels(s) == {"7♠", "8♥"}  # no trump fixed: free
    s = position(["7♠", "8♥", "7♠*"], trump=R.SPADES, phase=R.P_FOLLOW)
    s[R.S_LED] = t("10♣")
    assert legal_labels(s) == {"7♠", "8♥"}  # draw phase: anything, tabled cards too
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    assert R.legal_moves(s, kv(), out) == 3  # the tabled 7♠ is its own move


# --- declarations (seed 5.1, 6, 10.2; catalogue worked examples 2-4) ------------------------------
def test_first_marriage_fixes_trump_and_scores_royal():
    s = position(["K♥", "Q♥", "K♠", "Q♠", "7♣"])
    assert declare(s, MAR["♥"]) == 40
    assert s[R.S_TRUMP] == R.HEARTS and s[R.S_TRUMP_BY] == 0
    assert declare(s, MAR["♠"]) == 20  # now a plain marriage
    s = position(["K♥", "Q♥", "K♥", "Q♥", "7♣"])
    assert declare(s, DMAR["♥"]) == 160  # a double marriage may fix trump (catalogue #9)


def test_fours_do_not_fix_trump():
    s = position(["K♥", "K♠", "K♣", "K♦", "7♣"])
    assert declare(s, FOUR["K"]) == 80
    assert s[R.S_TRUMP] == -1


def test_besigue_ladder_to_the_quadruple():
    s = position(["Q♠", "J♦", "Q♠", "J♦", "Q♠", "J♦", "Q♠", "J♦", "7♣"])
    got = [declare(s, R.M_BES) for _ in range(4)]
    assert got == [40, 500, 1500, 4500]
    assert int(np.cumsum(got)[-1]) == 6540 and s[R.S_BES_MAX] == 4
    assert not can(s, R.M_BES)  # no fifth while the quadruple stands


def test_besigues_laid_together_climb_the_ladder_with_a_suspended_rung():
    # Seed 10.2: a Bésigue, then another on a later turn: 40 + 500 = 540 in all; "Ceci
    # peut aussi se faire avec une déclaration suspendue si on dépose les 2 Bésigues d'un
    # coup": both laid at once score 40 now and the double's 500 on a later turn.
    # (Before crossed melds were coded, laying both at once scored 500 alone.)
    s = position(["Q♠", "J♦", "Q♠", "J♦", "7♣"])
    assert declare(s, R.M_BES) == 40
    assert declare(s, R.M_BES) == 500
    s = position(["Q♠", "J♦", "Q♠", "J♦", "7♣"])
    assert declare(s, R.M_BES + 1) == 40
    assert suspended(s) == [R.LADDER + 2] and s[R.S_BES_MAX] == 1
    assert declare(s, claim_move(s)) == 500
    assert s[R.S_MELD_PTS] == 540 and s[R.S_BES_MAX] == 2 and suspended(s) == []


def test_no_quintuple_in_the_chinois():
    k = kv(variant="chinois")
    s = position(["Q♠"] * 5 + ["J♦"] * 5 + ["7♣", "7♣"], k=k)
    for _ in range(4):
        declare(s, R.M_BES, k)
    assert s[R.S_BES_MAX] == 4 and not can(s, R.M_BES, k)
    play(s, 0, "J♦", tabled=True)  # break the quadruple (seed 10.2) ...
    s[R.S_PHASE] = R.P_DECLARE
    assert declare(s, R.M_BES, k) == 4500  # ... and the fifth Bésigue makes a new one


def test_crossed_melds_share_one_card():
    # Catalogue example 4: ♥ trump; K♠ Q♠ J♦ is a marriage and a Bésigue sharing Q♠.
    s = position(["K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    assert declare(s, R.M_BES) == 40
    assert declare(s, MAR["♠"]) == 20  # on a later turn, reusing the tabled Q♠
    assert sum(s[R.S_TAB:R.S_TAB + 4]) == 3


def cross(a: int, b: int) -> int:
    return R.M_CROSS + a * R.N_DECLARE + b


def suspended(s: np.ndarray, p: int = 0) -> list[int]:
    """What seat p's suspended melds will score: declaration codes or LADDER + rung."""
    return [int(s[R.S_MS + p * R.MAXM + j]) for j in range(R.MAXM) if s[R.S_MS + p * R.MAXM + j]]


def legal(s: np.ndarray, k: np.ndarray | None = None) -> list[int]:
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    return [int(m) for m in moves[:R.legal_moves(s, kv() if k is None else k, moves)]]


def claim_move(s: np.ndarray) -> int:
    """The only suspended-meld move the seat to move has (asserting there is one)."""
    claims = [m for m in legal(s) if R.M_CLAIM <= m < R.M_CROSS]
    assert len(claims) == 1, claims
    return claims[0]


def test_crossed_melds_laid_together_one_scored_the_other_suspended():
    # Seed 5.1 + catalogue example 4: K♠ Q♠ J♦ (♥ trump) laid at once: the Bésigue's 40
    # now, the marriage's 20 suspended until A wins another draw-phase trick.
    s = position(["K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    moves = legal(s)
    assert cross(R.M_BES, MAR["♠"]) in moves and cross(MAR["♠"], R.M_BES) in moves
    assert declare(s, cross(R.M_BES, MAR["♠"])) == 40
    assert sum(s[R.S_TAB:R.S_TAB + 4]) == 3 and suspended(s) == [MAR["♠"]]
    assert R.has_declaration(s, 0, kv())  # the next trick won opens the claim
    assert declare(s, claim_move(s)) == 20
    assert s[R.S_MELD_PTS] == 60 and s[R.S_N_MELDS] == 2 and suspended(s) == []
    assert not R.has_declaration(s, 0, kv())  # nothing left: claimed once only
    # the other order: the marriage now, the Bésigue later
    s = position(["K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    assert declare(s, cross(MAR["♠"], R.M_BES)) == 20
    assert declare(s, claim_move(s)) == 40 and s[R.S_BES_PTS] == 40


def test_crossing_needs_a_shared_card_and_two_types():
    s = position(["K♥", "Q♥", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    assert not [m for m in legal(s) if m >= R.M_CROSS]  # nothing shared: one at a time
    s = position(["K♠", "Q♠", "K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    for m in legal(s):
        if m >= R.M_CROSS:
            a, b = divmod(m - R.M_CROSS, R.N_DECLARE)
            assert R.meld_type(a) != R.meld_type(b)
    # K♠ Q♠ K♥ K♦ K♣ J♦ Q♠: a four of Kings crosses the marriage, and the Bésigue too
    s = position(["K♠", "Q♠", "K♥", "K♦", "K♣", "J♦", "7♣"], trump=R.HEARTS)
    assert {cross(FOUR["K"], MAR["♠"]), cross(MAR["♠"], FOUR["K"]),
            cross(R.M_BES, MAR["♠"])} <= set(legal(s))
    assert cross(FOUR["K"], R.M_BES) not in legal(s)  # the four and the Bésigue share none


def test_a_suspended_meld_dies_when_one_of_its_cards_is_played():
    # Catalogue #6: scored only if all its cards are still on the table.
    s = position(["K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    declare(s, cross(R.M_BES, MAR["♠"]))
    play(s, 0, "K♠")  # the marriage's K♠ goes to a trick
    s[R.S_PHASE] = R.P_DECLARE
    assert suspended(s) == [] and not [m for m in legal(s) if m >= R.M_CLAIM]
    # playing the scored Bésigue's J♦ instead leaves the suspended marriage claimable
    s = position(["K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    declare(s, cross(R.M_BES, MAR["♠"]))
    play(s, 0, "J♦")
    assert declare(s, claim_move(s)) == 20
    # the double Bésigue is made of two Bésigues: breaking the first kills the rung
    s = position(["Q♠", "J♦", "Q♠", "J♦", "7♣"])
    declare(s, R.M_BES + 1)
    j = next(j for j in range(R.MAXM) if s[R.S_MK + j] == R.KIND_BES and not s[R.S_MS + j])
    first = int(s[R.S_MM + j])
    R.remove_card(s, 0, (first & -first).bit_length() - 1)
    assert not [m for m in legal(s) if R.M_CLAIM <= m < R.M_CROSS]


def test_only_one_meld_scored_per_turn():
    # Seed 10.2 / catalogue #7: three Bésigues at once: 40 now; the 500 and the 1500
    # are suspended and claimed on two later turns, one each.
    s = position(["Q♠", "J♦"] * 3 + ["7♣"])
    assert declare(s, R.M_BES + 2) == 40
    assert sorted(suspended(s)) == [R.LADDER + 2, R.LADDER + 3]
    claims = [m for m in legal(s) if R.M_CLAIM <= m < R.M_CROSS]
    assert len(claims) == 2
    R.apply_move(s, claims[0], kv())  # one claim ends the turn: draws, then a lead
    assert s[R.S_PHASE] == R.P_LEAD and len(suspended(s)) == 1
    s[R.S_PHASE] = R.P_DECLARE
    s[R.S_TO_MOVE] = 0
    assert declare(s, claim_move(s)) in (500, 1500)
    assert s[R.S_MELD_PTS] == 40 + 500 + 1500 and s[R.S_BES_MAX] == 3


def test_no_suspended_meld_in_the_end_phase():
    # Seed 5.2: "Il n'est plus autorisé ... de marquer des combinaisons suspendues".
    k = kv()
    s = position(["K♠", "Q♠", "J♦", "7♣", "7♣", "7♣", "7♣", "7♣", "7♣"], trump=R.HEARTS)
    s[R.S_STOCK_POS] = s[R.S_N_CARDS] - 2  # the last draw-phase turn
    R.apply_move(s, cross(R.M_BES, MAR["♠"]), k)
    assert s[R.S_END_PHASE] == 1 and s[R.S_MELD_PTS] == 40
    assert (s[R.S_MS:R.S_MS + 2 * R.MAXM] == 0).all()
    assert not any(R.claimable(s, 0, j) for j in range(R.MAXM))
    R.apply_move(s, 0, k)  # K♠ led ...
    R.apply_move(s, 0, k)  # ... 7♣: seat 0 wins an end-phase trick and just leads again
    assert s[R.S_PHASE] == R.P_LEAD and s[R.S_TO_MOVE] == 0 and s[R.S_MELD_PTS] == 40


def test_a_suspended_marriage_fixes_trump_when_it_is_laid():
    # Seed 5.1: trump is "fixé par la couleur de la première combinaison posée" (laid),
    # the suspended half of a crossed declaration included (issue 31, item 7; before,
    # trump waited until the marriage was scored). More in test_besigue_rules2.py.
    s = position(["K♠", "Q♠", "J♦", "7♣"])
    assert declare(s, cross(R.M_BES, MAR["♠"])) == 40
    assert s[R.S_TRUMP] == R.SPADES and s[R.S_TRUMP_BY] == 0
    assert declare(s, claim_move(s)) == 40  # its own suit is trump: royal
    assert s[R.S_TRUMP] == R.SPADES


def test_a_married_card_is_not_married_again():
    s = position(["K♠", "Q♠", "K♠", "7♣"], trump=R.HEARTS)
    declare(s, MAR["♠"])
    assert not can(s, MAR["♠"])  # the only Q♠ is married
    s = position(["K♠", "Q♠", "K♠", "Q♠", "7♣"], trump=R.HEARTS)
    assert declare(s, MAR["♠"]) == 20
    assert declare(s, MAR["♠"]) == 80  # a parallel marriage: the double
    s = position(["Q♠", "J♦", "J♦", "7♣"])
    declare(s, R.M_BES)
    assert not can(s, R.M_BES)  # "Il en va de même pour les Bésigues"


def test_a_declaration_needs_a_card_from_the_hand():
    s = position(["K♠", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    declare(s, MAR["♠"])
    declare(s, R.M_BES)
    play(s, 0, "K♠")  # the marriage breaks; Q♠ stays in the Bésigue
    s[R.S_PHASE] = R.P_DECLARE
    assert not can(s, R.M_BES)  # Q♠ + J♦ are both on the table already
    assert not can(s, R.M_BES, kv(card_from_hand=False))  # the J♦'s Bésigue still stands
    s = position(["Q♠", "Q♥", "Q♦", "Q♣", "J♦", "J♥", "J♠", "J♣", "7♣"])
    declare(s, FOUR["Q"])
    declare(s, FOUR["J"])
    assert not can(s, R.M_BES)
    assert can(s, R.M_BES, kv(card_from_hand=False))  # the seed as printed


def test_clean_table_rule():
    s = position(["K♥", "Q♥", "Q♠", "J♦", "7♣"], trump=R.HEARTS)
    declare(s, MAR["♥"])
    play(s, 0, "Q♥")  # K♥ is left alone on the table
    s[R.S_PHASE] = R.P_DECLARE
    assert not can(s, R.M_BES)
    off = kv(clean_table_rule=False)
    assert can(s, R.M_BES, off)
    play(s, 0, "K♥")  # played off to a trick: the table is clean again
    assert can(s, R.M_BES)


def test_broken_sequence_leaves_a_remnant_that_is_no_marriage():
    s = position(["J♠", "Q♠", "K♠", "10♠", "A♠", "Q♠", "J♦", "7♣"])
    assert declare(s, SEQ["♠"]) == 250  # fixes trump: royal
    assert s[R.S_TRUMP] == R.SPADES
    play(s, 0, "A♠")
    play(s, 0, "J♠")
    play(s, 0, "10♠")
    s[R.S_PHASE] = R.P_DECLARE
    # K♠ Q♠ remain: no marriage from them, but they do not block another declaration
    tabled_q = [i for i in range(R.HMAX) if s[R.S_TY + i] == t("Q♠") and s[R.S_TAB + i]]
    assert tabled_q and R.covered(s, 0, tabled_q[0])
    code = R.meld_cards(s, 0, MAR["♠"], kv())
    assert code >= 0  # legal only with the other Q♠, from the hand
    q_slots = [i for i in range(R.HMAX) if code >> i & 1 and s[R.S_TY + i] == t("Q♠")]
    assert q_slots and not s[R.S_TAB + q_slots[0]]
    play(s, 0, "Q♠", tabled=False)
    assert not can(s, MAR["♠"])
    assert can(s, R.M_BES)  # Q♠ of the remnant + J♦


def test_fours_repeat_only_in_the_chinois():
    s = position(["K♥", "K♠", "K♣", "K♦", "K♠", "7♣"])
    declare(s, FOUR["K"])
    assert not can(s, FOUR["K"])  # japonais: the fifth K cannot join
    play(s, 0, "K♥")  # a member played away ...
    s[R.S_PHASE] = R.P_DECLARE
    assert declare(s, FOUR["K"]) == 80  # ... and the four is re-formed
    k = kv(variant="chinois")
    s = position(["K♥", "K♠", "K♣", "K♦", "K♠", "7♣"], k=k)
    declare(s, FOUR["K"], k)
    assert declare(s, FOUR["K"], k) == 80  # chinois: the fifth card scores a new four


def test_chinois_trump_fours():
    k = kv(variant="chinois")
    s = position(["A♥"] * 4 + ["7♣"], trump=R.HEARTS, k=k)
    assert declare(s, R.M_TCAR + 4, k) == 1000
    assert not can(position(["A♥"] * 4 + ["7♣"], trump=R.HEARTS), R.M_TCAR + 4)  # japonais
    with pytest.raises(SimlabError, match="chinois"):
        R.BesigueKnobs(four_trump_aces=5)


def test_end_of_the_draw_phase_returns_the_melds():
    k = kv()
    s = position(["K♥", "Q♥", "7♣", "7♣", "7♣", "7♣", "7♣", "7♣", "7♣"], phase=R.P_DECLARE)
    s[R.S_STOCK_POS] = s[R.S_N_CARDS] - 2  # the last two cards
    R.apply_move(s, MAR["♥"], k)  # the declaration of the last draw-phase turn
    assert s[R.S_END_PHASE] == 1 and R.stock_left(s) == 0
    assert s[R.S_TAB:R.S_TAB + 2 * R.HMAX].sum() == 0
    assert (s[R.S_MK:R.S_MK + 2 * R.MAXM] == -1).all()
    assert s[R.S_PHASE] == R.P_LEAD and s[R.S_MELD_PTS] == 40
    # the next trick is an end-phase trick: its winner goes on leading, no declaration
    s[R.S_TY:R.S_TY + 9] = [t(x) for x in ("K♥", "Q♥", "7♣", "7♣", "7♣", "7♣", "7♣", "7♣", "7♣")]
    s[R.S_TY + R.HMAX:R.S_TY + R.HMAX + 9] = t("7♦")
    R.apply_move(s, 0, k)  # K♥ led
    R.apply_move(s, 0, k)  # 7♦
    assert s[R.S_PHASE] == R.P_LEAD and s[R.S_TO_MOVE] == 0


# --- end of the deal: brisques and the Rubicon (seed 7; catalogue examples 5-8) ------------------
def outcome(t0, t1, b0=16, b1=16, counted=False, last=0, **knobs):
    w, pts, _, _ = R.deal_outcome(t0, t1, b0, b1, counted, last, kv(**knobs))
    return w, pts


def test_rubicon_examples():
    assert outcome(1230, 640) == (0, 2800)  # example 5: 1000 + 1870, rounded down
    assert outcome(1230, 640, 23, 9, counted=True) == (0, 3100)  # B asks: still below
    assert outcome(2150, 1300) == (0, 1300)  # example 6: 500 + 850
    assert outcome(900, 700) == (0, 2600)  # example 7: both below, 1000 + 1600
    assert outcome(1100, 1100, 17, 15) == (0, 500)  # example 8: tie, brisques decide
    assert outcome(1100, 1100, 16, 16, last=1) == (1, 500)  # then the last trick
    assert outcome(3500, 2000, variant="chinois") == (0, 6500)  # chinois Rubicon 3000


def test_request_is_taken_when_it_pays():
    s = position(["7♣"], ["7♣"], phase=R.P_REQUEST, to_move=1)
    s[R.S_TOTAL], s[R.S_TOTAL + 1] = 1000, 950
    s[R.S_BRISQUES], s[R.S_BRISQUES + 1] = 10, 22  # counting lifts seat 1 above seat 0
    s[R.S_LAST_WINNER] = 0
    assert P.request_gain(s, kv()) > 0
    assert P.heuristic_move(s, kv(), np.zeros(R.MAX_MOVES, dtype=np.int64), s.copy()) == R.REQUEST
    R.apply_move(s, R.REQUEST, kv())
    assert s[R.S_PHASE] == R.P_DONE and s[R.S_WINNER] == 1
    assert s[R.S_MARKS + 1] == (500 + 1170 - 1100) // 100 * 100


# --- deals: invariants and combinatorics ------------------------------------------------------------
def frame(n=400, seed=7, policies=("heuristic", "heuristic"), record=False, **knobs) -> pl.DataFrame:
    k = R.BesigueKnobs(**knobs)
    return to_frame(B.run_deals(k, policies, seed, 0, n, record), B.deal_columns(k),
                    B.DECK.labels, 2)


@pytest.mark.parametrize("variant,brisques,tricks", [("japonais", 32, 64), ("chinois", 48, 96)])
def test_deal_conservation(variant, brisques, tricks):
    k = R.BesigueKnobs(variant=variant)
    _, _, _, _, last, rubicon, _ = k.values()
    for pol in (("heuristic", "heuristic"), ("random", "heuristic")):
        f = frame(300, policies=pol, variant=variant)
        assert (f["brisques_s0"] + f["brisques_s1"] == brisques).all()
        assert (f["tricks_s0"] + f["tricks_s1"] == tricks).all()
        for p in (0, 1):
            parts = (f[f"meld_s{p}"] + f[f"blanches_s{p}"] + f[f"cut_bonus_s{p}"]
                     + pl.Series((f["last_trick"] == p).cast(pl.Int32) * last))
            assert (f[f"total_s{p}"] == parts).all()
            assert (f[f"meld_s{p}"] == f[f"besigue_s{p}"] + f[f"marriage_s{p}"]
                    + f[f"four_s{p}"] + f[f"sequence_s{p}"]).all()
        # the winner alone marks, a multiple of 100, by the Rubicon formula
        assert ((f["score_s0"] == 0) != (f["score_s1"] == 0)).all()
        k_b = k.brisque_value
        fin = [f[f"total_s{p}"] + f["brisques_counted"].cast(pl.Int32) * f[f"brisques_s{p}"] * k_b
               for p in (0, 1)]
        w = f["winner"]
        tw = pl.select(pl.when(w == 0).then(fin[0]).otherwise(fin[1])).to_series()
        tl = pl.select(pl.when(w == 0).then(fin[1]).otherwise(fin[0])).to_series()
        expect = pl.select(pl.when(tl < rubicon).then(1000 + tw + tl).otherwise(500 + tw - tl)
                           // 100 * 100).to_series()
        got = pl.select(pl.when(w == 0).then(f["score_s0"]).otherwise(f["score_s1"])).to_series()
        assert (got == expect).all()
        assert (tw >= tl).all()
        assert (f["rubicon_missed"] == (tl < rubicon)).all()


def test_dealt_hand_holds_a_besigue_at_the_hypergeometric_rate():
    """P(9 cards of 128 hold >= 1 Q♠ and >= 1 J♦), exact by inclusion-exclusion."""
    n = 4000
    f = frame(n, seed=11, policies=("random", "random"), record=True)
    hands = f["dealt_s0"].to_list() + f["dealt_s1"].to_list()
    hits = sum(("Q♠" in h) and ("J♦" in h) for h in hands)
    c = math.comb
    p = 1 - 2 * c(124, 9) / c(128, 9) + c(120, 9) / c(128, 9)
    m = len(hands)  # the two hands of a deal are nearly independent: a tolerance of 5.5 se
    assert abs(hits / m - p) < 5.5 * math.sqrt(p * (1 - p) / m), (hits / m, p)
    blank = sum(not any(x[:-1] in ("J", "Q", "K") for x in h) for h in hands)
    q = c(80, 9) / c(128, 9)
    assert abs(blank / m - q) < 5.5 * math.sqrt(q * (1 - q) / m), (blank / m, q)
    assert all(len(h) == 9 for h in hands)


def test_dealer_bonus_rate():
    f = frame(4000, seed=5, policies=("random", "random"))
    got = pl.select(pl.when(f["dealer"] == 0).then(f["cut_bonus_s0"])
                    .otherwise(f["cut_bonus_s1"])).to_series()
    p = math.comb(16, 8) / 2 ** 16
    rate = float((got >= 250).mean())
    assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / 4000)


# --- matches --------------------------------------------------------------------------------
@pytest.mark.parametrize("variant,target", [("japonais", 5000), ("chinois", 10000)])
def test_matches_reach_the_target(variant, target):
    k = R.BesigueKnobs(variant=variant)
    rows = B.run_matches(k, ("heuristic", "heuristic"), 3, 0, 15).rows
    f = to_frame(B.run_matches(k, ("heuristic", "random"), 3, 0, 15), B.match_columns(k),
                 B.DECK.labels, 2)
    for m in (rows,):
        assert (m[:, 2] >= 0).all()  # no capped match
    assert not f["capped"].any()
    win = f["winner"].to_numpy()
    final = np.where(win == 0, f["final_score_s0"].to_numpy(), f["final_score_s1"].to_numpy())
    other = np.where(win == 0, f["final_score_s1"].to_numpy(), f["final_score_s0"].to_numpy())
    assert (final >= target).all() and (other < target).all()
    assert (win == 0).mean() > 0.7  # heuristic at seat 0 against random


# --- knobs ---------------------------------------------------------------------------------
def test_bad_knobs_are_one_line_errors():
    with pytest.raises(SimlabError, match="variant"):
        R.BesigueKnobs(variant="coinche")
    with pytest.raises(SimlabError, match="out of range"):
        R.BesigueKnobs(quad_besigue=-1)
    with pytest.raises(SimlabError, match="match_target"):
        R.BesigueKnobs(match_target=0)
    assert R.BesigueKnobs(rubicon=0).values()[5] == 0
    assert R.BesigueKnobs(variant="chinois").values() == (6, 12, 24, 250, 250, 3000, 10000)


# --- the balance questions ----------------------------------------------------------------
def test_question_metrics_on_a_small_run():
    from simlab.analysis.metrics import compute

    f = frame(300, seed=2)
    ms = {m.key: m.estimate.value for m in compute(get_game("besigue"), f, {}, "deal").metrics}
    asked = (f["requested_by"] >= 0).mean()
    assert ms["besigue.q2.requested"] == pytest.approx(asked)
    assert 0 <= ms["besigue.q2.rescued"] <= ms["besigue.q2.requested"]
    assert ms["besigue.q5.meld_points"] == pytest.approx(float((f["meld_s0"] + f["meld_s1"]).mean()))
    assert ms["besigue.q4.besigue_share"] == pytest.approx(
        float((f["besigue_s0"] + f["besigue_s1"]).sum() / (f["meld_s0"] + f["meld_s1"]).sum()))
    m = simlab_matches(20)
    mm = {x.key: x.estimate.value for x in compute(get_game("besigue"), m, {}, "match").metrics}
    assert mm["besigue.q3.length"] == pytest.approx(float(m["n_deals"].mean()))


def simlab_matches(n: int) -> pl.DataFrame:
    k = R.BesigueKnobs()
    return to_frame(B.run_matches(k, ("heuristic", "heuristic"), 5, 0, n), B.match_columns(k),
                    B.DECK.labels, 2)


# --- meld bookkeeping under random play (every declaration gets explored) --------------------
MELD_TYPES = {R.KIND_BES: {t("Q♠"), t("J♦")}}


def kind_types(kind: int) -> set[int]:
    """The card types a standing meld of ``kind`` may hold."""
    if kind < R.KIND_BES:
        s = kind - R.KIND_MAR
        return {s * 8 + 5, s * 8 + 6}
    if kind == R.KIND_BES:
        return {t("Q♠"), t("J♦")}
    if kind < R.KIND_SEQ:
        r = int(R.CARRE_RANKS[kind - R.KIND_CAR])
        return {s * 8 + r for s in range(4)}
    s = (kind - R.KIND_SEQ) % 4
    return {s * 8 + r for r in (3, 4, 5, 6, 7)}


def check_bookkeeping(s: np.ndarray, k: np.ndarray, declared_by: int) -> None:
    copies = np.zeros(R.N_TYPES, dtype=np.int64)
    for p in range(2):
        cover = 0
        same_kind: dict[int, int] = {}
        for j in range(R.MAXM):
            kind = s[R.S_MK + p * R.MAXM + j]
            if kind < 0:
                continue
            m = int(s[R.S_MM + p * R.MAXM + j])
            types = [s[R.S_TY + p * R.HMAX + i] for i in range(R.HMAX) if m >> i & 1]
            size = {R.KIND_BES: 2, R.KIND_REM: 2}.get(kind, None)
            size = size or (2 if kind < R.KIND_BES else 4 if kind < R.KIND_SEQ else
                            2 if kind >= R.KIND_REM else 5)
            assert len(types) == size and set(types) <= kind_types(kind), (kind, types)
            assert all(s[R.S_TAB + p * R.HMAX + i] for i in range(R.HMAX) if m >> i & 1)
            chinois_four = k[R.K_CHINOIS] and R.KIND_CAR <= kind < R.KIND_SEQ
            if not chinois_four:  # no card in two standing melds of one kind
                assert same_kind.get(kind, 0) & m == 0
            same_kind[kind] = same_kind.get(kind, 0) | m
            cover |= m
        tabled = sum(1 << i for i in range(R.HMAX) if s[R.S_TAB + p * R.HMAX + i])
        if p == declared_by:  # the clean-table rule, right after a declaration
            assert tabled & ~cover == 0
        if s[R.S_END_PHASE]:
            assert tabled == 0
        for i in range(R.HMAX):
            if s[R.S_TY + p * R.HMAX + i] >= 0:
                copies[s[R.S_TY + p * R.HMAX + i]] += 1
    for pos in range(s[R.S_STOCK_POS], s[R.S_N_CARDS]):
        copies[s[R.S_DECK + pos]] += 1
    copies += s[R.S_GONE:R.S_GONE + R.N_TYPES]
    assert (copies == k[R.K_COPIES]).all()  # every physical card somewhere, once
    # a suspended meld is a standing one; none survives the draw phase
    ms = s[R.S_MS:R.S_MS + 2 * R.MAXM]
    assert ((ms == 0) | (s[R.S_MK:R.S_MK + 2 * R.MAXM] >= 0)).all()
    assert not (s[R.S_END_PHASE] and ms.any())


@pytest.mark.parametrize("variant", ["japonais", "chinois"])
def test_meld_bookkeeping_under_random_play(variant):
    """Random and heuristic moves, random declarations: standing melds hold the right
    cards, all on the table; no card in two melds of one kind (but chinois fours); the
    clean-table rule after every declaration; nothing tabled in the end phase; every
    physical card in a hand, the stock or a trick, once."""
    k = kv(variant=variant)
    gen = np.random.default_rng(5)
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    declared = crossed = claimed = 0
    for seed in range(12):
        c = k[R.K_COPIES]
        deck = (np.random.default_rng(seed).permutation(32 * c) // c).astype(np.int64)
        s = np.zeros(R.N_STATE, dtype=np.int64)
        R.deal(s, deck, seed % 2, 18, k)
        while s[R.S_PHASE] != R.P_DONE:
            n = R.legal_moves(s, k, moves)
            assert n >= 1
            ph, p = s[R.S_PHASE], s[R.S_TO_MOVE]
            special = [int(x) for x in moves[:n] if x >= R.M_CLAIM]
            if ph == R.P_DECLARE and special and gen.random() < 0.7:
                m = special[gen.integers(len(special))]  # crossed pairs and claims
            elif ph == R.P_DECLARE and n > 1 and gen.random() < 0.9:
                m = int(moves[1 + gen.integers(n - 1)])  # mostly declare, to fill the table
            elif gen.random() < 0.5:  # the heuristic wins tricks to declare, and re-forms
                m = int(P.heuristic_move(s, k, moves.copy(), s.copy()))
            else:
                m = int(moves[gen.integers(n)])
            R.apply_move(s, m, k)
            # (a claim lays nothing: it marks a meld announced when it was laid)
            by = p if ph == R.P_DECLARE and m != R.M_PASS and not R.M_CLAIM <= m < R.M_CROSS else -1
            declared += ph == R.P_DECLARE and m != R.M_PASS
            crossed += m >= R.M_CROSS and ph == R.P_DECLARE
            claimed += R.M_CLAIM <= m < R.M_CROSS and ph == R.P_DECLARE
            check_bookkeeping(s, k, by)
    assert declared > 100 and crossed > 5 and claimed > 2


def test_sequence_reform_knob():
    for reform in (True, False):
        k = kv(sequence_reform=reform)
        s = position(["J♠", "Q♠", "K♠", "10♠", "A♠", "Q♠", "7♣"], k=k)
        assert declare(s, SEQ["♠"], k) == 250
        play(s, 0, "Q♠", tabled=True)  # broken: J K 10 A stay, uncovered
        s[R.S_PHASE] = R.P_DECLARE
        assert can(s, SEQ["♠"], k) == reform  # re-formed with the hand's Q♠, or never
