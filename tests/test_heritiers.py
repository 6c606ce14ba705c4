"""Les Héritiers is the Démons engine under its own slug (its seed section is a copy of
Démons): the same seed gives identical rows, and its report says so."""

from __future__ import annotations

import numpy as np

from simlab.games import get_game
from simlab.games.heritiers import ALIAS_NOTE


def test_same_seed_same_rows_as_demons():
    demons, heritiers = get_game("demons"), get_game("heritiers")
    assert heritiers.slug == "heritiers" and heritiers.knobs is demons.knobs
    k = heritiers.make_knobs({})
    for pol in (("heuristic",) * 3, ("random", "search", "heuristic")):
        a = demons.run_deals(k, pol, 17, 100, 60).rows
        b = heritiers.run_deals(k, pol, 17, 100, 60).rows
        assert np.array_equal(a, b)
    a = demons.run_matches(k, ("heuristic",) * 3, 4, 0, 3).rows
    b = heritiers.run_matches(k, ("heuristic",) * 3, 4, 0, 3).rows
    assert np.array_equal(a, b)
    assert [c.name for c in demons.deal_columns(k)] == [c.name for c in heritiers.deal_columns(k)]


def test_report_states_the_alias():
    findings = get_game("heritiers").extra["exact_findings"](None)
    assert any("identical rows to demons" in text for _, text in findings)
    assert "copy of Démons" in ALIAS_NOTE
