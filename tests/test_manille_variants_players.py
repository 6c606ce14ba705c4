"""Players of the Manille variants: the search player sees only what its player sees
(re-dealing the hidden cards, dummies' face-down cards included, never changes its
choice; the worlds respect what the player knows), the perfect-information search reads
the true deal, the heuristic's strong hands win and it beats random, the search beats
the heuristic in duplicate play, and the pure-Python run gives the compiled rows."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from simlab.analysis import players_check as PC
from simlab.engine.runner import plan, simulate
from simlab.games import get_game
from simlab.games.manille import rules as R
from simlab.games.manille import variant_players as VP
from simlab.games.manille import variants as V
from simlab.mechanics.tricks import count
from simlab.players.duel import duplicate
from tests.test_manille_variants import VARIANTS, dealt_state

WORLDS = 6


def through_decisions(s, kv) -> None:
    opts = np.zeros(V.MAX_DECISIONS, dtype=np.int64)
    while s[R.S_PHASE] not in (R.P_PLAY, R.P_DONE, V.P_THROWN):
        n = V.decision_options(s, kv, opts)
        V.apply_decision(s, kv, VP.heuristic_decision(s, kv, opts, n))


def positions(variant: str, n_deals: int = 12, **knobs) -> list[tuple]:
    """Play positions of heuristic deals (every seat, dummies included), after 0..26
    cards."""
    out = []
    for seed in range(n_deals):
        s, kv, rules, tb, _, _ = dealt_state(variant, seed, dealer=seed % 2 if variant == "deux"
                                             else seed % 4, dummy=seed % 4,
                                             search_worlds=WORLDS, **knobs)
        through_decisions(s, kv)
        for _plies in range(0, 28, 3):
            if s[R.S_PHASE] != R.P_PLAY:
                break
            out.append((s.copy(), kv, rules, tb))
            for _ in range(3):
                if s[R.S_PHASE] == R.P_PLAY:
                    V.apply_card(s, VP.heuristic_card(s, kv, rules, tb), tb)
    return out


def decide(s, kv, rules, tb) -> int:
    world = np.zeros(V.N_VSTATE, dtype=np.int64)
    return int(VP.search_card(s, kv, rules, tb, np.uint64(5), 3, 0, world, VP.search_work()))


def redeal(s, rules, tb, key: int) -> np.ndarray:
    """The same position with the cards hidden from the player to decide dealt again."""
    brain = s[V.S_OWNER + s[R.S_TO_MOVE]]
    work = VP.search_work()
    hidden = VP.seat_information(s, brain, rules, tb, work[7], work[8])
    out = np.zeros(V.N_VSTATE, dtype=np.int64)
    with np.errstate(over="ignore"):
        VP.sample_world(s, brain, hidden, np.uint64(key * 7919 + 1), out, work)
    return out


def n_legal(s, rules, tb) -> int:
    return count(V.legal_now(s, rules, tb))


@pytest.mark.parametrize("variant", VARIANTS)
def test_search_never_peeks(variant):
    knobs = {"dummy_exposure": "half_hidden"} if variant == "trois" else {}
    chosen = set()
    real = 0
    for s, kv, rules, tb in positions(variant, **knobs):
        if n_legal(s, rules, tb) < 2:
            continue
        real += 1
        c = decide(s, kv, rules, tb)
        chosen.add(c)
        for key in range(5):
            w = redeal(s, rules, tb, key)
            assert decide(w, kv, rules, tb) == c, (variant, key)
    assert real >= 15 and len(chosen) >= 10  # real choices: the test can fail


def test_redeals_move_hidden_cards_and_the_oracle_reads_them():
    moved = 0
    for s, _kv, rules, tb in positions("deux", 6):
        w = redeal(s, rules, tb, 1)
        moved += not np.array_equal(w, s)
    assert moved >= 10  # the re-deals above do change the hidden cards
    # oracle_team=0: seats 0 and 2 search the true deal, so their choice may change when
    # the hidden cards change; the determinized one never does (above)
    changed = 0
    for s, kv, rules, tb in positions("deux", 12, oracle_team=0):
        if n_legal(s, rules, tb) < 2 or s[V.S_TEAM + s[R.S_TO_MOVE]] != 0:
            continue
        c = decide(s, kv, rules, tb)
        changed += any(decide(redeal(s, rules, tb, key), kv, rules, tb) != c for key in range(3))
    assert changed >= 3


@pytest.mark.parametrize("variant", ("deux", "trois", "encheres"))
def test_worlds_respect_what_the_player_knows(variant):
    knobs = {"dummy_exposure": "half_hidden"} if variant == "trois" else {}
    for s, _kv, rules, tb in positions(variant, 8, **knobs):
        brain = s[V.S_OWNER + s[R.S_TO_MOVE]]
        work = VP.search_work()
        VP.seat_information(s, brain, rules, tb, work[7], work[8])
        excluded = work[7].copy()
        known = int(VP.known_cards(s, brain))
        for key in range(4):
            w = redeal(s, rules, tb, key)
            hands = [int(w[R.S_HAND + p]) for p in range(4)]
            assert hands[brain] == int(s[R.S_HAND + brain])  # his own hand
            assert w[R.S_GONE] == s[R.S_GONE]  # the cards played
            assert sum(bin(h).count("1") for h in hands) == 32 - bin(int(s[R.S_GONE])).count("1")
            assert all(hands[i] & hands[j] == 0 for i in range(4) for j in range(i))
            for q in range(4):
                assert bin(hands[q]).count("1") == bin(int(s[R.S_HAND + q])).count("1")
                vis = int(V.visible_hand(s, q))
                if V.is_dummy(s, q):
                    assert int(V.visible_hand(w, q)) == vis  # face-up cards are public
                    assert w[V.S_DOWN + q] & ~hands[q] == 0
                    for j in range(4):  # each covered stack keeps a face-down card
                        pair = w[V.S_STACK + 4 * q + j]
                        if pair >= 0 and s[V.S_DOWN + q] >> (s[V.S_STACK + 4 * q + j] % 64) & 1:
                            assert w[V.S_DOWN + q] >> (pair % 64) & 1
                else:
                    assert hands[q] & int(excluded[q]) == 0 or q == brain
            assert all(hands[q] & known == int(s[R.S_HAND + q]) & known for q in range(4))
            turned = int(s[R.S_TURNED])
            if turned >= 0 and not int(s[R.S_GONE]) >> turned & 1:
                assert hands[s[R.S_DEALER]] >> turned & 1  # the dealer keeps the turned card


def test_exclusions_are_sound_on_real_deals():
    for variant in ("encheres", "deux", "coinchee"):
        for s, _kv, rules, tb in positions(variant, 10):
            work = VP.search_work()
            VP.seat_information(s, 0, rules, tb, work[7], work[8])
            for q in range(4):
                if not V.is_dummy(s, q):
                    assert int(work[7][q]) & int(s[R.S_HAND + q]) == 0, (variant, q)


# --- the heuristic and the search in duplicate play --------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_strong_hands_win_and_heuristic_beats_random(variant):
    p = plan(get_game("manille"), 1500, seed=11, params={"variant": variant})
    st = PC.hand_strength(p.game, p, 1500)
    means = np.array([d.value for d in st.deciles])
    rank_corr = np.corrcoef(np.arange(len(means)), np.argsort(np.argsort(means)))[0, 1]
    assert rank_corr >= 0.7, (variant, means.round(2))
    assert st.top_minus_bottom.lo > 0 and st.spearman > 0
    r = duplicate(get_game("manille"), "heuristic", "random", n=400, seed=3, params={"variant": variant})
    assert r.lo > 0, r.format()


@pytest.mark.parametrize("variant", VARIANTS)
def test_search_beats_heuristic_in_duplicate_play(variant):
    """Search deciding everything (the decisions before the play too: belge, coinchee,
    encheres, folle; trois and deux have none) against the heuristic."""
    r = duplicate(get_game("manille"), "search", "heuristic", n=200, seed=1,
                  params={"variant": variant, "search_worlds": 12,
                          "search_decision_worlds": 16})
    assert r.lo > 0, r.format()


# --- the same rows without the JIT ---------------------------------------------------------------
def variant_frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    """A few deals of every variant (search, random and heuristic seats, half-hidden trois
    dummy) and two short belge and folle matches."""
    deals = pl.concat([simulate(get_game("manille"), 3, seed=8, policies="search,random,heuristic,heuristic",
                                params={"variant": v, "search_worlds": 2,
                                        "search_decision_worlds": 2,
                                        "dummy_exposure": "half_hidden"}, record_hands=True)
                       .with_columns(pl.lit(v).alias("v")) for v in VARIANTS], how="diagonal")
    matches = pl.concat([simulate(get_game("manille"), 2, seed=8, level="match",
                                  params={"variant": v, "belge_deals": 4, "target": 30})
                         .with_columns(pl.lit(v).alias("v")) for v in ("belge", "folle")],
                        how="diagonal")
    return deals, matches


SCRIPT = """
import sys
from tests.test_manille_variants_players import variant_frames
deals, matches = variant_frames()
deals.write_parquet(sys.argv[1])
matches.write_parquet(sys.argv[2])
"""


def test_numba_disabled_gives_the_same_rows(tmp_path: Path):
    deals, matches = tmp_path / "d.parquet", tmp_path / "m.parquet"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    subprocess.run([sys.executable, "-c", SCRIPT, str(deals), str(matches)], env=env,
                   check=True, timeout=300, cwd=Path(__file__).parent.parent)
    ref_d, ref_m = variant_frames()
    assert pl.read_parquet(deals).equals(ref_d)
    assert pl.read_parquet(matches).equals(ref_m)
