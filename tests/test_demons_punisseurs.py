"""Démons punisseurs: the seed's worked examples and hand-built positions pinning the
Démon order, following, the trick, the objectives, the bets and their scoring
(catalogue ``demons_punisseurs.md``, seed 000 lines 1797-1975)."""

from __future__ import annotations

import numpy as np
import pytest

from simlab.games import get_game
from simlab.games.demons_punisseurs import rules as R

GAME = get_game("demons_punisseurs")
KV = R._vector(R.DemonsPunisseursKnobs())


def C(label: str) -> int:
    return R.DECK.index(label)


def mask(*labels: str) -> int:
    m = 0
    for x in labels:
        m |= 1 << C(x)
    return m


def stacked(first: list[str], turned: list[str]) -> np.ndarray:
    """A pack whose first 9 cards and turned cards are these, the rest in id order."""
    top = [C(x) for x in first + turned]
    rest = [c for c in range(R.N_CARDS) if c not in top]
    return np.array(top + rest, dtype=np.int64)


def dealt_state(first: list[str], turned: list[str], dealer: int = 2, kv=KV) -> np.ndarray:
    state = np.zeros(R.N_STATE, dtype=np.int64)
    dealt = np.zeros((3, 7), dtype=np.int64)
    R.deal(state, stacked(first, turned), dealer, kv, dealt)
    return state


FIRST9 = ["8♠", "8♥", "9♥", "10♠", "10♥", "10♦", "A♠", "A♥", "A♦"]


def demon_labels(state: np.ndarray) -> set[str]:
    m = int(state[R.S_DEMONS])
    return {R.DECK.labels[c] for c in range(R.N_CARDS) if m >> c & 1}


def position(trump: int, hands: dict[int, list[str]], kv=KV, dealer: int = 2) -> np.ndarray:
    """A deal with these trumps and hands (seat -> labels), play about to start."""
    turned = {0: "9♠", 1: "9♥", 2: "9♦"}[trump]
    state = dealt_state(FIRST9 if turned not in FIRST9 else FIRST9, [turned], dealer, kv)
    for p in range(3):
        state[R.S_HAND + p] = mask(*hands.get(p, []))
    R.start_play(state)
    return state


def play(state: np.ndarray, label: str, name: str | None = None, kv=KV) -> None:
    """The seat to move plays ``label`` (named ``name`` if a Démon), passing any bet."""
    while state[R.S_PHASE] == R.P_BET:
        R.apply_move(state, R.M_PASS, kv)
    assert state[R.S_PHASE] == R.P_CARD
    c = C(label)
    ident = C(name) if name else c
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(state, kv, moves)
    move = c * R.N_IDENT + ident
    assert move in moves[:n], (label, name, [int(m) for m in moves[:n]])
    R.apply_move(state, move, kv)


def legal_labels(state: np.ndarray) -> set[str]:
    while state[R.S_PHASE] == R.P_BET:
        R.apply_move(state, R.M_PASS, KV)
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(state, KV, moves)
    return {f"{R.DECK.labels[m // 32]}={R.DECK.labels[m % 32]}" for m in moves[:n]}


# --- the deal: examples 1 and 2 --------------------------------------------------------------
def test_example_1_turned_nine_of_spades_nine_demons():
    state = dealt_state(FIRST9, ["9♠"])
    assert state[R.S_TRUMP] == R.SPADES and state[R.S_N_TURNED] == 1
    assert demon_labels(state) == {"K♥", "6♦", "7♦", "7♣", "J♣", "Q♣", "7♠", "J♠", "Q♠"}


def test_example_2_clubs_skipped_diamond_trump_eight_demons():
    state = dealt_state(FIRST9, ["10♣", "K♦"])
    assert state[R.S_TRUMP] == R.DIAMONDS and state[R.S_N_TURNED] == 2
    assert demon_labels(state) == {"K♥", "6♦", "7♦", "7♣", "J♣", "Q♣", "J♦", "Q♦"}
    # without the skip (knob) the 10♣ makes clubs trump: the permanents only
    kv = R._vector(R.DemonsPunisseursKnobs(skip_clubs=False))
    state = dealt_state(FIRST9, ["10♣", "K♦"], kv=kv)
    assert state[R.S_TRUMP] == R.CLUBS and len(demon_labels(state)) == 6


