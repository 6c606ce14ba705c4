"""A run directory's parts are never read wrong: every ``load`` checks each part's bytes
against the manifest, ``repair`` and a resume's manifest rebuild accept only parts whose
own seal and metadata prove them intact and of the run (the rest are set aside, never
deleted), and storage failures (``manifest.json`` a directory, a full disk during a
merge) are one line (issue 34)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from test_runner import FAKE, fake_run_deals

import simlab.games
import simlab.runner as runner
from simlab.cli import main
from simlab.games.base import Game
from simlab.knobs import SimlabError
from simlab.runner import load, run_to_parquet, simulate

FUZZ_SCALE = int(os.environ.get("SIMLAB_FUZZ_SCALE", "1"))
RUN = ["run", "fake", "-n", "40", "--seed", "1", "--chunk-size", "10", "--no-progress"]


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(simlab.games._MODULES, "fake", "test_runner")
    return "fake"


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def flip(path: Path, bit: int) -> None:
    data = bytearray(path.read_bytes())
    data[bit // 8] ^= 1 << (bit % 8)
    path.write_bytes(bytes(data))


def counting_game(calls: list[int]) -> Game:
    def counting(knobs, policies, seed, start, count, record_hands=False):
        calls.append(start)
        return fake_run_deals(knobs, policies, seed, start, count, record_hands)

    return Game(**{**FAKE.__dict__, "run_deals": counting})


def one_line(e: BaseException) -> str:
    text = str(e)
    assert "\n" not in text, text
    return text


# --- every load checks every byte ---------------------------------------------------------
@pytest.mark.parametrize("legacy", [False, True])
def test_a_flipped_bit_in_a_part_is_refused_by_default(tmp_path, legacy):
    """Random single-bit flips anywhere in a part (data pages, footer, metadata, the seal):
    ``load(DIR)`` refuses each in one line naming the part, and never returns other rows;
    the part's own seal also sees each one. ``legacy``: a manifest written before parts had
    a sum (sha256 only) is checked with its sha256."""
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 60, seed=3, chunk_size=20, record_hands=True, progress=False)
    ref = load(out).collect()
    if legacy:
        m = manifest(out)
        for e in m["chunks"]:
            del e["sum64"]
        (out / "manifest.json").write_text(json.dumps(m))
        assert load(out).collect().equals(ref)
    part = out / "part-00001.parquet"
    whole = part.read_bytes()
    rng = np.random.default_rng(34)
    flips = (100 if not legacy else 30) * FUZZ_SCALE
    for bit in rng.integers(0, len(whole) * 8, size=flips):
        flip(part, int(bit))
        with pytest.raises(SimlabError) as e:
            load(out).collect()  # never other rows: refused before polars reads a page
        assert "part-00001.parquet" in one_line(e.value) and "damaged" in str(e.value)
        assert runner._inspect_part(part, None)[0] == "damaged", int(bit)
        part.write_bytes(whole)
    assert load(out, verify=True).collect().equals(ref)


def test_the_sum_sees_any_change_within_a_word():
    """The load-time check is a sum of 64-bit words modulo 2**64: changing one word (a
    flipped bit, or several in one word) always changes it; the tail counts too."""
    data = bytes(np.random.default_rng(1).integers(0, 256, size=803, dtype=np.uint8))
    base = runner._sum64(data)
    for bit in range(0, len(data) * 8, 7):
        changed = bytearray(data)
        changed[bit // 8] ^= 1 << (bit % 8)
        assert runner._sum64(bytes(changed)) != base, bit
    assert runner._sum64(data + b"\0") == base  # zero padding is the only blind spot: the
    # size is checked separately


def test_a_part_swapped_for_another_runs_is_refused(tmp_path):
    out, other = tmp_path / "run", tmp_path / "other"
    run_to_parquet(out, FAKE, 40, seed=1, chunk_size=10, progress=False)
    run_to_parquet(other, FAKE, 40, seed=2, chunk_size=10, progress=False)
    shutil.copy(other / "part-00002.parquet", out / "part-00002.parquet")
    m = manifest(out)
    m["chunks"][2]["bytes"] = (out / "part-00002.parquet").stat().st_size
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(SimlabError, match="part-00002.parquet.*missing or damaged"):
        load(out)


# --- repair and the resume's rebuild never bless damage -----------------------------------
def test_repair_sets_a_damaged_part_aside_and_the_resume_redoes_it(tmp_path, capsys, fake):
    out = tmp_path / "run"
    assert main([*RUN, "--out", f"{out}/"]) == 0
    ref = load(out).collect()
    part = out / "part-00001.parquet"
    flip(part, 8 * 200 + 3)  # in a data page
    damaged = part.read_bytes()
    capsys.readouterr()
    assert main(["repair", str(out)]) == 0
    line = capsys.readouterr().out.strip()
    assert "from 3 of 4 chunks" in line and "set aside 1 damaged part(s)" in line, line
    m = manifest(out)
    assert [e["index"] for e in m["chunks"]] == [0, 2, 3]  # not listed with a new sha256
    assert (out / "set-aside" / "part-00001.parquet").read_bytes() == damaged  # kept
    with pytest.raises(SimlabError, match="incomplete"):
        load(out, verify=True)
    assert main([*RUN, "--out", f"{out}/"]) == 0
    assert load(out, verify=True).collect().equals(ref)
    assert ref.equals(simulate(FAKE, 40, seed=1))


def test_a_foreign_part_at_index_0_does_not_set_the_runs_identity(tmp_path, capsys, fake):
    out, other = tmp_path / "run", tmp_path / "other"
    run_to_parquet(out, FAKE, 40, seed=1, chunk_size=10, progress=False)
    ref = load(out).collect()
    run_to_parquet(other, FAKE, 40, seed=2, chunk_size=10, progress=False)
    shutil.copy(other / "part-00000.parquet", out / "part-00000.parquet")
    (out / "manifest.json").unlink()
    assert main(["repair", str(out)]) == 0  # the majority (seed 1, 3 parts) decides
    line = capsys.readouterr().out.strip()
    assert "from 3 of 4 chunks" in line and "seed 1" in line and "1 foreign" in line, line
    assert manifest(out)["provenance"]["seed"] == 1
    assert (out / "set-aside" / "part-00000.parquet").read_bytes() == \
        (other / "part-00000.parquet").read_bytes()
    assert main([*RUN, "--out", f"{out}/"]) == 0
    assert load(out, verify=True).collect().equals(ref)


def test_as_many_parts_of_two_runs_the_command_line_decides(tmp_path, capsys, fake):
    out, other = tmp_path / "run", tmp_path / "other"
    run_to_parquet(out, FAKE, 40, seed=1, chunk_size=10, progress=False)
    ref = load(out).collect()
    run_to_parquet(other, FAKE, 40, seed=2, chunk_size=10, progress=False)
    for name in ("part-00000.parquet", "part-00001.parquet"):
        shutil.copy(other / name, out / name)
    (out / "manifest.json").write_text("{")
    before = sorted(p.name for p in out.iterdir())
    assert main(["repair", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "as many intact parts of one run as of another" in err and "\n" not in err, err
    assert sorted(p.name for p in out.iterdir()) == before  # nothing moved
    calls: list[int] = []
    # the resume's command line says which run it is; the chunk size is adopted from
    # the parts (not given here)
    run_to_parquet(out, counting_game(calls), 40, seed=1, progress=False)
    assert sorted(calls) == [0, 10]
    err = capsys.readouterr().err
    assert "rebuilt it from 2 intact parts; set aside 2 foreign part(s)" in err, err
    assert load(out, verify=True).collect().equals(ref)


def test_the_resume_rebuild_sets_aside_damaged_foreign_and_misplaced_parts(tmp_path, capsys):
    out, other = tmp_path / "run", tmp_path / "other"
    run_to_parquet(out, FAKE, 60, seed=1, chunk_size=10, progress=False)
    ref = load(out).collect()
    run_to_parquet(other, FAKE, 60, seed=1, chunk_size=10, params={"bonus": 3}, progress=False)
    flip(out / "part-00001.parquet", 8 * 40)
    shutil.copy(other / "part-00002.parquet", out / "part-00002.parquet")  # other knobs
    shutil.copy(out / "part-00004.parquet", out / "part-00003.parquet")  # misplaced
    unsealed = pl.read_parquet(out / "part-00005.parquet")  # as written before parts had seals
    meta = pl.read_parquet_metadata(out / "part-00005.parquet")
    del meta[runner.SEAL_KEY], meta["ARROW:schema"]
    unsealed.write_parquet(out / "part-00005.parquet", metadata=meta)
    (out / "manifest.json").unlink()
    calls: list[int] = []
    run_to_parquet(out, counting_game(calls), 60, seed=1, chunk_size=10, progress=False)
    assert sorted(calls) == [10, 20, 30, 50]
    err = capsys.readouterr().err
    assert "rebuilt it from 2 intact parts; set aside 2 damaged and 2 foreign part(s)" in err, err
    assert sorted(p.name for p in (out / "set-aside").iterdir()) == \
        [f"part-0000{i}.parquet" for i in (1, 2, 3, 5)]
    assert load(out, verify=True).collect().equals(ref)


def test_a_resume_sets_aside_a_listed_part_found_damaged(tmp_path, capsys):
    out = tmp_path / "run"
    run_to_parquet(out, FAKE, 40, seed=1, chunk_size=10, progress=False)
    ref = load(out).collect()
    flip(out / "part-00002.parquet", 8 * 100)
    damaged = (out / "part-00002.parquet").read_bytes()
    calls: list[int] = []
    run_to_parquet(out, counting_game(calls), 40, seed=1, chunk_size=10, progress=False)
    assert calls == [20]
    assert "set aside 1 damaged or foreign part(s)" in capsys.readouterr().err
    assert (out / "set-aside" / "part-00002.parquet").read_bytes() == damaged
    assert load(out, verify=True).collect().equals(ref)


# --- storage failures are one line ---------------------------------------------------------
def test_manifest_json_a_directory_is_one_line(tmp_path, capsys, fake):
    out = tmp_path / "run"
    assert main([*RUN, "--out", f"{out}/"]) == 0
    (out / "manifest.json").unlink()
    (out / "manifest.json").mkdir()
    for argv in (["repair", str(out)], [*RUN, "--out", f"{out}/"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert err.startswith("simlab: error: ") and "is a directory" in err and "\n" not in err, err
    with pytest.raises(SimlabError) as e:
        load(out)
    one_line(e.value)
    empty = tmp_path / "empty"
    (empty / "manifest.json").mkdir(parents=True)
    assert main([*RUN, "--out", f"{empty}/"]) == 2
    assert "is a directory" in capsys.readouterr().err


REAL_SINK = pl.LazyFrame.sink_parquet


def _full_disk(frame, path, *args, **kwargs):
    """``sink_parquet`` as polars behaves on a full disk: writing a file fails with a
    ComputeError (writing into memory, as a part's bytes are made, still works)."""
    if isinstance(path, (str, os.PathLike)):
        raise pl.exceptions.ComputeError("failed to write parquet: No space left on device "
                                         "(os error 28)")
    return REAL_SINK(frame, path, *args, **kwargs)


def test_a_merge_on_a_full_disk_is_one_line_and_keeps_the_parts(tmp_path, monkeypatch):
    parts = tmp_path / "parts"
    parts.mkdir()
    p = runner.plan(FAKE, 30, chunk_size=10)
    frame = simulate(FAKE, 30)
    for i in range(3):
        frame.slice(10 * i, 10).write_parquet(parts / f"part-{i:05d}.parquet")
    out = tmp_path / "results.parquet"
    for error in (_full_disk, OSError(28, "No space left on device")):
        def fail(frame, path, *a, error=error, **k):
            if isinstance(error, BaseException):
                raise error
            error(frame, path)

        monkeypatch.setattr(pl.LazyFrame, "sink_parquet", fail)
        with pytest.raises(runner.MergeFailed) as e:
            runner.merge_part_files(runner.part_files(parts), out, p)
        assert "No space left on device" in one_line(e.value) and "3 finished parts" in str(e.value)
        assert not out.exists() and len(list(parts.iterdir())) == 3  # nothing else left


def test_report_on_a_full_disk_is_one_line(tmp_path, monkeypatch, capsys, fake):
    monkeypatch.setattr(pl.LazyFrame, "sink_parquet", _full_disk)
    out = tmp_path / "rep"
    assert main(["report", "fake", "-n", "40", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("simlab: error: cannot write") and "No space left" in err, err
    assert "\n" not in err
    kept = [p for p in out.glob(".parts-*/part-*.parquet")]
    assert kept and f"{out}/.parts-" in err  # the finished parts stay, and the line says where
