"""Compiled kernels are cached per version of the sources they read: a rule changed in a
game's rules.py must never run through a kernel compiled before (numba alone keys a
function on its own file)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simlab.engine import jit


@pytest.fixture
def tree(tmp_path, monkeypatch):
    src = Path(jit.__file__).resolve().parent.parent  # the simlab package
    root = tmp_path / "simlab"
    shutil.copytree(src, root, ignore=shutil.ignore_patterns("__pycache__", "*.nb*"))
    monkeypatch.setattr(jit, "_ROOT", root)
    monkeypatch.setattr(jit, "_CACHE_BASE", tmp_path / "cache")

    def dirs() -> dict[str, str]:
        for f in (jit._shared_digest, jit._game_packages, jit.cache_dir_for):
            f.cache_clear()
        return {m: jit.cache_dir_for(m) for m in (
            "simlab.mechanics.tricks", "simlab.games.belote.kernels", "simlab.games.belote_noisette.kernels",
            "simlab.games.sept.kernels", "simlab.games.tarot_4_saisons.rules")}
    yield root, dirs
    for f in (jit._shared_digest, jit._game_packages, jit.cache_dir_for):
        f.cache_clear()


def _touch(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")


def test_a_rule_change_moves_its_games_kernels_and_those_that_import_it(tree):
    root, dirs = tree
    before = dirs()
    assert len(set(before.values())) == len(before)
    _touch(root / "games" / "belote" / "rules.py")
    after = dirs()
    changed = {m for m in before if before[m] != after[m]}
    # Belote Noisette plays with Belote's tables: it compiles afresh too
    assert changed == {"simlab.games.belote.kernels", "simlab.games.belote_noisette.kernels"}


def test_a_shared_mechanism_moves_every_kernel(tree):
    root, dirs = tree
    before = dirs()
    _touch(root / "mechanics" / "tricks.py")
    after = dirs()
    assert all(before[m] != after[m] for m in before)


def test_the_engines_knobs_move_every_kernel(tree):
    root, dirs = tree
    before = dirs()
    _touch(root / "engine" / "knobs.py")
    after = dirs()
    assert all(before[m] != after[m] for m in before)


def test_reports_and_questions_keep_the_compiled_kernels(tree):
    root, dirs = tree
    before = dirs()
    _touch(root / "analysis" / "report.py")
    _touch(root / "cli" / "commands.py")
    _touch(root / "players" / "duel.py")
    _touch(root / "engine" / "runner.py")
    _touch(root / "games" / "sept" / "questions.py")
    assert dirs() == before


def test_the_folder_is_under_numba_cache_dir_when_set():
    assert Path(jit.cache_dir_for("simlab.games.sept.kernels")).parent == jit._CACHE_BASE
