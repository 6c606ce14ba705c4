"""Rerun the README's example commands and rewrite their output blocks.

    .venv/bin/python scripts/readme_examples.py          # rewrite README.md in place
    .venv/bin/python scripts/readme_examples.py --check  # exit 1 if an output is stale

An output block is a ```text block right after the marker line ``OUTPUT_MARK``, itself
right after a ```sh block: the script runs that block's commands (as written, with the
venv's ``simlab``, ``COLUMNS=100``, no progress line, in a scratch folder holding the
README's files, see ``FILE_MARK``) and puts their standard output there. Outputs depend
only on the seed, not on the machine or the number of cores; a command that prints a
timing must not have an output block.

The same module tells ``tests/test_readme.py`` how to run every shell example quickly:
``small`` shrinks ``-n`` and similar sizes, and ``skip_reason`` names the examples a test
cannot run (installing, a cluster).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
OUTPUT_MARK = "<!-- output of the commands above, written by scripts/readme_examples.py -->"
FILE_MARK = re.compile(r"<!-- file: (\S+) -->")  # the next fenced block is this file's text

SMALL_N = 5_000  # deals for a heuristic run in the test
SEARCH_N = 10  # deals when a search player is involved (about 1000x slower)
SMALL_MAX_DEALS = 20_000  # the first batch of a --precision run


@dataclass
class Block:
    info: str  # the fence's info string: sh, python, toml, text
    start: int  # line index of the opening fence
    end: int  # line index of the closing fence
    body: str
    file: str | None = None  # FILE_MARK just before it


def blocks(text: str) -> list[Block]:
    """Every fenced code block of a Markdown text."""
    lines = text.split("\n")
    out: list[Block] = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("```") and lines[i].strip() != "```":
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            mark = FILE_MARK.fullmatch(lines[i - 1].strip()) if i > 0 else None
            out.append(Block(lines[i][3:].strip(), i, j, "\n".join(lines[i + 1:j]),
                             mark.group(1) if mark else None))
            i = j + 1
        else:
            i += 1
    return out


def commands(block: Block) -> list[list[str]]:
    """The commands of a ```sh block, one per line, as argv lists (comments dropped)."""
    return [argv for line in block.body.split("\n") if (argv := shlex.split(line, comments=True))]


def shell_examples(text: str) -> list[list[str]]:
    return [argv for b in blocks(text) if b.info == "sh" for argv in commands(b)]


def python_examples(text: str) -> list[str]:
    return [b.body for b in blocks(text) if b.info == "python"]


def skip_reason(argv: list[str]) -> str | None:
    """Why a test cannot run this example, or None."""
    if argv[0] in ("make", "pip"):
        return "installs packages"
    if argv[0] == "dask" or "--backend" in argv or any("HEAD" in a for a in argv):
        return "needs a cluster"
    return None


def small(argv: list[str]) -> list[str]:
    """The example shrunk for a test: ``-n`` at most SMALL_N deals (SEARCH_N with search
    players), ``--max-deals`` at most SMALL_MAX_DEALS, ``experiment`` with ``-n``, ``bench``
    timing one game briefly; everything else as written."""
    out = list(argv)
    search = "duel" in out or any("search" in a for a in out)
    cap = SEARCH_N if search else SMALL_N

    def shrink(flag: str, limit: int) -> None:
        if flag in out:
            k = out.index(flag) + 1
            value = int(float(out[k].replace("_", "").replace(",", "")))
            out[k] = str(min(value, limit))

    shrink("-n", cap)
    shrink("--max-deals", SMALL_MAX_DEALS)
    if out[:2] == ["simlab", "experiment"] and "-n" not in out:
        out += ["-n", str(SMALL_N)]
    if out[:2] == ["simlab", "balance"]:
        shrink("--budget", 30_000)
        if "--budget" not in out:
            out += ["--budget", "30000"]
        shrink("--search-n", 10)
        if "--search-n" not in out:
            out += ["--search-n", "10"]
    if out[:2] == ["simlab", "bench"]:
        out += ["--games", "belote", "-n", "2000", "--search-n", "0", "--jobs-list", "1"]
    return out


def write_files(text: str, folder: Path) -> None:
    """The README's example files (blocks after FILE_MARK) and experiments/ into ``folder``."""
    for b in blocks(text):
        if b.file is not None:
            (folder / b.file).write_text(b.body + "\n", encoding="utf-8")
    shutil.copytree(ROOT / "experiments", folder / "experiments", dirs_exist_ok=True)


def run_output(argvs: list[list[str]], cwd: Path) -> str:
    """Standard output of the commands, run as a user would (COLUMNS=100, no progress)."""
    bindir = Path(sys.executable).parent
    env = dict(os.environ, COLUMNS="100", PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}")
    text = []
    for argv in argvs:
        if argv[0] == "simlab" and "--no-progress" not in argv and len(argv) > 2:
            argv = [*argv, "--no-progress"]
        r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{shlex.join(argv)} failed (exit {r.returncode}):\n{r.stderr}")
        text.append(r.stdout.rstrip("\n"))
    return "\n".join(text)


def regenerate(text: str) -> str:
    """``text`` with every output block rewritten."""
    lines = text.split("\n")
    found = blocks(text)
    with tempfile.TemporaryDirectory(prefix="simlab-readme-") as tmp:
        write_files(text, Path(tmp))
        for prev, b in reversed(list(zip(found, found[1:], strict=False))):
            mark = lines[b.start - 1].strip() if b.start > 0 else ""
            if b.info != "text" or mark != OUTPUT_MARK or prev.info != "sh":
                continue
            print(f"running: {prev.body.strip()}", file=sys.stderr)
            output = run_output(commands(prev), Path(tmp))
            lines[b.start + 1:b.end] = output.split("\n")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    new = regenerate(text)
    if "--check" in argv:
        if new != text:
            print("README.md: example outputs are stale; run scripts/readme_examples.py",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        README.write_text(new, encoding="utf-8")
        print("README.md: example outputs rewritten", file=sys.stderr)
    else:
        print("README.md: example outputs unchanged", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
