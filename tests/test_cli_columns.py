"""`simlab columns`, and how-often refusing questions that cannot have an answer."""

from __future__ import annotations

import pytest

from simlab.cli.commands import main


def test_columns_lists_every_result_column(capsys):
    assert main(["columns", "belote"]) == 0
    out = capsys.readouterr().out
    assert "capot" in out and "one row per deal" in out and "one row per match" in out
    assert "label: round1, round2" in out and "tricks won by seat 2" in out
    assert main(["columns", "tarot", "--set", "players=5", "--level", "deal"]) == 0
    out = capsys.readouterr().out
    assert "score_s4" in out and "one row per match" not in out


@pytest.mark.parametrize("argv, words", [
    (["how-often", "tarot", "pl.col('contract') == 'Garde'"], "never holds 'Garde'; its values are: prise, garde"),
    (["how-often", "belote", "pl.col('contract').is_in(['round1', 'R2'])"], "never holds 'R2'"),
    (["how-often", "belote", "pl.col('made')", "--where", "pl.col('taker') > 10"], "no row of the 50 deals"),
    (["columns", "nope"], "valid games"),
])
def test_questions_without_an_answer_are_errors(capsys, argv, words):
    assert main([*argv, *(["-n", "50", "--jobs", "1"] if argv[0] == "how-often" else [])]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simlab: error:") and "\n" not in err and words in err, err
