"""Progression (seed 004 "progression"): the rules pinned by the catalogue's worked examples
and hand-built positions, players that stay inside the legal moves, the search player's
strength and blindness to hidden cards, the deal's exact frequencies, bad knob values."""

from __future__ import annotations

import math
import subprocess
import sys
from math import comb

import numpy as np
import polars as pl
import pytest

from simlab.engine import rng
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.games import get_game
from simlab.games.progression import kernels as K
from simlab.games.progression import players as PL
from simlab.games.progression import rules as R

G = get_game("progression")
LABELS = [k.label for k in G.deck.kinds]


def cid(label: str) -> int:
    return R.card_id(label)


def game(first_hand: list[str], dealer_hand: list[str] | None = None, start: str = "7♥",
         talon_top: list[str] | None = None, dealer: int = 1, **knobs) -> tuple:
    """A hand-built deal: the first player (seat 1 - dealer) is dealt ``first_hand`` (and
    draws the talon's top card), the dealer ``dealer_hand``, the start card ``start``;
    ``talon_top`` lists the talon's top cards, top first; the other cards fill the rest.
    Returns (state, knob vector)."""
    k = R.ProgressionKnobs(**knobs)
    kv = R.knob_vector(k)
    n = k.hand_size
    used = [cid(c) for c in first_hand + (dealer_hand or []) + [start] + (talon_top or [])]
    rest = [c for c in range(52) if c not in used]
    first = [cid(c) for c in first_hand] + rest[:n - len(first_hand)]
    rest = rest[n - len(first_hand):]
    second = [cid(c) for c in (dealer_hand or [])]
    second += rest[:n - len(second)]
    rest = rest[n - len(dealer_hand or []):]
    deck = []
    for i in range(n):
        deck += [first[i], second[i]]
    deck.append(cid(start))
    deck += [cid(c) for c in (talon_top or [])]
    deck += rest
    assert sorted(deck) == list(range(52))
    st = R.new_state()
    dealt = np.full((2, n), -1, dtype=np.int64)
    R.start_game(st, np.array(deck, dtype=np.int64), dealer, kv, dealt)
    return st, kv


def moves_of(st, kv) -> list[int]:
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    dist = np.full(R.NC, -1, dtype=np.int64)
    n = R.legal_moves(st, kv, moves, dist)
    return [int(m) for m in moves[:n]]


