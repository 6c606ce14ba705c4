"""Cluster execution through joblib backends: a real dask.distributed cluster on loopback
gives the same rows as a local run; missing extras and bad addresses are one-line errors."""

from __future__ import annotations

import importlib.util
import re
import socket

import polars as pl
import pytest
from test_runner import FAKE, needs_belote

import simlab
import simlab.engine.runner as runner
from simlab.cli.commands import main
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import load, run_to_parquet, simulate
from simlab.games import get_game

HAS_DISTRIBUTED = importlib.util.find_spec("distributed") is not None
HAS_RAY = importlib.util.find_spec("ray") is not None
needs_distributed = pytest.mark.skipif(not HAS_DISTRIBUTED,
                                       reason="dask.distributed is not installed")


@pytest.fixture(scope="module")
def scheduler():
    """Address of a 2-worker dask cluster (separate processes) on 127.0.0.1."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("simlab: error: ") and "\n" not in err, err
    return err


@needs_distributed
@needs_belote
def test_dask_simulate_equals_local(scheduler):
    ref = simulate(get_game("belote"), 3000, seed=11)
    df = simulate(get_game("belote"), 3000, seed=11, chunk_size=700, backend="dask", scheduler=scheduler,
                  progress=False)
    assert df.equals(ref)
    m = simulate(get_game("belote"), 12, seed=2, level="match", chunk_size=5, backend="dask",
                 scheduler=scheduler)
    assert m.equals(simulate(get_game("belote"), 12, seed=2, level="match"))


@needs_distributed
@needs_belote
def test_dask_how_often_sends_counts_not_rows(capsys, scheduler):
    """how-often on a cluster: each chunk is counted on its worker, the same answer."""
    from simlab.analysis.queries import how_often, how_often_run

    p = runner.plan(get_game("belote"), 3000, seed=5, chunk_size=700, progress=False)
    ref = how_often(simulate(get_game("belote"), 3000, seed=5), "pl.col('capot')")
    assert how_often_run(p, "pl.col('capot')", backend="dask", scheduler=scheduler) == ref
    assert main(["how-often", "belote", "pl.col('capot')", "-n", "3000", "--seed", "5",
                 "--backend", "dask", "--scheduler", scheduler, "--no-progress"]) == 0
    k = round(ref.value * ref.n)
    assert f"({k:,} of 3,000 deals" in capsys.readouterr().out


@needs_distributed
@needs_belote
def test_dask_compare_sends_sums_not_rows(capsys, scheduler):
    """compare on a cluster: each chunk of deals is played under both variants and
    reduced to exact sums on its worker; the same rows as a local comparison."""
    from simlab.analysis.compare import compare_reduced, compare_runs

    local = compare_runs(get_game("belote"), 3000, b={"queen_points": 5}, seed=5)
    pa = runner.plan(get_game("belote"), 3000, seed=5, chunk_size=700, progress=False)
    pb = runner.plan(get_game("belote"), 3000, seed=5, params={"queen_points": 5}, chunk_size=700,
                     progress=False)
    rows = compare_reduced(pa, pb, backend="dask", scheduler=scheduler)
    assert [(r.key, r.a, r.b, r.diff.diff, r.diff.lo, r.p_holm) for r in rows] == \
        [(r.key, r.a, r.b, r.diff.diff, r.diff.lo, r.p_holm) for r in local.rows]
    assert main(["compare", "belote", "-n", "3000", "--seed", "5", "--b", "queen_points=5",
                 "--backend", "dask", "--scheduler", scheduler, "--no-progress"]) == 0
    assert "differ significantly" in capsys.readouterr().out


@needs_distributed
@needs_belote
def test_dask_reports_send_sums_and_parts_not_frames(tmp_path, scheduler):
    """report and compare --out on a cluster: each chunk is reduced to the report's sums on
    its worker and its rows come back as a Parquet part; the same report and rows as a
    local run."""
    from simlab.analysis.compare import compare_runs
    from simlab.analysis.report_sums import run_report_sums

    p = runner.plan(get_game("belote"), 2500, seed=3, chunk_size=600, progress=False)
    local = run_report_sums(p, tmp_path / "local" / "results.parquet")
    remote = run_report_sums(p, tmp_path / "dask" / "results.parquet", "dask", scheduler)
    assert local.rows == remote.rows == 2500
    assert [m.n for m in local.metrics.moments] == [m.n for m in remote.metrics.moments]
    assert local.metrics.moments == remote.metrics.moments and local.checks == remote.checks
    assert pl.read_parquet(tmp_path / "dask" / "results.parquet").equals(
        pl.read_parquet(tmp_path / "local" / "results.parquet"))
    out = tmp_path / "cli"
    assert main(["report", "belote", "-n", "2500", "--seed", "3", "--players-n", "0",
                 "--backend", "dask", "--scheduler", scheduler, "--no-progress",
                 "--out", str(out)]) == 0
    assert pl.read_parquet(out / "results.parquet").equals(
        pl.read_parquet(tmp_path / "local" / "results.parquet"))
    here = compare_runs(get_game("belote"), 2000, b={"queen_points": 5}, seed=3, jobs=1,
                        report_dir=tmp_path / "c-local")
    there = compare_runs(get_game("belote"), 2000, b={"queen_points": 5}, seed=3, backend="dask",
                         scheduler=scheduler, report_dir=tmp_path / "c-dask")
    assert [(r.key, r.a, r.b, r.diff.diff) for r in here.rows] == \
        [(r.key, r.a, r.b, r.diff.diff) for r in there.rows]
    assert here.sums_b.metrics.moments == there.sums_b.metrics.moments
    for name in ("results.parquet", "results_a.parquet"):
        assert pl.read_parquet(tmp_path / "c-local" / name).equals(
            pl.read_parquet(tmp_path / "c-dask" / name))


@needs_distributed
@needs_belote
def test_dask_cli_run_dir_file_and_resume(capsys, tmp_path, scheduler):
    ref = simulate(get_game("belote"), 4000, seed=3)
    out = tmp_path / "run"
    argv = ["run", "belote", "-n", "4000", "--seed", "3", "--chunk-size", "1000",
            "--backend", "dask", "--scheduler", scheduler, "--out", f"{out}/", "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert f"backend dask at {scheduler}" in text and "4,000 deals in" in text
    assert load(out).collect().equals(ref)
    m = simlab.engine.runner.read_manifest(out)
    assert m["complete"] and len(m["chunks"]) == 4
    # a damaged part is redone on the cluster; the others are kept
    (out / "part-00002.parquet").write_bytes(b"garbage")
    assert main(argv) == 0
    assert "3 of 4 chunks were already done" in capsys.readouterr().out
    assert load(out, verify=True).collect().equals(ref)
    # the same run locally resumes into the same directory: identical data
    assert main(argv[:8] + ["--out", f"{out}/", "--no-progress"]) == 0
    capsys.readouterr()
    # single-file output through the cluster
    f = tmp_path / "one.parquet"
    assert main(argv[:-3] + ["--out", str(f), "--no-progress"]) == 0
    capsys.readouterr()
    assert pl.read_parquet(f).equals(ref)
    assert simlab.read_provenance(f)["seed"] == 3


@needs_distributed
@needs_belote
def test_dask_local_cluster_without_scheduler():
    ref = simulate(get_game("belote"), 1500, seed=4)
    assert simulate(get_game("belote"), 1500, seed=4, jobs=2, chunk_size=500, backend="dask").equals(ref)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_distributed
def test_unreachable_scheduler_is_one_line_exit_2(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "DASK_CONNECT_TIMEOUT", "1s")
    address = f"tcp://127.0.0.1:{_free_port()}"
    out = tmp_path / "o"
    assert main(["run", "belote", "-n", "100", "--backend", "dask", "--scheduler", address,
                 "--out", f"{out}/", "--no-progress"]) == 2
    assert f"cannot connect to the dask scheduler at '{address}'" in error_line(capsys)
    assert not out.exists()


def test_missing_extras(capsys, tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("distributed", "ray") else real(name, *a))
    out = tmp_path / "o"
    for backend, extra, where in (("dask", "simlab[dask]", ["--scheduler", "tcp://h:8786"]),
                                  ("ray", "simlab[ray]", ["--address", "h:6379"]),
                                  ("ray", "simlab[ray]", [])):
        assert main(["run", "belote", "-n", "100", "--backend", backend, *where,
                     "--out", f"{out}/", "--no-progress"]) == 2
        line = error_line(capsys)
        assert f"backend '{backend}' needs the optional extra {extra}: pip install '{extra}'" \
            in line, line
        with pytest.raises(SimlabError, match=re.escape(f"pip install '{extra}'")):
            simulate(FAKE, 10, backend=backend)
        with pytest.raises(SimlabError, match=re.escape(f"pip install '{extra}'")):
            run_to_parquet(out, FAKE, 10, backend=backend)
    assert main(["bench", "--scaling", "--scheduler", "tcp://h:8786"]) == 2
    assert "simlab[dask]" in error_line(capsys)
    assert not out.exists()


@pytest.mark.skipif(HAS_RAY, reason="ray is installed: the missing-extra path cannot be seen")
def test_ray_not_installed_real(capsys):
    assert main(["run", "belote", "-n", "10", "--backend", "ray", "--no-progress"]) == 2
    assert "pip install 'simlab[ray]'" in error_line(capsys)
