"""Caisse rules fixed after issue 31, each on a hand-built position: no Sans-Atout over
Sans-Atout (§5.2), the défi's surcontre by either opponent (§11), no Clarté and Cent in
one speech (§7.1), the heuristic's leads among its legal cards under an Ultime (§7.1,
catalogue #11), and the ``misere_contre`` knob (§10 against §11)."""

from __future__ import annotations

import numpy as np

from simlab.games.caisse import players as P
from simlab.games.caisse import rules as R
from tests.test_caisse import KV, PACK, RULES, TB, cid, first_trick, fresh, mask, move, taken_state


def legal_set(s: np.ndarray, kv: np.ndarray = KV) -> set[int]:
    out = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(s, kv, RULES, TB, out)
    return {int(m) for m in out[:n]}


# --- 1. §5.2: nothing is stronger than Sans-Atout ------------------------------------------
def round_2() -> np.ndarray:
    s = fresh(PACK)  # dealer 2, proposal 10♥: seat 0 speaks first
    for _ in range(3):
        move(s, R.PASS)
    assert s[R.S_PHASE] == R.P_DECL2
    return s


def test_sans_atout_cannot_be_outbid_by_sans_atout():
    s = round_2()
    move(s, R.SANS_ATOUT)  # seat 0
    assert legal_set(s) == {R.PASS}  # seat 1: only a pass is left
    move(s, R.PASS)
    assert legal_set(s) == {R.PASS}  # seat 2 likewise
    move(s, R.PASS)
    assert s[R.S_TAKER] == 0 and s[R.S_GAME] == R.G_SA and s[R.S_PHASE] == R.P_CONTRACT1


def test_sans_atout_still_outbids_the_strongest_suit():
    s = round_2()
    move(s, R.NAME + R.CLUBS)  # seat 0: clubs, the strongest suit
    assert legal_set(s) == {R.PASS, R.SANS_ATOUT}
    move(s, R.SANS_ATOUT)  # seat 1 takes over
    assert legal_set(s) == {R.PASS}
    move(s, R.PASS)
    assert s[R.S_TAKER] == 1 and s[R.S_GAME] == R.G_SA


# --- 2. §11: "pour ... surcontrer le preneur, il suffit que l'un d'entre eux le décide" --------
def defi_after_the_takers_raise(kv: np.ndarray = KV) -> np.ndarray:
    """Taker seat 0 (trump game, stake 1); seat 1 challenged (x2), the taker re-challenged
    (x4): the opponents answer, seat 1 first."""
    s = taken_state(R.G_TRUMP1)
    s[R.S_PHASE] = R.P_DEFI
    s[R.S_DEFI_TURN] = 0
    s[R.S_TO_MOVE] = 1
    s[R.S_LEADER] = 2
    R.apply_move(s, R.DEFI_RAISE, kv, TB)
    assert s[R.S_TO_MOVE] == 0
    R.apply_move(s, R.DEFI_RAISE, kv, TB)
    assert s[R.S_TO_MOVE] == 1 and s[R.S_DEFI] == 2
    return s


def test_second_opponent_may_surcontre_after_the_first_accepts():
    s = defi_after_the_takers_raise()
    move(s, R.DEFI_ACCEPT)  # seat 1 would play at x4...
    assert s[R.S_PHASE] == R.P_DEFI and s[R.S_TO_MOVE] == 2  # ...seat 2 is still asked
    # conceding needs both opponents, and seat 1 accepted: seat 2 plays on or raises
    assert legal_set(s) == {R.DEFI_ACCEPT, R.DEFI_RAISE}
    move(s, R.DEFI_RAISE)  # one opponent suffices to surcontre
    assert s[R.S_DEFI] == 3 and s[R.S_TO_MOVE] == 0 and s[R.S_PHASE] == R.P_DEFI
    move(s, R.DEFI_ACCEPT)  # the taker plays at x8
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 2
    assert R.game_value(s, KV) == 8


def test_both_opponents_accept_and_play_resumes():
    s = defi_after_the_takers_raise()
    move(s, R.DEFI_ACCEPT)
    move(s, R.DEFI_ACCEPT)
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_TO_MOVE] == 2 and s[R.S_CONCEDED] == -1
    assert R.game_value(s, KV) == 4


def test_one_concession_alone_does_not_concede():
    s = defi_after_the_takers_raise()
    move(s, R.DEFI_CONCEDE)  # seat 1 would concede...
    assert legal_set(s) == {R.DEFI_ACCEPT, R.DEFI_CONCEDE, R.DEFI_RAISE}
    move(s, R.DEFI_ACCEPT)  # ...seat 2 plays: no concession
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_CONCEDED] == -1
    assert R.game_value(s, KV) == 4
    s = defi_after_the_takers_raise()
    move(s, R.DEFI_CONCEDE)
    move(s, R.DEFI_RAISE)  # seat 2 surcontres over seat 1's concession
    assert s[R.S_DEFI] == 3 and s[R.S_TO_MOVE] == 0


def test_at_the_defi_cap_the_first_accept_resumes_play():
    kv = KV.copy()
    kv[R.K_DEFI_LEVELS] = 2  # no surcontre left after the taker's raise
    s = defi_after_the_takers_raise(kv)
    assert legal_set(s, kv) == {R.DEFI_ACCEPT, R.DEFI_CONCEDE}
    R.apply_move(s, R.DEFI_ACCEPT, kv, TB)  # the second opponent has nothing to add
    assert s[R.S_PHASE] == R.P_PLAY and s[R.S_DEFI] == 2


