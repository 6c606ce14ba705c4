"""Moving code must not move results: every game's rows, metrics and report at a fixed
seed match the fingerprints recorded in ``tests/data/golden.json`` (see ``golden.py``;
they were recorded before the code moved into its subpackages, issue 35)."""

from __future__ import annotations

import json

import golden
import pytest


@pytest.fixture(scope="module")
def found(tmp_path_factory) -> dict[str, str]:
    return golden.fingerprints(tmp_path_factory.mktemp("reports"))


def test_every_game_is_fingerprinted(found):
    import simlab

    recorded = json.loads(golden.GOLDEN.read_text())
    games = {key.split("/")[0] for key in recorded}
    assert games == set(simlab.game_names())
    assert set(found) == set(recorded)


def test_rows_metrics_and_reports_unchanged(found):
    recorded = json.loads(golden.GOLDEN.read_text())
    changed = sorted(k for k in recorded if found.get(k) != recorded[k])
    assert not changed, ("these fingerprints changed (rows, metrics or report.md at the same "
                         f"seed): {changed}; if a rule or player was meant to change, "
                         "regenerate with: .venv/bin/python tests/golden.py --write")


def test_digest_sees_a_changed_value():
    import polars as pl

    a = pl.DataFrame({"x": [1, 2, None], "y": [True, False, True]})
    b = a.with_columns(pl.Series("x", [1, 3, None]))
    c = a.with_columns(pl.Series("x", [1, 2, 0]))  # a null is not a zero
    assert len({golden.frame_digest(a), golden.frame_digest(b), golden.frame_digest(c)}) == 3
