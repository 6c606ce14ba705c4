"""Property-based checks: random knob combinations and random TOML either run and give
rows that satisfy the game's invariants, or are rejected with a one-line SimlabError —
never a traceback, a hang or an invariant violation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simlab
from simlab.engine.knobs import SimlabError, load_variant
from simlab.games import get_game

# `make fuzz` multiplies the examples (and hypothesis draws random seeds there, see conftest.py)
FUZZ_SCALE = int(os.environ.get("SIMLAB_FUZZ_SCALE", "1"))
# The boundscheck child recompiles every kernel in a private cache; compiling the search
# kernels too would double its time; each game's search tests run them compiled and as pure
# Python (NUMBA_DISABLE_JIT=1).
BOUNDSCHECK_CHILD = os.environ.get("SIMLAB_BOUNDSCHECK_CHILD") == "1"
GAMES = ("belote", "manille", "tarot", "tarot_4_saisons", "tarot_double_detente", "president",
         "rami")


def _value(row):
    """Strategy for one knob: its default, a valid value, or something invalid."""
    default = row["default"]
    allowed = row["allowed"]
    bad = st.sampled_from(["", "x", "-1", "1e9", "nan", "[1]"])
    if isinstance(default, bool):
        good = st.booleans()
    elif " | " in allowed:  # a list of choices
        opts = allowed.split(" | ")
        good = st.sampled_from([int(o) for o in opts] if isinstance(default, int) else opts)
        bad = st.one_of(bad, st.just(123456))
    elif isinstance(default, int):
        lo, hi = _bounds(allowed)
        good = st.integers(lo, min(hi, lo + 3000) if row["name"] in ("target", "max_deals") else hi)
        bad = st.one_of(bad, st.integers(hi + 1, hi + 10**6), st.integers(-10**6, lo - 1))
    else:
        good = st.text(max_size=5)
    return st.one_of(st.just(default), good, good, bad)


def _bounds(allowed: str) -> tuple[int, int]:
    inside = allowed[allowed.index("[") + 1:allowed.index("]")]
    lo, hi = (x.strip() for x in inside.split(","))
    return int(float(lo)), int(float(hi))


@st.composite
def variants(draw, game: str):
    rows = get_game(game).knobs.describe()
    chosen = draw(st.lists(st.sampled_from(rows), max_size=6, unique_by=lambda r: r["name"]))
    params = {r["name"]: draw(_value(r)) for r in chosen}
    if draw(st.booleans()):
        params[draw(st.sampled_from(["bogus", "Queen_points", ""]))] = 1
    return params


def check_invariants(game: str, knobs, frame: pl.DataFrame, level: str) -> None:
    if level == "match":
        if "capped" in frame.columns:
            done = frame.filter(~pl.col("capped"))
            assert (done["winner"] >= 0).all()
        length = "n_deals" if "n_deals" in frame.columns else "n_manches"
        assert (frame[length] >= 1).all()
        return
    if game == "belote":
        played = frame.filter(pl.col("taker") >= 0)
        pack = 140 + 4 * knobs.queen_points + knobs.dix_de_der
        assert (sum(played[f"trick_points_s{i}"] for i in range(4)) == pack).all()
        assert (sum(played[f"tricks_s{i}"] for i in range(4)) == 8).all()
        assert (frame["score_s0"] == frame["score_s2"]).all()
        assert frame.filter(pl.col("taker") < 0)["score_s0"].eq(0).all()
    elif game == "manille" and knobs.variant == "classic":  # variants: test_manille_variants
        total = 60 + 8 * knobs.trick_point
        assert ((frame["team_points_t0"] + frame["team_points_t1"]) == total).all()
        assert (sum(frame[f"tricks_s{i}"] for i in range(4)) == 8).all()
        assert ((frame["score_s0"] == 0) | (frame["score_s1"] == 0)).all()
    elif game == "tarot":
        n = knobs.players
        assert (sum(frame[f"score_s{i}"] for i in range(n)) == 0).all()  # zero-sum
        played = frame.filter(pl.col("taker") >= 0)
        assert ((played["attack_points"] + played["defence_points"]) == 182).all()  # half-points
    elif game == "president":
        n = knobs.players
        # every deal hands out each role once: the scores sum to the role points
        roles = (knobs.points_president + knobs.points_vice_president + knobs.points_vice_trou
                 + knobs.points_trou + (n - 4) * knobs.points_neutral)
        assert (sum(frame[f"score_s{i}"] for i in range(n)) == roles).all()
        places = frame.select(pl.concat_list([f"place_s{i}" for i in range(n)]).list.sort())
        assert all(p == list(range(n)) or p == list(range(1, n + 1)) for p in places.to_series().to_list())
    elif game == "tarot_4_saisons":
        played = frame.filter(~pl.col("annulled") & ~pl.col("all_pass"))
        pts = sum(played[f"trick_points_s{i}"] for i in range(3)) + played["chien_points"]
        assert (pts == 185).all()
    elif game == "tarot_double_detente":
        n = knobs.players
        clean = frame.filter(pl.col("fault_seat") < 0)
        assert (sum(clean[f"tricks_s{i}"] for i in range(n)) == knobs.hand_size).all()
    elif game == "rami":
        n = knobs.players
        assert (pl.concat([frame[f"penalty_s{i}"] for i in range(n)]) >= 0).all()


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=25 * FUZZ_SCALE, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_knobs_run_or_are_rejected(game, data):
    params = data.draw(variants(game))
    level = data.draw(st.sampled_from(["deal", "deal", "match"]))
    searching = ["search", "search,heuristic,random,heuristic"] if not BOUNDSCHECK_CHILD else []
    policies = data.draw(st.sampled_from(["heuristic", "random", "heuristic,random,random,heuristic",
                                          *searching]))
    n = data.draw(st.integers(1, 30 if level == "deal" else 2))
    if "search" in policies:  # the smallest budget: the search path, not its strength, is checked
        names = get_game(game).knobs.names()
        params.update({k: 1 for k in ("search_worlds", "search_bid_worlds", "search_discards") if k in names})
        n = min(n, 3 if level == "deal" else 1)
    try:
        frame = simlab.simulate(game, n, seed=data.draw(st.integers(0, 2**63 - 1)), params=params,
                                policies=policies, level=level)
    except SimlabError as e:
        msg = str(e)
        assert msg and "\n" not in msg
        return
    knobs = get_game(game).make_knobs(params)
    assert frame.height == n
    check_invariants(game, knobs, frame, level)


@settings(max_examples=60 * FUZZ_SCALE, deadline=None)
@given(text=st.one_of(
    st.text(max_size=60),
    st.lists(st.tuples(st.sampled_from(["queen_points", "target", "litige", "bogus", "game",
                                        "announcements", "[x]"]),
                       st.sampled_from(["3", "5", "-2", "\"lost\"", "\"x\"", "true", "1.5",
                                        "[1, 2]", "{a = 1}", "\"belote\"", "\"manille\""])),
             max_size=4).map(lambda kv: "\n".join(f"{k} = {v}" for k, v in kv))))
def test_random_toml_is_accepted_or_rejected_cleanly(tmp_path_factory, text):
    path = Path(tmp_path_factory.mktemp("v")) / "v.toml"
    path.write_text(text, encoding="utf-8")
    try:
        values = load_variant(path, game=get_game("belote"))
        get_game("belote").make_knobs(values)
    except SimlabError as e:
        assert str(e) and "\n" not in str(e)


@pytest.mark.skipif(BOUNDSCHECK_CHILD, reason="already the child")
@pytest.mark.skipif(os.environ.get("SIMLAB_BOUNDSCHECK") != "1",
                    reason="recompiles every kernel (3-4 min): run by `make fuzz`")
def test_property_run_with_numba_boundscheck(tmp_path):
    """The same property test once more with NUMBA_BOUNDSCHECK=1 (out-of-bounds accesses
    in kernels raise IndexError), compiled into a private cache. Compiling every kernel
    again costs more than half the suite, so it runs in ``make fuzz``, not in CI."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               SIMLAB_BOUNDSCHECK_CHILD="1")
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          f"{__file__}::test_random_knobs_run_or_are_rejected"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
