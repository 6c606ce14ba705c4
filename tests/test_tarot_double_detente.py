"""Tarot double détente (and the 2-player Triple-Détente): scoring examples of the
catalogue, obligations of play, invariants over whole deals and matches, an exact deal
frequency, and the interpreter run equal to the compiled one."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

from simlab.engine.game import to_frame
from simlab.games import tarot_double_detente as T
from simlab.mechanics.tricks import wlegal_cards, wupdate_trick

LABELS = T.DECK.labels


def slot(label: str) -> int:
    return int(T.SLOT_OF_ID[LABELS.index(label)])


def mask(labels: list[str]) -> tuple[np.uint64, np.uint64]:
    w = [0, 0]
    for lab in labels:
        s = slot(lab)
        w[s >> 6] |= 1 << (s & 63)
    return np.uint64(w[0]), np.uint64(w[1])


def unmask(w0: np.uint64, w1: np.uint64) -> set[str]:
    out = set()
    for s in range(128):
        word = int(w0) if s < 64 else int(w1)
        if (word >> (s & 63)) & 1:
            out.add(LABELS[T.ID_OF_SLOT[s]])
    return out


def kv(**knobs) -> np.ndarray:
    return T._vector(T.DetenteKnobs(**knobs))


def frame(k: T.DetenteKnobs, pols, count: int, seed: int = 3, record: bool = False):
    out = T.run_deals(k, pols, seed, 0, count, record)
    return to_frame(out, T.deal_columns(k), LABELS, k.players), out


# --- the catalogue's worked examples -------------------------------------------------
def suit_label(rank: str, suit_index: int) -> str:
    return next(lab for i, lab in enumerate(LABELS) if i // 14 == suit_index and i < 56
                and lab.startswith(rank))


def test_contract_tables():
    v = kv()
    b = T.contract_bonus
    # 1. 1st half, contract 4
    assert [b(4, t, 0, T.MOD_NONE, v) + t for t in (4, 5, 2, 7)] == [14, 10, 4, 7]
    # 2. 2nd half, contract 0, no trick
    assert b(0, 0, 1, T.MOD_NONE, v) == 20
    # 3rd third (2 players)
    assert [b(5, t, 2, T.MOD_NONE, T._vector(T.DetenteKnobs(players=2))) + t
            for t in (5, 6, 3, 8)] == [35, 26, 13, 8]
    # 5. Cavalier modifier doubles; 6. trump modifier: only exact earns
    assert [b(3, t, 0, T.MOD_DOUBLE, v) + t for t in (3, 4, 1)] == [23, 14, 5]
    assert b(3, 4, 0, T.MOD_EXACT, v) + 4 == 4
    assert b(3, 3, 0, T.MOD_EXACT, v) == 10


def scores(bids, tricks, part=0, mod=T.MOD_NONE, petit=-1, petit_last=False, excuse=-1,
           aces=(0, 0, 0), cavs=(0, 0, 0), tor=(-1, -1, -1), **knobs):
    a = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    bonus = np.zeros(3, dtype=np.int64)
    out = np.zeros(3, dtype=np.int64)
    T.part_scores(3, a(bids), a(tricks), part, mod, petit, petit_last, excuse, a(aces),
                  a(cavs), a(tor), bonus, out, kv(**knobs))
    return list(out)


def test_petit_excuse_options_and_tout_ou_rien():
    # 3. the Petit in the last trick, won by B (seat 1): +2 +5; 4. A keeps the Excuse
    # to the 13th trick: -5 (bids far off: no bonus)
    assert scores((9, 9, 9), (4, 4, 5), petit=1, petit_last=True, excuse=0) == [-1, 11, 5]
    assert scores((9, 9, 9), (4, 4, 5), petit=2) == [4, 4, 7]
    # Cavalerie (+2 each) only with the option
    assert scores((9, 9, 9), (4, 4, 5), cavs=(2, 0, 1)) == [4, 4, 5]
    assert scores((9, 9, 9), (4, 4, 5), cavs=(2, 0, 1), opt_cavalerie=True) == [8, 4, 7]
    # 7. As gagnant: A wins a trick with a 1 -> B and C -10 each
    assert scores((9, 9, 9), (4, 4, 5), aces=(1, 0, 0), opt_as_gagnant=True) == [4, -6, -5]
    # 8. tout ou rien against B in the 2nd half: exact 3 -> A +23, B -20; 4 -> A 0
    assert scores((3, 0, 9), (3, 5, 5), part=1, tor=(1, -1, -1),
                  opt_tout_ou_rien=True) == [23, 5 - 20, 5]
    assert scores((3, 9, 9), (4, 4, 5), part=1, tor=(1, -1, -1),
                  opt_tout_ou_rien=True) == [0, 4, 5]


def test_hook_rule():
    v2 = kv(players=2)
    assert T.forbidden_bid(1, 2, 6, v2) == 7  # 9. first says 6 -> not 7
    assert T.forbidden_bid(0, 2, 0, v2) == -1
    assert T.forbidden_bid(2, 3, 6, kv()) == -1  # no hook at 3 players by default
    assert T.forbidden_bid(2, 3, 6, kv(hook="always")) == 7
    # the heuristic moves off the forbidden bid, the random policy never draws it
    st = np.uint64(7)
    for ev in range(0, 1300, 37):
        _, b = T.choose_bid(ev, 5, True, v2, st)
        assert b != 5 and 0 <= b <= 13
    for _ in range(300):
        st, b = T.choose_bid(0, 13, False, v2, st)
        assert 0 <= b < 13


# --- obligations of play --------------------------------------------------------------
TB = T.tables()
RULES = T._rules(T.DetenteKnobs())


def legal(hand: list[str], trick: list[str], variant: int = 0) -> set[str]:
    suit_of, suit_mask, excuse_mask, _, _, above, _, _, _ = TB
    led, win, ws = -1, -1, -1
    for i, lab in enumerate(trick):
        led, win, ws = wupdate_trick(slot(lab), i, led, win, ws, 4, suit_of, above[variant])
    h0, h1 = mask(hand)
    return unmask(*wlegal_cards(h0, h1, led, win, False, 4, suit_of, suit_mask, excuse_mask,
                                above[variant], RULES))


def winner(trick: list[str], variant: int = 0) -> int:
    suit_of, _, _, _, _, above, _, _, _ = TB
    led, win, ws = -1, -1, -1
    for i, lab in enumerate(trick):
        led, win, ws = wupdate_trick(slot(lab), i, led, win, ws, 4, suit_of, above[variant])
    return ws


def test_obligations():
    h1, k1, q1 = (suit_label(r, 1) for r in ("1", "K", "Q"))
    k0, two0 = suit_label("K", 0), suit_label("2", 0)
    # follow suit (the Excuse always allowed)
    assert legal([h1, k0, "T3", "Excuse"], [q1]) == {h1, "Excuse"}
    # void: must trump; over a trump: overtrump if able ...
    assert legal([k0, "T3", "T9"], [q1]) == {"T3", "T9"}
    assert legal([k0, "T3", "T9"], [q1, "T5"]) == {"T9"}
    # ... else still a lower trump (seed: "doivent couper")
    assert legal([k0, "T3", "T4"], [q1, "T5"]) == {"T3", "T4"}
    # a trump lead must be raised if able
    assert legal([k0, "T3", "T9", "T12"], ["T5"]) == {"T9", "T12"}
    assert legal([k0, "T3"], ["T5"]) == {"T3"}
    # void and trumpless: anything
    assert legal([k0, two0], [q1]) == {k0, two0}
    # the Excuse led: the next card sets the suit
    assert legal([k0, "T3"], ["Excuse"]) == {k0, "T3"}
    assert legal([k0, two0, "T3"], ["Excuse", q1]) == {"T3"}
    # the Excuse never wins; the highest trump, else the highest of the led suit
    assert winner(["Excuse", q1, k1]) == 2
    assert winner([q1, "T1", k1]) == 1
    assert winner([q1, k0, two0]) == 0
    # a reversed suit (modifier): the 1 highest, the Roi lowest
    assert winner([k1, h1, q1], variant=2) == 1
    assert winner([k1, h1, q1], variant=0) == 0


# --- whole deals ------------------------------------------------------------------------
OPTIONS = dict(opt_cavalerie=True, opt_modifications=True, opt_as_gagnant=True)


def expected_score(r: dict, p: int, n: int, k: T.DetenteKnobs) -> int:
    part = r["half" if n == 3 else "third"] - 1
    mod = {None: 0, "none": 0, "exact_only": 1, "doubled": 2, "reversed": 3}[r["modifier"]]
    b = T.contract_bonus(r[f"bid_s{p}"], r[f"tricks_s{p}"], part, mod, T._vector(k))
    assert b == r[f"bonus_s{p}"]
    s = b + r[f"tricks_s{p}"]
    if r["petit_seat"] == p:
        s += k.petit_value + (k.petit_last_trick_bonus if r["petit_last_trick"] else 0)
    if r["excuse_last_seat"] == p:
        s -= k.excuse_last_trick_penalty
    if k.opt_cavalerie:
        s += k.cavalier_value * r[f"cavaliers_s{p}"]
    if k.opt_as_gagnant:
        s -= k.as_gagnant_value * sum(r[f"as_gagnant_s{q}"] for q in range(n) if q != p)
    return s


@pytest.mark.parametrize("n", [3, 2])
@pytest.mark.parametrize("options", [False, True])
def test_deal_invariants(n, options):
    k = T.DetenteKnobs(players=n, **(OPTIONS if options else {}))
    parts = 5 - n
    pols = ("heuristic", "random", "heuristic")[:n]
    f, out = frame(k, pols, 300 * parts, record=True)
    part_col = "half" if n == 3 else "third"
    assert f[part_col].to_list() == [d % parts + 1 for d in range(300 * parts)]
    assert f["dealer"].to_list() == [(d // parts) % n for d in range(300 * parts)]
    assert (f.select(sum(pl.col(f"tricks_s{i}") for i in range(n))).to_series() == 13).all()
    dealt = out.dealt
    assert (out.hands == dealt).all()
    for i, r in enumerate(f.iter_rows(named=True)):
        cards = set(dealt[i].ravel().tolist())
        assert len(cards) == 13 * n and -1 not in cards
        assert r["bid_sum"] == sum(r[f"bid_s{p}"] for p in range(n))
        if n == 2:
            assert r["bid_sum"] != 13  # the hook
        assert (r["petit_seat"] >= 0) == (56 in cards)
        assert r["excuse_last_seat"] < 0 or 77 in cards
        for p in range(n):
            assert 0 <= r[f"bid_s{p}"] <= 13
            assert r[f"hit_s{p}"] == (r[f"bid_s{p}"] == r[f"tricks_s{p}"])
            assert r[f"score_s{p}"] == expected_score(r, p, n, k)
        if options:
            if r[part_col] < parts:
                assert r["modifier"] is not None and r["turned_card"] is not None
                turned = LABELS.index(r["turned_card"])
                key = LABELS.index(r["turned_second"]) if turned == 77 else turned
                want = ("exact_only" if key >= 56 else "doubled" if key % 14 == 11
                        else "reversed")
                assert r["modifier"] == want
                assert r["reversed_suit"] == (key // 14 if want == "reversed" else -1)
                assert turned not in cards
            else:
                assert r["modifier"] is None
    # every card of the pack is dealt exactly once per manche (turned cards included)
    for m in range(300):
        rows = dealt[m * parts:(m + 1) * parts].ravel()
        assert sorted(rows.tolist()) == list(range(78))


def test_heuristic_beats_random_at_hitting_contracts():
    k = T.DetenteKnobs()
    f, _ = frame(k, ("heuristic", "random", "random"), 3000)
    assert f["hit_s0"].mean() > f["hit_s1"].mean() + 0.1
    assert f["score_s0"].mean() > f["score_s1"].mean()


def test_faults():
    k = T.DetenteKnobs(fault_per_mille=1000)
    f, _ = frame(k, ("heuristic",) * 3, 40)
    for r in f.iter_rows(named=True):
        p = r["fault_seat"]
        assert p == (r["dealer"] + 1) % 3  # the first speaker is drawn first
        pen = 20 if r["half"] == 1 else 30
        assert [r[f"score_s{q}"] for q in range(3)] == [-pen if q == p else 0 for q in range(3)]
        assert sum(r[f"tricks_s{q}"] for q in range(3)) == r["fault_trick"]
    assert frame(T.DetenteKnobs(), ("heuristic",) * 3, 40)[0]["fault_seat"].max() == -1


def test_exact_frequency_of_a_bout():
    """P(seat 0 holds at least one Bout: T1, T21, Excuse) = 1 - C(75,13)/C(78,13), for
    every part (each part's 13 cards are a uniform 13-subset of the pack)."""
    k = T.DetenteKnobs()
    n = 12000
    out = T.run_deals(k, ("random",) * 3, 11, 0, n, True)
    hold = np.isin(out.dealt[:, 0, :], (56, 76, 77)).any(axis=1)
    p = 1 - math.comb(75, 13) / math.comb(78, 13)
    se = math.sqrt(p * (1 - p) / n)
    assert abs(hold.mean() - p) < 5 * se


# --- matches ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 2])
def test_matches(n):
    k = T.DetenteKnobs(players=n, opt_tout_ou_rien=True, **OPTIONS)
    pols = ("heuristic", "random", "heuristic")[:n]
    out = T.run_matches(k, pols, 5, 0, 60)
    f = to_frame(out, T.match_columns(k), LABELS, n)
    assert f.height == 60 and not f["capped"].any()
    assert f["n_tout_ou_rien"].sum() > 0
    for r in f.iter_rows(named=True):
        sc = [r[f"final_score_s{i}"] for i in range(n)]
        w = r["winner"]
        assert sc[w] >= 200 and all(sc[w] > s for i, s in enumerate(sc) if i != w)
        assert r["n_manches"] >= 1


def test_interpreter_equals_compiled(tmp_path):
    code = (
        "import sys, numpy as np\n"
        "from simlab.games import tarot_double_detente as T\n"
        "from simlab.engine.game import to_frame\n"
        "for n in (3, 2):\n"
        "    k = T.DetenteKnobs(players=n, opt_cavalerie=True, opt_modifications=True,\n"
        "                       opt_as_gagnant=True, opt_tout_ou_rien=True, target=40)\n"
        "    pols = ('heuristic', 'random', 'heuristic')[:n]\n"
        "    with np.errstate(over='ignore'):\n"
        "        o = T.run_deals(k, pols, 9, 0, 6, False)\n"
        "        m = T.run_matches(k, pols, 9, 0, 2)\n"
        "    to_frame(o, T.deal_columns(k), T.DECK.labels, n).write_parquet(\n"
        "        f'{sys.argv[1]}/d{n}.parquet')\n"
        "    np.save(f'{sys.argv[1]}/m{n}.npy', m.rows)\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True,
                   check=True)
    for n in (3, 2):
        k = T.DetenteKnobs(players=n, opt_cavalerie=True, opt_modifications=True,
                           opt_as_gagnant=True, opt_tout_ou_rien=True, target=40)
        pols = ("heuristic", "random", "heuristic")[:n]
        fast = to_frame(T.run_deals(k, pols, 9, 0, 6, False), T.deal_columns(k), LABELS, n)
        assert pl.read_parquet(tmp_path / f"d{n}.parquet").equals(fast)
        assert (np.load(tmp_path / f"m{n}.npy") == T.run_matches(k, pols, 9, 0, 2).rows).all()
