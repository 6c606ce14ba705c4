"""Démons rules pinned: the seed's worked examples (catalogue ``demons.md``), hand-built
positions for following, possession, the trick's winner, the Diable's scale, the bets,
Pareil and Suite, the failure allowance, the fault, the match end; deal frequencies
against exact combinatorics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simlab.games.demons import GAME, rules
from simlab.games.demons import kernels as K
from simlab.games.demons.rules import (
    A_NONE,
    A_PAREIL,
    A_SUITE,
    B_PARTIAL,
    B_PASS,
    LED_PURE,
    P_PLAY,
    R_CONCEDE,
    R_HOLD,
    R_RAISE,
    S_BEST_S,
    S_BEST_S_OWNER,
    S_DEMON_CARD,
    S_DIABLE,
    S_HAND,
    S_LEADER,
    S_LED,
    S_N_PLAYED,
    S_PEN,
    S_PHASE,
    S_TC,
    S_TO_MOVE,
    S_TP,
    S_TRICK,
    S_TRICKS,
    S_TS,
    S_TURNED,
    play_move,
)

L = GAME.deck.labels
KV = rules._vector(GAME.make_knobs({}))
SPADES, HEARTS, DIAMONDS, CLUBS = 0, 1, 2, 3


def card(label: str, copy: int = 0) -> int:
    return [i for i, x in enumerate(L) if x == label][copy]


def mask(*cards: int) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def position(hands: list[list[int]], turned: list[int], leader: int = 0, diable: int = 2,
             colours=(SPADES, DIAMONDS, CLUBS), trick: int = 5, kv=KV) -> np.ndarray:
    """A deal in play at ``trick`` (past the betting windows by default), ``leader`` to
    lead, with these hands and turned cards."""
    state = np.zeros(rules.N_STATE, dtype=np.int64)
    deck = np.arange(33, dtype=np.int64)
    rules.deal(state, deck, 2, np.array(colours, dtype=np.int64), kv)
    for p in range(3):
        state[S_HAND + p] = mask(*hands[p])
    state[S_TURNED] = mask(*turned)
    state[S_DIABLE] = diable
    state[S_TRICK] = trick
    state[S_LEADER] = leader
    state[S_N_PLAYED] = 0
    state[S_LED] = -1
    state[S_PHASE] = P_PLAY
    state[S_TO_MOVE] = leader
    return state


def legal(state, kv=KV) -> set[int]:
    out = np.zeros(rules.MAX_MOVES, dtype=np.int64)
    n = rules.legal_moves(state, kv, out)
    return set(int(x) for x in out[:n])


def plays(state, kv=KV) -> set[tuple[int, int]]:
    """Legal (card, possessed) pairs, announcements aside."""
    return {(rules.card_of(m), rules.possessed_of(m)) for m in legal(state, kv)}


def set_trick(state, cards: list[tuple[int, int, int]]) -> None:
    """The table: (seat, card, possessed) in play order."""
    for i, (s, c, t) in enumerate(cards):
        state[S_TC + i] = c
        state[S_TP + i] = t
        state[S_TS + i] = s
    state[S_N_PLAYED] = len(cards)


# --- worked examples -------------------------------------------------------------------
def test_example1_human_card_points():
    """B (colour ♠) wins K♠, Q♥, 6♣: 2 + 4 + 0 + 1 (K♠ his colour) = 7."""
    st = position([[], [], []], [], diable=2, colours=(DIAMONDS, SPADES, CLUBS))
    set_trick(st, [(0, card("K♠"), -1), (1, card("Q♥"), -1), (2, card("6♣"), -1)])
    assert rules.trick_points(st, 1, KV) == 7


def test_example2_diable_card_points():
    """The Diable (♦, plus ♥) leads a Démon possessing C♦; Q♥, J♣ discarded: base 3,
    colour Q♥ +1 and C♦ +1, Démon-trick bonus +3 = 8."""
    st = position([[], [], []], [], diable=0, colours=(DIAMONDS, SPADES, CLUBS))
    set_trick(st, [(0, card("T1"), card("C♦")), (1, card("Q♥"), -1), (2, card("J♣"), -1)])
    st[S_LED] = DIAMONDS
    assert rules.trick_winner_index(st) == 0
    assert rules.trick_points(st, 0, KV) == 8
    # a human winning the same cards: 2 + 4 + 1, C♦ of his colour for seat 0 = +1
    st[S_DIABLE] = 2
    assert rules.trick_points(st, 0, KV) == 2 + 4 + 1 + 1  # C♦ is seat 0's colour


def test_example3_suite_king_then_queen():
    """K♦ "pour une suite", later Q♦ "de la suite": Q-K is consecutive in J < C < Q < K,
    a seconde worth 15."""
    st = position([[card("K♦"), card("Q♦")], [], []], [], leader=0)
    rules.announce(st, 0, card("K♦"), A_SUITE, KV)
    rules.announce(st, 0, card("Q♦"), A_SUITE, KV)
    assert st[S_BEST_S_OWNER] == 0 and st[S_BEST_S] // 8 == 2
    assert rules.combo_points(st, 0, KV) == (0, 15)


def bet_position(leader: int = 0) -> np.ndarray:
    """Trick 1 about to start: the betting window open at the leader."""
    state = np.zeros(rules.N_STATE, dtype=np.int64)
    rules.deal(state, np.arange(33, dtype=np.int64), (leader + 2) % 3,
               np.array((0, 2, 3), dtype=np.int64), KV)
    return state


def test_example4_bet_hold_concede():
    """A bets (10), B holds, C concedes; tricks 4-3-2: A +10, B -10, C 0; no bet: A +5."""
    st = bet_position(0)
    assert st[S_TO_MOVE] == 0
    rules.apply_move(st, B_PARTIAL, KV)
    rules.apply_move(st, R_HOLD, KV)  # seat 1
    rules.apply_move(st, R_CONCEDE, KV)  # seat 2
    # the window goes on with seats 1 and 2 (seat 2 conceded: not asked), then play
    rules.apply_move(st, B_PASS, KV)
    assert st[S_PHASE] == P_PLAY
    st[S_TRICKS:S_TRICKS + 3] = (4, 3, 2)
    assert [rules.bet_payout(st, p, KV) for p in range(3)] == [10, -10, 0]
    plain = bet_position(0)
    plain[S_TRICKS:S_TRICKS + 3] = (4, 3, 2)
    assert [rules.bet_payout(plain, p, KV) for p in range(3)] == [5, 0, 0]


def test_example5_raise():
    """A bets (10), B raises (20); A holds at 20, C concedes; B 4, A 3, C 2 tricks: B +20,
    A -20."""
    st = bet_position(0)
    rules.apply_move(st, B_PARTIAL, KV)
    assert st[S_TO_MOVE] == 1
    rules.apply_move(st, R_RAISE, KV)  # B raises: a new round, A then C
    assert st[S_TO_MOVE] == 2
    rules.apply_move(st, R_CONCEDE, KV)  # C
    assert st[S_TO_MOVE] == 0
    rules.apply_move(st, R_HOLD, KV)  # A holds at 20
    st[S_TRICKS:S_TRICKS + 3] = (3, 4, 2)
    assert [rules.bet_payout(st, p, KV) for p in range(3)] == [-20, 20, 0]


def test_raise_cap_and_concede_after_raise():
    """Partial stakes 10 / 20 / 40, no raise beyond; the raised bettor who concedes keeps
    his 10 at loss (default), is freed with concede_rule = free."""
    st = bet_position(0)
    rules.apply_move(st, B_PARTIAL, KV)
    rules.apply_move(st, R_RAISE, KV)  # seat 1: 20
    rules.apply_move(st, R_RAISE, KV)  # seat 2: 40
    assert R_RAISE not in legal(st)
    rules.apply_move(st, R_CONCEDE, KV)  # seat 0, engaged 10
    rules.apply_move(st, R_HOLD, KV)  # seat 1 at 40
    st[S_TRICKS:S_TRICKS + 3] = (2, 3, 4)
    assert [rules.bet_payout(st, p, KV) for p in range(3)] == [-10, -40, 40]
    free = rules._vector(GAME.make_knobs({"concede_rule": "free"}))
    st2 = bet_position(0)
    for mv in (B_PARTIAL, R_RAISE, R_RAISE, R_CONCEDE, R_HOLD):
        rules.apply_move(st2, mv, free)
    st2[S_TRICKS:S_TRICKS + 3] = (2, 3, 4)
    assert [rules.bet_payout(st2, p, free) for p in range(3)] == [0, -40, 40]


def test_tie_for_most_tricks_nobody_wins():
    st = bet_position(0)
    rules.apply_move(st, B_PARTIAL, KV)
    rules.apply_move(st, R_HOLD, KV)
    rules.apply_move(st, R_HOLD, KV)
    st[S_TRICKS:S_TRICKS + 3] = (3, 3, 3)
    assert [rules.bet_payout(st, p, KV) for p in range(3)] == [-10, -10, -10]


def test_complete_bet_settles_its_players_only():
    """A partial bet held by all, then a complete bet by A held by B, C concedes: A and B
    are settled on the complete stake only, C keeps his partial loss."""
    st = bet_position(0)
    rules.apply_move(st, B_PARTIAL, KV)
    rules.apply_move(st, R_HOLD, KV)
    rules.apply_move(st, R_HOLD, KV)
    rules.apply_move(st, B_PASS, KV)
    rules.apply_move(st, B_PASS, KV)
    assert st[S_PHASE] == P_PLAY
    # the next window (trick 2): A opens a complete bet
    st[S_TRICK] = 1
    rules.start_trick(st, KV)
    assert st[S_TO_MOVE] == st[S_LEADER]
    st[S_LEADER] = 0
    st[S_TO_MOVE] = 0
    assert rules.B_PARTIAL not in legal(st)  # one partial bet a deal
    rules.apply_move(st, rules.B_COMPLETE, KV)
    rules.apply_move(st, R_HOLD, KV)
    rules.apply_move(st, R_CONCEDE, KV)
    st[S_TRICKS:S_TRICKS + 3] = (5, 2, 2)
    assert [rules.bet_payout(st, p, KV) for p in range(3)] == [20, -20, -10]


def test_example6_match_end():
    """A at 320 ends a deal in which he held a bet on 341: he wins; without a bet he goes
    back to 320."""
    scores = np.array([341, 100, 50], dtype=np.int64)
    before = np.array([320, 90, 60], dtype=np.int64)
    w, r, nb = K.match_end(scores, before, np.array([1, 0, 0]), np.array([-10, 0, 0]),
                           333, 1)
    assert (w, r, nb) == (0, 0, 0)
    scores = np.array([341, 100, 50], dtype=np.int64)
    w, r, nb = K.match_end(scores, before, np.array([0, 0, 0]), np.array([5, 0, 0]), 333, 1)
    assert (w, r, nb) == (-1, 1, 1) and scores[0] == 320
    # two qualify: the one who won the stake wins; if neither did, both reset
    scores = np.array([340, 335, 0], dtype=np.int64)
    w, _, _ = K.match_end(scores, before, np.array([1, 1, 0]), np.array([-10, 10, 0]), 333, 1)
    assert w == 1
    scores = np.array([340, 335, 0], dtype=np.int64)
    w, r, _ = K.match_end(scores, before, np.array([1, 1, 0]), np.array([-10, -10, 0]), 333, 1)
    assert w == -1 and r == 2 and list(scores[:2]) == [320, 90]


# --- following, possession, the trick's winner -------------------------------------------
def test_follow_suit_or_possess_it():
    """§8 with the led suit in hand: a card of it, or a Démon possessing a turned card of
    it; no pure Démon (the fault) and no other possession."""
    st = position([[card("K♠")], [card("J♠"), card("Q♥"), card("T3")], [card("6♣")]],
                  [card("C♠"), card("K♦")], leader=0)
    rules.apply_move(st, play_move(card("K♠"), -1, A_NONE), KV)
    assert plays(st) == {(card("J♠"), -1), (card("T3"), card("C♠"))}
    assert rules.is_fault(st, card("T3"), -1)


def test_void_plays_anything_pure_demon_not_forced():
    """Void in hand: any card, a pure Démon, or a Démon possessing any turned card; with
    pure_demon_fault = hand_or_possession the pure Démon is barred while a turned card of
    the suit could be possessed."""
    st = position([[card("K♠")], [card("Q♥"), card("T3")], [card("6♣")]],
                  [card("C♠"), card("K♦")], leader=0)
    rules.apply_move(st, play_move(card("K♠"), -1, A_NONE), KV)
    assert plays(st) == {(card("Q♥"), -1), (card("T3"), -1), (card("T3"), card("C♠")),
                         (card("T3"), card("K♦"))}
    assert not rules.is_fault(st, card("T3"), -1)
    strict = rules._vector(GAME.make_knobs({"pure_demon_fault": "hand_or_possession"}))
    assert (card("T3"), -1) not in plays(st, strict)


def test_pure_demon_lead_must_be_answered_pure():
    st = position([[card("T4")], [card("T2"), card("K♠")], [card("6♣"), card("K♥")]],
                  [card("C♠")], leader=0)
    rules.apply_move(st, play_move(card("T4"), -1, A_NONE), KV)
    assert st[S_LED] == LED_PURE
    assert plays(st) == {(card("T2"), -1)}
    rules.apply_move(st, play_move(card("T2"), -1, A_NONE), KV)
    assert plays(st) == {(card("6♣"), -1), (card("K♥"), -1)}
    rules.apply_move(st, play_move(card("K♥"), -1, A_NONE), KV)
    assert st[S_TRICKS + 1] == 1  # T2 beats T4
    assert st[rules.S_VOID + 2] & (1 << rules.VOID_DEMONS)


def test_trick_winner_possession_rules():
    """A possessed card beats the identical ordinary card; two possessed: the turned
    cards' ranks, then the Démons' order; a pure Démon beats everything."""
    st = position([[], [], []], [], leader=0)
    st[S_LED] = SPADES
    set_trick(st, [(0, card("K♠"), -1), (1, card("T5"), card("K♠", 1)), (2, card("Q♠"), -1)])
    assert rules.trick_winner_index(st) == 1
    set_trick(st, [(0, card("T4"), card("K♠")), (1, card("T2"), card("K♠", 1)),
                   (2, card("T5"), card("C♠"))])
    assert rules.trick_winner_index(st) == 1
    set_trick(st, [(0, card("K♠"), -1), (1, card("Q♥"), -1), (2, card("T5"), -1)])
    assert rules.trick_winner_index(st) == 2
    set_trick(st, [(0, card("C♠"), -1), (1, card("K♥"), -1), (2, card("C♠", 1), -1)])
    assert rules.trick_winner_index(st) == 0  # equal cards: the earlier


def test_diable_scale_colours_and_three_sixes():
    """The Diable: every ordinary card 1, faces of his colour and ♥ +1, +10 with three
    6s in his tricks."""
    st = position([[], [], []], [], diable=1, colours=(SPADES, CLUBS, DIAMONDS))
    set_trick(st, [(0, card("6♠"), -1), (1, card("K♥"), -1), (2, card("Q♣"), -1)])
    st[S_LED] = SPADES
    assert rules.trick_points(st, 1, KV) == 3 + 1 + 1  # K♥ and Q♣ his colours
    assert rules.trick_points(st, 0, KV) == 0 + 2 + 4  # a human: no colour face (♠ 6)
    st[rules.S_SIXES + 1] = 3
    st[rules.S_PTS + 1] = 5
    assert rules.deal_score(st, 1, KV) == 5 + 10 + rules.bet_payout(st, 1, KV)


def test_diable_designation_and_reveal_swap():
    """The Diable holds the strongest Démon not turned; he reveals by playing it and may
    swap at the trick's end, the given card joining the turned cards."""
    deck = np.arange(33, dtype=np.int64)
    # put T1 and T2 in the turned pile: slots 2, 3 of the first round
    order = [c for c in range(33) if c not in (28, 29)]
    order.insert(2, 28)
    order.insert(3, 29)
    deck[:] = order
    st = np.zeros(rules.N_STATE, dtype=np.int64)
    rules.deal(st, deck, 0, np.array((0, 2, 3)), KV)
    assert st[S_DEMON_CARD] == card("T3")
    holder = [p for p in range(3) if st[S_HAND + p] >> card("T3") & 1][0]
    assert st[S_DIABLE] == holder
    st = position([[card("K♠"), card("6♦")], [card("J♠"), card("Q♥")], [card("T3"), card("J♦")]],
                  [card("K♥")], leader=0, diable=2)
    st[S_DEMON_CARD] = card("T3")
    rules.apply_move(st, play_move(card("K♠"), -1, A_NONE), KV)
    rules.apply_move(st, play_move(card("J♠"), -1, A_NONE), KV)
    rules.apply_move(st, play_move(card("T3"), -1, A_NONE), KV)  # void in ♠: pure cut
    assert st[rules.S_REVEALED] == 1 and st[S_PHASE] == rules.P_REVEAL_SWAP
    rules.apply_move(st, rules.RS_BASE + card("J♦") * 64 + card("K♥"), KV)
    assert st[S_HAND + 2] == mask(card("K♥"))
    assert st[S_TURNED] == mask(card("J♦"))


