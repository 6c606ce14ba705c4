"""Président / Trou du cul: the catalogue's worked examples as hand-built positions, an
independent pure-Python replay of logged deals, invariants over many deals at 4-6
players, exact deal combinatorics and the match's title bookkeeping."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from math import comb

import numpy as np
import polars as pl
import pytest

from simlab.engine import rng
from simlab.engine.game import policy_codes, to_frame
from simlab.games import president as P
from simlab.mechanics import shedding as sh

RANKS = P.RANK_LABELS_2_HIGH  # playing order, 0 = 3 .. 12 = 2
R = {label: i for i, label in enumerate(RANKS)}
RANK_OF = P.rank_table("2")
RULES = P._rules(P.PresidentKnobs())
PP = P._policy(P.PresidentKnobs())


def pols(name: str, n: int) -> tuple[str, ...]:
    return (name,) * n


def card(label: str) -> int:
    return P.DECK.index(label)


def mask(labels) -> np.uint64:
    m = np.uint64(0)
    for c in labels:
        m |= np.uint64(1) << np.uint64(card(c))
    return m


def labels_of(m: np.uint64) -> set[str]:
    return {P.DECK.labels[c] for c in range(52) if (int(m) >> c) & 1}


def row_dict(row: np.ndarray, k: P.PresidentKnobs) -> dict[str, int]:
    return {c.name: int(v) for c, v in zip(P.deal_columns(k), row, strict=True)}


def frame(k: P.PresidentKnobs, policy: str, n: int = 3000, seed: int = 5, record=False):
    out = P.run_deals(k, pols(policy, k.players), seed, 0, n, record)
    return out, to_frame(out, P.deal_columns(k), P.DECK.labels, k.players)


class Table:
    """A hand-built position: rank counts per seat and the shared series state."""

    def __init__(self, hands: list[list[str]], leader: int, rules=RULES):
        self.n = len(hands)
        self.counts = np.zeros((self.n, 13), dtype=np.int64)
        for p, h in enumerate(hands):
            for r in h:
                self.counts[p, R[r]] += 1
        self.sizes = self.counts.sum(axis=1)
        self.st = np.zeros(sh.N_ST, dtype=np.int64)
        self.ev = np.zeros(sh.N_EV, dtype=np.int64)
        self.order = np.zeros(self.n, dtype=np.int64)
        self.place = np.zeros(self.n, dtype=np.int64)
        self.rules = rules
        sh.start_play(self.st, self.ev, self.n, leader, self.sizes, self.order, self.place)

    @property
    def turn(self) -> int:
        return int(self.st[sh.ST_TURN])

    def play(self, p: int, rank: str, k: int) -> None:
        assert self.turn == p
        assert sh.is_legal(self.counts[p], self.st[sh.ST_TOP], self.st[sh.ST_NEED], R[rank],
                           k, self.rules, self.st[sh.ST_REV] != 0)
        sh.apply_play(self.st, self.ev, self.counts, self.sizes, self.order, self.place, p,
                      R[rank], k, self.rules)

    def pass_(self, p: int) -> None:
        assert self.turn == p
        sh.apply_pass(self.st, self.ev, self.sizes, p, self.rules)


# --- worked examples ----------------------------------------------------------------------
def test_example_1_equal_play_skips_and_last_player_leads():
    t = Table([["9", "9", "3"], ["9", "9", "4"], ["J", "J", "5"], ["J", "J", "6"]], leader=0)
    t.play(0, "9", 2)
    t.play(1, "9", 2)  # equal rank: P3 (seat 2) skips
    assert t.turn == 3 and t.ev[sh.EV_SKIPS] == 1
    t.play(3, "J", 2)
    t.pass_(0)
    t.pass_(1)
    assert t.st[sh.ST_TOP] == R["J"]  # seat 2 may still play on this series
    t.pass_(2)
    assert t.st[sh.ST_TOP] == -1 and t.st[sh.ST_NEED] == 0  # a new series ...
    assert t.turn == 3  # ... led by P4
    assert t.ev[sh.EV_SERIES] == 2


def test_example_2_size_must_match():
    hand = np.zeros(13, dtype=np.int64)
    for r in ("K", "K", "A", "2", "10"):
        hand[R[r]] += 1
    top, need = R["10"], 1
    assert not sh.is_legal(hand, top, need, R["K"], 2, RULES)  # a pair on a single
    for r in ("K", "A", "2", "10"):
        assert sh.is_legal(hand, top, need, R[r], 1, RULES)
    # the single 10 is an equal play: it skips the next player
    t = Table([["10", "3"], ["10", "4"], ["5", "6"], ["7", "8"]], leader=0)
    t.play(0, "10", 1)
    t.play(1, "10", 1)
    assert t.turn == 3
    no_equal = P._rules(P.PresidentKnobs(equal_play=False))
    assert not sh.is_legal(hand, top, need, R["10"], 1, no_equal)
    # 2s are unbeatable; a 3 only leads or matches 3s
    assert not any(sh.is_legal(np.full(13, 4), R["2"], 1, r, 1, RULES) for r in range(12))
    assert not sh.is_legal(np.full(13, 4), R["4"], 1, R["3"], 1, RULES)
    assert sh.is_legal(np.full(13, 4), -1, 0, R["3"], 4, RULES)
    assert not sh.is_legal(np.full(13, 4), -1, 0, R["3"], 5, RULES)


def test_example_3_exchange():
    # 4 players, previous places: seat 0 Président, 1 Vice, 2 Vice-Trou, 3 Trou du cul.
    masks = np.array([mask(["3♦", "4♠", "5♥", "5♣", "K♦", "Q♠"]),
                      mask(["6♠", "7♠", "7♥", "8♦"]),
                      mask(["J♠", "K♥", "9♦", "3♥"]),
                      mask(["2♣", "A♥", "A♠", "6♥", "3♣"])], dtype=np.uint64)
    prev = np.array([1, 2, 3, 4], dtype=np.int64)
    kv = P._vector(P.PresidentKnobs())
    _, trou = P.exchange(masks, prev, 4, policy_codes(pols("heuristic", 4)), kv, PP, RANK_OF)
    assert trou == 3
    # the Trou du cul gave 2♣ and one ace (the lowest id of the two: A♠); the Président
    # gave back his two lowest singletons, 3♦ and 4♠
    assert labels_of(masks[0]) == {"2♣", "A♠", "5♥", "5♣", "K♦", "Q♠"}
    assert labels_of(masks[3]) == {"A♥", "6♥", "3♣", "3♦", "4♠"}
    # Vice-Trou gives his best (K♥), the Vice-Président his lowest singleton (6♠)
    assert labels_of(masks[1]) == {"K♥", "7♠", "7♥", "8♦"}
    assert labels_of(masks[2]) == {"J♠", "6♠", "9♦", "3♥"}


def test_example_4_roles_and_next_leader():
    # 5 players A..E = seats 0..4 finishing B, D, A, E, C
    order = [1, 3, 0, 4, 2]
    place = np.zeros(5, dtype=np.int64)
    for k, seat in enumerate(order):
        place[seat] = k + 1
    titles = [P.TITLES[P.title_of(place[s], 5)] for s in range(5)]
    assert titles == ["neutre", "president", "trou_du_cul", "vice_president",
                      "vice_trou_du_cul"]
    assert [P.TITLES[P.title_of(p, 6)] for p in range(1, 7)] == [
        "president", "vice_president", "neutre", "neutre", "vice_trou_du_cul", "trou_du_cul"]
    # C (seat 2) leads the next deal: the exchange reports him as the Trou du cul
    masks = np.array([mask(["3♦", "4♦"]), mask(["5♦", "6♦", "7♦"]), mask(["8♦", "9♦", "2♠"]),
                      mask(["10♦", "J♦"]), mask(["Q♦", "K♦"])], dtype=np.uint64)
    _, trou = P.exchange(masks, place, 5, policy_codes(pols("heuristic", 5)),
                         P._vector(P.PresidentKnobs(players=5)), PP, RANK_OF)
    assert trou == 2
    assert labels_of(masks[0]) == {"3♦", "4♦"}  # the Neutre exchanges nothing


def test_going_out_passes_lead_to_the_next_active_player():
    t = Table([["K"], ["3", "4"], ["5", "6"], ["7", "8"]], leader=0)
    t.play(0, "K", 1)  # seat 0 goes out on a King
    assert t.place[0] == 1 and t.turn == 1
    t.pass_(1)
    t.pass_(2)
    t.pass_(3)
    assert t.st[sh.ST_NEED] == 0 and t.turn == 1  # next active to seat 0's left leads


def test_skip_chain_and_two_players_left():
    # four 7s one by one: each equal play skips the next player
    t = Table([["7", "3"], ["7", "4"], ["7", "5"], ["7", "6"]], leader=0)
    t.play(0, "7", 1)
    t.play(1, "7", 1)  # seat 2 skips
    t.play(3, "7", 1)  # seat 0 skips
    assert t.turn == 1 and t.ev[sh.EV_SKIPS] == 2
    # two players left: an equal play skips the other, the series returns to the player
    t = Table([["9", "3"], ["9", "4"]], leader=0)
    t.play(0, "9", 1)
    t.play(1, "9", 1)
    assert t.st[sh.ST_NEED] == 0 and t.turn == 1


def test_pass_locks_out():
    lock = P._rules(P.PresidentKnobs(pass_locks_out=True))
    t = Table([["5", "9"], ["6", "8"], ["7", "K"], ["4", "3"]], leader=0, rules=lock)
    t.play(0, "5", 1)
    t.pass_(1)
    t.play(2, "7", 1)
    t.pass_(3)
    assert t.st[sh.ST_LOCKED] == (1 << 1) | (1 << 3)
    t.play(0, "9", 1)  # seat 0 goes out; seats 1 and 3 stay locked out of this series
    assert t.place[0] == 1 and t.st[sh.ST_LOCKED] == (1 << 1) | (1 << 3)
    t.pass_(1)  # (play_out makes a locked player pass)
    t.play(2, "K", 1)  # seat 2 goes out; seats 3 and 1, still locked, must pass
    assert t.place[2] == 2 and t.turn == 3 and t.st[sh.ST_NEED] == 1
    t.pass_(3)
    t.pass_(1)
    assert t.st[sh.ST_NEED] == 0 and t.st[sh.ST_LOCKED] == 0 and t.turn == 3


# --- independent replay of logged deals ---------------------------------------------------
def replay(k: P.PresidentKnobs, leader: int, start: np.ndarray, log: np.ndarray) -> dict:
    """Re-play a logged deal under the rules as read from the catalogue, asserting that
    every move is legal and made by the right player."""
    n = k.players
    c = start.copy()
    size = c.sum(axis=1)
    top, need, last, turn, idle, locked = -1, 0, leader, leader, 0, set()
    rev = False  # revolution: four of a kind reverses the order until flipped back
    order: list[int] = []
    skips = passes = plays = revolutions = 0
    series = 1

    def nxt(p):
        q = (p + 1) % n
        while size[q] == 0:
            q = (q + 1) % n
        return q

    for i, (p, r, cnt) in enumerate(log):
        assert p == turn, f"turn {i}: seat {p} moved, expected {turn}"
        if r < 0:
            assert need > 0, "a lead cannot pass"
            passes += 1
            idle += 1
            if k.pass_locks_out:
                locked.add(p)
            turn = nxt(p)
        else:
            assert p not in locked
            assert 1 <= cnt <= c[p, r], "plays cards it does not hold"
            if need == 0:
                assert cnt <= 4
            else:
                higher = r < top if rev else r > top
                assert cnt == need and (higher or (k.equal_play and r == top)), "illegal"
            equal = need > 0 and r == top
            if k.revolution and cnt == 4:
                rev = not rev
                revolutions += 1
            plays += 1
            c[p, r] -= cnt
            size[p] -= cnt
            top, need, last, idle = r, cnt, p, 0
            if size[p] == 0:
                order.append(p)
                if (size > 0).sum() == 1:
                    order.append(int(np.flatnonzero(size > 0)[0]))
                    assert i == len(log) - 1, "play went on after the deal ended"
                    break
            turn = nxt(p)
            if equal and k.equal_play_skips:
                skips += 1
                idle += 1
                turn = nxt(turn)
        left = (size > 0).sum()
        if idle >= left - (1 if size[last] > 0 else 0):
            top, need, idle, locked = -1, 0, 0, set()
            series += 1
            turn = last if size[last] > 0 else nxt(last)
    assert len(order) == n
    return {"order": order, "skips": skips, "passes": passes, "plays": plays, "series": series,
            "left": int(size[order[-1]]), "final": c, "revolutions": revolutions}


def counts_of(hands: np.ndarray, rank_of: np.ndarray) -> np.ndarray:
    out = np.zeros((hands.shape[0], 13), dtype=np.int64)
    for p in range(hands.shape[0]):
        for cid in hands[p]:
            if cid >= 0:
                out[p, rank_of[cid]] += 1
    return out


@pytest.mark.parametrize("players", [4, 5, 6])
@pytest.mark.parametrize("policy", ["heuristic", "random", "mixed"])
def test_logged_deals_replay_legally(players, policy):
    knob_sets = [P.PresidentKnobs(players=players),
                 P.PresidentKnobs(players=players, deal_titles="random"),
                 P.PresidentKnobs(players=players, pass_locks_out=True, equal_hands=True),
                 P.PresidentKnobs(players=players, equal_play_skips=False, top_rank="A",
                                  lead_largest=True, break_groups=True),
                 P.PresidentKnobs(players=players, revolution=True, deal_titles="random")]
    if policy == "mixed":
        names = tuple("heuristic" if p % 2 else "random" for p in range(players))
    else:
        names = pols(policy, players)
    for k in knob_sets:
        rank_of = P.rank_table(k.top_rank)
        for d in range(12):
            row, dealt, hands, log = P.trace_deal(k, names, 11, d)
            info = row_dict(row, k)
            got = replay(k, info["leader"], counts_of(hands, rank_of), log)
            places = [info[f"place_s{i}"] for i in range(players)]
            assert [places.index(j) for j in range(1, players + 1)] == got["order"]
            assert info["n_turns"] == len(log) == info["n_plays"] + info["n_passes"]
            assert (info["n_skips"], info["n_passes"], info["n_plays"], info["n_series"]) == (
                got["skips"], got["passes"], got["plays"], got["series"])
            assert info["cards_left"] == got["left"]
            assert info["n_revolutions"] == got["revolutions"]
            assert k.revolution or info["n_revolutions"] == 0
            # every card dealt is played exactly once, except the Trou du cul's remainder
            n_cards = int((dealt >= 0).sum())
            assert n_cards == (52 - 52 % players if k.equal_hands else 52)
            assert info["cards_played"] + info["cards_left"] == n_cards
            assert got["final"].sum() == got["left"]
            ids = np.sort(hands[hands >= 0])
            assert np.array_equal(ids, np.sort(dealt[dealt >= 0]))
            assert len(set(ids.tolist())) == n_cards


# --- invariants over many deals ---------------------------------------------------------
@pytest.mark.parametrize("players", [4, 5, 6])
@pytest.mark.parametrize("policy", ["heuristic", "random"])
def test_invariants_over_many_deals(players, policy):
    k = P.PresidentKnobs(players=players)
    out, f = frame(k, policy, n=4000, record=True)
    n = players
    places = np.stack([f[f"place_s{i}"].to_numpy() for i in range(n)], axis=1)
    assert (np.sort(places, axis=1) == np.arange(1, n + 1)).all()
    scores = sum(f[f"score_s{i}"].to_numpy() for i in range(n))
    assert (scores == 0).all()
    assert (f["cards_played"] + f["cards_left"] == 52).all()
    assert (f["n_turns"] == f["n_plays"] + f["n_passes"]).all()
    # every equal play skips someone, unless it ends the deal
    assert (f["n_equal_plays"] - f["n_skips"]).is_between(0, 1).all()
    assert not f["capped"].any() and not f["annulled"].any() and not f["exchanged"].any()
    assert (f["cards_left"] >= 1).all()
    # titles follow places; the leader of a first deal is the dealer's left
    for i in range(n):
        expect = [P.TITLES[P.title_of(p, n)] for p in f[f"place_s{i}"].to_list()]
        assert f[f"title_s{i}"].cast(pl.String).to_list() == expect
        assert f[f"prev_title_s{i}"].null_count() == len(f)
    assert (f["leader"] == (f["dealer"] + 1) % n).all()
    assert (f["dealer"] == f["deal"] % n).all()
    # recorded hands: a partition of the deck, unchanged without exchange
    assert out.dealt.shape == (len(f), n, 13)
    cards = np.sort(out.dealt.reshape(len(f), -1), axis=1)[:, -52:]
    assert (cards == np.arange(52)).all()
    assert np.array_equal(out.dealt, out.hands)


def test_turn_cap_triggers_and_is_recorded():
    k = P.PresidentKnobs(turn_cap=15)
    _, f = frame(k, "heuristic", n=500)
    assert f["capped"].all() and (f["n_turns"] == 15).all()
    places = np.stack([f[f"place_s{i}"].to_numpy() for i in range(4)], axis=1)
    assert (np.sort(places, axis=1) == np.arange(1, 5)).all()
    _, g = frame(P.PresidentKnobs(), "random", n=500)
    assert not g["capped"].any()


def test_deal_titles_random_exchanges_and_trou_leads():
    k = P.PresidentKnobs(players=5, deal_titles="random")
    out, f = frame(k, "heuristic", n=2000, record=True)
    assert f["exchanged"].all()
    for i in range(5):
        trou = f[f"prev_title_s{i}"].cast(pl.String) == "trou_du_cul"
        assert (f.filter(trou)["leader"] == i).all()
    rank_of = P.rank_table("2")
    for j in range(50):
        prev = [f[f"prev_title_s{i}"][j] for i in range(5)]
        pres, trou = prev.index("president"), prev.index("trou_du_cul")
        dealt_t = [c for c in out.dealt[j, trou] if c >= 0]
        best = sorted(dealt_t, key=lambda c: (-rank_of[c], c))[:2]
        assert set(best) <= set(out.hands[j, pres].tolist())
        neutre = prev.index("neutre")
        assert np.array_equal(out.dealt[j, neutre], out.hands[j, neutre])
        for s in range(5):
            assert len([c for c in out.hands[j, s] if c >= 0]) == f[f"cards_s{s}"][j]


# --- exact combinatorics ------------------------------------------------------------------
@pytest.mark.parametrize("players", [4, 5, 6])
def test_probability_seat_dealt_a_two(players):
    """P(seat 0 is dealt at least one 2), averaged over the dealer positions d mod n;
    hand sizes by position from the dealer's left (the first 52 mod n get one more)."""
    n = players
    extra = 52 % n
    sizes = [52 // n + (1 if (0 - dealer - 1) % n < extra else 0) for dealer in range(n)]
    p = sum(1 - comb(48, h) / comb(52, h) for h in sizes) / n
    k = P.PresidentKnobs(players=n)
    count = 30000 - 30000 % n
    out = P.run_deals(k, pols("random", n), 3, 0, count, True)
    f = to_frame(out, P.deal_columns(k), P.DECK.labels, n)
    for dealer in range(n):
        got = f.filter(pl.col("dealer") == dealer)[f"cards_s{0}"].unique().to_list()
        assert got == [sizes[dealer]]
    twos = ((out.dealt[:, 0, :] >= 0) & (out.dealt[:, 0, :] % 13 == 0)).any(axis=1)
    se = np.sqrt(p * (1 - p) / count)
    assert abs(twos.mean() - p) < 5 * se, (twos.mean(), p, se)


# --- match level ------------------------------------------------------------------------
def test_match_titles_persist_exchanges_and_trou_leads():
    """Re-run matches deal by deal through ``play_deal`` and check the bookkeeping."""
    n = 5
    k = P.PresidentKnobs(players=n, deals_per_match=6)
    names = ("heuristic", "random", "heuristic", "heuristic", "random")
    m = to_frame(P.run_matches(k, names, 4, 0, 30), P.match_columns(k), P.DECK.labels, n)
    pol, kv, rules, pp, rank_of, budget = P._setup(k, names)
    cols = P.deal_columns(k)

    def stream(index, sub, purpose):  # numba boxes a uint64 as a Python int: re-type it
        return np.uint64(rng.stream(np.uint64(4), index, sub, purpose))

    with np.errstate(over="ignore"):
        for i in range(30):
            _, first = rng.below(stream(i, 0, rng.SETUP), n)
            assert first == m["first_dealer"][i]
            prev = np.zeros(n, dtype=np.int64)
            total = np.zeros(n, dtype=np.int64)
            last_trou = -1
            pres_count = np.zeros(n, dtype=np.int64)
            for j in range(6):
                deck = np.arange(52, dtype=np.int64)
                rng.shuffle(stream(i, j + 1, rng.SHUFFLE), deck, 52)
                row = np.zeros(len(cols), dtype=np.int64)
                dealt = np.full((n, 13), -1, dtype=np.int64)
                hands = np.full((n, 13), -1, dtype=np.int64)
                state_arrays = P.new_state(n)
                P.play_deal(deck, (first + j) % n, prev, pol, kv, rules, pp, rank_of,
                            stream(i, j + 1, rng.POLICY), np.uint64(4), i, j + 1,
                            budget, row, dealt, hands, *state_arrays,
                            P.search_work(n), np.zeros((0, 3), dtype=np.int64))
                info = row_dict(row, k)
                if j == 0:
                    assert not info["exchanged"] and info["leader"] == (first + 1) % n
                    assert np.array_equal(dealt, hands)
                else:
                    assert info["exchanged"] and info["leader"] == last_trou
                    assert not np.array_equal(dealt, hands)
                    for s in range(n):  # prev_title = last deal's title
                        assert info[f"prev_title_s{s}"] == P.title_of(prev[s], n)
                g = state_arrays[0]
                prev = g[P.G_PLACE:P.G_PLACE + n].copy()
                last_trou = info["trou_du_cul"]
                pres_count[info["president"]] += 1
                for s in range(n):
                    total[s] += info[f"score_s{s}"]
            assert [m[f"final_score_s{s}"][i] for s in range(n)] == total.tolist()
            assert [m[f"president_deals_s{s}"][i] for s in range(n)] == pres_count.tolist()
            best = total.max()
            assert total[m["winner"][i]] == best
            assert m["tied"][i] == ((total == best).sum() > 1)
    assert (m["n_deals"] == 6).all()
    assert m["first_president_kept"].sum() <= 30


def test_match_columns_consistent():
    for n in (4, 5, 6):
        k = P.PresidentKnobs(players=n)
        m = to_frame(P.run_matches(k, pols("heuristic", n), 1, 0, 300), P.match_columns(k),
                     P.DECK.labels, n)
        finals = sum(m[f"final_score_s{i}"] for i in range(n))
        assert (finals == 0).all()
        assert (sum(m[f"president_deals_s{i}"] for i in range(n)) == 20).all()
        assert (sum(m[f"trou_deals_s{i}"] for i in range(n)) == 20).all()
        assert (m["longest_presidency"] >= 1).all() and (m["longest_presidency"] <= 20).all()
        assert (m["capped_deals"] == 0).all()
        # the Président keeps the title far more often than 1/n with exchanges
        assert m["president_repeats"].mean() > 19 / n


def _both_levels(np_mod, P_mod):
    k = P_mod.PresidentKnobs(players=5)
    km = P_mod.PresidentKnobs(players=5, deals_per_match=3)
    names = ("heuristic", "random", "heuristic", "random", "heuristic")
    with np_mod.errstate(over="ignore"):
        o = P_mod.run_deals(k, names, 9, 3, 6, True)
        m = P_mod.run_matches(km, names, 9, 0, 2)
    return o.rows, o.dealt, o.hands, m.rows


def test_pure_python_path_matches_compiled():
    import inspect
    code = (
        "import io, sys, numpy as np\n"
        "from simlab.games import president as P\n"
        + inspect.getsource(_both_levels) +
        "buf = io.BytesIO()\n"
        "np.savez(buf, *_both_levels(np, P))\n"
        "sys.stdout.buffer.write(buf.getvalue())\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    slow = np.load(io.BytesIO(res.stdout))
    fast = _both_levels(np, P)
    for i, arr in enumerate(fast):
        assert np.array_equal(slow[f"arr_{i}"], arr)


def test_knobs_validate():
    with pytest.raises(ValueError, match="players"):
        P.PresidentKnobs(players=3)
    with pytest.raises(ValueError, match="deal_titles"):
        P.PresidentKnobs(deal_titles="sometimes")
    with pytest.raises(ValueError, match="policies"):
        P.run_deals(P.PresidentKnobs(players=5), pols("heuristic", 4), 1, 0, 3)


# --- the revolution variant (knob revolution) ----------------------------------------------
REV_RULES = P._rules(P.PresidentKnobs(revolution=True))


def test_revolution_four_of_a_kind_reverses_the_order():
    t = Table([["7", "7", "7", "7", "K", "5"], ["5", "A", "2", "3"], ["8", "9"], ["10", "J"]],
              leader=0, rules=REV_RULES)
    t.play(0, "7", 4)  # four of a kind: the order flips
    assert t.st[sh.ST_REV] == 1 and t.ev[sh.EV_REVOLUTIONS] == 1
    t.pass_(1)
    t.pass_(2)
    t.pass_(3)
    assert t.st[sh.ST_NEED] == 0 and t.turn == 0 and t.st[sh.ST_REV] == 1  # lasts
    t.play(0, "K", 1)
    row = t.counts[1]
    top = t.st[sh.ST_TOP]
    # a lower single beats a higher one; the A and the 2 no longer do
    assert sh.is_legal(row, top, 1, R["5"], 1, REV_RULES, True)
    assert sh.is_legal(row, top, 1, R["3"], 1, REV_RULES, True)
    assert not sh.is_legal(row, top, 1, R["A"], 1, REV_RULES, True)
    assert not sh.is_legal(row, top, 1, R["2"], 1, REV_RULES, True)
    assert not sh.is_legal(row, top, 1, R["5"], 1, REV_RULES, False)  # the normal order
    t.play(1, "5", 1)
    # seat 2 holds 8 and 9: both higher than 5 in the normal order, so lower now: illegal
    assert not sh.is_legal(t.counts[2], t.st[sh.ST_TOP], 1, R["8"], 1, REV_RULES, True)
    t.pass_(2)
    # the heuristic follows in the current order: its cheapest card beating the 5 is the 3
    assert sh.heuristic_follow(t.counts[1], 3, t.st[sh.ST_TOP], 1, REV_RULES, PP, True) == \
        R["3"]
    # in the reversed order the 2 is the lowest: a reversed lead starts with it
    two_and_king = np.zeros(13, dtype=np.int64)
    two_and_king[[R["2"], R["K"], R["Q"], R["J"]]] = 1
    pp0 = P._policy(P.PresidentKnobs(keep_top=0))
    assert sh.heuristic_lead(two_and_king, REV_RULES, pp0, True) == (R["2"], 1)
    assert sh.heuristic_lead(two_and_king, REV_RULES, pp0, False) == (R["J"], 1)
    # without the knob four of a kind changes nothing
    t = Table([["7", "7", "7", "7", "K"], ["5", "A"], ["8"], ["10"]], leader=0)
    t.play(0, "7", 4)
    assert t.st[sh.ST_REV] == 0 and t.ev[sh.EV_REVOLUTIONS] == 0


def test_revolution_flips_back_on_another_four_of_a_kind():
    t = Table([["7", "7", "7", "7", "K"], ["5", "5", "5", "5", "A"], ["9", "9", "9", "9", "4"],
               ["10"]], leader=0, rules=REV_RULES)
    t.play(0, "7", 4)
    # four 5s are now higher than four 7s; four 9s are not
    assert not sh.is_legal(t.counts[2], R["7"], 4, R["9"], 4, REV_RULES, True)
    t.play(1, "5", 4)  # flips the order back
    assert t.st[sh.ST_REV] == 0 and t.ev[sh.EV_REVOLUTIONS] == 2
    assert sh.is_legal(t.counts[2], R["5"], 4, R["9"], 4, REV_RULES, False)
    t.play(2, "9", 4)
    assert t.st[sh.ST_REV] == 1 and t.ev[sh.EV_REVOLUTIONS] == 3


@pytest.mark.parametrize("players", [4, 6])
@pytest.mark.parametrize("policy", ["heuristic", "random"])
def test_revolution_invariants(players, policy):
    k = P.PresidentKnobs(players=players, revolution=True, deal_titles="random")
    _, f = frame(k, policy, n=3000)
    n = players
    places = np.stack([f[f"place_s{i}"].to_numpy() for i in range(n)], axis=1)
    assert (np.sort(places, axis=1) == np.arange(1, n + 1)).all()
    assert (sum(f[f"score_s{i}"].to_numpy() for i in range(n)) == 0).all()
    assert (f["cards_played"] + f["cards_left"] == 52).all()
    assert not f["capped"].any()
    assert (f["n_revolutions"] > 0).any()
    m = to_frame(P.run_matches(P.PresidentKnobs(players=n, revolution=True), pols(policy, n),
                               2, 0, 50), P.match_columns(k), P.DECK.labels, n)
    assert (sum(m[f"final_score_s{i}"] for i in range(n)) == 0).all()


def _digest(rows: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(rows).astype("<i8").tobytes()).hexdigest()[:16]


def test_default_frames_unchanged_by_the_revolution_knob():
    """Fixed-seed frames pinned before the knob existed (n_revolutions column dropped),
    with the heuristic's knobs of that time (keep_top 2, endgame_cards 4)."""
    k = P.PresidentKnobs(keep_top=2, endgame_cards=4)
    rows = P.run_deals(k, pols("heuristic", 4), 5, 0, 300).rows
    assert (rows[:, 3 + 4 + P.F_REVOLUTIONS] == 0).all()
    assert _digest(np.delete(rows, 3 + 4 + P.F_REVOLUTIONS, axis=1)) == "9b0fd1eebe564667"
    k5 = P.PresidentKnobs(players=5, deal_titles="random")
    rows = P.run_deals(k5, pols("random", 5), 5, 0, 300).rows
    assert _digest(np.delete(rows, 3 + 5 + P.F_REVOLUTIONS, axis=1)) == "51f92c8ef93208db"
    m = P.run_matches(k, ("heuristic", "random") * 2, 4, 0, 100).rows
    assert _digest(m) == "57dfe6a1798922b4"
    # the knob on changes play
    on = P.run_deals(P.PresidentKnobs(revolution=True, keep_top=2, endgame_cards=4),
                     pols("heuristic", 4), 5, 0, 300).rows
    assert not np.array_equal(on, P.run_deals(k, pols("heuristic", 4), 5, 0, 300).rows)
