"""Random command lines over every command: each one either works (exit 0) or ends with one
``simlab: error:`` line (exit 2, or 1 for a run stopped part-way) — never a traceback.

Deals are kept to a few dozen so each example is quick; derandomized in CI (conftest.py),
explored with random seeds by ``make fuzz``."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simlab.cli import main

FUZZ_SCALE = int(os.environ.get("SIMLAB_FUZZ_SCALE", "1"))
GAMES = ["belote", "manille", "tarot", "president", "rami", "tarot_4_saisons",
         "tarot_double_detente", "nope", ""]
SMALL_N = ["1", "7", "30", "0", "-3", "1,5", "1e13", "x", "2.5", "1_0"]
VALUES = ["1", "0", "-1", "true", "x", "", "1e9", "all", "99999999999999999999", "a=b", "=", "deal",
          "match", "heuristic", "random", "search", "random,heuristic", "queen_points=5",
          "target=1", "players=3", "players=9", "search_worlds=1", "search_worlds=0"]
OPTIONS = {
    "run": ["--seed", "--set", "--policy", "--jobs", "--chunk-size", "--level", "--out",
            "--record-hands", "--no-progress", "--variant", "--backend"],
    "how-often": ["--seed", "--set", "--policy", "--jobs", "--level", "--where", "--record-hands",
                  "--no-progress", "--backend"],
    "compare": ["--seed", "--a", "--b", "--policy", "--policy-b", "--jobs", "--level", "--no-progress"],
    "sweep": ["--seed", "--grid", "--set", "--policy", "--jobs", "--level", "--out", "--no-progress"],
    "report": ["--seed", "--set", "--policy", "--jobs", "--level", "--out", "--precision", "--max-deals",
               "--no-progress"],
    "duel": ["--seed", "--x", "--y", "--set", "--jobs", "--no-progress"],
    "params": [], "list": [], "repair": [], "experiment": ["--jobs", "--no-progress"],
}
FLAGS = {"--record-hands", "--no-progress"}


@st.composite
def command_lines(draw, tmp: str) -> list[str]:
    cmd = draw(st.sampled_from(sorted(OPTIONS) + ["frobnicate"]))
    argv = [cmd]
    if cmd in ("run", "how-often", "compare", "sweep", "report", "duel", "params"):
        argv.append(draw(st.sampled_from(GAMES)))
    if cmd in ("repair", "experiment"):
        argv.append(draw(st.sampled_from([tmp, f"{tmp}/missing", f"{tmp}/x.toml", ""])))
    if cmd == "how-often":
        argv.append(draw(st.sampled_from(["pl.col('deal') >= 0", "pl.col('nope')", "1 +", "__import__('os')"])))
    if cmd in ("run", "how-often", "compare", "sweep", "report", "duel") and draw(st.integers(0, 9)):
        argv += ["-n", draw(st.sampled_from(SMALL_N))]
    for opt in draw(st.lists(st.sampled_from(OPTIONS.get(cmd, []) or ["--help"]), max_size=4)):
        argv.append(opt)
        if opt in FLAGS or opt == "--help":
            continue
        if opt == "--out":
            argv.append(draw(st.sampled_from([f"{tmp}/o.parquet", f"{tmp}/d/", f"{tmp}/r", tmp])))
        else:
            argv.append(draw(st.sampled_from(VALUES)))
    return argv


@settings(max_examples=60 * FUZZ_SCALE, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_random_command_lines_never_trace_back(tmp_path_factory, data, capsys):
    tmp = tmp_path_factory.mktemp("cli")
    (tmp / "x.toml").write_text("[[not an experiment")
    argv = data.draw(command_lines(str(tmp)))
    if "-n" not in argv and argv[0] in ("how-often", "report", "duel"):
        argv += ["-n", "5"]  # their defaults (100,000 or 2,000 deals) are too slow for a fuzz example
    if "search" in ",".join(argv):
        argv += ["--set", "search_worlds=1"] if argv[0] in ("run", "how-often", "sweep", "report", "duel") else []
    cwd = os.getcwd()
    os.chdir(tmp)  # default outputs (sweep reports) land in the temporary folder
    try:
        code = main(argv)
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err
    assert code in (0, 1, 2), (argv, code)
    if code != 0:
        lines = [x for x in err.strip().splitlines() if x.startswith("simlab:")]
        assert len(lines) >= 1 and "Traceback" not in err, (argv, err)


@pytest.mark.parametrize("argv", [["run"], ["duel"], ["repair"], ["how-often", "belote"]])
def test_missing_arguments_are_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simlab: error:"), err
