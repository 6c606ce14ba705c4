"""Issue 34 (items 3-4) and issue 33 (item 8): how-often independent of chunking, every
input bounded before any work, and errors that suggest the right name."""

from __future__ import annotations

from dataclasses import fields, replace

import polars as pl
import pytest

from simlab.analysis.queries import how_often, how_often_run, rows_needed
from simlab.cli.commands import main
from simlab.engine.knobs import SimlabError, load_variant, read_toml
from simlab.engine.runner import execute, plan
from simlab.engine.stats import true_and_counted
from simlab.games import game_names, get_game


def one_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simlab: error: "), err
    assert "Traceback" not in err[0]
    return err[0]


# --- how-often: the same answer whatever the chunking --------------------------------------
ROW_DEPENDENT = {
    "mean": "pl.col('score_s0') > pl.col('score_s0').mean()",
    "shift": "pl.col('score_s0').shift(1) > pl.col('score_s0')",
    "over": "(pl.col('score_s0') > pl.col('score_s0').mean()).over('dealer')",
    "rank": "pl.col('score_s0').rank() > 150",
    "cum_sum": "pl.col('score_s0').cum_sum() > 2000",
    "is_duplicated": "pl.col('trick_points_s0').is_duplicated()",
}


@pytest.fixture(scope="module")
def small_chunks():
    """300 Belote deals in chunks of 40, and the same deals as one frame."""
    p = plan(get_game("belote"), 300, seed=3, jobs=1, chunk_size=40, progress=False)
    return p, execute(replace(p, chunk_size=300))


@pytest.mark.parametrize("name", list(ROW_DEPENDENT))
def test_row_dependent_expression_counts_the_whole_run(small_chunks, name):
    """Evaluated on the whole columns: jobs 1 and jobs 2 over chunks of 40 give the count of
    the whole frame; counting chunk by chunk (the former way) would not."""
    p, whole = small_chunks
    expr = ROW_DEPENDENT[name]
    assert rows_needed(eval(expr, {"pl": pl}))[0]  # detected as looking at other rows
    ref = how_often(whole, expr)
    assert how_often_run(p, expr) == ref
    assert how_often_run(replace(p, jobs=2), expr) == ref
    chunks = [whole.slice(s, c) for s, c in p.chunks]
    per_chunk = [true_and_counted(c, eval(expr, {"pl": pl})) for c in chunks]
    k, n = sum(x[0] for x in per_chunk), sum(x[1] for x in per_chunk)
    assert (k, n) != (round(ref.value * ref.n), ref.n), "the chunked count should differ here"


def test_row_by_row_expressions_stay_chunked():
    for text in ("pl.col('capot')", "pl.col('score_s0').abs() > 10",
                 "pl.col('hand_s0').list.contains('J♥')", "pl.col('contract').is_in(['round1'])",
                 "pl.when(pl.col('taker') >= 0).then(pl.col('made')).otherwise(False)"):
        found, columns = rows_needed(eval(text, {"pl": pl}))
        assert found == [] and columns, (text, found)


@pytest.mark.parametrize("expr, words", [
    ("pl.col('deal').sum() > 0", "one value for the whole run"),
    ("pl.col('deal').filter(pl.col('capot')) > 3", "a question needs one value per row"),
])
def test_expressions_without_one_value_per_row_are_refused(capsys, expr, words):
    assert main(["how-often", "belote", expr, "-n", "30", "--jobs", "1", "--no-progress"]) == 2
    assert words in one_error(capsys)


