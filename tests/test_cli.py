"""The command line: output of list/params/run/demo and one-line errors (exit 2)."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest
from test_runner import BELOTE_ERROR, needs_belote

import simlab
import simlab.games
from simlab.cli.commands import main


@pytest.fixture
def fake(monkeypatch):
    """Register the pure-Python fake game of tests/test_runner.py as 'fake'."""
    monkeypatch.setitem(simlab.games._MODULES, "fake", "test_runner")
    return "fake"


def error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("simlab: error: ")
    return lines[0]


def test_list(capsys, fake):
    assert main(["list"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # descriptions wrap in their column
    assert "belote" in out and "manille" in out
    assert "fake" in out and "a pure-Python stand-in for tests" in out
    if not BELOTE_ERROR:
        assert "4 players in 2 teams" in out


@needs_belote
def test_params_belote(capsys):
    assert main(["params", "belote"]) == 0
    out = capsys.readouterr().out
    for name in ("queen_points", "dix_de_der", "litige", "carry_over | lost",
                 "take_threshold_1", "policy", "[seed text: 5]", "1001"):
        assert name in out, name
    row = next(line for line in out.splitlines() if line.startswith("take_threshold_1"))
    assert " policy " in row


def test_params_fake(capsys, fake):
    assert main(["params", "fake"]) == 0
    out = capsys.readouterr().out
    assert "bonus" in out and "[seed text: 7]" in out and "plain | fancy" in out


def test_run_summary_and_parquet(capsys, tmp_path, fake):
    out = tmp_path / "r.parquet"
    assert main(["run", "fake", "-n", "1e2", "--seed", "4", "--set", "bonus=2", "mode=fancy",
                 "--chunk-size", "30", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "100 deals in" in text and "seat 0" in text and "dealer+1" in text
    assert "someone takes (all deals)" in text and "95% Wilson" in text and f"wrote {out}" in text
    prov = simlab.read_provenance(out)
    assert prov["knobs"]["bonus"] == 2 and prov["knobs"]["mode"] == "fancy"
    assert prov["n"] == 100 and prov["seed"] == 4
    assert pl.read_parquet(out).equals(simlab.simulate("fake", 100, seed=4,
                                                       params={"bonus": 2, "mode": "fancy"}))
    assert main(["run", "fake", "-n", "20", "--level", "match", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "matches/s" in text and "someone takes (all deals)" not in text
    assert "deals per match" in text


@needs_belote
def test_run_belote(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # the table's width (a narrower one wraps labels)
    out = tmp_path / "b.parquet"
    v = tmp_path / "v.toml"
    v.write_text('game = "belote"\nqueen_points = 5\nlitige = "lost"\n')
    assert main(["run", "belote", "-n", "300", "--variant", str(v), "--set", "litige=carry_over",
                 "--policy", "heuristic,random,heuristic,random", "--out", str(out),
                 "--no-progress"]) == 0
    assert "taker success (made, of the taken deals with a result)" in capsys.readouterr().out
    prov = simlab.read_provenance(out)
    assert prov["knobs"]["queen_points"] == 5 and prov["knobs"]["litige"] == "carry_over"
    assert prov["policies"] == ["heuristic", "random", "heuristic", "random"]


@needs_belote
def test_demo_small(capsys, tmp_path):
    out = tmp_path / "demo.parquet"
    assert main(["demo", "-n", "3000", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    for word in ("deals/s", "taker success", "95% Wilson", "seat 3", "dealer+3", "3,000"):
        assert word in text, word
    assert simlab.read_provenance(out)["n"] == 3000


BAD_TOML = "queen_points = = 5\n"


@pytest.mark.parametrize("argv, words", [
    (["run", "nope", "-n", "10"], "valid games: belote"),
    (["params", "nope"], "valid games: belote"),
    (["run", "GAME", "-n", "10", "--set", "nope=1"], "valid knobs:"),
    (["run", "GAME", "-n", "10", "--set", "KNOB=abc"], "expects int"),
    (["run", "GAME", "-n", "10", "--set", "KNOB=999"], "out of range; allowed: int from"),
    (["run", "GAME", "-n", "10", "--set", "nokey"], "--set expects key=value"),
    (["run", "GAME", "-n", "10", "--variant", "BAD"], "not valid TOML"),
    (["run", "GAME", "-n", "10", "--variant", "MISSING"], "not found"),
    (["run", "GAME", "-n", "10", "--level", "match", "--record-hands"],
     "valid levels for record_hands: deal"),
    (["run", "GAME", "-n", "10", "--level", "hand"], "invalid choice: 'hand'"),
    (["run", "GAME", "-n", "10", "--policy", "smart"], "valid policies: random, heuristic"),
    (["run", "GAME", "-n", "0"], ">= 1"),
    (["run", "GAME", "-n", "ten"], "expected an integer"),
    (["run", "GAME", "-n", "10", "--seed", "-3"], "seed"),
    (["run", "GAME", "-n", "10", "--jobs", "0"], "-1 (all cores)"),
    (["run", "GAME", "-n", "10", "--chunk-size", "0"], "chunk size"),
    (["run", "GAME"], "required: -n"),
    (["frobnicate"], "invalid choice"),
    (["run", "GAME", "-n", "1,5"], "commas only between groups of three digits"),
    (["run", "GAME", "-n", "1e13"], "at most 1e+11"),
    (["run", "GAME", "-n", "10", "--jobs", "99999999999999999999"], "at most 4096 jobs"),
    (["run", "GAME", "-n", "10", "--variant", "DIR"], "not a regular file"),
    (["run", "GAME", "-n", "10", "--variant", "EMPTY"], "holds no knob = value line"),
    (["run", "GAME", "-n", "10", "--variant", "QUOTED"], "got the string 'true'"),
])
@pytest.mark.parametrize("game", ["fake", pytest.param("belote", marks=needs_belote)])
def test_errors_are_one_line_exit_2(capsys, tmp_path, fake, argv, words, game):
    knob = {"fake": "bonus", "belote": "queen_points"}[game]
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD_TOML)
    (tmp_path / "empty.toml").write_text("# nothing\n")
    bool_knob = {"fake": "bold", "belote": "announcements"}[game]
    (tmp_path / "quoted.toml").write_text(f'{bool_knob} = "true"\n')
    subst = {"GAME": game, "BAD": str(bad), "MISSING": str(tmp_path / "missing.toml"),
             "DIR": str(tmp_path), "EMPTY": str(tmp_path / "empty.toml"),
             "QUOTED": str(tmp_path / "quoted.toml")}
    argv = [subst.get(a, a).replace("KNOB", knob) for a in argv]
    out = tmp_path / "o" / "x.parquet"
    if argv[0] == "run":
        argv += ["--out", str(out), "--no-progress"]
    assert main(argv) == 2
    line = error_line(capsys)
    assert words in line, line
    assert not (tmp_path / "o").exists()


def test_bench_rejects_unknown_game(capsys):
    assert main(["bench", "--games", "nope"]) == 2
    assert "valid games" in error_line(capsys)


def test_help_has_examples(capsys):
    for cmd in ("run", "params", "list", "demo", "bench"):
        assert main([cmd, "--help"]) == 0
        assert "example" in capsys.readouterr().out, cmd
    assert main(["--help"]) == 0
    assert "simlab demo" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert simlab.__version__ in capsys.readouterr().out


def test_python_dash_m():
    r = subprocess.run([sys.executable, "-m", "simlab", "run", "nope", "-n", "5"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().startswith("simlab: error: unknown game 'nope'")


@needs_belote
def test_command_exits_promptly_with_its_output_and_files_whole(tmp_path):
    """The command ends with os._exit after its exit handlers (cli.entry): what it
    printed into a pipe and the run directory it wrote are complete, and the exit code is
    main's; the same rows as in this process."""
    import os

    out = tmp_path / "run"
    env = {**os.environ, "SIMLAB_MIN_PARALLEL_SECONDS": "0"}  # a worker process, too
    r = subprocess.run([sys.executable, "-m", "simlab", "run", "belote", "-n", "3000",
                        "--jobs", "2", "--chunk-size", "1000", "--out", f"{out}/",
                        "--no-progress"], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().endswith("(load it with simlab.load)")
    assert "3,000 deals" in r.stdout
    assert simlab.load(out, verify=True).collect().equals(simlab.simulate("belote", 3000))


@needs_belote
def test_startup_times_are_whole_runs():
    from simlab.cli.commands import startup_times

    times = startup_times("belote", runs=2)
    assert len(times) == 2 and 0 < times[0] <= times[1]


def test_bench_times_a_variant(capsys):
    assert main(["bench", "--games", "manille", "--set", "variant=belge", "-n", "300",
                 "--search-n", "0", "--jobs-list", "1"]) == 0
    out = capsys.readouterr().out
    assert "manille" in out and "variant=belge" in out and "300" in out
    # a knob a benched game does not have: one line, before any work
    assert main(["bench", "--games", "manille,belote", "--set", "variant=belge", "-n", "300"]) == 2
    assert "unknown knob 'variant' for belote" in capsys.readouterr().err


def test_bench_scaling_varies_a_valid_rule_knob_in_every_game():
    """bench --scaling times compare and sweep on a rule knob the game accepts at four
    values (so the sweep has 4 points); Belote's is the Queen's points."""
    from simlab.cli.commands import _bench_knob
    from simlab.games import game_names, get_game

    assert _bench_knob("belote") == ("queen_points", [3, 4, 5, 6])
    for slug in game_names():
        name, values = _bench_knob(slug)
        g = get_game(slug)
        assert len(set(values)) == 4
        for v in values:
            assert getattr(g.make_knobs({name: v}), name) == v


def test_bench_counts_the_cpu_time_of_a_command_and_of_its_workers():
    """bench --scaling's "cores busy" and "ceiling" read the CPU time of a command's whole
    process tree: a child that burns CPU in a worker process of its own, and waits for it,
    has that worker's time counted; the ceiling is cores x wall(1 job) / CPU(all jobs)."""
    from simlab.cli.commands import _timed, scaling_ceiling

    burn = ("import time\nt = time.process_time()\n"
            "while time.process_time() - t < 0.4: pass\n")
    script = (f"import subprocess, sys\n{burn}"
              f"subprocess.run([sys.executable, '-c', {burn!r}], check=True)\nprint('done')\n")
    wall, out, cpu = _timed([sys.executable, "-c", script])
    assert out.strip() == "done"
    assert 0.8 <= cpu <= wall + 0.2  # both processes' 0.4 s, run one after the other
    # a run needing 12 CPU s on 2 cores takes at least 6 s: at most x1.5 over a 9 s run
    assert scaling_ceiling(9.0, 12.0, 2) == pytest.approx(1.5)
    assert scaling_ceiling(9.0, 0.0, 2) == float("inf")


def test_bench_whole_commands_in_alternating_pairs(monkeypatch, capsys):
    """bench --scaling --repeat K times each command in K pairs, --jobs 1 then --jobs all,
    and shows medians, the range of the pairs' speedups, cores busy and the ceiling."""
    import itertools

    import simlab.cli.commands as cli

    calls = []
    # per command and pair: jobs 1 takes 10, 12 or 11 s on 1.1 cores; jobs all 6, 5, 8 s
    # on 1.8 cores (a run prints its own time as well)
    walls = itertools.cycle([10.0, 6.0, 12.0, 5.0, 11.0, 8.0])

    def fake(argv):
        calls.append(argv[argv.index("--jobs") + 1])
        wall = next(walls)
        busy = 1.1 if calls[-1] == "1" else 1.8
        return wall, f"1,000 deals in {wall - 1:.1f} s", wall * busy

    monkeypatch.setattr(cli, "_timed", fake)
    monkeypatch.setenv("COLUMNS", "100")  # the table's width (whatever runs the test)
    cli._command_scaling("belote", 2000, 2, repeat=3)
    out = capsys.readouterr().out
    assert calls == ["1", "all"] * 3 * 4  # run, report, compare, sweep; pairs alternate
    assert "3 alternating pairs, medians" in out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("run 2e3"))
    # medians 11 and 6 s: x1.83; simulation only 10/5; ceiling 2 x 11 / (6 x 1.8)
    assert lines[at].split() == ["run", "2e3", "11.00", "6.00", "x1.83", "x2.00", "1.10", "/",
                                 "1.80", f"x{2 * 11 / (6 * 1.8):.2f}"]
    assert lines[at + 1].strip() == "the pairs' speedups: x1.38, x1.67, x2.40"  # 10/6, 11/8, 12/5
    assert any(line.startswith("sweep 500 (x 4 points)") for line in lines)
