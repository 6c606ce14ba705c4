"""The Mille heuristic has no blind spot the Players section would flag: strong hands win
(mean result rises by decile of the game's hand-strength measure), it beats random
clearly in duplicate play, every bid level it wins often is made often, and the bomb is a
real choice (used on some deals, not all)."""

from __future__ import annotations

import numpy as np
import polars as pl

from simlab import players_check as PC
from simlab.duel import duplicate
from simlab.runner import execute, plan


def test_strong_hands_win_and_heuristic_beats_random():
    p = plan("mille", 1500, seed=11)
    st = PC.hand_strength(p.game, p, 1500)
    assert st is not None and st.n == 1500 * 3
    means = np.array([d.value for d in st.deciles])
    rank_corr = np.corrcoef(np.arange(len(means)), np.argsort(np.argsort(means)))[0, 1]
    assert rank_corr >= 0.7, means.round(2)
    assert st.top_minus_bottom.lo > 0, st.top_minus_bottom
    assert st.spearman > 0
    r = duplicate("mille", "heuristic", "random", n=600, seed=3)
    assert r.lo > 0, r.format()


def test_health_checks_pass_but_the_forced_opening():
    p = plan("mille", 3000, seed=5)
    frame = execute(p)
    checks = PC.frame_checks(p.game, p, frame)
    contracts = [c for c in checks if c.name.startswith("contract ")]
    assert len(contracts) >= 4  # the bid levels won in >= 1 % of takes
    for c in checks:
        # somebody always takes: the forced opening is the rule, not a habit of the players
        assert c.ok is not False or c.name == "deals where nobody takes", c
    bomb = frame["bomb"].mean()
    assert 0.02 < bomb < 0.6
    over = frame.filter(pl.col("contract") == ">120")
    assert over.height > 30 and over.filter(~pl.col("bomb"))["made"].mean() > 0.25