def test_deal_gives_seven_cards_three_then_four_from_the_player_after_the_dealer():
    state = np.zeros(R.N_STATE, dtype=np.int64)
    dealt = np.zeros((3, 7), dtype=np.int64)
    deck = stacked(FIRST9, ["J♣", "Q♣", "8♥"])
    R.deal(state, deck, 2, KV, dealt)
    # seat 0 (after dealer 2) gets the first 3 cards, then the first 4 after the turn
    assert [R.DECK.labels[c] for c in dealt[0, :3]] == ["8♠", "8♥", "9♥"]
    assert all(bin(int(state[R.S_HAND + p])).count("1") == 7 for p in range(3))
    assert state[R.S_N_TURNED] == 3 and state[R.S_TRUMP] == R.HEARTS


def test_dealer_swaps_an_ordinary_club_for_a_turned_club_demon():
    from simlab.games.demons_punisseurs.players import swap_heuristic

    state = dealt_state(FIRST9, ["J♣", "8♥"])
    d = 2
    state[R.S_HAND + d] = mask("8♣", "A♣", "9♥", "10♥", "K♠", "8♦", "9♦")
    swap_heuristic(state, KV)
    hand = int(state[R.S_HAND + d])
    assert hand >> C("J♣") & 1 and bin(hand).count("1") == 7
    assert state[R.S_N_SWAPS] == 1
    # one ordinary club went to the turned cards; the J♣ is known to be in his hand
    assert int(state[R.S_TURNED]) & mask("8♣", "A♣")
    assert int(state[R.S_KNOWN + d]) == mask("J♣")
    # turned trump Démon (J♥ with hearts trump): swapped for an ordinary heart too
    state = dealt_state(FIRST9, ["J♥"])
    state[R.S_HAND + d] = mask("8♥", "K♠", "9♠", "10♠", "8♦", "9♦", "10♦")
    swap_heuristic(state, KV)
    assert int(state[R.S_HAND + d]) >> C("J♥") & 1
    # no swap without the knob
    kv = R._vector(R.DemonsPunisseursKnobs(dealer_swaps=False))
    state = dealt_state(FIRST9, ["J♥"], kv=kv)
    state[R.S_HAND + d] = mask("8♥", "K♠", "9♠", "10♠", "8♦", "9♦", "10♦")
    swap_heuristic(state, kv)
    assert not int(state[R.S_HAND + d]) >> C("J♥") & 1


# --- the Démon order ------------------------------------------------------------------------------
@pytest.mark.parametrize("trump,ladder", [
    (R.SPADES, ["Q♣", "J♣", "Q♠", "J♠", "7♠", "7♣", "7♦", "6♦", "K♥"]),
    (R.HEARTS, ["Q♣", "J♣", "Q♥", "J♥", "7♥", "7♣", "7♦", "6♦", "K♥"]),
    (R.DIAMONDS, ["Q♣", "J♣", "Q♦", "J♦", "7♣", "7♦", "6♦", "K♥"]),
])
def test_demon_order_weakest_to_strongest(trump, ladder):
    order = R.DEMON_ORDER[0, trump]
    assert [order[C(x)] for x in ladder] == list(range(len(ladder)))
    assert int((order >= 0).sum()) == len(ladder)


def test_lost_glyphs_knob_swaps_the_two_weakest():
    order = R.DEMON_ORDER[R.ORDER_CHOICES.index("JQ"), R.SPADES]
    assert order[C("J♣")] == 0 and order[C("Q♣")] == 1 and order[C("Q♠")] == 2


# --- the trick: examples 3-5 -------------------------------------------------------------------
def test_example_3_demon_beats_the_identical_ordinary_card_on_the_table():
    # trump ♠; A (seat 0) leads 10♥, B plays the real A♥, C plays the 6♦ named A♥
    state = position(R.SPADES, {0: ["10♥", "8♦"], 1: ["A♥", "8♣"], 2: ["6♦", "9♦"]})
    play(state, "10♥")
    play(state, "A♥")
    play(state, "6♦", "A♥")
    assert state[R.S_TRICKS + 2] == 1
    # the other order (catalogue #4): the Démon first, the ordinary A♥ after it
    state = position(R.SPADES, {0: ["10♥", "8♦"], 1: ["6♦", "8♣"], 2: ["A♥", "9♦"]})
    play(state, "10♥")
    play(state, "6♦", "A♥")
    play(state, "A♥")
    assert state[R.S_TRICKS + 1] == 1


