"""Local parallel runs: simlab.engine.pool's worker processes, the automatic one-process choice
for short runs, and nothing left behind in /dev/shm or the temporary folder."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from test_runner import FAKE, fake_run_deals

from simlab.engine import pool, runner
from simlab.engine.game import Game
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import last_processes, simulate
from simlab.games import get_game

# they watch the machine's temporary files, processes and signals: run alone (Makefile)
pytestmark = pytest.mark.serial

SHM = Path("/dev/shm")


def shm_names() -> set[str]:
    return {p.name for p in SHM.iterdir()} if SHM.is_dir() else set()


def scratch_dirs(base: Path) -> set[str]:
    """The runs' scratch folders in ``base``: a test gives its runs a temporary folder of
    its own, so other simlab runs on the machine never show up here."""
    return {p.name for p in base.glob("simlab-chunks-*")}


def group_pids(pgid: int) -> set[str]:
    got = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True)
    return set(got.stdout.split())


# Deadlines only bound a failure: a loaded machine (the suite shares it) may be slow
# to start a run's workers or to tear a killed process down.
START_DEADLINE = 300
EXIT_DEADLINE = 120


def slow_deals(knobs, policies, seed, start, count, record_hands=False):
    time.sleep(0.002 * count)  # 2 ms a deal: a run of 100 deals is 0.2 s of work
    return fake_run_deals(knobs, policies, seed, start, count, record_hands)


SLOW = Game(**{**FAKE.__dict__, "run_deals": slow_deals})


def test_short_runs_stay_in_one_process(monkeypatch):
    monkeypatch.delenv("SIMLAB_MIN_PARALLEL_SECONDS")
    assert runner._min_parallel_seconds() == runner.MIN_PARALLEL_SECONDS == 1.5
    # the estimate is measured: 0.2 s of sleeping, more on a loaded machine, so the
    # threshold is raised far above what any load makes of it
    monkeypatch.setattr(runner, "MIN_PARALLEL_SECONDS", 60.0)
    ref = simulate(SLOW, 100, seed=3, chunk_size=10)
    frame = simulate(SLOW, 100, seed=3, chunk_size=10, jobs=2)
    used, why = last_processes()
    assert frame.equals(ref)
    est = re.match(r"1 process: about (\d+(?:\.\d+)?) s of work", why)
    assert used == 1 and est and 0.15 <= float(est.group(1)) < 60, why
    # longer than the threshold (1.5 s of work): the worker processes share it
    monkeypatch.setattr(runner, "MIN_PARALLEL_SECONDS", 0.1)
    frame = simulate(SLOW, 100, seed=3, chunk_size=10, jobs=2)
    assert frame.equals(ref) and last_processes() == (2, "")


def test_workers_are_reused_and_errors_come_back():
    a = simulate(FAKE, 60, seed=1, chunk_size=10, jobs=2)
    first = pool.get(1)
    pids = [p.pid for p in first.procs]
    b = simulate(FAKE, 60, seed=1, chunk_size=10, jobs=2)
    assert a.equals(b) and [p.pid for p in pool.get(1).procs] == pids  # started once
    bad = Game(**{**FAKE.__dict__, "run_deals": refuses})
    with pytest.raises(SimlabError, match="no chunk after 20"):
        simulate(bad, 60, seed=1, chunk_size=10, jobs=2)
    assert simulate(FAKE, 60, seed=1, chunk_size=10, jobs=2).equals(a)  # a fresh pool


def refuses(knobs, policies, seed, start, count, record_hands=False):
    if start >= 20:
        raise SimlabError("no chunk after 20")
    return fake_run_deals(knobs, policies, seed, start, count, record_hands)


def test_a_killed_run_leaves_nothing_behind(tmp_path, monkeypatch):
    """SIGKILL of the whole process group (what a scheduler's timeout does): no named
    semaphore or memmapping folder in /dev/shm, no scratch folder after the next run,
    no worker process left running."""
    base = tmp_path / "tmp"
    base.mkdir()
    shm = shm_names()
    code = ("import simlab; import simlab.engine.runner as r; "
            "r.simulate(simlab.get_game('belote'), 2_000_000, chunk_size=20_000, jobs=2, progress=False)")
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                            env={**os.environ, "SIMLAB_MIN_PARALLEL_SECONDS": "0",
                                 "TMPDIR": str(base)})
    deadline = time.monotonic() + START_DEADLINE
    while time.monotonic() < deadline and not scratch_dirs(base):
        time.sleep(0.05)  # chunks are on their way through the scratch folder
    assert scratch_dirs(base), "the run never started its workers"
    pids = group_pids(proc.pid)  # the run and its workers
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=EXIT_DEADLINE)
    # other programs may come and go in /dev/shm: only names of the run's processes count
    assert not [n for n in shm_names() - shm if any(pid in n for pid in pids)], shm_names() - shm
    # no worker of the killed run: each got the SIGKILL too (or, had it escaped it, its
    # parent watch ends it within half a second), but a loaded machine may take a moment
    # to tear a killed process down, and pgrep still sees it meanwhile (seen once in CI)
    deadline = time.monotonic() + EXIT_DEADLINE
    while True:
        left = subprocess.run(["pgrep", "-f", f"simlab.engine.pool {proc.pid}"],
                              capture_output=True)
        if left.returncode == 1 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert left.returncode == 1, left.stdout
    monkeypatch.setattr(tempfile, "tempdir", str(base))  # this process's runs use it too
    simulate(FAKE, 40, chunk_size=10, jobs=2)  # the next run clears the dead run's folder
    assert not scratch_dirs(base)


def test_orphaned_workers_exit(tmp_path):
    """Only the parent killed: its workers notice and exit within a few seconds."""
    code = ("import simlab; import simlab.engine.runner as r; "
            "r.simulate(simlab.get_game('belote'), 3_000_000, chunk_size=20_000, jobs=2, progress=False)")
    proc = subprocess.Popen([sys.executable, "-c", code],
                            env={**os.environ, "SIMLAB_MIN_PARALLEL_SECONDS": "0"})
    deadline = time.monotonic() + START_DEADLINE
    pattern = f"simlab.engine.pool {proc.pid}"
    while time.monotonic() < deadline:
        if subprocess.run(["pgrep", "-f", pattern], capture_output=True).returncode == 0:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the run never started its workers")
    proc.kill()
    proc.wait(timeout=EXIT_DEADLINE)
    # within about a second on an idle machine (the watch looks every 0.5 s, a chunk
    # checks between steps); the margin is for a loaded one
    deadline = time.monotonic() + EXIT_DEADLINE
    while subprocess.run(["pgrep", "-f", pattern], capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "an orphaned worker kept running"
        time.sleep(0.1)


def test_chunks_run_here_report_progress_in_slices():
    """A kernel holds the GIL, so the progress line can only move between calls: a chunk
    this process runs goes in slices of about SLICE_SECONDS, each reported, with the
    same rows as one call."""
    ticks = []
    whole = runner.run_chunk(SLOW, FAKE.knobs(), ("heuristic",) * 4, 3, "deal", False, 0, 400)
    sliced = runner.run_chunk(SLOW, FAKE.knobs(), ("heuristic",) * 4, 3, "deal", False, 0, 400,
                              tick=ticks.append)
    assert sliced.equals(whole)
    # 2 ms a deal: 64 deals, then about 0.3 s (150 deals) a slice, to the end
    assert ticks[0] == runner.FIRST_SLICE and ticks[-1] == 400 and len(ticks) >= 3
    assert ticks == sorted(ticks)


def test_progress_counts_a_running_chunk_once():
    import io

    from simlab.engine.progress import Progress

    bar = Progress(100, enabled=True, stream=io.StringIO(), tick=0)
    bar.in_flight(10)
    bar.in_flight(30)
    assert bar.done == 30
    bar.update(50)  # the chunk finished: 50 rows, of which 30 were shown already
    assert bar.done == 50
    bar.update(50)
    assert bar.done == 100
    bar.close()


def logged_deals(knobs, policies, seed, start, count, record_hands=False):
    log = Path(os.environ["SIMLAB_TEST_LOG"])
    warm = log.with_name("warm")
    here = os.environ["SIMLAB_TEST_PARENT"] == str(os.getpid())
    if count == 1:  # a one-deal chunk loading the kernels (here) or warming the worker up
        if not here:
            warm.touch()
        return fake_run_deals(knobs, policies, seed, start, count, record_hands)
    if here and start > 0:
        # this process's chunks wait for the worker's warm-up, however long a loaded
        # machine makes it; then they go slowly enough for the worker to get chunks too
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline and not warm.exists():
            time.sleep(0.02)
        time.sleep(0.02 * count)
    with open(log, "a") as f:
        f.write(f"{os.getpid()}\n")
    return fake_run_deals(knobs, policies, seed, start, count, record_hands)


def test_rows_do_not_depend_on_which_process_ran_them(tmp_path, monkeypatch):
    log = tmp_path / "pids"
    monkeypatch.setenv("SIMLAB_TEST_LOG", str(log))
    monkeypatch.setenv("SIMLAB_TEST_PARENT", str(os.getpid()))
    pool.shutdown()  # workers started earlier have the environment of their start
    game = Game(**{**FAKE.__dict__, "run_deals": logged_deals})
    ref = simulate(FAKE, 400, seed=6)
    assert simulate(get_game(game), 400, seed=6, chunk_size=10, jobs=2).equals(ref)
    pids = set(log.read_text().split())  # the processes that ran the run's chunks
    assert str(os.getpid()) in pids and len(pids) == 2, pids  # this process and a worker


def _sleep_then(seconds: float) -> None:
    time.sleep(seconds)


def _pid() -> int:
    return os.getpid()


@pytest.mark.parametrize("big", [False, True])
def test_long_tasks_go_to_a_worker_still_warming_up(big):
    """Short tasks are never queued behind a worker's warm-up: this process takes them.
    Long ones (``big``: whole sweep points) are, one per worker, so that the worker does
    not sit idle while this process is busy with a long task of its own."""
    pool.shutdown()
    try:
        workers = pool.get(1, warm=(_sleep_then, (0.5,)))
        tasks = [(i, _pid, (), {}) for i in range(2)]
        ran = dict(workers.run(tasks, local=lambda i, fn, args, kwargs: fn(*args), big=big))
        here = os.getpid()
        assert sorted(ran) == [0, 1]
        if big:  # one each: the worker's after its warm-up, the other one here
            assert sorted(pid == here for pid in ran.values()) == [False, True]
        else:  # the warm-up outlasts both tasks: both ran here
            assert set(ran.values()) == {here}
    finally:
        pool.shutdown()


def test_a_report_starts_its_workers_before_its_own_preparation(monkeypatch):
    """report, demo and experiment start a surely long run's workers before they load the
    report's modules and probe the columns (their start then overlaps that work); the run
    takes the same workers. A short run or one job starts none."""
    from simlab.analysis.report_sums import start_report_workers

    pool.shutdown()
    short = runner.plan(FAKE, 100, jobs=2, chunk_size=10)
    assert not start_report_workers(short) and pool.current() is None
    monkeypatch.setitem(runner.SURELY_LONG, "deal", 50)  # 100 deals x cost 2: surely long
    assert not start_report_workers(runner.plan(FAKE, 100, jobs=1, chunk_size=10))
    assert not start_report_workers(short, backend="dask") and pool.current() is None
    assert start_report_workers(short)
    pids = [p.pid for p in pool.current().procs]
    assert len(pids) == 1
    frame = simulate(FAKE, 100, seed=0, chunk_size=10, jobs=2)
    assert [p.pid for p in pool.current().procs] == pids and last_processes() == (2, "")
    assert frame.equals(simulate(FAKE, 100, seed=0, chunk_size=10))