def placements(st, kv) -> set[tuple[str, str, int, int]]:
    """Legal placements as (card, orientation, x, y)."""
    out = set()
    for m in moves_of(st, kv):
        if m == R.PASS:
            continue
        x, y = R.xy_of(m // 104)
        out.add((R.card_label((m % 104) // 2), R.ORIENTS[m % 2], x, y))
    return out


def place(st, kv, label: str, orient: str, x: int, y: int) -> None:
    """Put a card on the field by hand (the legality is tested separately)."""
    R.put_card(st, R.cell_of(x, y), cid(label), R.ORIENTS.index(orient), kv)


def move(label: str, orient: str, x: int, y: int) -> int:
    return R.cell_of(x, y) * 104 + cid(label) * 2 + R.ORIENTS.index(orient)


def hand(st, seat) -> set[str]:
    h = int(st[R.S_HAND + seat])
    return {R.card_label(c) for c in range(52) if h >> c & 1}


# --- the worked examples -------------------------------------------------------------------
def test_example_1_in_line_and_at_right_angles():
    """7♥ (H) at (0, 0): 8♥ / 6♥ H east or west, 7♠ 7♦ 7♣ V north or south, nothing
    else (the hand holds other 8s and 6s, a 7 and 8 of other suits)."""
    cards = ["8♥", "6♥", "7♠", "7♦", "7♣", "8♠", "6♣", "9♥", "5♥", "2♠"]
    st, kv = game(cards)
    want = {(c, "H", x, 0) for c in ("8♥", "6♥") for x in (1, -1)}
    want |= {(c, "V", 0, y) for c in ("7♠", "7♦", "7♣") for y in (1, -1)}
    assert placements(st, kv) == want


def test_example_2_illegal_placements():
    st, kv = game(["8♥", "7♠"])
    got = placements(st, kv)
    assert ("8♥", "H", 0, 1) not in got and ("8♥", "V", 0, 1) not in got
    assert ("7♠", "H", 1, 0) not in got and ("7♠", "V", 1, 0) not in got
    assert ("8♥", "H", 1, 0) in got and ("7♠", "V", 0, 1) in got
    # the orientation matters too: 8♥ V east of an H card is not in line
    assert ("8♥", "V", 1, 0) not in got


def test_example_3_two_contacts_block_a_cell():
    st, kv = game(["8♦", "7♦", "8♠", "8♣", "7♣"])
    place(st, kv, "8♥", "H", 1, 0)
    place(st, kv, "7♠", "V", 0, 1)
    c = R.cell_of(1, 1)
    assert st[R.S_OKH + c] == 0 and st[R.S_OKV + c] == 0
    assert not any(x == 1 and y == 1 for _, _, x, y in placements(st, kv))
    # each contact alone is fine: 8♦ V north of 8♥ at (1, -1), 7♦ H ... west of 7♠? no:
    # west of a V card is across its axis, so a 7 laid H
    got = placements(st, kv)
    assert ("8♦", "V", 1, -1) in got and ("7♦", "H", -1, 1) in got


def test_example_4_pawn_steps_and_the_straight_road():
    """A pawn steps to a card sharing a side; 8♥..Q♥ east of 7♥ H bring it beside the
    arrival at (6, 0): the sixth step enters it and wins."""
    st, kv = game(["2♠"])
    p = int(st[R.S_TO_MOVE])
    for x, c in enumerate(["8♥", "9♥", "10♥", "J♥", "Q♥"], start=1):
        place(st, kv, c, "H", x, 0)
    dist = np.full(R.NC, -1, dtype=np.int64)
    out = np.zeros(64, dtype=np.int64)
    n = R.pawn_targets(st, kv, p, out, dist)
    assert [R.xy_of(int(c)) for c in out[:n]] == [(1, 0)]  # no card at (-1,0), (0,+-1)
    queue = np.zeros(64, dtype=np.int64)
    assert R.reach_arrival(st, kv, p, queue, dist) == 6
    # walking it: the pawn moves on placement turns only; here set it beside the arrival
    st[R.S_PAWN + p] = R.cell_of(5, 0)
    st[R.S_PHASE] = R.P_PAWN
    assert R.cell_of(6, 0) in moves_of(st, kv)
    R.apply_move(st, R.cell_of(6, 0), kv)
    assert st[R.S_PHASE] == R.P_DONE and st[R.S_WINNER] == p and st[R.S_END] == R.END_ARRIVAL


def test_arrival_may_be_covered_and_entry_knob():
    st, kv = game(["K♥"], talon_top=[])
    for x, c in enumerate(["8♥", "9♥", "10♥", "J♥", "Q♥"], start=1):
        place(st, kv, c, "H", x, 0)
    # "la seule carte qui supporte d'être chevauchée ... est la carte d'arrivée"
    assert ("K♥", "H", 6, 0) in placements(st, kv)
    # covered entry: no step onto a bare arrival card
    st2, kv2 = game(["K♥"], arrival_entry="covered")
    for x, c in enumerate(["8♥", "9♥", "10♥", "J♥", "Q♥"], start=1):
        place(st2, kv2, c, "H", x, 0)
    st2[R.S_PAWN + int(st2[R.S_TO_MOVE])] = R.cell_of(5, 0)
    st2[R.S_PHASE] = R.P_PAWN
    assert R.cell_of(6, 0) not in moves_of(st2, kv2)


def test_arrival_is_no_anchor():
    """"sa valeur n'a pas d'incidence": a card touching only the arrival card cannot be
    laid (nothing to be in line with or at right angles to)."""
    st, kv = game(["2♠", "3♠", "4♠"], arrival_distance=2)
    assert all(x <= 1 for _, _, x, _ in placements(st, kv))
    assert st[R.S_TOUCH + R.cell_of(3, 0)] == 0


def test_example_5_hand_size():
    """18 + 1 - 1 (placed) - 1 (discarded) = 17; without a placement, 18."""
    st, kv = game(["8♥"])
    p = int(st[R.S_TO_MOVE])
    assert len(hand(st, p)) == 19  # after the draw
    R.apply_move(st, move("8♥", "H", 1, 0), kv)
    R.apply_move(st, R.STAY, kv)
    R.apply_move(st, moves_of(st, kv)[0], kv)
    assert len(hand(st, p)) == 17
    # a hand (and a drawn card) that fits nowhere: straight to the discard, no pawn step
    spades = [r + "♠" for r in ("2", "3", "4", "5", "6", "8", "9", "10", "J", "Q", "K", "A")]
    clubs = [r + "♣" for r in ("2", "3", "4", "5", "6", "8")]
    st, kv = game(spades + clubs, start="7♥", talon_top=["9♣"])
    p = int(st[R.S_TO_MOVE])
    assert int(st[R.S_HAND + p]) & int(R.fitting(st)) == 0
    assert st[R.S_PHASE] == R.P_DISCARD and st[R.S_PASSES] == 1
    R.apply_move(st, moves_of(st, kv)[0], kv)
    assert len(hand(st, p)) == 18


def test_compulsory_placement_and_the_pass_knob():
    st, kv = game(["8♥"])
    assert R.PASS not in moves_of(st, kv)
    st, kv = game(["8♥"], place_compulsory=False)
    assert moves_of(st, kv)[-1] == R.PASS


def test_no_pawn_move_without_a_placement():
    """"Son tour est alors terminé": after a pass the turn goes to the discard."""
    st, kv = game(["8♥"], place_compulsory=False)
    R.apply_move(st, R.PASS, kv)
    assert st[R.S_PHASE] == R.P_DISCARD
    st, kv = game(["8♥"], place_compulsory=False, move_without_placement=True)
    R.apply_move(st, R.PASS, kv)
    assert st[R.S_PHASE] == R.P_PAWN


def test_wrap_knob():
    st, kv = game(["K♥", "2♥"], start="A♥")
    got = {c for c, o, x, y in placements(st, kv) if y == 0}
    assert "2♥" in got and "K♥" not in got
    st, kv = game(["K♥", "2♥"], start="A♥", wrap=True)
    got = {c for c, o, x, y in placements(st, kv) if y == 0}
    assert {"2♥", "K♥"} <= got


def test_the_talon_turns_over_when_empty():
    """"les cartes de la défausse deviennent immédiatement celles d'un nouveau talon, en
    les mettant faces visibles": the pile turned over, the first discard on top."""
    st, kv = game(["8♥"])
    st[R.S_TALON_N] = 0
    for i, c in enumerate(["2♠", "3♠", "4♠"]):
        st[R.S_DISC + i] = cid(c)
    st[R.S_DISC_N] = 3
    R.recycle(st)
    assert st[R.S_DISC_N] == 0 and st[R.S_TALON_N] == 3
    assert R.card_label(int(R.talon_top(st))) == "2♠"


def test_a_lone_discard_becomes_the_talon():
    """Talon and discards empty: "il doit jeter une carte à la défausse. Le joueur
    suivant peut la prendre"."""
    st, kv = game(["8♥"])
    p = int(st[R.S_TO_MOVE])
    st[R.S_TALON_N] = 0
    st[R.S_DISC_N] = 0
    R.apply_move(st, move("8♥", "H", 1, 0), kv)
    R.apply_move(st, R.STAY, kv)
    c = moves_of(st, kv)[0]
    R.apply_move(st, c, kv)
    # the opponent's turn began by taking that very card
    assert st[R.S_TO_MOVE] == 1 - p
    assert (int(st[R.S_HAND + 1 - p]) >> c) & 1


def test_a_frozen_field_is_a_draw_and_the_nearer_rule():
    st, kv = game(["8♥"])
    # every card in play leaves: nothing fits any more
    R.apply_move(st, move("8♥", "H", 1, 0), kv)
    p = int(st[R.S_TO_MOVE])
    R.apply_move(st, R.cell_of(1, 0), kv)  # the pawn steps east
    # the field takes nothing: empty every touched cell's masks
    for i in range(int(st[R.S_TL_N])):
        c = int(st[R.S_TL + i])
        st[R.S_OKH + c] = 0
        st[R.S_OKV + c] = 0
    R.apply_move(st, moves_of(st, kv)[0], kv)
    assert st[R.S_PHASE] == R.P_DONE and st[R.S_END] == R.END_FROZEN and st[R.S_WINNER] == -1
    kv2 = kv.copy()
    kv2[R.K_DRAW_RULE] = 1
    R.finish(st, kv2, R.END_FROZEN)
    assert st[R.S_WINNER] == p  # its pawn is one step nearer


# --- players -------------------------------------------------------------------------------
def _play_checked(seed: int, pols: tuple[str, str], kv: np.ndarray) -> None:
    """One game played move by move, every move checked against the legal moves."""
    deck = np.arange(52, dtype=np.int64)
    K.shuffled(np.uint64(seed), seed, 0, deck)
    st = R.new_state()
    dealt = np.full((2, int(kv[R.K_HAND])), -1, dtype=np.int64)
    R.start_game(st, deck, seed % 2, kv, dealt)
    work = PL.player_work()
    pst = np.uint64(rng.stream(np.uint64(seed), seed, 0, rng.POLICY))
    turns = 0
    while st[R.S_PHASE] != R.P_DONE:
        legal = moves_of(st, kv)
        code = pols[int(st[R.S_TO_MOVE])]
        if code == "random":
            pst, mv = PL.random_move(st, kv, pst, work)
            pst = np.uint64(pst)
        elif code == "heuristic":
            mv = PL.heuristic_move(st, kv, work)
        else:
            mv = PL.search_move(st, kv, np.uint64(seed), seed, 0, work)
        assert int(mv) in legal, (seed, code, mv)
        R.apply_move(st, mv, kv)
        turns += 1
        assert turns < 10_000
    # cards are conserved: hands + talon + discards + field + arrival = 52
    total = bin(int(st[R.S_HAND])).count("1") + bin(int(st[R.S_HAND + 1])).count("1")
    total += int(st[R.S_TALON_N]) + int(st[R.S_DISC_N]) + int(st[R.S_PL_N]) + 1
    assert total == 52


@pytest.mark.parametrize("seed", range(12))
def test_players_move_only_within_the_legal_moves(seed):
    kv = R.knob_vector(R.ProgressionKnobs(search_worlds=2, search_candidates=2))
    for pols in (("random", "heuristic"), ("heuristic", "random"), ("random", "random")):
        _play_checked(seed, pols, kv)
    if seed < 2:
        _play_checked(seed, ("search", "heuristic"), kv)
    kv2 = R.knob_vector(R.ProgressionKnobs(pawn_steps=3, place_compulsory=False, wrap=True,
                                           arrival_entry="covered", pawn_wait=True))
    _play_checked(seed, ("random", "heuristic"), kv2)


def _mid_game(seed: int, plies: int) -> np.ndarray:
    kv = R.knob_vector(R.ProgressionKnobs())
    deck = np.arange(52, dtype=np.int64)
    K.shuffled(np.uint64(seed), seed, 0, deck)
    st = R.new_state()
    R.start_game(st, deck, 0, kv, np.full((2, 18), -1, dtype=np.int64))
    work = PL.player_work()
    for _ in range(plies):
        if st[R.S_PHASE] == R.P_DONE:
            break
        R.apply_move(st, PL.heuristic_move(st, kv, work), kv)
    return st


def test_search_never_peeks():
    """Re-deal the cards the seat to move has not seen (consistently with its view): the
    search's decision does not change."""
    kv = R.knob_vector(R.ProgressionKnobs(search_worlds=4))
    work = PL.player_work()
    checked = 0
    for seed in range(6):
        for plies in (6, 15, 24):
            st = _mid_game(seed, plies)
            if st[R.S_PHASE] not in (R.P_PLACE, R.P_PAWN) or len(moves_of(st, kv)) < 2:
                continue
            seat = int(st[R.S_TO_MOVE])
            mv = int(PL.search_move(st, kv, np.uint64(7), seed, 0, work))
            for r in range(3):
                other = R.new_state()
                PL.sample_world(st, seat, np.uint64(rng.stream(np.uint64(99), seed, r, 5)), other,
                                np.zeros(60, dtype=np.int64), np.zeros(60, dtype=np.int64))
                assert PL.seen_by(other, seat) == PL.seen_by(st, seat)
                assert int(PL.search_move(other, kv, np.uint64(7), seed, 0, work)) == mv
                if other[R.S_HAND + 1 - seat] != st[R.S_HAND + 1 - seat]:
                    checked += 1
    assert checked >= 10


def test_search_beats_heuristic_in_duplicate_play():
    from simlab.players.duel import duplicate

    r = duplicate(G, "search", "heuristic", n=80, seed=3)
    assert r.lo > 0, r.format()


# --- the deal ------------------------------------------------------------------------------
def test_dealing_frequencies_are_exact():
    """Cards of the first player's 18 that fit beside the start card: the start card has
    5 such cards (3 of its rank, 2 of its suit next to it) unless it is an Ace or a King
    (4), and the 18 are a uniform draw from the other 51 cards: hypergeometric."""
    n = 20_000
    out = G.run_deals(G.make_knobs(), ("random", "random"), 11, 0, n)
    f = to_frame(out, G.deal_columns(G.make_knobs()), LABELS, 2)
    got = f["opener_fits"].to_numpy()

    def hyper(k_fit: int, x: int) -> float:
        return comb(k_fit, x) * comb(51 - k_fit, 18 - x) / comb(51, 18)

    for x in range(6):
        p = 11 / 13 * hyper(5, x) + 2 / 13 * hyper(4, x)
        obs = float(np.mean(got == x))
        se = math.sqrt(p * (1 - p) / n)
        assert abs(obs - p) < 5 * se + 1e-12, (x, obs, p)
    # the first player alternates with the deal index (deal d: dealer d % 2)
    assert (f["first_player"] == 1 - f["deal"] % 2).all()


def test_rows_and_matches():
    k = G.make_knobs({"match_games": 3})
    m = G.run_matches(k, ("heuristic", "heuristic"), 5, 0, 20).rows
    assert (m[:, R.M_N_DEALS] == 3).all()
    assert (m[:, R.M_FINAL] + m[:, R.M_FINAL + 1] + m[:, R.M_DRAWN_GAMES] == 3).all()
    out = G.run_deals(G.make_knobs(), ("heuristic", "heuristic"), 5, 0, 300)
    f = to_frame(out, G.deal_columns(G.make_knobs()), LABELS, 2)
    assert f["capped"].sum() == 0
    won = f.filter(pl.col("end") == "arrival")
    assert (won["winner"] >= 0).all() and won["linked"].all()
    assert (f.filter(pl.col("end") == "frozen")["winner"] == -1).all()
    assert (f["score_s0"] + f["score_s1"] == (f["winner"] >= 0).cast(pl.Int32)).all()


# --- bad knob values -----------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["hand_size=30", "arrival_entry=over", "wrap=maybe",
                                     "arrival_distance=1", "start_orientation=D"])
def test_bad_knob_values_exit_2_in_one_line(setting):
    res = subprocess.run([sys.executable, "-m", "simlab", "run", "progression", "-n", "10",
                          "--set", setting], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr


def test_knob_cross_check():
    with pytest.raises(SimlabError):
        R.ProgressionKnobs(arrival_distance=25, arrival_offset=10)
