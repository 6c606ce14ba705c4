"""Plug-in games (issue 41 item 2): ``simlab new-game`` writes a package that installs and
runs as it is, and a game installed outside simlab is listed, run, reported, duelled and
balanced like simlab's own, in worker processes too; without it simlab is unchanged.

The package is installed into a temporary folder (``pip install --target``), never into
the environment: other tests, running at the same time, must not see the plug-in. The
subprocesses find its entry points through ``PYTHONPATH``.
"""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from simlab.cli.commands import main
from simlab.cli.newgame import MAX_NAME, template_files

NAME = "demo_tricks"
COMMITTED = Path(__file__).parent / "plugins" / NAME
REGENERATE = (f"regenerate it: rm -rf tests/plugins/{NAME} && simlab new-game {NAME} --out "
              f"tests/plugins/{NAME}")

pytestmark = pytest.mark.serial  # installs a package and runs a dozen simlab commands (~2 min)


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


@pytest.fixture(scope="module")
def plugin(tmp_path_factory) -> dict:
    """The template written by ``simlab new-game`` and installed into ``site``."""
    root = tmp_path_factory.mktemp("plugin")
    out = root / NAME
    assert main(["new-game", NAME, "--out", str(out)]) == 0
    site = root / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-build-isolation", "--no-index", "--target", str(site),
                           str(COMMITTED)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return {"out": out, "site": site, "env": env, "root": root}


def simlab(*args: str, env: dict | None = None, cwd: Path | None = None
           ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simlab", *args], capture_output=True,
                          text=True, env=env, cwd=cwd)


def test_new_game_writes_the_committed_copy(plugin):
    out = plugin["out"]
    assert len(template_files()) == len(_files(out)), _files(out)
    assert _files(out) == _files(COMMITTED), REGENERATE
    same, different, missing = filecmp.cmpfiles(out, COMMITTED, _files(out), shallow=False)
    assert not different and not missing, f"{different + missing} differ; {REGENERATE}"


@pytest.mark.parametrize("name,why", [("1bad", "lower-case Python identifier"),
                                      ("Bad", "lower-case Python identifier"),
                                      ("my-game", "lower-case Python identifier"),
                                      ("class", "lower-case Python identifier"),
                                      ("belote", "already a game"),
                                      ("x" * 33, "at most 32 characters")])
def test_a_bad_name_is_refused_in_one_line(name, why, tmp_path, capsys):
    assert main(["new-game", name, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and why in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_the_code_is_ruff_clean_for_any_allowed_name(tmp_path):
    """The template's lines leave room for the longest name new-game accepts."""
    pytest.importorskip("ruff")
    for name in ("x", "n" * MAX_NAME):
        out = tmp_path / name
        assert main(["new-game", name, "--out", str(out)]) == 0
        done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."],
                              capture_output=True, text=True, cwd=out)
        assert done.returncode == 0, done.stdout + done.stderr


def test_an_occupied_folder_is_refused(plugin, capsys):
    assert main(["new-game", NAME, "--out", str(plugin["out"])]) == 2
    assert "already exists" in capsys.readouterr().err


def test_list_shows_the_plugin_only_when_installed(plugin):
    listed = simlab("list", env=plugin["env"])
    assert listed.returncode == 0, listed.stderr
    lines = [line for line in listed.stdout.splitlines() if line.startswith(NAME)]
    assert {line.split()[0] for line in lines} == {NAME, f"{NAME}_belote_house"}
    assert all("plug-in simlab-demo-tricks" in line for line in lines)
    plain = simlab("list")
    assert plain.returncode == 0 and NAME not in plain.stdout
    assert simlab("run", NAME, "-n", "10").returncode == 2


def test_a_bad_knob_of_the_plugin_is_refused_in_one_line(plugin):
    for values, says in ((["players=9"], "allowed: int from 2 to 4"),
                         (["players=4", "hand_size=8"], "must be at most 32")):
        done = simlab("run", NAME, "--set", *values, "-n", "10", env=plugin["env"])
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert says in done.stderr and "Traceback" not in done.stderr


def test_run_rows_are_the_same_for_any_jobs(plugin):
    frames = []
    for jobs in ("1", "2"):
        path = plugin["root"] / f"run-{jobs}.parquet"
        done = simlab("run", NAME, "-n", "2000", "--jobs", jobs, "--chunk-size", "300",
                      "--out", str(path), env=plugin["env"])
        assert done.returncode == 0, done.stderr
        frames.append(pl.read_parquet(path))
    assert frames[0].height == 2000 and frames[0].equals(frames[1])
    # every deal's points: one a trick (5) and the last-trick bonus (1)
    assert (frames[0].select(pl.sum_horizontal(pl.col("^score_s.*$")) == 6)).to_series().all()


def test_report(plugin):
    out = plugin["root"] / "report"
    done = simlab("report", NAME, "-n", "2000", "--out", str(out), env=plugin["env"])
    assert done.returncode == 0, done.stderr
    text = (out / "report.md").read_text()
    assert "## Findings" in text and f"`{NAME}.q1.leader_edge`" in text
    assert "search vs heuristic" in text and "strong hands win" in text


def test_duel_search_against_heuristic(plugin):
    done = simlab("duel", NAME, "--x", "search", "--y", "heuristic", "-n", "200",
                  env=plugin["env"])
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[0]
    assert line.startswith(f"search vs heuristic in {NAME}: +") and "n = 200 deals" in line
    low = float(line.split("[")[1].split(",")[0])
    assert low > 0, line  # a positive edge, its interval clear of zero (fixed seed)


def test_balance(plugin):
    out = plugin["root"] / "balance"
    done = simlab("balance", NAME, "--vary", "last_trick_bonus=0..3", "--objective",
                  f"|{NAME}.q1.leader_edge|", "--budget", "20000", "--search-n", "20",
                  "--no-progress", "--out", str(out), env=plugin["env"])
    assert done.returncode == 0, done.stderr
    assert "recommended" in done.stdout and (out / "report.html").exists()


def test_the_template_tests_pass(plugin):
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "tests"], capture_output=True, text=True,
                          env=plugin["env"], cwd=plugin["out"])
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


def test_house_rule_rescores_belote_deals(plugin):
    paths = {}
    for game in ("belote", f"{NAME}_belote_house"):
        paths[game] = plugin["root"] / f"{game}.parquet"
        done = simlab("run", game, "-n", "300", "--out", str(paths[game]), env=plugin["env"])
        assert done.returncode == 0, done.stderr
    book, house = (pl.read_parquet(p) for p in paths.values())
    scores = [c for c in book.columns if c.startswith("score_s")]
    assert book.drop(scores).equals(house.drop(scores))  # the same deals, the same play
    for c in scores:
        assert ((book[c] + 5) // 10 * 10 == house[c]).all()
    assert (house.select(pl.col(scores) % 10 == 0)).to_numpy().all()
    refused = simlab("run", f"{NAME}_belote_house", "-n", "5", "--level", "match",
                     env=plugin["env"])
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
