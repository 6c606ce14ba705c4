"""Issue 11, item 5: compare's variant files, wide output, sweep table, Ctrl-C, progress,
the Python API's conveniences (compute_metrics, CompareResult.to_polars, to_pandas)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from simlab.cli.commands import _InterruptHandler, build_parser, interrupted_by_user, main, table
from simlab.engine.progress import Progress
from simlab.games import game_names, get_game

# they watch the machine's temporary files, processes and signals: run alone (Makefile)
pytestmark = pytest.mark.serial

WIDTH = 100
ROOT = Path(__file__).resolve().parent.parent


def _lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


# --- compare --a/--b FILE.toml -------------------------------------------------------------
def test_compare_takes_variant_files_for_either_side(tmp_path, capsys):
    house = tmp_path / "house.toml"
    house.write_text('game = "belote"\nqueen_points = 5\n', encoding="utf-8")
    assert main(["compare", "belote", "--b", str(house), "-n", "400", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "A = defaults vs B = queen_points=5" in out
    assert main(["compare", "belote", "--a", str(house), "--b", f"{house} target=501", "-n", "400",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "A = queen_points=5 vs B = queen_points=5 target=501" in out


def test_compare_side_errors_name_the_flag(tmp_path, capsys):
    assert main(["compare", "belote", "--b", "house", "-n", "10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simlab: error: --b expects") and "FILE.toml" in err
    assert main(["compare", "belote", "--a", str(tmp_path / "missing.toml"), "-n", "10"]) == 2
    assert "not found" in capsys.readouterr().err


def test_compare_help_says_default_rules(capsys):
    assert main(["compare", "--help"]) == 0
    out = capsys.readouterr().out
    assert "default rules" in out and "seed rules" not in out and "FILE.toml" in out


# --- 100 columns -----------------------------------------------------------------------------
def test_table_wraps_text_columns_and_keeps_numbers():
    rows = [["a " * 60, 12345, "x"], ["short", 7, "word " * 30]]
    text = table(["text", "n", "more"], rows, right=[False, True, False], width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
    assert "12,345" in text and text.count("\n") > 3
    assert table(["k", "v"], [["a", 1]], details=["meaning " * 20], width=40).count("\n") >= 4


@pytest.mark.parametrize("argv", [["list"], *[["params", g] for g in game_names()],
                                  *[["columns", g] for g in game_names()]])
def test_listings_fit_100_columns(argv, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # wider terminals still get 100 columns
    assert main(argv) == 0
    lines = _lines(capsys)
    assert lines and max(len(line) for line in lines) <= WIDTH, max(lines, key=len)


def test_every_help_fits_100_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    commands = build_parser()._subparsers._group_actions[0].choices
    for argv in [["--help"], *[[c, "--help"] for c in commands]]:
        assert main(argv) == 0
        lines = _lines(capsys)
        assert max(len(line) for line in lines) <= WIDTH, (argv, max(lines, key=len))


# --- sweep -----------------------------------------------------------------------------------
def test_sweep_prints_metric_by_value_table(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    values = ["5", "6", "7", "8", "9", "10"]
    assert main(["sweep", "belote", "--grid", f"take_threshold_1={','.join(values)}", "-n", "300",
                 "--out", str(tmp_path / "s"), "--no-progress"]) == 0
    lines = _lines(capsys)
    assert max(len(line) for line in lines) <= WIDTH
    headers = [line for line in lines if line.startswith("metric ")]
    assert len(headers) >= 2, "\n".join(lines)  # six points do not fit one block of 100 columns
    shown = [v for h in headers for v in h.split()[1:]]
    assert shown == [f"take_threshold_1={v}" for v in values]  # one column per value
    assert sum("taker success rate" in line for line in lines) == len(headers)  # a row each


# --- Ctrl-C ----------------------------------------------------------------------------------
class _Frame:
    def __init__(self, filename: str, back=None) -> None:
        self.f_code = type("code", (), {"co_filename": filename})()
        self.f_back = back


@pytest.mark.parametrize("callback", [
    ("numba", "core", "serialize.py"),
    # a ctypes callback of llvmlite's object cache: a KeyboardInterrupt raised there is
    # printed ("Exception ignored on calling ctypes callback function") and lost, and the
    # run went on (seen: a Ctrl-C while numba loaded a kernel)
    ("llvmlite", "binding", "executionengine.py"),
])
def test_interrupt_waits_while_numba_calls_back_into_python(callback):
    handler = _InterruptHandler()
    inside = _Frame(os.path.join("site-packages", *callback), _Frame("/work/simlab/engine/runner.py"))
    try:
        handler(signal.SIGINT, inside)  # not raised inside numba: pending, re-armed
        assert handler.pending
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    with pytest.raises(KeyboardInterrupt):
        handler(signal.SIGALRM, _Frame("/work/simlab/engine/runner.py"))  # the re-check, outside
    handler(signal.SIGINT, _Frame("/work/simlab/engine/runner.py"))  # the same key press, reported twice
    assert not handler.pending


def test_wrapped_keyboard_interrupt_is_recognised():
    try:
        try:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as e:
                raise SystemError("_numba_unpickle returned a result with an exception set") from e
        except SystemError as e:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") from e
    except SystemError as e:
        assert interrupted_by_user(e)
    assert not interrupted_by_user(ValueError("x"))


HOW_OFTEN = ["how-often", "belote", "pl.col('deal') >= 0", "-n", "1e8", "--jobs", "1",
             "--no-progress"]
# the command line once its modules are loaded: "ready" on stderr, then the command
AFTER_READY = ("import sys; from simlab.cli.commands import entry; sys.stderr.write('ready\\n'); "
               "sys.stderr.flush(); entry()")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_a_run_prints_one_line():
    """A real SIGINT to the process group (as a terminal sends it) mid-run: sent a while
    after the command says it is ready (its modules loaded), however loaded the machine."""
    for delay in (0.5, 2.0):
        proc = subprocess.Popen([sys.executable, "-c", AFTER_READY, *HOW_OFTEN], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)
        assert proc.stderr.readline() == "ready\n"
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 130 and err == "simlab: interrupted\n", (delay, err[-800:])


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_while_the_modules_load_prints_one_line():
    """A SIGINT while ``python -m simlab`` is still importing (numpy, polars, numba): the
    same one line and exit status 130, no traceback. ``-X importtime`` reports each
    import as it ends: the signal goes as soon as polars' first module has loaded, while
    ``simlab.cli.commands`` (which imports polars, numpy, numba) has not."""
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "simlab", *HOW_OFTEN],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if "polars" in line:
            break
    os.killpg(proc.pid, signal.SIGINT)
    rest, = proc.communicate(timeout=120)[1:]
    err = [line for line in "".join(seen).splitlines() + rest.splitlines()
           if not line.startswith("import time:")]
    assert any("polars" in line for line in seen), "".join(seen)[-800:]
    # the signal came mid-import: the command line's module had not finished loading
    assert not any(line.rstrip().endswith("| simlab.cli.commands") for line in seen)
    assert proc.returncode == 130 and err == ["simlab: interrupted"], (proc.returncode, err[-20:])


# --- progress --------------------------------------------------------------------------------
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_appears_and_moves_before_any_update():
    stream = _Tty()
    bar = Progress(1_000, "deals", stream=stream, delay=0.2, tick=0.1)
    try:
        time.sleep(0.8)  # no update: the line appears after delay and keeps being redrawn
        first = stream.getvalue()
        assert "0/1,000 deals" in first and "first chunk running" in first
        assert first.count("\r") >= 3
        bar.update(500)
        time.sleep(0.3)
        assert "500/1,000 deals" in stream.getvalue() and "ETA" in stream.getvalue()
    finally:
        bar.close()
    assert stream.getvalue().endswith("\n")


def test_progress_eta_counts_down_between_updates():
    bar = Progress(1_000, "deals", enabled=False, tick=0)
    bar.start = 0.0
    bar.done, bar._last_update = 500, 10.0  # 50 deals/s as of t = 10 s
    assert bar.line(now=10.0).endswith("ETA 0:10")
    assert bar.line(now=14.0).endswith("ETA 0:06")
    assert bar.line(now=30.0).endswith("ETA 0:00")


# --- Python API ------------------------------------------------------------------------------
def test_compute_metrics_takes_a_slug_and_a_dict():
    import simlab

    df = simlab.simulate("belote", 2_000, seed=1)
    ms = simlab.compute_metrics("belote", df, {}, "deal")
    made = df.filter(pl.col("taker") >= 0)["made"].mean()
    by_key = {m.key: m for m in ms.metrics}
    assert any(m.estimate.kind == "rate" for m in ms.headline())
    taker = [m for m in by_key.values() if m.title == "taker success rate"]
    assert taker and taker[0].estimate.value == pytest.approx(made)
    five = simlab.compute_metrics("belote", simlab.simulate("belote", 2_000, seed=1,
                                                            params={"queen_points": 5}),
                                  {"queen_points": 5})
    assert len(five.metrics) == len(ms.metrics)


def test_compare_result_as_polars_frame():
    """``compare()`` returns a polars DataFrame (issue 11); ``compare_runs()`` keeps the
    runs too, and its ``to_polars()`` is the same frame."""
    from simlab.analysis.compare import compare, compare_runs

    result = compare_runs(get_game("belote"), 1_000, b={"queen_points": 5}, seed=1)
    frame = result.to_polars()
    assert frame.equals(compare(get_game("belote"), 1_000, b={"queen_points": 5}, seed=1))
    assert isinstance(frame, pl.DataFrame) and frame.height == len(result.rows)
    assert {"key", "metric", "a", "b", "diff", "diff_lo", "diff_hi", "p_holm",
            "significant"} <= set(frame.columns)
    row = result.rows[0]
    first = frame.row(0, named=True)
    assert first["key"] == row.key and first["diff"] == pytest.approx(row.diff.diff)
    assert frame["significant"].sum() == sum(
        1 for r in result.rows if r.p_holm < 1 - result.conf)


def test_to_pandas_keeps_nullable_booleans():
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import simlab

    df = simlab.simulate("belote", 4_000, seed=1)
    assert df["made"].null_count() > 0
    pdf = simlab.to_pandas(df)
    assert str(pdf["made"].dtype) == "boolean"
    assert pdf["made"].mean() == pytest.approx(df["made"].mean())
    assert pdf["made"].isna().sum() == df["made"].null_count()
    assert str(pdf["score_s0"].dtype).startswith("int")  # no nulls: plain numpy ints


def test_cli_holm_cell_never_prints_zero():
    from types import SimpleNamespace

    from simlab.cli.analysis import _holm_cell

    row = SimpleNamespace(duplicate_of=None, p_holm=0.0, diff=SimpleNamespace(status=""))
    assert _holm_cell(row) == "< 1e-300"
    assert _holm_cell(SimpleNamespace(duplicate_of=None, p_holm=0.0123,
                                      diff=SimpleNamespace(status=""))) == "0.0123"


def test_the_installed_command_loads_its_modules_under_the_same_guard():
    """The ``simlab`` script runs :func:`simlab.__main__.run` (the guard above), not the
    command line's module directly, whose imports a Ctrl-C would interrupt with a
    traceback."""
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="console_scripts") if e.name == "simlab"]
    assert ep.value == "simlab.__main__:run"