def test_example_4_two_demons_naming_the_trump_ace():
    # trump ♠: 7♣ (la Pointe) and J♠ (the trump Jack) both named A♠ -> the 7♣ wins
    state = position(R.SPADES, {0: ["8♥", "9♦"], 1: ["J♠", "8♣"], 2: ["7♣", "9♣"]})
    play(state, "8♥")
    play(state, "J♠", "A♠")
    play(state, "7♣", "A♠")
    assert state[R.S_TRICKS + 2] == 1
    state = position(R.SPADES, {0: ["8♥", "9♦"], 1: ["7♣", "8♣"], 2: ["J♠", "9♣"]})
    play(state, "8♥")
    play(state, "7♣", "A♠")
    play(state, "J♠", "A♠")
    assert state[R.S_TRICKS + 1] == 1


def test_example_5_follow_led_suit_or_trump():
    # hearts led, C holds 9♥ and the 8♠ (trump): 9♥ or 8♠, never a ♦ or a ♣
    state = position(R.SPADES, {0: ["8♥", "9♦"], 1: ["10♥", "8♣"],
                                2: ["9♥", "8♠", "10♦", "9♣"]})
    play(state, "8♥")
    play(state, "10♥")
    assert legal_labels(state) == {"9♥=9♥", "8♠=8♠"}


def test_a_demon_follows_through_its_name_and_a_void_seat_plays_anything():
    # seat 2 holds a heart: its Démon may only be named a heart or a trump
    state = position(R.SPADES, {0: ["8♥", "9♦"], 1: ["10♥", "8♣"], 2: ["9♥", "K♥", "9♣"]})
    play(state, "8♥")
    play(state, "10♥")
    named = {x.split("=")[1] for x in legal_labels(state) if x.startswith("K♥")}
    assert named and all(x[-1] in "♥♠" for x in named)
    # a void seat may play any card, and showing a void is recorded
    state = position(R.SPADES, {0: ["8♥", "9♦"], 1: ["10♦", "8♣"], 2: ["9♣", "10♣"]})
    play(state, "8♥")
    assert legal_labels(state) == {"10♦=10♦", "8♣=8♣"}
    play(state, "8♣")
    assert state[R.S_VOID + 1] == 1 << R.HEARTS


def test_trump_beats_the_led_suit_and_an_off_suit_card_never_wins():
    state = position(R.HEARTS, {0: ["A♠", "9♦"], 1: ["8♥", "8♣"], 2: ["K♠", "9♣"]})
    play(state, "A♠")
    play(state, "8♥")  # the lowest trump
    play(state, "K♠")
    assert state[R.S_TRICKS + 1] == 1
    state = position(R.HEARTS, {0: ["8♠", "9♦"], 1: ["A♦", "8♣"], 2: ["9♠", "9♣"]})
    play(state, "8♠")
    play(state, "A♦")
    play(state, "9♠")
    assert state[R.S_TRICKS + 2] == 1


# --- combinations ---------------------------------------------------------------------------------
def test_pareil_and_suite_values_with_free_demons():
    state = position(R.SPADES, {0: ["9♥", "9♦", "9♣", "K♥", "6♦", "8♠", "10♦"],
                                1: ["8♥", "9♠", "10♥", "8♣", "10♣", "A♣", "K♦"],
                                2: ["A♦", "K♣", "A♥", "7♥", "8♦", "Q♥", "J♥"]})
    # seat 0: three 9s + 2 free Démons = five 9s; suite: 9♦ 10♦ + 2 Démons = 4 (J♦ Q♦ top)
    assert R.pareil_value(state, 0) == 5 * 8 + R.R9
    assert R.suite_value(state, 0) == 4 * 8 + R.RQ
    # seat 1 has no Démon: a pair of 8s and of 10s -> the 10s; suite 8♥? no: 9♠ alone...
    assert R.pareil_value(state, 1) == 2 * 8 + R.R10
    # seat 2: 7♥ 8? no; J♥ Q♥ (ordinary with ♠ trump) and A♥ -> a seconde J-Q
    assert R.suite_value(state, 2) == 2 * 8 + R.RQ