def test_cli_how_often_same_count_for_jobs_1_and_2(capsys):
    expr = ROW_DEPENDENT["mean"]
    outs = []
    for jobs in ("1", "2"):
        assert main(["how-often", "belote", expr, "-n", "400", "--jobs", jobs,
                     "--no-progress"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and "of 400 deals" in outs[0]


# --- friendlier errors (issue 33, item 8) -----------------------------------------------------
@pytest.mark.parametrize("argv, words", [
    (["how-often", "belote", "capot", "-n", "10"], "a column is written pl.col('capot')"),
    (["how-often", "belote", "pl.col('capt')", "-n", "10", "--jobs", "1"],
     "(did you mean 'capot'?)"),
    (["run", "belot", "-n", "10"], "(did you mean 'belote'?)"),
    (["run", "belote", "-n", "10", "--set", "queen_pionts=3"], "(did you mean 'queen_points'?)"),
    (["run", "belote", "-n", "10", "--policy", "heuristik"], "(did you mean 'heuristic'?)"),
    (["run", "belote", "-n", "10", "--set", "litige=carry"], "(did you mean 'carry_over'?)"),
])
def test_did_you_mean(capsys, argv, words):
    assert main(argv) == 2
    assert words in one_error(capsys)


def test_toml_errors_name_the_file_and_line(tmp_path, capsys):
    v = tmp_path / "v.toml"
    v.write_text('game = "belote"\nqueen_points = 5\nlitge = "lost"\n')
    assert main(["run", "belote", "-n", "10", "--variant", str(v)]) == 2
    err = one_error(capsys)
    assert str(v) in err and "(line 3)" in err and "(did you mean 'litige'?)" in err
    assert main(["compare", "belote", "-n", "10", "--b", str(v)]) == 2
    assert "(line 3)" in one_error(capsys)
    v.write_text('game = "belote"\nqueen_points = 5\nlitige = "lost\n')
    assert main(["run", "belote", "-n", "10", "--variant", str(v)]) == 2
    err = one_error(capsys)
    assert str(v) in err and "line 3" in err
    v.write_text('game = "belote"\nqueen_points = 500\n')
    with pytest.raises(SimlabError, match=r"\(line 2\): knob 'queen_points'=500 is out of range"):
        load_variant(v, game=get_game("belote"))


# --- inputs bounded ------------------------------------------------------------------------
def test_deep_or_large_toml_is_one_line(tmp_path, capsys):
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    for argv in (["run", "belote", "-n", "5", "--variant", str(deep)], ["experiment", str(deep)]):
        assert main(argv) == 2
        assert "nests arrays or tables more than" in one_error(capsys)
    # brackets inside strings and comments are not nesting
    ok = tmp_path / "ok.toml"
    ok.write_text('game = "belote"  # [[[[[[[[[[[[[[[[[[[[\nlitige = "lost"\nx = "[[[[[[[[[[[[[[[[[["\n')
    assert read_toml(ok, "variant file")[0]["litige"] == "lost"
    big = tmp_path / "big.toml"
    big.write_text("# x\n" * 400_000)
    with pytest.raises(SimlabError, match="is over 1,024 KiB"):
        read_toml(big, "variant file")


LONG_NAME = "a" * 300
BAD_UTF8 = "x\udcff"  # how Python hands over a file name with the byte 0xff


@pytest.mark.parametrize("argv, words", [
    (["run", "belote", "-n", "5", "--out", f"{{tmp}}/{LONG_NAME}.parquet"], "at most 255 bytes"),
    (["run", "belote", "-n", "5", "--out", "{tmp}/" + "d/" * 2100], "at most 4,096 bytes"),
    (["run", "belote", "-n", "5", "--out", f"{{tmp}}/{BAD_UTF8}/"], "is not valid UTF-8"),
    (["run", "belote", "-n", "5", "--variant", f"{{tmp}}/{BAD_UTF8}.toml"], "is not valid UTF-8"),
    (["report", "belote", "-n", "5", "--out", f"{{tmp}}/{LONG_NAME}"], "at most 255 bytes"),
    (["experiment", f"{{tmp}}/{LONG_NAME}.toml"], "at most 255 bytes"),
    (["tune", "belote", "--out", f"{{tmp}}/{BAD_UTF8}.toml"], "is not valid UTF-8"),
    (["compare", "belote", "-n", "5", "--b", f"{{tmp}}/{LONG_NAME}.toml"], "at most 255 bytes"),
    (["repair", f"{{tmp}}/{LONG_NAME}"], "at most 255 bytes"),
])
def test_paths_checked_up_front(tmp_path, capsys, argv, words):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    assert words in one_error(capsys)
    assert list(tmp_path.iterdir()) == []  # nothing written


WRONG_TYPES = [
    ("title = 5", "'title' must be a string"),
    ("policies = 5", "'policies' must be a string"),
    ("seed = -1", "'seed' must be an integer from 0"),
    ("jobs = 0", "'jobs' must be -1"),
    ("notes = \"x\"", "'notes' must be a list of strings"),
    ("level = \"round\"", "'level' must be \"deal\" or \"match\""),
    ("out = 3", "'out' must be a folder path"),
    ("name = \"\"", "'name' must be a non-empty string"),
    ("[knobs]\nqueen_points = \"5\"", "(write it without quotes)"),
    ("[knobs]\nqueen_points = nan", "expects int, got nan"),
    ("[knobs]\nqueen_pionts = 5", "(did you mean 'queen_points'?)"),
    ("[compare]\nb = { litige = \"maybe\" }", "has no value 'maybe'"),
    ("[sweep]\ntake_threshold_1 = [6, 1000]", "is out of range"),
    ("policies = \"heuristik\"", "(did you mean 'heuristic'?)"),
]


@pytest.mark.parametrize("line, words", WRONG_TYPES)
def test_experiment_files_fully_checked_before_any_work(tmp_path, capsys, monkeypatch, line,
                                                       words):
    import simlab.analysis.report_sums
    import simlab.cli.analysis

    f = tmp_path / "e.toml"
    f.write_text(f'game = "belote"\nn = 10\n{line}\n')
    work: list[str] = []
    monkeypatch.setattr(simlab.cli.analysis, "run_for_report", lambda *a, **k: work.append("run"))
    monkeypatch.setattr(simlab.analysis.report_sums, "start_report_workers",
                        lambda *a, **k: work.append("workers"))
    assert main(["experiment", str(f), "--no-progress", "--players-n", "0"]) == 2
    err = one_error(capsys)
    assert words in err and str(f) in err
    assert work == [], "no work may start before the file is refused"


@pytest.mark.parametrize("text, words", [
    ('game = [1]\nn = 10\n', "'game' must be a game slug"),
    ('game = "belote"\nprecision = "0.01"\n', "'precision' must be a number between 0 and 1"),
    ('game = "belote"\nprecision = 0.01\nmax_deals = 10\n', "'max_deals' must be an integer >="),
    ('game = "belote"\nn = 10\nmax_deals = 50000\n', "caps a 'precision' run"),
    ('game = "frappe"\nn = 10\n[knobs]\ncard_weight = nan\n', "must be a finite number"),
    ('game = "frappe"\nn = 10\n[sweep]\ncard_weight = [1.0, inf]\n', "must be a finite number"),
])
def test_experiment_wrong_values_more(tmp_path, capsys, text, words):
    f = tmp_path / "e.toml"
    f.write_text(text)
    assert main(["experiment", str(f)]) == 2
    assert words in one_error(capsys)


def float_knobs() -> list[tuple[str, str]]:
    out = []
    for slug in game_names():
        for f in fields(get_game(slug).knobs):
            if (f.type if isinstance(f.type, str) else f.type.__name__) == "float":
                out.append((slug, f.name))
    return out


@pytest.mark.parametrize("slug, name", float_knobs())
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_nan_and_infinity_refused_for_every_float_knob(capsys, slug, name, value):
    assert main(["run", slug, "-n", "5", "--set", f"{name}={value}", "--no-progress"]) == 2
    assert "must be a finite number" in one_error(capsys)


def test_float_knobs_exist():
    assert ("frappe", "card_weight") in float_knobs()


@pytest.mark.parametrize("argv, words", [
    (["report", "belote", "-n", "100", "--max-deals", "-1", "--out", "{tmp}/r"], "--max-deals must be >= 1"),
    (["report", "belote", "-n", "100", "--max-deals", "500", "--out", "{tmp}/r"], "caps a --precision run"),
    (["report", "belote", "--precision", "nan", "--out", "{tmp}/r"], "--precision must be between 0 and 1"),
    (["bench", "--games", ""], "--games has an empty entry"),
    (["bench", "--games", "belote,"], "--games has an empty entry"),
    (["bench", "--jobs-list", "1,,2"], "--jobs-list has an empty entry"),
    (["tune", "belote", "--knobs", ""], "--knobs has an empty entry"),
    (["tune", "belote", "--seed", str(2**63 - 1)], "tune: seed must be an integer from 0 to"),
])
def test_refused_in_one_line(tmp_path, capsys, argv, words):
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    assert words in one_error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_jobs_capped_at_the_cores_for_a_local_run(capsys, monkeypatch):
    import simlab.cli.commands

    monkeypatch.setattr(simlab.cli.commands, "cpu_count", lambda: 2)
    assert main(["run", "belote", "-n", "20", "--jobs", "12", "--no-progress"]) == 0
    out = capsys.readouterr()
    assert "--jobs 12 is more than this machine's 2 cores; using 2" in out.err
    assert "jobs 12" not in out.out


def test_tune_seed_limit_is_the_last_valid_seed():
    from simlab.players.tune import SEED_LIMIT, SEED_STRIDE, STAGES_PER_ROUND, tune

    top = SEED_LIMIT - 1 - SEED_STRIDE * (2 * STAGES_PER_ROUND - 1)
    with pytest.raises(SimlabError, match=f"from 0 to {top:,} with 2 round"):
        tune(get_game("belote"), rounds=2, seed=top + 1)
