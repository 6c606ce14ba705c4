"""Tarot 4 saisons, issue 13 item 7: the écart rule as a knob (``forbid_discard``), the
faults of section 11 (the ``*_per_mille`` knobs, drawn from the deal's fault stream) and
the seed text of the defaults that resolve the seed (``seed_value``, shown by ``params``).

The seed (000, Tarot 4 saisons): §5 "Il est interdit de remettre un Roi ou un Bout au
chien"; §11 a fault of play costs "l'enjeu courant + 6 points, et la donne est annulée", a
misdeal 2 points to the dealer (repaired: play goes on; else he redeals), a chien fault 3
points to the taker (after the exchange: also his stake, and the deal is annulled)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import replace
from math import sqrt

import numpy as np
import polars as pl
import pytest

from simlab.cli.commands import main
from simlab.engine import rng
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.games import get_game
from simlab.games import tarot_4_saisons as G

K = G.Tarot4SaisonsKnobs()
HEUR = ("heuristic",) * 3
ORDER = G.deal_order(1)
STAKES = {0: [2, 4, 4, 6, 7, 9, 10], 1: [12, 15, 15, 17, 18, 21, 24]}  # seed §5 table


def cid(label: str) -> int:
    return G.DECK.index(label)


def mask(*labels: str) -> np.uint64:
    m = np.uint64(0)
    for lab in labels:
        m |= np.uint64(1) << np.uint64(cid(lab))
    return m


def shuffled(seed: int, d: int) -> np.ndarray:
    deck = np.arange(G.N_CARDS, dtype=np.int64)
    rng.shuffle(np.uint64(rng.stream(np.uint64(seed), d, 0, rng.SHUFFLE)), deck, G.N_CARDS)
    return deck


def frame(knobs, policies, seed, count, record=False):
    out = G.run_deals(knobs, policies, seed, 0, count, record)
    return out, to_frame(out, G.deal_columns(knobs), G.DECK.labels, 3)


# --- the écart ----------------------------------------------------------------------
def discard_position(choice: str, hand: tuple[str, ...]) -> tuple[set[str], str]:
    """(legal discards, the heuristic's discard) of seat 1, taker, holding ``hand``."""
    knobs = G.Tarot4SaisonsKnobs(forbid_discard=choice)
    kv, rules = G._vector(knobs), G._rules(knobs)
    st, cs = G.state_arrays()
    G.start_deal(st, cs, shuffled(1, 0), 0, ORDER, kv, np.zeros((3, 15), dtype=np.int64))
    st[G.S_TAKER] = 1
    st[G.S_PHASE] = G.PH_DISCARD
    st[G.S_DLEFT] = 1
    cs[G.M_HAND + 1] = mask(*hand)
    out = np.zeros(G.MAX_MOVES, dtype=np.int64)
    n = G.legal_moves(st, cs, out, kv, rules)
    return {G.DECK.labels[c] for c in out[:n]}, G.DECK.labels[G.heuristic_move(st, cs, kv,
                                                                                 rules)]


HAND = ("K♠", "Q♠", "T1", "T21", "Excuse", "T5", "1♥", "2♣")
PLAIN = {"Q♠", "1♥", "2♣"}


@pytest.mark.parametrize("choice, legal", [
    ("kings_bouts", PLAIN | {"T5"}),  # the seed: no Roi, no bout (the Excuse is a bout)
    ("kings_bouts_trumps", PLAIN),  # another trump only when nothing else may go
    ("kings", PLAIN | {"T1", "T21", "Excuse", "T5"}),
    ("bouts", PLAIN | {"K♠", "T5"}),
    ("none", set(HAND)),
])
def test_discard_legality(choice, legal):
    got, heur = discard_position(choice, HAND)
    assert got == legal
    assert heur == "1♥"  # a singleton without Roi, richest first: allowed by every choice


@pytest.mark.parametrize("choice, legal, heur", [
    ("kings_bouts", {"T5", "T9"}, "T5"),
    ("kings_bouts_trumps", {"T5", "T9"}, "T5"),  # forced: no other card may go
    ("kings", {"T1", "T21", "Excuse", "T5", "T9"}, "T1"),  # trumps lowest first
    ("bouts", {"K♠", "K♥", "T5", "T9"}, "K♠"),  # suit cards before trumps
    ("none", {"K♠", "K♥", "T1", "T21", "Excuse", "T5", "T9"}, "K♠"),
])
def test_discard_when_only_kings_and_trumps(choice, legal, heur):
    got, h = discard_position(choice, ("K♠", "K♥", "T1", "T21", "Excuse", "T5", "T9"))
    assert got == legal and h == heur


def test_heuristic_discards_an_allowed_card_when_the_excuse_is_the_only_plain_one():
    got, h = discard_position("kings", ("K♠", "Excuse", "T5", "T9"))
    assert got == {"Excuse", "T5", "T9"} and h == "T5"  # trumps, then the Excuse last


def test_discards_in_play_follow_the_knob():
    """Whole deals, heuristic but for random discards: the écart never holds a forbidden
    card, and the cards a variant allows do reach it (so the check can fail)."""
    moves = np.zeros(64, dtype=np.int64)
    kings_bouts = int(G.KINGS | G.BOUTS)
    for choice in ("kings_bouts", "none"):
        knobs = G.Tarot4SaisonsKnobs(forbid_discard=choice)
        kv, rules = G._vector(knobs), G._rules(knobs)
        st, cs = G.state_arrays()
        n_disc = n_forbidden = 0
        for d in range(150):
            G.start_deal(st, cs, shuffled(3, d), d % 3, ORDER, kv,
                         np.zeros((3, 15), dtype=np.int64))
            state = np.uint64(rng.stream(np.uint64(3), d, 0, rng.POLICY))
            while not G.is_over(st):
                if st[G.S_PHASE] == G.PH_DISCARD:
                    state, mv = G.random_move(st, cs, np.uint64(state), moves, kv, rules)
                else:
                    mv = G.heuristic_move(st, cs, kv, rules)
                G.apply_move(st, cs, mv, kv)
            n_disc += bin(int(cs[G.M_DISC])).count("1")
            n_forbidden += bin(int(cs[G.M_DISC]) & kings_bouts).count("1")
        assert n_disc >= 200
        if choice == "kings_bouts":
            assert n_forbidden == 0
        else:  # about 7 / 50 of the cards held are Rois or bouts
            assert n_forbidden >= 10


# --- faults -------------------------------------------------------------------------
FK = G.Tarot4SaisonsKnobs(fault_per_mille=60, misdeal_per_mille=40,
                          misdeal_redeal_per_mille=30, chien_fault_per_mille=80,
                          chien_fault_exchanged_per_mille=70)
N = 6000


def near(k: int, n: int, p: float) -> bool:
    """``k`` successes of ``n`` within 5 standard errors of ``n p``."""
    return abs(k - n * p) <= 5 * sqrt(n * p * (1 - p))


@pytest.fixture(scope="module")
def fault_frames():
    _, f = frame(FK, HEUR, 21, N)
    _, base = frame(K, HEUR, 21, N)
    return f, base


def test_fault_rates(fault_frames):
    f, _ = fault_frames
    md = f["misdeal"].cast(pl.Utf8)
    assert near(int((md == "repaired").sum()), N, 0.040)
    assert near(int((md == "redeal").sum()), N, 0.030)
    # chien faults: deals taken on a rung other than "tout"
    el = f.filter(pl.col("taker") >= 0, pl.col("rung") != "tout")
    cf = el["chien_fault"].cast(pl.Utf8)
    assert el.height > 1000
    assert near(int((cf == "before_exchange").sum()), el.height, 0.080)
    assert near(int((cf == "after_exchange").sum()), el.height, 0.070)
    assert (f.filter(pl.col("rung") == "tout")["chien_fault"] == "none").all()
    # faults of play: deals played (taken, not annulled at the chien); any of 3 players
    played = f.filter(pl.col("taker") >= 0, pl.col("chien_fault") != "after_exchange")
    faulted = played.filter(pl.col("fault_seat") >= 0)
    p = 1 - (1 - 0.060) ** 3
    assert near(faulted.height, played.height, p)
    # the first seat drawn from the dealer's next faults: P(dealer's next) = 0.06 / p
    first = int(((faulted["fault_seat"] - faulted["dealer"]) % 3 == 1).sum())
    assert near(first, faulted.height, 0.060 / p)
    # caught after a uniform 1..15 tricks: mean 8, variance (15^2 - 1) / 12
    t = faulted["fault_trick"]
    assert set(t) == set(range(1, 16))
    assert abs(t.mean() - 8) <= 5 * sqrt((15 ** 2 - 1) / 12 / faulted.height)


def test_fault_scoring_against_the_same_deals_without_faults(fault_frames):
    """Common random numbers: each deal is the same deal as in the run without faults, so
    a deal without fault is identical, a repaired misdeal or a chien fault before the
    exchange only adds its penalty, and a fault that annuls leaves only penalties."""
    f, base = fault_frames
    cols = [c for c in base.columns if c not in ("misdeal", "chien_fault")]
    n_kind = {"none": 0, "penalty": 0, "annulled": 0}
    for r, b in zip(f.iter_rows(named=True), base.iter_rows(named=True), strict=True):
        pen = [0, 0, 0]
        if r["misdeal"] != "none":
            pen[r["dealer"]] -= 2
        score = [r[f"score_s{i}"] for i in range(3)]
        if r["misdeal"] == "redeal":
            assert r["annulled"] and r["taker"] == -1 and score == pen
            n_kind["annulled"] += 1
            continue
        t = r["taker"]
        if r["chien_fault"] == "before_exchange":
            pen[t] -= 3
        if r["chien_fault"] == "after_exchange":
            option = 1 if r["option_used"] and not r["option_refused"] else 0
            assert r["stake"] == STAKES[r["clear"]][G.RUNGS.index(r["rung"])] - option
            pen[t] -= 3 + r["stake"]
            assert r["annulled"] and score == pen and r["fault_seat"] == -1
            n_kind["annulled"] += 1
            continue
        if r["fault_seat"] >= 0:
            if r["excuse_penalty"]:
                pen[r["excuse_seat"]] -= 6
            pen[r["fault_seat"]] -= r["stake"] + 6
            assert r["stake"] == b["stake"]  # the stake of the same deal played out
            assert r["annulled"] and score == pen and r["made"] is None
            n_kind["annulled"] += 1
            continue
        assert r["fault_trick"] == -1
        expect = {c: b[c] for c in cols}
        for i in range(3):
            expect[f"score_s{i}"] += pen[i]
        assert {c: r[c] for c in cols} == expect
        n_kind["penalty" if pen != [0, 0, 0] else "none"] += 1
    assert min(n_kind.values()) >= 100


def test_annul_for_fault_hand_built():
    """Seat 2 faults with a stake of 10: it loses 16; the misère and suite points of the
    deal lapse; the penalties already incurred stand (the dealer's repaired misdeal -2,
    the taker's chien fault -3, the Excuse played too late -6)."""
    kv = G._vector(K)
    st, _ = G.state_arrays()
    row = G.S_ROW
    st[G.S_DEALER], st[G.S_TAKER] = 0, 1
    st[row + G.C_SCORE:row + G.C_SCORE + 3] = [-2 + 2, -3 + 2, -6 + 2]  # + misère / suites
    st[row + G.C_MISDEAL] = 1
    st[row + G.C_CHIEN_FAULT] = 1
    st[row + G.C_EXC_PEN], st[row + G.C_EXC_SEAT] = 1, 2
    G.annul_for_fault(st, 2, 10 + K.fault_penalty, kv)
    assert list(st[row + G.C_SCORE:row + G.C_SCORE + 3]) == [-2, -3, -6 - 16]
    assert st[row + G.C_ANNULLED] == 1 and st[G.S_PHASE] == G.PH_END


def play_out(fault: tuple[int, int, int, int], d: int, knobs=K) -> np.ndarray:
    """Deal ``d`` of seed 5 with the fault plan ``fault`` (misdeal, fault seat, its trick,
    chien fault), played by the heuristic; returns the state."""
    kv, rules = G._vector(knobs), G._rules(knobs)
    st, cs = G.state_arrays()
    G.start_deal_faults(st, cs, shuffled(5, d), d % 3, ORDER, kv,
                        np.zeros((3, 15), dtype=np.int64), *fault)
    while not G.is_over(st):
        G.apply_move(st, cs, G.heuristic_move(st, cs, kv, rules), kv)
    return st


def test_fault_plans_hand_built():
    row = G.S_ROW + G.C_SCORE
    d = next(d for d in range(60) if play_out((0, -1, -1, 0), d)[G.S_ROW + G.C_TAKER] >= 0
             and play_out((0, -1, -1, 0), d)[G.S_ROW + G.C_RUNG] != G.TOUT)
    clean = play_out((0, -1, -1, 0), d)
    dealer = d % 3
    # a misdeal that cannot be repaired: the dealer -2, he redeals (nothing else)
    st = play_out((2, -1, -1, 0), d)
    assert st[G.S_ROW + G.C_ANNULLED] == 1 and st[G.S_ROW + G.C_TAKER] == -1
    assert [st[row + i] for i in range(3)] == [-2 if i == dealer else 0 for i in range(3)]
    # a fault of play caught at the end of the last trick: the deal is not scored
    for trick in (1, 15):
        st = play_out((0, 2, trick, 0), d)
        stake = clean[G.S_ROW + G.C_STAKE]
        assert st[G.S_ROW + G.C_ANNULLED] == 1 and st[G.S_ROW + G.C_FAULT_TRICK] == trick
        assert [st[row + i] for i in range(3)] == [0, 0, -(stake + 6)]
    # a chien fault: before the exchange -3 only; after it -3 - stake, annulled
    st = play_out((0, -1, -1, 1), d)
    t = clean[G.S_ROW + G.C_TAKER]
    assert [st[row + i] for i in range(3)] == [clean[row + i] - 3 * (i == t) for i in range(3)]
    st = play_out((0, -1, -1, 2), d)
    assert st[G.S_ROW + G.C_ANNULLED] == 1
    assert st[row + t] == -3 - st[G.S_ROW + G.C_STAKE] and st[G.S_ROW + G.C_STAKE] > 0


def test_search_worlds_hold_no_fault():
    """The search player's worlds assume no fault to come (it cannot know one)."""
    kv, rules, order, st, cs, wst, wcs, sw = G._args(K)
    for d in range(20):  # the first deal of seed 5 that is played
        G.start_deal_faults(st, cs, shuffled(5, d), d % 3, order, kv,
                            np.zeros((3, 15), dtype=np.int64), 0, 0, 12, 1)
        while st[G.S_PHASE] != G.PH_PLAY and not G.is_over(st):
            G.apply_move(st, cs, G.heuristic_move(st, cs, kv, rules), kv)
        if st[G.S_PHASE] == G.PH_PLAY:
            break
    assert st[G.S_PHASE] == G.PH_PLAY and st[G.S_FAULT_SEAT] == 0
    G.revealed_exclusions(st, kv, sw[-1])
    state = np.uint64(rng.stream(np.uint64(1), 0, 0, 7))
    _, ok = G.sample_world(st, cs, G.to_move(st), state, wst, wcs, sw)
    assert ok and wst[G.S_FAULT_SEAT] == G.NO_FAULT and wst[G.S_FAULT_TRICK] == G.NO_FAULT
    assert wst[G.S_CHIEN_FAULT] == 0


def test_fault_knob_checks():
    with pytest.raises(SimlabError, match="exceed 1000"):
        G.Tarot4SaisonsKnobs(chien_fault_per_mille=600, chien_fault_exchanged_per_mille=401)
    with pytest.raises(SimlabError, match="forbid_discard"):
        G.Tarot4SaisonsKnobs.from_mapping({"forbid_discard": "queens"})


def test_pure_python_path_with_faults_matches_compiled(tmp_path):
    knobs = dict(bid_base=24, bid_clear_extra=10, resistance_contract_at=60,
                 capot_announce_at=110, keep_contract_card=False,
                 forbid_discard="none", fault_per_mille=200, misdeal_per_mille=150,
                 misdeal_redeal_per_mille=100, chien_fault_per_mille=300,
                 chien_fault_exchanged_per_mille=300)
    code = (
        "import sys, numpy as np\n"
        "from simlab.games import tarot_4_saisons as G\n"
        f"k = G.Tarot4SaisonsKnobs(**{knobs!r})\n"
        "with np.errstate(over='ignore'):\n"
        "    o = G.run_deals(k, ('heuristic', 'random', 'heuristic'), 4, 0, 12)\n"
        "    m = G.run_matches(k, ('heuristic',) * 3, 4, 0, 1)\n"
        "np.save(f'{sys.argv[1]}/d.npy', o.rows)\n"
        "np.save(f'{sys.argv[1]}/m.npy', m.rows)\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True,
                   check=True)
    k = G.Tarot4SaisonsKnobs(**knobs)
    rows = G.run_deals(k, ("heuristic", "random", "heuristic"), 4, 0, 12).rows
    # the sample holds every kind of fault
    assert set(rows[:, G.C_MISDEAL]) == {0, 1, 2} and set(rows[:, G.C_CHIEN_FAULT]) == {0, 1, 2}
    assert (rows[:, G.C_FAULT_SEAT] >= 0).any()
    assert np.array_equal(np.load(tmp_path / "d.npy"), rows)
    assert np.array_equal(np.load(tmp_path / "m.npy"), G.run_matches(k, HEUR, 4, 0, 1).rows)


# --- defaults unchanged -------------------------------------------------------------
# sha256 prefixes of the kernel rows (the 63 columns that existed before this change), the
# dealt cards and the final hands. First computed with the code before this change (git
# HEAD 4e09cf6: 8910cc1749cd33fc, e84a9f655ec44b09, matches 3eacba1f199b59cb); recomputed
# after issue 10 fixed the heuristic's play after an Excuse lead (the next card sets the
# suit, so that player leads in effect; he used to take his partner's Excuse for a winning
# partner card), with the former policy knobs.
BEFORE = {("heuristic",) * 3: "1aef9ea8982e3de9",
          ("random", "heuristic", "random"): "165baf1e5c92c81e"}
BEFORE_MATCHES = "09c2b8442db651b0"
N_OLD_COLS = 63


# The heuristic defaults changed later (issue 10): the digests are those of the former ones.
K_FORMER = replace(K, bid_base=24, bid_clear_extra=10, resistance_contract_at=60,
                   capot_announce_at=110, keep_contract_card=False, pab_contract_trumps=11,
                   capot_likely_margin=101, draw_trumps_pct=60, pass_below=0)


def test_defaults_leave_results_unchanged():
    K = K_FORMER
    for (pols, want), seed in zip(BEFORE.items(), (7, 8), strict=True):
        o = G.run_deals(K, pols, seed, 0, 400, True)
        h = hashlib.sha256(np.ascontiguousarray(o.rows[:, :N_OLD_COLS]).tobytes())
        h.update(o.dealt.tobytes())
        h.update(o.hands.tobytes())
        assert h.hexdigest()[:16] == want, pols
        f = to_frame(o, G.deal_columns(K), G.DECK.labels, 3)
        assert f.columns[N_OLD_COLS:N_OLD_COLS + 4] == ["misdeal", "fault_seat", "fault_trick",
                                                        "chien_fault"]
        assert (f["misdeal"] == "none").all() and (f["chien_fault"] == "none").all()
        assert (f["fault_seat"] == -1).all() and (f["fault_trick"] == -1).all()
    m = G.run_matches(K, HEUR, 7, 0, 20).rows
    assert hashlib.sha256(np.ascontiguousarray(m).tobytes()).hexdigest()[:16] == BEFORE_MATCHES


# --- seed values and the command line ------------------------------------------------
SEED_MARKED = {"chien_after_round", "excuse_is_trump_for_redeal", "misere_mandatory",
               "ladder_order", "capot_replaces_win", "resistance_combined"}
# the Excuse is not among the seed's Atouts: that default is the printed text
DEPARTURES = SEED_MARKED - {"excuse_is_trump_for_redeal"}


def test_params_show_the_seed_values(capsys):
    rows = {d["name"]: d for d in G.Tarot4SaisonsKnobs.describe()}
    assert {n for n, d in rows.items() if d["seed_value"] is not None} == SEED_MARKED
    assert rows["misere_mandatory"]["seed_value"] is False  # seed: "peut choisir"
    assert rows["forbid_discard"]["default"] == "kings_bouts"
    assert main(["params", "tarot_4_saisons"]) == 0
    # the table's layout (column widths, wrapped meanings) is the CLI's: compare the text
    # with its whitespace collapsed
    out = " ".join(capsys.readouterr().out.split())
    for name in DEPARTURES:
        v = rows[name]["seed_value"]
        literal = str(v).lower() if isinstance(v, bool) else str(v)
        assert f"[seed text: {literal}]" in out, name
        assert f"- {name} = " in out, name  # the closing list of departures and reasons
    legend = out.count("[seed text: ...]")  # the header's explanation, if any
    assert out.count("[seed text: ") - legend == len(DEPARTURES)
    assert out.count("[seed text: false]") == 1  # misere_mandatory
    assert out.count("[seed text: true]") == 1  # resistance_combined
    for name in ("forbid_discard", "fault_per_mille", "misdeal_redeal_per_mille",
                 "chien_fault_exchanged_per_mille"):
        assert f" {name} " in out


def test_cli_sets_the_new_knobs(capsys):
    assert main(["columns", "tarot_4_saisons", "--set", "forbid_discard=kings",
                 "fault_per_mille=5"]) == 0
    assert "chien_fault" in capsys.readouterr().out
    assert main(["columns", "tarot_4_saisons", "--set", "forbid_discard=queens"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "forbid_discard" in err[0] and "kings_bouts_trumps" in err[0]


def test_stakes_are_bounded_and_the_largest_cannot_overflow():
    """Issue 12: stakes had no upper bound (scores of -4.5e17, or Int32 in one chunk and
    Int64 in another). Every stake is now at most MAX_STAKE, and the largest knobs still
    fit the Int32 result columns, at deal and at match level."""
    big = ",".join([str(G.MAX_STAKE)] * 7)
    with pytest.raises(SimlabError, match="from 0 to 1000"):
        G.Tarot4SaisonsKnobs(stakes_simple="1,2,3,4,5,6,1001").check()
    from simlab.engine.runner import simulate

    params = {"stakes_simple": big, "stakes_clear": big, "capot_mult": 100,
              "capot_announced_mult": 100, "contre_add": 100, "allpass_penalty": 100,
              "allpass_carry_bonus": 100, "target": 100_000, "target_push": 100_000,
              "max_deals": 100_000}
    for level, n in (("deal", 2_000), ("match", 20)):
        f = simulate(get_game("tarot_4_saisons"), n, seed=5, params=params, level=level,
                     policies="random", progress=False)  # to_frame refuses an overflow
        assert f.height == n