def test_a_played_demon_keeps_its_name_in_the_combinations():
    hands = {0: ["9♥", "K♥", "8♦"], 1: ["8♥", "8♣"], 2: ["9♠", "9♣"]}
    state = position(R.SPADES, hands)
    # a free Démon joins the best rank held: a pair of 9s
    assert R.pareil_value(state, 0) == 2 * 8 + R.R9
    # the names offered when leading: the trump Ace and the card that keeps the pair
    assert legal_labels(state) >= {"K♥=A♠", "K♥=9♠"}
    play(state, "K♥", "A♠")  # named the trump Ace: an Ace now, the pair is gone
    assert R.pareil_value(state, 0) == 0
    state = position(R.SPADES, hands)
    play(state, "K♥", "9♠")
    assert R.pareil_value(state, 0) == 2 * 8 + R.R9


# --- bets: examples 6 and 7 -----------------------------------------------------------------
def bet_state() -> np.ndarray:
    """Seat 0 (A) to play first (dealer 2); hands built for the examples."""
    return position(R.SPADES, {
        0: ["8♥", "9♥", "10♦", "A♣", "K♦", "8♦", "9♣"],   # A: a pair of 8s? no: 8♥ 8♦ pair; suite 8♥ 9♥
        1: ["7♠", "10♥", "Q♦", "A♠", "K♠", "J♥", "A♦"],  # B: 7♠ is a Démon (trump 7)
        2: ["9♠", "9♦", "10♣", "8♠", "K♣", "Q♥", "A♥"]})


def run_round(state: np.ndarray, bettor_move: int, answers: list[int]) -> None:
    assert state[R.S_PHASE] == R.P_BET
    R.apply_move(state, bettor_move, KV)
    for a in answers:
        assert state[R.S_PHASE] == R.P_RESPOND
        R.apply_move(state, a, KV)


def finish(state: np.ndarray) -> np.ndarray:
    """Pass every bet and play the first legal card until the deal ends; the scores."""
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    while state[R.S_PHASE] != R.P_DONE:
        if state[R.S_PHASE] == R.P_BET:
            R.apply_move(state, R.M_PASS, KV)
        elif state[R.S_PHASE] == R.P_RESPOND:
            R.apply_move(state, R.M_CONCEDE, KV)
        else:
            R.legal_moves(state, KV, moves)
            R.apply_move(state, moves[0], KV)
    out = np.zeros(6, dtype=np.int64)
    R.deal_scores(state, out)
    return out


def test_example_6_suite_bet_conceded_twice_gives_the_bettor_one_point():
    state = bet_state()
    run_round(state, R.M_BET + R.O_SUITE, [R.M_CONCEDE, R.M_CONCEDE])
    assert state[R.S_STAKE + R.O_SUITE] == 1 and state[R.S_LIAB + R.O_SUITE * 3 + 0] == 1
    assert [state[R.S_ELIG + R.O_SUITE * 3 + p] for p in range(3)] == [1, 0, 0]
    out = finish(state)
    assert out[3 + R.O_SUITE] == 0  # A shows a sequence (8♥ 9♥): his point
    # a bettor without any sequence scores nothing and loses his stake (catalogue #7)
    state = position(R.SPADES, {0: ["8♥", "10♥", "Q♥", "9♦", "J♦", "K♦", "A♣"],
                                1: ["9♥", "J♥", "A♥", "8♦", "10♦", "8♣", "9♣"],
                                2: ["A♠", "K♠", "10♠", "9♠", "8♠", "A♦", "K♣"]})
    assert R.suite_value(state, 0) == 0
    run_round(state, R.M_BET + R.O_SUITE, [R.M_CONCEDE, R.M_CONCEDE])
    assert R.objective_winner(state, R.O_SUITE) == -1
    assert state[R.S_LIAB + R.O_SUITE * 3] == 1


