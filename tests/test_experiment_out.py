"""`simlab experiment --out`: a fresh folder under out/ by default, and a folder holding an
earlier run's report is written into only with --force (issue 33, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab.cli.commands import main
from simlab.cli.experiment import load_experiment, report_folder
from simlab.engine.knobs import SimlabError

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["-n", "300", "--jobs", "1", "--no-progress", "--players-n", "0"]


def _experiment(folder: Path, extra: str = "") -> Path:
    f = folder / "queen.toml"
    f.write_text(f'name = "queen"\ngame = "belote"\nn = 500_000\nseed = 2\n{extra}'
                 "[compare]\nb = { queen_points = 5 }\n")
    return f


def test_report_folder_is_fresh_by_default(tmp_path):
    base = tmp_path / "out"
    assert report_folder("queen", base=base) == base / "queen"
    (base / "queen").mkdir(parents=True)  # an empty folder is fresh
    assert report_folder("queen", base=base) == base / "queen"
    (base / "queen" / "report.md").write_text("earlier")
    assert report_folder("queen", base=base) == base / "queen-2"
    (base / "queen-2").mkdir()
    (base / "queen-2" / "notes.txt").write_text("anything")  # not empty: not fresh either
    (base / "queen-3").write_text("a file")
    assert report_folder("queen", base=base) == base / "queen-4"


@pytest.mark.parametrize("name", ["report.md", "report.html", "results.parquet",
                                  "results_b.parquet"])
def test_a_folder_with_a_report_needs_force(tmp_path, name):
    folder = tmp_path / "rep"
    assert report_folder("queen", folder) == folder  # missing: fine
    folder.mkdir()
    (folder / "other.txt").write_text("x")
    assert report_folder("queen", folder) == folder  # no report in it: fine
    (folder / name).write_text("earlier")
    with pytest.raises(SimlabError, match="holds the report of an earlier run; add --force"):
        report_folder("queen", folder)
    assert report_folder("queen", folder, force=True) == folder


def test_the_files_out_is_used_unless_the_command_line_gives_one(tmp_path):
    ex = load_experiment(_experiment(tmp_path, f'out = "{tmp_path / "mine"}"\n'))
    assert ex.out_dir() == tmp_path / "mine"
    assert ex.out_dir(tmp_path / "cli") == tmp_path / "cli"
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "report.md").write_text("earlier")
    with pytest.raises(SimlabError, match="--force"):
        ex.out_dir()


def test_quick_look_leaves_the_committed_report_alone(tmp_path, monkeypatch, capsys):
    """The README's quick look (a committed experiment with -n) writes under out/, never
    into reports/; a second one gets a folder of its own; --out into a folder holding a
    report is refused without --force and replaces it with --force."""
    monkeypatch.chdir(tmp_path)
    committed = tmp_path / "reports" / "queen"
    committed.mkdir(parents=True)
    (committed / "report.md").write_text("the committed example")
    f = _experiment(tmp_path)

    assert main(["experiment", str(f), *SMALL]) == 0
    assert "report: out/queen/report.md" in capsys.readouterr().out
    assert (tmp_path / "out" / "queen" / "report.md").is_file()
    assert (committed / "report.md").read_text() == "the committed example"
    assert sorted(p.name for p in committed.iterdir()) == ["report.md"]

    assert main(["experiment", str(f), *SMALL]) == 0  # the first look's report is kept
    assert "report: out/queen-2/report.md" in capsys.readouterr().out

    assert main(["experiment", str(f), *SMALL, "--out", str(committed)]) == 2
    err = capsys.readouterr().err
    assert "holds the report of an earlier run; add --force" in err
    assert (committed / "report.md").read_text() == "the committed example"

    assert main(["experiment", str(f), *SMALL, "--out", str(committed), "--force"]) == 0
    text = (committed / "report.md").read_text()
    assert "300 deals" in text and "Comparison" in text


def test_committed_experiments_name_no_out():
    """The committed experiment files leave `out` to the command line, so that their quick
    look goes to out/ and regenerating their report in reports/ takes --out ... --force."""
    files = sorted((ROOT / "experiments").glob("*.toml"))
    assert files
    for f in files:
        keys = [line.split("=")[0].strip() for line in f.read_text().splitlines()]
        assert "out" not in keys, f