# --- 3. §7.1: "une Clarté après, ou au même moment, qu'un Cent" ------------------------------
def test_no_cent_in_the_speech_that_announced_a_clarte():
    s = first_trick()  # seat 0 to speak before its first card (9 cards)
    assert {R.ANNOUNCE + R.CT_CLARTE, R.ANNOUNCE + R.CT_CENT} <= legal_set(s)
    move(s, R.ANNOUNCE + R.CT_CLARTE)
    assert R.ANNOUNCE + R.CT_CENT not in legal_set(s)  # the same moment
    assert s[R.S_TO_MOVE] == 0  # still his speech: other contracts stay open
    assert R.ANNOUNCE + R.CT_CAPOT in legal_set(s)
    s = first_trick()
    move(s, R.ANNOUNCE + R.CT_CENT)
    assert R.ANNOUNCE + R.CT_CLARTE not in legal_set(s)  # after a Cent


def test_a_six_card_clarte_then_a_nine_card_cent_is_allowed():
    s = first_trick()
    s[R.S_CT + R.CT_CLARTE] = 2  # announced in contract round 1: an earlier moment
    assert R.ANNOUNCE + R.CT_CENT in legal_set(s)
    s[R.S_CT + 1 * R.NCT + R.CT_CLARTE] = 1  # another seat's Clarté does not bind him
    s[R.S_CT + R.CT_CLARTE] = 0
    assert R.ANNOUNCE + R.CT_CENT in legal_set(s)


# --- 4. the heuristic leads a legal card under its own Ultime ----------------------------------
def test_heuristic_lead_keeps_the_ultime_seven():
    """Seat 0 took hearts and announced an Ultime; it leads the second trick holding 7♥,
    K♣ and 10♠ with A♠, A♣ and higher trumps unseen: its cheapest card is the 7♥, which
    §7.1 (catalogue #11) keeps for the last trick, so it must lead the K♣."""
    s = taken_state(R.G_TRUMP1)
    s[R.S_PHASE] = R.P_PLAY
    s[R.S_TRICK] = 1  # past the first trick's speeches
    s[R.S_HAND + 0] = mask("7♥", "K♣", "10♠")
    s[R.S_HAND + 1] = mask("J♥", "A♣", "8♦")
    s[R.S_HAND + 2] = mask("A♠", "9♥", "8♣")
    s[R.S_CT + R.CT_ULTIME] = 1
    s[R.S_TO_MOVE] = 0
    s[R.S_LEADER] = 0
    scratch = np.zeros(R.MAX_MOVES, dtype=np.int64)
    m = P.heuristic_move(s, KV, RULES, TB, scratch)
    assert m in legal_set(s) and m != cid("7♥")
    assert m == cid("K♣")  # the cheapest legal card
    s[R.S_CT + R.CT_ULTIME] = 0  # without the Ultime the 7 is its lead
    assert P.heuristic_move(s, KV, RULES, TB, scratch) == cid("7♥")


def test_heuristic_moves_are_legal_with_ultimes_announced():
    """Whole deals from the trick play on: whoever holds the trump 7 has an Ultime; every
    heuristic move must be among the legal moves (an illegal lead would show here)."""
    scratch = np.zeros(R.MAX_MOVES, dtype=np.int64)
    rng = np.random.default_rng(5)
    checked = 0
    for d in range(60):
        s = np.zeros(R.N_STATE, dtype=np.int64)
        R.deal(s, rng.permutation(32).astype(np.int64), d % 3, np.zeros((3, 9), dtype=np.int64))
        s[R.S_TAKER] = d % 3
        s[R.S_TRUMP] = d % 4
        s[R.S_GAME] = R.G_TRUMP2
        R.pick_up(s)
        R.start_play(s)
        seven = (d % 4) * 8 + R.R7
        for p in range(3):
            if (int(s[R.S_HAND + p]) >> seven) & 1:
                s[R.S_CT + p * R.NCT + R.CT_ULTIME] = 1
        while s[R.S_PHASE] != R.P_DONE:
            m = P.heuristic_move(s, KV, RULES, TB, scratch)
            assert m in legal_set(s), (d, m)
            R.apply_move(s, m, KV, TB)
            checked += 1
    assert checked > 60 * 27


# --- 5. contre of a Misère: §10 allows it, §11 says the défi is the only raise ---------------
def misere_first_trick(kv: np.ndarray) -> np.ndarray:
    s = first_trick(R.G_MISERE)
    s[R.S_TO_MOVE] = 1  # an opponent of the taker (seat 0)
    assert s[R.S_TAKER] == 0 and R.first_trick_speaking(s)
    return s


def test_misere_contre_by_default_follows_section_10():
    s = misere_first_trick(KV)
    moves = legal_set(s)
    assert R.CONTRE in moves  # the game
    assert all(m < R.N_CARDS or m == R.CONTRE for m in moves)  # nothing else to say
    move(s, R.CONTRE)
    assert R.game_value(s, KV) == 5 * 2


def test_misere_contre_off_reproduces_section_11():
    k = R.CaisseKnobs(misere_contre=False)
    kv = R._vector(k)
    s = misere_first_trick(kv)
    assert all(m < R.N_CARDS for m in legal_set(s, kv))  # no contre: cards only
    assert R.defi_open(s, kv)  # the défi remains the way to raise
    departures = {d["name"]: d for d in R.CaisseKnobs.departures()}
    d = departures["misere_contre"]
    assert d["seed_value"] is False and d["default"] is True and d["seed_case"] == "contradicts"
    assert "seule occasion" in d["seed_why"] and "contrer le jeu" in d["seed_why"]
