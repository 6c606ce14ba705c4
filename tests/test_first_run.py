"""A first run says what it does (issue 33, item 7): "compiling kernels for GAME (first run
on this machine, about N s)..." before it compiles, a progress line whose rate leaves the
kernels' time out, and reports and the demo that show simulation and compile time apart.

The cache state is faked (``runner.kernel_folder`` pointed at a temporary folder) where
only the message logic is under test; one test starts a really cold process (an empty
``NUMBA_CACHE_DIR``) and stops it as soon as it has said it compiles."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simlab.cli.commands import main
from simlab.engine import progress, runner
from simlab.engine.progress import Progress, notice, paused
from simlab.games import get_game

ROOT = Path(__file__).resolve().parents[1]
BELOTE = get_game("belote")
NOTICE = re.compile(r"compiling kernels for belote \(first run on this machine, about "
                    r"\d+ (s|min)\)\.\.\.")


@pytest.fixture
def kernels(tmp_path, monkeypatch):
    """A kernel folder of its own for Belote (empty: cold), this process's record of loaded
    kernels cleared, the machine unloaded; returns the folder."""
    folder = tmp_path / "numba" / "simlab-0123456789abcdef"
    real = runner.kernel_folder
    monkeypatch.setattr(runner, "kernel_folder",
                        lambda g: folder if g.slug == "belote" else real(g))
    monkeypatch.setattr(runner, "_LOADED", set())
    monkeypatch.setattr(runner.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    return folder


def _compiled(folder: Path, entry: str = "deals_kernel") -> None:
    (folder / "belote_abc").mkdir(parents=True, exist_ok=True)
    (folder / "belote_abc" / f"kernels.{entry}-116.py311.nbi").write_bytes(b"")


def test_cold_kernels_are_announced_before_they_compile(kernels, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    said_before: list[str] = []
    real = runner.run_chunk

    def first_chunk(*args, **kwargs):
        said_before.append(err.getvalue())  # what stderr held when the compile began
        assert progress._PAUSE[1] is not None  # and its time is paused
        return real(*args, **kwargs)
    monkeypatch.setattr(runner, "run_chunk", first_chunk)
    clock = runner.kernel_clock()
    assert not runner.kernels_cached(BELOTE, "deal")
    runner.load_kernels(runner.plan(get_game("belote"), 10, jobs=1))
    assert len(said_before) == 1 and NOTICE.fullmatch(said_before[0].strip()), said_before
    compiling, loading = clock()
    assert compiling > 0 and loading == 0
    # the compile's CPU time is recorded for the next estimate on this machine
    assert '"belote"' in (kernels.parent / runner.COMPILE_TIMES).read_text()
    runner.load_kernels(runner.plan(get_game("belote"), 10, jobs=1))  # once per process
    assert len(said_before) == 1 and clock()[0] == compiling


def test_cached_kernels_load_silently(kernels, monkeypatch, capsys):
    _compiled(kernels)
    assert runner.kernels_cached(BELOTE, "deal")
    assert not runner.kernels_cached(BELOTE, "match")  # its entry kernel has no index yet
    clock = runner.kernel_clock()
    runner.load_kernels(runner.plan(get_game("belote"), 10, jobs=1))
    assert capsys.readouterr().err == ""
    compiling, loading = clock()
    assert compiling == 0 and loading > 0
    runner.load_kernels(runner.plan(get_game("belote"), 10, jobs=1, level="match"))
    assert "compiling kernels for belote" in capsys.readouterr().err


def test_a_game_simlab_does_not_compile_is_never_announced(monkeypatch, capsys):
    from simlab.engine.game import Game

    fake = Game(**{**BELOTE.__dict__, "slug": "not_a_game"})
    assert runner.kernel_folder(fake) is None and runner.kernels_cached(fake, "deal")
    monkeypatch.setenv("NUMBA_DISABLE_JIT", "1")
    assert runner.kernel_folder(BELOTE) is None  # nothing compiles: nothing to say
    runner.load_kernels(runner.plan(get_game("belote"), 10, jobs=1))
    assert capsys.readouterr().err == ""


def test_the_estimate(kernels, monkeypatch):
    """The fitted estimate from the game's count of compiled functions, until this machine
    has measured its own; times the square root of the machine's load per core above 1."""
    functions = sum(line.startswith(("@batch", "@hot", "@jit.")) for path in
                    (ROOT / "simlab" / "games" / "belote").glob("*.py")
                    for line in path.read_text().splitlines())
    assert functions > 10
    fitted = runner.COMPILE_BASE_CPU + runner.COMPILE_CPU_PER_FUNCTION * functions
    assert runner.compile_estimate(BELOTE) == pytest.approx(fitted)
    monkeypatch.setattr(runner.os, "getloadavg", lambda: (8.0, 8.0, 8.0))
    monkeypatch.setattr(runner, "cpu_count", lambda: 2)
    assert runner.compile_estimate(BELOTE) == pytest.approx(2 * fitted)
    runner._record_compile(BELOTE, 40.0)
    assert runner.compile_estimate(BELOTE) == pytest.approx(80.0)
    assert [runner._about(s) for s in (1, 23, 87, 95, 400)] == \
        ["5 s", "25 s", "85 s", "2 min", "7 min"]


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_rate_leaves_the_kernels_out(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr(progress.time, "perf_counter", clock)
    bar = Progress(1_000, "deals", enabled=True, stream=io.StringIO(), tick=0)
    with paused("compiling kernels for belote"):
        clock.now = 30.0
        assert bar.line().endswith("0/1,000 deals    0.0%  compiling kernels for belote, 0:30")
    clock.now = 40.0
    bar.update(500)  # 500 deals in the 10 s after the compile
    assert "0:10 elapsed  50 deals/s  ETA 0:10" in bar.line()
    clock.now = 50.0
    bar.update(500)
    done = "1,000/1,000 deals  100.0%  50 deals/s  in 0:20 (and 0:30 on kernels)"
    assert bar.line() == done
    clock.now = 300.0  # whatever comes after the last chunk does not lower the rate
    assert bar.line() == done
    bar.close()


def test_a_notice_goes_above_a_progress_line():
    stream = io.StringIO()
    bar = Progress(10, "deals", enabled=True, stream=stream, interval=0, tick=0)
    bar.update(4)
    notice("compiling kernels for belote (first run on this machine, about 25 s)...", stream)
    bar.update(6)
    bar.close()
    first, second, end = stream.getvalue().split("\n")
    _, bar_text, said = first.split("\r")  # the notice is written over the bar's line...
    assert bar_text.startswith("4/10 deals") and said.startswith("compiling kernels for belote")
    assert len(said) >= len(bar_text)  # ... wiping all of it
    assert second.startswith("\r10/10 deals") and end == ""  # the bar goes on below


def test_a_report_shows_compile_time_apart(kernels, tmp_path, capsys):
    assert main(["report", "belote", "-n", "400", "--jobs", "1", "--no-progress",
                 "--players-n", "0", "--out", str(tmp_path / "rep")]) == 0
    assert NOTICE.search(capsys.readouterr().err)
    text = (tmp_path / "rep" / "report.md").read_text()
    run_time = re.search(r"\| run time \| ([\d.]+) s \(([\d,]+) deals/s\) \|", text)
    compiled = re.search(r"\| kernels \(not in the run time\) \| ([\d.]+) s compiling them "
                         r"\(this machine's first run of these sources\) \|", text)
    assert run_time and compiled, text[:3000]


def test_a_demo_with_compiled_kernels_shows_their_loading_apart(kernels, tmp_path, capsys):
    _compiled(kernels)  # found compiled: loaded only
    assert main(["demo", "-n", "400", "--no-progress", "--out", str(tmp_path / "d.parquet")]) == 0
    out, err = capsys.readouterr()
    assert "compiling kernels" not in err and "compiled the kernels" not in out
    assert "400 deals in" in out
    text = (tmp_path / "demo-report" / "report.md").read_text()
    assert re.search(r"\| kernels \(not in the run time\) \| [\d.]+ s loading them \(compiled "
                     r"earlier\) \|", text), text[:3000]


def test_demo_says_it_compiled(kernels, tmp_path, capsys):
    assert main(["demo", "-n", "400", "--no-progress", "--out", str(tmp_path / "d.parquet")]) == 0
    out, err = capsys.readouterr()
    assert NOTICE.search(err)
    assert re.search(r"compiled the kernels in [\d.]+ s \(once per machine and version of "
                     r"their sources\), not counted below\n400 deals in", out), out
    assert "s compiling them" in (tmp_path / "demo-report" / "report.md").read_text()


def test_a_really_cold_process_says_so_before_numba_compiles_anything(tmp_path):
    """With an empty NUMBA_CACHE_DIR, the notice comes before numba saves its first compiled
    function (numba's cache log, on the same pipe). The process is stopped then."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "NUMBA_DEBUG_CACHE": "1",
           "PYTHONUNBUFFERED": "1"}
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.Popen([sys.executable, "-m", "simlab", "run", "belote", "-n", "10",
                             "--jobs", "1", "--no-progress"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 600  # bounds a failure only
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line.rstrip("\n"))
            if "[cache] data saved" in line:  # numba's first compiled function
                break
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    said = [i for i, s in enumerate(seen) if NOTICE.fullmatch(s)]
    saved = [i for i, s in enumerate(seen) if "[cache] data saved" in s]
    assert said and saved and said[0] < saved[0], seen[:20]


def test_run_says_it_compiled_and_leaves_it_out_of_its_rate(kernels, capsys):
    assert main(["run", "belote", "-n", "300", "--jobs", "1", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert NOTICE.search(err)
    said = re.search(r"compiled the kernels in ([\d.]+) s \(once per machine and version of "
                     r"their sources\), not counted below\n300 deals in ([\d.]+) s", out)
    assert said, out
    runner._LOADED.clear()  # a later process: loads them, says nothing
    _compiled(kernels)
    assert main(["run", "belote", "-n", "300", "--jobs", "1", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "compil" not in out + err and "300 deals in" in out
