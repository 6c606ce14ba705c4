"""Rami: meld search pinned by hand-built hands (and a brute force), lay-offs, scoring,
invariants over many deals at 2, 4 and 7 players, exact deal odds, matches, and the
pure-Python path."""

from __future__ import annotations

import io
import math
import os
import random
import subprocess
import sys
from functools import cache

import numpy as np
import polars as pl
import pytest

from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.games import rami as R
from simlab.mechanics import melds as M

DECK = R.DECK
VAL = R.VAL.copy()
CW = R.CW.copy()
J1, J2 = 52, 53


def cid(label: str) -> int:
    return {"J1": J1, "J2": J2}.get(label) if label in ("J1", "J2") else DECK.index(label)


def mask(labels) -> np.uint64:
    m = np.uint64(0)
    for c in labels:
        m |= np.uint64(1) << np.uint64(cid(c) if isinstance(c, str) else c)
    return m


def ids(m) -> list[int]:
    m = int(m)
    return [c for c in range(64) if m >> c & 1]


def search(labels, w=VAL, w_low=11, jw=-1, top=13) -> tuple[int, list[list[int]]]:
    """Best score and the plan's melds (as card-id lists, jokers as 'J')."""
    ws, best = M.new_workspace()
    v = M.best_partition(mask(labels), w, w_low, jw, top, ws, best)
    plan = [ids(ws[M.W_PLAN, i, M.F_NAT]) + ["J"] * int(ws[M.W_PLAN, i, M.F_NJ])
            for i in range(best[1])]
    return int(v), plan


# --- an independent plain-Python model of melds ------------------------------------------
def py_positions(c: int, top: int) -> list[int]:
    r = c % 13
    return [r + 1] if r != 12 else ([0, 13] if top == 13 else [0])


