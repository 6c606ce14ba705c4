"""Rami, variant ``joker_swap`` (catalogue #7, not in the seed): a table joker taken back
by putting in its place the natural card it stands for. Hand-built positions pin when the
swap is legal (the right card, the right meld, the player's status, the joker's return)
and what it does; fixed-seed deals show the heuristic uses it and the game stays sound;
pinned digests show the defaults play as before the knob existed."""

from __future__ import annotations

import hashlib
import math
import random

import numpy as np
import pytest

from simlab.engine.knobs import SimlabError
from simlab.games import rami as R
from simlab.games.rami import kernels as K
from simlab.games.rami import players as PL
from simlab.games.rami import rules as U
from simlab.mechanics import melds as M

DECK = R.DECK
J1, J2 = 52, 53


def cid(label: str) -> int:
    return {"J1": J1, "J2": J2}[label] if label in ("J1", "J2") else DECK.index(label)


def mask(labels) -> np.uint64:
    m = 0
    for c in labels:
        m |= 1 << cid(c)
    return np.uint64(m)


def labels(m) -> set[str]:
    return {DECK.labels[c] if c < 52 else f"J{c - 51}" for c in range(54) if int(m) >> c & 1}


def meld_row(cards: list[str]) -> tuple[int, int, int, int]:
    """(kind, key, lo, hi) of a meld written in order (jokers where they stand)."""
    nat = [(i, cid(c)) for i, c in enumerate(cards) if not c.startswith("J")]
    if len({c % 13 for _, c in nat}) == 1 and len({c // 13 for _, c in nat}) == len(nat) > 1:
        return M.SET, nat[0][1] % 13, -1, -1
    i, c = nat[0]
    pos = (0 if i == 0 else 13) if c % 13 == 12 else c % 13 + 1
    return M.SEQ, c // 13, pos - i, pos - i + len(cards) - 1


def position(k: R.RamiKnobs, hand: list[str], table: list[list[str]], opened: bool = True,
             phase: int = U.PH_MELD, disc: tuple[str, ...] = ("2♦",), seed: int = 1) -> tuple:
    """Seat 0 to move at ``phase`` of its fourth turn, holding ``hand``, with ``table`` on
    the table (opened by seat 1) and the discard pile ``disc`` (top last); the other cards
    dealt at random to the other hands (deal size) and the talon. (S, X, Y, kv)."""
    S, X, Y, kv = K.start_deal(k, 0, 0)
    st, hands, known, talon, disc_a, tm, tc, plan = S
    mine = [cid(c) for c in hand]
    pile = [cid(c) for c in disc]
    on_table = [cid(c) for m in table for c in m]
    rest = [c for c in range(54) if c not in mine + pile + on_table]
    random.Random(seed).shuffle(rest)
    P = k.players
    hands[:] = 0
    known[:] = 0
    hands[0] = mask(hand)
    for q in range(1, P):
        hands[q] = np.uint64(sum(1 << c for c in rest[:k.cards_each]))
        rest = rest[k.cards_each:]
    talon[:len(rest)] = rest
    st[U.S_TALON_POS], st[U.S_TALON_END] = 0, len(rest)
    disc_a[:len(pile)] = pile
    st[U.S_DISC_N] = len(pile)
    for i, m in enumerate(table):
        kind, key, lo, hi = meld_row(m)
        tm[i, M.F_KIND], tm[i, M.F_KEY], tm[i, M.F_LO], tm[i, M.F_HI] = kind, key, lo, hi
        tm[i, M.F_NJ] = sum(c.startswith("J") for c in m)
        tm[i, M.F_NAT] = np.int64(mask([c for c in m if not c.startswith("J")]))
        tc[i] = mask(m)
        assert M.is_valid(tc[i], 13)
    st[U.S_N_TABLE] = len(table)
    turn = 3 * P
    st[U.S_TURN], st[U.S_SEAT], st[U.S_PHASE] = turn, 0, phase
    st[U.S_DEALER] = (-1 - turn) % P
    for q in range(P):
        st[U.S_OWN_TURNS + q] = 3 + (1 if q == 0 and phase != U.PH_DRAW else 0)
    st[U.S_OPENED + 0] = int(opened)
    st[U.S_OPENED + 1] = 1
    st[U.S_MODE] = U.MODE_NONE
    st[U.S_MODE_PLY] = -1
    return S, X, Y, kv


def moves(S, X, Y, kv) -> list[int]:
    out = np.zeros(U.MAX_MOVES, dtype=np.int64)
    n = U.legal_moves(S, X, kv, Y[1], out)
    return [int(m) for m in out[:n]]


def swaps(S, X, Y, kv) -> set[tuple[str, int]]:
    return {(DECK.labels[U.swap_card(m)], U.swap_meld(m)) for m in moves(S, X, Y, kv)
            if m >= U.M_SWAP}


def play(S, X, kv, *ms) -> tuple:
    S = tuple(a.copy() for a in S)
    for m in ms:
        U.apply_move(S, X, kv, m)
    return S


def sw(card: str, meld: int) -> int:
    return U.swap_move(cid(card), meld)


SEQ_TABLE = [["5♥", "J1", "7♥"], ["8♣", "9♣", "10♣"]]
HAND = ["6♥", "2♣", "9♦", "K♠"]


# --- the knob -----------------------------------------------------------------------------
def test_knobs_default_off_and_checked():
    k = R.RamiKnobs()
    assert (k.joker_swap, k.joker_swap_replay) == ("none", True)
    rows = {r["name"]: r for r in R.RamiKnobs.describe()}
    assert rows["joker_swap"]["allowed"] == "none | sequences | all"
    assert rows["joker_swap"]["seed_value"] is None  # the seed is silent: no swap, as the default
    with pytest.raises(SimlabError, match="joker_swap.*allowed: none, sequences, all"):
        R.GAME.make_knobs({"joker_swap": "yes"})
    k = R.GAME.make_knobs({"joker_swap": "all", "joker_swap_replay": "false"})
    kv = R.knob_vector(k)
    assert (kv[U.K_SWAP], kv[U.K_SWAP_REPLAY]) == (U.SWAP_ALL, 0)


# --- legality -------------------------------------------------------------------------------
@pytest.mark.parametrize("knobs, hand, table, opened, expected", [
    # a sequence's joker stands for one card: only that card takes it back
    ({"joker_swap": "sequences"}, HAND, SEQ_TABLE, True, {("6♥", 0)}),
    ({"joker_swap": "all"}, HAND, SEQ_TABLE, True, {("6♥", 0)}),
    ({}, HAND, SEQ_TABLE, True, set()),  # the default: no swap
    # only a player who may lay off: opened (catalogue #4), or anyone when that knob is off
    ({"joker_swap": "all"}, HAND, SEQ_TABLE, False, set()),
    ({"joker_swap": "all", "open_before_layoff": False}, HAND, SEQ_TABLE, False, {("6♥", 0)}),
    # wrong suit, or cards that extend the ends (they are lay-offs, not swaps)
    ({"joker_swap": "all"}, ["6♦", "8♥", "4♥", "2♣"], SEQ_TABLE, True, set()),
    # a set's joker stands for any suit the set lacks ('all' only)
    ({"joker_swap": "all"}, ["9♠", "9♦", "2♣", "5♦"], [["9♥", "9♣", "J2"]], True,
     {("9♠", 0), ("9♦", 0)}),
    ({"joker_swap": "sequences"}, ["9♠", "9♦", "2♣", "5♦"], [["9♥", "9♣", "J2"]], True, set()),
    ({"joker_swap": "all"}, ["9♠", "2♣", "5♦", "K♥"], [["9♥", "9♣", "9♦", "J2"], ["4♠", "5♠", "6♠"]],
     True, {("9♠", 0)}),
    # the ace, high or low, and a sequence holding both jokers
    ({"joker_swap": "sequences"}, ["A♠", "2♣", "5♦"], [["Q♠", "K♠", "J1"]], True, {("A♠", 0)}),
    ({"joker_swap": "sequences"}, ["A♠", "4♠", "5♦"], [["J1", "2♠", "3♠"]], True, {("A♠", 0)}),
    ({"joker_swap": "sequences"}, ["A♠", "4♠", "5♦"], [["2♠", "3♠", "J1"]], True, {("4♠", 0)}),
    ({"joker_swap": "sequences"}, ["J♠", "Q♠", "2♣"], [["10♠", "J1", "J2", "K♠"]], True,
     {("J♠", 0), ("Q♠", 0)}),
    # the joker must go down again: with a final discard required, a lone card cannot swap
    ({"joker_swap": "all", "final_discard_required": True}, ["6♥"], SEQ_TABLE, True, set()),
    ({"joker_swap": "all", "final_discard_required": True, "joker_swap_replay": False},
     ["6♥"], SEQ_TABLE, True, {("6♥", 0)}),
    ({"joker_swap": "all"}, ["6♥"], SEQ_TABLE, True, {("6♥", 0)}),
    # ... and no room for it on the table, no meld for it in hand: no swap
    ({"joker_swap": "all"}, ["9♠", "2♣"], [["9♥", "9♣", "9♦", "J2"]], True, set()),
    ({"joker_swap": "all"}, ["9♠", "K♣", "K♦"], [["9♥", "9♣", "9♦", "J2"]], True, {("9♠", 0)}),
    ({"joker_swap": "all", "joker_swap_replay": False}, ["9♠", "2♣"], [["9♥", "9♣", "9♦", "J2"]],
     True, {("9♠", 0)}),
])
def test_swap_is_legal_exactly_when_the_rule_allows(knobs, hand, table, opened, expected):
    k = R.RamiKnobs(**knobs)
    S, X, Y, kv = position(k, hand, table, opened)
    got = swaps(S, X, Y, kv)
    assert got == expected
    for card, i in got:
        assert U.stands_for(cid(card), S[5], i, S[6], kv)


def test_no_swap_outside_the_lay_down_step_or_while_a_discard_must_go_down():
    k = R.RamiKnobs(joker_swap="all")
    for phase in (U.PH_DRAW, U.PH_DISCARD):
        S, X, Y, kv = position(k, HAND, SEQ_TABLE, phase=phase)
        assert all(m < U.M_SWAP for m in moves(S, X, Y, kv))
    S, X, Y, kv = position(k, HAND, SEQ_TABLE)
    S[0][U.S_MODE] = U.MODE_LAYOFF  # discard_take_must_meld: the card taken goes down first
    assert moves(S, X, Y, kv) == [U.M_LAY]


# --- what a swap does ---------------------------------------------------------------------------
def test_swap_puts_the_card_in_the_meld_and_the_joker_in_hand_to_go_down_again():
    k = R.RamiKnobs(joker_swap="sequences")
    S, X, Y, kv = position(k, HAND, SEQ_TABLE)
    T = play(S, X, kv, sw("6♥", 0))
    st, hands, known, tm, tc = T[0], T[1], T[2], T[5], T[6]
    assert labels(tc[0]) == {"5♥", "6♥", "7♥"} and tm[0, M.F_NJ] == 0
    assert labels(np.uint64(tm[0, M.F_NAT])) == {"5♥", "6♥", "7♥"}
    assert (tm[0, M.F_LO], tm[0, M.F_HI]) == (S[5][0, M.F_LO], S[5][0, M.F_HI])
    assert labels(hands[0]) == {"J1", "2♣", "9♦", "K♠"}
    assert labels(known[0]) == {"J1"}  # everybody saw the joker go to that hand
    assert st[U.S_PHASE] == U.PH_MELD and st[U.S_OWED] == 1 and st[U.S_SWAPS] == 1
    # the joker owed: every lay-down offered puts it back, laying nothing is not offered
    after = moves(T, X, Y, kv)
    assert U.M_LAY in after and U.M_PASS not in after
    for lay in (U.M_LAY, U.M_KEEP):
        if lay in after:
            T2 = play(T, X, kv, lay)
            assert T2[0][U.S_OWED] == 0 and T2[0][U.S_PHASE] == U.PH_DISCARD
            assert labels(T2[1][0]) == {"2♣", "9♦", "K♠"}
            on_table = set().union(*(labels(T2[6][i]) for i in range(T2[0][U.S_N_TABLE])))
            assert "J1" in on_table
            assert all(M.is_valid(T2[6][i], 13) for i in range(T2[0][U.S_N_TABLE]))
    # without the obligation the joker joins the hand and may stay there
    k = R.RamiKnobs(joker_swap="sequences", joker_swap_replay=False)
    S, X, Y, kv = position(k, HAND, SEQ_TABLE)
    T = play(S, X, kv, sw("6♥", 0))
    assert T[0][U.S_OWED] == 0
    T2 = play(T, X, kv, U.M_LAY)
    assert labels(T2[1][0]) == {"J1", "2♣", "9♦", "K♠"} and T2[0][U.S_PHASE] == U.PH_DISCARD


def test_joker_taken_back_goes_into_a_new_meld():
    k = R.RamiKnobs(joker_swap="sequences")
    S, X, Y, kv = position(k, ["6♥", "8♠", "9♠", "2♣"], SEQ_TABLE)
    T = play(S, X, kv, sw("6♥", 0), U.M_LAY)
    assert labels(T[1][0]) == {"2♣"} and T[0][U.S_OWED] == 0
    assert {"8♠", "9♠", "J1"} in [labels(T[6][i]) for i in range(T[0][U.S_N_TABLE])]


# --- the heuristic --------------------------------------------------------------------------
def test_heuristic_swaps_when_it_helps():
    T = U.new_state()
    # the joker completes 8-9♠ (it need not go back: the heuristic still takes it)
    k = R.RamiKnobs(joker_swap="sequences", joker_swap_replay=False)
    S, X, Y, kv = position(k, ["6♥", "8♠", "9♠", "2♣"], SEQ_TABLE)
    assert PL.heuristic_move(S, X, kv, T) == sw("6♥", 0)
    # the swap lets it go out: 6♥ for the joker, the joker laid off
    k = R.RamiKnobs(joker_swap="sequences")
    S, X, Y, kv = position(k, ["6♥"], SEQ_TABLE)
    assert PL.heuristic_move(S, X, kv, T) == sw("6♥", 0)
    S2 = play(S, X, kv, sw("6♥", 0))
    S2 = play(S2, X, kv, PL.heuristic_move(S2, X, kv, T))
    assert S2[0][U.S_PHASE] == U.PH_OVER and S2[0][U.S_WENT_OUT] == 0
    # no gain: laying the 9♠ off as the fourth 9 sheds it as well
    k = R.RamiKnobs(joker_swap="all")
    S, X, Y, kv = position(k, ["9♠", "2♣", "5♦"], [["9♥", "9♣", "J2"]])
    assert swaps(S, X, Y, kv) == {("9♠", 0)}
    assert PL.heuristic_move(S, X, kv, T) == U.M_LAY
    # no gain without the obligation: the joker would only sit in hand (20 points)
    k = R.RamiKnobs(joker_swap="sequences", joker_swap_replay=False)
    S, X, Y, kv = position(k, HAND, SEQ_TABLE)
    assert PL.heuristic_move(S, X, kv, T) == U.M_LAY
    # the draw: the discard's top card that can take a joker's place, then goes down
    for knobs, want in (({"joker_swap": "sequences"}, U.M_DISCARD_PILE), ({}, U.M_TALON),
                        ({"joker_swap": "sequences", "joker_swap_replay": False}, U.M_TALON)):
        S, X, Y, kv = position(R.RamiKnobs(**knobs), ["2♣", "9♦", "K♠"], SEQ_TABLE,
                               phase=U.PH_DRAW, disc=("3♦", "6♥"))
        assert PL.heuristic_move(S, X, kv, T) == want, knobs


def test_search_player_sees_the_swaps():
    k = R.RamiKnobs(joker_swap="sequences", search_worlds=2)
    S, X, Y, kv = position(k, ["6♥", "8♠", "9♠", "2♣"], SEQ_TABLE)
    out = np.zeros(U.MAX_MOVES, dtype=np.int64)
    n = PL.search_candidates(S, X, kv, Y[1], out)
    cands = [int(m) for m in out[:n]]
    assert cands[0] == sw("6♥", 0)  # the heuristic's move first
    assert set(cands) == set(moves(S, X, Y, kv))
    assert int(PL.search_move(S, X, Y, kv, np.uint64(3), 0, 0)) in cands


# --- whole deals ----------------------------------------------------------------------------
def _check_table(S: tuple) -> None:
    st, hands, known, talon, disc, tm, tc = S[:7]
    cards = [c for q in range(7) for c in range(54) if int(hands[q]) >> c & 1]
    for i in range(st[U.S_N_TABLE]):
        assert M.is_valid(tc[i], 13)
        assert int(tm[i, M.F_NAT]) == int(tc[i]) & ((1 << 52) - 1)
        assert tm[i, M.F_NJ] == bin(int(tc[i]) >> 52).count("1")
        cards += [c for c in range(54) if int(tc[i]) >> c & 1]
    cards += [int(c) for c in talon[st[U.S_TALON_POS]:st[U.S_TALON_END]]]
    cards += [int(c) for c in disc[:st[U.S_DISC_N]]]
    assert sorted(cards) == list(range(54))


@pytest.mark.parametrize("players, n", [(2, 200), (4, 600)])
def test_heuristic_swaps_in_play_and_every_position_stays_legal(players, n):
    """Heuristic deals move by move with the variant on: swaps happen (a deal in 20 at 4
    players, in 5 at 2 with seed 7), each is legal, its joker always goes back down, melds
    stay legal and every card is accounted for."""
    k = R.RamiKnobs(players=players, joker_swap="all")
    T = U.new_state()
    deals_with = 0
    for d in range(n):
        S, X, Y, kv = K.start_deal(k, 7, d)
        swapped = False
        while not U.is_over(S):
            move = int(PL.heuristic_move(S, X, kv, T))
            if move >= U.M_SWAP:
                assert move in moves(S, X, Y, kv)
                swapped = True
            U.apply_move(S, X, kv, move)
            if swapped and S[0][U.S_PHASE] != U.PH_MELD:  # the turn's lay-down is over
                assert S[0][U.S_OWED] == 0
                _check_table(S)
                swapped = False
        _check_table(S)
        deals_with += S[0][U.S_SWAPS] > 0
    assert deals_with >= 10, deals_with


def test_variant_changes_play_but_no_more_deals_are_capped():
    def run(k):
        rows = R.run_deals_detail(k, ("heuristic",) * k.players, 5, 0, 2000, False)[0]
        cols = {c.name: j for j, c in enumerate(R.deal_columns(k))}
        return rows, rows[:, cols["capped"]].sum()
    base, capped = run(R.RamiKnobs())
    for knobs in ({"joker_swap": "all"}, {"joker_swap": "sequences", "joker_swap_replay": False}):
        rows, capped_on = run(R.RamiKnobs(**knobs))
        assert not np.array_equal(rows, base), knobs
        assert capped_on <= capped + 5 * math.sqrt(capped + 1), (knobs, capped_on, capped)
    m = R.run_matches(R.RamiKnobs(joker_swap="all"), ("heuristic",) * 4, 3, 0, 10).rows
    assert (m[:, 2] >= 0).all()  # every match ends with a winner


# --- defaults unchanged -------------------------------------------------------------------------
def _digest(rows: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(rows).astype("<i8").tobytes()).hexdigest()[:16]


def test_defaults_play_as_before_the_knob():
    """Digests computed with the code before the knob existed (the variant off either way),
    with the heuristic's discard of that time (issue 10 changed its defaults)."""
    former = {"keep_high_before_opening": False, "break_cycles": False, "ace_high": True}
    off = {"joker_swap": "none", "joker_swap_replay": False, **former}
    rows = R.run_deals_detail(R.RamiKnobs(**off), ("heuristic",) * 4, 7, 0, 300)[0]
    assert _digest(rows) == "a8a634535537e50d"
    rows = R.run_deals_detail(R.RamiKnobs(search_worlds=2, search_loose_discards=False,
                                          **former),
                              ("search", "heuristic", "random", "heuristic"), 5, 0, 3)[0]
    assert _digest(rows) == "5bdd29187cce0e60"
    k = R.RamiKnobs(players=3, discard_take_must_meld=True, open_before_layoff=False,
                    final_discard_required=True, **former)
    assert _digest(R.run_deals_detail(k, ("heuristic",) * 3, 7, 0, 300)[0]) == "fc76433acbba8be5"
    m = R.run_matches(R.RamiKnobs(players=2, **off), ("heuristic",) * 2, 3, 0, 5).rows
    assert _digest(m) == "5f81c69aaf0ede7b"
