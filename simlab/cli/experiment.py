"""Experiment files: one TOML file says what to simulate and which report to write.

```toml
name = "belote-queen-value"          # report folder: a fresh out/<name>/ (or `out`)
game = "belote"
title = "Belote: does the Queen's value change the game?"
n = 1_000_000                         # or: precision = 0.002 and max_deals = 10_000_000
seed = 1
level = "deal"                        # or "match"
policies = "heuristic"
jobs = -1                             # all cores

[knobs]                               # the variant under study (default: the seed's rules)
target = 1001

[compare]                             # optional: variant B against `knobs`, same deals
b = { queen_points = 5 }

[sweep]                               # optional: a grid over knobs, same deals
take_threshold_1 = [6, 7, 8, 9]
```
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simlab.engine.game import Game
from simlab.engine.knobs import SimlabError, check_file_knobs, check_path, read_toml, toml_line

TOP_KEYS = ("name", "game", "title", "n", "precision", "max_deals", "seed", "level",
            "policies", "jobs", "out", "notes", "knobs", "compare", "sweep")
FIRST_BATCH = 20_000  # a precision run's first batch (and max_deals' lower bound)
SEED_LIMIT = 2**63
MAX_SWEEP_POINTS = 1000  # each point is a run of n deals


@dataclass
class Experiment:
    name: str
    game: Game  # the file's slug, resolved by load_experiment
    title: str | None = None
    n: int | None = None
    precision: float | None = None
    max_deals: int | None = None
    seed: int = 0
    level: str = "deal"
    policies: str = "heuristic"
    jobs: int = -1
    out: Path | None = None
    notes: list[str] = field(default_factory=list)
    knobs: dict[str, Any] = field(default_factory=dict)
    compare_b: dict[str, Any] | None = None
    sweep: dict[str, list[Any]] | None = None

    def out_dir(self, out: str | Path | None = None, force: bool = False) -> Path:
        """The report folder: ``out`` (the command line's ``--out``), else the file's
        ``out``, else a fresh folder under ``out/`` (see :func:`report_folder`)."""
        return report_folder(self.name, out if out is not None else self.out, force)


DEFAULT_BASE = Path("out")  # where an experiment's report goes unless told
# Files a report writes: a folder holding one of them holds an earlier run's report
REPORT_FILES = ("report.md", "report.html", "results.parquet", "results_a.parquet",
                "results_b.parquet")


def holds_report(folder: Path) -> bool:
    """Whether ``folder`` holds a report (an earlier run's: one of ``REPORT_FILES``)."""
    return folder.is_dir() and any((folder / f).exists() for f in REPORT_FILES)


def report_folder(name: str, out: str | Path | None = None, force: bool = False,
                  base: Path = DEFAULT_BASE) -> Path:
    """Where an experiment named ``name`` writes its report.

    Without ``out``: ``base/<name>/``, or ``base/<name>-2/``, ``-3``... the first one that
    is missing or empty, so a quick look never replaces an earlier report (the committed
    examples in ``reports/`` least of all). With ``out``: that folder, refused in one line
    if it holds an earlier run's report, unless ``force``."""
    if out is None:
        folder, k = base / name, 1
        while folder.exists() and not (folder.is_dir() and not any(folder.iterdir())):
            k += 1
            folder = base / f"{name}-{k}"
        return folder
    folder = Path(out)
    if holds_report(folder) and not force:
        raise SimlabError(f"{str(folder)!r} holds the report of an earlier run; add --force to "
                          "replace it, or give another --out (without --out a fresh folder "
                          f"under {str(base)}/ is used)")
    return folder


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# key -> (what a valid value is, test); checked before any work
_KINDS: dict[str, tuple[str, Any]] = {
    "name": ("a non-empty string", lambda v: isinstance(v, str) and v.strip() != ""),
    "game": ("a game slug as a string, e.g. \"belote\"", lambda v: isinstance(v, str)),
    "title": ("a string", lambda v: isinstance(v, str)),
    "n": ("an integer >= 1", lambda v: _is_int(v) and v >= 1),
    "precision": ("a number between 0 and 1, e.g. 0.002",
                  lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
                  and math.isfinite(v) and 0 < v < 1),
    "max_deals": (f"an integer >= {FIRST_BATCH:,} (the first batch)",
                  lambda v: _is_int(v) and v >= FIRST_BATCH),
    "seed": ("an integer from 0 to 2**63-1", lambda v: _is_int(v) and 0 <= v < SEED_LIMIT),
    "level": ("\"deal\" or \"match\"", lambda v: v in ("deal", "match")),
    "policies": ("a string such as \"heuristic\" or \"search,heuristic,heuristic,heuristic\"",
                 lambda v: isinstance(v, str) and v.strip() != ""),
    "jobs": ("-1 (every core) or an integer >= 1", lambda v: _is_int(v) and (v == -1 or v >= 1)),
    "out": ("a folder path as a string", lambda v: isinstance(v, str) and v.strip() != ""),
    "notes": ("a list of strings", lambda v: isinstance(v, list)
              and all(isinstance(x, str) for x in v)),
    "knobs": ("a table of knob = value lines", lambda v: isinstance(v, dict)),
    "compare": ("a table with one key, b = { knob = value, ... }",
                lambda v: isinstance(v, dict) and set(v) == {"b"} and isinstance(v["b"], dict)),
    "sweep": ("a table of knob = [values] lines, each a non-empty list",
              lambda v: isinstance(v, dict) and all(isinstance(x, list) and x for x in v.values())),
}


def load_experiment(path: str | Path) -> Experiment:
    """An experiment file, every key's type and value checked (the game's knobs and
    policies too) before any work: an error is one line naming the file, the key and,
    where it can, the line."""
    p = check_path(path, "experiment file")
    where = f"experiment file {str(p)!r}"
    data, text = read_toml(p, "experiment file")
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        from simlab.engine.knobs import did_you_mean

        hint = did_you_mean(unknown[0], TOP_KEYS)
        if "game" in data and not any(k in data for k in ("n", "precision", "knobs")):
            # game + knob lines: a variant file (`run --variant`, `compare --b`)
            hint = (f"; it reads like a variant file: give it to `simlab run {data['game']} "
                    f"--variant {p}` or `simlab compare {data['game']} --b {p}`, or put its "
                    "knobs under [knobs] with an n")
        raise SimlabError(f"{where}{toml_line(text, unknown[0])}: unknown key {unknown[0]!r}"
                          f"{hint if hint.startswith(' (') else ''}; valid keys: "
                          f"{', '.join(TOP_KEYS)}{hint if hint.startswith(';') else ''}")
    if "game" not in data:
        raise SimlabError(f"{where}: missing key 'game'")
    if ("n" in data) == ("precision" in data):
        raise SimlabError(f"{where}: give exactly one of 'n' or 'precision' (with 'max_deals')")
    for key, (kind, ok) in _KINDS.items():
        if key in data and not ok(data[key]):
            raise SimlabError(f"{where}{toml_line(text, key)}: '{key}' must be {kind}, got "
                              f"{_short(data[key])}")
    if "max_deals" in data and "precision" not in data:
        raise SimlabError(f"{where}: 'max_deals' caps a 'precision' run; with 'n' leave it out")
    name = data.get("name", p.stem)
    check_path(name, f"{where}: name")
    if "out" in data:
        check_path(data["out"], f"{where}: out")
    compare = data.get("compare")
    ex = Experiment(
        name=name, game=data["game"], title=data.get("title"),
        n=data.get("n"), precision=data.get("precision"), max_deals=data.get("max_deals"),
        seed=data.get("seed", 0), level=data.get("level", "deal"),
        policies=data.get("policies", "heuristic"), jobs=data.get("jobs", -1),
        out=Path(data["out"]) if "out" in data else None, notes=list(data.get("notes", [])),
        knobs=dict(data.get("knobs", {})), compare_b=None if compare is None else compare["b"],
        sweep=data.get("sweep"))
    ex.game = _check_game_values(ex, where, text)  # the slug, resolved once
    return ex


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_game_values(ex: Experiment, where: str, text: str) -> Game:
    """The game, its knobs (base, B, every sweep point) and policies, as the run will
    use them: refused here, before the run's work. Returns the game."""
    from simlab.engine.runner import plan
    from simlab.games import get_game

    try:
        g = get_game(ex.game)
    except SimlabError as e:
        raise SimlabError(f"{where}{toml_line(text, 'game')}: {e}") from None
    check_file_knobs(f"{where} [knobs]", text, g, ex.knobs)
    if ex.compare_b is not None:
        check_file_knobs(f"{where} [compare] b", text, g, ex.compare_b)
    if ex.sweep is not None:
        check_file_knobs(f"{where} [sweep]", text, g, ex.sweep, lists=True)
    try:
        plan(g, 1, seed=ex.seed, params=ex.knobs, policies=ex.policies, jobs=1,
             level=ex.level, progress=False)
        if ex.compare_b is not None:
            g.make_knobs({**ex.knobs, **ex.compare_b})
        if ex.sweep is not None:
            keys = list(ex.sweep)
            points = math.prod(len(v) for v in ex.sweep.values())
            if points > MAX_SWEEP_POINTS:
                raise SimlabError(f"[sweep] has {points:,} points; at most "
                                  f"{MAX_SWEEP_POINTS:,}")
            for combo in itertools.product(*ex.sweep.values()):
                g.make_knobs({**ex.knobs, **dict(zip(keys, combo, strict=True))})
    except SimlabError as e:
        raise SimlabError(f"{where}: {e}") from None
    return g
