"""simlab tune: one-knob candidates, successive halving, validation on fresh deals, the
variant file, and the CLI's errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from simlab.engine.knobs import SimlabError, load_variant
from simlab.games import get_game
from simlab.players.tune import candidates, format_result, tunable_knobs, tune, write_variant


def test_candidates_are_valid_one_knob_moves() -> None:
    knobs = get_game("belote").make_knobs({"take_threshold_1": 2})
    moves = candidates(knobs, ["take_threshold_1"])
    values = sorted(m["take_threshold_1"] for m in moves)
    assert values == [0, 1, 3, 4, 6, 10]  # 2 -/+ 1, 2, 4, 8 within [0, 40]
    assert all(len(m) == 1 for m in moves)


def test_tunable_knobs_are_the_heuristics() -> None:
    names = tunable_knobs(get_game("belote").knobs)
    assert "take_threshold_1" in names and "search_worlds" not in names
    assert "dix_de_der" not in names
    with pytest.raises(SimlabError, match="is a rule, not a policy knob"):
        tunable_knobs(get_game("belote").knobs, ["dix_de_der"])


def test_tune_recovers_from_a_bad_field_value(tmp_path) -> None:
    """A field that takes only from trump strength 12 is beaten by a side taking lower; the
    tuner adopts it (validated on fresh deals, interval above 0), the field adopts it, and
    within three rounds it is back in the range the heuristic's default sits in."""
    res = tune(get_game("belote"), knobs=["take_threshold_1"], params={"take_threshold_1": 12}, n=500,
               rounds=3, jobs=1)
    first = res.rounds[0]
    assert first.adopted and first.validated is not None and first.validated.lo > 0
    assert first.validated.values["take_threshold_1"] < 12
    assert first.validated.n == 16 * 500
    assert 5 <= res.final_values["take_threshold_1"] <= 7
    text = format_result(res)
    assert "adopted: the interval excludes 0" in text and "values found: take_threshold_1=" in text
    path = write_variant(res, tmp_path / "t.toml")
    values = load_variant(path, game=get_game("belote"))
    assert values["take_threshold_1"] == res.final_values["take_threshold_1"]


def test_tune_keeps_current_values_without_a_clear_gain() -> None:
    """At its own default the heuristic's round-1 threshold has no clearly better neighbour
    on these deals: nothing is adopted and the values found are the current ones."""
    res = tune(get_game("belote"), knobs=["take_threshold_1"], n=500, jobs=1, seed=4)
    assert not res.rounds[0].adopted
    assert res.final_values == res.rounds[0].field_values


def test_tune_errors() -> None:
    with pytest.raises(SimlabError, match="cannot be tuned"):
        tune(get_game("belote"), policy="random")
    with pytest.raises(SimlabError, match="rounds must be"):
        tune(get_game("belote"), rounds=0)


def test_cli_tune_bad_out_is_one_line(tmp_path) -> None:
    r = subprocess.run([sys.executable, "-m", "simlab", "tune", "belote", "--out", str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "is a folder" in r.stderr and "Traceback" not in r.stderr


def test_tune_writes_typed_values_from_set_strings(tmp_path) -> None:
    """--set values arrive as strings; the variant file holds them typed (target = 501, not
    "501"), so `run --variant` takes the file back."""
    res = tune(get_game("belote"), knobs=["take_threshold_1"], params={"target": "501", "litige": "lost"},
               n=20, validate=20, jobs=1)
    path = write_variant(res, tmp_path / "t.toml")
    text = path.read_text()
    assert "target = 501\n" in text and 'litige = "lost"\n' in text
    assert load_variant(path, game=get_game("belote"))["target"] == 501


def test_tune_knob_that_never_changes_a_result_writes_nothing(tmp_path, capsys) -> None:
    """Sept's continue_min moves around its default change no deal's score on these deals
    (issue 33: it printed +0.000 [+0.000, +0.000] and wrote a variant file)."""
    from simlab.cli.commands import main

    out = tmp_path / "sept.toml"
    assert main(["tune", "sept", "--knobs", "continue_min", "-n", "100", "--jobs", "1",
                 "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "this knob never changed a" in text and "no variant file written" in text
    assert "validating" not in text and not out.exists()
    res = tune(get_game("sept"), knobs=["continue_min"], n=100, jobs=1)
    assert res.never_changed and len(res.rounds[0].stages) == 1
    assert all(g.flat for g in res.rounds[0].stages[0])