def py_windows(cards, top: int):
    """Valid sequence windows (lo, hi) for these cards (jokers >= 52), if any."""
    nat = [c for c in cards if c < 52]
    n = len(cards)
    if not nat or n < 3 or len({c // 13 for c in nat}) != 1:
        return []
    out = []
    for lo in range(0, top + 1):
        hi = lo + n - 1
        if hi > top or (lo == 0 and hi == 13):
            continue
        used: set[int] = set()
        ok = True
        for c in nat:
            opts = [p for p in py_positions(c, top) if lo <= p <= hi and p not in used]
            if not opts:
                ok = False
                break
            used.add(opts[0])
        if ok:
            out.append((lo, hi))
    return out


def py_is_set(cards) -> bool:
    nat = [c for c in cards if c < 52]
    return bool(nat) and 3 <= len(cards) <= 4 and len({c % 13 for c in nat}) == 1


def py_valid(cards, top: int = 13) -> bool:
    return py_is_set(cards) or bool(py_windows(cards, top))


def py_meld_value(cards, top: int = 13, ace_low: int = 11) -> int:
    """Opening value: jokers count as the card they stand for (best assignment)."""
    best = -1
    if py_is_set(cards):
        best = len(cards) * VAL[[c for c in cards if c < 52][0]]
    s = [c for c in cards if c < 52][0] // 13 if any(c < 52 for c in cards) else 0
    for lo, hi in py_windows(cards, top):
        v = sum(ace_low if p == 0 else VAL[M.card_at(s, p)] for p in range(lo, hi + 1))
        best = max(best, v)
    return best


def py_best(cards, top: int = 13, ace_low: int = 11) -> int:
    """Brute force: the most value any set of disjoint melds of ``cards`` is worth."""
    @cache
    def go(rest: frozenset) -> int:
        nat = sorted(c for c in rest if c < 52)
        if not nat:
            return 0
        c = nat[0]
        others = sorted(rest - {c})
        best = go(rest - {c})
        for k in (2, 3):
            for combo in _combos(others, k):
                m = (c, *combo)
                if py_valid(m, top):
                    best = max(best, py_meld_value(m, top, ace_low) + go(rest - set(m)))
        for k in range(4, len(others) + 1):  # longer sequences
            for combo in _combos(others, k):
                m = (c, *combo)
                if py_windows(m, top):
                    best = max(best, py_meld_value(m, top, ace_low) + go(rest - set(m)))
        return best

    return go(frozenset(cards))


def _combos(xs, k):
    from itertools import combinations

    return combinations(xs, k)


# --- melds: validity, values, the exact search ---------------------------------------------
def test_meld_validity_sets_sequences_jokers_and_aces():
    ok = [["7♠", "7♥", "7♦"], ["7♠", "7♥", "7♦", "7♣"], ["7♠", "7♥", "J1"], ["7♠", "J1", "J2"],
          ["5♥", "6♥", "7♥"], ["5♥", "J1", "7♥"], ["4♥", "5♥", "J1", "J2", "8♥"],
          ["A♥", "2♥", "3♥"], ["Q♥", "K♥", "A♥"], ["K♥", "A♥", "J1"], ["J1", "2♥", "3♥"]]
    bad = [["7♠", "7♥"], ["7♠", "7♥", "7♦", "7♣", "J1"], ["5♥", "6♥", "8♥"], ["5♥", "6♠", "7♥"],
           ["K♥", "A♥", "2♥"], ["J1", "J2", "Q♠", "2♠"], ["2♥", "3♥", "J1", "J2", "7♥"]]
    for m in ok:
        assert M.is_valid(mask(m), 13), m
        assert py_valid([cid(c) for c in m]), m
    for m in bad:
        assert not M.is_valid(mask(m), 13), m
        assert not py_valid([cid(c) for c in m]), m
    # ace low only: Q-K-A is not a sequence, A-2-3 still is
    assert not M.is_valid(mask(["Q♥", "K♥", "A♥"]), 12)
    assert M.is_valid(mask(["A♥", "2♥", "3♥"]), 12)


def test_catalogue_opening_examples():
    assert search(["K♠", "Q♠", "J♠", "7♥", "7♣", "7♦"])[0] == 51  # example 1: valid
    assert search(["4♦", "5♦", "6♦", "9♣", "9♥", "9♠"])[0] == 42  # example 2: < 51
    v, plan = search(["8♥", "J1", "10♥"])  # example 5: the joker is the 9 of hearts
    assert v == 27 and len(plan) == 1
    # the ace: 11 high or low (seed), 1 when low with ace_low_value=1
    assert search(["A♥", "2♥", "3♥"])[0] == 16
    assert search(["A♥", "2♥", "3♥"], w_low=1)[0] == 6
    assert search(["Q♥", "K♥", "A♥"])[0] == 31
    assert search(["Q♥", "K♥", "A♥"], top=12)[0] == 0  # no ace high: no meld
    # a joker takes the most valuable place: J-Q-K + joker = J-Q-K-A (41), not 10-J-Q-K
    assert search(["J♥", "Q♥", "K♥", "J1"])[0] == 41


def greedy_opening(labels) -> int:
    """A greedy pass: repeatedly lay the single most valuable meld still available."""
    left = [cid(c) for c in labels]
    total = 0
    from itertools import combinations

    while True:
        best, best_m = 0, None
        for k in range(3, len(left) + 1):
            for m in combinations(left, k):
                if py_valid(m) and py_meld_value(m) > best:
                    best, best_m = py_meld_value(m), m
        if best_m is None:
            return total
        total += best
        left = [c for c in left if c not in best_m]


def test_exact_search_finds_an_opening_greedy_misses():
    hand = ["10♥", "J♥", "Q♥", "K♥", "Q♠", "Q♦", "K♠", "K♦"]
    assert greedy_opening(hand) == 40  # the run 10-K of hearts, then only pairs: no opening
    v, plan = search(hand)
    assert v == 60 >= 51  # brelan of queens + brelan of kings
    assert sorted(len(m) for m in plan) == [3, 3]
    assert py_best([cid(c) for c in hand]) == 60


def test_exact_search_equals_brute_force_on_random_hands():
    rnd = random.Random(5)
    # a dense sub-pack (two suits, 9..A, plus jokers) so that hands are rich in melds
    pool = [s * 13 + r for s in (0, 1) for r in range(7, 13)] + [0 * 13 + 0, J1, J2]
    for _ in range(60):
        hand = rnd.sample(pool, rnd.randint(6, 9))
        for top in (12, 13):
            v, plan = search(hand, top=top)
            assert v == py_best(hand, top=top), (hand, top)
            used = [c for m in plan for c in m if c != "J"]
            assert len(used) == len(set(used))
            for m in plan:
                cards = [c if c != "J" else J1 for c in m]
                assert py_valid(cards, top)


def test_count_mode_and_keep_one_card():
    # most cards first: 5 cards melded beat fewer, richer ones
    hand = ["A♠", "A♥", "A♦", "2♣", "3♣", "4♣", "5♣", "K♦"]
    v, _ = search(hand, w=CW, w_low=1011)
    assert v // 1000 == 7 and v % 1000 == 33 + 14
    ws, best = M.new_workspace()
    h = mask(["7♠", "7♥", "7♦", "8♣", "9♣", "10♣"])
    assert M.best_partition_keep(h, False, CW, 1011, 1020, 13, ws, best) // 1000 == 6
    v = M.best_partition_keep(h, True, CW, 1011, 1020, 13, ws, best)
    assert v // 1000 == 3 and best[1] == 1  # one meld kept back for the final discard


def test_lay_offs():
    tm = np.zeros((M.MAX_MELDS, M.N_F), dtype=np.int64)
    tc = np.zeros(M.MAX_MELDS, dtype=np.uint64)
    ws, best = M.new_workspace()
    hand = mask(["5♥", "6♥", "7♥", "7♠", "7♦", "7♣", "J♥", "Q♥", "K♥"])
    M.best_partition(hand, VAL, 11, -1, 13, ws, best)
    _, n = M.lay_plan(hand, ws, M.W_PLAN, best[1], tm, tc, 0)
    assert n == 3
    seq = next(i for i in range(n) if tm[i, M.F_KIND] == M.SEQ and tm[i, M.F_LO] == 4)
    top_seq = next(i for i in range(n) if tm[i, M.F_KIND] == M.SEQ and tm[i, M.F_HI] == 12)
    brelan = next(i for i in range(n) if tm[i, M.F_KIND] == M.SET)
    assert M.fits(cid("8♥"), tm, seq, tc, 13) == 7  # positions: 2..K = 1..12
    assert M.fits(cid("4♥"), tm, seq, tc, 13) == 3
    assert M.fits(cid("9♥"), tm, seq, tc, 13) == -1
    assert M.fits(cid("8♠"), tm, seq, tc, 13) == -1
    assert M.fits(cid("A♥"), tm, top_seq, tc, 13) == 13
    assert M.fits(cid("A♥"), tm, top_seq, tc, 12) == -1
    assert M.fits(J1, tm, seq, tc, 13) == 7
    assert M.fits(cid("7♥"), tm, brelan, tc, 13) == 0
    assert M.fits(cid("8♣"), tm, brelan, tc, 13) == -1
    # lay off everything that fits, repeatedly (3♥ fits only once 4♥ is down); a joker
    # goes too once at most one natural card is left besides it
    left = M.lay_off_all(mask(["3♥", "4♥", "2♠", "J1"]), tm, tc, n, 13, 0)
    assert ids(left) == [cid("2♠")]
    assert tm[seq, M.F_LO] == 2 and M.is_valid(tc[seq], 13)
    # with a joker and two naturals left, the joker is kept for later melds
    left = M.lay_off_all(mask(["2♠", "9♣", "J2"]), tm, tc, n, 13, 0)
    assert ids(left) == [cid("2♠"), cid("9♣"), J2]
    # keep = 1 (final discard required): the last card is never laid off
    left = M.lay_off_all(mask(["2♥"]), tm, tc, n, 13, 1)
    assert ids(left) == [cid("2♥")]


def test_penalties_and_rami_doubling():
    assert R.hand_value(mask(["A♣", "K♦", "5♥"]), 20) == 26  # catalogue example 3
    assert R.hand_value(mask(["A♣", "K♦", "5♥", "J1"]), 20) == 46
    # in play: losers mark their penalty, doubled after a Rami; the winner marks 0
    k = R.RamiKnobs()
    f = frame(k, n=1500, seed=3)
    out = f.filter(pl.col("went_out") >= 0)
    assert out["rami"].any() and (~out["rami"]).any()
    for p in range(4):
        loser = out.filter(pl.col("went_out") != p)
        mult = pl.when(pl.col("rami")).then(2).otherwise(1)
        assert (loser[f"score_s{p}"] == loser.select(pl.col(f"penalty_s{p}") * mult).to_series()).all()
        assert (out.filter(pl.col("went_out") == p)[f"score_s{p}"] == 0).all()
    # the seed's variant: -20, -60 with a Rami; doubling off
    k2 = R.RamiKnobs(winner_bonus=-20, winner_bonus_rami=-60, rami_doubles=False)
    g = frame(k2, n=1500, seed=3)
    assert g.select([f"penalty_s{p}" for p in range(4)]).equals(
        f.select([f"penalty_s{p}" for p in range(4)]))  # same deals, same play
    for p in range(4):
        won = g.filter(pl.col("went_out") == p)
        assert (won[f"score_s{p}"] == pl.Series(np.where(won["rami"], -60, -20))).all()
        lost = g.filter((pl.col("went_out") != p) & (pl.col("went_out") >= 0))
        assert (lost[f"score_s{p}"] == lost[f"penalty_s{p}"]).all()


# --- invariants over many deals -------------------------------------------------------------
def frame(k: R.RamiKnobs, pol: str = "heuristic", n: int = 500, seed: int = 1,
          record: bool = True) -> pl.DataFrame:
    out = R.run_deals(k, (pol,) * k.players, seed, 0, n, record)
    return to_frame(out, R.deal_columns(k), DECK.labels, k.players)


@pytest.mark.parametrize("players", [2, 4, 7])
@pytest.mark.parametrize("pol", ["heuristic", "random"])
def test_invariants(players, pol):
    k = R.RamiKnobs(players=players)
    n = 300
    rows, dealt, hands, table, rest = R.run_deals_detail(k, (pol,) * players, 11, 0, n)
    cols = {c.name: j for j, c in enumerate(R.deal_columns(k))}
    col = lambda name: rows[:, cols[name]]  # noqa: E731
    hs = R.deal_size(players)
    for i in range(n):
        # the deal: hs distinct cards each
        d = dealt[i]
        assert (d >= 0).all() and len(set(d.ravel())) == players * hs
        # every card accounted for: hands + melds + talon + discard pile = 54, disjoint
        parts = [ids(rest[i, 0]), ids(rest[i, 1])]
        parts += [[c for c in hands[i, p] if c >= 0] for p in range(players)]
        melds = [ids(m) for m in table[i] if m]
        all_cards = [c for part in parts + melds for c in part]
        assert sorted(all_cards) == list(range(54)), i
        # no illegal meld on the table (checked by the plain-Python model)
        for m in melds:
            assert py_valid(m), (i, m)
        # penalties are the value of the cards left
        for p in range(players):
            left = [c for c in hands[i, p] if c >= 0]
            assert col(f"penalty_s{p}")[i] == sum(20 if c >= 52 else VAL[c] for c in left)
        out = col("went_out")[i]
        if out >= 0:
            assert (hands[i, out] < 0).all() and not col("capped")[i]
            if col("rami")[i]:
                assert col(f"open_turn_s{out}")[i] == col("turns")[i] - 1
        else:
            assert col("capped")[i] and not col("rami")[i]
        for p in range(players):
            t = col(f"open_turn_s{p}")[i]
            if t >= 0:  # opened from his own second turn, with at least 51
                assert t >= players and (t - (p - col("dealer")[i] - 1)) % players == 0
                assert col(f"open_value_s{p}")[i] >= 51
            else:
                assert col(f"open_value_s{p}")[i] == 0
    assert (col("annulled") == 0).all()
    if pol == "heuristic":
        assert col("capped").mean() < 0.05


def test_no_jokers_knob():
    k = R.RamiKnobs(players=3, jokers=0)
    rows, dealt, hands, table, rest = R.run_deals_detail(k, ("heuristic",) * 3, 2, 0, 200)
    for i in range(200):
        melds = [c for m in table[i] for c in ids(m)]
        cards = ids(rest[i, 0]) + ids(rest[i, 1]) + melds + [c for c in hands[i].ravel() if c >= 0]
        assert sorted(cards) == list(range(52))


def test_knob_checks():
    assert R.RamiKnobs(players=7).cards_each == 6
    assert R.RamiKnobs(players=2).cards_each == 10
    with pytest.raises(SimlabError, match="hand_size"):
        R.RamiKnobs(players=7, hand_size=10)
    with pytest.raises(SimlabError, match="unknown knob 'joker_exchange'"):
        R.GAME.make_knobs({"joker_exchange": True})  # variant not implemented


# --- exact deal combinatorics -------------------------------------------------------------
def test_joker_odds_match_hypergeometric():
    players, n = 4, 4000
    k = R.RamiKnobs(players=players)
    f = frame(k, n=n, seed=21)
    hs = R.deal_size(players)
    p = 1 - math.comb(52, hs) / math.comb(54, hs)  # P(a fixed seat gets >= 1 joker)
    hit = f["dealt_s0"].list.contains("Joker").mean()
    se = math.sqrt(p * (1 - p) / n)
    assert abs(hit - p) < 5 * se, (hit, p)


# --- matches ------------------------------------------------------------------------------
def test_matches_to_1000_lowest_total_wins():
    k = R.RamiKnobs(players=3)
    out = R.run_matches(k, ("heuristic",) * 3, 4, 0, 40)
    m = to_frame(out, R.match_columns(k), DECK.labels, 3)
    scores = m.select([f"final_score_s{i}" for i in range(3)]).to_numpy()
    assert (m["capped"] == (m["winner"] < 0)).all()
    for row, s in zip(m.iter_rows(named=True), scores, strict=True):
        if row["winner"] >= 0:
            assert s.max() >= 1000
            assert s[row["winner"]] == s.min() and (s == s.min()).sum() == 1
    assert (m["n_deals"] >= 1).all() and m["winner"].min() >= 0


# --- the pure-Python path -------------------------------------------------------------------
def test_pure_python_path_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games import rami as R\n"
        "from simlab.engine.game import to_frame\n"
        "k = R.RamiKnobs(players=3)\n"
        "with np.errstate(over='ignore'):\n"
        "    o = R.run_deals(k, ('heuristic', 'random', 'heuristic'), 9, 0, 4, True)\n"
        "to_frame(o, R.deal_columns(k), R.DECK.labels, 3).write_parquet('/dev/stdout')\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    slow = pl.read_parquet(io.BytesIO(res.stdout))
    k = R.RamiKnobs(players=3)
    out = R.run_deals(k, ("heuristic", "random", "heuristic"), 9, 0, 4, True)
    fast = to_frame(out, R.deal_columns(k), DECK.labels, 3)
    assert slow.equals(fast)


# --- the variant discard_take_must_meld (catalogue #5) -------------------------------------
def _digest(rows: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(rows).astype("<i8").tobytes()).hexdigest()[:16]


# The heuristic's discard before issue 10 (pinned frames below were taken with it), and the
# ace high that was the default until the rule for defaults followed the seed's order.
FORMER_POLICY = {"keep_high_before_opening": False, "break_cycles": False, "ace_high": True}


def test_default_frames_unchanged_by_the_must_meld_knob():
    """Fixed-seed frames pinned before the knob existed."""
    rows = R.run_deals_detail(R.RamiKnobs(**FORMER_POLICY), ("heuristic",) * 4, 7, 0, 300)[0]
    assert _digest(rows) == "a8a634535537e50d"
    rows = R.run_deals_detail(R.RamiKnobs(players=2, ace_high=True), ("random",) * 2, 7, 0,
                              300)[0]
    assert _digest(rows) == "fce83c848ccc9896"
    m = R.run_matches(R.RamiKnobs(**FORMER_POLICY), ("heuristic", "random") * 2, 3, 0, 10).rows
    assert _digest(m) == "0a6465ef9ade58c2"


@pytest.mark.parametrize("pol", ["heuristic", "random"])
@pytest.mark.parametrize("extra", [{}, {"final_discard_required": True},
                                   {"open_before_layoff": False, "players": 2}])
def test_must_meld_every_discard_draw_goes_down_the_same_turn(pol, extra):
    kw = {"players": 4, **extra}
    k = R.RamiKnobs(discard_take_must_meld=True, **kw)
    takes = 0
    for d in range(25):
        row, log, masks = R.trace_deal(k, (pol,) * k.players, 3, d)
        info = {c.name: int(v) for c, v in zip(R.deal_columns(k), row, strict=True)}
        assert info["discard_draws"] == int(log[:, 2].sum())
        for t in range(len(log)):
            seat, c, take, _ = (int(x) for x in log[t])
            assert seat == (info["dealer"] + 1 + t) % k.players
            if take:
                takes += 1
                assert int(masks[t, 0]) >> c & 1, (d, t, c)  # on the table
                assert not int(masks[t, 1]) >> c & 1  # not in hand
                # never on one's own first turn (melds from the second)
                assert t >= k.players
    assert takes > 10
    # the table stays legal and every card is accounted for
    rows, dealt, hands, table, rest = R.run_deals_detail(k, (pol,) * k.players, 3, 0, 150)
    for i in range(150):
        melds = [ids(m) for m in table[i] if m]
        for m in melds:
            assert py_valid(m), (i, m)
        cards = ids(rest[i, 0]) + ids(rest[i, 1]) + [c for m in melds for c in m]
        cards += [c for c in hands[i].ravel() if c >= 0]
        assert sorted(cards) == list(range(54))


def test_must_meld_changes_play_only_when_on():
    base = frame(R.RamiKnobs(), n=400, seed=5)
    off = frame(R.RamiKnobs(discard_take_must_meld=False), n=400, seed=5)
    on = frame(R.RamiKnobs(discard_take_must_meld=True), n=400, seed=5)
    assert base.equals(off)
    assert not base.equals(on)
    # fewer discard draws: the heuristic's wish list minus the cards it cannot meld now
    assert on["discard_draws"].sum() < base["discard_draws"].sum()
    assert on["capped"].mean() < 0.05


def test_must_mode_hand_built():
    """The exact use test on hand-built hands (4 players' knobs, opening 51)."""
    k = R.RamiKnobs(discard_take_must_meld=True)
    kv = R._vector(k)
    S, X, _, _, _ = R.new_work(0)
    tm, tc, buf = S[5], S[6], S[7]
    ws, best, val, cw = X

    def mode(hand, d, opened=False, n_table=0):
        h = mask(hand) | (np.uint64(1) << np.uint64(cid(d)))
        return R.must_mode(h, cid(d), opened, kv, 13, 0, tm, tc, n_table, ws, best, val, cw,
                           buf)

    # K♠ completes K-Q-J♠ and 7s make the 51: an opening that uses it
    m, n, v = mode(["Q♠", "J♠", "7♥", "7♣", "7♦", "2♣"], "K♠")
    assert m in (R.MODE_NORMAL, R.MODE_PLAN) and (m == R.MODE_NORMAL or v >= 51)
    # same cards but only 42 with the taken card: cannot open, cannot take it
    assert mode(["5♦", "6♦", "9♣", "9♥", "9♠", "2♣"], "4♦")[0] == R.MODE_NONE
    # an opening with the 10♥ exists beside the Q and K brelans (60): 10-J-Q♥ + K♥ K♠ K♦
    m, n, v = mode(["J♥", "Q♥", "K♥", "Q♠", "Q♦", "K♠", "K♦"], "10♥")
    assert m in (R.MODE_NORMAL, R.MODE_PLAN)
    if m == R.MODE_PLAN:
        assert v == 60 and any(int(buf[i, M.F_NAT]) >> cid("10♥") & 1 for i in range(n))
    # with J♥ swapped for 9♠ no opening of 51 holds the 10♥ (Q Q Q + K K K = 60 does not)
    assert mode(["9♠", "Q♥", "K♥", "Q♠", "Q♦", "K♠", "K♦"], "10♥")[0] == R.MODE_NONE
    # an ace used low only (A-2-3♥ + three kings = 46 + ... ): A-2-3♥ (16) + K K K (30)
    # + 10♣ J♣ Q♣ (30) = 76 with the ace, which the best partition without it misses
    m, n, v = mode(["2♥", "3♥", "K♠", "K♦", "K♣", "10♣", "J♣", "Q♣", "5♠"], "A♥")
    assert m in (R.MODE_NORMAL, R.MODE_PLAN)
    # a joker: usable whenever an opening exists (it joins a meld)
    m, n, v = mode(["Q♠", "J♠", "K♠", "7♥", "7♣", "7♦", "2♣"], "J1")
    assert m in (R.MODE_NORMAL, R.MODE_PLAN)
    if m == R.MODE_PLAN:
        assert sum(int(buf[i, M.F_NJ]) for i in range(n)) == 1 and v >= 51
    assert mode(["Q♠", "J♠", "2♣", "5♦"], "J1")[0] == R.MODE_NONE  # no 51 even with it
    # opened: a card that fits only a table meld is laid off
    hand = mask(["5♥", "6♥", "7♥"])
    M.best_partition(hand, VAL, 11, -1, 13, ws, best)
    _, n_table = M.lay_plan(hand, ws, M.W_PLAN, best[1], tm, tc, 0)
    assert mode(["2♣", "9♦"], "8♥", opened=True, n_table=n_table)[0] == R.MODE_LAYOFF
    assert mode(["2♣", "9♦"], "8♣", opened=True, n_table=n_table)[0] == R.MODE_NONE
    # opened: a natural meld with the card in hand
    assert mode(["8♣", "8♦", "2♠"], "8♠", opened=True, n_table=n_table)[0] in (
        R.MODE_NORMAL, R.MODE_PLAN)
