"""Every Python block and every shell example of README.md runs without error.

Shell examples run in-process (``simlab.cli.commands.main``) in a scratch folder that holds the
README's example files and a copy of experiments/, shrunk by ``scripts/readme_examples.py``
(``small``: ``-n`` at most 5,000 deals, 10 with search players, ...); installing and
cluster commands are skipped (``skip_reason``). Output blocks are checked for staleness by
``scripts/readme_examples.py --check`` (slower: it reruns them as written)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("readme_examples", ROOT / "scripts" / "readme_examples.py")
examples = importlib.util.module_from_spec(_spec)
sys.modules["readme_examples"] = examples  # dataclasses look their module up there
_spec.loader.exec_module(examples)

TEXT = (ROOT / "README.md").read_text(encoding="utf-8")


def _run(argv: list[str]) -> None:
    from simlab.cli.commands import main

    if argv[0] == "simlab":
        args = argv[1:]
    elif argv[:3] == ["python", "-m", "simlab"]:
        args = argv[3:]
    elif argv[:2] == ["python", "-c"]:
        exec(compile(argv[2], "<README python -c>", "exec"), {})
        return
    else:
        raise AssertionError(f"README example of an unknown kind: {shlex.join(argv)}")
    if len(args) > 1 and "--no-progress" not in args and args[0] not in ("list", "params", "bench",
                                                                           "columns", "repair"):
        args = [*args, "--no-progress"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(args)
    assert code == 0, f"{shlex.join(argv)} exited {code}:\n{out.getvalue()[-2000:]}"


def test_readme_has_examples_and_output_blocks():
    shell = examples.shell_examples(TEXT)
    assert len(shell) >= 20 and len(examples.python_examples(TEXT)) >= 2
    assert TEXT.count(examples.OUTPUT_MARK) >= 3
    assert any(b.file == "my_variant.toml" for b in examples.blocks(TEXT))


def test_small_and_skip_rules():
    assert examples.small(["simlab", "run", "belote", "-n", "1e9"])[-1] == "5000"
    assert examples.small(["simlab", "duel", "belote", "-n", "4000"])[-1] == "10"
    assert examples.small(["simlab", "sweep", "belote", "-n", "500"])[-1] == "500"
    assert examples.small(["simlab", "experiment", "x.toml"])[-2:] == ["-n", "5000"]
    assert examples.skip_reason(["pip", "install", "simlab[dask]"])
    assert examples.skip_reason(["simlab", "run", "belote", "--backend", "dask"])
    assert examples.skip_reason(["simlab", "list"]) is None


def test_every_readme_example_runs(tmp_path, monkeypatch):
    examples.write_files(TEXT, tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    ran = skipped = 0
    for argv in examples.shell_examples(TEXT):
        if examples.skip_reason(argv):
            skipped += 1
            continue
        _run(examples.small(argv))
        ran += 1
    for code in examples.python_examples(TEXT):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, "<README python block>", "exec"), {})
    assert ran >= 20 and skipped <= 8


def test_regenerate_fills_output_blocks(monkeypatch):
    """The script runs an output block's commands and puts their stdout in the block."""
    calls = []

    def fake_output(argvs, cwd):
        calls.append(argvs)
        return "line 1\nline 2"

    monkeypatch.setattr(examples, "run_output", fake_output)
    text = f"a\n```sh\nsimlab list\n```\n\n{examples.OUTPUT_MARK}\n```text\nold\n```\nb\n"
    new = examples.regenerate(text)
    assert calls == [[["simlab", "list"]]]
    assert f"{examples.OUTPUT_MARK}\n```text\nline 1\nline 2\n```\nb\n" in new
    assert "old" not in new


@pytest.mark.skipif(not (ROOT / "experiments" / "README.md").exists(), reason="no experiments/")
def test_experiments_readme_example_is_complete():
    """The complete example in experiments/README.md loads and uses every key."""
    import tomllib

    from simlab.cli.experiment import TOP_KEYS, load_experiment

    text = (ROOT / "experiments" / "README.md").read_text(encoding="utf-8")
    tomls = [b.body for b in examples.blocks(text) if b.info == "toml"]
    full = tomllib.loads(tomls[0])
    assert set(TOP_KEYS) - set(full) == {"precision", "max_deals"}  # exclusive with n
    assert {"precision", "max_deals"} <= set(tomllib.loads(tomls[1]))
    for key in TOP_KEYS:
        assert f"| `{key}` |" in text or f"| `[{key}]` |" in text, key
    for i, body in enumerate(tomls[:2]):
        path = ROOT / ".pytest_cache" / f"experiment-example-{i}.toml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(body, encoding="utf-8")
        ex = load_experiment(path)
        assert ex.game.slug == "belote"
    assert load_experiment(ROOT / ".pytest_cache" / "experiment-example-0.toml").compare_b == {
        "queen_points": 5}