def test_six_swap():
    st = position([[card("6♠"), card("6♥"), card("6♦"), card("J♣")], [], []],
                  [card("K♠"), card("T1")])
    assert rules.six_swaps_allowed(st, 0) == 2
    rules.six_swap(st, 0, card("J♣"), card("T1"))
    assert st[S_HAND + 0] == mask(card("6♠"), card("6♥"), card("6♦"), card("T1"))
    assert st[S_TURNED] == mask(card("K♠"))
    assert st[rules.S_REMOVED] == mask(card("J♣"))  # face down, not turned


# --- Pareil and Suite ----------------------------------------------------------------------
def test_pareil_tie_cancels_and_failures():
    """Equal best Pareils cancel (nobody scores); a stronger later one wins; the first
    failure is free, the second costs 10, a success restores the free one."""
    st = position([[], [], []], [])
    for c in (card("C♠"), card("C♥")):
        rules.announce(st, 0, c, A_PAREIL, KV)
    rules.close_attempt(st, 0, KV)
    for c in (card("C♦"), card("C♣")):
        rules.announce(st, 1, c, A_PAREIL, KV)
    assert st[rules.S_BEST_P_OWNER] == -1  # cancelled
    rules.announce(st, 2, card("K♠"), A_PAREIL, KV)
    rules.announce(st, 2, card("K♥"), A_PAREIL, KV)
    assert st[rules.S_BEST_P_OWNER] == 2 and rules.combo_points(st, 2, KV) == (10, 0)
    # failures for seat 0: free, then -10, then a success, then free again
    rules.announce(st, 0, card("J♠"), A_SUITE, KV)
    rules.announce(st, 0, card("K♦"), A_NONE, KV)  # breaks it: failure 1 (free)
    assert st[S_PEN + 0] == 0
    rules.announce(st, 0, card("J♥"), A_SUITE, KV)
    rules.announce(st, 0, card("Q♦"), A_NONE, KV)  # failure 2
    assert st[S_PEN + 0] == 10
    rules.announce(st, 0, card("J♦"), A_SUITE, KV)
    rules.announce(st, 0, card("C♦"), A_SUITE, KV)  # success
    rules.announce(st, 0, card("Q♣"), A_PAREIL, KV)  # ends the suite, starts a pareil
    rules.announce(st, 0, card("K♣"), A_NONE, KV)  # failure: free again
    assert st[S_PEN + 0] == 10


