"""Random command lines over every command: each one either works (exit 0) or ends with one
``simlab: error:`` line (exit 2, or 1 for a run stopped part-way) — never a traceback.

Deals are kept to a few dozen so each example is quick; derandomized in CI (conftest.py),
explored with random seeds by ``make fuzz`` (SIMLAB_FUZZ_SCALE=10: 2,500 command lines).
Besides plain values it draws hostile inputs: deeply nested and wrong-typed TOML files,
names over 255 bytes, paths over 4,096 bytes, paths that are not UTF-8, NaN and infinities
for every float knob of every game, a run directory whose manifest.json is a folder."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simlab.cli.commands import main
from simlab.games import game_names, get_game

FUZZ_SCALE = int(os.environ.get("SIMLAB_FUZZ_SCALE", "1"))
# CI: 60 command lines; make fuzz (scale 10): 2,500
EXAMPLES = 60 if FUZZ_SCALE <= 1 else 250 * FUZZ_SCALE
GAMES = [*game_names(), "nope", "belot", ""]


def _float_knob_settings() -> list[str]:
    """``knob=nan`` (and infinities) for every float knob of every game."""
    from dataclasses import fields

    out = []
    for slug in game_names():
        for f in fields(get_game(slug).knobs):
            if (f.type if isinstance(f.type, str) else f.type.__name__) == "float":
                out += [f"{f.name}={v}" for v in ("nan", "inf", "-inf")]
    return out


NON_FINITE = _float_knob_settings()
LONG_NAME = "n" * 300
BAD_UTF8 = "x\udcff"  # a file name with the byte 0xff, as Python hands it over
# hostile files written in the temporary folder of each example (name -> text)
FILES = {
    "x.toml": "[[not an experiment",
    "deep.toml": "a = " + "[" * 3000 + "]" * 3000 + "\n",
    "deep_table.toml": "a = " + "{b = " * 500 + "1" + "}" * 500 + "\n",
    "title.toml": 'game = "belote"\nn = 5\ntitle = 5\n',
    "policies.toml": 'game = "belote"\nn = 5\npolicies = 5\n',
    "precision.toml": 'game = "belote"\nprecision = "0.01"\n',
    "game.toml": "game = [1]\nn = 5\n",
    "nan.toml": 'game = "frappe"\nn = 5\n[knobs]\ncard_weight = nan\n',
    "seed.toml": 'game = "belote"\nn = 5\nseed = -1\n',
    "sweep.toml": 'game = "belote"\nn = 5\n[sweep]\ntake_threshold_1 = [6, "x"]\n',
    "variant.toml": 'game = "belote"\nqueen_pionts = 5\n',
    "binary.toml": "\udcff",
}
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
    "columns": ["--set", "--level"], "demo": ["--no-progress"],
    "tune": ["--seed", "--set", "--variant", "--knobs", "--out", "--rounds", "--policy"],
    "bench": ["--games", "--set", "--jobs-list"],
}
FLAGS = {"--record-hands", "--no-progress"}


@st.composite
def command_lines(draw, tmp: str) -> list[str]:
    cmd = draw(st.sampled_from(sorted(OPTIONS) + ["frobnicate"]))
    argv = [cmd]
    paths = [f"{tmp}/o.parquet", f"{tmp}/d/", f"{tmp}/r", tmp, f"{tmp}/{LONG_NAME}.parquet",
             f"{tmp}/{'p/' * 2100}o", f"{tmp}/{BAD_UTF8}/", f"{tmp}/{BAD_UTF8}.parquet",
             f"{tmp}/mdir/", ""]
    files = [f"{tmp}/{name}" for name in FILES] + [f"{tmp}/{LONG_NAME}.toml",
                                                   f"{tmp}/{BAD_UTF8}.toml", f"{tmp}/missing"]
    if cmd in ("run", "how-often", "compare", "sweep", "report", "duel", "params", "columns",
               "tune"):
        argv.append(draw(st.sampled_from(GAMES)))
    if cmd == "repair":
        argv.append(draw(st.sampled_from([tmp, f"{tmp}/missing", f"{tmp}/mdir", f"{tmp}/x.toml",
                                          f"{tmp}/{LONG_NAME}", f"{tmp}/{BAD_UTF8}", ""])))
    if cmd == "experiment":
        argv.append(draw(st.sampled_from([tmp, *files, ""])))
    if cmd == "how-often":
        argv.append(draw(st.sampled_from(["pl.col('deal') >= 0", "pl.col('nope')", "1 +", "__import__('os')"])))
    if cmd in ("run", "how-often", "compare", "sweep", "report", "duel") and draw(st.integers(0, 9)):
        argv += ["-n", draw(st.sampled_from(SMALL_N))]
    for opt in draw(st.lists(st.sampled_from(OPTIONS.get(cmd, []) or ["--help"]), max_size=4)):
        argv.append(opt)
        if opt in FLAGS or opt == "--help":
            continue
        if opt == "--out":
            argv.append(draw(st.sampled_from(paths)))
        elif opt == "--variant":
            argv.append(draw(st.sampled_from(files)))
        elif opt in ("--set", "--a", "--b", "--grid"):
            argv.append(draw(st.sampled_from(VALUES + NON_FINITE + files)))
        elif opt == "--knobs":
            argv.append(draw(st.sampled_from(["take_threshold_1", "continue_min", "nope", "",
                                              "take_threshold_1,"])))
        elif opt == "--games":
            argv.append(draw(st.sampled_from(GAMES + ["belote,", ",", "belote,nope"])))
        else:
            argv.append(draw(st.sampled_from(VALUES)))
    return argv


def _bounded(argv: list[str]) -> list[str]:
    """Keep each example quick: small runs for the commands whose defaults are long."""
    cmd = argv[0]
    if "-n" not in argv and cmd in ("how-often", "report", "duel", "demo", "tune", "bench"):
        argv += ["-n", "5" if cmd != "tune" else "10"]  # defaults: 10^5, 10^6 or 2,000 deals
    if cmd == "tune":
        argv += ["--validate", "10", "--jobs", "1"] + ([] if "--knobs" in argv else
                                                      ["--knobs", "take_threshold_1"])
    if cmd == "bench":
        argv += ["--search-n", "0", "--jobs-list", "1"] + ([] if "--games" in argv else
                                                          ["--games", "belote"])
    if cmd == "demo":
        argv += ["--out", "demo.parquet"]
    return argv


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_random_command_lines_never_trace_back(tmp_path_factory, data, capsys):
    tmp = tmp_path_factory.mktemp("cli")
    for name, text in FILES.items():
        (tmp / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    (tmp / "mdir" / "manifest.json").mkdir(parents=True)
    argv = _bounded(data.draw(command_lines(str(tmp))))
    if "search" in ",".join(argv):
        argv += ["--set", "search_worlds=1"] if argv[0] in ("run", "how-often", "sweep", "report", "duel") else []
    cwd = os.getcwd()
    os.chdir(tmp)  # default outputs (sweep reports) land in the temporary folder
    try:
        code = main(argv)
    finally:
        os.chdir(cwd)
        if os.environ.get("SIMLAB_FUZZ_LOG"):  # make fuzz: one line per command line tried
            with open(os.environ["SIMLAB_FUZZ_LOG"], "a", encoding="utf-8",
                      errors="backslashreplace") as log:
                log.write(repr(argv)[:300] + "\n")
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


HOSTILE = [
    ["run", "belote", "-n", "5", "--variant", "{tmp}/deep.toml"],
    ["experiment", "{tmp}/deep_table.toml"],
    ["run", "belote", "-n", "5", "--out", f"{{tmp}}/{LONG_NAME}.parquet"],
    ["run", "belote", "-n", "5", "--out", "{tmp}/" + "p/" * 2100],
    ["run", "belote", "-n", "5", "--out", f"{{tmp}}/{BAD_UTF8}/"],
    ["experiment", f"{{tmp}}/{BAD_UTF8}.toml"],
    ["experiment", "{tmp}/binary.toml"],
    *[["experiment", f"{{tmp}}/{name}"] for name in ("title.toml", "policies.toml",
                                                     "precision.toml", "game.toml", "nan.toml",
                                                     "seed.toml", "sweep.toml", "variant.toml")],
    ["run", "belote", "-n", "5", "--out", "{tmp}/mdir/", "--no-progress"],
    ["repair", "{tmp}/mdir"],
    *[["run", "frappe", "-n", "5", "--set", s] for s in NON_FINITE if s.startswith("card_weight")],
]


@pytest.mark.parametrize("argv", HOSTILE, ids=lambda a: " ".join(a)[:60])
def test_hostile_inputs_are_one_line_exit_2(tmp_path, capsys, argv):
    for name, text in FILES.items():
        (tmp_path / name).write_bytes(text.encode("utf-8", "surrogateescape"))
    (tmp_path / "mdir" / "manifest.json").mkdir(parents=True)
    assert main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("simlab: error:"), err
