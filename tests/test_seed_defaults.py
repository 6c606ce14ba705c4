"""The rule for defaults (README, "Rules and their defaults"): a default departs from the
rulebook's printed text only where the book contradicts itself, is silent or cannot be
played, and says so; `simlab params` and every report list those readings."""

from __future__ import annotations

import pytest

from simlab.analysis.report import _rulebook_rows
from simlab.cli.commands import main
from simlab.engine.knobs import SEED_CASES
from simlab.games import game_names, get_game


@pytest.mark.parametrize("slug", game_names())
def test_every_departure_says_why(slug: str) -> None:
    for d in get_game(slug).knobs.departures():
        assert d["seed_case"] in SEED_CASES, (slug, d["name"])
        assert len(d["seed_why"]) > 20, (slug, d["name"])


def test_departures_are_the_knobs_whose_default_is_not_the_printed_text() -> None:
    names = {d["name"] for d in get_game("belote").knobs.departures()}
    assert "queen_points" in names
    # tarot: both knobs now default to the printed text
    tarot = {d["name"] for d in get_game("tarot").knobs.departures()}
    assert not {"trump_discard", "must_undertrump"} & tarot


def test_clear_printed_text_is_the_default() -> None:
    # Tarot: "Si on écarte des atouts, il faut les montrer" — trumps may go to the écart
    assert get_game("tarot").make_knobs({}).trump_discard == "free_if_shown"
    # Rami: "L'ordre des cartes est le suivant : As/2/3/…/Roi" — the ace is low only
    assert get_game("rami").make_knobs({}).ace_high is False


def test_params_lists_each_departure_with_its_reason(capsys: pytest.CaptureFixture) -> None:
    assert main(["params", "tarot_4_saisons"]) == 0
    out = capsys.readouterr().out
    tail = out.split("Defaults that differ from the rulebook's printed text", 1)[1]
    for d in get_game("tarot_4_saisons").knobs.departures():
        assert f"- {d['name']} = " in tail
    assert SEED_CASES["contradicts"] in tail and SEED_CASES["silent"] in tail


def test_report_rows_list_defaults_and_this_runs_readings() -> None:
    g = get_game("belote")
    rows = _rulebook_rows(g.make_knobs({}))
    assert [r[0] for r in rows] == ["`queen_points`"]
    assert rows[0][4].startswith(SEED_CASES["contradicts"])
    # a run set to the printed text says so; a run set away from a book default too
    assert "printed text" in _rulebook_rows(g.make_knobs({"queen_points": "5"}))[0][4]
    t = get_game("tarot")
    rows = _rulebook_rows(t.make_knobs({"trump_discard": "fft"}))
    assert [r[0] for r in rows] == ["`trump_discard`"] and rows[0][4] == "set for this run"
    assert _rulebook_rows(t.make_knobs({})) == []