def test_example_7_pareil_held_third_silent_three_nines_win():
    # A bets on Pareil, B "pari tenu", C silent; finally C has three 9s, A a pair, B none:
    # C +2, A -2, B -2 (nothing else decided: Suite and Jeu are scored apart below)
    state = position(R.SPADES, {0: ["8♥", "8♦", "10♦", "A♣", "K♦", "Q♥", "J♦"],
                                1: ["10♥", "Q♦", "A♠", "K♠", "J♥", "A♦", "8♣"],
                                2: ["9♠", "9♦", "9♣", "10♣", "K♣", "7♥", "A♥"]})
    # B's pair of Aces (A♠ A♦) is "nothing" in the example; drop it for the test
    state[R.S_HAND + 1] = mask("10♥", "Q♦", "A♠", "K♠", "J♥", "9♥", "8♣")
    assert R.pareil_value(state, 1) == 0
    run_round(state, R.M_BET + R.O_PAREIL, [R.M_HOLD, R.M_SILENT])
    assert state[R.S_STAKE + R.O_PAREIL] == 2
    assert [state[R.S_LIAB + R.O_PAREIL * 3 + p] for p in range(3)] == [2, 2, 0]
    assert [state[R.S_ELIG + R.O_PAREIL * 3 + p] for p in range(3)] == [1, 1, 1]
    assert state[R.S_PUSH_OK + R.O_PAREIL] == (1 << 1) | (1 << 2)
    finish(state)
    assert R.objective_winner(state, R.O_PAREIL) == 2
    assert R.pareil_value(state, 2) == 3 * 8 + R.R9


def pareil_only_scores(state: np.ndarray) -> list[int]:
    w = R.objective_winner(state, R.O_PAREIL)
    return [int(state[R.S_STAKE]) if p == w else -int(state[R.S_LIAB + p])
            for p in range(3)]


def test_example_7_scores():
    state = position(R.SPADES, {0: ["8♥", "8♦", "10♦", "A♣", "K♦", "Q♥", "J♦"],
                                1: ["10♥", "Q♦", "A♠", "K♠", "J♥", "9♥", "8♣"],
                                2: ["9♠", "9♦", "9♣", "10♣", "K♣", "7♥", "A♥"]})
    run_round(state, R.M_BET + R.O_PAREIL, [R.M_HOLD, R.M_SILENT])
    assert pareil_only_scores(state) == [-2, -2, 2]


def test_concede_then_hold_leaves_the_second_out_and_both_others_at_two():
    state = bet_state()
    run_round(state, R.M_BET + R.O_PAREIL, [R.M_CONCEDE, R.M_HOLD])
    assert [state[R.S_ELIG + p] for p in range(3)] == [1, 0, 1]
    assert [state[R.S_LIAB + p] for p in range(3)] == [2, 0, 2]
    assert state[R.S_STAKE] == 2


def test_push_to_three_and_the_liability_that_stays():
    # A bets Pareil, B holds, C pushes: A and B liable for 2 and out of the running unless
    # they hold at 3; A (next after C) holds, B concedes
    state = bet_state()
    run_round(state, R.M_BET + R.O_PAREIL, [R.M_HOLD, R.M_PUSH])
    assert state[R.S_PHASE] == R.P_RESPOND and state[R.S_TO_MOVE] == 0
    assert [state[R.S_LIAB + p] for p in range(3)] == [2, 2, 0]
    R.apply_move(state, R.M_HOLD, KV)
    R.apply_move(state, R.M_CONCEDE, KV)
    assert state[R.S_STAKE] == 3
    assert [state[R.S_LIAB + p] for p in range(3)] == [3, 2, 3]
    assert [state[R.S_ELIG + p] for p in range(3)] == [1, 0, 1]
    # the cap: no push answer at level 2
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    state = bet_state()
    run_round(state, R.M_BET + R.O_PAREIL, [R.M_HOLD, R.M_PUSH])
    R.apply_move(state, R.M_HOLD, KV)
    n = R.legal_moves(state, KV, moves)
    assert set(moves[:n]) == {R.M_SILENT}


def test_concede_then_push_catalogue_14():
    # A bets, B "c'est bon", C pushes: B stays out; A answers alone; "c'est bon" -> C wins
    # 2 with any instance, A stays liable for his own bet (1)
    state = bet_state()
    run_round(state, R.M_BET + R.O_PAREIL, [R.M_CONCEDE, R.M_PUSH])
    assert state[R.S_TO_MOVE] == 0 and state[R.S_R_RESP2] == -1
    R.apply_move(state, R.M_CONCEDE, KV)
    assert state[R.S_STAKE] == 2
    assert [state[R.S_LIAB + p] for p in range(3)] == [1, 0, 2]
    assert [state[R.S_ELIG + p] for p in range(3)] == [0, 0, 1]


