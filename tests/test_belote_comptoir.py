"""Belote de comptoir rules pinned by hand-built positions and the catalogue's worked
examples, invariants over many deals, exact deal combinatorics, matches, determinism,
the pure-Python path, and the heuristic's health (beats random, strong hands win)."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.analysis import players_check
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import plan
from simlab.games import belote_comptoir as G
from simlab.games import get_game
from simlab.games.belote_comptoir import players as P
from simlab.games.belote_comptoir import rules as R
from simlab.players.duel import duplicate

SPADES, HEARTS, DIAMONDS, CLUBS = range(4)


def card(label: str) -> int:
    return G.DECK.index(label)


def mask(labels) -> int:
    return sum(1 << card(c) for c in labels)


def labels(m: int) -> set[str]:
    return {G.DECK.labels[c] for c in range(32) if int(m) >> c & 1}


def setup(**knobs):
    k = G.ComptoirKnobs(**knobs)
    return k, G._vector(k), G._rules(k), G.kernel_tables(k)


def position(hands: list[list[str]], **knobs) -> tuple[np.ndarray, tuple]:
    """A dealt state whose seat i holds ``hands[i]`` (the dealer is the last seat, so seat
    0 speaks first); the other cards are the undealt rest."""
    k, kv, rules, tb = setup(players=len(hands), k=len(hands[0]), **knobs)
    dealt = [card(c) for h in hands for c in h]
    deck = np.array(dealt + [c for c in range(32) if c not in dealt], dtype=np.int64)
    state = np.zeros(R.N_STATE, dtype=np.int64)
    R.deal(state, deck, len(hands) - 1, kv, np.zeros((len(hands), len(hands[0])), dtype=np.int64))
    return state, (kv, rules, tb)


def play(state: np.ndarray, env: tuple, moves: list) -> None:
    """Apply moves given as "pass", an int bid, ("contract", c) or a card label."""
    kv, rules, tb = env
    legal = np.zeros(R.MAX_MOVES, dtype=np.int64)
    for mv in moves:
        if mv == "pass":
            m = R.PASS
        elif isinstance(mv, int):
            m = R.BID + mv
        elif isinstance(mv, tuple):
            m = R.CONTRACT + mv[1]
        else:
            m = card(mv)
        n = R.legal_moves(state, kv, rules, tb, legal)
        assert m in legal[:n], (mv, state[R.S_PHASE])
        R.apply_move(state, m, kv, tb)


def legal_labels(state: np.ndarray, env: tuple) -> set[str]:
    kv, rules, tb = env
    return labels(R.legal_cards_now(state, rules, tb))


def frame(n=3000, seed=7, policies=None, record=False, **knobs) -> pl.DataFrame:
    k = G.ComptoirKnobs(**knobs)
    pol = policies or ("heuristic",) * k.players
    out = G.run_deals(k, pol, seed, 0, n, record)
    return to_frame(out, G.deal_columns(k), G.DECK.labels, k.players)


# --- card values ---------------------------------------------------------------------------
def test_card_values_per_contract():
    pts = G.contract_points(3, "belote")
    for t in range(4):
        assert pts[t].sum() == 152  # + dix de der = 162, the seed's "possibilité de 162"
        assert pts[t][card(f"J{'♠♥♦♣'[t]}")] == 20 and pts[t][card(f"9{'♠♥♦♣'[t]}")] == 14
    assert pts[R.SANS_ATOUT].sum() == 4 * 30  # A 11, 10 10, K 4, Q 3, J 2 in every suit
    assert pts[R.TOUT_ATOUT].sum() == 4 * 62  # J 20, 9 14, A 11, 10 10, K 4, Q 3
    coinche = G.contract_points(3, "coinche")
    assert coinche[R.SANS_ATOUT].sum() == 152 and coinche[R.TOUT_ATOUT].sum() == 152
    assert coinche[R.SANS_ATOUT][card("A♠")] == 19 and coinche[R.TOUT_ATOUT][card("J♠")] == 14
    assert G.contract_points(5, "belote")[0].sum() == 160  # the seed's printed Queen = 5


def test_knobs_reject_bad_values_in_one_line():
    for bad in ({"k": 6}, {"players": 7}, {"players": 1}, {"visibility": "foo"},
                {"min_bid": 0}, {"min_bid": 200}, {"target": 0}):
        with pytest.raises(SimlabError) as e:
            G.ComptoirKnobs(**bad)
        assert "\n" not in str(e.value)
    with pytest.raises(SimlabError, match="hidden_cards"):
        G.ComptoirKnobs(k=2, visibility="partly_blind", hidden_cards=3)
    # worked example 4: at 6 players and k = 5, 30 of the 32 cards are in use
    state, _ = position([["7♠", "8♠", "9♠", "10♠", "J♠"], ["Q♠", "K♠", "A♠", "7♥", "8♥"],
                         ["9♥", "10♥", "J♥", "Q♥", "K♥"], ["A♥", "7♦", "8♦", "9♦", "10♦"],
                         ["J♦", "Q♦", "K♦", "A♦", "7♣"], ["8♣", "9♣", "10♣", "J♣", "Q♣"]])
    assert labels(state[R.S_REST]) == {"K♣", "A♣"}


def test_bid_cap_is_what_a_bidder_could_take():
    k = G.ComptoirKnobs(players=2, k=1)
    assert G.bid_cap(k) == 20 + 14 + 10  # J and 9 of trump, dix de der (no belote in 1 card)
    k = G.ComptoirKnobs()
    assert G.bid_cap(k) == 20 + 14 + 11 * 4 + 10 * 4 + 4 * 2 + 10 + 20  # 12 best cards
    assert G.bid_cap(G.ComptoirKnobs(allow_tout_atout=True)) == 4 * (20 + 14 + 11) + 10 + 20


# --- the auction ---------------------------------------------------------------------------
HANDS4 = [["J♥", "8♦", "A♠"], ["7♥", "7♠", "10♦"], ["8♣", "Q♠", "7♦"], ["9♣", "K♣", "A♣"]]


def test_open_auction_goes_round_until_all_but_one_pass():
    state, env = position(HANDS4, auction="open")
    assert state[R.S_TO_MOVE] == 0  # the dealer's left speaks first
    play(state, env, [5, 6, "pass", 7, 8])
    assert state[R.S_TO_MOVE] == 1 and state[R.S_PHASE] == R.P_AUCTION
    play(state, env, ["pass"])  # seat 2 passed earlier: it is skipped (a pass is final)
    assert state[R.S_TO_MOVE] == 3
    play(state, env, ["pass"])
    assert state[R.S_PHASE] == R.P_CONTRACT and state[R.S_TAKER] == 0 and state[R.S_BID] == 8
    assert state[R.S_TO_MOVE] == 0


def test_bids_must_rise_and_respect_min_bid_and_cap():
    state, env = position(HANDS4, min_bid=10)
    kv, rules, tb = env
    moves = np.zeros(R.MAX_MOVES, dtype=np.int64)
    n = R.legal_moves(state, kv, rules, tb, moves)
    assert moves[0] == R.PASS and moves[1] == R.BID + 10 and moves[n - 1] == R.BID + kv[R.K_BID_CAP]
    play(state, env, [30])
    n = R.legal_moves(state, kv, rules, tb, moves)
    assert moves[1] == R.BID + 31


def test_everybody_passes_throws_the_deal_in():
    state, env = position(HANDS4)
    play(state, env, ["pass"] * 4)
    assert state[R.S_PHASE] == R.P_DONE and state[R.S_TAKER] == -1
    assert [R.seat_mark(state, p) for p in range(4)] == [0, 0, 0, 0]


def test_one_round_auction_each_speaks_once():
    """The default: "Chacun à tour de rôle propose une enchère", each player once."""
    assert G.ComptoirKnobs().auction == "one_round"
    state, env = position(HANDS4)
    play(state, env, [5, 9, "pass"])
    assert state[R.S_PHASE] == R.P_AUCTION
    play(state, env, [12])
    assert state[R.S_PHASE] == R.P_CONTRACT and state[R.S_TAKER] == 3 and state[R.S_BID] == 12


def test_contracts_offered_follow_the_knobs():
    kv = setup()[1]
    out = np.zeros(8, dtype=np.int64)
    assert R.contract_moves(kv, out) == 4
    kv = setup(allow_sans_atout=True, allow_tout_atout=True)[1]
    assert R.contract_moves(kv, out) == 6 and out[5] == R.CONTRACT + R.TOUT_ATOUT


# --- card play: Belote's obligations without partners ---------------------------------------
def to_play(hands, contract, plays, **knobs):
    """A position after seat 0 bid 1 and named ``contract`` and ``plays`` were played."""
    state, env = position(hands, **knobs)
    play(state, env, [1] + ["pass"] * (len(hands) - 1) + [("contract", contract)] + plays)
    return state, env


def test_follow_suit_trump_when_void_and_overtrump():
    hands = [["A♠", "7♣", "8♣"], ["K♠", "9♥", "7♦"], ["9♣", "J♥", "10♦"], ["Q♦", "8♥", "A♦"]]
    # spades led, seat 1 follows spades
    state, env = to_play(hands, HEARTS, ["A♠"])
    assert legal_labels(state, env) == {"K♠"}
    # seat 2 is void in spades: it must trump (the winner is always an opponent)
    state, env = to_play(hands, HEARTS, ["A♠", "K♠"])
    assert legal_labels(state, env) == {"J♥"}
    # seat 3, void, must overtrump J♥: cannot, so still a trump (Belote's undertrump rule)
    state, env = to_play(hands, HEARTS, ["A♠", "K♠", "J♥"])
    assert legal_labels(state, env) == {"8♥"}


def test_must_undertrump_knob():
    """The default is the seed's "il doit couper" with no exception: a void seat that
    cannot overtrump still plays a (lower) trump; ``must_undertrump=false`` frees it to
    discard anything, but one able to overtrump still must."""
    assert G.ComptoirKnobs().must_undertrump is True
    hands = [["A♠", "7♣", "8♣"], ["K♠", "9♥", "7♦"], ["9♣", "J♥", "10♦"], ["Q♦", "8♥", "A♦"]]
    state, env = to_play(hands, HEARTS, ["A♠", "K♠", "J♥"], must_undertrump=False)
    assert legal_labels(state, env) == {"Q♦", "8♥", "A♦"}
    state, env = to_play(hands, HEARTS, ["A♠", "K♠"], must_undertrump=False)
    assert legal_labels(state, env) == {"J♥"}  # void, no trump on the trick: must trump


def test_trump_lead_must_be_raised_if_possible():
    hands = [["8♥", "7♣"], ["9♥", "7♥"], ["J♣", "8♠"]]
    state, env = to_play(hands, HEARTS, ["8♥"])
    assert legal_labels(state, env) == {"9♥"}  # 7♥ would not beat 8♥


def test_sans_atout_discard_anything_and_tout_atout_overplay():
    hands = [["10♠", "7♣"], ["J♠", "A♠"], ["9♥", "7♦"]]
    state, env = to_play(hands, R.SANS_ATOUT, ["10♠"], allow_sans_atout=True)
    assert legal_labels(state, env) == {"J♠", "A♠"}  # follow, no obligation to beat
    state, env = to_play(hands, R.SANS_ATOUT, ["10♠", "J♠"], allow_sans_atout=True)
    assert legal_labels(state, env) == {"9♥", "7♦"}  # void and no trump: anything
    state, env = to_play(hands, R.TOUT_ATOUT, ["10♠"], allow_tout_atout=True)
    assert legal_labels(state, env) == {"J♠", "A♠"}  # at TA both beat the 10 (A > 10)
    hands = [["A♠", "7♣"], ["J♠", "7♠"], ["9♥", "7♦"]]
    state, env = to_play(hands, R.TOUT_ATOUT, ["A♠"], allow_tout_atout=True)
    assert legal_labels(state, env) == {"J♠"}  # must overplay the A (J > 9 > A at TA)
    state, env = to_play(hands, R.SANS_ATOUT, ["A♠"], allow_sans_atout=True)
    assert legal_labels(state, env) == {"J♠", "7♠"}


# --- the catalogue's worked examples -----------------------------------------------------------
def test_worked_example_1_made():
    """3 players, k = 3, A (seat 0) bids 30, trump hearts. Trick 1: J♥ 7♥ 8♣ -> A, 20.
    Trick 2 -> B. Last trick: A♠ 7♠ Q♠ -> A, 11 + 3 + 10 der. A: 44 >= 30 -> A + 1."""
    hands = [["J♥", "8♦", "A♠"], ["7♥", "10♦", "7♠"], ["8♣", "7♦", "Q♠"]]
    state, env = position(hands)
    play(state, env, [30, "pass", "pass", ("contract", HEARTS)])
    assert state[R.S_TO_MOVE] == 0  # "choisit la couleur d'atout et joue le premier"
    play(state, env, ["J♥", "7♥", "8♣"])
    assert state[R.S_TPTS] == 20
    play(state, env, ["8♦", "10♦", "7♦"])  # B wins trick 2 and leads
    assert state[R.S_TO_MOVE] == 1 and state[R.S_TPTS + 1] == 10
    play(state, env, ["7♠", "Q♠", "A♠"])
    assert state[R.S_PHASE] == R.P_DONE and state[R.S_LAST_SEAT] == 0
    assert R.taker_points(state) == 20 + 11 + 3 + 10 == 44
    assert [R.seat_mark(state, p) for p in range(3)] == [1, 0, 0]
    kv, rules, tb = env
    assert R.deal_points(state, kv, tb) == sum(state[R.S_TPTS:R.S_TPTS + 3])


def test_worked_example_2_failed_gives_every_opponent_a_point():
    """A bids 50, trump hearts; A wins J♥ 7♥ 8♣ (20) and A♠ 8♠ Q♠ (14); B takes the last
    trick with the 9♥ (+10 der). A: 34 < 50 -> B + 1, C + 1."""
    hands = [["J♥", "A♠", "7♦"], ["7♥", "8♠", "9♥"], ["8♣", "Q♠", "K♦"]]
    state, env = position(hands)
    play(state, env, [50, "pass", "pass", ("contract", HEARTS)])
    play(state, env, ["J♥", "7♥", "8♣", "A♠", "8♠", "Q♠"])
    assert legal_labels(state, env) == {"7♦"}
    play(state, env, ["7♦"])
    assert legal_labels(state, env) == {"9♥"}  # void in diamonds: must trump
    play(state, env, ["9♥", "K♦"])
    assert state[R.S_LAST_SEAT] == 1 and state[R.S_TPTS + 1] == 14 + 4 + 10
    assert R.taker_points(state) == 34 and not R.made(state)
    assert [R.seat_mark(state, p) for p in range(3)] == [0, 1, 1]


def test_worked_example_3_blind_bids_ignore_the_cards():
    """k = 2 face down: the bid rests only on what 2 random cards are worth, so it is the
    same whatever the cards; they are picked up once the auction is over."""
    bids = set()
    for hand in (["J♥", "9♥"], ["7♠", "8♦"], ["A♣", "10♣"]):
        others = [c for c in ["7♥", "8♥", "Q♦", "K♦", "7♣", "8♣"] if c not in hand]
        state, env = position([hand, others[:2], others[2:4]], visibility="blind")
        assert labels(state[R.S_FACE_DOWN]) == labels(sum(1 << card(c) for h in
                                                          [hand, others[:2], others[2:4]]
                                                          for c in h))
        kv, rules, tb = env
        bids.add(int(P.heuristic_move(state, kv, rules, tb)))
    assert len(bids) == 1
    play(state, env, [1, "pass", "pass"])
    assert state[R.S_FACE_DOWN] == 0  # everybody picks up his cards to name trump and play


def test_belote_rebelote_counts_towards_the_bid():
    hands = [["K♥", "Q♥", "7♠"], ["A♠", "10♠", "7♦"], ["8♦", "9♦", "8♣"]]
    state, env = position(hands)
    play(state, env, [30, "pass", "pass", ("contract", HEARTS)])
    assert state[R.S_BELOTE] == 20
    state, env = position(hands, belote_counts=False)
    play(state, env, [30, "pass", "pass", ("contract", HEARTS)])
    assert state[R.S_BELOTE] == 0
    state, env = position(hands)
    play(state, env, [30, "pass", "pass", ("contract", SPADES)])
    assert state[R.S_BELOTE] == 0  # K and Q of a plain suit


# --- visibility --------------------------------------------------------------------------------
def test_partly_open_cards_are_public_and_partly_blind_cards_hidden_from_their_owner():
    hands = [["J♥", "8♦", "A♠"], ["7♥", "10♦", "7♠"], ["8♣", "7♦", "Q♠"]]
    state, env = position(hands, visibility="partly_open", open_cards=2)
    kv, rules, tb = env
    assert labels(state[R.S_FACE_UP]) == {"J♥", "8♦", "7♥", "10♦", "8♣", "7♦"}
    excl = np.zeros(R.MAX_PLAYERS, dtype=np.uint64)
    hidden = labels(P.seat_information(state, 1, rules, tb, excl, excl.copy()))
    assert {"J♥", "8♦", "8♣", "7♦"}.isdisjoint(hidden) and {"A♠", "Q♠"} <= hidden
    state, env = position(hands, visibility="partly_blind", hidden_cards=1)
    hidden = labels(P.seat_information(state, 0, rules, tb, excl, excl.copy()))
    assert "J♥" in hidden and "8♦" not in hidden  # its own face-down card: unseen


# --- many deals: conservation, combinatorics ---------------------------------------------------
@pytest.mark.parametrize("knobs", [{}, {"players": 6, "k": 5, "allow_sans_atout": True,
                                        "allow_tout_atout": True, "visibility": "partly_open"},
                                   {"players": 2, "k": 1, "visibility": "blind"}])
def test_conservation_of_points_and_marks(knobs):
    f = frame(n=1500, **knobs)
    n = G.ComptoirKnobs(**knobs).players
    k = G.ComptoirKnobs(**knobs).k
    played = f.filter(pl.col("taker") >= 0)
    assert played.height > 0.9 * f.height
    tp = sum(played[f"trick_points_s{i}"] for i in range(n))
    assert (tp == played["deal_points"]).all()  # every dealt card's points + dix de der
    assert (sum(played[f"tricks_s{i}"] for i in range(n)) == k).all()
    marks = sum(played[f"score_s{i}"] for i in range(n)).to_numpy()
    assert (marks == np.where(played["made"].to_numpy(), 1, n - 1)).all()
    taker_mark = played.select(sum(pl.when(pl.col("taker") == i).then(pl.col(f"score_s{i}"))
                                   .otherwise(0) for i in range(n))).to_series()
    assert (taker_mark.to_numpy() == played["made"].to_numpy()).all()
    bonus = played["taker_points"] - played.select(sum(
        pl.when(pl.col("taker") == i).then(pl.col(f"trick_points_s{i}")).otherwise(0)
        for i in range(n))).to_series()
    assert set(bonus.unique().to_list()) <= {0, 20}
    assert (played["made"] == (played["taker_points"] >= played["bid"])).all()


def test_dealt_hands_match_exact_combinatorics():
    """P(a k-card hand holds the J♥) = k/32, P(it holds a Jack) = 1 - C(28,k)/C(32,k),
    P(it holds both J and 9 of spades) = C(30,k-2)/C(32,k); within 5 standard errors."""
    n_deals = 4000
    for k in (1, 3, 5):
        f = frame(n=n_deals, seed=11, record=True, k=k)
        hands = f["dealt_s0"].to_list()
        checks = [
            (sum("J♥" in h for h in hands), k / 32),
            (sum(any(c.startswith("J") for c in h) for h in hands),
             1 - math.comb(28, k) / math.comb(32, k)),
            (sum("J♠" in h and "9♠" in h for h in hands),
             math.comb(30, k - 2) / math.comb(32, k) if k >= 2 else 0.0),
        ]
        for hits, p in checks:
            se = math.sqrt(max(p * (1 - p), 1e-4) / n_deals)
            assert abs(hits / n_deals - p) <= 5 * se, (k, hits / n_deals, p)
        assert all(len(h) == k for h in hands)


# --- matches -----------------------------------------------------------------------------------
@pytest.mark.parametrize("knobs", [{}, {"players": 6, "k": 5}, {"players": 2, "k": 2,
                                                                "target": 10}])
def test_matches_end_at_the_target_with_a_single_leader(knobs):
    k = G.ComptoirKnobs(**knobs)
    out = G.run_matches(k, ("heuristic",) * k.players, 3, 0, 300)
    f = to_frame(out, G.match_columns(k), G.DECK.labels, k.players)
    n = k.players
    assert not f["capped"].any() and (f["winner"] >= 0).all()
    finals = np.column_stack([f[f"final_score_s{i}"].to_numpy() for i in range(n)])
    top = finals.max(axis=1)
    assert (top >= k.target).all()
    assert ((finals == top[:, None]).sum(axis=1) == 1).all()  # a tie at the top plays on
    assert (finals[np.arange(f.height), f["winner"].to_numpy()] == top).all()
    # each made bid hands out 1 point, each failed bid n - 1
    marks = f["n_made"].to_numpy() + (n - 1) * f["n_failed"].to_numpy()
    assert (finals.sum(axis=1) == marks).all()
    assert (f["n_made"] + f["n_failed"] + f["n_thrown_in"] == f["n_deals"]).all()


# --- determinism and the pure-Python path -------------------------------------------------------
def test_frames_do_not_depend_on_jobs_or_chunks():
    kw = dict(seed=5, policies="heuristic,random,heuristic,heuristic")
    a = simlab.simulate("belote_comptoir", 400, jobs=1, chunk_size=400, **kw)
    b = simlab.simulate("belote_comptoir", 400, jobs=2, chunk_size=70, **kw)
    c = simlab.simulate("belote_comptoir", 400, jobs=1, chunk_size=33, **kw)
    assert a.equals(b) and a.equals(c)


def test_pure_python_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games import belote_comptoir as G\n"
        "k = G.ComptoirKnobs(players=3, visibility='partly_open', allow_sans_atout=True, "
        "allow_tout_atout=True, search_worlds=2)\n"
        "with np.errstate(over='ignore'):\n"
        "    o = G.run_deals(k, ('search', 'heuristic', 'random'), 9, 0, 4, True)\n"
        "    m = G.run_matches(G.ComptoirKnobs(players=3, target=2), ('heuristic', 'random', "
        "'heuristic'), 9, 0, 2)\n"
        "print(o.rows.tolist(), o.dealt.tolist(), m.rows.tolist())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True,
                         text=True)
    k = G.ComptoirKnobs(players=3, visibility="partly_open", allow_sans_atout=True,
                        allow_tout_atout=True, search_worlds=2)
    o = G.run_deals(k, ("search", "heuristic", "random"), 9, 0, 4, True)
    m = G.run_matches(G.ComptoirKnobs(players=3, target=2), ("heuristic", "random", "heuristic"),
                      9, 0, 2)
    assert res.stdout.strip() == f"{o.rows.tolist()} {o.dealt.tolist()} {m.rows.tolist()}"


# --- the heuristic's health ------------------------------------------------------------------------
def test_heuristic_beats_random_in_duplicate_play():
    r = duplicate(get_game("belote_comptoir"), "heuristic", "random", n=300, seed=3)
    assert r.lo > 0, r.format()


@pytest.mark.parametrize("knobs", [{}, {"players": 3, "k": 5}])
def test_strong_hands_win_by_decile(knobs):
    """As ``tests/test_players_check.py``: the mean result rises with the hand-strength
    measure (decile means rise; the strongest decile beats the weakest)."""
    p = plan(get_game("belote_comptoir"), 2000, seed=11, params=knobs)
    st = players_check.hand_strength(p.game, p, 2000)
    means = np.array([d.value for d in st.deciles])
    rank_corr = np.corrcoef(np.arange(len(means)), np.argsort(np.argsort(means)))[0, 1]
    assert rank_corr >= 0.7, means.round(3)
    assert st.top_minus_bottom.lo > 0 and st.spearman > 0


def test_every_contract_named_is_made_often_and_passing_happens():
    """No contract bid that is (almost) never made; the heuristic does pass."""
    f = frame(n=3000, allow_sans_atout=True, allow_tout_atout=True)
    played = f.filter(pl.col("taker") >= 0)
    for kind, g in played.group_by("contract"):
        if g.height >= 30:
            assert g["made"].mean() >= 0.3, (kind, g["made"].mean())
    assert played["contract"].n_unique() == 3  # trump, SA and TA are all named
    # a pass is chosen: in a 6-player, 1-card game many hands are not worth a point
    g = frame(n=2000, players=6, k=1)
    assert 0 < (g["taker"] < 0).mean() < 1
