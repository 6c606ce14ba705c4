"""Fingerprints of every game's rows and metrics at a fixed seed, to prove that a change
meant to move code (not rules) changes nothing: ``tests/test_same_results.py`` compares
today's fingerprints with ``tests/data/golden.json``.

Regenerate only when a rule or a player is meant to change (and say so in the commit)::

    .venv/bin/python tests/golden.py --write
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path

import polars as pl

GOLDEN = Path(__file__).parent / "data" / "golden.json"
SEED = 20261127
# (level, policies, n): heuristic deals, random deals and a few heuristic matches per game.
RUNS = (("deal", "heuristic", 300), ("deal", "random", 100), ("match", "heuristic", 8))


def frame_digest(frame: pl.DataFrame) -> str:
    """sha256 over every column's name, dtype, nulls and values, in order."""
    h = hashlib.sha256()
    for name in frame.columns:
        s = frame[name]
        h.update(f"{name}:{s.dtype}\n".encode())
        h.update(s.is_null().to_numpy().tobytes())
        if s.dtype.is_numeric() or s.dtype == pl.Boolean:
            h.update(s.fill_null(0).to_numpy().tobytes())
        else:
            h.update("\x1f".join(s.cast(pl.String).fill_null("").to_list()).encode())
    return h.hexdigest()


def metrics_digest(game: str, frame: pl.DataFrame, level: str) -> str:
    """sha256 over every metric's key, value, interval and count, as the report shows them."""
    import simlab

    ms = simlab.compute_metrics(game, frame, level=level)
    lines = [f"{m.key}|{m.title}|{m.estimate!r}" for m in ms.metrics]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


# report.md lines that tell when and how fast, not what.
_CLOCK = re.compile(r"^\| (run time|kernels \(not in the run time\)|report date) \|")


def report_digest(game: str, folder: Path) -> str:
    """sha256 of ``report.md`` for a small ``simlab report`` run, clock lines left out."""
    import contextlib
    import io

    from simlab.cli.commands import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(["report", game, "-n", "120", "--seed", str(SEED), "--out", str(folder),
                     "--players-n", "40"])
    assert code in (0, None), f"simlab report {game} exited {code}"
    text = (folder / "report.md").read_text().splitlines()
    kept = [line for line in text if not _CLOCK.match(line)]
    return hashlib.sha256("\n".join(kept).encode()).hexdigest()


def fingerprints(reports: Path | None = None) -> dict[str, str]:
    import simlab

    out = {}
    for game in simlab.game_names():
        for level, policies, n in RUNS:
            frame = simlab.simulate(game, n, seed=SEED, policies=policies, level=level)
            key = f"{game}/{level}/{policies}/{n}"
            out[key + "/rows"] = frame_digest(frame)
            if policies == "heuristic":
                out[key + "/metrics"] = metrics_digest(game, frame, level)
        if reports is not None:
            out[f"{game}/report.md"] = report_digest(game, reports / game)
    return out


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        found = fingerprints(Path(tmp))
    if "--write" in sys.argv:
        GOLDEN.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(found)} fingerprints to {GOLDEN}")
    else:
        print(json.dumps(found, indent=1, sort_keys=True))
