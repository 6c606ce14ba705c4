"""Experiment files: one TOML file says what to simulate and which report to write.

```toml
name = "belote-queen-value"          # report folder: reports/<name>/ (or `out`)
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

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simlab.knobs import SimlabError

TOP_KEYS = ("name", "game", "title", "n", "precision", "max_deals", "seed", "level",
            "policies", "jobs", "out", "notes", "knobs", "compare", "sweep")


@dataclass
class Experiment:
    name: str
    game: str
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

    @property
    def out_dir(self) -> Path:
        return self.out if self.out is not None else Path("reports") / self.name


def load_experiment(path: str | Path) -> Experiment:
    p = Path(path)
    where = f"experiment file {str(p)!r}"
    if p.exists() and not p.is_file():
        raise SimlabError(f"{where} is not a regular file (a directory?); give an experiment TOML file")
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SimlabError(f"{where} not found") from None
    except OSError as e:
        raise SimlabError(f"{where} cannot be read: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SimlabError(f"{where} is not valid TOML: {e}") from None
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        hint = ""
        if "game" in data and not any(k in data for k in ("n", "precision", "knobs")):
            # game + knob lines: a variant file (`run --variant`, `compare --b`)
            hint = (f"; it reads like a variant file: give it to `simlab run {data['game']} "
                    f"--variant {p}` or `simlab compare {data['game']} --b {p}`, or put its "
                    "knobs under [knobs] with an n")
        raise SimlabError(f"{where}: unknown key {unknown[0]!r}; valid keys: "
                          f"{', '.join(TOP_KEYS)}{hint}")
    if "game" not in data:
        raise SimlabError(f"{where}: missing key 'game'")
    if ("n" in data) == ("precision" in data):
        raise SimlabError(f"{where}: give exactly one of 'n' or 'precision' (with 'max_deals')")
    for key, kind in (("knobs", dict), ("compare", dict), ("sweep", dict), ("notes", list)):
        if key in data and not isinstance(data[key], kind):
            raise SimlabError(f"{where}: '{key}' must be a {'table' if kind is dict else 'list'}")
    compare = data.get("compare")
    if compare is not None:
        bad = [k for k in compare if k not in ("b",)]
        if bad or not isinstance(compare.get("b"), dict):
            raise SimlabError(f"{where}: [compare] takes one key, b = {{ knob = value, ... }}")
    sweep = data.get("sweep")
    if sweep is not None:
        for k, v in sweep.items():
            if not isinstance(v, list) or not v:
                raise SimlabError(f"{where}: [sweep] {k} must be a non-empty list of values")
    return Experiment(
        name=str(data.get("name", p.stem)), game=data["game"], title=data.get("title"),
        n=data.get("n"), precision=data.get("precision"), max_deals=data.get("max_deals"),
        seed=data.get("seed", 0), level=data.get("level", "deal"),
        policies=data.get("policies", "heuristic"), jobs=data.get("jobs", -1),
        out=Path(data["out"]) if "out" in data else None, notes=list(data.get("notes", [])),
        knobs=dict(data.get("knobs", {})), compare_b=None if compare is None else compare["b"],
        sweep=sweep)
