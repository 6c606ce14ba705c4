"""Resumable run directories: parts + manifest, resume after a kill / Ctrl-C / a dead worker /
a full disk, refusal to mix runs, ``simlab.load``; and bad input rejected before any work."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from test_runner import FAKE, fake_run_deals, needs_belote

import simlab
import simlab.engine.runner as runner
import simlab.games
from simlab.cli.commands import main
from simlab.engine.game import Game
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import RunInterrupted, load, read_provenance, run_to_parquet, simulate
from simlab.games import get_game

# they watch the machine's temporary files, processes and signals: run alone (Makefile)
pytestmark = pytest.mark.serial


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(simlab.games._MODULES, "fake", "test_runner")
    return "fake"


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def check_consistent(folder: Path, killed: bool = False) -> dict:
    """Every chunk the manifest lists is a readable part with the recorded rows and sha.
    No temporary file is left, except by a process killed while writing one (``killed``:
    SIGKILL gives no chance to clean up; the resume removes it, ``load`` never reads it)."""
    m = manifest(folder)
    assert m["format"] == "simlab-run/1"
    assert m["rows_done"] == sum(e["rows"] for e in m["chunks"])
    assert [e["index"] for e in m["chunks"]] == sorted({e["index"] for e in m["chunks"]})
    for e in m["chunks"]:
        f = folder / e["file"]
        assert hashlib.sha256(f.read_bytes()).hexdigest() == e["sha256"]
        assert f.stat().st_size == e["bytes"]
        assert pl.read_parquet(f).height == e["rows"] == e["count"]
    assert killed or not list(folder.glob("*.tmp"))
    return m


def listing(folder: Path) -> dict[str, float]:
    return {p.name: p.stat().st_mtime_ns for p in sorted(folder.iterdir())}


# --- directory output ----------------------------------------------------------------------
def test_dir_run_parts_manifest_and_load(tmp_path):
    out = tmp_path / "run"
    got = run_to_parquet(f"{out}/", FAKE, 100, seed=9, params={"bonus": 2}, chunk_size=30,
                         progress=False)
    assert got == out
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == ["manifest.json"] + [f"part-{i:05d}.parquet" for i in range(4)]
    m = check_consistent(out)
    assert m["complete"] and m["n_chunks"] == 4 and m["rows_done"] == 100
    assert [(e["start"], e["count"]) for e in m["chunks"]] == [(0, 30), (30, 30), (60, 30), (90, 10)]
    prov = m["provenance"]
    assert prov["game"] == "fake" and prov["seed"] == 9 and prov["n"] == 100
    assert prov["knobs"] == {"bonus": 2, "mode": "plain", "bold": False}
    assert prov["chunk_size"] == 30 and prov["simlab_version"] == simlab.__version__
    assert read_provenance(out) == prov
    ref = simulate(FAKE, 100, seed=9, params={"bonus": 2})
    lf = simlab.load(out)
    assert isinstance(lf, pl.LazyFrame) and lf.collect().equals(ref)
    assert load(out, verify=True).collect().equals(ref)
    # the single-file mode is unchanged, and load reads it too
    f = run_to_parquet(tmp_path / "one.parquet", FAKE, 100, seed=9, params={"bonus": 2},
                       chunk_size=30)
    assert f.is_file() and load(f).collect().equals(ref)
    # no .parquet suffix = a directory; match level
    d = run_to_parquet(tmp_path / "matches", FAKE, 25, level="match", chunk_size=6)
    assert d.is_dir() and load(d).collect().equals(simulate(FAKE, 25, level="match"))


def test_resume_redoes_missing_and_corrupt_parts_only(tmp_path):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 70, seed=1, chunk_size=10, record_hands=True)
    ref = load(out).collect()
    assert ref.equals(simulate(FAKE, 70, seed=1, record_hands=True))
    (out / "part-00002.parquet").unlink()
    bad = out / "part-00005.parquet"
    data = bytearray(bad.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    (out / "part-00001.parquet.123-abc.tmp").write_bytes(b"half a part")  # a killed writer
    before = listing(out)
    calls = []

    def counting(knobs, policies, seed, start, count, record_hands=False):
        calls.append(start)
        return fake_run_deals(knobs, policies, seed, start, count, record_hands)

    game = Game(**{**FAKE.__dict__, "run_deals": counting})
    # chunk size not given: the run adopts the directory's (10), so it resumes
    run_to_parquet(out, game, 70, seed=1, record_hands=True, progress=False)
    assert sorted(calls) == [20, 50]
    after = listing(out)
    for name in ("part-00000.parquet", "part-00003.parquet", "part-00006.parquet"):
        assert after[name] == before[name]  # finished parts are not rewritten
    check_consistent(out)
    assert load(out, verify=True).collect().equals(ref)


def test_parts_the_manifest_does_not_list_yet_are_adopted(tmp_path):
    """The manifest lags the parts by up to MANIFEST_EVERY seconds: a resume adopts a part
    it does not list when the part's own metadata names this run and chunk, and redoes a
    listed part that is damaged or a part of another run."""
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 70, seed=1, chunk_size=10)
    ref = load(out).collect()
    m = manifest(out)
    m["chunks"] = m["chunks"][:2]  # as if killed 5 chunks after the last manifest write
    m["complete"] = False
    (out / "manifest.json").write_text(json.dumps(m))
    other = tmp_path / "other"
    run_to_parquet(other, FAKE, 70, seed=2, chunk_size=10)
    os.replace(other / "part-00004.parquet", out / "part-00004.parquet")  # another run's
    bad = out / "part-00001.parquet"  # listed, then damaged: never adopted
    data = bytearray(bad.read_bytes())
    data[5] ^= 0xFF
    bad.write_bytes(bytes(data))
    calls = []

    def counting(knobs, policies, seed, start, count, record_hands=False):
        calls.append(start)
        return fake_run_deals(knobs, policies, seed, start, count, record_hands)

    run_to_parquet(out, Game(**{**FAKE.__dict__, "run_deals": counting}), 70, seed=1,
                   chunk_size=10)
    assert sorted(calls) == [10, 40]
    check_consistent(out)
    assert load(out, verify=True).collect().equals(ref)


@pytest.mark.parametrize("edit, words", [
    (lambda c: c[:3] + c[4:], "says complete but lists 6 of 7 chunks"),  # an entry removed
    (lambda c: c + [c[2]], "repeated or out-of-range"),  # an entry duplicated
    (lambda c: c[:3] + [c[2]] + c[4:], "repeated or out-of-range"),  # one chunk listed twice
    (lambda c: [dict(c[0], rows=c[0]["rows"] + 1), *c[1:]], "does not match its part"),
])
def test_edited_manifest_is_never_read_and_the_resume_repairs_it(tmp_path, edit, words):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 70, seed=1, chunk_size=10, progress=False)
    ref = load(out).collect()
    m = manifest(out)
    (out / "manifest.json").write_text(json.dumps(dict(m, chunks=edit(list(m["chunks"])))))
    for verify in (False, True):
        with pytest.raises(SimlabError, match=words):
            load(out, verify=verify)
    run_to_parquet(out, FAKE, 70, seed=1, chunk_size=10, progress=False)
    check_consistent(out)
    assert load(out, verify=True).collect().equals(ref)


def test_part_with_other_rows_than_listed_is_refused(tmp_path):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 40, seed=1, chunk_size=10, progress=False)
    part = out / "part-00001.parquet"
    other = tmp_path / "other.parquet"
    run_to_parquet(other, FAKE, 9, seed=1, progress=False)  # same size class, other row count
    m = manifest(out)
    part.write_bytes(other.read_bytes())
    m["chunks"][1]["bytes"] = part.stat().st_size  # even with the size patched to match
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(SimlabError, match="part-00001.parquet.*missing or damaged"):
        load(out)


@pytest.mark.parametrize("damage", ["truncated", "empty", "deleted"])
def test_lost_manifest_is_rebuilt_from_the_parts(tmp_path, capsys, damage):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 70, seed=1, chunk_size=10, progress=False)
    ref = load(out).collect()
    kept = {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")}
    mf = out / "manifest.json"
    if damage == "truncated":
        mf.write_text(mf.read_text()[:100])
    elif damage == "empty":
        mf.write_text("")
    else:
        mf.unlink()
    (out / "part-00003.parquet").unlink()
    with pytest.raises(SimlabError):
        load(out)  # never read without a valid manifest
    calls = []

    def counting(knobs, policies, seed, start, count, record_hands=False):
        calls.append(start)
        return fake_run_deals(knobs, policies, seed, start, count, record_hands)

    run_to_parquet(out, Game(**{**FAKE.__dict__, "run_deals": counting}), 70, seed=1,
                   chunk_size=10, progress=False)
    assert calls == [30]  # only the missing chunk was redone
    assert "rebuilt it from 6 intact parts" in capsys.readouterr().err
    after = {p.name: p.stat().st_mtime_ns for p in out.glob("part-*.parquet")}
    assert all(after[name] == t for name, t in kept.items() if name != "part-00003.parquet")
    check_consistent(out)
    assert load(out, verify=True).collect().equals(ref)


def test_repair_command_and_parts_of_another_run(tmp_path, capsys, fake):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 40, seed=1, chunk_size=10, progress=False)
    ref = load(out).collect()
    other = tmp_path / "other"
    run_to_parquet(other, FAKE, 40, seed=2, chunk_size=10, progress=False)
    (out / "part-00002.parquet").write_bytes((other / "part-00002.parquet").read_bytes())
    (out / "manifest.json").write_text("{")
    assert main(["repair", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    assert "from 3 of 4 chunks" in line and "incomplete" in line, line
    # not ours: set aside, never deleted (nor overwritten by the resume)
    assert (out / "set-aside" / "part-00002.parquet").read_bytes() == \
        (other / "part-00002.parquet").read_bytes()
    assert main(["run", "fake", "-n", "40", "--seed", "1", "--chunk-size", "10", "--out", f"{out}/",
                 "--no-progress"]) == 0
    assert load(out, verify=True).collect().equals(ref)
    assert main(["repair", str(tmp_path / "nope")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_incomplete_run_load_and_status(tmp_path):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 50, chunk_size=10)
    m = manifest(out)
    m["chunks"] = [e for e in m["chunks"] if e["index"] != 1]
    m["complete"] = False
    m["rows_done"] = 40
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(SimlabError, match=r"incomplete: 4 of 5 chunks done.*allow_partial=True"):
        load(out)
    part = load(out, allow_partial=True).collect()
    assert part["deal"].to_list() == list(range(10)) + list(range(20, 50))
    assert runner.run_status(out) == {"complete": False, "chunks_done": 4, "n_chunks": 5,
                                      "rows_done": 40, "n": 50}
    (out / "part-00003.parquet").unlink()
    with pytest.raises(SimlabError, match="part-00003.parquet.*missing or damaged"):
        load(out, allow_partial=True)
    run_to_parquet(out, FAKE, 50, chunk_size=10)
    assert load(out).collect().equals(simulate(FAKE, 50))
    with pytest.raises(SimlabError, match="no such run"):
        load(tmp_path / "nothing")
    (tmp_path / "junk.parquet").write_text("not parquet")
    with pytest.raises(SimlabError, match="not a readable Parquet file"):
        load(tmp_path / "junk.parquet")
    (tmp_path / "empty").mkdir()
    with pytest.raises(SimlabError, match="not a simlab run directory"):
        load(tmp_path / "empty")


@pytest.mark.parametrize("kwargs, words", [
    ({"seed": 2}, "--seed is 1 there, 2 here"),
    ({"n": 60}, "-n is 50 there, 60 here"),
    ({"chunk_size": 7}, "--chunk-size is 10 there, 7 here"),
    ({"params": {"bonus": 3}}, "knob bonus is 0 there, 3 here"),
    ({"policies": "random"}, "--policy is heuristic,heuristic,heuristic,heuristic there, "
                             "random,random,random,random here"),
    ({"level": "match"}, "--level is deal there, match here"),
    ({"record_hands": True}, "--record-hands is false there, true here"),
])
def test_other_run_refused_nothing_written(tmp_path, kwargs, words):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 50, seed=1, chunk_size=10)
    before = listing(out)
    args = {"seed": 1, "chunk_size": 10, "n": 50, **kwargs}
    n = args.pop("n")
    with pytest.raises(SimlabError) as e:
        run_to_parquet(out, FAKE, n, **args)
    msg = str(e.value)
    assert words in msg and "holds another run" in msg and "\n" not in msg
    assert listing(out) == before


def test_interrupted_by_full_disk_then_resumed(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real = runner._write_durable
    written = []

    def disk_fills(path, data):
        if path.name.startswith("part-"):
            written.append(path)
            if len(written) > 3:
                raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(runner, "_write_durable", disk_fills)
    with pytest.raises(RunInterrupted, match=r"stopped after 3 of 8 chunks \(OSError.*No space"):
        run_to_parquet(out, FAKE, 80, seed=4, chunk_size=10)
    m = check_consistent(out)
    assert not m["complete"] and len(m["chunks"]) == 3
    monkeypatch.setattr(runner, "_write_durable", real)
    run_to_parquet(out, FAKE, 80, seed=4, chunk_size=10)
    assert check_consistent(out)["complete"]
    assert load(out).collect().equals(simulate(FAKE, 80, seed=4))


def test_single_file_run_keeps_its_chunks_when_interrupted(tmp_path, monkeypatch):
    out = tmp_path / "rows.parquet"
    real = runner._write_durable
    written = []

    def disk_fills(path, data):
        if path.name.startswith("part-"):
            written.append(path)
            if len(written) > 3:
                raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(runner, "_write_durable", disk_fills)
    with pytest.raises(RunInterrupted, match=r"stopped after 3 of 8 chunks.*kept in .*rows.parquet.parts"):
        run_to_parquet(out, FAKE, 80, seed=4, chunk_size=10)
    assert not out.exists()
    assert len(check_consistent(tmp_path / "rows.parquet.parts")["chunks"]) == 3
    monkeypatch.setattr(runner, "_write_durable", real)
    calls = []

    def counting(knobs, policies, seed, start, count, record_hands=False):
        calls.append(start)
        return fake_run_deals(knobs, policies, seed, start, count, record_hands)

    run_to_parquet(out, Game(**{**FAKE.__dict__, "run_deals": counting}), 80, seed=4, chunk_size=10)
    assert sorted(calls) == [30, 40, 50, 60, 70]  # the 3 finished chunks were kept
    assert not (tmp_path / "rows.parquet.parts").exists()
    assert pl.read_parquet(out).equals(simulate(FAKE, 80, seed=4))
    assert read_provenance(out)["n"] == 80


def test_unwritable_output_is_one_line(tmp_path, monkeypatch, capsys, fake):
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if str(path) == str(tmp_path) else real(path, mode))
    for out in (str(tmp_path / "f.parquet"), f"{tmp_path}/d/"):
        assert main(["run", "fake", "-n", "10", "--out", out, "--no-progress"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("simlab: error: cannot write") and "not writable" in err and "\n" not in err
    assert list(tmp_path.iterdir()) == []


def dies_in_worker(knobs, policies, seed, start, count, record_hands=False):
    warm = Path(os.environ["SIMLAB_TEST_WARM"])
    if os.environ.get("SIMLAB_TEST_PARENT") == str(os.getpid()):
        # this process's chunks after the first wait for the worker's warm-up (however
        # long a loaded machine makes it), then go slowly: the worker gets chunks too
        deadline = time.monotonic() + 300
        while start > 0 and not warm.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.5)
    elif start > 1:
        os._exit(1)  # a worker process killed mid-chunk
    else:
        warm.touch()  # the worker's warm-up (a chunk of deal 0)
    return fake_run_deals(knobs, policies, seed, start, count, record_hands)


def test_killed_worker_keeps_finished_chunks(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMLAB_TEST_PARENT", str(os.getpid()))
    monkeypatch.setenv("SIMLAB_TEST_WARM", str(tmp_path / "warm"))
    from simlab.engine import pool

    pool.shutdown()  # a fresh worker: it has this environment and warms up first
    out = tmp_path / "run"
    game = Game(**{**FAKE.__dict__, "run_deals": dies_in_worker})
    # the worker dies on its first chunk; this process runs the first chunk (and maybe more)
    with pytest.raises(RunInterrupted, match="a worker process died.*finished chunks are kept"):
        run_to_parquet(out, game, 100, seed=2, chunk_size=10, jobs=2, progress=False)
    m = check_consistent(out)
    assert not m["complete"] and 1 <= len(m["chunks"]) < 10 and m["chunks"][0]["start"] == 0
    run_to_parquet(out, FAKE, 100, seed=2, chunk_size=10, jobs=2, progress=False)
    assert load(out).collect().equals(simulate(FAKE, 100, seed=2))


def test_second_writer_is_refused(tmp_path):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 20, chunk_size=10)
    with runner._locked(out), pytest.raises(SimlabError, match="another simlab run is writing"):
        run_to_parquet(out, FAKE, 20, chunk_size=10)


# --- the CLI ---------------------------------------------------------------------------------
def test_cli_dir_run_resume_and_refusal(capsys, tmp_path, fake):
    out = f"{tmp_path / 'r'}/"
    argv = ["run", "fake", "-n", "90", "--seed", "3", "--chunk-size", "20", "--out", out,
            "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "90 deals in" in text and f"wrote {out}" in text and "simlab.load" in text
    ref = simulate(FAKE, 90, seed=3)
    assert load(out).collect().equals(ref)
    (tmp_path / "r" / "part-00001.parquet").unlink()
    assert main(argv) == 0
    assert "resumed" in capsys.readouterr().out
    assert load(out).collect().equals(ref)
    before = listing(tmp_path / "r")
    assert main(argv[:5] + ["4"] + argv[6:]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--seed is 3 there, 4 here" in err
    assert listing(tmp_path / "r") == before


@pytest.mark.parametrize("setup, words", [
    ("file", "is a file; give a directory"),
    ("stranger", "is not empty and holds no simlab run (found 'notes.txt')"),
    ("other_run", "holds another run: -n is 30 there, 40 here"),
    ("parent_file", "is a file"),
    ("bad_manifest", "holds no simlab run (found 'manifest.json')"),  # and no part to rebuild from
])
def test_cli_bad_output_paths(capsys, tmp_path, fake, setup, words):
    target = tmp_path / "out"
    if setup == "file":
        target.write_text("x")
        out = f"{target}/"
    elif setup == "stranger":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
        out = str(target)
    elif setup == "other_run":
        run_to_parquet(target, FAKE, 30)
        out = str(target)
    elif setup == "parent_file":
        target.write_text("x")
        out = str(target / "deeper" / "run.parquet")
    else:
        target.mkdir()
        (target / "manifest.json").write_text("{not json")
        out = str(target)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    assert main(["run", "fake", "-n", "40", "--out", out, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simlab: error: ") and "\n" not in err and words in err, err
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


# --- bad input anywhere, before any work -----------------------------------------------------
def _variant(tmp_path: Path, text: str) -> str:
    v = tmp_path / "v.toml"
    v.write_text(text)
    return str(v)


@pytest.mark.parametrize("extra, words", [
    (["--set", "target=0"], "knob 'target'=0 is out of range; allowed: int from 1"),
    (["--set", "queen_points=-1"], "out of range"),
    (["--set", "litige=maybe"], "allowed: carry_over, lost"),
    (["--set", "queen_points=3.5"], "expects int"),
    (["--variant", "TOML:queen_points = \"five\"\n"], "knob 'queen_points' expects int"),
    (["--variant", "TOML:queen_points = 3.5\n"], "expects int, got 3.5"),
    (["--variant", "TOML:queen_ponts = 5\n"],
     "unknown knob 'queen_ponts' for belote (did you mean 'queen_points'?); valid knobs:"),
    (["--variant", "TOML:[rules]\nqueen_points = 5\n"], "table [rules] not allowed"),
    (["--variant", "TOML:queen_points = [1, 2]\n"], "expects int"),
    (["--variant", "TOML:game = \"manille\"\n"], "is for game 'manille', not 'belote'"),
    (["--variant", "TOML:queen_points = \n"], "not valid TOML"),
    (["--policy", "heuristic,random"], "1 or 4"),
    (["--backend", "spark"], "invalid choice: 'spark'"),
    (["--scheduler", "tcp://127.0.0.1:1"], "needs --backend dask, not loky"),
    (["--backend", "ray", "--scheduler", "tcp://127.0.0.1:1"], "ray takes --address"),
    (["--backend", "dask", "--address", "x:1"], "dask takes --scheduler"),
    (["--chunk-size", "-5"], "chunk size"),
    (["--jobs", "many"], "expected an integer >= 1"),
    (["-n", "-5"], "-n must be >= 1, got -5"),
    (["-n", "1.5"], "expected an integer"),
    (["--seed", "1e30"], "seed must be an integer from 0 to 2**63-1"),
])
@needs_belote
def test_cli_bad_input_belote(capsys, tmp_path, extra, words):
    extra = [_variant(tmp_path, a[5:]) if a.startswith("TOML:") else a for a in extra]
    out = tmp_path / "o"
    argv = ["run", "belote", "-n", "10", "--out", f"{out}/", "--no-progress", *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simlab: error: ") and "\n" not in err and words in err, err
    assert not out.exists()


@pytest.mark.parametrize("argv, words", [
    (["bench", "-n", "0"], "-n must be >= 1"),
    (["bench", "--jobs-list", "1,0"], "--jobs-list"),
    (["bench", "--scaling", "--games", "nope"], "valid games"),
    (["bench", "--scheduler", "tcp://x:1"], "--scheduler needs --scaling"),
    (["bench", "--repeat", "3"], "--repeat needs --scaling"),
    (["bench", "--scaling", "--repeat", "21"], "--repeat must be between 1 and 20"),
    (["bench", "--scaling", "--repeat", "0"], "expected an integer >= 1"),
    (["demo", "-n", "-1"], "-n must be >= 1"),
])
def test_cli_bad_input_other_commands(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simlab: error: ") and "\n" not in err and words in err, err


@pytest.mark.parametrize("kwargs, words", [
    ({"backend": "spark"}, "valid backends: loky, dask, ray"),
    ({"scheduler": "tcp://h:1"}, "needs backend dask"),
    ({"backend": "dask", "scheduler": ""}, "scheduler must be an address"),
    ({"n": -3}, "integer >= 1"),
    ({"n": "10"}, "integer >= 1"),
    ({"params": {"bonus": -1}}, "allowed: int from 0 to 10"),
    ({"params": {"bold": "maybe"}}, "expects bool"),
])
def test_api_bad_input(tmp_path, kwargs, words):
    args = {"n": 10, **kwargs}
    n = args.pop("n")
    for fn in (lambda: simulate(FAKE, n, **args),
               lambda: run_to_parquet(tmp_path / "d" / "run", FAKE, n, **args)):
        with pytest.raises(SimlabError) as e:
            fn()
        assert words in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "d").exists()


# --- a real kill -----------------------------------------------------------------------------
def _start(argv: list[str], log: Path) -> subprocess.Popen:
    # output to a file, not a pipe: worker processes hold inherited descriptors open
    with open(log, "w") as f:
        return subprocess.Popen([sys.executable, "-m", "simlab", *argv], stdout=f, stderr=f)


def _wait_for_done_chunk(proc: subprocess.Popen, folder: Path, timeout: float = 300) -> None:
    # a few seconds on an idle machine; the margin is for a loaded one (the suite shares it)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if manifest(folder)["chunks"]:
                return
        except (FileNotFoundError, json.JSONDecodeError):  # not written yet (never torn)
            pass
        assert proc.poll() is None, "the run ended before a chunk was recorded"
        time.sleep(0.01)
    raise AssertionError("no chunk finished in time")


@needs_belote
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_run_resumes_to_the_same_data(tmp_path, sig):
    out = tmp_path / "run"
    # 80 chunks, about 2 s of work: the manifest first lists chunks after 1 s
    argv = ["run", "belote", "-n", "2000000", "--seed", "5", "--chunk-size", "25000", "--jobs",
            "2", "--out", f"{out}/", "--no-progress"]
    log = tmp_path / "log.txt"
    proc = _start(argv, log)
    _wait_for_done_chunk(proc, out)
    proc.send_signal(sig)
    proc.wait(timeout=300)
    err = log.read_text()
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 130 and "run the same command again to resume" in err, err
    time.sleep(0.2)  # let orphaned workers notice their parent is gone
    # every listed part whole and readable, the manifest valid
    m = check_consistent(out, killed=sig == signal.SIGKILL)
    assert 1 <= len(m["chunks"]) < 80 and not m["complete"], len(m["chunks"])
    with pytest.raises(SimlabError, match="incomplete"):
        load(out)
    assert load(out, allow_partial=True).collect().height == m["rows_done"]
    r = subprocess.run([sys.executable, "-m", "simlab", *argv], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    # the manifest is written at most once a second: parts finished after its last write
    # are adopted from their own metadata, so the resume keeps at least what it lists
    kept = int(re.search(r"resumed .*: (\d+) of 80 chunks were already done", r.stdout)[1])
    assert len(m["chunks"]) <= kept < 80
    final = check_consistent(out)
    assert final["complete"] and final["rows_done"] == 2_000_000
    assert load(out).collect().equals(simulate(get_game("belote"), 2_000_000, seed=5, chunk_size=250_000))


def test_report_outputs_are_checked_before_the_work(tmp_path, monkeypatch, capsys, fake):
    """report / compare / sweep --out on a read-only folder, a file, or under a file: one
    line, exit 2, before anything is simulated; a write failure part-way is one line too."""
    calls = []
    real = os.access
    a_file = tmp_path / "f.txt"
    a_file.write_text("x")
    with monkeypatch.context() as m:
        m.setattr(runner, "run_chunk", lambda *a, **k: calls.append(a))
        m.setattr(os, "access", lambda path, mode: False if str(path) == str(tmp_path)
                  else real(path, mode))
        for out, words in ((tmp_path / "rep", "not writable"), (a_file, "is a file"),
                           (a_file / "rep", "is a file")):
            for argv in (["report", "fake", "-n", "10"],
                         ["compare", "fake", "-n", "10", "--b", "bonus=1"],
                         ["sweep", "fake", "-n", "10", "--grid", "bonus=0,1"]):
                assert main([*argv, "--out", str(out), "--no-progress"]) == 2, argv
                err = capsys.readouterr().err.strip()
                assert err.startswith("simlab: error: ") and words in err and "\n" not in err, err
    assert calls == []
    from simlab.analysis import report

    def full(*a, **k):
        raise OSError(28, "No space left on device", str(tmp_path / "rep" / "report.md"))

    monkeypatch.setattr(report, "_write_report", full)
    assert main(["report", "fake", "-n", "10", "--out", str(tmp_path / "rep"),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot write the report" in err and "No space left on device" in err and "\n" not in err