def test_later_push_after_a_held_bet():
    state = bet_state()
    run_round(state, R.M_BET + R.O_PAREIL, [R.M_HOLD, R.M_SILENT])
    play(state, "8♥")  # seat 0 plays; seat 1 may now push Pareil to 3
    assert state[R.S_PHASE] == R.P_BET and state[R.S_TO_MOVE] == 1
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(state, KV, moves)
    assert R.M_LATER_PUSH + R.O_PAREIL in moves[:n]
    R.apply_move(state, R.M_LATER_PUSH + R.O_PAREIL, KV)
    assert state[R.S_TO_MOVE] == 2  # the next seat after the pusher answers first


def test_jeu_conceded_after_a_bet_opens_the_exposition_mid_trick():
    state = bet_state()
    play(state, "8♥")
    assert state[R.S_TO_MOVE] == 1
    run_round(state, R.M_BET + R.O_JEU, [R.M_CONCEDE, R.M_CONCEDE])
    assert state[R.S_RESOLVED + R.O_JEU] == 1 and state[R.S_JEU_WINNER] == 1
    assert state[R.S_EXPO] == 1 and state[R.S_TO_MOVE] == 1
    assert state[R.S_EXPO_TRICK] == 0 and state[R.S_EXPO_AT] == 1
    out = finish(state)
    assert out[3 + R.O_JEU] == 1


def test_four_tricks_win_the_jeu_and_stop_play():
    # seat 0 holds five trumps, nobody else a trump or a Démon: its leads win 4 tricks,
    # the Jeu is his and the exposition opens at once (§6.3), starting with him
    state = position(R.SPADES, {0: ["A♠", "K♠", "10♠", "9♠", "8♠", "A♦", "A♣"],
                                1: ["8♥", "9♥", "10♥", "8♣", "9♣", "10♣", "K♣"],
                                2: ["8♦", "9♦", "10♦", "J♦", "J♥", "Q♥", "A♥"]})
    for lead in ["A♠", "K♠", "10♠", "9♠"]:
        play(state, lead)
        for _ in range(2):
            while state[R.S_PHASE] == R.P_BET:
                R.apply_move(state, R.M_PASS, KV)
            moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
            R.legal_moves(state, KV, moves)
            R.apply_move(state, moves[0], KV)
    assert state[R.S_TRICKS] == 4 and state[R.S_JEU_WINNER] == 0
    assert state[R.S_EXPO] == 1 and state[R.S_EXPO_TRICK] == 4
    out = finish(state)
    assert out[3 + R.O_JEU] == 0


def test_unbet_objectives_score_one_and_ties_score_nothing():
    state = position(R.SPADES, {0: ["9♥", "9♦", "8♣", "10♣", "K♦", "Q♥", "J♦"],
                                1: ["9♠", "9♣", "8♥", "10♥", "K♠", "Q♦", "A♥"],
                                2: ["8♦", "10♦", "A♣", "A♦", "J♥", "8♠", "K♣"]})
    # seats 0 and 1 hold a pair of 9s, seat 2 pairs of 8s and Aces: the Aces win
    assert R.objective_winner(state, R.O_PAREIL) == 2
    state[R.S_HAND + 2] = mask("7♥", "8♦", "10♠", "J♥", "K♣", "A♣")
    # seat 2 has no pair: seats 0 and 1 tie on a pair of 9s -> nobody (§6.1)
    assert R.pareil_value(state, 2) == 0
    assert R.objective_winner(state, R.O_PAREIL) == -1
    out = finish(state)
    assert out[3 + R.O_PAREIL] == -1


def test_one_deal_runs_with_every_policy():
    k = GAME.make_knobs({})
    for pol in [("heuristic",) * 3, ("random",) * 3, ("search", "heuristic", "random")]:
        out = GAME.run_deals(k, pol, 5, 0, 20)
        assert out.rows.shape == (20, R.N_DEAL_COLS)
        scores = out.rows[:, R.C_SCORE:R.C_SCORE + 3]
        assert np.abs(scores).max() <= 9