def test_suite_order_and_sixes():
    """J < C < Q < K: J-C is a seconde, J-Q is not; a 6 never counts."""
    st = position([[], [], []], [])
    rules.announce(st, 0, card("J♠"), A_SUITE, KV)
    assert not rules.continues(st, 0, card("Q♠"), A_SUITE)
    assert rules.continues(st, 0, card("C♠"), A_SUITE)
    assert rules.combo_card(card("6♠"), -1) == -1
    assert rules.combo_card(card("T2"), card("Q♠")) == card("Q♠")


def test_fault_annuls_the_deal():
    st = position([[card("K♠")], [card("J♠"), card("T3")], [card("6♣")]], [], leader=0)
    rules.apply_move(st, play_move(card("K♠"), -1, A_NONE), KV)
    rules.apply_move(st, play_move(card("T3"), -1, A_NONE), KV)
    assert st[S_PHASE] == rules.P_DONE
    assert [rules.deal_score(st, p, KV) for p in range(3)] == [0, -100, 0]


# --- deal frequencies against exact combinatorics ------------------------------------------
def test_deal_frequencies():
    n = 400_000
    out = K.deal_stats_kernel(np.uint64(7), 0, n)
    p_demon = 1 - math.comb(28, 9) / math.comb(33, 9)
    got = out[:, 1].mean()
    se = math.sqrt(p_demon * (1 - p_demon) / n)
    assert abs(got - p_demon) < 5 * se
    p_all = math.comb(28, 1) / math.comb(33, 6)
    n_all = 4_000_000
    hits = K.deal_stats_kernel(np.uint64(11), 0, n_all)[:, 0].sum()
    se = math.sqrt(p_all * (1 - p_all) / n_all)
    assert abs(hits / n_all - p_all) < 5 * se


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_deals_run_and_add_up(policy):
    k = GAME.make_knobs({})
    out = GAME.run_deals(k, (policy,) * 3, 3, 0, 300)
    rows = out.rows
    assert (rows[:, rules.C_TRICKS:rules.C_TRICKS + 3].sum(axis=1) == 9).all()
    parts = (rows[:, rules.C_CARD_PTS:rules.C_CARD_PTS + 3] + rows[:, rules.C_COMBO:rules.C_COMBO + 3]
             + rows[:, rules.C_BETS:rules.C_BETS + 3] - rows[:, rules.C_PEN:rules.C_PEN + 3])
    assert (parts == rows[:, rules.C_SCORE:rules.C_SCORE + 3]).all()
    m = GAME.run_matches(k, (policy,) * 3, 3, 0, 5).rows
    if policy == "heuristic":  # random players lose points on average: their matches cap
        assert (m[:, rules.M_WINNER] >= 0).all()


