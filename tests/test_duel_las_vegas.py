"""Duel à Las Vegas: the seed's rules on hand-built packs (every worked example of the
catalogue that is about play), conservation and zero-sum over parties, a deal-level fact
against exact combinatorics, parties and matches that end properly, determinism across
jobs and chunks, the pure-Python path, knobs."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import polars as pl
import pytest

import simlab
from simlab.engine.game import to_frame
from simlab.engine.knobs import SimlabError
from simlab.games import duel_las_vegas as D
from simlab.games.duel_las_vegas import rules as R
from simlab.mechanics import poker

K = D.DuelLasVegasKnobs()
KV = R.knob_vector(K)
SIZE = int(KV[R.KV_SIZE])
W = poker.work_array()


def pack(top: str) -> np.ndarray:
    """A pack whose first cards are ``top`` (labels), then the rest in id order."""
    first = [poker.card_id(c) for c in top.split()]
    jokers = iter(range(52, SIZE))
    first = [next(jokers) if c == 52 else c for c in first]
    rest = [c for c in range(SIZE) if c not in first]
    return np.array(first + rest, dtype=np.int64)


def partie(a: str, b: str, kv: np.ndarray = KV) -> np.ndarray:
    st = R.new_state()
    R.new_partie(st, kv, pack(a), pack(b), W)
    return st


def hand(st: np.ndarray, seat: int) -> list[str]:
    return [R.DECK.labels[R.card_at(st, seat, i)]
            for i in range(st[R.S_START + seat], st[R.S_POS + seat])]


def test_example_1_the_weaker_hand_chooses():
    # A shows K♠, B shows 7♥: B is weaker and chooses; B draws 7♣: pair of 7s, A chooses
    st = partie("K♠ 2♦", "7♥ 7♣")
    assert R.to_move(st) == 1
    R.apply_move(st, KV, R.DRAW, W)
    assert hand(st, 1) == ["7♥", "7♣"] and R.to_move(st) == 0


def test_example_2_equal_hands_both_draw():
    # 8♠ vs 8♦: exactly equal, both flip a card at once, then compare
    st = partie("8♠ 3♣", "8♦ 9♥")
    assert hand(st, 0) == ["8♠", "3♣"] and hand(st, 1) == ["8♦", "9♥"]
    assert st[R.S_TIES] == 1 and R.to_move(st) == 0  # 8-3 is below 9-8


def test_lone_joker_ties_an_ace():
    st = partie("Joker 5♣", "A♠ 4♦")
    assert st[R.S_TIES] == 1 and hand(st, 0) == ["Joker", "5♣"]
    assert R.to_move(st) == 1  # A-5 (the Joker an Ace of another suit) beats A-4


def test_concede_gives_the_round_and_starts_the_next():
    st = partie("K♠ 2♦", "7♥ 3♣")
    R.apply_move(st, KV, R.CONCEDE, W)
    assert st[R.S_WINS] == 1 and st[R.S_WINS + 1] == 0 and st[R.S_ROUNDS] == 1
    assert hand(st, 0) == ["2♦"] and hand(st, 1) == ["3♣"]  # new round, fresh flips
    assert R.to_move(st) == 0  # 2♦ < 3♣


def test_example_7_an_empty_pack_concedes_and_loses_every_later_round():
    kv = R.knob_vector(D.DuelLasVegasKnobs(rounds_to_win=54))
    st = partie("K♠", "7♥", kv)
    assert R.to_move(st) == 1
    st[R.S_POS + 1] = SIZE  # B's pack is empty (as if drawn to the end)
    st[R.S_TO_MOVE] = -1
    R.advance(st, kv, W)  # B is weaker and cannot draw: he concedes automatically
    assert st[R.S_AUTO + 1] >= 1
    # then A wins each round with one card, until his own pack is empty too
    assert st[R.S_PHASE] == R.PH_OVER
    assert st[R.S_WINS] == SIZE and st[R.S_WINS + 1] == 0
    assert st[R.S_MAX_HAND] == 1 and st[R.S_AUTO + 1] == SIZE


def test_a_tie_with_one_empty_pack_is_conceded_by_that_player():
    kv = R.knob_vector(D.DuelLasVegasKnobs(rounds_to_win=2))
    st = partie("K♠ 8♠ 3♣", "2♦ 5♥", kv)
    # put 8♦ as B's last card and make it the next one: B has one card left
    b = R.P_OFF + R.PACK_MAX
    last = b + SIZE - 1
    i = b + int(np.flatnonzero(st[b:b + SIZE] == poker.card_id("8♦"))[0])
    st[i], st[last] = st[last], st[i]
    st[R.S_POS + 1] = SIZE - 1
    st[R.S_START + 1] = SIZE - 2
    R.apply_move(st, kv, R.CONCEDE, W)  # B concedes; both flip an 8: a tie
    assert st[R.S_WINS] == 2 and st[R.S_AUTO + 1] == 1  # B cannot draw: A's round
    assert st[R.S_TIES] == 0 and st[R.S_PHASE] == R.PH_OVER


def test_six_rounds_win_the_partie():
    kv = R.knob_vector(D.DuelLasVegasKnobs(rounds_to_win=2))
    st = partie("K♠ Q♠ 2♦", "7♥ 6♥ 3♣", kv)
    R.apply_move(st, kv, R.CONCEDE, W)
    assert st[R.S_PHASE] != R.PH_OVER
    R.apply_move(st, kv, R.CONCEDE, W)
    assert st[R.S_PHASE] == R.PH_OVER and R.outcome(st, 0) == 1 and R.outcome(st, 1) == -1


# --- over many parties ------------------------------------------------------------------
@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return simlab.simulate("duel_las_vegas", 3000, seed=4, policies="heuristic,random",
                           record_hands=True)


def test_conservation_and_zero_sum(frame):
    f = frame
    assert (f["score_s0"] + f["score_s1"] == 0).all()
    assert (f["rounds_s0"] + f["rounds_s1"] + f["void_rounds"] == f["n_rounds"]).all()
    for s in range(2):
        o = 1 - s
        # every round the other seat wins, this one conceded, by choice or for want of a card
        assert (f[f"rounds_s{o}"] == f[f"concedes_s{s}"] + f[f"auto_concedes_s{s}"]).all()
        assert (f[f"cards_s{s}"] <= SIZE).all()
        assert (f[f"decisions_s{s}"] == f[f"draws_s{s}"] + f[f"concedes_s{s}"]).all()
        assert (f[f"hand_s{s}"].list.len() == f[f"cards_s{s}"]).all()
        won = f["winner"] == s
        assert (f.filter(won)[f"score_s{s}"] == 1).all()
    reached = pl.max_horizontal("rounds_s0", "rounds_s1") >= K.rounds_to_win
    assert f.select((reached == ~pl.col("exhausted")).all()).item()
    ex = f.filter(pl.col("exhausted"))
    assert ((ex["cards_s0"] == SIZE) & (ex["cards_s1"] == SIZE)).all()
    # a partie that reaches the target lasts at most 2 * 6 - 1 decided rounds
    assert f.filter(~pl.col("exhausted"))["n_rounds"].max() <= 2 * K.rounds_to_win - 1


def test_first_flip_tie_matches_combinatorics(frame):
    # first cards of two independent packs tie when of one rank, a Joker counting as an
    # Ace (a lone Joker is an Ace): 12 ranks at 4/54 each, the Ace value at 6/54
    p = (12 * 4 * 4 + 6 * 6) / SIZE**2
    first = [(a[0], b[0]) for a, b in zip(frame["dealt_s0"], frame["dealt_s1"], strict=True)]

    def value(c: str) -> str:
        return "A" if c == "Joker" else c[:-1]

    tie = np.array([value(a) == value(b) for a, b in first])
    se = (p * (1 - p) / tie.size) ** 0.5
    assert abs(tie.mean() - p) < 5 * se
    # and the rule follows: both drew at once in every such partie
    assert (frame["tie_draws"].to_numpy()[tie] >= 1).all()


def test_matches_end_at_the_target_or_exhaustion():
    m = simlab.simulate("duel_las_vegas", 300, seed=2, level="match",
                        policies="heuristic,random")
    top = pl.max_horizontal("final_score_s0", "final_score_s1")
    done = m.filter(~pl.col("exhausted"))
    assert (done.select(top)[:, 0] == K.rounds_to_win).all()
    assert (done["winner"] >= 0).all()
    assert (m["n_deals"] >= K.rounds_to_win).all()
    assert (m["winner"] == 0).mean() > 0.9  # the heuristic beats random
    # same parties as the deal level
    d = simlab.simulate("duel_las_vegas", 300, seed=2, policies="heuristic,random")
    assert (d["winner"] == m["winner"]).all() and (d["n_rounds"] == m["n_deals"]).all()


def test_out_of_reach_target_ends_by_exhaustion():
    # 54 rounds would need every round won with a single card: the packs run out first
    f = simlab.simulate("duel_las_vegas", 200, seed=3, params={"rounds_to_win": 54})
    assert f["exhausted"].all() and f["drawn"].any() and (f["winner"] >= 0).any()
    assert ((f["cards_s0"] == SIZE) & (f["cards_s1"] == SIZE)).all()


# --- determinism, the pure-Python path, knobs ---------------------------------------------
def test_identical_frames_across_jobs_and_chunks():
    a = simlab.simulate("duel_las_vegas", 60, seed=9, policies="heuristic,random", jobs=1)
    b = simlab.simulate("duel_las_vegas", 60, seed=9, policies="heuristic,random", jobs=2,
                        chunk_size=17)
    c = simlab.simulate("duel_las_vegas", 60, seed=9, policies="heuristic,random", jobs=1,
                        chunk_size=25)
    assert a.equals(b) and a.equals(c)
    s1 = simlab.simulate("duel_las_vegas", 6, seed=9, policies="search,heuristic",
                         params={"search_worlds": 2}, jobs=1)
    s2 = simlab.simulate("duel_las_vegas", 6, seed=9, policies="search,heuristic",
                         params={"search_worlds": 2}, jobs=2, chunk_size=2)
    assert s1.equals(s2)
    m1 = simlab.simulate("duel_las_vegas", 20, seed=9, level="match", jobs=1)
    m2 = simlab.simulate("duel_las_vegas", 20, seed=9, level="match", jobs=2, chunk_size=7)
    assert m1.equals(m2)


def test_pure_python_path_matches_compiled():
    code = (
        "import numpy as np\n"
        "from simlab.games import duel_las_vegas as D\n"
        "from simlab.engine.game import to_frame\n"
        "k = D.DuelLasVegasKnobs(search_worlds=1)\n"
        "with np.errstate(over='ignore'):\n"
        "    o = D.run_deals(k, ('heuristic', 'random'), 9, 0, 2, True)\n"
        "f = to_frame(o, D.deal_columns(k), D.DECK.labels, 2)\n"
        "f.write_parquet('/dev/stdout')\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, check=True)
    slow = pl.read_parquet(io.BytesIO(res.stdout))
    k = D.DuelLasVegasKnobs(search_worlds=1)
    o = D.run_deals(k, ("heuristic", "random"), 9, 0, 2, True)
    assert slow.equals(to_frame(o, D.deal_columns(k), D.DECK.labels, 2))


@pytest.mark.parametrize("values", [{"rounds_to_win": 0}, {"jokers_per_pack": 5},
                                    {"wheel_allowed": "maybe"}, {"concede_gap": 0},
                                    {"nope": 1}])
def test_bad_knobs_give_one_line_errors(values):
    with pytest.raises(SimlabError) as e:
        D.GAME.make_knobs(values)
    assert "\n" not in str(e.value)
