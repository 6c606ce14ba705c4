"""French Tarot search player: it decides from what its seat sees only (re-dealing the
hidden cards never changes its choice), its sampled worlds respect the seat's
information, it beats the heuristic in duplicate play, and runs are identical whatever
the jobs and chunk size."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine import rng
from simlab.engine.game import to_frame
from simlab.games import get_game
from simlab.games import tarot as T
from simlab.players.duel import duplicate

SUITS = "♠♥♦♣"


def slot(label: str) -> int:
    return int(T.SLOT_OF_ID[T.DECK.index(label)])


def cards_of(w0: int, w1: int) -> set[int]:
    return {c for c in range(64) if (int(w0) >> c) & 1} | \
        {64 + c for c in range(22) if (int(w1) >> c) & 1}


def hand(S: np.ndarray, p: int) -> set[int]:
    return cards_of(S[T.S_HAND + 2 * p], S[T.S_HAND + 2 * p + 1])


class Table:
    """One dealing stepped from Python through the rules' state and moves, recording
    every card played with the suit led before it (to check voids independently)."""

    def __init__(self, n: int, deck: np.ndarray, dealer: int = 0, **knobs):
        self.n = n
        self.knobs = T.TarotKnobs(players=n, **knobs)
        self.kv, self.rules, self.tb, self.order, _, _ = T._args(self.knobs)
        self.S = np.zeros(T.N_S, dtype=np.int64)
        T.new_deal(self.S, deck, dealer, self.order, self.kv, np.zeros((n, 24), dtype=np.int64),
                   np.zeros(32, dtype=np.int64), True)
        self.history: list[tuple[int, int, int]] = []  # (seat, card, led suit or -1)
        self.moves = np.zeros(64, dtype=np.int64)
        self.sw = T.new_search_work()

    @classmethod
    def shuffled(cls, n: int, seed: int, d: int, **knobs) -> Table:
        deck = np.array(T.SLOT_OF_ID[:78])
        rng.shuffle(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SHUFFLE)), deck, 78)
        return cls(n, deck, d % n, **knobs)

    @classmethod
    def built(cls, n: int, hands: dict[int, list[str]], chien: list[str], dealer: int = 0,
              **knobs) -> Table:
        queues = {p: [slot(c) for c in hands[p]] for p in range(n)}
        queues[n] = [slot(c) for c in chien]
        order = T.deal_order(n)
        deck = np.array([queues[n if r == n else (dealer + 1 + r) % n].pop(0) for r in order],
                        dtype=np.int64)
        return cls(n, deck, dealer, **knobs)

    def legal(self) -> list[int]:
        k = T.legal_moves(self.S, self.kv, self.rules, self.tb, self.moves)
        return [int(m) for m in self.moves[:k]]

    def step(self, move: int | None = None) -> None:
        S = self.S
        if move is None:
            move = T.heuristic_move(S, self.kv, self.rules, self.tb)
        if S[T.S_PHASE] == T.PH_PLAY:
            self.history.append((int(S[T.S_TURN]), int(move), int(S[T.S_LED])))
        T.apply_move(S, move, self.kv, self.tb)

    def until(self, stop) -> bool:
        """Heuristic moves until ``stop(self)`` or the end; True if stopped."""
        while not T.is_over(self.S):
            if stop(self):
                return True
            self.step()
        return False

    def search(self, S: np.ndarray | None = None, seed: int = 11) -> int | tuple[int, int]:
        S = self.S if S is None else S
        if S[T.S_PHASE] == T.PH_ECART:
            e0, e1 = T.search_ecart(S, self.kv, self.rules, self.tb, np.uint64(seed), 3, 0,
                                    self.sw)
            return int(e0), int(e1)
        return int(T.search_move(S, self.kv, self.rules, self.tb, np.uint64(seed), 3, 0,
                                 self.sw))

    def world(self, seat: int, stream: int) -> np.ndarray:
        W = np.zeros(T.N_S, dtype=np.int64)
        _, ok = T.sample_world(self.S, seat, self.kv, np.uint64(stream), W, self.sw)
        assert ok
        return W


def redeal_unconstrained(S: np.ndarray, seat: int, n: int, pile: bool, r: np.random.Generator
                         ) -> np.ndarray:
    """An independent re-deal (numpy, not the module's sampler) of the cards hidden from
    ``seat`` before any card is played: the other hands and, if ``pile``, the chien."""
    W = S.copy()
    others = [q for q in range(n) if q != seat]
    places = [T.S_HAND + 2 * q for q in others] + ([T.S_CH0] if pile else [])
    pool = sorted(set().union(*(cards_of(S[i], S[i + 1]) for i in places)))
    sizes = [len(cards_of(S[i], S[i + 1])) for i in places]
    r.shuffle(pool)
    k = 0
    for i, size in zip(places, sizes, strict=True):
        w0 = w1 = 0
        for c in pool[k:k + size]:
            if c < 64:
                w0 |= 1 << c
            else:
                w1 |= 1 << (c - 64)
        W[i], W[i + 1] = w0, w1
        k += size
    return W


# --- it never peeks -------------------------------------------------------------------------
def test_bids_and_opening_leads_do_not_depend_on_hidden_cards():
    """Bids (the chien and other hands hidden) and first leads, re-dealt independently."""
    r = np.random.default_rng(5)
    open_choices = 0
    for n in (3, 4, 5):
        for d in range(3):
            t = Table.shuffled(n, 21, d)
            if T.is_over(t.S):
                continue
            seat = int(t.S[T.S_TURN])
            base = t.search()
            open_choices += len(t.legal()) > 1
            for _ in range(5):
                W = redeal_unconstrained(t.S, seat, n, True, r)
                assert sorted(hand(W, seat)) == sorted(hand(t.S, seat))
                assert t.search(W) == base
    assert open_choices >= 5


def test_a_hand_built_position_decides_the_same_in_every_redeal():
    # 4 players, seat 1 (the dealer's right) speaks first with a strong hand; then the
    # taker's écart and the first lead, each re-dealt from the seat's point of view
    hands = {1: ["T21", "T20", "T19", "T18", "T17", "T16", "T1", "Excuse", "K♠", "Q♠", "K♥",
                 "2♥", "3♦", "4♦", "5♣", "6♣", "7♣", "8♣"]}
    rest = [lab for lab in T.DECK.labels if lab not in hands[1]]
    chien = rest[:6]
    for p, start in ((0, 6), (2, 24), (3, 42)):
        hands[p] = rest[start:start + 18]
    t = Table.built(4, hands, chien)
    assert int(t.S[T.S_TURN]) == 1 and len(t.legal()) == 5
    r = np.random.default_rng(1)
    bid = t.search()
    for _ in range(5):
        assert t.search(redeal_unconstrained(t.S, 1, 4, True, r)) == bid
    t.step(T.GARDE)  # a Garde: the chien is shown, the taker discards
    while t.S[T.S_PHASE] == T.PH_BID:
        t.step(T.PASS)
    assert t.S[T.S_PHASE] == T.PH_ECART and len(t.legal()) > 1
    ecart = t.search()
    for stream in range(5):
        assert t.search(t.world(1, 100 + stream)) == ecart
    e0, e1 = ecart
    for c in sorted(cards_of(e0, e1)):
        t.step(c)
    assert t.until(lambda tb: tb.S[T.S_PHASE] == T.PH_PLAY)
    assert int(t.S[T.S_TURN]) == 1 and len(t.legal()) > 1
    lead = t.search()
    for stream in range(5):
        assert t.search(t.world(1, 200 + stream)) == lead


def test_mid_deal_decisions_do_not_depend_on_hidden_cards():
    """Positions reached by heuristic play (voids revealed, chien shown or not, the
    5-player partner secret): the module's re-deals of the hidden cards never change the
    search's move."""
    open_choices = 0
    for n in (3, 4, 5):
        for d in range(6):
            t = Table.shuffled(n, 33, d)
            target = 3 + 2 * d  # a trick of the middle of the deal
            target %= T.HAND_SIZE[n] - 2
            pos = d % n
            reached = t.until(lambda tb, target=target, pos=pos: tb.S[T.S_PHASE] == T.PH_PLAY
                              and tb.S[T.S_TRICK] >= target and tb.S[T.S_POS] == pos)
            if not reached:
                continue
            seat = int(t.S[T.S_TURN])
            base = t.search()
            open_choices += len(t.legal()) > 1
            for stream in range(5):
                W = t.world(seat, 1000 * d + stream)
                assert t.search(W) == base, (n, d, stream)
    assert open_choices >= 5


# --- the worlds respect the seat's information ------------------------------------------------------
def check_world(t: Table, W: np.ndarray, seat: int) -> None:
    S, n = t.S, t.n
    assert hand(W, seat) == hand(S, seat)  # its own cards never move
    assert (W[T.S_G0], W[T.S_G1]) == (S[T.S_G0], S[T.S_G1])
    places = [hand(W, q) for q in range(n)]
    shown = 0 <= S[T.S_CONTRACT] <= T.GARDE and S[T.S_PHASE] >= T.PH_ECART
    pile = cards_of(W[T.S_EC0], W[T.S_EC1]) if shown else cards_of(W[T.S_CH0], W[T.S_CH1])
    played = cards_of(S[T.S_G0], S[T.S_G1])
    everything = [*places, pile, played]
    assert sum(len(x) for x in everything) == 78 and len(set().union(*everything)) == 78
    for q in range(n):
        assert len(places[q]) == len(hand(S, q))  # hand sizes are public
    for p, c, led in t.history:  # voids revealed by the play, recomputed here
        suit = T.DECK.suit[T.ID_OF_SLOT[c]]
        if led >= 0 and suit != led and suit != 5:
            assert not any(T.DECK.suit[T.ID_OF_SLOT[x]] == led for x in places[p])
            if suit != 4 and t.kv[T.K_UNDERTRUMP]:  # a discard: no trump left
                assert not any(x >= 64 and x != T.EXCUSE for x in places[p])
    if shown:
        taker = int(S[T.S_TAKER])
        chien = cards_of(S[T.S_CH0], S[T.S_CH1]) - played
        assert chien <= places[taker] | pile  # the shown chien: taker's hand or écart
        real_ecart = cards_of(S[T.S_EC0], S[T.S_EC1])
        assert {c for c in pile if c >= 64} == {c for c in real_ecart if c >= 64}  # shown
        kings = {slot(f"K{s}") for s in SUITS}
        assert not pile & kings and not pile & {T.PETIT, T.T21, T.EXCUSE}
        if seat == taker:
            assert pile == real_ecart


@pytest.mark.parametrize("n", [3, 4, 5])
def test_sampled_worlds_respect_the_seats_information(n):
    checked = 0
    with_voids = 0
    for d in range(12):
        t = Table.shuffled(n, 44, d)
        target = 2 + d % 10
        if not t.until(lambda tb, target=target: tb.S[T.S_PHASE] == T.PH_PLAY
                       and tb.S[T.S_TRICK] >= target):
            continue
        for seat in range(n):
            for stream in range(40):
                check_world(t, t.world(seat, stream), seat)
            checked += 1
        with_voids += any(t.S[T.S_VOIDS + q] for q in range(n))
    assert checked >= 3 * n
    assert with_voids >= 3  # positions where a void is known (and must stay empty)


def test_worlds_before_the_play_and_at_garde_sans():
    for contract in (T.PRISE, T.GARDE_SANS):
        for d in range(4):
            t = Table.shuffled(4, 55, d)
            if T.is_over(t.S):
                continue
            for seat in range(4):
                check_world(t, t.world(seat, 7), seat)  # auction: everything hidden
            t.step(contract)  # the first seat takes, the others pass
            while t.S[T.S_PHASE] == T.PH_BID:
                t.step(T.PASS)
            t.until(lambda tb: tb.S[T.S_PHASE] == T.PH_PLAY)
            for seat in range(4):
                for stream in range(20):
                    W = t.world(seat, stream)
                    check_world(t, W, seat)
                    if contract == T.GARDE_SANS:  # nobody saw the chien, not even the taker
                        assert len(cards_of(W[T.S_CH0], W[T.S_CH1])) == 6


# --- strength, determinism -----------------------------------------------------------------
def test_search_beats_the_heuristic_in_duplicate_play():
    r = duplicate(get_game("tarot"), "search", "heuristic", n=300, seed=1, params={"players": 4})
    assert r.n == 300
    assert r.lo > 0, r.format()


@pytest.mark.parametrize("n", [3, 5])
def test_search_runs_at_every_player_count(n):
    pols = ",".join(["search"] + ["heuristic"] * (n - 1))
    f = simlab.simulate("tarot", 30, seed=4, params={"players": n, "search_worlds": 2},
                        policies=pols)
    assert (sum(f[f"score_s{i}"] for i in range(n)) == 0).all()
    played = f.filter(f["taker"] >= 0)
    assert ((played["attack_points"] + played["defence_points"]) == 182).all()


def test_search_runs_are_identical_for_any_jobs_and_chunk_size():
    kw = dict(seed=8, params={"search_worlds": 2}, policies="heuristic,search,random,search")
    a = simlab.simulate("tarot", 40, jobs=1, **kw)
    b = simlab.simulate("tarot", 40, jobs=2, chunk_size=7, **kw)
    c = simlab.simulate("tarot", 40, jobs=1, chunk_size=13, **kw)
    assert a.equals(b) and a.equals(c)
    m1 = simlab.simulate("tarot", 3, jobs=1, level="match", **kw)
    m2 = simlab.simulate("tarot", 3, jobs=2, chunk_size=1, level="match", **kw)
    assert m1.equals(m2)


def test_search_pure_python_path_matches_compiled(tmp_path):
    """The search player also runs with NUMBA_DISABLE_JIT=1, with the same decisions."""
    code = (
        "import sys, numpy as np\n"
        "from simlab.games import tarot as T\n"
        "from simlab.engine.game import to_frame\n"
        "k = T.TarotKnobs(players=4, search_worlds=1, search_bid_worlds=1)\n"
        "pols = ('search', 'heuristic', 'random', 'heuristic')\n"
        "with np.errstate(over='ignore'):\n"
        "    o = T.run_deals(k, pols, 9, 0, 3, False)\n"
        "to_frame(o, T.deal_columns(k), T.DECK.labels, 4).write_parquet(sys.argv[1] + '/slow.parquet')\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True,
                   check=True)
    k = T.TarotKnobs(players=4, search_worlds=1, search_bid_worlds=1)
    pols = ("search", "heuristic", "random", "heuristic")
    fast = to_frame(T.run_deals(k, pols, 9, 0, 3, False), T.deal_columns(k), T.DECK.labels, 4)
    assert pl.read_parquet(tmp_path / "slow.parquet").equals(fast)