# --- errors: one line, exit 2 ------------------------------------------------------------
@pytest.mark.parametrize("args, words", [
    (["--set", "partial_bet_max=30"], "partial_bet_max"),
    (["--set", "concede_rule=bogus"], "keeps_loss"),
    (["--set", "complete_bet_max=10"], "complete_bet_max"),
    (["--set", "hand_size=8"], "unknown knob"),
    (["--policy", "heuristic,heuristic,heuristic,heuristic"], "1 or 3"),
    (["--policy", "heuristic,search"], "1 or 3"),
])
def test_bad_knobs_and_player_counts_exit_2(args, words):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "simlab", "run", "demons", "-n", "5", *args],
                       capture_output=True, text=True)
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and words in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_knobs_for_the_tie_and_the_diable_bonus_scope():
    """Ambiguity 6: with most_tricks_tie = void a tie for the most tricks costs nothing.
    Ambiguity 13: with diable_bonus_tricks = any the Diable also gets +1 per face card of a
    Démon trick another player won."""
    void = rules._vector(GAME.make_knobs({"most_tricks_tie": "void"}))
    st = bet_position(0)
    for mv in (B_PARTIAL, R_HOLD, R_HOLD):
        rules.apply_move(st, mv, void)
    st[S_TRICKS:S_TRICKS + 3] = (3, 3, 3)
    assert [rules.bet_payout(st, p, void) for p in range(3)] == [0, 0, 0]
    for scope, diable_gets in (("won", 0), ("any", 2)):
        kv = rules._vector(GAME.make_knobs({"diable_bonus_tricks": scope}))
        st = position([[card("K♠")], [card("T2")], [card("Q♠")]], [], leader=0, diable=2)
        st[S_DEMON_CARD] = card("T1")
        for c in (card("K♠"), card("T2"), card("Q♠")):
            rules.apply_move(st, play_move(c, -1, A_NONE), kv)
        assert st[S_TRICKS + 1] == 1 and st[rules.S_PTS + 2] == diable_gets
