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

import simlab.engine.runner as runner
import simlab.games
from simlab.cli.commands import main
from simlab.engine.game import Game
from simlab.engine.knobs import SimlabError
from simlab.engine.runner import load, run_to_parquet, simulate

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


# --- a single-file --out checks itself on every read too -----------------------------------
def single_file(tmp_path: Path) -> tuple[Path, pl.DataFrame]:
    out = tmp_path / "run.parquet"
    run_to_parquet(out, FAKE, 60, seed=3, chunk_size=20, record_hands=True, progress=False)
    ref = load(out, verify=True).collect()
    assert ref.equals(simulate(FAKE, 60, seed=3, record_hands=True))
    assert not Path(f"{out}.parts").exists()
    return out, ref


def test_a_flipped_bit_in_a_single_file_is_refused(tmp_path):
    """Random single-bit flips anywhere in a merged ``--out FILE.parquet`` (data pages,
    footer, provenance, the check itself): ``load(FILE)`` and ``read_provenance(FILE)``
    refuse each in one line naming the file, and never return other rows."""
    out, ref = single_file(tmp_path)
    whole = out.read_bytes()
    rng = np.random.default_rng(34)
    for bit in rng.integers(0, len(whole) * 8, size=100 * FUZZ_SCALE):
        flip(out, int(bit))
        for read in (lambda: load(out).collect(), lambda: runner.read_provenance(out)):
            with pytest.raises(SimlabError) as e:
                read()
            assert str(out) in one_line(e.value), int(bit)
        assert runner._file_check(out) == "damaged", int(bit)
        out.write_bytes(whole)
    assert load(out, verify=True).collect().equals(ref)


def test_every_bit_of_the_check_and_its_key_is_covered(tmp_path):
    """The check's own bytes (its key, prefix, size, sha256 and sum) are few enough that
    random flips seldom land there: each of their bits, flipped, is seen by the sum on
    every read (it covers the sha256 part too); ``verify=True`` sees the sha256's."""
    out, _ = single_file(tmp_path)
    whole = out.read_bytes()
    key, value = whole.find(runner.CHECK_KEY.encode()), whole.find(runner.CHECK_PREFIX.encode())
    assert key > 0 and value > 0
    spans = [(key, len(runner.CHECK_KEY)), (value, len(runner.BLANK_CHECK))]
    for start, length in spans:
        for bit in range(8 * start, 8 * (start + length)):
            flip(out, bit)
            assert runner._file_check(out) == "damaged", bit  # the sum alone sees it
            out.write_bytes(whole)
    assert runner._file_check(out, sha=True) == "ok"
    flip(out, 8 * (value + len(runner.CHECK_PREFIX) + 20))  # a digit of the sha256
    with pytest.raises(SimlabError, match="run.parquet.*is damaged"):
        load(out, verify=True)


def test_a_single_file_grown_or_cut_is_refused(tmp_path):
    out, _ = single_file(tmp_path)
    whole = out.read_bytes()
    for changed in (whole + b"\0" * 8, b"\0" * 8 + whole, whole[8:], whole[:-8]):
        out.write_bytes(changed)
        with pytest.raises(SimlabError) as e:
            load(out)
        assert str(out) in one_line(e.value)


def test_a_single_file_rewritten_by_another_tool_loads_unchecked(tmp_path):
    """polars (or any tool) rewriting the rows drops the check: the file loads as before,
    with or without the provenance kept, but ``verify=True`` says it cannot be verified.
    A rewrite that copies the check over with the rest of the metadata is refused, unless
    its bytes come out the same."""
    out, ref = single_file(tmp_path)
    meta = pl.read_parquet_metadata(out)
    plain, kept, copied = (tmp_path / f"{name}.parquet" for name in ("plain", "kept", "copied"))
    ref.write_parquet(plain)
    ref.write_parquet(kept, metadata={runner.PROVENANCE_KEY: meta[runner.PROVENANCE_KEY]})
    # (the same rows written the same way give the same bytes, which pass)
    ref.write_parquet(copied, compression="snappy",
                      metadata={k: v for k, v in meta.items() if k != "ARROW:schema"})
    for f in (plain, kept):
        assert runner._file_check(f) == "unchecked"
        assert load(f).collect().equals(ref)
        with pytest.raises(SimlabError) as e:
            load(f, verify=True)
        assert f"{str(f)!r} cannot be verified" in one_line(e.value)
    assert runner.read_provenance(kept) == runner.read_provenance(out)
    with pytest.raises(SimlabError, match="copied.parquet.*is damaged"):
        load(copied)


def test_a_merged_results_file_and_a_written_frame_are_checked(tmp_path):
    """The other single files simlab writes: a report's or ``compare --out``'s merged
    ``results.parquet`` (``merge_part_files``) and one written from a frame
    (``write_checked_parquet``, the report's ``_write_parquet``)."""
    parts = tmp_path / "parts"
    parts.mkdir()
    p = runner.plan(FAKE, 30, chunk_size=10)
    frame = simulate(FAKE, 30)
    for i in range(3):
        frame.slice(10 * i, 10).write_parquet(parts / f"part-{i:05d}.parquet")
    merged, written = tmp_path / "results.parquet", tmp_path / "results_b.parquet"
    runner.merge_part_files(runner.part_files(parts), merged, p)
    runner.write_checked_parquet(frame, written, {runner.PROVENANCE_KEY: json.dumps(p.provenance())})
    for f in (merged, written):
        assert load(f, verify=True).collect().equals(frame)
        assert runner.read_provenance(f)["n"] == 30
        flip(f, 8 * 30)
        with pytest.raises(SimlabError, match=f"{f.name}.*is damaged"):
            load(f)
    assert [x.name for x in tmp_path.iterdir() if x.suffix == ".tmp"] == []
